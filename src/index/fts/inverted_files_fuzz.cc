// Fuzz target: the decoders of lance 12's inverted-index bytes (the fst token dictionary, posting
// blocks, position runs) must return Corruption on damage, never crash or loop.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "index/fts/fst_map.h"
#include "index/fts/posting_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lance::index::fts;
  if (size < 2) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  switch (data[0] % 3) {
    case 0:
      (void)DecodeFstMap(bytes, "fuzz");
      break;
    case 1: {
      std::vector<uint32_t> d, f;
      float s = 0;
      const size_t n = data[1] == 0 ? kPackedBlock : data[1] % kPackedBlock;
      (void)DecodePostingBlock(bytes, n, kPackedBlock, &d, &f, &s, "fuzz");
      break;
    }
    default: {
      std::vector<uint32_t> out;
      size_t pos = 0;
      (void)DecodePositionRun(bytes, &pos, static_cast<size_t>(data[1]) * 3, &out, "fuzz");
      break;
    }
  }
  return 0;
}
