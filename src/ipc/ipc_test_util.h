// Test helpers shared by the IPC tests: arrays from JSON, a batch holding every type, and
// round trips through the writers and readers.
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "lance/columnar/builder.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"

namespace lance::ipc::testing {

inline ArrayPtr J(DataTypePtr type, std::string_view json) {
  auto r = ArrayFromJSON(std::move(type), json);
  if (!r.ok()) ADD_FAILURE() << r.status().ToString() << " for " << json;
  return r.ok() ? *r : nullptr;
}

// Dictionary array with the given indices (-1 = null) into `values`.
inline ArrayPtr Dict(const std::vector<int32_t>& indices, ArrayPtr values,
                     DataTypePtr index_type = int32()) {
  BufferBuilder idx;
  BufferBuilder valid;
  const auto n = static_cast<int64_t>(indices.size());
  EXPECT_TRUE(valid.AppendZeros(bit_util::BytesForBits(n)).ok());
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = indices[static_cast<size_t>(i)];
    if (v >= 0) bit_util::SetBit(valid.mutable_data(), i);
    const int32_t stored = v < 0 ? 0 : v;
    switch (index_type->bit_width()) {
      case 8:
        EXPECT_TRUE(idx.AppendValue(static_cast<int8_t>(stored)).ok());
        break;
      case 16:
        EXPECT_TRUE(idx.AppendValue(static_cast<int16_t>(stored)).ok());
        break;
      case 64:
        EXPECT_TRUE(idx.AppendValue(static_cast<int64_t>(stored)).ok());
        break;
      default:
        EXPECT_TRUE(idx.AppendValue(stored).ok());
    }
  }
  auto type = dictionary(index_type, values->type);
  return Array::Make(type, n, {*valid.Finish(), *idx.Finish()}, {}, 0, std::move(values));
}

