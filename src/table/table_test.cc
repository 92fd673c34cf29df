// Table layer tests: feature flags (one test per row of the spec's flag table), manifest
// naming and decoding, and opening the golden dataset written by lance 12
// (tests/golden/lance_table: appends, Arrow IPC and Roaring deletion files, a tag); its rows
// are read by src/query/golden_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <roaring/roaring.h>

#include "lance/columnar/json.h"
#include "lance/io/object_store.h"
#include "lance/ipc/writer.h"
#include "lance/table/commit.h"
#include "lance/table/tags.h"
#include "lance/table/snapshot.h"
#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"
#include "lance/table/row_ids.h"
#include "table/proto/rowids.pb.h"
#include "table/proto/table.pb.h"

namespace lance::table {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(__FILE__).parent_path() / "../../tests/golden/lance_table";

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---------------------------------------------------------------------------------------
// Feature flags: one test per row of the table in the format's versioning spec.

// A known flag `bit` set on both sides is readable and writable.
void ExpectSupported(uint64_t bit) {
  EXPECT_TRUE(CheckCanRead(bit, bit, false).ok()) << bit;
  EXPECT_TRUE(CheckCanWrite(bit, bit, false).ok()) << bit;
}

TEST(FeatureFlags, Row1DeletionFiles) {
  EXPECT_EQ(kFlagDeletionFiles, 1u);
  ExpectSupported(kFlagDeletionFiles);
  EXPECT_EQ(FlagNames(kFlagDeletionFiles), "deletion_files");
}
TEST(FeatureFlags, Row2StableRowIds) {
  EXPECT_EQ(kFlagStableRowIds, 2u);
  ExpectSupported(kFlagStableRowIds);
  EXPECT_EQ(FlagNames(kFlagStableRowIds), "stable_row_ids");
}
TEST(FeatureFlags, Row4DeprecatedV2Format) {
  EXPECT_EQ(kFlagUseV2FormatDeprecated, 4u);
  ExpectSupported(kFlagUseV2FormatDeprecated);
}
TEST(FeatureFlags, Row8TableConfigWriterOnly) {
  EXPECT_EQ(kFlagTableConfig, 8u);
  ExpectSupported(kFlagTableConfig);
  EXPECT_TRUE(CheckCanRead(0, kFlagTableConfig, false).ok());  // writer-side flag
}
TEST(FeatureFlags, Row16BasePaths) {
  EXPECT_EQ(kFlagBasePaths, 16u);
  ExpectSupported(kFlagBasePaths);
}
TEST(FeatureFlags, Row32DisableTransactionFile) {
  EXPECT_EQ(kFlagDisableTransactionFile, 32u);
  ExpectSupported(kFlagDisableTransactionFile);
  EXPECT_TRUE(CheckCanWrite(0, kFlagDisableTransactionFile, false).ok());
}
TEST(FeatureFlags, Row64OverlayFilesUnknownUnlessEnabled) {
  EXPECT_EQ(kFlagUnstableDataOverlayFiles, 64u);
  Status r = CheckCanRead(64, 64, false);
  EXPECT_TRUE(r.IsNotSupported()) << r.ToString();
  EXPECT_NE(r.message().find("upgrade"), std::string::npos) << r.ToString();
  EXPECT_TRUE(CheckCanWrite(64, 64, false).IsNotSupported());
  EXPECT_TRUE(CheckCanRead(64, 64, true).ok());
  EXPECT_TRUE(CheckCanWrite(64, 64, true).ok());
}
// The gate is the environment variable only, in every build type.
TEST(FeatureFlags, Row64OverlayEnvironmentVariable) {
  ::unsetenv(kEnableOverlayFilesEnv);
  EXPECT_FALSE(DataOverlayFilesEnabled());
  EXPECT_TRUE(CheckCanRead(64, 64).IsNotSupported());
  EXPECT_TRUE(CheckCanWrite(64, 64).IsNotSupported());
  EXPECT_EQ(SupportedFlags(DataOverlayFilesEnabled()) & kFlagUnstableDataOverlayFiles, 0u);
  ::setenv(kEnableOverlayFilesEnv, "1", 1);
  EXPECT_TRUE(DataOverlayFilesEnabled());
  EXPECT_TRUE(CheckCanRead(64, 64).ok());
  EXPECT_TRUE(CheckCanWrite(64, 64).ok());
  ::setenv(kEnableOverlayFilesEnv, "", 1);
  EXPECT_TRUE(DataOverlayFilesEnabled());
  ::unsetenv(kEnableOverlayFilesEnv);
  EXPECT_FALSE(DataOverlayFilesEnabled());
}
TEST(FeatureFlags, Row128CoveredIndexMetadata) {
  EXPECT_EQ(kFlagCoveredIndexMetadata, 128u);
  ExpectSupported(kFlagCoveredIndexMetadata);
}
TEST(FeatureFlags, Row256MixedVersionsPaired) {
  EXPECT_EQ(kFlagMixedDataFileVersions, 256u);
  ExpectSupported(kFlagMixedDataFileVersions);
  for (auto [r, w] : {std::pair<uint64_t, uint64_t>{256, 0}, {0, 256}, {257, 1}, {1, 257}}) {
    EXPECT_TRUE(CheckCanRead(r, w, true).IsCorruption()) << r << "/" << w;
    EXPECT_TRUE(CheckCanWrite(r, w, true).IsCorruption()) << r << "/" << w;
  }
}
TEST(FeatureFlags, UnknownBitsRefusedWithUpgradeHint) {
  for (uint64_t bit : {uint64_t{512}, uint64_t{1024}, uint64_t{1} << 40, uint64_t{1} << 63}) {
    Status r = CheckCanRead(bit | 1, 1, true);
    EXPECT_TRUE(r.IsNotSupported()) << bit;
    EXPECT_NE(r.message().find("upgrade"), std::string::npos) << r.ToString();
    EXPECT_TRUE(CheckCanWrite(1, bit, true).IsNotSupported()) << bit;
    // A reader is not refused for a writer-only unknown bit, and vice versa.
    EXPECT_TRUE(CheckCanRead(1, bit | 1, true).ok()) << bit;
    EXPECT_TRUE(CheckCanWrite(bit | 1, 1, true).ok()) << bit;
  }
  EXPECT_EQ(SupportedFlags(true), 511u);
  EXPECT_EQ(SupportedFlags(false), 511u - 64u);
  EXPECT_EQ(FlagNames(1 | 512), "deletion_files|unknown(512)");
  EXPECT_TRUE(CheckCanRead(511, 511, true).ok());
}

// ---------------------------------------------------------------------------------------
// Version file names and small JSON documents.

TEST(ManifestNaming, BothSchemes) {
  EXPECT_EQ(ManifestFileName(1, ManifestNaming::kV2), "18446744073709551614.manifest");
  EXPECT_EQ(ManifestFileName(4, ManifestNaming::kV2), "18446744073709551611.manifest");
  EXPECT_EQ(ManifestFileName(7, ManifestNaming::kLegacy), "7.manifest");
  auto v2 = ParseManifestFileName("18446744073709551611.manifest");
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->first, 4u);
  EXPECT_EQ(v2->second, ManifestNaming::kV2);
  auto legacy = ParseManifestFileName("12.manifest");
  ASSERT_TRUE(legacy);
  EXPECT_EQ(legacy->first, 12u);
  EXPECT_EQ(legacy->second, ManifestNaming::kLegacy);
  for (const char* bad : {"latest_version_hint.json", ".manifest", "a1.manifest", "1.manifest.tmp",
                          "-1.manifest", "184467440737095516150.manifest",
                          "99999999999999999999.manifest"}) {
    EXPECT_FALSE(ParseManifestFileName(bad)) << bad;
  }
  for (uint64_t v : {uint64_t{1}, uint64_t{2}, uint64_t{1000000}}) {
    for (auto n : {ManifestNaming::kV2, ManifestNaming::kLegacy}) {
      auto p = ParseManifestFileName(ManifestFileName(v, n));
      ASSERT_TRUE(p);
      EXPECT_EQ(p->first, v);
      EXPECT_EQ(p->second, n);
    }
  }
}

