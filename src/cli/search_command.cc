// `lance search`, through lance::dataset::Dataset (planned by the query layer):
//   --vector / --queries: k nearest rows of a vector column through its vector index (or
//     exactly with --bypass-index), as lance 12's nearestTo(...).nprobes(...).refineFactor(...)
//     answers: the rows as JSON lines (--columns, default all; _rowid with --with-row-id) with
//     `_distance`, nearest first (query::ScanOptions::nearest);
//   --text: full-text (BM25) search through an INVERTED index, as lance 12 answers
//     query().fullTextSearch(...): the rows as JSON lines, best first, with `_score`
//     (query::ScanOptions::full_text).
//   --text with --vector: hybrid search, as lancedb answers
//     query().nearestTo(v).fullTextSearch(q) (its RRF reranker): the rows as JSON lines, best
//     first, with `_score` (each list's normalised score) and `_relevance_score`
//     (query::ScanOptions::nearest + full_text, lance/query/hybrid.h).
// --explain prints the plan instead of running it, as scan / count do.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <fstream>
#include <optional>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/fts_query_json.h"
#include "lance/columnar/json.h"
#include "lance/dataset/dataset.h"
#include "lance/memwal/lsm_read.h"
#include "lance/query/lsm_nearest.h"
#include "lance/query/lsm_text_search.h"
#include "lance/query/nearest.h"

