// Maintained indexes of every scalar type (mem_wal.md "Maintained indexes"): a flush builds
// each index the MemWAL maintains over the generation with the type and parameters of the
// base's index of that name -- an INVERTED index with the base's tokenizer (lance 12's
// full-text search misses a generation's rows without it), a BITMAP as a BITMAP -- and the
// generation answers searches through them with its hidden duplicates masked.
// (lance 12 reading our generations through them: tests/interop/memwal_maintained.test.mjs.)

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dataset/memwal_test_util.h"
#include "lance/dataset/dataset.h"
#include "lance/index/scalar/create.h"
#include "lance/index/scalar/optimize.h"
#include "lance/memwal/generation.h"
#include "lance/memwal/index_details.h"
#include "lance/query/text_search.h"
#include "lance/table/commit.h"
#include "table_fixtures/json_lines_test_util.h"

namespace lance::memwal::lsm_test {
namespace {

const table::IndexInfo* IndexNamed(const table::Snapshot& s, const std::string& name) {
  for (const auto& idx : s.manifest().indices) {
    if (idx.name == name) return &idx;
  }
  return nullptr;
}

// Full-text search of `text` over `s` of `ds`: id -> (s, row order of the answer).
std::map<int64_t, std::string> Search(const dataset::Dataset& ds, const std::string& text) {
  query::ScanOptions o;
  o.columns = {"id", "s"};
  o.full_text = query::FullTextQuery{text, {"s"}, 100, false, false};
  std::map<int64_t, std::string> out;
  auto scanner = ds.NewScan(o);
  EXPECT_TRUE(scanner.ok()) << scanner.status().ToString();
  if (!scanner.ok()) return out;
  auto batches = scanner->ToBatches();
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok()) return out;
  for (const auto& b : *batches) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      const int64_t id = b->GetColumnByName("id")->Values<int64_t>()[i];
      EXPECT_EQ(out.count(id), 0u) << "'" << text << "': id " << id << " found twice";
      out[id] = std::string(b->GetColumnByName("s")->GetView(i));
    }
  }
  return out;
}

