// FSST (Fast Static Symbol Table) string decompression for Lance's `Fsst` encoding.
//
// Symbol table bytes, as Lance stores them in the Fsst protobuf message:
//   u64 LE header = "FSST" << 32 | encoder_switch << 24 | suffix_lim << 16 | terminator << 8
//                   | n_symbols
//   n_symbols x u64 LE symbol (its bytes, little-endian first)   then   n_symbols x u8 length
// Codes: 255 escapes the next byte (a literal), any other code c emits symbol c. When
// encoder_switch is 0 the values were stored uncompressed. A parsed table is immutable and
// may be shared between threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lance/core/result.h"

namespace lance::encoding {

class FsstSymbolTable {
 public:
  // Errors: Corruption if the bytes are too short, the magic is wrong or a length exceeds 8.
  static Result<FsstSymbolTable> Parse(std::string_view bytes);
  // Parse's checks alone, without building a table (a take makes a decoder per chunk).
  static Status Check(std::string_view bytes);

  bool compressed() const { return compressed_; }

  // Appends the decompressed form of `codes` to `out`.
  // Errors: Corruption for an escape without a following byte or an undefined code.
  Status Decode(std::string_view codes, std::string* out) const;

 private:
  bool compressed_ = false;
  int num_symbols_ = 0;
  std::array<uint64_t, 256> symbols_{};
  std::array<uint8_t, 256> lengths_{};
};

}  // namespace lance::encoding
