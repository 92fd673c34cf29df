// Ranged reads decode whole mini-block chunks (runs of consecutive values) and takes of a few
// values decode only those (bit-packed blocks, variable-width and FSST values); dictionary
// pages can come back as dictionary indices (ReadOptions::keep_dictionaries). Every result is
// compared with the same rows of a full read: random ranges, ranges across chunk and page
// boundaries, nullable columns, scattered takes with repeats.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/file/file_reader.h"
#include "lance/file/file_writer.h"
#include "file/file_test_util.h"
#include "lance/io/memory_object_store.h"

namespace lance::file {
namespace {

const char* const kWords[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
                              "hotel", "india", "juliet", "kilo", "lima"};

SchemaPtr RangeSchema() {
  return schema({
      field("id", int64(), false),      // bit-packed
      field("score", float64(), false),  // flat
      field("cat", utf8(), false),       // few distinct values: dictionary pages
      field("text", utf8(), false),      // long repetitive strings: FSST
      field("ncat", utf8(), true),       // dictionary-like with nulls (definition levels)
      field("nint", int32(), true),      // nullable integers
  });
}

std::string RangeRows(int64_t n) {
  std::mt19937_64 rng(7);
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    out += "{\"id\":" + std::to_string(i * 3 + static_cast<int64_t>(r % 5));
    out += ",\"score\":" + std::to_string(static_cast<double>(r % 10000) / 100.0);
    out += ",\"cat\":\"c" + std::to_string((r >> 8) % 23) + "\"";
    std::string text;
    for (int k = 0; k < 3 + static_cast<int>((r >> 16) % 6); ++k) {
      text += std::string(kWords[(r >> (20 + k * 3)) % 12]) + " ";
    }
    out += ",\"text\":\"" + text + std::to_string(i % 97) + "\"";
    out += (i % 11 == 4) ? ",\"ncat\":null" : ",\"ncat\":\"n" + std::to_string((r >> 40) % 5) + "\"";
    out += (i % 7 == 2) ? ",\"nint\":null" : ",\"nint\":" + std::to_string(static_cast<int32_t>(r >> 33));
    out += "}\n";
  }
  return out;
}

struct Case {
  uint16_t minor;
  int64_t max_chunk_values;
  int64_t max_page_bytes;
};

std::string Name(const Case& c) {
  return "v2_" + std::to_string(c.minor) + "_chunk" + std::to_string(c.max_chunk_values) + "_page" +
         std::to_string(c.max_page_bytes);
}

class RangeReadTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case& c = GetParam();
    WriteOptions options;
    options.version = {2, c.minor};
    options.max_chunk_values = c.max_chunk_values;
    options.max_page_bytes = c.max_page_bytes;
    auto batch = ReadJsonLines(RangeRows(kRows), RangeSchema());
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    auto store = io::MemoryObjectStore::Make();
    auto writer = FileWriter::Open(store, "f.lance", RangeSchema(), options);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->Write(**batch).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
    // Ranged reads from the store (the table layer's point reads) and slices of the whole
    // file in memory (its mapped files) take different fetch paths.
    auto ranged = FileReader::Open(store, "f.lance");
    ASSERT_TRUE(ranged.ok()) << ranged.status().ToString();
    ranged_ = std::move(*ranged);
    auto bytes = store->Get("f.lance");
    ASSERT_TRUE(bytes.ok());
    auto whole = FileReader::Open(*bytes);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    whole_ = std::move(*whole);
    auto all = whole_->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    all_ = *all;
    ASSERT_TRUE(all_->Equals(**batch));
  }

  // Row `r` of column `c` of the full read, as JSON.
  std::string Want(int c, int64_t r) const {
    std::string s;
    EXPECT_TRUE(AppendJsonValue(*all_->column(c), r, &s).ok());
    return s;
  }

  // `got` holds rows `rows` of the file; dictionary columns are compared by the values their
  // indices name.
  void ExpectRows(const RecordBatch& got, const std::vector<int64_t>& rows,
                  const std::string& what) const {
    ASSERT_EQ(got.num_rows(), static_cast<int64_t>(rows.size())) << what;
    ASSERT_EQ(got.num_columns(), all_->num_columns()) << what;
    for (int c = 0; c < got.num_columns(); ++c) {
      const Array& col = *got.column(c);
      ASSERT_TRUE(col.Validate().ok()) << what << " column " << c;
      for (size_t i = 0; i < rows.size(); ++i) {
        std::string v;
        if (col.type_id() == TypeId::kDictionary) {
          ASSERT_TRUE(col.IsValid(static_cast<int64_t>(i)));
          const int64_t k = col.DictionaryIndex(static_cast<int64_t>(i));
          ASSERT_GE(k, 0);
          ASSERT_LT(k, col.dictionary->length);
          ASSERT_TRUE(AppendJsonValue(*col.dictionary, k, &v).ok());
        } else {
          ASSERT_TRUE(AppendJsonValue(col, static_cast<int64_t>(i), &v).ok());
        }
        ASSERT_EQ(v, Want(c, rows[i])) << what << ": column " << all_->schema()->field(c)->name()
                                       << " row " << rows[i];
      }
    }
  }

  std::vector<int64_t> PageBoundaries() const { return file::PageBoundaries(*whole_); }

  static constexpr int64_t kRows = 9000;
  std::unique_ptr<FileReader> ranged_, whole_;
  RecordBatchPtr all_;
};

