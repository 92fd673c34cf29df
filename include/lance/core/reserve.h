// Growing a std::vector (or std::string) ahead of appends, geometrically.
//
// `v.reserve(v.size() + n)` before each batch of appends reallocates -- and copies every
// element -- on every batch, since it asks for exactly what is needed: quadratic in the
// batches of a page. ReserveMore asks for at least twice the capacity when it must grow, so
// the appends of a column cost amortized O(1) per element.
#pragma once

#include <algorithm>
#include <cstddef>

namespace lance {

template <typename Vector>
void ReserveMore(Vector& v, size_t n) {
  const size_t want = v.size() + n;
  if (want > v.capacity()) v.reserve(std::max(want, 2 * v.capacity()));
}

}  // namespace lance
