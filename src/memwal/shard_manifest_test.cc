// Shard manifests: codec (the bytes lance 12 writes, unknown fields kept), version discovery
// (hint, probing, stale / missing / garbage hints, removed versions), claims, fenced updates,
// lost races and lost acknowledgements over the fault-injecting store, SEALED shards.
#include "lance/memwal/shard_manifest.h"

#include <atomic>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lance/io/fault_injecting_object_store.h"
#include "lance/io/memory_object_store.h"
#include "lance/memwal/layout.h"
#include "memwal/proto/memwal.pb.h"

namespace lance::memwal {
namespace {

using ::testing::HasSubstr;

const Uuid kManifestShard = *Uuid::Parse("4a388480-a25b-59a8-b058-24217f980256");

ShardManifestStoreOptions Fast() {
  ShardManifestStoreOptions o;
  o.io_retry_backoff_ms = 0;
  return o;
}

TEST(ShardManifestCodec, ReferenceBytesOfAFirstClaim) {
  // Version 1 of a shard lance 12 claimed (FORMAT-NOTES 10.3): version 1, epoch 1,
  // current_generation 1, spec 1, the shard id; every other field at its default.
  const std::string ref = std::string("\x08\x01\x10\x01\x30\x01\x50\x01\x5a\x12\x0a\x10", 12) +
                          kManifestShard.ToBytes();
  auto m = DecodeShardManifest(ref, "ref");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->version, 1u);
  EXPECT_EQ(m->writer_epoch, 1u);
  EXPECT_EQ(m->current_generation, 1u);
  EXPECT_EQ(m->shard_spec_id, 1u);
  EXPECT_EQ(m->shard_id, kManifestShard);
  EXPECT_EQ(m->status, ShardStatus::kActive);
  EXPECT_EQ(EncodeShardManifest(*m), ref);
}

TEST(ShardManifestCodec, RoundTripAndUnknownFields) {
  ShardManifest m;
  m.shard_id = kManifestShard;
  m.version = 7;
  m.shard_spec_id = 3;
  m.shard_field_entries = {{"bucket", std::string("\x02\x00\x00\x00", 4)}};
  m.writer_epoch = 4;
  m.replay_after_wal_entry_position = 12;
  m.wal_entry_position_last_seen = 15;
  m.current_generation = 3;
  m.flushed_generations = {{1, "abc12345_gen_1", 100, 5, 40},
                           {2, "def67890_gen_2", std::nullopt, std::nullopt, std::nullopt}};
  m.status = ShardStatus::kSealed;
  std::string bytes = EncodeShardManifest(m);
  // A field from a newer writer (number 99, varint 5) survives decode + encode.
  bytes += std::string("\x98\x06\x05", 3);
  auto back = DecodeShardManifest(bytes, "x");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_FALSE(back->unknown_fields.empty());
  EXPECT_EQ(EncodeShardManifest(*back), bytes);
  ShardManifest cmp = *back;
  cmp.unknown_fields.clear();
  EXPECT_EQ(cmp, m);
  EXPECT_THAT(ShardManifestToJson(m), HasSubstr("\"status\":\"SEALED\""));
  EXPECT_THAT(ShardManifestToJson(m), HasSubstr("\"value_hex\":\"02000000\""));
}

TEST(ShardManifestCodec, CorruptInputIsAnError) {
  EXPECT_TRUE(DecodeShardManifest("\xff\xff\xff", "bad").status().IsCorruption());
  EXPECT_THAT(DecodeShardManifest(std::string("\x08\x01", 2), "nouuid").status().message(),
              HasSubstr("shard_id"));
  const std::string short_id = std::string("\x5a\x05\x0a\x03xyz", 7);
  EXPECT_THAT(DecodeShardManifest(short_id, "short").status().message(), HasSubstr("16 bytes"));
  pb::ShardManifest p;
  p.mutable_shard_id()->set_uuid(kManifestShard.ToBytes());
  p.set_status(static_cast<pb::ShardStatus>(7));
  EXPECT_THAT(DecodeShardManifest(p.SerializeAsString(), "st").status().message(),
              HasSubstr("status is 7"));
}

class ShardManifestStoreTest : public ::testing::Test {
 protected:
  std::shared_ptr<io::MemoryObjectStore> mem_ = io::MemoryObjectStore::Make();
  std::string root_ = "t.lance";
  ShardManifestStore Store(std::shared_ptr<io::ObjectStore> s = nullptr) {
    return ShardManifestStore(s ? s : mem_, root_, kManifestShard, Fast());
  }
};

TEST_F(ShardManifestStoreTest, ClaimNewShardThenReclaim) {
  ShardManifestStore s = Store();
  EXPECT_EQ(*s.LatestVersion(), 0u);
  EXPECT_FALSE(s.Latest()->has_value());
  auto c1 = s.Claim(1, {{"bucket", std::string(4, '\0')}});
  ASSERT_TRUE(c1.ok()) << c1.status().ToString();
  EXPECT_EQ(c1->version, 1u);
  EXPECT_EQ(c1->writer_epoch, 1u);
  EXPECT_EQ(c1->current_generation, 1u);
  EXPECT_EQ(c1->shard_spec_id, 1u);
  ASSERT_EQ(c1->shard_field_entries.size(), 1u);
  EXPECT_EQ(std::string((*mem_->Get(VersionHintPath(root_, kManifestShard)))->view()), "{\"version\":1}");
  auto c2 = Store().Claim(9, {});  // another process: spec and values stay the shard's
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->version, 2u);
  EXPECT_EQ(c2->writer_epoch, 2u);
  EXPECT_EQ(c2->shard_spec_id, 1u);
  EXPECT_EQ(c2->shard_field_entries.size(), 1u);
  EXPECT_EQ(*Store().LatestVersion(), 2u);
  EXPECT_EQ(*Store().ListVersions(), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(*Store().Read(2), *c2);
}

TEST_F(ShardManifestStoreTest, VersionDiscoveryWithStaleMissingOrBadHints) {
  ShardManifestStore s = Store();
  ASSERT_TRUE(s.Claim(1, {}).ok());
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(s.CommitUpdate(1, [](ShardManifest* m) {
      ++m->current_generation;
      return Status::OK();
    }).ok());
  }
  ASSERT_EQ(*Store().LatestVersion(), 5u);
  const std::string hint = VersionHintPath(root_, kManifestShard);
  ASSERT_TRUE(mem_->Put(hint, "{\"version\":2}").ok());  // stale: probe forward
  EXPECT_EQ(*Store().LatestVersion(), 5u);
  ASSERT_TRUE(mem_->Put(hint, "{\"version\":90}").ok());  // ahead: restart from 1
  EXPECT_EQ(*Store().LatestVersion(), 5u);
  ASSERT_TRUE(mem_->Put(hint, "not json").ok());
  EXPECT_EQ(*Store().LatestVersion(), 5u);
  ASSERT_TRUE(mem_->Delete(hint).ok());
  EXPECT_EQ(*Store().LatestVersion(), 5u);
  // Old versions removed and the hint gone: a listing finds the newest.
  ASSERT_TRUE(mem_->Delete(ShardManifestPath(root_, kManifestShard, 1)).ok());
  ASSERT_TRUE(mem_->Delete(ShardManifestPath(root_, kManifestShard, 2)).ok());
  EXPECT_EQ(*Store().LatestVersion(), 5u);
  EXPECT_EQ((*Store().Latest())->current_generation, 5u);
  // A manifest whose content names another version is corrupt.
  ASSERT_TRUE(mem_->Put(ShardManifestPath(root_, kManifestShard, 6),
                        EncodeShardManifest(**Store().Latest()))
                  .ok());
  EXPECT_THAT(Store().Latest().status().message(), HasSubstr("says version 5"));
}