TEST_P(RangeReadTest, EncodingsAreThoseUnderTest) {
  const auto& cols = whole_->columns();
  ASSERT_EQ(cols.size(), 6u);
  EXPECT_NE(cols[0].pages[0].description.find("bitpacking"), std::string::npos)
      << cols[0].pages[0].description;
  for (const auto& page : cols[2].pages) {
    EXPECT_NE(page.description.find("dictionary"), std::string::npos) << page.description;
  }
  // Small chunks of text stay plain variable-width values (the other take path).
  const bool fsst = cols[3].pages[0].description.find("fsst") != std::string::npos;
  EXPECT_EQ(fsst, GetParam().max_chunk_values >= 1024) << cols[3].pages[0].description;
  EXPECT_NE(cols[4].pages[0].description.find("def="), std::string::npos)
      << cols[4].pages[0].description;
  // One column per field here: a field's bytes are its column's page buffers.
  for (int f = 0; f < 6; ++f) {
    int64_t bytes = 0;
    for (const auto& page : cols[static_cast<size_t>(f)].pages) {
      for (const auto& b : page.buffers) bytes += static_cast<int64_t>(b.second);
    }
    EXPECT_GT(bytes, 0);
    EXPECT_EQ(whole_->FieldBytes(f), bytes) << f;
    EXPECT_EQ(ranged_->FieldBytes(f), bytes) << f;
  }
  EXPECT_EQ(whole_->FieldBytes(-1), 0);
  EXPECT_EQ(whole_->FieldBytes(6), 0);
}

// Random ranges, ranges around page boundaries, single rows, whole chunks and the whole file:
// with and without dictionary indices, from both readers.
TEST_P(RangeReadTest, RangesEqualFullRead) {
  std::mt19937_64 rng(11);
  std::vector<std::pair<int64_t, int64_t>> ranges = {
      {0, 1}, {0, kRows}, {kRows - 1, 1}, {0, 4096}, {4096, 4096}, {63, 130}, {kRows - 300, 300}};
  for (int k = 0; k < 40; ++k) {
    const int64_t start = static_cast<int64_t>(rng() % kRows);
    const int64_t len = 1 + static_cast<int64_t>(rng() % std::min<int64_t>(kRows - start, k % 3 ? 200 : 5000));
    ranges.emplace_back(start, len);
  }
  const auto boundaries = PageBoundaries();
  if (GetParam().max_page_bytes < (1 << 20)) {
    ASSERT_GE(boundaries.size(), 3u);
  }
  for (int64_t b : boundaries) {
    ranges.emplace_back(std::max<int64_t>(0, b - 9), std::min<int64_t>(25, kRows - b + 9));
    ranges.emplace_back(b, 1);
    ranges.emplace_back(std::max<int64_t>(0, b - 1), 1);
  }
  for (const auto& [start, len] : ranges) {
    std::vector<int64_t> rows(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) rows[static_cast<size_t>(i)] = start + i;
    const std::string what = "range " + std::to_string(start) + "+" + std::to_string(len);
    for (const FileReader* reader : {ranged_.get(), whole_.get()}) {
      auto plain = reader->ReadRange(start, len);
      ASSERT_TRUE(plain.ok()) << what << ": " << plain.status().ToString();
      ASSERT_TRUE((*plain)->schema()->Equals(*all_->schema())) << what;
      ExpectRows(**plain, rows, what);
      ReadOptions keep;
      keep.keep_dictionaries = true;
      auto dict = reader->ReadRange(start, len, {}, keep);
      ASSERT_TRUE(dict.ok()) << what << ": " << dict.status().ToString();
      ExpectRows(**dict, rows, what + " (dictionary indices)");
      // Only the non-null dictionary column comes back as indices.
      EXPECT_TRUE((*dict)->column(2)->type->Equals(*dictionary(int32(), utf8()))) << what;
      for (int c : {0, 1, 3, 4, 5}) {
        EXPECT_TRUE((*dict)->column(c)->type->Equals(*all_->column(c)->type)) << what << " " << c;
        EXPECT_TRUE((*dict)->column(c)->Equals(*(*plain)->column(c))) << what << " " << c;
      }
      EXPECT_TRUE((*dict)->schema()->field(2)->type()->Equals(*dictionary(int32(), utf8())));
    }
  }
}

