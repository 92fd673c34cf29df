// Write-side tests: manifest encoding (round trip, feature flags computed from content),
// deletion file encoding, and the commit machinery (lost races, rebase of appends and of
// deletes on disjoint rows, retryable and incompatible conflicts, both commit handlers,
// stable row ids). The commit tests use manifests only (fragments name data files that are
// never read), so they do not depend on the data file writer.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <unistd.h>

#include "lance/columnar/json.h"
#include "lance/table/commit.h"
#include "lance/table/tags.h"
#include "lance/table/deletion.h"
#include "lance/table/feature_flags.h"
#include "lance/table/row_ids.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"
#include "table_fixtures/status_test_util.h"


namespace lance::table {
namespace {

using evolve_test::DeleteRows;

std::atomic<int> g_write_uris{0};

std::string FreshUri() { return "memory://write_test_" + std::to_string(++g_write_uris) + "/t.lance"; }

Manifest SampleManifest() {
  Manifest m;
  auto field = [](std::string name, int32_t id, int32_t parent, std::string type, bool nullable,
                  std::vector<std::pair<std::string, std::string>> metadata) {
    file::LanceField f;
    f.name = std::move(name);
    f.id = id;
    f.parent_id = parent;
    f.logical_type = std::move(type);
    f.nullable = nullable;
    f.metadata = std::move(metadata);
    return f;
  };
  m.fields = {field("id", 0, -1, "int64", false, {}), field("tags", 1, -1, "list", true, {{"k", "v"}}),
              field("item", 2, 1, "string", true, {})};
  m.schema_metadata = {{"owner", "t"}};
  FragmentInfo f0;
  f0.id = 0;
  auto file = [](std::string path, uint32_t minor, uint64_t size, std::optional<uint32_t> base) {
    DataFileInfo d;
    d.path = std::move(path);
    d.fields = {0, 2};
    d.column_indices = {0, 1};
    d.major = 2;
    d.minor = minor;
    d.size_bytes = size;
    d.base_id = base;
    return d;
  };
  f0.files.push_back(file("a.lance", 2, 1234, std::nullopt));
  f0.physical_rows = 10;
  FragmentInfo f1;
  f1.id = 3;
  f1.files.push_back(file("b.lance", 1, 0, 1));
  f1.physical_rows = 7;
  DeletionFileInfo d;
  d.type = DeletionFileType::kBitmap;
  d.read_version = 4;
  d.id = 99;
  d.num_deleted_rows = 2;
  f1.deletion = d;
  m.fragments = {f0, f1};
  m.version = 5;
  m.timestamp_ns = 1700000000123456789LL;
  m.max_fragment_id = 3;
  m.transaction_file = "4-x.txn";
  m.writer_library = "lance-cpp";
  m.writer_version = "0.1.0";
  m.data_file_format = "lance";
  m.data_storage_version = "2.2";
  return m;
}

TEST(ManifestWriter, RoundTripsThroughDecode) {
  Manifest m = SampleManifest();
  m.config = {{"lance.auto_cleanup", "x"}};
  BasePathInfo base;
  base.id = 1;
  base.name = "b1";
  base.path = "/elsewhere";
  m.base_paths.push_back(base);
  IndexInfo index;
  index.name = "i";
  m.indices.push_back(index);
  const std::string idx_bytes("\x0a\x03\x1a\x01i", 5);  // IndexSection{indices: [{name: "i"}]}
  Transaction txn;
  txn.read_version = 4;
  txn.operation = Transaction::Append{};
  TEST_ASSIGN(const std::string txn_bytes, EncodeTransaction(txn));
  TEST_ASSIGN(std::string bytes, EncodeManifest(m, txn_bytes));
  TEST_ASSIGN(Manifest d, DecodeManifest(bytes, "encoded"));
  ASSERT_EQ(d.fields.size(), 3u);
  EXPECT_EQ(d.fields[1].name, "tags");
  EXPECT_EQ(d.fields[2].parent_id, 1);
  EXPECT_EQ(d.fields[1].metadata, (std::vector<std::pair<std::string, std::string>>{{"k", "v"}}));
  EXPECT_FALSE(d.fields[0].nullable);
  EXPECT_EQ(d.schema->field(1)->type()->ToString(), m.fields.size() == 3 ? "list<item: string>" : "");
  EXPECT_EQ(d.schema_metadata, m.schema_metadata);
  ASSERT_EQ(d.fragments.size(), 2u);
  EXPECT_EQ(d.fragments[1].id, 3u);
  EXPECT_EQ(d.fragments[0].files[0].size_bytes, 1234u);
  EXPECT_EQ(d.fragments[1].files[0].minor, 1u);
  EXPECT_EQ(d.fragments[1].files[0].base_id, std::optional<uint32_t>(1));
  ASSERT_TRUE(d.fragments[1].deletion.has_value());
  EXPECT_EQ(d.fragments[1].deletion->id, 99u);
  EXPECT_EQ(d.fragments[1].deletion->type, DeletionFileType::kBitmap);
  EXPECT_EQ(d.fragments[1].num_rows(), 5u);
  EXPECT_EQ(d.num_rows(), 15u);
  EXPECT_EQ(d.version, 5u);
  EXPECT_EQ(d.timestamp_ns, m.timestamp_ns);
  EXPECT_EQ(d.max_fragment_id, std::optional<uint32_t>(3));
  EXPECT_EQ(d.writer_library, "lance-cpp");
  EXPECT_EQ(d.data_storage_version, "2.2");
  EXPECT_EQ(d.config, m.config);
  ASSERT_EQ(d.base_paths.size(), 1u);
  EXPECT_EQ(d.base_paths[0].path, "/elsewhere");
  // Sections: index first at 0, then the transaction.
  EXPECT_EQ(d.index_section, std::optional<uint64_t>(0));
  EXPECT_EQ(d.num_indices(), 1);
  EXPECT_EQ(d.transaction_section, std::optional<uint64_t>(4 + idx_bytes.size()));
  EXPECT_EQ(bytes.substr(4, idx_bytes.size()), idx_bytes);
  EXPECT_EQ(bytes.substr(8 + idx_bytes.size(), txn_bytes.size()), txn_bytes);
  // Flags from content: deletion files, table config (writer only), base paths.
  EXPECT_EQ(d.reader_feature_flags, kFlagDeletionFiles | kFlagBasePaths);
  EXPECT_EQ(d.writer_feature_flags, kFlagDeletionFiles | kFlagTableConfig | kFlagBasePaths);
}

TEST(ManifestWriter, FeatureFlagsFollowContent) {
  Manifest m = SampleManifest();
  m.fragments[1].deletion.reset();
  EXPECT_EQ(ComputeFeatureFlags(m).reader, 0u);
  EXPECT_EQ(ComputeFeatureFlags(m).writer, 0u);
  m.fragments[0].inline_row_ids = "x";
  EXPECT_EQ(ComputeFeatureFlags(m).reader, kFlagStableRowIds);
  m.fragments[0].overlays.emplace_back();
  EXPECT_EQ(ComputeFeatureFlags(m).writer, kFlagStableRowIds | kFlagUnstableDataOverlayFiles);
  // Input flags are ignored except the sticky ones.
  m.reader_feature_flags = kFlagDeletionFiles | kFlagMixedDataFileVersions | kFlagCoveredIndexMetadata;
  m.writer_feature_flags = kFlagDeletionFiles | kFlagMixedDataFileVersions | kFlagCoveredIndexMetadata;
  const FeatureFlags f = ComputeFeatureFlags(m);
  EXPECT_EQ(f.reader, kFlagStableRowIds | kFlagUnstableDataOverlayFiles | kFlagMixedDataFileVersions |
                          kFlagCoveredIndexMetadata);
  EXPECT_EQ(f.reader, f.writer);
  m.fragments[0].inline_row_ids.clear();
  m.fragments[0].overlays.clear();
  m.config = {{"a", "b"}};
  EXPECT_EQ(ComputeFeatureFlags(m).writer & kFlagTableConfig, kFlagTableConfig);
  EXPECT_EQ(ComputeFeatureFlags(m).reader & kFlagTableConfig, 0u);
}

TEST(ManifestWriter, RejectsMoreDeletedThanStoredRows) {
  Manifest m = SampleManifest();
  m.fragments[1].deletion->num_deleted_rows = 8;
  EXPECT_TRUE(EncodeManifest(m).status().IsInvalidArgument());
}

TEST(DeletionFiles, SmallIsArrowLargeIsBitmap) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{5000}, size_t{5001}, size_t{70000}}) {
    std::vector<uint32_t> rows;
    for (size_t i = 0; i < n; ++i) rows.push_back(static_cast<uint32_t>(i * 3 + 1));
    DeletionFileType type;
    TEST_ASSIGN(std::string bytes, EncodeDeletionFile(rows, &type));
    EXPECT_EQ(type, n <= 5000 ? DeletionFileType::kArrowArray : DeletionFileType::kBitmap) << n;
    TEST_ASSIGN(auto back, DecodeDeletionFile(BufferFromString(bytes), type, "del"));
    EXPECT_EQ(back, rows) << n;
  }
}

