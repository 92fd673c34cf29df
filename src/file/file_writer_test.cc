// Round trips through FileWriter and FileReader: every golden file the reference wrote is
// re-written by our writer (2.1 and 2.2, compression on and off, one page or many) and read
// back; generated batches cover nulls, empty lists, huge strings, constants and many pages.
#include "lance/file/file_writer.h"

#include "lance/core/thread_pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"
#include "lance/core/bit_util.h"
#include "lance/file/file_reader.h"
#include "lance/file/lance_schema.h"
#include "lance/io/memory_object_store.h"

namespace lance::file {
namespace {

const std::filesystem::path kGoldenDir =
    std::filesystem::path(__FILE__).parent_path() / "../../tests/golden/lance_file";

BufferPtr ReadFileBuffer(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return BufferFromString(ss.str());
}

void ExpectArraysEqual(const Array& e, const Array& a, const std::string& what) {
  ASSERT_TRUE(a.ValidateFull().ok()) << what << ": " << a.ValidateFull().ToString();
  ASSERT_EQ(e.length, a.length) << what;
  if (e.Equals(a)) return;
  for (int64_t r = 0; r < e.length; ++r) {
    std::string ev, av;
    ASSERT_TRUE(AppendJsonValue(e, r, &ev).ok());
    ASSERT_TRUE(AppendJsonValue(a, r, &av).ok());
    if (ev != av) {
      ADD_FAILURE() << what << " row " << r << ": expected " << ev << " got " << av;
      return;
    }
  }
  ADD_FAILURE() << what << " differs (same JSON)";
}

void ExpectBatchesEqual(const RecordBatch& e, const RecordBatch& a, const std::string& what) {
  ASSERT_EQ(e.num_columns(), a.num_columns()) << what;
  ASSERT_EQ(e.num_rows(), a.num_rows()) << what;
  for (int c = 0; c < e.num_columns(); ++c) {
    ExpectArraysEqual(*e.column(c), *a.column(c), what + " column '" + e.schema()->field(c)->name() + "'");
  }
}

// Writes `batches` and returns the reader of the result.
std::unique_ptr<FileReader> WriteAndOpen(const SchemaPtr& schema,
                                         const std::vector<RecordBatchPtr>& batches,
                                         const WriteOptions& options, WriteSummary* summary = nullptr) {
  auto store = io::MemoryObjectStore::Make();
  auto writer = FileWriter::Open(store, "f.lance", schema, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return nullptr;
  for (const auto& b : batches) {
    auto st = (*writer)->Write(*b);
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) return nullptr;
  }
  auto done = (*writer)->Finish();
  EXPECT_TRUE(done.ok()) << done.status().ToString();
  if (!done.ok()) return nullptr;
  if (summary) *summary = *done;
  auto bytes = store->Get("f.lance");
  EXPECT_TRUE(bytes.ok());
  if (!bytes.ok()) return nullptr;
  EXPECT_EQ((*bytes)->size(), done->size_bytes);
  auto reader = FileReader::Open(*bytes);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return nullptr;
  return std::move(*reader);
}

// Full read, a few ranges and a scattered take, all compared with `expected`.
void CheckReads(const FileReader& reader, const RecordBatch& expected, const std::string& what) {
  ASSERT_EQ(reader.num_rows(), expected.num_rows()) << what;
  auto all = reader.ReadAll();
  ASSERT_TRUE(all.ok()) << what << ": " << all.status().ToString();
  ExpectBatchesEqual(expected, **all, what + " ReadAll");
  const int64_t n = expected.num_rows();
  if (n == 0) return;
  std::mt19937_64 rng(n);
  for (int k = 0; k < 3; ++k) {
    const int64_t start = static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
    const int64_t len = static_cast<int64_t>(rng() % static_cast<uint64_t>(n - start)) + 1;
    auto range = reader.ReadRange(start, len);
    ASSERT_TRUE(range.ok()) << what << ": " << range.status().ToString();
    ExpectBatchesEqual(*expected.Slice(start, len), **range,
                       what + fmt::format(" ReadRange({}, {})", start, len));
  }
  std::vector<int64_t> rows;
  for (int k = 0; k < 40; ++k) rows.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(n)));
  auto taken = reader.Take(rows);
  ASSERT_TRUE(taken.ok()) << what << ": " << taken.status().ToString();
  for (int c = 0; c < expected.num_columns(); ++c) {
    std::vector<ArrayPtr> parts;
    for (int64_t r : rows) parts.push_back(expected.column(c)->Slice(r, 1));
    auto want = Concatenate(parts);
    ASSERT_TRUE(want.ok());
    ExpectArraysEqual(**want, *(*taken)->column(c), what + " Take column " + std::to_string(c));
  }
}

struct Variant {
  uint16_t minor;
  bool compress;
  int64_t max_page_bytes;
  int64_t max_chunk_values;
  std::string Name() const {
    return fmt::format("2.{} compress={} page={} chunk={}", minor, compress, max_page_bytes,
                       max_chunk_values);
  }
  WriteOptions Options() const {
    WriteOptions o;
    o.version = {2, minor};
    o.compress = compress;
    o.max_page_bytes = max_page_bytes;
    o.max_chunk_values = max_chunk_values;
    return o;
  }
};

std::vector<Variant> AllVariants() {
  std::vector<Variant> out;
  for (uint16_t minor : {1, 2}) {
    for (bool compress : {false, true}) {
      out.push_back({minor, compress, 8 << 20, 4096});
      out.push_back({minor, compress, 2000, 64});
    }
  }
  return out;
}

