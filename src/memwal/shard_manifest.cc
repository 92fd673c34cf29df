// Shard manifest codec and the versioned manifest store (claim, fenced updates, seal).
#include "lance/memwal/shard_manifest.h"

#include <chrono>
#include <thread>

#include <google/protobuf/unknown_field_set.h>
#include <nlohmann/json.hpp>

#include "lance/io/local_object_store.h"
#include "lance/memwal/layout.h"
#include "memwal/proto/memwal.pb.h"

namespace lance::memwal {

namespace {

std::string UnknownFieldsOf(const google::protobuf::Message& m) {
  const auto& unknown = m.GetReflection()->GetUnknownFields(m);
  if (unknown.empty()) return {};
  std::string out;
  unknown.SerializeToString(&out);
  return out;
}

void SleepMs(int ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

std::string_view ShardStatusName(ShardStatus status) {
  return status == ShardStatus::kSealed ? "SEALED" : "ACTIVE";
}

std::string EncodeShardManifest(const ShardManifest& m) {
  pb::ShardManifest p;
  p.set_version(m.version);
  p.set_writer_epoch(m.writer_epoch);
  p.set_replay_after_wal_entry_position(m.replay_after_wal_entry_position);
  p.set_wal_entry_position_last_seen(m.wal_entry_position_last_seen);
  p.set_current_generation(m.current_generation);
  for (const FlushedGeneration& g : m.flushed_generations) {
    pb::FlushedGeneration* out = p.add_flushed_generations();
    out->set_generation(g.generation);
    out->set_path(g.path);
    if (g.in_memory_bytes) out->set_in_memory_bytes(*g.in_memory_bytes);
    if (g.physical_rows) out->set_physical_rows(*g.physical_rows);
    if (g.primary_key_bytes) out->set_primary_key_bytes(*g.primary_key_bytes);
  }
  p.set_shard_spec_id(m.shard_spec_id);
  p.mutable_shard_id()->set_uuid(m.shard_id.ToBytes());
  for (const ShardFieldValue& v : m.shard_field_entries) {
    pb::ShardFieldEntry* e = p.add_shard_field_entries();
    e->set_field_id(v.field_id);
    e->set_value(v.value);
  }
  p.set_status(m.status == ShardStatus::kSealed ? pb::SEALED : pb::ACTIVE);
  std::string out;
  p.SerializeToString(&out);
  out.append(m.unknown_fields);  // unknown fields are whole tag/value records: appendable
  return out;
}

Result<ShardManifest> DecodeShardManifest(std::string_view bytes, std::string_view what) {
  pb::ShardManifest p;
  if (!p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("{}: not a ShardManifest protobuf ({} bytes)", what, bytes.size());
  }
  ShardManifest m;
  if (!p.has_shard_id()) {
    return Status::Corruption("{}: ShardManifest.shard_id (field 11) is missing", what);
  }
  LANCE_ASSIGN_OR_RAISE(m.shard_id, Uuid::FromBytes(p.shard_id().uuid(),
                                                    std::string(what) + ": shard_id"));
  m.version = p.version();
  m.shard_spec_id = p.shard_spec_id();
  for (const auto& e : p.shard_field_entries()) {
    m.shard_field_entries.push_back(ShardFieldValue{e.field_id(), e.value()});
  }
  m.writer_epoch = p.writer_epoch();
  m.replay_after_wal_entry_position = p.replay_after_wal_entry_position();
  m.wal_entry_position_last_seen = p.wal_entry_position_last_seen();
  m.current_generation = p.current_generation();
  for (const auto& g : p.flushed_generations()) {
    FlushedGeneration out;
    out.generation = g.generation();
    out.path = g.path();
    if (g.has_in_memory_bytes()) out.in_memory_bytes = g.in_memory_bytes();
    if (g.has_physical_rows()) out.physical_rows = g.physical_rows();
    if (g.has_primary_key_bytes()) out.primary_key_bytes = g.primary_key_bytes();
    m.flushed_generations.push_back(std::move(out));
  }
  switch (p.status()) {
    case pb::ACTIVE: m.status = ShardStatus::kActive; break;
    case pb::SEALED: m.status = ShardStatus::kSealed; break;
    default:
      return Status::Corruption("{}: ShardManifest.status is {} (expected ACTIVE 0 or SEALED 1)",
                                what, static_cast<int>(p.status()));
  }
  m.unknown_fields = UnknownFieldsOf(p);
  return m;
}

std::string ShardValueHex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string ShardManifestToJson(const ShardManifest& m) {
  nlohmann::ordered_json j;
  j["shard_id"] = m.shard_id.ToString();
  j["version"] = m.version;
  j["shard_spec_id"] = m.shard_spec_id;
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const auto& v : m.shard_field_entries) {
    fields.push_back({{"field_id", v.field_id}, {"value_hex", ShardValueHex(v.value)}});
  }
  j["shard_field_entries"] = fields;
  j["writer_epoch"] = m.writer_epoch;
  j["replay_after_wal_entry_position"] = m.replay_after_wal_entry_position;
  j["wal_entry_position_last_seen"] = m.wal_entry_position_last_seen;
  j["current_generation"] = m.current_generation;
  nlohmann::ordered_json gens = nlohmann::ordered_json::array();
  for (const auto& g : m.flushed_generations) {
    nlohmann::ordered_json x;
    x["generation"] = g.generation;
    x["path"] = g.path;
    x["in_memory_bytes"] = g.in_memory_bytes ? nlohmann::ordered_json(*g.in_memory_bytes) : nullptr;
    x["physical_rows"] = g.physical_rows ? nlohmann::ordered_json(*g.physical_rows) : nullptr;
    x["primary_key_bytes"] =
        g.primary_key_bytes ? nlohmann::ordered_json(*g.primary_key_bytes) : nullptr;
    gens.push_back(std::move(x));
  }
  j["flushed_generations"] = gens;
  j["status"] = ShardStatusName(m.status);
  return j.dump();
}

// --- store -----------------------------------------------------------------------------------

ShardManifestStore::ShardManifestStore(std::shared_ptr<io::ObjectStore> store, std::string root,
                                       Uuid shard, ShardManifestStoreOptions options)
    : store_(std::move(store)), root_(std::move(root)), shard_(shard), options_(options) {}

Result<bool> ShardManifestStore::VersionExists(uint64_t version) {
  auto head = store_->Head(ShardManifestPath(root_, shard_, version));
  if (head.ok()) return true;
  if (head.status().IsNotFound()) return false;
  return head.status();
}

Result<uint64_t> ShardManifestStore::LatestVersion() {
  uint64_t hint = 1;
  {
    auto bytes = store_->Get(VersionHintPath(root_, shard_));
    if (bytes.ok()) {
      auto j = nlohmann::json::parse((*bytes)->view(), nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("version") && j["version"].is_number_unsigned()) {
        hint = std::max<uint64_t>(1, j["version"].get<uint64_t>());
      }
    } else if (!bytes.status().IsNotFound()) {
      return bytes.status();
    }
  }
  uint64_t found = 0;
  LANCE_ASSIGN_OR_RAISE(bool hinted, VersionExists(hint));
  if (hinted) {
    found = hint;
  } else if (hint > 1) {
    LANCE_ASSIGN_OR_RAISE(bool first, VersionExists(1));
    if (first) found = 1;
  }
  if (found == 0) {
    // No version where the hint or the start says: versions may have been removed; list.
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> versions, ListVersions());
    if (versions.empty()) return uint64_t{0};
    found = versions.back();
  }
  while (true) {
    LANCE_ASSIGN_OR_RAISE(bool next, VersionExists(found + 1));
    if (!next) return found;
    ++found;
  }
}

Result<std::vector<uint64_t>> ShardManifestStore::ListVersions() {
  LANCE_ASSIGN_OR_RAISE(auto listed, store_->List(ShardManifestDirectory(root_, shard_)));
  std::vector<uint64_t> out;
  for (const auto& meta : listed) {
    if (auto v = ParseManifestFileName(meta.path)) out.push_back(*v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<ShardManifest> ShardManifestStore::Read(uint64_t version) {
  const std::string path = ShardManifestPath(root_, shard_, version);
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, store_->Get(path));
  LANCE_ASSIGN_OR_RAISE(ShardManifest m, DecodeShardManifest(bytes->view(), path));
  if (m.version != version) {
    return Status::Corruption("{}: the manifest says version {}, its name says {}", path,
                              m.version, version);
  }
  if (m.shard_id != shard_) {
    return Status::Corruption("{}: the manifest is of shard {}, its directory is shard {}", path,
                              m.shard_id.ToString(), shard_.ToString());
  }
  return m;
}

Result<std::optional<ShardManifest>> ShardManifestStore::Latest() {
  LANCE_ASSIGN_OR_RAISE(uint64_t v, LatestVersion());
  if (v == 0) return std::optional<ShardManifest>{};
  LANCE_ASSIGN_OR_RAISE(ShardManifest m, Read(v));
  return std::optional<ShardManifest>(std::move(m));
}

void ShardManifestStore::WriteHint(uint64_t version) {
  // Best effort and never synced (on local disk: two fsyncs fewer per manifest update, on the
  // path of every claim and flush): readers probe past a stale, lost or torn hint (a torn one
  // does not parse and counts as none), so neither a failure nor a crash here changes anything.
  std::shared_ptr<io::ObjectStore> store = store_;
  if (auto local = std::dynamic_pointer_cast<io::LocalObjectStore>(store_)) store = io::LocalObjectStore::Unsynced(local);
  (void)store->Put(VersionHintPath(root_, shard_), "{\"version\":" + std::to_string(version) + "}");
}

Result<ShardManifestStore::PutOutcome> ShardManifestStore::PutVersion(uint64_t version,
                                                                      const std::string& bytes,
                                                                      bool accept_identical) {
  const std::string path = ShardManifestPath(root_, shard_, version);
  bool ambiguous = false;  // an earlier attempt may have landed
  Status last;
  for (int attempt = 0; attempt <= options_.max_io_retries; ++attempt) {
    if (attempt > 0) SleepMs(options_.io_retry_backoff_ms << (attempt - 1));
    Status st = store_->PutIfNotExists(path, bytes);
    if (st.ok()) return PutOutcome::kWritten;
    if (st.IsAlreadyExists()) {
      if (ambiguous && accept_identical) {
        auto existing = store_->Get(path);
        if (!existing.ok()) {
          last = existing.status();
          continue;
        }
        if ((*existing)->view() == bytes) return PutOutcome::kWritten;
      }
      return PutOutcome::kTaken;
    }
    if (st.code() != StatusCode::kIOError) return st;
    // Without a way to tell our landed object from another writer's, an ambiguous create is
    // the caller's to resolve (a claim claims again from the latest version).
    if (!accept_identical) return st;
    ambiguous = true;
    last = std::move(st);
  }
  return Status::IOError("shard {}: writing manifest version {} failed after {} attempts: {}",
                         shard_.ToString(), version, options_.max_io_retries + 1,
                         last.ToString());
}

Result<ShardManifest> ShardManifestStore::Claim(uint32_t spec_id,
                                                const std::vector<ShardFieldValue>& field_values) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status last;
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> cur, Latest());
    if (cur && cur->status == ShardStatus::kSealed) {
      return Status::InvalidArgument("shard {} is SEALED (a drop is in flight): it refuses "
                                     "writer claims",
                                     shard_.ToString());
    }
    ShardManifest next;
    if (cur) {
      next = *cur;
      next.version = cur->version + 1;
      next.writer_epoch = cur->writer_epoch + 1;
    } else {
      next.shard_id = shard_;
      next.version = 1;
      next.writer_epoch = 1;
      next.shard_spec_id = spec_id;
      next.shard_field_entries = field_values;
      next.current_generation = 1;
    }
    auto put = PutVersion(next.version, EncodeShardManifest(next), /*accept_identical=*/false);
    if (!put.ok()) {
      if (put.status().code() != StatusCode::kIOError) return put.status();
      // The claim may or may not have landed: claim again from whatever is latest (one epoch
      // higher if it did land), never assume the epoch is ours.
      last = put.status();
      SleepMs(options_.io_retry_backoff_ms);
      continue;
    }
    if (*put == PutOutcome::kWritten) {
      position_ = next;
      WriteHint(next.version);
      return next;
    }
    LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> latest, Latest());
    if (latest && latest->writer_epoch >= next.writer_epoch) {
      return Status::Fenced("shard {}: another writer claimed epoch {} (this claim wanted {}) "
                            "at manifest version {}",
                            shard_.ToString(), latest->writer_epoch, next.writer_epoch,
                            latest->version);
    }
    last = Status::AlreadyExists("manifest version {} was taken", next.version);
  }
  return Status::IOError("shard {}: claim failed after {} attempts: {}", shard_.ToString(),
                         options_.max_attempts, last.ToString());
}

