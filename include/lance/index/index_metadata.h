// The generic part of every index (scalar, vector, full-text): where its files live, how a
// new index is described in the manifest (IndexMetadata, table::IndexInfo) and committed.
//
// An index segment is a directory `{table}/_indices/{uuid}/` of immutable files (Lance files
// for the formats lance 12 writes), opened through an IndexStore (index_store.h). Creating
// an index = writing its files into a fresh directory, then committing a CreateIndex
// transaction (table/commit.h) whose new IndexInfo names them, as lance 12 does: uuid, name,
// field ids, the dataset version it was trained on, the fragment bitmap of the fragments it
// covers, the type's details message (an Any: type URL + bytes), the index version, the
// files with their sizes and the creation time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/index/index_store.h"
#include "lance/table/commit.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"

namespace lance::index {

// A random (version 4) UUID, hyphenated lower case, as lance names index directories.
std::string NewIndexUuid();

// The store path of the directory of index `uuid` of the table at `location`.
std::string IndexDirectory(const table::TableLocation& location, const std::string& uuid);

// An IndexStore over the directory of `info` (or of `uuid`), sharing `cache` when given.
std::shared_ptr<IndexStore> OpenIndexStore(const table::TableLocation& location,
                                           const table::IndexInfo& info,
                                           std::shared_ptr<IndexCache> cache = nullptr);
std::shared_ptr<IndexStore> OpenIndexStore(const table::TableLocation& location,
                                           const std::string& uuid,
                                           std::shared_ptr<IndexCache> cache = nullptr);

// The default name lance 12 gives an index on `column`: "{column}_idx".
std::string DefaultIndexName(const std::string& column);

// What a trainer produced, to be described in the manifest.
struct NewIndexSegment {
  std::string uuid;                  // the directory the files were written into
  std::string name;
  std::vector<int32_t> fields;       // field ids of the indexed column(s)
  std::vector<uint32_t> fragment_ids;  // the fragments whose rows it holds, any order
  std::string details_type_url;      // "/lance.table.BTreeIndexDetails", ...
  std::string details;               // serialized details message ("" for empty ones)
  int32_t index_version = 0;
  std::vector<table::IndexFileInfo> files;  // relative to the index directory
};

// The IndexInfo of `segment` trained on `dataset_version` (fragment bitmap sorted, created
// now in milliseconds).
table::IndexInfo MakeIndexInfo(const NewIndexSegment& segment, uint64_t dataset_version);

// Commits `segment` as a new index built on version `read_version` of the table: a CreateIndex
// transaction adding it. An existing user index of the same name is replaced when `replace`
// (the manifest drops it, as lance 12 does; its files stay until cleanup), else the commit
// fails with AlreadyExists before writing anything. Errors: AlreadyExists, NotFound (no
// table), CommitConflict, IOError.
// `staged`: the index files, when written through StagedFiles::store() (synced by the commit
// with its manifest, removed if it fails for good); null when they are durable already.
Result<table::CommitInfo> CommitNewIndex(const table::TableLocation& location,
                                         uint64_t read_version, const NewIndexSegment& segment,
                                         bool replace, const table::CommitOptions& options = {},
                                         table::StagedFiles* staged = nullptr);

// Commits the index segments `added` in place of the user index segments `replaced` (uuids),
// on version `read_version`: one CreateIndex transaction adding and removing them all (what
// an optimize of several indexes commits, as lance 12 does). Errors: CommitConflict (one of
// `replaced` is not in the latest version: a concurrent optimize or drop got there first),
// NotFound, IOError. `staged`: as CommitNewIndex.
Result<table::CommitInfo> CommitReplacingSegments(const table::TableLocation& location,
                                                  uint64_t read_version,
                                                  const std::vector<table::IndexInfo>& added,
                                                  const std::vector<std::string>& replaced,
                                                  const table::CommitOptions& options = {},
                                                  table::StagedFiles* staged = nullptr);

// The fragments of `manifest` (`live`) and those of them none of `segments` (of the index
// `name`) covers (`unindexed`), both ascending. Errors: NotSupported naming the segment when
// one has no fragment bitmap (written by a lance too old to say what it covers: rebuild it);
// `where` names the table.
struct FragmentCoverage {
  std::vector<uint32_t> live;
  std::vector<uint32_t> unindexed;
};
Result<FragmentCoverage> CoverageOf(const table::Manifest& manifest,
                                    const std::vector<const table::IndexInfo*>& segments, const std::string& name,
                                    const std::string& where);

// The name of the top-level column the one-column index segment `segment` of `manifest` keys.
// Errors: NotSupported naming the index and `where` (the table) when it keys several fields or
// a field that is not a top-level column.
Result<std::string> KeyedColumn(const table::Manifest& manifest, const table::IndexInfo& segment,
                                const std::string& where);

// The user indexes (system indexes left out) of `manifest` named `name`, in manifest order.
std::vector<const table::IndexInfo*> FindIndexSegments(const table::Manifest& manifest,
                                                       const std::string& name);

}  // namespace lance::index
