// Indexes through a dataset handle: building vector, scalar and zone indexes, and listing
// (JSON, counts, segments) and dropping, which read the manifest's index section.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <map>

#include "capi/c_args.h"
#include "capi/dataset_handle.h"
#include "capi/error.h"
#include "lance/lance.h"
#include "lance/index/scalar/create.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/table/indexes.h"

namespace lance::capi {
namespace {

// The user indexes (segments) of `ds`, optionally only those named `name`.
std::vector<const table::IndexInfo*> UserIndexes(const table::Snapshot& ds,
                                                 const std::string* name = nullptr) {
  std::vector<const table::IndexInfo*> out;
  for (const auto& x : ds.manifest().indices) {
    if (table::IsSystemIndex(x)) continue;
    if (name != nullptr && x.name != *name) continue;
    out.push_back(&x);
  }
  return out;
}

// lance's name of an index type (lance_index::IndexType's display form), from lance-cpp's
// IndexTypeName.
std::string LanceTypeName(const table::IndexInfo& x) {
  static const std::map<std::string, std::string> kNames = {
      {"BTREE", "BTree"},         {"BITMAP", "Bitmap"},           {"LABEL_LIST", "LabelList"},
      {"INVERTED", "Inverted"},   {"NGRAM", "NGram"},             {"ZONEMAP", "ZoneMap"},
      {"BLOOMFILTER", "BloomFilter"}, {"IVF_PQ", "IVF_PQ"},       {"IVF_SQ", "IVF_SQ"},
      {"IVF_FLAT", "IVF_FLAT"},   {"IVF_RQ", "IVF_RQ"},           {"IVF_HNSW_PQ", "IVF_HNSW_PQ"},
      {"IVF_HNSW_SQ", "IVF_HNSW_SQ"}, {"IVF_HNSW_FLAT", "IVF_HNSW_FLAT"}};
  auto it = kNames.find(table::IndexTypeName(x));
  return it == kNames.end() ? "Unknown" : it->second;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string IndexListJson(const table::Snapshot& ds) {
  std::map<int32_t, std::string> names;
  for (const auto& f : ds.manifest().fields) names[f.id] = f.name;
  std::string out = "[";
  bool first = true;
  for (const table::IndexInfo* x : UserIndexes(ds)) {
    if (!first) out += ",";
    first = false;
    std::string cols;
    for (int32_t id : x->fields) {
      auto it = names.find(id);
      if (it == names.end()) continue;
      if (!cols.empty()) cols += ",";
      cols += JsonString(it->second);
    }
    out += fmt::format("{{\"name\":{},\"uuid\":{},\"columns\":[{}],\"type\":{},\"dataset_version\":{}}}",
                       JsonString(x->name), JsonString(x->uuid), cols, JsonString(LanceTypeName(*x)),
                       x->dataset_version);
  }
  return out + "]";
}

// The 16 bytes of a "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" UUID.
Status UuidBytes(const std::string& text, uint8_t* out) {
  int n = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '-') continue;
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (v < 0 || n >= 32) return Status::Corruption("index uuid '{}' is malformed", text);
    if (n % 2 == 0) {
      out[n / 2] = static_cast<uint8_t>(v << 4);
    } else {
      out[n / 2] = static_cast<uint8_t>(out[n / 2] | v);
    }
    ++n;
  }
  if (n != 32) return Status::Corruption("index uuid '{}' is malformed", text);
  return Status::OK();
}

Status RequireField(const char* name, uint32_t value) {
  if (value == 0) return Invalid(fmt::format("{} is required for this index type and must be > 0", name));
  return Status::OK();
}

}  // namespace
}  // namespace lance::capi

using namespace lance::capi;

