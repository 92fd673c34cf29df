// Shard manifests: the versioned, immutable, authoritative state of one MemWAL shard
// (mem_wal.md "Shard Manifest", "Writer Fencing").
//
// Version v lives in _mem_wal/{shard}/manifest/{bitrev64(v)}.binpb (protobuf ShardManifest),
// versions start at 1 and are gap-free; each update writes the next version with
// put-if-not-exists, so of two racing writers exactly one lands it and the other reloads and
// retries. After a write the store best-effort replaces version_hint.json ({"version":N});
// readers start at the hint and probe forward until a version is missing (falling back to
// version 1 and then to a listing when the hint is stale or versions were removed).
//
// Fencing: a writer owns a shard by claiming it (writing the next version with writer_epoch + 1;
// a SEALED shard refuses claims). Every later update of that writer is a compare-and-create of
// the next version built on the latest one it knows, after checking that the stored epoch is
// still its own: a newer claim makes the check (or the create) fail and the update returns
// Fenced. The store resolves ambiguous writes (an IOError after which the object may or may
// not exist, as on a lost acknowledgement) without ever treating another writer's manifest as
// its own: an update is retried at the same version and accepted only if the object holds
// exactly its bytes (no other writer holds the same epoch); a claim is never accepted that way
// -- it claims again, one epoch higher.
//
// Thread-safety: ShardManifestStore is safe for concurrent use; it serialises its writes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/sharding.h"
#include "lance/memwal/uuid.h"

namespace lance::memwal {

enum class ShardStatus : int { kActive = 0, kSealed = 1 };
std::string_view ShardStatusName(ShardStatus status);  // "ACTIVE", "SEALED"

// A flushed MemTable generation recorded in the manifest (the reference calls it an SsTable).
struct FlushedGeneration {
  uint64_t generation = 0;
  std::string path;  // directory name under the shard directory
  std::optional<uint64_t> in_memory_bytes;
  std::optional<uint64_t> physical_rows;
  std::optional<uint64_t> primary_key_bytes;

  friend bool operator==(const FlushedGeneration&, const FlushedGeneration&) = default;
};

struct ShardManifest {
  Uuid shard_id;
  uint64_t version = 0;
  uint32_t shard_spec_id = 0;
  std::vector<ShardFieldValue> shard_field_entries;
  uint64_t writer_epoch = 0;
  uint64_t replay_after_wal_entry_position = 0;
  uint64_t wal_entry_position_last_seen = 0;
  uint64_t current_generation = 1;
  std::vector<FlushedGeneration> flushed_generations;
  ShardStatus status = ShardStatus::kActive;
  // Fields this implementation does not know, serialized, kept on rewrite.
  std::string unknown_fields;

  friend bool operator==(const ShardManifest&, const ShardManifest&) = default;
};

// Protobuf bytes of `m` (the reference's ShardManifest message, same field numbers).
std::string EncodeShardManifest(const ShardManifest& m);
// Decodes untrusted bytes; `what` (usually the path) names them in errors.
// Errors: Corruption (undecodable protobuf, a shard id that is not 16 bytes, an unknown status).
Result<ShardManifest> DecodeShardManifest(std::string_view bytes, std::string_view what);

// One line of JSON for tools and tests (shard_id as text, field values as hex).
std::string ShardManifestToJson(const ShardManifest& m);
// Lower-case hex of a shard field value's raw scalar bytes, as the JSON forms print them.
std::string ShardValueHex(std::string_view raw);

struct ShardManifestStoreOptions {
  // Compare-and-create rounds an update or claim may lose before it gives up (IOError).
  int max_attempts = 16;
  // Retries of one write after an IOError, and the first backoff (doubling).
  int max_io_retries = 3;
  int io_retry_backoff_ms = 20;
};

class ShardManifestStore {
 public:
  // The manifests of `shard` under table root `root` in `store`.
  ShardManifestStore(std::shared_ptr<io::ObjectStore> store, std::string root, Uuid shard,
                     ShardManifestStoreOptions options = {});

  const Uuid& shard_id() const { return shard_; }
  const std::shared_ptr<io::ObjectStore>& object_store() const { return store_; }
  const std::string& root() const { return root_; }

  // The latest version (hint, then probing; a listing when both fail), 0 when the shard has
  // no manifest. Errors: IOError.
  Result<uint64_t> LatestVersion();
  // The latest manifest, nullopt for a shard without one. Errors: IOError, Corruption.
  Result<std::optional<ShardManifest>> Latest();
  // Errors: NotFound, IOError, Corruption (also when the stored version differs from `version`).
  Result<ShardManifest> Read(uint64_t version);
  // Every stored version, ascending (from a listing).
  Result<std::vector<uint64_t>> ListVersions();
  // Whether version `version` is stored (one metadata request). Errors: IOError.
  Result<bool> VersionExists(uint64_t version);

  // Claims the shard for a new writer: writes the next version with writer_epoch + 1 (version 1,
  // epoch 1 for a new shard, with `spec_id` and `field_values`). Returns the claimed manifest.
  // Errors: InvalidArgument (the shard is SEALED), Fenced (another writer claimed an epoch at
  // least as high concurrently), IOError.
  Result<ShardManifest> Claim(uint32_t spec_id, const std::vector<ShardFieldValue>& field_values);

  // Writes the next version as `mutate` makes it from the latest, for the writer holding
  // `epoch`: before each attempt the stored epoch must equal `epoch` (Fenced when it is higher),
  // version and epoch are set by the store. `mutate` may run several times (once per attempt);
  // its error aborts the update. Errors: Fenced, IOError, and what `mutate` returns.
  Result<ShardManifest> CommitUpdate(uint64_t epoch,
                                     const std::function<Status(ShardManifest*)>& mutate);

  // Marks the shard SEALED (a drop in flight) with writer_epoch + 1, which fences its current
  // writer; Unseal returns it to ACTIVE at the same epoch. Errors: NotFound (no manifest),
  // IOError.
  Result<ShardManifest> Seal();
  Result<ShardManifest> Unseal();

 private:
  enum class PutOutcome { kWritten, kTaken };
  // One compare-and-create of `bytes` at `version`; IOErrors retried. With `accept_identical`,
  // an object found after an IOError that holds exactly `bytes` counts as written.
  Result<PutOutcome> PutVersion(uint64_t version, const std::string& bytes, bool accept_identical);
  void WriteHint(uint64_t version);
  Result<ShardManifest> Rewrite(const std::function<Status(ShardManifest*)>& mutate,
                                bool bump_epoch);

  std::shared_ptr<io::ObjectStore> store_;
  std::string root_;
  Uuid shard_;
  ShardManifestStoreOptions options_;
  std::mutex mutex_;                      // serialises writes
  std::optional<ShardManifest> position_;  // the last manifest this store wrote; guarded
};

// The shard ids under {root}/_mem_wal/ (directories named by a UUID), sorted.
Result<std::vector<Uuid>> ListShards(io::ObjectStore& store, std::string_view root);

// Whether rows routed to `target` may be in the shard of manifest `m`: by the shard field values
// the manifest records, else (lance 12 records none) by lancedb's shard-id convention.
bool ShardMayHold(const ShardManifest& m, const ShardTarget& target);

}  // namespace lance::memwal