// ---------------------------------------------------------------------------------------
// Commit machinery on manifest-only datasets.

FragmentInfo FakeFragment(uint64_t rows, const std::string& name) {
  FragmentInfo f;
  DataFileInfo d;
  d.path = name;
  d.fields = {0};
  d.column_indices = {0};
  d.major = 2;
  d.minor = 2;
  f.files.push_back(d);
  f.physical_rows = rows;
  return f;
}

Transaction CreateRequest(std::vector<uint64_t> rows, bool stable = false) {
  Transaction::Overwrite o;
  file::LanceField id;
  id.name = "id";
  id.id = 0;
  id.parent_id = -1;
  id.logical_type = "int64";
  id.nullable = false;
  o.schema = {id};
  int i = 0;
  for (uint64_t n : rows) o.fragments.push_back(FakeFragment(n, "c" + std::to_string(i++) + ".lance"));
  o.data_storage_version = "2.2";
  o.new_table.enable_stable_row_ids = stable;
  Transaction t;
  t.operation = std::move(o);
  return t;
}

Transaction AppendRequest(uint64_t read_version, uint64_t rows, const std::string& name) {
  Transaction t;
  t.read_version = read_version;
  t.operation = Transaction::Append{{FakeFragment(rows, name)}, {}};
  return t;
}