// Round trip of `batches` (split into several Write calls) under every variant.
void RoundTrip(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
               const std::string& what) {
  std::vector<ArrayPtr> columns;
  int64_t rows = 0;
  for (const auto& b : batches) rows += b->num_rows();
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<ArrayPtr> parts;
    for (const auto& b : batches) parts.push_back(b->column(c));
    auto all = parts.empty() ? MakeEmptyArray(schema->field(c)->type()) : Concatenate(parts);
    ASSERT_TRUE(all.ok());
    columns.push_back(*all);
  }
  const RecordBatch expected(schema, rows, columns);
  for (const Variant& v : AllVariants()) {
    auto reader = WriteAndOpen(schema, batches, v.Options());
    ASSERT_NE(reader, nullptr) << what << " " << v.Name();
    EXPECT_EQ(reader->version().minor, v.minor);
    CheckReads(*reader, expected, what + " " + v.Name());
    if (::testing::Test::HasFailure()) return;
  }
}

std::vector<RecordBatchPtr> Split(const RecordBatch& b, int pieces) {
  std::vector<RecordBatchPtr> out;
  const int64_t step = std::max<int64_t>(1, b.num_rows() / pieces);
  for (int64_t s = 0; s < b.num_rows(); s += step) {
    out.push_back(b.Slice(s, std::min(step, b.num_rows() - s)));
  }
  return out;
}

class GoldenRewriteTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenRewriteTest, RewritesAndReadsBack) {
  auto golden = FileReader::Open(ReadFileBuffer(kGoldenDir / (GetParam() + ".lance")));
  ASSERT_TRUE(golden.ok()) << golden.status().ToString();
  auto batch = (*golden)->ReadAll();
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  RoundTrip((*golden)->schema(), Split(**batch, 3), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenRewriteTest,
                         ::testing::Values("primitives_2_1", "primitives_2_2", "strings_2_1",
                                           "strings_2_2", "special_2_1", "special_2_2",
                                           "nested_2_1", "nested_2_2", "big_2_1", "big_2_2",
                                           "wide_2_1", "wide_2_2", "deep_2_1", "deep_2_2",
                                           "tuned_2_2"),
                         [](const auto& info) { return info.param; });

TEST(FileWriterTest, KeepsFieldIdsAndSchema) {
  auto golden = FileReader::Open(ReadFileBuffer(kGoldenDir / "nested_2_2.lance"));
  ASSERT_TRUE(golden.ok());
  auto batch = (*golden)->ReadAll();
  ASSERT_TRUE(batch.ok());
  WriteSummary summary;
  auto reader = WriteAndOpen((*golden)->schema(), {*batch}, WriteOptions{}, &summary);
  ASSERT_NE(reader, nullptr);
  auto a = LanceFieldsFromSchema(*(*golden)->schema());
  auto b = LanceFieldsFromSchema(*reader->schema());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].id, (*b)[i].id);
    EXPECT_EQ((*a)[i].parent_id, (*b)[i].parent_id);
    EXPECT_EQ((*a)[i].logical_type, (*b)[i].logical_type);
    EXPECT_EQ((*a)[i].name, (*b)[i].name);
  }
  EXPECT_EQ(summary.num_rows, (*batch)->num_rows());
  EXPECT_EQ(reader->num_columns(), (*golden)->num_columns());
}

TEST(FileWriterTest, AssignsPreOrderIds) {
  auto s = schema({field("a", int32()), field("s", struct_({field("x", utf8()), field("l", list(int64()))})),
                   field("v", fixed_size_list(float32(), 4))});
  auto fields = LanceFieldsFromSchema(*s);
  ASSERT_TRUE(fields.ok());
  std::vector<std::string> got;
  for (const auto& f : *fields) {
    got.push_back(fmt::format("{}:{}:{}:{}", f.name, f.id, f.parent_id, f.logical_type));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"a:0:-1:int32", "s:1:-1:struct", "x:2:1:string",
                                           "l:3:1:list", "item:4:3:int64", "v:5:-1:fixed_size_list:float:4"}));
}

TEST(FileWriterTest, ListOfStructAndGivenIds) {
  auto s = schema({field("k", int64(), false),
                   field("ls", list(struct_({field("x", int32())}))),
                   field("lls", large_list(struct_({field("y", utf8())}))),
                   field("d", dictionary(int32(), list(int32())))});
  // Dictionaries of nested values have no Lance name; the error names the field.
  auto bad = LanceFieldsFromSchema(*s);
  ASSERT_TRUE(bad.status().IsNotSupported());
  EXPECT_NE(bad.status().message().find("field 'd'"), std::string::npos) << bad.status().message();
  // Dictionaries of flat values are named as lance 12 names them.
  auto dict = LanceFieldsFromSchema(*schema({field("a", dictionary(int8(), utf8())),
                                             field("b", dictionary(uint32(), large_binary(), true)),
                                             field("c", dictionary(int64(), timestamp(TimeUnit::kMicro, "UTC")))}));
  ASSERT_TRUE(dict.ok()) << dict.status().ToString();
  EXPECT_EQ((*dict)[0].logical_type, "dict:string:int8:false");
  EXPECT_EQ((*dict)[1].logical_type, "dict:large_binary:uint32:true");
  EXPECT_EQ((*dict)[2].logical_type, "dict:timestamp:us:UTC:int64:false");
  auto dict_back = SchemaFromLanceFields(*dict);
  ASSERT_TRUE(dict_back.ok()) << dict_back.status().ToString();
  EXPECT_TRUE((*dict_back)->field(2)->type()->Equals(*dictionary(int64(), timestamp(TimeUnit::kMicro, "UTC"))));

  auto ok_schema = schema({s->field(0), s->field(1), s->field(2)});
  const std::vector<int32_t> ids = {7, 3, 9, 4, 1, 8, 2};
  SchemaPtr with_ids;
  auto fields = LanceFieldsWithIds(*ok_schema, &ids, &with_ids);
  ASSERT_TRUE(fields.ok()) << fields.status().ToString();
  std::vector<std::string> got;
  for (const auto& f : *fields) {
    got.push_back(fmt::format("{}:{}:{}:{}:{}", f.name, f.id, f.parent_id, f.logical_type, f.nullable));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"k:7:-1:int64:false", "ls:3:-1:list.struct:true",
                                           "item:9:3:struct:true", "x:4:9:int32:true",
                                           "lls:1:-1:large_list.struct:true", "item:8:1:struct:true",
                                           "y:2:8:string:true"}));
  ASSERT_NE(with_ids, nullptr);
  EXPECT_EQ(with_ids->field(1)->id(), 3);
  EXPECT_EQ(with_ids->field(1)->type()->value_field()->id(), 9);

  // Without ids: 0, 1, ... in pre-order, whatever Field::id() says.
  auto fresh = LanceFieldsWithIds(*with_ids, nullptr);
  ASSERT_TRUE(fresh.ok());
  for (size_t i = 0; i < fresh->size(); ++i) EXPECT_EQ((*fresh)[i].id, static_cast<int32_t>(i));
  // The logical types read back as the same schema.
  auto back = SchemaFromLanceFields(*fields);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE((*back)->field(1)->type()->Equals(*ok_schema->field(1)->type()));

  const std::vector<int32_t> short_ids = {1, 2};
  EXPECT_TRUE(LanceFieldsWithIds(*ok_schema, &short_ids).status().IsInvalidArgument());
  const std::vector<int32_t> long_ids = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_TRUE(LanceFieldsWithIds(*ok_schema, &long_ids).status().IsInvalidArgument());
}

