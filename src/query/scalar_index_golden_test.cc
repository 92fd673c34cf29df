// Scalar indexes lance 12 built (tests/golden/scalar_index/scalar.lance, made by gen.mjs there):
//   * our readers open every BTREE / BITMAP / LABEL_LIST index of it and answer =, <, <=, >,
//     >=, BETWEEN, IN, IS NULL, IS NOT NULL (array_has_any / array_has_all for the label
//     list) exactly as brute force over the rows the index was trained on (the live rows of
//     its fragments), with the null rows of three-valued logic;
//   * our trainers, given the same rows, write files whose schemas (names, types, nullability,
//     schema metadata), global buffers and rows are the reference's: page_lookup.lance row for
//     row; page_data.lance and bitmap_page_lookup.lance as sets of rows (the reference orders
//     equal BTree values and label-list keys its own way, see SortedLines).
#include <gtest/gtest.h>

#include <filesystem>
#include <algorithm>
#include <set>

#include "lance/columnar/json.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/bitmap.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/label_list.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/io/memory_object_store.h"
#include "lance/query/index_training.h"
#include "lance/table/snapshot.h"

namespace lance::index::scalar {
namespace {

namespace fs = std::filesystem;

const fs::path kScalarIndexGolden =
    fs::path(__FILE__).parent_path() / "../../tests/golden/scalar_index/scalar.lance";

std::shared_ptr<table::Snapshot> OpenGolden() {
  auto s = table::Snapshot::Open(kScalarIndexGolden.string());
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : nullptr;
}

const table::IndexInfo* Find(const table::Manifest& m, const std::string& name) {
  for (const auto& x : m.indices) {
    if (x.name == name) return &x;
  }
  return nullptr;
}

TrainingData TrainingOf(const std::shared_ptr<table::Snapshot>& snap, const table::IndexInfo& info,
                        const std::string& column) {
  std::vector<uint64_t> frags(info.fragment_ids.begin(), info.fragment_ids.end());
  auto d = query::CollectTrainingData(snap, column, frags);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? std::move(*d) : TrainingData{};
}

// (value, row id) of every training row.
std::vector<std::pair<ScalarValue, uint64_t>> Flatten(const TrainingData& d) {
  std::vector<std::pair<ScalarValue, uint64_t>> out;
  size_t k = 0;
  for (const auto& a : d.values) {
    for (int64_t i = 0; i < a->length; ++i) out.emplace_back(ValueAt(*a, i), d.row_ids[k++]);
  }
  return out;
}

// Some keys of the data and some beside it: the smallest, largest, a few in between, absent
// ones, plus type-specific edges.
std::vector<ScalarValue> Probes(const std::vector<std::pair<ScalarValue, uint64_t>>& rows) {
  std::set<ScalarValue, ScalarValueLess> keys;
  for (const auto& [v, r] : rows) {
    if (!v.is_null()) keys.insert(v);
  }
  std::vector<ScalarValue> sorted(keys.begin(), keys.end());
  std::vector<ScalarValue> out;
  if (sorted.empty()) return out;
  for (size_t i : {size_t{0}, sorted.size() / 5, sorted.size() / 2, sorted.size() * 3 / 4,
                   sorted.size() - 1}) {
    out.push_back(sorted[i]);
  }
  switch (sorted[0].kind()) {
    case ScalarValue::Kind::kInt:
      out.push_back(ScalarValue::Int(sorted.front().int_value() - 1));
      out.push_back(ScalarValue::Int(sorted.back().int_value() + 1));
      break;
    case ScalarValue::Kind::kFloat:
      out.push_back(ScalarValue::Float(0.1));
      out.push_back(ScalarValue::Float(0.0));
      out.push_back(ScalarValue::Float(-1e300));
      break;
    case ScalarValue::Kind::kBytes:
      out.push_back(ScalarValue::Bytes("s05"));
      out.push_back(ScalarValue::Bytes("zzz"));
      out.push_back(ScalarValue::Bytes(""));
      break;
    default:
      break;
  }
  return out;
}

std::vector<ScalarQuery> QueriesOf(const std::vector<ScalarValue>& probes) {
  std::vector<ScalarQuery> qs = {ScalarQuery::IsNull(), ScalarQuery::IsNotNull()};
  for (const auto& v : probes) {
    qs.push_back(ScalarQuery::Equals(v));
    qs.push_back(ScalarQuery::LessThan(v));
    qs.push_back(ScalarQuery::LessEq(v));
    qs.push_back(ScalarQuery::GreaterThan(v));
    qs.push_back(ScalarQuery::GreaterEq(v));
  }
  for (size_t i = 0; i + 1 < probes.size(); ++i) {
    qs.push_back(ScalarQuery::Between(probes[i], probes[i + 1]));
    qs.push_back(ScalarQuery::In({probes[i], probes[i + 1], ScalarValue::Null()}));
  }
  qs.push_back(ScalarQuery::In({}));
  return qs;
}

void ExpectAnswers(const ScalarIndex& index, const std::vector<std::pair<ScalarValue, uint64_t>>& rows,
                   const std::vector<ScalarQuery>& queries, const std::string& what) {
  RowSet nulls;
  for (const auto& [v, r] : rows) {
    if (v.is_null()) nulls.Insert(r);
  }
  for (const ScalarQuery& q : queries) {
    RowSet expect;
    for (const auto& [v, r] : rows) {
      if (q.Matches(v)) expect.Insert(r);
    }
    auto got = index.Search(q);
    ASSERT_TRUE(got.ok()) << what << " " << q.ToString() << ": " << got.status().ToString();
    EXPECT_TRUE(got->exact);
    EXPECT_TRUE(got->rows == expect) << what << " " << q.ToString() << "\n got " << got->rows.ToString()
                                     << "\nwant " << expect.ToString();
    if (q.op != ScalarQuery::Op::kIsNull && q.op != ScalarQuery::Op::kIsNotNull) {
      EXPECT_TRUE(got->null_rows == nulls) << what << " " << q.ToString();
    }
  }
}

std::string RowsText(const file::FileReader& r) {
  auto b = r.ReadAll();
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  std::string out;
  if (b.ok()) {
    EXPECT_TRUE(AppendJsonLines(**b, &out).ok());
  }
  return out;
}

// The reference orders equal BTree values (an unstable sort) and label-list keys (hash order)
// its own way; those files are compared as sets of rows.
std::string SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string SchemaText(const Schema& s) {
  std::string out = SchemaToJson(s);
  if (s.metadata()) {
    for (const auto& [k, v] : s.metadata()->pairs()) out += "\n" + k + "=" + v;
  }
  return out;
}

// Every file `files` of the reference's index and of ours: same schema and rows.
void ExpectSameFiles(IndexStore& theirs, IndexStore& ours, const std::vector<std::string>& files) {
  for (const auto& f : files) {
    auto a = theirs.OpenFile(f);
    auto b = ours.OpenFile(f);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(SchemaText(*(*a)->schema()), SchemaText(*(*b)->schema())) << f;
    if (f == kBTreeLookupFile) {
      EXPECT_EQ(RowsText(**a), RowsText(**b)) << f;
    } else {
      EXPECT_EQ(SortedLines(RowsText(**a)), SortedLines(RowsText(**b))) << f;
    }
    EXPECT_EQ((*a)->num_global_buffers(), (*b)->num_global_buffers()) << f;
    for (int g = 1; g < std::min((*a)->num_global_buffers(), (*b)->num_global_buffers()); ++g) {
      auto ga = (*a)->ReadGlobalBuffer(g);
      auto gb = (*b)->ReadGlobalBuffer(g);
      ASSERT_TRUE(ga.ok() && gb.ok());
      EXPECT_EQ((*ga)->view(), (*gb)->view()) << f << " global buffer " << g;
    }
  }
}

class ReferenceScalarIndex : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceScalarIndex, AnswersAsBruteForceAndWeWriteTheSameFiles) {
  const std::string column = GetParam();
  auto snap = OpenGolden();
  ASSERT_TRUE(snap);
  const table::IndexInfo* info = Find(snap->manifest(), column + "_idx");
  ASSERT_NE(info, nullptr) << column;
  auto store = OpenIndexStore(snap->location(), *info);
  auto index = OpenScalarIndex(store, *info);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  TrainingData data = TrainingOf(snap, *info, column);
  ASSERT_FALSE(data.row_ids.empty());
  const std::string type = table::IndexTypeName(*info);
  EXPECT_EQ((*index)->type_name(), type);

