// lance 12's commit-time migrations of what older writers left (legacy_fixups.h), on the
// upstream corpus manifests: the duplicate-field-id fix (v0.10.5/corrupt_schema) and the index
// metadata fill-in (index_version, the files of _indices/{uuid}/), each compared with what
// lance 12 wrote after a delete on a copy of the same dataset (protoc --decode_raw).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lance/table/manifest.h"
#include "lance/table/versions.h"
#include "table/legacy_fixups.h"

namespace lance::table {
namespace {

namespace fs = std::filesystem;
const fs::path kCorpusDir = fs::path(__FILE__).parent_path() / "../../tests/golden/legacy/upstream";

Manifest LoadCorpusVersion(const std::string& rel, uint64_t version) {
  auto loc = TableLocation::FromUri((kCorpusDir / rel).string());
  EXPECT_TRUE(loc.ok()) << loc.status().ToString();
  auto v = LoadVersion(*loc, version);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? v->manifest : Manifest{};
}

std::vector<std::vector<int32_t>> FileFields(const FragmentInfo& f) {
  std::vector<std::vector<int32_t>> out;
  for (const auto& d : f.files) out.push_back(d.fields);
  return out;
}

TEST(CommitMigrations, DuplicateFieldIdsRenumberedAsLance12Does) {
  Manifest m = LoadCorpusVersion("v0.10.5/corrupt_schema.lance", 6);
  ASSERT_EQ(m.fragments.size(), 2u);
  // The v1 files as they are: lance 12's fix would leave them unreadable, so it is refused.
  {
    Manifest v1 = m;
    Status st = internal::FixDuplicateFieldIds(&v1, "corrupt_schema");
    EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
    EXPECT_NE(st.message().find("field id 2 is listed by more than one data file of fragment 0"),
              std::string::npos) << st.ToString();
  }
  // The same manifest over 2.0 files (which find their columns by position): lance 12's
  // result after a delete on a copy, field by field.
  for (auto& f : m.fragments) {
    for (auto& d : f.files) {
      d.major = 2;
      d.minor = 0;
    }
  }
  ASSERT_TRUE(internal::FixDuplicateFieldIds(&m, "corrupt_schema").ok());
  std::vector<std::pair<std::string, int32_t>> ids;
  for (const auto& f : m.fields) ids.emplace_back(f.name, f.id);
  EXPECT_EQ(ids, (std::vector<std::pair<std::string, int32_t>>{{"x", 0}, {"y", 1}, {"b", 4}, {"c", 5}}));
  EXPECT_EQ(FileFields(m.fragments[0]), (std::vector<std::vector<int32_t>>{{0}, {1, 2}, {4, 5}}));
  EXPECT_EQ(m.fragments[0].files[2].path, "ac0bf34e-0e0d-4e3b-ae7e-ab247cae5f77.lance");
  EXPECT_EQ(FileFields(m.fragments[1]), (std::vector<std::vector<int32_t>>{{0, 1, 2, 3}, {4, 5}}));
  ASSERT_EQ(m.schema->num_fields(), 4);
  EXPECT_EQ(m.schema->field(2)->id(), 4);
  EXPECT_EQ(m.schema->field(3)->id(), 5);
  // Nothing left to fix: the second run changes nothing.
  Manifest again = m;
  ASSERT_TRUE(internal::FixDuplicateFieldIds(&again, "corrupt_schema").ok());
  EXPECT_EQ(FileFields(again.fragments[0]), FileFields(m.fragments[0]));
}

TEST(CommitMigrations, ManifestsWithoutDuplicatesAreLeftAlone) {
  Manifest m = LoadCorpusVersion("v0.10.5/corrupt_schema.lance", 3);  // before the append
  const Manifest before = m;
  ASSERT_TRUE(internal::FixDuplicateFieldIds(&m, "corrupt_schema").ok());
  ASSERT_EQ(m.fragments.size(), before.fragments.size());
  EXPECT_EQ(FileFields(m.fragments[0]), FileFields(before.fragments[0]));
}

TEST(CommitMigrations, IndexMetadataFilledAsLance12Does) {
  const std::string rel = "v0.20.0/old_btree_bitmap_indices.lance";
  Manifest m = LoadCorpusVersion(rel, 3);
  ASSERT_EQ(m.indices.size(), 2u);
  for (const auto& x : m.indices) {
    EXPECT_FALSE(x.index_version.has_value());
    EXPECT_TRUE(x.files.empty());
  }
  auto loc = TableLocation::FromUri((kCorpusDir / rel).string());
  ASSERT_TRUE(loc.ok());
  ASSERT_TRUE(internal::MigrateIndexMetadata(*loc, &m).ok());
  // lance 12's index section after a delete on a copy (file order: ours by name, lance 12's
  // the directory's).
  auto files = [](const IndexInfo& x) {
    std::vector<std::pair<std::string, uint64_t>> out;
    for (const auto& f : x.files) out.emplace_back(f.path, f.size_bytes);
    return out;
  };
  EXPECT_EQ(m.indices[0].name, "bitmap_idx");
  EXPECT_EQ(m.indices[0].index_version, 0);
  EXPECT_EQ(files(m.indices[0]), (std::vector<std::pair<std::string, uint64_t>>{{"bitmap_page_lookup.lance", 661}}));
  EXPECT_EQ(m.indices[1].name, "btree_idx");
  EXPECT_EQ(m.indices[1].index_version, 0);
  EXPECT_EQ(files(m.indices[1]),
            (std::vector<std::pair<std::string, uint64_t>>{{"page_data.lance", 724}, {"page_lookup.lance", 1250}}));
  // Recorded values are kept.
  m.indices[0].index_version = 3;
  m.indices[0].files = {{"x", 1, {}}};
  ASSERT_TRUE(internal::MigrateIndexMetadata(*loc, &m).ok());
  EXPECT_EQ(m.indices[0].index_version, 3);
  EXPECT_EQ(files(m.indices[0]), (std::vector<std::pair<std::string, uint64_t>>{{"x", 1}}));
}

}  // namespace
}  // namespace lance::table

namespace lance::table {
namespace {

// A manifest of lance 12 with a decimal256 column reads with that type; a decimal width no
// Lance writer stores (decimal64) is refused as NotSupported naming the type, not reported as
// damaged.
Result<Manifest> DecodeWithDecimal(const std::string& logical_type) {
  Manifest m;
  file::LanceField id;
  id.name = "id";
  id.logical_type = "int32";
  file::LanceField d;
  d.name = "d";
  d.id = 1;
  d.logical_type = logical_type;
  m.fields = {id, d};
  m.version = 1;
  m.data_file_format = "lance";
  m.data_storage_version = "2.1";
  LANCE_ASSIGN_OR_RAISE(auto bytes, EncodeManifest(m, ""));
  return DecodeManifest(bytes, "d.manifest");
}

TEST(ManifestTypes, Decimal256ReadsUnknownDecimalWidthIsNotSupported) {
  auto wide = DecodeWithDecimal("decimal:256:40:2");
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_TRUE(wide->schema->field(1)->type()->Equals(*decimal256(40, 2)))
      << wide->schema->field(1)->type()->ToString();
  auto narrow = DecodeWithDecimal("decimal:64:10:2");
  ASSERT_FALSE(narrow.ok());
  EXPECT_TRUE(narrow.status().IsNotSupported()) << narrow.status().ToString();
  EXPECT_NE(narrow.status().message().find("decimal:64:10:2"), std::string::npos)
      << narrow.status().ToString();
}

}  // namespace
}  // namespace lance::table
