#include "lance/index/index_metadata.h"

#include <algorithm>
#include <iterator>
#include <chrono>
#include <random>

#include <fmt/format.h>

#include "lance/io/object_store.h"
#include "lance/table/versions.h"

namespace lance::index {

std::string NewIndexUuid() {
  thread_local std::mt19937_64 gen([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
           static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }());
  uint64_t hi = gen(), lo = gen();
  hi = (hi & ~0xf000ull) | 0x4000ull;                     // version 4
  lo = (lo & ~(0xc000ull << 48)) | (0x8000ull << 48);     // variant 10
  const std::string h = fmt::format("{:016x}{:016x}", hi, lo);
  return fmt::format("{}-{}-{}-{}-{}", h.substr(0, 8), h.substr(8, 4), h.substr(12, 4),
                     h.substr(16, 4), h.substr(20, 12));
}

std::string IndexDirectory(const table::TableLocation& location, const std::string& uuid) {
  return location.Path("_indices/" + uuid);
}

std::shared_ptr<IndexStore> OpenIndexStore(const table::TableLocation& location,
                                           const std::string& uuid,
                                           std::shared_ptr<IndexCache> cache) {
  return IndexStore::Make(location.store(), IndexDirectory(location, uuid), std::move(cache));
}

std::shared_ptr<IndexStore> OpenIndexStore(const table::TableLocation& location,
                                           const table::IndexInfo& info,
                                           std::shared_ptr<IndexCache> cache) {
  return OpenIndexStore(location, info.uuid, std::move(cache));
}

std::string DefaultIndexName(const std::string& column) { return column + "_idx"; }

table::IndexInfo MakeIndexInfo(const NewIndexSegment& segment, uint64_t dataset_version) {
  table::IndexInfo info;
  info.uuid = segment.uuid;
  info.name = segment.name;
  info.fields = segment.fields;
  info.dataset_version = dataset_version;
  info.has_fragment_bitmap = true;
  info.fragment_ids = segment.fragment_ids;
  std::sort(info.fragment_ids.begin(), info.fragment_ids.end());
  info.fragment_ids.erase(std::unique(info.fragment_ids.begin(), info.fragment_ids.end()),
                          info.fragment_ids.end());
  info.details_type_url = segment.details_type_url;
  info.details = segment.details;
  info.index_version = segment.index_version;
  info.created_at_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  info.files = segment.files;
  return info;
}

std::vector<const table::IndexInfo*> FindIndexSegments(const table::Manifest& manifest,
                                                       const std::string& name) {
  std::vector<const table::IndexInfo*> out;
  for (const auto& x : manifest.indices) {
    if (x.name == name && !table::IsSystemIndex(x)) out.push_back(&x);
  }
  return out;
}

Result<table::CommitInfo> CommitNewIndex(const table::TableLocation& location,
                                         uint64_t read_version, const NewIndexSegment& segment,
                                         bool replace, const table::CommitOptions& options,
                                         table::StagedFiles* staged) {
  if (segment.name.empty()) return Status::InvalidArgument("create index: the index name is empty");
  LANCE_ASSIGN_OR_RAISE(table::CommittedVersion latest, table::LoadLatestWritableVersion(location));
  const auto existing = FindIndexSegments(latest.manifest, segment.name);
  if (!existing.empty() && !replace) {
    return Status::AlreadyExists("{}: an index named '{}' exists (version {}); replace it or "
                                 "choose another name",
                                 location.display(), segment.name, latest.version);
  }
  table::Transaction::CreateIndex ci;
  ci.new_indices.push_back(MakeIndexInfo(segment, read_version));
  for (const auto* x : existing) ci.removed_indices.push_back(*x);
  table::Transaction txn;
  txn.read_version = read_version;
  txn.operation = std::move(ci);
  return table::CommitTransaction(location, std::move(txn), options, staged);
}

Result<FragmentCoverage> CoverageOf(const table::Manifest& manifest,
                                    const std::vector<const table::IndexInfo*>& segments, const std::string& name,
                                    const std::string& where) {
  std::vector<uint32_t> covered;
  for (const table::IndexInfo* s : segments) {
    if (!s->has_fragment_bitmap) {
      return Status::NotSupported("index '{}' of {}: segment {} has no fragment bitmap (written by an old lance); "
                                  "rebuild it with create-index --replace",
                                  name, where, s->uuid);
    }
    covered.insert(covered.end(), s->fragment_ids.begin(), s->fragment_ids.end());
  }
  std::sort(covered.begin(), covered.end());
  FragmentCoverage out;
  for (const auto& f : manifest.fragments) out.live.push_back(static_cast<uint32_t>(f.id));
  std::sort(out.live.begin(), out.live.end());
  std::set_difference(out.live.begin(), out.live.end(), covered.begin(), covered.end(),
                      std::back_inserter(out.unindexed));
  return out;
}

Result<std::string> KeyedColumn(const table::Manifest& manifest, const table::IndexInfo& segment,
                                const std::string& where) {
  if (segment.fields.size() != 1) {
    return Status::NotSupported("index '{}' of {} keys {} fields; expected one top-level column", segment.name,
                                where, segment.fields.size());
  }
  auto field = std::find_if(manifest.fields.begin(), manifest.fields.end(),
                            [&](const file::LanceField& f) { return f.id == segment.fields[0]; });
  if (field == manifest.fields.end() || field->parent_id != -1) {
    return Status::NotSupported("index '{}' of {} keys field id {}, which is not a top-level column", segment.name,
                                where, segment.fields[0]);
  }
  return field->name;
}

Result<table::CommitInfo> CommitReplacingSegments(const table::TableLocation& location,
                                                  uint64_t read_version,
                                                  const std::vector<table::IndexInfo>& added,
                                                  const std::vector<std::string>& replaced,
                                                  const table::CommitOptions& options,
                                                  table::StagedFiles* staged) {
  LANCE_ASSIGN_OR_RAISE(table::CommittedVersion latest, table::LoadLatestWritableVersion(location));
  table::Transaction::CreateIndex ci;
  ci.new_indices = added;
  for (const std::string& uuid : replaced) {
    auto it = std::find_if(latest.manifest.indices.begin(), latest.manifest.indices.end(),
                           [&](const table::IndexInfo& x) { return x.uuid == uuid && !table::IsSystemIndex(x); });
    if (it == latest.manifest.indices.end()) {
      return Status::CommitConflict("{}: index segment {} is not in version {} (changed by a concurrent commit); "
                                    "optimize again",
                                    location.display(), uuid, latest.version);
    }
    ci.removed_indices.push_back(*it);
  }
  table::Transaction txn;
  txn.read_version = read_version;
  txn.operation = std::move(ci);
  return table::CommitTransaction(location, std::move(txn), options, staged);
}

}  // namespace lance::index
