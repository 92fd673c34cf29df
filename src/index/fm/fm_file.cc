// The FM index's partition files (part_N_fm.lance), its training and its ScalarIndex.
#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "lance/columnar/builder.h"
#include "lance/core/thread_pool.h"
#include "lance/file/file_reader.h"
#include "lance/file/file_writer.h"
#include "lance/index/fm/fm_index.h"
#include "lance/io/object_store.h"

namespace lance::index::fm {
namespace {

SchemaPtr BlockSchema(std::vector<std::pair<std::string, std::string>> meta) {
  return schema({field("node_id", uint32(), false), field("block_id", uint32(), false),
                 field("words", large_binary(), false), field("prefix_rank", uint64(), false),
                 field("bit_len", uint64(), false)},
                std::make_shared<KeyValueMetadata>(std::move(meta)));
}

template <typename B, typename T>
Result<ArrayPtr> Column(DataTypePtr type, const std::vector<T>& v) {
  B b(std::move(type));
  LANCE_RETURN_NOT_OK(b.AppendValues(v.data(), static_cast<int64_t>(v.size())));
  return b.Finish();
}

template <typename T>
Result<std::vector<T>> Numbers(const RecordBatch& b, int col, TypeId id, const std::string& where) {
  const Array& a = *b.column(col);
  if (a.type->id() != id || a.null_count != 0) {
    return Status::Corruption("{}: column {} is {} with {} nulls (expected non-null {})", where,
                              b.schema()->field(col)->name(), a.type->ToString(), a.null_count,
                              id == TypeId::kUInt32 ? "uint32" : "uint64");
  }
  const T* v = a.Values<T>();
  return std::vector<T>(v, v + a.length);
}

}  // namespace

Result<table::IndexFileInfo> WriteFmPartition(IndexStore& store, uint64_t id, const FmPartition& part) {
  uint64_t wavelet_rows = 0, sa_blocks = 0;
  FmPartition::Columns c = part.ToColumns(&wavelet_rows, &sa_blocks);
  SchemaPtr s = BlockSchema(part.Metadata(wavelet_rows, sa_blocks));
  const std::string name = FmPartitionFile(id);
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(name, s));
  if (!c.node_id.empty()) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr nid, (Column<UInt32Builder>(uint32(), c.node_id)));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr bid, (Column<UInt32Builder>(uint32(), c.block_id)));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr pr, (Column<UInt64Builder>(uint64(), c.prefix_rank)));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr bl, (Column<UInt64Builder>(uint64(), c.bit_len)));
    BinaryBuilder words(large_binary());
    for (const auto& w : c.words) LANCE_RETURN_NOT_OK(words.Append(w));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr wa, words.Finish());
    LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(s, static_cast<int64_t>(c.node_id.size()), {nid, bid, wa, pr, bl}));
    LANCE_RETURN_NOT_OK(writer->Write(*batch));
  }
  LANCE_ASSIGN_OR_RAISE(auto summary, writer->Finish());
  return table::IndexFileInfo{name, static_cast<uint64_t>(summary.size_bytes), {}};
}

namespace {

// The partition's metadata and small columns, read and checked (what a search needs before
// any block); the words column is left for the blocks a search touches.
Result<std::pair<std::shared_ptr<const FmPartitionMeta>, int64_t>> LoadFmMeta(IndexStore& store, const std::string& file) {
  const std::string where = store.DisplayPathOf(file);
  LANCE_ASSIGN_OR_RAISE(auto reader, store.OpenFile(file));
  const auto& s = reader->schema();
  static const char* names[] = {"node_id", "block_id", "words", "prefix_rank", "bit_len"};
  std::vector<int> cols;
  for (const char* n : names) {
    const int i = s->GetFieldIndex(n);
    if (i < 0) return Status::Corruption("{}: no column '{}' in {}", where, n, s->ToString());
    cols.push_back(i);
  }
  if (!s->metadata()) return Status::Corruption("{}: no schema metadata", where);
  FmPartition::Columns c;
  if (reader->num_rows() > 0) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->ReadAll({cols[0], cols[1], cols[3], cols[4]}));
    LANCE_ASSIGN_OR_RAISE(c.node_id, Numbers<uint32_t>(*b, 0, TypeId::kUInt32, where));
    LANCE_ASSIGN_OR_RAISE(c.block_id, Numbers<uint32_t>(*b, 1, TypeId::kUInt32, where));
    LANCE_ASSIGN_OR_RAISE(c.prefix_rank, Numbers<uint64_t>(*b, 2, TypeId::kUInt64, where));
    LANCE_ASSIGN_OR_RAISE(c.bit_len, Numbers<uint64_t>(*b, 3, TypeId::kUInt64, where));
  }
  LANCE_ASSIGN_OR_RAISE(FmPartitionMeta m, FmPartitionMeta::Decode(*s->metadata(), c, where));
  if (static_cast<int64_t>(m.num_rows()) != reader->num_rows()) {
    return Status::Corruption("{}: {} rows, the metadata describes {}", where, reader->num_rows(), m.num_rows());
  }
  m.words_column = cols[2];
  auto out = std::make_shared<const FmPartitionMeta>(std::move(m));
  return std::make_pair(out, out->MemoryBytes());
}

