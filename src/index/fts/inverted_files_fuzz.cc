// Fuzz target: the decoders of lance 12's inverted-index bytes (the fst token dictionary, posting
// blocks, position runs) must return Corruption on damage, never crash or loop; whatever they
// decode, the writer's encoders (EncodeFstMap, EncodePostingBlock, EncodePositionRun) must
// encode back to bytes that decode to the same values.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "index/fts/fst_map.h"
#include "index/fts/posting_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lance::index::fts;
  if (size < 2) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  switch (data[0] % 3) {
    case 0: {
      auto entries = DecodeFstMap(bytes, "fuzz");
      if (!entries.ok()) break;
      auto again = EncodeFstMap(*entries);
      if (!again.ok()) __builtin_trap();  // decoded keys are strictly ascending
      auto back = DecodeFstMap(*again, "fuzz re-encoded");
      if (!back.ok() || *back != *entries) __builtin_trap();
      break;
    }
    case 1: {
      std::vector<uint32_t> d, f;
      float s = 0;
      const size_t n = data[1] == 0 ? kPackedBlock : data[1] % kPackedBlock;
      if (!DecodePostingBlock(bytes, n, kPackedBlock, &d, &f, &s, "fuzz").ok() || d.size() != n) break;
      const std::string again = EncodePostingBlock(d.data(), f.data(), n, s);
      std::vector<uint32_t> d2, f2;
      float s2 = 0;
      if (!DecodePostingBlock(again, n, kPackedBlock, &d2, &f2, &s2, "fuzz re-encoded").ok() || d2 != d || f2 != f ||
          std::memcmp(&s, &s2, 4) != 0) {
        __builtin_trap();
      }
      break;
    }
    default: {
      std::vector<uint32_t> out;
      size_t pos = 0;
      const size_t count = static_cast<size_t>(data[1]) * 3;
      if (!DecodePositionRun(bytes, &pos, count, &out, "fuzz").ok()) break;
      std::string again;
      EncodePositionRun(out.data(), out.size(), &again);
      std::vector<uint32_t> back;
      size_t at = 0;
      if (!DecodePositionRun(again, &at, count, &back, "fuzz re-encoded").ok() || back != out || at != again.size()) {
        __builtin_trap();
      }
      break;
    }
  }
  return 0;
}
