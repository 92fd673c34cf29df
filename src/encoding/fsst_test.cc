// FsstEncoder: training, longest-match compression and round trips through FsstSymbolTable's
// decoder on random, skewed and adversarial inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "encoding/fsst.h"
#include "encoding/fsst_encoder.h"

namespace lance::encoding {
namespace {

TEST(FsstEncoderTest, CompressesAndDecodes) {
  std::mt19937_64 rng(3);
  const char* words[] = {"alpha", "beta", "gamma", "delta", "lance", "\xff\x00bin", "zz"};
  std::vector<std::string> texts;
  for (int i = 0; i < 2000; ++i) {
    std::string t;
    const int n = static_cast<int>(rng() % 12);
    for (int k = 0; k < n; ++k) t += std::string(words[rng() % 7]) + (rng() % 3 ? " " : "");
    if (i % 50 == 0) t += std::string(1, static_cast<char>(rng() % 256));
    texts.push_back(t);
  }
  std::vector<std::string_view> sample(texts.begin(), texts.begin() + 500);
  const FsstEncoder enc = FsstEncoder::Train(sample);
  const std::string table = enc.SymbolTable();
  EXPECT_EQ(table.size(), kFsstSymbolTableBytes);
  EXPECT_GT(enc.num_symbols(), 10);
  auto parsed = FsstSymbolTable::Parse(table);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  size_t raw = 0, packed = 0;
  for (const auto& t : texts) {
    std::string codes, back;
    enc.Compress(t, &codes);
    ASSERT_TRUE(parsed->Decode(codes, &back).ok());
    ASSERT_EQ(back, t);
    raw += t.size();
    packed += codes.size();
  }
  EXPECT_LT(packed * 2, raw);  // these texts compress at least 2x
}

// The encoder's tables (the 3-byte hash slots, the 2-byte table, the tail of fewer than 8
// bytes) must pick what a scan of every symbol picks: the longest symbol matching at each
// position.
TEST(FsstEncoderTest, EmitsTheLongestMatchingSymbol) {
  std::mt19937_64 rng(7);
  // Words sharing 3-byte prefixes (several symbols per slot) and 2-byte ones.
  const char* words[] = {"lancedb", "lance", "lan", "lantern", "land", "la", "tab", "table", "tables", "t", "x"};
  std::vector<std::string> texts;
  for (int i = 0; i < 3000; ++i) {
    std::string t;
    const int n = static_cast<int>(rng() % 6);
    for (int k = 0; k < n; ++k) t += std::string(words[rng() % 11]) + (rng() % 2 ? " " : "");
    texts.push_back(t);
  }
  const FsstEncoder enc = FsstEncoder::Train(std::vector<std::string_view>(texts.begin(), texts.end()));
  const std::string table = enc.SymbolTable();
  const int n = enc.num_symbols();
  std::vector<std::string> symbols;
  for (int c = 0; c < n; ++c) {
    // (the lengths follow the n symbols)
    const int len = static_cast<uint8_t>(table[static_cast<size_t>(8 + 8 * n + c)]);
    ASSERT_GE(len, 1);
    symbols.push_back(table.substr(static_cast<size_t>(8 + 8 * c), static_cast<size_t>(len)));
  }
  // At most one symbol of 3+ bytes per hash slot (so per 3-byte prefix), though the words
  // offer many: the one lookup of the compressor then finds the longest match.
  int long_symbols = 0, shared_slots = 0;
  for (int a = 0; a < n; ++a) {
    if (symbols[a].size() < 3) continue;
    ++long_symbols;
    for (int b = a + 1; b < n; ++b) {
      uint64_t wa = 0, wb = 0;
      std::memcpy(&wa, symbols[a].data(), 3);
      std::memcpy(&wb, symbols[b].data(), 3);
      shared_slots += symbols[b].size() >= 3 && FsstEncoder::SlotOf(wa) == FsstEncoder::SlotOf(wb);
    }
  }
  EXPECT_GT(long_symbols, 10);
  EXPECT_EQ(shared_slots, 0);
  for (const auto& t : texts) {
    std::string want;
    for (size_t pos = 0; pos < t.size();) {
      int best = -1;
      for (int c = 0; c < n; ++c) {
        if (t.compare(pos, symbols[c].size(), symbols[c]) == 0 && pos + symbols[c].size() <= t.size() &&
            (best < 0 || symbols[c].size() > symbols[best].size())) {
          best = c;
        }
      }
      if (best < 0) {
        want += '\xff';
        want += t[pos];
        ++pos;
      } else {
        want += static_cast<char>(best);
        pos += symbols[best].size();
      }
    }
    std::string got;
    enc.Compress(t, &got);
    ASSERT_EQ(got, want) << "text '" << t << "'";
  }
}


// Compresses every text with `enc` into a buffer of exactly 2 * size bytes plus a guard, checks
// the guard, decodes and compares, then compresses all of them at once (CompressValues);
// returns the total code bytes.
size_t RoundTrip(const FsstEncoder& enc, const std::vector<std::string>& texts, const std::string& what) {
  auto parsed = FsstSymbolTable::Parse(enc.SymbolTable());
  EXPECT_TRUE(parsed.ok()) << what << ": " << parsed.status().ToString();
  if (!parsed.ok()) return 0;
  size_t packed = 0;
  std::string expected;  // the codes of every text, one after another
  std::vector<int64_t> expected_ends;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string& t = texts[i];
    std::vector<uint8_t> out(2 * t.size() + 16, 0xA5);
    const size_t wrote = enc.CompressInto(reinterpret_cast<const uint8_t*>(t.data()), t.size(), out.data());
    EXPECT_LE(wrote, 2 * t.size()) << what << " text " << i;
    for (size_t g = 2 * t.size(); g < out.size(); ++g) {
      if (out[g] != 0xA5) {
        ADD_FAILURE() << what << " text " << i << ": wrote past 2 * n at " << g;
        return packed;
      }
    }
    std::string back;
    const Status st = parsed->Decode(std::string_view(reinterpret_cast<const char*>(out.data()), wrote), &back);
    EXPECT_TRUE(st.ok()) << what << " text " << i << ": " << st.ToString();
    EXPECT_EQ(back, t) << what << " text " << i << " (" << t.size() << " bytes)";
    if (back != t) return packed;
    packed += wrote;
    expected.append(reinterpret_cast<const char*>(out.data()), wrote);
    expected_ends.push_back(static_cast<int64_t>(expected.size()));
  }
  // CompressValues over all of them (its four runs in lockstep) writes the same bytes, with
  // nothing readable past the last value, and each value's end.
  std::string all;
  std::vector<int64_t> offsets = {0};
  for (const auto& t : texts) {
    all += t;
    offsets.push_back(static_cast<int64_t>(all.size()));
  }
  std::vector<uint8_t> out(2 * all.size() + 16, 0xA5);
  std::vector<int64_t> ends(texts.size(), -1);
  const size_t wrote = enc.CompressValues(reinterpret_cast<const uint8_t*>(all.data()), all.size(), offsets.data(),
                                          static_cast<int64_t>(texts.size()), out.data(), ends.data());
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(out.data()), wrote), expected) << what;
  EXPECT_EQ(ends, expected_ends) << what;
  for (size_t g = 2 * all.size(); g < out.size(); ++g) EXPECT_EQ(out[g], 0xA5) << what << " at " << g;
  return packed;
}