TEST(FileWriterTest, RejectsBadOptionsAndSchemas) {
  auto store = io::MemoryObjectStore::Make();
  auto s = schema({field("a", int32())});
  WriteOptions o;
  o.version = {2, 0};
  EXPECT_TRUE(FileWriter::Open(store, "x.lance", s, o).status().IsInvalidArgument());
  o = {};
  o.max_chunk_values = 1000;
  EXPECT_TRUE(FileWriter::Open(store, "x.lance", s, o).status().IsInvalidArgument());
  auto w = FileWriter::Open(store, "x.lance", s);
  ASSERT_TRUE(w.ok());
  auto other = ReadJsonLines("{\"b\": 1}\n", schema({field("b", int32())}));
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE((*w)->Write(**other).IsInvalidArgument());
  (*w)->Abort();
  EXPECT_FALSE(store->Exists("x.lance").ValueOr(true));
}

}  // namespace
}  // namespace lance::file

namespace lance::file {
namespace {

std::vector<std::string> Descriptions(const FileReader& r, int column) {
  std::vector<std::string> out;
  for (const auto& p : r.columns()[static_cast<size_t>(column)].pages) out.push_back(p.description);
  return out;
}

TEST(FileWriterTest, PlainLayoutsAndPages) {
  auto golden = FileReader::Open(ReadFileBuffer(kGoldenDir / "wide_2_2.lance"));
  ASSERT_TRUE(golden.ok());
  auto batch = (*golden)->ReadAll();
  ASSERT_TRUE(batch.ok());
  WriteOptions o;
  o.compress = false;
  auto reader = WriteAndOpen((*golden)->schema(), {*batch}, o);
  ASSERT_NE(reader, nullptr);
  // 2-4 KB strings and 128-float vectors go full-zip, as lance 12 writes them.
  EXPECT_EQ(Descriptions(*reader, 0), std::vector<std::string>{"full_zip(values=variable(flat(32)))"});
  EXPECT_EQ(Descriptions(*reader, 1),
            std::vector<std::string>{"full_zip(values=fixed_size_list(128, flat(32)))"});
  auto big = FileReader::Open(ReadFileBuffer(kGoldenDir / "big_2_2.lance"));
  ASSERT_TRUE(big.ok());
  auto bb = (*big)->ReadAll();
  ASSERT_TRUE(bb.ok());
  o.max_page_bytes = 4000;
  auto r2 = WriteAndOpen((*big)->schema(), {*bb}, o);
  ASSERT_NE(r2, nullptr);
  for (int c = 0; c < r2->num_columns(); ++c) {
    auto d = Descriptions(*r2, c);
    EXPECT_GT(d.size(), 1u);
  }
}

}  // namespace
}  // namespace lance::file

