// Tests of Validate/ValidateFull, Equals, ToString, MakeArrayOfNulls and Concatenate.
#include <gtest/gtest.h>

#include "lance/columnar/array.h"
#include "lance/columnar/builder.h"

namespace lance {
namespace {

ArrayPtr FromJson(const DataTypePtr& type, std::string_view json) {
  auto r = ArrayFromJSON(type, json);
  EXPECT_TRUE(r.ok()) << type->ToString() << ": " << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

// A copy of `a` with buffer `index` replaced.
ArrayPtr WithBuffer(const ArrayPtr& a, size_t index, BufferPtr buf) {
  auto copy = std::make_shared<Array>(*a);
  copy->buffers[index] = std::move(buf);
  return copy;
}

BufferPtr Int32Buffer(std::vector<int32_t> v) {
  return *CopyBuffer(std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * 4));
}

TEST(ValidateTest, GoodArraysOfEveryTypePass) {
  const std::vector<std::pair<DataTypePtr, std::string>> cases = {
      {int32(), "[1, null, 3]"},
      {boolean(), "[true, null, false]"},
      {utf8(), R"(["a", null, "é"])"},
      {large_binary(), R"(["AAE=", null])"},
      {list(utf8()), R"([["a"], null, []])"},
      {fixed_size_list(int8(), 2), "[[1, 2], null]"},
      {struct_({field("a", int8()), field("b", utf8())}), R"([{"a": 1, "b": "x"}, null])"},
      {map(utf8(), int32()), R"([[["k", 1]], null])"},
      {dictionary(int8(), utf8()), R"(["a", "b", "a", null])"},
  };
  for (const auto& [type, json] : cases) {
    auto a = FromJson(type, json);
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(a->Validate().ok()) << type->ToString();
    EXPECT_TRUE(a->ValidateFull().ok()) << type->ToString();
    auto s = a->Slice(1, a->length - 1);
    EXPECT_TRUE(s->ValidateFull().ok()) << type->ToString();
  }
}

TEST(ValidateTest, TruncatedBuffers) {
  auto a = FromJson(int64(), "[1, 2, 3, 4]");
  auto short_values = WithBuffer(a, 1, SliceBuffer(a->buffers[1], 0, 24));
  EXPECT_TRUE(short_values->Validate().IsCorruption());
  // A slice that runs past the end of the buffers.
  auto past = std::make_shared<Array>(*a);
  past->offset = 2;
  EXPECT_TRUE(past->Validate().IsCorruption());

  auto b = FromJson(boolean(), "[true, false, null, true, true, true, true, true, true]");
  auto short_bits = WithBuffer(b, 1, SliceBuffer(b->buffers[1], 0, 1));
  EXPECT_TRUE(short_bits->Validate().IsCorruption());
  auto short_validity = WithBuffer(b, 0, SliceBuffer(b->buffers[0], 0, 1));
  EXPECT_TRUE(short_validity->Validate().IsCorruption());

  auto wrong_count = std::make_shared<Array>(*a);
  wrong_count->buffers.pop_back();
  EXPECT_TRUE(wrong_count->Validate().IsCorruption());

  auto missing = WithBuffer(a, 1, nullptr);
  EXPECT_TRUE(missing->Validate().IsCorruption());

  auto fsb = FromJson(fixed_size_binary(4), R"(["AAAAAA==", "AQIDBA=="])");
  EXPECT_TRUE(WithBuffer(fsb, 1, SliceBuffer(fsb->buffers[1], 0, 7))->Validate().IsCorruption());
}

TEST(ValidateTest, BadOffsets) {
  auto s = FromJson(utf8(), R"(["ab", "cd", "e"])");
  ASSERT_TRUE(s->ValidateFull().ok());
  // Offsets buffer too short for length + 1 entries.
  EXPECT_TRUE(WithBuffer(s, 1, Int32Buffer({0, 2, 4}))->Validate().IsCorruption());
  // Last offset beyond the data.
  auto beyond = WithBuffer(s, 1, Int32Buffer({0, 2, 4, 9}));
  EXPECT_TRUE(beyond->Validate().IsCorruption());
  // Negative first offset.
  EXPECT_TRUE(WithBuffer(s, 1, Int32Buffer({-1, 2, 4, 5}))->Validate().IsCorruption());
  // Non-monotonic in the middle: only ValidateFull sees it.
  auto zigzag = WithBuffer(s, 1, Int32Buffer({0, 4, 2, 5}));
  EXPECT_TRUE(zigzag->Validate().ok());
  EXPECT_TRUE(zigzag->ValidateFull().IsCorruption());

  auto l = FromJson(list(int32()), "[[1, 2], [3]]");
  auto l_beyond = WithBuffer(l, 1, Int32Buffer({0, 2, 5}));
  Status st = l_beyond->Validate();
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_NE(st.message().find("child length"), std::string::npos) << st.ToString();
}

TEST(ValidateTest, ChildLengths) {
  auto fsl = FromJson(fixed_size_list(int32(), 2), "[[1, 2], [3, 4]]");
  auto short_child = std::make_shared<Array>(*fsl);
  short_child->children[0] = fsl->children[0]->Slice(0, 3);
  EXPECT_TRUE(short_child->Validate().IsCorruption());

  auto st = FromJson(struct_({field("a", int32()), field("b", int32())}),
                     R"([{"a": 1, "b": 2}, {"a": 3, "b": 4}])");
  auto short_field = std::make_shared<Array>(*st);
  short_field->children[1] = st->children[1]->Slice(0, 1);
  Status s = short_field->Validate();
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("'b'"), std::string::npos) << s.ToString();

