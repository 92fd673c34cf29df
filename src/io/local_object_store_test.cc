// Local-filesystem specifics: multi-process races, crash (SIGKILL) atomicity, temp files,
// memory-mapped Get.
#include "lance/io/local_object_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "io/object_store_test_util.h"

namespace lance::io {
namespace {

using testing::CheckPayload;
using testing::MakePayload;
using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Exit codes of a racing child.
constexpr int kChildWon = 0;
constexpr int kChildLost = 1;
constexpr int kChildError = 2;

TEST(LocalObjectStoreTest, PutIfNotExistsForkedProcessRace) {
  TempDir dir;
  constexpr int kChildren = 8;
  for (int round = 0; round < 6; ++round) {
    const std::string path = "commits/" + std::to_string(round) + ".manifest";
    int gate[2];
    ASSERT_EQ(::pipe(gate), 0);
    std::vector<pid_t> pids;
    for (int c = 0; c < kChildren; ++c) {
      pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        ::close(gate[1]);
        auto store = LocalObjectStore::Make(dir.path());
        if (!store.ok()) ::_exit(kChildError);
        const std::string payload = MakePayload(100 * round + c, 16 + 65536 * (c + 1));
        char byte;
        (void)!::read(gate[0], &byte, 1);  // returns 0 when the parent opens the gate
        Status st = (*store)->PutIfNotExists(path, payload);
        ::_exit(st.ok() ? kChildWon : st.IsAlreadyExists() ? kChildLost : kChildError);
      }
      pids.push_back(pid);
    }
    ::close(gate[0]);
    ::close(gate[1]);  // all children start together
    int winners = 0, winner = -1;
    for (int c = 0; c < kChildren; ++c) {
      int status = 0;
      ASSERT_EQ(::waitpid(pids[c], &status, 0), pids[c]);
      ASSERT_TRUE(WIFEXITED(status));
      const int code = WEXITSTATUS(status);
      ASSERT_NE(code, kChildError) << "child " << c << " failed with an unexpected error";
      if (code == kChildWon) {
        ++winners;
        winner = c;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(ReadFile(dir.path() + "/" + path), MakePayload(100 * round + winner, 16 + 65536 * (winner + 1)));
  }
  auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
  EXPECT_EQ(store->List("commits")->size(), 6u);
  EXPECT_TRUE(store->ListTempFiles("")->empty());  // losers cleaned up after themselves
}

// A child keeps publishing large objects (Put, PutIfNotExists and streaming writers) and is
// SIGKILLed at a random moment. Every object visible afterwards must be complete, and List
// must show nothing but published objects.
TEST(LocalObjectStoreTest, SigkillDuringWritesNeverExposesPartialObjects) {
  TempDir dir;
  std::mt19937_64 rng(20261129);
  int rounds_with_garbage = 0;
  constexpr int kRounds = 16;
  for (int round = 0; round < kRounds; ++round) {
    const std::string prefix = "crash" + std::to_string(round);
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(ready[0]);
      auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
      (void)!::write(ready[1], "r", 1);
      for (uint64_t k = 0;; ++k) {
        const size_t size = 16 + (1 << 20) + (k * 104729) % (3 << 20);
        const std::string payload = MakePayload(k, size);
        switch (k % 3) {
          case 0:
            (void)store->Put(prefix + "/replaced", payload);
            break;
          case 1:
            (void)store->PutIfNotExists(prefix + "/once/" + std::to_string(k), payload);
            break;
          default: {
            auto w = store->OpenWriter(prefix + "/streamed/" + std::to_string(k));
            if (!w.ok()) ::_exit(kChildError);
            for (size_t pos = 0; pos < size; pos += 100000) {
              (void)(*w)->Write(std::string_view(payload).substr(pos, 100000));
            }
            (void)(*w)->Close();
          }
        }
      }
    }
    ::close(ready[1]);
    char byte;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    std::this_thread::sleep_for(std::chrono::microseconds(1000 + rng() % 60000));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself";

    auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
    auto listed = store->List(prefix);
    ASSERT_TRUE(listed.ok()) << listed.status().ToString();
    for (const ObjectMeta& m : *listed) {
      EXPECT_EQ(m.path.find(".lance-tmp."), std::string::npos) << m.path;
      auto bytes = store->Get(m.path);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      EXPECT_GE(CheckPayload((*bytes)->view()), 0) << "partial object " << m.path;
      EXPECT_EQ((*bytes)->size(), m.size);
    }
    auto temps = store->ListTempFiles(prefix);
    ASSERT_TRUE(temps.ok());
    if (!temps->empty()) ++rounds_with_garbage;
    // Sweeping removes the leftovers and nothing published.
    auto removed = store->RemoveTempFiles(prefix, 0);
    ASSERT_TRUE(removed.ok());
    EXPECT_EQ(*removed, static_cast<int64_t>(temps->size()));
    EXPECT_TRUE(store->ListTempFiles(prefix)->empty());
    EXPECT_EQ(store->List(prefix)->size(), listed->size());
  }
  // Informational: how often the kill landed inside a write.
  std::cout << "[ info ] " << rounds_with_garbage << "/" << kRounds
            << " kills left a temp file behind\n";
}

TEST(LocalObjectStoreTest, TempFilesAreHiddenAndSweptByAge) {
  TempDir dir;
  auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
  ASSERT_TRUE(store->Put("a/obj", "x").ok());
  std::ofstream(dir.path() + "/a/.lance-tmp.obj.1.2.3") << "partial";
  std::ofstream(dir.path() + "/.lance-tmp.top") << "partial";
  auto listed = store->List("");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].path, "a/obj");
  EXPECT_EQ(store->ListDir("a")->objects.size(), 1u);
  EXPECT_EQ(*store->ListTempFiles(""),
            (std::vector<std::string>{".lance-tmp.top", "a/.lance-tmp.obj.1.2.3"}));
  EXPECT_EQ(*store->RemoveTempFiles("", 3600), 0);  // too young: may belong to a live writer
  EXPECT_EQ(*store->RemoveTempFiles("a", 0), 1);
  EXPECT_EQ(*store->ListTempFiles(""), std::vector<std::string>{".lance-tmp.top"});
}

