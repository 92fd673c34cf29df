// MemWalIndexDetails codec.
#include "lance/memwal/index_details.h"

#include <algorithm>

#include <google/protobuf/unknown_field_set.h>
#include <nlohmann/json.hpp>

#include "file/proto/deterministic.h"
#include "memwal/proto/memwal.pb.h"

namespace lance::memwal {

namespace {

void ToPb(const ShardingSpec& s, pb::ShardingSpec* out) {
  out->set_spec_id(s.spec_id);
  for (const ShardingField& f : s.fields) {
    pb::ShardingField* o = out->add_fields();
    o->set_field_id(f.field_id);
    for (int32_t id : f.source_ids) o->add_source_ids(id);
    if (f.transform) o->set_transform(*f.transform);
    if (f.expression) o->set_expression(*f.expression);
    o->set_result_type(f.result_type);
    for (const auto& [k, v] : f.parameters) (*o->mutable_parameters())[k] = v;
  }
}

ShardingSpec FromPb(const pb::ShardingSpec& p) {
  ShardingSpec s;
  s.spec_id = p.spec_id();
  for (const auto& f : p.fields()) {
    ShardingField o;
    o.field_id = f.field_id();
    o.source_ids.assign(f.source_ids().begin(), f.source_ids().end());
    if (f.has_transform()) o.transform = f.transform();
    if (f.has_expression()) o.expression = f.expression();
    o.result_type = f.result_type();
    for (const auto& [k, v] : f.parameters()) o.parameters[k] = v;
    s.fields.push_back(std::move(o));
  }
  return s;
}

Result<MergedGeneration> FromPb(const pb::MergedGeneration& p, std::string_view what) {
  MergedGeneration g;
  LANCE_ASSIGN_OR_RAISE(g.shard_id, Uuid::FromBytes(p.shard_id().uuid(), what));
  g.generation = p.generation();
  return g;
}

void ToPb(const MergedGeneration& g, pb::MergedGeneration* out) {
  out->mutable_shard_id()->set_uuid(g.shard_id.ToBytes());
  out->set_generation(g.generation);
}

nlohmann::ordered_json GenerationsJson(const std::vector<MergedGeneration>& gens) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& g : gens) a.push_back({{"shard_id", g.shard_id.ToString()}, {"generation", g.generation}});
  return a;
}

}  // namespace

uint64_t MemWalIndexDetails::MergedGenerationOf(const Uuid& shard) const {
  for (const auto& g : merged_generations) {
    if (g.shard_id == shard) return g.generation;
  }
  return 0;
}

std::optional<uint64_t> MemWalIndexDetails::CaughtUpGenerationOf(std::string_view index,
                                                                 const Uuid& shard) const {
  for (const auto& c : index_catchup) {
    if (c.index_name != index) continue;
    for (const auto& g : c.caught_up_generations) {
      if (g.shard_id == shard) return g.generation;
    }
  }
  return std::nullopt;
}

namespace {

// index_catchup[index][shard] = generation (the entry created when absent).
void SetCaughtUp(std::vector<IndexCatchup>* catchup, std::string_view index, const Uuid& shard,
                 uint64_t generation) {
  auto it = std::find_if(catchup->begin(), catchup->end(),
                         [&](const IndexCatchup& c) { return c.index_name == index; });
  if (it == catchup->end()) it = catchup->insert(catchup->end(), IndexCatchup{std::string(index), {}});
  for (auto& g : it->caught_up_generations) {
    if (g.shard_id == shard) {
      g.generation = generation;
      return;
    }
  }
  it->caught_up_generations.push_back({shard, generation});
}

void DropCaughtUp(std::vector<IndexCatchup>* catchup, std::string_view index, const Uuid& shard) {
  for (auto it = catchup->begin(); it != catchup->end(); ++it) {
    if (it->index_name != index) continue;
    std::erase_if(it->caught_up_generations, [&](const MergedGeneration& g) { return g.shard_id == shard; });
    if (it->caught_up_generations.empty()) catchup->erase(it);
    return;
  }
}

}  // namespace

