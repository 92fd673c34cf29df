// CSV rows: RFC 4180 tokenizing, type inference, typed cells with a schema, errors naming the
// line and column, and write -> read round trips for every type.
#include "lance/columnar/csv.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"

namespace lance {
namespace {

std::string Lines(const RecordBatch& batch) {
  std::string out;
  EXPECT_TRUE(AppendJsonLines(batch, &out).ok());
  return out;
}

std::string Csv(const RecordBatch& batch) {
  std::string out;
  EXPECT_TRUE(AppendCsv(batch, true, &out).ok());
  return out;
}

RecordBatchPtr Read(std::string_view text, SchemaPtr s = nullptr) {
  CsvReadOptions o;
  o.schema = std::move(s);
  o.what = "t.csv";
  auto r = ReadCsv(text, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

std::string ReadError(std::string_view text, SchemaPtr s = nullptr) {
  CsvReadOptions o;
  o.schema = std::move(s);
  o.what = "t.csv";
  auto r = ReadCsv(text, o);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().ToString();
}

TEST(CsvReadTest, InfersInt64Float64BoolAndUtf8) {
  auto b = Read("i,f,b,s,e,mixed\n1,1.5,true,x,,1\n-7,2,FALSE,\"y\",,a\n,,,,,\n");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->schema()->Equals(*schema({field("i", int64()), field("f", float64()),
                                           field("b", boolean()), field("s", utf8()),
                                           field("e", utf8()), field("mixed", utf8())})))
      << b->schema()->ToString();
  EXPECT_EQ(Lines(*b),
            "{\"i\":1,\"f\":1.5,\"b\":true,\"s\":\"x\",\"e\":\"\",\"mixed\":\"1\"}\n"
            "{\"i\":-7,\"f\":2.0,\"b\":false,\"s\":\"y\",\"e\":\"\",\"mixed\":\"a\"}\n"
            "{\"i\":null,\"f\":null,\"b\":null,\"s\":\"\",\"e\":\"\",\"mixed\":\"\"}\n");
}

TEST(CsvReadTest, InfersFloatsWithSpecialValues) {
  auto b = Read("x\n1e3\nNaN\n-Infinity\n+2\n");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->schema()->field(0)->type()->id(), TypeId::kDouble);
  EXPECT_EQ(Lines(*b), "{\"x\":1000.0}\n{\"x\":\"NaN\"}\n{\"x\":\"-Infinity\"}\n{\"x\":2.0}\n");
}

// Inference never changes a value: a number beyond int64 / float64 in an otherwise numeric
// column is refused by line and column (it used to turn the column to float64 or read as
// infinity); with a schema, a value beyond the field's type is refused the same way.
TEST(CsvReadTest, NumbersBeyondTheInferredTypeAreRefusedNotRounded) {
  std::string e = ReadError("id,v\n1,5\n2,99999999999999999999\n");
  EXPECT_NE(e.find("t.csv: line 3, column 2 ('v'): '99999999999999999999' is not a valid int64 "
                   "value: beyond int64's range; give the column a type with --schema"),
            std::string::npos)
      << e;
  e = ReadError("v\n1.5\n1e400\n");
  EXPECT_NE(e.find("line 3, column 1 ('v'): '1e400' is not a valid double value: beyond "
                   "float64's range"),
            std::string::npos)
      << e;
  e = ReadError("v\n-1e400\n", schema({field("v", float64())}));
  EXPECT_NE(e.find("line 2, column 1 ('v'): '-1e400' is not a valid double value: beyond the "
                   "type's range"),
            std::string::npos)
      << e;
  e = ReadError("v\n1e39\n", schema({field("v", float32())}));
  EXPECT_NE(e.find("'1e39' is not a valid float value: beyond the type's range"),
            std::string::npos)
      << e;
  e = ReadError("v\n300\n", schema({field("v", int8())}));
  EXPECT_NE(e.find("'300' is not a valid int8 value: beyond the type's range"), std::string::npos)
      << e;
  // Still fine: a tiny number reads as a denormal or zero, text next to a huge number is text,
  // and uint64's maximum reads with a schema that says uint64.
  auto b = Read("v,w\n1e-320,99999999999999999999\n2,abc\n");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->schema()->field(0)->type()->id(), TypeId::kDouble);
  EXPECT_EQ(b->schema()->field(1)->type()->id(), TypeId::kString);
  b = Read("v\n18446744073709551615\n", schema({field("v", uint64())}));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Lines(*b), "{\"v\":18446744073709551615}\n");
}

