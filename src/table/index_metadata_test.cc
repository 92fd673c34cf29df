// The manifest's index section decoded into IndexInfo: every IndexMetadata field, the fragment
// bitmap as ids, index type names from the details, and damaged sections refused.
#include <gtest/gtest.h>

#include <roaring/roaring.h>

#include <cstring>

#include "lance/table/manifest.h"
#include "table/proto/index_details.pb.h"
#include "table/proto/table.pb.h"
#include "table/roaring_test_util.h"

namespace lance::table {
namespace {

Manifest SmallManifest() {
  Manifest m;
  file::LanceField id;
  id.name = "id";
  id.id = 0;
  id.logical_type = "int64";
  m.fields = {id};
  m.version = 3;
  m.data_file_format = "lance";
  m.data_storage_version = "2.2";
  return m;
}

::lance::table::pb::IndexMetadata* AddIndex(::lance::table::pb::IndexSection* section, const std::string& name,
                                        const std::string& type_url, const std::string& details) {
  auto* x = section->add_indices();
  x->set_name(name);
  std::string uuid(16, '\0');
  for (int i = 0; i < 16; ++i) uuid[static_cast<size_t>(i)] = static_cast<char>(0xa0 + i + section->indices_size());
  x->mutable_uuid()->set_uuid(uuid);
  x->add_fields(0);
  x->set_dataset_version(2);
  x->mutable_index_details()->set_type_url(type_url);
  x->mutable_index_details()->set_value(details);
  return x;
}

// A manifest file of SmallManifest() whose index section is `section`, byte for byte (the
// container assembled here: section, manifest, footer).
Result<std::string> WithSection(const ::lance::table::pb::IndexSection& section) {
  LANCE_ASSIGN_OR_RAISE(std::string plain, EncodeManifest(SmallManifest()));
  uint32_t len = 0;
  std::memcpy(&len, plain.data(), 4);
  ::lance::table::pb::Manifest pb;
  if (!pb.ParseFromArray(plain.data() + 4, static_cast<int>(len))) return Status::Internal("manifest");
  const std::string idx = section.SerializeAsString();
  pb.set_index_section(0);
  const std::string body = pb.SerializeAsString();
  std::string out;
  auto u32 = [&out](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  u32(static_cast<uint32_t>(idx.size()));
  out += idx;
  const uint64_t pos = out.size();
  u32(static_cast<uint32_t>(body.size()));
  out += body;
  out.append(reinterpret_cast<const char*>(&pos), 8);
  out.append("\x00\x00\x02\x00LANC", 8);
  return out;
}

Result<Manifest> RoundTrip(const ::lance::table::pb::IndexSection& section) {
  LANCE_ASSIGN_OR_RAISE(std::string bytes, WithSection(section));
  return DecodeManifest(bytes, "m.manifest");
}

TEST(IndexMetadata, EveryFieldDecodes) {
  ::lance::table::pb::IndexSection section;
  auto* x = AddIndex(&section, "id_idx", "/lance.table.BTreeIndexDetails", "");
  x->set_fragment_bitmap(Bitmap({0, 1, 5, 70000}));
  x->set_index_version(3);
  x->set_created_at(1796009275080ULL);
  x->set_base_id(2);
  auto* f = x->add_files();
  f->set_path("page_data.lance");
  f->set_size_bytes(3201);
  f = x->add_files();
  f->set_path("page_lookup.lance");
  f->set_size_bytes(701);
  x->add_covering_fields(1);
  AddIndex(&section, "old_idx", "", "");  // an index of an old writer: no bitmap, no details

  auto m = RoundTrip(section);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->num_indices(), 2);
  ASSERT_EQ(m->indices.size(), 2u);
  const IndexInfo& a = m->indices[0];
  EXPECT_EQ(a.name, "id_idx");
  EXPECT_EQ(a.uuid, "a1a2a3a4-a5a6-a7a8-a9aa-abacadaeafb0");
  EXPECT_EQ(a.fields, std::vector<int32_t>{0});
  EXPECT_EQ(a.dataset_version, 2u);
  EXPECT_TRUE(a.has_fragment_bitmap);
  EXPECT_EQ(a.fragment_ids, (std::vector<uint32_t>{0, 1, 5, 70000}));
  EXPECT_EQ(a.details_type_url, "/lance.table.BTreeIndexDetails");
  EXPECT_EQ(a.index_version, 3);
  EXPECT_EQ(a.created_at_ms, 1796009275080ULL);
  EXPECT_EQ(a.base_id, 2u);
  ASSERT_EQ(a.files.size(), 2u);
  EXPECT_EQ(a.files[1].path, "page_lookup.lance");
  EXPECT_EQ(a.files[1].size_bytes, 701u);
  EXPECT_EQ(a.covering_fields, std::vector<int32_t>{1});
  EXPECT_EQ(IndexTypeName(a), "BTREE");
  EXPECT_EQ(VectorIndexDetailsJson(a), "");

  const IndexInfo& b = m->indices[1];
  EXPECT_FALSE(b.has_fragment_bitmap);
  EXPECT_TRUE(b.fragment_ids.empty());
  EXPECT_FALSE(b.index_version.has_value());
  EXPECT_FALSE(b.created_at_ms.has_value());
  EXPECT_FALSE(b.base_id.has_value());
  EXPECT_EQ(IndexTypeName(b), "");
}

TEST(IndexMetadata, TypeNamesFromDetails) {
  auto info = [](std::string url, std::string details = "") {
    IndexInfo x;
    x.details_type_url = std::move(url);
    x.details = std::move(details);
    return x;
  };
  EXPECT_EQ(IndexTypeName(info("/lance.table.BitmapIndexDetails")), "BITMAP");
  EXPECT_EQ(IndexTypeName(info("/lance.table.InvertedIndexDetails")), "INVERTED");
  EXPECT_EQ(IndexTypeName(info("type.googleapis.com/lance.table.LabelListIndexDetails")), "LABEL_LIST");
  EXPECT_EQ(IndexTypeName(info("/lance.table.ZoneMapIndexDetails")), "ZONEMAP");
  EXPECT_EQ(IndexTypeName(info("/lance.table.SomethingNewDetails")), "SomethingNewDetails");

  ::lance::index::pb::VectorIndexDetails v;
  v.set_metric_type(::lance::index::pb::VectorIndexDetails::COSINE);
  v.mutable_pq()->set_num_bits(8);
  v.mutable_pq()->set_num_sub_vectors(16);
  (*v.mutable_runtime_hints())["b"] = "2";
  (*v.mutable_runtime_hints())["a"] = "1";
  const IndexInfo pq = info("/lance.index.pb.VectorIndexDetails", v.SerializeAsString());
  EXPECT_EQ(IndexTypeName(pq), "IVF_PQ");
  EXPECT_EQ(VectorIndexDetailsJson(pq),
            R"({"metric":"cosine","compression":"pq","num_bits":8,"num_sub_vectors":16,"runtime_hints":{"a":"1","b":"2"}})");
  v.mutable_sq()->set_num_bits(4);
  v.mutable_hnsw_index_config()->set_max_connections(20);
  EXPECT_EQ(IndexTypeName(info("/lance.index.pb.VectorIndexDetails", v.SerializeAsString())), "IVF_HNSW_SQ");
  v.clear_hnsw_index_config();
  v.mutable_flat();
  EXPECT_EQ(IndexTypeName(info("/lance.index.pb.VectorIndexDetails", v.SerializeAsString())), "IVF_FLAT");
  EXPECT_EQ(IndexTypeName(info("/lance.index.pb.VectorIndexDetails", "\xff\xff")), "VECTOR");
}

TEST(IndexMetadata, DamagedEntriesAreCorruption) {
  {
    ::lance::table::pb::IndexSection section;
    AddIndex(&section, "bad_bitmap", "", "")->set_fragment_bitmap("not a bitmap");
    auto m = RoundTrip(section);
    ASSERT_TRUE(m.status().IsCorruption()) << m.status().ToString();
    EXPECT_NE(m.status().message().find("m.manifest: the fragment bitmap of index 'bad_bitmap'"),
              std::string::npos)
        << m.status().ToString();
  }
  {
    ::lance::table::pb::IndexSection section;
    AddIndex(&section, "short_uuid", "", "")->mutable_uuid()->set_uuid("abc");
    auto m = RoundTrip(section);
    ASSERT_TRUE(m.status().IsCorruption()) << m.status().ToString();
    EXPECT_NE(m.status().message().find("uuid of 3 bytes"), std::string::npos);
  }
  {
    // A bitmap of 2^32 ids (one full run) is refused before it is materialized.
    roaring_bitmap_t* bm = roaring_bitmap_create();
    roaring_bitmap_add_range_closed(bm, 0, UINT32_MAX);
    roaring_bitmap_run_optimize(bm);
    std::string bytes(roaring_bitmap_portable_size_in_bytes(bm), '\0');
    roaring_bitmap_portable_serialize(bm, bytes.data());
    roaring_bitmap_free(bm);
    ::lance::table::pb::IndexSection section;
    AddIndex(&section, "huge", "", "")->set_fragment_bitmap(bytes);
    auto m = RoundTrip(section);
    ASSERT_TRUE(m.status().IsCorruption()) << m.status().ToString();
    EXPECT_NE(m.status().message().find("holds 4294967296 fragment ids"), std::string::npos);
  }
}

TEST(IndexMetadata, RetainRelevantIndicesDropsIndexesOfDroppedFields) {
  auto index = [](const std::string& name, std::vector<int32_t> fields) {
    IndexInfo x;
    x.name = name;
    x.fields = std::move(fields);
    return x;
  };
  const std::vector<IndexInfo> section = {index("on_0", {0}), index("on_0_and_3", {0, 3}),
                                          index("__lance_frag_reuse", {9})};
  auto names = [](const std::vector<IndexInfo>& v) {
    std::vector<std::string> out;
    for (const auto& x : v) out.push_back(x.name);
    return out;
  };
  EXPECT_EQ(names(RetainRelevantIndices(section, {0, 1, 3})),
            (std::vector<std::string>{"on_0", "on_0_and_3", "__lance_frag_reuse"}));
  EXPECT_EQ(names(RetainRelevantIndices(section, {0, 1})),
            (std::vector<std::string>{"on_0", "__lance_frag_reuse"}));
  EXPECT_TRUE(RetainRelevantIndices({section[0]}, {1, 2}).empty());
  EXPECT_TRUE(IsSystemIndex(section[2]));
  EXPECT_FALSE(IsSystemIndex(section[0]));
}

// Decoded and encoded again, an index section written by another writer keeps its bytes.
TEST(IndexMetadata, SectionSurvivesDecodeAndEncode) {
  ::lance::table::pb::IndexSection section;
  auto* x = AddIndex(&section, "id_idx", "/lance.table.BTreeIndexDetails", "\x08\x01");
  x->set_fragment_bitmap(Bitmap({0, 1, 5, 70000}));
  x->set_index_version(3);
  x->set_created_at(1796009275080ULL);
  x->add_files()->set_path("page_data.lance");
  x->add_covering_fields(7);
  // A member this library does not know (field 99, varint 5), at the end of the entry.
  x->GetReflection()->MutableUnknownFields(x)->AddVarint(99, 5);
  auto* y = AddIndex(&section, "v_idx", "/lance.table.VectorIndexDetails", "");
  y->set_fragment_bitmap(Bitmap({}));
  auto original = WithSection(section);
  ASSERT_TRUE(original.ok());
  auto m = DecodeManifest(*original, "m.manifest");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->indices.size(), 2u);
  EXPECT_FALSE(m->indices[0].unknown_fields.empty());
  auto again = EncodeManifest(*m);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto back = DecodeManifest(*again, "again");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->index_section.has_value());
  uint32_t len = 0;
  std::memcpy(&len, again->data() + *back->index_section, 4);
  EXPECT_EQ(std::string(again->data() + *back->index_section + 4, len), section.SerializeAsString());
}

}  // namespace
}  // namespace lance::table
