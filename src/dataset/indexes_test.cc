// DropIndex on a copy of tests/golden/lance_table/indexed.lance (four indexes lance 12 built):
// the dropped index leaves the section, the others stay byte for byte, rows are unchanged;
// an unknown name is NotFound.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "lance/table/snapshot.h"
#include "lance/table/indexes.h"
#include "table_fixtures/json_lines_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(__FILE__).parent_path() / "../../tests/golden/lance_table/indexed.lance";

std::string CopyOfGolden(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("lance_indexes_test_" + name + "_" +
                                                    std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kGolden, dir / "t.lance", fs::copy_options::recursive);
  return (dir / "t.lance").string();
}

TEST(Indexes, DropIndexRemovesOnlyThatIndex) {
  const std::string uri = CopyOfGolden("drop");
  auto before = Snapshot::Open(uri);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_EQ((*before)->manifest().indices.size(), 4u);
  for (const auto& x : (*before)->manifest().indices) EXPECT_FALSE(IsSystemIndex(x));

  auto ci = DropIndex(**before, "cat_idx");
  ASSERT_TRUE(ci.ok()) << ci.status().ToString();
  EXPECT_EQ(ci->version, (*before)->version() + 1);
  auto after = Snapshot::Open(uri);
  ASSERT_TRUE(after.ok());
  std::vector<std::string> names;
  for (const auto& x : (*after)->manifest().indices) {
    names.push_back(x.name);
    const IndexInfo* old = nullptr;
    for (const auto& y : (*before)->manifest().indices) {
      if (y.name == x.name) old = &y;
    }
    ASSERT_NE(old, nullptr);
    EXPECT_EQ(x.uuid, old->uuid);
    EXPECT_EQ(x.details, old->details);
    EXPECT_EQ(x.fragment_ids, old->fragment_ids);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"id_idx", "text_idx", "vec_idx"}));
  // The index files stay (cleanup removes them); the rows do not change.
  EXPECT_TRUE(fs::exists(fs::path(uri) / "_indices" / "9fd21c5e-45b0-41d8-b70b-9169521fc4ec"));
  auto a = ScanBatches((*before));
  auto b = ScanBatches((*after));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*JsonLinesOf(*a), *JsonLinesOf(*b));

  auto again = DropIndex(**after, "cat_idx");
  ASSERT_TRUE(again.status().IsNotFound()) << again.status().ToString();
  EXPECT_NE(again.status().message().find("'cat_idx'"), std::string::npos);
  EXPECT_TRUE(DropIndex(**after, "").status().IsInvalidArgument());
  fs::remove_all(fs::path(uri).parent_path());
}

TEST(Indexes, SystemIndexNames) {
  IndexInfo x;
  x.name = "__lance_frag_reuse";
  EXPECT_TRUE(IsSystemIndex(x));
  x.name = "__lance_mem_wal";
  EXPECT_TRUE(IsSystemIndex(x));
  x.name = "id_idx";
  EXPECT_FALSE(IsSystemIndex(x));
}

}  // namespace
}  // namespace lance::table
