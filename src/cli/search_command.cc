// `lance search`: k nearest rows of a vector column through its vector index (or exactly with
// --bypass-index), as lance 12's nearestTo(...).nprobes(...).refineFactor(...) answers: JSON
// lines {"_rowid", "_distance"}, nearest first. Over index::vector::SearchTable until the
// query layer plans k-NN.
#include <charconv>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "lance/index/vector/vector_search.h"
#include "lance/table/snapshot.h"

namespace lance::cli {
namespace {

struct SearchArgs {
  std::string uri;
  std::string column = "vector";
  std::string vector;
  size_t k = 10;
  size_t nprobes = 20;
  uint32_t refine_factor = 0;
  std::string metric;
  bool bypass_index = false;
  bool explain = false;
  int threads = 0;
};

std::string FloatText(float f) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
  return ec == std::errc() ? std::string(buf, end) : "null";
}

Status RunSearch(const SearchArgs& a) {
  auto parsed = nlohmann::json::parse(a.vector, nullptr, false);
  if (!parsed.is_array()) return Status::InvalidArgument("--vector: expected a JSON array of numbers");
  index::vector::VectorSearchOptions o;
  o.column = a.column;
  for (const auto& x : parsed) {
    if (!x.is_number()) return Status::InvalidArgument("--vector: {} is not a number", x.dump());
    o.query.vector.push_back(x.get<float>());
  }
  o.query.k = a.k;
  o.query.nprobes = a.nprobes;
  if (a.refine_factor > 0) o.query.refine_factor = a.refine_factor;
  if (!a.metric.empty()) {
    LANCE_ASSIGN_OR_RAISE(o.metric, linalg::ParseDistanceType(a.metric));
  }
  o.bypass_index = a.bypass_index;
  const int threads =
      a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  LANCE_ASSIGN_OR_RAISE(auto pool, ThreadPool::Make(threads));
  o.pool = pool.get();
  LANCE_ASSIGN_OR_RAISE(auto ds, table::Snapshot::Open(a.uri));
  LANCE_ASSIGN_OR_RAISE(auto r, index::vector::SearchTable(*ds, o));
  if (a.explain) {
    if (r.index_kind) {
      std::fprintf(stderr, "ANN: index=%s uuid=%s type=%s nprobes=%zu refine_factor=%u\n",
                   r.index_name.c_str(), r.index_uuid.c_str(),
                   std::string(index::vector::IndexKindName(*r.index_kind)).c_str(), a.nprobes,
                   a.refine_factor);
    } else {
      std::fprintf(stderr, "KNN: exact search of %s\n", a.column.c_str());
    }
  }
  for (const auto& n : r.rows) {
    std::printf("{\"_rowid\":%llu,\"_distance\":%s}\n", static_cast<unsigned long long>(n.row),
                FloatText(n.distance).c_str());
  }
  return Status::OK();
}

}  // namespace

void RegisterSearchCommand(CLI::App& app, CommandRegistry& registry) {
  auto a = std::make_shared<SearchArgs>();
  auto* sub = app.add_subcommand(
      "search", "k nearest rows of a vector column through its vector index (JSON lines: _rowid, _distance)");
  sub->add_option("URI", a->uri, "dataset directory (path or URI)")->required();
  sub->add_option("--column", a->column, "the vector column (default \"vector\")");
  sub->add_option("--vector", a->vector, "the query, a JSON array of numbers")->required();
  sub->add_option("-k", a->k, "rows to return (default 10)");
  sub->add_option("--nprobes", a->nprobes, "IVF partitions to search (default 20)");
  sub->add_option("--refine-factor", a->refine_factor,
                  "re-rank k x R index candidates with exact distances (default off)");
  sub->add_option("--metric", a->metric, "l2 | cosine | dot (default: the index's)");
  sub->add_flag("--bypass-index", a->bypass_index, "exact search even when an index exists");
  sub->add_flag("--explain", a->explain, "say on stderr which index (if any) answers");
  sub->add_option("--threads", a->threads, "threads of exact scans (default: hardware threads)");
  registry.OnRun(sub, [a] { return RunSearch(*a); });
}

}  // namespace lance::cli
