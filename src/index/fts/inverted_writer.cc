#include "lance/index/fts/inverted_writer.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "index/fts/fst_map.h"
#include "index/fts/posting_codec.h"
#include "lance/columnar/builder.h"
#include "lance/core/status.h"
#include "lance/core/thread_pool.h"
#include "lance/index/fts/inverted_index.h"

namespace lance::index::fts {

namespace {

constexpr const char* kEmptyRoaring = "\x3a\x30\x00\x00\x00\x00\x00\x00";  // portable, no values

// One token's postings while building: documents ascending, their frequencies, and (with
// positions) every position of every document, in document order.
struct Postings {
  std::vector<uint32_t> docs;
  std::vector<uint32_t> freqs;
  std::vector<uint32_t> positions;
};

struct Partition {
  std::vector<std::string> tokens;  // by token id
  std::vector<Postings> postings;   // by token id
  std::vector<uint64_t> row_ids;    // by doc id
  std::vector<uint32_t> doc_tokens;
  uint64_t total_tokens = 0;
};

// The rows [first, first + values of `texts`) into `part`: documents numbered from 0 in row
// order, token ids in order of first appearance.
Status Tokenize(Tokenizer& tokenizer, bool with_position, const std::vector<ArrayPtr>& texts,
                const uint64_t* row_ids, Partition* part) {
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<Token> toks;
  size_t row = 0;
  for (const ArrayPtr& a : texts) {
    for (int64_t i = 0; i < a->length; ++i, ++row) {
      if (!a->IsValid(i)) continue;
      LANCE_RETURN_NOT_OK(tokenizer.Tokenize(a->GetView(i), &toks));
      if (toks.empty()) continue;
      const auto doc = static_cast<uint32_t>(part->row_ids.size());
      part->row_ids.push_back(row_ids[row]);
      part->doc_tokens.push_back(static_cast<uint32_t>(toks.size()));
      part->total_tokens += toks.size();
      for (Token& t : toks) {
        auto [it, added] = ids.try_emplace(t.text, static_cast<uint32_t>(part->tokens.size()));
        if (added) {
          part->tokens.push_back(std::move(t.text));
          part->postings.emplace_back();
        }
        Postings& p = part->postings[it->second];
        if (p.docs.empty() || p.docs.back() != doc) {
          p.docs.push_back(doc);
          p.freqs.push_back(0);
        }
        ++p.freqs.back();
        if (with_position) p.positions.push_back(t.position);
      }
    }
  }
  return Status::OK();
}

// `next` (the rows after those of `into`) appended to `into`: its documents renumbered after
// `into`'s, its tokens new to `into` numbered after `into`'s in their order in `next` (which is
// their order of first appearance over both).
void Join(Partition&& next, Partition* into) {
  // `ids` views into->tokens' strings (short ones live inside the vector): the vector may not
  // move them while new tokens are appended, so it is reserved before the views are taken
  into->tokens.reserve(into->tokens.size() + next.tokens.size());
  into->postings.reserve(into->postings.size() + next.tokens.size());
  std::unordered_map<std::string_view, uint32_t> ids;
  for (size_t i = 0; i < into->tokens.size(); ++i) ids.emplace(into->tokens[i], static_cast<uint32_t>(i));
  const auto offset = static_cast<uint32_t>(into->row_ids.size());
  for (size_t t = 0; t < next.tokens.size(); ++t) {
    Postings& src = next.postings[t];
    auto it = ids.find(next.tokens[t]);
    if (it == ids.end()) {
      into->tokens.push_back(std::move(next.tokens[t]));
      into->postings.emplace_back();
      it = ids.emplace(into->tokens.back(), static_cast<uint32_t>(into->tokens.size() - 1)).first;
    }
    Postings& dst = into->postings[it->second];
    for (uint32_t d : src.docs) dst.docs.push_back(d + offset);
    dst.freqs.insert(dst.freqs.end(), src.freqs.begin(), src.freqs.end());
    dst.positions.insert(dst.positions.end(), src.positions.begin(), src.positions.end());
    src = Postings();
  }
  into->row_ids.insert(into->row_ids.end(), next.row_ids.begin(), next.row_ids.end());
  into->doc_tokens.insert(into->doc_tokens.end(), next.doc_tokens.begin(), next.doc_tokens.end());
  into->total_tokens += next.total_tokens;
}

// Every row of `texts` into `part`, in runs of arrays tokenized in parallel on `pool`.
Status TokenizeAll(const TokenizerOptions& options, const std::vector<ArrayPtr>& texts,
                   const std::vector<uint64_t>& row_ids, ThreadPool* pool, Partition* part) {
  size_t rows = 0;
  for (const ArrayPtr& a : texts) {
    if (a->type_id() != TypeId::kString && a->type_id() != TypeId::kLargeString) {
      return Status::InvalidArgument("an INVERTED index needs a utf8 column, not {}", a->type->ToString());
    }
    rows += static_cast<size_t>(a->length);
  }
  if (rows != row_ids.size()) return Status::InvalidArgument("inverted index: {} row ids for {} values", row_ids.size(), rows);
  // runs of whole arrays of about rows / threads values each (arrays are sliced to split one)
  const size_t threads = pool ? static_cast<size_t>(std::max(1, pool->num_threads())) : 1;
  const size_t per_run = std::max<size_t>(4096, (rows + threads - 1) / threads);
  std::vector<std::vector<ArrayPtr>> runs;
  std::vector<size_t> run_first;
  size_t at = 0, in_run = per_run;
  for (const ArrayPtr& a : texts) {
    for (int64_t off = 0; off < a->length;) {
      if (in_run == per_run) {
        runs.emplace_back();
        run_first.push_back(at);
        in_run = 0;
      }
      const int64_t take = std::min<int64_t>(a->length - off, static_cast<int64_t>(per_run - in_run));
      runs.back().push_back(off == 0 && take == a->length ? a : a->Slice(off, take));
      off += take;
      at += static_cast<size_t>(take);
      in_run += static_cast<size_t>(take);
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto tokenizer, Tokenizer::Make(options));
  std::vector<Partition> parts(runs.size());
  std::vector<Status> status(runs.size());
  ParallelFor(runs.size() > 1 ? pool : nullptr, static_cast<int64_t>(runs.size()), [&](int64_t r) {
    auto own = tokenizer->Clone();
    if (!own) {
      status[r] = Status::Internal("inverted index: cannot copy the tokenizer");
      return;
    }
    status[r] = Tokenize(*own, options.with_position, runs[r], row_ids.data() + run_first[r], &parts[r]);
  });
  for (const Status& s : status) LANCE_RETURN_NOT_OK(s);
  if (parts.empty()) return Status::OK();
  *part = std::move(parts[0]);
  for (size_t r = 1; r < parts.size(); ++r) Join(std::move(parts[r]), part);
  return Status::OK();
}

Result<uint64_t> WriteBatch(IndexStore& store, const std::string& name, const SchemaPtr& s, int64_t rows,
                            std::vector<ArrayPtr> columns) {
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(name, s));
  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(s, rows, std::move(columns)));
  LANCE_RETURN_NOT_OK(writer->Write(*batch));
  LANCE_ASSIGN_OR_RAISE(auto summary, writer->Finish());
  return static_cast<uint64_t>(summary.size_bytes);
}

std::vector<std::pair<std::string, std::string>> LayoutMetadata(bool with_position) {
  std::vector<std::pair<std::string, std::string>> m = {{"format_version", "2"}};
  if (with_position) {
    m.emplace_back("positions_codec", "packed_delta_v1");
    m.emplace_back("positions_layout", "shared_stream_v2");
  }
  m.emplace_back("posting_block_size", "128");
  m.emplace_back("posting_tail_codec", "varint_delta_v1");
  return m;
}

Result<uint64_t> WriteInvert(IndexStore& store, const std::string& name, const Partition& part, bool with_position) {
  const float avgdl = Bm25AvgDocLength(part.total_tokens, part.row_ids.size());
  auto blob_list = list(field("item", large_binary(), true));
  std::vector<FieldPtr> fields = {field("_posting", blob_list, false), field("_max_score", float32(), false),
                                  field("_length", uint32(), false), field("_impacts", blob_list, false)};
  if (with_position) {
    fields.push_back(field("_compressed_position", large_binary(), false));
    fields.push_back(field("_position_block_offset", list(field("item", uint32(), true)), false));
  }
  auto s = schema(std::move(fields), std::make_shared<KeyValueMetadata>(LayoutMetadata(with_position)));
  ListBuilder posting(blob_list, std::make_unique<BinaryBuilder>(large_binary()));
  ListBuilder impacts(blob_list, std::make_unique<BinaryBuilder>(large_binary()));
  ListBuilder offsets(list(field("item", uint32(), true)), std::make_unique<UInt32Builder>(uint32()));
  BinaryBuilder positions(large_binary());
  FloatBuilder max_scores(float32());
  UInt32Builder lengths(uint32());
  auto* pblocks = static_cast<BinaryBuilder*>(posting.value_builder());
  auto* iblocks = static_cast<BinaryBuilder*>(impacts.value_builder());
  auto* offs = static_cast<UInt32Builder*>(offsets.value_builder());
  std::vector<uint32_t> codes, deltas;
  std::string stream;
  for (const Postings& p : part.postings) {
    const size_t n = p.docs.size();
    // lance 12's block score: the best f / (f + K1 (1 - B + B dl / avgdl)) of the block, times
    // idf (K1 + 1), in f32 and that order
    const float factor = Bm25Idf(n, part.row_ids.size()) * (kBm25K1 + 1.0f);
    codes.resize(n);
    for (size_t i = 0; i < n; ++i) codes[i] = LengthCode(part.doc_tokens[p.docs[i]]);
    LANCE_RETURN_NOT_OK(posting.Append());
    LANCE_RETURN_NOT_OK(impacts.Append());
    if (with_position) LANCE_RETURN_NOT_OK(offsets.Append());
    stream.clear();
    float best = 0;
    size_t pos_at = 0;
    for (size_t lo = 0; lo < n; lo += kPackedBlock) {
      const size_t cnt = std::min(kPackedBlock, n - lo);
      float w = std::numeric_limits<float>::lowest();
      for (size_t i = lo; i < lo + cnt; ++i) {
        const float f = static_cast<float>(p.freqs[i]);
        const float dl = static_cast<float>(part.doc_tokens[p.docs[i]]);
        w = std::max(w, f / (f + kBm25K1 * (1.0f - kBm25B + kBm25B * dl / avgdl)));
      }
      const float block_best = w * factor;
      best = lo == 0 ? block_best : std::max(best, block_best);
      LANCE_RETURN_NOT_OK(pblocks->Append(EncodePostingBlock(&p.docs[lo], &p.freqs[lo], cnt, block_best)));
      LANCE_RETURN_NOT_OK(iblocks->Append(
          EncodeImpacts(p.docs[lo + cnt - 1], ParetoImpacts(&p.freqs[lo], &codes[lo], cnt))));
      if (with_position) {
        LANCE_RETURN_NOT_OK(offs->Append(static_cast<uint32_t>(stream.size())));
        deltas.clear();
        for (size_t i = lo; i < lo + cnt; ++i) {
          for (uint32_t j = 0; j < p.freqs[i]; ++j, ++pos_at) {
            deltas.push_back(j == 0 ? p.positions[pos_at] : p.positions[pos_at] - p.positions[pos_at - 1]);
          }
        }
        EncodePositionRun(deltas.data(), deltas.size(), &stream);
      }
    }
    // then one per group of kImpactGroup blocks
    const size_t group = kImpactGroup * kPackedBlock;
    for (size_t lo = 0; lo < n; lo += group) {
      const size_t cnt = std::min(group, n - lo);
      LANCE_RETURN_NOT_OK(iblocks->Append(
          EncodeImpacts(p.docs[lo + cnt - 1], ParetoImpacts(&p.freqs[lo], &codes[lo], cnt))));
    }
    LANCE_RETURN_NOT_OK(max_scores.Append(best));
    LANCE_RETURN_NOT_OK(lengths.Append(static_cast<uint32_t>(n)));
    if (with_position) LANCE_RETURN_NOT_OK(positions.Append(stream));
  }
  std::vector<ArrayPtr> cols;
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c0, posting.Finish());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c1, max_scores.Finish());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c2, lengths.Finish());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c3, impacts.Finish());
  cols = {c0, c1, c2, c3};
  if (with_position) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr c4, positions.Finish());
    LANCE_ASSIGN_OR_RAISE(ArrayPtr c5, offsets.Finish());
    cols.push_back(c4);
    cols.push_back(c5);
  }
  return WriteBatch(store, name, s, static_cast<int64_t>(part.postings.size()), std::move(cols));
}