std::vector<std::string_view> Views(const std::vector<std::string>& texts) {
  return std::vector<std::string_view>(texts.begin(), texts.end());
}

TEST(FsstEncoderTest, RoundTripsRandomSkewedAndAdversarialInputs) {
  std::mt19937_64 rng(11);
  std::vector<std::pair<std::string, std::vector<std::string>>> sets;
  {  // uniform random bytes, every value 0..255, lengths 0..40 (the tail paths included)
    std::vector<std::string> v;
    for (int i = 0; i < 3000; ++i) {
      std::string t(rng() % 41, '\0');
      for (auto& c : t) c = static_cast<char>(rng() & 0xff);
      v.push_back(t);
    }
    sets.emplace_back("random", v);
  }
  {  // skewed: bytes drawn with a squared uniform (most of them small), words of them
    std::vector<std::string> v;
    for (int i = 0; i < 3000; ++i) {
      std::string t;
      const int n = static_cast<int>(rng() % 200);
      for (int k = 0; k < n; ++k) {
        const double u = static_cast<double>(rng() % 10000) / 10000.0;
        t += static_cast<char>(static_cast<int>(u * u * u * 256));
      }
      v.push_back(t);
    }
    sets.emplace_back("skewed", v);
  }
  {  // long runs (zero bytes, 0xff -- the escape code's value -- and a letter), empty strings,
     // every byte value in order, and 1..9-byte strings
    std::vector<std::string> v;
    for (int i = 0; i < 200; ++i) {
      v.push_back(std::string(static_cast<size_t>(rng() % 5000), "\0\xff" "a"[i % 3]));
      v.push_back("");
      std::string all(256, '\0');
      for (int b = 0; b < 256; ++b) all[static_cast<size_t>(b)] = static_cast<char>((b + i) & 0xff);
      v.push_back(all);
      v.push_back(std::string(1 + i % 9, static_cast<char>(i & 0xff)));
    }
    sets.emplace_back("adversarial", v);
  }
  for (const auto& [what, texts] : sets) {
    const FsstEncoder enc = FsstEncoder::Train(Views(texts));
    EXPECT_GT(enc.num_symbols(), 0) << what;
    RoundTrip(enc, texts, what);
    // A table trained on other data: mostly escapes, and still exact.
    for (const auto& [other, other_texts] : sets) {
      if (other != what) RoundTrip(FsstEncoder::Train(Views(other_texts)), texts, what + " by " + other);
    }
  }
  // A table with no symbols (trained on nothing) escapes every byte.
  const FsstEncoder empty = FsstEncoder::Train({});
  EXPECT_EQ(empty.num_symbols(), 0);
  std::vector<std::string> some = {"", "a", "abcdefghijklmnop", std::string(3, '\0')};
  size_t raw = 0;
  for (const auto& t : some) raw += t.size();
  EXPECT_EQ(RoundTrip(empty, some, "no symbols"), 2 * raw);
}

// Runs compress to codes of 8-byte symbols: 8x on a long run.
TEST(FsstEncoderTest, LongRunsCompressToEightByteSymbols) {
  std::vector<std::string> texts(100, std::string(8000, 'q'));
  const FsstEncoder enc = FsstEncoder::Train(Views(texts));
  const size_t packed = RoundTrip(enc, texts, "runs");
  EXPECT_EQ(packed, 100u * 1000u);
}

}  // namespace
}  // namespace lance::encoding
