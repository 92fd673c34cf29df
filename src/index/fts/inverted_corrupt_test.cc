// Damaged inverted-index bytes end in a Status, never a crash:
//   * the fuzz target's body (inverted_files_fuzz.cc) over its seed corpus (lance 12's fst
//     dictionary, full and tail posting blocks, a packed position stream) with every truncation
//     at 41 points and single-byte changes at 300 positions;
//   * every file of the golden's body index truncated and damaged in turn: Open, then every
//     token's postings and a search, fail cleanly or succeed. Errors name the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

// (renamed: the scalar corruption test in this binary links its own target's body)
#define LLVMFuzzerTestOneInput InvertedFilesFuzzOne
#include "index/fts/inverted_files_fuzz.cc"
#undef LLVMFuzzerTestOneInput
#include "lance/index/fts/inverted_index.h"
#include "lance/index/index_store.h"
#include "lance/io/memory_object_store.h"
#include "table_fixtures/fuzz_seed_test_util.h"

namespace {

namespace fs = std::filesystem;
using lance::index::IndexStore;
using lance::index::fts::InvertedIndex;
using lance::index::fts::MatchMode;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void FeedInverted(const std::string& bytes) {
  InvertedFilesFuzzOne(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(CorruptInvertedIndex, SeedsTruncatedAndDamagedNeverCrash) {
  const auto seeds = lance::test::FuzzSeeds("inverted_files_fuzz");
  for (const std::string& seed : seeds) lance::test::FeedDamaged(seed, 2, 40, 300, FeedInverted);
  EXPECT_EQ(seeds.size(), 5u);
}

// Opens the index from `files` and uses all of it; returns the status of the first failure.
lance::Status UseAll(const std::map<std::string, std::string>& files) {
  auto mem = lance::io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "t.lance/_indices/x");
  for (const auto& [name, bytes] : files) {
    LANCE_RETURN_NOT_OK(mem->Put(store->PathOf(name), bytes));
  }
  LANCE_ASSIGN_OR_RAISE(auto index, InvertedIndex::Open(store));
  for (const auto& part : index->partitions()) {
    for (const auto& [token, id] : part->tokens()) LANCE_RETURN_NOT_OK(part->Postings(id, true).status());
  }
  for (MatchMode mode : {MatchMode::kAny, MatchMode::kAll, MatchMode::kPhrase}) {
    LANCE_RETURN_NOT_OK(index->Search({"lanc", "search", "quick"}, {0, 1, 2}, mode, nullptr, 5).status());
  }
  return lance::Status::OK();
}

TEST(CorruptInvertedIndex, DamagedFilesOfTheGoldenIndex) {
  const fs::path golden = fs::path(__FILE__).parent_path() / "../../../tests/golden/fts_index/fts.lance/_indices";
  std::map<std::string, std::string> files;
  for (const auto& d : fs::directory_iterator(golden)) {
    const std::string meta = ReadFile(d.path() / "metadata.lance");
    if (meta.find("\\\"with_position\\\":true") == std::string::npos &&
        meta.find("\"with_position\":true") == std::string::npos) {
      continue;
    }
    for (const auto& f : fs::directory_iterator(d.path())) files[f.path().filename().string()] = ReadFile(f.path());
  }
  ASSERT_EQ(files.size(), 7u) << "the body index: metadata and two partitions of three files";
  ASSERT_TRUE(UseAll(files).ok()) << UseAll(files).ToString();
  for (const auto& [name, bytes] : files) {
    for (size_t k = 0; k < 20; ++k) {
      auto damaged = files;
      damaged[name] = bytes.substr(0, bytes.size() * k / 20);
      const lance::Status st = UseAll(damaged);
      ASSERT_FALSE(st.ok()) << name << " cut at " << k << "/20";
      EXPECT_NE(st.ToString().find(name), std::string::npos) << st.ToString();
    }
    for (size_t k = 0; k < 60; ++k) {
      auto damaged = files;
      std::string& s = damaged[name];
      const size_t at = (k * 104729) % s.size();
      s[at] = static_cast<char>(s[at] ^ (1 + k % 255));
      (void)UseAll(damaged);  // any status; no crash
    }
  }
  // a file missing
  auto missing = files;
  missing.erase("part_1_docs.lance");
  const lance::Status st = UseAll(missing);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("part_1_docs.lance"), std::string::npos) << st.ToString();
}

}  // namespace
