// FmPartition: building (suffix array, BWT, Huffman-shaped wavelet tree, C table, SA samples),
// searching (backward search, locate by LF walks to a sample) and the metadata codecs.
#include "lance/index/fm/fm_index.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <queue>
#include <unordered_set>

namespace lance::index::fm {

std::string SanitizeFm(std::string_view bytes) {
  std::string out(bytes);
  for (char& c : out) {
    if (c == '\0' || c == '\xff') c = ' ';
  }
  return out;
}

std::string FmPartitionFile(uint64_t id) { return fmt::format("part_{}_fm.lance", id); }

namespace {

struct HuffNode {
  bool leaf = true;
  uint8_t byte = 0;
  int32_t left = -1, right = -1;
};

}  // namespace

FmPartition FmPartition::Build(const std::vector<std::pair<uint64_t, std::string>>& docs) {
  std::vector<std::pair<uint64_t, std::string_view>> views;
  views.reserve(docs.size());
  for (const auto& [row, bytes] : docs) views.emplace_back(row, bytes);
  return BuildRaw(views);
}

FmPartition FmPartition::BuildRaw(const std::vector<std::pair<uint64_t, std::string_view>>& docs) {
  FmPartition p;
  if (docs.empty()) return p;
  std::string text;
  size_t total = 1;
  for (const auto& d : docs) total += d.second.size() + 1;
  text.resize(total);
  p.doc_starts_.reserve(docs.size());
  p.row_ids_.reserve(docs.size());
  size_t at = 0;
  for (const auto& [row, bytes] : docs) {
    p.doc_starts_.push_back(at);
    p.row_ids_.push_back(row);
    // SanitizeFm's rule, on a copy (a loop the compiler vectorizes)
    auto* dst = reinterpret_cast<unsigned char*>(text.data()) + at;
    if (!bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
    for (size_t i = 0; i < bytes.size(); ++i) {
      const unsigned char c = dst[i];
      dst[i] = (c == 0 || c == 0xFF) ? static_cast<unsigned char>(' ') : c;
    }
    at += bytes.size();
    text[at++] = '\xff';
  }
  text[at] = '\0';
  const uint64_t n = text.size();
  p.bwt_len_ = n;
  // The BWT, the SA samples and the byte counts (the BWT's are the text's) in one pass over
  // the suffix array.
  std::string bwt(n, '\0');
  std::array<uint64_t, 256> freq{};
  p.sa_samples_.reserve((n + kFmSampleRate - 1) / kFmSampleRate);
  auto from_sa = [&](const auto& sa) {
    for (uint64_t i = 0; i < n; ++i) {
      const auto at = static_cast<uint64_t>(sa[i]);
      const char c = text[at == 0 ? n - 1 : at - 1];
      bwt[i] = c;
      ++freq[static_cast<unsigned char>(c)];
      if (i % kFmSampleRate == 0) p.sa_samples_.push_back(at);
    }
  };
  if (FmBwtByTokens(text, &bwt, &p.sa_samples_)) {
    // the BWT's byte counts are the text's; four tables keep repeated bytes' increments apart
    std::array<std::array<uint64_t, 256>, 4> f4{};
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
      for (size_t j = 0; j < 4; ++j) ++f4[j][static_cast<unsigned char>(text[i + j])];
    }
    for (; i < n; ++i) ++f4[0][static_cast<unsigned char>(text[i])];
    for (size_t c = 0; c < 256; ++c) freq[c] = f4[0][c] + f4[1][c] + f4[2][c] + f4[3][c];
  } else if (n < static_cast<uint64_t>(INT32_MAX)) {
    from_sa(FmSuffixArray32(text));
  } else {
    from_sa(FmSuffixArray(text));
  }
  for (size_t c = 0; c < 256; ++c) p.c_table_[c + 1] = p.c_table_[c] + freq[c];

  // Huffman tree: repeatedly merge the two lightest (ties: the earliest made), the first
  // taken on the left -- the shape lance 12 builds, so the files are the same.
  std::vector<HuffNode> tree;
  using Entry = std::tuple<uint64_t, uint64_t, int32_t>;  // weight, tie, node
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  uint64_t tie = 0;
  for (int v = 0; v < 256; ++v) {
    if (freq[v] == 0) continue;
    tree.push_back(HuffNode{true, static_cast<uint8_t>(v)});
    heap.emplace(freq[v], tie++, static_cast<int32_t>(tree.size() - 1));
  }
  if (heap.size() == 1) {
    Entry only = heap.top();
    heap.pop();
    tree.push_back(HuffNode{true, 255});
    heap.emplace(0, tie++, static_cast<int32_t>(tree.size() - 1));
    heap.emplace(std::get<0>(only), tie++, std::get<2>(only));
  }
  while (heap.size() > 1) {
    const Entry a = heap.top();
    heap.pop();
    const Entry b = heap.top();
    heap.pop();
    tree.push_back(HuffNode{false, 0, std::get<2>(a), std::get<2>(b)});
    heap.emplace(std::get<0>(a) + std::get<0>(b), tie++, static_cast<int32_t>(tree.size() - 1));
  }
  const int32_t root = std::get<2>(heap.top());
  // Node ids in preorder; codes and paths as the walk goes.
  struct Frame {
    int32_t node;
    uint32_t bits;
    uint8_t len;
    std::vector<uint32_t> path;
    int32_t parent;  // wavelet id of the parent, -1 at the root
    bool right;
  };
  std::vector<Frame> stack = {{root, 0, 0, {}, -1, false}};
  while (!stack.empty()) {
    Frame f = std::move(stack.back());
    stack.pop_back();
    const HuffNode& h = tree[static_cast<size_t>(f.node)];
    Child as_child;
    if (h.leaf) {
      p.codes_[h.byte] = Code{f.bits, f.len, f.path};
      as_child = Child{true, h.byte};
    } else {
      const auto id = static_cast<uint32_t>(p.children_.size());
      p.children_.emplace_back();
      as_child = Child{false, id};
      std::vector<uint32_t> path = f.path;
      path.push_back(id);
      stack.push_back({h.right, (f.bits << 1) | 1u, static_cast<uint8_t>(f.len + 1), path, static_cast<int32_t>(id), true});
      stack.push_back({h.left, f.bits << 1, static_cast<uint8_t>(f.len + 1), std::move(path), static_cast<int32_t>(id), false});
    }
    if (f.parent >= 0) {
      auto& pc = p.children_[static_cast<size_t>(f.parent)];
      (f.right ? pc.second : pc.first) = as_child;
    }
  }
  p.nodes_.resize(p.children_.size());
  for (int v = 0; v < 256; ++v) {
    for (uint32_t id : p.codes_[v].path) p.nodes_[id].len += freq[v];
  }
  // Level by level: the bytes under one node of a level lie in one run of `cur`, in BWT order
  // (a stable partition of the runs of the level above), so each node's bits are written in one
  // sequential pass with its word in a register, and the bytes that go on to an internal child
  // are copied into that child's run for the next level. Every byte is read once per level of
  // its code, as a walk down each byte's path would, without that walk's store-to-load chain
  // through the nodes' fill state.
  for (size_t id = 0; id < p.nodes_.size(); ++id) p.nodes_[id].words.assign((p.nodes_[id].len + 63) / 64, 0);
  struct Run {
    uint32_t node;
    uint64_t begin;
  };
  std::vector<Run> runs;
  if (!p.nodes_.empty()) runs.push_back(Run{0, 0});  // the root (preorder id 0)
  std::string cur = std::move(bwt), nxt(n, '\0');
  std::array<uint64_t, 256> bit_of{};
  unsigned char sink = 0;  // where bytes going to a leaf are dropped
  for (uint32_t level = 0; !runs.empty(); ++level) {
    for (int v = 0; v < 256; ++v) {
      const Code& code = p.codes_[v];
      bit_of[v] = code.length > level ? (code.bits >> (code.length - 1 - level)) & 1u : 0;
    }
    std::vector<Run> next_runs;
    uint64_t out_at = 0;
    for (const Run& r : runs) {
      unsigned char* dst[2];
      uint64_t adv[2];
      const auto& kids = p.children_[r.node];
      for (int side = 0; side < 2; ++side) {
        const Child& child = side == 0 ? kids.first : kids.second;
        if (child.leaf) {
          dst[side] = &sink;
          adv[side] = 0;
        } else {
          dst[side] = reinterpret_cast<unsigned char*>(nxt.data()) + out_at;
          adv[side] = 1;
          next_runs.push_back(Run{child.value, out_at});
          out_at += p.nodes_[child.value].len;
        }
      }
      const auto* src = reinterpret_cast<const unsigned char*>(cur.data()) + r.begin;
      const uint64_t len = p.nodes_[r.node].len;
      uint64_t* words = p.nodes_[r.node].words.data();
      unsigned char *d0 = dst[0], *d1 = dst[1];
      const uint64_t a0 = adv[0], a1 = adv[1];
      for (uint64_t i = 0; i < len; i += 64) {
        const uint64_t m = std::min<uint64_t>(64, len - i);
        uint64_t word = 0;
        for (uint64_t j = 0; j < m; ++j) {
          const unsigned char c = src[i + j];
          const uint64_t b = bit_of[c];
          word |= b << j;
          *(b != 0 ? d1 : d0) = c;
          d0 += a0 & (b - 1);  // b 0: the left run takes it
          d1 += a1 & (0 - b);
        }
        *words++ = word;
      }
    }
    runs = std::move(next_runs);
    cur.swap(nxt);
  }
  return p;
}

// ---- file columns and metadata ---------------------------------------------------------------

namespace {

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

template <typename T>
void PutLe(std::string* out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out->push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
}

// words[from, to) as little-endian bytes (one copy on a little-endian host)
std::string WordBytes(const std::vector<uint64_t>& words, size_t from, size_t to) {
  std::string out;
  if constexpr (std::endian::native == std::endian::little) {
    out.resize((to - from) * 8);
    if (to > from) std::memcpy(out.data(), words.data() + from, (to - from) * 8);
  } else {
    out.reserve((to - from) * 8);
    for (size_t w = from; w < to; ++w) PutLe(&out, words[w]);
  }
  return out;
}

std::string U64s(const std::vector<uint64_t>& v) {
  std::string out;
  out.reserve(v.size() * 8);
  for (uint64_t x : v) PutLe(&out, x);
  return out;
}

}  // namespace

FmPartition::Columns FmPartition::ToColumns(uint64_t* wavelet_rows, uint64_t* sa_blocks) const {
  Columns c;
  auto row = [&](uint32_t node, uint32_t block, std::string words, uint64_t pr, uint64_t len) {
    c.node_id.push_back(node);
    c.block_id.push_back(block);
    c.words.push_back(std::move(words));
    c.prefix_rank.push_back(pr);
    c.bit_len.push_back(len);
  };
  for (size_t id = 0; id < nodes_.size(); ++id) {
    const BitVector& node = nodes_[id];
    if (node.words.empty()) {
      row(static_cast<uint32_t>(id), 0, "", 0, node.len);
      continue;
    }
    uint64_t pr = 0;
    for (size_t b = 0; b * kFmBlockWords < node.words.size(); ++b) {
      const size_t end = std::min(node.words.size(), (b + 1) * kFmBlockWords);
      row(static_cast<uint32_t>(id), static_cast<uint32_t>(b), WordBytes(node.words, b * kFmBlockWords, end), pr,
          node.len);
      for (size_t w = b * kFmBlockWords; w < end; ++w) pr += static_cast<uint64_t>(std::popcount(node.words[w]));
    }
  }
  *wavelet_rows = c.node_id.size();
  for (size_t b = 0; b * kFmBlockWords < sa_samples_.size(); ++b) {
    const size_t end = std::min(sa_samples_.size(), (b + 1) * kFmBlockWords);
    row(kFmSaNodeId, static_cast<uint32_t>(b), WordBytes(sa_samples_, b * kFmBlockWords, end), 0, sa_samples_.size());
  }
  *sa_blocks = c.node_id.size() - *wavelet_rows;
  return c;
}

std::vector<std::pair<std::string, std::string>> FmPartition::Metadata(uint64_t wavelet_rows, uint64_t sa_blocks) const {
  std::string codes;
  for (const Code& code : codes_) {
    PutLe(&codes, code.bits);
    PutLe(&codes, code.length);
    PutLe(&codes, static_cast<uint16_t>(code.path.size()));
    for (uint32_t id : code.path) PutLe(&codes, id);
  }
  std::string topo;
  PutLe(&topo, static_cast<uint32_t>(children_.size()));
  for (const auto& [l, r] : children_) {
    for (const Child& ch : {l, r}) {
      topo.push_back(ch.leaf ? 1 : 0);
      PutLe(&topo, ch.value);
    }
  }
  // Our own fingerprint of the partition's documents (FNV-1a over the row ids and offsets);
  // lance 12 writes 16 hex digits here and reads none of them back.
  uint64_t fp = 0xcbf29ce484222325ull;
  for (const auto* v : {&row_ids_, &doc_starts_}) {
    for (uint64_t x : *v) {
      for (int i = 0; i < 8; ++i) fp = (fp ^ ((x >> (8 * i)) & 0xff)) * 0x100000001b3ull;
    }
  }
  return {
      {"num_bwt_nodes", std::to_string(nodes_.size())},
      {"bwt_len", std::to_string(bwt_len_)},
      {"num_sa_blocks", std::to_string(sa_blocks)},
      {"sa_samples_len", std::to_string(sa_samples_.size())},
      {"total_wavelet_rows", std::to_string(wavelet_rows)},
      {"sa_sample_rate", std::to_string(kFmSampleRate)},
      {"alphabet_size", "256"},
      {"c_table", Hex(U64s(c_table_))},
      {"huffman_codes", Hex(codes)},
      {"tree_topology", Hex(topo)},
      {"row_ids", Hex(U64s(row_ids_))},
      {"doc_start_positions", Hex(U64s(doc_starts_))},
      {"partition_fingerprint", fmt::format("{:016x}", fp)},
  };
}

namespace {

class Cursor {
 public:
  Cursor(std::string_view b, const std::string& where, const char* what) : b_(b), where_(where), what_(what) {}
  template <typename T>
  Result<T> Get() {
    if (b_.size() - at_ < sizeof(T) || at_ > b_.size()) {
      return Status::Corruption("{}: metadata {} ends at byte {} (expected {} more)", where_, what_, at_, sizeof(T));
    }
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(b_[at_ + i])) << (8 * i);
    at_ += sizeof(T);
    return static_cast<T>(v);
  }
  bool done() const { return at_ == b_.size(); }

