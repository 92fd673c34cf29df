// Reads the golden files written by the reference implementation (tests/golden/lance_file,
// see gen.mjs there) and compares every column with the rows the generator fed it.
#include "lance/file/file_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "lance/columnar/json.h"
#include "file/file_test_util.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/local_object_store.h"

namespace lance::file {
namespace {

const std::filesystem::path kReaderGoldenDir =
    std::filesystem::path(__FILE__).parent_path() / "../../tests/golden/lance_file";

std::string ReadGoldenText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

BufferPtr ReadGoldenBuffer(const std::string& stem) {
  return BufferFromString(ReadGoldenText(kReaderGoldenDir / (stem + ".lance")));
}

// `<table>_<version>.jsonl` when the version got different input, else `<table>.jsonl`.
std::string ExpectedRows(const std::string& table, const std::string& version) {
  const auto specific = kReaderGoldenDir / (table + "_" + version + ".jsonl");
  if (std::filesystem::exists(specific)) return ReadGoldenText(specific);
  return ReadGoldenText(kReaderGoldenDir / (table + ".jsonl"));
}

// Compares column by column and names the first differing row.
void ExpectReadEqual(const RecordBatch& expected, const RecordBatch& actual) {
  ASSERT_EQ(expected.num_columns(), actual.num_columns());
  ASSERT_EQ(expected.num_rows(), actual.num_rows());
  for (int c = 0; c < expected.num_columns(); ++c) {
    const Array& e = *expected.column(c);
    const Array& a = *actual.column(c);
    ASSERT_TRUE(a.Validate().ok()) << expected.schema()->field(c)->name() << ": "
                                   << a.Validate().ToString();
    if (e.Equals(a)) continue;
    for (int64_t r = 0; r < e.length; ++r) {
      std::string ev, av;
      ASSERT_TRUE(AppendJsonValue(e, r, &ev).ok());
      ASSERT_TRUE(AppendJsonValue(a, r, &av).ok());
      if (ev != av) {
        ADD_FAILURE() << "column '" << expected.schema()->field(c)->name() << "' row " << r
                      << ": expected " << ev << " got " << av;
        break;
      }
    }
    ADD_FAILURE() << "column '" << expected.schema()->field(c)->name() << "' differs";
  }
}

struct Golden {
  std::string table;
  std::string version;  // "2_0", "2_1", "2_2"
  std::string stem() const { return table + "_" + version; }
};

void PrintTo(const Golden& g, std::ostream* os) { *os << g.stem(); }

// Rows `rows` of `all` (in that order, repeats allowed), cut from a full read: what a take
// must return.
Result<RecordBatchPtr> RowsOf(const RecordBatch& all, const std::vector<int64_t>& rows) {
  std::vector<ArrayPtr> cols;
  for (const auto& col : all.columns()) {
    std::vector<ArrayPtr> pieces;
    for (int64_t r : rows) pieces.push_back(col->Slice(r, 1));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr cat, Concatenate(pieces));
    cols.push_back(std::move(cat));
  }
  return RecordBatch::Make(all.schema(), static_cast<int64_t>(rows.size()), std::move(cols));
}

class GoldenFileTest : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenFileTest, ReadsAllRows) {
  const Golden& g = GetParam();
  auto reader = FileReader::Open(ReadGoldenBuffer(g.stem()));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const std::string want_version = g.version.substr(0, 1) + "." + g.version.substr(2);
  EXPECT_EQ((*reader)->version().ToString(), want_version);
  auto expected = ReadJsonLines(ExpectedRows(g.table, g.version), (*reader)->schema());
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  EXPECT_EQ((*reader)->num_rows(), (*expected)->num_rows());
  auto batch = (*reader)->ReadAll();
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ExpectReadEqual(**expected, **batch);
}

