// Unique names and the clock for what table/ writes (internal): random transaction uuids and
// file ids, and the wall-clock time manifests, tags and cleanup use.
#pragma once

#include <cstdint>
#include <string>

namespace lance::table::internal {

// A random (version 4) UUID, hyphenated lowercase.
std::string NewUuid();
// 64 random bits (a thread-local generator seeded from the system's entropy source).
uint64_t RandomU64();
// Nanoseconds since the Unix epoch, wall clock.
int64_t NowNs();

}  // namespace lance::table::internal