// A delete of `rows` of fragment `id` (read at `read_version`, no earlier deletions).
Result<Transaction> DeleteRequest(const TableLocation& loc, uint64_t read_version, uint64_t id,
                                  std::vector<uint32_t> rows) {
  LANCE_ASSIGN_OR_RAISE(auto sv, LoadVersion(loc, read_version));
  StagedFiles staged(loc);
  Transaction::Delete del;
  for (const auto& f : sv.manifest.fragments) {
    if (f.id != id) continue;
    LANCE_ASSIGN_OR_RAISE(auto d, WriteDeletionFile(staged, id, read_version, rows));
    FragmentInfo uf = f;
    uf.deletion = d;
    del.updated_fragments.push_back(uf);
    del.rebase.base[id] = std::nullopt;
    del.rebase.deleted_rows[id] = rows;
  }
  Transaction t;
  t.read_version = read_version;
  t.operation = std::move(del);
  return t;
}

std::vector<uint64_t> FragmentIds(const std::string& uri) {
  auto ds = Snapshot::Open(uri);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  std::vector<uint64_t> ids;
  for (const auto& f : (*ds)->manifest().fragments) ids.push_back(f.id);
  return ids;
}

TEST(Commit, CreatesVersionOneWithTransactionFileAndInlineCopy) {
  const std::string uri = FreshUri();
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(CommitInfo c, CommitTransaction(loc, CreateRequest({5, 6}), {}));
  EXPECT_EQ(c.version, 1u);
  EXPECT_EQ(c.attempts, 1);
  TEST_ASSIGN(auto sv, LoadVersion(loc, 1));
  EXPECT_EQ(sv.naming, ManifestNaming::kV2);
  EXPECT_EQ(sv.manifest.fragments[0].id, 0u);
  EXPECT_EQ(sv.manifest.fragments[1].id, 1u);
  EXPECT_EQ(sv.manifest.max_fragment_id, std::optional<uint32_t>(1));
  EXPECT_EQ(sv.manifest.data_storage_version, "2.2");
  EXPECT_EQ(sv.manifest.writer_library, "lance-cpp");
  ASSERT_FALSE(sv.inline_transaction.empty());
  TEST_ASSIGN(BufferPtr txn, loc.store()->Get(loc.Path("_transactions/" + sv.manifest.transaction_file)));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(txn->data()), static_cast<size_t>(txn->size())),
            sv.inline_transaction);
  EXPECT_EQ(sv.manifest.transaction_file.substr(0, 2), "0-");
  // The committed manifest comes back with the commit.
  ASSERT_NE(c.manifest, nullptr);
  EXPECT_EQ(c.manifest->version, 1u);
  EXPECT_EQ(c.manifest->fragments.size(), 2u);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 1u);
  EXPECT_EQ(ds->CountRows(), 11u);
  // A second create from read version 0 loses: Overwrite after Overwrite is retryable.
  auto again = CommitTransaction(loc, CreateRequest({1}), {});
  ASSERT_TRUE(again.status().IsCommitConflict()) << again.status().ToString();
  EXPECT_NE(again.status().message().find("retryable"), std::string::npos);
}

TEST(Commit, ConcurrentAppendsRebaseAndBothLand) {
  const std::string uri = FreshUri();
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_OK(CommitTransaction(loc, CreateRequest({5}), {}).status());
  // Both appends read version 1.
  TEST_ASSIGN(CommitInfo a, CommitTransaction(loc, AppendRequest(1, 3, "a.lance"), {}));
  TEST_ASSIGN(CommitInfo b, CommitTransaction(loc, AppendRequest(1, 4, "b.lance"), {}));
  EXPECT_EQ(a.version, 2u);
  EXPECT_EQ(b.version, 3u);
  EXPECT_EQ(b.rebased, 1);
  EXPECT_EQ(FragmentIds(uri), (std::vector<uint64_t>{0, 1, 2}));
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->CountRows(), 12u);
  EXPECT_EQ(ds->manifest().fragments[2].files[0].path, "b.lance");
}

// A handler that lets a competitor commit first on its first call (a lost race).
class RacingWriteHandler final : public CommitHandler {
 public:
  RacingWriteHandler(std::function<void()> competitor) : competitor_(std::move(competitor)) {}
  Status CommitManifest(io::ObjectStore& store, const std::string& path, std::string_view bytes) override {
    ++calls;
    if (calls == 1) competitor_();
    return PutIfNotExistsCommitHandler()->CommitManifest(store, path, bytes);
  }
  std::string_view name() const override { return "racing"; }
  int calls = 0;

