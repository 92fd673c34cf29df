#include "lance/index/scalar/optimize.h"

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

#include "lance/index/fts/tokenizer.h"
#include "lance/index/index_metadata.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/bloom_filter.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/zone_map.h"

namespace lance::index::scalar {

namespace {

// The schema metadata `key` of index file `file` as a number; nullopt when absent.
template <typename T>
Result<std::optional<T>> FileMetadataNumber(IndexStore& store, const char* file, const char* key) {
  LANCE_ASSIGN_OR_RAISE(auto reader, store.OpenFile(file));
  const auto& md = reader->schema()->metadata();
  if (!md) return std::optional<T>();
  auto v = md->Get(key);
  if (!v) return std::optional<T>();
  T out{};
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || p != v->data() + v->size()) {
    return Status::Corruption("{}: schema metadata {} = '{}' is not a number", store.DisplayPathOf(file), key, *v);
  }
  return std::optional<T>(out);
}

}  // namespace

Result<CreateScalarIndexOptions> OptionsOfIndex(const table::Snapshot& at, const table::IndexInfo& segment) {
  const std::string type_name = table::IndexTypeName(segment);
  auto type = ScalarIndexTypeFromName(type_name);
  if (!type.ok()) {
    return Status::NotSupported("index '{}' of {} is a {} index, not a scalar one", segment.name,
                                at.location().display(), type_name);
  }
  CreateScalarIndexOptions o;
  o.type = *type;
  auto store = IndexStore::Make(at.location().store(), IndexDirectory(at.location(), segment.uuid));
  switch (o.type) {
    case ScalarIndexType::kBTree: {
      LANCE_ASSIGN_OR_RAISE(auto bs, FileMetadataNumber<int64_t>(*store, kBTreeLookupFile, "batch_size"));
      if (bs && *bs > 0) o.btree_batch_size = *bs;
      break;
    }
    case ScalarIndexType::kZoneMap: {
      LANCE_ASSIGN_OR_RAISE(std::string json, ZoneMapDetailsJson(segment.details));
      const auto j = nlohmann::json::parse(json, nullptr, false);
      if (j.is_object() && j.contains("rows_per_zone") && j["rows_per_zone"].is_number_unsigned() &&
          j["rows_per_zone"].get<uint64_t>() > 0) {
        o.rows_per_zone = j["rows_per_zone"].get<uint64_t>();
      }
      break;
    }
    case ScalarIndexType::kBloomFilter: {
      LANCE_ASSIGN_OR_RAISE(auto items, FileMetadataNumber<uint64_t>(*store, kBloomFilterFile, "bloomfilter_item"));
      if (items && *items > 0) o.bloom_items = *items;
      LANCE_ASSIGN_OR_RAISE(auto reader, store->OpenFile(kBloomFilterFile));
      if (const auto& md = reader->schema()->metadata()) {
        if (auto p = md->Get("bloomfilter_probability")) {
          double v = 0;
          auto [end, ec] = std::from_chars(p->data(), p->data() + p->size(), v);
          if (ec != std::errc() || end != p->data() + p->size() || !(v > 0 && v < 1)) {
            return Status::Corruption("{}: bloomfilter_probability '{}' is not a number in (0, 1)",
                                      store->DisplayPathOf(kBloomFilterFile), *p);
          }
          o.bloom_probability = v;
        }
      }
      break;
    }
    case ScalarIndexType::kInverted: {
      // The params JSON of metadata.lance: the details carry no custom stop words.
      LANCE_ASSIGN_OR_RAISE(auto reader, store->OpenFile("metadata.lance"));
      const auto& md = reader->schema()->metadata();
      auto params = md ? md->Get("params") : std::nullopt;
      if (!params) {
        return Status::Corruption("{}: no `params` in the schema metadata", store->DisplayPathOf("metadata.lance"));
      }
      auto fts = fts::TokenizerOptions::FromJson(*params);
      if (!fts.ok()) {
        return Status::Corruption("{}: params: {}", store->DisplayPathOf("metadata.lance"), fts.status().message());
      }
      o.fts = std::move(*fts);
      break;
    }
    case ScalarIndexType::kBitmap:
    case ScalarIndexType::kLabelList:
    case ScalarIndexType::kNGram:
    case ScalarIndexType::kFm:
      break;  // no parameters
  }
  return o;
}

Result<std::optional<ScalarOptimizePlan>> PlanScalarIndexOptimize(const table::Snapshot& at,
                                                                  const std::string& name) {
  const table::Manifest& m = at.manifest();
  const auto segments = FindIndexSegments(m, name);
  if (segments.empty()) {
    return Status::NotFound("{} (version {}) has no index named '{}'", at.location().display(), at.version(), name);
  }
  LANCE_ASSIGN_OR_RAISE(FragmentCoverage coverage, CoverageOf(m, segments, name, at.location().display()));
  const std::vector<uint32_t>& live = coverage.live;
  const std::vector<uint32_t>& unindexed = coverage.unindexed;
  if (unindexed.empty() && segments.size() == 1) return std::optional<ScalarOptimizePlan>();

  const table::IndexInfo& newest = *segments.back();
  ScalarOptimizePlan plan;
  plan.name = name;
  LANCE_ASSIGN_OR_RAISE(plan.column, KeyedColumn(m, newest, at.location().display()));
  LANCE_ASSIGN_OR_RAISE(plan.options, OptionsOfIndex(at, newest));
  plan.type = plan.options.type;
  plan.replaced_uuid = newest.uuid;
  std::vector<uint32_t> kept;
  std::vector<uint32_t> newest_frags = newest.fragment_ids;
  std::sort(newest_frags.begin(), newest_frags.end());
  std::set_intersection(newest_frags.begin(), newest_frags.end(), live.begin(), live.end(), std::back_inserter(kept));
  std::set_union(kept.begin(), kept.end(), unindexed.begin(), unindexed.end(), std::back_inserter(plan.fragment_ids));
  plan.new_fragment_ids = unindexed;
  plan.options.name = name;
  plan.options.fragment_ids = plan.fragment_ids;
  plan.dataset_version = newest.dataset_version;
  return std::optional<ScalarOptimizePlan>(std::move(plan));
}

}  // namespace lance::index::scalar
