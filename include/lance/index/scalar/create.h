// Creating a scalar index on a table column, as lance 12's create_index does: train on the
// live rows of every fragment of a version, write the files into a fresh `_indices/{uuid}/`,
// and commit a CreateIndex transaction (index_metadata.h) naming them, built on that version.
// The index layer reads no rows: the caller hands them over (dataset::Dataset::CreateScalarIndex
// reads them through the query layer, query::CollectTrainingData).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>
#include <string>

#include "lance/core/result.h"
#include "lance/index/fts/tokenizer.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/table/commit.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"
#include "lance/table/snapshot.h"

namespace lance::index::scalar {

// kInverted: the full-text index (index/fts/inverted_writer.h) of a utf8 column.
// kFm: the FM-index (index/fm/fm_index.h) of a string or binary column.
enum class ScalarIndexType { kBTree, kBitmap, kLabelList, kZoneMap, kBloomFilter, kNGram, kInverted, kFm };

// "btree" | "bitmap" | "label_list" | "zonemap" | "bloomfilter" | "ngram" | "inverted" | "fm" (any
// case; also "labellist", "zone_map", "bloom_filter", "fts" for inverted, "fmindex" for fm).
// Errors: InvalidArgument naming the accepted ones.
Result<ScalarIndexType> ScalarIndexTypeFromName(const std::string& name);
// "BTREE", "BITMAP", "LABEL_LIST", "ZONEMAP", "BLOOMFILTER", "NGRAM", "INVERTED", "FM".
const char* ScalarIndexTypeName(ScalarIndexType type);

struct CreateScalarIndexOptions {
  ScalarIndexType type = ScalarIndexType::kBTree;
  std::string name;      // "" = "{column}_idx", as lance 12 names them
  bool replace = false;  // replace an index of the same name (else AlreadyExists)
  int64_t btree_batch_size = kBTreeDefaultBatchSize;  // rows per BTree page
  uint64_t rows_per_zone = 8192;                      // ZONEMAP zone size
  uint64_t bloom_items = 8192;                        // BLOOMFILTER zone size / expected items
  double bloom_probability = 0.00057;                 // BLOOMFILTER false-positive rate
  fts::TokenizerOptions fts = fts::TokenizerOptions::Defaults();  // kInverted: tokenizer, positions
  table::CommitOptions commit;
  ThreadPool* pool = nullptr;  // where training fans out (FM partitions); null = the caller only
  // The fragments the new segment covers (its fragment bitmap; the rows handed over must be
  // theirs). Unset: every fragment of the version. Set (an optimize's segment, which replaces
  // an existing one): a taken name is not refused.
  std::optional<std::vector<uint32_t>> fragment_ids;
};

// The IndexInfo committed (and the version that holds it, in `version`).
struct CreatedIndex {
  table::IndexInfo info;
  uint64_t version = 0;
  uint64_t num_indexed_rows = 0;
};

// The rows an index of `column` of `at` trains on (TrainingData, scalar_index.h): its live
// rows with their row ids, in scan order.
using TrainingRows =
    std::function<Result<TrainingData>(const table::Snapshot& at, const std::string& column)>;

// A segment trained and written but not committed (BuildScalarIndexSegment).
struct BuiltSegment {
  NewIndexSegment segment;
  uint64_t num_indexed_rows = 0;
};

// Trains the index of `column` of the version `at` from `rows(at, column)` and writes its files
// into a fresh `_indices/{uuid}/` through `staged` (recorded there, for the commit that names
// them to sync). Errors: as CreateScalarIndex, without the commit's.
Result<BuiltSegment> BuildScalarIndexSegment(const table::Snapshot& at, const std::string& column,
                                             const TrainingRows& rows, const CreateScalarIndexOptions& options,
                                             table::StagedFiles* staged);

// Builds the index of `column` of the version `at` from `rows(at, column)` (called once the
// column and the name are checked) and commits it on that version.
// Errors: InvalidArgument (no such top-level column, a column type the index cannot key),
// AlreadyExists (name taken and !replace), CommitConflict,
// IOError, and those of `rows`.
Result<CreatedIndex> CreateScalarIndex(const table::Snapshot& at, const std::string& column,
                                       const TrainingRows& rows,
                                       const CreateScalarIndexOptions& options = {});

}  // namespace lance::index::scalar
