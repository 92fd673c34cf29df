#include "lance/memwal/layout.h"

#include "lance/io/object_store.h"

namespace lance::memwal {

namespace {

std::optional<uint64_t> ParseWithSuffix(std::string_view name, std::string_view suffix) {
  const size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  if (name.size() != 64 + suffix.size() || name.substr(64) != suffix) return std::nullopt;
  return ParseBitReversedName(name.substr(0, 64));
}

}  // namespace

std::string BitReversedName(uint64_t n) {
  std::string out(64, '0');
  for (int i = 0; i < 64; ++i) {
    if ((n >> i) & 1) out[static_cast<size_t>(i)] = '1';
  }
  return out;
}

std::optional<uint64_t> ParseBitReversedName(std::string_view name) {
  if (name.size() != 64) return std::nullopt;
  uint64_t n = 0;
  for (int i = 0; i < 64; ++i) {
    const char c = name[static_cast<size_t>(i)];
    if (c == '1') {
      n |= uint64_t{1} << i;
    } else if (c != '0') {
      return std::nullopt;
    }
  }
  return n;
}

std::string MemWalRoot(std::string_view root) { return io::JoinPath(root, kMemWalDir); }

std::string ShardDirectory(std::string_view root, const Uuid& shard) {
  return io::JoinPath(MemWalRoot(root), shard.ToString());
}

std::string ShardManifestDirectory(std::string_view root, const Uuid& shard) {
  return io::JoinPath(ShardDirectory(root, shard), kManifestDir);
}

std::string ShardManifestPath(std::string_view root, const Uuid& shard, uint64_t version) {
  std::string name = BitReversedName(version);
  name.append(kManifestSuffix);
  return io::JoinPath(ShardManifestDirectory(root, shard), name);
}

std::string VersionHintPath(std::string_view root, const Uuid& shard) {
  return io::JoinPath(ShardManifestDirectory(root, shard), kVersionHintFile);
}

std::string WalDirectory(std::string_view root, const Uuid& shard) {
  return io::JoinPath(ShardDirectory(root, shard), kWalDir);
}

std::string WalEntryPath(std::string_view root, const Uuid& shard, uint64_t position) {
  std::string name = BitReversedName(position);
  name.append(kWalSuffix);
  return io::JoinPath(WalDirectory(root, shard), name);
}

std::optional<uint64_t> ParseManifestFileName(std::string_view file_name) {
  return ParseWithSuffix(file_name, kManifestSuffix);
}

std::optional<uint64_t> ParseWalFileName(std::string_view file_name) {
  return ParseWithSuffix(file_name, kWalSuffix);
}

}  // namespace lance::memwal
