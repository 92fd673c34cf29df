#include "cli/index_json.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "lance/index/scalar/zone_map.h"
#include "lance/table/indexes.h"

namespace lance::cli {

using Json = nlohmann::ordered_json;

// "parent.child" path of field `id`, or "#id" when the schema has no such field (an index on
// a dropped column).
std::string FieldPath(const table::Manifest& m, int32_t id) {
  std::string path;
  int guard = 0;
  while (id >= 0 && guard++ < 1000) {
    auto it = std::find_if(m.fields.begin(), m.fields.end(),
                           [id](const file::LanceField& f) { return f.id == id; });
    if (it == m.fields.end()) return path.empty() ? fmt::format("#{}", id) : path;
    path = path.empty() ? it->name : it->name + "." + path;
    id = it->parent_id;
  }
  return path;
}

nlohmann::ordered_json IndexJson(const table::Manifest& m, const table::IndexInfo& x) {
  Json j;
  j["name"] = x.name;
  j["uuid"] = x.uuid;
  j["type"] = table::IndexTypeName(x);
  j["columns"] = Json::array();
  for (int32_t f : x.fields) j["columns"].push_back(FieldPath(m, f));
  j["fields"] = x.fields;
  j["dataset_version"] = x.dataset_version;
  j["index_version"] = x.index_version ? Json(*x.index_version) : Json(nullptr);
  j["fragment_ids"] = x.has_fragment_bitmap ? Json(x.fragment_ids) : Json(nullptr);
  uint64_t rows = 0;
  std::vector<uint64_t> unindexed;
  for (const auto& fr : m.fragments) {
    if (std::binary_search(x.fragment_ids.begin(), x.fragment_ids.end(), fr.id)) {
      rows += fr.num_rows();
    } else {
      unindexed.push_back(fr.id);
    }
  }
  j["num_indexed_rows"] = x.has_fragment_bitmap ? Json(rows) : Json(nullptr);
  j["unindexed_fragment_ids"] = x.has_fragment_bitmap ? Json(unindexed) : Json(nullptr);
  j["details_type_url"] = x.details_type_url;
  const std::string vector = table::VectorIndexDetailsJson(x);
  j["details"] = vector.empty() ? Json(nullptr) : Json::parse(vector);
  if (x.details_type_url == "/lance.table.ZoneMapIndexDetails") {
    if (auto z = index::scalar::ZoneMapDetailsJson(x.details); z.ok()) j["details"] = Json::parse(*z);
  }
  j["created_at_ms"] = x.created_at_ms ? Json(*x.created_at_ms) : Json(nullptr);
  j["base_id"] = x.base_id ? Json(*x.base_id) : Json(nullptr);
  j["files"] = Json::array();
  for (const auto& f : x.files) j["files"].push_back({{"path", f.path}, {"size_bytes", f.size_bytes}});
  j["covering_fields"] = x.covering_fields;
  return j;
}

}  // namespace lance::cli
