// RowSelection: which physical rows of one fragment an operation reads -- a contiguous range
// [start, start + length) or a list of row offsets.
//
// Scans hand ranges and ascending lists from operator to operator (a range reads through the
// file reader's ranged path, which decodes whole chunks without a list of rows); a take hands
// a list in the caller's order (repeats allowed). Copies are cheap (a list is shared).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace lance::query {

class RowSelection {
 public:
  // The empty selection.
  RowSelection() = default;
  // Rows [start, start + length). REQUIRES: start >= 0, length >= 0.
  static RowSelection Range(int64_t start, int64_t length);
  // The rows of `rows`, in that order (a take), or ascending (a scan after a filter).
  static RowSelection List(std::vector<int64_t> rows);

  bool is_range() const { return !list_; }
  int64_t size() const { return list_ ? static_cast<int64_t>(list_->size()) : length_; }
  bool empty() const { return size() == 0; }
  // The first row of a range. REQUIRES: is_range().
  int64_t start() const { return start_; }
  // The rows of a list. REQUIRES: !is_range().
  const std::vector<int64_t>& list() const { return *list_; }
  // Row i of the selection.
  int64_t operator[](int64_t i) const {
    return list_ ? (*list_)[static_cast<size_t>(i)] : start_ + i;
  }
  // Rows [from, from + n) of the selection (a range stays a range). REQUIRES: in bounds.
  RowSelection Slice(int64_t from, int64_t n) const;
  // The rows as a list.
  std::vector<int64_t> ToVector() const;

 private:
  int64_t start_ = 0;
  int64_t length_ = 0;
  std::shared_ptr<const std::vector<int64_t>> list_;
};

}  // namespace lance::query
