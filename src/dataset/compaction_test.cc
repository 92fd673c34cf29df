// Compaction: the plan (small runs merged, big fragments left alone, deletions
// materialized, groups never mixing index coverage), every row equal afterwards, stable row
// ids and row versions kept, index fragment bitmaps (traded for the new fragments with stable
// row ids; without, kept for the kinds lance 12 does not remap and, for the scalar kinds it
// remaps, new segments with the rows' new addresses, queried against scans), and the
// retryable conflicts with a concurrent delete on a fragment being rewritten or a concurrent
// index over one.
#include "table_fixtures/dataset_ops_test_util.h"

#include <gtest/gtest.h>

#include <cstring>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <fmt/format.h>

#include "lance/index/index_metadata.h"
#include "lance/index/scalar/create.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/table/row_ids.h"
#include "lance/table/versions.h"
#include "table_fixtures/evolve_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

using namespace evolve_test;

CompactionOptions Target(int64_t rows) {
  CompactionOptions o;
  o.target_rows_per_fragment = rows;
  return o;
}

// Commits index metadata (no index files: our reader does not use them) through a CreateIndex
// transaction: index `name` on `id` covering `fragments` (nullopt: no fragment bitmap). An
// RTREE by its details, a kind compaction neither remaps nor trains again (real indexes are:
// RemapsScalarIndexesWithoutStableRowIds).
Status AddIndex(const std::string& uri, const std::string& name,
                const std::optional<std::vector<uint32_t>>& fragments, CommitOptions options = {}) {
  LANCE_ASSIGN_OR_RAISE(auto loc, TableLocation::FromUri(uri));
  LANCE_ASSIGN_OR_RAISE(auto latest, LoadLatestVersion(loc));
  IndexInfo x;
  x.name = name;
  x.uuid = fmt::format("{:08x}-0000-4000-8000-{:012x}", latest->version,
                       std::hash<std::string>{}(name) & 0xffffffffffffULL);
  x.fields = {0};
  x.dataset_version = latest->version;
  if (fragments) {
    x.has_fragment_bitmap = true;
    x.fragment_ids = *fragments;
  }
  x.details_type_url = "/lance.table.RTreeIndexDetails";
  Transaction txn;
  txn.read_version = latest->version;
  txn.operation = Transaction::CreateIndex{{x}, {}, {}};
  return CommitTransaction(loc, std::move(txn), options).status();
}

// The index section of version `v` as stored: the bytes after its length prefix.
std::string RawIndexSection(const TableLocation& loc, const CommittedVersion& v) {
  if (!v.manifest.index_section) return std::string();
  auto bytes = loc.store()->Get(v.path);
  EXPECT_TRUE(bytes.ok());
  if (!bytes.ok()) return std::string();
  const char* p = reinterpret_cast<const char*>((*bytes)->data()) + *v.manifest.index_section;
  uint32_t len = 0;
  std::memcpy(&len, p, 4);
  return std::string(p + 4, len);
}

const IndexInfo* FindIndex(const Snapshot& ds, const std::string& name) {
  for (const auto& x : ds.manifest().indices) {
    if (x.name == name) return &x;
  }
  return nullptr;
}

// Per row of the latest version, in scan order: "id:created-at/last-updated-at".
Result<std::vector<std::string>> RowVersionsById(const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(auto loc, TableLocation::FromUri(uri));
  LANCE_ASSIGN_OR_RAISE(auto latest, LoadLatestVersion(loc));
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(uri));
  std::vector<std::string> out;
  for (size_t i = 0; i < ds->manifest().fragments.size(); ++i) {
    const auto& f = latest->manifest.fragments[i];
    LANCE_ASSIGN_OR_RAISE(auto created, RowVersions(f, true));
    LANCE_ASSIGN_OR_RAISE(auto updated, RowVersions(f, false));
    LANCE_ASSIGN_OR_RAISE(auto deleted, ds->DeletedRows(i));
    query::ScanOptions so;
    so.columns = {"id"};
    uint64_t first = 0;
    for (size_t k = 0; k < i; ++k) first += ds->manifest().fragments[k].num_rows();
    so.offset = static_cast<int64_t>(first);
    so.limit = static_cast<int64_t>(ds->manifest().fragments[i].num_rows());
    LANCE_ASSIGN_OR_RAISE(auto batches, ScanBatches(ds, so));
    std::vector<int64_t> ids;
    for (const auto& b : batches) {
      const int64_t* v = b->column(0)->Values<int64_t>();
      ids.insert(ids.end(), v, v + b->num_rows());
    }
    size_t live = 0;
    for (size_t r = 0; r < created.size(); ++r) {
      if (std::binary_search(deleted.begin(), deleted.end(), static_cast<uint32_t>(r))) continue;
      out.push_back(std::to_string(ids.at(live++)) + ":" + std::to_string(created[r]) + "/" +
                    std::to_string(updated[r]));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Compaction, MergesSmallFragmentsAndMaterializesDeletions) {
  const std::string uri = FreshUri("compact");
  TEST_OK(MakePeople(uri, 20, 2));  // 10 fragments of 2 rows
  TEST_OK(DeleteRows(uri, "id = 3 OR id = 10 OR id = 11").status());
  TEST_ASSIGN(auto before, Rows(uri));
  ASSERT_EQ(before.size(), 17u);
  CompactionOptions o;
  o.target_rows_per_fragment = 8;
  TEST_ASSIGN(CompactionResult r, CompactFiles(uri, o));
  EXPECT_EQ(r.rows_rewritten, 17u);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->version(), r.commit.version);
  // Groups close at 8 live rows: [0..4] 9 rows -> 8 + 1, and so on; no deletion files left.
  uint64_t total = 0;
  for (const auto& f : ds->manifest().fragments) {
    EXPECT_FALSE(f.deletion.has_value());
    EXPECT_LE(f.physical_rows, 8u);
    total += f.physical_rows;
  }
  EXPECT_EQ(total, 17u);
  EXPECT_LT(ds->manifest().fragments.size(), 10u);
  TEST_ASSIGN(auto after, Rows(uri));
  EXPECT_EQ(after, before);
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto sv, LoadVersion(loc, r.commit.version));
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  ASSERT_TRUE(txn->is<Transaction::Rewrite>());
  EXPECT_GE(txn->get<Transaction::Rewrite>()->groups.size(), 1u);

  // Nothing left to do: no commit.
  TEST_ASSIGN(CompactionResult again, CompactFiles(uri, o));
  EXPECT_EQ(again.commit.version, 0u);
  EXPECT_TRUE(CompactFiles(uri, Target(0)).status().IsInvalidArgument());
}

