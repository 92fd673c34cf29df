// Commit handlers, loading committed versions and their transactions, conflict checks,
// deletion-vector rebase and the commit loop (see commit_internal.h).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <roaring/roaring.h>

#include "lance/ipc/writer.h"
#include "lance/table/snapshot.h"
#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"
#include "lance/table/write.h"
#include "table/commit_internal.h"
#include "table/durable_files.h"
#include "table/proto/rowids.pb.h"

namespace lance::table {

namespace {

using ::lance::table::pb::Transaction;
using Op = pb::Transaction::OperationCase;

class PutHandler final : public CommitHandler {
 public:
  Status CommitManifest(io::ObjectStore& store, const std::string& path,
                        std::string_view bytes) override {
    return store.PutIfNotExists(path, bytes);
  }
  std::string_view name() const override { return "put-if-not-exists"; }
};

class RenameHandler final : public CommitHandler {
 public:
  Status CommitManifest(io::ObjectStore& store, const std::string& path,
                        std::string_view bytes) override {
    const std::string staging = path + "-" + internal::NewUuid();
    LANCE_RETURN_NOT_OK(store.Put(staging, bytes));
    Status st = store.RenameIfNotExists(staging, path);
    if (!st.ok()) (void)store.Delete(staging);
    return st;
  }
  std::string_view name() const override { return "rename-if-not-exists"; }
};

uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

const char* OpName(Op op) {
  switch (op) {
    case pb::Transaction::kAppend: return "Append";
    case pb::Transaction::kDelete: return "Delete";
    case pb::Transaction::kOverwrite: return "Overwrite";
    case pb::Transaction::kCreateIndex: return "CreateIndex";
    case pb::Transaction::kRewrite: return "Rewrite";
    case pb::Transaction::kMerge: return "Merge";
    case pb::Transaction::kRestore: return "Restore";
    case pb::Transaction::kReserveFragments: return "ReserveFragments";
    case pb::Transaction::kUpdate: return "Update";
    case pb::Transaction::kProject: return "Project";
    case pb::Transaction::kUpdateConfig: return "UpdateConfig";
    case pb::Transaction::kDataReplacement: return "DataReplacement";
    case pb::Transaction::kUpdateMemWalState: return "UpdateMemWalState";
    case pb::Transaction::kClone: return "Clone";
    case pb::Transaction::kUpdateBases: return "UpdateBases";
    case pb::Transaction::kDataOverlay: return "DataOverlay";
    case pb::Transaction::kAppendFriTransitions: return "AppendFragmentReuseTransitions";
    case pb::Transaction::OPERATION_NOT_SET: break;
  }
  return "unknown operation";
}

// Fragment ids an operation modifies or removes (not the ones it adds).
std::set<uint64_t> TouchedFragments(const pb::Transaction& t) {
  std::set<uint64_t> ids;
  switch (t.operation_case()) {
    case pb::Transaction::kDelete:
      for (const auto& f : t.delete_().updated_fragments()) ids.insert(f.id());
      for (uint64_t id : t.delete_().deleted_fragment_ids()) ids.insert(id);
      break;
    case pb::Transaction::kUpdate:
      for (const auto& f : t.update().updated_fragments()) ids.insert(f.id());
      for (uint64_t id : t.update().removed_fragment_ids()) ids.insert(id);
      break;
    case pb::Transaction::kRewrite:
      for (const auto& f : t.rewrite().old_fragments()) ids.insert(f.id());
      for (const auto& g : t.rewrite().groups()) {
        for (const auto& f : g.old_fragments()) ids.insert(f.id());
      }
      break;
    case pb::Transaction::kMerge:
      for (const auto& f : t.merge().fragments()) ids.insert(f.id());
      break;
    case pb::Transaction::kDataReplacement:
      for (const auto& g : t.data_replacement().replacements()) ids.insert(g.fragment_id());
      break;
    default:
      break;
  }
  return ids;
}

bool Overlaps(const std::set<uint64_t>& a, const std::set<uint64_t>& b) {
  for (uint64_t x : a) {
    if (b.count(x)) return true;
  }
  return false;
}

enum class Verdict { kCompatible, kRetryable, kIncompatible };

Verdict RewriteAfterCreateIndex(const pb::Transaction& ours, const pb::Transaction& theirs);

// Whether `ours` (being committed) tolerates `theirs` (committed since our read version),
// per the compatibility lists of transaction.md. Delete/Update over Delete/Update on the
// same fragments is "compatible" here: RebaseDeletions merges or refuses afterwards.
Verdict Check(const pb::Transaction& ours, const pb::Transaction& theirs) {
  const Op o = ours.operation_case();
  const Op t = theirs.operation_case();
  if (t == pb::Transaction::OPERATION_NOT_SET) return Verdict::kIncompatible;
  const bool overlap = Overlaps(TouchedFragments(ours), TouchedFragments(theirs));
  switch (o) {
    case pb::Transaction::kAppend:
      if (t == pb::Transaction::kOverwrite || t == pb::Transaction::kRestore ||
          t == pb::Transaction::kUpdateMemWalState) {
        return Verdict::kIncompatible;
      }
      return Verdict::kCompatible;
    case pb::Transaction::kDelete:
    case pb::Transaction::kUpdate:
      if (t == pb::Transaction::kOverwrite || t == pb::Transaction::kRestore ||
          t == pb::Transaction::kUpdateMemWalState) {
        return Verdict::kIncompatible;
      }
      if (o == pb::Transaction::kUpdate && t == pb::Transaction::kMerge) return Verdict::kRetryable;
      if ((t == pb::Transaction::kMerge || t == pb::Transaction::kRewrite ||
           t == pb::Transaction::kDataReplacement) && overlap) {
        return Verdict::kRetryable;
      }
      return Verdict::kCompatible;
    case pb::Transaction::kOverwrite:
      if (t == pb::Transaction::kOverwrite || t == pb::Transaction::kUpdateMemWalState) {
        return Verdict::kRetryable;
      }
      if (t == pb::Transaction::kUpdateConfig && !ours.overwrite().config_upsert_values().empty()) {
        return Verdict::kRetryable;
      }
      return Verdict::kCompatible;
    case pb::Transaction::kMerge:
      if (t == pb::Transaction::kOverwrite || t == pb::Transaction::kRestore ||
          t == pb::Transaction::kUpdateMemWalState || t == pb::Transaction::kProject) {
        return Verdict::kIncompatible;
      }
      if (t == pb::Transaction::kUpdate || t == pb::Transaction::kAppend || t == pb::Transaction::kDelete ||
          t == pb::Transaction::kMerge || t == pb::Transaction::kRewrite ||
          t == pb::Transaction::kDataReplacement) {
        return Verdict::kRetryable;
      }
      return Verdict::kCompatible;
    case pb::Transaction::kProject:
      if (t == pb::Transaction::kOverwrite || t == pb::Transaction::kRestore ||
          t == pb::Transaction::kUpdateMemWalState) {
        return Verdict::kIncompatible;
      }
      if (t == pb::Transaction::kProject || t == pb::Transaction::kMerge) return Verdict::kRetryable;
      return Verdict::kCompatible;
    case pb::Transaction::kRestore:
      // A restore replaces whatever happened since it read; only a MemWAL state change
      // (which it would silently undo) stops it.
      return t == pb::Transaction::kUpdateMemWalState ? Verdict::kIncompatible : Verdict::kCompatible;
    case pb::Transaction::kRewrite:
      if (t == pb::Transaction::kOverwrite || t == pb::Transaction::kRestore) return Verdict::kIncompatible;
      if (t == pb::Transaction::kMerge) return Verdict::kRetryable;
      if (t == pb::Transaction::kCreateIndex) return RewriteAfterCreateIndex(ours, theirs);
      if ((t == pb::Transaction::kDataReplacement || t == pb::Transaction::kDelete ||
           t == pb::Transaction::kUpdate || t == pb::Transaction::kRewrite) && overlap) {
        return Verdict::kRetryable;
      }
      return Verdict::kCompatible;
    default:
      return Verdict::kRetryable;
  }
}

// RowIdSequence of [start, start + n).
std::string RangeRowIds(uint64_t start, uint64_t n) {
  ::lance::table::pb::RowIdSequence seq;
  auto* r = seq.add_segments()->mutable_range();
  r->set_start(start);
  r->set_end(start + n);
  return seq.SerializeAsString();
}

// Every row of [0, n) at `version`.
std::string VersionRun(uint64_t n, uint64_t version) {
  ::lance::table::pb::RowLatestUpdateVersionSequence seq;
  auto* run = seq.add_runs();
  run->mutable_span()->mutable_range()->set_end(n);
  run->set_version(version);
  return seq.SerializeAsString();
}

// Fragment ids of an index's fragment bitmap (portable Roaring). Errors: Corruption.
Result<std::set<uint32_t>> BitmapIds(const std::string& bytes, const std::string& index_name) {
  const size_t need = roaring_bitmap_portable_deserialize_size(bytes.data(), bytes.size());
  roaring_bitmap_t* bm = need == 0 || need > bytes.size()
                             ? nullptr
                             : roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
  if (bm == nullptr) {
    return Status::Corruption("the fragment bitmap of index '{}' is not a portable Roaring bitmap "
                              "({} bytes)",
                              index_name, bytes.size());
  }
  std::vector<uint32_t> ids(roaring_bitmap_get_cardinality(bm));
  if (!ids.empty()) roaring_bitmap_to_uint32_array(bm, ids.data());
  roaring_bitmap_free(bm);
  return std::set<uint32_t>(ids.begin(), ids.end());
}

// The portable Roaring bitmap of `ids`, without run containers (as lance 12 writes them).
std::string BitmapOf(const std::set<uint32_t>& ids) {
  roaring_bitmap_t* bm = roaring_bitmap_create();
  for (uint32_t id : ids) roaring_bitmap_add(bm, id);
  std::string out(roaring_bitmap_portable_size_in_bytes(bm), '\0');
  roaring_bitmap_portable_serialize(bm, out.data());
  roaring_bitmap_free(bm);
  return out;
}

// As lance 12: a Rewrite that remaps no index conflicts (retryably) with a concurrent
// CreateIndex only when a new index may cover a fragment the rewrite replaces (it has no
// fragment bitmap, or its bitmap lists one).
Verdict RewriteAfterCreateIndex(const pb::Transaction& ours, const pb::Transaction& theirs) {
  const std::set<uint64_t> replaced = TouchedFragments(ours);
  for (const auto& x : theirs.create_index().new_indices()) {
    if (x.fragment_bitmap().empty()) return Verdict::kRetryable;
    auto ids = BitmapIds(x.fragment_bitmap(), x.name());
    if (!ids.ok()) return Verdict::kRetryable;
    for (uint32_t id : *ids) {
      if (replaced.count(id)) return Verdict::kRetryable;
    }
  }
  return Verdict::kCompatible;
}

bool SameDeletion(const std::optional<::lance::table::pb::DeletionFile>& a,
                  const std::optional<::lance::table::pb::DeletionFile>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->id() == b->id() && a->read_version() == b->read_version() &&
         a->file_type() == b->file_type() && a->num_deleted_rows() == b->num_deleted_rows();
}

}  // namespace

std::shared_ptr<CommitHandler> PutIfNotExistsCommitHandler() {
  return std::make_shared<PutHandler>();
}
std::shared_ptr<CommitHandler> RenameIfNotExistsCommitHandler() {
  return std::make_shared<RenameHandler>();
}

Result<std::string> EncodeDeletionFile(const std::vector<uint32_t>& rows, DeletionFileType* type) {
  constexpr size_t kMaxArrowRows = 5000;  // lance 12 switches to a bitmap above this
  if (rows.size() <= kMaxArrowRows) {
    *type = DeletionFileType::kArrowArray;
    LANCE_ASSIGN_OR_RAISE(auto buf, AllocateBuffer(static_cast<int64_t>(rows.size() * 4)));
    if (!rows.empty()) std::memcpy(buf->mutable_data(), rows.data(), rows.size() * 4);
    auto values = Array::Make(uint32(), static_cast<int64_t>(rows.size()), {nullptr, buf});
    auto sch = schema({field("row_id", uint32(), false)});
    auto batch = std::make_shared<RecordBatch>(sch, static_cast<int64_t>(rows.size()),
                                               std::vector<ArrayPtr>{values});
    ipc::IpcWriteOptions o;
    o.compression = ipc::Compression::kZstd;
    LANCE_ASSIGN_OR_RAISE(BufferPtr file, ipc::WriteFile(sch, {batch}, o));
    return std::string(reinterpret_cast<const char*>(file->data()), static_cast<size_t>(file->size()));
  }
  *type = DeletionFileType::kBitmap;
  roaring_bitmap_t* bm = roaring_bitmap_of_ptr(rows.size(), rows.data());
  if (bm == nullptr) return Status::OutOfMemory("roaring bitmap of {} rows", rows.size());
  roaring_bitmap_run_optimize(bm);
  std::string out(roaring_bitmap_portable_size_in_bytes(bm), '\0');
  roaring_bitmap_portable_serialize(bm, out.data());
  roaring_bitmap_free(bm);
  return out;
}

namespace internal {

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

uint64_t RandomU64() {
  thread_local std::mt19937_64 gen([] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(),
                      static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())};
    return std::mt19937_64(seq);
  }());
  return gen();
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<std::vector<uint64_t>> RowVersions(const ::lance::table::pb::DataFragment& f, bool created_at) {
  using F = ::lance::table::pb::DataFragment;
  const uint64_t n = f.physical_rows();
  const std::string* inline_bytes = nullptr;
  bool external = false;
  if (created_at) {
    if (f.created_at_version_sequence_case() == F::kInlineCreatedAtVersions) {
      inline_bytes = &f.inline_created_at_versions();
    }
    external = f.created_at_version_sequence_case() == F::kExternalCreatedAtVersions;
  } else {
    if (f.last_updated_at_version_sequence_case() == F::kInlineLastUpdatedAtVersions) {
      inline_bytes = &f.inline_last_updated_at_versions();
    }
    external = f.last_updated_at_version_sequence_case() == F::kExternalLastUpdatedAtVersions;
  }
  const char* what = created_at ? "created-at" : "last-updated-at";
  if (external) {
    return Status::NotSupported("fragment {}: {} versions in an external file are not supported",
                                f.id(), what);
  }
  // Without a sequence lance 12 takes every row as created at version 1 and last updated
  // when it was created.
  if (inline_bytes == nullptr) return created_at ? std::vector<uint64_t>(n, 1) : RowVersions(f, true);
  ::lance::table::pb::RowLatestUpdateVersionSequence seq;
  if (!seq.ParseFromString(*inline_bytes)) {
    return Status::Corruption("fragment {}: the {} version sequence does not decode", f.id(), what);
  }
  std::vector<uint64_t> out;
  out.reserve(n);
  for (const auto& run : seq.runs()) {
    // Only a span's length counts: wrap it as a one-segment row-id sequence to measure it.
    ::lance::table::pb::RowIdSequence one;
    *one.add_segments() = run.span();
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> positions, DecodeRowIdSequence(one.SerializeAsString()));
    if (out.size() + positions.size() > n) break;
    out.insert(out.end(), positions.size(), run.version());
  }
  if (out.size() != n) {
    return Status::Corruption("fragment {}: the {} version runs cover {} rows or more, the "
                              "fragment has {}",
                              f.id(), what, out.size(), n);
  }
  return out;
}

