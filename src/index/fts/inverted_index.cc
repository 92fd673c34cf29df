#include "lance/index/fts/inverted_index.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "index/fts/fst_map.h"
#include "index/fts/posting_codec.h"
#include "index/fts/posting_cursor.h"
#include "lance/core/status.h"

namespace lance::index::fts {

float Bm25Idf(uint64_t docs_with_token, uint64_t num_docs) {
  const float n = static_cast<float>(docs_with_token);
  const float total = static_cast<float>(num_docs);
  return std::log((total - n + 0.5f) / (n + 0.5f) + 1.0f);
}

namespace {
// Bm25DocWeight, visible to the search loops below for inlining (the same operations: equal floats)
inline float DocWeight(uint32_t freq, uint32_t doc_tokens, float avg_doc_tokens) {
  const float f = static_cast<float>(freq);
  const float dl = static_cast<float>(doc_tokens);
  const float norm = kBm25K1 * (1.0f - kBm25B + kBm25B * dl / avg_doc_tokens);
  return (kBm25K1 + 1.0f) * f / (f + norm);
}
}  // namespace

float Bm25DocWeight(uint32_t freq, uint32_t doc_tokens, float avg_doc_tokens) {
  return DocWeight(freq, doc_tokens, avg_doc_tokens);
}

float Bm25AvgDocLength(uint64_t total_tokens, uint64_t num_docs) {
  return static_cast<float>(total_tokens) / static_cast<float>(num_docs);
}

namespace {

constexpr std::string_view kMetadataFile = "metadata.lance";

std::string Meta(const Schema& schema, std::string_view key, bool* found) {
  *found = false;
  if (!schema.metadata()) return {};
  auto v = schema.metadata()->Get(key);
  if (!v) return {};
  *found = true;
  return *v;
}

Result<const Array*> Column(const RecordBatch& b, std::string_view name, TypeId type, const std::string& path) {
  const int i = b.schema()->GetFieldIndex(name);
  if (i < 0) return Status::Corruption("{}: no column `{}`", path, name);
  const Array& a = *b.column(i);
  if (a.type_id() != type) {
    return Status::Corruption("{}: column `{}` is {}, expected another type", path, name, a.type->ToString());
  }
  if (a.null_count != 0) return Status::Corruption("{}: column `{}` has nulls", path, name);
  return &a;
}

Result<uint64_t> ParseU64(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 20) return Status::Corruption("{}: `{}` is not a number", what, s);
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return Status::Corruption("{}: `{}` is not a number", what, s);
    const uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v) return Status::Corruption("{}: `{}` overflows", what, s);
    v = next;
  }
  return v;
}

// "[0,1]" -> {0, 1}
Result<std::vector<uint64_t>> ParseIdList(const std::string& s, const std::string& what) {
  std::vector<uint64_t> out;
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t')) ++i;
  };
  skip();
  if (i >= s.size() || s[i] != '[') return Status::Corruption("{}: partitions `{}` is not a JSON array", what, s);
  ++i;
  skip();
  if (i < s.size() && s[i] == ']') return out;
  while (true) {
    skip();
    size_t j = i;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    LANCE_ASSIGN_OR_RAISE(uint64_t v, ParseU64(s.substr(i, j - i), what));
    out.push_back(v);
    i = j;
    skip();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == ']') break;
    return Status::Corruption("{}: partitions `{}` is not a JSON array of ids", what, s);
  }
  ++i;
  skip();
  if (i != s.size()) return Status::Corruption("{}: trailing bytes after partitions `{}`", what, s);
  return out;
}