// ISO 8601 text infers as a temporal type when every value is one: dates as date32,
// date-times as timestamp[us] (UTC when a value carries an offset), nanosecond fractions
// as timestamp[ns]; anything else in the column keeps it utf8.
TEST(CsvReadTest, InfersDatesAndTimestamps) {
  auto b = Read("d,t,tz,ns,mixed\n2024-01-02,2024-01-02T03:04:05,2024-01-02T03:04:05Z,"
                "2024-01-02T03:04:05.123456789,2024-01-02\n"
                ",2024-01-03 00:00:00.5,2024-01-03T01:00:00+01:00,2024-01-02T00:00:00,soon\n");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->schema()->Equals(*schema(
      {field("d", date32()), field("t", timestamp(TimeUnit::kMicro)),
       field("tz", timestamp(TimeUnit::kMicro, "UTC")), field("ns", timestamp(TimeUnit::kNano)),
       field("mixed", utf8())})))
      << b->schema()->ToString();
  const int64_t* tz = b->column(2)->Values<int64_t>();
  EXPECT_EQ(tz[0], 1704164645000000);  // 2024-01-02T03:04:05Z
  EXPECT_EQ(tz[1], 1704240000000000);  // 2024-01-03T00:00:00Z
  EXPECT_EQ(b->column(1)->Values<int64_t>()[1], 1704240000500000);
  EXPECT_TRUE(b->column(0)->IsNull(1));
}

TEST(CsvReadTest, Rfc4180Quoting) {
  // CRLF records, quoted commas, doubled quotes, a line break inside a quoted field, a BOM,
  // no final line break.
  auto b = Read("\xEF\xBB\xBF\"na,me\",v\r\n\"a \"\"q\"\", b\",1\r\n\"two\nlines\",2\r\n\"\",3");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->schema()->field(0)->name(), "na,me");
  EXPECT_EQ(Lines(*b),
            "{\"na,me\":\"a \\\"q\\\", b\",\"v\":1}\n"
            "{\"na,me\":\"two\\nlines\",\"v\":2}\n"
            "{\"na,me\":\"\",\"v\":3}\n");
}

TEST(CsvReadTest, BlankLinesSkippedExceptInOneColumnFiles) {
  auto two = Read("a,b\n\n1,2\n\n\n3,4\n\n");
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->num_rows(), 2);
  auto one = Read("a\n1\n\n3\n");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(Lines(*one), "{\"a\":1}\n{\"a\":null}\n{\"a\":3}\n");
  auto header_only = Read("a,b\n");
  ASSERT_NE(header_only, nullptr);
  EXPECT_EQ(header_only->num_rows(), 0);
  EXPECT_EQ(header_only->schema()->num_fields(), 2);
}

TEST(CsvReadTest, SchemaOrdersColumnsAndTypesCells) {
  auto s = schema({field("id", int32(), false), field("name", utf8()), field("u", uint64()),
                   field("h", float16()), field("f", float32()), field("bin", binary()),
                   field("d", date32()), field("ts", timestamp(TimeUnit::kMicro, "UTC")),
                   field("dec", decimal128(10, 2)), field("l", list(int64())),
                   field("st", struct_({field("x", int8()), field("y", utf8())})),
                   field("dict", dictionary(int8(), utf8()))});
  const std::string text =
      "name,id,u,h,f,bin,d,ts,dec,l,st,dict\n"
      "alice,1,18446744073709551615,1.5,0.1,AAEC,19000,1700000000000000,-12.3,\"[1,null,3]\","
      "\"{\"\"x\"\":1,\"\"y\"\":\"\"q\"\"}\",red\n"
      "\"\",2,,,,\"\",,,,,,\n";
  auto b = Read(text, s);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Lines(*b),
            "{\"id\":1,\"name\":\"alice\",\"u\":18446744073709551615,\"h\":1.5,\"f\":0.1,"
            "\"bin\":\"AAEC\",\"d\":19000,\"ts\":1700000000000000,\"dec\":\"-12.30\","
            "\"l\":[1,null,3],\"st\":{\"x\":1,\"y\":\"q\"},\"dict\":\"red\"}\n"
            "{\"id\":2,\"name\":\"\",\"u\":null,\"h\":null,\"f\":null,\"bin\":\"\",\"d\":null,"
            "\"ts\":null,\"dec\":null,\"l\":null,\"st\":null,\"dict\":null}\n");
  EXPECT_TRUE(b->ValidateFull().ok());
}