std::string VersionRunsOf(const uint64_t* versions, size_t n) {
  ::lance::table::pb::RowLatestUpdateVersionSequence seq;
  for (size_t start = 0; start < n;) {
    size_t end = start + 1;
    while (end < n && versions[end] == versions[start]) ++end;
    auto* run = seq.add_runs();
    auto* range = run->mutable_span()->mutable_range();
    range->set_start(start);
    range->set_end(end);
    run->set_version(versions[start]);
    start = end;
  }
  return seq.SerializeAsString();
}

Result<TableLocation> Locate(const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(uri));
  TableLocation loc;
  loc.store = sp.store;
  loc.root = sp.path;
  LANCE_ASSIGN_OR_RAISE(loc.unsynced, UnsyncedTwin(loc.store));
  return loc;
}

namespace {

Result<StoredVersion> ReadStored(const TableLocation& loc, const std::string& path,
                                 uint64_t version, ManifestNaming naming) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr buf, loc.store->Get(path));
  const std::string_view bytes(reinterpret_cast<const char*>(buf->data()),
                               static_cast<size_t>(buf->size()));
  // DecodeManifest validates the footer and the section bounds.
  LANCE_ASSIGN_OR_RAISE(Manifest decoded, DecodeManifest(bytes, path));
  StoredVersion sv;
  sv.version = version;
  sv.naming = naming;
  sv.path = path;
  uint64_t pos;
  std::memcpy(&pos, bytes.data() + bytes.size() - 16, 8);
  const uint32_t len = LoadU32(bytes.data() + pos);
  if (!sv.manifest.ParseFromArray(bytes.data() + pos + 4, static_cast<int>(len))) {
    return Status::Corruption("{}: the manifest does not decode", path);
  }
  if (sv.manifest.version() != version) {
    return Status::Corruption("{}: the file name says version {} but the manifest says {}", path,
                              version, sv.manifest.version());
  }
  if (decoded.index_section) {
    const uint32_t l = LoadU32(bytes.data() + *decoded.index_section);
    sv.index_section.assign(bytes.data() + *decoded.index_section + 4, l);
  }
  if (decoded.transaction_section) {
    const uint32_t l = LoadU32(bytes.data() + *decoded.transaction_section);
    sv.transaction.assign(bytes.data() + *decoded.transaction_section + 4, l);
  }
  return sv;
}

}  // namespace