  auto missing_child = std::make_shared<Array>(*st);
  missing_child->children.pop_back();
  EXPECT_TRUE(missing_child->Validate().IsCorruption());

  // Errors inside a child name the path.
  auto nested = FromJson(struct_({field("inner", utf8())}), R"([{"inner": "abc"}])");
  auto broken = std::make_shared<Array>(*nested);
  broken->children[0] = WithBuffer(nested->children[0], 1, Int32Buffer({0, 7}));
  Status ns = broken->Validate();
  EXPECT_TRUE(ns.IsCorruption());
  EXPECT_NE(ns.message().find("child 'inner'"), std::string::npos) << ns.ToString();

  // A child of the wrong type.
  auto wrong = std::make_shared<Array>(*nested);
  wrong->children[0] = FromJson(int32(), "[1]");
  EXPECT_TRUE(wrong->Validate().IsCorruption());
}

TEST(ValidateTest, DictionaryIndicesOutOfRange) {
  auto d = FromJson(dictionary(int32(), utf8()), R"(["a", "b", null])");
  ASSERT_TRUE(d->ValidateFull().ok());
  auto bad = WithBuffer(d, 1, Int32Buffer({0, 2, 0}));
  EXPECT_TRUE(bad->Validate().ok());
  EXPECT_TRUE(bad->ValidateFull().IsCorruption());
  auto negative = WithBuffer(d, 1, Int32Buffer({-1, 0, 0}));
  EXPECT_TRUE(negative->ValidateFull().IsCorruption());
  // An out-of-range index under a null slot is fine.
  auto under_null = WithBuffer(d, 1, Int32Buffer({0, 1, 99}));
  EXPECT_TRUE(under_null->ValidateFull().ok());
  auto no_dict = std::make_shared<Array>(*d);
  no_dict->dictionary = nullptr;
  EXPECT_TRUE(no_dict->Validate().IsCorruption());
}

TEST(ValidateTest, InvalidUtf8) {
  for (std::string bad : {std::string("\xff"), std::string("a\xc3"), std::string("\xc0\xaf"),
                          std::string("\xed\xa0\x80"), std::string("\xf4\x90\x80\x80")}) {
    StringBuilder b(utf8());
    ASSERT_TRUE(b.Append("fine").ok());
    ASSERT_TRUE(b.Append(bad).ok());
    auto a = *b.Finish();
    EXPECT_TRUE(a->Validate().ok());
    EXPECT_TRUE(a->ValidateFull().IsCorruption());
    // The same bytes are fine as binary.
    auto as_binary = std::make_shared<Array>(*a);
    as_binary->type = binary();
    EXPECT_TRUE(as_binary->ValidateFull().ok());
  }
  auto ok = FromJson(utf8(), R"(["日本語", "emoji 😀", "ascii only and long enough for words"])");
  EXPECT_TRUE(ok->ValidateFull().ok());
}

TEST(ValidateTest, NullCountMismatch) {
  auto a = FromJson(int32(), "[1, null, 3]");
  auto lying = std::make_shared<Array>(*a);
  lying->null_count = 0;
  EXPECT_TRUE(lying->ValidateFull().IsCorruption());
  lying->null_count = 5;
  EXPECT_TRUE(lying->Validate().IsCorruption());
}

TEST(EqualsTest, NullsIgnoreUnderlyingBytes) {
  auto a = FromJson(int32(), "[1, null, 3]");
  // Same logical values, different bytes under the null.
  Int32Builder b(int32());
  ASSERT_TRUE(b.Append(1).ok());
  ASSERT_TRUE(b.Append(42).ok());
  ASSERT_TRUE(b.Append(3).ok());
  auto raw = *b.Finish();
  auto masked = std::make_shared<Array>(*raw);
  masked->buffers[0] = a->buffers[0];
  masked->null_count = 1;
  EXPECT_TRUE(a->Equals(*masked));
  EXPECT_FALSE(a->Equals(*raw));
  EXPECT_FALSE(a->Equals(*FromJson(int32(), "[1, null, 4]")));
  EXPECT_FALSE(a->Equals(*FromJson(int64(), "[1, null, 3]")));
  EXPECT_FALSE(a->Equals(*FromJson(int32(), "[1, null]")));
}

TEST(EqualsTest, SlicesOfEveryLayout) {
  const std::vector<std::pair<DataTypePtr, std::string>> cases = {
      {int16(), "[9, 1, null, 3, 4]"},
      {boolean(), "[false, true, null, true, false]"},
      {utf8(), R"(["z", "a", null, "ccc", ""])"},
      {fixed_size_binary(2), R"(["AAA=", "AQI=", null, "AwQ=", "BQY="])"},
      {decimal128(5, 1), R"(["1.0", "2.5", null, "-3.1", "0.0"])"},
      {list(int32()), "[[0], [1, 2], null, [], [3]]"},
      {large_list(utf8()), R"([["x"], ["a"], null, [], ["b", "c"]])"},
      {fixed_size_list(int32(), 2), "[[0, 0], [1, 2], null, [3, 4], [5, 6]]"},
      {struct_({field("a", int32()), field("b", utf8())}),
       R"([{"a": 0, "b": "q"}, {"a": 1}, null, {"a": 3, "b": "c"}, {"a": 4, "b": "d"}])"},
      {map(utf8(), int32()), R"([[["q", 0]], [["a", 1]], null, [], [["b", 2], ["c", 3]]])"},
      {dictionary(int32(), utf8()), R"(["z", "a", null, "b", "a"])"},
  };
  for (const auto& [type, json] : cases) {
    auto full = FromJson(type, json);
    ASSERT_NE(full, nullptr);
    auto slice = full->Slice(1, 4);
    // The same values built directly, without a slice offset.
    auto rebuilt = Concatenate({slice});
    ASSERT_TRUE(rebuilt.ok()) << type->ToString() << rebuilt.status().ToString();
    EXPECT_EQ((*rebuilt)->offset, 0);
    EXPECT_TRUE(slice->Equals(**rebuilt)) << type->ToString();
    EXPECT_TRUE((*rebuilt)->Equals(*slice)) << type->ToString();
    EXPECT_TRUE((*rebuilt)->ValidateFull().ok()) << type->ToString();
    EXPECT_FALSE(full->Slice(0, 4)->Equals(*slice)) << type->ToString();
    EXPECT_EQ(slice->ToString(), (*rebuilt)->ToString());
  }
}

TEST(EqualsTest, DictionariesCompareDecodedValues) {
  auto a = FromJson(dictionary(int8(), utf8()), R"(["x", "y", "x"])");
  auto dict = FromJson(utf8(), R"(["y", "x", "unused"])");
  auto b = Array::Make(dictionary(int8(), utf8()), 3,
                       {nullptr, *CopyBuffer(std::string("\x01\x00\x01", 3))}, {}, 0, dict);
  ASSERT_TRUE(b->ValidateFull().ok());
  EXPECT_TRUE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*FromJson(dictionary(int8(), utf8()), R"(["x", "y", "y"])")));
}