 private:
  std::string_view b_;
  size_t at_ = 0;
  const std::string& where_;
  const char* what_;
};

Result<std::string> Unhex(const KeyValueMetadata& meta, const char* key, const std::string& where) {
  auto v = meta.Get(key);
  if (!v) return Status::Corruption("{}: schema metadata has no '{}'", where, key);
  if (v->size() % 2 != 0) return Status::Corruption("{}: metadata '{}' has an odd hex length {}", where, key, v->size());
  std::string out(v->size() / 2, '\0');
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < out.size(); ++i) {
    const int h = nib((*v)[2 * i]), l = nib((*v)[2 * i + 1]);
    if (h < 0 || l < 0) return Status::Corruption("{}: metadata '{}' is not hex at {}", where, key, 2 * i);
    out[i] = static_cast<char>(h * 16 + l);
  }
  return out;
}

Result<uint64_t> Number(const KeyValueMetadata& meta, const char* key, const std::string& where) {
  auto v = meta.Get(key);
  if (!v) return Status::Corruption("{}: schema metadata has no '{}'", where, key);
  uint64_t out = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size()) {
    return Status::Corruption("{}: metadata '{}' = '{}' is not an unsigned integer", where, key, *v);
  }
  return out;
}

Result<std::vector<uint64_t>> U64List(const KeyValueMetadata& meta, const char* key, const std::string& where) {
  LANCE_ASSIGN_OR_RAISE(std::string b, Unhex(meta, key, where));
  if (b.size() % 8 != 0) return Status::Corruption("{}: metadata '{}' holds {} bytes (not u64s)", where, key, b.size());
  std::vector<uint64_t> out(b.size() / 8);
  Cursor c(b, where, key);
  for (auto& x : out) {
    LANCE_ASSIGN_OR_RAISE(x, c.Get<uint64_t>());
  }
  return out;
}