Status LoadPartition(IndexStore& store, uint64_t id, bool with_position,
                     std::vector<std::string>* tokens_out, std::vector<uint32_t>* token_ids_out,
                     RecordBatchPtr* invert_out, std::vector<uint64_t>* rows_out, std::vector<uint32_t>* dl_out,
                     uint64_t* total_out) {
  // tokens
  const std::string tokens_name = fmt::format("part_{}_tokens.lance", id);
  LANCE_ASSIGN_OR_RAISE(auto tr, store.OpenFile(tokens_name));
  const std::string tpath = store.PathOf(tokens_name);
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr tb, tr->ReadAll());
  if (tb->schema()->GetFieldIndex("_token_fst_bytes") >= 0) {
    if (tb->num_rows() != 1) return Status::Corruption("{}: {} rows, expected 1", tpath, tb->num_rows());
    LANCE_ASSIGN_OR_RAISE(const Array* fst, Column(*tb, "_token_fst_bytes", TypeId::kLargeBinary, tpath));
    LANCE_ASSIGN_OR_RAISE(const Array* next, Column(*tb, "_token_next_id", TypeId::kUInt32, tpath));
    LANCE_ASSIGN_OR_RAISE(auto entries, DecodeFstMap(fst->GetView(0), tpath));
    const uint32_t next_id = next->Values<uint32_t>()[0];
    if (entries.size() != next_id) {
      return Status::Corruption("{}: the fst holds {} tokens, _token_next_id says {}", tpath, entries.size(), next_id);
    }
    for (auto& [k, v] : entries) {
      if (v >= next_id) return Status::Corruption("{}: token id {} >= {}", tpath, v, next_id);
      tokens_out->push_back(std::move(k));
      token_ids_out->push_back(static_cast<uint32_t>(v));
    }
  } else if (tb->schema()->GetFieldIndex("_token") >= 0) {
    LANCE_ASSIGN_OR_RAISE(const Array* tok, Column(*tb, "_token", TypeId::kString, tpath));
    LANCE_ASSIGN_OR_RAISE(const Array* tid, Column(*tb, "_token_id", TypeId::kUInt32, tpath));
    for (int64_t i = 0; i < tb->num_rows(); ++i) {
      tokens_out->emplace_back(tok->GetView(i));
      token_ids_out->push_back(tid->Values<uint32_t>()[i]);
    }
  } else {
    return Status::Corruption("{}: neither `_token_fst_bytes` nor `_token` column", tpath);
  }
  // docs
  const std::string docs_name = fmt::format("part_{}_docs.lance", id);
  LANCE_ASSIGN_OR_RAISE(auto dr, store.OpenFile(docs_name));
  const std::string dpath = store.PathOf(docs_name);
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr db, dr->ReadAll());
  LANCE_ASSIGN_OR_RAISE(const Array* rid, Column(*db, "_rowid", TypeId::kUInt64, dpath));
  LANCE_ASSIGN_OR_RAISE(const Array* nt, Column(*db, "_num_tokens", TypeId::kUInt32, dpath));
  rows_out->assign(rid->Values<uint64_t>(), rid->Values<uint64_t>() + db->num_rows());
  dl_out->assign(nt->Values<uint32_t>(), nt->Values<uint32_t>() + db->num_rows());
  uint64_t total = 0;
  for (uint32_t v : *dl_out) total += v;
  bool found = false;
  const std::string tt = Meta(*db->schema(), "total_tokens", &found);
  if (found) {
    LANCE_ASSIGN_OR_RAISE(uint64_t stored, ParseU64(tt, dpath + " total_tokens"));
    if (stored != total) {
      return Status::Corruption("{}: total_tokens says {}, the documents hold {}", dpath, stored, total);
    }
  }
  *total_out = total;
  // invert
  const std::string inv_name = fmt::format("part_{}_invert.lance", id);
  LANCE_ASSIGN_OR_RAISE(auto ir, store.OpenFile(inv_name));
  LANCE_ASSIGN_OR_RAISE(*invert_out, ir->ReadAll());
  (void)with_position;
  return Status::OK();
}

}  // namespace

std::optional<uint32_t> InvertedPartition::TokenId(std::string_view token) const {
  auto it = token_ids_.find(std::string(token));
  if (it == token_ids_.end()) return std::nullopt;
  return it->second;
}

Result<PostingList> InvertedPartition::Postings(uint32_t token_id, bool with_positions) const {
  if (token_id >= lengths_.size()) {
    return Status::InvalidArgument("{}: no token id {}", invert_path_, token_id);
  }
  const std::string what = fmt::format("{} token {}", invert_path_, token_id);
  PostingList out;
  const uint32_t len = lengths_[token_id];
  const auto& blocks = blocks_[token_id];
  out.docs.reserve(len);
  out.freqs.reserve(len);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const size_t n = std::min<size_t>(kPackedBlock, len - b * kPackedBlock);
    float score = 0;
    LANCE_RETURN_NOT_OK(DecodePostingBlock(blocks[b], n, kPackedBlock, &out.docs, &out.freqs, &score, what));
    out.block_max_scores.push_back(score);
  }
  for (size_t i = 0; i < out.docs.size(); ++i) {
    if (out.docs[i] >= row_ids_.size()) {
      return Status::Corruption("{}: doc {} of {} documents", what, out.docs[i], row_ids_.size());
    }
    if (i > 0 && out.docs[i] <= out.docs[i - 1]) return Status::Corruption("{}: docs not ascending", what);
    if (out.freqs[i] == 0) return Status::Corruption("{}: frequency 0", what);
  }
  if (with_positions && !position_streams_.empty()) {
    out.has_positions = true;
    const std::string_view stream = position_streams_[token_id];
    const auto& offs = position_block_offsets_[token_id];
    if (offs.size() != blocks.size()) {
      return Status::Corruption("{}: {} position block offsets for {} posting blocks", what, offs.size(),
                                blocks.size());
    }
    out.pos_start.reserve(out.docs.size() + 1);
    out.pos_start.push_back(0);
    std::vector<uint32_t> deltas;
    for (size_t b = 0; b < blocks.size(); ++b) {
      size_t pos = offs[b];
      if (pos > stream.size()) return Status::Corruption("{}: position block offset {} past the stream", what, pos);
      const size_t lo = b * kPackedBlock, hi = std::min<size_t>(lo + kPackedBlock, out.docs.size());
      uint64_t count = 0;
      for (size_t i = lo; i < hi; ++i) count += out.freqs[i];
      if (count > stream.size() * 8 + kPackedBlock) {
        return Status::Corruption("{}: {} positions cannot fit a stream of {} bytes", what, count, stream.size());
      }
      deltas.clear();
      LANCE_RETURN_NOT_OK(DecodePositionRun(stream, &pos, static_cast<size_t>(count), &deltas, what));
      size_t k = 0;
      for (size_t i = lo; i < hi; ++i) {
        uint64_t cur = 0;
        for (uint32_t j = 0; j < out.freqs[i]; ++j, ++k) {
          cur = j == 0 ? deltas[k] : cur + deltas[k];
          if (cur > 0xffffffffull) return Status::Corruption("{}: position over 32 bits", what);
          out.positions.push_back(static_cast<uint32_t>(cur));
        }
        out.pos_start.push_back(static_cast<uint32_t>(out.positions.size()));
      }
    }
  }
  return out;
}

