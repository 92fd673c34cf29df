// Transactions: the one C++ model of what a commit does (Transaction and its operations, as
// lance 12 writes them) and its codec.
//
// Every commit stores its transaction twice: raw in _transactions/{read_version}-{uuid}.txn
// and inside the manifest it creates. A writer that loses a commit race reads the
// transactions committed since its read version to decide whether its own still applies
// (commit.h). So every operation lance 12 writes is modelled here, with the members the
// conflict rules read; members this library does not know survive in `unknown_fields` (raw
// protobuf bytes, re-emitted on encode), and MemWAL / fragment-reuse messages that only pass
// through are kept as raw message bytes.
//
// Members marked "(not stored)" are never encoded: they are what the commit needs to build
// or rebase the operation in this process (e.g. the rows a delete removes).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "lance/core/result.h"
#include "lance/file/lance_schema.h"
#include "lance/table/manifest.h"

namespace lance::table {

// What a commit needs to rebase a transaction that deletes rows (Delete, Update) over
// concurrent deletions in the same fragments (not stored). For each fragment the transaction
// deletes rows of: the row offsets it deletes (sorted, unique) and the deletion file the
// fragment had when those rows were read (nullopt: none). A fragment the transaction changes
// without an entry here is taken as read at the transaction's read version, and a concurrent
// change to its deletions is then a retryable conflict (nothing to merge it with).
struct DeletionRebase {
  std::map<uint64_t, std::vector<uint32_t>> deleted_rows;
  std::map<uint64_t, std::optional<DeletionFileInfo>> base;
};

// Options of a table that an Overwrite creates (not stored; ignored when the table exists).
struct NewTableOptions {
  ManifestNaming naming = ManifestNaming::kV2;
  bool enable_stable_row_ids = false;
};

// An entry of an UpdateMap: `value` absent removes `key`.
struct UpdateMapEntry {
  std::string key;
  std::optional<std::string> value;
  std::string unknown_fields;
};

// Changes to a string map: the entries set (or removed), or a replacement of the whole map.
struct UpdateMap {
  std::vector<UpdateMapEntry> entries;
  bool replace = false;
  std::string unknown_fields;
};

struct Transaction {
  // New rows: fragments whose ids the commit assigns (0 here).
  struct Append {
    std::vector<FragmentInfo> fragments;
    std::string unknown_fields;
  };
  // Deleted rows: existing fragments with their new deletion files, and the fragments left
  // without a live row.
  struct Delete {
    std::vector<FragmentInfo> updated_fragments;
    std::vector<uint64_t> deleted_fragment_ids;
    std::string predicate;
    std::string unknown_fields;
    DeletionRebase rebase;  // (not stored)
  };
  // A new schema and rows (also what creates a table).
  struct Overwrite {
    std::vector<FragmentInfo> fragments;  // ids assigned at commit
    std::vector<file::LanceField> schema;
    std::vector<std::pair<std::string, std::string>> schema_metadata;
    std::map<std::string, std::string> config_upsert_values;
    std::vector<BasePathInfo> initial_bases;
    std::string unknown_fields;
    // (not stored) The data storage version of the new version ("2.1", "2.2"); "" keeps the
    // table's, or for a new table takes the data files' version.
    std::string data_storage_version;
    NewTableOptions new_table;  // (not stored)
  };
  // Index metadata added (and replaced: an index named like a new one leaves) and removed.
  struct CreateIndex {
    std::vector<IndexInfo> new_indices;
    std::vector<IndexInfo> removed_indices;
    std::string unknown_fields;
  };
  struct RewriteGroup {
    std::vector<FragmentInfo> old_fragments;  // as read (ids and deletion files)
    std::vector<FragmentInfo> new_fragments;  // ids assigned at commit
    std::string unknown_fields;
  };
  struct RewrittenIndex {
    std::string old_id;  // uuid
    std::string new_id;
    std::string new_index_details_type_url;
    std::string new_index_details;
    bool has_new_index_details = false;
    uint32_t new_index_version = 0;
    std::vector<IndexFileInfo> new_index_files;
    std::string unknown_fields;
  };
  // Rows moved into new fragments without changing them (compaction).
  struct Rewrite {
    std::vector<FragmentInfo> old_fragments;  // the deprecated form without groups
    std::vector<FragmentInfo> new_fragments;
    std::vector<RewriteGroup> groups;
    std::vector<RewrittenIndex> rewritten_indices;
    std::string unknown_fields;
  };
  // A new schema with new data files in (every) fragment (add / alter columns).
  struct Merge {
    std::vector<FragmentInfo> fragments;  // every fragment of the result, ids kept
    std::vector<file::LanceField> schema;
    std::vector<std::pair<std::string, std::string>> schema_metadata;
    bool preserves_nullability = false;
    std::string unknown_fields;
  };
  // The content of an older version as the next one.
  struct Restore {
    uint64_t version = 0;
    std::string unknown_fields;
    // (not stored) The manifest of `version`; the commit loads it when absent.
    std::optional<Manifest> source;
  };
  struct ReserveFragments {
    uint32_t num_fragments = 0;
    std::string unknown_fields;
  };
  // Rows changed: rewritten into new fragments and deleted where they were (rewrite rows),
  // or columns rewritten in place (rewrite columns).
  struct Update {
    std::vector<uint64_t> removed_fragment_ids;
    std::vector<FragmentInfo> updated_fragments;
    std::vector<FragmentInfo> new_fragments;
    std::vector<uint32_t> fields_modified;
    std::vector<std::string> compacted_sstables;  // MemWAL CompactedSsTable messages (raw)
    std::vector<uint32_t> fields_for_preserving_frag_bitmap;
    uint32_t update_mode = 0;  // 0 rewrite rows, 1 rewrite columns
    std::optional<std::string> inserted_rows;  // KeyExistenceFilter message (raw)
    std::map<uint64_t, std::vector<uint32_t>> updated_fragment_offsets;
    std::map<uint64_t, std::string> updated_fragment_offset_bitmaps;
    std::string unknown_fields;
    DeletionRebase rebase;  // (not stored)
  };
  // A new schema without new data (drop / rename / nullability).
  struct Project {
    std::vector<file::LanceField> schema;
    bool preserves_nullability = false;
    std::string unknown_fields;
  };
  struct FieldMetadataUpdate {
    std::map<std::string, std::string> metadata;
    std::string unknown_fields;
  };
  // Table config, table metadata, schema or field metadata changed.
  struct UpdateConfig {
    std::optional<UpdateMap> config_updates;
    std::optional<UpdateMap> table_metadata_updates;
    std::optional<UpdateMap> schema_metadata_updates;
    std::map<int32_t, UpdateMap> field_metadata_updates;
    // The deprecated form.
    std::map<std::string, std::string> upsert_values;
    std::vector<std::string> delete_keys;
    std::map<std::string, std::string> schema_metadata;
    std::map<uint32_t, FieldMetadataUpdate> field_metadata;
    std::string unknown_fields;
  };
  struct DataReplacementGroup {
    uint64_t fragment_id = 0;
    std::optional<DataFileInfo> new_file;
    std::string unknown_fields;
  };
  struct DataReplacement {
    std::vector<DataReplacementGroup> replacements;
    std::string unknown_fields;
  };
  struct UpdateMemWalState {
    std::vector<std::string> compacted_sstables;  // MemWAL CompactedSsTable messages (raw)
    std::string unknown_fields;
  };
  struct Clone {
    bool is_shallow = false;
    std::optional<std::string> ref_name;
    uint64_t ref_version = 0;
    std::string ref_path;
    std::optional<std::string> branch_name;
    std::string unknown_fields;
  };
  struct UpdateBases {
    std::vector<BasePathInfo> new_bases;
    std::string unknown_fields;
  };
  struct DataOverlayGroup {
    uint64_t fragment_id = 0;
    std::vector<DataOverlayFileInfo> overlays;
    std::string unknown_fields;
  };
  struct DataOverlay {
    std::vector<DataOverlayGroup> groups;
    std::string unknown_fields;
  };
  struct AppendFragmentReuseTransitions {
    std::vector<std::string> transitions;  // FragmentReuseIndexDetails.Transition messages (raw)
    std::string unknown_fields;
  };

