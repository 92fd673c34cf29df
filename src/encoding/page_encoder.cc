// EncodePage: the choice of layout and value encoding for one leaf page (see encoder.h) --
// all-null and constant pages, full-zip for wide values, dictionaries, FSST, the mini-block
// chunk codecs -- over the layout encoders (layout_encoders.h).
#include <algorithm>
#include <cstring>
#include <optional>

#include <zstd.h>

#include "encoding/chunk_codecs.h"
#include "encoding/dictionary_encoder.h"
#include "encoding/encoder.h"
#include "encoding/fsst_encoder.h"
#include "encoding/layout_encoders.h"
#include "lance/core/bit_util.h"

namespace lance::encoding {

namespace {

using namespace encoder;  // NOLINT: the page encoder's own pieces

// A page without one valid value.
EncodedPage EncodeAllNull(const LeafPage& p) {
  EncodedPage out;
  auto* cl = out.layout.mutable_constant_layout();
  SetLayers(p.layers, cl->mutable_layers());
  // Levels as lance 12 writes them: none for a single nullable layer (every row is null there),
  // else the pair [rep (empty without lists), def] — lance 12 needs the definition levels
  // whenever there is more than one layer (it panics on a struct page without them).
  if (!p.rep.empty() || (p.layers.size() > 1 && !p.def.empty())) {
    cl->set_num_rep_values(p.rep.size());
    cl->set_num_def_values(p.def.size());
    out.buffers.emplace_back(reinterpret_cast<const char*>(p.rep.data()), p.rep.size() * 2);
    out.buffers.emplace_back(reinterpret_cast<const char*>(p.def.data()), p.def.size() * 2);
  }
  return out;
}

bool WantsFullZip(const DataBlock& v) {
  switch (v.kind) {
    case DataBlock::Kind::kFixed:
      return v.bits_per_value % 8 == 0 && v.bits_per_value / 8 >= kFullZipValueBytes;
    case DataBlock::Kind::kFixedSizeList: {
      const bool nulls = std::find(v.child_validity.begin(), v.child_validity.end(), 0) !=
                         v.child_validity.end();
      return !nulls && v.child->bits_per_value % 8 == 0 &&
             v.dimension * v.child->bits_per_value / 8 >= kFullZipValueBytes;
    }
    case DataBlock::Kind::kVariable: {
      if (v.num_values == 0) return false;
      if (v.offsets.back() / v.num_values >= kFullZipValueBytes) return true;
      for (int64_t i = 0; i < v.num_values; ++i) {
        if (v.offsets[static_cast<size_t>(i + 1)] - v.offsets[static_cast<size_t>(i)] > kMaxMiniBlockValueBytes) {
          return true;
        }
      }
      return false;
    }
  }
  return false;
}



// FSST codes of every string, when a table trained on a sample makes them clearly smaller.
struct FsstCompressed {
  std::string table;
  DataBlock codes = DataBlock::Variable();
};

Result<std::optional<FsstCompressed>> FsstCompress(const DataBlock& v, ThreadPool* pool) {
  constexpr int64_t kMinBytes = 32 * 1024;
  const int64_t n = v.num_values;
  const int64_t total = v.offsets.back() - v.offsets.front();
  if (n == 0 || total < kMinBytes) return std::nullopt;
  // Training costs the sample's length (five passes over it), so a small page trains on a
  // sample proportional to it: 1/8 of its bytes, between 4 KiB and 32 KiB (from 256 KiB on).
  // (A 16 KiB cap, lance 12's sample target, made the bench's text column 1-2 % larger.)
  const int64_t kSampleBytes = std::clamp<int64_t>(total / 8, 4 * 1024, 32 * 1024);
  std::vector<std::string_view> sample;
  const int64_t avg = std::max<int64_t>(1, total / n);
  const int64_t want = std::max<int64_t>(1, kSampleBytes / avg);
  const int64_t stride = std::max<int64_t>(1, n / want);
  int64_t sample_bytes = 0;
  for (int64_t i = 0; i < n && sample_bytes < kSampleBytes; i += stride) {
    std::string_view s = v.ValueView(i);
    if (s.size() > 4096) s = s.substr(0, 4096);
    sample.push_back(s);
    sample_bytes += static_cast<int64_t>(s.size());
  }
  const FsstEncoder enc = FsstEncoder::Train(sample);
  std::string probe;
  for (std::string_view s : sample) enc.Compress(s, &probe);
  if (static_cast<int64_t>(probe.size()) * 10 > sample_bytes * 8) return std::nullopt;
  FsstCompressed out;
  out.table = enc.SymbolTable();
  // Codes straight into the block's bytes (room for the worst case, written once, then cut).
  // A large page is compressed in pieces of values on the pool: piece p writes from twice the
  // input bytes before it (its worst case cannot reach the next piece), and the pieces are
  // then moved together -- the same codes and offsets as one pass.
  LANCE_RETURN_NOT_OK(out.codes.data.ResizeForOverwrite(static_cast<size_t>(2 * total)));
  auto* codes = reinterpret_cast<uint8_t*>(out.codes.data.mutable_data());
  std::vector<int64_t> offsets(static_cast<size_t>(n + 1));
  constexpr int64_t kPieceBytes = 256 << 10;  // (a merge-insert of 10k rows has 1.5 MB of text)
  const int64_t pieces = pool == nullptr || pool->num_threads() == 0
                             ? 1
                             : std::clamp<int64_t>(total / kPieceBytes, 1, 4 * (pool->num_threads() + 1));
  std::vector<int64_t> first(static_cast<size_t>(pieces + 1));  // first value of each piece
  std::vector<int64_t> start(static_cast<size_t>(pieces));      // where each piece writes
  for (int64_t p = 0; p <= pieces; ++p) {
    first[static_cast<size_t>(p)] = n * p / pieces;
    if (p < pieces) {
      start[static_cast<size_t>(p)] = 2 * (v.offsets[static_cast<size_t>(first[static_cast<size_t>(p)])] - v.offsets.front());
    }
  }
  std::vector<int64_t> wrote(static_cast<size_t>(pieces));
  auto compress = [&](int64_t p) {
    const int64_t lo = first[static_cast<size_t>(p)], hi = first[static_cast<size_t>(p + 1)];
    // (the ends within the piece, for now)
    wrote[static_cast<size_t>(p)] = static_cast<int64_t>(enc.CompressValues(
        reinterpret_cast<const uint8_t*>(v.data.data()), v.data.size(), v.offsets.data() + lo, hi - lo,
        codes + start[static_cast<size_t>(p)], offsets.data() + lo + 1));
  };
  if (pieces == 1) {
    compress(0);
  } else {
    ParallelFor(pool, pieces, compress);
  }
  int64_t at = 0;
  for (int64_t p = 0; p < pieces; ++p) {
    const int64_t lo = first[static_cast<size_t>(p)], hi = first[static_cast<size_t>(p + 1)];
    const int64_t from = start[static_cast<size_t>(p)];
    if (from != at) std::memmove(codes + at, codes + from, static_cast<size_t>(wrote[static_cast<size_t>(p)]));
    for (int64_t i = lo; i < hi; ++i) offsets[static_cast<size_t>(i + 1)] += at;
    at += wrote[static_cast<size_t>(p)];
  }
  offsets[0] = 0;
  out.codes.data.Truncate(static_cast<size_t>(at));
  out.codes.offsets = std::move(offsets);
  out.codes.num_values = n;
  return out;
}

Enc WrapFsst(const std::string& table, const Enc& inner) {
  Enc e;
  e.mutable_fsst()->set_symbol_table(table);
  *e.mutable_fsst()->mutable_values() = inner;
  return e;
}

// Per-value zstd, as lance 12 chooses it (its compression.rs create_per_value): when some value
// is over 32 KiB (and the page holds at least 32 KiB) each value is compressed on its own, as
// its u64 length and a zstd frame (level 0, zstd's default), so that one value is read and
// decompressed alone. Encoding general(zstd level 0, variable(lengths)).
constexpr int64_t kPerValueCompressionBytes = 32 * 1024;

Result<std::optional<CodedValues>> ZstdEachValue(const DataBlock& v) {
  const int64_t n = v.num_values;
  if (n == 0 || v.offsets.back() - v.offsets.front() < kPerValueCompressionBytes) return std::nullopt;
  int64_t max_len = 0;
  size_t bound = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = v.offsets[static_cast<size_t>(i + 1)] - v.offsets[static_cast<size_t>(i)];
    max_len = std::max(max_len, len);
    bound += 8 + ZSTD_compressBound(static_cast<size_t>(len));
  }
  if (max_len <= kPerValueCompressionBytes) return std::nullopt;
  CodedValues out;
  LANCE_RETURN_NOT_OK(out.values.data.ResizeForOverwrite(bound));
  char* dst = out.values.data.mutable_data();
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<size_t>(n + 1));
  offsets.push_back(0);
  size_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const std::string_view s = v.ValueView(i);
    const uint64_t size = s.size();
    std::memcpy(dst + at, &size, 8);  // in host order, as PutLE writes lengths
    const size_t got = ZSTD_compress(dst + at + 8, bound - at - 8, s.data(), s.size(), 0);
    if (ZSTD_isError(got)) {
      return Status::Internal("zstd compression of a {}-byte value failed: {}", s.size(), ZSTD_getErrorName(got));
    }
    at += 8 + got;
    offsets.push_back(static_cast<int64_t>(at));
  }
  out.values.data.Truncate(at);
  out.values.offsets = std::move(offsets);
  out.values.num_values = n;
  out.encoding = [](const Enc& lengths) {
    Enc e;
    auto* g = e.mutable_general();
    g->mutable_compression()->set_scheme(::lance::encodings21::COMPRESSION_ALGORITHM_ZSTD);
    g->mutable_compression()->set_level(0);
    *g->mutable_values() = lengths;
    return e;
  };
  return out;
}

