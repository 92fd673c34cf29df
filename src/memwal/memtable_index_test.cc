// The MemTable's in-memory scalar indexes (memtable.h): Select over random upserts and deletes
// equals a brute-force model of "each key's newest row as of the snapshot, not a tombstone,
// its value in range", row for row and in insert order, for snapshots taken while appends go
// on; Holds tells which keys a snapshot holds; the index bytes count in bytes().
#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/memwal/memtable.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/wal.h"

namespace lance::memwal {
namespace {

SchemaPtr MtWalSchema() {
  return schema({field("id", int64(), false), field("v", int32(), true), field("s", utf8(), true),
                 field(std::string(kTombstoneColumn), boolean(), false)});
}

struct MtRow {
  int64_t id;
  std::optional<int32_t> v;
  std::optional<std::string> s;
  bool tomb;
};

RecordBatchPtr MtBatch(const std::vector<MtRow>& rows) {
  Int64Builder a(int64());
  Int32Builder b(int32());
  StringBuilder c(utf8());
  BooleanBuilder t(boolean());
  for (const MtRow& r : rows) {
    EXPECT_TRUE(a.Append(r.id).ok());
    EXPECT_TRUE((r.v ? b.Append(*r.v) : b.AppendNull()).ok());
    EXPECT_TRUE((r.s ? c.Append(*r.s) : c.AppendNull()).ok());
    EXPECT_TRUE(t.Append(r.tomb).ok());
  }
  return std::make_shared<RecordBatch>(MtWalSchema(), static_cast<int64_t>(rows.size()),
                                       std::vector<ArrayPtr>{*a.Finish(), *b.Finish(), *c.Finish(), *t.Finish()});
}

std::string MtEnc(const std::string& column, const MtRow& r) {
  auto s = MtWalSchema();
  auto enc = PrimaryKeyEncoder::Make(*s, {column});
  EXPECT_TRUE(enc.ok());
  auto b = MtBatch({r});
  auto cols = enc->KeyColumns(*b);
  EXPECT_TRUE(cols.ok());
  std::string out;
  enc->Encode(*cols, 0, &out);
  return out;
}

// Brute force over the rows appended (`log`, insert order) as of `upto`: the positions Select
// must return.
std::vector<uint32_t> MtModel(const std::vector<MtRow>& log, int64_t upto, const std::string& column,
                            const std::vector<ValueRange>& ranges) {
  std::map<int64_t, uint32_t> newest;
  for (int64_t p = 0; p < upto; ++p) newest[log[static_cast<size_t>(p)].id] = static_cast<uint32_t>(p);
  std::vector<uint32_t> out;
  for (const auto& [id, p] : newest) {
    const MtRow& r = log[p];
    if (r.tomb) continue;
    if (!column.empty()) {
      const bool null = column == "v" ? !r.v : !r.s;
      if (null) continue;
      const std::string v = MtEnc(column, r);
      bool in = false;
      for (const ValueRange& x : ranges) {
        const bool lo = !x.lo || (x.lo_inclusive ? v >= *x.lo : v > *x.lo);
        const bool hi = !x.hi || (x.hi_inclusive ? v <= *x.hi : v < *x.hi);
        in = in || (lo && hi);
      }
      if (!in) continue;
    }
    out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(MemTableIndex, SelectEqualsBruteForceOverRandomUpsertsAndDeletes) {
  auto mt = MemTable::Make(MtWalSchema(), {"id"}, 1, {{"v_idx", "v"}, {"s_idx", "s"}});
  ASSERT_TRUE(mt.ok()) << mt.status().ToString();
  std::mt19937 rng(12);
  std::vector<MtRow> log;
  std::vector<int64_t> snapshots;
  for (int round = 0; round < 60; ++round) {
    std::vector<MtRow> rows;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      MtRow r{static_cast<int64_t>(rng() % 100), std::nullopt, std::nullopt, rng() % 6 == 0};
      if (!r.tomb) {
        if (rng() % 8) r.v = static_cast<int32_t>(rng() % 50) - 25;
        if (rng() % 8) r.s = std::string(1, static_cast<char>('a' + rng() % 5)) + std::to_string(rng() % 10);
      }
      rows.push_back(r);
    }
    ASSERT_TRUE((*mt)->Insert(MtBatch(rows), static_cast<uint64_t>(round + 1)).ok());
    log.insert(log.end(), rows.begin(), rows.end());
    snapshots.push_back(static_cast<int64_t>(log.size()));

    // Every few rounds: Select against the model, at this snapshot and at older ones (rows
    // appended after a snapshot are invisible to it).
    if (round % 5 != 4) continue;
    for (int64_t upto : {snapshots.back(), snapshots[snapshots.size() / 2], snapshots.front()}) {
      std::vector<std::pair<std::string, std::vector<ValueRange>>> queries = {
          {"", {}},
          {"v", {ValueRange{MtEnc("v", {0, 3, {}, false}), true, MtEnc("v", {0, 3, {}, false}), true}}},
          {"v", {ValueRange{MtEnc("v", {0, -5, {}, false}), false, MtEnc("v", {0, 10, {}, false}), true}}},
          {"v", {ValueRange{std::nullopt, true, MtEnc("v", {0, 0, {}, false}), false}}},
          {"v", {ValueRange{MtEnc("v", {0, 20, {}, false}), true, std::nullopt, true}}},
          {"s", {ValueRange{MtEnc("s", {0, {}, "b0", false}), true, MtEnc("s", {0, {}, "c9", false}), true},
                 ValueRange{MtEnc("s", {0, {}, "e3", false}), true, MtEnc("s", {0, {}, "e3", false}), true},
                 ValueRange{MtEnc("s", {0, {}, "c1", false}), true, MtEnc("s", {0, {}, "c1", false}), true}}},
          {"s", {ValueRange{MtEnc("s", {0, {}, "d", false}), true, std::nullopt, true}}},
      };
      for (const auto& [column, ranges] : queries) {
        auto sel = (*mt)->Select(upto, column, ranges);
        ASSERT_TRUE(sel.ok()) << sel.status().ToString();
        std::vector<uint32_t> got;
        for (const auto& r : sel->rows) {
          got.push_back(r.position);
          // The row handed back is the row at that position, with its key.
          const MtRow& want = log[r.position];
          EXPECT_EQ(r.batch->column(0)->Values<int64_t>()[r.row], want.id);
          EXPECT_EQ(r.key, MtEnc("id", want));
        }
        EXPECT_EQ(got, MtModel(log, upto, column, ranges)) << "column '" << column << "' upto " << upto;
        EXPECT_EQ(sel->index, column.empty() ? "" : column + "_idx");
        if (!column.empty()) {
          // The index offers only rows of the range (every row of one, hidden ones too), never all.
          EXPECT_LE(sel->candidates, upto);
        }
      }
      // Holds: a key is held as of `upto` when any of its rows (a tombstone too) came before.
      std::vector<std::string> keys;
      std::vector<uint8_t> want;
      for (int64_t id = 0; id < 110; ++id) {
        keys.push_back(MtEnc("id", {id, {}, {}, false}));
        bool held = false;
        for (int64_t p = 0; p < upto; ++p) held = held || log[static_cast<size_t>(p)].id == id;
        want.push_back(held);
      }
      std::vector<uint8_t> held;
      (*mt)->Holds(upto, keys, &held);
      EXPECT_EQ(held, want) << "upto " << upto;
    }
  }
  EXPECT_GT((*mt)->index_bytes(), 0);
  EXPECT_GE((*mt)->bytes(), (*mt)->index_bytes());
  EXPECT_FALSE((*mt)->Select((*mt)->num_rows(), "id", {}).ok());  // no in-memory index of id
}

// A column the key encoding cannot take is refused at Make, naming the index and the column.
TEST(MemTableIndex, RefusesAnUnknownColumn) {
  auto mt = MemTable::Make(MtWalSchema(), {"id"}, 1, {{"x_idx", "x"}});
  ASSERT_FALSE(mt.ok());
  EXPECT_NE(mt.status().message().find("x_idx"), std::string::npos) << mt.status().ToString();
}

// Append-only (no primary key): every row is visible, the index still selects by value.
TEST(MemTableIndex, AppendOnlyKeepsEveryRow) {
  auto mt = MemTable::Make(MtWalSchema(), {}, 1, {{"v_idx", "v"}});
  ASSERT_TRUE(mt.ok());
  ASSERT_TRUE((*mt)->Insert(MtBatch({{1, 5, {}, false}, {1, 5, {}, false}, {2, 6, {}, false}}), 1).ok());
  auto sel = (*mt)->Select(3, "v", {ValueRange{MtEnc("v", {0, 5, {}, false}), true, MtEnc("v", {0, 5, {}, false}), true}});
  ASSERT_TRUE(sel.ok());
  ASSERT_EQ(sel->rows.size(), 2u);
  EXPECT_EQ(sel->rows[0].position, 0u);
  EXPECT_EQ(sel->rows[1].position, 1u);
}

}  // namespace
}  // namespace lance::memwal
