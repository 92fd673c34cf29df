#include "lance/columnar/c_bridge.h"

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace lance {
namespace {

// ---- Hand-built arrays ---------------------------------------------------------------------

BufferPtr Bytes(const void* data, size_t n) {
  auto r = CopyBuffer(std::string_view(static_cast<const char*>(data), n));
  EXPECT_TRUE(r.ok());
  return *r;
}

template <typename T>
BufferPtr Values(const std::vector<T>& v) {
  return Bytes(v.data(), v.size() * sizeof(T));
}

BufferPtr Bitmap(const std::vector<bool>& bits) {
  std::vector<uint8_t> bytes(static_cast<size_t>(bit_util::BytesForBits(static_cast<int64_t>(bits.size()))), 0);
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) bit_util::SetBit(bytes.data(), static_cast<int64_t>(i));
  }
  return Bytes(bytes.data(), bytes.size());
}

// A validity bitmap, or null when `valid` is empty (all valid).
BufferPtr Validity(const std::vector<bool>& valid) { return valid.empty() ? nullptr : Bitmap(valid); }

template <typename T>
ArrayPtr Primitive(DataTypePtr type, const std::vector<T>& values, const std::vector<bool>& valid = {}) {
  return Array::Make(std::move(type), static_cast<int64_t>(values.size()),
                     {Validity(valid), Values(values)});
}

ArrayPtr Bools(const std::vector<bool>& values, const std::vector<bool>& valid = {}) {
  return Array::Make(boolean(), static_cast<int64_t>(values.size()), {Validity(valid), Bitmap(values)});
}

// utf8/binary (32-bit offsets) or their large variants; nullopt is a null.
ArrayPtr Strings(DataTypePtr type, const std::vector<std::optional<std::string>>& values) {
  std::string data;
  std::vector<int64_t> offsets{0};
  std::vector<bool> valid;
  bool any_null = false;
  for (const auto& v : values) {
    if (v) data += *v;
    offsets.push_back(static_cast<int64_t>(data.size()));
    valid.push_back(v.has_value());
    any_null |= !v.has_value();
  }
  BufferPtr offsets_buf;
  if (type->has_large_offsets()) {
    offsets_buf = Values(offsets);
  } else {
    std::vector<int32_t> narrow(offsets.begin(), offsets.end());
    offsets_buf = Values(narrow);
  }
  return Array::Make(std::move(type), static_cast<int64_t>(values.size()),
                     {any_null ? Bitmap(valid) : nullptr, offsets_buf, Bytes(data.data(), data.size())});
}

ArrayPtr ListOf(DataTypePtr type, const std::vector<int64_t>& offsets, ArrayPtr child,
                const std::vector<bool>& valid = {}) {
  BufferPtr offsets_buf;
  if (type->has_large_offsets()) {
    offsets_buf = Values(offsets);
  } else {
    offsets_buf = Values(std::vector<int32_t>(offsets.begin(), offsets.end()));
  }
  return Array::Make(std::move(type), static_cast<int64_t>(offsets.size()) - 1,
                     {Validity(valid), offsets_buf}, {std::move(child)});
}

ArrayPtr StructOf(DataTypePtr type, int64_t length, std::vector<ArrayPtr> children,
                  const std::vector<bool>& valid = {}) {
  return Array::Make(std::move(type), length, {Validity(valid)}, std::move(children));
}

// ---- Comparison ----------------------------------------------------------------------------

// Zero-copy round trips give back the very same memory: every buffer pointer must match (a
// null validity may come back null), recursively, on top of logical equality.
void ExpectSameMemory(const Array& a, const Array& b, const std::string& where = "root") {
  SCOPED_TRACE(where);
  ASSERT_TRUE(a.type->Equals(*b.type)) << a.type->ToString() << " vs " << b.type->ToString();
  EXPECT_EQ(a.length, b.length);
  EXPECT_EQ(a.offset, b.offset);
  EXPECT_EQ(a.null_count, b.null_count);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    const uint8_t* pa = a.buffers[i] ? a.buffers[i]->data() : nullptr;
    const uint8_t* pb = b.buffers[i] ? b.buffers[i]->data() : nullptr;
    EXPECT_EQ(pa, pb) << "buffer " << i;
  }
  ASSERT_EQ(a.children.size(), b.children.size());
  for (size_t i = 0; i < a.children.size(); ++i) {
    ExpectSameMemory(*a.children[i], *b.children[i], where + "/" + std::to_string(i));
  }
  ASSERT_EQ(a.dictionary == nullptr, b.dictionary == nullptr);
  if (a.dictionary) ExpectSameMemory(*a.dictionary, *b.dictionary, where + "/dict");
}

ArrayPtr RoundTrip(const ArrayPtr& array) {
  ArrowArray c_array;
  ArrowSchema c_schema;
  Status st = ExportArray(array, &c_array, &c_schema);
  EXPECT_TRUE(st.ok()) << st.ToString();
  if (!st.ok()) return nullptr;
  auto imported = ImportArray(&c_array, &c_schema);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(c_array.release, nullptr);   // moved into the import
  EXPECT_EQ(c_schema.release, nullptr);  // consumed
  return imported.ok() ? *imported : nullptr;
}

void ExpectRoundTrip(const ArrayPtr& array) {
  SCOPED_TRACE(array->type->ToString());
  ArrayPtr back = RoundTrip(array);
  ASSERT_NE(back, nullptr);
  ExpectSameMemory(*array, *back);
  EXPECT_TRUE(array->Equals(*back)) << array->ToString() << " vs " << back->ToString();
  ASSERT_TRUE(back->Validate().ok());
}

// ---- Round trips of every type -------------------------------------------------------------