  auto mem = io::MemoryObjectStore::Make();
  auto ours = IndexStore::Make(mem, "ours");
  Result<TrainedIndex> trained = Status::OK();
  std::vector<std::string> files;
  if (type == "BTREE") {
    trained = TrainBTreeIndex(*ours, data);
    files = {kBTreeLookupFile, kBTreePagesFile};
  } else if (type == "BITMAP") {
    trained = TrainBitmapIndex(*ours, data);
    files = {kBitmapFile};
  } else {
    trained = TrainLabelListIndex(*ours, data);
    files = {kBitmapFile};
  }
  ASSERT_TRUE(trained.ok()) << trained.status().ToString();
  EXPECT_EQ(trained->details_type_url, info->details_type_url);
  EXPECT_EQ(trained->index_version, info->index_version.value_or(-1));
  std::set<std::string> want_files, got_files;
  for (const auto& f : info->files) want_files.insert(f.path);
  for (const auto& f : trained->files) got_files.insert(f.path);
  EXPECT_EQ(want_files, got_files);
  ExpectSameFiles(*store, *ours, files);

  table::IndexInfo our_info = *info;
  our_info.uuid = "ours";
  auto our_index = OpenScalarIndex(ours, our_info);
  ASSERT_TRUE(our_index.ok()) << our_index.status().ToString();