Result<std::shared_ptr<const InvertedIndex>> InvertedIndex::Open(std::shared_ptr<IndexStore> store) {
  auto index = std::shared_ptr<InvertedIndex>(new InvertedIndex());
  LANCE_ASSIGN_OR_RAISE(auto mr, store->OpenFile(kMetadataFile));
  const std::string mpath = store->PathOf(kMetadataFile);
  const Schema& ms = *mr->schema();
  bool found = false;
  const std::string params = Meta(ms, "params", &found);
  if (!found) return Status::Corruption("{}: no `params` in the schema metadata", mpath);
  {
    auto opts = TokenizerOptions::FromJson(params);
    if (!opts.ok()) return Status::Corruption("{}: params: {}", mpath, opts.status().message());
    index->options_ = std::move(*opts);
  }
  const std::string parts_json = Meta(ms, "partitions", &found);
  if (!found) return Status::Corruption("{}: no `partitions` in the schema metadata", mpath);
  LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> part_ids, ParseIdList(parts_json, mpath));
  const std::string format = Meta(ms, "format_version", &found);
  if (found && format != "2") {
    return Status::NotSupported("{}: FTS index format_version {} (2 is read)", mpath, format);
  }
  const std::string token_set = Meta(ms, "token_set_format", &found);
  if (found && token_set != "fst" && token_set != "arrow") {
    return Status::NotSupported("{}: token_set_format `{}`", mpath, token_set);
  }
  const std::string block = Meta(ms, "posting_block_size", &found);
  if (found && block != "128") return Status::NotSupported("{}: posting blocks of {} documents (128 are read)", mpath, block);
  const std::string tail = Meta(ms, "posting_tail_codec", &found);
  if (found && tail != "varint_delta_v1") {
    return Status::NotSupported("{}: posting tail codec `{}` (varint_delta_v1 is read)", mpath, tail);
  }
  if (index->options_.with_position) {
    const std::string layout = Meta(ms, "positions_layout", &found);
    if (found && layout != "shared_stream_v2") {
      return Status::NotSupported("{}: positions layout `{}` (shared_stream_v2 is read)", mpath, layout);
    }
    const std::string codec = Meta(ms, "positions_codec", &found);
    if (found && codec != "packed_delta_v1") {
      return Status::NotSupported("{}: positions codec `{}` (packed_delta_v1 is read)", mpath, codec);
    }
  }
  // deleted fragments: one roaring bitmap
  if (mr->num_rows() > 0 && ms.GetFieldIndex("deleted_fragments") >= 0) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr mb, mr->ReadAll());
    const Array& a = *mb->column(ms.GetFieldIndex("deleted_fragments"));
    if (!a.type->is_binary_like()) return Status::Corruption("{}: deleted_fragments is not binary", mpath);
    if (a.length >= 1 && a.IsValid(0)) {
      const std::string_view bytes = a.GetView(0);
      roaring_bitmap_t* bm = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
      if (bm == nullptr) return Status::Corruption("{}: deleted_fragments is not a roaring bitmap", mpath);
      const uint64_t n = roaring_bitmap_get_cardinality(bm);
      index->deleted_fragments_.resize(n);
      roaring_bitmap_to_uint32_array(bm, index->deleted_fragments_.data());
      roaring_bitmap_free(bm);
    }
  }
  for (uint64_t id : part_ids) {
    auto part = std::make_shared<InvertedPartition>();
    part->id_ = id;
    std::vector<std::string> toks;
    std::vector<uint32_t> ids;
    RecordBatchPtr inv;
    LANCE_RETURN_NOT_OK(LoadPartition(*store, id, index->options_.with_position, &toks, &ids, &inv,
                                      &part->row_ids_, &part->doc_tokens_, &part->total_tokens_));
    part->invert_path_ = store->PathOf(fmt::format("part_{}_invert.lance", id));
    const std::string& ipath = part->invert_path_;
    const size_t ntok = static_cast<size_t>(inv->num_rows());
    if (toks.size() != ntok) {
      return Status::Corruption("{}: {} rows for {} tokens of the dictionary", ipath, ntok, toks.size());
    }
    for (size_t i = 0; i < toks.size(); ++i) {
      if (ids[i] >= ntok) return Status::Corruption("{}: token id {} of {} rows", ipath, ids[i], ntok);
      if (!part->token_ids_.emplace(std::move(toks[i]), ids[i]).second) {
        return Status::Corruption("{}: token listed twice in the dictionary", ipath);
      }
    }
    part->sorted_tokens_.reserve(part->token_ids_.size());
    for (const auto& kv : part->token_ids_) part->sorted_tokens_.push_back(&kv.first);
    std::sort(part->sorted_tokens_.begin(), part->sorted_tokens_.end(),
              [](const std::string* a, const std::string* b) { return *a < *b; });
    const Schema& is = *inv->schema();
    const std::string ifmt = Meta(is, "posting_block_size", &found);
    if (found && ifmt != "128") return Status::NotSupported("{}: posting blocks of {} documents", ipath, ifmt);
    LANCE_ASSIGN_OR_RAISE(const Array* posting, Column(*inv, "_posting", TypeId::kList, ipath));
    LANCE_ASSIGN_OR_RAISE(const Array* lens, Column(*inv, "_length", TypeId::kUInt32, ipath));
    LANCE_ASSIGN_OR_RAISE(const Array* maxs, Column(*inv, "_max_score", TypeId::kFloat, ipath));
    const Array& pblocks = *posting->children.at(0);
    if (!pblocks.type->is_binary_like()) return Status::Corruption("{}: _posting items are not binary", ipath);
    part->lengths_.assign(lens->Values<uint32_t>(), lens->Values<uint32_t>() + ntok);
    part->max_scores_.assign(maxs->Values<float>(), maxs->Values<float>() + ntok);
    part->blocks_.resize(ntok);
    for (size_t t = 0; t < ntok; ++t) {
      const int64_t lo = posting->ValueOffset(static_cast<int64_t>(t));
      const int64_t hi = posting->ValueOffset(static_cast<int64_t>(t) + 1);
      if (lo < 0 || hi < lo || hi > pblocks.length) return Status::Corruption("{}: _posting offsets of token {}", ipath, t);
      const uint64_t want = (static_cast<uint64_t>(part->lengths_[t]) + kPackedBlock - 1) / kPackedBlock;
      if (static_cast<uint64_t>(hi - lo) != want) {
        return Status::Corruption("{}: token {} has {} posting blocks for {} documents", ipath, t, hi - lo,
                                  part->lengths_[t]);
      }
      if (part->lengths_[t] > part->row_ids_.size()) {
        return Status::Corruption("{}: token {} in {} documents of {}", ipath, t, part->lengths_[t], part->row_ids_.size());
      }
      for (int64_t b = lo; b < hi; ++b) {
        if (pblocks.IsNull(b)) return Status::Corruption("{}: null posting block of token {}", ipath, t);
        part->blocks_[t].push_back(pblocks.GetView(b));
      }
    }
    if (index->options_.with_position) {
      if (is.GetFieldIndex("_compressed_position") < 0) {
        return Status::NotSupported("{}: positions stored without the shared stream layout", ipath);
      }
      LANCE_ASSIGN_OR_RAISE(const Array* stream, Column(*inv, "_compressed_position", TypeId::kLargeBinary, ipath));
      LANCE_ASSIGN_OR_RAISE(const Array* offs, Column(*inv, "_position_block_offset", TypeId::kList, ipath));
      const Array& ov = *offs->children.at(0);
      if (ov.type_id() != TypeId::kUInt32) return Status::Corruption("{}: _position_block_offset items", ipath);
      part->position_streams_.resize(ntok);
      part->position_block_offsets_.resize(ntok);
      for (size_t t = 0; t < ntok; ++t) {
        part->position_streams_[t] = stream->GetView(static_cast<int64_t>(t));
        const int64_t lo = offs->ValueOffset(static_cast<int64_t>(t));
        const int64_t hi = offs->ValueOffset(static_cast<int64_t>(t) + 1);
        if (lo < 0 || hi < lo || hi > ov.length) return Status::Corruption("{}: position offsets of token {}", ipath, t);
        part->position_block_offsets_[t].assign(ov.Values<uint32_t>() + lo, ov.Values<uint32_t>() + hi);
      }
    }
    part->keep_alive_ = inv;
    int64_t bytes = static_cast<int64_t>(part->row_ids_.size() * 12 + ntok * 64);
    for (const auto& [k, v] : part->token_ids_) bytes += static_cast<int64_t>(k.size() + 56);
    for (int c = 0; c < inv->num_columns(); ++c) {
      for (const auto& buf : inv->column(c)->buffers) bytes += buf ? buf->size() : 0;
      for (const auto& ch : inv->column(c)->children) {
        for (const auto& buf : ch->buffers) bytes += buf ? buf->size() : 0;
      }
    }
    part->memory_bytes_ = bytes;
    index->num_docs_ += part->row_ids_.size();
    index->total_tokens_ += part->total_tokens_;
    if (!part->doc_tokens_.empty()) {
      part->min_doc_tokens_ = *std::min_element(part->doc_tokens_.begin(), part->doc_tokens_.end());
    }
    index->partitions_.push_back(std::move(part));
  }
  return std::shared_ptr<const InvertedIndex>(std::move(index));
}