TEST(VersionJson, HintAndTag) {
  EXPECT_EQ(*ParseVersionJson(R"({"version":3})", "hint"), 3u);
  EXPECT_EQ(*ParseVersionJson(R"({"branch": null, "version": 12, "metadata": {"version": 1}})", "t"),
            12u);
  EXPECT_EQ(*ParseVersionJson(R"({"metadata": {"version": 1}, "version": 5})", "t"), 5u);
  EXPECT_TRUE(ParseVersionJson(R"({"metadata": {"version": 1}})", "t").status().IsCorruption());
  EXPECT_TRUE(ParseVersionJson(R"({"version": "x"})", "t").status().IsCorruption());
  EXPECT_TRUE(ParseVersionJson("", "t").status().IsCorruption());
}

// ---------------------------------------------------------------------------------------
// Manifest decoding.

std::string Wrap(const std::string& proto, uint16_t major = 0, uint16_t minor = 2) {
  std::string out;
  const uint32_t len = static_cast<uint32_t>(proto.size());
  out.append(reinterpret_cast<const char*>(&len), 4);
  out += proto;
  const uint64_t pos = 0;
  out.append(reinterpret_cast<const char*>(&pos), 8);
  out.append(reinterpret_cast<const char*>(&major), 2);
  out.append(reinterpret_cast<const char*>(&minor), 2);
  out += "LANC";
  return out;
}

std::string GoldenManifest(uint64_t version) {
  return ReadText(kGolden / "history.lance/_versions" / ManifestFileName(version, ManifestNaming::kV2));
}