TEST_F(ShardManifestStoreTest, NewerClaimFencesUpdates) {
  ShardManifestStore a = Store();
  ASSERT_TRUE(a.Claim(1, {}).ok());
  ShardManifestStore b = Store();
  auto cb = b.Claim(1, {});
  ASSERT_TRUE(cb.ok());
  EXPECT_EQ(cb->writer_epoch, 2u);
  // a still believes version 1 is the latest: its create of version 2 loses, it reloads and
  // finds epoch 2.
  auto up = a.CommitUpdate(1, [](ShardManifest* m) {
    m->replay_after_wal_entry_position = 9;
    return Status::OK();
  });
  EXPECT_TRUE(up.status().IsFenced()) << up.status().ToString();
  EXPECT_THAT(up.status().message(), HasSubstr("epoch 1 was fenced by epoch 2"));
  EXPECT_EQ((*Store().Latest())->replay_after_wal_entry_position, 0u);
  EXPECT_TRUE(a.CommitUpdate(1, [](ShardManifest*) { return Status::OK(); }).status().IsFenced());
  EXPECT_TRUE(b.CommitUpdate(2, [](ShardManifest*) { return Status::OK(); }).ok());
  // An epoch nobody claimed is a caller error.
  EXPECT_TRUE(b.CommitUpdate(5, [](ShardManifest*) { return Status::OK(); })
                  .status()
                  .IsInvalidArgument());
  // mutate's error aborts without writing.
  auto before = *Store().LatestVersion();
  EXPECT_TRUE(b.CommitUpdate(2, [](ShardManifest*) { return Status::Cancelled("no"); })
                  .status()
                  .IsCancelled());
  EXPECT_EQ(*Store().LatestVersion(), before);
}

