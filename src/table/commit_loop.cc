// The commit loop (commit.h): load latest, check the transactions committed since the read
// version, rebase, apply, publish durably, retry on a lost race.
#include <chrono>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "lance/table/commit.h"
#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"
#include "lance/table/schema_rules.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "table/apply.h"
#include "table/conflicts.h"
#include "table/legacy_fixups.h"
#include "table/durable_files.h"
#include "table/rebase.h"
#include "table/unique_ids.h"

namespace lance::table {

namespace {

// Ancestors of the store path `dir`, itself included, up to the filesystem root ("").
std::vector<std::string> SelfAndAncestors(std::string dir) {
  std::vector<std::string> out;
  for (;;) {
    out.push_back(dir);
    if (dir.empty()) return out;
    dir = internal::ParentPath(dir);
  }
}

// Publishes the manifest `bytes` at `path` if the name is free (AlreadyExists otherwise),
// after making the staged files durable. With a local store and no handler of the caller's
// choosing, as durable_files.h argues: the files and the manifest staged under a temporary
// name synced in one round, the rename, the directory synced; else through `handler` on the
// table's store. With `sync` off (CommitOptions::sync: not durable) nothing is flushed: the
// same staged rename, or the handler on the store that does not sync.
Status Publish(const TableLocation& loc, StagedFiles& staged, CommitHandler* handler,
               bool new_dataset, bool sync, ThreadPool* sync_pool, const std::string& path,
               const std::string& bytes) {
  const std::shared_ptr<io::LocalObjectStore>& local = staged.unsynced_local();
  std::vector<std::string> dirs;
  if (local && sync) {
    // New subdirectories of the dataset directory; for a new dataset, mkdir -p's parents.
    dirs = new_dataset ? SelfAndAncestors(loc.root()) : std::vector<std::string>{loc.root()};
    for (std::string& d : staged.directories()) dirs.push_back(std::move(d));
  }
  if (handler != nullptr || !local) {
    if (local && sync) LANCE_RETURN_NOT_OK(internal::SyncFiles(*local, staged.TakeUnsynced(), dirs, sync_pool));
    io::ObjectStore& target = local && !sync ? static_cast<io::ObjectStore&>(*local) : *loc.store();
    return (handler ? handler : PutIfNotExistsCommitHandler().get())->CommitManifest(target, path, bytes);
  }
  // A name that never parses as a version (it does not end in ".manifest").
  const std::string staging = path + "." + internal::NewUuid() + ".staged";
  // Written in place (PutNew): the staging name is unique and no reader parses it as a version.
  LANCE_RETURN_NOT_OK(local->PutNew(staging, bytes));
  // The staged manifest's bytes, not its name (durable_files.h (2)): _versions/ is synced
  // once, after the rename.
  Status st = sync ? internal::SyncFiles(*local, staged.TakeUnsynced(), dirs, sync_pool, {staging})
                   : Status::OK();
  if (st.ok()) st = local->RenameIfNotExists(staging, path);
  if (!st.ok()) {
    (void)local->Delete(staging);
    return st;
  }
  return sync ? internal::SyncFiles(*local, {}, {internal::ParentPath(path)}, sync_pool) : Status::OK();
}

// Moves latest_version_hint.json forward to `version` (never backwards: a slower winner of an
// older version leaves it). Best effort: readers treat a stale or lost hint as a hint, so it is
// not synced and a failure is ignored.
void AdvanceHint(const TableLocation& loc, StagedFiles& staged, uint64_t version) {
  const std::string hint = loc.Path("_versions/latest_version_hint.json");
  auto old_hint = loc.store()->Get(hint);
  if (old_hint.ok()) {
    auto parsed = ParseVersionJson(std::string_view(reinterpret_cast<const char*>((*old_hint)->data()),
                                                    static_cast<size_t>((*old_hint)->size())),
                                   hint);
    if (parsed.ok() && *parsed >= version) return;
  }
  (void)staged.store()->Put(hint, fmt::format("{{\"version\":{}}}", version));
}

// Checks `txn` against every transaction committed after `*checked` up to `latest`.
Status CheckConcurrent(const TableLocation& loc, const Transaction& txn, const CommittedVersion& latest,
                       uint64_t* checked, CommitInfo* info) {
  for (uint64_t v = *checked + 1; v <= latest.version; ++v) {
    std::optional<CommittedVersion> loaded;
    if (v != latest.version) {
      LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadVersion(loc, v));
      loaded = std::move(sv);
    }
    const CommittedVersion& sv = v == latest.version ? latest : *loaded;
    LANCE_ASSIGN_OR_RAISE(std::optional<Transaction> theirs, LoadTransaction(loc, sv));
    if (!theirs) {
      return Status::RetryableCommitConflict("{}: version {} records no transaction, so this {} "
                                             "cannot be checked against it; run it again",
                                             loc.root(), v, txn.operation_name());
    }
    const internal::Verdict verdict = internal::CheckConflict(txn, *theirs);
    if (verdict == internal::Verdict::kRetryable) {
      return Status::RetryableCommitConflict(
          "retryable conflict: this {} (read version {}) cannot be committed after the {} "
          "committed as version {}; run the operation again on the new version",
          txn.operation_name(), txn.read_version, theirs->operation_name(), v);
    }
    if (verdict == internal::Verdict::kIncompatible) {
      return Status::CommitConflict(
          "incompatible conflict: this {} (read version {}) cannot be committed after the {} "
          "committed as version {}",
          txn.operation_name(), txn.read_version, theirs->operation_name(), v);
    }
    ++info->rebased;
  }
  *checked = latest.version;
  return Status::OK();
}

// A commit proves it can read back what it is about to publish: the manifest bytes decode
// (schema, fragments, index section), their feature flags open for reading, they hold what
// was encoded, and a schema the operation sets keeps the table's rules (schema_rules.h).
// Otherwise nothing is published (and the operation's staged files are removed): a version a
// reader refuses would make every later operation on the table fail.
Status CheckReadsBack(const Transaction& txn, const Manifest& m, const std::string& bytes,
                      const std::string& path) {
  auto refuse = [&](const Status& why) {
    return Status::InvalidArgument("{}: refusing to commit this {} as version {}: {}", path,
                                   txn.operation_name(), m.version, why.ToString());
  };
  Result<Manifest> back = DecodeManifest(bytes, path);
  if (!back.ok()) return refuse(back.status());
  Status st = CheckCanRead(back->reader_feature_flags, back->writer_feature_flags, path);
  if (!st.ok()) return refuse(st);
  if (back->version != m.version || back->fragments.size() != m.fragments.size() ||
      back->fields.size() != m.fields.size() || back->indices.size() != m.indices.size() ||
      back->num_rows() != m.num_rows()) {
    return refuse(Status::Internal("the manifest decodes to other content (version {}, {} "
                                   "fragments, {} fields, {} rows; encoded {}, {}, {}, {})",
                                   back->version, back->fragments.size(), back->fields.size(),
                                   back->num_rows(), m.version, m.fragments.size(),
                                   m.fields.size(), m.num_rows()));
  }
  if (txn.is<Transaction::Overwrite>() || txn.is<Transaction::Merge>() ||
      txn.is<Transaction::Project>()) {
    st = CheckTableSchema(*back->schema, txn.operation_name());
    if (!st.ok()) return refuse(st);
  }
  return Status::OK();
}

// `read` as the latest version when it is txn's read version and the next version's name is
// free (what LoadLatestVersion concludes from a hint naming `read`); nullopt otherwise (the
// caller loads the latest).
Result<std::optional<CommittedVersion>> ReadIsLatest(const TableLocation& loc, const Transaction& txn,
                                                     const Snapshot* read) {
  if (read == nullptr || read->version() != txn.read_version || txn.read_version == 0) {
    return std::optional<CommittedVersion>();
  }
  const std::string& path = read->manifest_path();
  const size_t slash = path.rfind('/');
  auto parsed = ParseManifestFileName(slash == std::string::npos ? path : path.substr(slash + 1));
  if (!parsed || parsed->first != read->version()) return std::optional<CommittedVersion>();
  LANCE_ASSIGN_OR_RAISE(bool newer, loc.store()->Exists(loc.Path(
                                        "_versions/" + ManifestFileName(read->version() + 1, parsed->second))));
  if (newer) return std::optional<CommittedVersion>();
  CommittedVersion v;
  v.version = read->version();
  v.naming = parsed->second;
  v.path = path;
  v.manifest = read->manifest();
  return std::optional<CommittedVersion>(std::move(v));
}

Result<CommitInfo> CommitLoop(const TableLocation& loc, Transaction& txn, const CommitOptions& options,
                              StagedFiles& staged, const Snapshot* read, bool* maybe_published) {
  const uint64_t read_version = txn.read_version;
  uint64_t checked = read_version;
  CommitInfo info;
  info.read_version = read_version;
  for (int attempt = 1; attempt <= options.max_retries + 1; ++attempt) {
    info.attempts = attempt;
    std::optional<CommittedVersion> latest;
    if (attempt == 1) {
      LANCE_ASSIGN_OR_RAISE(latest, ReadIsLatest(loc, txn, read));
    }
    if (!latest) {
      LANCE_ASSIGN_OR_RAISE(latest, LoadLatestVersion(loc));
    }
    if (!latest) {
      if (!txn.is<Transaction::Overwrite>()) {
        return Status::NotFound("{}: no dataset (no version in _versions/)", loc.display());
      }
      if (read_version != 0) {
        return Status::CommitConflict("{}: the dataset read at version {} no longer exists",
                                      loc.root(), read_version);
      }
    } else {
      const Manifest& lm = latest->manifest;
      LANCE_RETURN_NOT_OK(CheckCanWrite(lm.reader_feature_flags, lm.writer_feature_flags, latest->path));
      LANCE_RETURN_NOT_OK(internal::CheckLegacyWritable(lm, loc.root()));
      if (latest->version < read_version) {
        return Status::CommitConflict("{}: latest version {} is older than the read version {}",
                                      loc.root(), latest->version, read_version);
      }
      LANCE_RETURN_NOT_OK(CheckConcurrent(loc, txn, *latest, &checked, &info));
      if (txn.is<Transaction::Delete>() || txn.is<Transaction::Update>()) {
        LANCE_RETURN_NOT_OK(internal::RebaseDeletions(loc, staged, &txn, *latest));
      }
    }
    if (auto* r = txn.get<Transaction::Restore>(); r && !r->source) {
      LANCE_ASSIGN_OR_RAISE(CommittedVersion source, LoadVersion(loc, r->version));
      LANCE_RETURN_NOT_OK(CheckCanWrite(source.manifest.reader_feature_flags,
                                        source.manifest.writer_feature_flags, source.path));
      r->source = std::move(source.manifest);
    }
    LANCE_ASSIGN_OR_RAISE(Manifest m, internal::ApplyOperation(txn, latest ? &latest->manifest : nullptr,
                                                               internal::NowNs()));
    LANCE_RETURN_NOT_OK(internal::ApplyCommitMigrations(loc, &m));
    if (options.migrate_indices) {
      LANCE_RETURN_NOT_OK(options.migrate_indices(loc, latest ? &latest->manifest : nullptr, &m));
    }
    if (options.amend) LANCE_RETURN_NOT_OK(options.amend(&m));
    LANCE_ASSIGN_OR_RAISE(std::string txn_bytes, EncodeTransaction(txn));
    const std::string txn_name = fmt::format("{}-{}.txn", read_version, txn.uuid);
    LANCE_RETURN_NOT_OK(staged.Put(loc.Path("_transactions/" + txn_name), txn_bytes));
    m.transaction_file = txn_name;
    LANCE_ASSIGN_OR_RAISE(std::string bytes, EncodeManifest(m, txn_bytes));
    const ManifestNaming naming =
        latest ? latest->naming : txn.get<Transaction::Overwrite>()->new_table.naming;
    const std::string path = loc.Path("_versions/" + ManifestFileName(m.version, naming));
    LANCE_RETURN_NOT_OK(CheckReadsBack(txn, m, bytes, path));
    *maybe_published = true;
    Status st = Publish(loc, staged, options.handler.get(), !latest, options.sync, options.sync_pool, path, bytes);
    if (st.IsAlreadyExists()) {
      *maybe_published = false;
      // Lost the race for this version: back off a little, then rebase on the winner.
      std::this_thread::sleep_for(std::chrono::microseconds(internal::RandomU64() % (500 * attempt + 1)));
      continue;
    }
    LANCE_RETURN_NOT_OK(st);
    staged.Forget();
    info.version = m.version;
    AdvanceHint(loc, staged, m.version);
    info.manifest = std::make_shared<const Manifest>(std::move(m));
    return info;
  }
  return Status::RetryableCommitConflict("{}: gave up after losing {} commit races", loc.display(),
                                         options.max_retries + 1);
}

}  // namespace