 private:
  std::function<void()> competitor_;
};

TEST(Commit, LostRaceIsRetriedExactlyOnce) {
  for (bool rename : {false, true}) {
    const std::string uri = FreshUri();
    TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
    TEST_OK(CommitTransaction(loc, CreateRequest({5}), {}).status());
    CommitOptions inner;
    if (rename) inner.handler = RenameIfNotExistsCommitHandler();
    auto handler = std::make_shared<RacingWriteHandler>([&] {
      TEST_OK(CommitTransaction(loc, AppendRequest(1, 2, "winner.lance"), inner).status());
    });
    CommitOptions o;
    o.handler = handler;
    TEST_ASSIGN(CommitInfo c, CommitTransaction(loc, AppendRequest(1, 3, "loser.lance"), o));
    EXPECT_EQ(c.attempts, 2);
    EXPECT_EQ(c.version, 3u);
    EXPECT_EQ(handler->calls, 2);
    TEST_ASSIGN(auto ds, Snapshot::Open(uri));
    ASSERT_EQ(ds->manifest().fragments.size(), 3u);
    EXPECT_EQ(ds->manifest().fragments[1].files[0].path, "winner.lance");
    EXPECT_EQ(ds->manifest().fragments[2].files[0].path, "loser.lance");
    EXPECT_EQ(ds->manifest().fragments[2].id, 2u);
    // No staging objects are left behind by the rename handler.
    TEST_ASSIGN(auto listed, loc.store()->List(loc.Path("_versions")));
    for (const auto& obj : listed) {
      EXPECT_TRUE(obj.path.ends_with(".manifest") || obj.path.ends_with(".json")) << obj.path;
    }
  }
}

TEST(Commit, AppendAfterOverwriteIsIncompatible) {
  const std::string uri = FreshUri();
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_OK(CommitTransaction(loc, CreateRequest({5}), {}).status());
  auto ow = CreateRequest({7});
  ow.read_version = 1;
  TEST_OK(CommitTransaction(loc, std::move(ow), {}).status());
  auto st = CommitTransaction(loc, AppendRequest(1, 3, "late.lance"), {}).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_NE(st.message().find("incompatible"), std::string::npos) << st.ToString();
  // Overwrite ids continue after the old ones (as lance 12 does).
  EXPECT_EQ(FragmentIds(uri), (std::vector<uint64_t>{1}));
}

TEST(Commit, DeletesOfDisjointRowsMergeDeletionVectors) {
  const std::string uri = FreshUri();
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_OK(CommitTransaction(loc, CreateRequest({10, 4}), {}).status());
  TEST_ASSIGN(auto d1, DeleteRequest(loc, 1, 0, {1, 2}));
  TEST_ASSIGN(auto d2, DeleteRequest(loc, 1, 0, {5, 9}));
  TEST_ASSIGN(auto d3, DeleteRequest(loc, 1, 1, {0}));
  TEST_OK(CommitTransaction(loc, std::move(d1), {}).status());
  TEST_ASSIGN(CommitInfo c2, CommitTransaction(loc, std::move(d2), {}));
  TEST_ASSIGN(CommitInfo c3, CommitTransaction(loc, std::move(d3), {}));
  EXPECT_EQ(c2.version, 3u);
  EXPECT_EQ(c3.version, 4u);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  TEST_ASSIGN(auto rows0, ds->DeletedRows(0));
  EXPECT_EQ(rows0, (std::vector<uint32_t>{1, 2, 5, 9}));
  EXPECT_EQ(ds->manifest().fragments[0].deletion->read_version, 2u);  // rebased on version 2
  TEST_ASSIGN(auto rows1, ds->DeletedRows(1));
  EXPECT_EQ(rows1, (std::vector<uint32_t>{0}));
  EXPECT_EQ(ds->CountRows(), 9u);
  EXPECT_EQ(ds->manifest().reader_feature_flags, kFlagDeletionFiles);
}

TEST(Commit, DeletesOfTheSameRowConflict) {
  const std::string uri = FreshUri();
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_OK(CommitTransaction(loc, CreateRequest({10}), {}).status());
  TEST_ASSIGN(auto d1, DeleteRequest(loc, 1, 0, {1, 2}));
  TEST_ASSIGN(auto d2, DeleteRequest(loc, 1, 0, {2, 3}));
  TEST_OK(CommitTransaction(loc, std::move(d1), {}).status());
  auto st = CommitTransaction(loc, std::move(d2), {}).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_NE(st.message().find("retryable"), std::string::npos);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 2u);
  EXPECT_EQ(ds->CountRows(), 8u);
}

