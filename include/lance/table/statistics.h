// Data statistics of a dataset version: the compressed bytes each field occupies in the data
// files, as lance 12's calculate_data_stats reports them (for query planners).
//
// For every data file of every fragment, each column's size is the sum of its pages' buffer
// sizes; a column belongs to the field its data file maps to it (DataFileInfo::fields /
// column_indices), and a column the file maps to no field continues the previous column's
// field (the extra columns of a field stored in several). Column metadata and global buffers
// are not counted. Fields of a legacy (0.1) dataset report 0, which lance 12 does not measure
// either. Thread-safe: reads through the dataset's data file readers.
#pragma once

#include <cstdint>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/snapshot.h"

namespace lance::table {

struct FieldStatistics {
  int32_t field_id = 0;
  uint64_t bytes_on_disk = 0;
};

// One entry per field of the schema (nested fields included), in the manifest's field order.
// Errors: the data file readers' (NotFound, IOError, Corruption).
Result<std::vector<FieldStatistics>> CalculateDataStatistics(const Snapshot& dataset);

}  // namespace lance::table
