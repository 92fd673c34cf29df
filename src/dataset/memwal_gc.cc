// dataset::CollectMemWalGarbage (memwal_gc.h): per shard, the horizon base version's
// merged_generations and the horizon shard manifest's replay position decide which generation
// directories and WAL entries are obsolete; those objects are deleted.
#include "lance/dataset/memwal_gc.h"

#include <chrono>
#include <charconv>
#include <set>
#include <string_view>

#include "lance/memwal/index_details.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/shard_manifest.h"
#include "lance/table/location.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"

namespace lance::dataset {

using namespace memwal;  // NOLINT: the MemWAL model this collector cleans up

namespace {

std::string_view LastSegment(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// N of a directory named "{random8}_gen_{N}", else nullopt.
std::optional<uint64_t> GenerationOfDir(std::string_view name) {
  constexpr std::string_view kInfix = "_gen_";
  if (name.size() <= 8 + kInfix.size() || name.substr(8, kInfix.size()) != kInfix) return {};
  const std::string_view digits = name.substr(8 + kInfix.size());
  uint64_t n = 0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || p != digits.data() + digits.size() || n == 0) return {};
  return n;
}

// The merged generation of every shard as of the newest base version written at or before
// `horizon_ns` (empty when no version is that old, or it has no MemWAL index).
Result<std::optional<MemWalIndexDetails>> HorizonDetails(const table::TableLocation& loc,
                                                         int64_t horizon_ns) {
  LANCE_ASSIGN_OR_RAISE(std::vector<table::VersionInfo> versions, table::ListVersions(loc));
  std::optional<uint64_t> chosen;
  for (const auto& v : versions) {
    if (v.timestamp_ns && *v.timestamp_ns <= horizon_ns) chosen = v.version;
  }
  if (!chosen) return std::optional<MemWalIndexDetails>();
  table::OpenOptions o;
  o.version = *chosen;
  LANCE_ASSIGN_OR_RAISE(auto snap, table::Snapshot::Open(loc, o));
  auto d = ReadMemWalDetails(*snap);
  if (d.status().IsNotFound()) return std::optional<MemWalIndexDetails>();
  LANCE_RETURN_NOT_OK(d.status());
  return std::optional<MemWalIndexDetails>(std::move(*d));
}

// replay_after of the newest shard manifest version stored at or before `horizon_ns` (0 when
// none is that old).
Result<uint64_t> HorizonReplayAfter(io::ObjectStore& store, const std::string& root,
                                    ShardManifestStore& manifests, int64_t horizon_ns) {
  LANCE_ASSIGN_OR_RAISE(io::ListResult listed, store.ListDir(ShardManifestDirectory(root, manifests.shard_id())));
  std::optional<uint64_t> chosen;
  for (const io::ObjectMeta& o : listed.objects) {
    const std::optional<uint64_t> v = ParseManifestFileName(LastSegment(o.path));
    if (v && o.mtime_ns <= horizon_ns && (!chosen || *v > *chosen)) chosen = *v;
  }
  if (!chosen) return uint64_t{0};
  LANCE_ASSIGN_OR_RAISE(ShardManifest m, manifests.Read(*chosen));
  return m.replay_after_wal_entry_position;
}

// Deletes every object under `dir` (a generation directory), then its emptied directories.
struct Removed {
  int64_t objects = 0;
  int64_t bytes = 0;
};
Result<Removed> DeleteTree(io::ObjectStore& store, const std::string& dir, bool dry_run) {
  LANCE_ASSIGN_OR_RAISE(std::vector<io::ObjectMeta> objects, store.List(dir));
  Removed r;
  for (const io::ObjectMeta& o : objects) {
    ++r.objects;
    r.bytes += o.size;
    if (dry_run) continue;
    Status st = store.Delete(o.path);
    if (!st.ok() && !st.IsNotFound()) return st;
  }
  if (!dry_run) LANCE_RETURN_NOT_OK(store.RemoveEmptyDirectories(dir));
  return r;
}

// The newest modification time of the objects under `dir` (0 when empty).
Result<int64_t> NewestMtime(io::ObjectStore& store, const std::string& dir) {
  LANCE_ASSIGN_OR_RAISE(std::vector<io::ObjectMeta> objects, store.List(dir));
  int64_t newest = 0;
  for (const io::ObjectMeta& o : objects) newest = std::max(newest, o.mtime_ns);
  return newest;
}

Status CollectShard(io::ObjectStore& store, const std::shared_ptr<io::ObjectStore>& shared,
                    const std::string& root, const Uuid& shard,
                    const std::optional<MemWalIndexDetails>& horizon_details, int64_t horizon_ns,
                    bool dry_run, MemWalGcReport::Shard* out) {
  ShardManifestStore manifests(shared, root, shard);
  LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> latest, manifests.Latest());
  if (!latest) return Status::OK();  // a shard being created: nothing of it is obsolete
  out->merged_generation = horizon_details ? horizon_details->MergedGenerationOf(shard) : 0;
  LANCE_ASSIGN_OR_RAISE(out->replay_after, HorizonReplayAfter(store, root, manifests, horizon_ns));

