// Dataset::OptimizeIndices: every scalar index type retrained over its old fragments and the
// appended ones into one new segment with the parameters it was built with (page size, zone
// size, bloom items and rate, tokenizer with custom stop words), deletions in the old
// fragments honoured, filters through the optimized indexes equal to a scan without them and
// planned without an unindexed fragment; a second optimize does nothing; lance 12's own
// indexes (the golden table) are optimized the same way, its IVF_PQ vector index merged; unknown
// names and a lost race are errors that name the index.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/columnar/json.h"
#include "lance/dataset/dataset.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/optimize.h"
#include "lance/query/index_training.h"
#include "lance/table/indexes.h"

namespace lance::dataset {
namespace {

namespace fs = std::filesystem;
using index::scalar::CreateScalarIndexOptions;
using index::scalar::ScalarIndexType;

std::string FreshDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("lance_optimize_test_{}_{}", name, ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

SchemaPtr TestSchema() {
  return schema({field("id", int64(), false), field("s", utf8()), field("f", float64()),
                 field("tags", list(field("item", utf8())))});
}

// Rows [start, start + n): s cycles over 23 words (null every 31st row), f = id / 4.
std::unique_ptr<RecordBatchReader> Rows(int64_t start, int64_t n) {
  static const char* kWords[] = {"apple", "kiwi", "the", "banana", "cherry", "grape", "melon", "lemon",
                                 "mango", "peach", "pear", "plum", "fig", "date", "lime", "olive",
                                 "apple pie", "kiwi tart", "a fig", "the pear", "cherry jam", "melon ball", "and"};
  std::string text;
  for (int64_t i = start; i < start + n; ++i) {
    const std::string s = i % 31 == 0 ? "null" : fmt::format("\"{} {}\"", kWords[i % 23], i % 7);
    text += fmt::format("{{\"id\":{},\"s\":{},\"f\":{},\"tags\":[\"t{}\",\"t{}\"]}}\n", i, s, i / 4.0, i % 5,
                        (i / 3) % 6);
  }
  auto batch = ReadJsonLines(text, TestSchema());
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  std::vector<RecordBatchPtr> batches;
  if (batch.ok()) batches.push_back(*batch);
  return std::make_unique<VectorRecordBatchReader>(TestSchema(), std::move(batches));
}

// The ids `filter` selects, in id order, through the indexes or not; `plan` gets the plan.
std::vector<int64_t> Ids(const Dataset& ds, const std::string& filter, bool use_index, std::string* plan = nullptr) {
  query::ScanOptions o;
  o.filter = filter;
  o.columns = {"id"};
  o.use_index = use_index;
  auto scanner = ds.NewScan(o);
  EXPECT_TRUE(scanner.ok()) << filter << ": " << scanner.status().ToString();
  std::vector<int64_t> out;
  if (!scanner.ok()) return out;
  if (plan) *plan = scanner->Explain();
  auto reader = scanner->ToReader();
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  while (reader.ok()) {
    auto b = (*reader)->Next();
    EXPECT_TRUE(b.ok()) << filter << ": " << b.status().ToString();
    if (!b.ok() || !*b) break;
    const int64_t* v = (*b)->column(0)->Values<int64_t>();
    out.insert(out.end(), v, v + (*b)->num_rows());
  }
  std::sort(out.begin(), out.end());
  return out;
}

const table::IndexInfo& Only(const Dataset& ds, const std::string& name) {
  const auto segs = index::FindIndexSegments(ds.snapshot()->manifest(), name);
  EXPECT_EQ(segs.size(), 1u) << name;
  return *segs.at(0);
}

TEST(OptimizeIndices, EveryScalarTypeCoversAppendedRowsWithItsParameters) {
  const std::string uri = FreshDir("all") + "/t.lance";
  auto first = Rows(0, 300);
  auto ds = Dataset::Write(uri, *first);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();

  struct Spec {
    std::string column;
    ScalarIndexType type;
  };
  const std::vector<Spec> specs = {{"id", ScalarIndexType::kBTree},      {"s", ScalarIndexType::kBitmap},
                                   {"tags", ScalarIndexType::kLabelList}, {"f", ScalarIndexType::kZoneMap},
                                   {"s", ScalarIndexType::kBloomFilter},  {"s", ScalarIndexType::kNGram},
                                   {"s", ScalarIndexType::kInverted},     {"s", ScalarIndexType::kFm}};
  std::vector<std::string> names;
  for (const Spec& sp : specs) {
    CreateScalarIndexOptions o;
    o.type = sp.type;
    o.name = fmt::format("{}_{}", sp.column, index::scalar::ScalarIndexTypeName(sp.type));
    o.btree_batch_size = 64;
    o.rows_per_zone = 50;
    o.bloom_items = 100;
    o.bloom_probability = 0.01;
    o.fts = index::fts::TokenizerOptions::Defaults();
    o.fts.custom_stop_words = std::vector<std::string>{"kiwi"};
    o.fts.with_position = true;
    auto c = (*ds)->CreateScalarIndex(sp.column, o);
    ASSERT_TRUE(c.ok()) << o.name << ": " << c.status().ToString();
    names.push_back(o.name);
  }
  std::vector<CreateScalarIndexOptions> before;
  for (const auto& n : names) {
    auto o = index::scalar::OptionsOfIndex(*(*ds)->snapshot(), Only(**ds, n));
    ASSERT_TRUE(o.ok()) << n << ": " << o.status().ToString();
    before.push_back(*o);
  }
  auto more = Rows(300, 200);
  ASSERT_TRUE((*ds)->Append(*more).ok());
  ASSERT_TRUE((*ds)->Delete("id % 17 = 3").ok());
  const uint64_t live = 500 - (500 + 16) / 17;
  ASSERT_EQ(*(*ds)->CountRows(), live);

  const uint64_t v0 = (*ds)->version();
  auto r = (*ds)->OptimizeIndices();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), names.size());
  std::vector<std::string> old_uuids;
  for (size_t i = 0; i < r->size(); ++i) {
    const OptimizedIndex& x = (*r)[i];
    EXPECT_EQ(x.name, names[i]);
    EXPECT_EQ(x.outcome, OptimizedIndex::Outcome::kMerged) << x.name << " " << x.reason;
    EXPECT_EQ(x.fragment_ids, (std::vector<uint32_t>{0, 1})) << x.name;
    EXPECT_EQ(x.new_fragment_ids, (std::vector<uint32_t>{1})) << x.name;
    EXPECT_NE(x.uuid, x.replaced_uuid);
    EXPECT_EQ(x.type, index::scalar::ScalarIndexTypeName(specs[i].type));
    // LABEL_LIST trains on the non-null lists, the others on every live row.
    EXPECT_EQ(x.num_indexed_rows, live) << x.name;
  }
  EXPECT_EQ((*ds)->version(), v0 + 1);  // one commit for all, as lance 12
  for (const auto& x : *r) EXPECT_EQ(x.version, v0 + 1);
  for (size_t i = 0; i < names.size(); ++i) {
    const table::IndexInfo& seg = Only(**ds, names[i]);
    EXPECT_EQ(seg.uuid, (*r)[i].uuid);
    EXPECT_EQ(seg.dataset_version, static_cast<uint64_t>(1 + i)) << "the version the index was first built on";
    EXPECT_EQ(seg.fragment_ids, (std::vector<uint32_t>{0, 1}));
    auto o = index::scalar::OptionsOfIndex(*(*ds)->snapshot(), seg);
    ASSERT_TRUE(o.ok()) << o.status().ToString();
    EXPECT_EQ(o->type, before[i].type);
    EXPECT_EQ(o->btree_batch_size, before[i].btree_batch_size);
    EXPECT_EQ(o->rows_per_zone, before[i].rows_per_zone);
    EXPECT_EQ(o->bloom_items, before[i].bloom_items);
    EXPECT_EQ(o->bloom_probability, before[i].bloom_probability);
    EXPECT_EQ(o->fts.ToJson(), before[i].fts.ToJson());
  }
  EXPECT_EQ(before[0].btree_batch_size, 64);
  EXPECT_EQ(before[3].rows_per_zone, 50u);
  EXPECT_EQ(before[4].bloom_items, 100u);
  ASSERT_TRUE(before[6].fts.custom_stop_words.has_value());
  EXPECT_TRUE(before[6].fts.with_position);