// A piece of a larger file, read with the header repeated before it: line_offset makes every
// error after the header name the whole file's line (the header keeps line 1).
TEST(CsvReadTest, LineOffsetNumbersAPieceAsTheWholeFile) {
  CsvReadOptions o;
  o.what = "t.csv";
  o.line_offset = 100;
  auto err = [&](std::string_view text, SchemaPtr s = nullptr) {
    o.schema = std::move(s);
    auto r = ReadCsv(text, o);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().ToString();
  };
  EXPECT_NE(err("a,b\n1,2\n3\n").find("t.csv: line 103: expected 2 fields"), std::string::npos);
  EXPECT_NE(err("a,b\n1,\"open\n\n").find("t.csv: line 102, column 2: quoted field is never closed"),
            std::string::npos);
  EXPECT_NE(err("a,b\n\n1,x\"y\n").find("line 103, column 2: '\"' inside an unquoted field"),
            std::string::npos);
  EXPECT_NE(err("a,a\n1,2\n").find("line 1: column 2 repeats the header name 'a'"), std::string::npos);
  EXPECT_NE(err("id,v\n1,\"x\ny\"\nq,2\n", schema({field("id", int32()), field("v", utf8())}))
                .find("line 104, column 1 ('id'): 'q' is not a valid int32 value"),
            std::string::npos);
  o.schema = nullptr;
  auto ok = ReadCsv("a\n1\n2\n", o);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)->num_rows(), 2);
}

TEST(CsvReadTest, ErrorsNameFileLineAndColumn) {
  EXPECT_NE(ReadError("a,b\n1,2\n3\n").find("t.csv: line 3: expected 2 fields (as the header), found 1"),
            std::string::npos);
  EXPECT_NE(ReadError("a,b\n1,\"open\n\n").find("t.csv: line 2, column 2: quoted field is never closed"),
            std::string::npos);
  EXPECT_NE(ReadError("a,b\n1,\"x\"y\n").find("line 2, column 2: unexpected 'y' after the closing quote"),
            std::string::npos);
  EXPECT_NE(ReadError("a,b\n1,x\"y\n").find("line 2, column 2: '\"' inside an unquoted field"),
            std::string::npos);
  EXPECT_NE(ReadError("a,a\n1,2\n").find("line 1: column 2 repeats the header name 'a'"),
            std::string::npos);
  EXPECT_NE(ReadError("").find("t.csv: no header row"), std::string::npos);
  auto s = schema({field("id", int8()), field("l", list(int32()))});
  // The record starting on line 2 spans two lines; the error points at line 4's record.
  const std::string e = ReadError("id,l\n1,\"[1,\n2]\"\n300,[]\n", s);
  EXPECT_NE(e.find("t.csv: line 4, column 1 ('id'): '300' is not a valid int8 value"), std::string::npos)
      << e;
  const std::string e2 = ReadError("l,id\n\"[1,\"\"x\"\"]\",1\n", s);
  EXPECT_NE(e2.find("t.csv: line 2, column 1 ('l'): '[1,\"x\"]' is not a valid list<"), std::string::npos)
      << e2;
  EXPECT_NE(ReadError("id,l,z\n1,[],2\n", s).find("line 1, column 3: header name 'z' is not a field"),
            std::string::npos);
  EXPECT_NE(ReadError("id\n1\n", s).find("schema field 'l' has no column in the header row"),
            std::string::npos);
  auto not_null = schema({field("id", int64(), false)});
  EXPECT_NE(ReadError("id\n1\n\n", not_null).find("line 3, column 1 ('id'): empty field, but the field is not nullable"),
            std::string::npos);
  EXPECT_NE(ReadError("s\n\xff\n", schema({field("s", utf8())})).find("not valid UTF-8"),
            std::string::npos);
}