TEST(EqualsTest, FloatsCompareBitwise) {
  auto nan = FromJson(float64(), R"(["NaN", 0.0])");
  EXPECT_TRUE(nan->Equals(*FromJson(float64(), R"(["NaN", 0.0])")));
  EXPECT_FALSE(nan->Equals(*FromJson(float64(), R"(["NaN", -0.0])")));
}

TEST(ToStringTest, Rendering) {
  EXPECT_EQ(FromJson(utf8(), R"(["a\"b", null])")->ToString(), R"(["a\"b", null])");
  EXPECT_EQ(FromJson(struct_({field("a", int8())}), R"([{"a": 1}])")->ToString(), R"([{"a":1}])");
  EXPECT_EQ(FromJson(int8(), "[]")->ToString(), "[]");
}

TEST(MakeArrayOfNullsTest, EveryType) {
  const std::vector<DataTypePtr> types = {
      null(), boolean(), int8(), uint64(), float16(), float64(), utf8(), large_binary(),
      fixed_size_binary(3), date64(), timestamp(TimeUnit::kNano, "UTC"), decimal128(20, 4),
      list(int8()), large_list(utf8()), fixed_size_list(int16(), 3),
      struct_({field("a", boolean()), field("b", list(utf8()))}), map(int32(), utf8()),
      dictionary(int16(), utf8()), dictionary(int8(), float32())};
  for (const auto& t : types) {
    auto a = MakeArrayOfNulls(t, 5);
    ASSERT_TRUE(a.ok()) << t->ToString();
    EXPECT_TRUE((*a)->ValidateFull().ok()) << t->ToString();
    EXPECT_EQ((*a)->length, 5);
    EXPECT_EQ((*a)->null_count, 5);
    EXPECT_EQ((*a)->ToString(), "[null, null, null, null, null]");
    auto b = MakeBuilder(t);
    if (b.ok()) {
      ASSERT_TRUE((*b)->AppendNulls(5).ok());
      EXPECT_TRUE((*a)->Equals(**(*b)->Finish())) << t->ToString();
    }
    auto e = MakeEmptyArray(t);
    ASSERT_TRUE(e.ok());
    EXPECT_EQ((*e)->length, 0);
    EXPECT_TRUE((*e)->ValidateFull().ok()) << t->ToString();
  }
}

