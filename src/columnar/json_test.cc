// Canonical JSON rows and schema JSON: exact output strings and write -> read round trips.
#include "lance/columnar/json.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/float16.h"

namespace lance {
namespace {

std::string JsonLines(const RecordBatch& batch) {
  std::string out;
  EXPECT_TRUE(AppendJsonLines(batch, &out).ok());
  return out;
}

std::string One(const ArrayPtr& array) {
  auto batch = std::make_shared<RecordBatch>(schema({field("v", array->type)}), array->length,
                                             std::vector<ArrayPtr>{array});
  return JsonLines(*batch);
}

template <typename B, typename T>
ArrayPtr Build(DataTypePtr type, std::vector<T> values) {
  B b(type);
  for (auto v : values) EXPECT_TRUE(b.Append(v).ok());
  return *b.Finish();
}

TEST(JsonWriterTest, Integers) {
  EXPECT_EQ(One(Build<Int64Builder, int64_t>(int64(), {std::numeric_limits<int64_t>::min(),
                                                       std::numeric_limits<int64_t>::max(), 0})),
            "{\"v\":-9223372036854775808}\n{\"v\":9223372036854775807}\n{\"v\":0}\n");
  EXPECT_EQ(One(Build<UInt64Builder, uint64_t>(uint64(), {std::numeric_limits<uint64_t>::max()})),
            "{\"v\":18446744073709551615}\n");
  EXPECT_EQ(One(Build<Int8Builder, int8_t>(int8(), {-128, 127})), "{\"v\":-128}\n{\"v\":127}\n");
  EXPECT_EQ(One(Build<Int64Builder, int64_t>(timestamp(TimeUnit::kNano, "UTC"),
                                             {1700000000123456789})),
            "{\"v\":1700000000123456789}\n");
}

TEST(JsonWriterTest, Doubles) {
  const double inf = std::numeric_limits<double>::infinity();
  auto a = Build<DoubleBuilder, double>(
      float64(), {std::nan(""), inf, -inf, -0.0, 0.0, 1e300, 1.0, 0.1, 123.456, 1e21, 1e20,
                  1e-7, 1.5e-6, 5e-324, -2.5, 100.0, 1.7976931348623157e308});
  EXPECT_EQ(a->ToString(),
            R"(["NaN", "Infinity", "-Infinity", -0.0, 0.0, 1e300, 1.0, 0.1, 123.456, 1e21, )"
            R"(100000000000000000000.0, 1e-7, 0.0000015, 5e-324, -2.5, 100.0, )"
            R"(1.7976931348623157e308])");
}

TEST(JsonWriterTest, FloatsUseTheirOwnWidth) {
  auto f = Build<FloatBuilder, float>(float32(), {0.1f, 1.0f / 3.0f, 16777216.0f, 3.4028235e38f,
                                                  1e-45f, -0.0f});
  EXPECT_EQ(f->ToString(), "[0.1, 0.33333334, 16777216.0, 3.4028235e38, 1e-45, -0.0]");
  // Exact ties between two shortest candidates go to the smaller magnitude (the JS reference
  // view's rule), for float32 and float16 alike.
  auto ties = Build<FloatBuilder, float>(float32(), {183723.875f, -42258.1875f});
  EXPECT_EQ(ties->ToString(), "[183723.87, -42258.187]");
  auto half_tie = Build<UInt16Builder, uint16_t>(float16(), {FloatToHalf(0.046875f)});
  EXPECT_EQ(half_tie->ToString(), "[0.04687]");
  auto h = Build<UInt16Builder, uint16_t>(
      float16(), {FloatToHalf(0.1f), FloatToHalf(65504.0f), 0x0001 /* smallest subnormal */,
                  FloatToHalf(1.0f / 3.0f), 0x7e00, 0xfc00, 0x8000, FloatToHalf(1000.0f)});
  EXPECT_EQ(h->ToString(),
            R"([0.1, 65500.0, 6e-8, 0.3333, "NaN", "-Infinity", -0.0, 1000.0])");
}

TEST(JsonWriterTest, HalfFloatConversions) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // rounds to infinity
  EXPECT_EQ(FloatToHalf(5.9604645e-8f), 0x0001);
  EXPECT_EQ(FloatToHalf(2.9802322e-8f), 0x0000);  // exactly half the smallest: ties to even
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  // 1 + 2^-11 + 2^-40 is just above the midpoint between halves 1 and 1+2^-10, but rounds to
  // the midpoint as a float: only a single rounding gets it right.
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)), 0x3c01);
  EXPECT_EQ(FloatToHalf(static_cast<float>(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))),
            0x3c00);
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3c00);  // exact tie: to even
  EXPECT_EQ(DoubleToHalf(-1e10), 0xfc00);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float f = HalfToFloat(bits);
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalf(f), bits) << h;
    ASSERT_EQ(DoubleToHalf(f), bits) << h;
  }
}

