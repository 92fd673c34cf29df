// Randomized differential test of index-planned filters: for many seeds, a random table (int64
// id, int32 / float64 / utf8 columns with nulls, several fragments, deletions before and after
// the indexes are built, a fragment appended after them and left unindexed), random indexes
// on its columns (BTREE, BITMAP, ZONEMAP, BLOOMFILTER with small pages and zones so that
// lookups span many of them; NGRAM on a text column t of words, some upper-case or accented;
// LABEL_LIST on a list<utf8> column g with null lists and null items; sometimes a second index
// on s, so that the planner must pick the one suited to each predicate) and random predicate
// trees (=, <, <=, >, >=, BETWEEN, IN, IS [NOT] NULL, contains(t, ..), t LIKE '%..%',
// array_has_any / array_has_all / array_contains(g, ..) under AND / OR / NOT). Every filter's scan through the indexes returns
// exactly the rows of the scan without them (every row and column, in order) and the same
// count. Inexact indexes must never lose a row; exact ones never add one.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/index/scalar/create.h"
#include "lance/query/index_training.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "query/query_test_util.h"

namespace lance::query {
namespace {

using index::scalar::ScalarIndexType;

SchemaPtr RandomSchema() {
  return schema({field("id", int64(), false), field("a", int32()), field("f", float64()), field("s", utf8()),
                 field("t", utf8()), field("g", list(field("item", utf8())))});
}

const char* const kWords[] = {"alpha", "Beta", "gamma", "delta", "EPSILON", "zeta", "\u00e9ta", "theta", "io", "kappa9"};

// A random substring (1 to 6 bytes, ASCII) of a random word, lower-cased or not, or a word
// no row holds.
std::string Needle(std::mt19937_64& rng) {
  if (rng() % 8 == 0) return "qqq";
  std::string w = kWords[rng() % 10];
  if (static_cast<unsigned char>(w[0]) >= 0x80) return rng() % 2 ? w : "eta";  // whole, or unaccented
  const size_t len = 1 + rng() % 6;
  const size_t at = rng() % w.size();
  std::string s = w.substr(at, len);
  if (rng() % 3 == 0) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

std::string Rows(std::mt19937_64& rng, int64_t start, int64_t n) {
  std::string out;
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint64_t>(k)); };
  for (int64_t i = start; i < start + n; ++i) {
    out += "{\"id\":" + std::to_string(i);
    out += ",\"a\":" + (pick(9) == 0 ? std::string("null") : std::to_string(pick(60) - 30));
    out += ",\"f\":" + (pick(7) == 0 ? std::string("null") : std::to_string(pick(400) - 200) + ".25");
    out += ",\"s\":" + (pick(8) == 0 ? std::string("null") : "\"w" + std::to_string(pick(25)) + "\"");
    std::string t;
    for (int w = 0, words = 1 + pick(3); w < words; ++w) t += (w ? (pick(2) ? " " : "-") : "") + std::string(kWords[pick(10)]);
    out += ",\"t\":" + (pick(8) == 0 ? std::string("null") : "\"" + t + "\"");
    std::string g = pick(9) == 0 ? "null" : "[";
    if (g == "[") {
      for (int k = 0, labels = pick(4); k < labels; ++k) {
        g += (k ? "," : "") + (pick(15) == 0 ? std::string("null") : "\"g" + std::to_string(pick(8)) + "\"");
      }
      g += "]";
    }
    out += ",\"g\":" + g;
    out += "}\n";
  }
  return out;
}

std::string Literal(std::mt19937_64& rng, const std::string& col) {
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint64_t>(k)); };
  if (col == "id") return std::to_string(pick(5000));
  if (col == "a") return std::to_string(pick(70) - 35);
  if (col == "f") return std::to_string(pick(440) - 220) + (pick(2) ? ".25" : "");
  return "'w" + std::to_string(pick(28)) + "'";
}

std::string Leaf(std::mt19937_64& rng) {
  static const char* kCols[] = {"id", "a", "f", "s"};
  static const char* kOps[] = {"=", "<", "<=", ">", ">="};
  if (rng() % 6 == 0) {
    auto label = [&] { return "'g" + std::to_string(rng() % 9) + "'"; };  // g8: on no row
    if (rng() % 3 == 0) return "array_contains(g, " + label() + ")";
    std::string arr = "make_array(";
    for (int i = 0, n = 1 + static_cast<int>(rng() % 3); i < n; ++i) arr += (i ? ", " : "") + label();
    return std::string(rng() % 2 ? "array_has_any" : "array_has_all") + "(g, " + arr + "))";
  }
  if (rng() % 5 == 0) {
    const std::string needle = Needle(rng);
    return rng() % 2 ? "contains(t, '" + needle + "')" : "t LIKE '%" + needle + "%'";
  }
  const std::string col = kCols[rng() % 4];
  switch (rng() % 6) {
    case 0: case 1: return col + " " + kOps[rng() % 5] + " " + Literal(rng, col);
    case 2: {
      std::string lo = Literal(rng, col), hi = Literal(rng, col);
      return col + " BETWEEN " + lo + " AND " + hi;
    }
    case 3: {
      std::string in = col + " IN (";
      const int n = 1 + static_cast<int>(rng() % 5);
      for (int i = 0; i < n; ++i) in += (i ? ", " : "") + Literal(rng, col);
      return in + ")";
    }
    case 4: return col + (rng() % 2 ? " IS NULL" : " IS NOT NULL");
    default: return col + " = " + Literal(rng, col);
  }
}

