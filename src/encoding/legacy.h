// Decoder of Lance 2.0 pages (footer version 0.3, lance.encodings.ArrayEncoding).
//
// 2.0 stores every field in pre-order as its own column, with Arrow-like buffers:
//   nullable{no_nulls{values} | some_nulls{validity: flat(1), values} | all_nulls}
//   flat{bits, buffer index}            packed values (LSB-first bits for 1)
//   fixed_size_list{dimension, items}   flattened items
//   binary{indices, bytes, null_adjustment}
//       indices = u64 end offsets into `bytes`; a null value stores end + null_adjustment
//   list{offsets, null_offset_adjustment, num_items}   on the list's column; items follow in
//       the child's column. offsets[i] = end of list i (+ null_offset_adjustment when null)
//   struct{}                            no data; children follow (2.0 has no struct validity)
//   dictionary{indices, items, num_dictionary_items}   indices are 1-based, 0 = null
// Pure functions over views of the file; all reads are bounds-checked.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "encoding/proto/encodings_v2_0.pb.h"
#include "lance/columnar/array.h"
#include "lance/core/result.h"

namespace lance::encoding {

struct LegacyPage {
  const ::lance::encodings::ArrayEncoding* encoding = nullptr;
  int64_t num_rows = 0;
  std::vector<std::string_view> buffers;
};

struct LegacyReader {
  const uint8_t* base = nullptr;
  std::vector<std::vector<LegacyPage>> columns;  // all columns of the file, in order
  // The field being read is an Arrow dictionary field (read as its value type): dictionary
  // pages then hold 0-based indices with their own validity.
  bool arrow_dictionary = false;

  // Reads a field of `type` with `num_rows` rows starting at column `*column`, and advances
  // `*column` past the field's columns.
  Result<ArrayPtr> ReadField(const DataTypePtr& type, int* column, int64_t num_rows) const;
};

std::string DescribeLegacyEncoding(const ::lance::encodings::ArrayEncoding& encoding);

}  // namespace lance::encoding
