// The gather kernels of compute.h (TakeArray, TakeChunked, TakeRows, DropElements) against
// element-by-element expectations (each output element equals the input element it names), on
// every layout the kernel copies itself (fixed width, bool, utf8 / large_utf8 / binary) and
// fixed-size lists (by their child), the ones it assembles from slices (list, struct,
// dictionary, null), sliced inputs and nulls
// included; NullAtRows, ConcatenateBatches, SameStorageType and Relabel.
#include "lance/columnar/compute.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"

namespace lance {
namespace {

SchemaPtr MixedSchema() {
  return schema({field("id", int64(), false), field("name", utf8()), field("score", float64()),
                 field("flag", boolean()), field("small", int32()), field("tags", list(int32())),
                 field("big", large_utf8()), field("raw", binary()), field("tiny", int8()),
                 field("fsb", fixed_size_binary(3)),
                 field("point", struct_({field("x", int16()), field("label", utf8())})),
                 field("cat", dictionary(int32(), utf8())), field("nothing", null()),
                 field("vec", fixed_size_list(int16(), 3))});
}

// n random rows with about a fifth of every nullable value null.
RecordBatchPtr MixedBatch(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  auto maybe = [&](const std::string& v) { return rng() % 5 == 0 ? std::string("null") : v; };
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ",";
    std::string tags = "[";
    for (uint32_t k = 0, m = rng() % 4; k < m; ++k) tags += (k ? "," : "") + std::to_string(rng() % 100);
    tags += "]";
    out += fmt::format(
        R"({{"id":{},"name":{},"score":{},"flag":{},"small":{},"tags":{},"big":{},"raw":{},)"
        R"("tiny":{},"fsb":{},"point":{},"cat":{},"nothing":null,"vec":{}}})",
        i, maybe(fmt::format("\"n{}{}\"", i, std::string(rng() % 7, 'x'))),
        maybe(fmt::format("{}", static_cast<int>(rng() % 2000) / 8.0)), maybe(rng() % 2 ? "true" : "false"),
        maybe(std::to_string(static_cast<int>(rng() % 1000) - 500)), maybe(tags),
        maybe(fmt::format("\"b{}\"", rng() % 50)), maybe(rng() % 2 ? "\"AAE=\"" : "\"\""),
        maybe(std::to_string(static_cast<int>(rng() % 200) - 100)), maybe("\"AAEC\""),
        maybe(fmt::format(R"({{"x":{},"label":"p{}"}})", rng() % 30, rng() % 3)),
        maybe(fmt::format("\"c{}\"", rng() % 4)),
        maybe(fmt::format("[{},{},{}]", rng() % 9, rng() % 4 ? std::to_string(rng() % 50) : "null", i)));
  }
  auto batch = RecordBatchFromJSON(MixedSchema(), out + "]");
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return batch.ok() ? *batch : nullptr;
}

std::string Value(const Array& a, int64_t i) {
  if (a.IsNull(i)) return "null";
  std::string s;
  EXPECT_TRUE(AppendJsonValue(a, i, &s).ok());
  return s;
}

// got[k] == source[rows[k]] for every k.
void ExpectGathered(const Array& source, const std::vector<int64_t>& rows, const Array& got,
                    const std::string& what) {
  {
    const Status valid = got.ValidateFull();
    ASSERT_TRUE(valid.ok()) << what << ": " << valid.ToString();
  }
  ASSERT_TRUE(got.type->Equals(*source.type)) << what;
  ASSERT_EQ(got.length, static_cast<int64_t>(rows.size())) << what;
  int64_t nulls = 0;
  for (size_t k = 0; k < rows.size(); ++k) {
    ASSERT_EQ(Value(got, static_cast<int64_t>(k)), Value(source, rows[k])) << what << " row " << k;
    nulls += got.IsNull(static_cast<int64_t>(k)) ? 1 : 0;
  }
  if (source.type_id() != TypeId::kNull) {
    EXPECT_EQ(got.null_count, nulls) << what;
  }
}

TEST(Take, EveryLayoutInAnyOrderWithRepeats) {
  RecordBatchPtr batch = MixedBatch(400, 1);
  ASSERT_NE(batch, nullptr);
  std::mt19937 rng(2);
  for (int round = 0; round < 5; ++round) {
    const int64_t off = round * 13;
    RecordBatchPtr part = batch->Slice(off, 400 - off - round * 7);
    std::vector<int64_t> rows;
    for (int k = 0; k < 300; ++k) {
      // Random rows, runs of consecutive rows and repeats.
      const int64_t r = static_cast<int64_t>(rng() % static_cast<uint32_t>(part->num_rows()));
      const int64_t len = rng() % 3 == 0 ? rng() % 9 : 1;
      for (int64_t j = 0; j < len && r + j < part->num_rows(); ++j) rows.push_back(r + j);
      if (rng() % 10 == 0) rows.push_back(r);
    }
    for (int c = 0; c < part->num_columns(); ++c) {
      auto got = TakeArray(part->column(c), rows);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectGathered(*part->column(c), rows, **got, fmt::format("round {} column {}", round, c));
    }
    auto taken = TakeRows(*part, rows);
    ASSERT_TRUE(taken.ok());
    EXPECT_EQ((*taken)->num_rows(), static_cast<int64_t>(rows.size()));
    EXPECT_TRUE((*taken)->schema()->Equals(*part->schema()));
  }
}

TEST(Take, WholeInputAndEmptyAndOutOfRange) {
  RecordBatchPtr batch = MixedBatch(50, 3);
  ASSERT_NE(batch, nullptr);
  std::vector<int64_t> all(50);
  for (int64_t i = 0; i < 50; ++i) all[static_cast<size_t>(i)] = i;
  for (int c = 0; c < batch->num_columns(); ++c) {
    auto same = TakeArray(batch->column(c), all);
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(*same, batch->column(c));  // no copy
    auto none = TakeArray(batch->column(c), {});
    ASSERT_TRUE(none.ok());
    EXPECT_EQ((*none)->length, 0);
    EXPECT_TRUE((*none)->type->Equals(*batch->column(c)->type));
    auto run = TakeArray(batch->column(c), {5, 6, 7});
    ASSERT_TRUE(run.ok());
    ExpectGathered(*batch->column(c), {5, 6, 7}, **run, "one run");
    EXPECT_TRUE(TakeArray(batch->column(c), {50}).status().IsInvalidArgument());
    EXPECT_TRUE(TakeArray(batch->column(c), {-1}).status().IsInvalidArgument());
  }
}

TEST(Take, ChunkedGathersAcrossChunks) {
  RecordBatchPtr batch = MixedBatch(300, 4);
  ASSERT_NE(batch, nullptr);
  std::mt19937 rng(5);
  std::vector<int64_t> rows;
  for (int k = 0; k < 400; ++k) rows.push_back(static_cast<int64_t>(rng() % 300));
  std::vector<int64_t> ascending;
  for (int64_t r = 0; r < 300; r += 1 + static_cast<int64_t>(rng() % 3)) ascending.push_back(r);
  for (int c = 0; c < batch->num_columns(); ++c) {
    const ArrayPtr& col = batch->column(c);
    // Chunks of uneven sizes, covering the column.
    std::vector<std::pair<int64_t, ArrayPtr>> chunks = {
        {0, col->Slice(0, 40)}, {40, col->Slice(40, 1)}, {41, col->Slice(41, 159)}, {200, col->Slice(200, 100)}};
    for (const auto* want : {&rows, &ascending}) {
      auto got = TakeChunked(chunks, *want, col->type);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectGathered(*col, *want, **got, fmt::format("column {}", c));
    }
    // A gap between chunks is an error, a chunk taken whole is returned as it is.
    std::vector<std::pair<int64_t, ArrayPtr>> gapped = {{0, col->Slice(0, 10)}, {20, col->Slice(20, 10)}};
    EXPECT_TRUE(TakeChunked(gapped, {15}, col->type).status().IsInvalidArgument());
    EXPECT_TRUE(TakeChunked(gapped, {35}, col->type).status().IsInvalidArgument());
    std::vector<int64_t> second;
    for (int64_t r = 20; r < 30; ++r) second.push_back(r);
    auto whole = TakeChunked(gapped, second, col->type);
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(*whole, gapped[1].second);
  }
}

// DropElements keeps exactly the other elements, for every kind of array (sliced ones too).
TEST(DropElements, KeepsTheOthers) {
  RecordBatchPtr batch = MixedBatch(500, 3);
  ASSERT_NE(batch, nullptr);
  std::mt19937 rng(5);
  for (int round = 0; round < 6; ++round) {
    const int64_t off = round * 17;
    const int64_t len = 500 - off - round * 5;
    RecordBatchPtr part = batch->Slice(off, len);
    std::vector<uint32_t> drop;
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < len; ++i) {
      // Runs of dropped rows, single ones, the first and the last row in some rounds.
      const bool d = (round % 2 == 0 && (i == 0 || i == len - 1)) || rng() % (round + 2) == 0;
      if (d) drop.push_back(static_cast<uint32_t>(i)); else keep.push_back(i);
    }
    for (int c = 0; c < part->num_columns(); ++c) {
      auto got = DropElements(part->column(c), drop);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectGathered(*part->column(c), keep, **got, fmt::format("round {} column {}", round, c));
    }
  }
  auto same = DropElements(batch->column(0), {});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, batch->column(0));
  EXPECT_FALSE(DropElements(batch->column(0), {500}).ok());
}