TEST(CBridgeTest, RoundTripPrimitives) {
  ExpectRoundTrip(Array::Make(null(), 5, {}));
  ExpectRoundTrip(Bools({true, false, true, true}, {true, true, false, true}));
  ExpectRoundTrip(Primitive<int8_t>(int8(), {1, -2, 3}, {true, false, true}));
  ExpectRoundTrip(Primitive<int16_t>(int16(), {1, -2, 300}));
  ExpectRoundTrip(Primitive<int32_t>(int32(), {1, -2, 3, 4}, {false, true, true, true}));
  ExpectRoundTrip(Primitive<int64_t>(int64(), {1, -2, 1LL << 40}));
  ExpectRoundTrip(Primitive<uint8_t>(uint8(), {1, 255}));
  ExpectRoundTrip(Primitive<uint16_t>(uint16(), {1, 65535}));
  ExpectRoundTrip(Primitive<uint32_t>(uint32(), {1, 4000000000u}));
  ExpectRoundTrip(Primitive<uint64_t>(uint64(), {1, ~0ULL}, {true, false}));
  ExpectRoundTrip(Primitive<uint16_t>(float16(), {0x3c00, 0x4000}));
  ExpectRoundTrip(Primitive<float>(float32(), {1.5f, -0.0f}));
  ExpectRoundTrip(Primitive<double>(float64(), {2.25, 1e300}, {true, false}));
}

TEST(CBridgeTest, RoundTripBinaryLike) {
  ExpectRoundTrip(Strings(utf8(), {"a", std::nullopt, "", "héllo"}));
  ExpectRoundTrip(Strings(large_utf8(), {"xyz", std::nullopt}));
  ExpectRoundTrip(Strings(binary(), {std::string("\0\1\2", 3), "b"}));
  ExpectRoundTrip(Strings(large_binary(), {std::nullopt, std::string("\xff", 1)}));
  ExpectRoundTrip(Array::Make(fixed_size_binary(3), 2, {Bitmap({true, false}), Bytes("abcdef", 6)}));
  ExpectRoundTrip(Strings(utf8(), {}));
  ExpectRoundTrip(Strings(utf8(), {"", ""}));
}

TEST(CBridgeTest, RoundTripTemporalAndDecimal) {
  ExpectRoundTrip(Primitive<int32_t>(date32(), {0, 19000}));
  ExpectRoundTrip(Primitive<int64_t>(date64(), {86400000}));
  ExpectRoundTrip(Primitive<int32_t>(time32(TimeUnit::kSecond), {1, 2}));
  ExpectRoundTrip(Primitive<int32_t>(time32(TimeUnit::kMilli), {1, 2}));
  ExpectRoundTrip(Primitive<int64_t>(time64(TimeUnit::kMicro), {1, 2}));
  ExpectRoundTrip(Primitive<int64_t>(time64(TimeUnit::kNano), {1, 2}));
  for (TimeUnit unit : {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    ExpectRoundTrip(Primitive<int64_t>(timestamp(unit), {1, 2}));
    ExpectRoundTrip(Primitive<int64_t>(timestamp(unit, "Europe/Paris"), {3}, {false}));
    ExpectRoundTrip(Primitive<int64_t>(duration(unit), {-5, 7}));
  }
  // decimal128: two little-endian int64 words per value.
  ExpectRoundTrip(Array::Make(decimal128(10, 2), 2,
                              {Bitmap({true, false}), Values(std::vector<int64_t>{1234, 0, -1, -1})}));
  ExpectRoundTrip(Array::Make(decimal128(38, -3), 1, {nullptr, Values(std::vector<int64_t>{5, 0})}));
}

TEST(CBridgeTest, RoundTripNested) {
  auto ints = Primitive<int32_t>(int32(), {1, 2, 3, 4, 5}, {true, false, true, true, true});
  ExpectRoundTrip(ListOf(list(int32()), {0, 2, 2, 5}, ints, {true, false, true}));
  ExpectRoundTrip(ListOf(large_list(field("elem", int32(), false)), {0, 1, 5}, ints));
  ExpectRoundTrip(Array::Make(fixed_size_list(int32(), 2), 2, {Bitmap({true, false})}, {ints}));

  auto st = struct_({field("a", int32()), field("b", utf8(), false)});
  auto strs = Strings(utf8(), {"x", "y", "z", "w", "v"});
  ExpectRoundTrip(StructOf(st, 5, {ints, strs}, {true, true, false, true, true}));
  ExpectRoundTrip(StructOf(struct_({}), 3, {}));

  // map<utf8, int32>: entries is a non-null struct of key/value.
  for (bool sorted : {false, true}) {
    auto map_type = map(utf8(), int32(), sorted);
    auto entries = StructOf(map_type->value_type(), 5, {strs, ints});
    ExpectRoundTrip(ListOf(map_type, {0, 3, 3, 5}, entries, {true, false, true}));
  }

  // list<struct<list<int32>>>: nesting below nesting.
  auto inner = ListOf(list(int32()), {0, 1, 3, 5}, ints);
  auto st2 = struct_({field("l", list(int32()))});
  ExpectRoundTrip(ListOf(list(st2), {0, 2, 3}, StructOf(st2, 3, {inner})));
}

TEST(CBridgeTest, RoundTripDictionary) {
  auto values = Strings(utf8(), {"red", "green", "blue"});
  for (bool ordered : {false, true}) {
    auto type = dictionary(int16(), utf8(), ordered);
    auto indices = Values(std::vector<int16_t>{2, 0, 0, 1});
    auto array = Array::Make(type, 4, {Bitmap({true, true, false, true}), indices}, {}, 0, values);
    ExpectRoundTrip(array);
  }
  auto type = dictionary(uint32(), int64());
  auto array = Array::Make(type, 2, {nullptr, Values(std::vector<uint32_t>{1, 0})}, {}, 0,
                           Primitive<int64_t>(int64(), {10, 20}));
  ExpectRoundTrip(array);
}

TEST(CBridgeTest, SlicedArraysUseTheOffsetField) {
  auto ints = Primitive<int32_t>(int32(), {1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                                 {true, false, true, true, true, true, false, true, true, true});
  auto sliced = ints->Slice(3, 5);
  ArrowArray c;
  ASSERT_TRUE(ExportArray(sliced, &c).ok());
  EXPECT_EQ(c.offset, 3);
  EXPECT_EQ(c.length, 5);
  EXPECT_EQ(c.null_count, 1);
  EXPECT_EQ(c.buffers[1], ints->buffers[1]->data());  // no copy: the parent's values
  auto back = ImportArray(&c, int32());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSameMemory(*sliced, **back);
  EXPECT_TRUE(sliced->Equals(**back));

  ExpectRoundTrip(Strings(utf8(), {"aa", std::nullopt, "b", "cccc", ""})->Slice(1, 3));
  ExpectRoundTrip(Bools({true, false, true, false, true, true, false, false, true}, {})->Slice(5, 4));
  auto list_array = ListOf(list(int32()), {0, 2, 2, 5, 7, 10}, ints);
  ExpectRoundTrip(list_array->Slice(2, 2));
  auto st = struct_({field("a", int32())});
  ExpectRoundTrip(StructOf(st, 10, {ints})->Slice(4, 3));
  ExpectRoundTrip(ints->Slice(10, 0));
}

// Built by the array builders: every type with nulls, empty elements and nesting, round
// tripped at every slice [offset, offset + length) so offsets reach every level of the layout.
std::vector<std::pair<DataTypePtr, std::string>> EveryTypeCases() {
  return {
      {null(), "[null, null, null]"},
      {boolean(), "[true, false, null, true, false, true, true, false, null, true]"},
      {int8(), "[-128, 127, null, 0]"},
      {uint16(), "[65535, null, 1]"},
      {int64(), "[-9223372036854775808, 9223372036854775807, null]"},
      {float16(), "[0.5, null, -2.0]"},
      {float64(), R"([0.1, "NaN", null, -0.0])"},
      {utf8(), R"(["", "ab", null, "日本", ""])"},
      {large_utf8(), R"(["x", null, "yz"])"},
      {binary(), R"(["", "AAEC", null, "/w=="])"},
      {large_binary(), R"(["AA==", null, ""])"},
      {fixed_size_binary(2), R"(["AAE=", null, "AQI="])"},
      {date32(), "[19000, -1, null]"},
      {date64(), "[1641600000000, null]"},
      {time32(TimeUnit::kMilli), "[1000, null]"},
      {time64(TimeUnit::kNano), "[86399999999999, 0]"},
      {timestamp(TimeUnit::kMicro, "UTC"), "[1700000000000000, null, 0]"},
      {duration(TimeUnit::kSecond), "[-5, 5, null]"},
      {decimal128(38, 10), R"(["1234567890123456789012345678.1234567890", null, "-0.0000000001"])"},
      {list(int32()), "[[1, 2], null, [], [3, null, 4]]"},
      {large_list(utf8()), R"([["a", null], [], null, ["b"]])"},
      {fixed_size_list(float32(), 2), "[[1.5, 2.0], null, [null, 3.0]]"},
      {struct_({field("a", int32()), field("b", struct_({field("c", utf8())}))}),
       R"([{"a": 1, "b": {"c": "x"}}, null, {"a": null, "b": null}, {"a": 4, "b": {"c": null}}])"},
      {map(utf8(), list(int64())), R"([[["a", [1]], ["b", null]], [], null, [["c", []]]])"},
      {dictionary(int32(), utf8()), R"(["a", "b", "a", null, "c"])"},
      {dictionary(int16(), int64()), "[5, 5, null, 7]"},
  };
}

TEST(CBridgeTest, EveryTypeEverySlice) {
  for (const auto& [type, json] : EveryTypeCases()) {
    auto array = ArrayFromJSON(type, json);
    ASSERT_TRUE(array.ok()) << type->ToString() << ": " << array.status().ToString();
    const int64_t n = (*array)->length;
    for (int64_t off = 0; off <= n; ++off) {
      for (int64_t len = 0; off + len <= n; ++len) {
        SCOPED_TRACE(::testing::Message() << "slice " << off << "+" << len);
        auto slice = (*array)->Slice(off, len);
        ArrayPtr back = RoundTrip(slice);
        ASSERT_NE(back, nullptr);
        ExpectSameMemory(*slice, *back);
        EXPECT_TRUE(slice->Equals(*back)) << slice->ToString() << " vs " << back->ToString();
        EXPECT_TRUE(back->ValidateFull().ok());
      }
    }
  }
}

TEST(CBridgeTest, EveryTypeThroughAStream) {
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  int i = 0;
  for (const auto& [type, json] : EveryTypeCases()) {
    auto array = ArrayFromJSON(type, json);
    ASSERT_TRUE(array.ok());
    auto slice = (*array)->Slice(1, 2);
    fields.push_back(field("c" + std::to_string(i++), type));
    columns.push_back(slice);
  }
  auto batch = RecordBatch::Make(schema(fields), 2, columns);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<VectorRecordBatchReader>(
                                          (*batch)->schema(), std::vector<RecordBatchPtr>{*batch, *batch}),
                                      &stream)
                  .ok());
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->schema()->Equals(*(*batch)->schema()));
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  for (const auto& b : *all) {
    EXPECT_TRUE((*batch)->Equals(*b));
    EXPECT_TRUE(b->ValidateFull().ok());
  }
}