TEST(Commit, DeleteAfterAppendKeepsTheAppend) {
  const std::string uri = FreshUri();
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_OK(CommitTransaction(loc, CreateRequest({10}), {}).status());
  TEST_ASSIGN(auto d, DeleteRequest(loc, 1, 0, {0}));
  TEST_OK(CommitTransaction(loc, AppendRequest(1, 3, "x.lance"), {}).status());
  TEST_OK(CommitTransaction(loc, std::move(d), {}).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 3u);
  EXPECT_EQ(ds->CountRows(), 12u);
  EXPECT_EQ(ds->manifest().fragments.size(), 2u);
}

TEST(Commit, StableRowIdsContinueAcrossAppends) {
  const std::string uri = FreshUri();
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_OK(CommitTransaction(loc, CreateRequest({5}, true), {}).status());
  TEST_OK(CommitTransaction(loc, AppendRequest(1, 3, "a.lance"), {}).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->manifest().next_row_id, 8u);
  EXPECT_EQ(ds->manifest().reader_feature_flags, kFlagStableRowIds);
  TEST_ASSIGN(auto ids, ds->RowIds(1));
  EXPECT_EQ(ids, (std::vector<uint64_t>{5, 6, 7}));
  TEST_ASSIGN(auto sv, LoadVersion(loc, 2));
  TEST_ASSIGN(auto created, RowVersions(sv.manifest.fragments[1], true));
  EXPECT_EQ(created, (std::vector<uint64_t>{2, 2, 2}));
}

TEST(Commit, DeleteOnMissingDatasetIsNotFound) {
  TEST_ASSIGN(auto loc, TableLocation::FromUri(FreshUri()));
  Transaction r;
  r.operation = Transaction::Delete{};
  EXPECT_TRUE(CommitTransaction(loc, std::move(r), {}).status().IsNotFound());
}

}  // namespace
}  // namespace lance::table

