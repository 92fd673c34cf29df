// FastLanes unpacking against an independent bit-by-bit packer written from the layout
// description in fastlanes.h, for every type and width.
#include "encoding/fastlanes.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace lance::encoding {
namespace {

constexpr int kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

// Packs 1024 values: lane l, row r holds value index kOrder[r / 8] * 16 + (r % 8) * 128 + l;
// its `width` bits go LSB-first to bit position r * width of the lane's bit stream, and bit b
// of the stream lives in word (b / bits(T)) * lanes + l.
template <typename T>
std::vector<uint8_t> Pack(const std::vector<T>& values, int width) {
  constexpr int kBits = sizeof(T) * 8;
  constexpr int kLanes = 1024 / kBits;
  std::vector<T> words(static_cast<size_t>(kLanes * width), 0);
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int row = 0; row < kBits; ++row) {
      const T v = values[static_cast<size_t>(kOrder[row / 8] * 16 + (row % 8) * 128 + lane)];
      for (int b = 0; b < width; ++b) {
        if ((v >> b) & 1) {
          const int bit = row * width + b;
          words[static_cast<size_t>((bit / kBits) * kLanes + lane)] |= static_cast<T>(T{1} << (bit % kBits));
        }
      }
    }
  }
  std::vector<uint8_t> bytes(words.size() * sizeof(T));
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

template <typename T>
void RoundTripAllWidths() {
  constexpr int kBits = sizeof(T) * 8;
  std::mt19937_64 rng(kBits);
  for (int width = 0; width <= kBits; ++width) {
    std::vector<T> values(1024);
    for (auto& v : values) {
      const uint64_t r = rng();
      v = width == 0 ? T{0} : static_cast<T>(width == 64 ? r : r & ((uint64_t{1} << width) - 1));
    }
    const std::vector<uint8_t> packed = Pack(values, width);
    ASSERT_EQ(static_cast<int64_t>(packed.size()), FastLanesPackedBytes(kBits, width));
    std::vector<T> out(1024, T{1});
    UnpackFastLanesBlock<T>(packed.data(), width, out.data());
    ASSERT_EQ(out, values) << "bits " << kBits << " width " << width;
  }
}

TEST(FastLanes, U8AllWidths) { RoundTripAllWidths<uint8_t>(); }
TEST(FastLanes, U16AllWidths) { RoundTripAllWidths<uint16_t>(); }
TEST(FastLanes, U32AllWidths) { RoundTripAllWidths<uint32_t>(); }
TEST(FastLanes, U64AllWidths) { RoundTripAllWidths<uint64_t>(); }

}  // namespace
}  // namespace lance::encoding
