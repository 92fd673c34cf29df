#include "lance/io/fault_injecting_object_store.h"

#include <gtest/gtest.h>

#include "io/object_store_test_util.h"
#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"

namespace lance::io {
namespace {

using testing::TempDir;

class FaultInjectingObjectStoreTest : public ::testing::Test {
 protected:
  std::shared_ptr<MemoryObjectStore> base_ = MemoryObjectStore::Make();
  std::shared_ptr<FaultInjectingObjectStore> store_ =
      std::make_shared<FaultInjectingObjectStore>(base_);
};

TEST_F(FaultInjectingObjectStoreTest, FailsExactlyTheNthOperation) {
  store_->FailNthOperation(3);
  EXPECT_TRUE(store_->Put("a", "1").ok());             // 1
  EXPECT_TRUE(store_->Get("a").ok());                  // 2
  Status st = store_->Put("b", "2");                   // 3: fails, not performed
  EXPECT_TRUE(st.IsIOError());
  EXPECT_NE(st.message().find("injected"), std::string::npos);
  EXPECT_NE(st.message().find("'b'"), std::string::npos);
  EXPECT_TRUE(store_->Put("c", "3").ok());             // 4
  EXPECT_FALSE(*base_->Exists("b"));
  EXPECT_TRUE(*base_->Exists("c"));
  EXPECT_EQ(store_->faults_injected(), 1);
  EXPECT_EQ(store_->count(ObjectOp::kPut), 3);
  EXPECT_EQ(store_->count(ObjectOp::kGet), 1);
  EXPECT_EQ(store_->total_count(), 4);
}

TEST_F(FaultInjectingObjectStoreTest, CrashAfterFailsEverythingLater) {
  store_->CrashAfter(2, FaultAction::kLoseAck);
  EXPECT_TRUE(store_->Put("a", "1").ok());
  EXPECT_TRUE(store_->Put("b", "2").ok());
  EXPECT_TRUE(store_->Put("c", "3").IsIOError());  // performed, ack lost
  EXPECT_TRUE(store_->Put("d", "4").IsIOError());  // not performed
  EXPECT_TRUE(store_->Get("a").status().IsIOError());
  EXPECT_TRUE(*base_->Exists("c"));
  EXPECT_FALSE(*base_->Exists("d"));
  EXPECT_EQ(store_->faults_injected(), 3);
  store_->ClearRules();
  EXPECT_TRUE(store_->Get("a").ok());
}

TEST_F(FaultInjectingObjectStoreTest, LostAcknowledgementPerformsTheWrite) {
  FaultRule rule;
  rule.ops = OpBit(ObjectOp::kPutIfNotExists);
  rule.action = FaultAction::kLoseAck;
  store_->AddRule(rule);
  Status st = store_->PutIfNotExists("_versions/2.manifest", "m2");
  EXPECT_TRUE(st.IsIOError());
  EXPECT_NE(st.message().find("acknowledgement lost"), std::string::npos);
  // The write happened: a retry sees AlreadyExists, as a committer retrying after a lost ack
  // would, and must then check whether the existing object is its own.
  EXPECT_EQ(base_->Get("_versions/2.manifest").ValueOrDie()->view(), "m2");
  EXPECT_TRUE(store_->PutIfNotExists("_versions/2.manifest", "m2").IsAlreadyExists());
}

TEST_F(FaultInjectingObjectStoreTest, PathGlobTimesAndOpMask) {
  FaultRule rule;
  rule.ops = kMutatingObjectOps;
  rule.path_glob = "*/data/*.lance";
  rule.nth = 2;
  rule.times = 2;
  store_->AddRule(rule);
  EXPECT_TRUE(store_->Put("t/data/1.lance", "x").ok());    // match 1
  EXPECT_TRUE(store_->Put("t/_versions/1", "x").ok());     // no match
  EXPECT_TRUE(store_->Get("t/data/1.lance").ok());         // not a mutating op
  EXPECT_TRUE(store_->Put("t/data/2.lance", "x").IsIOError());      // match 2
  EXPECT_TRUE(store_->Delete("t/data/1.lance").IsIOError());        // match 3
  EXPECT_TRUE(store_->Put("t/data/3.lance", "x").ok());    // match 4: window over
  EXPECT_TRUE(*base_->Exists("t/data/1.lance"));
  EXPECT_FALSE(*base_->Exists("t/data/2.lance"));

  store_->ClearRules();
  rule.nth = 1;
  rule.times = -1;  // forever
  rule.ops = OpBit(ObjectOp::kCopy) | OpBit(ObjectOp::kRenameIfNotExists);
  store_->AddRule(rule);
  // Copies and renames match on either path.
  EXPECT_TRUE(store_->Copy("t/data/1.lance", "elsewhere").IsIOError());
  EXPECT_TRUE(store_->RenameIfNotExists("t/_versions/1", "u/data/z.lance").IsIOError());
  EXPECT_TRUE(store_->Copy("t/_versions/1", "plain").ok());
  for (int i = 0; i < 5; ++i) {
    EXPECT_TRUE(store_->Copy("t/data/3.lance", "again").IsIOError());
  }
}

TEST_F(FaultInjectingObjectStoreTest, WriterCloseFaults) {
  FaultRule rule;
  rule.ops = OpBit(ObjectOp::kWriterClose);
  rule.times = 1;
  store_->AddRule(rule);
  auto w = store_->OpenWriter("f1").ValueOrDie();
  ASSERT_TRUE(w->Write("abc").ok());
  EXPECT_TRUE(w->Close().IsIOError());
  EXPECT_FALSE(*base_->Exists("f1"));  // a failed close publishes nothing

  store_->ClearRules();
  rule.action = FaultAction::kLoseAck;
  store_->AddRule(rule);
  auto w2 = store_->OpenWriter("f2").ValueOrDie();
  ASSERT_TRUE(w2->Write("def").ok());
  EXPECT_TRUE(w2->Close().IsIOError());
  EXPECT_EQ(base_->Get("f2").ValueOrDie()->view(), "def");

  store_->ClearRules();
  rule.ops = OpBit(ObjectOp::kWriterWrite);
  rule.action = FaultAction::kFail;
  rule.nth = 2;
  store_->AddRule(rule);
  auto w3 = store_->OpenWriter("f3").ValueOrDie();
  EXPECT_TRUE(w3->Write("1").ok());
  EXPECT_TRUE(w3->Write("2").IsIOError());
  EXPECT_EQ(w3->bytes_written(), 1);
  EXPECT_EQ(store_->count(ObjectOp::kOpenWriter), 3);
}

TEST_F(FaultInjectingObjectStoreTest, MergedReadsCanBeFailedIndividually) {
  ASSERT_TRUE(base_->Put("obj", std::string(100000, 'x')).ok());
  store_->set_coalesce_options({0, 1 << 20});
  FaultRule rule;
  rule.ops = OpBit(ObjectOp::kGetRange);
  rule.nth = 3;
  store_->AddRule(rule);
  std::vector<Range> ranges;
  for (int i = 0; i < 10; ++i) ranges.push_back({i * 10000, 10});
  Status st = store_->GetRanges("obj", ranges).status();
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_EQ(store_->count(ObjectOp::kGetRange), 10);
  EXPECT_TRUE(store_->GetRanges("obj", ranges).ok());  // the rule fired once
}

TEST_F(FaultInjectingObjectStoreTest, ReaderReadsAreCountedAndFailable) {
  ASSERT_TRUE(base_->Put("r", std::string(50000, 'r')).ok());
  store_->set_coalesce_options({0, 1 << 20});
  FaultRule open_rule;
  open_rule.ops = OpBit(ObjectOp::kOpenReader);
  store_->AddRule(open_rule);
  EXPECT_TRUE(store_->OpenReader("r").status().IsIOError());
  auto reader = store_->OpenReader("r").ValueOrDie();
  FaultRule read_rule;
  read_rule.ops = OpBit(ObjectOp::kReaderRead);
  read_rule.nth = 2;
  store_->AddRule(read_rule);
  EXPECT_TRUE(reader->ReadAt(0, 10).ok());
  EXPECT_TRUE(reader->ReadAt(0, 10).status().IsIOError());
  store_->ResetCounts();
  std::vector<Range> ranges;
  for (int i = 0; i < 7; ++i) ranges.push_back({i * 5000, 10});
  ASSERT_TRUE(reader->ReadRanges(ranges).ok());
  EXPECT_EQ(store_->count(ObjectOp::kReaderRead), 7);  // one per merged read
  EXPECT_EQ(store_->count(ObjectOp::kOpenReader), 0);
}

TEST(FaultInjectingLocalTest, FailedPutLeavesOldVersionAndNoGarbage) {
  TempDir dir;
  auto local = LocalObjectStore::Make(dir.path()).ValueOrDie();
  auto store = std::make_shared<FaultInjectingObjectStore>(local);
  EXPECT_EQ(store->scheme(), "file");
  ASSERT_TRUE(store->Put("m", "v1").ok());
  store->FailNthOperation(1);
  EXPECT_TRUE(store->Put("m", "v2").IsIOError());
  EXPECT_EQ(store->Get("m").ValueOrDie()->view(), "v1");
  EXPECT_TRUE(local->ListTempFiles("")->empty());
}

}  // namespace
}  // namespace lance::io