TEST(Manifest, DecodesGoldenVersions) {
  auto m1 = DecodeManifest(GoldenManifest(1), "v1");
  ASSERT_TRUE(m1.ok()) << m1.status().ToString();
  EXPECT_EQ(m1->version, 1u);
  ASSERT_EQ(m1->fields.size(), 3u);
  EXPECT_EQ(m1->fields[0].name, "id");
  EXPECT_EQ(m1->fields[0].id, 0);
  EXPECT_EQ(m1->fields[0].parent_id, -1);
  EXPECT_EQ(m1->fields[0].logical_type, "int64");
  EXPECT_EQ(m1->fields[1].logical_type, "string");
  EXPECT_EQ(m1->schema->num_fields(), 3);
  EXPECT_EQ(m1->schema->field(2)->id(), 2);
  ASSERT_EQ(m1->fragments.size(), 1u);
  EXPECT_EQ(m1->fragments[0].physical_rows, 10u);
  ASSERT_EQ(m1->fragments[0].files.size(), 1u);
  EXPECT_EQ(m1->fragments[0].files[0].major, 2u);
  EXPECT_EQ(m1->fragments[0].files[0].minor, 2u);
  EXPECT_EQ(m1->fragments[0].files[0].fields, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(m1->fragments[0].files[0].column_indices, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(m1->data_storage_version, "2.2");
  EXPECT_EQ(m1->writer_library, "lance");
  EXPECT_EQ(m1->writer_version, "12.0.0");
  EXPECT_EQ(m1->reader_feature_flags, 0u);
  EXPECT_TRUE(m1->timestamp_ns.has_value());
  ASSERT_TRUE(m1->max_fragment_id.has_value());
  EXPECT_EQ(*m1->max_fragment_id, 0u);

  auto m4 = DecodeManifest(GoldenManifest(4), "v4");
  ASSERT_TRUE(m4.ok()) << m4.status().ToString();
  EXPECT_EQ(m4->version, 4u);
  EXPECT_EQ(m4->reader_feature_flags, kFlagDeletionFiles);
  EXPECT_EQ(m4->writer_feature_flags, kFlagDeletionFiles);
  ASSERT_EQ(m4->fragments.size(), 2u);
  ASSERT_TRUE(m4->fragments[0].deletion);
  EXPECT_EQ(m4->fragments[0].deletion->type, DeletionFileType::kArrowArray);
  EXPECT_EQ(m4->fragments[0].deletion->num_deleted_rows, 3u);
  ASSERT_TRUE(m4->fragments[1].deletion);
  EXPECT_EQ(m4->fragments[1].deletion->type, DeletionFileType::kBitmap);
  EXPECT_GT(m4->fragments[1].deletion->num_deleted_rows, 5000u);
  EXPECT_EQ(m4->num_rows(), 232u);
  EXPECT_GT(*m4->timestamp_ns, *m1->timestamp_ns);
}

// Every manifest in tests/golden (lance 12's, and the older writers' of tests/golden/legacy)
// decodes into the model and encodes back to the same bytes: every member is modelled or kept
// as an unknown field, the sections are placed as lance places them. Only what the encoder
// decides itself may differ: the feature flags (computed from the content) and the order of map
// entries (written sorted); both are then compared as protobuf messages with those set aside.
TEST(Manifest, EveryGoldenManifestEncodesBackUnchanged) {
  int files = 0, identical = 0, flag_rewrites = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kGolden / "..")) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !name.ends_with(".manifest")) continue;
    ++files;
    const std::string original = ReadText(entry.path());
    std::string inline_txn;
    auto m = DecodeManifest(original, entry.path().string(), &inline_txn);
    ASSERT_TRUE(m.ok()) << entry.path() << ": " << m.status().ToString();
    auto again = EncodeManifest(*m, inline_txn);
    ASSERT_TRUE(again.ok()) << entry.path() << ": " << again.status().ToString();
    if (*again == original) {
      ++identical;
      continue;
    }

    // Same sections, same manifest message up to flags and map order. Older writers
    // (container 0.1) laid the file out differently: the values of legacy dictionary fields
    // before the sections, an empty index section at 0 (lance 0.5); there the encoder writes
    // lance 12's layout, and the message is compared without the section positions.
    uint16_t minor = 0;
    std::memcpy(&minor, original.data() + original.size() - 6, 2);
    const bool old_layout = minor == 1;
    auto back = DecodeManifest(*again, "again");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->indices.size(), m->indices.size()) << entry.path();
    if (!old_layout) {
      EXPECT_EQ(back->index_section, m->index_section) << entry.path();
      EXPECT_EQ(back->transaction_section, m->transaction_section) << entry.path();
    }
    auto message = [old_layout](const std::string& file) {
      uint64_t pos = 0;
      uint32_t len = 0;
      std::memcpy(&pos, file.data() + file.size() - 16, 8);
      std::memcpy(&len, file.data() + pos, 4);
      ::lance::table::pb::Manifest pb;
      EXPECT_TRUE(pb.ParseFromArray(file.data() + pos + 4, static_cast<int>(len)));
      pb.clear_reader_feature_flags();
      pb.clear_writer_feature_flags();
      if (old_layout) {
        pb.clear_index_section();
        pb.clear_transaction_section();
      }
      std::string out;
      google::protobuf::io::StringOutputStream stream(&out);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      pb.SerializeToCodedStream(&coded);
      coded.Trim();
      return out;
    };
    EXPECT_EQ(message(*again), message(original)) << entry.path();
    if (old_layout) {
      // container 0.1: written in lance 12's layout, compared by message above
    } else if (back->reader_feature_flags == m->reader_feature_flags &&
        back->writer_feature_flags == m->writer_feature_flags) {
      EXPECT_EQ(again->size(), original.size()) << entry.path();
    } else {
      EXPECT_NE(entry.path().string().find("_gen_"), std::string::npos) << entry.path();
      ++flag_rewrites;
    }
  }
  EXPECT_GE(files, 60);
  EXPECT_GE(identical, 4);  // history.lance's, byte for byte
  EXPECT_LE(flag_rewrites, 3);  // the golden MemWAL generations with a dedup deletion file
}