// ---- Schemas and metadata ------------------------------------------------------------------

TEST(CBridgeTest, SchemaRoundTripWithMetadata) {
  auto field_md = std::make_shared<const KeyValueMetadata>(std::vector<std::pair<std::string, std::string>>{
      {"k1", "v1"}, {"empty", ""}, {std::string("bin\0key", 7), std::string("\0\xff", 2)}});
  auto schema_md = std::make_shared<const KeyValueMetadata>(
      std::vector<std::pair<std::string, std::string>>{{"origin", "lance"}});
  auto nested_md = std::make_shared<const KeyValueMetadata>(
      std::vector<std::pair<std::string, std::string>>{{"ARROW:extension:name", "x.y"}});
  auto s = schema({field("id", int64(), false, field_md),
                   field("tags", list(field("tag", utf8(), true, nested_md))),
                   field("m", map(utf8(), float64(), true)),
                   field("d", dictionary(int8(), large_utf8(), true), true),
                   field("ts", timestamp(TimeUnit::kMicro, "UTC"), false)},
                  schema_md);
  ArrowSchema c;
  ASSERT_TRUE(ExportSchema(*s, &c).ok());
  EXPECT_STREQ(c.format, "+s");
  ASSERT_EQ(c.n_children, 5);
  EXPECT_STREQ(c.children[0]->name, "id");
  EXPECT_EQ(c.children[0]->flags, 0);
  EXPECT_EQ(c.children[1]->flags, ARROW_FLAG_NULLABLE);
  EXPECT_STREQ(c.children[1]->children[0]->name, "tag");
  EXPECT_EQ(c.children[2]->flags, ARROW_FLAG_NULLABLE | ARROW_FLAG_MAP_KEYS_SORTED);
  EXPECT_STREQ(c.children[3]->format, "c");
  EXPECT_STREQ(c.children[3]->dictionary->format, "U");
  EXPECT_EQ(c.children[3]->flags, ARROW_FLAG_NULLABLE | ARROW_FLAG_DICTIONARY_ORDERED);
  EXPECT_STREQ(c.children[4]->format, "tsu:UTC");
  EXPECT_EQ(c.children[1]->metadata, nullptr);  // no metadata: NULL, not an empty string

  // The metadata bytes follow the spec layout exactly.
  ASSERT_NE(c.metadata, nullptr);
  const char expected[] = "\x01\x00\x00\x00\x06\x00\x00\x00origin\x05\x00\x00\x00lance";
  EXPECT_EQ(std::memcmp(c.metadata, expected, sizeof(expected) - 1), 0);

  auto back = ImportSchema(&c);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(c.release, nullptr);
  EXPECT_TRUE(s->Equals(**back, /*check_metadata=*/true)) << (*back)->ToString();
  ASSERT_NE((*back)->field(0)->metadata(), nullptr);
  EXPECT_TRUE((*back)->field(0)->metadata()->Equals(*field_md));
  EXPECT_EQ((*back)->field(1)->type()->value_field()->metadata()->Get("ARROW:extension:name"), "x.y");
  EXPECT_TRUE((*back)->field(2)->type()->keys_sorted());
  EXPECT_TRUE((*back)->field(3)->type()->ordered());
}