TEST(JsonWriterTest, StringsEscapes) {
  auto a = Build<StringBuilder, std::string>(
      utf8(), {std::string("quote\" back\\ nl\n tab\t cr\r"), std::string("\x01\x1f\x7f", 3),
               std::string("é日本😀"), std::string("\b\f/")});
  EXPECT_EQ(One(a),
            "{\"v\":\"quote\\\" back\\\\ nl\\n tab\\t cr\\r\"}\n"
            "{\"v\":\"\\u0001\\u001f\x7f\"}\n"
            "{\"v\":\"é日本😀\"}\n"
            "{\"v\":\"\\b\\f/\"}\n");
}

TEST(JsonWriterTest, Base64) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode(std::string("\xff\xfe\x00", 3)), "//4A");
  EXPECT_EQ(*Base64Decode("Zm8="), "fo");
  EXPECT_EQ(*Base64Decode("Zm8"), "fo");
  EXPECT_TRUE(Base64Decode("Zm8*").status().IsInvalidArgument());
  EXPECT_TRUE(Base64Decode("Z").status().IsInvalidArgument());
  EXPECT_TRUE(Base64Decode("Zm9=").status().IsInvalidArgument());  // non-zero trailing bits
  auto a = Build<BinaryBuilder, std::string>(binary(), {std::string("\x00\x01\x02", 3), ""});
  EXPECT_EQ(One(a), "{\"v\":\"AAEC\"}\n{\"v\":\"\"}\n");
}

TEST(JsonWriterTest, Decimals) {
  EXPECT_EQ(Decimal128ToString(-1230, 2), "-12.30");
  EXPECT_EQ(Decimal128ToString(123, 0), "123");
  EXPECT_EQ(Decimal128ToString(5, 3), "0.005");
  EXPECT_EQ(Decimal128ToString(-5, 3), "-0.005");
  EXPECT_EQ(Decimal128ToString(0, 2), "0.00");
  EXPECT_EQ(Decimal128ToString(12, -2), "1200");
  __int128 max38 = 0;  // 10^38 - 1, the largest decimal128(38, s) value
  for (int i = 0; i < 38; ++i) max38 = max38 * 10 + 9;
  EXPECT_EQ(Decimal128ToString(max38, 10), "9999999999999999999999999999.9999999999");
  EXPECT_EQ(*Decimal128FromString("9999999999999999999999999999.9999999999", 38, 10), max38);
  EXPECT_TRUE(Decimal128FromString("99999999999999999999999999999.9999999999", 38, 10)
                  .status()
                  .IsInvalidArgument());
  const __int128 min128 = static_cast<__int128>(static_cast<unsigned __int128>(1) << 127);
  EXPECT_EQ(Decimal128ToString(min128, 0), "-170141183460469231731687303715884105728");
  EXPECT_EQ(*Decimal128FromString("-12.3", 5, 2), -1230);
  EXPECT_EQ(*Decimal128FromString("0.005", 5, 3), 5);
  EXPECT_EQ(*Decimal128FromString("12.500", 5, 1), 125);  // zero extra digits are fine
  EXPECT_TRUE(Decimal128FromString("12.345", 5, 2).status().IsInvalidArgument());
  EXPECT_TRUE(Decimal128FromString("123456", 5, 0).status().IsInvalidArgument());
  EXPECT_TRUE(Decimal128FromString("1e5", 5, 0).status().IsInvalidArgument());
  EXPECT_TRUE(Decimal128FromString("", 5, 0).status().IsInvalidArgument());
  EXPECT_TRUE(Decimal128FromString("-", 5, 0).status().IsInvalidArgument());
  auto a = *ArrayFromJSON(decimal128(10, 2), R"(["-12.30", "0.05", null, "7"])");
  EXPECT_EQ(One(a), "{\"v\":\"-12.30\"}\n{\"v\":\"0.05\"}\n{\"v\":null}\n{\"v\":\"7.00\"}\n");
}