namespace lance::table {
namespace {

// ---------------------------------------------------------------------------------------
// WriteDataset / DeleteRows through the data file writer, on the memory store.

SchemaPtr PeopleSchema() {
  return schema({field("id", int64(), false), field("name", utf8()),
                 field("tags", list(utf8())),
                 field("pos", struct_({field("x", float64()), field("y", float64())}))});
}

RecordBatchPtr People(int64_t start, int64_t n) {
  std::string text;
  for (int64_t i = start; i < start + n; ++i) {
    text += "{\"id\":" + std::to_string(i) + ",\"name\":" +
            (i % 4 == 0 ? std::string("null") : "\"p" + std::to_string(i) + "\"") +
            ",\"tags\":[\"a\",\"t" + std::to_string(i % 3) + "\"],\"pos\":{\"x\":" +
            std::to_string(i) + ".5,\"y\":null}}\n";
  }
  auto b = ReadJsonLines(text, PeopleSchema());
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return *b;
}

std::vector<int64_t> ScanIds(const std::string& uri) {
  std::vector<int64_t> ids;
  auto ds = Snapshot::Open(uri);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  query::ScanOptions o;
  o.columns = {"id"};
  auto batches = ScanBatches((*ds), o);
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  for (const auto& b : *batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) ids.push_back(b->column(0)->Values<int64_t>()[i]);
  }
  return ids;
}

TEST(WriteDataset, CreateAppendOverwriteAndRead) {
  for (const char* dsv : {"2.1", "2.2"}) {
    const std::string uri = FreshUri();
    WriteParams p;
    p.data_storage_version = dsv;
    p.max_rows_per_file = 40;
    TEST_ASSIGN(WriteResult w, WriteDataset(uri, PeopleSchema(), {People(0, 50), People(50, 50)}, p));
    EXPECT_EQ(w.commit.version, 1u);
    EXPECT_EQ(w.rows_written, 100u);
    EXPECT_EQ(w.fragment_ids, (std::vector<uint64_t>{0, 1, 2}));
    TEST_ASSIGN(auto ds, Snapshot::Open(uri));
    EXPECT_EQ(ds->manifest().data_storage_version, dsv);
    EXPECT_EQ(ds->manifest().fragments[2].physical_rows, 20u);
    // Leaf field ids only, in column order; file sizes recorded.
    EXPECT_EQ(ds->manifest().fragments[0].files[0].fields, (std::vector<int32_t>{0, 1, 3, 5, 6}));
    EXPECT_GT(ds->manifest().fragments[0].files[0].size_bytes, 0u);
    TEST_ASSIGN(auto all, ScanBatches(ds));
    ASSERT_EQ(all.size(), 3u);
    EXPECT_TRUE(all[1]->Equals(*People(40, 40)->Slice(0, 40))) << all[1]->ToString();

    EXPECT_TRUE(WriteDataset(uri, PeopleSchema(), {People(0, 1)}, p).status().IsAlreadyExists());
    p.mode = WriteMode::kAppend;
    p.data_storage_version.clear();
    TEST_ASSIGN(w, WriteDataset(uri, PeopleSchema(), {People(100, 10)}, p));
    EXPECT_EQ(w.fragment_ids, (std::vector<uint64_t>{3}));
    auto wrong = schema({field("id", int64(), false), field("name", utf8())});
    EXPECT_TRUE(WriteDataset(uri, wrong, {}, p).status().IsInvalidArgument());
    // A null id (non-nullable in the dataset) is refused.
    auto nullable_id = schema({field("id", int64()), field("name", utf8()), field("tags", list(utf8())),
                               field("pos", struct_({field("x", float64()), field("y", float64())}))});
    TEST_ASSIGN(auto with_null, ReadJsonLines("{\"id\":null}\n", nullable_id));
    EXPECT_TRUE(WriteDataset(uri, nullable_id, {with_null}, p).status().IsInvalidArgument());
    std::vector<int64_t> want;
    for (int64_t i = 0; i < 110; ++i) want.push_back(i);
    EXPECT_EQ(ScanIds(uri), want);

    TEST_ASSIGN(DeleteResult d, DeleteRows(uri, "id % 10 = 3 OR id < 40"));
    EXPECT_EQ(d.num_deleted_rows, 47u);
    EXPECT_EQ(d.removed_fragment_ids, (std::vector<uint64_t>{0}));
    EXPECT_EQ(d.commit.version, 3u);
    TEST_ASSIGN(DeleteResult none, DeleteRows(uri, "id > 1000"));
    EXPECT_EQ(none.num_deleted_rows, 0u);
    EXPECT_EQ(none.commit.version, 4u);  // a version of no change, as lance 12 commits
    EXPECT_TRUE(DeleteRows(uri, "nope = 1").status().IsInvalidArgument());
    want.clear();
    for (int64_t i = 40; i < 110; ++i) {
      if (i % 10 != 3) want.push_back(i);
    }
    EXPECT_EQ(ScanIds(uri), want);
    TEST_ASSIGN(ds, Snapshot::Open(uri));
    EXPECT_EQ(ds->manifest().fragments.size(), 3u);
    EXPECT_EQ(ds->manifest().reader_feature_flags, kFlagDeletionFiles);

    p.mode = WriteMode::kOverwrite;
    TEST_ASSIGN(w, WriteDataset(uri, PeopleSchema(), {People(500, 5)}, p));
    EXPECT_EQ(w.fragment_ids, (std::vector<uint64_t>{4}));
    EXPECT_EQ(ScanIds(uri), (std::vector<int64_t>{500, 501, 502, 503, 504}));
    TEST_ASSIGN(ds, Snapshot::Open(uri));
    EXPECT_EQ(ds->manifest().reader_feature_flags, 0u);
    EXPECT_EQ(ds->version(), 5u);
  }
}

TEST(WriteDataset, AppendMatchesColumnsByName) {
  const std::string uri = FreshUri();
  TEST_OK(WriteDataset(uri, PeopleSchema(), {People(0, 3)}).status());
  // The same columns in another order.
  const RecordBatchPtr more = People(3, 2);
  auto reordered = schema({PeopleSchema()->field(3), PeopleSchema()->field(1),
                           PeopleSchema()->field(0), PeopleSchema()->field(2)});
  auto batch = std::make_shared<RecordBatch>(
      reordered, more->num_rows(),
      std::vector<ArrayPtr>{more->column(3), more->column(1), more->column(0), more->column(2)});
  WriteParams p;
  p.mode = WriteMode::kAppend;
  TEST_OK(WriteDataset(uri, reordered, {batch}, p).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  TEST_ASSIGN(auto all, ScanBatches(ds));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(all[1]->Equals(*more)) << all[1]->ToString();
  // A missing and an extra column are named, with their types.
  auto wrong = schema({field("id", int64(), false), field("name", utf8()), field("tags", list(utf8())),
                       field("extra", int16())});
  auto st = WriteDataset(uri, wrong, {}, p).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("missing 'pos' (struct)"), std::string::npos) << st.ToString();
  EXPECT_NE(st.message().find("not in the dataset 'extra' (int16)"), std::string::npos)
      << st.ToString();
  // Same names, another type: the flattened comparison names the field.
  auto retyped = schema({field("id", int64(), false), field("name", int32()), field("tags", list(utf8())),
                         field("pos", struct_({field("x", float64()), field("y", float64())}))});
  st = WriteDataset(uri, retyped, {}, p).status();
  ASSERT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("'name'"), std::string::npos) << st.ToString();
}

