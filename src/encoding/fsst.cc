#include "encoding/fsst.h"

#include <cstring>

namespace lance::encoding {

namespace {
constexpr uint64_t kFsstMagic = 0x46535354;  // "FSST"
constexpr uint8_t kEscape = 255;
}  // namespace

Status FsstSymbolTable::Check(std::string_view bytes) {
  if (bytes.size() < 8) {
    return Status::Corruption("FSST symbol table: {} bytes, need at least 8", bytes.size());
  }
  uint64_t header;
  std::memcpy(&header, bytes.data(), 8);
  if ((header >> 32) != kFsstMagic) {
    return Status::Corruption("FSST symbol table: bad magic in header {:#018x}", header);
  }
  const size_t n = static_cast<size_t>(header & 0xff);
  if (bytes.size() < 8 + 9 * n) {
    return Status::Corruption("FSST symbol table: {} symbols need {} bytes, have {}", n,
                              8 + 9 * n, bytes.size());
  }
  const auto* lengths = reinterpret_cast<const uint8_t*>(bytes.data() + 8 + 8 * n);
  for (size_t i = 0; i < n; ++i) {
    if (lengths[i] == 0 || lengths[i] > 8) {
      return Status::Corruption("FSST symbol table: symbol {} has length {}", i, lengths[i]);
    }
  }
  return Status::OK();
}

Result<FsstSymbolTable> FsstSymbolTable::Parse(std::string_view bytes) {
  LANCE_RETURN_NOT_OK(Check(bytes));
  uint64_t header;
  std::memcpy(&header, bytes.data(), 8);
  FsstSymbolTable table;
  table.compressed_ = ((header >> 24) & 0xff) != 0;
  table.num_symbols_ = static_cast<int>(header & 0xff);
  const size_t n = static_cast<size_t>(table.num_symbols_);
  std::memcpy(table.symbols_.data(), bytes.data() + 8, 8 * n);
  std::memcpy(table.lengths_.data(), bytes.data() + 8 + 8 * n, n);
  return table;
}

Status FsstSymbolTable::Decode(std::string_view codes, std::string* out) const {
  if (!compressed_) {
    out->append(codes);
    return Status::OK();
  }
  const size_t n = codes.size();
  for (size_t i = 0; i < n; ++i) {
    const uint8_t code = static_cast<uint8_t>(codes[i]);
    if (code == kEscape) {
      if (i + 1 >= n) return Status::Corruption("FSST: escape code at the end of a value");
      out->push_back(codes[++i]);
      continue;
    }
    if (code >= num_symbols_) {
      return Status::Corruption("FSST: code {} but the table has {} symbols", code, num_symbols_);
    }
    char symbol[8];
    std::memcpy(symbol, &symbols_[code], 8);
    out->append(symbol, lengths_[code]);
  }
  return Status::OK();
}

}  // namespace lance::encoding