// The unsynced twin: one per store, over the same files; a store that does not sync is its own.
TEST(LocalObjectStoreTest, UnsyncedTwinIsOnePerStoreOverTheSameFiles) {
  TempDir dir;
  auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
  auto twin = LocalObjectStore::Unsynced(store);
  ASSERT_NE(twin, nullptr);
  EXPECT_NE(twin, store);
  EXPECT_EQ(LocalObjectStore::Unsynced(store), twin);
  EXPECT_EQ(LocalObjectStore::Unsynced(twin), twin);
  EXPECT_EQ(twin->root(), store->root());
  ASSERT_TRUE(twin->Put("d/obj", "by the twin").ok());
  EXPECT_EQ((*store->Get("d/obj"))->view(), "by the twin");
  LocalObjectStoreOptions no_sync;
  no_sync.sync = false;
  auto plain = LocalObjectStore::Make(dir.path(), no_sync).ValueOrDie();
  EXPECT_EQ(LocalObjectStore::Unsynced(plain), plain);
  // Without writeback: a third store, made once, distinct from the writeback twin; a store
  // that neither syncs nor queues writeback is its own.
  auto quiet = LocalObjectStore::Unsynced(store, false);
  ASSERT_NE(quiet, nullptr);
  EXPECT_NE(quiet, store);
  EXPECT_NE(quiet, twin);
  EXPECT_EQ(LocalObjectStore::Unsynced(store, false), quiet);
  EXPECT_EQ(LocalObjectStore::Unsynced(store, true), twin);
  EXPECT_EQ(LocalObjectStore::Unsynced(twin, false), LocalObjectStore::Unsynced(twin, false));
  EXPECT_NE(LocalObjectStore::Unsynced(twin, false), twin);
  EXPECT_EQ(LocalObjectStore::Unsynced(quiet, false), quiet);
  EXPECT_EQ(LocalObjectStore::Unsynced(plain, false), plain);
  ASSERT_TRUE(quiet->Put("d/quiet", "by the quiet twin").ok());
  EXPECT_EQ((*store->Get("d/quiet"))->view(), "by the quiet twin");
}

// PutNew: the object under its own name, no temporary file or rename; a taken name is refused
// and keeps its bytes; a missing directory is made; a sync store flushes file and directory.
TEST(LocalObjectStoreTest, PutNewWritesInPlaceAndRefusesATakenName) {
  TempDir dir;
  auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
  auto twin = LocalObjectStore::Unsynced(store);
  const int64_t flushes = LocalFlushCount();
  ASSERT_TRUE(twin->PutNew("new/dir/obj", "first").ok());
  EXPECT_EQ(LocalFlushCount(), flushes);  // the twin flushes nothing
  EXPECT_EQ(ReadFile(dir.path() + "/new/dir/obj"), "first");
  const Status again = twin->PutNew("new/dir/obj", "second");
  EXPECT_TRUE(again.IsAlreadyExists()) << again.ToString();
  EXPECT_EQ((*store->Get("new/dir/obj"))->view(), "first");
  ASSERT_TRUE(store->PutNew("new/dir/synced", std::string(3000, 'x')).ok());
  EXPECT_EQ(LocalFlushCount(), flushes + 2);  // the file and its directory
  EXPECT_EQ((*store->Get("new/dir/synced"))->size(), 3000);
  EXPECT_TRUE(store->ListTempFiles("")->empty());
  EXPECT_TRUE(twin->PutNew("../escape", "x").IsInvalidArgument());
}