TEST(Manifest, CorruptInputIsCorruption) {
  const std::string good = GoldenManifest(2);
  ASSERT_TRUE(DecodeManifest(good).ok());
  // Every truncation.
  for (size_t n = 0; n < good.size(); n += 7) {
    auto r = DecodeManifest(good.substr(0, n), "truncated");
    EXPECT_FALSE(r.ok()) << n;
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsCorruption()) << n << ": " << r.status().ToString();
    }
  }
  std::string bad_magic = good;
  bad_magic[bad_magic.size() - 1] = 'X';
  EXPECT_TRUE(DecodeManifest(bad_magic).status().IsCorruption());
  std::string bad_pos = good;
  const uint64_t huge = std::numeric_limits<uint64_t>::max() - 2;
  std::memcpy(bad_pos.data() + bad_pos.size() - 16, &huge, 8);
  EXPECT_TRUE(DecodeManifest(bad_pos).status().IsCorruption());
  EXPECT_TRUE(DecodeManifest(Wrap("\xff\xff\xff\xff\xff")).status().IsCorruption());
  EXPECT_TRUE(DecodeManifest(Wrap("", 0, 9)).status().IsNotSupported());
  // A schema whose parent does not exist.
  ::lance::table::pb::Manifest pb;
  auto* f = pb.add_fields();
  f->set_name("x");
  f->set_id(3);
  f->set_parent_id(7);
  f->set_logical_type("int32");
  EXPECT_TRUE(DecodeManifest(Wrap(pb.SerializeAsString())).status().IsCorruption());
  // A fragment deleting more rows than it has.
  ::lance::table::pb::Manifest pb2;
  auto* fr = pb2.add_fragments();
  fr->set_physical_rows(2);
  fr->mutable_deletion_file()->set_num_deleted_rows(3);
  EXPECT_TRUE(DecodeManifest(Wrap(pb2.SerializeAsString())).status().IsCorruption());
}

TEST(Manifest, EverySingleByteCorruptionIsHandled) {
  // Every byte of a real manifest with deletion files, each XORed with three masks: the
  // decoder returns a manifest or an error (never crashes or reads out of bounds), and any
  // error is Corruption or NotSupported.
  const std::string good = GoldenManifest(4);
  int errors = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      auto r = DecodeManifest(bad, "flipped");
      if (!r.ok()) {
        ++errors;
        EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported())
            << i << ": " << r.status().ToString();
      }
    }
  }
  EXPECT_GT(errors, 0);
}

// ---------------------------------------------------------------------------------------
// Reading the golden dataset through a memory store (so tests can alter it).

int g_store_counter = 0;

// Copies the golden dataset into a fresh memory store; returns its URI.
std::string CopyGolden() {
  const std::string uri = "memory://table_test_" + std::to_string(++g_store_counter) + "/history.lance";
  auto sp = io::ObjectStore::FromUri(uri);
  EXPECT_TRUE(sp.ok());
  const fs::path root = kGolden / "history.lance";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), root).string();
    EXPECT_TRUE(sp->store->Put(sp->path + "/" + rel, ReadText(e.path())).ok()) << rel;
  }
  return uri;
}

TEST(Snapshot, LatestIsOneHintOneManifestOneHead) {
  const std::string uri = CopyGolden();
  auto ds = Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 4u);
  EXPECT_EQ((*ds)->open_stats().gets, 2);
  EXPECT_EQ((*ds)->open_stats().heads, 1);
  EXPECT_EQ((*ds)->open_stats().lists, 0);
}