  // std::monostate: no operation this library knows (none set, or a newer writer's).
  using Operation =
      std::variant<std::monostate, Append, Delete, Overwrite, CreateIndex, Rewrite, Merge, Restore,
                   ReserveFragments, Update, Project, UpdateConfig, DataReplacement,
                   UpdateMemWalState, Clone, UpdateBases, DataOverlay,
                   AppendFragmentReuseTransitions>;

  uint64_t read_version = 0;  // the version the transaction was built on (0: a new table)
  std::string uuid;           // hyphenated lowercase; the commit makes one when empty
  std::string tag;
  std::map<std::string, std::string> transaction_properties;
  Operation operation;
  std::string unknown_fields;

  template <typename Op>
  bool is() const {
    return std::holds_alternative<Op>(operation);
  }
  template <typename Op>
  const Op* get() const {
    return std::get_if<Op>(&operation);
  }
  template <typename Op>
  Op* get() {
    return std::get_if<Op>(&operation);
  }
  // "Append", "Delete", ..., as lance names its operations; "unknown operation" for none.
  const char* operation_name() const;
};

// The fragments an index covering `covered` covers once the Rewrite `rw` is applied, the new
// fragments of group g having the ids `new_ids[g]` (lance 12's rule): a group whose old
// fragments it all covers is traded for its new ones; nullopt when no group touches it.
// Errors: InvalidArgument naming the index `name` when a group mixes fragments it covers with
// fragments it does not (compaction never plans one).
Result<std::optional<std::vector<uint32_t>>> RebaseFragmentIds(const std::vector<uint32_t>& covered,
                                                               const Transaction::Rewrite& rw,
                                                               const std::vector<std::vector<uint32_t>>& new_ids,
                                                               const std::string& name);

// Decodes a serialized Transaction (a .txn file or a manifest's transaction section); `what`
// names it in errors. Errors: Corruption (bytes that do not decode, a bad index uuid or bitmap).
Result<Transaction> DecodeTransaction(std::string_view bytes, const std::string& what = "transaction");

// The serialized Transaction (maps sorted by key; the "(not stored)" members left out).
// Errors: InvalidArgument (an index uuid that is not a UUID).
Result<std::string> EncodeTransaction(const Transaction& txn);

}  // namespace lance::table