namespace lance::file {
namespace {

// Seeded generator of JSON rows.
struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  int64_t Int(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool Chance(int percent) { return Int(0, 99) < percent; }
  std::string Word() {
    static const char* kWords[] = {"lance", "arrow", "columnar", "vector", "search", "index",
                                   "fragment", "manifest", "page", "chunk", "encoding", "zebra"};
    return kWords[Int(0, 11)];
  }
  std::string Text(int min_words, int max_words) {
    std::string s;
    const int n = static_cast<int>(Int(min_words, max_words));
    for (int i = 0; i < n; ++i) {
      if (i) s += ' ';
      s += Word();
      if (Chance(30)) s += std::to_string(Int(0, 999));
    }
    return s;
  }
};

RecordBatchPtr FromJson(const SchemaPtr& schema, const std::string& text) {
  auto b = ReadJsonLines(text, schema);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : nullptr;
}

SchemaPtr MixedSchema() {
  return schema({field("seq", int64(), false), field("konst", int32()), field("runs", int32()),
                 field("rand", float64()), field("category", utf8()), field("text", utf8()),
                 field("maybe", int32()), field("nothing", int32()), field("flag", boolean()),
                 field("tags", list(int32())), field("pair", struct_({field("a", int32()), field("b", utf8())})),
                 field("vec", fixed_size_list(float32(), 4))});
}

std::string MixedRows(int64_t n, uint64_t seed) {
  Gen g(seed);
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    std::string tags = "null";
    if (!g.Chance(10)) {
      tags = "[";
      const int k = static_cast<int>(g.Int(0, 4));
      for (int j = 0; j < k; ++j) tags += (j ? "," : "") + (g.Chance(10) ? std::string("null") : std::to_string(g.Int(-50, 50)));
      tags += "]";
    }
    std::string pair = g.Chance(10) ? "null"
                                    : fmt::format("{{\"a\": {}, \"b\": {}}}",
                                                  g.Chance(10) ? "null" : std::to_string(g.Int(0, 9)),
                                                  g.Chance(10) ? "null" : "\"" + g.Word() + "\"");
    std::string vec = g.Chance(5) ? "null"
                                   : fmt::format("[{}, {}, {}, {}]", g.Int(0, 100) / 4.0, g.Int(0, 100) / 4.0,
                                                 g.Int(0, 100) / 4.0, g.Int(0, 100) / 4.0);
    out += fmt::format(
        "{{\"seq\": {}, \"konst\": 7, \"runs\": {}, \"rand\": {}, \"category\": \"cat{}\", "
        "\"text\": \"{}\", \"maybe\": {}, \"nothing\": null, \"flag\": {}, \"tags\": {}, "
        "\"pair\": {}, \"vec\": {}}}\n",
        i, i / 700, static_cast<double>(g.Int(0, 1 << 30)) / 1024.0, g.Int(0, 9), g.Text(3, 12),
        g.Chance(10) ? "null" : std::to_string(g.Int(0, 1000)), g.Chance(50) ? "true" : "false",
        tags, pair, vec);
  }
  return out;
}

TEST(FileWriterTest, MixedColumnsRoundTrip) {
  auto s = MixedSchema();
  auto b = FromJson(s, MixedRows(6000, 1));
  ASSERT_NE(b, nullptr);
  RoundTrip(s, Split(*b, 4), "mixed");
}

TEST(FileWriterTest, ChoosesEncodingsFromTheData) {
  auto s = MixedSchema();
  auto b = FromJson(s, MixedRows(10000, 2));
  ASSERT_NE(b, nullptr);
  for (uint16_t minor : {1, 2}) {
    WriteOptions o;
    o.version = {2, minor};
    auto r = WriteAndOpen(s, {b}, o);
    ASSERT_NE(r, nullptr);
    auto desc = [&](int c) { return Descriptions(*r, c).at(0); };
    SCOPED_TRACE(minor);
    EXPECT_EQ(desc(0), "mini_block(values=inline_bitpacking(64))");
    EXPECT_EQ(desc(1), minor == 2 ? "constant(inline)" : "mini_block(values=rle(flat(32), flat(8)))");
    EXPECT_EQ(desc(2), "mini_block(values=rle(flat(32), flat(8)))");
    EXPECT_EQ(desc(3), "mini_block(values=flat(64))");
    EXPECT_EQ(desc(4), minor == 2 ? "mini_block(values=inline_bitpacking(32), dictionary=general(lz4, variable(flat(32))))"
                                  : "mini_block(values=inline_bitpacking(32), dictionary=variable(flat(32)))");
    EXPECT_EQ(desc(5), "mini_block(values=fsst(variable(flat(32))))");
    EXPECT_EQ(desc(6), "mini_block(values=inline_bitpacking(32), def=out_of_line_bitpacking(16, flat(1)))");
    EXPECT_EQ(desc(7), "constant");
    EXPECT_EQ(desc(8), "mini_block(values=flat(1))");
    auto all = r->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    ExpectBatchesEqual(*b, **all, "encodings");
  }
  // Without compression every value is flat or variable.
  WriteOptions plain;
  plain.compress = false;
  auto r = WriteAndOpen(s, {b}, plain);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(Descriptions(*r, 0).at(0), "mini_block(values=flat(64))");
  EXPECT_EQ(Descriptions(*r, 4).at(0), "mini_block(values=variable(flat(32)))");
  EXPECT_EQ(Descriptions(*r, 6).at(0), "mini_block(values=flat(32), def=flat(16))");
}

TEST(FileWriterTest, HugeStringsGoFullZip) {
  auto s = schema({field("id", int32()), field("blob", utf8()), field("big", large_utf8())});
  Gen g(3);
  std::string rows;
  for (int i = 0; i < 12; ++i) {
    const size_t len = i % 4 == 0 ? (1u << 20) : static_cast<size_t>(g.Int(0, 3000));
    std::string v(len, 'a');
    for (size_t k = 0; k < len; k += 97) v[k] = static_cast<char>('a' + g.Int(0, 25));
    const std::string blob = i % 5 == 3 ? "null" : "\"" + v + "\"";
    rows += fmt::format("{{\"id\": {}, \"blob\": {}, \"big\": {}}}\n", i, blob,
                        i % 3 == 1 ? "null" : "\"" + v.substr(0, 40000) + "\"");
  }
  auto b = FromJson(s, rows);
  ASSERT_NE(b, nullptr);
  RoundTrip(s, Split(*b, 3), "huge strings");
  auto r = WriteAndOpen(s, {b}, WriteOptions{});
  ASSERT_NE(r, nullptr);
  // Values over 32 KiB: each compressed on its own (u64 size + zstd frame), as lance 12 does.
  EXPECT_EQ(Descriptions(*r, 1).at(0), "full_zip(values=general(zstd, variable(flat(32))))");
  EXPECT_EQ(Descriptions(*r, 2).at(0), "full_zip(values=general(zstd, variable(flat(64))))");
  EXPECT_LT(r->FieldBytes(1), 1 << 20);  // three 1 MiB strings (and small ones)
  // Up to 32 KiB a value is FSST coded.
  std::string small_rows;
  for (int i = 0; i < 40; ++i) {
    std::string v(30000, 'a');
    for (size_t k = 0; k < v.size(); k += 13) v[k] = static_cast<char>('a' + (static_cast<size_t>(i) * 7 + k) % 26);
    small_rows += fmt::format("{{\"id\": {}, \"blob\": \"{}\", \"big\": null}}\n", i, v);
  }
  auto sb = FromJson(s, small_rows);
  ASSERT_NE(sb, nullptr);
  auto rs = WriteAndOpen(s, {sb}, WriteOptions{});
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(Descriptions(*rs, 1).at(0), "full_zip(values=fsst(variable(flat(32))))");
  CheckReads(*rs, *sb, "30 KB strings");
  WriteOptions plain;
  plain.compress = false;
  auto rp = WriteAndOpen(s, {b}, plain);
  ASSERT_NE(rp, nullptr);
  EXPECT_EQ(Descriptions(*rp, 1).at(0), "full_zip(values=variable(flat(32)))");
  EXPECT_EQ(Descriptions(*rp, 2).at(0), "full_zip(values=variable(flat(64)))");
}

TEST(FileWriterTest, RandomNestedRoundTrip) {
  auto s = schema({field("ll", list(list(int64()))),
                   field("ls", large_list(struct_({field("x", int32()), field("y", utf8())}))),
                   field("sl", struct_({field("l", list(utf8())), field("z", float64())})),
                   field("lv", list(fixed_size_list(float32(), 2)))});
  for (uint64_t seed : {11, 12, 13}) {
    Gen g(seed);
    const int null_pct = static_cast<int>(g.Int(0, 40));
    auto maybe = [&](const std::string& v) { return g.Chance(null_pct) ? std::string("null") : v; };
    auto list_of = [&](int max, const std::function<std::string()>& item) {
      if (g.Chance(null_pct)) return std::string("null");
      std::string out = "[";
      const int k = static_cast<int>(g.Int(0, max));
      for (int j = 0; j < k; ++j) out += (j ? "," : "") + item();
      return out + "]";
    };
    std::string rows;
    const int n = static_cast<int>(g.Int(1, 2500));
    for (int i = 0; i < n; ++i) {
      rows += fmt::format(
          "{{\"ll\": {}, \"ls\": {}, \"sl\": {}, \"lv\": {}}}\n",
          list_of(3, [&] { return list_of(4, [&] { return maybe(std::to_string(g.Int(-1000, 1000))); }); }),
          list_of(3, [&] {
            return maybe(fmt::format("{{\"x\": {}, \"y\": {}}}", maybe(std::to_string(g.Int(0, 5))),
                                     maybe("\"" + g.Word() + "\"")));
          }),
          maybe(fmt::format("{{\"l\": {}, \"z\": {}}}", list_of(3, [&] { return maybe("\"" + g.Text(1, 3) + "\""); }),
                            maybe(std::to_string(g.Int(0, 100)) + ".5"))),
          list_of(2, [&] { return maybe(fmt::format("[{}, {}]", g.Int(0, 9), g.Int(0, 9))); }));
    }
    auto b = FromJson(s, rows);
    ASSERT_NE(b, nullptr);
    RoundTrip(s, Split(*b, 3), fmt::format("nested seed {}", seed));
  }
}

TEST(FileWriterTest, AllNullAndAllEmpty) {
  auto s = schema({field("n", int64()), field("l", list(int32())), field("st", struct_({field("a", int32())})),
                   field("t", utf8())});
  std::string rows;
  for (int i = 0; i < 3000; ++i) {
    rows += fmt::format("{{\"n\": null, \"l\": {}, \"st\": {}, \"t\": null}}\n", i % 3 == 0 ? "null" : "[]",
                        i % 2 ? "null" : "{\"a\": null}");
  }
  auto b = FromJson(s, rows);
  ASSERT_NE(b, nullptr);
  RoundTrip(s, Split(*b, 2), "all null");
}

}  // namespace
}  // namespace lance::file

