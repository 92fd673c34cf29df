// KeyIndex: every key once with its first and newest rows, across growth and colliding slots.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "lance/memwal/key_index.h"

namespace lance::memwal {
namespace {

TEST(KeyIndex, InsertsOnceAndFindsEveryKeyAcrossGrowth) {
  KeyIndex x;
  std::map<std::string, KeyIndex::Entry> model;
  for (uint32_t pos = 0; pos < 20000; ++pos) {
    // 6000 distinct keys of 0 to 40 bytes (embedded NULs included), each seen 3-4 times.
    const uint32_t k = (pos * 7919u) % 6000u;
    std::string key(k % 41, '\0');
    for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<char>((k >> (i % 13)) * 31 + i);
    key += std::to_string(k);
    auto [e, fresh] = x.Upsert(key, KeyIndex::Hash(key), pos);
    auto [m, mfresh] = model.try_emplace(key, KeyIndex::Entry{pos, pos});
    ASSERT_EQ(fresh, mfresh) << pos;
    if (!fresh) {
      e->newest = pos;
      m->second.newest = pos;
    }
  }
  EXPECT_EQ(x.size(), model.size());
  for (const auto& [key, want] : model) {
    const KeyIndex::Entry* e = x.Find(key);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->first, want.first);
    EXPECT_EQ(e->newest, want.newest);
  }
  EXPECT_EQ(x.Find("absent"), nullptr);
  EXPECT_EQ(KeyIndex().Find("x"), nullptr);
  size_t n = 0;
  uint32_t last_first = 0;
  x.ForEach([&](const KeyIndex::Entry& e) {
    if (n++ > 0) {
      EXPECT_GT(e.first, last_first);  // insertion order
    }
    last_first = e.first;
  });
  EXPECT_EQ(n, model.size());
}

TEST(KeyIndex, EmptyKeyAndPrefixesAreDistinct) {
  KeyIndex x;
  EXPECT_TRUE(x.Upsert("", KeyIndex::Hash(""), 0).second);
  EXPECT_TRUE(x.Upsert(std::string(1, '\0'), KeyIndex::Hash(std::string(1, '\0')), 1).second);
  EXPECT_TRUE(x.Upsert("ab", KeyIndex::Hash("ab"), 2).second);
  EXPECT_TRUE(x.Upsert("abc", KeyIndex::Hash("abc"), 3).second);
  EXPECT_FALSE(x.Upsert("ab", KeyIndex::Hash("ab"), 4).second);
  EXPECT_EQ(x.size(), 4u);
  EXPECT_EQ(x.Find("")->first, 0u);
  EXPECT_EQ(x.Find(std::string(1, '\0'))->first, 1u);
  EXPECT_EQ(x.Find("abc")->first, 3u);
}

}  // namespace
}  // namespace lance::memwal