// ReadSchema / ReadType describe a schema the caller keeps: it is neither released nor
// moved, so reading it twice gives the same answer and the caller's release still works.
TEST(CBridgeTest, ReadSchemaLeavesTheCallersSchemaAlone) {
  auto md = std::make_shared<const KeyValueMetadata>(
      std::vector<std::pair<std::string, std::string>>{{"k", "v"}});
  auto s = schema({field("id", int64(), false, md), field("tags", list(utf8()))},
                  std::make_shared<const KeyValueMetadata>(
                      std::vector<std::pair<std::string, std::string>>{{"origin", "x"}}));
  ArrowSchema c;
  ASSERT_TRUE(ExportSchema(*s, &c).ok());
  for (int pass = 0; pass < 2; ++pass) {
    auto back = ReadSchema(&c);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_NE(c.release, nullptr);
    EXPECT_TRUE(s->Equals(**back, /*check_metadata=*/true)) << (*back)->ToString();
  }
  auto child = ReadType(c.children[1]);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_TRUE((*child)->Equals(*list(utf8())));
  c.release(&c);
  EXPECT_EQ(c.release, nullptr);

  // A released, NULL or non-struct schema is refused, naming what is wrong.
  auto released = ReadSchema(&c);
  ASSERT_TRUE(released.status().IsInvalidArgument());
  EXPECT_NE(released.status().message().find("released"), std::string::npos);
  EXPECT_TRUE(ReadSchema(nullptr).status().IsInvalidArgument());
  EXPECT_TRUE(ReadType(nullptr).status().IsInvalidArgument());
  ArrowSchema i;
  ASSERT_TRUE(ExportType(*int32(), &i).ok());
  auto not_struct = ReadSchema(&i);
  ASSERT_TRUE(not_struct.status().IsInvalidArgument());
  EXPECT_NE(not_struct.status().message().find("'+s'"), std::string::npos);
  EXPECT_NE(i.release, nullptr);
  auto t = ReadType(&i);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE((*t)->Equals(*int32()));
  i.release(&i);
}

// A stream without its get_schema or get_next callback is refused (not called through a NULL
// pointer) and still released, as every import consumes its stream.
TEST(CBridgeTest, StreamWithoutCallbacksIsRefusedAndReleased) {
  for (int missing = 0; missing < 2; ++missing) {
    ArrowArrayStream c;
    auto s = schema({field("x", int32())});
    ASSERT_TRUE(ExportRecordBatchReader(
                    std::make_unique<VectorRecordBatchReader>(s, std::vector<RecordBatchPtr>{}), &c)
                    .ok());
    if (missing == 0) c.get_schema = nullptr;
    if (missing == 1) c.get_next = nullptr;
    auto r = ImportRecordBatchReader(&c);
    ASSERT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find(missing == 0 ? "get_schema" : "get_next"), std::string::npos)
        << r.status().ToString();
    EXPECT_EQ(c.release, nullptr);
  }
}

TEST(CBridgeTest, TypeAndFieldRoundTrip) {
  std::vector<DataTypePtr> types = {
      null(), boolean(), int8(), uint64(), float16(), fixed_size_binary(16), date64(),
      time32(TimeUnit::kMilli), time64(TimeUnit::kNano), timestamp(TimeUnit::kSecond, "+01:00"),
      duration(TimeUnit::kNano), decimal128(38, 10), fixed_size_list(field("v", float32(), false), 128),
      large_list(large_binary()), struct_({field("a", boolean()), field("b", struct_({}))}),
      map(field("e", struct_({field("k", int32(), false), field("v", utf8())}), false), false),
      dictionary(int64(), list(utf8()))};
  for (const auto& t : types) {
    ArrowSchema c;
    ASSERT_TRUE(ExportType(*t, &c).ok()) << t->ToString();
    EXPECT_EQ(c.flags & ARROW_FLAG_NULLABLE, ARROW_FLAG_NULLABLE);
    auto back = ImportType(&c);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(t->Equals(**back)) << t->ToString() << " vs " << (*back)->ToString();
  }
  ArrowSchema c;
  auto f = field("x", decimal128(7, 3), false);
  ASSERT_TRUE(ExportField(*f, &c).ok());
  EXPECT_STREQ(c.format, "d:7,3");
  auto back = ImportField(&c);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(f->Equals(**back));
}

// ---- Malformed input -----------------------------------------------------------------------

// A producer-side ArrowSchema built by hand, counting its releases.
struct HandSchema {
  static inline int releases = 0;
  ArrowSchema schema{};
  std::vector<ArrowSchema> children;
  std::vector<ArrowSchema*> child_ptrs;

  static void Release(ArrowSchema* s) {
    ++releases;
    s->release = nullptr;
  }
  static void ReleaseChild(ArrowSchema* s) { s->release = nullptr; }