int64_t InvertedIndex::MemoryBytes() const {
  int64_t n = 0;
  for (const auto& p : partitions_) n += p->memory_bytes_;
  return n;
}

uint64_t InvertedIndex::DocsWithToken(std::string_view token) const {
  uint64_t n = 0;
  for (const auto& p : partitions_) {
    if (auto id = p->TokenId(token)) n += p->PostingLength(*id);
  }
  return n;
}

namespace {

// The code points of UTF-8 text (a byte that does not start a valid sequence is one unit).
std::vector<uint32_t> FuzzyCodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t j = 1; ok && j < n; ++j) ok = (static_cast<unsigned char>(s[i + j]) & 0xC0) == 0x80;
    if (!ok) {
      out.push_back(0x110000u + c);  // not a code point: never equal to one
      ++i;
      continue;
    }
    uint32_t cp = n == 1 ? c : c & (0x7Fu >> n);
    for (size_t j = 1; j < n; ++j) cp = (cp << 6) | (static_cast<unsigned char>(s[i + j]) & 0x3Fu);
    out.push_back(cp);
    i += n;
  }
  return out;
}

std::optional<uint32_t> FuzzyDistance(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                                      uint32_t max) {
  const size_t la = a.size(), lb = b.size();
  if ((la > lb ? la - lb : lb - la) > max) return std::nullopt;
  std::vector<uint32_t> prev(lb + 1), row(lb + 1);
  for (size_t j = 0; j <= lb; ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= la; ++i) {
    row[0] = static_cast<uint32_t>(i);
    uint32_t best = row[0];
    for (size_t j = 1; j <= lb; ++j) {
      const uint32_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u);
      row[j] = std::min({sub, prev[j] + 1, row[j - 1] + 1});
      best = std::min(best, row[j]);
    }
    if (best > max) return std::nullopt;  // every later row is at least this far
    std::swap(prev, row);
  }
  if (prev[lb] > max) return std::nullopt;
  return prev[lb];
}

}  // namespace

