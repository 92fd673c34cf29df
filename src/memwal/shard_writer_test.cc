// ShardWriter: claim + sentinel + recovery, acknowledged appends, tombstones, fencing (by the
// manifest and by WAL collisions, racing a live writer), SEALED shards, group commit, lost
// acknowledgements and failed writes, and a crash at every object-store operation.
#include "lance/memwal/shard_writer.h"

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/memory_object_store.h"
#include "lance/memwal/layout.h"

namespace lance::memwal {
namespace {

using ::testing::HasSubstr;

const Uuid kShard = BucketShardId(0);
const std::string kRoot = "t.lance";

SchemaPtr TableSchema() {
  static SchemaPtr s = *WithPrimaryKey(
      schema({field("id", int64(), false), field("s", utf8())}), {"id"});
  return s;
}

ShardWriterOptions Options() {
  ShardWriterOptions o;
  o.table_schema = TableSchema();
  o.shard_spec_id = 1;
  o.io_retry_backoff_ms = 0;
  o.manifest.io_retry_backoff_ms = 0;
  return o;
}

// Batch k: ids k*10 .. k*10 + rows - 1, s = "v{k}".
RecordBatchPtr Batch(int k, int rows = 3) {
  Int64Builder ids(int64());
  StringBuilder s(utf8());
  for (int i = 0; i < rows; ++i) {
    EXPECT_TRUE(ids.Append(int64_t{k} * 10 + i).ok());
    EXPECT_TRUE(s.Append("v" + std::to_string(k)).ok());
  }
  return std::make_shared<RecordBatch>(schema({field("id", int64(), false), field("s", utf8())}),
                                       rows, std::vector<ArrayPtr>{*ids.Finish(), *s.Finish()});
}

// The batch numbers k found in entries (from their first id), in order.
std::vector<int> BatchIds(const std::vector<WalEntry>& entries) {
  std::vector<int> out;
  for (const WalEntry& e : entries) {
    for (const auto& b : e.batches) {
      const int64_t* ids = b->column(0)->Values<int64_t>();
      out.push_back(static_cast<int>(ids[0] / 10));
      for (int64_t r = 1; r < b->num_rows(); ++r) EXPECT_EQ(ids[r], ids[0] + r);
    }
  }
  return out;
}

std::unique_ptr<ShardWriter> OpenOk(std::shared_ptr<io::ObjectStore> store,
                                    ShardWriterOptions o = Options()) {
  auto w = ShardWriter::Open(std::move(store), kRoot, kShard, std::move(o));
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return w.ok() ? std::move(w).ValueOrDie() : nullptr;
}

TEST(ShardWriter, AppendAcknowledgeReopenReplay) {
  auto mem = io::MemoryObjectStore::Make();
  auto w = OpenOk(mem);
  EXPECT_EQ(w->epoch(), 1u);
  EXPECT_EQ(w->sentinel_position(), 0u);  // nothing to fence on a fresh shard
  EXPECT_TRUE(w->recovered().empty());
  for (int k = 0; k < 3; ++k) {
    auto ack = w->AppendAndWait(*Batch(k));
    ASSERT_TRUE(ack.ok()) << ack.status().ToString();
    EXPECT_EQ(ack->position, static_cast<uint64_t>(k + 1));
    EXPECT_EQ(ack->entry_rows, 3);
  }
  EXPECT_EQ(w->last_durable_position(), 3u);
  ASSERT_TRUE(w->Close().ok());
  EXPECT_TRUE(w->Append(*Batch(9)).get().status().IsCancelled());

  // The entries: IPC streams with writer_epoch, the PK metadata and _tombstone.
  WalReader reader(mem, kRoot, kShard);
  auto e1 = reader.Read(1);
  ASSERT_TRUE(e1.ok() && e1->has_value());
  EXPECT_EQ((*e1)->writer_epoch, 1u);
  EXPECT_FALSE((*e1)->fence_sentinel);
  EXPECT_EQ((*e1)->schema->num_fields(), 3);
  EXPECT_EQ((*e1)->schema->field(0)->metadata()->Get(kPrimaryKeyPositionKey), "1");
  EXPECT_EQ((*e1)->schema->field(2)->name(), "_tombstone");

  auto w2 = OpenOk(mem);
  EXPECT_EQ(w2->epoch(), 2u);
  EXPECT_EQ(w2->sentinel_position(), 4u);
  EXPECT_EQ(BatchIds(w2->recovered()), (std::vector<int>{0, 1, 2}));
  ShardManifest m = w2->manifest();
  EXPECT_EQ(m.version, 2u);  // the claim alone (the sentinel's position is left to probing)
  EXPECT_EQ(m.wal_entry_position_last_seen, 0u);
  auto sentinel = reader.Read(4);
  ASSERT_TRUE(sentinel.ok() && sentinel->has_value());
  EXPECT_TRUE((*sentinel)->fence_sentinel);
  EXPECT_EQ((*sentinel)->writer_epoch, 2u);
  auto ack = w2->AppendAndWait(*Batch(3));
  ASSERT_TRUE(ack.ok());
  EXPECT_EQ(ack->position, 5u);
  // A flush would record what it covered; recovery then starts after it.
  ASSERT_TRUE(w2->UpdateManifest([](ShardManifest* x) {
    x->replay_after_wal_entry_position = 3;
    x->current_generation = 2;
    return Status::OK();
  }).ok());
  ASSERT_TRUE(w2->Close().ok());
  auto tail = ReadUnflushedTail(mem, kRoot, kShard, *ShardManifestStore(mem, kRoot, kShard).Latest());
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(BatchIds(*tail), (std::vector<int>{3}));
  auto w3 = OpenOk(mem);
  EXPECT_EQ(w3->sentinel_position(), 6u);
  EXPECT_EQ(BatchIds(w3->recovered()), (std::vector<int>{3}));
}

TEST(ShardWriter, TombstonesAndBatchChecks) {
  auto mem = io::MemoryObjectStore::Make();
  auto w = OpenOk(mem);
  ASSERT_TRUE(w->AppendAndWait(*Batch(1), /*tombstone=*/true).ok());
  ASSERT_TRUE(w->AppendAndWait(*Batch(2), /*tombstone=*/false).ok());
  auto e = *WalReader(mem, kRoot, kShard).Read(1);
  const ArrayPtr& t = e->batches[0]->column(2);
  for (int64_t i = 0; i < t->length; ++i) EXPECT_TRUE(t->BoolValue(i));
  auto e2 = *WalReader(mem, kRoot, kShard).Read(2);
  EXPECT_FALSE(e2->batches[0]->column(2)->BoolValue(0));
  // Columns are matched by name; missing, extra or mistyped ones are refused.
  auto only_id = RecordBatchFromJSON(schema({field("id", int64(), false)}), R"([{"id":1}])");
  EXPECT_THAT(w->Append(**only_id).get().status().message(), HasSubstr("no column 's'"));
  auto extra = RecordBatchFromJSON(
      schema({field("s", utf8()), field("id", int64(), false), field("z", int32())}),
      R"([{"id":1,"s":"a","z":1}])");
  EXPECT_THAT(w->Append(**extra).get().status().message(), HasSubstr("'z' is not a column"));
  auto reordered = RecordBatchFromJSON(schema({field("s", utf8()), field("id", int64(), false)}),
                                       R"([{"id":7,"s":"a"}])");
  EXPECT_TRUE(w->AppendAndWait(**reordered).ok());
  auto wrong = RecordBatchFromJSON(schema({field("id", int32()), field("s", utf8())}),
                                   R"([{"id":1,"s":"a"}])");
  EXPECT_THAT(w->Append(**wrong).get().status().message(), HasSubstr("is int32 in the batch"));
  auto nulls = RecordBatchFromJSON(schema({field("id", int64()), field("s", utf8())}),
                                   R"([{"id":null,"s":"a"}])");
  EXPECT_THAT(w->Append(**nulls).get().status().message(), HasSubstr("not nullable"));
  EXPECT_TRUE(w->Append(*Batch(0, 0)).get().status().IsInvalidArgument());
  EXPECT_TRUE(w->health().ok());  // refused batches do not poison the writer
  ShardWriterOptions bad = Options();
  bad.table_schema = nullptr;
  EXPECT_TRUE(ShardWriter::Open(mem, kRoot, kShard, bad).status().IsInvalidArgument());
}

TEST(ShardWriter, NewerWriterFencesTheOlder) {
  auto mem = io::MemoryObjectStore::Make();
  auto a = OpenOk(mem);
  ASSERT_TRUE(a->AppendAndWait(*Batch(1)).ok());
  auto b = OpenOk(mem);
  EXPECT_EQ(b->epoch(), 2u);
  EXPECT_EQ(b->sentinel_position(), 2u);
  EXPECT_EQ(BatchIds(b->recovered()), (std::vector<int>{1}));
  // a's next append collides with b's sentinel, reloads the manifest, finds epoch 2.
  auto r = a->AppendAndWait(*Batch(2));
  ASSERT_TRUE(r.status().IsFenced()) << r.status().ToString();
  EXPECT_THAT(r.status().message(), HasSubstr("epoch 1 was fenced by epoch 2"));
  EXPECT_TRUE(a->health().IsFenced());
  // From now on a writes nothing and says so at once.
  EXPECT_TRUE(a->Append(*Batch(3)).get().status().IsFenced());
  EXPECT_TRUE(a->UpdateManifest([](ShardManifest*) { return Status::OK(); }).status().IsFenced());
  EXPECT_TRUE(a->Close().IsFenced());
  EXPECT_EQ(*WalReader(mem, kRoot, kShard).ListPositions(), (std::vector<uint64_t>{1, 2}));
  auto ack = b->AppendAndWait(*Batch(4));
  ASSERT_TRUE(ack.ok());
  EXPECT_EQ(ack->position, 3u);
  // Without a sentinel, the epoch check of the manifest still fences a's updates.
  ShardWriterOptions quiet = Options();
  quiet.write_fence_sentinel = false;
  auto c = OpenOk(mem, quiet);
  EXPECT_EQ(c->sentinel_position(), 0u);
  EXPECT_TRUE(b->UpdateManifest([](ShardManifest*) { return Status::OK(); }).status().IsFenced());
}

// A live writer keeps appending while a new one claims the shard: every entry the old writer
// had acknowledged is below the new writer's sentinel and in its recovery; nothing of the old
// writer lands above the sentinel; after the first Fenced error it acknowledges nothing.
TEST(ShardWriter, FencingRacesALiveWriter) {
  int rounds_fenced_after_acks = 0;
  for (int round = 0; round < 20; ++round) {
    auto mem = io::MemoryObjectStore::Make();
    auto a = OpenOk(mem);
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::vector<int> acked;
    bool fenced = false;
    bool acked_after_fence = false;
    std::thread t([&] {
      for (int k = 0; !stop.load(); ++k) {
        auto r = a->AppendAndWait(*Batch(k, 1));
        std::lock_guard<std::mutex> lock(mu);
        if (r.ok()) {
          acked.push_back(k);
          if (fenced) acked_after_fence = true;
        } else {
          EXPECT_TRUE(r.status().IsFenced()) << r.status().ToString();
          fenced = true;
          if (k > 200) break;
        }
      }
    });
    auto wait_for = [&](auto cond) {
      for (int i = 0; i < 2000; ++i) {
        {
          std::lock_guard<std::mutex> lock(mu);
          if (cond()) return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
    };
    wait_for([&] { return acked.size() >= static_cast<size_t>(1 + round % 4); });
    auto b = OpenOk(mem);
    wait_for([&] { return fenced; });
    stop = true;
    t.join();
    ASSERT_TRUE(b);
    EXPECT_FALSE(acked_after_fence);
    std::vector<int> recovered = BatchIds(b->recovered());
    std::set<int> rec(recovered.begin(), recovered.end());
    EXPECT_EQ(rec.size(), recovered.size()) << "a batch replayed twice";
    for (int k : acked) EXPECT_TRUE(rec.count(k)) << "acknowledged batch " << k << " lost";
    auto positions = *WalReader(mem, kRoot, kShard).ListPositions();
    EXPECT_EQ(positions.back(), b->sentinel_position());
    if (fenced && !acked.empty()) ++rounds_fenced_after_acks;
  }
  EXPECT_EQ(rounds_fenced_after_acks, 20);  // the race was really run
}

TEST(ShardWriter, SealedShardRefusesWriters) {
  auto mem = io::MemoryObjectStore::Make();
  auto a = OpenOk(mem);
  ASSERT_TRUE(ShardManifestStore(mem, kRoot, kShard).Seal().ok());
  auto refused = ShardWriter::Open(mem, kRoot, kShard, Options());
  EXPECT_TRUE(refused.status().IsInvalidArgument());
  EXPECT_THAT(refused.status().message(), HasSubstr("SEALED"));
  // The seal fenced the writer that held the shard.
  EXPECT_TRUE(a->UpdateManifest([](ShardManifest*) { return Status::OK(); }).status().IsFenced());
}

// A store whose creates take a while, so that appenders pile up behind a write in flight.
class SlowCreates : public io::FaultInjectingObjectStore {
 public:
  SlowCreates(std::shared_ptr<io::ObjectStore> base, int ms)
      : FaultInjectingObjectStore(std::move(base)), ms_(ms) {}
  Status PutIfNotExists(std::string_view path, std::string_view bytes) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    ++creates;
    return FaultInjectingObjectStore::PutIfNotExists(path, bytes);
  }
  std::atomic<int> creates{0};

 private:
  int ms_;
};

TEST(ShardWriter, GroupCommitSharesEntries) {
  auto mem = io::MemoryObjectStore::Make();
  auto slow = std::make_shared<SlowCreates>(mem, 5);
  auto w = OpenOk(slow);
  constexpr int kThreads = 8, kPerThread = 25;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::map<int, uint64_t> position_of;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      uint64_t last = 0;
      for (int i = 0; i < kPerThread; ++i) {
        const int k = t * 1000 + i;
        auto r = w->AppendAndWait(*Batch(k, 2));
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_GT(r->position, last);  // one thread's appends land in order
        last = r->position;
        std::lock_guard<std::mutex> lock(mu);
        position_of[k] = r->position;
      }
    });
  }
  for (auto& th : threads) th.join();
  ShardWriterStats st = w->stats();
  ASSERT_TRUE(w->Close().ok());
  EXPECT_EQ(st.batches, kThreads * kPerThread);
  EXPECT_EQ(st.rows, 2 * kThreads * kPerThread);
  EXPECT_LT(st.entries, kThreads * kPerThread / 2) << "appenders did not share entries";
  // Every batch exactly once, in the entry its acknowledgement named.
  auto w2 = OpenOk(mem);
  std::vector<int> ids = BatchIds(w2->recovered());
  EXPECT_EQ(ids.size(), position_of.size());
  std::set<int> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size());
  for (const WalEntry& e : w2->recovered()) {
    for (int k : BatchIds({e})) EXPECT_EQ(position_of.at(k), e.position);
  }
}

