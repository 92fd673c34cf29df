// Reads lance 12's per-value compressed full-zip pages (tests/golden/lance_file/zipped_*.lance,
// see gen_zipped.mjs there): value encoding "general(zstd, variable(flat(32|64)))", one u64 size
// and zstd frame per value, which lance 12 chooses when a value is over 32 KiB (its wide BITMAP
// index files too). Full reads and takes must equal what lance 12 itself reads from the files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "file/file_test_util.h"
#include "lance/columnar/json.h"
#include "lance/file/file_reader.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/local_object_store.h"

namespace lance::file {
namespace {

const std::filesystem::path kZippedGoldenDir =
    std::filesystem::path(__FILE__).parent_path() / "../../tests/golden/lance_file";

// The rows gen_zipped.mjs took through lance 12's takeOffsets (its TAKE_ROWS).
const std::vector<int64_t> kZippedTakeRows = {29, 0, 15, 7, 7, 13, 2, 28, 1, 19, 11, 16};

std::string ZippedGoldenText(const std::string& name) {
  std::ifstream in(kZippedGoldenDir / name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every column of `actual` equals `expected`, else the first differing row is named.
void ExpectZippedRowsEqual(const RecordBatch& expected, const RecordBatch& actual) {
  ASSERT_EQ(expected.num_columns(), actual.num_columns());
  ASSERT_EQ(expected.num_rows(), actual.num_rows());
  for (int c = 0; c < expected.num_columns(); ++c) {
    ASSERT_TRUE(actual.column(c)->Validate().ok()) << actual.column(c)->Validate().ToString();
    if (expected.column(c)->Equals(*actual.column(c))) continue;
    for (int64_t r = 0; r < expected.num_rows(); ++r) {
      std::string e, a;
      ASSERT_TRUE(AppendJsonValue(*expected.column(c), r, &e).ok());
      ASSERT_TRUE(AppendJsonValue(*actual.column(c), r, &a).ok());
      if (e != a) {
        ADD_FAILURE() << "column '" << expected.schema()->field(c)->name() << "' row " << r
                      << ": expected " << e.substr(0, 80) << "... got " << a.substr(0, 80) << "...";
        break;
      }
    }
    ADD_FAILURE() << "column '" << expected.schema()->field(c)->name() << "' differs";
  }
}

class ZippedFileTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto reader = FileReader::Open(BufferFromString(ZippedGoldenText(GetParam() + ".lance")));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    reader_ = std::move(*reader);
  }
  Result<RecordBatchPtr> Expected(const std::string& name) const {
    return ReadJsonLines(ZippedGoldenText(name), reader_->schema());
  }
  // lance 12's takeOffsets answers in row order (repeats kept): its rows put back in the
  // order of kZippedTakeRows, by their id (column 0, the row number).
  Result<RecordBatchPtr> ExpectedTake() const {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr theirs, Expected("zipped_take.jsonl"));
    std::vector<int64_t> sorted = kZippedTakeRows;
    std::sort(sorted.begin(), sorted.end());
    const Array& ids = *theirs->column(0);
    if (ids.length != static_cast<int64_t>(sorted.size())) return Status::InvalidArgument("take: {} rows", ids.length);
    std::vector<ArrayPtr> columns;
    for (int c = 0; c < theirs->num_columns(); ++c) {
      std::vector<ArrayPtr> pieces;
      for (int64_t r : kZippedTakeRows) {
        const auto at = std::lower_bound(sorted.begin(), sorted.end(), r) - sorted.begin();
        if (ids.Values<int32_t>()[at] != r) return Status::InvalidArgument("take: row {} has id {}", at, ids.Values<int32_t>()[at]);
        pieces.push_back(theirs->column(c)->Slice(at, 1));
      }
      LANCE_ASSIGN_OR_RAISE(ArrayPtr column, Concatenate(pieces));
      columns.push_back(std::move(column));
    }
    return RecordBatch::Make(theirs->schema(), static_cast<int64_t>(kZippedTakeRows.size()), std::move(columns));
  }
  std::unique_ptr<FileReader> reader_;
};

// The file really holds the encoding under test: every string column is per-value zstd.
TEST_P(ZippedFileTest, HoldsPerValueZstdPages) {
  int zipped = 0;
  for (const auto& col : reader_->columns()) {
    for (const auto& page : col.pages) {
      zipped += page.description.find("full_zip(values=general(zstd, variable(flat(") == 0 ? 1 : 0;
    }
  }
  EXPECT_EQ(zipped, 3);
}

TEST_P(ZippedFileTest, ReadsAllRowsAsLance12) {
  auto expected = Expected("zipped.jsonl");
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  auto all = reader_->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ExpectZippedRowsEqual(**expected, **all);
}

TEST_P(ZippedFileTest, TakesAsLance12) {
  auto expected = ExpectedTake();
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  auto taken = reader_->Take(kZippedTakeRows);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ExpectZippedRowsEqual(**expected, **taken);
  // One row at a time (a single value's bytes through the repetition index).
  for (size_t i = 0; i < kZippedTakeRows.size(); ++i) {
    auto one = reader_->Take({kZippedTakeRows[i]});
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    ExpectZippedRowsEqual(*(*expected)->Slice(static_cast<int64_t>(i), 1), **one);
  }
}

TEST_P(ZippedFileTest, RangesAsLance12) {
  auto expected = Expected("zipped.jsonl");
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  for (auto [start, len] : {std::pair<int64_t, int64_t>{0, 1}, {14, 3}, {15, 15}, {29, 1}}) {
    auto range = reader_->ReadRange(start, len);
    ASSERT_TRUE(range.ok()) << range.status().ToString();
    ExpectZippedRowsEqual(*(*expected)->Slice(start, len), **range);
  }
}

// Through an object store, a take of one small row reads less than the file's data.
TEST_P(ZippedFileTest, StoreTakeReadsOnlyItsRows) {
  auto local = io::LocalObjectStore::Make(kZippedGoldenDir.string(), {.sync = false});
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  auto store = std::make_shared<ByteCountingStore>(*local);
  auto reader = FileReader::Open(store, GetParam() + ".lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto expected = ExpectedTake();
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  const int64_t after_open = store->bytes;
  auto taken = (*reader)->Take(kZippedTakeRows);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ExpectZippedRowsEqual(**expected, **taken);
  EXPECT_GT(store->bytes, after_open);
}

INSTANTIATE_TEST_SUITE_P(Zipped, ZippedFileTest, ::testing::Values("zipped_2_1", "zipped_2_2"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// A per-value frame that is cut or whose size claim is wrong is Corruption, never a crash.
TEST(ZippedFileCorruption, DamagedFramesAreCorruption) {
  const std::string bytes = ZippedGoldenText("zipped_2_2.lance");
  auto reader = FileReader::Open(BufferFromString(bytes));
  ASSERT_TRUE(reader.ok());
  // Every byte of the column data (before the metadata), flipped one at a time at a stride.
  const auto& pages = (*reader)->columns()[1].pages;
  ASSERT_FALSE(pages.empty());
  int errors = 0;
  for (const auto& [pos, size] : pages[0].buffers) {
    for (uint64_t at = pos; at < pos + size; at += 7) {
      std::string damaged = bytes;
      damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
      auto r = FileReader::Open(BufferFromString(damaged));
      if (!r.ok()) continue;
      auto all = (*r)->ReadAll();
      if (!all.ok()) {
        EXPECT_TRUE(all.status().IsCorruption() || all.status().IsNotSupported())
            << all.status().ToString();
        ++errors;
      }
    }
  }
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace lance::file