Result<uint64_t> WriteTokens(IndexStore& store, const std::string& name, const Partition& part) {
  // token ids are in order of first appearance (as lance 12 numbers them); the fst is sorted
  std::vector<std::pair<std::string, uint64_t>> entries(part.tokens.size());
  uint64_t total_length = 0;
  for (size_t i = 0; i < part.tokens.size(); ++i) {
    entries[i] = {part.tokens[i], i};
    total_length += part.tokens[i].size();
  }
  std::sort(entries.begin(), entries.end());
  LANCE_ASSIGN_OR_RAISE(std::string fst, EncodeFstMap(entries));
  auto s = schema({field("_token_fst_bytes", large_binary(), false), field("_token_next_id", uint32(), false),
                   field("_token_total_length", uint64(), false)});
  BinaryBuilder b(large_binary());
  UInt32Builder next(uint32());
  UInt64Builder total(uint64());
  LANCE_RETURN_NOT_OK(b.Append(fst));
  LANCE_RETURN_NOT_OK(next.Append(static_cast<uint32_t>(part.tokens.size())));
  LANCE_RETURN_NOT_OK(total.Append(total_length));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c0, b.Finish());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c1, next.Finish());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c2, total.Finish());
  return WriteBatch(store, name, s, 1, {c0, c1, c2});
}