// Row `row`'s words, read alone (only the chunk holding it) and checked.
Result<std::pair<std::shared_ptr<const FmBlock>, int64_t>> LoadFmBlock(IndexStore& store, const std::string& file,
                                                                       const FmPartitionMeta& m, size_t row) {
  const std::string where = store.DisplayPathOf(file);
  LANCE_ASSIGN_OR_RAISE(auto reader, store.OpenFile(file));
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->ReadRange(static_cast<int64_t>(row), 1, {m.words_column}));
  const Array& w = *b->column(0);
  if (!w.type->is_binary_like() || w.null_count != 0 || w.length != 1) {
    return Status::Corruption("{}: words is {} with {} nulls (expected non-null large_binary)", where, w.type->ToString(),
                              w.null_count);
  }
  LANCE_ASSIGN_OR_RAISE(FmBlock blk, DecodeFmBlock(m, row, w.GetView(0), where));
  auto out = std::make_shared<const FmBlock>(std::move(blk));
  return std::make_pair(out, out->MemoryBytes());
}

}  // namespace

Result<scalar::TrainedIndex> TrainFmIndex(IndexStore& store, const scalar::TrainingData& data, ThreadPool* pool) {
  const TypeId t = data.type ? data.type->id() : TypeId::kNull;
  if (t != TypeId::kString && t != TypeId::kLargeString && t != TypeId::kBinary && t != TypeId::kLargeBinary) {
    return Status::InvalidArgument("an FM index needs a utf8, large_utf8, binary or large_binary column, not {}",
                                   data.type ? data.type->ToString() : std::string("?"));
  }
  scalar::TrainedIndex out;
  out.type_name = "FM";
  out.details_type_url = kFmDetailsTypeUrl;
  out.index_version = kFmIndexVersion;
  // the values' bytes stay in `data` while the partitions build: views, sanitized as each
  // partition lays them into its text
  std::vector<std::vector<std::pair<uint64_t, std::string_view>>> parts(1);
  size_t at = 0;
  for (const ArrayPtr& a : data.values) {
    for (int64_t i = 0; i < a->length; ++i, ++at) {
      if (at >= data.row_ids.size()) return Status::InvalidArgument("FM training: fewer row ids than values");
      if (a->IsNull(i)) continue;
      if (parts.back().size() == kFmPartitionDocs) parts.emplace_back();
      parts.back().emplace_back(data.row_ids[at], a->GetView(i));
    }
  }
  // Partitions build and write independently (suffix arrays dominate), each file as soon as
  // its partition is built, which then is dropped: the writes overlap the other builds.
  std::vector<Result<table::IndexFileInfo>> files(parts.size(), Status::OK());
  ParallelFor(pool, static_cast<int64_t>(parts.size()), [&](int64_t i) {
    const auto at = static_cast<size_t>(i);
    const FmPartition built = FmPartition::BuildRaw(parts[at]);
    std::vector<std::pair<uint64_t, std::string_view>>().swap(parts[at]);
    files[at] = WriteFmPartition(store, at, built);
  });
  for (auto& f : files) {
    LANCE_RETURN_NOT_OK(f.status());
    out.files.push_back(std::move(*f));
  }
  return out;
}

namespace {

class FmIndex final : public scalar::ScalarIndex {
 public:
  FmIndex(std::shared_ptr<IndexStore> store, std::vector<std::string> files)
      : ScalarIndex(std::move(store)), files_(std::move(files)) {}

  std::string_view type_name() const override { return "FM"; }
  const DataTypePtr& value_type() const override { return type_; }
  bool CanAnswer(const scalar::IndexQuery& q) const override { return std::holds_alternative<scalar::TextQuery>(q); }

