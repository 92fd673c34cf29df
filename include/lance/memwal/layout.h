// Where MemWAL state lives under a table root (mem_wal.md "Storage Layout"):
//
//   {root}/_mem_wal/{shard_id}/manifest/{bitrev64(version)}.binpb   shard manifests, 1, 2, ...
//   {root}/_mem_wal/{shard_id}/manifest/version_hint.json            {"version":N}
//   {root}/_mem_wal/{shard_id}/wal/{bitrev64(position)}.arrow        WAL entries, 1, 2, ...
//   {root}/_mem_wal/{shard_id}/{random8}_gen_{generation}/           flushed generations
//
// bitrev64(n) is the 64-character binary form of n written least-significant bit first
// (1 -> "1000...0", 5 -> "1010...0"): consecutive numbers spread over the object-store key
// space. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lance/memwal/uuid.h"

namespace lance::memwal {

inline constexpr std::string_view kMemWalDir = "_mem_wal";
inline constexpr std::string_view kManifestDir = "manifest";
inline constexpr std::string_view kWalDir = "wal";
inline constexpr std::string_view kVersionHintFile = "version_hint.json";
inline constexpr std::string_view kManifestSuffix = ".binpb";
inline constexpr std::string_view kWalSuffix = ".arrow";

// The 64 characters of bitrev64(n).
std::string BitReversedName(uint64_t n);
// The inverse: exactly 64 '0'/'1' characters, else nullopt.
std::optional<uint64_t> ParseBitReversedName(std::string_view name);

// Object paths ("" root allowed: paths are then relative to the store's top).
std::string MemWalRoot(std::string_view root);
std::string ShardDirectory(std::string_view root, const Uuid& shard);
std::string ShardManifestDirectory(std::string_view root, const Uuid& shard);
std::string ShardManifestPath(std::string_view root, const Uuid& shard, uint64_t version);
std::string VersionHintPath(std::string_view root, const Uuid& shard);
std::string WalDirectory(std::string_view root, const Uuid& shard);
std::string WalEntryPath(std::string_view root, const Uuid& shard, uint64_t position);

// The version / position in a file name "{bitrev64}.binpb" / "{bitrev64}.arrow" (the last path
// segment), else nullopt.
std::optional<uint64_t> ParseManifestFileName(std::string_view file_name);
std::optional<uint64_t> ParseWalFileName(std::string_view file_name);

}  // namespace lance::memwal