// ConstantLayout (2.2) with the single value inline (fixed width up to 32 bytes, bools as one
// byte) or, for variable width, in page buffer 0 as `u32 2 | u32 offsets size | u32 data size |
// offsets [0, len] (u32, or u64 for the large types) | bytes`.
EncodedPage EncodeConstant(const LeafPage& p, std::string_view value, bool in_buffer) {
  EncodedPage out;
  auto* cl = out.layout.mutable_constant_layout();
  SetLayers(p.layers, cl->mutable_layers());
  if (!in_buffer) {
    cl->set_inline_value(std::string(value));
    return out;
  }
  // Offsets as wide as the Arrow type's (lance 12 refuses 32-bit offsets for large_utf8 /
  // large_binary: "Buffer 0 of LargeUtf8 isn't large enough").
  const bool wide = p.offset_bits == 64;
  std::string buf;
  Put<uint32_t>(&buf, 2);
  Put<uint32_t>(&buf, wide ? 16 : 8);
  Put<uint32_t>(&buf, static_cast<uint32_t>(value.size()));
  if (wide) {
    Put<uint64_t>(&buf, 0);
    Put<uint64_t>(&buf, value.size());
  } else {
    Put<uint32_t>(&buf, 0);
    Put<uint32_t>(&buf, static_cast<uint32_t>(value.size()));
  }
  buf.append(value);
  out.buffers.push_back(std::move(buf));
  return out;
}

