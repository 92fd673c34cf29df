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
//
// Matching is one lookup in each of two tables, without a search (the FSST paper's scheme):
// symbols of 1 or 2 bytes live in a table indexed by the next two bytes; symbols of 3+ bytes
// in a hash table by their first three bytes that holds at most one symbol per slot -- Train
// drops a candidate whose slot a better one already holds. So at most one symbol of 3+ bytes
// can match at a position, and the longest match is that one if it matches, else the 2-byte
// table's answer.
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
  // Compresses the n values base[offsets[i], offsets[i + 1]) one after another into `out`
  // (room for 2 * (offsets[n] - offsets[0]) bytes), value i's codes ending at out + ends[i];
  // returns the bytes written. The same codes as CompressInto on each value, several times
  // faster: the values are cut in four runs compressed in lockstep, so that the lookups of
  // one run overlap those of the others (one run alone waits on each lookup to learn where
  // its next one is). Bytes up to base + base_size may be read past a value.
  size_t CompressValues(const uint8_t* base, size_t base_size, const int64_t* offsets, int64_t n,
                        uint8_t* out, int64_t* ends) const;

  // The hash slot of a symbol of 3+ bytes (of its first three bytes): two symbols in one slot
  // cannot both be in a table.
  static uint32_t SlotOf(uint64_t word) {
    return (static_cast<uint32_t>(word & 0xffffff) * 0x9E3779B1u) >> (32 - kSlotBits);
  }

 private:
  static constexpr int kSlotBits = 11;
  static constexpr size_t kSlots = size_t{1} << kSlotBits;  // 32 KiB of slots, > 8 * 255

  // A match as both tables give it: code | length << 8 | escape << 12 (the escape emits 255
  // and the literal byte).
  static constexpr uint16_t kEscapeEntry = 255 | 1 << 8 | 1 << 12;
  // A symbol of 3+ bytes: the word at hand matches when (word << shift) == key, where shift
  // drops the bytes past the symbol and key is the symbol so shifted. An empty slot holds a
  // 3-byte key that hashes to another slot, so nothing reaching it matches.
  struct Slot {
    uint64_t key = 0;
    uint32_t shift = 0;
    uint16_t entry = 0;
  };

  void BuildIndex();
  // The entry for the word at a position with `left` (< 8) bytes left, `word` holding them
  // and zeros past them.
  uint16_t MatchTail(uint64_t word, size_t left) const;
  // The entry for the word at a position with 8 or more bytes left.
  static uint16_t MatchFull(const Slot* slots, const uint16_t* shorts, uint64_t word);
  // Calls emit(entry, literal) for each code of the n bytes at p, in order.
  template <typename Emit>
  void Encode(const uint8_t* p, size_t n, Emit&& emit) const;

  std::vector<uint64_t> symbols_;
  std::vector<uint8_t> lengths_;
  std::array<uint16_t, 256> single_{};  // by one byte: its 1-byte symbol or the escape
  // short_[b0 | b1 << 8]: the 2-byte symbol b0 b1, else single_[b0] (with 2+ bytes left).
  std::vector<uint16_t> short_;
  std::vector<Slot> slots_;
};

}  // namespace lance::encoding