// Five rows, one column of every supported type, each with nulls where the type allows.
inline RecordBatchPtr EveryTypeBatch() {
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  auto add = [&](std::string name, DataTypePtr type, std::string_view json) {
    columns.push_back(J(type, json));
    fields.push_back(field(std::move(name), std::move(type)));
  };
  add("null", null(), "[null, null, null, null, null]");
  add("bool", boolean(), "[true, null, false, true, false]");
  add("i8", int8(), "[1, null, -128, 127, 0]");
  add("i16", int16(), "[1, null, -32768, 32767, 0]");
  add("i32", int32(), "[1, null, -2147483648, 2147483647, 0]");
  add("i64", int64(), "[1, null, -9223372036854775808, 9223372036854775807, 0]");
  add("u8", uint8(), "[1, null, 255, 0, 7]");
  add("u16", uint16(), "[1, null, 65535, 0, 7]");
  add("u32", uint32(), "[1, null, 4294967295, 0, 7]");
  add("u64", uint64(), "[1, null, 18446744073709551615, 0, 7]");
  add("f16", float16(), "[1.5, null, -2.0, 0.25, 65504.0]");
  add("f32", float32(), "[1.5, null, -2.0, 3.25, \"NaN\"]");
  add("f64", float64(), "[1.5, null, -1e300, \"Infinity\", 0.1]");
  add("utf8", utf8(), R"(["a", null, "h\u00e9llo", "", "zz"])");
  add("large_utf8", large_utf8(), R"(["", "b", null, "longer string", "z"])");
  add("binary", binary(), R"(["AAE=", null, "", "/w==", "YWJj"])");
  add("large_binary", large_binary(), R"([null, "AAE=", "", "/w==", "YWJj"])");
  add("fsb", fixed_size_binary(3), R"(["AAEC", null, "YWJj", "YWJj", "AAAA"])");
  add("date32", date32(), "[0, null, 19000, -1, 1]");
  add("date64", date64(), "[0, null, 86400000, -86400000, 172800000]");
  add("time32s", time32(TimeUnit::kSecond), "[0, null, 86399, 1, 2]");
  add("time32ms", time32(TimeUnit::kMilli), "[0, null, 86399999, 1, 2]");
  add("time64us", time64(TimeUnit::kMicro), "[0, null, 86399999999, 1, 2]");
  add("time64ns", time64(TimeUnit::kNano), "[0, null, 86399999999999, 1, 2]");
  add("ts_utc", timestamp(TimeUnit::kMicro, "UTC"), "[1700000000000000, null, 0, -1, 5]");
  add("ts_naive", timestamp(TimeUnit::kNano), "[1, null, 0, -1, 5]");
  add("ts_tz", timestamp(TimeUnit::kSecond, "+07:30"), "[1, 2, null, -1, 5]");
  add("duration", duration(TimeUnit::kMilli), "[1, null, 0, -1, 5]");
  add("decimal", decimal128(10, 2), R"(["1.23", null, "-99999999.99", "0.00", "5.00"])");
  add("decimal256", decimal256(70, 3),
      R"(["1.234", null, "-9999999999999999999999999999999999999999999999999999999.999", "0.000", "5.000"])");
  add("list", list(int32()), "[[1, 2], null, [], [3], [null, 4]]");
  add("large_list", large_list(utf8()), R"([["a"], [], null, ["b", null, "c"], ["d"]])");
  add("fsl", fixed_size_list(float32(), 2), "[[1, 2], null, [3, 4], [5, null], [0, 0]]");
  add("struct", struct_({field("a", int32()), field("b", utf8(), false)}),
      R"([{"a": 1, "b": "x"}, null, {"a": null, "b": "y"}, {"a": 4, "b": ""}, {"a": 5, "b": "z"}])");
  add("map", map(utf8(), int32()),
      R"([[["a", 1], ["b", null]], null, [], [["c", 3]], [["d", 4], ["e", 5]]])");
  add("list_of_struct", list(struct_({field("x", int64()), field("y", list(boolean()))})),
      R"([[{"x": 1, "y": [true]}], null, [{"x": null, "y": null}, {"x": 2, "y": []}], [], [{"x": 3, "y": [false, null]}]])");
  {
    auto dict = J(utf8(), R"(["red", "green", "blue"])");
    columns.push_back(Dict({0, 1, -1, 0, 2}, dict));
    fields.push_back(field("dict_utf8", columns.back()->type));
  }
  {
    auto dict = J(int64(), "[100, 200]");
    columns.push_back(Dict({1, -1, 0, 0, 1}, dict, int8()));
    fields.push_back(field("dict_i64", columns.back()->type));
  }
  {
    // A dictionary nested inside a struct.
    auto dict = J(utf8(), R"(["p", "q"])");
    auto d = Dict({0, 1, 1, -1, 0}, dict, int16());
    auto s = Array::Make(struct_({field("d", d->type)}), 5, {nullptr}, {d});
    columns.push_back(s);
    fields.push_back(field("struct_dict", s->type));
  }
  auto schema = lance::schema(std::move(fields));
  auto batch = RecordBatch::Make(schema, 5, std::move(columns));
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return *batch;
}

inline std::vector<RecordBatchPtr> ReadAllOrFail(const BufferPtr& data, IpcFormat format,
                                                 SchemaPtr* schema = nullptr) {
  std::vector<RecordBatchPtr> out;
  if (format == IpcFormat::kFile) {
    auto reader = FileReader::Open(data);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return out;
    if (schema) *schema = (*reader)->schema();
    auto all = (*reader)->ReadAll();
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    return all.ok() ? *all : out;
  }
  auto reader = StreamReader::Open(data);
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return out;
  if (schema) *schema = (*reader)->schema();
  auto all = (*reader)->ReadAll();
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  return all.ok() ? *all : out;
}

inline BufferPtr WriteOrFail(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                             IpcFormat format, const IpcWriteOptions& options = {}) {
  auto r = format == IpcFormat::kFile ? WriteFile(schema, batches, options)
                                      : WriteStream(schema, batches, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

}  // namespace lance::ipc::testing