namespace lance::cli {
namespace {

struct SearchArgs {
  std::string uri;
  std::string column;  // vector search: "vector" when empty; text: the column with an FTS index
  std::string vector;
  // Full-text search.
  std::string text;
  std::string op = "or";
  bool phrase = false;
  uint32_t slop = 0;
  std::string query_json;  // --query: a query tree (cli/fts_query_json.h)
  uint32_t fuzziness = 0;
  size_t max_expansions = 50;
  uint32_t prefix_length = 0;
  std::string columns;
  bool with_row_id = false;
  size_t k = 10;
  size_t nprobes = 20;
  uint32_t refine_factor = 0;
  size_t ef = 0;
  std::string metric;
  bool bypass_index = false;
  bool explain = false;
  bool timing = false;
  std::string queries;
  std::string filter;
  bool postfilter = false;
  int threads = 0;
  // Hybrid search.
  std::string vector_column;
  std::string fusion = "rrf";
  float rrf_k = 60.0f;
  size_t repeat = 1;  // --timing of a text / hybrid search: runs of the query on the open table
  // A MemWAL table: strong (default) or eventual searches its LSM (query::LsmNearest,
  // query::LsmTextSearch), base the base table alone.
  std::string consistency;
};

double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
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

std::vector<std::string> SplitColumns(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = std::min(s.find(',', start), s.size());
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// The vector side of a search from its options (column `column`, default "vector"; the
// query vector is the caller's).
Result<query::NearestOptions> NearestOf(const SearchArgs& a, const std::string& column) {
  query::NearestOptions n;
  n.column = column.empty() ? "vector" : column;
  if (!a.metric.empty()) {
    LANCE_ASSIGN_OR_RAISE(n.metric, linalg::ParseDistanceType(a.metric));
  }
  n.use_index = !a.bypass_index;
  n.prefilter = !a.postfilter;
  n.k = a.k;
  n.nprobes = a.nprobes;
  if (a.refine_factor > 0) n.refine_factor = a.refine_factor;
  if (a.ef > 0) n.ef = a.ef;
  return n;
}

// `column` for every leaf of `q` that names none (as lancedb fills a query's missing column).
void FillFtsColumn(const std::string& column, query::FullTextQuery* q) {
  if (q->kind == query::FullTextQuery::Kind::kLeaf && q->columns.empty()) q->columns = {column};
  for (auto& c : q->children) FillFtsColumn(column, &c);
}

// The full-text query of the options (--text and its options, or --query), k set.
Result<query::FullTextQuery> TextQueryOf(const SearchArgs& a) {
  if (a.op != "or" && a.op != "and") {
    return Status::InvalidArgument("--operator takes or or and, got '{}'", a.op);
  }
  if (a.phrase && a.op == "and") {
    return Status::InvalidArgument("--phrase and --operator and do not combine");
  }
  if (a.phrase && a.fuzziness > 0) {
    return Status::InvalidArgument("--phrase and --fuzziness do not combine");
  }
  if (a.slop > 0 && !a.phrase) return Status::InvalidArgument("--slop is a --phrase option");
  if (!a.query_json.empty() && (!a.text.empty() || a.phrase || a.op != "or" || a.fuzziness > 0 ||
                                 a.max_expansions != 50 || a.prefix_length != 0)) {
    return Status::InvalidArgument("--query holds the whole query: --text, --phrase, --operator, --fuzziness, "
                                   "--max-expansions and --prefix-length do not combine with it");
  }
  query::FullTextQuery q;
  if (!a.query_json.empty()) {
    LANCE_ASSIGN_OR_RAISE(q, ParseFtsQueryJson(a.query_json));
    if (!a.column.empty()) FillFtsColumn(a.column, &q);
  } else {
    q.query = a.text;
    if (!a.column.empty()) q.columns = {a.column};
    q.and_operator = a.op == "and";
    q.phrase = a.phrase;
    q.slop = a.slop;
    q.fuzziness = a.fuzziness;
    q.max_expansions = a.max_expansions;
    q.prefix_length = a.prefix_length;
  }
  q.k = static_cast<int64_t>(a.k);
  return q;
}

Status RunTextSearch(const SearchArgs& a, std::optional<query::NearestOptions> nearest) {
  LANCE_ASSIGN_OR_RAISE(query::FullTextQuery q, TextQueryOf(a));
  const auto t0 = std::chrono::steady_clock::now();
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  const double open_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  query::ScanOptions o;
  o.columns = SplitColumns(a.columns);
  o.filter = a.filter;
  o.with_row_id = a.with_row_id;
  o.full_text = q;
  if (nearest) {
    o.nearest = std::move(nearest);
    o.fusion.rrf_k = a.rrf_k;
  }
  LANCE_ASSIGN_OR_RAISE(auto scanner, ds->NewScan(o));
  if (a.explain) {
    const std::string plan = scanner.Explain();
    std::fwrite(plan.data(), 1, plan.size(), stdout);
    return Status::OK();
  }
  LANCE_ASSIGN_OR_RAISE(auto batches, scanner.ToBatches());
  if (a.timing) {
    // the first run above is the cold one; then `repeat` warm runs, each planned and run
    std::vector<double> times;
    const double cpu0 = ProcessCpuMs();
    for (size_t r = 0; r < a.repeat; ++r) {
      const auto s0 = std::chrono::steady_clock::now();
      LANCE_ASSIGN_OR_RAISE(auto again, ds->NewScan(o));
      LANCE_ASSIGN_OR_RAISE(auto rows, again.ToBatches());
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
    }
    const double cpu = (ProcessCpuMs() - cpu0) / static_cast<double>(std::max<size_t>(1, a.repeat));
    std::sort(times.begin(), times.end());
    const auto pct = [&](double p) {
      return times.empty() ? 0.0 : times[std::min(times.size() - 1, static_cast<size_t>(p * static_cast<double>(times.size())))];
    };
    std::fprintf(stderr, "{\"queries\":%zu,\"open_ms\":%.3f,\"p50_ms\":%.4f,\"p99_ms\":%.4f,\"cpu_ms_per_query\":%.4f}\n",
                 times.size(), open_ms, pct(0.5), pct(0.99), cpu);
  }
  std::string text;
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &text));
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("stdout: write failed");
  }
  return Status::OK();
}

// Appends the JSON lines of `batches` to `out`; with --queries each line opens with the query
// (number `qi`) it answers.
Status AppendResultLines(const SearchArgs& a, size_t qi, const std::vector<RecordBatchPtr>& batches, std::string* out) {
  std::string rows;
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &rows));
  if (a.queries.empty()) {
    *out += rows;
    return Status::OK();
  }
  const std::string tag = "{\"query_index\":" + std::to_string(qi) + ",";
  for (size_t pos = 0; pos < rows.size();) {
    const size_t end = rows.find('\n', pos);
    *out += tag;
    out->append(rows, pos + 1, end - pos);
    pos = end + 1;
  }
  return Status::OK();
}