std::optional<uint32_t> BoundedEditDistance(std::string_view a, std::string_view b, uint32_t max) {
  return FuzzyDistance(FuzzyCodePoints(a), FuzzyCodePoints(b), max);
}

std::vector<std::string> ExpandFuzzy(const InvertedPartition& part, const std::vector<std::string>& tokens,
                                     const FuzzyOptions& fuzzy, std::vector<uint32_t>* origin) {
  std::vector<std::string> out;
  if (origin) origin->clear();
  const auto& sorted = part.SortedTokens();
  for (size_t q = 0; q < tokens.size() && out.size() < fuzzy.max_expansions; ++q) {
    const std::string& token = tokens[q];
    const std::vector<uint32_t> cps = FuzzyCodePoints(token);
    const std::string_view prefix =
        std::string_view(token).substr(0, std::min<size_t>(fuzzy.prefix_length, token.size()));
    // the dictionary's tokens starting with the prefix are one run of the byte order
    auto it = std::lower_bound(sorted.begin(), sorted.end(), prefix,
                               [](const std::string* t, std::string_view p) { return std::string_view(*t) < p; });
    for (; it != sorted.end() && std::string_view(**it).starts_with(prefix); ++it) {
      if (!FuzzyDistance(cps, FuzzyCodePoints(**it), fuzzy.fuzziness)) continue;
      if (out.size() >= fuzzy.max_expansions) break;
      out.push_back(**it);
      if (origin) origin->push_back(static_cast<uint32_t>(q));
    }
  }
  return out;
}

bool Better(const ScoredRow& a, const ScoredRow& b) {
  return a.score != b.score ? a.score > b.score : a.row_id < b.row_id;
}

namespace {

// `hit` into `out`: every hit (limit 0), else a heap of the best `limit` (Better order).
void Collect(const ScoredRow& hit, size_t limit, std::vector<ScoredRow>* out) {
  if (limit == 0) {
    out->push_back(hit);
  } else if (out->size() < limit) {
    out->push_back(hit);
    std::push_heap(out->begin(), out->end(), Better);
  } else if (Better(hit, out->front())) {
    std::pop_heap(out->begin(), out->end(), Better);
    out->back() = hit;
    std::push_heap(out->begin(), out->end(), Better);
  }
}

}  // namespace