TEST(Compaction, LeavesBigFragmentsAlone) {
  const std::string uri = FreshUri("compact_big");
  TEST_OK(MakePeople(uri, 10, 5));  // 2 fragments of 5
  TEST_ASSIGN(auto ds0, Snapshot::Open(uri));
  CompactionOptions o;
  o.target_rows_per_fragment = 5;
  TEST_ASSIGN(CompactionResult r, CompactFiles(uri, o));
  EXPECT_EQ(r.commit.version, 0u);
  // One deleted row of 5 (20% > 10%): that fragment alone is rewritten.
  TEST_OK(DeleteRows(uri, "id = 7").status());
  TEST_ASSIGN(r, CompactFiles(uri, o));
  EXPECT_EQ(r.fragments_removed, 1u);
  EXPECT_EQ(r.fragments_added, 1u);
  EXPECT_EQ(r.files_removed, 2u);  // its data file and its deletion file
  EXPECT_EQ(r.files_added, 1u);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  ASSERT_EQ(ds->manifest().fragments.size(), 2u);
  EXPECT_EQ(ds->manifest().fragments[0].files[0].path, ds0->manifest().fragments[0].files[0].path);
  EXPECT_EQ(ds->manifest().fragments[1].physical_rows, 4u);
  TEST_ASSIGN(auto rows, Rows(uri));
  std::string json = "[";
  for (int i : {0, 1, 2, 3, 4, 5, 6, 8, 9}) json += (json.size() > 1 ? "," : "") + PersonJson(i, "n" + std::to_string(i), i / 2.0);
  TEST_ASSIGN(auto want, Expected(PeopleSchema(), json + "]"));
  EXPECT_EQ(rows, want);
}

TEST(Compaction, KeepsStableRowIds) {
  const std::string uri = FreshUri("compact_stable");
  TEST_OK(MakePeople(uri, 6, 2, /*stable_row_ids=*/true));
  TEST_OK(DeleteRows(uri, "id = 2").status());
  TEST_OK(CompactFiles(uri, Target(100)).status());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  ASSERT_EQ(ds->manifest().fragments.size(), 1u);
  query::ScanOptions so;
  so.columns = {"id"};
  so.with_row_id = true;
  TEST_ASSIGN(auto rows, Rows(uri, so));
  auto sch = schema({field("id", int64(), false), field("_rowid", uint64())});
  TEST_ASSIGN(auto want, Expected(sch, R"([{"id":0,"_rowid":0},{"id":1,"_rowid":1},{"id":3,"_rowid":3},
                                         {"id":4,"_rowid":4},{"id":5,"_rowid":5}])"));
  EXPECT_EQ(rows, want);
  TEST_ASSIGN(auto ids, ds->RowIds(0));  // the rewritten fragment's sequence: id 2 is gone
  EXPECT_EQ(ids, (std::vector<uint64_t>{0, 1, 3, 4, 5}));
}

TEST(Compaction, ConflictsWithConcurrentDeleteOnRewrittenFragment) {
  const std::string uri = FreshUri("compact_race");
  TEST_OK(MakePeople(uri, 6, 2));
  CompactionOptions o;
  o.target_rows_per_fragment = 100;
  auto handler = std::make_shared<RacingHandler>([&] {
    auto d = DeleteRows(uri, "id = 4");
    ASSERT_TRUE(d.ok()) << d.status().ToString();
  });
  o.commit.handler = handler;
  auto st = CompactFiles(uri, o).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_NE(st.message().find("retryable"), std::string::npos) << st.ToString();
  // The delete stands; a fresh compaction then succeeds with every row intact.
  TEST_ASSIGN(auto before, Rows(uri));
  ASSERT_EQ(before.size(), 5u);
  o.commit.handler = nullptr;
  TEST_OK(CompactFiles(uri, o).status());
  TEST_ASSIGN(auto after, Rows(uri));
  EXPECT_EQ(after, before);
  // An append committed concurrently is compatible: it survives the compaction.
  auto appender = std::make_shared<RacingHandler>([&] {
    auto more = People(50, 1);
    WriteParams p;
    p.mode = WriteMode::kAppend;
    ASSERT_TRUE(WriteDataset(uri, PeopleSchema(), {*more}, p).ok());
  });
  TEST_OK(DeleteRows(uri, "id = 0").status());
  o.commit.handler = appender;
  TEST_ASSIGN(CompactionResult r, CompactFiles(uri, o));
  EXPECT_EQ(r.commit.attempts, 2);
  TEST_ASSIGN(auto rows, Rows(uri));
  ASSERT_EQ(rows.size(), 5u);
  TEST_ASSIGN(auto last, Expected(PeopleSchema(), "[" + PersonJson(50, "n50", 25) + "]"));
  EXPECT_EQ(rows.back(), last[0]);
}

