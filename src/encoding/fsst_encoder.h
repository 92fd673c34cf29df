// FSST (Fast Static Symbol Table) string compression for Lance's `Fsst` encoding: the
// encoder side of fsst.h.
//
// Train() builds a table of up to 255 symbols (1 to 8 bytes) from a sample of the strings:
// a few rounds of compressing the sample with the current table, counting how often each
// symbol and each pair of adjacent symbols is emitted, and keeping the candidates (symbols,
// concatenated pairs, single bytes) with the largest count * length. Compress() then emits,
// at each position, the code of the longest symbol that matches, or 255 and the literal byte.
// SymbolTable() is the 2312-byte table lance stores in the Fsst message (header, 256 u64
// symbol slots, 256 length bytes); FsstSymbolTable::Parse reads it back. An encoder is
// immutable after Train and may be shared between threads.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lance::encoding {

inline constexpr size_t kFsstSymbolTableBytes = 8 + 256 * 8 + 256;

class FsstEncoder {
 public:
  // `sample` should hold a few tens of KiB of representative strings.
  static FsstEncoder Train(const std::vector<std::string_view>& sample);

  int num_symbols() const { return static_cast<int>(symbols_.size()); }
  std::string SymbolTable() const;
  // Appends the codes of `in` to `out`.
  void Compress(std::string_view in, std::string* out) const;
  // Writes the codes of the n bytes at `in` to `out`, which has room for 2 * n bytes (an
  // escape and a literal per byte at worst); returns how many it wrote.
  size_t CompressInto(const uint8_t* in, size_t n, uint8_t* out) const;

 private:
  void BuildIndex();
  // The code of the longest symbol matching at `p` (n bytes left), or -1.
  int Match(const uint8_t* p, size_t n) const;

  std::vector<uint64_t> symbols_;
  std::vector<uint8_t> lengths_;
  std::array<int16_t, 256> single_{};
  // short_[b0 | b1 << 8]: the code of the 2-byte symbol b0 b1, else of the 1-byte symbol b0,
  // else -1 (valid only with 2+ bytes left).
  std::vector<int16_t> short_;
  // A symbol of 3+ bytes as Match tests it: its bytes, the mask of its length, its code.
  struct Candidate {
    uint64_t symbol;
    uint64_t mask;
    uint32_t length;
    uint32_t code;
  };
  // Open-addressing table by the first three bytes of the symbols of 3+ bytes: each slot
  // names its run of candidates_ (longest first), so a match tests only the symbols that
  // share the three bytes at hand.
  struct Slot {
    uint32_t key = kEmptyKey;  // the three bytes, or kEmptyKey
    uint16_t begin = 0;
    uint16_t end = 0;
  };
  static constexpr uint32_t kEmptyKey = 0xffffffff;
  static constexpr size_t kSlots = 1024;  // > 4 * 255: short probe sequences
  std::vector<Slot> slots_;
  std::vector<Candidate> candidates_;
};

}  // namespace lance::encoding