// Scattered takes (unsorted, repeats, one row of a chunk, rows in several pages): values and
// dictionary indices equal the full read.
TEST_P(RangeReadTest, ScatteredTakesEqualFullRead) {
  std::mt19937_64 rng(5);
  std::vector<std::vector<int64_t>> sets = {{0}, {kRows - 1}, {17, 17, 3, kRows - 1, 3}};
  for (int k = 0; k < 10; ++k) {
    std::vector<int64_t> rows;
    const int count = 1 + static_cast<int>(rng() % (k % 2 ? 30 : 700));
    for (int i = 0; i < count; ++i) rows.push_back(static_cast<int64_t>(rng() % kRows));
    if (k % 3 == 0) std::sort(rows.begin(), rows.end());
    sets.push_back(std::move(rows));
  }
  for (const auto& b : PageBoundaries()) sets.push_back({b, b - 1, b + 1 < kRows ? b + 1 : b});
  // Ascending lists made of runs: whole chunks and parts of chunks decode as runs.
  {
    std::vector<int64_t> runs;
    for (int64_t r = 100; r < 6000; ++r) runs.push_back(r);
    for (int64_t r = 6500; r < kRows; r += 3) runs.push_back(r);
    sets.push_back(runs);
    std::vector<int64_t> all(static_cast<size_t>(kRows));
    for (int64_t r = 0; r < kRows; ++r) all[static_cast<size_t>(r)] = r;
    sets.push_back(all);
  }
  for (const auto& rows : sets) {
    const std::string what = "take of " + std::to_string(rows.size()) + " rows from " +
                             std::to_string(rows[0]);
    for (const FileReader* reader : {ranged_.get(), whole_.get()}) {
      auto plain = reader->Take(rows);
      ASSERT_TRUE(plain.ok()) << what << ": " << plain.status().ToString();
      ExpectRows(**plain, rows, what);
      ReadOptions keep;
      keep.keep_dictionaries = true;
      auto dict = reader->Take(rows, {2, 4}, keep);
      ASSERT_TRUE(dict.ok()) << what << ": " << dict.status().ToString();
      ASSERT_EQ((*dict)->num_columns(), 2);
      ASSERT_EQ((*dict)->column(0)->type_id(), TypeId::kDictionary) << what;
      ASSERT_TRUE((*dict)->column(1)->Equals(*(*plain)->column(4))) << what;
      for (size_t i = 0; i < rows.size(); ++i) {
        const Array& col = *(*dict)->column(0);
        std::string v;
        ASSERT_TRUE(AppendJsonValue(*col.dictionary, col.DictionaryIndex(static_cast<int64_t>(i)), &v).ok());
        ASSERT_EQ(v, Want(2, rows[i])) << what << " row " << rows[i];
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, RangeReadTest,
                         ::testing::Values(Case{1, 64, 16 << 10}, Case{2, 64, 16 << 10},
                                           Case{2, 1024, 32 << 10}, Case{2, 4096, 8 << 20},
                                           Case{1, 4096, 64 << 10}),
                         [](const ::testing::TestParamInfo<Case>& info) { return Name(info.param); });

}  // namespace
}  // namespace lance::file