TEST(WriteDataset, MapNeedsStorage22AndStableRowIds) {
  auto s = schema({field("m", map(utf8(), int32()))});
  WriteParams p;
  p.data_storage_version = "2.1";
  auto st = WriteDataset(FreshUri(), s, {}, p).status();
  EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
  // 2.0 and legacy datasets are written (as lance 12 does) but hold no maps either.
  p.data_storage_version = "2.0";
  EXPECT_TRUE(WriteDataset(FreshUri(), s, {}, p).status().IsNotSupported());
  EXPECT_TRUE(WriteDataset(FreshUri(), PeopleSchema(), {}, p).ok());
  p.data_storage_version = "1.5";
  EXPECT_TRUE(WriteDataset(FreshUri(), PeopleSchema(), {}, p).status().IsNotSupported());

  const std::string uri = FreshUri();
  WriteParams q;
  q.enable_stable_row_ids = true;
  q.max_rows_per_file = 8;
  TEST_OK(WriteDataset(uri, PeopleSchema(), {People(0, 10)}, q).status());
  q.mode = WriteMode::kAppend;
  TEST_OK(WriteDataset(uri, PeopleSchema(), {People(10, 3)}, q).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->manifest().next_row_id, 13u);
  TEST_ASSIGN(auto ids, ds->RowIds(2));
  EXPECT_EQ(ids, (std::vector<uint64_t>{10, 11, 12}));
  TEST_OK(DeleteRowAddresses(uri, {(uint64_t{1} << 32) | 0}).status());
  TEST_ASSIGN(ds, Snapshot::Open(uri));
  query::ScanOptions o;
  o.columns = {"id"};
  o.with_row_id = true;
  TEST_ASSIGN(auto rows, ScanBatches(ds, o));
  EXPECT_EQ(rows[1]->column(1)->Values<uint64_t>()[0], 9u);  // row 8 deleted, ids kept
  EXPECT_EQ(ds->CountRows(), 12u);
}

// ---------------------------------------------------------------------------------------
// Local directories: files synced together, the manifest staged then renamed
// (durable_files.h), and a commit that fails for good removing the files it wrote.

// A fresh local directory for one test (removed first).
std::string LocalDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("lance_write_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

// Names of the files in `dir` (none when it does not exist), sorted.
std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

// The data files every version of `uri` references.
std::set<std::string> ReferencedDataFiles(const std::string& uri) {
  std::set<std::string> out;
  auto latest = Snapshot::Open(uri);
  EXPECT_TRUE(latest.ok()) << latest.status().ToString();
  for (uint64_t v = 1; v <= (*latest)->version(); ++v) {
    OpenOptions o;
    o.version = v;
    auto ds = Snapshot::Open(uri, o);
    EXPECT_TRUE(ds.ok()) << ds.status().ToString();
    for (const auto& f : (*ds)->manifest().fragments) {
      for (const auto& df : f.files) out.insert(df.path);
    }
  }
  return out;
}

TEST(LocalCommit, EveryVersionReadsBackAndNothingIsLeftStaged) {
  const std::string uri = LocalDir("staged");
  WriteParams p;
  p.max_rows_per_file = 30;
  TEST_OK(WriteDataset(uri, PeopleSchema(), {People(0, 50)}, p).status());
  p.mode = WriteMode::kAppend;
  TEST_OK(WriteDataset(uri, PeopleSchema(), {People(50, 10)}, p).status());
  TEST_ASSIGN(DeleteResult d, DeleteRows(uri, "id % 7 = 0"));
  EXPECT_EQ(d.num_deleted_rows, 9u);
  EXPECT_EQ(d.commit.version, 3u);
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 60; ++i) {
    if (i % 7 != 0) want.push_back(i);
  }
  EXPECT_EQ(ScanIds(uri), want);
  // Three manifests and the hint; no staging file, no temp file.
  const auto versions = FilesIn(uri + "/_versions");
  ASSERT_EQ(versions.size(), 4u) << ::testing::PrintToString(versions);
  for (const auto& name : versions) {
    EXPECT_TRUE(name.ends_with(".manifest") || name == "latest_version_hint.json") << name;
  }
  EXPECT_EQ(FilesIn(uri + "/_transactions").size(), 3u);
  EXPECT_EQ(FilesIn(uri + "/_deletions").size(), 3u);  // each fragment lost rows
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->open_stats().lists, 0);  // the hint named the latest version
  std::filesystem::remove_all(uri);
}

TEST(LocalCommit, RacingWritersEachLandExactlyOnce) {
  const std::string uri = LocalDir("racing");
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_OK(CommitTransaction(loc, CreateRequest({5}), {}).status());
  constexpr int kPerThread = 15;
  std::vector<std::thread> threads;
  std::atomic<int> lost{0};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto l = TableLocation::FromUri(uri);
        ASSERT_TRUE(l.ok());
        auto c = CommitTransaction(*l, AppendRequest(1, 1, fmt::format("t{}-{}.lance", t, i)), {});
        ASSERT_TRUE(c.ok()) << c.status().ToString();
        lost += c->attempts - 1;
      }
    });
  }
  for (auto& th : threads) th.join();
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), 1u + 2 * kPerThread);
  std::multiset<std::string> names;
  for (const auto& f : ds->manifest().fragments) names.insert(f.files[0].path);
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      EXPECT_EQ(names.count(fmt::format("t{}-{}.lance", t, i)), 1u) << t << " " << i;
    }
  }
  for (const auto& name : FilesIn(uri + "/_versions")) {
    EXPECT_TRUE(name.ends_with(".manifest") || name == "latest_version_hint.json") << name;
  }
  std::filesystem::remove_all(uri);
}