TEST_P(GoldenFileTest, ReadsRangesAndRows) {
  const Golden& g = GetParam();
  auto reader = FileReader::Open(ReadGoldenBuffer(g.stem()));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto expected = ReadJsonLines(ExpectedRows(g.table, g.version), (*reader)->schema());
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  const int64_t n = (*reader)->num_rows();
  ASSERT_GE(n, 8);

  auto range = (*reader)->ReadRange(n / 3, n / 2, {0, (*reader)->schema()->num_fields() - 1});
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  const int last = (*expected)->num_columns() - 1;
  auto want_range = RecordBatch::Make(
      (*range)->schema(), n / 2,
      {(*expected)->column(0)->Slice(n / 3, n / 2), (*expected)->column(last)->Slice(n / 3, n / 2)});
  ASSERT_TRUE(want_range.ok());
  ExpectReadEqual(**want_range, **range);

  const std::vector<int64_t> rows = {n - 1, 0, 7, 7, n / 2};
  auto taken = (*reader)->Take(rows);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  auto want_take = RowsOf(**expected, rows);
  ASSERT_TRUE(want_take.ok()) << want_take.status().ToString();
  ExpectReadEqual(**want_take, **taken);

  EXPECT_TRUE((*reader)->Take({n}).status().IsInvalidArgument());
  EXPECT_TRUE((*reader)->ReadRange(n - 1, 2).status().IsInvalidArgument());
}

// Every row, in a scattered order with repeats, through Take (per-value mini-block decoding,
// ranged full-zip rows, whole-page fallbacks) equals the same rows of a full read.
TEST_P(GoldenFileTest, TakeOfScatteredRowsMatchesFullRead) {
  const Golden& g = GetParam();
  auto reader = FileReader::Open(ReadGoldenBuffer(g.stem()));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  const int64_t n = (*reader)->num_rows();
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < n; ++i) rows.push_back((i * 7919) % n);  // a permutation when n % 7919
  rows.push_back(n - 1);
  rows.push_back(0);
  auto taken = (*reader)->Take(rows);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  auto want = RowsOf(**all, rows);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ExpectReadEqual(**want, **taken);
}

// Every row taken alone, in a scattered order with repeats, equals the same row of a full
// read (nested columns locate each row through the repetition index on their own).
TEST_P(GoldenFileTest, TakeRowByRowMatchesFullRead) {
  const Golden& g = GetParam();
  auto reader = FileReader::Open(ReadGoldenBuffer(g.stem()));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  const int64_t n = (*reader)->num_rows();
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < n; ++i) rows.push_back((i * 7919 + 13) % n);
  for (int64_t i = 0; i < n; i += 97) rows.push_back(i);
  for (int64_t r : rows) {
    auto taken = (*reader)->Take({r});
    ASSERT_TRUE(taken.ok()) << "row " << r << ": " << taken.status().ToString();
    for (int c = 0; c < (*all)->num_columns(); ++c) {
      const Array& got = *(*taken)->column(c);
      ASSERT_TRUE(got.Validate().ok()) << "row " << r;
      if (got.Equals(*(*all)->column(c)->Slice(r, 1))) continue;
      std::string want_json, got_json;
      ASSERT_TRUE(AppendJsonValue(*(*all)->column(c), r, &want_json).ok());
      ASSERT_TRUE(AppendJsonValue(got, 0, &got_json).ok());
      ADD_FAILURE() << "column '" << (*all)->schema()->field(c)->name() << "' row " << r
                    << ": expected " << want_json << " got " << got_json;
      return;
    }
  }
}

std::vector<Golden> AllGolden() {
  std::vector<Golden> out;
  for (const char* table : {"primitives", "strings", "special", "nested", "big", "wide", "deep", "tuned"}) {
    for (const char* version : {"2_0", "2_1", "2_2"}) out.push_back({table, version});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenFileTest, ::testing::ValuesIn(AllGolden()),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                           return info.param.stem();
                         });