// The one value every visible value equals, if so (no levels: all valid).
std::optional<std::string> ConstantValue(const DataBlock& v) {
  if (v.num_values == 0) return std::nullopt;
  switch (v.kind) {
    case DataBlock::Kind::kFixed: {
      if (v.bits_per_value == 1) {
        const auto* bits = reinterpret_cast<const uint8_t*>(v.data.data());
        const bool first = bit_util::GetBit(bits, 0);
        for (int64_t i = 1; i < v.num_values; ++i) {
          if (bit_util::GetBit(bits, i) != first) return std::nullopt;
        }
        return std::string(1, first ? '\1' : '\0');
      }
      const size_t w = static_cast<size_t>(v.bits_per_value / 8);
      if (w > 32) return std::nullopt;
      const char* d = v.data.data();
      for (int64_t i = 1; i < v.num_values; ++i) {
        if (std::memcmp(d, d + static_cast<size_t>(i) * w, w) != 0) return std::nullopt;
      }
      return std::string(d, w);
    }
    case DataBlock::Kind::kVariable: {
      const std::string_view first = v.ValueView(0);
      if (first.size() > (1u << 20)) return std::nullopt;
      for (int64_t i = 1; i < v.num_values; ++i) {
        if (v.ValueView(i) != first) return std::nullopt;
      }
      return std::string(first);
    }
    case DataBlock::Kind::kFixedSizeList:
      return std::nullopt;
  }
  return std::nullopt;
}


Result<EncodedPage> EncodeDictionary(const LeafPage& p, const StringDictionary& d,
                                     const PageEncodeOptions& opt) {
  LANCE_ASSIGN_OR_RAISE(auto dict, EncodeDictionaryItems(d.items, p.offset_bits == 64 ? 64 : 32,
                                                         opt.minor_version));
  const ChunkCodec codec = BitpackCodec(d.indices);  // 32-bit indices
  return EncodeMiniBlock(p, codec, opt, &dict.first, &dict.second,
                         static_cast<uint64_t>(d.items.num_values));
}


}  // namespace

namespace {
Result<EncodedPage> EncodePageOnce(const LeafPage& p, const PageEncodeOptions& opt);
}  // namespace

Result<EncodedPage> EncodePage(const LeafPage& p, const PageEncodeOptions& opt) {
  auto out = EncodePageOnce(p, opt);
  if (!out.ok() && out.status().IsNotSupported() && opt.compress && !opt.flat_levels) {
    // Long runs of levels without a value (e.g. many empty lists) do not fit bit-packed
    // level chunks of 1024; plain u16 levels hold up to 32767.
    PageEncodeOptions flat = opt;
    flat.flat_levels = true;
    return EncodePageOnce(p, flat);
  }
  return out;
}

