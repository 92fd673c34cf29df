// internal::FindCatchupGap (lsm_catchup.h): the base fragments a lagging index does not cover,
// traced back to the MemWAL merges that wrote them.
#include "query/lsm_catchup.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "lance/memwal/lsm_read.h"

namespace lance::query::internal {

namespace {

void Collect(const PlanNode& node, std::vector<const IndexLookupNode*>* lookups,
             std::vector<const FragmentScanNode*>* scans) {
  if (node.kind() == PlanNode::Kind::kIndexLookup) lookups->push_back(static_cast<const IndexLookupNode*>(&node));
  if (node.kind() == PlanNode::Kind::kFragmentScan) scans->push_back(static_cast<const FragmentScanNode*>(&node));
  for (const auto& in : node.inputs()) Collect(*in, lookups, scans);
}

bool SameFragment(const table::FragmentInfo& a, const table::FragmentInfo& b) {
  if (a.physical_rows != b.physical_rows || a.files.size() != b.files.size()) return false;
  if (a.deletion.has_value() != b.deletion.has_value()) return false;
  return !a.deletion || a.deletion->SameFile(*b.deletion);
}

std::map<std::string, uint64_t> MergedByShard(const table::Snapshot& s) {
  std::map<std::string, uint64_t> out;
  auto d = memwal::ReadMemWalDetails(s);
  if (!d.ok()) return out;
  for (const auto& m : d->merged_generations) out[m.shard_id.ToString()] = m.generation;
  return out;
}

}  // namespace

Result<std::optional<CatchupGap>> FindCatchupGap(const std::shared_ptr<const table::Snapshot>& base,
                                                 const memwal::MemWalIndexDetails& details,
                                                 const PlanNode& base_plan, std::string* why) {
  using None = std::optional<CatchupGap>;
  std::set<std::string> lagging;
  for (const auto& c : details.index_catchup) {
    for (const auto& g : c.caught_up_generations) {
      if (g.generation < details.MergedGenerationOf(g.shard_id)) lagging.insert(c.index_name);
    }
  }
  if (lagging.empty()) return None();
  std::vector<const IndexLookupNode*> lookups;
  std::vector<const FragmentScanNode*> scans;
  Collect(base_plan, &lookups, &scans);
  CatchupGap gap;
  for (const IndexLookupNode* l : lookups) {
    for (const auto& c : l->plan().lookups) {
      for (const auto& leaf : c.leaves) {
        if (lagging.count(leaf.index_name) &&
            std::find(gap.indexes.begin(), gap.indexes.end(), leaf.index_name) == gap.indexes.end()) {
          gap.indexes.push_back(leaf.index_name);
        }
      }
    }
  }
  if (gap.indexes.empty()) return None();  // the filter uses no lagging index
  const auto& fragments = base->manifest().fragments;
  std::set<uint64_t> uncovered;
  for (const FragmentScanNode* s : scans) {
    if (!s->note().empty()) {
      *why = "index catch-up gap not read from the generations: " + s->note();
      return None();
    }
    for (size_t i : s->fragments()) uncovered.insert(fragments[i].id);
  }
  if (uncovered.empty()) return None();

  // Back from the base version: each step (earlier -> later) either moves merged_generations
  // (a MemWAL merge: the fragments it adds are its rows) or must leave the uncovered fragments
  // alone.
  std::set<uint64_t> pending = uncovered;
  std::set<std::pair<std::string, uint64_t>> gens;
  std::shared_ptr<const table::Snapshot> later = base;
  std::map<std::string, uint64_t> later_merged = MergedByShard(*later);
  for (uint64_t steps = 0; !pending.empty(); ++steps) {
    if (steps == kCatchupMaxVersions || later->version() <= 1) {
      *why = fmt::format("index catch-up gap not read from the generations: the base fragments no "
                         "index covers were not all traced to MemWAL merges within {} versions",
                         kCatchupMaxVersions);
      return None();
    }
    table::OpenOptions o;
    o.version = later->version() - 1;
    auto earlier_r = table::Snapshot::Open(base->location(), o);
    if (!earlier_r.ok()) {
      *why = fmt::format("index catch-up gap not read from the generations: version {} cannot be "
                         "opened ({})", *o.version, earlier_r.status().ToString());
      return None();
    }
    std::shared_ptr<const table::Snapshot> earlier = std::move(*earlier_r);
    std::map<std::string, uint64_t> earlier_merged = MergedByShard(*earlier);
    bool merge = false;
    for (const auto& [shard, g] : later_merged) {
      const auto it = earlier_merged.find(shard);
      const uint64_t from = it == earlier_merged.end() ? 0 : it->second;
      for (uint64_t x = from + 1; x <= g; ++x) {
        gens.emplace(shard, x);
        merge = true;
      }
    }
    std::map<uint64_t, const table::FragmentInfo*> before;
    for (const auto& f : earlier->manifest().fragments) before[f.id] = &f;
    for (const auto& f : later->manifest().fragments) {
      if (!uncovered.count(f.id)) continue;
      const auto it = before.find(f.id);
      const bool added = it == before.end();
      if (!merge && (added || !SameFragment(*it->second, f))) {
        *why = fmt::format("index catch-up gap not read from the generations: version {} (not a "
                           "MemWAL merge) wrote base fragment {}",
                           later->version(), f.id);
        return None();
      }
      if (added) pending.erase(f.id);
    }
    later = std::move(earlier);
    later_merged = std::move(earlier_merged);
  }
  for (const auto& f : fragments) (uncovered.count(f.id) ? gap.uncovered : gap.covered).push_back(f.id);
  for (const auto& [shard, g] : gens) {
    auto id = memwal::Uuid::Parse(shard);
    if (!id.ok()) return None();
    gap.generations.push_back({*id, g});
  }
  return std::optional<CatchupGap>(std::move(gap));
}

}  // namespace lance::query::internal
