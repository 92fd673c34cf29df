#include "lance/query/row_selection.h"

#include <numeric>

namespace lance::query {

RowSelection RowSelection::Range(int64_t start, int64_t length) {
  RowSelection s;
  s.start_ = start;
  s.length_ = length;
  return s;
}

RowSelection RowSelection::List(std::vector<int64_t> rows) {
  RowSelection s;
  s.list_ = std::make_shared<const std::vector<int64_t>>(std::move(rows));
  return s;
}

RowSelection RowSelection::Slice(int64_t from, int64_t n) const {
  if (!list_) return Range(start_ + from, n);
  if (from == 0 && n == size()) return *this;
  return List(std::vector<int64_t>(list_->begin() + from, list_->begin() + from + n));
}

std::vector<int64_t> RowSelection::ToVector() const {
  if (list_) return *list_;
  std::vector<int64_t> rows(static_cast<size_t>(length_));
  std::iota(rows.begin(), rows.end(), start_);
  return rows;
}

}  // namespace lance::query