Result<std::optional<StoredVersion>> LoadLatest(const TableLocation& loc) {
  LANCE_ASSIGN_OR_RAISE(io::ListResult listed, loc.store->ListDir(loc.Path("_versions")));
  std::optional<std::pair<uint64_t, ManifestNaming>> best;
  std::string best_path;
  for (const auto& obj : listed.objects) {
    const std::string name = obj.path.substr(obj.path.rfind('/') + 1);
    auto parsed = ParseManifestFileName(name);
    if (!parsed) continue;
    if (!best || parsed->first > best->first) {
      best = parsed;
      best_path = obj.path;
    }
  }
  if (!best) return std::optional<StoredVersion>();
  LANCE_ASSIGN_OR_RAISE(StoredVersion sv, ReadStored(loc, best_path, best->first, best->second));
  return std::optional<StoredVersion>(std::move(sv));
}

Result<StoredVersion> LoadVersion(const TableLocation& loc, uint64_t version) {
  for (ManifestNaming n : {ManifestNaming::kV2, ManifestNaming::kLegacy}) {
    const std::string path = loc.Path("_versions/" + ManifestFileName(version, n));
    auto sv = ReadStored(loc, path, version, n);
    if (sv.ok() || !sv.status().IsNotFound()) return sv;
  }
  return Status::NotFound("{}: version {} does not exist", loc.root, version);
}