// Without stable row ids the indexes are not remapped: their bitmaps stay as they were (the
// replaced fragments are gone, which readers treat like wholly deleted fragments), and no
// group mixes fragments an index covers with fragments it does not.
TEST(Compaction, KeepsIndexBitmapsWithoutStableRowIds) {
  const std::string uri = FreshUri("compact_index");
  TEST_OK(MakePeople(uri, 20, 2));  // fragments 0..9
  TEST_OK(AddIndex(uri, "id_idx", std::vector<uint32_t>{0, 1, 2, 3, 4}));
  TEST_OK(AddIndex(uri, "old_idx", std::nullopt));
  TEST_OK(DeleteRows(uri, "id = 3 OR id = 12").status());
  TEST_ASSIGN(auto before, Rows(uri));
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto sv0, LoadLatestVersion(loc));
  TEST_ASSIGN(CompactionResult r, CompactFiles(uri, Target(100)));
  EXPECT_EQ(r.fragments_removed, 10u);
  EXPECT_EQ(r.files_removed, 12u);  // 10 data files, 2 deletion files
  EXPECT_EQ(r.files_added, r.fragments_added);
  TEST_ASSIGN(auto sv, LoadVersion(loc, r.commit.version));
  EXPECT_EQ(RawIndexSection(loc, sv), RawIndexSection(loc, *sv0));  // byte for byte
  EXPECT_FALSE(RawIndexSection(loc, sv).empty());
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  ASSERT_EQ(txn->get<Transaction::Rewrite>()->groups.size(), 2u);
  std::vector<std::vector<uint64_t>> groups;
  for (const auto& g : txn->get<Transaction::Rewrite>()->groups) {
    groups.emplace_back();
    for (const auto& f : g.old_fragments) groups.back().push_back(f.id);
  }
  EXPECT_EQ(groups, (std::vector<std::vector<uint64_t>>{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}}));
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  ASSERT_EQ(ds->manifest().indices.size(), 2u);
  const IndexInfo* x = FindIndex(*ds, "id_idx");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->fragment_ids, (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(FindIndex(*ds, "old_idx")->has_fragment_bitmap);
  for (const auto& f : ds->manifest().fragments) EXPECT_GE(f.id, 10u);
  TEST_ASSIGN(auto after, Rows(uri));
  EXPECT_EQ(after, before);
}

// With stable row ids every index's bitmap trades a covered group's old fragments for its
// new ones (lance 12's rule); the group it does not cover stays out of it.
TEST(Compaction, MovesIndexBitmapsToNewFragmentsWithStableRowIds) {
  const std::string uri = FreshUri("compact_index_stable");
  TEST_OK(MakePeople(uri, 20, 2, /*stable_row_ids=*/true));  // fragments 0..9
  TEST_OK(AddIndex(uri, "id_idx", std::vector<uint32_t>{0, 1, 2, 3}));
  TEST_OK(AddIndex(uri, "old_idx", std::nullopt));
  TEST_OK(DeleteRows(uri, "id = 3").status());
  TEST_ASSIGN(auto before, Rows(uri));
  // Target 4 rows: [0, 1] (3 live rows) then fragment 2 closes the group at 5; [3] alone has
  // no deletion so stays; then the uncovered [4, 5] and so on.
  TEST_ASSIGN(CompactionResult r, CompactFiles(uri, Target(4)));
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto sv, LoadVersion(loc, r.commit.version));
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  std::vector<uint32_t> want;
  for (const auto& g : txn->get<Transaction::Rewrite>()->groups) {
    const bool covered = g.old_fragments[0].id <= 3;
    for (const auto& f : g.old_fragments) EXPECT_EQ(f.id <= 3, covered) << f.id;
  }
  // The covered fragments that remain, plus every new fragment holding rows of 0..7.
  for (const auto& f : ds->manifest().fragments) {
    bool covered_rows = false;
    const auto& pf = sv.manifest.fragments[static_cast<size_t>(&f - ds->manifest().fragments.data())];
    TEST_ASSIGN(auto ids, DecodeRowIdSequence(pf.inline_row_ids));
    for (uint64_t id : ids) covered_rows = covered_rows || id < 8;
    if (covered_rows) want.push_back(static_cast<uint32_t>(f.id));
  }
  std::sort(want.begin(), want.end());
  // Fragment 3 (kept) and the two new fragments of group [0, 1, 2] (5 rows: 4 + 1).
  EXPECT_EQ(want, (std::vector<uint32_t>{3, 10, 11}));
  const IndexInfo* x = FindIndex(*ds, "id_idx");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->fragment_ids, want);
  EXPECT_FALSE(FindIndex(*ds, "old_idx")->has_fragment_bitmap);
  TEST_ASSIGN(auto after, Rows(uri));
  EXPECT_EQ(after, before);
}

// lance 12's rule for a compaction racing an index build: retryable when the new index covers
// a fragment being rewritten, compatible otherwise.
TEST(Compaction, ConflictsWithConcurrentIndexOverRewrittenFragment) {
  const std::string uri = FreshUri("compact_index_race");
  TEST_OK(MakePeople(uri, 8, 2));  // fragments 0..3
  TEST_OK(DeleteRows(uri, "id = 1").status());  // fragment 0 is rewritten alone
  CompactionOptions o = Target(2);
  o.commit.handler = std::make_shared<RacingHandler>(
      [&] { ASSERT_TRUE(AddIndex(uri, "far_idx", std::vector<uint32_t>{2, 3}).ok()); });
  TEST_ASSIGN(CompactionResult r, CompactFiles(uri, o));
  EXPECT_EQ(r.commit.attempts, 2);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  ASSERT_NE(FindIndex(*ds, "far_idx"), nullptr);
  EXPECT_EQ(FindIndex(*ds, "far_idx")->fragment_ids, (std::vector<uint32_t>{2, 3}));

  TEST_OK(DeleteRows(uri, "id = 5").status());  // fragment 2 now
  o.commit.handler = std::make_shared<RacingHandler>(
      [&] { ASSERT_TRUE(AddIndex(uri, "near_idx", std::vector<uint32_t>{2}).ok()); });
  auto st = CompactFiles(uri, o).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_NE(st.message().find("retryable"), std::string::npos) << st.ToString();
  o.commit.handler = std::make_shared<RacingHandler>(
      [&] { ASSERT_TRUE(AddIndex(uri, "any_idx", std::nullopt).ok()); });
  st = CompactFiles(uri, o).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
}