TEST(Snapshot, StaleOrMissingHintFallsBackToListing) {
  const std::string uri = CopyGolden();
  auto sp = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(sp.ok());
  ASSERT_TRUE(sp->store->Put(sp->path + "/_versions/latest_version_hint.json", R"({"version":2})").ok());
  auto stale = Snapshot::Open(uri);
  ASSERT_TRUE(stale.ok()) << stale.status().ToString();
  EXPECT_EQ((*stale)->version(), 4u);
  EXPECT_EQ((*stale)->open_stats().lists, 1);
  ASSERT_TRUE(sp->store->Delete(sp->path + "/_versions/latest_version_hint.json").ok());
  auto missing = Snapshot::Open(uri);
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_EQ((*missing)->version(), 4u);
}

TEST(Snapshot, LegacyManifestNames) {
  const std::string uri = CopyGolden();
  auto sp = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(sp.ok());
  const std::string dir = sp->path + "/_versions/";
  for (uint64_t v = 1; v <= 4; ++v) {
    ASSERT_TRUE(sp->store->Copy(dir + ManifestFileName(v, ManifestNaming::kV2),
                                dir + ManifestFileName(v, ManifestNaming::kLegacy)).ok());
    ASSERT_TRUE(sp->store->Delete(dir + ManifestFileName(v, ManifestNaming::kV2)).ok());
  }
  ASSERT_TRUE(sp->store->Delete(dir + "latest_version_hint.json").ok());
  auto ds = Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 4u);
  EXPECT_EQ((*ds)->manifest_path(), dir + "4.manifest");
  OpenOptions o;
  o.version = 3;
  auto v3 = Snapshot::Open(uri, o);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ((*v3)->CountRows(), 4507u);
  auto versions = (*ds)->ListVersions();
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 4u);
  EXPECT_EQ((*versions)[0].naming, ManifestNaming::kLegacy);
  EXPECT_EQ((*versions)[3].num_rows, 232u);
}

TEST(Snapshot, TagsAndMissingVersions) {
  const std::string uri = CopyGolden();
  OpenOptions o;
  o.tag = "v3tag";
  auto ds = Snapshot::Open(uri, o);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 3u);
  o.tag = "nope";
  EXPECT_TRUE(Snapshot::Open(uri, o).status().IsNotFound());
  o.tag = "../x";
  EXPECT_TRUE(Snapshot::Open(uri, o).status().IsInvalidArgument());
  OpenOptions v;
  v.version = 99;
  EXPECT_TRUE(Snapshot::Open(uri, v).status().IsNotFound());
  EXPECT_TRUE(Snapshot::Open("memory://table_test_empty/none.lance").status().IsNotFound());
}

// Rewrites the latest manifest's flags in the memory copy.
std::string WithFlags(uint64_t reader, uint64_t writer) {
  const std::string uri = CopyGolden();
  auto sp = io::ObjectStore::FromUri(uri);
  std::string bytes = GoldenManifest(4);
  uint64_t pos;
  std::memcpy(&pos, bytes.data() + bytes.size() - 16, 8);
  uint32_t len;
  std::memcpy(&len, bytes.data() + pos, 4);
  ::lance::table::pb::Manifest pb;
  EXPECT_TRUE(pb.ParseFromArray(bytes.data() + pos + 4, static_cast<int>(len)));
  pb.set_reader_feature_flags(reader);
  pb.set_writer_feature_flags(writer);
  pb.clear_transaction_section();
  EXPECT_TRUE(sp->store->Put(sp->path + "/_versions/" + ManifestFileName(4, ManifestNaming::kV2),
                             Wrap(pb.SerializeAsString())).ok());
  return uri;
}

TEST(Snapshot, OpenChecksFeatureFlags) {
  EXPECT_TRUE(Snapshot::Open(WithFlags(1, 1)).ok());
  auto unknown = Snapshot::Open(WithFlags(1 | 512, 1));
  EXPECT_TRUE(unknown.status().IsNotSupported()) << unknown.status().ToString();
  EXPECT_NE(unknown.status().message().find("upgrade"), std::string::npos);
  EXPECT_TRUE(Snapshot::Open(WithFlags(1 | 256, 1)).status().IsCorruption());
  ::unsetenv(kEnableOverlayFilesEnv);
  EXPECT_TRUE(Snapshot::Open(WithFlags(1 | 64, 1 | 64)).status().IsNotSupported());
  ::setenv(kEnableOverlayFilesEnv, "1", 1);
  EXPECT_TRUE(Snapshot::Open(WithFlags(1 | 64, 1 | 64)).ok());
  ::unsetenv(kEnableOverlayFilesEnv);
}

// ---------------------------------------------------------------------------------------
// Deletion files and row-id sequences.