TEST(LocalObjectStoreTest, LargeGetIsMemoryMappedAndZeroCopy) {
  TempDir dir;
  LocalObjectStoreOptions options;
  options.mmap_threshold = 64 * 1024;
  auto store = LocalObjectStore::Make(dir.path(), options).ValueOrDie();
  ASSERT_TRUE(store->Put("big", MakePayload(9, 200000)).ok());
  ASSERT_TRUE(store->Put("small", MakePayload(10, 1000)).ok());
  auto big = store->Get("big").ValueOrDie();
  auto small = store->Get("small").ValueOrDie();
  EXPECT_EQ(CheckPayload(big->view()), 9);
  EXPECT_EQ(CheckPayload(small->view()), 10);
  // A mapping is page aligned, owned by a non-buffer owner and not padded; a read buffer is
  // allocated (padded to 64 bytes).
  EXPECT_TRUE(big->is_aligned(4096));
  EXPECT_NE(big->owner(), nullptr);
  EXPECT_EQ(big->capacity(), big->size());
  EXPECT_EQ(small->capacity() % 64, 0);
  EXPECT_GT(small->capacity(), small->size());
  // Slices share the mapping.
  auto slice = SliceBuffer(big, 100, 50);
  EXPECT_EQ(slice->data(), big->data() + 100);
  // Replacing the file does not disturb the mapping (files are never modified in place).
  ASSERT_TRUE(store->Put("big", MakePayload(11, 300000)).ok());
  EXPECT_EQ(CheckPayload(big->view()), 9);
  EXPECT_EQ(CheckPayload(store->Get("big").ValueOrDie()->view()), 11);
}

// Resident KiB of this process's mapping that starts at `addr` (/proc/self/smaps), -1 if none.
int64_t ResidentKiB(const void* addr) {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool in_it = false;
  const auto want = reinterpret_cast<uintptr_t>(addr);
  while (std::getline(in, line)) {
    const size_t dash = line.find('-');
    if (dash != std::string::npos && dash > 0 && line.find(' ') > dash &&
        line.find_first_not_of("0123456789abcdef") == dash) {
      in_it = std::stoull(line.substr(0, dash), nullptr, 16) == want;
    } else if (in_it && line.rfind("Rss:", 0) == 0) {
      return std::stoll(line.substr(4));
    }
  }
  return -1;
}

// ReleaseMappedPages drops a mapping's resident pages and nothing else: the bytes read back
// the same (even after the file was replaced), and buffers that are not a whole mapping made
// by Get are left alone.
TEST(LocalObjectStoreTest, ReleaseMappedPagesDropsResidentPagesOnly) {
  TempDir dir;
  auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
  ASSERT_TRUE(store->Put("big", MakePayload(21, 4 << 20)).ok());
  ASSERT_TRUE(store->Put("small", MakePayload(22, 1000)).ok());
  auto big = store->Get("big").ValueOrDie();
  EXPECT_EQ(CheckPayload(big->view()), 21);  // touches every page
  EXPECT_GE(ResidentKiB(big->data()), 4000);
  ASSERT_TRUE(store->Put("big", MakePayload(23, 4 << 20)).ok());  // replaced, not modified
  EXPECT_TRUE(ReleaseMappedPages(*big));
  EXPECT_EQ(ResidentKiB(big->data()), 0);
  EXPECT_EQ(CheckPayload(big->view()), 21);
  EXPECT_GE(ResidentKiB(big->data()), 4000);
  // Not a whole mapping made by Get: a slice, a read buffer, an allocation.
  EXPECT_FALSE(ReleaseMappedPages(*SliceBuffer(big, 4096, 8192)));
  auto small = store->Get("small").ValueOrDie();
  EXPECT_FALSE(ReleaseMappedPages(*small));
  EXPECT_EQ(CheckPayload(small->view()), 22);
  auto heap = AllocateBuffer(1 << 20).ValueOrDie();
  std::memset(heap->mutable_data(), 7, 1 << 20);
  EXPECT_FALSE(ReleaseMappedPages(*heap));
  EXPECT_EQ(heap->data()[12345], 7);
}

