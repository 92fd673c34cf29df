// The line walk of JSON lines text, shared by its readers (streaming and DOM) and the schema
// inference: blank lines skipped, every line numbered as in the whole input.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "lance/core/status.h"

namespace lance {

// Calls `f(line, number)` for each line of `text` that is not blank (spaces, tabs, a CR), the
// first line numbered `first_line`; stops at the first error `f` returns, or after `max_lines`
// non-blank lines.
template <typename F>
Status ForEachJsonLine(std::string_view text, int64_t first_line, F&& f,
                       int64_t max_lines = std::numeric_limits<int64_t>::max()) {
  int64_t number = first_line - 1;
  int64_t seen = 0;
  for (size_t pos = 0; pos < text.size() && seen < max_lines;) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    ++seen;
    LANCE_RETURN_NOT_OK(f(line, number));
  }
  return Status::OK();
}

}  // namespace lance
