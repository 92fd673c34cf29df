// C Data Interface: zero-copy round trips of every type and slice, schemas with metadata,
// format strings and malformed schemas.
#include "lance/columnar/c_bridge.h"

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "columnar/c_bridge_test_util.h"

namespace lance {
namespace {

using namespace c_bridge_test;  // NOLINT: the fixtures of these tests

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
  // decimal256: four words per value, format "d:p,s,256".
  ExpectRoundTrip(Array::Make(decimal256(76, 4), 2,
                              {Bitmap({true, false}),
                               Values(std::vector<int64_t>{-7, -1, -1, -1, 0, 0, 0, 0})}));
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
                                                "+ud:0,1", "+us:0", "d:10,2,32", "d:5,1,64"};
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

}  // namespace
}  // namespace lance
