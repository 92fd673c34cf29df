// DataBlock: the untyped intermediate form between Lance's compressive encodings and Arrow
// arrays. A decoder turns compressed buffers into a DataBlock of plain values; the structural
// layer then adds validity and nesting and types it as an Array.
//
// Kinds:
//   kFixed          num_values values of bits_per_value bits (1 = LSB-first bitmap, otherwise a
//                   multiple of 8), packed in `data`
//   kVariable       num_values byte strings: offsets (num_values + 1, offsets[0] == 0) into data
//   kFixedSizeList  num_values lists of `dimension` child values (`child`), with an optional
//                   per-child validity (one byte per child value, 1 = valid)
// A DataBlock is a value type; it is not shared between threads while being appended to.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"

namespace lance::encoding {

struct DataBlock {
  enum class Kind { kFixed, kVariable, kFixedSizeList };

  Kind kind = Kind::kFixed;
  int64_t num_values = 0;
  int bits_per_value = 0;
  std::string data;
  std::vector<int64_t> offsets{0};
  int64_t dimension = 0;
  std::shared_ptr<DataBlock> child;
  std::vector<uint8_t> child_validity;  // empty: all valid

  static DataBlock Fixed(int bits_per_value) {
    DataBlock b;
    b.bits_per_value = bits_per_value;
    return b;
  }
  static DataBlock Variable() {
    DataBlock b;
    b.kind = Kind::kVariable;
    return b;
  }
  static DataBlock FixedSizeList(int64_t dimension, DataBlock child) {
    DataBlock b;
    b.kind = Kind::kFixedSizeList;
    b.dimension = dimension;
    b.child = std::make_shared<DataBlock>(std::move(child));
    return b;
  }

  // An empty block shaped like `like` (same kind, width, dimension).
  static DataBlock EmptyLike(const DataBlock& like);

  // Value i of a kVariable block. REQUIRES: kind == kVariable, 0 <= i < num_values.
  std::string_view ValueView(int64_t i) const {
    return std::string_view(data).substr(static_cast<size_t>(offsets[i]),
                                         static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }

  // Appends one variable-width value. REQUIRES: kind == kVariable.
  void AppendVariable(std::string_view value) {
    data.append(value);
    offsets.push_back(static_cast<int64_t>(data.size()));
    ++num_values;
  }
  // Appends n fixed-width values from `bytes` (n * bits_per_value / 8 bytes).
  // REQUIRES: kind == kFixed, bits_per_value % 8 == 0.
  void AppendFixedBytes(const uint8_t* bytes, int64_t n);
  // Appends n bits from an LSB-first bitmap starting at bit `offset`.
  // REQUIRES: kind == kFixed, bits_per_value == 1.
  void AppendBits(const uint8_t* bits, int64_t offset, int64_t n);
  // Appends n zero/empty values (placeholders under nulls).
  void AppendEmpty(int64_t n);

  // Appends values [start, start + n) of `src`. Errors: Corruption if `src` has a different
  // shape or the range is out of bounds.
  Status AppendRange(const DataBlock& src, int64_t start, int64_t n);
};

// An LSB-first validity bitmap from one byte per slot (1 = valid); null when `valid` is empty.
Result<BufferPtr> ValidityFromBytes(const std::vector<uint8_t>& valid, int64_t length);

// Types a block as an Array of `type` with the given per-slot validity (empty = all valid).
// Errors: Corruption when the block does not fit the type.
Result<ArrayPtr> DataBlockToArray(const DataTypePtr& type, const DataBlock& block,
                                  const std::vector<uint8_t>& validity);

// An empty block of the shape that leaf values of `type` decode into: fixed-width bits, variable
// bytes or a fixed-size list of those (null: 8-bit placeholders, every slot is null).
// Errors: NotSupported for types that are not leaves of the Lance structural encodings.
Result<DataBlock> DataBlockPrototype(const DataType& type);

}  // namespace lance::encoding
