// Array::ToString: a compact human-readable rendering for tests and debugging. Values use the
// canonical JSON form (see json.h), so what a failing test prints can be pasted into
// ArrayFromJSON.
#include "lance/columnar/array.h"
#include "lance/columnar/json.h"

namespace lance {

std::string Array::ToString() const {
  std::string out = "[";
  for (int64_t i = 0; i < length; ++i) {
    if (i) out += ", ";
    (void)AppendJsonValue(*this, i, &out);
  }
  out += ']';
  return out;
}

}  // namespace lance
