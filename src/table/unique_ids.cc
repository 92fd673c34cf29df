// Random ids and the clock (unique_ids.h).
#include "table/unique_ids.h"

#include <chrono>
#include <cstring>
#include <random>

#include <unistd.h>

#include <fmt/format.h>

namespace lance::table::internal {

std::string NewUuid() {
  uint8_t b[16];
  const uint64_t r1 = RandomU64(), r2 = RandomU64();
  std::memcpy(b, &r1, 8);
  std::memcpy(b + 8, &r2, 8);
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", b[i]);
  }
  return out;
}

namespace {

std::mt19937_64 SeededGenerator() {
  std::random_device rd;
  std::seed_seq seq{rd(), rd(), rd(), rd(), static_cast<unsigned>(::getpid()),
                    static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())};
  return std::mt19937_64(seq);
}

}  // namespace

uint64_t RandomU64() {
  // Reseeded in a forked child: a child inheriting its parent's state would draw the same
  // ids as its siblings (two processes staging a manifest under one temporary name).
  thread_local pid_t seeded_in = ::getpid();
  thread_local std::mt19937_64 gen = SeededGenerator();
  const pid_t pid = ::getpid();
  if (pid != seeded_in) {
    gen = SeededGenerator();
    seeded_in = pid;
  }
  return gen();
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace lance::table::internal