// The vector search of a MemWAL table's LSM (base + unmerged generations (+ the WAL tail at
// strong consistency), the newest row of each key): as lance 12's nearestTo over the table.
Status RunLsmSearch(const SearchArgs& a, const std::vector<std::vector<float>>& queries,
                    const std::string& column) {
  const char* base_only = nullptr;
  if (a.with_row_id) base_only = "--with-row-id";
  if (a.explain) base_only = "--explain";
  if (a.postfilter) base_only = "--postfilter";
  if (a.timing) base_only = "--timing";
  if (base_only) {
    return Status::InvalidArgument("{}: {} searches the base table alone, not the LSM's newest rows: add "
                                   "--consistency base", a.uri, base_only);
  }
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  memwal::LsmReadOptions o;
  o.consistency = a.consistency == "eventual" ? memwal::Consistency::kEventual : memwal::Consistency::kStrong;
  o.columns = SplitColumns(a.columns);
  o.filter = a.filter;
  o.use_index = !a.bypass_index;
  LANCE_ASSIGN_OR_RAISE(query::NearestOptions n, NearestOf(a, column));
  std::string out;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    n.query = queries[qi];
    LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, query::LsmNearest(w.store, w.path, o, n));
    LANCE_RETURN_NOT_OK(AppendResultLines(a, qi, batches, &out));
  }
  if (!out.empty() && std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) {
    return Status::IOError("stdout: write failed");
  }
  return Status::OK();
}

// The full-text search of a MemWAL table's LSM (base + unmerged generations (+ the WAL tail at
// strong consistency), each scored with its own statistics, the newest row of each key): as
// lance 12's fullTextSearch over the table (query::LsmTextSearch).
Status RunLsmTextSearch(const SearchArgs& a) {
  if (a.with_row_id) {
    return Status::InvalidArgument("{}: --with-row-id searches the base table alone, not the LSM's newest rows: add "
                                   "--consistency base", a.uri);
  }
  LANCE_ASSIGN_OR_RAISE(query::FullTextQuery q, TextQueryOf(a));
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  memwal::LsmReadOptions o;
  o.consistency = a.consistency == "eventual" ? memwal::Consistency::kEventual : memwal::Consistency::kStrong;
  o.columns = SplitColumns(a.columns);
  o.filter = a.filter;
  if (a.explain) {
    LANCE_ASSIGN_OR_RAISE(std::string plan, query::ExplainLsmTextSearch(w.store, w.path, o, q));
    std::fwrite(plan.data(), 1, plan.size(), stdout);
    return Status::OK();
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, query::LsmTextSearch(w.store, w.path, o, q));
  if (a.timing) {
    // `repeat` more runs after the first, each planned (shard manifests, WAL tail) and run
    std::vector<double> times;
    const double cpu0 = ProcessCpuMs();
    for (size_t r = 0; r < a.repeat; ++r) {
      const auto s0 = std::chrono::steady_clock::now();
      LANCE_ASSIGN_OR_RAISE(auto again, query::LsmTextSearch(w.store, w.path, o, q));
      times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
    }
    const double cpu = (ProcessCpuMs() - cpu0) / static_cast<double>(std::max<size_t>(1, a.repeat));
    std::sort(times.begin(), times.end());
    const auto pct = [&](double p) {
      return times.empty() ? 0.0 : times[std::min(times.size() - 1, static_cast<size_t>(p * static_cast<double>(times.size())))];
    };
    std::fprintf(stderr, "{\"queries\":%zu,\"p50_ms\":%.4f,\"p99_ms\":%.4f,\"cpu_ms_per_query\":%.4f}\n",
                 times.size(), pct(0.5), pct(0.99), cpu);
  }
  std::string text;
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &text));
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("stdout: write failed");
  }
  return Status::OK();
}