  explicit HandSchema(const char* format, std::vector<const char*> child_formats = {}) {
    children.resize(child_formats.size());
    for (size_t i = 0; i < child_formats.size(); ++i) {
      children[i].format = child_formats[i];
      children[i].name = "c";
      children[i].release = &ReleaseChild;
      child_ptrs.push_back(&children[i]);
    }
    schema.format = format;
    schema.name = "f";
    schema.n_children = static_cast<int64_t>(children.size());
    schema.children = child_ptrs.empty() ? nullptr : child_ptrs.data();
    schema.release = &Release;
  }
};

TEST(CBridgeTest, MalformedFormatStringsAreRejected) {
  const std::vector<const char*> invalid = {
      "", "x", "ii", "w", "w:", "w:0", "w:-4", "w:abc", "w:3x", "d", "d:", "d:10", "d:,2",
      "d:10,", "d:a,b", "d:10,2,7", "d:0,0", "d:39,0", "t", "td", "tdX", "ttx", "ts", "tsu",
      "tsq:UTC", "tD", "tDx", "tDss", "ti", "tiX", "+", "+q", "+w", "+w:", "+w:-1", "+lx",
      "+ssss", "v", "vx", "d:10,2,128,1"};
  for (const char* format : invalid) {
    HandSchema hs(format);
    HandSchema::releases = 0;
    auto r = ImportType(&hs.schema);
    ASSERT_FALSE(r.ok()) << "format '" << format << "'";
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(std::string("'") + format + "'"), std::string::npos)
        << r.status().ToString();
    EXPECT_EQ(HandSchema::releases, 1) << format;  // consumed even on error
  }
  const std::vector<const char*> unsupported = {"tiM", "tiD", "tin", "vu", "vz", "+vl", "+r",
                                                "+ud:0,1", "+us:0", "d:10,2,256", "d:5,1,64"};
  for (const char* format : unsupported) {
    HandSchema hs(format);
    auto r = ImportType(&hs.schema);
    ASSERT_FALSE(r.ok()) << format;
    EXPECT_TRUE(r.status().IsNotSupported()) << r.status().ToString();
  }
}

TEST(CBridgeTest, MalformedSchemaStructure) {
  {
    HandSchema hs(nullptr);
    HandSchema::releases = 0;
    auto r = ImportType(&hs.schema);
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_EQ(HandSchema::releases, 1);
  }
  {
    HandSchema hs("+l");  // a list without its child
    EXPECT_TRUE(ImportType(&hs.schema).status().IsInvalidArgument());
  }
  {
    HandSchema hs("i", {"i"});  // a primitive with children
    EXPECT_TRUE(ImportType(&hs.schema).status().IsInvalidArgument());
  }
  {
    HandSchema hs("+m", {"i"});  // map entries must be a struct of two
    EXPECT_TRUE(ImportType(&hs.schema).status().IsInvalidArgument());
  }
  {
    HandSchema hs("+s", {"i", "u"});
    hs.schema.children[1] = nullptr;
    EXPECT_TRUE(ImportType(&hs.schema).status().IsInvalidArgument());
  }
  {
    HandSchema hs("+s", {"i", "zz"});  // the error names the field
    auto r = ImportType(&hs.schema);
    EXPECT_TRUE(r.status().IsInvalidArgument());
    EXPECT_NE(r.status().message().find("'zz'"), std::string::npos) << r.status().ToString();
  }
  {
    HandSchema hs("u");  // dictionary with a non-integer index type
    HandSchema dict("u");
    hs.schema.dictionary = &dict.schema;
    EXPECT_TRUE(ImportType(&hs.schema).status().IsInvalidArgument());
  }
  {
    HandSchema hs("i");  // ImportSchema needs a struct
    HandSchema::releases = 0;
    EXPECT_TRUE(ImportSchema(&hs.schema).status().IsInvalidArgument());
    EXPECT_EQ(HandSchema::releases, 1);
  }
  {
    ArrowSchema released{};
    EXPECT_TRUE(ImportType(&released).status().IsInvalidArgument());
  }
  {
    // Negative metadata lengths are caught.
    const char md[] = "\x01\x00\x00\x00\xff\xff\xff\xff";
    HandSchema hs("i");
    hs.schema.metadata = md;
    auto r = ImportField(&hs.schema);
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  }
}

// ---- Release accounting --------------------------------------------------------------------

TEST(CBridgeTest, ExportKeepsBuffersAliveUntilRelease) {
  auto values = Values(std::vector<int64_t>{1, 2, 3});
  auto strs = Strings(utf8(), {"a", "b", "c"});
  std::weak_ptr<const Buffer> strs_data = strs->buffers[2];
  const long base = values.use_count();
  ArrowArray c;
  {
    auto st = struct_({field("v", int64()), field("s", utf8())});
    auto array = StructOf(st, 3, {Array::Make(int64(), 3, {nullptr, values}), strs});
    strs.reset();
    ASSERT_TRUE(ExportArray(array, &c).ok());
  }
  EXPECT_GT(values.use_count(), base);  // held by the export alone now
  EXPECT_FALSE(strs_data.expired());
  EXPECT_EQ(std::memcmp(c.children[1]->buffers[2], "abc", 3), 0);
  c.release(&c);
  EXPECT_EQ(c.release, nullptr);
  EXPECT_EQ(values.use_count(), base);
  EXPECT_TRUE(strs_data.expired());
}

TEST(CBridgeTest, MovedChildOutlivesItsReleasedParent) {
  auto values = Values(std::vector<int32_t>{7, 8});
  const long base = values.use_count();
  ArrowArray c;
  {
    auto st = struct_({field("a", int32()), field("b", int32())});
    auto a = Array::Make(int32(), 2, {nullptr, values});
    ASSERT_TRUE(ExportArray(StructOf(st, 2, {a, Primitive<int32_t>(int32(), {1, 2})}), &c).ok());
  }
  // Move child 0 out (bitwise copy, mark the source released), then release the parent.
  ArrowArray child = *c.children[0];
  c.children[0]->release = nullptr;
  c.release(&c);
  EXPECT_GT(values.use_count(), base);
  EXPECT_EQ(static_cast<const int32_t*>(child.buffers[1])[1], 8);
  auto imported = ImportArray(&child, int32());
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ((*imported)->Values<int32_t>()[0], 7);
  imported = Status::Cancelled("drop");
  EXPECT_EQ(values.use_count(), base);
}

