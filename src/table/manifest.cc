#include "lance/table/manifest.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <roaring/roaring.h>

#include "table/commit_internal.h"
#include "table/proto/index_details.pb.h"
#include "table/proto/table.pb.h"

namespace lance::table {

namespace {

constexpr size_t kFooterLen = 16;

uint64_t LoadU64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint16_t LoadU16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

// More fragment ids than this in one index's bitmap is taken as a damaged bitmap (the ids
// are materialized).
constexpr uint64_t kMaxIndexedFragments = uint64_t{1} << 24;

Result<IndexInfo> ConvertIndex(const ::lance::table::pb::IndexMetadata& pb, const std::string& what) {
  IndexInfo x;
  x.name = pb.name();
  const std::string& raw = pb.uuid().uuid();
  if (pb.has_uuid() && raw.size() != 16) {
    return Status::Corruption("{}: index '{}' has a uuid of {} bytes, expected 16", what, x.name,
                              raw.size());
  }
  for (size_t i = 0; i < raw.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) x.uuid += '-';
    x.uuid += fmt::format("{:02x}", static_cast<unsigned>(static_cast<unsigned char>(raw[i])));
  }
  x.fields.assign(pb.fields().begin(), pb.fields().end());
  x.dataset_version = pb.dataset_version();
  if (!pb.fragment_bitmap().empty()) {
    const char* p = pb.fragment_bitmap().data();
    const size_t n = pb.fragment_bitmap().size();
    const size_t need = roaring_bitmap_portable_deserialize_size(p, n);
    roaring_bitmap_t* bm = need == 0 || need > n ? nullptr : roaring_bitmap_portable_deserialize_safe(p, n);
    if (bm == nullptr) {
      return Status::Corruption("{}: the fragment bitmap of index '{}' is not a portable Roaring "
                                "bitmap ({} bytes)",
                                what, x.name, n);
    }
    const uint64_t count = roaring_bitmap_get_cardinality(bm);
    if (count > kMaxIndexedFragments) {
      roaring_bitmap_free(bm);
      return Status::Corruption("{}: the fragment bitmap of index '{}' holds {} fragment ids", what,
                                x.name, count);
    }
    x.fragment_ids.resize(count);
    if (count > 0) roaring_bitmap_to_uint32_array(bm, x.fragment_ids.data());
    roaring_bitmap_free(bm);
    x.has_fragment_bitmap = true;
  }
  if (pb.has_index_details()) {
    x.details_type_url = pb.index_details().type_url();
    x.details = pb.index_details().value();
  }
  if (pb.has_index_version()) x.index_version = pb.index_version();
  if (pb.has_created_at()) x.created_at_ms = pb.created_at();
  if (pb.has_base_id()) x.base_id = pb.base_id();
  for (const auto& f : pb.files()) x.files.push_back(IndexFileInfo{f.path(), f.size_bytes()});
  x.covering_fields.assign(pb.covering_fields().begin(), pb.covering_fields().end());
  return x;
}

// "BTreeIndexDetails" of "/lance.table.BTreeIndexDetails" (or of "type.googleapis.com/...").
std::string DetailsMessageName(const std::string& type_url) {
  const size_t dot = type_url.find_last_of("./");
  return dot == std::string::npos ? type_url : type_url.substr(dot + 1);
}

DataFileInfo ConvertDataFile(const ::lance::table::pb::DataFile& f) {
  DataFileInfo d;
  d.path = f.path();
  d.fields.assign(f.fields().begin(), f.fields().end());
  d.column_indices.assign(f.column_indices().begin(), f.column_indices().end());
  d.major = f.file_major_version();
  d.minor = f.file_minor_version();
  d.size_bytes = f.file_size_bytes();
  if (f.has_base_id()) d.base_id = f.base_id();
  return d;
}

// Checks that a length-prefixed section at `pos` lies inside [0, limit).
Status CheckSection(std::string_view bytes, uint64_t pos, size_t limit, const char* name,
                    const std::string& what, uint32_t* len) {
  if (pos > limit || limit - pos < 4) {
    return Status::Corruption("{}: {} position {} is outside the file ({} bytes before the footer)",
                              what, name, pos, limit);
  }
  *len = LoadU32(bytes.data() + pos);
  if (*len > limit - pos - 4) {
    return Status::Corruption("{}: {} at {} claims {} bytes but only {} remain before the footer",
                              what, name, pos, *len, limit - pos - 4);
  }
  return Status::OK();
}

}  // namespace

std::string ManifestFileName(uint64_t version, ManifestNaming naming) {
  const uint64_t n =
      naming == ManifestNaming::kV2 ? std::numeric_limits<uint64_t>::max() - version : version;
  return fmt::format("{}.manifest", n);
}