Result<std::vector<uint64_t>> WordsOf(std::string_view bytes, const std::string& where, size_t row) {
  if (bytes.size() % 8 != 0) return Status::Corruption("{}: row {} words hold {} bytes (not u64s)", where, row, bytes.size());
  std::vector<uint64_t> out(bytes.size() / 8);
  Cursor c(bytes, where, "words");
  for (auto& x : out) {
    LANCE_ASSIGN_OR_RAISE(x, c.Get<uint64_t>());
  }
  return out;
}

}  // namespace

int64_t FmPartitionMeta::MemoryBytes() const {
  size_t b = sizeof(*this) + (c_table.size() + prefix_rank.size() + row_ids.size() + doc_starts.size()) * 8 +
             nodes.size() * sizeof(Node) + children.size() * sizeof(children[0]);
  for (const auto& c : codes) b += c.path.size() * 4;
  return static_cast<int64_t>(b);
}

Result<FmPartitionMeta> FmPartitionMeta::Decode(const KeyValueMetadata& meta, const FmPartition::Columns& cols,
                                                const std::string& where) {
  FmPartitionMeta p;
  LANCE_ASSIGN_OR_RAISE(const uint64_t num_nodes, Number(meta, "num_bwt_nodes", where));
  LANCE_ASSIGN_OR_RAISE(p.bwt_len, Number(meta, "bwt_len", where));
  LANCE_ASSIGN_OR_RAISE(const uint64_t sa_blocks, Number(meta, "num_sa_blocks", where));
  LANCE_ASSIGN_OR_RAISE(p.sa_len, Number(meta, "sa_samples_len", where));
  LANCE_ASSIGN_OR_RAISE(const uint64_t wavelet_rows, Number(meta, "total_wavelet_rows", where));
  if (auto rate = meta.Get("sa_sample_rate"); rate && *rate != std::to_string(kFmSampleRate)) {
    return Status::Corruption("{}: sa_sample_rate {} (expected {})", where, *rate, kFmSampleRate);
  }
  const size_t rows = cols.node_id.size();
  if (cols.block_id.size() != rows || cols.prefix_rank.size() != rows || cols.bit_len.size() != rows ||
      (!cols.words.empty() && cols.words.size() != rows)) {
    return Status::Corruption("{}: columns of different lengths", where);
  }
  if (wavelet_rows > rows || sa_blocks != rows - wavelet_rows) {
    return Status::Corruption("{}: {} rows, but total_wavelet_rows {} + num_sa_blocks {}", where, rows, wavelet_rows, sa_blocks);
  }
  if (num_nodes > wavelet_rows || (num_nodes == 0) != (p.bwt_len == 0) || (p.bwt_len == 0 && wavelet_rows != 0)) {
    return Status::Corruption("{}: {} wavelet nodes in {} rows for a BWT of {} bytes", where, num_nodes, wavelet_rows, p.bwt_len);
  }
  if (p.sa_len != (p.bwt_len + kFmSampleRate - 1) / kFmSampleRate || sa_blocks != (p.sa_len + kFmBlockWords - 1) / kFmBlockWords) {
    return Status::Corruption("{}: {} suffix-array samples in {} blocks for a BWT of {} bytes", where, p.sa_len, sa_blocks,
                              p.bwt_len);
  }
  LANCE_ASSIGN_OR_RAISE(p.c_table, U64List(meta, "c_table", where));
  if (p.c_table.size() != 257 || p.c_table[0] != 0 || p.c_table[256] != p.bwt_len ||
      !std::is_sorted(p.c_table.begin(), p.c_table.end())) {
    return Status::Corruption("{}: c_table is not 257 ascending counts from 0 to {}", where, p.bwt_len);
  }
  // Wavelet rows: grouped by node id ascending, blocks 0, 1, ... of kFmBlockWords words each
  // (the last may be shorter); a node without bits keeps one empty row.
  constexpr uint64_t kBlockBits = kFmBlockWords * 64;
  p.nodes.resize(num_nodes);
  p.prefix_rank.assign(cols.prefix_rank.begin(), cols.prefix_rank.begin() + static_cast<std::ptrdiff_t>(wavelet_rows));
  size_t r = 0;
  for (uint64_t id = 0; id < num_nodes; ++id) {
    Node& node = p.nodes[id];
    if (r >= wavelet_rows || cols.node_id[r] != id) {
      return Status::Corruption("{}: wavelet row {} is not node {}'s first block", where, r, id);
    }
    node.len = cols.bit_len[r];
    node.first_row = r;
    if (node.len > p.bwt_len) return Status::Corruption("{}: node {} holds {} bits for a BWT of {}", where, id, node.len, p.bwt_len);
    for (uint32_t b = 0; r < wavelet_rows && cols.node_id[r] == id; ++b, ++r) {
      const uint64_t pr = cols.prefix_rank[r];
      if (cols.block_id[r] != b || cols.bit_len[r] != node.len || (b == 0 ? pr != 0 : pr < cols.prefix_rank[r - 1]) ||
          pr > uint64_t{b} * kBlockBits || (b > 0 && pr - cols.prefix_rank[r - 1] > kBlockBits)) {
        return Status::Corruption("{}: wavelet row {} (node {}, block {}, prefix_rank {}, bit_len {}) breaks the sequence",
                                  where, r, id, cols.block_id[r], pr, cols.bit_len[r]);
      }
    }
    node.blocks = r - node.first_row;
    const size_t want = node.len == 0 ? 1 : static_cast<size_t>((node.len + kBlockBits - 1) / kBlockBits);
    if (node.blocks != want) return Status::Corruption("{}: node {} has {} blocks for {} bits", where, id, node.blocks, node.len);
  }
  if (r != wavelet_rows) return Status::Corruption("{}: wavelet row {} names node {} of {}", where, r, cols.node_id[r], num_nodes);
  p.sa_first_row = wavelet_rows;
  for (size_t i = wavelet_rows; i < rows; ++i) {
    if (cols.node_id[i] != kFmSaNodeId || cols.block_id[i] != i - wavelet_rows) {
      return Status::Corruption("{}: row {} is not suffix-array block {}", where, i, i - wavelet_rows);
    }
  }
  // Tree topology: children of node i are later nodes (preorder), so a walk from the root ends.
  {
    LANCE_ASSIGN_OR_RAISE(std::string b, Unhex(meta, "tree_topology", where));
    Cursor c(b, where, "tree_topology");
    LANCE_ASSIGN_OR_RAISE(const uint32_t count, c.Get<uint32_t>());
    if (count != num_nodes) return Status::Corruption("{}: tree_topology has {} nodes, num_bwt_nodes {}", where, count, num_nodes);
    p.children.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
      for (FmPartition::Child* ch : {&p.children[i].first, &p.children[i].second}) {
        LANCE_ASSIGN_OR_RAISE(const uint8_t tag, c.Get<uint8_t>());
        LANCE_ASSIGN_OR_RAISE(ch->value, c.Get<uint32_t>());
        ch->leaf = tag != 0;
        if (tag > 1 || (ch->leaf && ch->value > 255) || (!ch->leaf && (ch->value <= i || ch->value >= count))) {
          return Status::Corruption("{}: tree_topology node {} has child ({}, {})", where, i, tag, ch->value);
        }
      }
    }
    if (!c.done()) return Status::Corruption("{}: tree_topology has trailing bytes", where);
    // Each node holds one bit per text byte below it: its zeros are its left subtree's bytes,
    // its ones its right subtree's (leaves count by the C table), its last prefix rank at most
    // its ones.
    auto count_of = [&](const FmPartition::Child& ch) {
      return ch.leaf ? p.c_table[ch.value + 1] - p.c_table[ch.value] : p.nodes[ch.value].len;
    };
    for (uint32_t i = 0; i < count; ++i) {
      Node& node = p.nodes[i];
      const uint64_t zeros = count_of(p.children[i].first), ones = count_of(p.children[i].second);
      if (zeros + ones != node.len || p.prefix_rank[node.first_row + node.blocks - 1] > ones) {
        return Status::Corruption("{}: node {} holds {} bits, its children {} zero / {} one bits", where, i, node.len, zeros, ones);
      }
      node.ones = ones;
    }
    if (count > 0 && p.nodes[0].len != p.bwt_len) {
      return Status::Corruption("{}: root node holds {} bits for a BWT of {}", where, p.nodes[0].len, p.bwt_len);
    }
  }
  // Huffman codes: each path is the walk from the root along the code's bits to its leaf, and
  // a byte of the text has one.
  {
    LANCE_ASSIGN_OR_RAISE(std::string b, Unhex(meta, "huffman_codes", where));
    Cursor c(b, where, "huffman_codes");
    for (int v = 0; v < 256; ++v) {
      FmPartition::Code& code = p.codes[v];
      LANCE_ASSIGN_OR_RAISE(code.bits, c.Get<uint32_t>());
      LANCE_ASSIGN_OR_RAISE(code.length, c.Get<uint8_t>());
      LANCE_ASSIGN_OR_RAISE(const uint16_t plen, c.Get<uint16_t>());
      if (plen != code.length || code.length > 32 || (code.length > 0 && num_nodes == 0)) {
        return Status::Corruption("{}: huffman code of byte {} has length {} and a path of {}", where, v, code.length, plen);
      }
      code.path.resize(plen);
      for (auto& id : code.path) {
        LANCE_ASSIGN_OR_RAISE(id, c.Get<uint32_t>());
      }
      uint32_t at = 0;
      for (size_t level = 0; level < code.path.size(); ++level) {
        if (code.path[level] != at) return Status::Corruption("{}: huffman path of byte {} leaves the tree", where, v);
        const bool one = (code.bits >> (code.length - 1 - level)) & 1u;
        const FmPartition::Child& ch = one ? p.children[at].second : p.children[at].first;
        if (level + 1 == code.path.size()) {
          if (!ch.leaf || ch.value != static_cast<uint32_t>(v)) {
            return Status::Corruption("{}: huffman code of byte {} does not end at its leaf", where, v);
          }
        } else {
          if (ch.leaf) return Status::Corruption("{}: huffman code of byte {} ends early", where, v);
          at = ch.value;
        }
      }
      if (code.length == 0 && p.c_table[v + 1] != p.c_table[v]) {
        return Status::Corruption("{}: byte {} occurs {} times by the c_table but has no huffman code", where, v,
                                  p.c_table[v + 1] - p.c_table[v]);
      }
    }
    if (!c.done()) return Status::Corruption("{}: huffman_codes has trailing bytes", where);
  }
  LANCE_ASSIGN_OR_RAISE(p.row_ids, U64List(meta, "row_ids", where));
  LANCE_ASSIGN_OR_RAISE(p.doc_starts, U64List(meta, "doc_start_positions", where));
  if (p.row_ids.size() != p.doc_starts.size() || (!p.doc_starts.empty() && p.doc_starts[0] != 0) ||
      !std::is_sorted(p.doc_starts.begin(), p.doc_starts.end()) ||
      (!p.doc_starts.empty() && p.doc_starts.back() >= p.bwt_len) || (p.bwt_len > 0 && p.row_ids.empty())) {
    return Status::Corruption("{}: {} row ids and {} document offsets do not map a text of {} bytes", where,
                              p.row_ids.size(), p.doc_starts.size(), p.bwt_len);
  }
  return p;
}