// Through an object store the reader fetches the metadata in one ranged read at Open and then
// only the page buffers of the requested columns; results equal the whole-buffer reader's.
TEST(FileReaderObjectStore, RangedReadsMatchWholeFile) {
  auto local = io::LocalObjectStore::Make(kReaderGoldenDir.string(), {.sync = false});
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  auto store = std::make_shared<io::FaultInjectingObjectStore>(*local);
  for (const char* stem : {"big_2_2", "nested_2_1", "primitives_2_0"}) {
    store->ResetCounts();
    auto reader = FileReader::Open(store, std::string(stem) + ".lance");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ(store->count(io::ObjectOp::kGet), 0);
    EXPECT_EQ(store->count(io::ObjectOp::kGetRange), 1) << stem;
    auto whole = FileReader::Open(ReadGoldenBuffer(stem));
    ASSERT_TRUE(whole.ok());
    auto want = (*whole)->ReadAll();
    ASSERT_TRUE(want.ok());
    auto got = (*reader)->ReadAll();
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectReadEqual(**want, **got);
    EXPECT_EQ(store->count(io::ObjectOp::kGet), 0);

    // One column: only its buffers are read.
    store->ResetCounts();
    auto one = (*reader)->ReadAll({1});
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    EXPECT_LE(store->count(io::ObjectOp::kGetRange), 4) << stem;
  }
  // A failing read surfaces as an error, not a crash or a partial batch.
  auto reader = FileReader::Open(store, "big_2_2.lance");
  ASSERT_TRUE(reader.ok());
  store->AddRule({.ops = io::OpBit(io::ObjectOp::kGetRange), .times = -1});
  EXPECT_FALSE((*reader)->ReadAll().ok());
  store->ClearRules();
  EXPECT_TRUE(FileReader::Open(store, "missing.lance").status().IsNotFound());
}