TEST(NullAtRows, NullsOnlyThoseRows) {
  RecordBatchPtr batch = MixedBatch(300, 4);
  ASSERT_NE(batch, nullptr);
  RecordBatchPtr part = batch->Slice(13, 250);
  const std::vector<uint32_t> rows = {0, 1, 2, 77, 78, 200, 249};
  for (int c = 0; c < part->num_columns(); ++c) {
    const ArrayPtr& a = part->column(c);
    auto got = NullAtRows(a, rows);
    ASSERT_TRUE(got.ok());
    ASSERT_TRUE(got->has_value());
    ASSERT_TRUE((**got)->ValidateFull().ok());
    size_t k = 0;
    for (int64_t i = 0; i < a->length; ++i) {
      const bool listed = k < rows.size() && rows[k] == i;
      if (listed) ++k;
      ASSERT_EQ((**got)->IsValid(i), !listed && a->IsValid(i)) << "column " << c << " row " << i;
      if (!listed) {
        EXPECT_EQ(Value(***got, i), Value(*a, i));
      }
    }
  }
  EXPECT_TRUE(NullAtRows(part->column(0), {250}).status().IsInvalidArgument());
}

TEST(ConcatenateBatches, AllRowsInOrder) {
  RecordBatchPtr batch = MixedBatch(90, 6);
  ASSERT_NE(batch, nullptr);
  auto three = ConcatenateBatches(batch->schema(), {batch->Slice(0, 30), batch->Slice(30, 0), batch->Slice(30, 60)});
  ASSERT_TRUE(three.ok());
  EXPECT_TRUE((*three)->Equals(*batch));
  auto one = ConcatenateBatches(batch->schema(), {batch});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ((*one)->column(1), batch->column(1));
  auto none = ConcatenateBatches(batch->schema(), {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->num_rows(), 0);
  EXPECT_EQ((*none)->num_columns(), batch->num_columns());
}

TEST(SameStorageType, IgnoresNestedNamesAndNullability) {
  const auto a = struct_({field("x", int32(), true), field("l", list(field("item", utf8(), true)))});
  const auto b = struct_({field("y", int32(), false), field("m", list(field("element", utf8(), false)))});
  EXPECT_TRUE(SameStorageType(*a, *b));
  EXPECT_FALSE(SameStorageType(*a, *struct_({field("x", int64()), field("l", list(utf8()))})));
  EXPECT_FALSE(SameStorageType(*timestamp(TimeUnit::kMicro, "UTC"), *timestamp(TimeUnit::kMicro)));
  auto arr = ArrayFromJSON(a, R"([{"x": 1, "l": ["a"]}, null])");
  ASSERT_TRUE(arr.ok());
  ArrayPtr relabelled = Relabel(*arr, b);
  EXPECT_TRUE(relabelled->type->Equals(*b));
  EXPECT_TRUE(relabelled->children[1]->type->Equals(*b->field(1)->type()));
  EXPECT_EQ(relabelled->buffers, (*arr)->buffers);
}

}  // namespace
}  // namespace lance