TEST(CsvWriteTest, QuotesOnlyWhatMustBeQuoted) {
  auto s = schema({field("s", utf8()), field("i", int64()), field("b", binary()),
                   field("f", float64()), field("l", list(int32()))});
  auto batch = RecordBatchFromJSON(
      s, R"([{"s":"plain","i":1,"b":"AAEC","f":"NaN","l":[1,2]},
             {"s":"a,\"b\"\nc","i":null,"b":"","f":0.5,"l":[]},
             {"s":"","i":-3,"b":null,"f":null,"l":null},
             {"s":null,"i":0,"b":"Zg==","f":1e300,"l":[null]}])");
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_EQ(Csv(**batch),
            "s,i,b,f,l\n"
            "plain,1,AAEC,NaN,\"[1,2]\"\n"
            "\"a,\"\"b\"\"\nc\",,\"\",0.5,[]\n"
            "\"\",-3,,,\n"
            ",0,Zg==,1e300,[null]\n");
}

TEST(CsvRoundTripTest, EveryTypeReadsBackEqual) {
  auto s = schema({field("b", boolean()), field("i8", int8()), field("u32", uint32()),
                   field("i64", int64()), field("h", float16()), field("f", float32()),
                   field("d", float64()), field("s", large_utf8()), field("lb", large_binary()),
                   field("fb", fixed_size_binary(2)), field("d32", date32()),
                   field("t64", time64(TimeUnit::kNano)), field("dur", duration(TimeUnit::kMilli)),
                   field("dec", decimal128(20, 3)), field("fl", fixed_size_list(int16(), 2)),
                   field("m", map(utf8(), float64())),
                   field("ll", large_list(struct_({field("k", utf8()), field("v", list(boolean()))})))});
  std::mt19937_64 rng(7);
  std::string json = "[";
  const char* strings[] = {"x", "comma,here", "quote\\\"d", "new\\nline", "crlf\\r\\n", "caf\\u00e9", ""};
  for (int r = 0; r < 200; ++r) {
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    auto maybe = [&](const std::string& v) { return pick(5) == 0 ? std::string("null") : v; };
    if (r > 0) json += ",";
    json += "{\"b\":" + maybe(pick(2) ? "true" : "false");
    json += ",\"i8\":" + maybe(std::to_string(pick(256) - 128));
    json += ",\"u32\":" + maybe(std::to_string(rng() % 4294967296ull));
    json += ",\"i64\":" + maybe(std::to_string(static_cast<int64_t>(rng())));
    json += ",\"h\":" + maybe(std::to_string(pick(2000) - 1000) + ".5");
    json += ",\"f\":" + maybe(pick(10) == 0 ? "\"-Infinity\"" : std::to_string(pick(100000)) + ".25");
    json += ",\"d\":" + maybe(pick(10) == 0 ? "\"NaN\"" : std::to_string(static_cast<double>(rng() % 1000000) / 7.0));
    json += ",\"s\":" + maybe(std::string("\"") + strings[pick(7)] + "\"");
    json += ",\"lb\":" + maybe(pick(3) == 0 ? "\"\"" : "\"AAEC/w==\"");
    json += ",\"fb\":" + maybe("\"AAE=\"");
    json += ",\"d32\":" + maybe(std::to_string(pick(40000) - 20000));
    json += ",\"t64\":" + maybe(std::to_string(rng() % 86400000000000ull));
    json += ",\"dur\":" + maybe(std::to_string(static_cast<int64_t>(rng() % 1000000) - 500000));
    json += ",\"dec\":" + maybe("\"" + std::to_string(pick(1000000) - 500000) + ".125\"");
    json += ",\"fl\":" + maybe("[" + std::to_string(pick(100)) + ",null]");
    json += ",\"m\":" + maybe(pick(2) ? "[]" : "[[\"a,\\\"b\",1.5],[\"c\",null]]");
    json += ",\"ll\":" + maybe(pick(2) ? "[]" : "[{\"k\":\"q\\\"\\n\",\"v\":[true,null]},null]");
    json += "}";
  }
  json += "]";
  auto batch = RecordBatchFromJSON(s, json);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  const std::string text = Csv(**batch);
  auto back = Read(text, s);
  ASSERT_NE(back, nullptr);
  // CSV cannot carry a null string: those read back as "".
  std::string expected = Lines(**batch);
  std::string::size_type p = 0;
  while ((p = expected.find("\"s\":null", p)) != std::string::npos) expected.replace(p, 8, "\"s\":\"\"");
  EXPECT_EQ(Lines(*back), expected);
}