TEST(JsonWriterTest, Decimal256) {
  const std::string max76(76, '9');  // 10^76 - 1, the largest decimal256(76, s) value
  auto max = Decimal256FromString(max76, 76, 0);
  ASSERT_TRUE(max.ok()) << max.status().ToString();
  EXPECT_EQ(max->limbs, (std::array<uint64_t, 4>{0xffffffffffffffffULL, 0x7775a5f171950fffULL,
                                                 0x0764b4abe8652979ULL, 0x161bcca7119915b5ULL}))
      << "10^76 - 1 in little-endian limbs";
  EXPECT_EQ(Decimal256ToString(*max, 0), max76);
  EXPECT_EQ(Decimal256ToString(*max, 70), "999999." + std::string(70, '9'));
  EXPECT_TRUE(Decimal256FromString(max76 + "9", 76, 0).status().IsInvalidArgument());
  // -2^255, the minimum: its magnitude does not fit the positive range.
  Int256 min;
  min.limbs[3] = 1ULL << 63;
  const std::string min_text =
      "-57896044618658097711785492504343953926634992332820282019728792003956564819968";
  EXPECT_EQ(Decimal256ToString(min, 0), min_text);
  auto back = Decimal256FromString(min_text, 77, 0);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, min);
  EXPECT_TRUE(Decimal256FromString(min_text.substr(1), 77, 0).status().IsInvalidArgument());
  auto minus_one = Decimal256FromString("-0.01", 10, 2);
  ASSERT_TRUE(minus_one.ok());
  EXPECT_EQ(minus_one->limbs, (std::array<uint64_t, 4>{~0ULL, ~0ULL, ~0ULL, ~0ULL}));
  EXPECT_EQ(Decimal256ToString(*minus_one, 2), "-0.01");
  EXPECT_DOUBLE_EQ(Decimal256ToDouble(*minus_one, 2), -0.01);
  EXPECT_DOUBLE_EQ(Decimal256ToDouble(*max, 0), 1e76);
  auto a = *ArrayFromJSON(decimal256(60, 2), R"(["-12.30", null, "1000000000000000000000000000000000000000000000000000000000.00"])");
  EXPECT_EQ(One(a), "{\"v\":\"-12.30\"}\n{\"v\":null}\n"
                    "{\"v\":\"1000000000000000000000000000000000000000000000000000000000.00\"}\n");
  EXPECT_TRUE(ArrayFromJSON(decimal256(60, 2), R"(["0.001"])").status().IsInvalidArgument());
}