TEST_F(ShardManifestStoreTest, SameEpochRaceReloadsAndRetries) {
  // Two handles of one writer (same epoch) update concurrently: the loser of each round
  // reloads and builds on the winner; no update is lost.
  ShardManifestStore a = Store();
  ASSERT_TRUE(a.Claim(1, {}).ok());
  ShardManifestStore b = Store();
  ASSERT_TRUE(b.CommitUpdate(1, [](ShardManifest* m) {
    m->flushed_generations.push_back({1, "aaaaaaaa_gen_1", {}, {}, {}});
    return Status::OK();
  }).ok());
  auto up = a.CommitUpdate(1, [](ShardManifest* m) {
    m->flushed_generations.push_back({2, "bbbbbbbb_gen_2", {}, {}, {}});
    return Status::OK();
  });
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_EQ(up->version, 3u);
  ASSERT_EQ(up->flushed_generations.size(), 2u);
  EXPECT_EQ(up->flushed_generations[0].generation, 1u);
}

TEST_F(ShardManifestStoreTest, ConcurrentClaimsNeverShareAnEpoch) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<Result<ShardManifest>> results(kThreads, Status::Internal("unset"));
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ShardManifestStore s(mem_, root_, kManifestShard, Fast());
      results[static_cast<size_t>(t)] = s.Claim(1, {});
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint64_t> epochs;
  int won = 0;
  for (const auto& r : results) {
    if (r.ok()) {
      ++won;
      EXPECT_TRUE(epochs.insert(r->writer_epoch).second) << "epoch " << r->writer_epoch << " twice";
      EXPECT_EQ(r->version, r->writer_epoch);
    } else {
      EXPECT_TRUE(r.status().IsFenced()) << r.status().ToString();
    }
  }
  EXPECT_GE(won, 1);
  EXPECT_EQ((*Store().Latest())->writer_epoch, static_cast<uint64_t>(*epochs.rbegin()));
  EXPECT_EQ(*Store().LatestVersion(), static_cast<uint64_t>(won));
}