Result<std::optional<pb::Transaction>> LoadTransaction(const TableLocation& loc, const StoredVersion& v) {
  pb::Transaction t;
  if (!v.transaction.empty()) {
    if (!t.ParseFromString(v.transaction)) {
      return Status::Corruption("{}: the inline transaction does not decode", v.path);
    }
    return std::optional<pb::Transaction>(std::move(t));
  }
  if (v.manifest.transaction_file().empty()) return std::optional<pb::Transaction>();
  const std::string path = loc.Path("_transactions/" + v.manifest.transaction_file());
  LANCE_ASSIGN_OR_RAISE(BufferPtr buf, loc.store->Get(path));
  if (!t.ParseFromArray(buf->data(), static_cast<int>(buf->size()))) {
    return Status::Corruption("{}: the transaction does not decode", path);
  }
  return std::optional<pb::Transaction>(std::move(t));
}

Result<::lance::table::pb::DeletionFile> WriteDeletionFile(const TableLocation& loc,
                                                       uint64_t fragment_id,
                                                       uint64_t read_version,
                                                       const std::vector<uint32_t>& rows) {
  DeletionFileInfo info;
  LANCE_ASSIGN_OR_RAISE(std::string bytes, EncodeDeletionFile(rows, &info.type));
  info.read_version = read_version;
  info.id = RandomU64();
  info.num_deleted_rows = rows.size();
  LANCE_RETURN_NOT_OK(loc.PutFile(loc.Path("_deletions/" + info.FileName(fragment_id)), bytes));
  ::lance::table::pb::DeletionFile d;
  d.set_file_type(info.type == DeletionFileType::kBitmap ? ::lance::table::pb::DeletionFile::BITMAP
                                                         : ::lance::table::pb::DeletionFile::ARROW_ARRAY);
  d.set_read_version(read_version);
  d.set_id(info.id);
  d.set_num_deleted_rows(info.num_deleted_rows);
  return d;
}

namespace {

// Re-bases a Delete over concurrent deletions of the same fragments: merges the deletion
// vectors, or refuses (retryable) when both deleted a common row or the fragment is gone.
Status RebaseDeletions(const TableLocation& loc, CommitRequest* req, const StoredVersion& latest) {
  // Delete and Update record deletions the same way (updated fragments + emptied fragments).
  const bool is_update = req->txn.operation_case() == pb::Transaction::kUpdate;
  auto* ufs = is_update ? req->txn.mutable_update()->mutable_updated_fragments()
                        : req->txn.mutable_delete_()->mutable_updated_fragments();
  auto* dids = is_update ? req->txn.mutable_update()->mutable_removed_fragment_ids()
                         : req->txn.mutable_delete_()->mutable_deleted_fragment_ids();
  std::map<uint64_t, const ::lance::table::pb::DataFragment*> frags;
  for (const auto& f : latest.manifest.fragments()) frags[f.id()] = &f;
  std::shared_ptr<Snapshot> ds;  // opened at `latest` on first need
  bool changed = false;
  for (auto& [id, rows] : req->affected_rows) {
    auto it = frags.find(id);
    if (it == frags.end()) {
      return Status::RetryableCommitConflict("retryable conflict: fragment {} was removed by a concurrent "
                                    "commit (version {}); run the delete again",
                                    id, latest.version);
    }
    const ::lance::table::pb::DataFragment& lf = *it->second;
    std::optional<::lance::table::pb::DeletionFile> cur;
    if (lf.has_deletion_file()) cur = lf.deletion_file();
    if (SameDeletion(req->base_deletions[id], cur)) continue;
    if (!ds) {
      OpenOptions o;
      o.version = latest.version;
      LANCE_ASSIGN_OR_RAISE(ds, Snapshot::Open(loc.store, loc.root, o));
    }
    size_t index = 0;
    while (ds->manifest().fragments[index].id != id) ++index;
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> theirs, ds->DeletedRows(index));
    std::vector<uint32_t> common;
    std::set_intersection(theirs.begin(), theirs.end(), rows.begin(), rows.end(),
                          std::back_inserter(common));
    if (!common.empty()) {
      return Status::RetryableCommitConflict("retryable conflict: {} of the rows this delete removes from "
                                    "fragment {} (e.g. offset {}) were deleted by a concurrent "
                                    "commit (version {}); run the delete again",
                                    common.size(), id, common[0], latest.version);
    }
    std::vector<uint32_t> merged;
    std::set_union(theirs.begin(), theirs.end(), rows.begin(), rows.end(),
                   std::back_inserter(merged));
    // Drop our previous entry for this fragment, then add the merged one.
    for (int i = 0; i < ufs->size(); ++i) {
      if (ufs->Get(i).id() == id) {
        ufs->DeleteSubrange(i, 1);
        break;
      }
    }
    dids->erase(std::remove(dids->begin(), dids->end(), id), dids->end());
    if (merged.size() >= lf.physical_rows()) {
      dids->Add(id);
    } else {
      LANCE_ASSIGN_OR_RAISE(auto d, WriteDeletionFile(loc, id, latest.version, merged));
      auto* nf = ufs->Add();
      *nf = lf;
      *nf->mutable_deletion_file() = d;
    }
    req->base_deletions[id] = cur;
    changed = true;
  }
  (void)changed;
  return Status::OK();
}

