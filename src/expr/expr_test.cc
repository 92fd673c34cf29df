#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <pthread.h>

#include <fmt/format.h>
#include <string>

#include "lance/columnar/json.h"
#include "lance/expr/ast.h"
#include "lance/expr/expression.h"

namespace lance::expr {
namespace {

SchemaPtr TestSchema() {
  auto inner = struct_({field("c", utf8())});
  return schema({field("id", int64()), field("i32", int32()), field("f", float64()),
                 field("s", utf8()), field("b", boolean()), field("d", date32()),
                 field("ts", timestamp(TimeUnit::kMicro)), field("dec", decimal128(10, 2)),
                 field("st", struct_({field("a", int32()), field("inner", inner)})),
                 field("weird name", int32()), field("ls", large_utf8())});
}

RecordBatchPtr TestBatch() {
  const char* rows =
      R"({"id":1,"i32":10,"f":1.5,"s":"apple","b":true,"d":19723,"ts":1704067200000000,"dec":"12.50","st":{"a":1,"inner":{"c":"x"}},"weird name":7,"ls":"apple"}
{"id":2,"i32":null,"f":"NaN","s":"Banana","b":false,"d":19724,"ts":1704070800000000,"dec":"-3.00","st":null,"weird name":null,"ls":"Banana"}
{"id":3,"i32":30,"f":null,"s":null,"b":null,"d":null,"ts":null,"dec":null,"st":{"a":null,"inner":null},"weird name":9,"ls":null}
{"id":4,"i32":-5,"f":-0.0,"s":"a_c%d","b":true,"d":19000,"ts":0,"dec":"0.01","st":{"a":4,"inner":{"c":"h\u00e9llo"}},"weird name":0,"ls":"a_c%d"}
{"id":5,"i32":0,"f":100.0,"s":"","b":false,"d":19723,"ts":1704067200000001,"dec":"99999999.99","st":{"a":5,"inner":{"c":null}},"weird name":1,"ls":""}
)";
  auto r = ReadJsonLines(rows, TestSchema());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

std::string Render(const Array& a) {
  std::string out = "[";
  for (int64_t i = 0; i < a.length; ++i) {
    if (i) out += ",";
    EXPECT_TRUE(AppendJsonValue(a, i, &out).ok());
  }
  return out + "]";
}

// The result of `text` over the test batch, rendered as canonical JSON values.
std::string Eval(const std::string& text, RecordBatchPtr batch = nullptr,
                 SchemaPtr sch = nullptr) {
  if (!batch) batch = TestBatch();
  auto e = Expression::Make(text, sch ? sch : TestSchema());
  if (!e.ok()) return "error: " + e.status().message();
  auto r = (*e)->Evaluate(*batch);
  if (!r.ok()) return "error: " + r.status().message();
  EXPECT_EQ((*r)->length, batch->num_rows());
  EXPECT_TRUE((*r)->type->Equals(*(*e)->type())) << text;
  EXPECT_TRUE((*r)->Validate().ok()) << text;
  return Render(**r);
}

// The result of `text` bound to `sch` over `batch`, rendered, or "error: ...".
std::string EvalOn(const SchemaPtr& sch, const RecordBatch& batch, const std::string& text) {
  auto e = Expression::Make(text, sch);
  if (!e.ok()) return "error: " + e.status().message();
  auto r = (*e)->Evaluate(batch);
  if (!r.ok()) return "error: " + r.status().message();
  return Render(**r);
}

std::string Parsed(const std::string& text) {
  auto n = Parse(text);
  if (!n.ok()) return "error: " + n.status().message();
  return ToString(**n);
}

TEST(ExprParse, Precedence) {
  EXPECT_EQ(Parsed("a OR b AND NOT c = 1 + 2 * 3"), "(a OR (b AND (NOT (c = (1 + (2 * 3))))))");
  EXPECT_EQ(Parsed("(a OR b) AND c"), "((a OR b) AND c)");
  EXPECT_EQ(Parsed("-a * b"), "((- a) * b)");
  EXPECT_EQ(Parsed("x - -3"), "(x - -3)");
  EXPECT_EQ(Parsed("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(Parsed("a / b % c * d"), "(((a / b) % c) * d)");
  EXPECT_EQ(Parsed("NOT NOT a"), "(NOT (NOT a))");
  EXPECT_EQ(Parsed("a <> 1 and b != 2 or c == 3"), "(((a != 1) AND (b != 2)) OR (c = 3))");
  EXPECT_EQ(Parsed("x NOT IN (1, 2.5, 'a', NULL)"), "(x NOT IN (1, 2.5, 'a', NULL))");
  EXPECT_EQ(Parsed("x not between 1 and 2 + 3 AND y"), "((x NOT BETWEEN 1 AND (2 + 3)) AND y)");
  EXPECT_EQ(Parsed("s NOT ILIKE 'a%' OR s LIKE 'it''s'"), "((s NOT ILIKE 'a%') OR (s LIKE 'it''s'))");
  EXPECT_EQ(Parsed("a IS NOT NULL AND b IS TRUE AND c IS NOT FALSE"),
            "((a IS NOT NULL) AND (b IS TRUE) AND (c IS NOT FALSE))");
  EXPECT_EQ(Parsed("a OR b OR (c OR d) AND e"), "(a OR b OR ((c OR d) AND e))");
  EXPECT_EQ(Parsed("a.b.`c d` = \"x y\".z"), "(a.b.`c d` = `x y`.z)");
  EXPECT_EQ(Parsed("CAST(a AS bigint) > cast(b as DECIMAL(5, 2))"),
            "(CAST(a AS int64) > CAST(b AS decimal128(5, 2)))");
  EXPECT_EQ(Parsed("DATE '2024-01-01' < TIMESTAMP '2024-01-01 10:00:00.5'"),
            "(DATE '2024-01-01' < TIMESTAMP '2024-01-01T10:00:00.500')");
  EXPECT_EQ(Parsed("Lower(s) = 'x' AND coalesce(a, 1, b)"), "((lower(s) = 'x') AND coalesce(a, 1, b))");
  EXPECT_EQ(Parsed("1e3 + .5 + 2.50"), "((1e3 + .5) + 2.50)");
  EXPECT_EQ(Parsed("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(Parsed("TRUE AND false OR null"), "((TRUE AND FALSE) OR NULL)");
}

TEST(ExprParse, Errors) {
  EXPECT_EQ(Parsed("a > = 3"),
            "error: syntax error at position 4 in filter \"a > = 3\": expected an expression, found '='");
  EXPECT_EQ(Parsed("a = 1 2"),
            "error: syntax error at position 6 in filter \"a = 1 2\": expected an operator or the end "
            "of the filter, found '2'");
  EXPECT_EQ(Parsed("s = 'abc"),
            "error: syntax error at position 4 in filter \"s = 'abc\": unterminated string literal (missing ')");
  EXPECT_EQ(Parsed("a IN ()"),
            "error: syntax error at position 6 in filter \"a IN ()\": expected a value in the IN list, found ')'");
  EXPECT_NE(Parsed("CAST(a AS blob)").find("unknown type 'blob'"), std::string::npos);
  EXPECT_NE(Parsed("a BETWEEN 1 OR 2").find("expected AND in BETWEEN"), std::string::npos);
  EXPECT_NE(Parsed("a < b < c").find("comparisons do not chain"), std::string::npos);
  EXPECT_NE(Parsed("").find("expected an expression, found the end of the filter"), std::string::npos);
  EXPECT_NE(Parsed("a = $").find("position 4"), std::string::npos);
  EXPECT_NE(Parsed("(a = 1").find("expected ')'"), std::string::npos);
  EXPECT_NE(Parsed("a IS 5").find("NULL, TRUE or FALSE"), std::string::npos);
  EXPECT_NE(Parsed("DATE '2024-02-30' = d").find("not a date"), std::string::npos);
  EXPECT_NE(Parsed("`abc = 1").find("unterminated quoted name"), std::string::npos);
  EXPECT_NE(Parsed("12abc > 1").find("malformed number"), std::string::npos);
  EXPECT_NE(Parsed("a AND AND b").find("position 6"), std::string::npos);
}

TEST(ExprBind, Errors) {
  auto e = Expression::Make("scroe > 5", TestSchema());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            "unknown column 'scroe' at position 0 in filter \"scroe > 5\"; columns are: id, i32, f, "
            "s, b, d, ts, dec, st, weird name, ls");
  EXPECT_EQ(Eval("st.zz = 1"),
            "error: unknown field 'zz' of 'st' at position 0 in filter \"st.zz = 1\"; its fields are: a, inner");
  EXPECT_NE(Eval("id.x = 1").find("not a struct"), std::string::npos);
  EXPECT_EQ(Eval("s + 1"), "error: '+' needs numbers, found string and int64 at position 2 in filter \"s + 1\"");
  EXPECT_EQ(Eval("i32 AND b"),
            "error: AND needs a boolean operand, found int32 at position 0 in filter \"i32 AND b\"");
  EXPECT_EQ(Eval("s = 5"), "error: cannot compare string with int64 at position 2 in filter \"s = 5\"");
  EXPECT_NE(Eval("i32 = 'abc'").find("cannot cast string value 'abc' to int64: not an integer at position 4"),
            std::string::npos);
  EXPECT_NE(Eval("nosuch(s)").find("unknown function 'nosuch'"), std::string::npos);
  EXPECT_NE(Eval("lower(i32)").find("lower() needs a string, found int32"), std::string::npos);
  EXPECT_NE(Eval("i32 LIKE 'a'").find("LIKE needs a string"), std::string::npos);
  auto p = Expression::MakePredicate("i32 + 1", TestSchema());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("not a boolean condition"), std::string::npos);
}

TEST(ExprEval, ComparisonsAndLogic) {
  EXPECT_EQ(Eval("i32 > 5"), "[true,null,true,false,false]");
  EXPECT_EQ(Eval("5 < i32"), "[true,null,true,false,false]");
  EXPECT_EQ(Eval("i32 >= 10"), "[true,null,true,false,false]");
  EXPECT_EQ(Eval("i32 <= 0"), "[false,null,false,true,true]");
  EXPECT_EQ(Eval("i32 = 0"), "[false,null,false,false,true]");
  EXPECT_EQ(Eval("i32 != 0"), "[true,null,true,true,false]");
  EXPECT_EQ(Eval("i32 <> 0"), "[true,null,true,true,false]");
  EXPECT_EQ(Eval("i32 > 5 AND b"), "[true,false,null,false,false]");
  EXPECT_EQ(Eval("i32 > 5 OR b"), "[true,null,true,true,false]");
  EXPECT_EQ(Eval("NOT (i32 > 5)"), "[false,null,false,true,true]");
  EXPECT_EQ(Eval("NOT b"), "[false,true,null,false,true]");
  EXPECT_EQ(Eval("b AND NULL"), "[null,false,null,null,false]");
  EXPECT_EQ(Eval("b OR NULL"), "[true,null,null,true,null]");
  EXPECT_EQ(Eval("i32 = NULL"), "[null,null,null,null,null]");
  EXPECT_EQ(Eval("b = true"), "[true,false,null,true,false]");
  EXPECT_EQ(Eval("i32 = id * 10"), "[true,null,true,false,false]");
  EXPECT_EQ(Eval("i32 < id"), "[false,null,false,true,true]");
  EXPECT_EQ(Eval("i32 > 2.5"), "[true,null,true,false,false]");
  EXPECT_EQ(Eval("i32 = '10'"), "[true,null,false,false,false]");
  EXPECT_EQ(Eval("1 = 1"), "[true,true,true,true,true]");
  EXPECT_EQ(Eval("1 > 2 OR i32 IS NULL"), "[false,true,false,false,false]");
  EXPECT_EQ(Eval("ID = 1"), "[true,false,false,false,false]");  // case-insensitive fallback
  EXPECT_EQ(Eval("`weird name` > 5"), "[true,null,true,false,false]");
  EXPECT_EQ(Eval("\"weird name\" > 5"), "[true,null,true,false,false]");
}

TEST(ExprEval, FloatsCompareLikeLance12) {
  EXPECT_EQ(Eval("f > 1000"), "[false,true,null,false,false]");  // NaN above everything
  EXPECT_EQ(Eval("f = 'NaN'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("f = -0.0"), "[false,false,null,true,false]");
  EXPECT_EQ(Eval("f = 0"), "[false,false,null,true,false]");  // -0.0 equals 0.0, as in lance 12
  EXPECT_EQ(Eval("f < 0"), "[false,false,null,false,false]");
  EXPECT_EQ(Eval("f IN (0, 'NaN')"), "[false,true,null,true,false]");
  EXPECT_EQ(Eval("f >= 1.5"), "[true,true,null,false,true]");
  EXPECT_EQ(Eval("f = f"), "[true,true,null,true,true]");
}

TEST(ExprEval, UInt64AboveInt64Max) {
  // uint64 values above INT64_MAX compare above every int64 (lance 12: `u > 9223372036854775807`
  // selects them); as int64 they would wrap negative.
  auto sch = schema({field("u", uint64()), field("v", uint64()), field("i", int64())});
  auto batch = ReadJsonLines(
      R"({"u":0,"v":18446744073709551615,"i":-1}
{"u":9223372036854775807,"v":9223372036854775808,"i":5}
{"u":9223372036854775808,"v":9223372036854775807,"i":-9223372036854775808}
{"u":18446744073709551615,"v":0,"i":0}
{"u":null,"v":1,"i":1}
)", sch);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto eval = [&](const std::string& text) { return EvalOn(sch, **batch, text); };
  EXPECT_EQ(eval("u > 9223372036854775807"), "[false,false,true,true,null]");
  EXPECT_EQ(eval("u >= 0"), "[true,true,true,true,null]");
  EXPECT_EQ(eval("u > -1"), "[true,true,true,true,null]");
  EXPECT_EQ(eval("u = -1"), "[false,false,false,false,null]");
  EXPECT_EQ(eval("u < 5"), "[true,false,false,false,null]");
  EXPECT_EQ(eval("u > v"), "[false,false,true,true,null]");
  EXPECT_EQ(eval("v > u"), "[true,true,false,false,null]");
  EXPECT_EQ(eval("u > i"), "[true,true,true,true,null]");
  EXPECT_EQ(eval("i < u"), "[true,true,true,true,null]");
  EXPECT_EQ(eval("u BETWEEN 1 AND 9223372036854775807"), "[false,true,false,false,null]");
  EXPECT_EQ(eval("u IN (0, -1)"), "[true,false,false,false,null]");
}

TEST(ExprEval, Time32AgainstIntegerLiteral) {
  // lance 12 compares an integer literal with a time32 column in the column's unit.
  auto sch = schema({field("t", time32(TimeUnit::kSecond)), field("t64", time64(TimeUnit::kMicro))});
  auto batch = ReadJsonLines("{\"t\":0,\"t64\":0}\n{\"t\":3600,\"t64\":1}\n{\"t\":7200,\"t64\":2}\n{\"t\":null,\"t64\":null}\n", sch);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto eval = [&](const std::string& text) { return EvalOn(sch, **batch, text); };
  EXPECT_EQ(eval("t > 3600"), "[false,false,true,null]");
  EXPECT_EQ(eval("3600 = t"), "[false,true,false,null]");
  EXPECT_EQ(eval("t BETWEEN 1 AND 3600"), "[false,true,false,null]");
  EXPECT_NE(eval("t64 > 1").rfind("error: ", 0), std::string::npos);  // refused, as lance 12
}

TEST(ExprEval, BinaryLiteralsAndFixedSizeBinary) {
  // X'..' is a binary literal (lance 12 accepts it); fixed_size_binary compares bytewise too.
  auto sch = schema({field("b", binary()), field("f", fixed_size_binary(2))});
  auto batch = ReadJsonLines("{\"b\":\"AAE=\",\"f\":\"AAE=\"}\n{\"b\":\"/w==\",\"f\":\"//8=\"}\n"
                             "{\"b\":\"\",\"f\":\"AQA=\"}\n{\"b\":null,\"f\":null}\n", sch);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto eval = [&](const std::string& text) { return EvalOn(sch, **batch, text); };
  EXPECT_EQ(eval("b = X'0001'"), "[true,false,false,null]");
  EXPECT_EQ(eval("b > X'00'"), "[true,true,false,null]");
  EXPECT_EQ(eval("b = X''"), "[false,false,true,null]");
  EXPECT_EQ(eval("f = X'ffFF'"), "[false,true,false,null]");
  EXPECT_EQ(eval("f < X'0100'"), "[true,false,false,null]");
  EXPECT_EQ(eval("f IN (X'0100', X'0001')"), "[true,false,true,null]");
  EXPECT_EQ(Parsed("b = x'0aff'"), "(b = X'0AFF')");
  EXPECT_EQ(eval("b = X'0'").rfind("error: ", 0), 0u);
  EXPECT_EQ(eval("b = X'zz'").rfind("error: ", 0), 0u);
}

TEST(ExprEval, InBetweenIs) {
  EXPECT_EQ(Eval("i32 IN (10, 0)"), "[true,null,false,false,true]");
  EXPECT_EQ(Eval("i32 NOT IN (10, 0)"), "[false,null,true,true,false]");
  EXPECT_EQ(Eval("i32 IN (10, NULL)"), "[true,null,null,null,null]");
  EXPECT_EQ(Eval("i32 NOT IN (10, NULL)"), "[false,null,null,null,null]");
  EXPECT_EQ(Eval("i32 IN (10.0, 30.5)"), "[true,null,false,false,false]");
  EXPECT_EQ(Eval("i32 IN (id * 10, 0)"), "[true,null,true,false,true]");  // non-literal items
  EXPECT_EQ(Eval("s IN ('apple', '', 'x')"), "[true,false,null,false,true]");
  EXPECT_EQ(Eval("ls IN ('apple', 'Banana')"), "[true,true,null,false,false]");
  EXPECT_EQ(Eval("d IN ('2024-01-01', DATE '2022-01-08')"), "[true,false,null,true,true]");
  EXPECT_EQ(Eval("i32 BETWEEN 0 AND 10"), "[true,null,false,false,true]");
  EXPECT_EQ(Eval("i32 NOT BETWEEN 0 AND 10"), "[false,null,true,true,false]");
  EXPECT_EQ(Eval("i32 IS NULL"), "[false,true,false,false,false]");
  EXPECT_EQ(Eval("i32 IS NOT NULL"), "[true,false,true,true,true]");
  EXPECT_EQ(Eval("b IS TRUE"), "[true,false,false,true,false]");
  EXPECT_EQ(Eval("b IS NOT TRUE"), "[false,true,true,false,true]");
  EXPECT_EQ(Eval("b IS FALSE"), "[false,true,false,false,true]");
  EXPECT_EQ(Eval("b IS NOT FALSE"), "[true,false,true,true,false]");
  EXPECT_EQ(Eval("(i32 > 5) IS NULL"), "[false,true,false,false,false]");
  EXPECT_EQ(Eval("NULL IS NULL"), "[true,true,true,true,true]");
}

TEST(ExprEval, Strings) {
  EXPECT_EQ(Eval("s = 'apple'"), "[true,false,null,false,false]");
  EXPECT_EQ(Eval("s = ''"), "[false,false,null,false,true]");
  EXPECT_EQ(Eval("s > 'b'"), "[false,false,null,false,false]");
  EXPECT_EQ(Eval("s >= 'B'"), "[true,true,null,true,false]");
  EXPECT_EQ(Eval("s <> 'apple'"), "[false,true,null,true,true]");
  EXPECT_EQ(Eval("ls = 'Banana'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("s = ls"), "[true,true,null,true,true]");
  EXPECT_EQ(Eval("s LIKE 'a%'"), "[true,false,null,true,false]");
  EXPECT_EQ(Eval("s NOT LIKE 'a%'"), "[false,true,null,false,true]");
  EXPECT_EQ(Eval("s LIKE '%an%'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("s LIKE '%e'"), "[true,false,null,false,false]");
  EXPECT_EQ(Eval("s LIKE 'apple'"), "[true,false,null,false,false]");
  EXPECT_EQ(Eval("s LIKE 'APPLE'"), "[false,false,null,false,false]");
  EXPECT_EQ(Eval("s ILIKE 'APPLE'"), "[true,false,null,false,false]");
  EXPECT_EQ(Eval("s ILIKE 'b%'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("s LIKE 'a\\_c\\%d'"), "[false,false,null,true,false]");
  EXPECT_EQ(Eval("s LIKE 'a_c%'"), "[false,false,null,true,false]");
  EXPECT_EQ(Eval("s LIKE '_'"), "[false,false,null,false,false]");
  EXPECT_EQ(Eval("s LIKE '%'"), "[true,true,null,true,true]");
  EXPECT_EQ(Eval("s LIKE ''"), "[false,false,null,false,true]");
  EXPECT_EQ(Eval("s LIKE '%a%a%a'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("s LIKE 'B_n_n_'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("s LIKE NULL"), "[null,null,null,null,null]");
  EXPECT_EQ(Eval("st.inner.c LIKE 'h_llo'"), "[false,null,null,true,null]");  // _ is one character
  EXPECT_EQ(Eval("st.inner.c LIKE 'h__llo'"), "[false,null,null,false,null]");
}

TEST(ExprEval, Arithmetic) {
  EXPECT_EQ(Eval("i32 + 1"), "[11,null,31,-4,1]");
  EXPECT_EQ(Eval("i32 * 2 - id"), "[19,null,57,-14,-5]");
  EXPECT_EQ(Eval("i32 / 4"), "[2,null,7,-1,0]");
  EXPECT_EQ(Eval("i32 % 4"), "[2,null,2,-1,0]");
  EXPECT_EQ(Eval("-i32"), "[-10,null,-30,5,0]");
  EXPECT_EQ(Eval("i32 + NULL"), "[null,null,null,null,null]");
  EXPECT_EQ(Eval("1 + 2 * 3"), "[7,7,7,7,7]");
  EXPECT_EQ(Eval("i32 / 0"), "error: division by zero");
  EXPECT_EQ(Eval("id / (id - id)"), "error: division by zero");
  EXPECT_EQ(Eval("i32 + 0.5"), "[10.5,null,30.5,-4.5,0.5]");
  EXPECT_EQ(Eval("f * 2"), "[3.0,\"NaN\",null,-0.0,200.0]");
  EXPECT_EQ(Eval("f / 0"), "[\"Infinity\",\"NaN\",null,\"NaN\",\"Infinity\"]");
  EXPECT_EQ(Eval("dec * 2"), "[25.0,-6.0,null,0.02,199999999.98]");
  EXPECT_EQ(Eval("id % 2 = 0"), "[false,true,false,true,false]");
  EXPECT_EQ(Eval("9223372036854775807 + id"),
            "[-9223372036854775808,-9223372036854775807,-9223372036854775806,-9223372036854775805,"
            "-9223372036854775804]");  // wraps
  EXPECT_EQ(Eval("-9223372036854775808 / -1"), "[-9223372036854775808,-9223372036854775808,"
            "-9223372036854775808,-9223372036854775808,-9223372036854775808]");
  EXPECT_EQ(Eval("'2' * i32"), "[20,null,60,-10,0]");
}

TEST(ExprEval, Casts) {
  EXPECT_EQ(Eval("CAST(i32 AS string)"), "[\"10\",null,\"30\",\"-5\",\"0\"]");
  EXPECT_EQ(Eval("CAST(i32 AS varchar) = '10'"), "[true,null,false,false,false]");
  EXPECT_NE(Eval("CAST(s AS int)").find("cannot cast string value 'apple' to int32"), std::string::npos);
  EXPECT_EQ(Eval("CAST('42' AS bigint) + 1"), "[43,43,43,43,43]");
  EXPECT_EQ(Eval("CAST(dec AS double)"), "[12.5,-3.0,null,0.01,99999999.99]");
  EXPECT_EQ(Eval("CAST(d AS string)"), "[\"2024-01-01\",\"2024-01-02\",null,\"2022-01-08\",\"2024-01-01\"]");
  EXPECT_EQ(Eval("CAST(i32 AS decimal(5,1))"), "[\"10.0\",null,\"30.0\",\"-5.0\",\"0.0\"]");
  EXPECT_EQ(Eval("CAST(b AS int)"), "[1,0,null,1,0]");
  EXPECT_EQ(Eval("CAST(i32 AS boolean)"), "[true,null,true,true,false]");
  EXPECT_EQ(Eval("CAST('2024-01-02' AS date) = d"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("CAST(ts AS date)"), "[19723,19723,null,0,19723]");
  EXPECT_EQ(Eval("CAST(d AS timestamp)"),
            "[1704067200000000000,1704153600000000000,null,1641600000000000000,1704067200000000000]");
  EXPECT_EQ(Eval("CAST(1.7 AS int)"), "[1,1,1,1,1]");
  EXPECT_EQ(Eval("CAST(-1.7 AS int)"), "[-1,-1,-1,-1,-1]");
  EXPECT_NE(Eval("CAST(300 AS tinyint)").find("out of range"), std::string::npos);
  EXPECT_EQ(Eval("CAST(i32 AS float)"), "[10.0,null,30.0,-5.0,0.0]");
  EXPECT_EQ(Eval("CAST(i32 AS smallint)"), "[10,null,30,-5,0]");
  EXPECT_EQ(Eval("CAST('true' AS boolean) AND b"), "[true,false,null,true,false]");
  EXPECT_EQ(Eval("CAST('12.345' AS decimal(6,3))"),
            "[\"12.345\",\"12.345\",\"12.345\",\"12.345\",\"12.345\"]");
  EXPECT_EQ(Eval("CAST(dec AS decimal(12,1))"), "[\"12.5\",\"-3.0\",null,\"0.0\",\"100000000.0\"]");
  EXPECT_EQ(Eval("CAST(dec AS int)"), "[12,-3,null,0,99999999]");
  EXPECT_EQ(Eval("CAST(NULL AS int)"), "[null,null,null,null,null]");
  EXPECT_EQ(Eval("CAST(ts AS string)"),
            "[\"2024-01-01T00:00:00\",\"2024-01-01T01:00:00\",null,\"1970-01-01T00:00:00\","
            "\"2024-01-01T00:00:00.000001\"]");
  EXPECT_NE(Eval("CAST(f AS int)").find("out of range"), std::string::npos);  // NaN
}

TEST(ExprEval, Temporal) {
  EXPECT_EQ(Eval("d > DATE '2024-01-01'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("d = '2024-01-01'"), "[true,false,null,false,true]");
  EXPECT_EQ(Eval("d >= TIMESTAMP '2024-01-01 12:00:00'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("ts > TIMESTAMP '2024-01-01 00:00:00'"), "[false,true,null,false,true]");
  EXPECT_EQ(Eval("ts = '2024-01-01T00:00:00.000001'"), "[false,false,null,false,true]");
  EXPECT_EQ(Eval("ts < '1970-01-01 00:00:00.000001'"), "[false,false,null,true,false]");
  // A literal finer than the column's unit: the column is converted, not the literal.
  EXPECT_EQ(Eval("ts < TIMESTAMP '1970-01-01 00:00:00.0000005'"), "[false,false,null,true,false]");
  EXPECT_EQ(Eval("ts > TIMESTAMP '2024-01-01 00:00:00.0000005'"), "[false,true,null,false,true]");
  EXPECT_EQ(Eval("ts >= DATE '2024-01-01'"), "[true,true,null,false,true]");
  EXPECT_EQ(Eval("ts = '2024-01-01T01:00:00+01:00'"), "[true,false,null,false,false]");
  EXPECT_EQ(Eval("d BETWEEN '2024-01-01' AND '2024-12-31'"), "[true,true,null,false,true]");
}

// decimal256 columns (lance 12 stores them; SQL's DECIMAL(p > 38, s) is one) meet numbers as
// decimal128 does, and CAST goes both ways.
TEST(ExprEval, Decimal256) {
  auto sch = schema({field("w", decimal256(60, 2))});
  auto batch = ReadJsonLines(R"({"w":"12.50"}
{"w":"-123456789012345678901234567890123456789012345678.99"}
{"w":null}
{"w":"0.01"}
)", sch);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto eval = [&](const std::string& text) { return Eval(text, *batch, sch); };
  EXPECT_EQ(eval("w > 0"), "[true,false,null,true]");
  EXPECT_EQ(eval("w = 0.01"), "[false,false,null,true]");
  EXPECT_EQ(eval("w IN (12.5, 7)"), "[true,false,null,false]");
  EXPECT_EQ(eval("w IS NULL"), "[false,false,true,false]");
  EXPECT_EQ(eval("CAST(w AS string)"),
            "[\"12.50\",\"-123456789012345678901234567890123456789012345678.99\",null,\"0.01\"]");
  EXPECT_EQ(eval("CAST(w AS double)"), "[12.5,-1.2345678901234568e47,null,0.01]");
  EXPECT_EQ(eval("CAST(7 AS DECIMAL(50, 3))"), "[\"7.000\",\"7.000\",\"7.000\",\"7.000\"]");
  EXPECT_EQ(eval("CAST(1.25 AS DECIMAL(40, 1))"), "[\"1.3\",\"1.3\",\"1.3\",\"1.3\"]");
  EXPECT_EQ(eval("CAST('-1e2' AS DECIMAL(40, 1))").rfind("error: cannot cast", 0), 0u);
  EXPECT_EQ(eval("CAST(w AS DECIMAL(76, 2)) = w"), "[true,true,null,true]");
}

// The label-list functions as lance 12 (DataFusion) answers them, checked from node on the same
// lists: a null list is NULL; null items match only a NULL needle; array_contains(l, NULL) is
// NULL; no needle: array_has_all TRUE (even for a null list), array_has_any FALSE; int items
// compare with float needles by value.
TEST(ExprEval, LabelListFunctions) {
  auto sch = schema({field("tags", list(field("item", utf8()))), field("nums", list(field("item", int32()))),
                     field("fixed", fixed_size_list(field("item", int64()), 2))});
  auto batch = ReadJsonLines(R"({"tags":["t1"],"nums":[0],"fixed":[1,2]}
{"tags":["t1",null],"nums":[1,null],"fixed":[3,null]}
{"tags":[null],"nums":[null],"fixed":null}
{"tags":[],"nums":[],"fixed":[5,5]}
{"tags":null,"nums":null,"fixed":[6,7]}
{"tags":["t2","t4"],"nums":[5,5],"fixed":[1,1]}
{"tags":["t0","t2","t2"],"nums":[6,6,6],"fixed":[2,1]}
)", sch);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto eval = [&](const std::string& text) { return Eval(text, *batch, sch); };
  EXPECT_EQ(eval("array_has_any(tags, make_array('t1', 't4'))"), "[true,true,false,false,null,true,false]");
  EXPECT_EQ(eval("NOT array_has_any(tags, make_array('t1', 't4'))"), "[false,false,true,true,null,false,true]");
  EXPECT_EQ(eval("array_has_all(tags, make_array('t0', 't2'))"), "[false,false,false,false,null,false,true]");
  EXPECT_EQ(eval("array_has_all(tags, make_array('t2', 't2'))"), "[false,false,false,false,null,true,true]");
  EXPECT_EQ(eval("array_contains(tags, 't1')"), "[true,true,false,false,null,false,false]");
  EXPECT_EQ(eval("array_has(tags, 't1') = list_contains(tags, 't1')"), "[true,true,true,true,null,true,true]");
  EXPECT_EQ(eval("array_contains(tags, NULL)"), "[null,null,null,null,null,null,null]");
  EXPECT_EQ(eval("array_has_any(tags, make_array('t1', NULL))"), "[true,true,true,false,null,false,false]");
  EXPECT_EQ(eval("array_has_all(tags, make_array('t1', NULL))"), "[false,true,false,false,null,false,false]");
  EXPECT_EQ(eval("array_has_all(tags, make_array())"), "[true,true,true,true,true,true,true]");
  EXPECT_EQ(eval("list_has_any(tags, make_list())"), "[false,false,false,false,false,false,false]");
  EXPECT_EQ(eval("array_contains(nums, 5)"), "[false,false,false,false,null,true,false]");
  EXPECT_EQ(eval("array_contains(nums, 5.0)"), "[false,false,false,false,null,true,false]");
  EXPECT_EQ(eval("array_contains(nums, 5.5)"), "[false,false,false,false,null,false,false]");
  EXPECT_EQ(eval("array_has_any(nums, make_array(0, 6))"), "[true,false,false,false,null,false,true]");
  EXPECT_EQ(eval("array_has_all(fixed, make_array(1, 2))"), "[true,false,null,false,false,false,true]");
  EXPECT_EQ(eval("array_contains(fixed, 5) OR array_contains(fixed, 7)"), "[false,false,null,true,true,false,false]");
  for (const char* bad : {"array_contains(tags, 5)", "array_contains(nums, 'x')", "array_has_any(tags, 't1')",
                          "array_contains(nums)", "array_has_any(tags, make_array(nums))", "array_contains(id, 1)"}) {
    EXPECT_EQ(eval(bad).rfind("error:", 0), 0u) << bad << " -> " << eval(bad);
  }
}

TEST(ExprEval, DecimalsNestedFunctions) {
  EXPECT_EQ(Eval("dec > 12"), "[true,false,null,false,true]");
  EXPECT_EQ(Eval("dec = 0.01"), "[false,false,null,true,false]");
  EXPECT_EQ(Eval("dec < '0'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("st.a > 2"), "[false,null,null,true,true]");
  EXPECT_EQ(Eval("st.inner.c = 'x'"), "[true,null,null,false,null]");
  EXPECT_EQ(Eval("st.inner IS NULL"), "[false,true,true,false,false]");
  EXPECT_EQ(Eval("st.a IS NULL"), "[false,true,true,false,false]");
  EXPECT_EQ(Eval("st IS NULL"), "[false,true,false,false,false]");
  EXPECT_EQ(Eval("st.a + 1"), "[2,null,null,5,6]");
  EXPECT_EQ(Eval("lower(s) = 'banana'"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("upper(s)"), "[\"APPLE\",\"BANANA\",null,\"A_C%D\",\"\"]");
  EXPECT_EQ(Eval("length(s)"), "[5,6,null,5,0]");
  EXPECT_EQ(Eval("char_length(st.inner.c)"), "[1,null,null,5,null]");
  EXPECT_EQ(Eval("abs(i32)"), "[10,null,30,5,0]");
  EXPECT_EQ(Eval("abs(f) = 0.0"), "[false,false,null,true,false]");
  EXPECT_EQ(Eval("f * 0 = 0"), "[true,false,null,true,true]");
  EXPECT_EQ(Eval("coalesce(i32, id * 100)"), "[10,200,30,-5,0]");
  EXPECT_EQ(Eval("coalesce(st.a, 0.5)"), "[1.0,0.5,0.5,4.0,5.0]");
  EXPECT_EQ(Eval("starts_with(s, 'a')"), "[true,false,null,true,false]");
  EXPECT_EQ(Eval("ends_with(s, 'a')"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("contains(s, 'a')"), Eval("s LIKE '%a%'"));
  EXPECT_EQ(Eval("contains(s, '')"), "[true,true,null,true,true]");
  EXPECT_EQ(Eval("contains(s, 'an')"), "[false,true,null,false,false]");
  EXPECT_EQ(Eval("contains(s, 'c%')"), "[false,false,null,true,false]");
  EXPECT_EQ(Eval("NOT contains(s, 'pp')"), "[false,true,null,true,true]");
}

TEST(ExprEval, SlicedBatches) {
  RecordBatchPtr sliced = TestBatch()->Slice(1, 3);
  EXPECT_EQ(Eval("i32 > 5", sliced), "[null,true,false]");
  EXPECT_EQ(Eval("b OR i32 > 5", sliced), "[null,true,true]");
  EXPECT_EQ(Eval("NOT b", sliced), "[true,null,false]");
  EXPECT_EQ(Eval("s = 'a_c%d'", sliced), "[false,null,true]");
  EXPECT_EQ(Eval("s LIKE 'B%'", sliced), "[true,null,false]");
  EXPECT_EQ(Eval("st.a IS NULL", sliced), "[true,true,false]");
  EXPECT_EQ(Eval("st.inner.c = 'héllo'", sliced), "[null,null,true]");
  EXPECT_EQ(Eval("i32 IN (30, -5)", sliced), "[null,true,true]");
  EXPECT_EQ(Eval("i32 + id", sliced), "[null,33,-1]");
  EXPECT_EQ(Eval("b IS TRUE", sliced), "[false,false,true]");
}

TEST(ExprEval, ColumnsAndSelection) {
  auto e = Expression::MakePredicate("st.a > 1 AND id < 3 AND st.inner.c = 'x' OR ID = 4",
                                     TestSchema());
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->columns(), (std::vector<std::string>{"st", "id"}));
  auto mask = (*e)->Evaluate(*TestBatch());
  ASSERT_TRUE(mask.ok());
  EXPECT_EQ(TrueIndices(**mask), (std::vector<int64_t>{3}));
  EXPECT_EQ(CountTrue(**mask), 1);

  auto n = Expression::MakePredicate("NULL", TestSchema());
  ASSERT_TRUE(n.ok());
  auto all_null = (*n)->Evaluate(*TestBatch());
  ASSERT_TRUE(all_null.ok());
  EXPECT_EQ(CountTrue(**all_null), 0);
  EXPECT_EQ(Render(**all_null), "[null,null,null,null,null]");

  // A long column: the byte-at-a-time kernels and the word-wise logic over many words.
  std::string rows;
  for (int i = 0; i < 1000; ++i) {
    rows += "{\"x\":" + (i % 7 == 0 ? std::string("null") : std::to_string(i)) + ",\"c\":\"c" +
            std::to_string(i % 10) + "\"}\n";
  }
  auto sch = schema({field("x", int64()), field("c", utf8())});
  auto batch = ReadJsonLines(rows, sch);
  ASSERT_TRUE(batch.ok());
  auto p = Expression::MakePredicate("x > 500 AND c = 'c7' OR x IS NULL AND c = 'c0'", sch);
  ASSERT_TRUE(p.ok());
  auto m = (*p)->Evaluate(**batch);
  ASSERT_TRUE(m.ok());
  std::vector<int64_t> want;
  for (int i = 0; i < 1000; ++i) {
    const bool null_x = i % 7 == 0;
    if ((!null_x && i > 500 && i % 10 == 7) || (null_x && i % 10 == 0)) want.push_back(i);
  }
  EXPECT_EQ(TrueIndices(**m), want);
  EXPECT_EQ(CountTrue(**m), static_cast<int64_t>(want.size()));
  auto sliced = (*p)->Evaluate(*(*batch)->Slice(3, 990));
  ASSERT_TRUE(sliced.ok());
  std::vector<int64_t> want_sliced;
  for (int64_t w : want) {
    if (w >= 3 && w < 993) want_sliced.push_back(w - 3);
  }
  EXPECT_EQ(TrueIndices(**sliced), want_sliced);
}

// MakeConjuncts: the top-level AND chain split into bound conjuncts, point tests first; a
// row passes every conjunct exactly when it passes the whole filter.
TEST(Conjuncts, SplitOrderAndAgreeWithTheWholeFilter) {
  const std::string text = "f > 1 AND (s = 'apple' AND (b OR id = 2)) AND i32 IN (10, 30) AND st.a IS NULL";
  auto parts = Expression::MakeConjuncts(text, TestSchema());
  ASSERT_TRUE(parts.ok()) << parts.status().ToString();
  ASSERT_EQ(parts->size(), 5u);
  // Point tests (=, IN, IS NULL on a column) first, in text order; then the rest.
  EXPECT_EQ((*parts)[0]->columns(), std::vector<std::string>{"s"});
  EXPECT_EQ((*parts)[1]->columns(), std::vector<std::string>{"i32"});
  EXPECT_EQ((*parts)[2]->columns(), std::vector<std::string>{"st"});
  EXPECT_EQ((*parts)[3]->columns(), std::vector<std::string>{"f"});
  EXPECT_EQ((*parts)[4]->columns(), (std::vector<std::string>{"b", "id"}));
  const RecordBatchPtr batch = TestBatch();
  for (const std::string& f : {text, std::string("s = 'apple' AND f IS NULL"),
                               std::string("NOT b AND i32 >= 0 AND s IS NOT NULL"),
                               std::string("id > 1 AND NULL"), std::string("b")}) {
    SCOPED_TRACE(f);
    auto whole = Expression::MakePredicate(f, TestSchema());
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    auto mask = (*whole)->Evaluate(*batch);
    ASSERT_TRUE(mask.ok());
    auto cs = Expression::MakeConjuncts(f, TestSchema());
    ASSERT_TRUE(cs.ok()) << cs.status().ToString();
    std::vector<bool> all(static_cast<size_t>(batch->num_rows()), true);
    for (const auto& c : *cs) {
      EXPECT_EQ(c->type()->id(), TypeId::kBool);
      auto m = c->Evaluate(*batch);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        if (!((*m)->IsValid(i) && (*m)->BoolValue(i))) all[static_cast<size_t>(i)] = false;
      }
    }
    std::vector<bool> expected(static_cast<size_t>(batch->num_rows()), false);
    for (int64_t i : TrueIndices(**mask)) expected[static_cast<size_t>(i)] = true;
    EXPECT_EQ(all, expected);
  }
}

TEST(Conjuncts, NonBooleanPartsAndBadNamesAreErrors) {
  auto a = Expression::MakeConjuncts("b AND id + 1", TestSchema());
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(a.status().IsInvalidArgument()) << a.status().ToString();
  auto b = Expression::MakeConjuncts("b AND nope = 1", TestSchema());
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("nope"), std::string::npos) << b.status().ToString();
  // An OR at the top is one conjunct.
  auto c = Expression::MakeConjuncts("b OR id = 1", TestSchema());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->size(), 1u);
}

// Comparisons, IN, LIKE and IS on a dictionary-encoded column are evaluated once per
// dictionary entry and looked up per row: results equal those on the decoded strings, with
// null rows and a null dictionary entry, on whole and sliced batches.
TEST(DictionaryColumns, PerEntryEvaluationEqualsDecodedValues) {
  const SchemaPtr plain_schema = schema({field("s", utf8())});
  auto dict_values = ReadJsonLines("{\"s\":\"b\"}\n{\"s\":\"a\"}\n{\"s\":null}\n{\"s\":\"abc\"}\n",
                                   plain_schema);
  ASSERT_TRUE(dict_values.ok()) << dict_values.status().ToString();
  const std::vector<int32_t> idx = {0, 1, 3, 2, 1, 0, 0, 3, 1};
  const std::vector<bool> valid = {true, true, true, true, true, false, true, true, true};
  const int64_t n = static_cast<int64_t>(idx.size());
  auto ib = AllocateBuffer(n * 4, true);
  auto vb = AllocateBuffer(bit_util::BytesForBits(n), true);
  ASSERT_TRUE(ib.ok() && vb.ok());
  std::memcpy((*ib)->mutable_data(), idx.data(), idx.size() * 4);
  std::string rows;
  const char* text[] = {"\"b\"", "\"a\"", "null", "\"abc\""};
  for (int64_t i = 0; i < n; ++i) {
    if (valid[static_cast<size_t>(i)]) bit_util::SetBit((*vb)->mutable_data(), i);
    rows += std::string("{\"s\":") + (valid[static_cast<size_t>(i)] ? text[idx[static_cast<size_t>(i)]] : "null") + "}\n";
  }
  const DataTypePtr dtype = dictionary(int32(), utf8());
  const SchemaPtr dict_schema = schema({field("s", dtype)});
  ArrayPtr darr = Array::Make(dtype, n, {*vb, *ib}, {}, 0, (*dict_values)->column(0));
  auto dict_batch = RecordBatch::Make(dict_schema, n, {darr});
  ASSERT_TRUE(dict_batch.ok()) << dict_batch.status().ToString();
  auto plain_batch = ReadJsonLines(rows, plain_schema);
  ASSERT_TRUE(plain_batch.ok()) << plain_batch.status().ToString();
  for (const char* f : {"s = 'a'", "s <> 'a'", "s < 'b'", "s >= 'abc'", "s IN ('a', 'abc')",
                        "s NOT IN ('b')", "s IN ('a', NULL)", "s LIKE 'a%'", "s NOT LIKE '%c'",
                        "s ILIKE 'A_C'", "s IS NULL", "s IS NOT NULL", "s = NULL",
                        "s = 'zz' OR s IS NULL", "NOT (s = 'b')", "upper(s) = 'A'"}) {
    SCOPED_TRACE(f);
    auto de = Expression::Make(f, dict_schema);
    auto pe = Expression::Make(f, plain_schema);
    ASSERT_TRUE(de.ok()) << de.status().ToString();
    ASSERT_TRUE(pe.ok()) << pe.status().ToString();
    for (int64_t off : {0, 3}) {
      auto dr = (*de)->Evaluate(*(*dict_batch)->Slice(off, n - off));
      auto pr = (*pe)->Evaluate(*(*plain_batch)->Slice(off, n - off));
      ASSERT_TRUE(dr.ok()) << dr.status().ToString();
      ASSERT_TRUE(pr.ok()) << pr.status().ToString();
      EXPECT_TRUE((*dr)->Validate().ok());
      EXPECT_EQ(Render(**dr), Render(**pr)) << "offset " << off;
    }
  }
}


// Long and deep inputs (issue 15): chains of one operator are flat or walked in loops and
// answer at any length; nesting beyond kMaxNestingDepth is refused with a clear error; nothing
// overflows the stack. Each case runs on a thread with a 1 MiB stack, an eighth of the main
// thread's, so that a recursion that grows with the input fails here first.
namespace long_inputs {

template <typename F>
void OnSmallStack(F&& f) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, size_t{1} << 20), 0);
  struct Call {
    static void* Run(void* p) {
      (*static_cast<F*>(p))();
      return nullptr;
    }
  };
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, &attr, &Call::Run, &f), 0);
  ASSERT_EQ(pthread_join(t, nullptr), 0);
  pthread_attr_destroy(&attr);
}

std::string Repeat(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string Join(int n, std::string_view sep, const std::function<std::string(int)>& term) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? std::string(sep) : "") + term(i);
  return out;
}

RecordBatchPtr Ids(int n) {
  std::string rows;
  for (int i = 0; i < n; ++i) rows += fmt::format("{{\"id\":{},\"s\":\"v{}\",\"f\":{}}}\n", i, i % 7, i * 0.5);
  auto r = ReadJsonLines(rows, schema({field("id", int64()), field("s", utf8()), field("f", float64())}));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

// `text` over Ids(n): the number of rows it is true for, or "error: ...".
std::string CountOn(const RecordBatchPtr& batch, const std::string& text) {
  auto e = Expression::MakePredicate(text, batch->schema());
  if (!e.ok()) return "error: " + e.status().message();
  auto r = (*e)->Evaluate(*batch);
  if (!r.ok()) return "error: " + r.status().message();
  return std::to_string(CountTrue(**r));
}

TEST(ExprLongInputs, LongOrOfEqualitiesAnswers) {
  const RecordBatchPtr batch = Ids(1000);
  OnSmallStack([&] {
    // 8000 equalities on one column (the issue's filter): one IN test; all 1000 ids match.
    EXPECT_EQ(CountOn(batch, Join(8000, " OR ", [](int i) { return fmt::format("id={}", i); })), "1000");
    // Every third id, written backwards, mixed with another column's tests and a range.
    EXPECT_EQ(CountOn(batch, Join(3000, " OR ", [](int i) {
                        return fmt::format("{} = id", 2997 - 3 * (i % 1000));
                      }) + " OR s = 'v1' OR s = 'v2' OR id > 990"),
              "530");
    // Strings and floats too, and under NOT.
    EXPECT_EQ(CountOn(batch, Join(5000, " OR ", [](int i) { return fmt::format("s = 'v{}'", i % 3); })),
              std::to_string(143 + 143 + 143));
    EXPECT_EQ(CountOn(batch, Join(4000, " OR ", [](int i) { return fmt::format("f = {}.5", i); })), "500");
    EXPECT_EQ(CountOn(batch, "NOT (" + Join(8000, " OR ", [](int i) { return fmt::format("id={}", i + 10); }) + ")"),
              "10");
  });
}

TEST(ExprLongInputs, OrOfEqualitiesKeepsThreeValuedLogic) {
  // x = 1 OR x = 2 as IN: null rows stay null (NOT of them stays null), other operands keep
  // their place, a NULL literal operand keeps the whole OR from being FALSE.
  EXPECT_EQ(Eval("i32 = 10 OR i32 = 30 OR i32 = 99"), "[true,null,true,false,false]");
  EXPECT_EQ(Eval("NOT (i32 = 10 OR i32 = 30 OR i32 = 99)"), "[false,null,false,true,true]");
  EXPECT_EQ(Eval("i32 = 10 OR i32 = 30 OR NULL"), "[true,null,true,null,null]");
  EXPECT_EQ(Eval("s = 'apple' OR s = '' OR b"), "[true,false,null,true,true]");
  EXPECT_EQ(Eval("st.a = 1 OR st.a = 4 OR 5 = st.a"), "[true,null,null,true,true]");
  EXPECT_EQ(Eval("d = '2024-01-01' OR d = DATE '2022-01-08'"), "[true,false,null,true,true]");
  EXPECT_EQ(Eval("f = 1.5 OR f = 'NaN' OR f = 0"), "[true,true,null,true,false]");
}

TEST(ExprLongInputs, LongAndChainAnswers) {
  const RecordBatchPtr batch = Ids(1000);
  OnSmallStack([&] {
    EXPECT_EQ(CountOn(batch, Join(10000, " AND ", [](int i) { return fmt::format("id >= {}", i % 3); })), "998");
    auto parts = Expression::MakeConjuncts(
        Join(2000, " AND ", [](int i) { return fmt::format("id <> {}", i); }), batch->schema());
    ASSERT_TRUE(parts.ok()) << parts.status().ToString();
    EXPECT_EQ(parts->size(), 2000u);
  });
}

TEST(ExprLongInputs, LongArithmeticChainsAnswer) {
  const RecordBatchPtr batch = Ids(1000);
  OnSmallStack([&] {
    // 10000 '+' terms (lance 12 itself overflows its stack at 1000).
    EXPECT_EQ(CountOn(batch, "id" + Repeat(" + 1", 10000) + " > 10005"), "994");
    EXPECT_EQ(CountOn(batch, "id" + Repeat(" - 1 + 2", 5000) + " = 5000"), "1");
    EXPECT_EQ(CountOn(batch, "f" + Repeat(" * 1", 10000) + Repeat(" / 1", 10000) + " < 1"), "2");
    auto tree = Parse("a" + Repeat(" + b", 20000));
    ASSERT_TRUE(tree.ok());
    const std::string text = ToString(**tree);
    EXPECT_EQ(text.substr(0, 3), "(((");
    EXPECT_EQ(text.substr(text.size() - 10), " + b) + b)");
    // A value expression too.
    auto e = Expression::Make("id" + Repeat(" + id", 9999), batch->schema());
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    auto r = (*e)->Evaluate(*batch);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(Render(*(*r)->Slice(999, 1)), "[9990000]");
  });
}

TEST(ExprLongInputs, DeepNestingIsRefusedCleanly) {
  const RecordBatchPtr batch = Ids(10);
  OnSmallStack([&] {
    const int limit = kMaxNestingDepth;
    // Up to the limit it answers; beyond, a syntax error that says why; 5000 and 100000 deep
    // the same (lance 12 refuses ~50 nested parentheses with "recursion limit exceeded").
    EXPECT_EQ(CountOn(batch, Repeat("(", limit - 1) + "id = 1" + Repeat(")", limit - 1)), "1");
    for (int depth : {limit, 5000, 100000}) {
      const std::string r = CountOn(batch, Repeat("(", depth) + "id = 1" + Repeat(")", depth));
      EXPECT_NE(r.find("nested more than 256 levels deep"), std::string::npos) << depth << ": " << r;
      EXPECT_NE(r.find("syntax error at position"), std::string::npos) << r;
    }
    for (const std::string& deep :
         {Repeat("NOT ", 5000) + "id = 1", "id = " + Repeat("-", 5000) + "1",
          "id = " + Repeat("+", 5000) + "1", Repeat("abs(", 5000) + "id" + Repeat(")", 5000),
          Repeat("CAST(", 5000) + "id" + Repeat(" AS int)", 5000),
          "id IN " + Repeat("(", 5000) + "1" + Repeat(")", 5000),
          Repeat("coalesce(1, ", 5000) + "id" + Repeat(")", 5000)}) {
      const std::string r = CountOn(batch, deep);
      EXPECT_NE(r.find("nested more than"), std::string::npos) << deep.substr(0, 40) << ": " << r;
    }
    // NOT chains within the limit keep their meaning.
    EXPECT_EQ(CountOn(batch, Repeat("NOT ", 100) + "id = 1"), "1");
    EXPECT_EQ(CountOn(batch, Repeat("NOT ", 101) + "id = 1"), "9");
    // Unbalanced deep input: an error, not a crash.
    EXPECT_NE(CountOn(batch, Repeat("(", 100000)).find("error"), std::string::npos);
    EXPECT_NE(CountOn(batch, Repeat(")", 100000)).find("syntax error"), std::string::npos);
  });
}

}  // namespace long_inputs

}  // namespace
}  // namespace lance::expr
