#include "lance/table/manifest.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "table/proto/index_details.pb.h"

namespace lance::table {

namespace {

// "BTreeIndexDetails" of "/lance.table.BTreeIndexDetails" (or of "type.googleapis.com/...").
std::string DetailsMessageName(const std::string& type_url) {
  const size_t dot = type_url.find_last_of("./");
  return dot == std::string::npos ? type_url : type_url.substr(dot + 1);
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

bool DeletionFileInfo::SameFile(const DeletionFileInfo& other) const {
  return type == other.type && read_version == other.read_version && id == other.id &&
         num_deleted_rows == other.num_deleted_rows;
}

uint64_t Manifest::num_rows() const {
  uint64_t n = 0;
  for (const auto& f : fragments) n += f.num_rows();
  return n;
}

const FragmentInfo* Manifest::FindFragment(uint64_t id) const {
  for (const auto& f : fragments) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

uint64_t Manifest::NextFragmentId() const {
  uint64_t next = max_fragment_id ? uint64_t{*max_fragment_id} + 1 : 0;
  for (const auto& f : fragments) next = std::max<uint64_t>(next, f.id + 1);
  return next;
}

Status Manifest::RebuildSchema() {
  LANCE_ASSIGN_OR_RAISE(schema, file::SchemaFromLanceFields(fields, schema_metadata));
  return Status::OK();
}

bool IsSystemIndex(const IndexInfo& index) {
  return index.name == "__lance_frag_reuse" || index.name == "__lance_mem_wal";
}

std::vector<IndexInfo> RetainRelevantIndices(std::vector<IndexInfo> indices,
                                             const std::vector<int32_t>& field_ids) {
  const std::set<int32_t> ids(field_ids.begin(), field_ids.end());
  std::vector<IndexInfo> out;
  out.reserve(indices.size());
  for (auto& x : indices) {
    const bool fields_present = std::all_of(x.fields.begin(), x.fields.end(),
                                            [&](int32_t f) { return ids.count(f) > 0; });
    if (IsSystemIndex(x) || fields_present) out.push_back(std::move(x));
  }
  return out;
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

}  // namespace lance::table
