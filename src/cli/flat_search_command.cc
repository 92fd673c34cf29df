// `lance flat-search`: exact k-nearest-neighbour search over one vector column of a dataset
// with the linalg layer's FlatSearch -- what lance 12 answers without an index (or with
// bypassVectorIndex()). A small tool for the interop tests and benchmarks of linalg; the
// full `lance search` (indexes, filters, projections) belongs to the query layer.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "lance/linalg/flat_search.h"
#include "lance/dataset/dataset.h"

namespace lance::cli {
namespace {

struct FlatSearchArgs {
  std::string uri;
  std::string column;
  std::string vector;
  size_t k = 10;
  std::string metric = "l2";
  int threads = 0;
};

std::string ShortestFloat(float f) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
  return ec == std::errc() ? std::string(buf, end) : "null";
}

Status RunFlatSearch(const FlatSearchArgs& a) {
  LANCE_ASSIGN_OR_RAISE(linalg::DistanceType metric, linalg::ParseDistanceType(a.metric));
  std::vector<float> query;
  try {
    auto parsed = nlohmann::json::parse(a.vector);
    if (!parsed.is_array()) return Status::InvalidArgument("--vector: expected a JSON array");
    for (const auto& x : parsed) {
      if (x.is_number()) {
        query.push_back(x.get<float>());
      } else if (x.is_string() && (x == "inf" || x == "-inf" || x == "nan")) {
        const std::string s = x.get<std::string>();
        query.push_back(s == "nan" ? NAN : s == "inf" ? INFINITY : -INFINITY);
      } else {
        return Status::InvalidArgument("--vector: {} is not a number (or \"inf\", \"-inf\", \"nan\")",
                                       x.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument("--vector: {}", e.what());
  }
  const int threads =
      a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  LANCE_ASSIGN_OR_RAISE(auto pool, ThreadPool::Make(threads));
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  query::ScanOptions scan;
  scan.columns = {a.column, query::kRowIdColumn};
  LANCE_ASSIGN_OR_RAISE(auto scanner, ds->NewScan(std::move(scan)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  linalg::TopK top(a.k);
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->Next());
    if (!batch) break;
    const ArrayPtr& vectors = batch->column(0);
    const ArrayPtr& ids = batch->column(1);
    linalg::FlatSearchOptions o;
    o.distance_type = metric;
    o.k = a.k;
    o.pool = pool.get();
    o.row_ids = {ids->Values<uint64_t>(), static_cast<size_t>(ids->length)};
    LANCE_ASSIGN_OR_RAISE(auto found, linalg::FlatSearch(*vectors, query, o));
    for (const auto& n : found) top.Push(n.row, n.distance);
  }
  for (const auto& n : top.Sorted()) {
    std::printf("{\"_rowid\":%llu,\"_distance\":%s}\n", static_cast<unsigned long long>(n.row),
                ShortestFloat(n.distance).c_str());
  }
  return Status::OK();
}

}  // namespace

void RegisterFlatSearchCommand(CLI::App& app, CommandRegistry& registry) {
  auto a = std::make_shared<FlatSearchArgs>();
  auto* sub = app.add_subcommand(
      "flat-search", "Exact k nearest rows of a vector column (JSON lines: _rowid, _distance)");
  sub->add_option("URI", a->uri, "dataset directory (path or URI)")->required();
  sub->add_option("--column", a->column, "the fixed_size_list vector column")->required();
  sub->add_option("--vector", a->vector,
                  "the query, a JSON array of numbers (\"inf\", \"-inf\", \"nan\" as strings)")->required();
  sub->add_option("-k", a->k, "rows to return (default 10)");
  sub->add_option("--metric", a->metric, "l2 | cosine | dot | hamming (default l2)");
  sub->add_option("--threads", a->threads, "threads of the scan (default: hardware threads)");
  registry.OnRun(sub, [a] { return RunFlatSearch(*a); });
}

}  // namespace lance::cli