  if (type == "LABEL_LIST") {
    // Per row: the list (nullopt = null list).
    std::vector<std::pair<std::optional<std::vector<ScalarValue>>, uint64_t>> lists;
    size_t k = 0;
    for (const auto& a : data.values) {
      for (int64_t i = 0; i < a->length; ++i, ++k) {
        if (a->IsNull(i)) {
          lists.emplace_back(std::nullopt, data.row_ids[k]);
          continue;
        }
        std::vector<ScalarValue> items;
        for (int64_t j = a->ValueOffset(i); j < a->ValueOffset(i + 1); ++j) {
          items.push_back(ValueAt(*a->children[0], j));
        }
        lists.emplace_back(std::move(items), data.row_ids[k]);
      }
    }
    std::vector<LabelListQuery> qs;
    for (const auto& labels : std::vector<std::vector<std::string>>{
             {"t0"}, {"t3"}, {"t0", "t2"}, {"t1", "t5"}, {"t9"}, {"t0", "t9"}, {"t2", "t4", "t0"}}) {
      std::vector<ScalarValue> v;
      for (const auto& l : labels) v.push_back(ScalarValue::Bytes(l));
      qs.push_back(LabelListQuery::HasAny(v));
      qs.push_back(LabelListQuery::HasAll(v));
    }
    for (const auto* idx : {&*index, &*our_index}) {
      for (const auto& q : qs) {
        RowSet expect, nulls;
        for (const auto& [l, r] : lists) {
          auto m = q.Matches(l);
          if (!m) nulls.Insert(r);
          else if (*m) expect.Insert(r);
        }
        auto got = (*idx)->Search(q);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_TRUE(got->rows == expect) << q.ToString() << "\n got " << got->rows.ToString()
                                         << "\nwant " << expect.ToString();
        EXPECT_TRUE(got->null_rows == nulls) << q.ToString();
      }
    }
    return;
  }
  const auto rows = Flatten(data);
  const auto queries = QueriesOf(Probes(rows));
  ExpectAnswers(**index, rows, queries, "reference " + column);
  ExpectAnswers(**our_index, rows, queries, "ours " + column);
}

INSTANTIATE_TEST_SUITE_P(Golden, ReferenceScalarIndex,
                         ::testing::Values("id", "i32", "f64", "s", "d", "ts", "b", "cat", "tags"));

}  // namespace
}  // namespace lance::index::scalar