std::string Tree(std::mt19937_64& rng, int depth) {
  if (depth == 0 || rng() % 3 == 0) return Leaf(rng);
  switch (rng() % 5) {
    case 0: return "NOT (" + Tree(rng, depth - 1) + ")";
    case 1: case 2: return "(" + Tree(rng, depth - 1) + ") OR (" + Tree(rng, depth - 1) + ")";
    default: return Tree(rng, depth - 1) + " AND " + Tree(rng, depth - 1);
  }
}

void BuildIndex(const std::string& uri, const std::string& column, ScalarIndexType type,
                const std::string& name = "") {
  auto snap = table::Snapshot::Open(uri);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  index::scalar::CreateScalarIndexOptions o;
  o.type = type;
  o.btree_batch_size = 64;
  o.rows_per_zone = 64;
  o.bloom_items = 64;
  o.name = name;
  std::shared_ptr<const table::Snapshot> at = *snap;
  auto rows = [at](const table::Snapshot&, const std::string& col) { return CollectTrainingData(at, col); };
  auto c = index::scalar::CreateScalarIndex(**snap, column, rows, o);
  ASSERT_TRUE(c.ok()) << column << ": " << c.status().ToString();
}

TEST(RandomIndexFilters, IndexedScansEqualUnindexedScans) {
  constexpr int kSeeds = 12;
  constexpr int kFilters = 40;
  int64_t total_rows_compared = 0;
  int ngram_planned = 0;
  int labels_planned = 0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    std::mt19937_64 rng(0x5eed0000ULL + static_cast<uint64_t>(seed));
    const std::string uri = "memory://random_index_filters/t" + std::to_string(seed) + ".lance";
    const int64_t n = 1500 + static_cast<int64_t>(rng() % 2500);
    auto batch = ReadJsonLines(Rows(rng, 0, n), RandomSchema());
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    table::WriteParams p;
    p.max_rows_per_file = 400 + static_cast<int64_t>(rng() % 800);
    ASSERT_TRUE(table::WriteDataset(uri, RandomSchema(), {*batch}, p).ok());
    ASSERT_TRUE(DeleteWhere(uri, "id % " + std::to_string(5 + rng() % 7) + " = 2").ok());
    const ScalarIndexType id_types[] = {ScalarIndexType::kBTree, ScalarIndexType::kZoneMap};
    const ScalarIndexType any_types[] = {ScalarIndexType::kBTree, ScalarIndexType::kBitmap,
                                         ScalarIndexType::kZoneMap, ScalarIndexType::kBloomFilter};
    const ScalarIndexType float_types[] = {ScalarIndexType::kBTree, ScalarIndexType::kZoneMap,
                                           ScalarIndexType::kBloomFilter};
    BuildIndex(uri, "id", id_types[rng() % 2]);
    BuildIndex(uri, "a", any_types[rng() % 4]);
    BuildIndex(uri, "f", float_types[rng() % 3]);
    BuildIndex(uri, "s", any_types[rng() % 4]);
    if (rng() % 4 != 0) BuildIndex(uri, "t", ScalarIndexType::kNGram);
    if (rng() % 4 != 0) BuildIndex(uri, "g", ScalarIndexType::kLabelList);
    if (rng() % 2 == 0) BuildIndex(uri, "s", any_types[rng() % 4], "s_second");
    // Deleted after the build (the indexes still hold these rows) and appended after it.
    ASSERT_TRUE(DeleteWhere(uri, "id % 13 = " + std::to_string(rng() % 13)).ok());
    auto more = ReadJsonLines(Rows(rng, n, 300 + static_cast<int64_t>(rng() % 400)), RandomSchema());
    ASSERT_TRUE(more.ok());
    table::WriteParams append;
    append.mode = table::WriteMode::kAppend;
    ASSERT_TRUE(table::WriteDataset(uri, RandomSchema(), {*more}, append).ok());
    auto snap = table::Snapshot::Open(uri);
    ASSERT_TRUE(snap.ok());
    int planned = 0;
    for (int k = 0; k < kFilters; ++k) {
      const std::string filter = Tree(rng, 3);
      ScanOptions o;
      o.filter = filter;
      o.use_index = true;
      auto sc = Scanner::Make(*snap, o);
      ASSERT_TRUE(sc.ok()) << filter << ": " << sc.status().ToString();
      planned += sc->Explain().find("ScalarIndexLookup") != std::string::npos;
      ngram_planned += sc->Explain().find("(NGRAM)") != std::string::npos;
      labels_planned += sc->Explain().find("(LABEL_LIST)") != std::string::npos;
      auto with = ScanLines(*snap, o);
      o.use_index = false;
      auto without = ScanLines(*snap, o);
      ASSERT_TRUE(with.ok()) << filter << ": " << with.status().ToString();
      ASSERT_TRUE(without.ok()) << filter << ": " << without.status().ToString();
      ASSERT_EQ(*with, *without) << "seed " << seed << ": " << filter << "\n" << sc->Explain();
      auto count = sc->CountRows();
      ASSERT_TRUE(count.ok()) << filter;
      EXPECT_EQ(*count, without->size()) << filter;
      total_rows_compared += static_cast<int64_t>(without->size());
    }
    EXPECT_GT(planned, kFilters / 5) << "seed " << seed << ": too few filters used an index";
  }
  EXPECT_GT(total_rows_compared, 10000);
  EXPECT_GT(ngram_planned, 20) << "too few substring filters went through an NGRAM index";
  EXPECT_GT(labels_planned, 20) << "too few label-list filters went through a LABEL_LIST index";
}

}  // namespace
}  // namespace lance::query
