// Our side of bench/run_fts_bench.sh: full-text index builds and BM25 queries in process,
// through the public C++ API, as an engine embedding lance-cpp would run them.
//
//   lance_fts_bench --nopos URI --pos URI --queries FILE --out FILE [--build] [--build-reps 1]
//                   [--reps 5] [--k 10]
//
//   --nopos / --pos  tables with a utf8 `text` column: the term queries run on --nopos, the
//                    phrase queries on --pos
//   --build          first build INVERTED(text) on both (Dataset::CreateScalarIndex on an open
//                    Dataset, lance 12's default tokenizer; with positions on --pos), replacing
//                    the index --build-reps times: wall and process CPU of each build, and the
//                    bytes of the last one's files (_indices/<uuid>/). Without --build the
//                    tables' own indexes are searched (e.g. the ones lance 12 built).
//   --queries        TSV lines `kind <TAB> or|and|phrase <TAB> text`
//   --reps           timed passes over each kind's queries after one untimed pass
//   --threads        the Datasets' pool: N worker threads (0: everything on the caller);
//                    default ThreadPool::Default(), one per core, as lance 12 uses its CPU pool
//
// Each query: Dataset::NewScan({columns: id, full_text: match(text, column text, OR / AND) or
// phrase}) then Scanner::ToBatches(), planned and run each time on one open Dataset (its index
// cache warm after the untimed pass, as an open lancedb table after its first query). Output
// (JSON): per build wall / CPU ms and bytes; per query its kind, mode, text, the top-k ids and
// scores (float32) of the untimed pass and the wall ms of every timed call; per kind the
// process CPU ms per call (getrusage: every thread) and the wall ms of the kind's timed passes.
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lance/columnar/array.h"
#include "lance/core/thread_pool.h"
#include "lance/dataset/dataset.h"
#include "lance/index/scalar/create.h"
#include "lance/query/scanner.h"
#include "lance/query/text_search.h"
#include "process_cpu.h"

namespace {

using lance::Result;
using lance::Status;
using lance::bench::ProcessCpuSeconds;
using Clock = std::chrono::steady_clock;

struct Query {
  std::string kind, mode, text;
};

struct Args {
  std::string nopos, pos, queries, out;
  bool build = false;
  int build_reps = 1;
  int reps = 5;
  int64_t k = 10;
  int threads = -1;  // -1: the default pool (one thread per core)
};

// The pool the Datasets run on (--threads; null: ThreadPool::Default()).
lance::ThreadPool* BenchPool(int threads) {
  static std::unique_ptr<lance::ThreadPool> pool;
  if (threads < 0) return nullptr;
  if (!pool) pool = std::move(lance::ThreadPool::Make(threads)).ValueOrDie();
  return pool.get();
}

lance::dataset::OpenOptions OpenWith(int threads) {
  lance::dataset::OpenOptions o;
  o.pool = BenchPool(threads);
  return o;
}

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

Result<std::vector<Query>> ReadQueries(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("{}: cannot open the queries file", path);
  std::vector<Query> out;
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    const size_t a = line.find('\t');
    const size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (b == std::string::npos) {
      return Status::InvalidArgument("{}:{}: expected `kind<TAB>mode<TAB>text`", path, line_no);
    }
    Query q{line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)};
    if (q.mode != "or" && q.mode != "and" && q.mode != "phrase") {
      return Status::InvalidArgument("{}:{}: mode '{}', expected or, and or phrase", path, line_no, q.mode);
    }
    out.push_back(std::move(q));
  }
  return out;
}

uint64_t DirBytes(const std::filesystem::path& dir) {
  uint64_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) n += e.file_size();
  }
  return n;
}

Result<nlohmann::json> Build(const std::string& uri, bool with_position, int reps, int threads) {
  LANCE_ASSIGN_OR_RAISE(auto ds, lance::dataset::Dataset::Open(uri, OpenWith(threads)));
  lance::index::scalar::CreateScalarIndexOptions o;
  o.type = lance::index::scalar::ScalarIndexType::kInverted;
  o.fts.with_position = with_position;
  o.replace = true;
  nlohmann::json runs = nlohmann::json::array();
  std::string uuid;
  uint64_t rows = 0;
  for (int r = 0; r < reps; ++r) {
    const double cpu0 = ProcessCpuSeconds();
    const auto t0 = Clock::now();
    LANCE_ASSIGN_OR_RAISE(auto created, ds->CreateScalarIndex("text", o));
    const double wall = MsSince(t0);
    runs.push_back({{"wall_ms", wall}, {"cpu_ms", (ProcessCpuSeconds() - cpu0) * 1e3}});
    uuid = created.info.uuid;
    rows = created.num_indexed_rows;
  }
  return nlohmann::json{{"runs", runs},
                        {"rows", rows},
                        {"bytes", DirBytes(std::filesystem::path(uri) / "_indices" / uuid)}};
}

lance::query::FullTextQuery MakeQuery(const Query& q, int64_t k) {
  lance::query::FullTextQuery f = q.mode == "phrase" ? lance::query::FullTextQuery::Phrase(q.text, "text")
                                                     : lance::query::FullTextQuery::Match(q.text, "text", q.mode == "and");
  f.k = k;
  return f;
}