TEST(LocalObjectStoreTest, ObjectsAreRealFilesUnderTheRoot) {
  TempDir dir;
  auto store = LocalObjectStore::Make(dir.path() + "/nested/root/").ValueOrDie();
  EXPECT_EQ(store->root(), dir.path() + "/nested/root");
  EXPECT_EQ(store->scheme(), "file");
  ASSERT_TRUE(store->Put("x/y/z.txt", "hello").ok());
  EXPECT_EQ(ReadFile(dir.path() + "/nested/root/x/y/z.txt"), "hello");
  EXPECT_EQ(store->FullPath("x/y/z.txt"), dir.path() + "/nested/root/x/y/z.txt");
  // A file written behind the store's back is an object too.
  std::ofstream(dir.path() + "/nested/root/x/outside") << "abc";
  EXPECT_EQ(store->Head("x/outside")->size, 3);
}

TEST(LocalObjectStoreTest, ListFollowsFileLinksButNotDirectoryLinks) {
  TempDir dir;
  auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
  ASSERT_TRUE(store->Put("d/real", "abc").ok());
  ASSERT_EQ(::symlink((dir.path() + "/d/real").c_str(), (dir.path() + "/d/alias").c_str()), 0);
  ASSERT_EQ(::symlink(dir.path().c_str(), (dir.path() + "/d/loop").c_str()), 0);  // a cycle
  auto listed = store->List("");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].path, "d/alias");
  EXPECT_EQ((*listed)[0].size, 3);
  EXPECT_EQ((*listed)[1].path, "d/real");
  EXPECT_TRUE(store->ListDir("d")->directories.empty());
}

TEST(LocalObjectStoreTest, RemoveEmptyDirectoriesKeepsAnythingHoldingAnObject) {
  TempDir dir;
  auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
  ASSERT_TRUE(store->Put("g/a/b/x", "1").ok());
  ASSERT_TRUE(store->Put("g/c/y", "2").ok());
  ASSERT_TRUE(store->Put("other/z", "3").ok());
  ASSERT_TRUE(store->Delete("g/a/b/x").ok());
  ASSERT_TRUE(store->RemoveEmptyDirectories("g").ok());
  // g/a (emptied) went; g/c still holds y, so g stays.
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/g/a"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/g/c/y"));
  ASSERT_TRUE(store->Delete("g/c/y").ok());
  ASSERT_TRUE(store->RemoveEmptyDirectories("g/").ok());
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/g"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/other/z"));
  // A missing prefix and the store's root are no-ops.
  EXPECT_TRUE(store->RemoveEmptyDirectories("nope").ok());
  EXPECT_TRUE(store->RemoveEmptyDirectories("").ok());
  EXPECT_TRUE(std::filesystem::exists(dir.path()));
  // A directory link is never followed (its target keeps its objects).
  ASSERT_TRUE(store->Put("t/keep", "4").ok());
  std::filesystem::create_directories(dir.path() + "/h");
  ASSERT_EQ(::symlink((dir.path() + "/t").c_str(), (dir.path() + "/h/link").c_str()), 0);
  ASSERT_TRUE(store->RemoveEmptyDirectories("h").ok());
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/t/keep"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir.path() + "/h/link"));
}

TEST(LocalObjectStoreTest, RootThatIsAFileIsAnError) {
  TempDir dir;
  std::ofstream(dir.path() + "/file") << "x";
  auto r = LocalObjectStore::Make(dir.path() + "/file");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError()) << r.status().ToString();
  EXPECT_NE(r.status().message().find("/file"), std::string::npos);
}

TEST(LocalObjectStoreTest, ObjectUnderAFileIsAnIOErrorNamingThePath) {
  TempDir dir;
  auto store = LocalObjectStore::Make(dir.path()).ValueOrDie();
  ASSERT_TRUE(store->Put("f", "x").ok());
  Status st = store->Put("f/child", "y");
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find("f"), std::string::npos);
}

TEST(LocalObjectStoreTest, RelativeRootResolvesAgainstTheCurrentDirectory) {
  TempDir dir;
  char old_cwd[4096];
  ASSERT_NE(::getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  auto store = LocalObjectStore::Make("rel/store");
  ASSERT_EQ(::chdir(old_cwd), 0);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->root(), dir.path() + "/rel/store");
  ASSERT_TRUE((*store)->Put("o", "v").ok());
  EXPECT_EQ(ReadFile(dir.path() + "/rel/store/o"), "v");
}

}  // namespace
}  // namespace lance::io