// A producer-side ArrowArray over static memory whose release is counted.
struct CountedProducer {
  static inline int releases = 0;
  static inline int child_releases = 0;
  static void Release(ArrowArray* a) {
    for (int64_t i = 0; a->children != nullptr && i < a->n_children; ++i) {
      if (a->children[i]->release) a->children[i]->release(a->children[i]);
    }
    ++releases;
    a->release = nullptr;
  }
  static void ReleaseChild(ArrowArray* a) {
    ++child_releases;
    a->release = nullptr;
  }
};

TEST(CBridgeTest, ImportReleasesProducerOnceWhenLastBufferDrops) {
  static const int32_t values[] = {10, 20, 30, 40};
  static const uint8_t validity[] = {0x02};  // element 0 null, 1 valid
  static const int32_t offsets[] = {0, 1, 4};
  const void* child_buffers[] = {nullptr, values};
  ArrowArray child{};
  child.length = 4;
  child.null_count = 0;
  child.n_buffers = 2;
  child.buffers = child_buffers;
  child.release = &CountedProducer::ReleaseChild;
  ArrowArray* children[] = {&child};
  const void* buffers[] = {validity, offsets};
  ArrowArray parent{};
  parent.length = 2;
  parent.null_count = -1;  // not computed: the import counts
  parent.n_buffers = 2;
  parent.n_children = 1;
  parent.buffers = buffers;
  parent.children = children;
  parent.release = &CountedProducer::Release;

  CountedProducer::releases = CountedProducer::child_releases = 0;
  auto imported = ImportArray(&parent, list(int32()));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(parent.release, nullptr);  // moved
  ArrayPtr array = *imported;
  imported = Status::Cancelled("drop");
  EXPECT_EQ(array->null_count, 1);
  EXPECT_TRUE(array->IsNull(0));
  EXPECT_EQ(array->ValueLength(1), 3);
  EXPECT_EQ(array->children[0]->Values<int32_t>(), values);  // zero-copy
  EXPECT_EQ(array->children[0]->null_count, 0);

  BufferPtr keep = array->children[0]->buffers[1];
  array.reset();
  EXPECT_EQ(CountedProducer::releases, 0);  // a buffer is still in use
  keep.reset();
  EXPECT_EQ(CountedProducer::releases, 1);
  EXPECT_EQ(CountedProducer::child_releases, 1);  // by the parent, not by us
}

TEST(CBridgeTest, ImportErrorsStillReleaseTheProducer) {
  static const int32_t values[] = {1, 2};
  auto make = [](ArrowArray* a, const void** bufs) {
    *a = ArrowArray{};
    a->length = 2;
    a->n_buffers = 2;
    a->buffers = bufs;
    a->release = &CountedProducer::Release;
  };
  const void* bufs[] = {nullptr, values};
  ArrowArray a;

  CountedProducer::releases = 0;
  make(&a, bufs);
  a.n_buffers = 3;  // wrong buffer count for int32
  auto r = ImportArray(&a, int32());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("expected 2 buffers, got 3"), std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(CountedProducer::releases, 1);

  make(&a, bufs);
  a.null_count = 1;  // nulls claimed but no validity bitmap
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 2);

  const void* no_values[] = {nullptr, nullptr};
  make(&a, no_values);  // values buffer missing for a non-empty array
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 3);

  make(&a, bufs);
  a.offset = -1;
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 4);

  make(&a, bufs);
  HandSchema bad("q");  // the array is consumed even when the schema is bad
  EXPECT_TRUE(ImportArray(&a, &bad.schema).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 5);
  EXPECT_EQ(bad.schema.release, nullptr);

  make(&a, bufs);
  EXPECT_TRUE(ImportArray(&a, utf8()).status().IsInvalidArgument());  // utf8 needs 3 buffers
  EXPECT_EQ(CountedProducer::releases, 6);

  make(&a, bufs);
  a.n_children = 1;  // int32 has no children
  EXPECT_TRUE(ImportArray(&a, int32()).status().IsInvalidArgument());
  EXPECT_EQ(CountedProducer::releases, 7);

  ArrowArray released{};
  EXPECT_TRUE(ImportArray(&released, int32()).status().IsInvalidArgument());
}

TEST(CBridgeTest, ImportAcceptsNullBuffersOfEmptyArrays) {
  const void* bufs[] = {nullptr, nullptr, nullptr};
  ArrowArray a{};
  a.n_buffers = 3;
  a.buffers = bufs;
  a.release = &CountedProducer::Release;
  auto r = ImportArray(&a, utf8());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->length, 0);
  EXPECT_EQ((*r)->ValueOffset(0), 0);

  // Non-empty array of empty strings: the data buffer may be NULL.
  static const int32_t offsets[] = {0, 0, 0};
  const void* bufs2[] = {nullptr, offsets, nullptr};
  a = ArrowArray{};
  a.length = 2;
  a.n_buffers = 3;
  a.buffers = bufs2;
  a.release = &CountedProducer::Release;
  r = ImportArray(&a, utf8());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->GetView(1), "");
}

TEST(CBridgeTest, ImportRunsValidate) {
  // Offsets that run past the child: Validate must refuse the array before anyone reads it.
  static const int32_t values[] = {1, 2};
  static const int32_t offsets[] = {0, 1, 9};
  const void* child_buffers[] = {nullptr, values};
  ArrowArray child{};
  child.length = 2;
  child.n_buffers = 2;
  child.buffers = child_buffers;
  child.release = &CountedProducer::ReleaseChild;
  ArrowArray* children[] = {&child};
  const void* buffers[] = {nullptr, offsets};
  ArrowArray parent{};
  parent.length = 2;
  parent.n_buffers = 2;
  parent.n_children = 1;
  parent.buffers = buffers;
  parent.children = children;
  parent.release = &CountedProducer::Release;
  CountedProducer::releases = 0;
  auto r = ImportArray(&parent, list(int32()));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(CountedProducer::releases, 1);
}

TEST(CBridgeTest, ImportRejectsShortStructChild) {
  static const int32_t values[] = {1};
  const void* child_buffers[] = {nullptr, values};
  ArrowArray child{};
  child.length = 1;  // the parent claims two rows
  child.n_buffers = 2;
  child.buffers = child_buffers;
  child.release = &CountedProducer::ReleaseChild;
  ArrowArray* children[] = {&child};
  const void* buffers[] = {nullptr};
  ArrowArray parent{};
  parent.length = 2;
  parent.n_buffers = 1;
  parent.n_children = 1;
  parent.buffers = buffers;
  parent.children = children;
  parent.release = &CountedProducer::Release;
  CountedProducer::releases = 0;
  auto r = ImportArray(&parent, struct_({field("a", int32())}));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(CountedProducer::releases, 1);
}