struct Top {
  std::vector<int64_t> ids;
  std::vector<float> scores;
};

Result<Top> RunOnce(const lance::dataset::Dataset& ds, const lance::query::FullTextQuery& f) {
  lance::query::ScanOptions o;
  o.columns = {"id"};
  o.full_text = f;
  LANCE_ASSIGN_OR_RAISE(auto scanner, ds.NewScan(o));
  LANCE_ASSIGN_OR_RAISE(auto batches, scanner.ToBatches());
  Top top;
  for (const auto& b : batches) {
    const auto id = b->GetColumnByName("id");
    const auto score = b->GetColumnByName(lance::query::kScoreColumn);
    if (!id || !score) return Status::Internal("full-text search output lacks id or _score");
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      top.ids.push_back(id->Values<int64_t>()[i]);
      top.scores.push_back(score->Values<float>()[i]);
    }
  }
  return top;
}

Status Main(const Args& a) {
  nlohmann::json out;
  out["k"] = a.k;
  out["reps"] = a.reps;
  if (a.build) {
    LANCE_ASSIGN_OR_RAISE(out["build"]["nopos"], Build(a.nopos, false, a.build_reps, a.threads));
    LANCE_ASSIGN_OR_RAISE(out["build"]["pos"], Build(a.pos, true, a.build_reps, a.threads));
  }
  LANCE_ASSIGN_OR_RAISE(auto queries, ReadQueries(a.queries));
  LANCE_ASSIGN_OR_RAISE(auto nopos, lance::dataset::Dataset::Open(a.nopos, OpenWith(a.threads)));
  LANCE_ASSIGN_OR_RAISE(auto pos, lance::dataset::Dataset::Open(a.pos, OpenWith(a.threads)));
  std::vector<std::string> kinds;
  for (const auto& q : queries) {
    if (std::find(kinds.begin(), kinds.end(), q.kind) == kinds.end()) kinds.push_back(q.kind);
  }
  nlohmann::json results = nlohmann::json::array();
  for (const auto& kind : kinds) {
    std::vector<size_t> mine;
    for (size_t i = 0; i < queries.size(); ++i) {
      if (queries[i].kind == kind) mine.push_back(i);
    }
    std::vector<nlohmann::json> rows;
    for (size_t i : mine) {
      const auto& q = queries[i];
      const auto& ds = q.mode == "phrase" ? *pos : *nopos;
      const auto t0 = Clock::now();
      LANCE_ASSIGN_OR_RAISE(Top top, RunOnce(ds, MakeQuery(q, a.k)));
      rows.push_back({{"kind", q.kind}, {"mode", q.mode}, {"text", q.text}, {"first_ms", MsSince(t0)},
                      {"ids", top.ids}, {"scores", top.scores}, {"ms", nlohmann::json::array()}});
    }
    const double cpu0 = ProcessCpuSeconds();
    const auto pass0 = Clock::now();
    for (int r = 0; r < a.reps; ++r) {
      for (size_t j = 0; j < mine.size(); ++j) {
        const auto& q = queries[mine[j]];
        const auto& ds = q.mode == "phrase" ? *pos : *nopos;
        const auto f = MakeQuery(q, a.k);
        const auto t0 = Clock::now();
        LANCE_ASSIGN_OR_RAISE(Top top, RunOnce(ds, f));
        rows[j]["ms"].push_back(MsSince(t0));
        if (top.ids != rows[j]["ids"].get<std::vector<int64_t>>()) {
          return Status::Internal("query '{}' ({}) returned other rows on a later run", q.text, q.kind);
        }
      }
    }
    const double calls = static_cast<double>(std::max<size_t>(1, mine.size() * static_cast<size_t>(a.reps)));
    out["kinds"][kind] = {{"cpu_ms_per_call", (ProcessCpuSeconds() - cpu0) * 1e3 / calls},
                          {"wall_ms_per_call", MsSince(pass0) / calls}};
    for (auto& r : rows) results.push_back(std::move(r));
  }
  out["queries"] = std::move(results);
  std::ofstream f(a.out);
  f << out.dump() << "\n";
  if (!f) return Status::IOError("{}: write failed", a.out);
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", k.c_str());
        exit(2);
      }
      return argv[++i];
    };
    if (k == "--nopos") a.nopos = value();
    else if (k == "--pos") a.pos = value();
    else if (k == "--queries") a.queries = value();
    else if (k == "--out") a.out = value();
    else if (k == "--build") a.build = true;
    else if (k == "--build-reps") a.build_reps = std::stoi(value());
    else if (k == "--reps") a.reps = std::stoi(value());
    else if (k == "--k") a.k = std::stoll(value());
    else if (k == "--threads") a.threads = std::stoi(value());
    else {
      fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (a.nopos.empty() || a.pos.empty() || a.queries.empty() || a.out.empty()) {
    fprintf(stderr, "usage: lance_fts_bench --nopos URI --pos URI --queries FILE --out FILE [--build] "
                    "[--build-reps N] [--reps N] [--k N] [--threads N]\n");
    return 2;
  }
  const Status st = Main(a);
  if (!st.ok()) {
    fprintf(stderr, "lance_fts_bench: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