// Taking a few rows of a mini-block column reads the chunk metadata and the chunks holding
// them, not the whole column; results equal a full read.
TEST(FileReaderObjectStore, TakeReadsOnlyNeededChunks) {
  auto local = io::LocalObjectStore::Make(kReaderGoldenDir.string(), {.sync = false});
  ASSERT_TRUE(local.ok());
  auto store = std::make_shared<ByteCountingStore>(*local);
  auto reader = FileReader::Open(store, "big_2_2.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const int seq = (*reader)->schema()->GetFieldIndex("seq");
  ASSERT_GE(seq, 0);
  const auto& pages = (*reader)->columns()[0].pages;
  ASSERT_EQ(pages.size(), 1u);
  ASSERT_GE(pages[0].buffers.size(), 2u);
  const int64_t column_bytes = static_cast<int64_t>(pages[0].buffers[1].second);

  store->bytes = 0;
  auto one = (*reader)->Take({2500}, {seq});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ((*one)->column(0)->Values<int64_t>()[0], 2500);
  EXPECT_LT(store->bytes, column_bytes / 2) << "read " << store->bytes << " of " << column_bytes;

  store->bytes = 0;
  auto range = (*reader)->ReadRange(1020, 10, {seq});
  ASSERT_TRUE(range.ok()) << range.status().ToString();
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ((*range)->column(0)->Values<int64_t>()[i], 1020 + i);
}

// Taking rows of full-zip columns (long strings with control words, a fixed-size list without
// them, binaries) reads those rows' bytes (found through the repetition index, or at a fixed
// stride) and two index entries per run, not the page: a bounded number of bytes per row.
TEST(FileReaderObjectStore, TakeReadsOnlyNeededFullZipRows) {
  auto local = io::LocalObjectStore::Make(kReaderGoldenDir.string(), {.sync = false});
  ASSERT_TRUE(local.ok());
  auto store = std::make_shared<ByteCountingStore>(*local);
  store->set_coalesce_options({.max_gap = 0});  // count what the reader asks for, no gap fill
  auto reader = FileReader::Open(store, "wide_2_2.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto whole = (*reader)->ReadAll();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  const std::vector<int64_t> rows = {11, 5, 6, 12};  // 6 holds a null doc
  for (int field = 0; field < 3; ++field) {
    const auto& page = (*reader)->columns()[static_cast<size_t>(field)].pages.at(0);
    ASSERT_EQ(page.description.rfind("full_zip", 0), 0u) << page.description;
    const auto page_bytes = static_cast<int64_t>(page.buffers[0].second);
    const Array& full = *(*whole)->column(field);
    int64_t row_bytes = 0;  // an upper bound of the bytes of the taken rows
    for (int64_t r : rows) {
      std::string json;
      ASSERT_TRUE(AppendJsonValue(full, r, &json).ok());
      row_bytes += static_cast<int64_t>(json.size()) + 16;
    }
    store->bytes = 0;
    auto taken = (*reader)->Take(rows, {field});
    ASSERT_TRUE(taken.ok()) << taken.status().ToString();
    for (size_t i = 0; i < rows.size(); ++i) {
      std::string want, got;
      ASSERT_TRUE(AppendJsonValue(full, rows[i], &want).ok());
      ASSERT_TRUE(AppendJsonValue(*(*taken)->column(0), static_cast<int64_t>(i), &got).ok());
      EXPECT_EQ(want, got) << "field " << field << " row " << rows[i];
    }
    EXPECT_LT(store->bytes, page_bytes / 2) << "field " << field;
    EXPECT_LE(store->bytes, row_bytes) << "field " << field;
  }
}

// Every truncation of a file must fail cleanly: the footer moves, so offsets point past the end.
TEST(FileReaderCorruption, TruncatedFilesAreRejected) {
  for (const char* stem : {"nested_2_2", "strings_2_1", "primitives_2_0"}) {
    const std::string bytes = ReadGoldenText(kReaderGoldenDir / (std::string(stem) + ".lance"));
    for (size_t cut : {size_t{0}, size_t{3}, size_t{39}, size_t{40}, bytes.size() / 2,
                       bytes.size() - 41, bytes.size() - 1}) {
      auto reader = FileReader::Open(BufferFromString(bytes.substr(0, cut)));
      if (reader.ok()) {
        EXPECT_FALSE((*reader)->ReadAll().ok()) << stem << " cut at " << cut;
      } else {
        EXPECT_TRUE(reader.status().IsCorruption() || reader.status().IsNotSupported())
            << stem << " cut at " << cut << ": " << reader.status().ToString();
      }
    }
  }
}

TEST(FileReaderCorruption, BadMagicAndVersion) {
  std::string bytes = ReadGoldenText(kReaderGoldenDir / "primitives_2_2.lance");
  std::string bad_magic = bytes;
  bad_magic[bad_magic.size() - 1] = 'X';
  EXPECT_TRUE(FileReader::Open(BufferFromString(bad_magic)).status().IsCorruption());
  std::string bad_version = bytes;
  bad_version[bad_version.size() - 8] = 9;  // major 9
  EXPECT_TRUE(FileReader::Open(BufferFromString(bad_version)).status().IsNotSupported());
}

// Flipping bytes anywhere (data pages, metadata, offset tables) must never crash: each read
// either succeeds or reports an error.
TEST(FileReaderCorruption, FlippedBytesNeverCrash) {
  for (const char* stem : {"nested_2_2", "big_2_2", "special_2_1", "strings_2_2", "wide_2_2",
                           "nested_2_0"}) {
    const std::string bytes = ReadGoldenText(kReaderGoldenDir / (std::string(stem) + ".lance"));
    uint32_t state = 12345;
    for (int trial = 0; trial < 300; ++trial) {
      std::string copy = bytes;
      state = state * 1103515245u + 12345u;
      // Bias towards the metadata at the end of the file, where the structure lives.
      const size_t tail = std::min<size_t>(copy.size(), 4096);
      const size_t pos = (trial % 2) ? copy.size() - 1 - (state >> 8) % tail
                                     : (state >> 8) % copy.size();
      copy[pos] = static_cast<char>(copy[pos] ^ (1 + (state >> 24) % 255));
      auto reader = FileReader::Open(BufferFromString(copy));
      if (!reader.ok()) continue;
      auto batch = (*reader)->ReadAll();
      if (batch.ok()) {
        EXPECT_TRUE((*batch)->Validate().ok()) << stem << " byte " << pos;
      }
      if ((*reader)->num_rows() > 1) {
        auto taken = (*reader)->Take({(*reader)->num_rows() - 1, 0});
        if (taken.ok()) {
          EXPECT_TRUE((*taken)->Validate().ok()) << stem << " byte " << pos;
        }
      }
    }
  }
}

}  // namespace
}  // namespace lance::file