Result<std::vector<ScoredRow>> InvertedIndex::Search(const std::vector<std::string>& tokens,
                                                     const std::vector<uint32_t>& positions, MatchMode mode,
                                                     const std::function<bool(uint64_t)>& keep, size_t limit,
                                                     const FuzzyOptions* fuzzy, uint32_t slop,
                                                     SearchStats* stats) const {
  std::vector<ScoredRow> out;
  if (tokens.empty() || num_docs_ == 0) return out;
  if (mode == MatchMode::kPhrase) {
    if (!with_position()) {
      return Status::InvalidArgument("phrase query on an index built without positions (with_position=false)");
    }
    if (positions.size() != tokens.size()) return Status::InvalidArgument("phrase query: one position per token");
  }
  if (fuzzy != nullptr && fuzzy->fuzziness > 0) {
    if (mode == MatchMode::kPhrase) return Status::InvalidArgument("a phrase query cannot be fuzzy");
    std::vector<uint32_t> origin;
    for (const auto& part : partitions_) {
      const std::vector<std::string> expanded = ExpandFuzzy(*part, tokens, *fuzzy, &origin);
      if (expanded.empty()) continue;
      if (mode == MatchMode::kAll) {
        // AND: every query token through one of its expansions (grouped by `origin`); a
        // query token with none here leaves the partition without a match
        std::vector<char> has(tokens.size(), 0);
        for (uint32_t o : origin) has[o] = 1;
        if (std::find(has.begin(), has.end(), 0) != has.end()) continue;
      }
      LANCE_RETURN_NOT_OK(SearchPartition(*part, expanded, origin, mode, keep, limit, 0, &out, stats));
    }
  } else {
    for (const auto& part : partitions_) {
      LANCE_RETURN_NOT_OK(SearchPartition(*part, tokens, positions, mode, keep, limit, slop, &out, stats));
    }
  }
  if (limit != 0) std::sort_heap(out.begin(), out.end(), Better);
  return out;
}

