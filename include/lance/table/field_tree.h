// The field tree of a dataset's schema, by field id: which ids make up a column (the field and
// every descendant) and which data file of a fragment holds it (data files of 2.1+ list leaf
// ids only, so a struct is found through its leaves). Shared by scans (query/), deletes and
// rewrites, which must all find a column where the others find it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "lance/table/manifest.h"

namespace lance::table {

class FieldTree {
 public:
  explicit FieldTree(const std::vector<file::LanceField>& fields) {
    for (const auto& f : fields) children_[f.parent_id].push_back(f.id);
  }

  // `id` and the ids of all its descendants.
  std::set<int32_t> Subtree(int32_t id) const {
    std::set<int32_t> ids{id};
    std::vector<int32_t> stack{id};
    while (!stack.empty()) {
      const int32_t cur = stack.back();
      stack.pop_back();
      auto it = children_.find(cur);
      if (it == children_.end()) continue;
      for (int32_t c : it->second) {
        if (ids.insert(c).second) stack.push_back(c);
      }
    }
    return ids;
  }

  // Index in frag.files of the first data file listing `id` or one of its descendants; -1 when
  // no file of the fragment holds the column (it reads as nulls).
  int FileHolding(const FragmentInfo& frag, int32_t id) const {
    const std::set<int32_t> ids = Subtree(id);
    for (size_t fi = 0; fi < frag.files.size(); ++fi) {
      const auto& listed = frag.files[fi].fields;
      if (std::any_of(listed.begin(), listed.end(), [&](int32_t x) { return ids.count(x) > 0; })) {
        return static_cast<int>(fi);
      }
    }
    return -1;
  }

 private:
  std::map<int32_t, std::vector<int32_t>> children_;
};

}  // namespace lance::table