  // Filters through each optimized index: the rows of a scan without indexes, and no
  // fragment left to scan beside the index.
  const std::vector<std::pair<std::string, std::string>> filters = {
      {"id = 420", "id_BTREE"},
      {"id >= 290 AND id < 333", "id_BTREE"},
      {"id IN (1, 3, 20, 301, 455, 499)", "id_BTREE"},
      {"s = 'cherry 3'", "s_BITMAP"},
      {"s IS NULL", "s_BITMAP"},
      {"array_has_any(tags, make_array('t1', 't5'))", "tags_LABEL_LIST"},
      {"array_has_all(tags, make_array('t0', 't2'))", "tags_LABEL_LIST"},
      {"f > 120.5", "f_ZONEMAP"},
      {"contains(s, 'melo')", "s_FM"},
  };
  for (const auto& [f, name] : filters) {
    std::string plan;
    const auto with = Ids(**ds, f, true, &plan);
    const auto without = Ids(**ds, f, false);
    EXPECT_EQ(with, without) << f;
    EXPECT_FALSE(without.empty()) << f;
    EXPECT_NE(plan.find(name), std::string::npos) << f << "\n" << plan;
    EXPECT_EQ(plan.find("FragmentScan"), std::string::npos) << f << "\n" << plan;
  }
  // Without the FM index, contains() goes to the n-gram index (then rechecked).
  ASSERT_TRUE((*ds)->DropIndex("s_FM").ok());
  {
    std::string plan;
    EXPECT_EQ(Ids(**ds, "contains(s, 'melo')", true, &plan), Ids(**ds, "contains(s, 'melo')", false));
    EXPECT_NE(plan.find("s_NGRAM"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("FragmentScan"), std::string::npos) << plan;
  }
  // A second optimize has nothing to do and commits nothing.
  const uint64_t v1 = (*ds)->version();
  auto again = (*ds)->OptimizeIndices();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (const auto& x : *again) EXPECT_EQ(x.outcome, OptimizedIndex::Outcome::kUpToDate) << x.name;
  EXPECT_EQ((*ds)->version(), v1);
  fs::remove_all(fs::path(uri).parent_path());
}

TEST(OptimizeIndices, ErrorsNameTheIndex) {
  const std::string uri = FreshDir("errors") + "/t.lance";
  auto first = Rows(0, 50);
  auto ds = Dataset::Write(uri, *first);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  ASSERT_TRUE((*ds)->CreateScalarIndex("id").ok());
  auto missing = (*ds)->OptimizeIndices({"nope"});
  ASSERT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("'nope'"), std::string::npos);

