// Reads the data files of the datasets older Lance writers made (tests/golden/legacy, see
// gen.mjs and README.md there) and compares every column of every row with lance 12's
// reading of the same rows; takes of scattered rows; ranged reads through a store; the page
// statistics of v1 files; corrupt v1 files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "file/file_test_util.h"
#include "lance/columnar/json.h"
#include "lance/file/file_reader.h"
#include "lance/file/file_writer.h"
#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"

namespace lance::file {
namespace {

namespace fs = std::filesystem;
const fs::path kLegacyDir = fs::path(__FILE__).parent_path() / "../../tests/golden/legacy";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The raw JSON text of each top-level member of one canonical JSON object line.
std::map<std::string, std::string> TopLevelMembers(const std::string& line) {
  std::map<std::string, std::string> out;
  size_t p = 1;  // past '{'
  auto skip_string = [&](size_t q) {  // q at the opening quote; returns past the closing one
    for (++q; q < line.size() && line[q] != '"'; ++q) {
      if (line[q] == '\\') ++q;
    }
    return q + 1;
  };
  while (p < line.size() && line[p] != '}') {
    const size_t key_end = skip_string(p);
    const std::string key = nlohmann::json::parse(line.substr(p, key_end - p)).get<std::string>();
    size_t v = key_end + 1;  // past ':'
    size_t q = v;
    int depth = 0;
    while (q < line.size()) {
      const char c = line[q];
      if (c == '"') {
        q = skip_string(q);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (depth == 0) break;
        --depth;
      }
      if (c == ',' && depth == 0) break;
      ++q;
    }
    out[key] = line.substr(v, q - v);
    p = q + (q < line.size() && line[q] == ',' ? 1 : 0);
  }
  return out;
}

struct LegacyFile {
  std::string writer, dataset, path, file_version;
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;  // lance 12's, by offset
  fs::path file() const { return kLegacyDir / writer / (dataset + ".lance") / "data" / path; }
  bool v1() const { return file_version == "0.0" || file_version == "0.1" || file_version == "0.2"; }
  std::string name() const {
    std::string n = writer + "_" + dataset + "_" + path.substr(0, 8);
    for (char& c : n) {
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return n;
  }
};

void PrintTo(const LegacyFile& f, std::ostream* os) { *os << f.name(); }

std::vector<LegacyFile> AllFiles() {
  std::vector<LegacyFile> out;
  for (const char* w : {"v0_4_20", "v0_14_1", "v0_21_3"}) {
    const fs::path dir = kLegacyDir / "expected" / w;
    if (!fs::exists(dir)) continue;
    std::vector<fs::path> datasets;
    for (const auto& e : fs::directory_iterator(dir)) datasets.push_back(e.path());
    std::sort(datasets.begin(), datasets.end());
    for (const auto& ds : datasets) {
      std::vector<std::string> pool;
      std::istringstream lines(ReadText(ds / "rows.jsonl"));
      for (std::string l; std::getline(lines, l);) pool.push_back(l);
      const auto meta = nlohmann::json::parse(ReadText(ds / "lance12.json"));
      for (const auto& f : meta["files"]) {
        LegacyFile lf;
        lf.writer = w;
        lf.dataset = ds.filename().string();
        lf.path = f["path"];
        lf.file_version = f["file_version"];
        for (const auto& c : f["columns"]) lf.columns.push_back(c);
        for (const auto& r : f["rows"]) lf.rows.push_back(TopLevelMembers(pool.at(r.get<size_t>())));
        out.push_back(std::move(lf));
      }
    }
  }
  return out;
}

const std::vector<LegacyFile>& Files() {
  static const std::vector<LegacyFile> files = AllFiles();
  return files;
}

// `batch` (read for `rows` of the file) against lance 12's rows, column by column.
void ExpectRows(const LegacyFile& f, const RecordBatch& batch, const std::vector<int64_t>& rows) {
  ASSERT_EQ(batch.num_rows(), static_cast<int64_t>(rows.size()));
  ASSERT_EQ(batch.num_columns(), static_cast<int>(f.columns.size()));
  for (int c = 0; c < batch.num_columns(); ++c) {
    const std::string& name = f.columns[static_cast<size_t>(c)];
    ASSERT_EQ(batch.schema()->field(c)->name(), name);
    const Array& col = *batch.column(c);
    ASSERT_TRUE(col.ValidateFull().ok()) << name << ": " << col.ValidateFull().ToString();
    for (size_t k = 0; k < rows.size(); ++k) {
      std::string got;
      ASSERT_TRUE(AppendJsonValue(col, static_cast<int64_t>(k), &got).ok());
      const auto& want = f.rows[static_cast<size_t>(rows[k])].at(name);
      if (got != want) {
        ADD_FAILURE() << f.name() << " column '" << name << "' row " << rows[k] << ": lance 12 "
                      << want << ", we " << got;
        break;
      }
    }
  }
}

// Field indices of the file's columns that lance 12 shows (a file may hold fields the table
// dropped since).
std::vector<int> FieldIndices(const FileReader& r, const LegacyFile& f) {
  std::vector<int> out;
  for (const auto& name : f.columns) {
    for (int i = 0; i < r.schema()->num_fields(); ++i) {
      if (r.schema()->field(i)->name() == name) out.push_back(i);
    }
  }
  return out;
}

TEST(LegacyGoldens, EveryWriterLeftFiles) {
  std::map<std::string, int> v1, v2;
  for (const auto& f : Files()) (f.v1() ? v1 : v2)[f.writer]++;
  // vectordb 0.4.20 writes only v1 files; 0.14.1 both (legacy on request); 0.21.3 2.1.
  EXPECT_GE(v1["v0_4_20"], 10);
  EXPECT_GE(v1["v0_14_1"], 6);
  EXPECT_GE(v2["v0_14_1"], 8);
  EXPECT_GE(v2["v0_21_3"], 8);
}

class LegacyFileTest : public ::testing::TestWithParam<LegacyFile> {};

TEST_P(LegacyFileTest, EveryColumnEqualsLance12) {
  const LegacyFile& f = GetParam();
  auto reader = FileReader::Open(BufferFromString(ReadText(f.file())));
  ASSERT_TRUE(reader.ok()) << f.name() << ": " << reader.status().ToString();
  EXPECT_EQ((*reader)->version().is_v1(), f.v1());
  ASSERT_EQ((*reader)->num_rows(), static_cast<int64_t>(f.rows.size()));
  const auto fields = FieldIndices(**reader, f);
  ASSERT_EQ(fields.size(), f.columns.size());
  auto all = (*reader)->ReadAll(fields);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  std::vector<int64_t> rows(f.rows.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
  ExpectRows(f, **all, rows);
}

TEST_P(LegacyFileTest, TakeOfScatteredRowsEqualsLance12) {
  const LegacyFile& f = GetParam();
  auto reader = FileReader::Open(BufferFromString(ReadText(f.file())));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const int64_t n = (*reader)->num_rows();
  // Backwards, repeats, a stride, runs across batch edges (1023 | 1024 in the 2-batch file).
  std::vector<int64_t> rows = {n - 1, 0, n / 2, n / 2, n - 1};
  for (int64_t i = n - 1; i >= 0; i -= 7) rows.push_back(i);
  for (int64_t i = std::max<int64_t>(0, 1020); i < std::min<int64_t>(n, 1028); ++i) rows.push_back(i);
  const auto fields = FieldIndices(**reader, f);
  auto taken = (*reader)->Take(rows, fields);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ExpectRows(f, **taken, rows);
  auto range = (*reader)->ReadRange(n / 3, n - n / 3, fields);
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  std::vector<int64_t> ranged;
  for (int64_t i = n / 3; i < n; ++i) ranged.push_back(i);
  ExpectRows(f, **range, ranged);
}

// The file's fields rewritten by our writer of `version` (in three Write calls, so v1 files
// get several batches and 2.0 files several pages per column) and read back by our reader.
std::unique_ptr<FileReader> Rewrite(const FileReader& src, const std::vector<int>& fields,
                                    FileVersion version) {
  auto all = src.ReadAll(fields);
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  if (!all.ok()) return nullptr;
  const RecordBatch& b = **all;
  auto store = io::MemoryObjectStore::Make();
  WriteOptions wo;
  wo.version = version;
  auto w = FileWriter::Open(store, "f.lance", b.schema(), wo);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (!w.ok()) return nullptr;
  const int64_t n = b.num_rows(), step = std::max<int64_t>(1, n / 3 + 1);
  for (int64_t at = 0; at < n; at += step) {
    EXPECT_TRUE((*w)->Write(*b.Slice(at, std::min(step, n - at))).ok());
  }
  auto sum = (*w)->Finish();
  EXPECT_TRUE(sum.ok()) << sum.status().ToString();
  if (!sum.ok()) return nullptr;
  EXPECT_EQ(sum->num_rows, n);
  auto bytes = store->Get("f.lance");
  EXPECT_TRUE(bytes.ok());
  EXPECT_EQ(static_cast<int64_t>((*bytes)->size()), sum->size_bytes);
  auto r = FileReader::Open(*bytes);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return nullptr;
  return std::move(*r);
}

// What lance 12 writes into datasets of the file's storage version: v1 files (footer 0.2)
// into legacy datasets, 2.0 files (footer 0.3) into 2.0 ones; a v1 file's rows (no nulls but
// strings) also fit a 2.0 file. 2.1 files have nulls neither older version can hold.
TEST_P(LegacyFileTest, RewrittenAsV1Or20ReadsAsLance12) {
  const LegacyFile& f = GetParam();
  auto reader = FileReader::Open(BufferFromString(ReadText(f.file())));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<FileVersion> targets;
  if (f.v1()) targets.push_back(FileVersion{0, 2});
  if (f.v1() || (*reader)->version().is_legacy()) targets.push_back(FileVersion{0, 3});
  if (targets.empty()) {
    EXPECT_EQ((*reader)->version().major, 2) << "only 2.1+ files are not rewritten";
    return;
  }
  const auto fields = FieldIndices(**reader, f);
  for (const FileVersion v : targets) {
    SCOPED_TRACE(v.ToString());
    auto back = Rewrite(**reader, fields, v);
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(back->version().major, v.major);
    EXPECT_EQ(back->version().minor, v.minor);
    const int64_t n = back->num_rows();
    ASSERT_EQ(n, static_cast<int64_t>(f.rows.size()));
    std::vector<int> all_fields(static_cast<size_t>(back->schema()->num_fields()));
    for (size_t i = 0; i < all_fields.size(); ++i) all_fields[i] = static_cast<int>(i);
    auto got = back->ReadAll(all_fields);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = i;
    ExpectRows(f, **got, rows);
    std::vector<int64_t> scattered = {n - 1, 0, n / 2, n / 2};
    for (int64_t i = n - 1; i >= 0; i -= 5) scattered.push_back(i);
    auto taken = back->Take(scattered, all_fields);
    ASSERT_TRUE(taken.ok()) << taken.status().ToString();
    ExpectRows(f, **taken, scattered);
  }
}

INSTANTIATE_TEST_SUITE_P(Legacy, LegacyFileTest, ::testing::ValuesIn(Files()),
                         [](const auto& info) { return info.param.name(); });

const LegacyFile* BatchesFile() {
  for (const auto& f : Files()) {
    if (f.writer == "v0_4_20" && f.dataset == "batches") return &f;
  }
  return nullptr;
}

TEST(LegacyV1, TwoBatchesAndTheirStatistics) {
  const LegacyFile* f = BatchesFile();
  ASSERT_NE(f, nullptr);
  auto reader = FileReader::Open(BufferFromString(ReadText(f->file())));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->version().ToString(), "0.1");
  EXPECT_EQ((*reader)->LegacyBatchOffsets(), (std::vector<int64_t>{0, 1024, 1040}));
  // One column per field with pages (id, flag, str, lst, lst.item), a page per batch.
  ASSERT_EQ((*reader)->num_columns(), 5);
  for (const auto& col : (*reader)->columns()) EXPECT_EQ(col.pages.size(), 2u);
  EXPECT_EQ((*reader)->columns()[3].pages[0].num_rows, 1025);  // list offsets: rows + 1
  auto stats = (*reader)->LegacyStatistics();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_NE(*stats, nullptr);
  ASSERT_EQ((*stats)->num_rows(), 2);
  std::string text;
  ASSERT_TRUE(AppendJsonLines(**stats, &text).ok());
  // Per batch: id 0..1023 / 1024..1039; flag both values. The writer counted the real nulls
  // of str (ids % 9 == 4) and kept "" (ids % 9 == 5) as its minimum, which the nullable
  // statistics column reads back as null, like any empty v1 string.
  std::string want;
  for (int b = 0; b < 2; ++b) {
    const int64_t lo = b == 0 ? 0 : 1024, hi = b == 0 ? 1024 : 1040;
    int64_t null_str = 0, null_flag = 0;
    bool has_empty = false;
    std::string max_s;
    for (int64_t i = lo; i < hi; ++i) {
      null_str += (i % 9 == 4);
      null_flag += (i % 7 == 6);
      has_empty |= (i % 9 == 5);
      const std::string& s = f->rows[static_cast<size_t>(i)].at("str");
      if (s != "null") max_s = std::max(max_s, nlohmann::json::parse(s).get<std::string>());
    }
    ASSERT_TRUE(has_empty);
    want += "{\"0\":{\"null_count\":0,\"min_value\":" + std::to_string(lo) + ",\"max_value\":" +
            std::to_string(hi - 1) + "},\"1\":{\"null_count\":" + std::to_string(null_flag) +
            ",\"min_value\":false,\"max_value\":true},\"2\":{\"null_count\":" +
            std::to_string(null_str) + ",\"min_value\":null,\"max_value\":" +
            nlohmann::json(max_s).dump() + "}}\n";
  }
  EXPECT_EQ(text, want);
}

// Our v1 writer keeps the page statistics lance 12's does (the interop test compares them with
// lance 12's appends): per batch, the null count and the bounds of id, flag and str, none for
// the list. The golden's rows rewritten in three batches.
TEST(LegacyV1, WrittenStatisticsPerBatch) {
  const LegacyFile* f = BatchesFile();
  ASSERT_NE(f, nullptr);
  auto src = FileReader::Open(BufferFromString(ReadText(f->file())));
  ASSERT_TRUE(src.ok()) << src.status().ToString();
  auto back = Rewrite(**src, {0, 1, 2, 3}, FileVersion{0, 2});
  ASSERT_NE(back, nullptr);
  ASSERT_EQ(back->LegacyBatchOffsets(), (std::vector<int64_t>{0, 347, 694, 1040}));
  auto stats = back->LegacyStatistics();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_NE(*stats, nullptr);
  std::string text;
  ASSERT_TRUE(AppendJsonLines(**stats, &text).ok());
  auto rows = (*src)->ReadAll({0, 1, 2});
  ASSERT_TRUE(rows.ok());
  const Array& str = *(*rows)->column(2);
  std::string want;
  for (int64_t lo : {0, 347, 694}) {
    const int64_t hi = lo == 694 ? 1040 : lo + 347;
    int64_t nulls = 0;
    std::string mn, mx;
    bool any = false;
    for (int64_t i = lo; i < hi; ++i) {
      if (str.IsNull(i)) {
        ++nulls;
        continue;
      }
      const std::string v(str.GetView(i));
      if (!any || v < mn) mn = v;
      if (!any || v > mx) mx = v;
      any = true;
    }
    want += "{\"0\":{\"null_count\":0,\"min_value\":" + std::to_string(lo) + ",\"max_value\":" +
            std::to_string(hi - 1) + "},\"1\":{\"null_count\":0,\"min_value\":false,\"max_value\":true},"
            "\"2\":{\"null_count\":" + std::to_string(nulls) + ",\"min_value\":" + nlohmann::json(mn).dump() +
            ",\"max_value\":" + nlohmann::json(mx).dump() + "}}\n";
  }
  EXPECT_EQ(text, want);
}

TEST(LegacyV1, TakeThroughAStoreFetchesOnlyTheRows) {
  const LegacyFile* f = BatchesFile();
  ASSERT_NE(f, nullptr);
  auto local = io::LocalObjectStore::Make(f->file().parent_path().string(), {.sync = false});
  ASSERT_TRUE(local.ok());
  auto store = std::make_shared<ByteCountingStore>(*local);
  const int64_t size = static_cast<int64_t>(fs::file_size(f->file()));
  auto reader = FileReader::Open(store, f->path);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const int64_t opened = store->bytes;
  const std::vector<int64_t> rows = {1030, 3, 1023};
  auto taken = (*reader)->Take(rows);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ExpectRows(*f, **taken, rows);
  const int64_t took = store->bytes - opened;
  // The rows' positions, values and list items (the store merges ranges closer than its
  // coalescing gap, so a little more), not the columns.
  EXPECT_LT(took, size / 5) << "of a " << size << " byte file";
  EXPECT_GT(took, 0);
}

// Corrupt v1 files: a clear Corruption (or NotSupported), never a crash.
std::string BatchesBytes() { return ReadText(BatchesFile()->file()); }

void ExpectRefusedOrRead(const std::string& bytes, const std::string& what) {
  auto reader = FileReader::Open(BufferFromString(bytes));
  if (!reader.ok()) {
    EXPECT_TRUE(reader.status().IsCorruption() || reader.status().IsNotSupported())
        << what << ": " << reader.status().ToString();
    return;
  }
  auto all = (*reader)->ReadAll();
  if (all.ok()) {
    EXPECT_TRUE((*all)->Validate().ok()) << what;
  } else {
    EXPECT_TRUE(all.status().IsCorruption() || all.status().IsNotSupported())
        << what << ": " << all.status().ToString();
  }
  const int64_t n = (*reader)->num_rows();
  if (n > 0) (void)(*reader)->Take({n - 1, 0, n / 2});
  (void)(*reader)->LegacyStatistics();
}

TEST(LegacyV1Corruption, NamedDamage) {
  const std::string good = BatchesBytes();
  const size_t n = good.size();
  auto with_u64 = [&](size_t at, uint64_t v) {
    std::string s = good;
    std::memcpy(s.data() + at, &v, 8);
    return s;
  };
  const uint64_t meta_pos = [&] {
    uint64_t v;
    std::memcpy(&v, good.data() + n - 16, 8);
    return v;
  }();
  // Metadata position past the file / at garbage.
  auto r = FileReader::Open(BufferFromString(with_u64(n - 16, n)));
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  r = FileReader::Open(BufferFromString(with_u64(n - 16, 3)));
  EXPECT_TRUE(r.status().IsCorruption() || r.status().IsNotSupported()) << r.status().ToString();
  // A metadata length past the file.
  {
    std::string s = good;
    const uint32_t huge = 0x7fffffff;
    std::memcpy(s.data() + meta_pos, &huge, 4);
    r = FileReader::Open(BufferFromString(s));
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  }
  // Every page-table entry pointed past the end in turn: Open or the read says Corruption.
  auto reader = FileReader::Open(BufferFromString(good));
  ASSERT_TRUE(reader.ok());
  int broken = 0;
  for (const auto& col : (*reader)->columns()) {
    for (const auto& page : col.pages) {
      // Find the entry (position, length) in the page table and break its position.
      const auto pos = static_cast<uint64_t>(page.buffers[0].first);
      for (size_t at = 0; at + 16 <= n - 16; at += 1) {
        uint64_t p, l;
        std::memcpy(&p, good.data() + at, 8);
        std::memcpy(&l, good.data() + at + 8, 8);
        if (p == pos && static_cast<int64_t>(l) == page.num_rows && at > n / 2) {
          ++broken;
          const std::string bad = with_u64(at, n + 100);
          auto opened = FileReader::Open(BufferFromString(bad));
          Status st = opened.status();
          if (opened.ok()) st = (*opened)->ReadAll().status();
          EXPECT_TRUE(st.IsCorruption()) << "page at " << pos << ": " << st.ToString();
          // A row count beyond the bytes that follow.
          const std::string longer = with_u64(at + 8, uint64_t{1} << 40);
          ExpectRefusedOrRead(longer, "long page");
          break;
        }
      }
    }
  }
  EXPECT_EQ(broken, 10);  // 5 columns x 2 batches
  // String positions going backwards: the read says Corruption.
  {
    const auto& str_page = (*reader)->columns()[2].pages[0];
    const size_t positions = str_page.buffers[0].first;
    const std::string bad = with_u64(positions + 8 * 10, 0);
    auto opened = FileReader::Open(BufferFromString(bad));
    ASSERT_TRUE(opened.ok());
    auto all = (*opened)->ReadAll();
    EXPECT_TRUE(all.status().IsCorruption()) << all.status().ToString();
    auto one = (*opened)->Take({9});
    EXPECT_TRUE(one.status().IsCorruption()) << one.status().ToString();
  }
}

TEST(LegacyV1Corruption, TruncatedFilesAreRejected) {
  const std::string good = BatchesBytes();
  for (size_t keep : {size_t{0}, size_t{10}, size_t{16}, good.size() / 2, good.size() - 17,
                      good.size() - 1}) {
    std::string cut = good.substr(0, keep);
    auto reader = FileReader::Open(BufferFromString(cut));
    EXPECT_FALSE(reader.ok()) << keep;
    if (!reader.ok()) {
      EXPECT_TRUE(reader.status().IsCorruption()) << keep << ": " << reader.status().ToString();
    }
  }
  // The tail kept (footer intact) but the front cut away.
  ExpectRefusedOrRead(good.substr(good.size() / 3), "front cut");
}

TEST(LegacyV1Corruption, FlippedBytesNeverCrash) {
  for (const auto& f : Files()) {
    if (!f.v1() || f.dataset != "types") continue;
    const std::string good = ReadText(f.file());
    for (size_t at = 0; at < good.size(); at += 1 + good.size() / 300) {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ 0x5a);
      ExpectRefusedOrRead(bad, f.name() + " byte " + std::to_string(at));
    }
    // The metadata and schema region byte by byte.
    for (size_t at = good.size() > 600 ? good.size() - 600 : 0; at < good.size(); ++at) {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ 0xff);
      ExpectRefusedOrRead(bad, f.name() + " tail byte " + std::to_string(at));
    }
    break;
  }
}

}  // namespace
}  // namespace lance::file