// ---- Record batches ------------------------------------------------------------------------

RecordBatchPtr SampleBatch(int64_t base = 0) {
  auto s = schema({field("id", int64(), false), field("name", utf8())},
                  std::make_shared<const KeyValueMetadata>(
                      std::vector<std::pair<std::string, std::string>>{{"k", "v"}}));
  auto ids = Primitive<int64_t>(int64(), {base, base + 1, base + 2});
  auto names = Strings(utf8(), {"a", std::nullopt, "c"});
  auto batch = RecordBatch::Make(s, 3, {ids, names});
  EXPECT_TRUE(batch.ok());
  return *batch;
}

TEST(CBridgeTest, RecordBatchRoundTrip) {
  auto batch = SampleBatch();
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_TRUE(ExportRecordBatch(*batch, &c_array, &c_schema).ok());
  EXPECT_STREQ(c_schema.format, "+s");
  EXPECT_EQ(c_array.n_children, 2);
  EXPECT_EQ(c_array.null_count, 0);
  auto back = ImportRecordBatch(&c_array, &c_schema);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(batch->Equals(**back, /*check_metadata=*/true));
  EXPECT_EQ((*back)->column(0)->buffers[1]->data(), batch->column(0)->buffers[1]->data());

  // A sliced batch: each column carries its own offset.
  auto sliced = batch->Slice(1, 2);
  ASSERT_TRUE(ExportRecordBatch(*sliced, &c_array).ok());
  auto back2 = ImportRecordBatch(&c_array, batch->schema());
  ASSERT_TRUE(back2.ok()) << back2.status().ToString();
  EXPECT_TRUE(sliced->Equals(**back2));
}

TEST(CBridgeTest, ImportRecordBatchAppliesStructOffset) {
  auto batch = SampleBatch();
  auto st = struct_(batch->schema()->fields());
  auto as_struct = StructOf(st, 3, batch->columns())->Slice(1, 2);
  ArrowArray c;
  ASSERT_TRUE(ExportArray(as_struct, &c).ok());
  auto back = ImportRecordBatch(&c, batch->schema());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(batch->Slice(1, 2)->Equals(**back));

  auto with_nulls = StructOf(st, 3, batch->columns(), {true, false, true});
  ASSERT_TRUE(ExportArray(with_nulls, &c).ok());
  EXPECT_TRUE(ImportRecordBatch(&c, batch->schema()).status().IsInvalidArgument());
}

// ---- Streams -------------------------------------------------------------------------------

TEST(CBridgeTest, ExportedStreamThroughCCallbacks) {
  std::vector<RecordBatchPtr> batches = {SampleBatch(0), SampleBatch(10)};
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(
                  std::make_unique<VectorRecordBatchReader>(batches[0]->schema(), batches), &stream)
                  .ok());
  ArrowSchema c_schema;
  ASSERT_EQ(stream.get_schema(&stream, &c_schema), 0);
  auto s = ImportSchema(&c_schema);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(batches[0]->schema()->Equals(**s, true));

  for (const auto& expected : batches) {
    ArrowArray c;
    ASSERT_EQ(stream.get_next(&stream, &c), 0);
    ASSERT_NE(c.release, nullptr);
    EXPECT_EQ(c.length, 3);
    auto batch = ImportRecordBatch(&c, *s);
    ASSERT_TRUE(batch.ok());
    EXPECT_TRUE(expected->Equals(**batch));
  }
  for (int i = 0; i < 2; ++i) {  // the end is sticky
    ArrowArray c;
    c.release = reinterpret_cast<void (*)(ArrowArray*)>(1);
    ASSERT_EQ(stream.get_next(&stream, &c), 0);
    EXPECT_EQ(c.release, nullptr);
  }
  stream.release(&stream);
  EXPECT_EQ(stream.release, nullptr);
}

class FailingReader final : public RecordBatchReader {
 public:
  explicit FailingReader(int* destroyed) : destroyed_(destroyed) {}
  ~FailingReader() override { ++*destroyed_; }
  SchemaPtr schema() const override { return SampleBatch()->schema(); }
  Result<RecordBatchPtr> Next() override {
    if (calls_++ == 0) return SampleBatch();
    return Status::IOError("disk on fire at {}", "/data/x.lance");
  }

 private:
  int* destroyed_;
  int calls_ = 0;
};

TEST(CBridgeTest, ExportedStreamReportsErrors) {
  int destroyed = 0;
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<FailingReader>(&destroyed), &stream).ok());
  ArrowArray c;
  ASSERT_EQ(stream.get_next(&stream, &c), 0);
  c.release(&c);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(stream.get_next(&stream, &c), EIO);
    const char* msg = stream.get_last_error(&stream);
    ASSERT_NE(msg, nullptr);
    EXPECT_NE(std::string(msg).find("disk on fire at /data/x.lance"), std::string::npos) << msg;
  }
  EXPECT_EQ(destroyed, 0);
  stream.release(&stream);
  EXPECT_EQ(destroyed, 1);

  // Import side: the failure surfaces as a Status carrying the producer's message.
  ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<FailingReader>(&destroyed), &stream).ok());
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(stream.release, nullptr);
  auto first = (*reader)->Next();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((**first).num_rows(), 3);
  auto second = (*reader)->Next();
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsIOError());
  EXPECT_NE(second.status().message().find("disk on fire"), std::string::npos);
  EXPECT_TRUE((*reader)->Next().status().IsIOError());  // stays failed
  reader = Status::Cancelled("drop");
  EXPECT_EQ(destroyed, 2);
}

// Fails its first Next with the given status.
class ErrorReader final : public RecordBatchReader {
 public:
  explicit ErrorReader(Status st) : st_(std::move(st)) {}
  SchemaPtr schema() const override { return SampleBatch()->schema(); }
  Result<RecordBatchPtr> Next() override { return st_; }

 private:
  Status st_;
};