std::optional<std::pair<uint64_t, ManifestNaming>> ParseManifestFileName(std::string_view name) {
  constexpr std::string_view kExt = ".manifest";
  if (name.size() <= kExt.size() || name.substr(name.size() - kExt.size()) != kExt) {
    return std::nullopt;
  }
  const std::string_view stem = name.substr(0, name.size() - kExt.size());
  if (stem.empty() || stem.size() > 20) return std::nullopt;
  for (char c : stem) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(stem.data(), stem.data() + stem.size(), n);
  if (ec != std::errc() || ptr != stem.data() + stem.size()) return std::nullopt;
  if (stem.size() == 20) {
    const uint64_t v = std::numeric_limits<uint64_t>::max() - n;
    return std::make_pair(v, ManifestNaming::kV2);
  }
  return std::make_pair(n, ManifestNaming::kLegacy);
}

std::string DeletionFileInfo::FileName(uint64_t fragment_id) const {
  return fmt::format("{}-{}-{}.{}", fragment_id, read_version, id,
                     type == DeletionFileType::kBitmap ? "bin" : "arrow");
}

uint64_t Manifest::num_rows() const {
  uint64_t n = 0;
  for (const auto& f : fragments) n += f.num_rows();
  return n;
}

Result<Manifest> DecodeManifest(std::string_view bytes, const std::string& what) {
  if (bytes.size() < kFooterLen + 4) {
    return Status::Corruption("{}: {} bytes is too short for a manifest (footer is {} bytes)", what,
                              bytes.size(), kFooterLen);
  }
  const char* footer = bytes.data() + bytes.size() - kFooterLen;
  if (std::memcmp(footer + 12, "LANC", 4) != 0) {
    return Status::Corruption("{}: manifest footer magic is not \"LANC\"", what);
  }
  const uint16_t major = LoadU16(footer + 8);
  const uint16_t minor = LoadU16(footer + 10);
  if (major != 0 || minor != 2) {
    return Status::NotSupported("{}: manifest container version {}.{} (expected 0.2)", what, major,
                                minor);
  }
  const size_t limit = bytes.size() - kFooterLen;
  const uint64_t pos = LoadU64(footer);
  uint32_t len = 0;
  LANCE_RETURN_NOT_OK(CheckSection(bytes, pos, limit, "manifest", what, &len));
  ::lance::table::pb::Manifest pb;
  if (!pb.ParseFromArray(bytes.data() + pos + 4, static_cast<int>(len))) {
    return Status::Corruption("{}: the manifest protobuf ({} bytes at {}) does not decode", what,
                              len, pos);
  }

  Manifest m;
  for (const auto& f : pb.fields()) {
    file::LanceField lf = internal::FieldFromProto(f);
    std::sort(lf.metadata.begin(), lf.metadata.end());
    m.fields.push_back(std::move(lf));
  }
  m.schema_metadata.assign(pb.schema_metadata().begin(), pb.schema_metadata().end());
  std::sort(m.schema_metadata.begin(), m.schema_metadata.end());
  auto schema = file::SchemaFromLanceFields(m.fields, m.schema_metadata);
  if (!schema.ok()) {
    return Status::Corruption("{}: schema: {}", what, schema.status().message());
  }
  m.schema = *schema;

  for (const auto& fp : pb.fragments()) {
    FragmentInfo fr;
    fr.id = fp.id();
    for (const auto& df : fp.files()) {
      DataFileInfo d = ConvertDataFile(df);
      if (!d.column_indices.empty() && d.column_indices.size() != d.fields.size()) {
        return Status::Corruption("{}: fragment {} file '{}': {} field ids but {} column indices",
                                  what, fr.id, d.path, d.fields.size(), d.column_indices.size());
      }
      if (d.path.empty()) {
        return Status::Corruption("{}: fragment {} has a data file with an empty path", what, fr.id);
      }
      fr.files.push_back(std::move(d));
    }
    if (fp.has_deletion_file()) {
      const auto& dp = fp.deletion_file();
      DeletionFileInfo del;
      if (dp.file_type() != ::lance::table::pb::DeletionFile::ARROW_ARRAY &&
          dp.file_type() != ::lance::table::pb::DeletionFile::BITMAP) {
        return Status::Corruption("{}: fragment {}: unknown deletion file type {}", what, fr.id,
                                  static_cast<int>(dp.file_type()));
      }
      del.type = dp.file_type() == ::lance::table::pb::DeletionFile::BITMAP
                     ? DeletionFileType::kBitmap
                     : DeletionFileType::kArrowArray;
      del.read_version = dp.read_version();
      del.id = dp.id();
      del.num_deleted_rows = dp.num_deleted_rows();
      if (dp.has_base_id()) del.base_id = dp.base_id();
      fr.deletion = del;
    }
    fr.physical_rows = fp.physical_rows();
    if (fr.deletion && fr.deletion->num_deleted_rows > fr.physical_rows) {
      return Status::Corruption("{}: fragment {} deletes {} rows of {}", what, fr.id,
                                fr.deletion->num_deleted_rows, fr.physical_rows);
    }
    if (fp.has_inline_row_ids()) fr.inline_row_ids = fp.inline_row_ids();
    fr.has_external_row_ids = fp.has_external_row_ids();
    fr.num_overlays = fp.overlays_size();
    m.fragments.push_back(std::move(fr));
  }
  m.version = pb.version();
  if (pb.has_timestamp()) {
    m.timestamp_ns = pb.timestamp().seconds() * 1000000000LL + pb.timestamp().nanos();
  }
  m.tag = pb.tag();
  m.reader_feature_flags = pb.reader_feature_flags();
  m.writer_feature_flags = pb.writer_feature_flags();
  if (pb.has_max_fragment_id()) m.max_fragment_id = pb.max_fragment_id();
  m.transaction_file = pb.transaction_file();
  if (pb.has_writer_version()) {
    m.writer_library = pb.writer_version().library();
    m.writer_version = pb.writer_version().version();
  }
  m.next_row_id = pb.next_row_id();
  if (pb.has_data_format()) {
    m.data_file_format = pb.data_format().file_format();
    m.data_storage_version = pb.data_format().version();
  }
  m.config.insert(pb.config().begin(), pb.config().end());
  m.table_metadata.insert(pb.table_metadata().begin(), pb.table_metadata().end());
  for (const auto& b : pb.base_paths()) {
    BasePathInfo bp;
    bp.id = b.id();
    if (b.has_name()) bp.name = b.name();
    bp.is_dataset_root = b.is_dataset_root();
    bp.path = b.path();
    m.base_paths.push_back(std::move(bp));
  }
  if (pb.has_branch()) m.branch = pb.branch();
  if (pb.has_transaction_section()) {
    m.transaction_section = pb.transaction_section();
    uint32_t tlen = 0;
    LANCE_RETURN_NOT_OK(
        CheckSection(bytes, pb.transaction_section(), limit, "transaction section", what, &tlen));
  }
  if (pb.has_index_section()) {
    m.index_section = pb.index_section();
    uint32_t ilen = 0;
    LANCE_RETURN_NOT_OK(
        CheckSection(bytes, pb.index_section(), limit, "index section", what, &ilen));
    ::lance::table::pb::IndexSection idx;
    if (!idx.ParseFromArray(bytes.data() + pb.index_section() + 4, static_cast<int>(ilen))) {
      return Status::Corruption("{}: the index section at {} does not decode", what,
                                pb.index_section());
    }
    m.num_indices = idx.indices_size();
    for (const auto& entry : idx.indices()) {
      LANCE_ASSIGN_OR_RAISE(IndexInfo info, ConvertIndex(entry, what));
      m.indices.push_back(std::move(info));
    }
  }
  return m;
}