Status RunSearch(const SearchArgs& a) {
  if (a.fusion != "rrf") {
    return Status::InvalidArgument("--fusion takes rrf (lancedb's default reranker), got '{}'", a.fusion);
  }
  const bool text = !a.text.empty() || !a.query_json.empty();
  if (!a.consistency.empty() && a.consistency != "strong" && a.consistency != "eventual" &&
      a.consistency != "base") {
    return Status::InvalidArgument("--consistency is strong, eventual or base, not '{}'", a.consistency);
  }
  if (text && !a.vector.empty() && !a.consistency.empty() && a.consistency != "base") {
    return Status::InvalidArgument("search --text --vector (hybrid): --consistency {} is not supported (hybrid "
                                   "search reads the base table, as lancedb refuses it over the LSM)", a.consistency);
  }
  if (text && !a.vector.empty()) {
    if (!a.queries.empty()) {
      return Status::InvalidArgument("search --text --vector (hybrid): --queries does not apply");
    }
    LANCE_ASSIGN_OR_RAISE(std::vector<float> v, ParseVector(a.vector, "--vector"));
    std::string column = a.vector_column;
    if (column.empty()) {
      LANCE_ASSIGN_OR_RAISE(auto probe, dataset::Dataset::Open(a.uri));
      LANCE_ASSIGN_OR_RAISE(column, query::DefaultVectorColumn(*probe->snapshot()->schema(), v.size(), a.uri));
    }
    LANCE_ASSIGN_OR_RAISE(query::NearestOptions n, NearestOf(a, column));
    n.query = std::move(v);
    return RunTextSearch(a, std::move(n));
  }
  if (!a.vector_column.empty()) return Status::InvalidArgument("search: --vector-column is a hybrid (--text --vector) option");
  if (text) {
    if (!a.queries.empty()) {
      return Status::InvalidArgument("search: --text with --queries does not combine (hybrid search takes one "
                                     "--vector)");
    }
    if (a.bypass_index || a.postfilter || a.refine_factor > 0 || !a.metric.empty()) {
      return Status::InvalidArgument("search --text: --bypass-index, --postfilter, "
                                     "--refine-factor and --metric are vector options");
    }
    if (a.consistency != "base") {
      LANCE_ASSIGN_OR_RAISE(auto probe, dataset::Dataset::Open(a.uri));
      const bool memwal_table = memwal::ReadMemWalDetails(*probe->snapshot()).ok();
      if (!memwal_table && !a.consistency.empty()) {
        return Status::InvalidArgument("{}: --consistency {} searches a MemWAL table's LSM, and this table has "
                                       "none (`lance lsm enable` makes one)", a.uri, a.consistency);
      }
      if (memwal_table) return RunLsmTextSearch(a);
    }
    return RunTextSearch(a, std::nullopt);
  }
  if (a.op != "or" || a.phrase) {
    return Status::InvalidArgument("search: --operator and --phrase are --text options");
  }
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
    return Status::InvalidArgument("search: give --vector, --queries or --text");
  }
  if (!a.consistency.empty() && a.consistency != "strong" && a.consistency != "eventual" &&
      a.consistency != "base") {
    return Status::InvalidArgument("--consistency is strong, eventual or base, not '{}'", a.consistency);
  }
  // No --column: "vector", or the one vector column of the query's length (as lancedb infers it).
  std::string column = a.column;
  {
    LANCE_ASSIGN_OR_RAISE(auto probe, dataset::Dataset::Open(a.uri));
    if (column.empty() && !queries.empty()) {
      LANCE_ASSIGN_OR_RAISE(column,
                            query::DefaultVectorColumn(*probe->snapshot()->schema(), queries[0].size(), a.uri));
    }
    const bool memwal_table = memwal::ReadMemWalDetails(*probe->snapshot()).ok();
    if (!memwal_table && !a.consistency.empty() && a.consistency != "base") {
      return Status::InvalidArgument("{}: --consistency {} searches a MemWAL table's LSM, and this table has none "
                                     "(`lance lsm enable` makes one)", a.uri, a.consistency);
    }
    if (memwal_table && a.consistency != "base") return RunLsmSearch(a, queries, column);
  }
  LANCE_ASSIGN_OR_RAISE(query::NearestOptions base, NearestOf(a, column));
  const int threads =
      a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  LANCE_ASSIGN_OR_RAISE(auto pool, ThreadPool::Make(threads));
  dataset::OpenOptions open;
  open.pool = pool.get();
  const auto t0 = std::chrono::steady_clock::now();
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri, open));
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<double> times, cpu_times;
  // Process CPU time (every thread of the pool included), beside the wall time.
  const auto cpu_ms = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
  };
  const auto options_of = [&](size_t qi) {
    query::ScanOptions o;
    o.columns = SplitColumns(a.columns);
    o.with_row_id = a.with_row_id;
    o.filter = a.filter;
    o.nearest = base;
    o.nearest->query = queries[qi];
    return o;
  };
  std::string out;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    const auto s0 = std::chrono::steady_clock::now();
    const double c0 = cpu_ms();
    LANCE_ASSIGN_OR_RAISE(auto scanner, ds->NewScan(options_of(qi)));
    if (a.explain) {
      const std::string plan = scanner.Explain();
      std::fwrite(plan.data(), 1, plan.size(), stdout);
      return Status::OK();
    }
    LANCE_ASSIGN_OR_RAISE(auto batches, scanner.ToBatches());
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
    cpu_times.push_back(cpu_ms() - c0);
    LANCE_RETURN_NOT_OK(AppendResultLines(a, qi, batches, &out));
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (a.timing) {
    // warm_p50_ms: a second pass over the queries (output not printed), every index partition
    // they probe read by the first pass.
    std::vector<double> warm;
    for (size_t qi = 0; qi < queries.size(); ++qi) {
      const auto s0 = std::chrono::steady_clock::now();
      LANCE_ASSIGN_OR_RAISE(auto scanner, ds->NewScan(options_of(qi)));
      LANCE_ASSIGN_OR_RAISE(auto batches, scanner.ToBatches());
      warm.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s0).count());
    }
    double total = 0;
    for (double t : times) total += t;
    const auto pct = [](std::vector<double> v, double p) {
      std::sort(v.begin(), v.end());
      return v.empty() ? 0.0 : v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
    };
    // first_ms: the process's first query, which opens the index (and reads the partitions
    // it probes); p50 / p99 over every query, the first included.
    std::fprintf(stderr, "{\"queries\":%zu,\"open_ms\":%.3f,\"total_ms\":%.3f,\"first_ms\":%.4f,\"p50_ms\":%.4f,"
                 "\"p99_ms\":%.4f,\"cpu_p50_ms\":%.4f,\"warm_p50_ms\":%.4f}\n",
                 times.size(), std::chrono::duration<double, std::milli>(t1 - t0).count(), total,
                 times.empty() ? 0.0 : times.front(), pct(times, 0.5), pct(times, 0.99), pct(cpu_times, 0.5), pct(warm, 0.5));
  }
  return Status::OK();
}

}  // namespace