TEST(JsonWriterTest, NestedRows) {
  auto s = schema({field("id", int32(), false),
                   field("s", struct_({field("a", utf8()), field("b", list(int8()))})),
                   field("m", map(utf8(), float64())),
                   field("d", dictionary(int8(), utf8())),
                   field("f", fixed_size_list(int16(), 2)), field("n", null())});
  auto batch = RecordBatchFromJSON(
      s, R"([{"id": 1, "s": {"a": "x", "b": [1, null]}, "m": [["k", 1.5], ["j", null]],
              "d": "red", "f": [1, 2], "n": null},
             {"id": 2, "s": null, "m": null, "d": null, "f": null}])");
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(JsonLines(**batch),
            "{\"id\":1,\"s\":{\"a\":\"x\",\"b\":[1,null]},\"m\":[[\"k\",1.5],[\"j\",null]],"
            "\"d\":\"red\",\"f\":[1,2],\"n\":null}\n"
            "{\"id\":2,\"s\":null,\"m\":null,\"d\":null,\"f\":null,\"n\":null}\n");
}

// Every type: ArrayFromJSON -> rows -> ReadJsonLines -> Equals, and the text is stable.
TEST(JsonRoundTripTest, EveryType) {
  const std::vector<std::pair<DataTypePtr, std::string>> cases = {
      {null(), "[null, null]"},
      {boolean(), "[true, false, null]"},
      {int8(), "[-128, 127, null]"},
      {int16(), "[-32768, 32767]"},
      {int32(), "[-2147483648, 2147483647]"},
      {int64(), "[-9223372036854775808, 9223372036854775807, null]"},
      {uint8(), "[0, 255]"},
      {uint16(), "[65535]"},
      {uint32(), "[4294967295]"},
      {uint64(), "[18446744073709551615, 0]"},
      {float16(), R"([0.1, -2.5, "NaN", "Infinity", 65500.0, 6e-8, null])"},
      {float32(), R"([0.1, 3.4028235e38, 1e-45, "-Infinity", -0.0])"},
      {float64(), R"([0.1, 1e300, 5e-324, "NaN", 1.0, -0.0, null])"},
      {utf8(), R"(["", "a\"b\\c\n", "日本", null])"},
      {large_utf8(), R"(["x", null])"},
      {binary(), R"(["", "AAEC", "/w==", null])"},
      {large_binary(), R"(["AA==", null])"},
      {fixed_size_binary(2), R"(["AAE=", null])"},
      {date32(), "[19000, -1, null]"},
      {date64(), "[1641600000000]"},
      {time32(TimeUnit::kSecond), "[86399]"},
      {time32(TimeUnit::kMilli), "[1000]"},
      {time64(TimeUnit::kMicro), "[1]"},
      {time64(TimeUnit::kNano), "[86399999999999]"},
      {timestamp(TimeUnit::kSecond), "[0]"},
      {timestamp(TimeUnit::kMicro, "UTC"), "[1700000000000000, null]"},
      {timestamp(TimeUnit::kNano, "America/New_York"), "[-1]"},
      {duration(TimeUnit::kMilli), "[-5, 5]"},
      {decimal128(38, 10), R"(["1234567890123456789012345678.1234567890", "-0.0000000001"])"},
      {decimal128(5, 0), R"(["-99999", null])"},
      {list(int32()), "[[1, 2], null, []]"},
      {large_list(utf8()), R"([["a", null], []])"},
      {fixed_size_list(float32(), 2), "[[1.5, 2.0], null]"},
      {struct_({field("a", int32()), field("b", struct_({field("c", utf8())}))}),
       R"([{"a": 1, "b": {"c": "x"}}, null, {"a": null, "b": null}])"},
      {map(utf8(), list(int64())), R"([[["a", [1]], ["b", null]], [], null])"},
      {dictionary(int32(), utf8()), R"(["a", "b", "a", null])"},
      {dictionary(uint8(), large_binary()), R"(["AA==", "AA==", null])"},
      {dictionary(int16(), int64()), "[5, 5, null]"},
  };
  for (const auto& [type, json] : cases) {
    auto a = ArrayFromJSON(type, json);
    ASSERT_TRUE(a.ok()) << type->ToString() << ": " << a.status().ToString();
    ASSERT_TRUE((*a)->ValidateFull().ok()) << type->ToString();
    auto s = schema({field("v", type), field("i", int32())});
    std::vector<int32_t> ids((*a)->length);
    Int32Builder ib(int32());
    for (int64_t i = 0; i < (*a)->length; ++i) ASSERT_TRUE(ib.Append(static_cast<int32_t>(i)).ok());
    auto batch = RecordBatch::Make(s, (*a)->length, {*a, *ib.Finish()});
    ASSERT_TRUE(batch.ok());
    const std::string text = JsonLines(**batch);
    auto back = ReadJsonLines(text, s);
    ASSERT_TRUE(back.ok()) << type->ToString() << ": " << back.status().ToString() << "\n" << text;
    EXPECT_TRUE((*back)->Equals(**batch)) << type->ToString() << "\n" << text << "\n"
                                          << (*back)->ToString();
    EXPECT_EQ(JsonLines(**back), text) << type->ToString();
    // Sliced input writes the same rows as the slice's values.
    if ((*a)->length > 1) {
      auto sliced = (*batch)->Slice(1, (*a)->length - 1);
      const std::string tail = text.substr(text.find('\n') + 1);
      EXPECT_EQ(JsonLines(*sliced), tail) << type->ToString();
    }
  }
}