Result<std::string> RetainRelevantIndices(std::string_view section,
                                          const std::vector<int32_t>& field_ids) {
  ::lance::table::pb::IndexSection in;
  if (!in.ParseFromArray(section.data(), static_cast<int>(section.size()))) {
    return Status::Corruption("the index section ({} bytes) does not decode", section.size());
  }
  const std::set<int32_t> ids(field_ids.begin(), field_ids.end());
  ::lance::table::pb::IndexSection out;
  for (const auto& x : in.indices()) {
    const bool system = x.name() == "__lance_frag_reuse" || x.name() == "__lance_mem_wal";
    const bool fields_present = std::all_of(x.fields().begin(), x.fields().end(),
                                            [&](int32_t f) { return ids.count(f) > 0; });
    if (system || fields_present) *out.add_indices() = x;
  }
  if (out.indices_size() == 0) return std::string();
  if (out.indices_size() == in.indices_size()) return std::string(section);
  return out.SerializeAsString();
}

std::string IndexTypeName(const IndexInfo& index) {
  const std::string message = DetailsMessageName(index.details_type_url);
  static const std::pair<const char*, const char*> kScalar[] = {
      {"BTreeIndexDetails", "BTREE"},        {"BitmapIndexDetails", "BITMAP"},
      {"InvertedIndexDetails", "INVERTED"},  {"LabelListIndexDetails", "LABEL_LIST"},
      {"NGramIndexDetails", "NGRAM"},        {"ZoneMapIndexDetails", "ZONEMAP"},
      {"BloomFilterIndexDetails", "BLOOMFILTER"}, {"MemWalIndexDetails", "MEMWAL"},
      {"JsonIndexDetails", "JSON"},          {"RTreeIndexDetails", "RTREE"},
      {"FMIndexDetails", "FM"},              {"MinHashLshIndexDetails", "MINHASH_LSH"}};
  for (const auto& [details, type] : kScalar) {
    if (message == details) return type;
  }
  if (message != "VectorIndexDetails") return message;
  ::lance::index::pb::VectorIndexDetails v;
  if (!v.ParseFromString(index.details)) return "VECTOR";
  std::string type = v.has_hnsw_index_config() ? "IVF_HNSW" : "IVF";
  switch (v.compression_case()) {
    case ::lance::index::pb::VectorIndexDetails::kPq: return type + "_PQ";
    case ::lance::index::pb::VectorIndexDetails::kSq: return type + "_SQ";
    case ::lance::index::pb::VectorIndexDetails::kRq: return type + "_RQ";
    case ::lance::index::pb::VectorIndexDetails::kFlat: return type + "_FLAT";
    default: return type == "IVF" ? "VECTOR" : type;
  }
}

