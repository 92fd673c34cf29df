// The FM text's suffix array through libdivsufsort (Debian's libdivsufsort-dev): its 32-bit
// sorter for texts below 2^31 bytes (every partition of kFmPartitionDocs ordinary values; half
// the memory traffic of 64-bit indices), its 64-bit one above. It replaced an SA-IS of our own
// that took 72 % of an FM build's CPU on the benchmark's 1M rows; the arrays are the same (the
// suffix array of a text is unique), so the files are too.
#include <divsufsort.h>
#include <divsufsort64.h>

#include <cstdint>
#include <vector>

#include "lance/index/fm/fm_index.h"

namespace lance::index::fm {

std::vector<int32_t> FmSuffixArray32(std::string_view text) {
  std::vector<int32_t> sa(text.size());
  if (text.empty() || text.size() >= static_cast<size_t>(INT32_MAX)) return {};
  // divsufsort fails only on a negative length or a null pointer, which cannot happen here.
  divsufsort(reinterpret_cast<const sauchar_t*>(text.data()), sa.data(), static_cast<saidx_t>(text.size()));
  return sa;
}

std::vector<int64_t> FmSuffixArray(std::string_view text) {
  std::vector<int64_t> sa(text.size());
  if (text.empty()) return sa;
  divsufsort64(reinterpret_cast<const sauchar_t*>(text.data()), sa.data(), static_cast<saidx64_t>(text.size()));
  return sa;
}

}  // namespace lance::index::fm