TEST(JsonReaderTest, LenientNumbersAndErrors) {
  auto s = schema({field("f", float32()), field("i", int64())});
  auto b = ReadJsonLines("{\"f\": 1, \"i\": 2}\n\n{\"f\": 2.50}\n", s);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(JsonLines(**b), "{\"f\":1.0,\"i\":2}\n{\"f\":2.5,\"i\":null}\n");
  auto no_newline = ReadJsonLines("{\"i\": 1}", s);
  ASSERT_TRUE(no_newline.ok());
  EXPECT_EQ((*no_newline)->num_rows(), 1);
  auto bad = ReadJsonLines("{\"i\": 1}\n{\"i\": 1.5}\n", s);
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("line 2"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("'i'"), std::string::npos) << bad.status().ToString();
  EXPECT_TRUE(ReadJsonLines("{\"i\": }\n", s).status().IsInvalidArgument());
  EXPECT_TRUE(ReadJsonLines("[1]\n", s).status().IsInvalidArgument());
  EXPECT_TRUE(ReadJsonLines("{\"x\": 1}\n", s).status().IsInvalidArgument());
  EXPECT_TRUE(ReadJsonLines("{\"i\": 18446744073709551615}\n", s).status().IsInvalidArgument());
  auto empty = ReadJsonLines("", s);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->num_rows(), 0);
}