namespace {
Result<EncodedPage> EncodePageOnce(const LeafPage& p, const PageEncodeOptions& opt) {
  if (opt.minor_version != 1 && opt.minor_version != 2) {
    return Status::InvalidArgument("page encoder: file version 2.{}", opt.minor_version);
  }
  if (p.layers.empty()) return Status::InvalidArgument("page encoder: no layers");
  if (!p.rep.empty() && !p.def.empty() && p.rep.size() != p.def.size()) {
    return Status::InvalidArgument("page encoder: {} repetition but {} definition levels",
                                   p.rep.size(), p.def.size());
  }
  // Pages without a valid value.
  bool any_valid = p.values.num_values > 0 && p.def.empty();
  if (!any_valid && p.values.num_values > 0) {
    any_valid = std::find(p.def.begin(), p.def.end(), 0) != p.def.end();
  }
  if (!any_valid) return EncodeAllNull(p);
  if (p.has_dictionary) {
    // An Arrow dictionary column keeps its own indices (their width is the field's index
    // type, which lance 12 reads back) and items.
    const int offset_bits = p.offset_bits == 64 ? 64 : 32;
    LANCE_ASSIGN_OR_RAISE(auto dict, EncodeDictionaryItems(p.dictionary, offset_bits,
                                                           opt.compress ? opt.minor_version : 1));
    if (p.values.kind != DataBlock::Kind::kFixed || p.values.bits_per_value % 8 != 0) {
      return Status::InvalidArgument("page encoder: dictionary indices of {} bits", p.values.bits_per_value);
    }
    return EncodeMiniBlock(p, opt.compress ? ChooseFixedCodec(p.values) : PlainCodec(p.values), opt,
                           &dict.first, &dict.second, static_cast<uint64_t>(p.dictionary.num_values));
  }
  const DataBlock& v = p.values;
  if (WantsFullZip(v)) {
    if (opt.compress && v.kind == DataBlock::Kind::kVariable) {
      LANCE_ASSIGN_OR_RAISE(std::optional<CodedValues> zstd, ZstdEachValue(v));
      if (zstd) return EncodeFullZip(p, opt, &*zstd);
      LANCE_ASSIGN_OR_RAISE(auto fsst, FsstCompress(v, opt.pool));
      if (fsst) {
        CodedValues coded{std::move(fsst->codes), [&](const Enc& inner) { return WrapFsst(fsst->table, inner); }};
        return EncodeFullZip(p, opt, &coded);
      }
    }
    return EncodeFullZip(p, opt);
  }
  if (opt.compress) {
    if (opt.minor_version >= 2 && p.rep.empty() && p.def.empty()) {
      if (auto value = ConstantValue(v)) {
        return EncodeConstant(p, *value, v.kind == DataBlock::Kind::kVariable);
      }
    }
    if (v.kind == DataBlock::Kind::kFixed &&
        (v.bits_per_value == 8 || v.bits_per_value == 16 || v.bits_per_value == 32 ||
         v.bits_per_value == 64)) {
      // (Pages of lists keep their values: our reader's take of list pages checks the
      // repetition index less strictly with a dictionary.)
      if (opt.minor_version >= 2 && p.rep.empty()) {
        LANCE_ASSIGN_OR_RAISE(auto d, BuildFixedDictionary(v));
        if (d) {
          LANCE_ASSIGN_OR_RAISE(auto dict, EncodeDictionaryItems(d->items, 32, opt.minor_version));
          return EncodeMiniBlock(p, ChooseFixedCodec(d->indices), opt, &dict.first, &dict.second,
                                 static_cast<uint64_t>(d->items.num_values));
        }
      }
      return EncodeMiniBlock(p, ChooseFixedCodec(v), opt);
    }
    if (v.kind == DataBlock::Kind::kVariable) {
      LANCE_ASSIGN_OR_RAISE(auto dict, BuildDictionary(v));
      if (dict) return EncodeDictionary(p, *dict, opt);
      LANCE_ASSIGN_OR_RAISE(auto fsst, FsstCompress(v, opt.pool));
      // Escapes can double a value; mini-block chunks must still hold the longest one.
      bool fits = fsst.has_value();
      for (int64_t i = 0; fits && i < fsst->codes.num_values; ++i) {
        fits = fsst->codes.offsets[static_cast<size_t>(i + 1)] - fsst->codes.offsets[static_cast<size_t>(i)] <=
               kMaxMiniBlockValueBytes;
      }
      if (fits) {
        ChunkCodec codec = PlainCodec(fsst->codes, p.offset_bits);
        codec.encoding = WrapFsst(fsst->table, codec.encoding);
        return EncodeMiniBlock(p, codec, opt);
      }
    }
  }
  return EncodeMiniBlock(p, PlainCodec(v, p.offset_bits), opt);
}

}  // namespace

}  // namespace lance::encoding