TEST(DeletionFile, RoaringAndArrowAgree) {
  roaring_bitmap_t* bm = roaring_bitmap_create();
  for (uint32_t v : {9u, 1u, 70000u, 5u}) roaring_bitmap_add(bm, v);
  std::string bytes(roaring_bitmap_portable_size_in_bytes(bm), '\0');
  roaring_bitmap_portable_serialize(bm, bytes.data());
  roaring_bitmap_free(bm);
  auto rows = DecodeDeletionFile(BufferFromString(bytes), DeletionFileType::kBitmap, "x.bin");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<uint32_t>{1, 5, 9, 70000}));
  EXPECT_TRUE(DecodeDeletionFile(BufferFromString(bytes.substr(0, bytes.size() - 3)),
                                 DeletionFileType::kBitmap, "x.bin").status().IsCorruption());
  EXPECT_TRUE(DecodeDeletionFile(BufferFromString("garbage"), DeletionFileType::kArrowArray, "x.arrow")
                  .status().IsCorruption());
  // The golden Arrow IPC (zstd) deletion file of fragment 0.
  auto golden = DecodeDeletionFile(
      BufferFromString(ReadText(kGolden / "history.lance/_deletions/0-2-5822903116732053753.arrow")),
      DeletionFileType::kArrowArray, "golden");
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();
  EXPECT_EQ(*golden, (std::vector<uint32_t>{1, 5, 9}));
}

// Above 5000 rows a deletion file is a portable Roaring bitmap, written without CRoaring: its
// bytes must be the ones CRoaring writes for the same rows (built value by value, then
// run-optimized), for arrays, bitmaps and runs, one container or many (the offset table is
// left out for fewer than four containers when one is a run), and decode to the rows.
TEST(DeletionFile, BitmapBytesAreCRoaringBytes) {
  std::vector<std::vector<uint32_t>> cases;
  std::vector<uint32_t> rows;
  for (uint32_t r = 7; r < 1000000; r += 100) rows.push_back(r);  // arrays, 16 containers
  cases.push_back(rows);
  rows.clear();
  for (uint32_t r = 0; r < 60000; r += 2) rows.push_back(r);  // one bitmap container
  cases.push_back(rows);
  rows.clear();
  for (uint32_t r = 100; r < 300000; ++r) rows.push_back(r);  // runs across 5 containers
  cases.push_back(rows);
  rows.clear();
  for (uint32_t r = 70000; r < 76000; ++r) rows.push_back(r);  // one run container, no offsets
  cases.push_back(rows);
  rows.clear();
  for (uint32_t r = 0; r < 3000; ++r) rows.push_back(r * 3);               // array
  for (uint32_t r = 65536; r < 65536 + 9000; ++r) rows.push_back(r);       // run
  for (uint32_t r = 0; r < 20000; ++r) rows.push_back(200000 + r * 3);     // bitmap
  for (uint32_t r = 0; r < 10; ++r) rows.push_back(4000000000u + r * 7);   // array, high key
  cases.push_back(rows);
  rows.clear();
  for (uint32_t r = 0; r < 6000; ++r) rows.push_back(r % 2 == 0 ? r : 131072 + r);  // 2 containers
  std::sort(rows.begin(), rows.end());
  cases.push_back(rows);
  for (const auto& want : cases) {
    DeletionFileType type;
    auto bytes = EncodeDeletionFile(want, &type);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    EXPECT_EQ(type, DeletionFileType::kBitmap);
    roaring_bitmap_t* bm = roaring_bitmap_of_ptr(want.size(), want.data());
    roaring_bitmap_run_optimize(bm);
    std::string theirs(roaring_bitmap_portable_size_in_bytes(bm), '\0');
    roaring_bitmap_portable_serialize(bm, theirs.data());
    roaring_bitmap_free(bm);
    EXPECT_EQ(*bytes, theirs) << want.size() << " rows from " << want.front();
    auto back = DecodeDeletionFile(BufferFromString(*bytes), DeletionFileType::kBitmap, "x.bin");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, want);
  }
}

TEST(RowIds, Segments) {
  ::lance::table::pb::RowIdSequence seq;
  auto* r = seq.add_segments()->mutable_range();
  r->set_start(10);
  r->set_end(13);
  auto* h = seq.add_segments()->mutable_range_with_holes();
  h->set_start(20);
  h->set_end(25);
  uint16_t holes[] = {1, 3};
  h->mutable_holes()->mutable_u16_array()->set_base(20);
  h->mutable_holes()->mutable_u16_array()->set_offsets(std::string(reinterpret_cast<char*>(holes), 4));
  uint32_t arr[] = {7, 2};
  auto* a = seq.add_segments()->mutable_array()->mutable_u32_array();
  a->set_base(100);
  a->set_offsets(std::string(reinterpret_cast<char*>(arr), 8));
  auto ids = DecodeRowIdSequence(seq.SerializeAsString());
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(*ids, (std::vector<uint64_t>{10, 11, 12, 20, 22, 24, 107, 102}));
  EXPECT_TRUE(DecodeRowIdSequence("\x0a\x05\xff").status().IsCorruption());
  ::lance::table::pb::RowIdSequence huge;
  huge.add_segments()->mutable_range()->set_end(uint64_t{1} << 40);
  EXPECT_TRUE(DecodeRowIdSequence(huge.SerializeAsString()).status().IsCorruption());
}