TEST(SchemaJsonTest, RoundTripEveryType) {
  auto meta = std::make_shared<const KeyValueMetadata>(
      std::vector<std::pair<std::string, std::string>>{{"k", "v"}, {"a", "\"quoted\""}});
  std::vector<FieldPtr> fields = {
      field("a", int64(), false),
      field("t", timestamp(TimeUnit::kMicro, "UTC")),
      field("l", list(int32())),
      field("n", null()),
      field("b", boolean(), true, meta),
      field("h", float16()),
      field("fs", fixed_size_binary(16)),
      field("t32", time32(TimeUnit::kMilli)),
      field("t64", time64(TimeUnit::kNano)),
      field("dur", duration(TimeUnit::kSecond)),
      field("dec", decimal128(38, 9)),
      field("ll", large_list(field("element", utf8(), false))),
      field("fsl", fixed_size_list(float32(), 128)),
      field("st", struct_({field("x", large_utf8()), field("y", large_binary())})),
      field("m", map(utf8(), int32(), true)),
      field("d", dictionary(int16(), utf8(), true)),
      field("d32", date32()),
      field("d64", date64()),
  };
  fields.push_back(field("ids", uint32())->WithId(7));
  auto s = schema(fields, meta);
  const std::string text = SchemaToJson(*s);
  auto back = SchemaFromJson(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << text;
  EXPECT_TRUE((*back)->Equals(*s, /*check_metadata=*/true)) << (*back)->ToString();
  EXPECT_EQ(SchemaToJson(**back), text);
  EXPECT_EQ((*back)->field(18)->id(), 7);
  // The documented spelling of a few fields.
  EXPECT_NE(text.find(R"({"name":"a","type":"int64","nullable":false})"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"({"name":"t","type":{"name":"timestamp","unit":"us","timezone":"UTC"},)"
                      R"("nullable":true})"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"({"name":"l","type":{"name":"list","item":{"name":"item","type":"int32",)"
                      R"("nullable":true}},"nullable":true})"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("metadata":{"k":"v","a":"\"quoted\""})"), std::string::npos) << text;
}

TEST(SchemaJsonTest, ShorthandsAndErrors) {
  auto s = SchemaFromJson(
      R"({"fields":[{"name":"m","type":{"name":"map","key":"utf8","value":"int64"}},
                    {"name":"s","type":"string"}]})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE((*s)->field(0)->type()->Equals(*map(utf8(), int64())));
  EXPECT_TRUE((*s)->field(0)->nullable());
  EXPECT_TRUE((*s)->field(1)->type()->Equals(*utf8()));
  EXPECT_TRUE(SchemaFromJson("{").status().IsInvalidArgument());
  EXPECT_TRUE(SchemaFromJson(R"({"fields":[{"name":"a","type":"int128"}]})")
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(SchemaFromJson(R"({"fields":[{"name":"a","type":{"name":"time32","unit":"us"}}]})")
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(SchemaFromJson(R"({"fields":[{"name":"a","type":"timestamp"}]})")
                  .status()
                  .IsInvalidArgument());
  auto err = SchemaFromJson(
      R"({"fields":[{"name":"outer","type":{"name":"struct","fields":[{"name":"x"}]}}]})");
  EXPECT_TRUE(err.status().IsInvalidArgument());
  EXPECT_NE(err.status().message().find("'x'"), std::string::npos) << err.status().ToString();
  auto t = DataTypeFromJson(R"({"name":"dictionary","index":"int8","value":"utf8"})");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE((*t)->Equals(*dictionary(int8(), utf8())));
  // A name that is not UTF-8 comes out with U+FFFD instead of failing.
  const std::string weird = SchemaToJson(*schema({field(std::string("bad\xff"), int8())}));
  EXPECT_NE(weird.find("bad\xEF\xBF\xBD"), std::string::npos) << weird;
  EXPECT_TRUE(SchemaFromJson(R"({"fields":[{"name":"a","type":"int8","id":4294967296}]})")
                  .status()
                  .IsInvalidArgument());
  EXPECT_EQ(DataTypeToJson(*decimal128(10, 2)),
            R"({"name":"decimal128","precision":10,"scale":2})");
}

}  // namespace
}  // namespace lance

namespace lance {
namespace {

// Every float16 value and many float32 values survive write -> read bit for bit (NaN payloads
// aside: NaN reads back as the canonical quiet NaN).
TEST(JsonRoundTripTest, FloatsBitExact) {
  UInt16Builder h(float16());
  for (uint32_t i = 0; i < 0x10000; ++i) {
    const auto bits = static_cast<uint16_t>(i);
    if (std::isnan(HalfToFloat(bits))) continue;
    ASSERT_TRUE(h.Append(bits).ok());
  }
  FloatBuilder f(float32());
  uint64_t state = 88172645463325252ull;
  for (int i = 0; i < 100000; ++i) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    uint32_t bits = static_cast<uint32_t>(state);
    if (i % 2) bits &= 0xffff0000u;  // short mantissas: many exact decimal ties
    float v;
    std::memcpy(&v, &bits, sizeof v);
    if (std::isnan(v)) continue;
    ASSERT_TRUE(f.Append(v).ok());
  }
  for (const auto& array : {*h.Finish(), *f.Finish()}) {
    auto s = schema({field("v", array->type)});
    auto batch = *RecordBatch::Make(s, array->length, {array});
    const std::string text = JsonLines(*batch);
    auto back = ReadJsonLines(text, s);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    const Array& got = *(*back)->column(0);
    const size_t width = array->type->id() == TypeId::kHalfFloat ? 2 : 4;
    for (int64_t i = 0; i < array->length; ++i) {
      ASSERT_EQ(std::memcmp(got.buffers[1]->data() + i * width,
                            array->buffers[1]->data() + i * width, width),
                0)
          << array->type->ToString() << " row " << i;
    }
  }
}

}  // namespace
}  // namespace lance

