// IVF_RQ inside IvfIndex: the RaBitQ storage loaded from lance 12's auxiliary.idx and the
// search of the probed partitions (rabitq_index.cc; arithmetic in rabitq.h, format in
// docs/vector-rq.md).
#pragma once

#include <functional>
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
  // num_bits > 1: per row its ex code (model.ex_code_bytes(), the blocked layout as stored) and
  // the ex factors.
  std::vector<uint8_t> ex_codes;
  std::vector<float> add_ex, scale_ex;
  size_t MemoryBytes() const {
    return codes.size() + ex_codes.size() +
           (add.size() + scale.size() + error.size() + add_ex.size() + scale_ex.size()) * sizeof(float) +
           model.signs.size();
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
  // Multi-bit codes: the probed partitions `parts` (nearest first; `centroid_dist` indexed by
  // partition) scanned in order into one heap of the best `limit` as lance 12 does: a row whose
  // 1-bit estimate minus its error bound (__error_factors x the query's distance to the
  // centroid) is not below the heap's worst once it is full is skipped, the others re-scored
  // with their ex codes; the heap's rows go to `all`. `query`: the (normalised) query vector.
  static void SearchMultiBit(const IvfIndex& index, const RabitqQuery& q, const float* query,
                             const std::vector<uint32_t>& parts, const std::vector<float>& centroid_dist,
                             size_t limit, const std::function<bool(uint64_t)>& keep, linalg::TopK* all);
};

}  // namespace lance::index::vector