// The index section after a Rewrite on a dataset with stable row ids: in each index's
// fragment bitmap, a group's old fragment ids replaced by its new ones [first, second) when
// the index covered the whole group (lance 12's rule; a group the index covered in part is
// InvalidArgument, the planner never makes one).
Result<std::string> RebaseIndexBitmaps(const std::string& section, const pb::Transaction::Rewrite& rw,
                                       const std::vector<std::pair<uint64_t, uint64_t>>& new_ids) {
  ::lance::table::pb::IndexSection s;
  if (!s.ParseFromString(section)) {
    return Status::Corruption("the index section ({} bytes) does not decode", section.size());
  }
  bool changed = false;
  for (auto& x : *s.mutable_indices()) {
    if (x.fragment_bitmap().empty()) continue;  // coverage unknown: left as is, as lance 12
    LANCE_ASSIGN_OR_RAISE(std::set<uint32_t> ids, BitmapIds(x.fragment_bitmap(), x.name()));
    bool touched = false;
    for (int g = 0; g < rw.groups_size(); ++g) {
      size_t in = 0;
      for (const auto& f : rw.groups(g).old_fragments()) in += ids.count(static_cast<uint32_t>(f.id()));
      if (in == 0) continue;
      if (in != static_cast<size_t>(rw.groups(g).old_fragments_size())) {
        return Status::InvalidArgument("compaction: a rewrite group mixes fragments index '{}' "
                                       "covers with fragments it does not",
                                       x.name());
      }
      for (const auto& f : rw.groups(g).old_fragments()) ids.erase(static_cast<uint32_t>(f.id()));
      for (uint64_t id = new_ids[static_cast<size_t>(g)].first; id < new_ids[static_cast<size_t>(g)].second; ++id) {
        ids.insert(static_cast<uint32_t>(id));
      }
      touched = true;
    }
    if (touched) {
      x.set_fragment_bitmap(BitmapOf(ids));
      changed = true;
    }
  }
  return changed ? s.SerializeAsString() : section;
}

uint64_t NextFragmentId(const pb::Manifest& m) {
  uint64_t next = m.has_max_fragment_id() ? uint64_t{m.max_fragment_id()} + 1 : 0;
  for (const auto& f : m.fragments()) next = std::max<uint64_t>(next, f.id() + 1);
  return next;
}

// The manifest of the next version: `req`'s operation applied to `latest` (or to nothing).
// The fragments of `m` with the deletion files of `updated` and without `removed`: what a delete
// or an update (`what`) does to the existing fragments of the version before `version`.
// Errors: CommitConflict (retryable) when one of those fragments is no longer there.
Status ApplyDeletions(pb::Manifest* m,
                      const google::protobuf::RepeatedPtrField<::lance::table::pb::DataFragment>& updated_list,
                      const google::protobuf::RepeatedField<uint64_t>& removed_ids, const char* what,
                      uint64_t version) {
  std::map<uint64_t, const ::lance::table::pb::DataFragment*> updated;
  for (const auto& f : updated_list) updated[f.id()] = &f;
  const std::set<uint64_t> removed(removed_ids.begin(), removed_ids.end());
  google::protobuf::RepeatedPtrField<::lance::table::pb::DataFragment> out;
  size_t seen = 0;
  for (const auto& f : m->fragments()) {
    if (removed.count(f.id())) {
      ++seen;
      continue;
    }
    auto* nf = out.Add();
    *nf = f;
    if (auto it = updated.find(f.id()); it != updated.end()) {
      ++seen;
      *nf->mutable_deletion_file() = it->second->deletion_file();
    }
  }
  if (seen != updated.size() + removed.size()) {
    return Status::RetryableCommitConflict("retryable conflict: a fragment this {} changes no longer exists "
                                  "at version {}",
                                  what, version - 1);
  }
  m->mutable_fragments()->Swap(&out);
  return Status::OK();
}

