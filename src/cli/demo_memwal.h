// The MemWAL step of `lance demo` (demo_memwal.cc).
#pragma once

#include <string>

#include "lance/core/status.h"

namespace lance::cli {

Status RunMemWalDemo(const std::string& dir);

}  // namespace lance::cli