namespace lance {
namespace {

TEST(JsonReaderTest, StreamingErrorsNameThePath) {
  auto s = schema({field("id", int32()),
                   field("st", struct_({field("a", list(int8())), field("m", map(utf8(), int8()))})),
                   field("fl", fixed_size_list(int8(), 2)), field("d", dictionary(int8(), utf8()))});
  auto expect_error = [&](std::string_view line, std::string_view needle) {
    auto r = ReadJsonLines(line, s);
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << line << " -> " << r.status().ToString();
  };
  expect_error(R"({"st": {"a": [1, 2, 300]}})", "st.a[2]");
  expect_error(R"({"st": {"m": [["k", 1], ["j"]]}})", "[key, value]");
  expect_error(R"({"st": {"m": [[null, 1]]}})", "null");
  expect_error(R"({"st": {"m": ["k", 1]}})", "[key, value]");
  expect_error(R"({"fl": [1, 2, 3]})", "fl");
  expect_error(R"({"fl": [1]})", "1 values");
  expect_error(R"({"id": 1, "id": 2})", "duplicate key 'id'");
  expect_error(R"({"st": {"zz": 1}})", "unknown field 'zz'");
  expect_error(R"({"d": 5})", "dictionary");
  expect_error(R"({"id": "1"})", "int32");
  expect_error(R"({"id": 1.0})", "int32");
  expect_error(R"({"id": [1]})", "int32");
  expect_error(R"({"id": {}})", "int32");
  expect_error("5", "row object");
  expect_error("[]", "row object");
  expect_error("{\"id\": 1", "line 1");
  expect_error("{\"id\": 1}\n{\"id\": 2} {\"id\": 3}\n", "line 2");
  auto ok = ReadJsonLines(
      "{\"st\":{\"a\":[1,null],\"m\":[[\"k\",null]]},\"fl\":[1,2],\"d\":\"x\"}\r\n"
      "  \n{\"d\":\"x\",\"id\":7}\n",
      s);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(JsonLines(**ok),
            "{\"id\":null,\"st\":{\"a\":[1,null],\"m\":[[\"k\",null]]},\"fl\":[1,2],\"d\":\"x\"}\n"
            "{\"id\":7,\"st\":null,\"fl\":null,\"d\":\"x\"}\n");
  EXPECT_EQ((*ok)->column(3)->dictionary->length, 1);
}

}  // namespace
}  // namespace lance

namespace lance {
namespace {

// first_line numbers a piece of a larger input: errors name the input's line.
TEST(JsonLinesReadTest, FirstLineNumbersAPiece) {
  auto s = schema({field("i", int32()), field("l", list(int64()))});
  auto r = ReadJsonLines("{\"i\": 1}\n\n{\"i\": \"x\"}\n", s, 41);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("line 43"), std::string::npos) << r.status().ToString();
  auto bad = ReadJsonLines("{\"i\": 1}\n{\"i\": 2, \"l\": [1, \"y\"]}\n", s, 10);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("line 11"), std::string::npos) << bad.status().ToString();
  // Dictionaries of numbers take the DOM reader: it numbers lines the same way.
  auto dict = schema({field("d", dictionary(int32(), int64()))});
  auto dom = ReadJsonLines("{\"d\": 3}\n{\"d\": \"a\"}\n", dict, 7);
  ASSERT_FALSE(dom.ok());
  EXPECT_NE(dom.status().ToString().find("line 8"), std::string::npos) << dom.status().ToString();
}

}  // namespace
}  // namespace lance