Result<uint64_t> WriteDocs(IndexStore& store, const std::string& name, const Partition& part) {
  auto s = schema({field("_rowid", uint64(), false), field("_num_tokens", uint32(), false)},
                  std::make_shared<KeyValueMetadata>(std::vector<std::pair<std::string, std::string>>{
                      {"total_tokens", std::to_string(part.total_tokens)}}));
  UInt64Builder rows(uint64());
  UInt32Builder counts(uint32());
  LANCE_RETURN_NOT_OK(rows.AppendValues(part.row_ids.data(), static_cast<int64_t>(part.row_ids.size())));
  LANCE_RETURN_NOT_OK(counts.AppendValues(part.doc_tokens.data(), static_cast<int64_t>(part.doc_tokens.size())));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c0, rows.Finish());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c1, counts.Finish());
  return WriteBatch(store, name, s, static_cast<int64_t>(part.row_ids.size()), {c0, c1});
}

Result<uint64_t> WriteMetadata(IndexStore& store, const TokenizerOptions& options) {
  std::vector<std::pair<std::string, std::string>> m = {{"format_version", "2"},
                                                        {"params", options.ToIndexParamsJson()},
                                                        {"partitions", "[0]"}};
  for (auto& kv : LayoutMetadata(options.with_position)) {
    if (kv.first != "format_version") m.push_back(std::move(kv));
  }
  m.emplace_back("token_set_format", "fst");
  auto s = schema({field("deleted_fragments", binary(), false)}, std::make_shared<KeyValueMetadata>(std::move(m)));
  BinaryBuilder b(binary());
  LANCE_RETURN_NOT_OK(b.Append(std::string_view(kEmptyRoaring, 8)));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr c0, b.Finish());
  return WriteBatch(store, "metadata.lance", s, 1, {c0});
}