Status InvertedIndex::SearchPartition(const InvertedPartition& part, const std::vector<std::string>& tokens,
                                      const std::vector<uint32_t>& positions, MatchMode mode,
                                      const std::function<bool(uint64_t)>& keep, size_t limit, uint32_t slop,
                                      std::vector<ScoredRow>* out, SearchStats* stats) const {
  // unique tokens, and each query token's slot
  std::vector<std::string> uniq;
  std::vector<size_t> slot(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto it = std::find(uniq.begin(), uniq.end(), tokens[i]);
    slot[i] = static_cast<size_t>(it - uniq.begin());
    if (it == uniq.end()) uniq.push_back(tokens[i]);
  }
  // kAll: every query position must be matched by one of its tokens. Tokens sharing a
  // position (an ngram tokenizer puts all its grams of a string at one) are alternatives, as
  // lance 12 answers such AND queries; with one token per position this is "every token".
  std::vector<size_t> group(tokens.size());
  size_t groups = tokens.size();
  if (mode == MatchMode::kAll && positions.size() == tokens.size()) {
    std::vector<uint32_t> seen;
    for (size_t i = 0; i < tokens.size(); ++i) {
      auto it = std::find(seen.begin(), seen.end(), positions[i]);
      group[i] = static_cast<size_t>(it - seen.begin());
      if (it == seen.end()) seen.push_back(positions[i]);
    }
    groups = seen.size();
  } else {
    for (size_t i = 0; i < tokens.size(); ++i) group[i] = i;
  }
  std::vector<char> hit_group(groups);
  auto every_group = [&](const auto& token_present) {
    std::fill(hit_group.begin(), hit_group.end(), 0);
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (token_present(slot[i])) hit_group[group[i]] = 1;
    }
    return std::all_of(hit_group.begin(), hit_group.end(), [](char c) { return c != 0; });
  };
  std::vector<float> idf(uniq.size());
  for (size_t u = 0; u < uniq.size(); ++u) {
    const uint64_t n = DocsWithToken(uniq[u]);
    idf[u] = n == 0 ? 0.0f : Bm25Idf(n, num_docs_);
  }
  const float avgdl = Bm25AvgDocLength(total_tokens_, num_docs_);
  std::unordered_set<uint32_t> deleted(deleted_fragments_.begin(), deleted_fragments_.end());
  std::vector<PostingCursor> cur(uniq.size());
  std::vector<bool> present(uniq.size(), false);
  bool any = false, all = true;
  for (size_t u = 0; u < uniq.size(); ++u) {
    auto id = part.TokenId(uniq[u]);
    if (!id) {
      all = false;
      continue;
    }
    LANCE_RETURN_NOT_OK(cur[u].Init(part, *id, mode == MatchMode::kPhrase));
    present[u] = true;
    any = true;
  }
  if (!any || (mode == MatchMode::kPhrase && !all)) return Status::OK();
  // the score of `doc` from freq[] (per unique token: its frequency there, 0 = absent), in the
  // query tokens' order (repeats count again)
  const auto score_of = [&](uint32_t doc, const std::vector<uint32_t>& freq) {
    const uint32_t dl = part.DocTokens(doc);
    float score = 0.0f;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const size_t u = slot[i];
      if (freq[u] == 0) continue;
      score += idf[u] * Bm25DocWeight(freq[u], dl, avgdl);
    }
    return score;
  };
  const auto skip = [&](uint64_t row) {
    return (!deleted.empty() && deleted.count(static_cast<uint32_t>(row >> 32)) != 0) || (keep && !keep(row));
  };
  if (mode == MatchMode::kAll && !every_group([&](size_t u) { return present[u]; })) return Status::OK();
  // One document-at-a-time walk over the ascending posting cursors of the present tokens, in
  // `order`: the smallest doc id under the cursors of order[essential..], the tokens at it,
  // then those cursors advance; tokens before `essential` are sought to it, not walked.
  // MaxScore (kAny top-k): each token's upper bound (its repeats x its best stored block score
  // with one partition, else x idf x the doc weight of its highest frequency in the shortest
  // document; with a margin for float rounding), ascending; the longest prefix whose bounds
  // sum below the k-th score cannot put a document in the top k alone, so only documents of
  // the other ("essential") tokens are scored. Block-max (any top-k, one partition: the stored
  // block scores are over this partition's statistics, which are then the index's; a phrase
  // scores as its tokens): the blocks every token has at the walk's document bound its score
  // until the first of their ends; when their bounds sum below the k-th score the essential
  // cursors jump there. kAll with one token per position and kPhrase need every token: the
  // rarest walks, the others are sought.
  const bool max_score = mode == MatchMode::kAny && limit > 0;
  const bool block_max = limit > 0 && partitions_.size() == 1;
  const bool drive_rarest = mode == MatchMode::kPhrase || (mode == MatchMode::kAll && groups == tokens.size());
  constexpr double kMargin = 1.0 + 1e-4;
  std::vector<double> reps(uniq.size(), 0.0), bound(uniq.size(), 0.0);
  for (size_t i = 0; i < tokens.size(); ++i) reps[slot[i]] += 1;
  std::vector<size_t> order;
  for (size_t u = 0; u < uniq.size(); ++u) {
    if (!present[u]) continue;
    order.push_back(u);
    if (!max_score) continue;
    if (block_max) {
      float best = 0;
      for (size_t b = 0; b < cur[u].num_blocks(); ++b) best = std::max(best, cur[u].BlockMax(b));
      bound[u] = reps[u] * static_cast<double>(best) * kMargin;
    } else {
      LANCE_ASSIGN_OR_RAISE(PostingList pl, part.Postings(*part.TokenId(uniq[u]), false));
      uint32_t fmax = 0;
      for (uint32_t f : pl.freqs) fmax = std::max(fmax, f);
      bound[u] = reps[u] * static_cast<double>(idf[u]) *
                 static_cast<double>(Bm25DocWeight(fmax, part.MinDocTokens(), avgdl)) * kMargin;
    }
  }
  if (max_score) std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bound[a] < bound[b]; });
  if (drive_rarest) {
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cur[a].length() > cur[b].length(); });
  }
  std::vector<double> prefix(order.size() + 1, 0.0);
  for (size_t j = 0; j < order.size(); ++j) prefix[j + 1] = prefix[j] + bound[order[j]];
  std::vector<uint32_t> freq(uniq.size(), 0);  // per unique token: its frequency at the document; 0 = absent
  std::vector<const uint32_t*> pb(tokens.size()), pe(tokens.size());
  uint32_t window_end = 0;  // block-max: the block bound below holds for documents before this
  double window_bound = 0;
  while (true) {
    size_t essential = drive_rarest ? order.size() - 1 : 0;  // order[essential..] drive the walk
    const bool full = limit > 0 && out->size() >= limit;
    const double kth = full ? static_cast<double>(out->front().score) : 0.0;
    if (full && max_score) {
      while (essential < order.size() && prefix[essential + 1] < kth) ++essential;
    }
    if (essential == order.size()) break;
    uint32_t doc = PostingCursor::kEnd;
    for (size_t j = essential; j < order.size(); ++j) doc = std::min(doc, cur[order[j]].doc());
    if (doc == PostingCursor::kEnd) break;
    if (block_max && full) {
      if (doc >= window_end) {
        window_end = PostingCursor::kEnd;
        window_bound = 0;
        for (size_t u : order) {
          if (doc < cur[u].FirstDoc()) {  // no document of u before its first block
            window_end = std::min(window_end, cur[u].FirstDoc());
            continue;
          }
          const size_t b = cur[u].BlockOf(doc);
          window_bound += reps[u] * static_cast<double>(cur[u].BlockMax(b)) * kMargin;
          window_end = std::min(window_end, cur[u].BlockEnd(b));
        }
      }
      if (window_bound < kth) {
        for (size_t j = essential; j < order.size(); ++j) cur[order[j]].SeekShallow(window_end);
        continue;
      }
    }
    // the cursors at `doc` decoded: their exact documents may lie further on
    bool moved = false;
    for (size_t j = essential; j < order.size(); ++j) {
      PostingCursor& c = cur[order[j]];
      if (c.doc() == doc && !c.decoded()) {
        LANCE_RETURN_NOT_OK(c.Materialize());
        moved = moved || c.doc() != doc;
      }
    }
    if (moved) continue;
    // MaxScore per document: the essential tokens' exact scores plus the bounds of the others
    // (their blocks' stored scores at `doc`) below the k-th score: the others are not sought
    if (full && max_score && essential + 1 == order.size()) {
      // one essential token: its decoded block passed over in one loop while each document's
      // exact score plus the others' block bounds stays below the k-th score (as below, per
      // document, without the walk's per-document overhead)
      PostingCursor& c = cur[order[essential]];
      const size_t ue = order[essential];
      const double we = reps[ue] * static_cast<double>(idf[ue]);
      // the others' bounds over the whole block first (the best of their blocks overlapping
      // it): a document below the k-th score even with those needs no per-document bounds
      const uint32_t end = c.BlockEnd(c.BlockOf(doc));
      double others = 0;
      for (size_t j = 0; j < essential; ++j) {
        const size_t u = order[j];
        if (!block_max) {
          others += bound[u];
          continue;
        }
        if (end <= cur[u].FirstDoc()) continue;
        float best = 0;
        for (size_t b = doc < cur[u].FirstDoc() ? 0 : cur[u].BlockOf(doc); b < cur[u].num_blocks(); ++b) {
          best = std::max(best, cur[u].BlockMax(b));
          if (cur[u].BlockEnd(b) >= end) break;
        }
        others += reps[u] * static_cast<double>(best) * kMargin;
      }
      const bool stopped = c.SkipInBlock([&](uint32_t d, uint32_t f) {
        double ub = we * static_cast<double>(DocWeight(f, part.DocTokens(d), avgdl)) * kMargin;
        if (ub + others < kth) return true;
        for (size_t j = 0; j < essential && ub < kth; ++j) {
          const size_t u = order[j];
          ub += !block_max ? bound[u]
                : d < cur[u].FirstDoc() ? 0.0
                                        : reps[u] * static_cast<double>(cur[u].BlockMax(cur[u].BlockOf(d))) * kMargin;
        }
        return ub < kth;
      });
      if (!stopped) continue;
      doc = c.doc();
      if (block_max && doc >= window_end) continue;  // a new window: bound it first
    } else if (full && max_score && essential > 0) {
      const uint32_t dl = part.DocTokens(doc);
      double ub = 0;
      for (size_t j = essential; j < order.size(); ++j) {
        const size_t u = order[j];
        if (cur[u].doc() == doc) ub += reps[u] * static_cast<double>(idf[u] * Bm25DocWeight(cur[u].freq(), dl, avgdl));
      }
      ub *= kMargin;
      for (size_t j = 0; j < essential && ub < kth; ++j) {
        const size_t u = order[j];
        ub += !block_max ? bound[u]
              : doc < cur[u].FirstDoc() ? 0.0
                                        : reps[u] * static_cast<double>(cur[u].BlockMax(cur[u].BlockOf(doc))) * kMargin;
      }
      if (ub < kth) {
        for (size_t j = essential; j < order.size(); ++j) {
          if (cur[order[j]].doc() == doc) LANCE_RETURN_NOT_OK(cur[order[j]].Next());
        }
        continue;
      }
    }
    bool every = all;
    for (size_t j = 0; j < order.size(); ++j) {
      const size_t u = order[j];
      if (j < essential) LANCE_RETURN_NOT_OK(cur[u].SeekTo(doc));
      freq[u] = cur[u].doc() == doc ? cur[u].freq() : 0;
      every = every && freq[u] != 0;
    }
    bool take = true;
    if (mode == MatchMode::kPhrase && !every) take = false;
    if (take && mode == MatchMode::kAll && !every_group([&](size_t u) { return freq[u] != 0; })) take = false;
    if (take) {
      if (stats) ++stats->scored;
      const float score = score_of(doc, freq);
      // below the k-th score it cannot enter: its positions, its row id (a cache miss) and the
      // filter are not needed then (a phrase scores as its tokens do)
      if (limit == 0 || out->size() < limit || score >= out->front().score) {
        if (mode == MatchMode::kPhrase) {
          for (size_t i = 0; i < tokens.size(); ++i) LANCE_RETURN_NOT_OK(cur[slot[i]].Positions(&pb[i], &pe[i]));
          take = PhraseMatches(pb, pe, positions, slop);
        }
        const uint64_t row = take ? part.RowId(doc) : 0;
        if (take && !skip(row)) Collect({row, score}, limit, out);
      }
    }
    for (size_t j = essential; j < order.size(); ++j) {
      if (cur[order[j]].doc() == doc) LANCE_RETURN_NOT_OK(cur[order[j]].Next());
    }
  }
  return Status::OK();
}

}  // namespace lance::index::fts