void MemWalIndexDetails::RecordMerge(const Uuid& shard, uint64_t generation, bool wrote_rows) {
  const uint64_t previous = MergedGenerationOf(shard);
  for (const std::string& index : maintained_indexes) {
    const std::optional<uint64_t> at = CaughtUpGenerationOf(index, shard);
    const bool caught_up = !at || *at >= previous;
    if (!caught_up) continue;  // lagging already: the merge adds to the gap
    if (wrote_rows) {
      SetCaughtUp(&index_catchup, index, shard, previous);
    } else if (at) {
      SetCaughtUp(&index_catchup, index, shard, generation);
    }
  }
}

void MemWalIndexDetails::RecordIndexRebuilt(std::string_view index,
                                            const std::vector<MergedGeneration>& covered) {
  if (std::find(maintained_indexes.begin(), maintained_indexes.end(), index) == maintained_indexes.end()) return;
  for (const MergedGeneration& m : merged_generations) {
    uint64_t at = 0;
    for (const auto& c : covered) {
      if (c.shard_id == m.shard_id) at = c.generation;
    }
    if (at >= m.generation) {
      DropCaughtUp(&index_catchup, index, m.shard_id);
    } else {
      SetCaughtUp(&index_catchup, index, m.shard_id, at);
    }
  }
}

const ShardingSpec* MemWalIndexDetails::FindSpec(uint32_t spec_id) const {
  for (const auto& s : sharding_specs) {
    if (s.spec_id == spec_id) return &s;
  }
  return nullptr;
}

MemWalIndexDetails DetailsForSpec(ShardingSpec spec, std::vector<std::string> maintained_indexes,
                                  std::map<std::string, std::string> writer_config_defaults) {
  MemWalIndexDetails d;
  if (spec.fields.size() == 1 && spec.fields[0].transform) {
    const std::string& t = *spec.fields[0].transform;
    if (t == kTransformUnsharded) {
      d.num_shards = 1;
    } else if (t == kTransformBucket) {
      auto it = spec.fields[0].parameters.find(std::string(kNumBucketsParameter));
      if (it != spec.fields[0].parameters.end()) {
        d.num_shards = static_cast<uint32_t>(std::strtoul(it->second.c_str(), nullptr, 10));
      }
    }
  }
  d.sharding_specs.push_back(std::move(spec));
  d.maintained_indexes = std::move(maintained_indexes);
  d.writer_config_defaults = std::move(writer_config_defaults);
  return d;
}

std::string EncodeMemWalIndexDetails(const MemWalIndexDetails& d) {
  pb::MemWalIndexDetails p;
  p.set_snapshot_ts_millis(d.snapshot_ts_millis);
  p.set_num_shards(d.num_shards);
  if (d.inline_snapshots) p.set_inline_snapshots(*d.inline_snapshots);
  for (const auto& s : d.sharding_specs) ToPb(s, p.add_sharding_specs());
  for (const auto& m : d.maintained_indexes) p.add_maintained_indexes(m);
  for (const auto& g : d.merged_generations) ToPb(g, p.add_merged_generations());
  for (const auto& c : d.index_catchup) {
    pb::IndexCatchupProgress* o = p.add_index_catchup();
    o->set_index_name(c.index_name);
    for (const auto& g : c.caught_up_generations) ToPb(g, o->add_caught_up_generations());
  }
  for (const auto& [k, v] : d.writer_config_defaults) (*p.mutable_writer_config_defaults())[k] = v;
  std::string out = ::lance::proto::SerializeDeterministic(p);
  out.append(d.unknown_fields);
  return out;
}