  std::set<std::string> recorded;
  for (const FlushedGeneration& g : latest->flushed_generations) recorded.insert(g.path);
  const std::string shard_dir = ShardDirectory(root, shard);
  LANCE_ASSIGN_OR_RAISE(io::ListResult listed, store.ListDir(shard_dir));
  for (const std::string& dir : listed.directories) {
    const std::string name(LastSegment(dir));
    const std::optional<uint64_t> n = GenerationOfDir(name);
    if (!n) continue;
    bool obsolete = *n <= out->merged_generation;
    if (!obsolete && !recorded.count(name) && *n < latest->current_generation) {
      // A failed flush's directory: never published, replaced by a retry.
      LANCE_ASSIGN_OR_RAISE(int64_t mtime, NewestMtime(store, dir));
      obsolete = mtime <= horizon_ns;
    }
    if (!obsolete) continue;
    LANCE_ASSIGN_OR_RAISE(Removed r, DeleteTree(store, dir, dry_run));
    if (r.objects == 0) continue;  // an empty leftover (another collector got there first)
    out->bytes += r.bytes;
    out->generation_dirs.push_back(name);
  }

  LANCE_ASSIGN_OR_RAISE(io::ListResult wal, store.ListDir(WalDirectory(root, shard)));
  for (const io::ObjectMeta& o : wal.objects) {
    const std::optional<uint64_t> pos = ParseWalFileName(LastSegment(o.path));
    if (!pos || *pos > out->replay_after) continue;
    if (!dry_run) {
      Status st = store.Delete(o.path);
      if (!st.ok() && !st.IsNotFound()) return st;
    }
    out->bytes += o.size;
    out->wal_positions.push_back(*pos);
  }
  std::sort(out->wal_positions.begin(), out->wal_positions.end());
  return Status::OK();
}

}  // namespace

Result<MemWalGcReport> CollectMemWalGarbage(const std::shared_ptr<io::ObjectStore>& store,
                                            const std::string& root,
                                            const MemWalGcOptions& options) {
  if (options.older_than_seconds < 0) {
    return Status::InvalidArgument("MemWAL garbage collection: older_than_seconds must be >= 0, "
                                   "got {}",
                                   options.older_than_seconds);
  }
  table::TableLocation loc(store, root);
  // The table must exist and carry a MemWAL index now.
  LANCE_ASSIGN_OR_RAISE(auto latest, table::Snapshot::Open(loc));
  LANCE_RETURN_NOT_OK(ReadMemWalDetails(*latest).status());
  const int64_t now =
      options.now_ns != 0
          ? options.now_ns
          : std::chrono::duration_cast<std::chrono::nanoseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  const int64_t horizon = now - options.older_than_seconds * int64_t{1'000'000'000};
  LANCE_ASSIGN_OR_RAISE(std::optional<MemWalIndexDetails> details, HorizonDetails(loc, horizon));

  std::vector<Uuid> shards;
  if (options.only_shard) {
    shards.push_back(*options.only_shard);
  } else {
    LANCE_ASSIGN_OR_RAISE(shards, ListShards(*store, root));
  }
  MemWalGcReport report;
  for (const Uuid& s : shards) {
    MemWalGcReport::Shard r;
    r.shard = s;
    LANCE_RETURN_NOT_OK(
        CollectShard(*store, store, root, s, details, horizon, options.dry_run, &r));
    report.generation_dirs_removed += static_cast<int64_t>(r.generation_dirs.size());
    report.wal_files_removed += static_cast<int64_t>(r.wal_positions.size());
    report.bytes_removed += r.bytes;
    report.shards.push_back(std::move(r));
  }
  return report;
}

}  // namespace lance::dataset