TEST(ConcatenateTest, SlicesNullsAndNesting) {
  auto type = struct_({field("id", int64()), field("tags", list(utf8())),
                       field("m", map(utf8(), float64()))});
  auto a = FromJson(type, R"([{"id": 1, "tags": ["a"], "m": [["k", 1.5]]},
                             {"id": 2, "tags": null},
                             null,
                             {"id": 4, "tags": ["b", "c"], "m": []}])");
  auto b = FromJson(type, R"([{"id": 5, "tags": [], "m": [["x", 2.0], ["y", 3.0]]}])");
  auto r = Concatenate({a->Slice(1, 3), b, a->Slice(0, 1)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE((*r)->ValidateFull().ok());
  auto expected = FromJson(type, R"([{"id": 2, "tags": null},
                                    null,
                                    {"id": 4, "tags": ["b", "c"], "m": []},
                                    {"id": 5, "tags": [], "m": [["x", 2.0], ["y", 3.0]]},
                                    {"id": 1, "tags": ["a"], "m": [["k", 1.5]]}])");
  EXPECT_TRUE((*r)->Equals(*expected)) << (*r)->ToString() << "\n" << expected->ToString();
  // Offsets of the result start at 0.
  EXPECT_EQ((*r)->children[1]->ValueOffset(0), 0);
}

TEST(ConcatenateTest, PrimitivesAndStrings) {
  auto r = Concatenate({FromJson(boolean(), "[true, null]")->Slice(1, 1),
                        FromJson(boolean(), "[false, true, true]")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->ToString(), "[null, false, true, true]");
  auto s = Concatenate({FromJson(large_utf8(), R"(["ab", "cd"])")->Slice(1, 1),
                        FromJson(large_utf8(), R"([null, "ef"])")});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->ToString(), R"(["cd", null, "ef"])");
  EXPECT_TRUE((*s)->ValidateFull().ok());
  EXPECT_TRUE(Concatenate({FromJson(int8(), "[1]"), FromJson(int16(), "[1]")})
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(Concatenate({}).status().IsInvalidArgument());
  auto n = Concatenate({*MakeArrayOfNulls(null(), 2), *MakeArrayOfNulls(null(), 3)});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)->length, 5);
}

TEST(ConcatenateTest, Dictionaries) {
  auto t = dictionary(int8(), utf8());
  auto a = FromJson(t, R"(["x", "y", null])");
  auto b = FromJson(t, R"(["z", "x"])");
  auto r = Concatenate({a->Slice(1, 2), b});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE((*r)->ValidateFull().ok());
  EXPECT_EQ((*r)->ToString(), R"(["y", null, "z", "x"])");
  // Same dictionary: shared, not merged.
  auto same = Concatenate({a, a});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)->dictionary, a->dictionary);
  EXPECT_EQ((*same)->ToString(), R"(["x", "y", null, "x", "y", null])");
}

TEST(ConcatenateTest, FixedSizeListSlices) {
  auto t = fixed_size_list(int32(), 2);
  auto a = FromJson(t, "[[1, 2], [3, 4], null, [7, 8]]");
  auto r = Concatenate({a->Slice(1, 2), a->Slice(3, 1)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->ToString(), "[[3,4], null, [7,8]]");
  EXPECT_TRUE((*r)->ValidateFull().ok());
}

}  // namespace
}  // namespace lance
