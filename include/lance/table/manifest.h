// Lance table manifests and the _versions/ directory.
//
// A manifest file is: [optional u32 length + IndexSection] [optional u32 length + Transaction]
// u32 length + Manifest protobuf, then a 16-byte footer: u64 LE position of the manifest's
// length prefix | u16 LE major (0) | u16 LE minor (2) | "LANC".
//
// Version files live in {table}/_versions/ under one of two naming schemes:
//   kV2:     "{u64::MAX - version}.manifest" (decimal, no padding; what lance 12 writes)
//   kLegacy: "{version}.manifest"
// plus an optional "latest_version_hint.json" holding {"version":N}.
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

struct DataFileInfo {
  std::string path;  // relative to data/ of its base
  std::vector<int32_t> fields;
  std::vector<int32_t> column_indices;
  uint32_t major = 0;
  uint32_t minor = 0;
  uint64_t size_bytes = 0;  // 0 = unknown
  std::optional<uint32_t> base_id;
};

enum class DeletionFileType { kArrowArray = 0, kBitmap = 1 };

struct DeletionFileInfo {
  DeletionFileType type = DeletionFileType::kArrowArray;
  uint64_t read_version = 0;
  uint64_t id = 0;
  uint64_t num_deleted_rows = 0;
  std::optional<uint32_t> base_id;
  // "{fragment_id}-{read_version}-{id}.arrow|bin"
  std::string FileName(uint64_t fragment_id) const;
};

struct FragmentInfo {
  uint64_t id = 0;
  std::vector<DataFileInfo> files;
  std::optional<DeletionFileInfo> deletion;
  uint64_t physical_rows = 0;
  std::string inline_row_ids;  // serialized RowIdSequence (stable row ids), or empty
  bool has_external_row_ids = false;
  int num_overlays = 0;
  uint64_t num_rows() const {
    return physical_rows - (deletion ? deletion->num_deleted_rows : 0);
  }
};

struct BasePathInfo {
  uint32_t id = 0;
  std::optional<std::string> name;
  bool is_dataset_root = false;
  std::string path;
};

struct IndexFileInfo {
  std::string path;  // relative to _indices/{uuid}/
  uint64_t size_bytes = 0;
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
};

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
// fields are all in `field_ids` (the new schema's ids), and the system indexes
// ("__lance_frag_reuse", "__lance_mem_wal") always. `section` and the result are serialized
// IndexSection messages; the result is "" when no index is left.
// Errors: Corruption when `section` does not decode.
Result<std::string> RetainRelevantIndices(std::string_view section,
                                          const std::vector<int32_t>& field_ids);

struct Manifest {
  std::vector<file::LanceField> fields;  // flattened, as stored
  SchemaPtr schema;                      // nested Arrow schema; Field::id() = Lance field id
  std::vector<std::pair<std::string, std::string>> schema_metadata;
  std::vector<FragmentInfo> fragments;
  uint64_t version = 0;
  std::optional<int64_t> timestamp_ns;  // since the Unix epoch
  std::string tag;
  uint64_t reader_feature_flags = 0;
  uint64_t writer_feature_flags = 0;
  std::optional<uint32_t> max_fragment_id;
  std::string transaction_file;
  std::string writer_library;
  std::string writer_version;
  uint64_t next_row_id = 0;
  std::string data_file_format;
  std::string data_storage_version;
  std::map<std::string, std::string> config;
  std::map<std::string, std::string> table_metadata;
  std::vector<BasePathInfo> base_paths;
  std::optional<std::string> branch;
  std::optional<uint64_t> index_section;
  std::optional<uint64_t> transaction_section;
  int num_indices = 0;  // entries of the index section, when present
  std::vector<IndexInfo> indices;  // the index section, decoded

  uint64_t num_rows() const;
};

// Decodes a whole manifest file. `what` (usually the path) names it in errors.
// Errors: Corruption for a bad footer, out-of-range sections, undecodable protobuf or schema
// (the index section and its fragment bitmaps included).
// Feature flags are NOT checked here (see CheckCanRead).
Result<Manifest> DecodeManifest(std::string_view bytes, const std::string& what = "manifest");

// Parses {"version":N,...} (latest_version_hint.json or a tag file): the top-level "version".
Result<uint64_t> ParseVersionJson(std::string_view json, const std::string& what);

}  // namespace lance::table
