// What the full-text peers of bench/run_fts_bench.sh (sqlite_fts5_peer.cc, xapian_fts_peer.cc)
// share: their inputs (the corpus, one document a line, line i = id i; the queries TSV
// `kind <TAB> or|and|phrase <TAB> text`), the timing loop (one untimed pass over a kind's
// queries, then `reps` timed passes; wall per call, process CPU per call) and the JSON they
// write, the same shape as lance_fts_bench's (bench/fts/fts_search_bench.cc). Compiled with
// each peer alone; never part of the library.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fts_peer {

struct Query {
  std::string kind, mode, text;
};

struct Top {
  std::vector<int64_t> ids;
  std::vector<double> scores;
};

struct BuildRun {
  double wall_ms = 0, cpu_ms = 0;
};

inline double CpuMs() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3) +
         (static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-3);
}

inline double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

inline std::vector<Query> ReadQueries(const std::string& path) {
  std::vector<Query> out;
  for (const auto& line : ReadLines(path)) {
    if (line.empty()) continue;
    const size_t a = line.find('\t');
    const size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (b == std::string::npos) throw std::runtime_error(path + ": expected kind<TAB>mode<TAB>text: " + line);
    out.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return out;
}

// Times `build` (wall and process CPU).
inline BuildRun TimeBuild(const std::function<void()>& build) {
  const double c0 = CpuMs(), t0 = NowMs();
  build();
  return {NowMs() - t0, CpuMs() - c0};
}

inline void WriteBuild(FILE* f, const char* key, const BuildRun& r, uint64_t bytes, bool comma) {
  std::fprintf(f, "\"%s\":{\"runs\":[{\"wall_ms\":%.3f,\"cpu_ms\":%.3f}],\"bytes\":%llu}%s", key, r.wall_ms,
               r.cpu_ms, static_cast<unsigned long long>(bytes), comma ? "," : "");
}

// Runs every kind's queries (an untimed pass, then `reps` timed ones) through `search` and
// writes "kinds" and "queries" (the caller has written the object's opening and "build").
inline void RunQueries(FILE* f, const std::vector<Query>& queries, int reps,
                       const std::function<Top(const Query&)>& search) {
  std::vector<std::string> kinds;
  for (const auto& q : queries) {
    if (std::find(kinds.begin(), kinds.end(), q.kind) == kinds.end()) kinds.push_back(q.kind);
  }
  std::vector<Top> tops(queries.size());
  std::vector<std::vector<double>> ms(queries.size());
  std::fprintf(f, "\"kinds\":{");
  for (size_t k = 0; k < kinds.size(); ++k) {
    std::vector<size_t> mine;
    for (size_t i = 0; i < queries.size(); ++i) {
      if (queries[i].kind == kinds[k]) mine.push_back(i);
    }
    for (size_t i : mine) tops[i] = search(queries[i]);
    const double c0 = CpuMs(), t0 = NowMs();
    for (int r = 0; r < reps; ++r) {
      for (size_t i : mine) {
        const double s = NowMs();
        search(queries[i]);
        ms[i].push_back(NowMs() - s);
      }
    }
    const double calls = static_cast<double>(std::max<size_t>(1, mine.size() * static_cast<size_t>(reps)));
    std::fprintf(f, "%s\"%s\":{\"cpu_ms_per_call\":%.4f,\"wall_ms_per_call\":%.4f}", k ? "," : "",
                 kinds[k].c_str(), (CpuMs() - c0) / calls, (NowMs() - t0) / calls);
  }
  std::fprintf(f, "},\"queries\":[");
  for (size_t i = 0; i < queries.size(); ++i) {
    const auto& q = queries[i];
    std::fprintf(f, "%s{\"kind\":\"%s\",\"mode\":\"%s\",\"text\":\"%s\",\"ids\":[", i ? "," : "", q.kind.c_str(),
                 q.mode.c_str(), q.text.c_str());
    for (size_t j = 0; j < tops[i].ids.size(); ++j) {
      std::fprintf(f, "%s%lld", j ? "," : "", static_cast<long long>(tops[i].ids[j]));
    }
    std::fprintf(f, "],\"scores\":[");
    for (size_t j = 0; j < tops[i].scores.size(); ++j) std::fprintf(f, "%s%.6g", j ? "," : "", tops[i].scores[j]);
    std::fprintf(f, "],\"ms\":[");
    for (size_t j = 0; j < ms[i].size(); ++j) std::fprintf(f, "%s%.4f", j ? "," : "", ms[i][j]);
    std::fprintf(f, "]}");
  }
  std::fprintf(f, "]");
}

}  // namespace fts_peer