// A file of `from` copied byte for byte into `to`; its size.
Result<uint64_t> CopyFile(IndexStore& from, IndexStore& to, const std::string& name) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, from.object_store()->Get(from.PathOf(name)));
  LANCE_RETURN_NOT_OK(to.object_store()->Put(to.PathOf(name), bytes->view()));
  return static_cast<uint64_t>(bytes->size());
}

// One partition of an opened segment with its rows remapped: the documents kept, renumbered
// densely in their old order, and every token's postings over them.
Result<Partition> RemapPartition(const InvertedPartition& old, bool with_position,
                                 const std::function<uint64_t(uint64_t)>& map) {
  Partition part;
  std::vector<uint32_t> new_doc(old.num_docs(), UINT32_MAX);
  for (uint32_t d = 0; d < old.num_docs(); ++d) {
    const uint64_t row = map(old.RowId(d));
    if (row == kRemovedRow) continue;
    new_doc[d] = static_cast<uint32_t>(part.row_ids.size());
    part.row_ids.push_back(row);
    part.doc_tokens.push_back(old.DocTokens(d));
    part.total_tokens += old.DocTokens(d);
  }
  std::vector<const std::string*> by_id(old.num_tokens(), nullptr);
  for (const auto& [token, id] : old.tokens()) by_id[id] = &token;
  for (uint32_t t = 0; t < old.num_tokens(); ++t) {
    LANCE_ASSIGN_OR_RAISE(PostingList list, old.Postings(t, with_position));
    if (with_position && !list.has_positions) {
      return Status::Corruption("{}: token {} has no positions in an index built with positions",
                                "part_" + std::to_string(old.id()) + "_invert.lance", t);
    }
    Postings p;
    for (size_t i = 0; i < list.docs.size(); ++i) {
      const uint32_t d = list.docs[i];
      if (d >= new_doc.size() || new_doc[d] == UINT32_MAX) continue;
      p.docs.push_back(new_doc[d]);
      p.freqs.push_back(list.freqs[i]);
      if (with_position) {
        p.positions.insert(p.positions.end(), list.positions.begin() + list.pos_start[i],
                           list.positions.begin() + list.pos_start[i + 1]);
      }
    }
    // A token left without documents leaves the dictionary (lance 12 drops it too); the
    // others keep their order, renumbered densely.
    if (p.docs.empty()) continue;
    if (by_id[t] == nullptr) {
      return Status::Corruption("part_{}_tokens.lance: no token has id {}", old.id(), t);
    }
    part.tokens.push_back(*by_id[t]);
    part.postings.push_back(std::move(p));
  }
  return part;
}

}  // namespace

