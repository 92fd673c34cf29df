// Scalar quantization and HNSW graphs of IVF_HNSW_SQ indexes (see hnsw.h).
#include "index/vector/hnsw.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <random>

#include <nlohmann/json.hpp>

#include "lance/linalg/distance.h"

namespace lance::index::vector {

void SqEncode(const float* values, size_t n, const SqBounds& bounds, uint8_t* codes) {
  const double range = bounds.end - bounds.start;
  for (size_t i = 0; i < n; ++i) {
    const double v = values[i];
    if (v < bounds.start) {
      codes[i] = 0;
    } else if (v > bounds.end) {
      codes[i] = 255;
    } else {
      // Truncated, not rounded (the codes lance 12 stores and its query codes).
      const double c = std::floor((v - bounds.start) * 255.0 / range);
      codes[i] = static_cast<uint8_t>(std::clamp(c, 0.0, 255.0));
    }
  }
}

uint32_t SqL2(const uint8_t* a, const uint8_t* b, size_t dim) { return linalg::L2U8(a, b, dim); }

float SqDotOffset(const float* q, size_t dim, const SqBounds& bounds) {
  float sum = 0.0f;
  for (size_t d = 0; d < dim; ++d) sum += q[d];
  return static_cast<float>(bounds.start) * sum;
}

float SqDotDistance(const float* q, const uint8_t* code, size_t dim, float step, float offset) {
  float sum = 0.0f;
  for (size_t d = 0; d < dim; ++d) sum += q[d] * static_cast<float>(code[d]);
  return 1.0f - (step * sum + offset);
}

float SqDistanceScale(const SqBounds& bounds) {
  // (range / 255)^2 in float: lance 12's distances bit for bit ((range^2) / 255^2 is 1 ulp off
  // on some rows).
  const float step = static_cast<float>(bounds.end - bounds.start) / 255.0f;
  return step * step;
}

namespace {

using Scored = std::pair<float, uint32_t>;

struct FarFirst {
  bool operator()(const Scored& a, const Scored& b) const { return a.first < b.first; }
};
struct NearFirst {
  bool operator()(const Scored& a, const Scored& b) const { return a.first > b.first; }
};

// Visited marks reset in O(1) per search: a node is visited when its mark equals the epoch.
class Visited {
 public:
  void Reset(size_t n) {
    if (mark_.size() < n) {
      mark_.assign(n, 0);
      epoch_ = 0;
    }
    if (++epoch_ == 0) {
      std::fill(mark_.begin(), mark_.end(), 0);
      epoch_ = 1;
    }
  }
  // True when `i` was already visited; marks it.
  bool TestAndSet(uint32_t i) {
    if (mark_[i] == epoch_) return true;
    mark_[i] = epoch_;
    return false;
  }