Result<FmBlock> DecodeFmBlock(const FmPartitionMeta& m, size_t row, std::string_view bytes, const std::string& where) {
  if (row >= m.num_rows()) return Status::Corruption("{}: row {} of {}", where, row, m.num_rows());
  FmBlock out;
  LANCE_ASSIGN_OR_RAISE(out.words, WordsOf(bytes, where, row));
  if (row >= m.sa_first_row) {
    const uint64_t first = static_cast<uint64_t>(row - m.sa_first_row) * kFmBlockWords;
    const uint64_t want = std::min<uint64_t>(kFmBlockWords, m.sa_len - first);
    if (out.words.size() != want) {
      return Status::Corruption("{}: suffix-array row {} holds {} samples (expected {})", where, row, out.words.size(), want);
    }
    for (uint64_t s : out.words) {
      if (s >= m.bwt_len) return Status::Corruption("{}: suffix-array sample {} beyond the text ({})", where, s, m.bwt_len);
    }
    return out;
  }
  // The node whose block this is (nodes are in row order).
  const auto it = std::upper_bound(m.nodes.begin(), m.nodes.end(), row,
                                   [](size_t r, const FmPartitionMeta::Node& n) { return r < n.first_row; });
  const FmPartitionMeta::Node& node = *(it - 1);
  const size_t b = row - node.first_row;
  const uint64_t node_words = (node.len + 63) / 64;
  const uint64_t want = std::min<uint64_t>(kFmBlockWords, node_words - std::min<uint64_t>(node_words, b * kFmBlockWords));
  if (out.words.size() != want) {
    return Status::Corruption("{}: row {} (block {}) holds {} words for {} bits (expected {})", where, row, b,
                              out.words.size(), node.len, want);
  }
  uint64_t cum = 0;
  for (size_t i = 0; i < out.words.size(); ++i) {
    if (i % 8 == 0) out.ranks.push_back(cum);
    cum += static_cast<uint64_t>(std::popcount(out.words[i]));
  }
  out.ranks.push_back(cum);
  const uint64_t end = b + 1 < node.blocks ? m.prefix_rank[row + 1] : node.ones;
  if (m.prefix_rank[row] + cum != end) {
    return Status::Corruption("{}: row {} holds {} one bits after prefix_rank {}, the next block starts at {}", where, row,
                              cum, m.prefix_rank[row], end);
  }
  return out;
}

