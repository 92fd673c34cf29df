#include "lance/index/scalar/create.h"

#include <algorithm>

#include <fmt/format.h>

#include "lance/index/fm/fm_index.h"
#include "lance/index/fts/inverted_writer.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/bitmap.h"
#include "lance/index/scalar/bloom_filter.h"
#include "lance/index/scalar/ngram.h"
#include "lance/index/scalar/label_list.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/index/scalar/zone_map.h"
#include "lance/table/snapshot.h"

namespace lance::index::scalar {

Result<ScalarIndexType> ScalarIndexTypeFromName(const std::string& name) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  if (n == "btree") return ScalarIndexType::kBTree;
  if (n == "bitmap") return ScalarIndexType::kBitmap;
  if (n == "label_list" || n == "labellist") return ScalarIndexType::kLabelList;
  if (n == "zonemap" || n == "zone_map") return ScalarIndexType::kZoneMap;
  if (n == "bloomfilter" || n == "bloom_filter") return ScalarIndexType::kBloomFilter;
  if (n == "ngram") return ScalarIndexType::kNGram;
  if (n == "inverted" || n == "fts") return ScalarIndexType::kInverted;
  if (n == "fm" || n == "fmindex") return ScalarIndexType::kFm;
  return Status::InvalidArgument(
      "index type '{}': expected btree, bitmap, label_list, zonemap, bloomfilter, ngram, inverted or fm", name);
}

const char* ScalarIndexTypeName(ScalarIndexType type) {
  switch (type) {
    case ScalarIndexType::kBTree: return "BTREE";
    case ScalarIndexType::kBitmap: return "BITMAP";
    case ScalarIndexType::kLabelList: return "LABEL_LIST";
    case ScalarIndexType::kZoneMap: return "ZONEMAP";
    case ScalarIndexType::kBloomFilter: return "BLOOMFILTER";
    case ScalarIndexType::kNGram: return "NGRAM";
    case ScalarIndexType::kInverted: return "INVERTED";
    case ScalarIndexType::kFm: return "FM";
  }
  return "?";
}

namespace {

Result<TrainedIndex> TrainInverted(IndexStore& store, const TrainingData& data, const fts::TokenizerOptions& o,
                                   ThreadPool* pool) {
  if (data.type == nullptr || (data.type->id() != TypeId::kString && data.type->id() != TypeId::kLargeString)) {
    return Status::InvalidArgument("an INVERTED index needs a utf8 or large_utf8 column, not {}",
                                   data.type ? data.type->ToString() : std::string("?"));
  }
  LANCE_ASSIGN_OR_RAISE(fts::WrittenInvertedIndex w, fts::WriteInvertedIndex(store, o, data.values, data.row_ids, pool));
  TrainedIndex out;
  out.type_name = "INVERTED";
  out.details_type_url = fts::kInvertedDetailsTypeUrl;
  out.details = std::move(w.details);
  out.index_version = fts::kInvertedIndexVersion;
  out.files = std::move(w.files);
  return out;
}

}  // namespace

