// The full-text golden (tests/golden/fts_index/fts.lance, built by lance 12) opened for the
// tests that check our INVERTED reader against it: the snapshot and its indexes by name.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "lance/table/snapshot.h"

namespace lance::fts_golden {

struct Golden {
  std::shared_ptr<table::Snapshot> snap;
  std::map<std::string, const table::IndexInfo*> by_name;
};

inline Golden OpenGolden() {
  const std::filesystem::path path =
      std::filesystem::path(__FILE__).parent_path() / "../golden/fts_index/fts.lance";
  Golden g;
  auto s = table::Snapshot::Open(path.string());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return g;
  g.snap = *s;
  for (const auto& info : g.snap->manifest().indices) g.by_name[info.name] = &info;
  return g;
}

}  // namespace lance::fts_golden