namespace {

// One search's view of a partition: blocks fetched on first touch and held until it ends.
class FmWalker {
 public:
  FmWalker(const FmPartitionMeta& m, const FmBlockSource& source, const std::string& where)
      : m_(m), source_(source), where_(where), held_(m.num_rows()) {}

  // Rank of 1 bits in node `id` before `pos` (pos <= the node's length).
  Result<uint64_t> Rank1(uint32_t id, uint64_t pos) {
    const FmPartitionMeta::Node& node = m_.nodes[id];
    if (pos > node.len) return Status::Corruption("{}: rank {} beyond node {}'s {} bits", where_, pos, id, node.len);
    if (pos == 0) return uint64_t{0};
    constexpr uint64_t kBlockBits = kFmBlockWords * 64;
    const uint64_t b = (pos - 1) / kBlockBits;
    const uint64_t lp = pos - b * kBlockBits;
    LANCE_ASSIGN_OR_RAISE(const FmBlock* blk, Block(node.first_row + b));
    const uint64_t wi = lp >> 6, sb = wi >> 3;
    uint64_t count = blk->ranks[sb];
    for (uint64_t i = sb << 3; i < wi; ++i) count += static_cast<uint64_t>(std::popcount(blk->words[i]));
    if ((lp & 63) != 0) count += static_cast<uint64_t>(std::popcount(blk->words[wi] & ((uint64_t{1} << (lp & 63)) - 1)));
    return m_.prefix_rank[node.first_row + b] + count;
  }