Result<ShardManifest> ShardManifestStore::CommitUpdate(
    uint64_t epoch, const std::function<Status(ShardManifest*)>& mutate) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    ShardManifest cur;
    if (position_) {
      cur = *position_;
    } else {
      LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> latest, Latest());
      if (!latest) {
        return Status::NotFound("shard {} has no manifest to update", shard_.ToString());
      }
      cur = std::move(*latest);
    }
    if (cur.writer_epoch > epoch) {
      position_.reset();
      return Status::Fenced("shard {}: writer epoch {} was fenced by epoch {} (manifest version "
                            "{})",
                            shard_.ToString(), epoch, cur.writer_epoch, cur.version);
    }
    if (cur.writer_epoch < epoch) {
      return Status::InvalidArgument("shard {}: epoch {} was never claimed (the manifest holds "
                                     "epoch {})",
                                     shard_.ToString(), epoch, cur.writer_epoch);
    }
    ShardManifest next = cur;
    LANCE_RETURN_NOT_OK(mutate(&next));
    next.shard_id = shard_;
    next.version = cur.version + 1;
    next.writer_epoch = epoch;
    LANCE_ASSIGN_OR_RAISE(PutOutcome put, PutVersion(next.version, EncodeShardManifest(next),
                                                     /*accept_identical=*/true));
    if (put == PutOutcome::kWritten) {
      position_ = next;
      WriteHint(next.version);
      return next;
    }
    position_.reset();  // someone wrote past us: reload, then the epoch check decides
  }
  return Status::IOError("shard {}: manifest update lost {} compare-and-create rounds",
                         shard_.ToString(), options_.max_attempts);
}