 private:
  std::vector<uint32_t> mark_;
  uint32_t epoch_ = 0;
};


// Greedy descent on one level: move to the closest neighbour while one is closer.
template <typename Neighbors, typename Dist>
Scored Greedy(const Neighbors& neighbors, Scored cur, const Dist& dist) {
  while (true) {
    bool moved = false;
    uint32_t next = cur.second;
    for (uint32_t nb : neighbors(cur.second)) {
      const float d = dist(nb);
      if (d < cur.first) {
        cur.first = d;
        next = nb;
        moved = true;
      }
    }
    if (!moved) return cur;
    cur.second = next;
  }
}

// Max-heap / min-heap over Scored in reusable storage (std::priority_queue's push_heap /
// pop_heap, so ties pop in the same order).
template <typename Cmp>
struct ScoredHeap {
  std::vector<Scored>* v;
  bool empty() const { return v->empty(); }
  size_t size() const { return v->size(); }
  const Scored& top() const { return v->front(); }
  void push(Scored x) {
    v->push_back(x);
    std::push_heap(v->begin(), v->end(), Cmp{});
  }
  void pop() {
    std::pop_heap(v->begin(), v->end(), Cmp{});
    v->pop_back();
  }
};

// Scratch of one thread's searches: visited marks and the two heaps' storage.
struct BeamScratch {
  Visited visited;
  std::vector<Scored> candidates, results;
  std::vector<uint32_t> fresh;  // one expansion's unvisited neighbours
};

// Best-first search of one level from `ep`, keeping the `ef` nearest accepted nodes (as lance
// 12: a neighbour enters the candidates when it is within the furthest result held, or while
// fewer than ef results are held; the expansion stops at a candidate beyond the furthest of
// ef results). Nearest first. `prefetch(node)` is called before `dist(node)`, for all of one
// expansion's neighbours at once.
template <typename Neighbors, typename Dist, typename Accept, typename Prefetch>
std::vector<Scored> Beam(const Neighbors& neighbors, uint32_t num_nodes, Scored ep, size_t ef,
                         const Dist& dist, const Accept& accept, const Prefetch& prefetch,
                         BeamScratch& scratch) {
  Visited& visited = scratch.visited;
  visited.Reset(num_nodes);
  scratch.candidates.clear();
  scratch.results.clear();
  ScoredHeap<NearFirst> candidates{&scratch.candidates};
  ScoredHeap<FarFirst> results{&scratch.results};
  visited.TestAndSet(ep.second);
  candidates.push(ep);
  if (accept(ep.second)) results.push(ep);
  while (!candidates.empty()) {
    const Scored cur = candidates.top();
    candidates.pop();
    const float furthest = results.empty() ? INFINITY : results.top().first;
    if (cur.first > furthest && results.size() == ef) break;
    // The unvisited neighbours first (marked as they are met, as one at a time would), their
    // rows all prefetched, then scored in order: the same answers, with every row's fetch in
    // flight before the first distance.
    const auto nbs = neighbors(cur.second);
    std::vector<uint32_t>& fresh = scratch.fresh;
    fresh.clear();
    for (const uint32_t nb : nbs) {
      if (!visited.TestAndSet(nb)) fresh.push_back(nb);
    }
    for (const uint32_t nb : fresh) prefetch(nb);
    for (const uint32_t nb : fresh) {
      const float d = dist(nb);
      if (d <= (results.empty() ? furthest : results.top().first) || results.size() < ef) {
        if (accept(nb)) {
          if (results.size() < ef) {
            results.push({d, nb});
          } else if (d < results.top().first) {
            results.pop();
            results.push({d, nb});
          }
        }
        candidates.push({d, nb});
      }
    }
  }
  std::vector<Scored> out(results.size());
  for (size_t i = out.size(); i-- > 0;) {
    out[i] = results.top();
    results.pop();
  }
  return out;
}

struct Span {
  const uint32_t* b;
  const uint32_t* e;
  const uint32_t* begin() const { return b; }
  const uint32_t* end() const { return e; }
};

// Lance 12's search of one graph: from the entry point, greedy on the levels above 0 only,
// then the beam over level 0 (its answers over its own graphs, also with ef 1: the interop
// test). The scratch is the calling thread's, so a search allocates only its answer.
template <typename Dist, typename Accept, typename Prefetch>
std::vector<Scored> HnswWalk(const HnswGraph& g, const Dist& dist, size_t ef, const Accept& accept,
                             const Prefetch& prefetch) {
  if (g.num_nodes == 0 || g.levels.empty() || ef == 0) return {};
  Scored ep{dist(g.entry_point), g.entry_point};
  for (size_t l = g.levels.size(); l-- > 1;) {
    const HnswGraph::Level& level = g.levels[l];
    ep = Greedy([&](uint32_t n) {
      return Span{level.ids.data() + level.starts[n], level.ids.data() + level.starts[n + 1]};
    }, ep, dist);
  }
  const HnswGraph::Level& bottom = g.levels[0];
  thread_local BeamScratch scratch;
  auto neighbors = [&](uint32_t n) {
    return Span{bottom.ids.data() + bottom.starts[n], bottom.ids.data() + bottom.starts[n + 1]};
  };
  return Beam(neighbors, g.num_nodes, ep, ef, dist, accept, prefetch, scratch);
}

}  // namespace

std::vector<std::pair<float, uint32_t>> HnswSearch(const HnswGraph& g, const NodeDistance& dist,
                                                   size_t ef,
                                                   const std::function<bool(uint32_t)>& accept) {
  auto none = [](uint32_t) {};
  if (accept) return HnswWalk(g, dist, ef, accept, none);
  return HnswWalk(g, dist, ef, [](uint32_t) { return true; }, none);
}

std::vector<std::pair<float, uint32_t>> HnswSearchSq(const HnswGraph& g, const uint8_t* codes,
                                                     size_t dim, const uint8_t* query, float scale,
                                                     size_t ef, const uint8_t* accept) {
  // The integer l2 on the codes as stored (never dequantised), through the kernel pointer of
  // the active level.
  const linalg::L2U8Fn l2 = linalg::L2U8Kernel();
  auto run = [&](const auto& dist, const auto& prefetch) {
    if (accept != nullptr) {
      return HnswWalk(g, dist, ef, [accept](uint32_t x) { return accept[x] != 0; }, prefetch);
    }
    return HnswWalk(g, dist, ef, [](uint32_t) { return true; }, prefetch);
  };
  // A walk can expand ef nodes of up to 2m neighbours each: in a partition within twice that
  // it meets most rows anyway, and its fetches are random (the rows are rarely in cache: each
  // query probes other partitions). Then every row is scored first, in one sequential pass,
  // and the walk reads the scores: the same floats, the same answers.
  const size_t degree0 = 2 * std::max<size_t>(g.params.m, 1);
  if (g.num_nodes <= 2 * ef * degree0) {
    thread_local std::vector<float> dense;
    dense.resize(g.num_nodes);
    for (uint32_t i = 0; i < g.num_nodes; ++i) {
      dense[i] = static_cast<float>(l2(codes + size_t{i} * dim, query, dim)) * scale;
    }
    const float* d = dense.data();
    return run([d](uint32_t node) { return d[node]; }, [](uint32_t) {});
  }
  // Larger partitions: scored as met, the code rows of an expansion's unvisited neighbours
  // prefetched together.
  auto dist = [&](uint32_t node) {
    return static_cast<float>(l2(codes + size_t{node} * dim, query, dim)) * scale;
  };
  auto prefetch = [&](uint32_t node) {
    const uint8_t* row = codes + size_t{node} * dim;
    for (size_t b = 0; b < dim; b += 64) __builtin_prefetch(row + b);
  };
  return run(dist, prefetch);
}

namespace {

// A node's neighbours on one level under construction, nearest first.
struct Adjacency {
  std::vector<uint32_t> ids;
  std::vector<float> dists;
};

// The graph under construction: per node, per level. `Between` is the symmetric distance of
// two nodes (a plain functor, inlined into the loops below).
template <typename Between>
struct Builder {
  const Between& between;
  HnswParams params;
  std::vector<std::vector<Adjacency>> links;  // [node][level]
  std::vector<Scored> kept;                   // scratch of Select
  std::vector<uint8_t> chosen;                // scratch of Select