TEST(FailedCommit, RemovesTheFilesItWrote) {
  for (bool local : {true, false}) {
    const std::string uri = local ? LocalDir("failed") : FreshUri();
    WriteParams p;
    TEST_OK(WriteDataset(uri, PeopleSchema(), {People(0, 20)}, p).status());
    // An append that loses its race to an overwrite: incompatible, nothing of it may remain.
    auto handler = std::make_shared<RacingWriteHandler>([&] {
      WriteParams o;
      o.mode = WriteMode::kOverwrite;
      TEST_OK(WriteDataset(uri, PeopleSchema(), {People(100, 5)}, o).status());
    });
    p.mode = WriteMode::kAppend;
    p.commit.handler = handler;
    auto st = WriteDataset(uri, PeopleSchema(), {People(20, 20)}, p).status();
    ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
    EXPECT_NE(st.message().find("incompatible"), std::string::npos) << st.ToString();
    const std::set<std::string> referenced = ReferencedDataFiles(uri);
    EXPECT_EQ(referenced.size(), 2u);
    TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
    TEST_ASSIGN(auto data, loc.store()->List(loc.Path("data")));
    std::set<std::string> present;
    for (const auto& obj : data) present.insert(obj.path.substr(obj.path.rfind('/') + 1));
    EXPECT_EQ(present, referenced);
    // Its transaction file went too: one per committed version.
    TEST_ASSIGN(auto txns, loc.store()->List(loc.Path("_transactions")));
    EXPECT_EQ(txns.size(), 2u);
    // A delete that conflicts for good (the dataset was overwritten since it read) leaves
    // no deletion file either.
    TEST_ASSIGN(auto ds, Snapshot::Open(uri));
    auto handler2 = std::make_shared<RacingWriteHandler>([&] {
      WriteParams o;
      o.mode = WriteMode::kOverwrite;
      TEST_OK(WriteDataset(uri, PeopleSchema(), {People(200, 5)}, o).status());
    });
    CommitOptions co;
    co.handler = handler2;
    const uint64_t first = ds->manifest().fragments[0].id << 32;
    st = DeleteRowAddresses(uri, {first, first + 1}, ds->version(), "", co).status();
    ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
    auto dels = loc.store()->List(loc.Path("_deletions"));
    EXPECT_TRUE(!dels.ok() || dels->empty()) << (dels.ok() ? dels->size() : 0) << " "
                                             << (dels.ok() && !dels->empty() ? (*dels)[0].path : "");
    if (local) std::filesystem::remove_all(uri);
  }
}

TEST(Commit, RestoreRetriesALostRaceAndAnAppendAfterItIsIncompatible) {
  for (bool local : {false, true}) {
    const std::string uri = local ? LocalDir("restore") : FreshUri();
    TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
    TEST_OK(CommitTransaction(loc, CreateRequest({5}), {}).status());         // v1
    TEST_OK(CommitTransaction(loc, AppendRequest(1, 2, "b.lance"), {}).status());  // v2
    // The restore of v1 loses its first race to an append (v3), re-reads and lands as v4.
    auto handler = std::make_shared<RacingWriteHandler>([&] {
      TEST_OK(CommitTransaction(loc, AppendRequest(2, 3, "c.lance"), {}).status());
    });
    CommitOptions o;
    o.handler = handler;
    TEST_ASSIGN(uint64_t v, RestoreVersion(uri, 1, o));
    EXPECT_EQ(v, 4u);
    EXPECT_EQ(handler->calls, 2);
    TEST_ASSIGN(auto ds, Snapshot::Open(uri));
    EXPECT_EQ(ds->version(), 4u);
    ASSERT_EQ(ds->manifest().fragments.size(), 1u);
    EXPECT_EQ(ds->CountRows(), 5u);
    // Fragment ids are not reused: the next append gets 3 (0, 1, 2 were taken).
    EXPECT_EQ(ds->manifest().max_fragment_id, std::optional<uint32_t>(2));
    TEST_ASSIGN(auto sv, LoadVersion(loc, 4));
    TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
    ASSERT_TRUE(txn.has_value() && txn->is<Transaction::Restore>());
    EXPECT_EQ(txn->get<Transaction::Restore>()->version, 1u);
    EXPECT_EQ(txn->read_version, 2u);
    // An append read before the restore cannot land after it.
    auto st = CommitTransaction(loc, AppendRequest(3, 1, "late.lance"), {}).status();
    ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
    EXPECT_NE(st.message().find("incompatible"), std::string::npos) << st.ToString();
    TEST_OK(CommitTransaction(loc, AppendRequest(4, 1, "d.lance"), {}).status());
    EXPECT_EQ(FragmentIds(uri), (std::vector<uint64_t>{0, 3}));
    EXPECT_TRUE(RestoreVersion(uri, 42).status().IsNotFound());
    if (local) std::filesystem::remove_all(uri);
  }
}

}  // namespace
}  // namespace lance::table