TEST_F(ShardManifestStoreTest, LostAcknowledgements) {
  auto faulty = std::make_shared<io::FaultInjectingObjectStore>(mem_);
  ShardManifestStore s = Store(faulty);
  // A claim whose create landed but reported an error is never taken as ours: the store
  // claims again one epoch higher.
  faulty->AddRule({io::OpBit(io::ObjectOp::kPutIfNotExists), "*.binpb", 1, 1,
                   io::FaultAction::kLoseAck});
  auto c = s.Claim(1, {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->version, 2u);
  EXPECT_EQ(c->writer_epoch, 2u);
  // An update whose create landed is recognised by its bytes: exactly one new version.
  faulty->ClearRules();
  faulty->AddRule({io::OpBit(io::ObjectOp::kPutIfNotExists), "*.binpb", 1, 1,
                   io::FaultAction::kLoseAck});
  auto u = s.CommitUpdate(2, [](ShardManifest* m) {
    m->wal_entry_position_last_seen = 4;
    return Status::OK();
  });
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->version, 3u);
  EXPECT_EQ(*Store().LatestVersion(), 3u);
  // A failed create is retried.
  faulty->ClearRules();
  faulty->AddRule({io::OpBit(io::ObjectOp::kPutIfNotExists), "*.binpb", 1, 2,
                   io::FaultAction::kFail});
  auto r = s.CommitUpdate(2, [](ShardManifest* m) {
    m->current_generation = 2;
    return Status::OK();
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, 4u);
  // Failing every attempt gives IOError and writes nothing.
  faulty->ClearRules();
  faulty->AddRule({io::OpBit(io::ObjectOp::kPutIfNotExists), "*.binpb", 1, -1,
                   io::FaultAction::kFail});
  auto f = s.CommitUpdate(2, [](ShardManifest*) { return Status::OK(); });
  EXPECT_TRUE(f.status().IsIOError()) << f.status().ToString();
  EXPECT_EQ(*Store().LatestVersion(), 4u);
  // A failing hint write does not fail the update.
  faulty->ClearRules();
  faulty->AddRule({io::OpBit(io::ObjectOp::kPut), "*version_hint.json", 1, -1,
                   io::FaultAction::kFail});
  EXPECT_TRUE(s.CommitUpdate(2, [](ShardManifest*) { return Status::OK(); }).ok());
  EXPECT_EQ(*Store().LatestVersion(), 5u);
}

TEST_F(ShardManifestStoreTest, SealedShardsRefuseClaims) {
  ShardManifestStore w = Store();
  ASSERT_TRUE(w.Claim(1, {}).ok());
  auto sealed = Store().Seal();
  ASSERT_TRUE(sealed.ok());
  EXPECT_EQ(sealed->status, ShardStatus::kSealed);
  EXPECT_EQ(sealed->writer_epoch, 2u);
  // The live writer is fenced by the seal; new claims are refused while sealed.
  EXPECT_TRUE(w.CommitUpdate(1, [](ShardManifest*) { return Status::OK(); }).status().IsFenced());
  auto refused = Store().Claim(1, {});
  EXPECT_TRUE(refused.status().IsInvalidArgument());
  EXPECT_THAT(refused.status().message(), HasSubstr("SEALED"));
  auto active = Store().Unseal();
  ASSERT_TRUE(active.ok());
  EXPECT_EQ(active->status, ShardStatus::kActive);
  auto again = Store().Claim(1, {});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->writer_epoch, 3u);
  EXPECT_TRUE(ShardManifestStore(mem_, "other", kManifestShard).Seal().status().IsNotFound());
}

TEST_F(ShardManifestStoreTest, ListShards) {
  ASSERT_TRUE(Store().Claim(1, {}).ok());
  Uuid other = BucketShardId(3);
  ASSERT_TRUE(ShardManifestStore(mem_, root_, other).Claim(1, {}).ok());
  ASSERT_TRUE(mem_->Put(root_ + "/_mem_wal/not-a-uuid/x", "y").ok());
  auto shards = ListShards(*mem_, root_);
  ASSERT_TRUE(shards.ok());
  std::vector<Uuid> want = {kManifestShard, other};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(*shards, want);
  EXPECT_TRUE(ListShards(*mem_, "nothing")->empty());
}

}  // namespace
}  // namespace lance::memwal