TEST(ShardWriter, AsyncAppendsCompleteInOrder) {
  auto mem = io::MemoryObjectStore::Make();
  auto w = OpenOk(mem);
  std::vector<std::future<Result<WalAck>>> futures;
  for (int k = 0; k < 200; ++k) futures.push_back(w->Append(*Batch(k, 1)));
  uint64_t last = 0;
  for (auto& f : futures) {
    auto r = f.get();
    ASSERT_TRUE(r.ok());
    EXPECT_GE(r->position, last);
    last = r->position;
  }
  std::atomic<int> callbacks{0};
  ASSERT_TRUE(w->Append(*Batch(500, 1), false, [&](const Result<WalAck>& r) {
    EXPECT_TRUE(r.ok());
    ++callbacks;
  }).ok());
  ASSERT_TRUE(w->Close().ok());  // writes what is queued first
  EXPECT_EQ(callbacks.load(), 1);
  auto w2 = OpenOk(mem);
  EXPECT_EQ(BatchIds(w2->recovered()).size(), 201u);
}

TEST(ShardWriter, LostAcknowledgementIsNotWrittenTwice) {
  auto mem = io::MemoryObjectStore::Make();
  auto faulty = std::make_shared<io::FaultInjectingObjectStore>(mem);
  auto w = OpenOk(faulty);
  faulty->AddRule({io::OpBit(io::ObjectOp::kPutIfNotExists), "*/wal/*", 1, 1,
                   io::FaultAction::kLoseAck});
  auto r = w->AppendAndWait(*Batch(1));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->position, 1u);
  EXPECT_EQ(w->stats().io_retries, 1);
  auto r2 = w->AppendAndWait(*Batch(2));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->position, 2u);
  EXPECT_EQ(*WalReader(mem, kRoot, kShard).ListPositions(), (std::vector<uint64_t>{1, 2}));
  // A failed create is retried at the same position.
  faulty->ClearRules();
  faulty->AddRule({io::OpBit(io::ObjectOp::kPutIfNotExists), "*/wal/*", 1, 2,
                   io::FaultAction::kFail});
  auto r3 = w->AppendAndWait(*Batch(3));
  ASSERT_TRUE(r3.ok()) << r3.status().ToString();
  EXPECT_EQ(r3->position, 3u);
}