extern "C" {

int32_t lance_dataset_create_vector_index(LanceDataset* dataset, const char* column,
                                          const char* index_name,
                                          const LanceVectorIndexParams* params, bool replace) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || column == nullptr || params == nullptr) {
      return Invalid("dataset, column, and params must not be NULL");
    }
    LANCE_ASSIGN_OR_RAISE(auto col, OptionalString(column, "column"));
    if (!col) return Invalid("column must not be empty");
    LANCE_ASSIGN_OR_RAISE(auto name, OptionalString(index_name, "index_name"));
    using lance::index::vector::IndexKind;
    IndexKind kind = IndexKind::kIvfFlat;
    bool pq = false, hnsw = false;
    switch (params->index_type) {
      case LANCE_INDEX_IVF_FLAT: kind = IndexKind::kIvfFlat; break;
      case LANCE_INDEX_IVF_SQ: kind = IndexKind::kIvfSq; break;
      case LANCE_INDEX_IVF_PQ: kind = IndexKind::kIvfPq; pq = true; break;
      case LANCE_INDEX_IVF_HNSW_SQ: kind = IndexKind::kIvfHnswSq; hnsw = true; break;
      case LANCE_INDEX_IVF_HNSW_PQ: kind = IndexKind::kIvfHnswPq; hnsw = pq = true; break;
      case LANCE_INDEX_IVF_HNSW_FLAT: kind = IndexKind::kIvfHnswFlat; hnsw = true; break;
      case LANCE_INDEX_IVF_RQ: kind = IndexKind::kIvfRq; break;
      default:
        return Invalid(fmt::format("invalid vector index type: {}", static_cast<int>(params->index_type)));
    }
    if (static_cast<int>(params->metric) < 0 || static_cast<int>(params->metric) > 3) {
      return Invalid(fmt::format("invalid metric: {}", static_cast<int>(params->metric)));
    }
    LANCE_RETURN_NOT_OK(RequireField("num_partitions", params->num_partitions));
    if (hnsw) LANCE_RETURN_NOT_OK(RequireField("hnsw_m", params->hnsw_m));
    if (pq) LANCE_RETURN_NOT_OK(RequireField("num_sub_vectors", params->num_sub_vectors));
    {
      // lance-c's defaults for 0: 8-bit codes (RQ: 1 bit), 50 k-means iterations, lance's sample
      // rate, ef_construction 300 (lance's from node).
      lance::index::vector::IvfBuildOptions o;
      o.kind = kind;
      if (hnsw) {
        o.hnsw_m = params->hnsw_m;
        if (params->hnsw_ef_construction != 0) o.ef_construction = params->hnsw_ef_construction;
      }
      o.metric = static_cast<lance::linalg::DistanceType>(static_cast<int>(params->metric));
      o.num_partitions = params->num_partitions;
      o.num_sub_vectors = params->num_sub_vectors;
      if (params->num_bits != 0) o.num_bits = params->num_bits;
      else if (kind == IndexKind::kIvfRq) o.num_bits = 1;
      if (params->max_iterations != 0) o.max_iterations = static_cast<int>(params->max_iterations);
      if (params->sample_rate != 0) o.sample_rate = params->sample_rate;
      o.name = name.value_or("");
      o.replace = replace;
      return dataset->ds->CreateVectorIndex(*col, o).status();
    }
  });
}

int32_t lance_dataset_create_scalar_index(LanceDataset* dataset, const char* column,
                                          const char* index_name, LanceScalarIndexType index_type,
                                          const char* params_json, bool replace) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || column == nullptr) return Invalid("dataset and column must not be NULL");
    LANCE_ASSIGN_OR_RAISE(auto col, OptionalString(column, "column"));
    LANCE_ASSIGN_OR_RAISE(auto name, OptionalString(index_name, "index_name"));
    LANCE_ASSIGN_OR_RAISE(auto json, OptionalString(params_json, "params_json"));
    lance::index::scalar::CreateScalarIndexOptions o;
    o.name = name.value_or("");
    o.replace = replace;
    switch (static_cast<int>(index_type)) {
      case LANCE_SCALAR_BTREE: o.type = lance::index::scalar::ScalarIndexType::kBTree; break;
      case LANCE_SCALAR_BITMAP: o.type = lance::index::scalar::ScalarIndexType::kBitmap; break;
      case LANCE_SCALAR_LABEL_LIST: o.type = lance::index::scalar::ScalarIndexType::kLabelList; break;
      case LANCE_SCALAR_INVERTED: {
        // params_json: lance's InvertedIndexParams as JSON (base_tokenizer, language,
        // with_position, max_token_length, lower_case, stem, remove_stop_words,
        // custom_stop_words, ascii_folding, min/max_ngram_length, prefix_only); absent keys
        // keep lance's defaults
        o.type = lance::index::scalar::ScalarIndexType::kInverted;
        if (json) {
          auto opts = lance::index::fts::TokenizerOptions::FromJson(*json);
          if (!opts.ok()) return Invalid(fmt::format("params_json: {}", opts.status().message()));
          o.fts = std::move(*opts);
        }
        break;
      }
      default: return Invalid(fmt::format("invalid scalar index type: {}", static_cast<int>(index_type)));
    }
    return dataset->ds->CreateScalarIndex(*col, o).status();
  });
}

int32_t lance_cpp_dataset_create_zone_index(LanceDataset* dataset, const char* column,
                                            const char* index_name, const char* index_type,
                                            uint64_t rows_per_zone, bool replace) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || column == nullptr || index_type == nullptr) {
      return Invalid("dataset, column and index_type must not be NULL");
    }
    LANCE_ASSIGN_OR_RAISE(auto col, OptionalString(column, "column"));
    LANCE_ASSIGN_OR_RAISE(auto name, OptionalString(index_name, "index_name"));
    const std::string type = index_type;
    lance::index::scalar::CreateScalarIndexOptions o;
    if (type == "ZONEMAP") {
      o.type = lance::index::scalar::ScalarIndexType::kZoneMap;
    } else if (type == "BLOOMFILTER") {
      o.type = lance::index::scalar::ScalarIndexType::kBloomFilter;
    } else if (type == "NGRAM") {
      o.type = lance::index::scalar::ScalarIndexType::kNGram;
    } else {
      return Invalid(fmt::format("index_type '{}': expected ZONEMAP, BLOOMFILTER or NGRAM", type));
    }
    o.name = name.value_or("");
    o.replace = replace;
    if (rows_per_zone != 0) o.rows_per_zone = o.bloom_items = rows_per_zone;
    return dataset->ds->CreateScalarIndex(*col, o).status();
  });
}