// The count the decoders check before they allocate equals what decoding yields, for every
// segment kind, holes stored out of order, repeated or outside their range included.
TEST(RowIds, LengthEqualsDecodedSize) {
  std::srand(7);
  for (int round = 0; round < 300; ++round) {
    ::lance::table::pb::RowIdSequence seq;
    const int segments = 1 + std::rand() % 4;
    for (int k = 0; k < segments; ++k) {
      const uint64_t start = static_cast<uint64_t>(std::rand() % 1000);
      const uint64_t len = static_cast<uint64_t>(std::rand() % 40);
      switch (std::rand() % 4) {
        case 0: {
          auto* r = seq.add_segments()->mutable_range();
          r->set_start(start);
          r->set_end(start + len);
          break;
        }
        case 1: {
          auto* h = seq.add_segments()->mutable_range_with_holes();
          h->set_start(start);
          h->set_end(start + len);
          std::vector<uint32_t> holes(static_cast<size_t>(std::rand() % 8));
          for (auto& x : holes) x = static_cast<uint32_t>(start + std::rand() % 50) - 5;
          if (std::rand() % 2) std::sort(holes.begin(), holes.end());
          h->mutable_holes()->mutable_u32_array()->set_offsets(
              std::string(reinterpret_cast<const char*>(holes.data()), holes.size() * 4));
          break;
        }
        case 2: {
          auto* b = seq.add_segments()->mutable_range_with_bitmap();
          b->set_start(start);
          b->set_end(start + len);
          std::string bits((len + 7) / 8, '\0');
          for (auto& c : bits) c = static_cast<char>(std::rand() & 0xff);
          b->set_bitmap(bits);
          break;
        }
        default: {
          std::vector<uint64_t> v(len);
          for (auto& x : v) x = static_cast<uint64_t>(std::rand());
          seq.add_segments()->mutable_array()->mutable_u64_array()->set_values(
              std::string(reinterpret_cast<const char*>(v.data()), v.size() * 8));
        }
      }
    }
    const std::string bytes = seq.SerializeAsString();
    auto ids = DecodeRowIdSequence(bytes);
    auto n = RowIdSequenceLength(bytes);
    ASSERT_TRUE(ids.ok() && n.ok()) << ids.status().ToString() << n.status().ToString();
    EXPECT_EQ(*n, ids->size()) << "round " << round;
  }
}

// A manifest's claimed row count is checked before one version per row is allocated for it
// (the fuzzer's out-of-memory input: a fragment claiming ~2^40 rows).
TEST(RowIds, VersionsOfAnImpossibleFragmentFailBeforeAllocating) {
  FragmentInfo f;
  f.id = 3;
  f.physical_rows = uint64_t{1} << 40;
  auto big = RowVersions(f, true);
  ASSERT_TRUE(big.status().IsCorruption()) << big.status().ToString();
  EXPECT_NE(big.status().message().find("fragment 3: physical_rows is 1099511627776"),
            std::string::npos)
      << big.status().ToString();
  // Under 2^32 rows but runs covering only ten of them.
  f.physical_rows = 3'000'000'000;
  f.inline_created_at_versions = VersionRun(10, 2);
  auto short_runs = ValidateRowVersions(f, true);
  ASSERT_TRUE(short_runs.IsCorruption()) << short_runs.ToString();
  EXPECT_NE(short_runs.message().find("cover 10 rows, the fragment has 3000000000"),
            std::string::npos)
      << short_runs.ToString();
  // Runs that do cover the claim are valid; checking them allocates nothing per row.
  f.inline_created_at_versions = VersionRun(3'000'000'000, 2);
  EXPECT_TRUE(ValidateRowVersions(f, true).ok());
  f.physical_rows = 5;
  f.inline_created_at_versions = VersionRun(5, 2);
  auto small = RowVersions(f, true);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(*small, (std::vector<uint64_t>(5, 2)));
}

}  // namespace
}  // namespace lance::table

// ---------------------------------------------------------------------------------------
// Restore and tags (commits without new data files).

