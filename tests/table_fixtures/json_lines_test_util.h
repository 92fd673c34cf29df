// Canonical JSON lines of record batches, one string per row, for the table tests that compare
// rows (a scan against a take, a dataset against its expected rows).
#pragma once

#include <string>
#include <vector>

#include "lance/columnar/json.h"

namespace lance::table {

// Every row of `batches` (any container of RecordBatchPtr), in order, as one canonical JSON line
// without its newline.
template <typename Batches = std::vector<RecordBatchPtr>>
Result<std::vector<std::string>> JsonLinesOf(const Batches& batches) {
  std::string text;
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &text));
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

}  // namespace lance::table