TEST(CsvRoundTripTest, LeadingByteOrderMarkInAValueIsQuoted) {
  // Found by csv_fuzz: a header name starting with the BOM bytes was written first in the text
  // and read back as the file's BOM.
  auto b = Read("\n\xEF\xBB\xBF\nZ\n\xEF\xBB\xBFq\n");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->schema()->field(0)->name(), "\xEF\xBB\xBF");
  const std::string text = Csv(*b);
  EXPECT_EQ(text, "\"\xEF\xBB\xBF\"\nZ\n\"\xEF\xBB\xBFq\"\n");
  auto again = Read(text, b->schema());
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->Equals(*b));
}

TEST(CsvRoundTripTest, InferredSchemaReadsItsOwnOutput) {
  auto b = Read("id,score,ok,name\n1,0.5,true,\"a,b\"\n2,,false,\n,3e-7,,z\n");
  ASSERT_NE(b, nullptr);
  auto again = Read(Csv(*b));
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->Equals(*b));
}


RecordBatchPtr ReadWith(std::string_view text, char delimiter, SchemaPtr s = nullptr) {
  CsvReadOptions o;
  o.schema = std::move(s);
  o.what = "t.tsv";
  o.delimiter = delimiter;
  auto r = ReadCsv(text, o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

TEST(CsvDelimiterTest, TabAndSemicolonSeparateFieldsAndCommasAreText) {
  auto b = ReadWith("a\tb\ts\n1\t2.5\tx,y\n\"3\"\t\t\"q\tz\"\n", '\t');
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Lines(*b),
            "{\"a\":1,\"b\":2.5,\"s\":\"x,y\"}\n"
            "{\"a\":3,\"b\":null,\"s\":\"q\\tz\"}\n");
  auto c = ReadWith("a;s\n1;\"p;q\"\n", ';');
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Lines(*c), "{\"a\":1,\"s\":\"p;q\"}\n");
  // The same text with ',' is one column per line.
  auto one = Read("a\tb\n1\t2\n");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->num_columns(), 1);
}

TEST(CsvDelimiterTest, WriteQuotesTheDelimiterAndReadsBack) {
  auto s = schema({field("s", utf8()), field("i", int32()), field("l", list(int32()))});
  auto b = Read("s,i,l\n\"tab\there, comma\",1,\"[1,2]\"\n\"\",,\n", s);
  ASSERT_NE(b, nullptr);
  std::string tsv;
  ASSERT_TRUE(AppendCsv(*b, true, &tsv, '\t').ok());
  EXPECT_EQ(tsv, "s\ti\tl\n\"tab\there, comma\"\t1\t[1,2]\n\"\"\t\t\n");
  auto back = ReadWith(tsv, '\t', s);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(Lines(*back), Lines(*b));
}

TEST(CsvDelimiterTest, ImpossibleDelimitersAreRefused) {
  for (char d : {'"', '\n', '\r'}) {
    CsvReadOptions o;
    o.what = "t.csv";
    o.delimiter = d;
    auto r = ReadCsv("a\n1\n", o);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().ToString().find("t.csv: a CSV delimiter cannot be"), std::string::npos)
        << r.status().ToString();
    std::string out;
    EXPECT_FALSE(AppendCsv(*Read("a\n1\n"), true, &out, d).ok());
  }
}