namespace lance::file {
namespace {

TEST(FileWriterTest, ZeroRowsKeepTheSchema) {
  auto s = schema({field("a", int32()), field("l", list(utf8())), field("v", fixed_size_list(float32(), 3))});
  for (uint16_t minor : {1, 2}) {
    WriteOptions o;
    o.version = {2, minor};
    WriteSummary summary;
    auto r = WriteAndOpen(s, {}, o, &summary);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->num_rows(), 0);
    EXPECT_EQ(summary.num_rows, 0);
    EXPECT_EQ(r->num_columns(), 3);
    EXPECT_TRUE(r->schema()->Equals(*s));
    for (int c = 0; c < 3; ++c) EXPECT_TRUE(r->columns()[static_cast<size_t>(c)].pages.empty());
  }
}

}  // namespace
}  // namespace lance::file

namespace lance::file {
namespace {

TEST(FileWriterTest, NullableVectors) {
  auto s = schema({field("v", fixed_size_list(float32(), 128)), field("w", fixed_size_list(float32(), 128))});
  Gen g(5);
  std::string rows;
  for (int i = 0; i < 700; ++i) {
    auto vec = [&](bool item_nulls) {
      std::string out = "[";
      for (int k = 0; k < 128; ++k) {
        out += k ? "," : "";
        out += item_nulls && g.Chance(3) ? std::string("null") : std::to_string(g.Int(0, 1 << 20) / 64.0);
      }
      return out + "]";
    };
    rows += fmt::format("{{\"v\": {}, \"w\": {}}}\n", i % 9 == 4 ? "null" : vec(false),
                        i % 11 == 2 ? "null" : vec(true));
  }
  auto b = FromJson(s, rows);
  ASSERT_NE(b, nullptr);
  RoundTrip(s, Split(*b, 2), "vectors");
  auto r = WriteAndOpen(s, {b}, WriteOptions{});
  ASSERT_NE(r, nullptr);
  // Null vectors only: full-zip with a 1-byte control word; null items: mini-block with validity.
  EXPECT_EQ(Descriptions(*r, 0).at(0), "full_zip(values=fixed_size_list(128, flat(32)))");
  EXPECT_EQ(Descriptions(*r, 1).at(0),
            "mini_block(values=fixed_size_list(128, validity, flat(32)), def=out_of_line_bitpacking(16, flat(1)))");
}


// A dictionary array of `type` over `items` with the given indices (nullopt: a null row).
ArrayPtr DictArray(const DataTypePtr& type, ArrayPtr items, const std::vector<std::optional<int64_t>>& idx) {
  const int64_t n = static_cast<int64_t>(idx.size());
  const int w = type->index_type()->bit_width() / 8;
  BufferPtr indices = *AllocateBuffer(n * w, true);
  BufferPtr validity = *AllocateBuffer(bit_util::BytesForBits(n), true);
  for (int64_t i = 0; i < n; ++i) {
    if (!idx[static_cast<size_t>(i)]) continue;
    const uint64_t k = static_cast<uint64_t>(*idx[static_cast<size_t>(i)]);
    std::memcpy(indices->mutable_data() + i * w, &k, static_cast<size_t>(w));
    bit_util::SetBit(validity->mutable_data(), i);
  }
  return Array::Make(type, n, {validity, indices}, {}, 0, std::move(items));
}

ArrayPtr StringsArray(const DataTypePtr& type, const std::vector<std::optional<std::string>>& v) {
  std::string json = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    json += i ? "," : "";
    json += v[i] ? "\"" + *v[i] + "\"" : std::string("null");
  }
  auto a = ArrayFromJSON(type, json + "]");
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return a.ok() ? *a : nullptr;
}

// Arrow dictionary columns (every index width, string / binary / number items, nulls as rows
// and as items, a dictionary that changes between batches, nested in a list and a struct) read
// back with equal values, in every layout variant; the indices keep the index type's width.
TEST(FileWriterTest, ArrowDictionaryColumnsRoundTrip) {
  const int64_t n = 3000;
  const std::vector<std::string> colors = {"red", "green", "blue", "", "ünïcode", "unused"};
  const std::vector<std::string> other = {"x", "blue", "red", "green", "", "ünïcode"};  // batch 2
  auto s8 = dictionary(int8(), utf8());
  auto u16b = dictionary(uint16(), binary());
  auto i64v = dictionary(int32(), int64());
  auto holes = dictionary(int16(), utf8());
  auto wide = dictionary(int64(), utf8());
  auto lst = list(field("item", dictionary(int8(), utf8())));
  auto st = struct_({field("d", dictionary(uint32(), utf8())), field("k", int32())});
  auto sch = schema({field("s8", s8), field("u16b", u16b), field("i64v", i64v), field("holes", holes),
                     field("wide", wide), field("lst", lst), field("st", st)});

  std::vector<std::optional<std::string>> s8_values(n), wide_values(n);
  std::vector<std::optional<int64_t>> s8_a, s8_b, u16_idx(n), i64_idx(n), hole_idx(n), wide_idx(n);
  std::vector<std::optional<std::string>> hole_values(n);
  std::vector<std::optional<std::string>> many;
  for (int k = 0; k < 300; ++k) many.push_back(fmt::format("item-{}-{}", k, std::string(static_cast<size_t>(k % 7), 'z')));
  std::string lst_json = "[", st_json = "[";
  for (int64_t i = 0; i < n; ++i) {
    const bool null = i % 11 == 3;
    const int64_t c = (i * 3 + (i >> 4)) % 5;
    s8_values[static_cast<size_t>(i)] = null ? std::nullopt : std::optional<std::string>(colors[static_cast<size_t>(c)]);
    if (i < 1000) {
      s8_a.push_back(null ? std::nullopt : std::optional<int64_t>(c));
    } else {
      const auto it = std::find(other.begin(), other.end(), colors[static_cast<size_t>(c)]);
      s8_b.push_back(null ? std::nullopt : std::optional<int64_t>(it - other.begin()));
    }
    u16_idx[static_cast<size_t>(i)] = (i * 7) % 300;
    i64_idx[static_cast<size_t>(i)] = i % 13 == 5 ? std::nullopt : std::optional<int64_t>(i % 4);
    hole_idx[static_cast<size_t>(i)] = i % 3;
    hole_values[static_cast<size_t>(i)] = i % 3 == 1 ? std::nullopt : std::optional<std::string>(i % 3 ? "c" : "a");
    wide_idx[static_cast<size_t>(i)] = null ? std::nullopt : std::optional<int64_t>(i % 6);
    wide_values[static_cast<size_t>(i)] = null ? std::nullopt : std::optional<std::string>(colors[static_cast<size_t>(i % 6)]);
    lst_json += i ? "," : "";
    lst_json += i % 9 == 0 ? "null" : i % 9 == 1 ? "[]" : fmt::format("[\"{}\", null, \"{}\"]", colors[static_cast<size_t>(i % 4)], colors[static_cast<size_t>(c)]);
    st_json += i ? "," : "";
    st_json += i % 7 == 0 ? "null" : fmt::format("{{\"d\": {}, \"k\": {}}}", i % 5 == 0 ? "null" : "\"" + colors[static_cast<size_t>(c)] + "\"", i);
  }
  lst_json += "]";
  st_json += "]";
  std::vector<std::optional<std::string>> c_opt(colors.begin(), colors.end()), o_opt(other.begin(), other.end());
  auto colors_arr = StringsArray(utf8(), c_opt);
  auto other_arr = StringsArray(utf8(), o_opt);
  ArrayPtr many_arr;
  {
    auto as_binary = std::make_shared<Array>(*StringsArray(utf8(), many));
    as_binary->type = binary();  // same layout
    many_arr = as_binary;
  }
  auto numbers = ArrayFromJSON(int64(), "[5, 900, -7, 123456789012]");
  auto hole_items = StringsArray(utf8(), {std::string("a"), std::nullopt, std::string("c")});
  auto lst_arr = ArrayFromJSON(lst, lst_json);
  auto st_arr = ArrayFromJSON(st, st_json);
  ASSERT_TRUE(numbers.ok() && lst_arr.ok() && st_arr.ok()) << lst_arr.status().ToString() << st_arr.status().ToString();

  auto s8_in_a = DictArray(s8, colors_arr, s8_a);
  auto s8_in_b = DictArray(s8, other_arr, s8_b);
  auto u16_in = DictArray(u16b, many_arr, u16_idx);
  auto i64_in = DictArray(i64v, *numbers, i64_idx);
  auto hole_in = DictArray(holes, hole_items, hole_idx);
  auto wide_in = DictArray(wide, colors_arr, wide_idx);
  std::vector<RecordBatchPtr> batches;
  for (auto [start, len] : {std::pair<int64_t, int64_t>{0, 1000}, {1000, 0}, {1000, 2000}}) {
    const ArrayPtr s8_part = start < 1000 ? s8_in_a : s8_in_b->Slice(start - 1000, len);
    batches.push_back(std::make_shared<RecordBatch>(
        sch, len,
        std::vector<ArrayPtr>{len == 0 ? s8_in_a->Slice(0, 0) : s8_part, u16_in->Slice(start, len),
                              i64_in->Slice(start, len), hole_in->Slice(start, len), wide_in->Slice(start, len),
                              (*lst_arr)->Slice(start, len), (*st_arr)->Slice(start, len)}));
  }
  // Expected: the same values (rows pointing at a null item are null rows).
  const RecordBatch expected(sch, n,
                             {StringsArray(s8, s8_values), u16_in, i64_in,
                              StringsArray(holes, hole_values), StringsArray(wide, wide_values), *lst_arr, *st_arr});
  for (const Variant& v : AllVariants()) {
    auto reader = WriteAndOpen(sch, batches, v.Options());
    ASSERT_NE(reader, nullptr) << v.Name();
    EXPECT_TRUE(reader->schema()->Equals(*sch)) << reader->schema()->ToString();
    CheckReads(*reader, expected, "dictionaries " + v.Name());
    if (::testing::Test::HasFailure()) return;
  }
  for (uint16_t minor : {1, 2}) {
    WriteOptions o;
    o.version = {2, minor};
    auto r = WriteAndOpen(sch, batches, o);
    ASSERT_NE(r, nullptr);
    const std::string items = minor == 2 ? "general(lz4, variable(flat(32)))" : "variable(flat(32))";
    const std::string numbers_items = minor == 2 ? "general(lz4, flat(64))" : "flat(64)";
    EXPECT_EQ(Descriptions(*r, 0).at(0),
              "mini_block(values=inline_bitpacking(8), dictionary=" + items + ", def=out_of_line_bitpacking(16, flat(1)))");
    EXPECT_EQ(Descriptions(*r, 1).at(0), "mini_block(values=inline_bitpacking(16), dictionary=" + items + ")");
    EXPECT_EQ(Descriptions(*r, 2).at(0),
              "mini_block(values=inline_bitpacking(32), dictionary=" + numbers_items + ", def=out_of_line_bitpacking(16, flat(1)))");
    EXPECT_EQ(Descriptions(*r, 4).at(0),
              "mini_block(values=inline_bitpacking(64), dictionary=" + items + ", def=out_of_line_bitpacking(16, flat(1)))");
  }
}

// A dictionary whose items do not fit the index type after merging batches is refused.
TEST(FileWriterTest, ArrowDictionaryOverflowingItsIndexType) {
  auto t = dictionary(int8(), utf8());
  auto sch = schema({field("d", t)});
  std::vector<std::optional<std::string>> a, b;
  for (int k = 0; k < 100; ++k) {
    a.push_back("a" + std::to_string(k));
    b.push_back("b" + std::to_string(k));
  }
  std::vector<std::optional<int64_t>> idx = {0, 99};
  auto store = io::MemoryObjectStore::Make();
  auto w = FileWriter::Open(store, "d.lance", sch);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Write(RecordBatch(sch, 2, {DictArray(t, StringsArray(utf8(), a), idx)})).ok());
  const Status st = (*w)->Write(RecordBatch(sch, 2, {DictArray(t, StringsArray(utf8(), b), idx)}));
  EXPECT_TRUE(st.IsInvalidArgument()) << st.ToString();
  EXPECT_NE(st.message().find("does not fit index type int8"), std::string::npos) << st.ToString();
}