  size_t MaxEdges(size_t level) const { return level == 0 ? params.m * 2 : params.m; }

  Span Neighbors(uint32_t x, size_t level) const {
    if (links[x].size() <= level) return Span{nullptr, nullptr};
    const auto& ids = links[x][level].ids;
    return Span{ids.data(), ids.data() + ids.size()};
  }

  // lance 12's selection of at most `max` of `sorted` (nearest first): the heuristic keeps a
  // candidate when it is strictly nearer the node than to every neighbour kept so far, then
  // the nearest of the candidates it passed over fill the list up to `max` (lance 12's graphs
  // hold both runs: its level-0 lists average 30 of 40 entries at m 20 where the heuristic
  // alone leaves 16, and its recall at a small ef is that much higher). Written to `out`
  // nearest first. A list of at most `max` is kept whole.
  void Select(const std::vector<Scored>& sorted, size_t max, Adjacency* out) {
    out->ids.clear();
    out->dists.clear();
    if (sorted.size() <= max) {
      for (const Scored& c : sorted) {
        out->ids.push_back(c.second);
        out->dists.push_back(c.first);
      }
      return;
    }
    kept.clear();
    chosen.assign(sorted.size(), 0);
    for (size_t i = 0; i < sorted.size() && kept.size() < max; ++i) {
      const Scored& c = sorted[i];
      bool good = true;
      for (const Scored& r : kept) {
        if (!(c.first < between(c.second, r.second))) {
          good = false;
          break;
        }
      }
      if (good) {
        kept.push_back(c);
        chosen[i] = 1;
      }
    }
    for (size_t i = 0, fill = max - kept.size(); i < sorted.size() && fill > 0; ++i) {
      if (!chosen[i]) {
        chosen[i] = 1;
        --fill;
      }
    }
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (!chosen[i]) continue;
      out->ids.push_back(sorted[i].second);
      out->dists.push_back(sorted[i].first);
    }
  }
};

template <typename Between>
HnswGraph Build(uint32_t n, const Between& between, const HnswParams& params, uint64_t seed) {
  HnswGraph g;
  g.num_nodes = n;
  g.params = params;
  const size_t num_levels = std::max<size_t>(1, params.max_level);
  g.levels.resize(num_levels);
  if (n == 0) {
    for (auto& l : g.levels) l.starts.assign(1, 0);
    return g;
  }
  std::mt19937_64 rng(seed);
  const double ml = 1.0 / std::log(static_cast<double>(std::max<size_t>(2, params.m)));
  std::vector<uint32_t> top(n);
  // Node 0 is on every level and the entry point (lance's builder does the same).
  top[0] = static_cast<uint32_t>(num_levels - 1);
  for (uint32_t i = 1; i < n; ++i) {
    const double u = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    top[i] = static_cast<uint32_t>(std::min<double>(std::floor(-std::log(u) * ml),
                                                    static_cast<double>(num_levels - 1)));
  }
  Builder<Between> b{between, params, {}, {}, {}};
  b.links.resize(n);
  for (uint32_t i = 0; i < n; ++i) b.links[i].resize(top[i] + 1);
  uint32_t entry = 0, entry_level = top[0];
  BeamScratch scratch;
  std::vector<Scored> merged;
  Adjacency pruned;
  for (uint32_t i = 1; i < n; ++i) {
    auto dist = [&](uint32_t x) { return between(i, x); };
    Scored ep{dist(entry), entry};
    for (uint32_t l = entry_level; l > top[i]; --l) {
      ep = Greedy([&](uint32_t x) { return b.Neighbors(x, l); }, ep, dist);
    }
    for (uint32_t l = std::min(top[i], entry_level) + 1; l-- > 0;) {
      std::vector<Scored> found = Beam([&](uint32_t x) { return b.Neighbors(x, l); }, n, ep,
                                       params.ef_construction, dist,
                                       [](uint32_t) { return true; }, [](uint32_t) {}, scratch);
      // The new node takes m neighbours on every level (lance 12's graphs: a level-0 list's
      // first run is m long); the edges back to it fill lists up to 2m on level 0.
      const size_t max = b.MaxEdges(l);
      b.Select(found, params.m, &b.links[i][l]);
      const Adjacency& mine = b.links[i][l];
      for (size_t j = 0; j < mine.ids.size(); ++j) {
        Adjacency& theirs = b.links[mine.ids[j]][l];
        const float d = mine.dists[j];
        // A full neighbour list whose furthest is nearer keeps its list (lance's cutoff check).
        if (theirs.ids.size() >= max && !theirs.dists.empty() && d >= theirs.dists.back()) continue;
        const size_t at = static_cast<size_t>(
            std::upper_bound(theirs.dists.begin(), theirs.dists.end(), d) - theirs.dists.begin());
        theirs.ids.insert(theirs.ids.begin() + static_cast<std::ptrdiff_t>(at), i);
        theirs.dists.insert(theirs.dists.begin() + static_cast<std::ptrdiff_t>(at), d);
        if (theirs.ids.size() > max) {
          merged.clear();
          for (size_t t = 0; t < theirs.ids.size(); ++t) merged.push_back({theirs.dists[t], theirs.ids[t]});
          b.Select(merged, max, &pruned);
          std::swap(theirs, pruned);
        }
      }
      if (!found.empty()) ep = found[0];
    }
    if (top[i] > entry_level) {
      entry = i;
      entry_level = top[i];
    }
  }
  g.entry_point = entry;
  for (size_t l = 0; l < num_levels; ++l) {
    HnswGraph::Level& level = g.levels[l];
    level.starts.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const bool on = b.links[i].size() > l;
      level.starts[i + 1] = level.starts[i] + (on ? static_cast<uint32_t>(b.links[i][l].ids.size()) : 0);
      if (on) level.nodes.push_back(i);
    }
    level.ids.reserve(level.starts[n]);
    level.distances.reserve(level.starts[n]);
    for (uint32_t i : level.nodes) {
      const Adjacency& a = b.links[i][l];
      level.ids.insert(level.ids.end(), a.ids.begin(), a.ids.end());
      level.distances.insert(level.distances.end(), a.dists.begin(), a.dists.end());
    }
  }
  return g;
}