Result<std::pair<pb::Manifest, std::string>> ApplyOperation(const CommitRequest& req,
                                                        const std::optional<StoredVersion>& latest) {
  pb::Manifest m;
  std::string index_section;
  uint64_t sticky_r = 0, sticky_w = 0;
  bool stable = req.new_dataset.stable_row_ids;
  if (latest) {
    m = latest->manifest;
    index_section = latest->index_section;
    const uint64_t keep = kFlagCoveredIndexMetadata | kFlagMixedDataFileVersions | kFlagStableRowIds;
    sticky_r = m.reader_feature_flags() & keep;
    sticky_w = m.writer_feature_flags() & keep;
    stable = (m.reader_feature_flags() & kFlagStableRowIds) != 0;
  } else {
    m.mutable_data_format()->set_file_format("lance");
    m.mutable_data_format()->set_version(req.data_storage_version);
    if (stable) sticky_r = sticky_w = kFlagStableRowIds;
  }
  const uint64_t version = latest ? latest->version + 1 : 1;
  uint64_t next_frag = NextFragmentId(m);
  uint64_t next_row_id = m.next_row_id();
  bool assigned = false;
  const pb::Transaction& t = req.txn;
  // Stable row ids, update / merge-insert: the created-at version of each row it moves (by
  // row id), read from the rows it replaces, which are live in the latest version (a
  // concurrent change to them is a conflict).
  std::map<uint64_t, uint64_t> moved_created_at;
  if (stable && t.operation_case() == pb::Transaction::kUpdate) {
    for (const auto& f : m.fragments()) {
      auto rows = req.affected_rows.find(f.id());
      if (rows == req.affected_rows.end() || f.inline_row_ids().empty()) continue;
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids, DecodeRowIdSequence(f.inline_row_ids()));
      LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> created, RowVersions(f, true));
      for (uint32_t offset : rows->second) {
        if (offset < ids.size() && offset < created.size()) moved_created_at[ids[offset]] = created[offset];
      }
    }
  }
  auto add_new = [&](const ::lance::table::pb::DataFragment& src) -> Status {
    auto* f = m.add_fragments();
    *f = src;
    f->set_id(next_frag++);
    assigned = true;
    if (!stable) return Status::OK();
    const uint64_t n = f->physical_rows();
    // Rows moved by an update or a compaction arrive with their ids; new rows get fresh ones.
    const bool moved = !f->inline_row_ids().empty();
    if (!moved) {
      f->set_inline_row_ids(RangeRowIds(next_row_id, n));
      next_row_id += n;
    }
    // As lance 12: a compaction brings its rows' versions along (set by compaction.cc);
    // rows an update moves keep their created-at version and are last updated now; new
    // rows are created and last updated now.
    using F = ::lance::table::pb::DataFragment;
    if (f->created_at_version_sequence_case() == F::CREATED_AT_VERSION_SEQUENCE_NOT_SET) {
      if (moved && !moved_created_at.empty()) {
        LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> ids, DecodeRowIdSequence(f->inline_row_ids()));
        std::vector<uint64_t> created(ids.size(), version);
        for (size_t i = 0; i < ids.size(); ++i) {
          auto it = moved_created_at.find(ids[i]);
          if (it != moved_created_at.end()) created[i] = it->second;
        }
        f->set_inline_created_at_versions(VersionRunsOf(created.data(), created.size()));
      } else {
        f->set_inline_created_at_versions(VersionRun(n, version));
      }
    }
    if (f->last_updated_at_version_sequence_case() == F::LAST_UPDATED_AT_VERSION_SEQUENCE_NOT_SET) {
      f->set_inline_last_updated_at_versions(VersionRun(n, version));
    }
    return Status::OK();
  };
  switch (t.operation_case()) {
    case pb::Transaction::kAppend:
      for (const auto& f : t.append().fragments()) LANCE_RETURN_NOT_OK(add_new(f));
      break;
    case pb::Transaction::kOverwrite: {
      const auto& o = t.overwrite();
      m.clear_fragments();
      m.clear_fields();
      for (const auto& f : o.schema()) *m.add_fields() = f;
      m.clear_schema_metadata();
      for (const auto& [k, v] : o.schema_metadata()) (*m.mutable_schema_metadata())[k] = v;
      for (const auto& [k, v] : o.config_upsert_values()) (*m.mutable_config())[k] = v;
      index_section.clear();  // indexes describe the old rows
      sticky_r &= ~kFlagCoveredIndexMetadata;
      sticky_w &= ~kFlagCoveredIndexMetadata;
      if (!req.data_storage_version.empty()) {
        m.mutable_data_format()->set_file_format("lance");
        m.mutable_data_format()->set_version(req.data_storage_version);
      }
      for (const auto& f : o.fragments()) LANCE_RETURN_NOT_OK(add_new(f));
      break;
    }
    case pb::Transaction::kDelete: {
      const auto& d = t.delete_();
      LANCE_RETURN_NOT_OK(
          ApplyDeletions(&m, d.updated_fragments(), d.deleted_fragment_ids(), "delete", version));
      break;
    }
    case pb::Transaction::kMerge: {
      const auto& mg = t.merge();
      // Stable row ids, as lance 12: a merge that adds a column or changes a column's type
      // (new data files) makes every row of the fragments it gave new files last updated
      // now. (Our rewrite of a struct after dropping a child is a Merge too, but lance 12
      // only edits the schema there: no top-level name or type changes, no refresh.)
      bool refresh = false;
      if (stable) {
        std::map<std::string, std::string> old_types;
        for (const auto& f : m.fields()) {
          if (f.parent_id() == -1) old_types[f.name()] = f.logical_type();
        }
        for (const auto& f : mg.schema()) {
          if (f.parent_id() != -1) continue;
          auto it = old_types.find(f.name());
          refresh = refresh || it == old_types.end() || it->second != f.logical_type();
        }
      }
      std::map<uint64_t, std::set<std::string>> old_files;
      for (const auto& f : m.fragments()) {
        for (const auto& d : f.files()) old_files[f.id()].insert(d.path());
      }
      m.clear_fragments();
      for (const auto& f : mg.fragments()) {
        auto* nf = m.add_fragments();
        *nf = f;
        if (!refresh) continue;
        const auto& before = old_files[f.id()];
        const bool new_files = std::any_of(f.files().begin(), f.files().end(),
                                           [&](const auto& d) { return !before.count(d.path()); });
        if (new_files) nf->set_inline_last_updated_at_versions(VersionRun(f.physical_rows(), version));
      }
      m.clear_fields();
      for (const auto& f : mg.schema()) *m.add_fields() = f;
      if (!mg.schema_metadata().empty()) {
        m.clear_schema_metadata();
        for (const auto& [k, v] : mg.schema_metadata()) (*m.mutable_schema_metadata())[k] = v;
      }
      break;
    }
    case pb::Transaction::kProject:
      m.clear_fields();
      for (const auto& f : t.project().schema()) *m.add_fields() = f;
      break;
    case pb::Transaction::kUpdate: {
      // Deletion files of the fragments the rows left, fragments left empty removed, the
      // rewritten rows appended as new fragments.
      const auto& u = t.update();
      LANCE_RETURN_NOT_OK(
          ApplyDeletions(&m, u.updated_fragments(), u.removed_fragment_ids(), "update", version));
      for (const auto& f : u.new_fragments()) LANCE_RETURN_NOT_OK(add_new(f));
      break;
    }
    case pb::Transaction::kRestore: {
      // The restored version's manifest (schema, fragments, config, indexes, its own flags),
      // with fragment ids and row ids continuing after the latest version's.
      if (!req.restore_source) return Status::Internal("a restore without the version to restore");
      const StoredVersion& src = *req.restore_source;
      const uint64_t max_frag = NextFragmentId(m) == 0 ? 0 : NextFragmentId(m) - 1;
      const bool had_fragments = m.has_max_fragment_id() || m.fragments_size() > 0;
      next_row_id = std::max<uint64_t>(next_row_id, src.manifest.next_row_id());
      m = src.manifest;
      index_section = src.index_section;
      const uint64_t keep = kFlagCoveredIndexMetadata | kFlagMixedDataFileVersions | kFlagStableRowIds;
      sticky_r = m.reader_feature_flags() & keep;
      sticky_w = m.writer_feature_flags() & keep;
      stable = (m.reader_feature_flags() & kFlagStableRowIds) != 0;
      if (had_fragments) {
        m.set_max_fragment_id(static_cast<uint32_t>(std::max<uint64_t>(max_frag, m.max_fragment_id())));
      }
      if (!stable && next_row_id > m.next_row_id()) m.set_next_row_id(next_row_id);
      m.clear_transaction_file();
      break;
    }
    case pb::Transaction::kRewrite: {
      // Each group's old fragments must be exactly as read (same deletion file); the group's
      // new fragments take the place of its first old fragment.
      const auto& rw = t.rewrite();
      std::map<uint64_t, const ::lance::table::pb::DataFragment*> current;
      for (const auto& f : m.fragments()) current[f.id()] = &f;
      std::map<uint64_t, int> first_of_group;
      std::set<uint64_t> old_ids;
      for (int g = 0; g < rw.groups_size(); ++g) {
        for (int k = 0; k < rw.groups(g).old_fragments_size(); ++k) {
          const auto& of = rw.groups(g).old_fragments(k);
          auto it = current.find(of.id());
          std::optional<::lance::table::pb::DeletionFile> want, have;
          if (of.has_deletion_file()) want = of.deletion_file();
          if (it != current.end() && it->second->has_deletion_file()) have = it->second->deletion_file();
          if (it == current.end() || !SameDeletion(want, have)) {
            return Status::RetryableCommitConflict("retryable conflict: fragment {} was changed or removed "
                                          "by a concurrent commit (version {}); compact again",
                                          of.id(), version - 1);
          }
          old_ids.insert(of.id());
          if (k == 0) first_of_group[of.id()] = g;
        }
      }
      google::protobuf::RepeatedPtrField<::lance::table::pb::DataFragment> old;
      old.Swap(m.mutable_fragments());
      std::vector<std::pair<uint64_t, uint64_t>> new_ids(static_cast<size_t>(rw.groups_size()));
      for (const auto& f : old) {
        if (!old_ids.count(f.id())) {
          *m.add_fragments() = f;
          continue;
        }
        auto g = first_of_group.find(f.id());
        if (g == first_of_group.end()) continue;
        new_ids[static_cast<size_t>(g->second)].first = next_frag;
        for (const auto& nf : rw.groups(g->second).new_fragments()) LANCE_RETURN_NOT_OK(add_new(nf));
        new_ids[static_cast<size_t>(g->second)].second = next_frag;
      }
      // Indexes: with stable row ids they still find every row by its id, so (as lance 12)
      // each index's fragment bitmap trades a group's old fragments for its new ones.
      // Without, their row addresses point into the old fragments, which this version no
      // longer has: as lance 12 does for an index it does not remap, the bitmaps stay as
      // they were, so readers mask the vanished fragments' rows out of index results (as
      // for wholly deleted fragments) and scan the new, unindexed fragments directly.
      if (stable && !index_section.empty()) {
        LANCE_ASSIGN_OR_RAISE(index_section, RebaseIndexBitmaps(index_section, rw, new_ids));
      }
      break;
    }
    case pb::Transaction::kCreateIndex: {
      // As lance 12: indexes named like a new one or listed as removed (by uuid) leave, the
      // new ones join. (lance-cpp builds no index files; this commits index metadata.)
      ::lance::table::pb::IndexSection section;
      if (!index_section.empty() && !section.ParseFromString(index_section)) {
        return Status::Corruption("the index section ({} bytes) does not decode", index_section.size());
      }
      const auto& ci = t.create_index();
      ::lance::table::pb::IndexSection out;
      for (const auto& x : section.indices()) {
        bool gone = false;
        for (const auto& n : ci.new_indices()) gone = gone || n.name() == x.name();
        for (const auto& r : ci.removed_indices()) gone = gone || r.uuid().uuid() == x.uuid().uuid();
        if (!gone) *out.add_indices() = x;
      }
      for (const auto& n : ci.new_indices()) *out.add_indices() = n;
      index_section = out.indices_size() == 0 ? std::string() : out.SerializeAsString();
      break;
    }
    default:
      return Status::NotSupported("committing a {} transaction is not implemented",
                                  OpName(t.operation_case()));
  }
  if (!index_section.empty()) {
    // As lance 12 on every commit: an index on a field the new schema lacks (dropped, or
    // retyped under a new id) leaves the section; system indexes stay.
    std::vector<int32_t> ids;
    ids.reserve(static_cast<size_t>(m.fields_size()));
    for (const auto& f : m.fields()) ids.push_back(f.id());
    LANCE_ASSIGN_OR_RAISE(index_section, RetainRelevantIndices(index_section, ids));
  }
  if (assigned || m.has_max_fragment_id()) {
    const uint64_t max_id = next_frag == 0 ? 0 : next_frag - 1;
    m.set_max_fragment_id(static_cast<uint32_t>(std::max<uint64_t>(max_id, m.max_fragment_id())));
  }
  if (stable) m.set_next_row_id(next_row_id);
  m.set_version(version);
  const int64_t ns = NowNs();
  m.mutable_timestamp()->set_seconds(ns / 1000000000LL);
  m.mutable_timestamp()->set_nanos(static_cast<int32_t>(ns % 1000000000LL));
  m.mutable_writer_version()->set_library("lance-cpp");
  m.mutable_writer_version()->set_version("0.1.0");
  m.clear_tag();
  ApplyFeatureFlags(&m, sticky_r, sticky_w);
  return std::make_pair(std::move(m), std::move(index_section));
}

}  // namespace