// Low-cardinality 64-bit numbers: a dictionary of the distinct values in 2.2 (as lance 12
// chooses: fewer distinct values than 30% of them), bit-packing / flat in 2.1.
TEST(FileWriterTest, LowCardinalityNumbersGetADictionaryIn22) {
  auto sch = schema({field("i", int64()), field("f", float64()), field("u", int64()), field("small", int64())});
  const int64_t vals[12] = {5, 900, 12345678901, 7, -3, 42, 1000, 2, 3, 4, 5, 6};
  std::string rows;
  Gen g(11);
  for (int i = 0; i < 5000; ++i) {
    rows += fmt::format("{{\"i\": {}, \"f\": {}, \"u\": {}, \"small\": {}}}\n",
                        i % 17 == 0 ? "null" : std::to_string(vals[i % 12]), (i % 5) * 0.25 + 0.5,
                        g.Int(0, 1 << 30) * 1000, i < 50 ? std::to_string(i % 2) : "null");
  }
  auto b = FromJson(sch, rows);
  ASSERT_NE(b, nullptr);
  RoundTrip(sch, Split(*b, 3), "numbers");
  {
    // The 12 repeating values alone: a few KB (lance 12: 3.7 KB; flat: 40 KB).
    auto only = schema({field("i", int64())});
    auto ib = std::make_shared<RecordBatch>(only, b->num_rows(), std::vector<ArrayPtr>{b->column(0)});
    WriteSummary summary;
    ASSERT_NE(WriteAndOpen(only, {ib}, WriteOptions{}, &summary), nullptr);
    EXPECT_LT(summary.size_bytes, 5000);
  }
  for (uint16_t minor : {1, 2}) {
    WriteOptions o;
    o.version = {2, minor};
    WriteSummary summary;
    auto r = WriteAndOpen(sch, {b}, o, &summary);
    ASSERT_NE(r, nullptr);
    if (minor == 2) {
      EXPECT_EQ(Descriptions(*r, 0).at(0),
                "mini_block(values=inline_bitpacking(32), dictionary=general(lz4, flat(64)), def=out_of_line_bitpacking(16, flat(1)))");
      EXPECT_EQ(Descriptions(*r, 1).at(0), "mini_block(values=inline_bitpacking(32), dictionary=general(lz4, flat(64)))");
    } else {
      EXPECT_EQ(Descriptions(*r, 0).at(0), "mini_block(values=flat(64), def=out_of_line_bitpacking(16, flat(1)))");
    }
    // Many distinct values: no dictionary.
    EXPECT_EQ(Descriptions(*r, 2).at(0).find("dictionary"), std::string::npos) << Descriptions(*r, 2).at(0);
  }
}


