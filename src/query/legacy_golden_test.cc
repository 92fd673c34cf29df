// Every version of every dataset older Lance writers left (tests/golden/legacy: vectordb
// 0.4.20, @lancedb/lancedb 0.14.1 and 0.21.3, and the upstream compatibility corpus under
// upstream/) read through the table layer and compared with lance 12's reading of it
// (expected/<group>/<name>/lance12.json + rows.jsonl, written by gen.mjs expect): the row
// count, every row of a scan in order, the row ids, takes by offset and by row id, the
// column names, time travel to each version and the latest version, the version list.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "lance/columnar/json.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "table_fixtures/json_lines_test_util.h"
#include "table_fixtures/scan_test_util.h"

namespace lance::table {
namespace {

namespace fs = std::filesystem;
const fs::path kLegacyDir = fs::path(__FILE__).parent_path() / "../../tests/golden/legacy";

std::string ReadLegacyText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct GoldenVersion {
  std::string group, dataset;  // expected/<group>/<dataset>
  fs::path root;               // the dataset directory
  uint64_t version = 0;
  bool latest = false;
  nlohmann::json expected;               // lance 12's reading of this version
  std::vector<std::string> pool;         // rows.jsonl
  std::vector<uint64_t> all_versions;    // every version lance 12 was asked for
  std::string name() const {
    std::string n = group + "_" + dataset + "_v" + std::to_string(version);
    for (char& c : n) {
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return n;
  }
};

void PrintTo(const GoldenVersion& g, std::ostream* os) { *os << g.name(); }

std::vector<GoldenVersion> AllVersions() {
  std::vector<GoldenVersion> out;
  const fs::path expected = kLegacyDir / "expected";
  std::vector<fs::path> groups;
  for (const auto& e : fs::directory_iterator(expected)) groups.push_back(e.path());
  std::sort(groups.begin(), groups.end());
  for (const auto& g : groups) {
    std::vector<fs::path> datasets;
    for (const auto& e : fs::directory_iterator(g)) datasets.push_back(e.path());
    std::sort(datasets.begin(), datasets.end());
    for (const auto& ds : datasets) {
      const auto meta = nlohmann::json::parse(ReadLegacyText(ds / "lance12.json"));
      std::vector<std::string> pool;
      std::istringstream lines(ReadLegacyText(ds / "rows.jsonl"));
      for (std::string l; std::getline(lines, l);) pool.push_back(l);
      const fs::path root = meta.contains("dataset")
                                ? kLegacyDir / meta["dataset"].get<std::string>()
                                : kLegacyDir / g.filename() / (ds.filename().string() + ".lance");
      std::vector<uint64_t> versions;
      for (const auto& [v, e] : meta["versions"].items()) versions.push_back(std::stoull(v));
      std::sort(versions.begin(), versions.end());
      for (uint64_t v : versions) {
        GoldenVersion gv;
        gv.group = g.filename().string();
        gv.dataset = ds.filename().string();
        gv.root = root;
        gv.version = v;
        gv.latest = v == versions.back();
        gv.expected = meta["versions"][std::to_string(v)];
        gv.pool = pool;
        gv.all_versions = versions;
        out.push_back(std::move(gv));
      }
    }
  }
  return out;
}

const std::vector<GoldenVersion>& Versions() {
  static const std::vector<GoldenVersion> all = AllVersions();
  return all;
}

// The column names of lance 12's schema strings ("name: Type ..."), _rowid left out.
std::vector<std::string> ExpectedColumns(const nlohmann::json& schema) {
  std::vector<std::string> out;
  for (const auto& s : schema) {
    const std::string text = s.get<std::string>();
    const std::string name = text.substr(0, text.find(": "));
    if (name != "_rowid") out.push_back(name);
  }
  return out;
}

std::vector<std::string> Concat(const Result<std::vector<RecordBatchPtr>>& batches) {
  EXPECT_TRUE(batches.ok()) << batches.status().ToString();
  if (!batches.ok()) return {};
  auto lines = JsonLinesOf(*batches);
  EXPECT_TRUE(lines.ok()) << lines.status().ToString();
  return lines.ok() ? *lines : std::vector<std::string>{};
}

std::vector<uint64_t> RowIdsOf(const Result<std::vector<RecordBatchPtr>>& batches) {
  std::vector<uint64_t> out;
  if (!batches.ok()) return out;
  for (const auto& b : *batches) {
    const int c = b->schema()->GetFieldIndex("_rowid");
    EXPECT_GE(c, 0);
    if (c < 0) return out;
    const auto& col = *b->column(c);
    for (int64_t i = 0; i < col.length; ++i) {
      std::string v;
      EXPECT_TRUE(AppendJsonValue(col, i, &v).ok());
      out.push_back(std::stoull(v));
    }
  }
  return out;
}

class LegacyGoldenTest : public ::testing::TestWithParam<GoldenVersion> {};

TEST_P(LegacyGoldenTest, ReadsAsLance12) {
  const GoldenVersion& g = GetParam();
  OpenOptions o;
  o.version = g.version;
  auto ds = Snapshot::Open(g.root.string(), o);
  if (g.expected.contains("error")) {
    // lance 12 refuses this version (on open or on the scan): so do we, with the same kind
    // of error when it names a missing file.
    const std::string error = g.expected["error"].get<std::string>();
    Status st = ds.status();
    if (ds.ok()) st = ScanBatches((*ds)).status();
    EXPECT_FALSE(st.ok()) << g.name() << ": lance 12 says " << error;
    if (error.find("Not found") != std::string::npos) {
      EXPECT_TRUE(st.IsNotFound()) << st.ToString();
    }
    return;
  }
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  const Snapshot& s = **ds;
  EXPECT_EQ(s.version(), g.version);
  EXPECT_EQ(s.CountRows(), g.expected["num_rows"].get<uint64_t>());

  std::vector<std::string> names;
  for (int i = 0; i < s.schema()->num_fields(); ++i) names.push_back(s.schema()->field(i)->name());
  // lance 12 hands an empty scan over with an empty schema: nothing to compare then.
  if (!(g.expected["rows"].empty() && ExpectedColumns(g.expected["schema"]).empty())) {
    EXPECT_EQ(names, ExpectedColumns(g.expected["schema"]));
  }

  std::vector<std::string> want;
  for (const auto& r : g.expected["rows"]) want.push_back(g.pool.at(r.get<size_t>()));
  std::vector<uint64_t> want_ids;
  for (const auto& r : g.expected["rowids"]) want_ids.push_back(r.get<uint64_t>());
  ASSERT_EQ(want.size(), want_ids.size());

  const std::vector<std::string> got = Concat(ScanBatches(*ds));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << g.name() << " row " << i;
  }
  query::ScanOptions with_ids;
  with_ids.with_row_id = true;
  EXPECT_EQ(RowIdsOf(ScanBatches(*ds, with_ids)), want_ids);

  // Takes: backwards, repeated, a stride; by offset and by row id.
  if (!want.empty()) {
    std::vector<uint64_t> offsets = {want.size() - 1, 0, want.size() / 2, want.size() / 2};
    for (size_t i = want.size(); i-- > 0;) {
      if (i % 5 == 0) offsets.push_back(i);
    }
    std::vector<std::string> want_take;
    std::vector<uint64_t> ids;
    for (uint64_t off : offsets) {
      want_take.push_back(want[off]);
      ids.push_back(want_ids[off]);
    }
    // Takes run through the query layer (the only reader of rows by position or row id).
    auto scanner = query::Scanner::Make(*ds, query::ScanOptions{});
    ASSERT_TRUE(scanner.ok()) << g.name() << ": " << scanner.status().ToString();
    auto read_all = [](Result<std::unique_ptr<RecordBatchReader>> r) -> Result<std::vector<RecordBatchPtr>> {
      if (!r.ok()) return r.status();
      return (*r)->ReadAll();
    };
    EXPECT_EQ(Concat(read_all(scanner->Take(offsets))), want_take) << g.name();
    EXPECT_EQ(Concat(read_all(scanner->TakeRowIds(ids))), want_take) << g.name();
  }

  // The index section: lance 12's list (one entry per name: deltas and the segments of a
  // compaction share it) from our decoded entries. Types come from the details; entries
  // without details (lance < 0.19.3) lance 12 lists only on vector columns, where it reads
  // the type from the index file (IVF_PQ in every dataset here).
  {
    static const std::map<std::string, std::string> kLancedbType = {
        {"BTREE", "BTree"}, {"BITMAP", "Bitmap"}, {"INVERTED", "FTS"},
        {"LABEL_LIST", "LabelList"}, {"IVF_PQ", "IvfPq"}, {"VECTOR", "IvfPq"}};
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> ours;
    for (const auto& x : s.manifest().indices) {
      if (IsSystemIndex(x)) continue;
      std::vector<std::string> columns;
      bool vector_column = false;
      for (int32_t id : x.fields) {
        for (const auto& f : s.manifest().fields) {
          if (f.id != id) continue;
          columns.push_back(f.name);
          vector_column = f.logical_type.starts_with("fixed_size_list:");
        }
      }
      std::string type = IndexTypeName(x);
      if (type.empty()) {
        if (!vector_column) continue;
        type = "IVF_PQ";
      }
      auto it = kLancedbType.find(type);
      ours[x.name] = {it == kLancedbType.end() ? type : it->second, columns};
    }
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> theirs;
    for (const auto& x : g.expected["indices"]) {
      std::vector<std::string> columns;
      for (const auto& c : x["columns"]) columns.push_back(c);
      theirs[x["name"]] = {x["type"], columns};
    }
    EXPECT_EQ(ours, theirs) << g.name();
  }

  if (g.latest) {
    auto latest = Snapshot::Open(g.root.string());
    ASSERT_TRUE(latest.ok()) << latest.status().ToString();
    EXPECT_EQ((*latest)->version(), g.version);
    auto listed = (*latest)->ListVersions();
    ASSERT_TRUE(listed.ok()) << listed.status().ToString();
    std::vector<uint64_t> numbers;
    for (const auto& v : *listed) numbers.push_back(v.version);
    EXPECT_EQ(numbers, g.all_versions);
  }
}

INSTANTIATE_TEST_SUITE_P(Legacy, LegacyGoldenTest, ::testing::ValuesIn(Versions()),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace lance::table