TEST(CsvTemporalTest, IsoDatesTimesAndTimestampsOrIntegers) {
  auto s = schema({field("d", date32()), field("d64", date64()), field("t", time32(TimeUnit::kMilli)),
                   field("t64", time64(TimeUnit::kNano)), field("ts", timestamp(TimeUnit::kMicro)),
                   field("tz", timestamp(TimeUnit::kSecond, "UTC")),
                   field("tzms", timestamp(TimeUnit::kMilli, "America/New_York"))});
  const std::string text =
      "d,d64,t,t64,ts,tz,tzms\n"
      "1970-01-01,1970-01-02,00:00:01.5,23:59:59.123456789,2024-02-29T12:34:56.789012,"
      "2024-01-01T00:00:00Z,2024-01-01 05:00:00.25+05:00\n"
      "2000-03-01,1969-12-31,12:00,00:00:00,1969-12-31 23:59:59,2024-01-01T01:00:00-0130,"
      "2024-01-01\n"
      "0001-01-01,86400000,1000,5,1700000000000000,1700000000,1700000000000\n"
      "9999-12-31,,,,,2024-06-30T12:00+02,\n";
  auto b = Read(text, s);
  ASSERT_NE(b, nullptr);
  // 2024-02-29 = day 19782; 2000-03-01 = 11017; 0001-01-01 = -719162; 9999-12-31 = 2932896.
  EXPECT_EQ(Lines(*b),
            "{\"d\":0,\"d64\":86400000,\"t\":1500,\"t64\":86399123456789,"
            "\"ts\":1709210096789012,\"tz\":1704067200,\"tzms\":1704067200250}\n"
            "{\"d\":11017,\"d64\":-86400000,\"t\":43200000,\"t64\":0,\"ts\":-1000000,"
            "\"tz\":1704076200,\"tzms\":1704067200000}\n"
            "{\"d\":-719162,\"d64\":86400000,\"t\":1000,\"t64\":5,\"ts\":1700000000000000,"
            "\"tz\":1700000000,\"tzms\":1700000000000}\n"
            "{\"d\":2932896,\"d64\":null,\"t\":null,\"t64\":null,\"ts\":null,"
            "\"tz\":1719741600,\"tzms\":null}\n");
  EXPECT_TRUE(b->ValidateFull().ok());
}

TEST(CsvTemporalTest, BadTemporalTextNamesLineColumnAndWhy) {
  auto s = schema({field("d", date32()), field("t", time32(TimeUnit::kSecond)),
                   field("ts", timestamp(TimeUnit::kMilli))});
  auto err = [&](const std::string& row) { return ReadError("d,t,ts\n" + row + "\n", s); };
  std::string e = err("2023-02-29,,");
  EXPECT_NE(e.find("line 2, column 1 ('d'): '2023-02-29' is not a valid date32[day] value: 2023-02-29 "
                   "is not a calendar date"),
            std::string::npos)
      << e;
  e = err("2023-13-01,,");
  EXPECT_NE(e.find("not a calendar date"), std::string::npos) << e;
  e = err("2023/01/01,,");
  EXPECT_NE(e.find("expected an integer or an ISO 8601 date YYYY-MM-DD"), std::string::npos) << e;
  e = err(",12:00:00.5,");
  EXPECT_NE(e.find("column 2 ('t'): '12:00:00.5' is not a valid time32[s] value: the fraction of a "
                   "second is finer than the type's unit (s)"),
            std::string::npos)
      << e;
  e = err(",24:00:00,");
  EXPECT_NE(e.find("24:00:00 is not a time of day"), std::string::npos) << e;
  e = err(",,2024-01-01T00:00:00Z");
  EXPECT_NE(e.find("column 3 ('ts'): '2024-01-01T00:00:00Z' is not a valid timestamp[ms] value: the "
                   "text has a UTC offset, but the column is a timestamp without time zone"),
            std::string::npos)
      << e;
  e = err(",,2024-01-01T00:00:00.1234");
  EXPECT_NE(e.find("finer than the type's unit (ms)"), std::string::npos) << e;
  e = err(",,2024-01-01x");
  EXPECT_NE(e.find("unexpected 'x' at character 11"), std::string::npos) << e;
  // Out of int32 range for a date32 given as a date (year 9999 fits; a huge integer does not).
  e = err("99999999999,,");
  EXPECT_NE(e.find("is not a valid date32[day] value"), std::string::npos) << e;
  // Nanosecond timestamps hold about 1677..2262 only.
  auto ns = schema({field("ts", timestamp(TimeUnit::kNano))});
  e = ReadError("ts\n2300-01-01\n", ns);
  EXPECT_NE(e.find("out of the type's range"), std::string::npos) << e;
}

}  // namespace
}  // namespace lance
