// array_has_any / array_has_all over list columns (kernels.h: ListHasKernel).
#include <algorithm>
#include <vector>

#include "expr/kernel_results.h"
#include "expr/kernels.h"

namespace lance::expr {

using kernel::AllNull;
using kernel::BoolArray;
using kernel::NewBitmap;
using kernel::PackBits;
using kernel::ValidityOf;

namespace {

// The position in `set` of item j of `items` (its key or string), or -1 when it is not a
// needle; a null item is position `null_slot` (-1 when no needle is NULL).
class NeedleIndex {
 public:
  NeedleIndex(const InSet& set, const Array& items) : set_(set), items_(items) {
    null_slot_ = set.has_null ? static_cast<int64_t>(set.domain == Domain::kString ? set.strings.size() : set.keys.size())
                              : -1;
  }
  int64_t size() const { return null_slot_ >= 0 ? null_slot_ + 1 : NumValues(); }
  int64_t Find(int64_t j) const {
    if (!items_.IsValid(j)) return null_slot_;
    switch (set_.domain) {
      case Domain::kString: {
        const std::string_view v = items_.GetView(j);
        auto it = std::lower_bound(set_.strings.begin(), set_.strings.end(), v,
                                   [](const std::string& x, std::string_view y) { return x < y; });
        return it != set_.strings.end() && *it == v ? it - set_.strings.begin() : -1;
      }
      case Domain::kFloat: return FindKey(FloatKey(kernel::FloatValue(GetScalar(items_, j))));
      case Domain::kBool: return FindKey(items_.BoolValue(j) ? 1 : 0);
      default: {
        const Scalar s = GetScalar(items_, j);
        if (s.type->id() == TypeId::kUInt64 && s.i < 0) return -1;  // above INT64_MAX: no int64 needle
        return FindKey(kernel::IntValue(s));
      }
    }
  }

 private:
  int64_t NumValues() const {
    return static_cast<int64_t>(set_.domain == Domain::kString ? set_.strings.size() : set_.keys.size());
  }
  int64_t FindKey(int64_t k) const {
    auto it = std::lower_bound(set_.keys.begin(), set_.keys.end(), k);
    return it != set_.keys.end() && *it == k ? it - set_.keys.begin() : -1;
  }
  const InSet& set_;
  const Array& items_;
  int64_t null_slot_ = -1;
};

}  // namespace

Result<Datum> ListHasKernel(const InSet& set, bool all, const Datum& a, int64_t n) {
  if (!a.is_array()) return AllNull(boolean(), n, !a.is_array());  // a null literal list
  const Array& arr = *a.array;
  const TypeId id = arr.type_id();
  if ((id != TypeId::kList && id != TypeId::kLargeList && id != TypeId::kFixedSizeList) || arr.children.empty()) {
    return Status::Internal("{}: not a list array ({})", all ? "array_has_all" : "array_has_any", arr.type->ToString());
  }
  const Array& items = *arr.children[0];
  const NeedleIndex index(set, items);
  const int64_t needles = index.size();
  std::vector<uint8_t> seen(static_cast<size_t>(needles), 0);
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, NewBitmap(n));
  const int32_t fixed = id == TypeId::kFixedSizeList ? arr.type->list_size() : 0;
  PackBits(n, values->mutable_data(), [&](int64_t i) {
    if (!arr.IsValid(i)) return false;
    const int64_t begin = fixed ? (arr.offset + i) * fixed : arr.ValueOffset(i);
    const int64_t end = fixed ? begin + fixed : arr.ValueOffset(i + 1);
    if (!all) {
      for (int64_t j = begin; j < end; ++j) {
        if (index.Find(j) >= 0) return true;
      }
      return false;
    }
    std::fill(seen.begin(), seen.end(), 0);
    int64_t found = 0;
    for (int64_t j = begin; j < end && found < needles; ++j) {
      const int64_t k = index.Find(j);
      if (k >= 0 && !seen[static_cast<size_t>(k)]) {
        seen[static_cast<size_t>(k)] = 1;
        ++found;
      }
    }
    return found == needles;
  });
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, ValidityOf(arr, n));
  return BoolArray(n, values, validity);
}

}  // namespace lance::expr
