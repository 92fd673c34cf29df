// InferJsonLinesSchema: the schema of JSON lines given without one, field by field.
#include <gtest/gtest.h>

#include "lance/columnar/json.h"

namespace lance {
namespace {

std::string Inferred(std::string_view text, int64_t max_lines = 10000) {
  auto s = InferJsonLinesSchema(text, max_lines);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? SchemaToJson(**s) : "";
}

std::string Refused(std::string_view text) {
  auto s = InferJsonLinesSchema(text);
  EXPECT_FALSE(s.ok());
  return s.ok() ? "" : s.status().message();
}

TEST(JsonInferTest, ScalarsInFirstSeenOrder) {
  EXPECT_EQ(Inferred("{\"z\":1,\"a\":\"x\",\"m\":true,\"f\":2.5}\n"),
            SchemaToJson(*schema({field("z", int64()), field("a", utf8()), field("m", boolean()),
                                  field("f", float64())})));
}

TEST(JsonInferTest, IntegersWidenToFloatAndNullsAndMissingKeysAreNullable) {
  EXPECT_EQ(Inferred("{\"a\":1}\n\n{\"a\":2.5,\"b\":null}\r\n{\"b\":\"s\",\"c\":null}\n"),
            SchemaToJson(*schema({field("a", float64()), field("b", utf8()), field("c", utf8())})));
}

TEST(JsonInferTest, ListsStructsAndTheVectorConvention) {
  const std::string text =
      "{\"vector\":[1,2.5,3],\"tags\":[\"a\"],\"nums\":[1,2,3],\"s\":{\"x\":1,\"y\":[true]}}\n"
      "{\"vector\":[0,0,0],\"tags\":[],\"nums\":[4,5,6],\"s\":{\"x\":2.0,\"z\":\"k\"}}\n";
  EXPECT_EQ(Inferred(text),
            SchemaToJson(*schema({
                field("vector", fixed_size_list(float32(), 3)),
                field("tags", list(utf8())),
                field("nums", list(int64())),  // only "vector" is an embedding
                field("s", struct_({field("x", float64()), field("y", list(boolean())),
                                    field("z", utf8())})),
            })));
  // Lengths that vary, or elements that are not numbers, keep "vector" a list.
  EXPECT_EQ(Inferred("{\"vector\":[1,2]}\n{\"vector\":[1,2,3]}\n"),
            SchemaToJson(*schema({field("vector", list(int64()))})));
  EXPECT_EQ(Inferred("{\"vector\":[\"a\",\"b\"]}\n"),
            SchemaToJson(*schema({field("vector", list(utf8()))})));
}

TEST(JsonInferTest, OnlyTheFirstLinesAreSampled) {
  EXPECT_EQ(Inferred("{\"a\":1}\n{\"a\":\"late\"}\n", 1), SchemaToJson(*schema({field("a", int64())})));
}

TEST(JsonInferTest, DisagreementsAndNonObjectsAreNamedByLineAndKey) {
  EXPECT_EQ(Refused("{\"a\":1}\n{\"a\":\"x\"}\n"),
            "line 2: field 'a' is a string where line 1 had an integer; give the types with --schema FILE.json");
  EXPECT_EQ(Refused("{\"s\":{\"k\":[1]}}\n{\"s\":{\"k\":[{}]}}\n"),
            "line 2: field 's.k[]' is an object where line 1 had an integer; give the types with --schema FILE.json");
  EXPECT_EQ(Refused("{\"a\":1}\n[1,2]\n"), "line 2: expected one JSON object per line, found an array");
  EXPECT_EQ(Refused("{\"a\":1}\n{\"a\":\n"), "line 2: not valid JSON");
  std::string deep_path = "a";
  for (int i = 0; i < 64; ++i) deep_path += "[]";
  EXPECT_EQ(Refused("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}\n"),
            "line 1: field '" + deep_path + "' nests deeper than 64 levels");
  EXPECT_NE(Refused("").find("no JSON object"), std::string::npos);
  EXPECT_NE(Refused("{}\n").find("no JSON object"), std::string::npos);
}

}  // namespace
}  // namespace lance