int32_t lance_cpp_dataset_optimize_indices(LanceDataset* dataset, const char* index_name, const char** out_json) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    LANCE_ASSIGN_OR_RAISE(auto name, OptionalString(index_name, "index_name"));
    std::vector<std::string> names;
    if (name) names.push_back(*name);
    LANCE_ASSIGN_OR_RAISE(auto results, dataset->ds->OptimizeIndices(names));
    if (out_json == nullptr) return lance::Status::OK();
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& r : results) {
      nlohmann::ordered_json x;
      x["name"] = r.name;
      x["type"] = r.type;
      using Outcome = lance::dataset::OptimizedIndex::Outcome;
      x["outcome"] = lance::dataset::OutcomeName(r.outcome);
      if (r.outcome == Outcome::kMerged) {
        x["uuid"] = r.uuid;
        x["version"] = r.version;
        x["indexed_fragments"] = r.fragment_ids;
        x["new_fragments"] = r.new_fragment_ids;
        x["num_indexed_rows"] = r.num_indexed_rows;
      }
      if (!r.reason.empty()) x["reason"] = r.reason;
      j.push_back(std::move(x));
    }
    const std::string text = j.dump();
    char* out = static_cast<char*>(std::malloc(text.size() + 1));
    if (out == nullptr) return lance::Status::OutOfMemory("optimize indices: {} bytes of JSON", text.size());
    std::memcpy(out, text.c_str(), text.size() + 1);
    *out_json = out;
    return lance::Status::OK();
  });
}

int32_t lance_dataset_drop_index(LanceDataset* dataset, const char* name) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || name == nullptr) return Invalid("dataset and name must not be NULL");
    LANCE_ASSIGN_OR_RAISE(auto n, OptionalString(name, "name"));
    return dataset->ds->DropIndex(*n).status();
  });
}

uint64_t lance_dataset_index_count(const LanceDataset* dataset) {
  return Guard<uint64_t>(0, [&]() -> uint64_t {
    if (dataset == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
      return 0;
    }
    const uint64_t n = UserIndexes(*dataset->Snapshot()).size();
    ClearError();
    return n;
  });
}

const char* lance_dataset_index_list_json(const LanceDataset* dataset) {
  return Guard<const char*>(nullptr, [&]() -> const char* {
    if (dataset == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
      return nullptr;
    }
    const std::string json = IndexListJson(*dataset->Snapshot());
    char* out = static_cast<char*>(std::malloc(json.size() + 1));
    if (out == nullptr) {
      SetError(LANCE_ERR_INTERNAL, "out of memory");
      return nullptr;
    }
    std::memcpy(out, json.c_str(), json.size() + 1);
    ClearError();
    return out;
  });
}

uint64_t lance_dataset_index_segment_count(const LanceDataset* dataset, const char* index_name) {
  return Guard<uint64_t>(0, [&]() -> uint64_t {
    if (dataset == nullptr || index_name == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "dataset and index_name must not be NULL");
      return 0;
    }
    auto name = OptionalString(index_name, "index_name");
    if (!name.ok()) {
      SetError(name.status());
      return 0;
    }
    const auto ds = dataset->Snapshot();
    const size_t n = UserIndexes(*ds, &**name).size();
    if (n == 0) {
      SetError(LANCE_ERR_NOT_FOUND, fmt::format("index '{}' not found", **name));
      return 0;
    }
    ClearError();
    return n;
  });
}

int32_t lance_dataset_index_segments(const LanceDataset* dataset, const char* index_name,
                                     uint8_t* out_uuids, size_t capacity, uint64_t* out_count) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || index_name == nullptr || out_uuids == nullptr) {
      return Invalid("dataset, index_name, and out_uuids must not be NULL");
    }
    LANCE_ASSIGN_OR_RAISE(auto name, OptionalString(index_name, "index_name"));
    const auto ds = dataset->Snapshot();
    const auto segments = UserIndexes(*ds, &*name);
    if (segments.empty()) return lance::Status::NotFound("index not found: name='{}'", *name);
    if (segments.size() > capacity) {
      return Invalid(fmt::format("out_uuids capacity ({}) too small for {} segments", capacity,
                                 segments.size()));
    }
    std::vector<uint8_t> bytes(segments.size() * 16);
    for (size_t i = 0; i < segments.size(); ++i) {
      LANCE_RETURN_NOT_OK(UuidBytes(segments[i]->uuid, bytes.data() + i * 16));
    }
    std::memcpy(out_uuids, bytes.data(), bytes.size());
    if (out_count != nullptr) *out_count = segments.size();
    return lance::Status::OK();
  });
}

}  // extern "C"
