// `lance search`: k nearest rows of a vector column through its vector index (or exactly with
// --bypass-index), as lance 12's nearestTo(...).nprobes(...).refineFactor(...) answers: JSON
// lines {"_rowid", "_distance"}, nearest first. Each query is a scan with
// query::ScanOptions::nearest through lance::dataset::Dataset (planned by the query layer).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "lance/dataset/dataset.h"

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
  bool timing = false;
  std::string queries;
  std::string filter;
  bool postfilter = false;
  int threads = 0;
};

std::string FloatText(float f) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
  return ec == std::errc() ? std::string(buf, end) : "null";
}

Result<std::vector<float>> ParseVector(const std::string& text, const std::string& what) {
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_array()) return Status::InvalidArgument("{}: expected a JSON array of numbers", what);
  std::vector<float> v;
  for (const auto& x : parsed) {
    if (!x.is_number()) return Status::InvalidArgument("{}: {} is not a number", what, x.dump());
    v.push_back(x.get<float>());
  }
  return v;
}

Status RunSearch(const SearchArgs& a) {
  std::vector<std::vector<float>> queries;
  if (!a.queries.empty()) {
    std::ifstream in(a.queries);
    if (!in) return Status::IOError("--queries: cannot open {}", a.queries);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty()) continue;
      LANCE_ASSIGN_OR_RAISE(auto v, ParseVector(line, a.queries + " line " + std::to_string(n)));
      queries.push_back(std::move(v));
    }
  } else if (!a.vector.empty()) {
    LANCE_ASSIGN_OR_RAISE(auto v, ParseVector(a.vector, "--vector"));
    queries.push_back(std::move(v));
  } else {
    return Status::InvalidArgument("search: give --vector or --queries");
  }
  query::NearestOptions base;
  base.column = a.column;
  if (!a.metric.empty()) {
    LANCE_ASSIGN_OR_RAISE(base.metric, linalg::ParseDistanceType(a.metric));
  }
  base.use_index = !a.bypass_index;
  base.prefilter = !a.postfilter;
  base.k = a.k;
  base.nprobes = a.nprobes;
  if (a.refine_factor > 0) base.refine_factor = a.refine_factor;
  const int threads =
      a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  LANCE_ASSIGN_OR_RAISE(auto pool, ThreadPool::Make(threads));
  dataset::OpenOptions open;
  open.pool = pool.get();
  const auto t0 = std::chrono::steady_clock::now();
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri, open));
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<double> times;
  std::string out;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    query::ScanOptions o;
    o.columns = {"_rowid"};
    o.filter = a.filter;
    o.nearest = base;
    o.nearest->query = queries[qi];
    const auto s0 = std::chrono::steady_clock::now();
    LANCE_ASSIGN_OR_RAISE(auto scanner, ds->NewScan(std::move(o)));
    LANCE_ASSIGN_OR_RAISE(auto batches, scanner.ToBatches());
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
    if (a.explain && qi == 0) std::fputs(scanner.Explain().c_str(), stderr);
    for (const auto& b : batches) {
      const uint64_t* ids = b->column(0)->Values<uint64_t>();
      const float* dist = b->column(1)->Values<float>();
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        out += "{";
        if (!a.queries.empty()) out += "\"query_index\":" + std::to_string(qi) + ",";
        out += "\"_rowid\":" + std::to_string(ids[i]) + ",\"_distance\":" + FloatText(dist[i]) + "}\n";
      }
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (a.timing) {
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    double total = 0;
    for (double t : times) total += t;
    const auto pct = [&](double p) {
      return sorted.empty() ? 0.0 : sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())))];
    };
    std::fprintf(stderr, "{\"queries\":%zu,\"open_ms\":%.3f,\"total_ms\":%.3f,\"p50_ms\":%.4f,\"p99_ms\":%.4f}\n",
                 times.size(), std::chrono::duration<double, std::milli>(t1 - t0).count(), total,
                 pct(0.5), pct(0.99));
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
  sub->add_option("--vector", a->vector, "the query, a JSON array of numbers");
  sub->add_option("--queries", a->queries,
                  "a file of queries, one JSON array per line: results carry their query_index");
  sub->add_flag("--timing", a->timing, "print per-query times (JSON) on stderr");
  sub->add_option("-k", a->k, "rows to return (default 10)");
  sub->add_option("--nprobes", a->nprobes, "IVF partitions to search (default 20)");
  sub->add_option("--refine-factor", a->refine_factor,
                  "re-rank k x R index candidates with exact distances (default off)");
  sub->add_option("--metric", a->metric, "l2 | cosine | dot (default: the index's)");
  sub->add_flag("--bypass-index", a->bypass_index, "exact search even when an index exists");
  sub->add_option("--filter", a->filter, "only rows where this condition holds (SQL-like)");
  sub->add_flag("--postfilter", a->postfilter,
                "filter the k index results (default: filter first, the index searches the rows that pass)");
  sub->add_flag("--explain", a->explain, "print the plan on stderr (which index answers, and how)");
  sub->add_option("--threads", a->threads, "threads of exact scans (default: hardware threads)");
  registry.OnRun(sub, [a] { return RunSearch(*a); });
}

}  // namespace lance::cli