Result<std::vector<table::IndexFileInfo>> RemapInvertedIndex(const std::shared_ptr<IndexStore>& from, IndexStore& to,
                                                             const std::function<uint64_t(uint64_t)>& map) {
  LANCE_ASSIGN_OR_RAISE(auto index, InvertedIndex::Open(from));
  std::vector<table::IndexFileInfo> files;
  for (const auto& old : index->partitions()) {
    LANCE_ASSIGN_OR_RAISE(Partition part, RemapPartition(*old, index->with_position(), map));
    const std::string prefix = fmt::format("part_{}_", old->id());
    LANCE_ASSIGN_OR_RAISE(uint64_t isize, WriteInvert(to, prefix + "invert.lance", part, index->with_position()));
    files.push_back({prefix + "invert.lance", isize, {}});
    // The dictionary as it was when every token kept a document, else written anew.
    LANCE_ASSIGN_OR_RAISE(uint64_t tsize, part.tokens.size() == old->num_tokens()
                                              ? CopyFile(*from, to, prefix + "tokens.lance")
                                              : WriteTokens(to, prefix + "tokens.lance", part));
    files.push_back({prefix + "tokens.lance", tsize, {}});
    LANCE_ASSIGN_OR_RAISE(uint64_t dsize, WriteDocs(to, prefix + "docs.lance", part));
    files.push_back({prefix + "docs.lance", dsize, {}});
  }
  LANCE_ASSIGN_OR_RAISE(uint64_t msize, CopyFile(*from, to, "metadata.lance"));
  files.push_back({"metadata.lance", msize, {}});
  return files;
}

Result<WrittenInvertedIndex> WriteInvertedIndex(IndexStore& store, const TokenizerOptions& options,
                                                const std::vector<ArrayPtr>& texts,
                                                const std::vector<uint64_t>& row_ids, ThreadPool* pool) {
  LANCE_RETURN_NOT_OK(options.Validate());
  Partition part;
  LANCE_RETURN_NOT_OK(TokenizeAll(options, texts, row_ids, pool, &part));
  WrittenInvertedIndex out;
  for (const char* kind : {"invert", "tokens", "docs"}) {
    const std::string name = fmt::format("part_0_{}.lance", kind);
    Result<uint64_t> size = Status::OK();
    if (kind[0] == 'i') size = WriteInvert(store, name, part, options.with_position);
    if (kind[0] == 't') size = WriteTokens(store, name, part);
    if (kind[0] == 'd') size = WriteDocs(store, name, part);
    if (!size.ok()) return size.status();
    out.files.push_back({name, *size, {}});
  }
  LANCE_ASSIGN_OR_RAISE(uint64_t msize, WriteMetadata(store, options));
  out.files.push_back({"metadata.lance", msize, {}});
  out.details = options.ToInvertedIndexDetails();
  out.num_docs = part.row_ids.size();
  out.total_tokens = part.total_tokens;
  out.num_tokens = part.tokens.size();
  return out;
}

}  // namespace lance::index::fts
