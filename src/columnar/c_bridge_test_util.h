// Fixtures of the C Data Interface tests (c_bridge_test.cc, c_bridge_ownership_test.cc,
// c_bridge_stream_test.cc): hand-built arrays with chosen buffers, round trips through the C
// structs with the same-memory check, the every-type cases, a sample batch, a hand-built
// producer schema that counts its releases.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "lance/columnar/builder.h"
#include "lance/columnar/c_bridge.h"
#include "lance/columnar/json.h"

namespace lance::c_bridge_test {

// ---- Hand-built arrays ---------------------------------------------------------------------

inline BufferPtr Bytes(const void* data, size_t n) {
  auto r = CopyBuffer(std::string_view(static_cast<const char*>(data), n));
  EXPECT_TRUE(r.ok());
  return *r;
}

template <typename T>
inline BufferPtr Values(const std::vector<T>& v) {
  return Bytes(v.data(), v.size() * sizeof(T));
}

inline BufferPtr Bitmap(const std::vector<bool>& bits) {
  std::vector<uint8_t> bytes(static_cast<size_t>(bit_util::BytesForBits(static_cast<int64_t>(bits.size()))), 0);
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) bit_util::SetBit(bytes.data(), static_cast<int64_t>(i));
  }
  return Bytes(bytes.data(), bytes.size());
}

// A validity bitmap, or null when `valid` is empty (all valid).
inline BufferPtr Validity(const std::vector<bool>& valid) { return valid.empty() ? nullptr : Bitmap(valid); }

template <typename T>
inline ArrayPtr Primitive(DataTypePtr type, const std::vector<T>& values, const std::vector<bool>& valid = {}) {
  return Array::Make(std::move(type), static_cast<int64_t>(values.size()),
                     {Validity(valid), Values(values)});
}

inline ArrayPtr Bools(const std::vector<bool>& values, const std::vector<bool>& valid = {}) {
  return Array::Make(boolean(), static_cast<int64_t>(values.size()), {Validity(valid), Bitmap(values)});
}

// utf8/binary (32-bit offsets) or their large variants; nullopt is a null.
inline ArrayPtr Strings(DataTypePtr type, const std::vector<std::optional<std::string>>& values) {
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

inline ArrayPtr ListOf(DataTypePtr type, const std::vector<int64_t>& offsets, ArrayPtr child,
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

inline ArrayPtr StructOf(DataTypePtr type, int64_t length, std::vector<ArrayPtr> children,
                  const std::vector<bool>& valid = {}) {
  return Array::Make(std::move(type), length, {Validity(valid)}, std::move(children));
}

// ---- Comparison ----------------------------------------------------------------------------

// Zero-copy round trips give back the very same memory: every buffer pointer must match (a
// null validity may come back null), recursively, on top of logical equality.
inline void ExpectSameMemory(const Array& a, const Array& b, const std::string& where = "root") {
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

inline ArrayPtr RoundTrip(const ArrayPtr& array) {
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

inline void ExpectRoundTrip(const ArrayPtr& array) {
  SCOPED_TRACE(array->type->ToString());
  ArrayPtr back = RoundTrip(array);
  ASSERT_NE(back, nullptr);
  ExpectSameMemory(*array, *back);
  EXPECT_TRUE(array->Equals(*back)) << array->ToString() << " vs " << back->ToString();
  ASSERT_TRUE(back->Validate().ok());
}

// Built by the array builders: every type with nulls, empty elements and nesting, round
// tripped at every slice [offset, offset + length) so offsets reach every level of the layout.
inline std::vector<std::pair<DataTypePtr, std::string>> EveryTypeCases() {
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

inline RecordBatchPtr SampleBatch(int64_t base = 0) {
  auto s = schema({field("id", int64(), false), field("name", utf8())},
                  std::make_shared<const KeyValueMetadata>(
                      std::vector<std::pair<std::string, std::string>>{{"k", "v"}}));
  auto ids = Primitive<int64_t>(int64(), {base, base + 1, base + 2});
  auto names = Strings(utf8(), {"a", std::nullopt, "c"});
  auto batch = RecordBatch::Make(s, 3, {ids, names});
  EXPECT_TRUE(batch.ok());
  return *batch;
}

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

}  // namespace lance::c_bridge_test