  Result<bool> Bit(uint32_t id, uint64_t pos) {
    const FmPartitionMeta::Node& node = m_.nodes[id];
    if (pos >= node.len) return Status::Corruption("{}: bit {} beyond node {}'s {} bits", where_, pos, id, node.len);
    constexpr uint64_t kBlockBits = kFmBlockWords * 64;
    const uint64_t b = pos / kBlockBits, lp = pos - b * kBlockBits;
    LANCE_ASSIGN_OR_RAISE(const FmBlock* blk, Block(node.first_row + b));
    return ((blk->words[lp >> 6] >> (lp & 63)) & 1) != 0;
  }

  // Occurrences of byte c in the BWT before pos.
  Result<uint64_t> Rank(uint8_t c, uint64_t pos) {
    const FmPartition::Code& code = m_.codes[c];
    if (code.length == 0) return uint64_t{0};
    for (size_t level = 0; level < code.path.size(); ++level) {
      LANCE_ASSIGN_OR_RAISE(const uint64_t ones, Rank1(code.path[level], pos));
      if (ones > pos) return Status::Corruption("{}: rank {} of {} positions in node {}", where_, ones, pos, code.path[level]);
      pos = (code.bits >> (code.length - 1 - level)) & 1u ? ones : pos - ones;
    }
    if (pos > m_.c_table[c + 1u] - m_.c_table[c]) return Status::Corruption("{}: byte {} ranked {} past its count", where_, c, pos);
    return pos;
  }