namespace {

Result<CommitInfo> Commit(const TableLocation& location, Transaction txn, const CommitOptions& options,
                          StagedFiles* staged, const Snapshot* read) {
  std::optional<StagedFiles> own;
  StagedFiles& files = staged ? *staged : own.emplace(location);
  if (txn.uuid.empty()) txn.uuid = internal::NewUuid();
  bool maybe_published = false;
  Result<CommitInfo> r = CommitLoop(location, txn, options, files, read, &maybe_published);
  if (!r.ok() && !maybe_published) {
    // No version names this operation's files (its manifest was never published): they are
    // garbage, so the failed operation leaves nothing behind. Best effort: a file that cannot
    // be removed is an unreferenced file, which cleanup removes later.
    for (const std::string& path : files.paths()) (void)files.store()->Delete(path);
    files.Forget();
  }
  return r;
}

}  // namespace

Result<CommitInfo> CommitTransaction(const TableLocation& location, Transaction txn,
                                     const CommitOptions& options, StagedFiles* staged) {
  return Commit(location, std::move(txn), options, staged, nullptr);
}

Result<CommitInfo> CommitTransaction(const Snapshot& read, Transaction txn, const CommitOptions& options,
                                     StagedFiles* staged) {
  return Commit(read.location(), std::move(txn), options, staged, &read);
}

}  // namespace lance::table
