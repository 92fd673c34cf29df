// The seed inputs of a fuzz target (fuzz/corpus/<target>/) and damaged copies of them, for the
// unit tests that run a fuzz target's body over every truncation and many byte flips of its
// seeds (so a reader's "Corruption, never a crash" is checked by every `make test`, not only
// by `make fuzz`).
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace lance::test {

// Every file of fuzz/corpus/<target>/ (the repository root is two levels above this header).
inline std::vector<std::string> FuzzSeeds(std::string_view target) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(__FILE__).parent_path() / "../../fuzz/corpus" / std::string(target);
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return out;
}

// Feeds `seed` itself, its `truncations` + 1 evenly spaced prefixes, and 2 x `flips` copies with
// one byte at offset >= `keep` changed (xor with a varying mask, then 0xff). `keep` protects a
// fuzz target's leading selector bytes.
template <typename FeedFn>
void FeedDamaged(const std::string& seed, size_t keep, size_t truncations, size_t flips, FeedFn&& feed) {
  feed(seed);
  for (size_t k = 0; k <= truncations; ++k) feed(seed.substr(0, seed.size() * k / truncations));
  if (seed.size() <= keep) return;
  for (size_t k = 0; k < flips; ++k) {
    std::string s = seed;
    const size_t at = keep + (k * 7919) % (s.size() - keep);
    s[at] = static_cast<char>(s[at] ^ (1 + k % 255));
    feed(s);
    s[at] = static_cast<char>(0xff);
    feed(s);
  }
}

}  // namespace lance::test