namespace lance::table {
namespace {

TEST(Commit, RestoreMakesANewVersionWithOldContent) {
  const std::string uri = CopyGolden();
  auto v = RestoreVersion(uri, 2);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 5u);
  auto ds = Snapshot::Open(uri);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 5u);
  EXPECT_EQ((*ds)->manifest().writer_library, "lance-cpp");
  EXPECT_EQ((*ds)->manifest().reader_feature_flags, 0u);  // version 2 had no deletions
  // Version 2's content: its fragments, data files and (no) deletion files. (Its rows read
  // back equal lance 12's: src/query/legacy_golden_test.cc reads every golden version.)
  OpenOptions at2;
  at2.version = 2;
  auto v2 = Snapshot::Open(uri, at2);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  const auto& got = (*ds)->manifest().fragments;
  const auto& want = (*v2)->manifest().fragments;
  ASSERT_EQ(got.size(), want.size());
  ASSERT_FALSE(got.empty());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, want[i].id);
    EXPECT_EQ(got[i].physical_rows, want[i].physical_rows);
    EXPECT_FALSE(got[i].deletion.has_value());
    ASSERT_EQ(got[i].files.size(), want[i].files.size());
    for (size_t f = 0; f < got[i].files.size(); ++f) EXPECT_EQ(got[i].files[f].path, want[i].files[f].path);
  }
  EXPECT_EQ((*ds)->schema()->ToString(), (*v2)->schema()->ToString());
  EXPECT_EQ((*ds)->open_stats().lists, 0);  // the hint was advanced
  // A stale hint with an undecodable newer version file: opening the latest lists and fails
  // loudly on it rather than silently skipping it.
  auto sp = io::ObjectStore::FromUri(uri);
  ASSERT_TRUE(sp.ok());
  const std::string v6 = sp->path + "/_versions/" + ManifestFileName(6, ManifestNaming::kV2);
  ASSERT_TRUE(sp->store->Put(v6, "other writer").ok());
  ASSERT_TRUE(sp->store->Put(sp->path + "/_versions/latest_version_hint.json", R"({"version":5})").ok());
  // Open sees the hint is stale (version 6 exists) and lists; the undecodable version 6 is
  // then an error, not silently skipped.
  EXPECT_TRUE(Snapshot::Open(uri).status().IsCorruption());
  ASSERT_TRUE(sp->store->Delete(v6).ok());
  EXPECT_TRUE(RestoreVersion(uri, 99).status().IsNotFound());
}

// The verdicts of lance 12 (its createTag) on these names, checked with the reference: the
// same names are accepted and refused here, for creating and for opening alike.
TEST(Tags, NamesFollowLance12) {
  for (const char* ok : {"a.b", "a-b", "a_b", "-a", "A", "1", "v3tag", "\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac",
                         "a\xd9\xa1" "b", "a\xc2\xb2" "b", "a\xc2\xaa" "b", "\xce\xa9mega"}) {
    EXPECT_TRUE(CheckTagName(ok).ok()) << ok << ": " << CheckTagName(ok).ToString();
  }
  for (const char* bad : {"", ".", "..", ".hidden", "a/b", "a\\b", "a\"b", "a b", "a~b", "a^b", "a:b",
                          "a?b", "a*b", "a[b", "a@{b", "@", "a.lock", "a..b", "ab/", "/ab", "a.",
                          "a\tb", "a%b", "a+b", "a,b", "a'b", "a|b", "a!b", "a\x01" "b",
                          "a\xe2\x82\xac" "b", "a\xe2\x80\x94" "b", "a\xc2\xa0" "b", "a\xc2\xb7" "b",
                          "a\xcc\x81" "b", "a\xe2\x80\x8b" "b", "\xf0\x9f\x98\x80", "\xff", "a\xc3"}) {
    EXPECT_TRUE(CheckTagName(bad).IsInvalidArgument()) << bad;
  }
  const std::string uri = CopyGolden();
  OpenOptions o;
  o.tag = "a b";
  EXPECT_TRUE(Snapshot::Open(uri, o).status().IsInvalidArgument());
  o.tag = "ok.name";
  EXPECT_TRUE(Snapshot::Open(uri, o).status().IsNotFound());
  EXPECT_TRUE(CreateTag(uri, "a.lock", 1).IsInvalidArgument());
  EXPECT_TRUE(DeleteTag(uri, "..").IsInvalidArgument());
  ASSERT_TRUE(CreateTag(uri, "\xe6\x97\xa5\xe6\x9c\xac", 2).ok());
  o.tag = "\xe6\x97\xa5\xe6\x9c\xac";
  auto ds = Snapshot::Open(uri, o);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 2u);
}

TEST(Commit, Tags) {
  const std::string uri = CopyGolden();
  auto tags = ListTags(uri);
  ASSERT_TRUE(tags.ok()) << tags.status().ToString();
  ASSERT_EQ(tags->size(), 1u);
  EXPECT_EQ((*tags)[0].name, "v3tag");
  EXPECT_EQ((*tags)[0].version, 3u);
  ASSERT_TRUE(CreateTag(uri, "first", 1).ok());
  EXPECT_TRUE(CreateTag(uri, "first", 2).IsAlreadyExists());
  EXPECT_TRUE(CreateTag(uri, "nine", 9).IsNotFound());
  EXPECT_TRUE(CreateTag(uri, "../evil", 1).IsInvalidArgument());
  OpenOptions o;
  o.tag = "first";
  auto ds = Snapshot::Open(uri, o);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ((*ds)->version(), 1u);
  tags = ListTags(uri);
  ASSERT_TRUE(tags.ok());
  ASSERT_EQ(tags->size(), 2u);
  EXPECT_EQ((*tags)[0].name, "first");
  ASSERT_TRUE(DeleteTag(uri, "first").ok());
  EXPECT_TRUE(DeleteTag(uri, "first").IsNotFound());
  EXPECT_TRUE(Snapshot::Open(uri, o).status().IsNotFound());
}

}  // namespace
}  // namespace lance::table