TEST(CBridgeTest, StreamErrorCodesMapBothWays) {
  struct Case {
    Status status;
    int errno_value;
    StatusCode imported;
  };
  const std::vector<Case> cases = {
      {Status::InvalidArgument("bad"), EINVAL, StatusCode::kInvalidArgument},
      {Status::OutOfMemory("oom"), ENOMEM, StatusCode::kOutOfMemory},
      {Status::NotSupported("nope"), ENOSYS, StatusCode::kNotSupported},
      {Status::Corruption("torn page"), EIO, StatusCode::kIOError},
      {Status::IOError("io"), EIO, StatusCode::kIOError}};
  for (const auto& c : cases) {
    ArrowArrayStream stream;
    ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<ErrorReader>(c.status), &stream).ok());
    ArrowArray out;
    EXPECT_EQ(stream.get_next(&stream, &out), c.errno_value);
    EXPECT_EQ(std::string(stream.get_last_error(&stream)), c.status.ToString());
    stream.release(&stream);

    ASSERT_TRUE(ExportRecordBatchReader(std::make_unique<ErrorReader>(c.status), &stream).ok());
    auto reader = ImportRecordBatchReader(&stream);
    ASSERT_TRUE(reader.ok());
    auto r = (*reader)->Next();
    EXPECT_EQ(r.status().code(), c.imported) << r.status().ToString();
    EXPECT_NE(r.status().message().find(c.status.message()), std::string::npos);
  }
}

TEST(CBridgeTest, StreamRoundTrip) {
  std::vector<RecordBatchPtr> batches = {SampleBatch(0), SampleBatch(3), SampleBatch(6)};
  ArrowArrayStream stream;
  ASSERT_TRUE(ExportRecordBatchReader(
                  std::make_unique<VectorRecordBatchReader>(batches[0]->schema(), batches), &stream)
                  .ok());
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->schema()->Equals(*batches[0]->schema(), true));
  auto all = (*reader)->ReadAll();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(batches[i]->Equals(*(*all)[i]));
}

// A C stream producer written by hand: yields `total` int32 batches of two rows from static
// memory, or fails with EINVAL at batch `fail_at`.
struct HandStream {
  static inline int stream_releases = 0;
  static inline int array_releases = 0;
  int next = 0;
  int total = 2;
  int fail_at = -1;
  static constexpr int32_t kValues[] = {5, 6};
  const void* buffers[2] = {nullptr, kValues};

  static void ReleaseSchema(ArrowSchema* s) { s->release = nullptr; }
  static void ReleaseArray(ArrowArray* a) {
    ++array_releases;
    a->release = nullptr;
  }
  static void ReleaseChildArray(ArrowArray* a) { a->release = nullptr; }

  static int GetSchema(ArrowArrayStream* s, ArrowSchema* out) {
    // "+s" with one int32 child "v"; the child lives in static storage.
    static ArrowSchema child;
    static ArrowSchema* children[] = {&child};
    child = ArrowSchema{};
    child.format = "i";
    child.name = "v";
    child.flags = ARROW_FLAG_NULLABLE;
    child.release = &ReleaseSchema;
    *out = ArrowSchema{};
    out->format = "+s";
    out->name = "";
    out->n_children = 1;
    out->children = children;
    out->release = &ReleaseSchema;
    (void)s;
    return 0;
  }
  static int GetNext(ArrowArrayStream* s, ArrowArray* out) {
    auto* self = static_cast<HandStream*>(s->private_data);
    if (self->next == self->fail_at) return EINVAL;
    *out = ArrowArray{};
    if (self->next++ >= self->total) return 0;  // end: release stays NULL
    static ArrowArray child;
    static ArrowArray* children[] = {&child};
    child = ArrowArray{};
    child.length = 2;
    child.n_buffers = 2;
    child.buffers = self->buffers;
    child.release = &ReleaseChildArray;
    static const void* struct_buffers[] = {nullptr};
    out->length = 2;
    out->n_buffers = 1;
    out->buffers = struct_buffers;
    out->n_children = 1;
    out->children = children;
    out->release = &ReleaseArray;
    return 0;
  }
  static const char* GetLastError(ArrowArrayStream*) { return "bad parameter in hand stream"; }
  static void Release(ArrowArrayStream* s) {
    ++stream_releases;
    s->release = nullptr;
  }

  ArrowArrayStream Make() {
    ArrowArrayStream s{};
    s.get_schema = &GetSchema;
    s.get_next = &GetNext;
    s.get_last_error = &GetLastError;
    s.release = &Release;
    s.private_data = this;
    return s;
  }
};

TEST(CBridgeTest, ImportHandWrittenStream) {
  HandStream::stream_releases = HandStream::array_releases = 0;
  HandStream producer;
  ArrowArrayStream stream = producer.Make();
  {
    auto reader = ImportRecordBatchReader(&stream);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->schema()->ToString(), "v: int32\n");
    auto all = (*reader)->ReadAll();
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    ASSERT_EQ(all->size(), 2u);
    EXPECT_EQ((*all)[1]->column(0)->Values<int32_t>()[1], 6);
    EXPECT_EQ(HandStream::array_releases, 0);  // the batches still hold the producer memory
    all = Status::Cancelled("drop");
    EXPECT_EQ(HandStream::array_releases, 2);
    EXPECT_EQ(HandStream::stream_releases, 0);
  }
  EXPECT_EQ(HandStream::stream_releases, 1);

  HandStream failing;
  failing.fail_at = 1;
  stream = failing.Make();
  auto reader = ImportRecordBatchReader(&stream);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE((*reader)->Next().ok());
  auto r = (*reader)->Next();
  EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("bad parameter in hand stream"), std::string::npos);
}

TEST(CBridgeTest, ImportStreamRejectsBadSchema) {
  HandStream::stream_releases = 0;
  HandStream producer;
  ArrowArrayStream stream = producer.Make();
  stream.get_schema = [](ArrowArrayStream*, ArrowSchema* out) {
    *out = ArrowSchema{};
    out->format = "i";  // not a struct
    out->release = &HandStream::ReleaseSchema;
    return 0;
  };
  auto reader = ImportRecordBatchReader(&stream);
  EXPECT_TRUE(reader.status().IsInvalidArgument()) << reader.status().ToString();
  EXPECT_EQ(HandStream::stream_releases, 1);

  stream = producer.Make();
  stream.get_schema = [](ArrowArrayStream*, ArrowSchema*) { return ENOMEM; };
  reader = ImportRecordBatchReader(&stream);
  EXPECT_EQ(reader.status().code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(HandStream::stream_releases, 2);
}

}  // namespace
}  // namespace lance