  Result<scalar::SearchResult> Search(const scalar::IndexQuery& q, const scalar::SearchOptions& options) const override {
    const auto* tq = std::get_if<scalar::TextQuery>(&q);
    if (tq == nullptr) return Status::NotSupported("an FM index answers only contains(col, 'text')");
    const std::string needle = SanitizeFm(tq->substring);
    scalar::SearchResult out;
    if (needle.empty()) return out;  // matches nothing (as lance 12): no file is read
    std::vector<Result<std::vector<uint64_t>>> hits(files_.size(), Status::OK());
    ParallelFor(files_.size() > 1 ? options.pool : nullptr, static_cast<int64_t>(files_.size()), [&](int64_t i) {
      hits[static_cast<size_t>(i)] = SearchPartition(files_[static_cast<size_t>(i)], needle);
    });
    for (auto& h : hits) {
      LANCE_RETURN_NOT_OK(h.status());
      out.rows.InsertMany(h->data(), h->size());
    }
    if (options.fragments) out.rows.RetainFragments(*options.fragments);
    return out;
  }

  // The needle's occurrences in every partition (what locating them all would cost the
  // planner); the backward searches' blocks stay cached for Search.
  Result<std::optional<uint64_t>> EstimateMatches(const scalar::IndexQuery& q) const override {
    const auto* tq = std::get_if<scalar::TextQuery>(&q);
    if (tq == nullptr) return std::optional<uint64_t>();
    const std::string needle = SanitizeFm(tq->substring);
    uint64_t total = 0;
    if (needle.empty()) return std::optional<uint64_t>(total);
    for (const std::string& file : files_) {
      LANCE_ASSIGN_OR_RAISE(const uint64_t n, OnPartition(file, [&](const FmPartitionMeta& meta, const FmBlockSource& blocks) {
                              return FmCount(meta, blocks, needle, store_->DisplayPathOf(file));
                            }));
      total += n;
    }
    return std::optional<uint64_t>(total);
  }

 private:
  // `fn(meta, blocks)` over partition `file`'s cached metadata and blocks.
  template <typename Fn>
  auto OnPartition(const std::string& file, const Fn& fn) const -> decltype(fn(std::declval<const FmPartitionMeta&>(),
                                                                               std::declval<const FmBlockSource&>())) {
    IndexStore& store = *store_;
    LANCE_ASSIGN_OR_RAISE(std::shared_ptr<const FmPartitionMeta> meta,
                          store.GetPage<FmPartitionMeta>(file + "#meta", [&] { return LoadFmMeta(store, file); }));
    const FmBlockSource blocks = [&](size_t row) {
      return store.GetPage<FmBlock>(fmt::format("{}#{}", file, row), [&] { return LoadFmBlock(store, file, *meta, row); });
    };
    return fn(*meta, blocks);
  }

  Result<std::vector<uint64_t>> SearchPartition(const std::string& file, const std::string& needle) const {
    return OnPartition(file, [&](const FmPartitionMeta& meta, const FmBlockSource& blocks) {
      return FmSearch(meta, blocks, needle, store_->DisplayPathOf(file));
    });
  }

  std::vector<std::string> files_;  // part_N_fm.lance, N ascending
  DataTypePtr type_ = utf8();
};

}  // namespace

Result<std::shared_ptr<scalar::ScalarIndex>> OpenFmIndex(std::shared_ptr<IndexStore> store) {
  LANCE_ASSIGN_OR_RAISE(auto listed, store->object_store()->List(store->dir() + "/"));
  std::vector<std::pair<uint64_t, std::string>> files;
  for (const auto& m : listed) {
    std::string_view name(m.path);
    if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
    if (!name.starts_with("part_") || !name.ends_with("_fm.lance")) continue;
    const std::string_view digits = name.substr(5, name.size() - 5 - 9);
    uint64_t id = 0;
    bool ok = !digits.empty() && digits.size() < 19;
    for (char c : digits) {
      ok = ok && c >= '0' && c <= '9';
      id = id * 10 + static_cast<uint64_t>(c - '0');
    }
    if (ok) files.emplace_back(id, std::string(name));
  }
  if (files.empty()) return Status::Corruption("{}: no FM-index partition files (part_N_fm.lance)", store->dir());
  std::sort(files.begin(), files.end());
  std::vector<std::string> names;
  for (auto& f : files) names.push_back(std::move(f.second));
  return std::shared_ptr<scalar::ScalarIndex>(new FmIndex(std::move(store), std::move(names)));
}

}  // namespace lance::index::fm
