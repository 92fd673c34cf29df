// The indexes-and-search step of `lance demo` (demo_search.cc): scalar, full-text and vector
// indexes built on a table of documents, their answers checked (demo_search.cc says how).
#pragma once

#include <string>

#include "lance/core/status.h"

namespace lance::cli {

Status RunSearchDemo(const std::string& dir);

}  // namespace lance::cli