void RegisterSearchCommand(CLI::App& app, CommandRegistry& registry) {
  auto a = std::make_shared<SearchArgs>();
  auto* sub = app.add_subcommand(
      "search",
      "Vector (k nearest rows: --vector / --queries) or full-text (BM25: --text) search");
  sub->add_option("URI", a->uri, "dataset directory (path or URI)")->required();
  sub->add_option("--column", a->column,
                  "the column searched (vector: default \"vector\", else the one vector column of the "
                  "query's length; text: the column with an FTS index)");
  sub->add_option("--vector", a->vector, "vector search: the query, a JSON array of numbers");
  sub->add_option("--queries", a->queries,
                  "vector search: a file of queries, one JSON array per line: results carry "
                  "their query_index");
  sub->add_option("--text", a->text,
                  "full-text search: the query text (tokenized as the index tokenizes)");
  sub->add_flag("--timing", a->timing, "print per-query times (JSON) on stderr");
  sub->add_option("--repeat", a->repeat,
                  "text / hybrid with --timing: warm runs of the query after the first (default 1)");
  sub->add_option("-k", a->k, "rows to return (default 10)");
  sub->add_option("--nprobes", a->nprobes, "IVF partitions to search (default 20)");
  sub->add_option("--refine-factor", a->refine_factor,
                  "re-rank k x R index candidates with exact distances (default off)");
  sub->add_option("--ef", a->ef,
                  "HNSW indexes: results kept per partition graph search (default 1.5 x k x R)");
  sub->add_option("--metric", a->metric, "l2 | cosine | dot | hamming (uint8 vectors; default: the index's)");
  sub->add_flag("--bypass-index", a->bypass_index, "exact search even when an index exists");
  sub->add_option("--operator", a->op, "text: or (any token, default) | and (every token)");
  sub->add_flag("--phrase", a->phrase, "text: phrase query (the index needs positions)");
  sub->add_option("--slop", a->slop,
                  "text, phrase: each token may stand up to N positions past where the previous one puts it "
                  "(default 0: adjacent)");
  sub->add_option("--query", a->query_json,
                  "full-text search by a query tree, in lance's FtsQuery JSON (instead of --text): "
                  "{\"match\": {\"column\", \"terms\", \"boost\", \"fuzziness\", \"max_expansions\", "
                  "\"operator\": \"And\"|\"Or\", \"prefix_length\"}}, "
                  "{\"phrase\": {\"column\", \"terms\", \"slop\"}}, "
                  "{\"boost\": {\"positive\": Q, \"negative\": Q, \"negative_boost\": 0.5}}, "
                  "{\"multi_match\": {\"query\", \"columns\": [..], \"boost\": [..]}}, "
                  "{\"boolean\": {\"must\": [Q..], \"should\": [Q..], \"must_not\": [Q..]}}. "
                  "Example: --query '{\"boolean\": {\"must\": [{\"match\": {\"column\": \"body\", "
                  "\"terms\": \"lance\"}}], \"must_not\": [{\"phrase\": {\"column\": \"body\", "
                  "\"terms\": \"quick fox\", \"slop\": 1}}]}}' (--column fills leaves without one)");
  sub->add_option("--fuzziness", a->fuzziness,
                  "text: match index tokens within N edits of each query token (default 0: exact)");
  sub->add_option("--max-expansions", a->max_expansions, "text, fuzzy: at most N expanded tokens (default 50)");
  sub->add_option("--prefix-length", a->prefix_length,
                  "text, fuzzy: expanded tokens keep the first N bytes of the query token (default 0)");
  sub->add_option("--columns", a->columns,
                  "output columns a,b (default: all; _rowid may be one), then _distance (vector) or _score (text)");
  sub->add_flag("--with-row-id", a->with_row_id, "also print _rowid");
  sub->add_option("--filter", a->filter, "only rows where this condition holds (SQL-like)");
  sub->add_flag("--postfilter", a->postfilter,
                "filter the k index results (default: filter first, the index searches the rows that pass)");
  sub->add_flag("--explain", a->explain, "print the plan (which index answers, and how) instead of the rows");
  sub->add_option("--vector-column", a->vector_column,
                  "hybrid (--text with --vector): the vector column (default \"vector\", else the one "
                  "vector column of the query's length)");
  sub->add_option("--fusion", a->fusion, "hybrid: how the two lists are fused: rrf (default, lancedb's RRFReranker)");
  sub->add_option("--rrf-k", a->rrf_k, "hybrid: the reciprocal-rank fusion constant (default 60)");
  sub->add_option("--threads", a->threads, "threads of exact scans (default: hardware threads)");
  sub->add_option("--consistency", a->consistency,
                  "vector or text search of a MemWAL table: strong (default: base + flushed generations + the "
                  "unflushed WAL tail, newest row per key), eventual (without the WAL tail) or base (the base "
                  "table alone)");
  registry.OnRun(sub, [a] { return RunSearch(*a); });
}

}  // namespace lance::cli