namespace {

// Ancestors of the store path `dir`, itself included, up to the filesystem root ("").
std::vector<std::string> SelfAndAncestors(std::string dir) {
  std::vector<std::string> out;
  for (;;) {
    out.push_back(dir);
    if (dir.empty()) return out;
    dir = ParentPath(dir);
  }
}

// Publishes the manifest `bytes` at `path` if the name is free (AlreadyExists otherwise),
// after making the files the commit wrote durable. With `loc.unsynced` and no handler of the
// caller's choosing, as durable_files.h argues: the files and the staged manifest synced in
// one round, the rename, the directory synced; else through `handler` on the syncing store.
Status Publish(const TableLocation& loc, CommitHandler* handler, bool new_dataset,
               const std::string& path, const std::string& bytes) {
  std::vector<std::string> dirs;
  if (loc.unsynced) {
    // New subdirectories of the dataset directory; for a new dataset, mkdir -p's parents.
    dirs = new_dataset ? SelfAndAncestors(loc.root) : std::vector<std::string>{loc.root};
  }
  if (handler != nullptr || !loc.unsynced) {
    if (loc.unsynced) {
      LANCE_RETURN_NOT_OK(SyncFiles(*loc.unsynced, loc.written->TakeUnsynced(), dirs));
    }
    return (handler ? handler : PutIfNotExistsCommitHandler().get())
        ->CommitManifest(*loc.store, path, bytes);
  }
  // A name that never parses as a version (it does not end in ".manifest").
  const std::string staging = path + "." + NewUuid() + ".staged";
  LANCE_RETURN_NOT_OK(loc.unsynced->Put(staging, bytes));
  std::vector<std::string> files = loc.written->TakeUnsynced();
  files.push_back(staging);
  Status st = SyncFiles(*loc.unsynced, files, dirs);
  if (st.ok()) st = loc.unsynced->RenameIfNotExists(staging, path);
  if (!st.ok()) {
    (void)loc.unsynced->Delete(staging);
    return st;
  }
  return SyncFiles(*loc.unsynced, {}, {ParentPath(path)});
}

Result<CommitInfo> CommitLoop(const TableLocation& loc, CommitRequest& req,
                              const CommitOptions& options, bool* maybe_published) {
  const uint64_t read_version = req.txn.read_version();
  const Op op = req.txn.operation_case();
  uint64_t checked = read_version;
  CommitInfo info;
  info.read_version = read_version;
  for (int attempt = 1; attempt <= options.max_retries + 1; ++attempt) {
    info.attempts = attempt;
    LANCE_ASSIGN_OR_RAISE(std::optional<StoredVersion> latest, LoadLatest(loc));
    if (!latest) {
      if (op != pb::Transaction::kOverwrite) {
        return Status::NotFound("{}: no dataset (no version in _versions/)", loc.root);
      }
      if (read_version != 0) {
        return Status::CommitConflict("{}: the dataset read at version {} no longer exists",
                                      loc.root, read_version);
      }
    } else {
      const pb::Manifest& lm = latest->manifest;
      LANCE_RETURN_NOT_OK(CheckCanWrite(lm.reader_feature_flags(), lm.writer_feature_flags(),
                                        latest->path));
      if (latest->version < read_version) {
        return Status::CommitConflict("{}: latest version {} is older than the read version {}",
                                      loc.root, latest->version, read_version);
      }
      for (uint64_t v = checked + 1; v <= latest->version; ++v) {
        std::optional<StoredVersion> loaded;
        if (v != latest->version) {
          LANCE_ASSIGN_OR_RAISE(StoredVersion sv, LoadVersion(loc, v));
          loaded = std::move(sv);
        }
        const StoredVersion& sv = v == latest->version ? *latest : *loaded;
        LANCE_ASSIGN_OR_RAISE(auto theirs, LoadTransaction(loc, sv));
        if (!theirs) {
          return Status::CommitConflict("{}: version {} records no transaction, so this {} "
                                        "cannot be checked against it; run it again",
                                        loc.root, v, OpName(op));
        }
        const Verdict verdict = Check(req.txn, *theirs);
        if (verdict != Verdict::kCompatible) {
          if (verdict == Verdict::kRetryable) {
            return Status::RetryableCommitConflict(
                "retryable conflict: this {} (read version {}) cannot be committed after the {} "
                "committed as version {}; run the operation again on the new version",
                OpName(op), read_version, OpName(theirs->operation_case()), v);
          }
          return Status::CommitConflict(
              "incompatible conflict: this {} (read version {}) cannot be committed after the {} "
              "committed as version {}",
              OpName(op), read_version, OpName(theirs->operation_case()), v);
        }
        ++info.rebased;
      }
      checked = latest->version;
      if (op == pb::Transaction::kDelete || op == pb::Transaction::kUpdate) {
        LANCE_RETURN_NOT_OK(RebaseDeletions(loc, &req, *latest));
      }
    }
    LANCE_ASSIGN_OR_RAISE(auto applied, ApplyOperation(req, latest));
    pb::Manifest& m = applied.first;
    const std::string txn_bytes = req.txn.SerializeAsString();
    const std::string txn_name = fmt::format("{}-{}.txn", read_version, req.txn.uuid());
    LANCE_RETURN_NOT_OK(loc.PutFile(loc.Path("_transactions/" + txn_name), txn_bytes));
    m.set_transaction_file(txn_name);
    const std::string bytes = SerializeManifestFile(&m, applied.second, txn_bytes);
    const ManifestNaming naming = latest ? latest->naming : req.new_dataset.naming;
    const std::string path = loc.Path("_versions/" + ManifestFileName(m.version(), naming));
    *maybe_published = true;
    Status st = Publish(loc, options.handler.get(), !latest, path, bytes);
    if (st.IsAlreadyExists()) {
      *maybe_published = false;
      // Lost the race for this version: back off a little, then rebase on the winner.
      std::this_thread::sleep_for(std::chrono::microseconds(RandomU64() % (500 * attempt + 1)));
      continue;
    }
    LANCE_RETURN_NOT_OK(st);
    loc.written->Clear();
    info.version = m.version();
    // The hint only helps readers find the latest version quickly; a stale or lost one is
    // tolerated (readers check the next version), so it is not synced, and a slower winner
    // does not move it backwards.
    const std::string hint = loc.Path("_versions/latest_version_hint.json");
    auto old_hint = loc.store->Get(hint);
    std::optional<uint64_t> old_version;
    if (old_hint.ok()) {
      auto parsed = ParseVersionJson(std::string_view(reinterpret_cast<const char*>((*old_hint)->data()),
                                                      static_cast<size_t>((*old_hint)->size())),
                                     hint);
      if (parsed.ok()) old_version = *parsed;
    }
    if (!old_version || *old_version < m.version()) {
      (void)loc.file_store()->Put(hint, fmt::format("{{\"version\":{}}}", m.version()));
    }
    return info;
  }
  return Status::CommitConflict("{}: gave up after losing {} commit races", loc.root,
                                options.max_retries + 1);
}

}  // namespace

Result<CommitInfo> Commit(const TableLocation& loc, CommitRequest req, const CommitOptions& options) {
  if (req.txn.uuid().empty()) req.txn.set_uuid(NewUuid());
  bool maybe_published = false;
  Result<CommitInfo> r = CommitLoop(loc, req, options, &maybe_published);
  if (!r.ok() && !maybe_published) {
    // No version names this operation's files (its manifest was never published): they are
    // garbage, so the failed operation leaves nothing behind. Best effort: a file that cannot
    // be removed is an unreferenced file, which cleanup removes later.
    for (const std::string& path : loc.written->All()) (void)loc.file_store()->Delete(path);
  }
  return r;
}

}  // namespace internal

}  // namespace lance::table