Result<BuiltSegment> BuildScalarIndexSegment(const table::Snapshot& at, const std::string& column,
                                             const TrainingRows& rows, const CreateScalarIndexOptions& options,
                                             table::StagedFiles* staged_files) {
  table::StagedFiles& staged = *staged_files;
  const table::Snapshot* snapshot = &at;
  const table::TableLocation& location = at.location();
  const auto& schema = snapshot->schema();
  const int idx = schema->GetFieldIndex(column);
  if (idx < 0) {
    return Status::InvalidArgument("create index: {} has no top-level column '{}'", location.display(),
                                   column);
  }
  const std::string name = options.name.empty() ? DefaultIndexName(column) : options.name;
  if (!options.replace && !options.fragment_ids && !FindIndexSegments(snapshot->manifest(), name).empty()) {
    return Status::AlreadyExists("create index: {} already has an index named '{}' (replace it with the "
                                 "replace option, --replace on the CLI, or give another name)",
                                 location.display(), name);
  }
  LANCE_ASSIGN_OR_RAISE(TrainingData data, rows(at, column));
  NewIndexSegment seg;
  seg.uuid = NewIndexUuid();
  seg.name = name;
  seg.fields = {schema->field(idx)->id()};
  if (options.fragment_ids) {
    seg.fragment_ids = *options.fragment_ids;
  } else {
    for (const auto& f : snapshot->manifest().fragments) seg.fragment_ids.push_back(static_cast<uint32_t>(f.id));
  }
  auto store = IndexStore::Make(staged.store(), IndexDirectory(location, seg.uuid));
  Result<TrainedIndex> trained = Status::OK();
  switch (options.type) {
    case ScalarIndexType::kBTree: {
      BTreeTrainOptions bo;
      bo.batch_size = options.btree_batch_size;
      bo.pool = options.pool;
      trained = TrainBTreeIndex(*store, data, bo);
      break;
    }
    case ScalarIndexType::kBitmap:
      trained = TrainBitmapIndex(*store, data);
      break;
    case ScalarIndexType::kLabelList:
      trained = TrainLabelListIndex(*store, data);
      break;
    case ScalarIndexType::kZoneMap:
      trained = TrainZoneMapIndex(*store, data, options.rows_per_zone);
      break;
    case ScalarIndexType::kBloomFilter:
      trained = TrainBloomFilterIndex(*store, data, options.bloom_items, options.bloom_probability);
      break;
    case ScalarIndexType::kNGram:
      trained = TrainNGramIndex(*store, data);
      break;
    case ScalarIndexType::kInverted:
      trained = TrainInverted(*store, data, options.fts, options.pool);
      break;
    case ScalarIndexType::kFm:
      trained = fm::TrainFmIndex(*store, data, options.pool);
      break;
  }
  if (!trained.ok()) {
    for (const char* f : {kBTreeLookupFile, kBTreePagesFile, kBitmapFile, kZoneMapFile, kBloomFilterFile, kNGramFile,
                          "metadata.lance", "part_0_invert.lance", "part_0_tokens.lance",
                          "part_0_docs.lance"}) {
      (void)location.store()->Delete(store->PathOf(f));
    }
    if (options.type == ScalarIndexType::kFm) {
      if (auto listed = location.store()->List(store->dir() + "/"); listed.ok()) {
        for (const auto& m : *listed) (void)location.store()->Delete(m.path);
      }
    }
    return trained.status().WithContext(fmt::format("create index: {} column '{}'", location.display(), column));
  }
  seg.details_type_url = trained->details_type_url;
  seg.details = trained->details;
  seg.index_version = trained->index_version;
  seg.files = trained->files;
  // Every file of the directory (an index may write more than the manifest lists).
  LANCE_ASSIGN_OR_RAISE(auto written, staged.store()->List(store->dir() + "/"));
  for (const auto& f : written) staged.Record(f.path);
  staged.RecordDirectory(location.Path("_indices"));
  BuiltSegment out;
  out.segment = std::move(seg);
  out.num_indexed_rows = data.row_ids.size();
  return out;
}

Result<CreatedIndex> CreateScalarIndex(const table::Snapshot& at, const std::string& column,
                                       const TrainingRows& rows,
                                       const CreateScalarIndexOptions& options) {
  // The files go through the store that does not sync each one: the commit syncs them with its
  // manifest in one round of flushes (table/durable_files.h), not a file and a directory flush
  // each, one after the other.
  table::StagedFiles staged(at.location());
  LANCE_ASSIGN_OR_RAISE(BuiltSegment built, BuildScalarIndexSegment(at, column, rows, options, &staged));
  const NewIndexSegment& seg = built.segment;
  LANCE_ASSIGN_OR_RAISE(table::CommitInfo ci, CommitNewIndex(at.location(), at.version(), seg, options.replace,
                                                             options.commit, &staged));
  CreatedIndex out;
  out.info = MakeIndexInfo(seg, at.version());
  if (ci.manifest) {
    for (const auto& x : ci.manifest->indices) {
      if (x.uuid == seg.uuid) out.info = x;
    }
  }
  out.version = ci.version;
  out.num_indexed_rows = built.num_indexed_rows;
  return out;
}

}  // namespace lance::index::scalar