  // A segment to replace that a concurrent commit already removed: CommitConflict, no version.
  auto more = Rows(50, 10);
  ASSERT_TRUE((*ds)->Append(*more).ok());
  auto plan = index::scalar::PlanScalarIndexOptimize(*(*ds)->snapshot(), "id_idx");
  ASSERT_TRUE(plan.ok() && plan->has_value()) << plan.status().ToString();
  auto snap = (*ds)->snapshot();
  ASSERT_TRUE((*ds)->DropIndex("id_idx").ok());
  const uint64_t v = (*ds)->version();
  std::vector<uint64_t> frags((*plan)->fragment_ids.begin(), (*plan)->fragment_ids.end());
  auto rows = [&](const table::Snapshot&, const std::string& c) { return query::CollectTrainingData(snap, c, frags); };
  table::StagedFiles staged(snap->location());
  auto built = index::scalar::BuildScalarIndexSegment(*snap, "id", rows, (*plan)->options, &staged);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  auto lost = index::CommitReplacingSegments(snap->location(), snap->version(),
                                             {index::MakeIndexInfo(built->segment, (*plan)->dataset_version)},
                                             {(*plan)->replaced_uuid}, {}, &staged);
  ASSERT_EQ(lost.status().code(), StatusCode::kCommitConflict) << lost.status().ToString();
  EXPECT_NE(lost.status().message().find((*plan)->replaced_uuid), std::string::npos);
  EXPECT_EQ(*(*ds)->LatestVersion(), v);
  fs::remove_all(fs::path(uri).parent_path());
}

// lance 12's indexes (tests/golden/lance_table/indexed.lance: BTREE id_idx, BITMAP cat_idx,
// INVERTED text_idx, IVF_PQ vec_idx over two fragments) after we append a third fragment.
TEST(OptimizeIndices, ReferenceIndexesAndTheVectorIndex) {
  const fs::path golden = fs::path(__FILE__).parent_path() / "../../tests/golden/lance_table/indexed.lance";
  const std::string dir = FreshDir("golden");
  fs::copy(golden, fs::path(dir) / "t.lance", fs::copy_options::recursive);
  auto ds = Dataset::Open(dir + "/t.lance");
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  std::string text;
  for (int i = 300; i < 340; ++i) {
    text += fmt::format("{{\"id\":{},\"cat\":\"c{}\",\"text\":\"doc {} apple\",\"vec\":[{},0,0,1]}}\n", i, i % 4, i,
                        i % 3);
  }
  auto batch = ReadJsonLines(text, (*ds)->schema());
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  VectorRecordBatchReader in((*ds)->schema(), {*batch});
  ASSERT_TRUE((*ds)->Append(in).ok());

  auto r = (*ds)->OptimizeIndices();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  for (const auto& x : *r) {
    // vec_idx (IVF_PQ) too: the new rows merged into its partitions (optimize_vector_test.cc).
    EXPECT_EQ(x.outcome, OptimizedIndex::Outcome::kMerged) << x.name;
    EXPECT_EQ(x.new_fragment_ids.size(), 1u) << x.name;
    EXPECT_EQ(x.num_indexed_rows, 340u) << x.name;
  }
  for (const std::string f : {"id = 305", "id > 290", "cat = 'c2'", "cat IN ('c1', 'c3') AND id > 200"}) {
    std::string plan;
    EXPECT_EQ(Ids(**ds, f, true, &plan), Ids(**ds, f, false)) << f;
    EXPECT_EQ(plan.find("FragmentScan"), std::string::npos) << f << "\n" << plan;
  }
  // The inverted index kept lance 12's tokenizer settings.
  auto o = index::scalar::OptionsOfIndex(*(*ds)->snapshot(), Only(**ds, "text_idx"));
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->type, ScalarIndexType::kInverted);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace lance::dataset