  // The LF step: the BWT position of the text byte before the one at BWT position pos.
  Result<uint64_t> Lf(uint64_t pos) {
    uint32_t id = 0;
    for (;;) {
      LANCE_ASSIGN_OR_RAISE(const bool bit, Bit(id, pos));
      LANCE_ASSIGN_OR_RAISE(const uint64_t ones, Rank1(id, pos));
      if (ones > pos) return Status::Corruption("{}: rank {} of {} positions in node {}", where_, ones, pos, id);
      pos = bit ? ones : pos - ones;
      const FmPartition::Child& next = bit ? m_.children[id].second : m_.children[id].first;
      if (next.leaf) {
        const uint8_t c = static_cast<uint8_t>(next.value);
        if (pos >= m_.c_table[c + 1u] - m_.c_table[c]) return Status::Corruption("{}: byte {} ranked {} past its count", where_, c, pos);
        return m_.c_table[c] + pos;
      }
      id = next.value;
    }
  }

  Result<uint64_t> Locate(uint64_t pos) {
    const uint64_t n = m_.bwt_len;
    for (uint64_t steps = 0; steps < n; ++steps) {
      if (pos % kFmSampleRate == 0) {
        const uint64_t s = pos / kFmSampleRate;
        LANCE_ASSIGN_OR_RAISE(const FmBlock* blk, Block(m_.sa_first_row + s / kFmBlockWords));
        return (blk->words[s % kFmBlockWords] + steps) % n;
      }
      LANCE_ASSIGN_OR_RAISE(pos, Lf(pos));
    }
    return Status::Corruption("{}: locating a suffix never reached a sampled position", where_);
  }

