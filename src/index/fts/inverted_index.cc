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

#include "index/fts/bm25.h"
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
  const std::string tpath = store.DisplayPathOf(tokens_name);
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
  const std::string dpath = store.DisplayPathOf(docs_name);
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

// `_impacts` of every token (InvertedPartition::impact_*): checked against the postings read
// before it (one value per block then one per group of 32; each block's last document within
// the block's range; codes ascending with the frequencies).
Status InvertedIndex::LoadImpacts(const RecordBatch& inv, const std::string& ipath, InvertedPartition* part) {
  LANCE_ASSIGN_OR_RAISE(const Array* impacts, Column(inv, "_impacts", TypeId::kList, ipath));
  const Array& values = *impacts->children.at(0);
  if (!values.type->is_binary_like()) return Status::Corruption("{}: _impacts items are not binary", ipath);
  const size_t ntok = part->blocks_.size();
  part->impact_entry_.assign(1, 0);
  part->impact_pair_at_.assign(1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (size_t t = 0; t < ntok; ++t) {
    const int64_t lo = impacts->ValueOffset(static_cast<int64_t>(t));
    const int64_t hi = impacts->ValueOffset(static_cast<int64_t>(t) + 1);
    const size_t nb = part->blocks_[t].size();
    const size_t want = nb + (nb + kImpactGroup - 1) / kImpactGroup;
    if (lo < 0 || hi < lo || hi > values.length || static_cast<size_t>(hi - lo) != want) {
      return Status::Corruption("{}: token {} has {} impacts values for {} posting blocks (expected {})", ipath, t,
                                hi - lo, nb, want);
    }
    const std::string what = fmt::format("{} token {} impacts", ipath, t);
    uint32_t prev_last = 0;
    for (int64_t v = lo; v < hi; ++v) {
      if (values.IsNull(v)) return Status::Corruption("{}: a null value", what);
      uint32_t last = 0;
      pairs.clear();
      LANCE_RETURN_NOT_OK(DecodeImpacts(values.GetView(v), &last, &pairs, what));
      for (size_t i = 1; i < pairs.size(); ++i) {
        if (pairs[i].second < pairs[i - 1].second) return Status::Corruption("{}: length codes not ascending", what);
      }
      const size_t b = static_cast<size_t>(v - lo);
      if (b < nb && ((b > 0 && last <= prev_last) || last >= part->row_ids_.size())) {
        return Status::Corruption("{}: block {} ends at document {}", what, b, last);
      }
      prev_last = last;
      part->impact_last_.push_back(last);
      part->impact_pairs_.insert(part->impact_pairs_.end(), pairs.begin(), pairs.end());
      part->impact_pair_at_.push_back(static_cast<uint32_t>(part->impact_pairs_.size()));
    }
    part->impact_entry_.push_back(static_cast<uint32_t>(part->impact_last_.size()));
  }
  return Status::OK();
}

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
  const std::string mpath = store->DisplayPathOf(kMetadataFile);
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
    part->invert_path_ = store->DisplayPathOf(fmt::format("part_{}_invert.lance", id));
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
    if (is.GetFieldIndex("_impacts") >= 0) LANCE_RETURN_NOT_OK(LoadImpacts(*inv, ipath, part.get()));
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
    bytes += static_cast<int64_t>(part->impact_last_.size() * 8 + part->impact_pairs_.size() * 8 + ntok * 4);
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

namespace {

// ExpandFuzzy over a dictionary sorted by bytes, its i-th token `at(i)` of `n`.
template <typename At>
std::vector<std::string> ExpandOver(size_t n, At at, const std::vector<std::string>& tokens,
                                    const FuzzyOptions& fuzzy, std::vector<uint32_t>* origin) {
  std::vector<std::string> out;
  if (origin) origin->clear();
  for (size_t q = 0; q < tokens.size() && out.size() < fuzzy.max_expansions; ++q) {
    const std::string& token = tokens[q];
    const std::vector<uint32_t> cps = FuzzyCodePoints(token);
    const std::string_view prefix =
        std::string_view(token).substr(0, std::min<size_t>(fuzzy.prefix_length, token.size()));
    // the dictionary's tokens starting with the prefix are one run of the byte order
    size_t lo = 0, hi = n;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (at(mid) < prefix) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (size_t i = lo; i < n && at(i).starts_with(prefix); ++i) {
      if (!FuzzyDistance(cps, FuzzyCodePoints(at(i)), fuzzy.fuzziness)) continue;
      if (out.size() >= fuzzy.max_expansions) break;
      out.emplace_back(at(i));
      if (origin) origin->push_back(static_cast<uint32_t>(q));
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> ExpandFuzzy(const InvertedPartition& part, const std::vector<std::string>& tokens,
                                     const FuzzyOptions& fuzzy, std::vector<uint32_t>* origin) {
  const auto& sorted = part.SortedTokens();
  return ExpandOver(sorted.size(), [&](size_t i) { return std::string_view(*sorted[i]); }, tokens, fuzzy, origin);
}

std::vector<std::string> ExpandFuzzy(const std::vector<std::string>& sorted, const std::vector<std::string>& tokens,
                                     const FuzzyOptions& fuzzy, std::vector<uint32_t>* origin) {
  return ExpandOver(sorted.size(), [&](size_t i) { return std::string_view(sorted[i]); }, tokens, fuzzy, origin);
}

bool Better(const ScoredRow& a, const ScoredRow& b) {
  return a.score != b.score ? a.score > b.score : a.row_id < b.row_id;
}


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

}  // namespace lance::index::fts