std::string VectorIndexDetailsJson(const IndexInfo& index) {
  if (DetailsMessageName(index.details_type_url) != "VectorIndexDetails") return "";
  ::lance::index::pb::VectorIndexDetails v;
  if (!v.ParseFromString(index.details)) return "";
  nlohmann::ordered_json j;
  static const char* kMetrics[] = {"l2", "cosine", "dot", "hamming"};
  const int metric = static_cast<int>(v.metric_type());
  j["metric"] = metric >= 0 && metric < 4 ? nlohmann::ordered_json(kMetrics[metric]) : nlohmann::ordered_json(metric);
  switch (v.compression_case()) {
    case ::lance::index::pb::VectorIndexDetails::kPq:
      j["compression"] = "pq";
      j["num_bits"] = v.pq().num_bits();
      j["num_sub_vectors"] = v.pq().num_sub_vectors();
      break;
    case ::lance::index::pb::VectorIndexDetails::kSq:
      j["compression"] = "sq";
      j["num_bits"] = v.sq().num_bits();
      break;
    case ::lance::index::pb::VectorIndexDetails::kRq:
      j["compression"] = "rq";
      j["num_bits"] = v.rq().num_bits();
      break;
    case ::lance::index::pb::VectorIndexDetails::kFlat:
      j["compression"] = "flat";
      break;
    default:
      j["compression"] = nullptr;
  }
  if (v.has_hnsw_index_config()) {
    j["hnsw"] = {{"max_connections", v.hnsw_index_config().max_connections()},
                 {"construction_ef", v.hnsw_index_config().construction_ef()},
                 {"max_level", v.hnsw_index_config().max_level()}};
  }
  if (v.target_partition_size() != 0) j["target_partition_size"] = v.target_partition_size();
  if (v.has_target_num_partitions()) j["target_num_partitions"] = v.target_num_partitions();
  // Sorted: the protobuf map has no stable order.
  std::map<std::string, std::string> hints(v.runtime_hints().begin(), v.runtime_hints().end());
  j["runtime_hints"] = hints;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<uint64_t> ParseVersionJson(std::string_view json, const std::string& what) {
  // Finds the top-level "version" key: depth-1 object member, skipping strings.
  int depth = 0;
  size_t i = 0;
  while (i < json.size()) {
    const char c = json[i];
    if (c == '"') {
      size_t j = i + 1;
      std::string key;
      while (j < json.size() && json[j] != '"') {
        if (json[j] == '\\') ++j;
        if (j < json.size()) key += json[j];
        ++j;
      }
      if (j >= json.size()) break;
      size_t k = j + 1;
      while (k < json.size() && std::isspace(static_cast<unsigned char>(json[k]))) ++k;
      if (depth == 1 && key == "version" && k < json.size() && json[k] == ':') {
        ++k;
        while (k < json.size() && std::isspace(static_cast<unsigned char>(json[k]))) ++k;
        uint64_t v = 0;
        auto [ptr, ec] = std::from_chars(json.data() + k, json.data() + json.size(), v);
        if (ec != std::errc() || ptr == json.data() + k) {
          return Status::Corruption("{}: \"version\" is not a non-negative integer", what);
        }
        return v;
      }
      i = j + 1;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    ++i;
  }
  return Status::Corruption("{}: no top-level \"version\" member in {}", what,
                            std::string(json.substr(0, 200)));
}

namespace internal {

file::LanceField FieldFromProto(const ::lance::file::Field& f) {
  file::LanceField lf;
  lf.name = f.name();
  lf.id = f.id();
  lf.parent_id = f.parent_id();
  lf.logical_type = f.logical_type();
  lf.nullable = f.nullable();
  for (const auto& [k, v] : f.metadata()) lf.metadata.emplace_back(k, v);
  return lf;
}

}  // namespace internal

}  // namespace lance::table
