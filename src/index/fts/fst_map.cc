#include "index/fts/fst_map.h"

#include <array>
#include <algorithm>
#include <cstring>

#include "lance/core/status.h"

namespace lance::index::fts {

namespace {

// The bytes an index 1..63 in a one-transition state byte stands for (the fst crate's table of
// common input bytes, most frequent first).
constexpr std::array<uint8_t, 63> kCommonInputs = {
    't', 'e', '/', 'o', 'a', 's', 'r', 'i', 'p', 'c', 'n', 'w', '.', 'h', 'l', 'm',
    '-', 'd', 'u', '0', '1', '2', 'g', '=', ':', 'b', 'f', '3', 'y', '5', '&', '_',
    '4', 'v', '9', '6', '7', '8', 'k', '%', '?', 'x', 'C', 'D', 'A', 'S', 'F', 'I',
    'B', 'E', 'j', 'P', 'T', 'z', 'R', 'N', 'M', '+', 'L', 'O', 'q', 'H', 'G'};

constexpr size_t kTransIndexThreshold = 32;  // nodes with more transitions carry a 256-byte index

uint64_t ReadLe(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

struct Transition {
  uint8_t input;
  uint64_t output;
  uint64_t addr;
};

struct Node {
  bool is_final = false;
  uint64_t final_output = 0;
  std::vector<Transition> trans;
};

class Decoder {
 public:
  Decoder(const uint8_t* data, size_t end, std::string_view what) : d_(data), end_(end), what_(what) {}

  // Bytes [lo, hi] must lie inside the node area [16, end).
  Status Need(uint64_t lo, uint64_t hi) const {
    if (lo < 16 || hi >= end_ || lo > hi) {
      return Status::Corruption("{}: fst node bytes [{}, {}] outside the node area [16, {})", what_, lo, hi,
                                end_);
    }
    return Status::OK();
  }

  Result<uint64_t> Delta(uint64_t node_end_addr, uint64_t at, size_t size) const {
    LANCE_RETURN_NOT_OK(Need(at, at + size - 1));
    const uint64_t delta = ReadLe(d_ + at, size);
    if (delta == 0) return uint64_t{0};  // the empty final node
    if (delta > node_end_addr) {
      return Status::Corruption("{}: fst transition delta {} before the start of the data", what_, delta);
    }
    return node_end_addr - delta;
  }

  // The input byte of a one-transition node whose state byte is at `addr`: one of the common
  // inputs packed into the state's low 6 bits, or else the byte before it (then `*at` moves
  // to that byte, where the rest of the node ends).
  Result<uint8_t> OneTransitionInput(uint64_t addr, uint8_t state, uint64_t* at) const {
    const uint8_t ci = state & 0x3f;
    if (ci != 0) return kCommonInputs[ci - 1];
    LANCE_RETURN_NOT_OK(Need(addr - 1, addr - 1));
    *at = addr - 1;
    return d_[addr - 1];
  }

  Result<Node> Read(uint64_t addr) const {
    Node node;
    if (addr == 0) {  // EMPTY_ADDRESS: a final node without transitions
      node.is_final = true;
      return node;
    }
    LANCE_RETURN_NOT_OK(Need(addr, addr));
    const uint8_t state = d_[addr];
    switch (state >> 6) {
      case 0b11: {  // one transition to the previous node, no output
        uint64_t end = addr;
        LANCE_ASSIGN_OR_RAISE(const uint8_t input, OneTransitionInput(addr, state, &end));
        if (end < 1) return Status::Corruption("{}: fst node at {} has no predecessor", what_, addr);
        node.trans.push_back({input, 0, end - 1});
        return node;
      }
      case 0b10: {  // one transition, packed sizes, address delta, output
        uint64_t at = addr;
        LANCE_ASSIGN_OR_RAISE(const uint8_t input, OneTransitionInput(addr, state, &at));
        LANCE_RETURN_NOT_OK(Need(at - 1, at - 1));
        const uint8_t sizes = d_[at - 1];
        const size_t tsize = sizes >> 4, osize = sizes & 0x0f;
        if (tsize > 8 || osize > 8) return Status::Corruption("{}: fst pack sizes {} at {}", what_, sizes, at - 1);
        const uint64_t trans_at = at - 1 - tsize;
        const uint64_t out_at = trans_at - osize;
        const uint64_t node_end = out_at;  // the first byte of this node
        uint64_t out = 0;
        if (osize > 0) {
          LANCE_RETURN_NOT_OK(Need(out_at, out_at + osize - 1));
          out = ReadLe(d_ + out_at, osize);
        }
        uint64_t target = 0;
        if (tsize > 0) {
          LANCE_ASSIGN_OR_RAISE(target, Delta(node_end, trans_at, tsize));
        }
        node.trans.push_back({input, out, target});
        return node;
      }
      default: {  // any number of transitions
        node.is_final = (state & 0x40) != 0;
        uint64_t at = addr;
        size_t ntrans = state & 0x3f;
        if (ntrans == 0) {
          LANCE_RETURN_NOT_OK(Need(addr - 1, addr - 1));
          ntrans = d_[addr - 1];
          if (ntrans == 1) ntrans = 256;
          at = addr - 1;
        }
        LANCE_RETURN_NOT_OK(Need(at - 1, at - 1));
        const uint8_t sizes = d_[at - 1];
        const size_t tsize = sizes >> 4, osize = sizes & 0x0f;
        if (tsize > 8 || osize > 8) return Status::Corruption("{}: fst pack sizes {} at {}", what_, sizes, at - 1);
        const size_t index_size = ntrans > kTransIndexThreshold ? 256 : 0;
        // layout below the pack-size byte: [index] inputs(rev) addrs(rev) outputs(rev) [final]
        const uint64_t inputs_end = at - 1 - index_size;  // one past the last input byte
        const uint64_t need = index_size + ntrans + ntrans * tsize + ntrans * osize +
                              (node.is_final ? osize : 0) + 1;
        if (need >= at) return Status::Corruption("{}: fst node at {} larger than the data", what_, addr);
        const uint64_t inputs_start = inputs_end - ntrans;
        const uint64_t addrs_start = inputs_start - ntrans * tsize;
        const uint64_t outs_start = addrs_start - ntrans * osize;
        const uint64_t node_end = outs_start - (node.is_final ? osize : 0);
        LANCE_RETURN_NOT_OK(Need(node_end, at - 1));
        if (node.is_final && osize > 0) node.final_output = ReadLe(d_ + node_end, osize);
        node.trans.resize(ntrans);
        for (size_t i = 0; i < ntrans; ++i) {
          // transition i (in input order) is stored i-th from the end of each section
          Transition& t = node.trans[i];
          t.input = d_[inputs_end - 1 - i];
          const uint64_t a_at = inputs_start - (i + 1) * tsize;
          if (tsize > 0) {
            LANCE_ASSIGN_OR_RAISE(t.addr, Delta(node_end, a_at, tsize));
          } else {
            t.addr = 0;
          }
          t.output = osize > 0 ? ReadLe(d_ + addrs_start - (i + 1) * osize, osize) : 0;
        }
        for (size_t i = 1; i < ntrans; ++i) {
          if (node.trans[i].input <= node.trans[i - 1].input) {
            return Status::Corruption("{}: fst node at {} has transitions out of order", what_, addr);
          }
        }
        return node;
      }
    }
  }

 private:
  const uint8_t* d_;
  uint64_t end_;
  std::string_view what_;
};

}  // namespace

Result<std::vector<std::pair<std::string, uint64_t>>> DecodeFstMap(std::string_view bytes,
                                                                   std::string_view what) {
  const auto* d = reinterpret_cast<const uint8_t*>(bytes.data());
  if (bytes.size() < 36) return Status::Corruption("{}: fst of {} bytes is too short", what, bytes.size());
  const uint64_t version = ReadLe(d, 8);
  if (version < 2 || version > 3) return Status::Corruption("{}: fst version {} (expected 2 or 3)", what, version);
  const size_t end = version == 3 ? bytes.size() - 4 : bytes.size();
  const uint64_t root = ReadLe(d + end - 8, 8);
  const uint64_t count = ReadLe(d + end - 16, 8);
  const size_t node_end = end - 16;
  if (count > bytes.size()) return Status::Corruption("{}: fst says {} keys in {} bytes", what, count, bytes.size());
  std::vector<std::pair<std::string, uint64_t>> out;
  out.reserve(static_cast<size_t>(count));
  if (root == 0 && count == 0) return out;
  Decoder dec(d, node_end, what);
  // Depth-first in input order: keys come out sorted. Addresses strictly decrease along a
  // path (children are written first), which bounds the depth and rules out cycles.
  struct Frame {
    Node node;
    size_t next = 0;
    uint64_t addr;
    uint64_t output;
  };
  std::vector<Frame> stack;
  std::string key;
  LANCE_ASSIGN_OR_RAISE(Node rn, dec.Read(root));
  stack.push_back({std::move(rn), 0, root, 0});
  if (stack.back().node.is_final) out.emplace_back(key, stack.back().node.final_output);
  // A valid map visits each transition of a key's path once per key; a crafted DAG could make
  // the walk exponential, so the steps are bounded.
  uint64_t steps = 0;
  const uint64_t max_steps = 64 * static_cast<uint64_t>(bytes.size()) + 1024;
  while (!stack.empty()) {
    if (++steps > max_steps) return Status::Corruption("{}: fst walk does not end", what);
    Frame& f = stack.back();
    if (f.next >= f.node.trans.size()) {
      stack.pop_back();
      if (!key.empty()) key.pop_back();
      continue;
    }
    const Transition t = f.node.trans[f.next++];
    if (t.addr >= f.addr && t.addr != 0) {
      return Status::Corruption("{}: fst transition from {} to {} does not go down", what, f.addr, t.addr);
    }
    const uint64_t output = f.output + t.output;
    LANCE_ASSIGN_OR_RAISE(Node child, dec.Read(t.addr));
    key.push_back(static_cast<char>(t.input));
    if (child.is_final) {
      if (out.size() >= count) return Status::Corruption("{}: fst holds more than its {} keys", what, count);
      out.emplace_back(key, output + child.final_output);
    }
    if (child.trans.empty()) {
      key.pop_back();
      continue;
    }
    stack.push_back({std::move(child), 0, t.addr, output});
  }
  if (out.size() != count) {
    return Status::Corruption("{}: fst holds {} keys, its footer says {}", what, out.size(), count);
  }
  return out;
}

namespace {

// The crate's index (1..63) of a common input byte, 0 when the byte is not among them.
uint8_t CommonInputIndex(uint8_t input) {
  for (size_t i = 0; i < kCommonInputs.size(); ++i) {
    if (kCommonInputs[i] == input) return static_cast<uint8_t>(i + 1);
  }
  return 0;
}

// Bytes needed for `n` little-endian (at least 1).
uint8_t PackSize(uint64_t n) {
  uint8_t size = 1;
  while (size < 8 && (n >> (8 * size)) != 0) ++size;
  return size;
}

void PutLe(std::string* out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// CRC-32C (Castagnoli), masked as the crate masks its checksum.
uint32_t MaskedCrc32c(std::string_view data) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xffffffffu;
  for (unsigned char b : data) crc = table[(crc ^ b) & 0xff] ^ (crc >> 8);
  crc ^= 0xffffffffu;
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

struct BuildNode {
  bool is_final = false;
  uint64_t final_output = 0;
  std::vector<std::pair<uint8_t, uint64_t>> trans;  // input, target address
};

class FstWriter {
 public:
  FstWriter() {
    PutLe(&buf_, 3, 8);  // format version
    PutLe(&buf_, 0, 8);  // fst type
  }

  // Writes `node` and returns its address (its last byte; 0 for the empty final node).
  uint64_t Compile(const BuildNode& node) {
    if (node.trans.empty() && node.is_final && node.final_output == 0) return 0;
    const uint64_t start = buf_.size();
    if (node.trans.size() == 1 && !node.is_final) {
      const auto [input, target] = node.trans[0];
      const uint8_t ci = CommonInputIndex(input);
      if (target == last_addr_) {  // one transition to the node just written, no output
        if (ci == 0) buf_.push_back(static_cast<char>(input));
        buf_.push_back(static_cast<char>(0xc0 | ci));
      } else {
        const uint64_t delta = target == 0 ? 0 : start - target;
        const uint8_t tsize = PackSize(delta);
        PutLe(&buf_, delta, tsize);
        buf_.push_back(static_cast<char>(tsize << 4));  // output size 0
        if (ci == 0) buf_.push_back(static_cast<char>(input));
        buf_.push_back(static_cast<char>(0x80 | ci));
      }
    } else {
      const size_t n = node.trans.size();
      uint8_t tsize = 1;
      for (const auto& t : node.trans) tsize = std::max(tsize, PackSize(t.second == 0 ? 0 : start - t.second));
      const bool any_outs = node.final_output != 0;
      const uint8_t osize = any_outs ? PackSize(node.final_output) : 0;
      if (any_outs) {
        if (node.is_final) PutLe(&buf_, node.final_output, osize);
        PutLe(&buf_, 0, static_cast<size_t>(osize) * n);  // the transitions' outputs are 0
      }
      for (size_t i = n; i-- > 0;) {
        const uint64_t t = node.trans[i].second;
        PutLe(&buf_, t == 0 ? 0 : start - t, tsize);
      }
      for (size_t i = n; i-- > 0;) buf_.push_back(static_cast<char>(node.trans[i].first));
      if (n > kTransIndexThreshold) {
        std::string index(256, static_cast<char>(0xff));
        for (size_t i = 0; i < n; ++i) index[node.trans[i].first] = static_cast<char>(i);
        buf_ += index;
      }
      buf_.push_back(static_cast<char>((tsize << 4) | osize));
      const bool in_state = n >= 1 && n <= 63;
      if (!in_state) buf_.push_back(static_cast<char>(n == 256 ? 1 : n));
      buf_.push_back(static_cast<char>((node.is_final ? 0x40 : 0) | (in_state ? n : 0)));
    }
    last_addr_ = buf_.size() - 1;
    return last_addr_;
  }

  std::string Finish(uint64_t count, uint64_t root) {
    PutLe(&buf_, count, 8);
    PutLe(&buf_, root, 8);
    PutLe(&buf_, MaskedCrc32c(buf_), 4);
    return std::move(buf_);
  }

 private:
  std::string buf_;
  uint64_t last_addr_ = UINT64_MAX;
};

}  // namespace

uint32_t FstChecksum(std::string_view bytes) { return MaskedCrc32c(bytes); }

Result<std::string> EncodeFstMap(const std::vector<std::pair<std::string, uint64_t>>& entries) {
  FstWriter w;
  // The nodes of the last key's path, root first; each but the last ends with the transition
  // to the next, whose target is filled in when that node is written.
  std::vector<BuildNode> path(1);
  auto freeze_to = [&](size_t depth) {  // write the nodes deeper than `depth`
    while (path.size() > depth + 1) {
      const uint64_t addr = w.Compile(path.back());
      path.pop_back();
      path.back().trans.back().second = addr;
    }
  };
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string& key = entries[i].first;
    size_t common = 0;
    if (i > 0) {
      const std::string& prev = entries[i - 1].first;
      if (!(prev < key)) {
        return Status::InvalidArgument("fst map: key {} of {} is not greater than the one before", i, entries.size());
      }
      while (common < prev.size() && common < key.size() && prev[common] == key[common]) ++common;
    }
    freeze_to(common);
    for (size_t d = common; d < key.size(); ++d) {
      path.back().trans.emplace_back(static_cast<uint8_t>(key[d]), 0);
      path.emplace_back();
    }
    path.back().is_final = true;
    path.back().final_output = entries[i].second;
  }
  freeze_to(0);
  const uint64_t root = w.Compile(path[0]);
  return w.Finish(entries.size(), root);
}

}  // namespace lance::index::fts