// Large pages of 64-bit numbers: the dictionary decision (distinct values under 30%) holds on
// pages past the size where a sample screens out nearly-distinct pages first, whatever the
// order of the values (sorted runs, shuffled) and whatever bits they differ in (doubles of
// whole numbers differ only in their high bits); the values read back exactly.
TEST(FileWriterTest, FixedDictionaryDecisionOnLargePages) {
  const int64_t n = 200000;
  struct Case {
    std::string name;
    std::function<uint64_t(int64_t)> value;
    bool dictionary;
  };
  auto shuffled = [n](int64_t i) { return static_cast<uint64_t>((i * 7919) % n); };
  const std::vector<Case> cases = {
      {"sorted runs of 4", [](int64_t i) { return static_cast<uint64_t>(i / 4); }, true},
      {"shuffled 25%", [&](int64_t i) { return shuffled(i) % (n / 4) * 1000003; }, true},
      {"whole doubles 10%",
       [&](int64_t i) {
         const double d = static_cast<double>(shuffled(i) % (n / 10));
         uint64_t bits;
         std::memcpy(&bits, &d, 8);
         return bits;
       },
       true},
      {"few distinct", [](int64_t i) { return static_cast<uint64_t>(i % 3) << 60; }, true},
      {"shuffled 35%", [&](int64_t i) { return shuffled(i) % (n * 35 / 100); }, false},
      {"all distinct", [](int64_t i) { return static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ULL; }, false},
      {"runs of 2", [](int64_t i) { return static_cast<uint64_t>(i / 2); }, false},
  };
  auto sch = schema({field("v", int64(), false)});
  for (const auto& c : cases) {
    auto buf = AllocateBuffer(n * 8);
    ASSERT_TRUE(buf.ok());
    auto* out = reinterpret_cast<uint64_t*>(std::const_pointer_cast<Buffer>(*buf)->mutable_data());
    for (int64_t i = 0; i < n; ++i) out[i] = c.value(i);
    ArrayPtr arr = Array::Make(int64(), n, {nullptr, *buf});
    auto b = std::make_shared<RecordBatch>(sch, n, std::vector<ArrayPtr>{arr});
    auto r = WriteAndOpen(sch, {b}, WriteOptions{});
    ASSERT_NE(r, nullptr) << c.name;
    for (const auto& d : Descriptions(*r, 0)) {
      EXPECT_EQ(d.find("dictionary") != std::string::npos, c.dictionary) << c.name << ": " << d;
    }
    CheckReads(*r, *b, c.name);
  }
}

