// Lance table manifests: the one C++ model of a version (Manifest and the fragments, data
// files, deletion files, base paths, index entries it holds) and its codec.
//
// A manifest file is: [optional u32 length + IndexSection] [optional u32 length + Transaction]
// u32 length + Manifest protobuf, then a 16-byte footer: u64 LE position of the manifest's
// length prefix | u16 LE major (0) | u16 LE minor (2) | "LANC".
//
// DecodeManifest reads every member of the format's messages into the model; what a newer
// writer added and this library does not know is kept, per message, as raw protobuf bytes
// (`unknown_fields`) and written back by EncodeManifest after the known members, so a commit
// carries it over unchanged. Decoding and encoding happen here only: the commit path, the
// readers and the operations above work on the model.
//
// Version files live in {table}/_versions/ under one of two naming schemes:
//   kV2:     "{u64::MAX - version}.manifest" (decimal, no padding; what lance 12 writes)
//   kLegacy: "{version}.manifest"
// plus an optional "latest_version_hint.json" holding {"version":N} (versions.h resolves them).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/columnar/buffer.h"
#include "lance/columnar/type.h"
#include "lance/core/result.h"
#include "lance/file/lance_schema.h"

namespace lance::table {

enum class ManifestNaming { kV2, kLegacy };

// "_versions/18446744073709551614.manifest" style name (without the table prefix).
std::string ManifestFileName(uint64_t version, ManifestNaming naming);
// Parses a file name (last path component) of either scheme; nullopt for anything else.
// A 20-digit stem is the V2 scheme (legacy numbers never reach 10^19).
std::optional<std::pair<uint64_t, ManifestNaming>> ParseManifestFileName(std::string_view name);

// Every struct below has `unknown_fields`: the members of its protobuf message this library
// does not know, as protobuf wire bytes (usually empty), re-emitted when encoded.

// A file outside the fragment's data files holding a sequence (ExternalFile).
struct ExternalFileInfo {
  std::string path;  // relative to the table root
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string unknown_fields;
};

struct DataFileInfo {
  std::string path;  // relative to data/ of its base
  std::vector<int32_t> fields;          // field ids held by the file (2.1+: leaf fields)
  std::vector<int32_t> column_indices;  // column of each field in the file (-1: none)
  uint32_t major = 0;
  uint32_t minor = 0;
  uint64_t size_bytes = 0;  // 0 = unknown
  std::optional<uint32_t> base_id;
  std::string unknown_fields;
};

enum class DeletionFileType { kArrowArray = 0, kBitmap = 1 };

struct DeletionFileInfo {
  DeletionFileType type = DeletionFileType::kArrowArray;
  uint64_t read_version = 0;
  uint64_t id = 0;
  uint64_t num_deleted_rows = 0;
  std::optional<uint32_t> base_id;
  std::string unknown_fields;
  // "{fragment_id}-{read_version}-{id}.arrow|bin"
  std::string FileName(uint64_t fragment_id) const;
  // The same file: type, read version, id and row count equal.
  bool SameFile(const DeletionFileInfo& other) const;
};

// Per-field coverage of a sparse overlay (FieldCoverage).
struct FieldCoverageInfo {
  std::vector<std::string> offset_bitmaps;  // portable Roaring bitmaps, one per field
  std::string unknown_fields;
};

// An overlay file supplying new values for some cells of a fragment (DataOverlayFile; the
// unstable feature behind flag 64: decoded and carried, not read yet).
struct DataOverlayFileInfo {
  std::optional<DataFileInfo> data_file;
  // The coverage (a oneof): one bitmap of row offsets for every field, or one per field.
  std::optional<std::string> shared_offset_bitmap;
  std::optional<FieldCoverageInfo> field_coverage;
  uint64_t committed_version = 0;
  std::string unknown_fields;
};

struct FragmentInfo {
  uint64_t id = 0;
  std::vector<DataFileInfo> files;
  std::optional<DeletionFileInfo> deletion;
  uint64_t physical_rows = 0;
  // Stable row ids: a serialized RowIdSequence (row_ids.h), or empty; or an external file.
  std::string inline_row_ids;
  std::optional<ExternalFileInfo> external_row_ids;
  // Row versions (serialized RowLatestUpdateVersionSequence), or empty; or external files.
  std::string inline_last_updated_at_versions;
  std::optional<ExternalFileInfo> external_last_updated_at_versions;
  std::string inline_created_at_versions;
  std::optional<ExternalFileInfo> external_created_at_versions;
  std::vector<DataOverlayFileInfo> overlays;
  std::string unknown_fields;