Result<ShardManifest> ShardManifestStore::Rewrite(
    const std::function<Status(ShardManifest*)>& mutate, bool bump_epoch) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    LANCE_ASSIGN_OR_RAISE(std::optional<ShardManifest> cur, Latest());
    if (!cur) return Status::NotFound("shard {} has no manifest", shard_.ToString());
    ShardManifest next = *cur;
    LANCE_RETURN_NOT_OK(mutate(&next));
    next.version = cur->version + 1;
    if (bump_epoch) next.writer_epoch = cur->writer_epoch + 1;
    auto put = PutVersion(next.version, EncodeShardManifest(next), /*accept_identical=*/false);
    if (!put.ok()) {
      if (put.status().code() != StatusCode::kIOError) return put.status();
      SleepMs(options_.io_retry_backoff_ms);
      continue;  // re-read: a landed write shows up as the latest version
    }
    if (*put == PutOutcome::kWritten) {
      position_ = next;
      WriteHint(next.version);
      return next;
    }
  }
  return Status::IOError("shard {}: manifest rewrite lost {} compare-and-create rounds",
                         shard_.ToString(), options_.max_attempts);
}

Result<ShardManifest> ShardManifestStore::Seal() {
  return Rewrite(
      [](ShardManifest* m) {
        m->status = ShardStatus::kSealed;
        return Status::OK();
      },
      /*bump_epoch=*/true);
}

Result<ShardManifest> ShardManifestStore::Unseal() {
  return Rewrite(
      [](ShardManifest* m) {
        m->status = ShardStatus::kActive;
        return Status::OK();
      },
      /*bump_epoch=*/false);
}

Result<std::vector<Uuid>> ListShards(io::ObjectStore& store, std::string_view root) {
  LANCE_ASSIGN_OR_RAISE(io::ListResult listed, store.ListDir(MemWalRoot(root)));
  std::vector<Uuid> out;
  for (const std::string& dir : listed.directories) {
    const size_t slash = dir.rfind('/');
    auto id = Uuid::Parse(slash == std::string::npos ? dir : dir.substr(slash + 1));
    if (id.ok()) out.push_back(*id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool ShardMayHold(const ShardManifest& m, const ShardTarget& target) {
  if (!m.shard_field_entries.empty()) return m.shard_field_entries == target.field_values;
  return m.shard_id == target.shard_id;
}

}  // namespace lance::memwal
