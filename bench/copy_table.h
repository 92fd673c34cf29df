// A copy of a table directory for the mutation benches (bench/table_bench.cc and
// bench/profile/table_op.cc): data files hard-linked (never rewritten), the rest copied, so
// every repetition of a mutation starts from the same one-version table.
#pragma once

#include <filesystem>
#include <string>

namespace lance::bench {

inline void CopyTable(const std::string& src, const std::string& dst) {
  namespace fs = std::filesystem;
  fs::remove_all(dst);
  for (auto it = fs::recursive_directory_iterator(src); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path out = fs::path(dst) / fs::relative(it->path(), src);
    if (it->is_directory()) {
      fs::create_directories(out);
    } else {
      fs::create_directories(out.parent_path());
      if (it->path().parent_path().filename() == "data") {
        fs::create_hard_link(it->path(), out);
      } else {
        fs::copy_file(it->path(), out);
      }
    }
  }
}

}  // namespace lance::bench