  uint64_t num_rows() const {
    return physical_rows - (deletion ? deletion->num_deleted_rows : 0);
  }
  bool has_external_row_ids() const { return external_row_ids.has_value(); }
  // Whether the fragment records row ids at all (inline or in a file).
  bool has_row_ids() const { return !inline_row_ids.empty() || external_row_ids.has_value(); }
  int num_overlays() const { return static_cast<int>(overlays.size()); }
};

struct BasePathInfo {
  uint32_t id = 0;
  std::optional<std::string> name;
  bool is_dataset_root = false;
  std::string path;
  std::string unknown_fields;
};

struct IndexFileInfo {
  std::string path;  // relative to _indices/{uuid}/
  uint64_t size_bytes = 0;
  std::string unknown_fields;
};

// One entry of the manifest's index section (IndexMetadata). An index covers the rows of the
// fragments in its fragment bitmap as of `dataset_version`; rows of other fragments are not
// indexed (readers scan them).
struct IndexInfo {
  std::string uuid;  // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lowercase; files in _indices/{uuid}/
  std::string name;
  std::vector<int32_t> fields;  // field ids of the indexed columns
  uint64_t dataset_version = 0;
  bool has_fragment_bitmap = false;  // absent in indexes of old writers: coverage unknown
  std::vector<uint32_t> fragment_ids;  // the fragment bitmap, ascending
  std::string details_type_url;  // e.g. "/lance.table.BTreeIndexDetails"; empty when absent
  std::string details;           // the serialized details message (Any.value)
  std::optional<int32_t> index_version;
  std::optional<uint64_t> created_at_ms;  // since the Unix epoch
  std::optional<uint32_t> base_id;
  std::vector<IndexFileInfo> files;
  std::vector<int32_t> covering_fields;
  std::string unknown_fields;
};

// The system indexes lance keeps whatever the schema ("__lance_frag_reuse", "__lance_mem_wal").
bool IsSystemIndex(const IndexInfo& index);

// The index type named after its details: "BTREE", "BITMAP", "INVERTED" (full-text search),
// "LABEL_LIST", "NGRAM", "ZONEMAP", "BLOOMFILTER", "MEMWAL", vector indexes as "IVF_PQ",
// "IVF_SQ", "IVF_RQ", "IVF_FLAT" with "_HNSW" after "IVF" when they have an HNSW layer, or the
// details message name for anything else ("" without details).
std::string IndexTypeName(const IndexInfo& index);

// The vector index settings in the details, for display: {"metric": "l2", "compression":
// "pq", "num_bits": 8, "num_sub_vectors": 2, ...} as JSON text; "" when `index` is not a
// vector index or its details do not decode.
std::string VectorIndexDetailsJson(const IndexInfo& index);

// What lance 12 does to the index section on every commit: keeps only the indexes whose
// fields are all in `field_ids` (the new schema's ids), and the system indexes always.
std::vector<IndexInfo> RetainRelevantIndices(std::vector<IndexInfo> indices,
                                             const std::vector<int32_t>& field_ids);

// The values of a dictionary field of a legacy-storage (0.1) table, which the manifest file
// itself holds (older writers and lance 12 alike): Field.dictionary is {position in the
// manifest file, number of values}. Binary-like values are stored as their bytes followed by
// n + 1 little-endian i64 file positions (Field.dictionary points at those); fixed-width
// values as n * width bytes.
struct LegacyDictionaryValues {
  int32_t field_id = 0;
  bool binary = false;
  int64_t count = 0;
  std::string data;              // the value bytes
  std::vector<int64_t> offsets;  // binary: count + 1 offsets into `data`, from 0
};

struct Manifest {
  std::vector<file::LanceField> fields;  // flattened, as stored (parents first)
  SchemaPtr schema;  // nested Arrow schema of `fields`; Field::id() = Lance field id
  std::vector<std::pair<std::string, std::string>> schema_metadata;  // sorted by key
  std::vector<FragmentInfo> fragments;
  uint64_t version = 0;
  uint64_t version_aux_data = 0;
  std::optional<int64_t> timestamp_ns;  // since the Unix epoch
  std::string tag;
  uint64_t reader_feature_flags = 0;
  uint64_t writer_feature_flags = 0;
  std::optional<uint32_t> max_fragment_id;
  std::string transaction_file;  // relative to _transactions/; "" = none written
  // WriterVersion; the message is absent when all four are.
  std::string writer_library;
  std::string writer_version;
  std::optional<std::string> writer_prerelease;
  std::optional<std::string> writer_build_metadata;
  uint64_t next_row_id = 0;
  // DataStorageFormat; the message is absent when both strings (and its unknown fields) are.
  std::string data_file_format;
  std::string data_storage_version;
  std::string data_format_unknown_fields;
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> table_metadata;
  std::vector<BasePathInfo> base_paths;
  std::optional<std::string> branch;
  // Positions of the length prefixes of the sections in the file it was decoded from
  // (EncodeManifest places the sections itself and ignores these).
  std::optional<uint64_t> index_section;
  std::optional<uint64_t> transaction_section;
  std::vector<IndexInfo> indices;  // the index section (none: no section)
  // Dictionary values held in the manifest file, by field id (see LegacyDictionaryValues);
  // EncodeManifest writes those of fields still in `fields` before the sections and points
  // their Field.dictionary at them.
  std::vector<LegacyDictionaryValues> legacy_dictionaries;
  std::string index_section_unknown_fields;
  std::string unknown_fields;

