#include "lance/columnar/builder.h"

#include <gtest/gtest.h>

#include "lance/columnar/float16.h"

namespace lance {
namespace {

ArrayPtr FinishOk(ArrayBuilder* b) {
  auto r = b->Finish();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  auto a = std::move(r).ValueOrDie();
  auto st = a->ValidateFull();
  EXPECT_TRUE(st.ok()) << st.ToString();
  return a;
}

TEST(BuilderTest, NumericWithNulls) {
  Int32Builder b(int32());
  ASSERT_TRUE(b.Append(1).ok());
  ASSERT_TRUE(b.AppendNull().ok());
  ASSERT_TRUE(b.Append(-3).ok());
  const int32_t more[] = {7, 8, 9};
  const uint8_t valid[] = {1, 0, 1};
  ASSERT_TRUE(b.AppendValues(more, 3, valid).ok());
  EXPECT_EQ(b.length(), 6);
  EXPECT_EQ(b.null_count(), 2);
  auto a = FinishOk(&b);
  EXPECT_EQ(a->length, 6);
  EXPECT_EQ(a->null_count, 2);
  EXPECT_EQ(a->ToString(), "[1, null, -3, 7, null, 9]");
  EXPECT_EQ(a->Values<int32_t>()[2], -3);
  // The builder is reusable after Finish.
  EXPECT_EQ(b.length(), 0);
  ASSERT_TRUE(b.Append(5).ok());
  auto c = FinishOk(&b);
  EXPECT_EQ(c->ToString(), "[5]");
  EXPECT_EQ(c->validity(), nullptr);  // no nulls: validity omitted
}

TEST(BuilderTest, ValidityMaterializedLate) {
  Int64Builder b(int64());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(b.Append(i).ok());
  ASSERT_TRUE(b.AppendNulls(3).ok());
  ASSERT_TRUE(b.Append(1000).ok());
  auto a = FinishOk(&b);
  EXPECT_EQ(a->null_count, 3);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(a->IsValid(i)) << i;
  EXPECT_TRUE(a->IsNull(100) && a->IsNull(101) && a->IsNull(102));
  EXPECT_TRUE(a->IsValid(103));
  EXPECT_EQ(a->Values<int64_t>()[103], 1000);
}

TEST(BuilderTest, TemporalAndHalfFloat) {
  NumericBuilder<int64_t> ts(timestamp(TimeUnit::kMicro, "UTC"));
  ASSERT_TRUE(ts.Append(1700000000000000).ok());
  auto a = FinishOk(&ts);
  EXPECT_EQ(a->type->ToString(), timestamp(TimeUnit::kMicro, "UTC")->ToString());
  EXPECT_EQ(a->ToString(), "[1700000000000000]");

  UInt16Builder h(float16());
  ASSERT_TRUE(h.Append(FloatToHalf(1.5f)).ok());
  ASSERT_TRUE(h.Append(FloatToHalf(-0.1f)).ok());
  auto ha = FinishOk(&h);
  EXPECT_EQ(ha->ToString(), "[1.5, -0.1]");
  EXPECT_EQ(HalfToFloat(ha->Values<uint16_t>()[0]), 1.5f);
}

TEST(BuilderTest, Boolean) {
  BooleanBuilder b;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(b.Append(i % 3 == 0).ok());
  ASSERT_TRUE(b.AppendNull().ok());
  auto a = FinishOk(&b);
  EXPECT_EQ(a->length, 21);
  EXPECT_TRUE(a->BoolValue(0));
  EXPECT_FALSE(a->BoolValue(1));
  EXPECT_TRUE(a->BoolValue(18));
  EXPECT_TRUE(a->IsNull(20));
}

TEST(BuilderTest, BinaryAllWidths) {
  for (auto type : {utf8(), large_utf8(), binary(), large_binary()}) {
    BinaryBuilder b(type);
    ASSERT_TRUE(b.Append("hello").ok());
    ASSERT_TRUE(b.AppendNull().ok());
    ASSERT_TRUE(b.Append("").ok());
    ASSERT_TRUE(b.Append("world!").ok());
    auto a = FinishOk(&b);
    ASSERT_EQ(a->length, 4);
    EXPECT_EQ(a->ValueOffset(0), 0);
    EXPECT_EQ(a->GetView(0), "hello");
    EXPECT_EQ(a->GetView(2), "");
    EXPECT_EQ(a->GetView(3), "world!");
    EXPECT_EQ(a->ValueOffset(4), 11);
    EXPECT_EQ(a->buffers[1]->size(), 5 * (type->has_large_offsets() ? 8 : 4));
  }
}

TEST(BuilderTest, FixedSizeBinaryAndDecimal) {
  FixedSizeBinaryBuilder f(fixed_size_binary(3));
  ASSERT_TRUE(f.Append("abc").ok());
  EXPECT_TRUE(f.Append("ab").IsInvalidArgument());
  ASSERT_TRUE(f.AppendNull().ok());
  auto fa = FinishOk(&f);
  EXPECT_EQ(fa->GetView(0), "abc");
  EXPECT_EQ(fa->buffers[1]->size(), 6);

  Decimal128Builder d(decimal128(10, 2));
  ASSERT_TRUE(d.Append(static_cast<__int128>(-1230)).ok());
  ASSERT_TRUE(d.Append(uint64_t{5}, int64_t{0}).ok());
  ASSERT_TRUE(d.Append(~uint64_t{0}, int64_t{-1}).ok());  // -1
  auto da = FinishOk(&d);
  EXPECT_EQ(da->ToString(), R"(["-12.30", "0.05", "-0.01"])");
}

TEST(BuilderTest, ListOfStrings) {
  auto child = std::make_unique<BinaryBuilder>(utf8());
  auto* values = child.get();
  ListBuilder b(list(utf8()), std::move(child));
  ASSERT_TRUE(b.Append().ok());
  ASSERT_TRUE(values->Append("a").ok());
  ASSERT_TRUE(values->Append("b").ok());
  ASSERT_TRUE(b.AppendNull().ok());
  ASSERT_TRUE(b.Append().ok());  // empty
  ASSERT_TRUE(b.Append().ok());
  ASSERT_TRUE(values->AppendNull().ok());
  auto a = FinishOk(&b);
  EXPECT_EQ(a->ToString(), R"([["a","b"], null, [], [null]])");
  EXPECT_EQ(a->ValueOffset(0), 0);
  EXPECT_EQ(a->ValueOffset(4), 3);
}

TEST(BuilderTest, MakeBuilderNested) {
  auto type = struct_({field("x", int32()), field("tags", large_list(utf8())),
                       field("v", fixed_size_list(float32(), 2))});
  auto r = MakeBuilder(type);
  ASSERT_TRUE(r.ok());
  auto* sb = static_cast<StructBuilder*>(r->get());
  ASSERT_EQ(sb->num_fields(), 3);
  auto* x = static_cast<Int32Builder*>(sb->field_builder(0));
  auto* tags = static_cast<ListBuilder*>(sb->field_builder(1));
  auto* tag = static_cast<BinaryBuilder*>(tags->value_builder());
  auto* v = static_cast<FixedSizeListBuilder*>(sb->field_builder(2));
  auto* vv = static_cast<FloatBuilder*>(v->value_builder());

  ASSERT_TRUE(sb->Append().ok());
  ASSERT_TRUE(x->Append(1).ok());
  ASSERT_TRUE(tags->Append().ok());
  ASSERT_TRUE(tag->Append("t").ok());
  ASSERT_TRUE(v->Append().ok());
  ASSERT_TRUE(vv->Append(0.5f).ok());
  ASSERT_TRUE(vv->Append(2.0f).ok());
  ASSERT_TRUE(sb->AppendNull().ok());  // also appends nulls to every child
  auto a = FinishOk(sb);
  EXPECT_EQ(a->length, 2);
  EXPECT_EQ(a->ToString(), R"([{"x":1,"tags":["t"],"v":[0.5,2.0]}, null])");
  EXPECT_EQ(a->children[2]->children[0]->length, 4);
}

TEST(BuilderTest, StructChildLengthMismatchIsAnError) {
  auto r = MakeBuilder(struct_({field("a", int8())}));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(static_cast<StructBuilder*>(r->get())->Append().ok());
  EXPECT_TRUE((*r)->Finish().status().IsInvalidArgument());
}

TEST(BuilderTest, MapBuilder) {
  auto r = MakeBuilder(map(utf8(), int64()));
  ASSERT_TRUE(r.ok());
  auto* mb = static_cast<ListBuilder*>(r->get());
  auto* entries = static_cast<StructBuilder*>(mb->value_builder());
  ASSERT_TRUE(mb->Append().ok());
  ASSERT_TRUE(entries->Append().ok());
  ASSERT_TRUE(static_cast<BinaryBuilder*>(entries->field_builder(0))->Append("k").ok());
  ASSERT_TRUE(static_cast<Int64Builder*>(entries->field_builder(1))->Append(9).ok());
  ASSERT_TRUE(mb->AppendNull().ok());
  auto a = FinishOk(mb);
  EXPECT_EQ(a->ToString(), R"([[["k",9]], null])");
}

TEST(BuilderTest, DictionaryDeduplicates) {
  DictionaryBuilder b(dictionary(int8(), utf8()));
  for (auto s : {"x", "y", "x", "x", "z", "y"}) ASSERT_TRUE(b.Append(s).ok());
  ASSERT_TRUE(b.AppendNull().ok());
  EXPECT_EQ(b.dictionary_length(), 3);
  auto a = FinishOk(&b);
  EXPECT_EQ(a->dictionary->length, 3);
  EXPECT_EQ(a->ToString(), R"(["x", "y", "x", "x", "z", "y", null])");
  EXPECT_EQ(a->Values<int8_t>()[4], 2);
}

TEST(BuilderTest, DictionaryIndexOverflow) {
  DictionaryBuilder b(dictionary(int8(), utf8()));
  for (int i = 0; i < 129; ++i) ASSERT_TRUE(b.Append(std::to_string(i)).ok());
  EXPECT_TRUE(b.Finish().status().IsInvalidArgument());
  DictionaryBuilder u(dictionary(uint8(), binary()));
  for (int i = 0; i < 256; ++i) ASSERT_TRUE(u.Append(std::to_string(i)).ok());
  auto a = FinishOk(&u);
  EXPECT_EQ(a->Values<uint8_t>()[255], 255);
}

TEST(BuilderTest, NullBuilder) {
  NullBuilder b;
  ASSERT_TRUE(b.AppendNulls(4).ok());
  auto a = FinishOk(&b);
  EXPECT_EQ(a->length, 4);
  EXPECT_EQ(a->null_count, 4);
  EXPECT_EQ(a->ToString(), "[null, null, null, null]");
}

TEST(BuilderTest, MakeBuilderEveryType) {
  std::vector<DataTypePtr> types = {
      null(), boolean(), int8(), int16(), int32(), int64(), uint8(), uint16(), uint32(),
      uint64(), float16(), float32(), float64(), utf8(), large_utf8(), binary(), large_binary(),
      fixed_size_binary(4), date32(), date64(), time32(TimeUnit::kMilli),
      time64(TimeUnit::kNano), timestamp(TimeUnit::kSecond), duration(TimeUnit::kMilli),
      decimal128(38, 10), list(int8()), large_list(utf8()), fixed_size_list(int16(), 3),
      struct_({field("a", boolean())}), map(int32(), utf8()), dictionary(int32(), utf8())};
  for (const auto& t : types) {
    auto r = MakeBuilder(t);
    ASSERT_TRUE(r.ok()) << t->ToString();
    ASSERT_TRUE((*r)->AppendNulls(3).ok()) << t->ToString();
    auto a = (*r)->Finish();
    ASSERT_TRUE(a.ok()) << t->ToString() << " " << a.status().ToString();
    EXPECT_TRUE((*a)->ValidateFull().ok()) << t->ToString();
    EXPECT_EQ((*a)->length, 3);
    EXPECT_EQ((*a)->null_count, 3);
    EXPECT_TRUE((*a)->type->Equals(*t));
  }
}

TEST(ArrayFromJsonTest, Basic) {
  auto a = ArrayFromJSON(list(int32()), "[[1,2],null,[]]");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ((*a)->length, 3);
  EXPECT_EQ((*a)->null_count, 1);
  EXPECT_EQ((*a)->ToString(), "[[1,2], null, []]");
  EXPECT_TRUE((*a)->ValidateFull().ok());

  auto bad = ArrayFromJSON(int8(), "[1, 300]");
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("element 1"), std::string::npos);
  EXPECT_TRUE(ArrayFromJSON(int32(), "[1, \"x\"]").status().IsInvalidArgument());
  EXPECT_TRUE(ArrayFromJSON(int32(), "[1, ").status().IsInvalidArgument());
  EXPECT_TRUE(ArrayFromJSON(fixed_size_list(int32(), 2), "[[1]]").status().IsInvalidArgument());
  EXPECT_TRUE(
      ArrayFromJSON(struct_({field("a", int32())}), R"([{"b":1}])").status().IsInvalidArgument());
}

TEST(ArrayFromJsonTest, DictionaryOfIntegers) {
  auto a = ArrayFromJSON(dictionary(int16(), int64()), "[5, null, 5, 7]");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_TRUE((*a)->ValidateFull().ok());
  EXPECT_EQ((*a)->ToString(), "[5, null, 5, 7]");
}

TEST(ArrayFromJsonTest, RecordBatch) {
  auto s = schema({field("id", int64(), false), field("name", utf8())});
  auto b = RecordBatchFromJSON(s, R"([{"id": 1, "name": "a"}, {"id": 2}])");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)->num_rows(), 2);
  EXPECT_EQ((*b)->column(1)->ToString(), R"(["a", null])");
  EXPECT_TRUE(RecordBatchFromJSON(s, R"([{"idx": 1}])").status().IsInvalidArgument());
}

}  // namespace
}  // namespace lance