Result<MemWalIndexDetails> DecodeMemWalIndexDetails(std::string_view bytes, std::string_view what) {
  pb::MemWalIndexDetails p;
  if (!p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption("{}: not a MemWalIndexDetails protobuf ({} bytes)", what,
                              bytes.size());
  }
  MemWalIndexDetails d;
  d.snapshot_ts_millis = p.snapshot_ts_millis();
  d.num_shards = p.num_shards();
  if (p.has_inline_snapshots()) d.inline_snapshots = p.inline_snapshots();
  for (const auto& s : p.sharding_specs()) d.sharding_specs.push_back(FromPb(s));
  d.maintained_indexes.assign(p.maintained_indexes().begin(), p.maintained_indexes().end());
  const std::string merged_what = std::string(what) + ": merged_generations";
  for (const auto& g : p.merged_generations()) {
    LANCE_ASSIGN_OR_RAISE(MergedGeneration m, FromPb(g, merged_what));
    d.merged_generations.push_back(m);
  }
  const std::string catchup_what = std::string(what) + ": index_catchup";
  for (const auto& c : p.index_catchup()) {
    IndexCatchup o;
    o.index_name = c.index_name();
    for (const auto& g : c.caught_up_generations()) {
      LANCE_ASSIGN_OR_RAISE(MergedGeneration m, FromPb(g, catchup_what));
      o.caught_up_generations.push_back(m);
    }
    d.index_catchup.push_back(std::move(o));
  }
  for (const auto& [k, v] : p.writer_config_defaults()) d.writer_config_defaults[k] = v;
  const auto& unknown = p.GetReflection()->GetUnknownFields(p);
  if (!unknown.empty()) unknown.SerializeToString(&d.unknown_fields);
  return d;
}

std::string EncodeMergedGeneration(const MergedGeneration& g) {
  pb::MergedGeneration p;
  ToPb(g, &p);
  std::string out;
  p.SerializeToString(&out);
  return out;
}

std::string MemWalIndexDetailsToJson(const MemWalIndexDetails& d) {
  nlohmann::ordered_json j;
  j["snapshot_ts_millis"] = d.snapshot_ts_millis;
  j["num_shards"] = d.num_shards;
  j["inline_snapshots_bytes"] =
      d.inline_snapshots ? nlohmann::ordered_json(d.inline_snapshots->size()) : nullptr;
  nlohmann::ordered_json specs = nlohmann::ordered_json::array();
  for (const auto& s : d.sharding_specs) {
    nlohmann::ordered_json fields = nlohmann::ordered_json::array();
    for (const auto& f : s.fields) {
      nlohmann::ordered_json x;
      x["field_id"] = f.field_id;
      x["source_ids"] = f.source_ids;
      x["transform"] = f.transform ? nlohmann::ordered_json(*f.transform) : nullptr;
      x["expression"] = f.expression ? nlohmann::ordered_json(*f.expression) : nullptr;
      x["result_type"] = f.result_type;
      nlohmann::ordered_json params = nlohmann::ordered_json::object();
      for (const auto& [k, v] : f.parameters) params[k] = v;
      x["parameters"] = params;
      fields.push_back(std::move(x));
    }
    specs.push_back({{"spec_id", s.spec_id}, {"fields", fields}});
  }
  j["sharding_specs"] = specs;
  j["maintained_indexes"] = d.maintained_indexes;
  j["merged_generations"] = GenerationsJson(d.merged_generations);
  nlohmann::ordered_json catchup = nlohmann::ordered_json::array();
  for (const auto& c : d.index_catchup) {
    catchup.push_back({{"index_name", c.index_name},
                       {"caught_up_generations", GenerationsJson(c.caught_up_generations)}});
  }
  j["index_catchup"] = catchup;
  nlohmann::ordered_json defaults = nlohmann::ordered_json::object();
  for (const auto& [k, v] : d.writer_config_defaults) defaults[k] = v;
  j["writer_config_defaults"] = defaults;
  return j.dump();
}

}  // namespace lance::memwal