// Stable row ids, as lance 12: rows an update moves keep their created-at version and are last
// updated by it; rows created since keep theirs; compaction keeps both.
TEST(Compaction, KeepsRowVersionsAsLance) {
  const std::string uri = FreshUri("compact_versions");
  TEST_OK(MakePeople(uri, 6, 3, /*stable_row_ids=*/true));  // v1
  {
    auto more = People(6, 3);
    ASSERT_TRUE(more.ok());
    WriteParams p;
    p.mode = WriteMode::kAppend;
    TEST_OK(WriteDataset(uri, PeopleSchema(), {*more}, p).status());  // v2
  }
  {  // v3: rows 1 and 7 rewritten (an Update transaction, as an UPDATE makes)
    TEST_ASSIGN(auto rows, RecordBatchFromJSON(PeopleSchema(), R"([{"id":1,"name":"u","score":0.5},
                                                                  {"id":7,"name":"u","score":3.5}])"));
    MergeInsertParams mp;
    mp.on = {"id"};
    mp.when_not_matched = WhenNotMatched::kDoNothing;
    TEST_ASSIGN(auto merged, MergeInsert(uri, PeopleSchema(), {rows}, mp));
    EXPECT_EQ(merged.rows_updated, 2u);
  }
  TEST_OK(DeleteRows(uri, "id = 4").status());                               // v4
  const std::vector<std::string> want = {"0:1/1", "1:1/3", "2:1/1", "3:1/1", "5:1/1",
                                         "6:2/2", "7:2/3", "8:2/2"};
  TEST_ASSIGN(auto v4, RowVersionsById(uri));
  EXPECT_EQ(v4, want);
  TEST_ASSIGN(CompactionResult r, CompactFiles(uri, Target(100)));
  EXPECT_EQ(r.commit.version, 5u);
  TEST_ASSIGN(auto ds, Snapshot::Open(uri));
  EXPECT_EQ(ds->manifest().fragments.size(), 1u);
  TEST_ASSIGN(auto v5, RowVersionsById(uri));
  EXPECT_EQ(v5, want);
  // Adding a column rewrites every row's values: last updated now (v6), created kept;
  // dropping one rewrites nothing.
  TEST_OK(AddColumns(uri, {{"twice", "id * 2"}}).status());
  TEST_OK(DropColumns(uri, {"twice"}).status());
  TEST_ASSIGN(auto v7, RowVersionsById(uri));
  EXPECT_EQ(v7, (std::vector<std::string>{"0:1/6", "1:1/6", "2:1/6", "3:1/6", "5:1/6", "6:2/6",
                                          "7:2/6", "8:2/6"}));
}

// --- Remapping real indexes (no stable row ids): one of every scalar kind, queried through
// the planner (index scans against --no-index scans) and, for LABEL_LIST, through the index. ---

SchemaPtr RemapSchema() {
  return schema({field("id", int64(), false), field("cat", utf8()), field("tags", list(field("item", utf8()))),
                 field("s", utf8()), field("f", float64()), field("i", int32())});
}

// Rows [start, start + n) as one batch: cat null every 11th, tags null every 13th (t0..t4),
// s words for the n-gram index, f and i for the zone map and the bloom filter.
Result<RecordBatchPtr> RemapRows(int start, int n) {
  std::string json = "[";
  for (int id = start; id < start + n; ++id) {
    if (id > start) json += ",";
    const std::string cat = id % 11 == 0 ? "null" : fmt::format("\"c{}\"", id % 5);
    const std::string tags = id % 13 == 0 ? "null" : fmt::format("[\"t{}\",\"t{}\"]", id % 5, (id / 3) % 5);
    json += fmt::format("{{\"id\":{},\"cat\":{},\"tags\":{},\"s\":\"w{}x{}\",\"f\":{}.5,\"i\":{}}}", id, cat, tags,
                        id % 17, id % 3, id % 40, id % 23);
  }
  return RecordBatchFromJSON(RemapSchema(), json + "]");
}

// Every row of `ds` for `filter`, through the indexes or not (canonical JSON lines, scan order),
// and the plan text of the indexed scan.
Result<std::pair<std::vector<std::string>, std::string>> RemapScan(const dataset::Dataset& ds, const std::string& filter,
                                                                   bool use_index) {
  query::ScanOptions o;
  o.filter = filter;
  o.use_index = use_index;
  o.batch_size = kWholeFragment;
  LANCE_ASSIGN_OR_RAISE(auto scanner, ds.NewScan(o));
  std::string plan = scanner.Explain();
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  LANCE_ASSIGN_OR_RAISE(auto lines, JsonLinesOf(batches));
  return std::make_pair(std::move(lines), std::move(plan));
}