  uint64_t num_rows() const;
  int num_indices() const { return static_cast<int>(indices.size()); }
  // The fragment with id `id`, or null.
  const FragmentInfo* FindFragment(uint64_t id) const;
  // One past the highest fragment id ever used (max_fragment_id and the fragments' ids).
  uint64_t NextFragmentId() const;
  // Rebuilds `schema` from `fields` and `schema_metadata` (after editing them).
  // Errors: what file::SchemaFromLanceFields says.
  Status RebuildSchema();
};

// Decodes a whole manifest file (the index section included, and the values of dictionary
// fields the file holds when their type is binary-like or a fixed-width number and their
// region lies inside the file; others are left out). `what` (usually the path) names it in
// errors. When `inline_transaction` is given it receives the raw Transaction bytes of
// the transaction section ("" when there is none).
// Errors: Corruption for a bad footer, out-of-range sections, undecodable protobuf or schema
// (the index section and its fragment bitmaps included), inconsistent fragments; NotSupported
// for another container version. Feature flags are NOT checked here (see CheckCanRead).
Result<Manifest> DecodeManifest(std::string_view bytes, const std::string& what = "manifest",
                                std::string* inline_transaction = nullptr);

// The manifest file of `m`: the index section (from m.indices; none when empty), the
// transaction section (`transaction`, serialized Transaction bytes; none when empty), the
// manifest and the footer. The feature flags written are ComputeFeatureFlags(m)
// (feature_flags.h), whatever m's flags say. Maps are written sorted by key.
// Errors: InvalidArgument (a deletion file counting more rows than its fragment).
Result<std::string> EncodeManifest(const Manifest& m, std::string_view transaction = {});

// Parses {"version":N,...} (latest_version_hint.json or a tag file): the top-level "version".
Result<uint64_t> ParseVersionJson(std::string_view json, const std::string& what);

}  // namespace lance::table
