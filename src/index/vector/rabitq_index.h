// IVF_RQ inside IvfIndex: the RaBitQ storage loaded from lance 12's auxiliary.idx and the
// search of the probed partitions (rabitq_index.cc; arithmetic in rabitq.h, format in
// docs/vector-rq.md).
#pragma once

#include <string>
#include <vector>

#include "index/vector/rabitq.h"
#include "lance/file/file_reader.h"
#include "lance/index/vector/ivf_index.h"

namespace lance::index::vector {

struct RabitqStorage {
  RabitqModel model;
  std::vector<uint8_t> codes;  // row-major num_rows x model.code_bytes() (unpacked)
  std::vector<float> add, scale, error;
  size_t MemoryBytes() const {
    return codes.size() + (add.size() + scale.size() + error.size()) * sizeof(float) + model.signs.size();
  }
};

struct RabitqAccess {
  // `_rowid`, `_rabit_codes` (packed per partition), `__add_factors`, `__scale_factors`,
  // `__error_factors` and the storage_metadata of auxiliary.idx into `index`.
  static Status Load(IvfIndex* index, const file::FileReader& aux, const std::string& aux_path);
  // The estimated distances of partition p's rows to the prepared query `q` (normalised for
  // cosine; PrepareRabitqQuery with the index's model), whose distance to p's centroid is
  // `centroid_dist`, into dist[0..rows of p). Dot: the query's term is centroid_dist - 1 =
  // -<q, c>, not its distance to the centroid, as lance 12 scores a dot index.
  static void ScorePartition(const IvfIndex& index, const RabitqQuery& q, size_t p, float centroid_dist,
                             float* dist);
  static const RabitqModel& Model(const IvfIndex& index);
};

}  // namespace lance::index::vector