// The rows whose tags hold any of `labels` (brute force over a scan with row addresses).
Result<std::vector<uint64_t>> TagsWithAny(const dataset::Dataset& ds, const std::vector<std::string>& labels) {
  query::ScanOptions o;
  o.columns = {"tags"};
  o.with_row_addr = true;
  o.batch_size = kWholeFragment;
  LANCE_ASSIGN_OR_RAISE(auto scanner, ds.NewScan(o));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
  std::vector<uint64_t> out;
  for (const auto& b : batches) {
    const Array& tags = *b->column(0);
    const uint64_t* addr = b->column(1)->Values<uint64_t>();
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      if (tags.IsNull(r)) continue;
      const Array& items = *tags.children[0];
      bool hit = false;
      for (int64_t j = tags.ValueOffset(r); j < tags.ValueOffset(r + 1); ++j) {
        for (const auto& l : labels) hit = hit || (!items.IsNull(j) && items.GetView(j) == l);
      }
      if (hit) out.push_back(addr[r]);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// lance 12's default without stable row ids: the compaction remaps BTREE, BITMAP, LABEL_LIST and
// NGRAM into new segments covering the new fragments (deleted rows dropped, addresses moved),
// after reserving the new fragments' ids; ZONEMAP and BLOOMFILTER are trained again over the
// same coverage (lance 12 leaves them behind). Every filter through the indexes equals the scan
// without them, before and after.
TEST(Compaction, RemapsScalarIndexesWithoutStableRowIds) {
  const std::string uri = FreshUri("compact_remap");
  {
    TEST_ASSIGN(auto rows, RemapRows(0, 400));
    WriteParams p;
    p.max_rows_per_file = 100;  // fragments 0..3
    TEST_OK(WriteDataset(uri, RemapSchema(), {rows}, p).status());
  }
  TEST_ASSIGN(auto ds, dataset::Dataset::Open(uri));
  using index::scalar::ScalarIndexType;
  const std::vector<std::pair<std::string, ScalarIndexType>> kinds = {
      {"id", ScalarIndexType::kBTree},  {"cat", ScalarIndexType::kBitmap}, {"tags", ScalarIndexType::kLabelList},
      {"s", ScalarIndexType::kNGram},   {"f", ScalarIndexType::kZoneMap},  {"i", ScalarIndexType::kBloomFilter}};
  for (const auto& [col, type] : kinds) {
    index::scalar::CreateScalarIndexOptions o;
    o.type = type;
    o.btree_batch_size = 16;  // many pages: the deletions shift their boundaries
    o.rows_per_zone = 16;
    o.bloom_items = 16;
    TEST_OK(ds->CreateScalarIndex(col, o).status());
  }
  {
    TEST_ASSIGN(auto rows, RemapRows(400, 50));
    WriteParams p;
    p.mode = WriteMode::kAppend;
    TEST_OK(WriteDataset(uri, RemapSchema(), {rows}, p).status());  // fragment 4, unindexed
  }
  TEST_ASSIGN(ds, dataset::Dataset::Open(uri));
  TEST_OK(ds->Delete("id % 7 = 3 OR id < 10 OR (id >= 120 AND id < 200)").status());
  const std::vector<std::pair<std::string, std::string>> filters = {
      {"id = 42", "id_idx"},          {"id = 3", "id_idx"},
      {"id >= 100 AND id < 260", "id_idx"}, {"id IN (5, 16, 17, 150, 333, 401, 449)", "id_idx"},
      {"id > 390", "id_idx"},         {"cat = 'c3'", "cat_idx"},
      {"cat IS NULL", "cat_idx"},     {"cat = 'c1' AND id > 300", "cat_idx"},
      {"contains(s, 'w12x')", "s_idx"}, {"s LIKE '%w3x1%'", "s_idx"},
      {"f > 30", "f_idx"},            {"i = 7", "i_idx"}};
  std::map<std::string, std::vector<std::string>> before;
  for (const auto& [filter, name] : filters) {
    TEST_ASSIGN(auto plain, RemapScan(*ds, filter, false));
    TEST_ASSIGN(auto indexed, RemapScan(*ds, filter, true));
    EXPECT_EQ(indexed.first, plain.first) << filter;
    EXPECT_EQ(plain.first.empty(), filter == "id = 3") << filter;  // 3 is deleted
    EXPECT_NE(indexed.second.find("@" + name + "("), std::string::npos) << filter << "\n" << indexed.second;
    before[filter] = plain.first;
  }
  const std::vector<IndexInfo> old_indices = ds->snapshot()->manifest().indices;
  const uint64_t v0 = ds->snapshot()->version();

  // Target 250: [0, 1, 2, 3] (the indexed ones) and [4] (unindexed, with deletions) are rewritten.
  TEST_ASSIGN(CompactionResult r, ds->Compact(Target(250)));
  EXPECT_EQ(r.fragments_removed, 5u);
  EXPECT_EQ(r.commit.version, v0 + 2);  // ReserveFragments, then the Rewrite
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto reserve, LoadVersion(loc, v0 + 1));
  TEST_ASSIGN(auto reserve_txn, LoadTransaction(loc, reserve));
  ASSERT_TRUE(reserve_txn && reserve_txn->get<Transaction::ReserveFragments>());
  TEST_ASSIGN(auto sv, LoadVersion(loc, r.commit.version));
  TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
  ASSERT_TRUE(txn.has_value());
  const auto* rw = txn->get<Transaction::Rewrite>();
  ASSERT_NE(rw, nullptr);
  ASSERT_EQ(rw->groups.size(), 2u);
  std::vector<uint32_t> covered;  // the new fragments of the indexed group: ids reserved
  for (const auto& f : rw->groups[0].new_fragments) covered.push_back(static_cast<uint32_t>(f.id));
  for (const auto& f : rw->groups[1].new_fragments) EXPECT_GT(f.id, 4u);
  ASSERT_FALSE(covered.empty());
  EXPECT_EQ(covered.front(), 5u);
  EXPECT_EQ(rw->rewritten_indices.size(), 6u);

  TEST_ASSIGN(ds, dataset::Dataset::Open(uri));
  const Manifest& m = ds->snapshot()->manifest();
  ASSERT_EQ(m.indices.size(), 6u);
  for (size_t k = 0; k < m.indices.size(); ++k) {
    const IndexInfo& a = old_indices[k];
    const IndexInfo& b = m.indices[k];
    ASSERT_EQ(a.name, b.name);
    EXPECT_NE(b.uuid, a.uuid) << b.name;
    EXPECT_EQ(b.fragment_ids, covered) << b.name;
    EXPECT_EQ(b.fields, a.fields) << b.name;
    EXPECT_EQ(b.dataset_version, a.dataset_version) << b.name;
    EXPECT_EQ(b.created_at_ms, a.created_at_ms) << b.name;
    EXPECT_EQ(b.details_type_url, a.details_type_url) << b.name;
    EXPECT_EQ(b.index_version, a.index_version) << b.name;
    ASSERT_EQ(b.files.size(), a.files.size()) << b.name;
    bool listed = false;
    for (const auto& ri : rw->rewritten_indices) {
      if (ri.old_id != a.uuid) continue;
      listed = true;
      EXPECT_EQ(ri.new_id, b.uuid);
      EXPECT_EQ(ri.new_index_files.size(), b.files.size());
    }
    EXPECT_TRUE(listed) << b.name;
    for (const auto& f : b.files) {
      TEST_ASSIGN(auto meta, loc.store()->Head(index::IndexDirectory(loc, b.uuid) + "/" + f.path));
      EXPECT_EQ(static_cast<uint64_t>(meta.size), f.size_bytes) << b.name << " " << f.path;
    }
  }
  for (const auto& [filter, name] : filters) {
    TEST_ASSIGN(auto plain, RemapScan(*ds, filter, false));
    TEST_ASSIGN(auto indexed, RemapScan(*ds, filter, true));
    EXPECT_EQ(indexed.first, plain.first) << filter;
    std::vector<std::string> a = plain.first, b = before[filter];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << filter;  // the same rows as before the compaction
    // Every index answers: remapped, or (zone map, bloom filter) trained again.
    EXPECT_NE(indexed.second.find("@" + name + "("), std::string::npos) << filter << "\n" << indexed.second;
  }
  // The remapped label list, through the index: every row whose tags hold t1 or t3 (and its
  // null lists), at the rows' new addresses, the unindexed group's fragment left out.
  const IndexInfo* tags = FindIndex(*ds->snapshot(), "tags_idx");
  ASSERT_NE(tags, nullptr);
  TEST_ASSIGN(auto index, index::scalar::OpenScalarIndex(index::OpenIndexStore(loc, *tags), *tags));
  TEST_ASSIGN(auto hits, index->Search(index::scalar::LabelListQuery::HasAny(
                             {index::scalar::ScalarValue::Bytes("t1"), index::scalar::ScalarValue::Bytes("t3")})));
  TEST_ASSIGN(auto want, TagsWithAny(*ds, {"t1", "t3"}));
  std::vector<uint64_t> in_covered;
  for (uint64_t a : want) {
    if (std::binary_search(covered.begin(), covered.end(), static_cast<uint32_t>(a >> 32))) in_covered.push_back(a);
  }
  EXPECT_EQ(hits.rows.ToVector(), in_covered);
  EXPECT_FALSE(in_covered.empty());
  uint64_t null_lists = 0;
  for (uint64_t a : hits.null_rows.ToVector()) {
    EXPECT_TRUE(std::binary_search(covered.begin(), covered.end(), static_cast<uint32_t>(a >> 32)));
    ++null_lists;
  }
  TEST_ASSIGN(uint64_t null_count, ds->CountRows("tags IS NULL AND id < 400"));
  EXPECT_EQ(null_lists, null_count);
}

// An index the compaction remapped that a concurrent commit drops: the Rewrite is a retryable
// conflict (nothing published, its new segment's files removed); compacting again works and
// leaves the table as a plain compaction does.
TEST(Compaction, RemapRacingIndexDropIsRetryable) {
  const std::string uri = FreshUri("compact_remap_drop");
  {
    TEST_ASSIGN(auto rows, RemapRows(0, 200));
    WriteParams p;
    p.max_rows_per_file = 50;
    TEST_OK(WriteDataset(uri, RemapSchema(), {rows}, p).status());
  }
  TEST_ASSIGN(auto ds, dataset::Dataset::Open(uri));
  TEST_ASSIGN(auto created, ds->CreateScalarIndex("id"));
  TEST_OK(ds->Delete("id % 9 = 1").status());
  TEST_ASSIGN(auto before, Rows(uri));
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  TEST_ASSIGN(auto dirs_before, loc.store()->List(loc.Path("_indices") + "/"));
  CompactionOptions o = Target(1000);
  o.commit.handler = std::make_shared<RacingHandler>([&] {
    TEST_ASSIGN(auto other, dataset::Dataset::Open(uri));
    ASSERT_TRUE(other->DropIndex("id_idx").ok());
  });
  auto st = ds->Compact(o).status();
  ASSERT_TRUE(st.IsCommitConflict()) << st.ToString();
  EXPECT_TRUE(st.IsRetryable()) << st.ToString();
  EXPECT_NE(st.message().find(created.info.uuid), std::string::npos) << st.ToString();
  TEST_ASSIGN(auto dirs_after, loc.store()->List(loc.Path("_indices") + "/"));
  EXPECT_EQ(dirs_after.size(), dirs_before.size());  // the remapped segment's files are gone
  TEST_ASSIGN(auto fresh, dataset::Dataset::Open(uri));
  EXPECT_TRUE(fresh->snapshot()->manifest().indices.empty());
  EXPECT_EQ(fresh->snapshot()->manifest().fragments.size(), 4u);
  TEST_ASSIGN(CompactionResult r, fresh->Compact(Target(1000)));
  EXPECT_EQ(r.fragments_removed, 4u);
  TEST_ASSIGN(auto after, Rows(uri));
  EXPECT_EQ(after, before);
}

// IVF_FLAT, IVF_SQ, IVF_PQ and IVF_HNSW_SQ are remapped too (as lance 12 does): every live row of
// the covered fragments, at its new address, in the partition it was in, with the stored vector /
// code it had; the deleted ones gone; the IVF partition table and centroids consistent (the
// HNSW graphs, built anew over the kept rows, load with one node per row).
TEST(Compaction, RemapsIvfIndexesWithoutStableRowIds) {
  const std::string uri = FreshUri("compact_remap_ivf");
  auto vschema = schema({field("id", int64(), false), field("v", fixed_size_list(field("item", float32()), 4))});
  {
    std::string json = "[";
    for (int id = 0; id < 600; ++id) {
      json += fmt::format("{}{{\"id\":{},\"v\":[{},{},{}.5,1]}}", id ? "," : "", id, id % 7, id % 3, id / 10);
    }
    TEST_ASSIGN(auto rows, RecordBatchFromJSON(vschema, json + "]"));
    WriteParams p;
    p.max_rows_per_file = 150;  // fragments 0..3
    TEST_OK(WriteDataset(uri, vschema, {rows}, p).status());
  }
  TEST_ASSIGN(auto ds, dataset::Dataset::Open(uri));
  using index::vector::IndexKind;
  const std::vector<std::pair<std::string, IndexKind>> kinds = {
      {"flat_idx", IndexKind::kIvfFlat}, {"sq_idx", IndexKind::kIvfSq}, {"pq_idx", IndexKind::kIvfPq},
      {"hnsw_idx", IndexKind::kIvfHnswSq}};
  for (const auto& [name, kind] : kinds) {
    index::vector::IvfBuildOptions o;
    o.kind = kind;
    o.name = name;
    o.num_partitions = 3;
    o.num_sub_vectors = 2;
    TEST_OK(ds->CreateVectorIndex("v", o).status());
  }
  TEST_OK(ds->Delete("id % 4 = 1 OR (id >= 200 AND id < 260)").status());
  TEST_ASSIGN(ds, dataset::Dataset::Open(uri));
  const std::vector<IndexInfo> old_indices = ds->snapshot()->manifest().indices;
  TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
  // Old address -> (id) of every live row, and id -> new address after.
  auto addresses = [&](const dataset::Dataset& d) -> Result<std::map<int64_t, uint64_t>> {
    query::ScanOptions o;
    o.columns = {"id"};
    o.with_row_addr = true;
    o.batch_size = kWholeFragment;
    LANCE_ASSIGN_OR_RAISE(auto scanner, d.NewScan(o));
    LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
    LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
    std::map<int64_t, uint64_t> out;
    for (const auto& b : batches) {
      for (int64_t r = 0; r < b->num_rows(); ++r) out[b->column(0)->Values<int64_t>()[r]] = b->column(1)->Values<uint64_t>()[r];
    }
    return out;
  };
  TEST_ASSIGN(auto before, addresses(*ds));
  TEST_ASSIGN(CompactionResult r, ds->Compact(Target(1000)));
  EXPECT_EQ(r.fragments_removed, 4u);
  TEST_ASSIGN(ds, dataset::Dataset::Open(uri));
  TEST_ASSIGN(auto after, addresses(*ds));
  ASSERT_EQ(after.size(), before.size());
  const Manifest& m = ds->snapshot()->manifest();
  ASSERT_EQ(m.fragments.size(), 1u);
  const uint32_t new_fragment = static_cast<uint32_t>(m.fragments[0].id);
  ASSERT_EQ(m.indices.size(), old_indices.size());
  for (size_t k = 0; k < m.indices.size(); ++k) {
    const IndexInfo& a = old_indices[k];
    const IndexInfo& b = m.indices[k];
    EXPECT_NE(b.uuid, a.uuid) << b.name;
    EXPECT_EQ(b.fragment_ids, std::vector<uint32_t>{new_fragment}) << b.name;
    EXPECT_EQ(b.details, a.details) << b.name;
    EXPECT_EQ(b.index_version, a.index_version) << b.name;
    TEST_ASSIGN(auto old_index, index::vector::IvfIndex::Open(loc.store(), index::IndexDirectory(loc, a.uuid)));
    TEST_ASSIGN(auto new_index, index::vector::IvfIndex::Open(loc.store(), index::IndexDirectory(loc, b.uuid)));
    ASSERT_EQ(new_index->kind(), old_index->kind()) << b.name;
    EXPECT_EQ(new_index->ivf().centroids, old_index->ivf().centroids) << b.name;
    // Where each old row went: (partition, vector or code) by its new address.
    std::map<uint64_t, int64_t> id_at;  // old address -> id
    for (const auto& [id, addr] : before) id_at[addr] = id;
    std::map<uint64_t, std::pair<size_t, std::vector<uint8_t>>> want;
    const auto& oivf = old_index->ivf();
    for (size_t p = 0; p < oivf.num_partitions(); ++p) {
      for (uint64_t i = oivf.offsets[p]; i < oivf.offsets[p] + oivf.lengths[p]; ++i) {
        auto it = id_at.find(old_index->row_ids()[i]);
        if (it == id_at.end()) continue;  // deleted
        std::vector<uint8_t> bytes;
        if (old_index->pq()) {
          bytes.assign(old_index->code(i), old_index->code(i) + old_index->pq()->num_sub_vectors);
        } else if (old_index->kind() == IndexKind::kIvfFlat) {
          const auto* v = reinterpret_cast<const uint8_t*>(old_index->stored_vector(i));
          bytes.assign(v, v + 4 * old_index->dim());
        }
        want[after.at(it->second)] = {p, bytes};
      }
    }
    std::map<uint64_t, std::pair<size_t, std::vector<uint8_t>>> got;
    const auto& nivf = new_index->ivf();
    for (size_t p = 0; p < nivf.num_partitions(); ++p) {
      for (uint64_t i = nivf.offsets[p]; i < nivf.offsets[p] + nivf.lengths[p]; ++i) {
        std::vector<uint8_t> bytes;
        if (new_index->pq()) {
          bytes.assign(new_index->code(i), new_index->code(i) + new_index->pq()->num_sub_vectors);
        } else if (new_index->kind() == IndexKind::kIvfFlat) {
          const auto* v = reinterpret_cast<const uint8_t*>(new_index->stored_vector(i));
          bytes.assign(v, v + 4 * new_index->dim());
        }
        got[new_index->row_ids()[i]] = {p, bytes};
      }
    }
    EXPECT_EQ(got.size(), after.size()) << b.name;
    EXPECT_TRUE(got == want) << b.name;
  }
}

// Randomized: for several seeds, random fragment sizes, deletions and compaction targets, two
// compactions in a row (the second remaps what the first remapped, with an append and more
// deletions in between); after each, every filter through the remapped indexes (BTREE with
// small pages, BITMAP, NGRAM) returns exactly the rows of the scan without indexes, in order.
TEST(Compaction, RemapsAcrossRandomCompactions) {
  const std::vector<std::pair<std::string, std::string>> filters = {
      {"id = 17", "id_idx"},       {"id >= 40 AND id < 95", "id_idx"}, {"id IN (1, 2, 3, 150, 299, 333)", "id_idx"},
      {"id > 250", "id_idx"},      {"cat = 'c2'", "cat_idx"},          {"cat IS NULL", "cat_idx"},
      {"contains(s, 'w5x')", "s_idx"}};
  int remaps = 0;  // Rewrites that remapped indexes, over every seed and round
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string uri = FreshUri(fmt::format("compact_remap_random_{}", seed));
    const int n = 200 + static_cast<int>(rng() % 150);
    {
      TEST_ASSIGN(auto rows, RemapRows(0, n));
      WriteParams p;
      p.max_rows_per_file = 20 + static_cast<int64_t>(rng() % 60);
      TEST_OK(WriteDataset(uri, RemapSchema(), {rows}, p).status());
    }
    TEST_ASSIGN(auto ds, dataset::Dataset::Open(uri));
    using index::scalar::ScalarIndexType;
    for (const auto& [col, type] : std::vector<std::pair<std::string, ScalarIndexType>>{
             {"id", ScalarIndexType::kBTree}, {"cat", ScalarIndexType::kBitmap}, {"s", ScalarIndexType::kNGram}}) {
      index::scalar::CreateScalarIndexOptions o;
      o.type = type;
      o.btree_batch_size = 4 + static_cast<int64_t>(rng() % 12);
      TEST_OK(ds->CreateScalarIndex(col, o).status());
    }
    for (int round = 0; round < 2; ++round) {
      if (round == 1) {
        TEST_ASSIGN(auto rows, RemapRows(n, 30));
        WriteParams p;
        p.mode = WriteMode::kAppend;
        TEST_OK(WriteDataset(uri, RemapSchema(), {rows}, p).status());
        TEST_ASSIGN(ds, dataset::Dataset::Open(uri));
      }
      const int k = 3 + static_cast<int>(rng() % 6);
      TEST_OK(ds->Delete(fmt::format("id % {} = {} OR (id > {} AND id < {})", k, rng() % k, rng() % n,
                                     rng() % n)).status());
      TEST_ASSIGN(CompactionResult r, ds->Compact(Target(30 + static_cast<int64_t>(rng() % 200))));
      std::set<uint32_t> replaced;
      if (r.commit.version != 0) {
        TEST_ASSIGN(auto loc, TableLocation::FromUri(uri));
        TEST_ASSIGN(auto sv, LoadVersion(loc, r.commit.version));
        TEST_ASSIGN(auto txn, LoadTransaction(loc, sv));
        ASSERT_TRUE(txn && txn->get<Transaction::Rewrite>());
        for (const auto& g : txn->get<Transaction::Rewrite>()->groups) {
          for (const auto& f : g.old_fragments) replaced.insert(static_cast<uint32_t>(f.id));
        }
        remaps += txn->get<Transaction::Rewrite>()->rewritten_indices.empty() ? 0 : 1;
      }
      TEST_ASSIGN(ds, dataset::Dataset::Open(uri));
      for (const auto& [filter, name] : filters) {
        TEST_ASSIGN(auto plain, RemapScan(*ds, filter, false));
        TEST_ASSIGN(auto indexed, RemapScan(*ds, filter, true));
        EXPECT_EQ(indexed.first, plain.first) << "seed " << seed << " round " << round << ": " << filter;
      }
      // No index lists a fragment a compaction replaced (a wholly deleted one it may keep,
      // as lance 12 does).
      for (const auto& x : ds->snapshot()->manifest().indices) {
        for (uint32_t f : x.fragment_ids) {
          EXPECT_EQ(replaced.count(f), 0u) << "seed " << seed << " round " << round << ": " << x.name << " lists " << f;
        }
      }
    }
  }
  EXPECT_GE(remaps, 8);
}

}  // namespace
}  // namespace lance::table