// SQ code distances: the integer l2 of two rows times the bounds' scale.
struct SqBetween {
  const uint8_t* codes;
  size_t dim;
  float scale;
  linalg::L2U8Fn l2;
  float operator()(uint32_t a, uint32_t b) const {
    return static_cast<float>(l2(codes + size_t{a} * dim, codes + size_t{b} * dim, dim)) * scale;
  }
};

// Float32 vectors by squared l2 (the linalg kernel of the active level).
struct L2Between {
  const float* vectors;
  size_t dim;
  float operator()(uint32_t a, uint32_t b) const {
    return linalg::L2(vectors + size_t{a} * dim, vectors + size_t{b} * dim, dim);
  }
};

struct DotBetween {
  const float* vectors;
  size_t dim;
  float operator()(uint32_t a, uint32_t b) const {
    return linalg::DotDistance(vectors + size_t{a} * dim, vectors + size_t{b} * dim, dim);
  }
};

}  // namespace

HnswGraph HnswBuild(uint32_t n, const std::function<float(uint32_t, uint32_t)>& between,
                    const HnswParams& params, uint64_t seed) {
  return Build(n, between, params, seed);
}

HnswGraph HnswBuildSq(const uint8_t* codes, uint32_t n, size_t dim, float scale,
                      const HnswParams& params, uint64_t seed) {
  const SqBetween between{codes, dim, scale, linalg::L2U8Kernel()};
  return Build(n, between, params, seed);
}

HnswGraph HnswBuildL2(const float* vectors, uint32_t n, size_t dim, const HnswParams& params,
                      uint64_t seed) {
  const L2Between between{vectors, dim};
  return Build(n, between, params, seed);
}

HnswGraph HnswBuildDot(const float* vectors, uint32_t n, size_t dim, const HnswParams& params, uint64_t seed) {
  const DotBetween between{vectors, dim};
  return Build(n, between, params, seed);
}

std::string HnswMetadataJson(const HnswGraph& g) {
  nlohmann::ordered_json offsets = nlohmann::ordered_json::array();
  size_t at = 0;
  offsets.push_back(0);
  for (const auto& l : g.levels) {
    at += l.nodes.size();
    offsets.push_back(at);
  }
  nlohmann::ordered_json j;
  j["entry_point"] = g.entry_point;
  j["params"] = {{"max_level", g.params.max_level}, {"m", g.params.m},
                 {"ef_construction", g.params.ef_construction},
                 {"prefetch_distance", g.params.prefetch_distance}};
  j["level_offsets"] = offsets;
  return j.dump();
}

}  // namespace lance::index::vector