// Encoding on the thread pool does not change a byte of the file (pages are written in the
// order they are taken), with many pages of many columns in flight.
TEST(FileWriterTest, ThreadedEncodingWritesTheSameBytes) {
  auto s = MixedSchema();
  auto b = FromJson(s, MixedRows(8000, 9));
  ASSERT_NE(b, nullptr);
  auto pool = ThreadPool::Make(3).ValueOrDie();
  for (uint16_t minor : {1, 2}) {
    std::string bytes[2];
    for (int threaded = 0; threaded < 2; ++threaded) {
      WriteOptions o;
      o.version = {2, minor};
      o.max_page_bytes = 4096;
      o.pool = threaded == 1 ? pool.get() : nullptr;
      auto store = io::MemoryObjectStore::Make();
      auto w = FileWriter::Open(store, "t.lance", s, o);
      ASSERT_TRUE(w.ok());
      for (const auto& part : Split(*b, 5)) ASSERT_TRUE((*w)->Write(*part).ok());
      ASSERT_TRUE((*w)->Finish().ok());
      auto got = store->Get("t.lance");
      ASSERT_TRUE(got.ok());
      bytes[threaded] = std::string((*got)->view());
      auto reader = FileReader::Open(*got);
      ASSERT_TRUE(reader.ok());
      EXPECT_GT((*reader)->columns()[0].pages.size(), 10u);
      CheckReads(**reader, *b, fmt::format("threaded={} 2.{}", threaded, minor));
    }
    EXPECT_EQ(bytes[0].size(), bytes[1].size());
    EXPECT_TRUE(bytes[0] == bytes[1]) << "2." << minor;
  }
}

// Schema metadata is a protobuf map, which protobuf iterates in a per-process random order:
// the footer must still come out the same for the same input (index files are compared byte for
// byte, and a rewrite of an unchanged file must not change it), its entries sorted by key.
TEST(FileWriterTest, SchemaMetadataWritesReproducibleBytes) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int i = 0; i < 40; ++i) pairs.emplace_back(fmt::format("key{:02}", (i * 17) % 40), std::to_string(i));
  auto s = MixedSchema()->WithMetadata(std::make_shared<KeyValueMetadata>(pairs));
  auto b = FromJson(s, MixedRows(50, 3));
  ASSERT_NE(b, nullptr);
  std::string first;
  for (int round = 0; round < 8; ++round) {
    auto store = io::MemoryObjectStore::Make();
    auto w = FileWriter::Open(store, "t.lance", s, WriteOptions{});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Write(*b).ok());
    ASSERT_TRUE((*w)->Finish().ok());
    auto got = store->Get("t.lance");
    ASSERT_TRUE(got.ok());
    const std::string bytes((*got)->view());
    if (round == 0) {
      first = bytes;
      auto reader = FileReader::Open(*got);
      ASSERT_TRUE(reader.ok());
      const auto& md = (*reader)->schema()->metadata();
      ASSERT_NE(md, nullptr);
      ASSERT_EQ(md->size(), 40);
      for (int i = 0; i < 40; ++i) EXPECT_EQ(md->pairs()[i].first, fmt::format("key{:02}", i));
    } else {
      EXPECT_TRUE(bytes == first) << "round " << round;
    }
  }
}

}  // namespace
}  // namespace lance::file