TEST(ShardWriter, PersistentFailurePoisons) {
  auto mem = io::MemoryObjectStore::Make();
  auto faulty = std::make_shared<io::FaultInjectingObjectStore>(mem);
  auto w = OpenOk(faulty);
  ASSERT_TRUE(w->AppendAndWait(*Batch(1)).ok());
  faulty->AddRule({io::OpBit(io::ObjectOp::kPutIfNotExists), "*/wal/*", 1, -1,
                   io::FaultAction::kFail});
  auto r = w->AppendAndWait(*Batch(2));
  ASSERT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_THAT(r.status().message(), HasSubstr("after 4 attempts"));
  faulty->ClearRules();
  // Poisoned: nothing more is written even though the store works again.
  EXPECT_TRUE(w->Append(*Batch(3)).get().status().IsIOError());
  EXPECT_TRUE(w->Close().IsIOError());
  auto w2 = OpenOk(mem);
  EXPECT_EQ(BatchIds(w2->recovered()), (std::vector<int>{1}));
}

// A "crash" at every object-store operation of a writer's life (open, five appends), with the
// failing operation either not performed or performed without acknowledgement: recovery by a
// new writer finds every acknowledged batch exactly once and no batch twice.
TEST(ShardWriter, CrashAtEveryOperation) {
  // Count the operations of a clean run first.
  int64_t total = 0;
  {
    auto mem = io::MemoryObjectStore::Make();
    auto faulty = std::make_shared<io::FaultInjectingObjectStore>(mem);
    {
      auto w = OpenOk(faulty);
      ASSERT_TRUE(w->AppendAndWait(*Batch(0)).ok());  // a previous writer's entry
    }
    faulty->ResetCounts();
    auto w = OpenOk(faulty);
    for (int k = 1; k <= 5; ++k) ASSERT_TRUE(w->AppendAndWait(*Batch(k)).ok());
    total = faulty->total_count();
  }
  ASSERT_GT(total, 10);
  int scenarios = 0;
  for (io::FaultAction action : {io::FaultAction::kFail, io::FaultAction::kLoseAck}) {
    for (int64_t n = 0; n <= total; ++n) {
      auto mem = io::MemoryObjectStore::Make();
      {
        auto w0 = OpenOk(mem);
        ASSERT_TRUE(w0->AppendAndWait(*Batch(0)).ok());
      }
      auto faulty = std::make_shared<io::FaultInjectingObjectStore>(mem);
      faulty->CrashAfter(n, action);
      std::vector<int> acked = {0};
      {
        auto w = ShardWriter::Open(faulty, kRoot, kShard, Options());
        if (w.ok()) {
          for (int k = 1; k <= 5; ++k) {
            auto r = (*w)->AppendAndWait(*Batch(k));
            if (!r.ok()) break;
            acked.push_back(k);
          }
        }
      }
      auto rec = ShardWriter::Open(mem, kRoot, kShard, Options());
      ASSERT_TRUE(rec.ok()) << "crash after " << n << ": " << rec.status().ToString();
      std::vector<int> ids = BatchIds((*rec)->recovered());
      std::set<int> unique(ids.begin(), ids.end());
      EXPECT_EQ(unique.size(), ids.size()) << "crash after " << n << ": a batch twice";
      for (int k : acked) {
        EXPECT_TRUE(unique.count(k)) << "crash after " << n << ": acknowledged batch " << k << " lost";
      }
      EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << "crash after " << n;
      // The recovered shard keeps working.
      EXPECT_TRUE((*rec)->AppendAndWait(*Batch(9)).ok());
      ++scenarios;
    }
  }
  EXPECT_EQ(scenarios, 2 * (total + 1));
}

}  // namespace
}  // namespace lance::memwal