TEST(LsmMaintained, EveryScalarTypeIsBuiltWithTheBaseIndexParameters) {
  Table t = MakeTable("maintained_fts", {0, 1, 2, 3});
  auto ds = dataset::Dataset::Open(t.store, t.root);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  // An INVERTED index with a tokenizer other than the default (no stemming, positions, its own
  // stop words), so that a flush using the defaults would be seen.
  index::scalar::CreateScalarIndexOptions fts;
  fts.type = index::scalar::ScalarIndexType::kInverted;
  fts.fts.stem = false;
  fts.fts.with_position = true;
  fts.fts.custom_stop_words = std::vector<std::string>{"base"};
  ASSERT_TRUE((*ds)->CreateScalarIndex("s", fts).ok());
  index::scalar::CreateScalarIndexOptions bitmap;
  bitmap.type = index::scalar::ScalarIndexType::kBitmap;
  ASSERT_TRUE((*ds)->CreateScalarIndex("id", bitmap).ok());
  SetMaintainedIndexes(t, {"s_idx", "id_idx"});

  auto base = table::Snapshot::Open(t.store, t.root);
  ASSERT_TRUE(base.ok());
  auto m = MaintainedIndexesOf(**base);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ(m->built.size(), 2u);
  EXPECT_TRUE(m->not_built.empty());
  EXPECT_EQ(m->built[0].name, "s_idx");
  EXPECT_EQ(m->built[0].column, "s");
  EXPECT_EQ(m->built[0].options.type, index::scalar::ScalarIndexType::kInverted);
  EXPECT_EQ(m->built[1].name, "id_idx");
  EXPECT_EQ(m->built[1].options.type, index::scalar::ScalarIndexType::kBitmap);

  // One generation: "apple" rows, 10 written twice (the older one hidden), "pear" rows.
  MemWalWriterOptions o = WriterOptions(t);
  o.generation.maintained_indexes = m->built;
  auto w = MemWalWriter::Open(t.store, t.root, UnshardedShardId(), o);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({1, 10, 11}, "apple")).ok());
  ASSERT_TRUE((*w)->AppendAndWait(*Batch({10, 12}, "pear")).ok());
  auto g = (*w)->Flush();
  ASSERT_TRUE(g.ok() && g->has_value()) << g.status().ToString();
  ASSERT_TRUE((*w)->Close(false).ok());

  auto gen = OpenGeneration(t.store, t.root, UnshardedShardId(), **g);
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  for (const char* name : {"s_idx", "id_idx"}) {
    const table::IndexInfo* theirs = IndexNamed(**base, name);
    const table::IndexInfo* ours = IndexNamed(**gen, name);
    ASSERT_NE(ours, nullptr) << name;
    EXPECT_EQ(table::IndexTypeName(*ours), table::IndexTypeName(*theirs)) << name;
    EXPECT_EQ(ours->fields, theirs->fields) << name;
    EXPECT_EQ(ours->fragment_ids, std::vector<uint32_t>{0}) << name;
    EXPECT_EQ(ours->details_type_url, theirs->details_type_url) << name;
    EXPECT_EQ(ours->dataset_version, 1u) << name;
  }
  // One version, as lance 12 writes a generation: the data, the deletion vector hiding the older
  // 10 (row 1) and both indexes in one commit.
  EXPECT_EQ((*gen)->version(), 1u);
  auto versions = (*gen)->ListVersions();
  ASSERT_TRUE(versions.ok()) << versions.status().ToString();
  EXPECT_EQ(versions->size(), 1u);
  ASSERT_EQ((*gen)->manifest().fragments.size(), 1u);
  EXPECT_EQ((*gen)->manifest().fragments[0].id, 0u);
  ASSERT_TRUE((*gen)->manifest().fragments[0].deletion.has_value());
  EXPECT_EQ((*gen)->manifest().fragments[0].deletion->read_version, 1u);
  auto deleted = (*gen)->DeletedRows(0);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, std::vector<uint32_t>{1});
  auto base_opts = index::scalar::OptionsOfIndex(**base, *IndexNamed(**base, "s_idx"));
  auto gen_opts = index::scalar::OptionsOfIndex(**gen, *IndexNamed(**gen, "s_idx"));
  ASSERT_TRUE(base_opts.ok() && gen_opts.ok());
  EXPECT_EQ(gen_opts->fts.ToJson(), base_opts->fts.ToJson());
  EXPECT_FALSE(gen_opts->fts.stem);
  EXPECT_TRUE(gen_opts->fts.with_position);

  // The generation's own searches, through its INVERTED index: the hidden "apple-10" is
  // masked by the deletion vector; "base" is a stop word of the base's tokenizer.
  auto gds = dataset::Dataset::Open(t.store, (*gen)->root());
  ASSERT_TRUE(gds.ok()) << gds.status().ToString();
  using Hits = std::map<int64_t, std::string>;
  EXPECT_EQ(Search(**gds, "apple"), (Hits{{1, "apple-1"}, {11, "apple-11"}}));
  EXPECT_EQ(Search(**gds, "10"), (Hits{{10, "pear-10"}}));
  EXPECT_EQ(Search(**gds, "pear"), (Hits{{10, "pear-10"}, {12, "pear-12"}}));
  EXPECT_EQ(Search(**gds, "12 11"), (Hits{{11, "apple-11"}, {12, "pear-12"}}));
  // The base answers with its own tokenizer too: "base" is a stop word there.
  EXPECT_EQ(Search(**ds, "base"), Hits{});
  EXPECT_EQ(Search(**ds, "2"), (Hits{{2, "base-2"}}));
  // Its bitmap answers a filter over the generation, the hidden duplicate masked.
  query::ScanOptions by_id;
  by_id.filter = "id = 10";
  auto sc = (*gds)->NewScan(by_id);
  ASSERT_TRUE(sc.ok()) << sc.status().ToString();
  auto rows = sc->ToBatches();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  auto lines = table::JsonLinesOf(*rows);
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->size(), 1u);
  EXPECT_NE((*lines)[0].find("\"pear-10\""), std::string::npos) << (*lines)[0];
  // The merged read is unchanged by the indexes.
  Model model;
  Apply(&model, {0, 1, 2, 3}, "base", false);
  Apply(&model, {1, 10, 11}, "apple", false);
  Apply(&model, {10, 12}, "pear", false);
  EXPECT_EQ(Read(t, Consistency::kEventual), model);
  EXPECT_EQ(Read(t, Consistency::kEventual, nullptr, "id = 10"), Restrict(model, {10}));
  fs::remove_all(t.dir);
}

}  // namespace
}  // namespace lance::memwal::lsm_test