 private:
  Result<const FmBlock*> Block(size_t row) {
    if (!held_[row]) {
      LANCE_ASSIGN_OR_RAISE(held_[row], source_(row));
      if (!held_[row]) return Status::Corruption("{}: no block for row {}", where_, row);
    }
    return held_[row].get();
  }

  const FmPartitionMeta& m_;
  const FmBlockSource& source_;
  const std::string& where_;
  std::vector<std::shared_ptr<const FmBlock>> held_;
};

}  // namespace

namespace {

// The suffix-array range [lo, hi) of the suffixes starting with `needle` (empty: lo == hi).
Result<std::pair<uint64_t, uint64_t>> BackwardSearch(const FmPartitionMeta& m, FmWalker& w, std::string_view needle) {
  uint64_t lo = 0, hi = m.bwt_len;
  if (needle.empty() || m.bwt_len == 0) return std::make_pair(lo, lo);
  for (size_t i = needle.size(); i-- > 0;) {
    const auto c = static_cast<uint8_t>(needle[i]);
    if (lo == 0 && hi == m.bwt_len) {  // the first step needs no block: Rank(c, n) is c's count
      lo = m.c_table[c];
      hi = m.c_table[c + 1u];
    } else {
      LANCE_ASSIGN_OR_RAISE(const uint64_t rl, w.Rank(c, lo));
      LANCE_ASSIGN_OR_RAISE(const uint64_t rh, w.Rank(c, hi));
      lo = m.c_table[c] + rl;
      hi = m.c_table[c] + rh;
    }
    if (lo >= hi) return std::make_pair(lo, lo);
  }
  return std::make_pair(lo, hi);
}

}  // namespace

Result<uint64_t> FmCount(const FmPartitionMeta& m, const FmBlockSource& blocks, std::string_view needle,
                         const std::string& where) {
  FmWalker w(m, blocks, where);
  LANCE_ASSIGN_OR_RAISE(const auto range, BackwardSearch(m, w, needle));
  return range.second - range.first;
}

Result<std::vector<uint64_t>> FmSearch(const FmPartitionMeta& m, const FmBlockSource& blocks, std::string_view needle,
                                       const std::string& where) {
  std::vector<uint64_t> out;
  FmWalker w(m, blocks, where);
  LANCE_ASSIGN_OR_RAISE(const auto range, BackwardSearch(m, w, needle));
  const auto [lo, hi] = range;
  std::unordered_set<uint64_t> seen;
  for (uint64_t i = lo; i < hi; ++i) {
    LANCE_ASSIGN_OR_RAISE(const uint64_t tp, w.Locate(i));
    const auto it = std::upper_bound(m.doc_starts.begin(), m.doc_starts.end(), tp);
    if (it == m.doc_starts.begin()) return Status::Corruption("{}: text position {} before the first document", where, tp);
    const uint64_t row = m.row_ids[static_cast<size_t>(it - m.doc_starts.begin() - 1)];
    if (seen.insert(row).second) out.push_back(row);
  }
  return out;
}

Result<FmLoadedPartition> FmLoadedPartition::Decode(const KeyValueMetadata& meta, const FmPartition::Columns& cols,
                                                    const std::string& where) {
  FmLoadedPartition p;
  LANCE_ASSIGN_OR_RAISE(p.meta, FmPartitionMeta::Decode(meta, cols, where));
  if (cols.words.size() != p.meta.num_rows()) return Status::Corruption("{}: {} rows of words, {} rows", where, cols.words.size(), p.meta.num_rows());
  for (size_t r = 0; r < cols.words.size(); ++r) {
    LANCE_ASSIGN_OR_RAISE(FmBlock b, DecodeFmBlock(p.meta, r, cols.words[r], where));
    p.blocks.push_back(std::make_shared<const FmBlock>(std::move(b)));
  }
  return p;
}

Result<std::vector<uint64_t>> FmLoadedPartition::Search(std::string_view needle, const std::string& where) const {
  const FmBlockSource source = [this](size_t row) -> Result<std::shared_ptr<const FmBlock>> { return blocks.at(row); };
  return FmSearch(meta, source, needle, where);
}

Result<uint64_t> FmLoadedPartition::Count(std::string_view needle, const std::string& where) const {
  const FmBlockSource source = [this](size_t row) -> Result<std::shared_ptr<const FmBlock>> { return blocks.at(row); };
  return FmCount(meta, source, needle, where);
}

}  // namespace lance::index::fm
