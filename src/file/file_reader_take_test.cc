// Take and ranged reads of nested columns (lists of primitives, strings and structs, nested
// lists, large lists, lists in structs): results equal a full read for rows that span
// mini-block chunks and pages, only the chunks / full-zip rows holding the rows are fetched,
// and a corrupt repetition index is a Corruption error, never a crash.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/file/file_reader.h"
#include "lance/file/file_writer.h"
#include "file/file_test_util.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/memory_object_store.h"

namespace lance::file {
namespace {

uint32_t Mix(uint64_t i) {
  uint64_t h = (i + 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBULL;
  return static_cast<uint32_t>(h >> 32);
}

// Null every 17th row, empty every 13th, else 0..max items; every 41st row is long
// (`long_items` items: more than a 64-value chunk holds).
int ListLength(int64_t i, int max, int long_items = 0) {
  if (i % 17 == 5) return -1;
  if (i % 13 == 7) return 0;
  if (long_items > 0 && i % 41 == 3) return long_items;
  return static_cast<int>(Mix(static_cast<uint64_t>(i)) % static_cast<uint32_t>(max + 1));
}

SchemaPtr NestedSchema(bool with_docs) {
  std::vector<FieldPtr> fields = {
      field("id", int64(), false),
      field("li", list(int64())),
      field("ls", list(utf8())),
      field("lst", list(struct_({field("a", int32()), field("b", utf8())}))),
      field("ll", list(list(int32()))),
      field("big", large_list(int32())),
      field("st", struct_({field("x", int32()), field("l", list(int32()))})),
  };
  if (with_docs) fields.push_back(field("docs", list(utf8())));
  return schema(std::move(fields));
}

// JSON lines of NestedSchema: every value a function of the row index.
std::string NestedRows(int64_t n, bool with_docs) {
  std::string out;
  auto list_of = [&](int len, const auto& item) {
    if (len < 0) return std::string("null");
    std::string s = "[";
    for (int k = 0; k < len; ++k) {
      if (k) s += ",";
      s += item(k);
    }
    return s + "]";
  };
  for (int64_t i = 0; i < n; ++i) {
    const std::string is = std::to_string(i);
    out += "{\"id\":" + is;
    out += ",\"li\":" + list_of(ListLength(i, 20, 150), [&](int k) {
      return (i % 11 == 3 && k % 4 == 1) ? std::string("null") : std::to_string(i * 1000 + k);
    });
    out += ",\"ls\":" + list_of(ListLength(i + 1, 6, 90), [&](int k) {
      if (k == 2 && i % 9 == 0) return std::string("null");
      return "\"s" + is + "-" + std::to_string(k) + std::string(Mix(static_cast<uint64_t>(i + k)) % 12, 'x') + "\"";
    });
    out += ",\"lst\":" + list_of(ListLength(i + 2, 4, 70), [&](int k) {
      if (k == 1 && i % 7 == 0) return std::string("null");
      const std::string b = k % 3 ? "\"b" + std::to_string(i % 50) + "\"" : "null";
      return "{\"a\":" + std::to_string(i * 10 + k) + ",\"b\":" + b + "}";
    });
    out += ",\"ll\":" + list_of(ListLength(i + 3, 3, 40), [&](int k) {
      return list_of(ListLength(i * 5 + k, 4), [&](int j) { return std::to_string(i + k + j); });
    });
    out += ",\"big\":" + list_of(ListLength(i + 4, 8, 100), [&](int k) { return std::to_string(k - i); });
    if (i % 19 == 4) {
      out += ",\"st\":null";
    } else {
      out += ",\"st\":{\"x\":" + (i % 5 == 1 ? std::string("null") : is) + ",\"l\":" +
             list_of(ListLength(i + 5, 5, 80), [&](int k) { return std::to_string(k); }) + "}";
    }
    if (with_docs) {
      out += ",\"docs\":" + list_of(ListLength(i, 3), [&](int k) {
        if (k == 1 && i % 6 == 0) return std::string("null");
        std::string d = "\"d" + is + "." + std::to_string(k) + ":";
        const uint32_t reps = 30 + Mix(static_cast<uint64_t>(i * 3 + k)) % 60;
        for (uint32_t r = 0; r < reps; ++r) d += "abcdefghij";
        return d + "\"";
      });
    }
    out += "}\n";
  }
  return out;
}

struct Written {
  std::shared_ptr<ByteCountingStore> store;
  RecordBatchPtr batch;
};

Written WriteNested(int64_t n, bool with_docs, const WriteOptions& options) {
  Written w;
  auto s = NestedSchema(with_docs);
  auto batch = ReadJsonLines(NestedRows(n, with_docs), s);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  w.batch = *batch;
  w.store = std::make_shared<ByteCountingStore>(io::MemoryObjectStore::Make());
  auto writer = FileWriter::Open(w.store, "f.lance", s, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  EXPECT_TRUE((*writer)->Write(*w.batch).ok());
  auto summary = (*writer)->Finish();
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  return w;
}

// The rows of `batch` at `rows`, by slicing a full read.
RecordBatchPtr Gather(const RecordBatch& batch, const std::vector<int64_t>& rows) {
  std::vector<ArrayPtr> cols;
  for (const auto& col : batch.columns()) {
    std::vector<ArrayPtr> pieces;
    for (int64_t r : rows) pieces.push_back(col->Slice(r, 1));
    auto cat = Concatenate(pieces);
    EXPECT_TRUE(cat.ok());
    cols.push_back(*cat);
  }
  auto out = RecordBatch::Make(batch.schema(), static_cast<int64_t>(rows.size()), cols);
  EXPECT_TRUE(out.ok());
  return *out;
}

void ExpectSameRows(const RecordBatch& want, const RecordBatch& got, const std::string& what) {
  ASSERT_EQ(want.num_columns(), got.num_columns()) << what;
  ASSERT_EQ(want.num_rows(), got.num_rows()) << what;
  for (int c = 0; c < want.num_columns(); ++c) {
    ASSERT_TRUE(got.column(c)->Validate().ok()) << what << " " << want.schema()->field(c)->name();
    if (want.column(c)->Equals(*got.column(c))) continue;
    for (int64_t r = 0; r < want.num_rows(); ++r) {
      std::string a, b;
      ASSERT_TRUE(AppendJsonValue(*want.column(c), r, &a).ok());
      ASSERT_TRUE(AppendJsonValue(*got.column(c), r, &b).ok());
      ASSERT_EQ(a, b) << what << ": column " << want.schema()->field(c)->name() << " row " << r;
    }
    ADD_FAILURE() << what << ": column " << want.schema()->field(c)->name() << " differs";
  }
}

struct TakeCase {
  uint16_t minor;
  int64_t max_chunk_values;
  int64_t max_page_bytes;
};

class NestedTakeTest : public ::testing::TestWithParam<TakeCase> {};

// Scattered rows with repeats, single rows, and ranges across chunk and page boundaries all
// equal the same rows of a full read; long rows span several 64-value chunks.
TEST_P(NestedTakeTest, TakesAndRangesEqualFullRead) {
  const TakeCase& c = GetParam();
  WriteOptions options;
  options.version = {2, c.minor};
  options.max_chunk_values = c.max_chunk_values;
  options.max_page_bytes = c.max_page_bytes;
  const int64_t n = 4000;
  Written w = WriteNested(n, /*with_docs=*/true, options);
  auto reader = FileReader::Open(w.store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ExpectSameRows(*w.batch, **all, "full read");
  const int docs = (*reader)->schema()->GetFieldIndex("docs");
  ASSERT_GE(docs, 0);
  const auto& docs_pages = (*reader)->columns()[static_cast<size_t>((*reader)->num_columns() - 1)].pages;
  ASSERT_EQ(docs_pages[0].description.rfind("full_zip", 0), 0u) << docs_pages[0].description;

  std::vector<int64_t> rows;
  for (int64_t i = 0; i < n; i += 3) rows.push_back((i * 7919) % n);
  rows.insert(rows.end(), {n - 1, 0, 3, 3, 44, 44, 85, n - 1});
  auto taken = (*reader)->Take(rows);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ExpectSameRows(*Gather(**all, rows), **taken, "scattered take");

  for (int64_t r : {int64_t{0}, int64_t{3}, int64_t{44}, n / 2 + 1, n - 1}) {
    auto one = (*reader)->Take({r});
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    ExpectSameRows(*Gather(**all, {r}), **one, "row " + std::to_string(r));
  }

  std::vector<std::pair<int64_t, int64_t>> ranges = {{0, 1}, {0, 200}, {37, 91}, {n - 5, 5}};
  const auto boundaries = PageBoundaries(**reader);
  if (c.max_page_bytes < (1 << 20)) {
    ASSERT_GE(boundaries.size(), 3u);
  }
  for (size_t b = 0; b < boundaries.size(); b += std::max<size_t>(1, boundaries.size() / 8)) {
    ranges.emplace_back(std::max<int64_t>(0, boundaries[b] - 7), std::min<int64_t>(20, n - boundaries[b] + 7));
  }
  for (const auto& [start, len] : ranges) {
    auto got = (*reader)->ReadRange(start, len);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::vector<int64_t> want_rows;
    for (int64_t r = start; r < start + len; ++r) want_rows.push_back(r);
    ExpectSameRows(*Gather(**all, want_rows), **got,
                   "range " + std::to_string(start) + "+" + std::to_string(len));
  }
  // Projection of one nested field.
  auto one_field = (*reader)->Take({5, 4000 - 2, 5}, {3});
  ASSERT_TRUE(one_field.ok()) << one_field.status().ToString();
  auto want = Gather(**all, {5, 4000 - 2, 5});
  EXPECT_TRUE(want->column(3)->Equals(*(*one_field)->column(0)));
}

INSTANTIATE_TEST_SUITE_P(Layouts, NestedTakeTest,
                         ::testing::Values(TakeCase{1, 64, 16 << 10}, TakeCase{2, 64, 16 << 10},
                                           TakeCase{2, 4096, 8 << 20}, TakeCase{1, 4096, 64 << 10}),
                         [](const ::testing::TestParamInfo<TakeCase>& info) {
                           return "v2_" + std::to_string(info.param.minor) + "_chunk" +
                                  std::to_string(info.param.max_chunk_values) + "_page" +
                                  std::to_string(info.param.max_page_bytes);
                         });

// The largest mini-block chunk of a column, from the chunk metadata words of its pages
// (2.2: u32, bytes = ((word >> 4) + 1) * 8).
int64_t MaxChunkBytes(const ByteCountingStore& store, const ColumnInfo& column) {
  int64_t max = 0;
  auto whole = const_cast<ByteCountingStore&>(store).base()->Get("f.lance");
  EXPECT_TRUE(whole.ok());
  for (const auto& page : column.pages) {
    const auto [pos, size] = page.buffers.at(0);
    for (uint64_t at = 0; at + 4 <= size; at += 4) {
      uint32_t word;
      std::memcpy(&word, (*whole)->data() + pos + at, 4);
      max = std::max<int64_t>(max, ((word >> 4) + 1) * 8);
    }
  }
  return max;
}

// A take of a few rows of a big list column fetches the chunks holding them (at most two
// chunks per row here: no row has more items than a chunk holds) plus, the first time a page
// is touched, its chunk table and repetition index — not the column.
// Bit-packed integers taken densely (whole FastLanes blocks unpacked: >= 128 wanted values in
// a block of 1024), sparsely (single values read in place) and mixed, with and without nulls:
// every value equals the full read.
TEST(FlatTake, DenseAndSparseBitPackedTakesEqualFullRead) {
  const int64_t n = 20000;
  std::string lines;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t m = Mix(static_cast<uint64_t>(i));
    lines += "{\"id\":" + std::to_string(i) + ",\"v\":" + std::to_string(m % 100000) + ",\"w\":" +
             (i % 9 == 4 ? std::string("null") : std::to_string(static_cast<int32_t>(m) % 3000)) + "}\n";
  }
  auto s = schema({field("id", int64(), false), field("v", int64(), false), field("w", int32())});
  auto batch = ReadJsonLines(lines, s);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto store = io::MemoryObjectStore::Make();
  auto writer = FileWriter::Open(store, "f.lance", s, WriteOptions{});
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write(**batch).ok());
  ASSERT_TRUE((*writer)->Finish().ok());
  auto reader = FileReader::Open(store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (int every : {1, 2, 5, 9, 40, 700}) {
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < n; ++i) {
      // Dense in the first half, `every`-th row in the second: blocks of both kinds in one take.
      if (i < n / 2 ? i % 3 != 1 : i % every == 0) rows.push_back(i);
    }
    auto taken = (*reader)->Take(rows);
    ASSERT_TRUE(taken.ok()) << taken.status().ToString();
    ExpectSameRows(*Gather(**batch, rows), **taken, "every " + std::to_string(every));
  }
}

TEST(NestedTakeBytes, BoundedBytesPerTakenRow) {
  WriteOptions options;
  const int64_t n = 200000;
  auto s = schema({field("id", int64(), false), field("li", list(int64())), field("ls", list(utf8()))});
  std::string text;
  for (int64_t i = 0; i < n; ++i) {
    text += "{\"id\":" + std::to_string(i) + ",\"li\":";
    const int len = ListLength(i, 20);
    if (len < 0) {
      text += "null";
    } else {
      text += "[";
      for (int k = 0; k < len; ++k) text += (k ? "," : "") + std::to_string(i * 100 + k);
      text += "]";
    }
    text += ",\"ls\":";
    const int slen = ListLength(i + 1, 6);
    if (slen < 0) {
      text += "null";
    } else {
      text += "[";
      for (int k = 0; k < slen; ++k) text += std::string(k ? "," : "") + "\"s" + std::to_string(i + k) + "\"";
      text += "]";
    }
    text += "}\n";
  }
  auto batch = ReadJsonLines(text, s);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto store = std::make_shared<ByteCountingStore>(io::MemoryObjectStore::Make());
  store->set_coalesce_options({.max_gap = 0});  // count what the reader asks for
  {
    auto writer = FileWriter::Open(store, "f.lance", s, options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write(**batch).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  auto reader = FileReader::Open(store, "f.lance");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  for (int field : {1, 2}) {
    const ColumnInfo& column = (*reader)->columns()[static_cast<size_t>(field)];
    int64_t column_bytes = 0, index_bytes = 0;
    for (const auto& page : column.pages) {
      ASSERT_EQ(page.description.rfind("mini_block", 0), 0u) << page.description;
      for (size_t b = 0; b < page.buffers.size(); ++b) {
        column_bytes += static_cast<int64_t>(page.buffers[b].second);
        if (b != 1) index_bytes += static_cast<int64_t>(page.buffers[b].second);
      }
    }
    const int64_t chunk_bytes = MaxChunkBytes(*store, column);
    ASSERT_GT(chunk_bytes, 0);
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < 10; ++i) rows.push_back((i * 48271 + 17) % n);
    store->bytes = 0;
    auto first = (*reader)->Take(rows, {field});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    const int64_t first_bytes = store->bytes;
    EXPECT_LE(first_bytes, index_bytes + 10 * 2 * chunk_bytes) << "field " << field;
    // The page indexes are kept: a second take fetches chunks only.
    std::vector<int64_t> more;
    for (int64_t r : rows) more.push_back((r + 1) % n);
    store->bytes = 0;
    auto second = (*reader)->Take(more, {field});
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    EXPECT_LE(store->bytes, 10 * 2 * chunk_bytes) << "field " << field;
    EXPECT_LT(store->bytes * 20, column_bytes) << "field " << field;
    // The rows are right.
    std::vector<int64_t> both = rows;
    both.insert(both.end(), more.begin(), more.end());
    auto want = Gather(**batch, both);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_TRUE(want->column(field)->Slice(static_cast<int64_t>(i), 1)->Equals(
          *(*first)->column(0)->Slice(static_cast<int64_t>(i), 1)));
      EXPECT_TRUE(want->column(field)->Slice(static_cast<int64_t>(rows.size() + i), 1)->Equals(
          *(*second)->column(0)->Slice(static_cast<int64_t>(i), 1)));
    }
    std::printf("field %d: %zu pages, %lld column bytes, chunks <= %lld bytes; take of 10 rows: "
                "%lld bytes (first, with page indexes), %lld bytes (%lld per row) after\n",
                field, column.pages.size(), static_cast<long long>(column_bytes),
                static_cast<long long>(chunk_bytes), static_cast<long long>(first_bytes),
                static_cast<long long>(store->bytes), static_cast<long long>(store->bytes / 10));
  }
}

// Overwrites the u64 at `index` of buffer `buffer` of the first page of `column`.
std::string WithIndexEntry(const std::string& file, const ColumnInfo& column, size_t buffer,
                           size_t index, uint64_t value) {
  std::string copy = file;
  const auto [pos, size] = column.pages.at(0).buffers.at(buffer);
  EXPECT_LE((index + 1) * 8, size);
  std::memcpy(copy.data() + pos + index * 8, &value, 8);
  return copy;
}

// A repetition index that disagrees with the chunks or the levels is reported as Corruption.
TEST(NestedTakeCorruption, BadRepetitionIndexIsCorruption) {
  WriteOptions options;
  options.max_chunk_values = 64;
  auto s = schema({field("li", list(int64()))});
  std::string text;
  for (int64_t i = 0; i < 3000; ++i) {
    text += "{\"li\":[";
    const int len = ListLength(i, 20, 150);
    for (int k = 0; k < std::max(len, 0); ++k) text += (k ? "," : "") + std::to_string(k);
    text += "]}\n";
  }
  auto batch = ReadJsonLines(text, s);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto store = io::MemoryObjectStore::Make();
  {
    auto writer = FileWriter::Open(store, "f.lance", s, options);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write(**batch).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  auto bytes = store->Get("f.lance");
  ASSERT_TRUE(bytes.ok());
  const std::string file((*bytes)->view());
  auto reader = FileReader::Open(BufferFromString(file));
  ASSERT_TRUE(reader.ok());
  const ColumnInfo& column = (*reader)->columns()[0];
  // Buffers: chunk metadata, chunks, dictionary (if any), repetition index.
  const size_t index_buffer = column.pages.at(0).buffers.size() - 1;
  ASSERT_EQ(index_buffer, column.pages[0].description.find("dictionary") == std::string::npos ? 2u : 3u)
      << column.pages[0].description;
  const uint64_t entries = column.pages[0].buffers[index_buffer].second / 8;
  ASSERT_GE(entries, 8u);
  // Row 3 alone (not row 0): its chunks are then decoded without chunk 0, where it starts
  // for real, so an index that moves its start cannot go unnoticed.
  const std::vector<int64_t> rows = {3, 1000, 2999};
  // (entry, value): rows ending in chunk 0 absurd; more rows ending in chunk 1 than the page
  // has; a trailer on the last chunk; nothing ending in chunk 2; chunk 0 (which ends inside
  // the 150-item row 3) claimed to end cleanly.
  const std::vector<std::pair<uint64_t, uint64_t>> edits = {
      {0, uint64_t{1} << 60}, {2, 100000}, {entries - 1, 5}, {4, 0}, {5, 0}, {1, 0}};
  for (const auto& [entry, value] : edits) {
    const std::string bad = WithIndexEntry(file, column, index_buffer, entry, value);
    auto r = FileReader::Open(BufferFromString(bad));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto taken = (*r)->Take(rows);
    EXPECT_TRUE(taken.status().IsCorruption())
        << "entry " << entry << " = " << value << ": " << taken.status().ToString();
  }
  // Any value anywhere in the index: a clean result or an error, never a crash.
  uint32_t state = 99;
  for (int trial = 0; trial < 400; ++trial) {
    state = state * 1103515245u + 12345u;
    const uint64_t entry = (state >> 8) % entries;
    const uint64_t value = (state >> 4) % 97;
    auto r = FileReader::Open(BufferFromString(WithIndexEntry(file, column, index_buffer, entry, value)));
    ASSERT_TRUE(r.ok());
    auto taken = (*r)->Take({static_cast<int64_t>(state % 3000), 2999, 0});
    if (taken.ok()) {
      EXPECT_TRUE((*taken)->Validate().ok());
    }
  }
}

// Full-zip list rows are found through the repetition index (row start byte offsets); one
// that points inside a row is Corruption.
TEST(NestedTakeCorruption, BadFullZipRowIndexIsCorruption) {
  const int64_t n = 300;
  WriteOptions options;
  Written w = WriteNested(n, /*with_docs=*/true, options);
  auto bytes = w.store->Get("f.lance");
  ASSERT_TRUE(bytes.ok());
  const std::string file((*bytes)->view());
  auto reader = FileReader::Open(BufferFromString(file));
  ASSERT_TRUE(reader.ok());
  const int docs = (*reader)->num_columns() - 1;
  const ColumnInfo& column = (*reader)->columns()[static_cast<size_t>(docs)];
  ASSERT_EQ(column.pages.at(0).description.rfind("full_zip", 0), 0u);
  const auto [pos, size] = column.pages[0].buffers.at(1);
  const uint64_t width = size / static_cast<uint64_t>(column.pages[0].num_rows + 1);
  ASSERT_TRUE(width == 1 || width == 2 || width == 4 || width == 8);
  const int field = (*reader)->schema()->num_fields() - 1;
  for (uint64_t delta : {uint64_t{1}, uint64_t{3}}) {
    std::string bad = file;
    uint64_t entry = 0;
    std::memcpy(&entry, bad.data() + pos + 10 * width, width);
    entry += delta;  // row 10 now starts inside row 9's bytes
    std::memcpy(bad.data() + pos + 10 * width, &entry, width);
    auto r = FileReader::Open(BufferFromString(bad));
    ASSERT_TRUE(r.ok());
    auto taken = (*r)->Take({10}, {field});
    EXPECT_TRUE(taken.status().IsCorruption()) << taken.status().ToString();
  }
}

}  // namespace
}  // namespace lance::file
