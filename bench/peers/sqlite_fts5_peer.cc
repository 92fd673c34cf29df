// SQLite FTS5 as the full-text peer of bench/run_fts_bench.sh (Debian's libsqlite3-dev; never
// linked into the library).
//
//   sqlite_fts5_peer CORPUS QUERIES WORKDIR REPS K OUT.json
//
// Builds two contentless FTS5 tables over the corpus (rowid = id; tokenize 'porter unicode61':
// lower-case, ASCII folding, Porter stemming, as near lance 12's default tokenizer as FTS5
// goes): WORKDIR/nopos.db with detail=none (no positions, like lance 12's default index) and
// WORKDIR/pos.db with detail=full (positions, FTS5's default). A build is the inserts in one
// transaction and the 'optimize' merge into one segment (what lance builds: one merged index),
// journal off. Every query runs on pos.db: detail=none keeps no term frequencies (bm25 counts a
// term once per row), so its rankings are not BM25's; nopos.db is built for the build row only.
// Queries: `SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT K` on a
// read-only connection with a page cache of 2 GiB and mmap; `w1 OR w2`, `w1 AND w2`, `"w1 w2"`.
// Scores reported as -bm25 (higher is better).
#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "fts_peer_common.h"

namespace {

void Check(int rc, sqlite3* db, const std::string& what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    throw std::runtime_error(what + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
}

void Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : "?";
    sqlite3_free(err);
    throw std::runtime_error(sql + ": " + msg);
  }
}

uint64_t FileBytes(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

void Build(const std::string& path, const char* detail, const std::vector<std::string>& docs) {
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  Check(sqlite3_open(path.c_str(), &db), db, path);
  Exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-1000000");
  Exec(db, std::string("CREATE VIRTUAL TABLE docs USING fts5(text, content='', detail=") + detail +
               ", tokenize='porter unicode61')");
  Exec(db, "BEGIN");
  sqlite3_stmt* ins = nullptr;
  Check(sqlite3_prepare_v2(db, "INSERT INTO docs(rowid, text) VALUES(?, ?)", -1, &ins, nullptr), db, "prepare");
  for (size_t i = 0; i < docs.size(); ++i) {
    sqlite3_bind_int64(ins, 1, static_cast<sqlite3_int64>(i));
    sqlite3_bind_text(ins, 2, docs[i].data(), static_cast<int>(docs[i].size()), SQLITE_STATIC);
    Check(sqlite3_step(ins), db, "insert");
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  Exec(db, "COMMIT");
  Exec(db, "INSERT INTO docs(docs) VALUES('optimize')");
  sqlite3_close(db);
}

struct Reader {
  sqlite3* db = nullptr;
  sqlite3_stmt* stmt = nullptr;
  explicit Reader(const std::string& path, int k) {
    Check(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), db, path);
    Exec(db, "PRAGMA cache_size=-2000000; PRAGMA mmap_size=4000000000");
    Check(sqlite3_prepare_v2(db,
                             ("SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ?1 ORDER BY rank LIMIT " +
                              std::to_string(k)).c_str(),
                             -1, &stmt, nullptr),
          db, "prepare query");
  }
  ~Reader() {
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }
  fts_peer::Top Search(const std::string& match) {
    fts_peer::Top top;
    sqlite3_bind_text(stmt, 1, match.data(), static_cast<int>(match.size()), SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      top.ids.push_back(sqlite3_column_int64(stmt, 0));
      top.scores.push_back(-sqlite3_column_double(stmt, 1));
    }
    Check(rc, db, "query " + match);
    sqlite3_reset(stmt);
    return top;
  }
};

std::string MatchExpr(const fts_peer::Query& q) {
  if (q.mode == "phrase") return "\"" + q.text + "\"";
  std::string out;
  size_t b = 0;
  for (size_t e; b <= q.text.size(); b = e + 1) {
    e = q.text.find(' ', b);
    if (e == std::string::npos) e = q.text.size();
    if (!out.empty()) out += q.mode == "and" ? " AND " : " OR ";
    out += q.text.substr(b, e - b);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: sqlite_fts5_peer CORPUS QUERIES WORKDIR REPS K OUT.json\n");
    return 2;
  }
  try {
    const auto docs = fts_peer::ReadLines(argv[1]);
    const auto queries = fts_peer::ReadQueries(argv[2]);
    const std::string dir = argv[3];
    const int reps = std::stoi(argv[4]), k = std::stoi(argv[5]);
    const auto nopos = fts_peer::TimeBuild([&] { Build(dir + "/nopos.db", "none", docs); });
    const auto pos = fts_peer::TimeBuild([&] { Build(dir + "/pos.db", "full", docs); });
    FILE* f = std::fopen(argv[6], "w");
    if (!f) throw std::runtime_error(std::string(argv[6]) + ": cannot write");
    std::fprintf(f, "{\"engine\":\"sqlite-fts5 %s\",\"k\":%d,\"reps\":%d,\"build\":{", sqlite3_libversion(), k, reps);
    fts_peer::WriteBuild(f, "nopos", nopos, FileBytes(dir + "/nopos.db"), true);
    fts_peer::WriteBuild(f, "pos", pos, FileBytes(dir + "/pos.db"), false);
    std::fprintf(f, "},");
    Reader r_pos(dir + "/pos.db", k);
    fts_peer::RunQueries(f, queries, reps, [&](const fts_peer::Query& q) {
      return r_pos.Search(MatchExpr(q));
    });
    std::fprintf(f, "}\n");
    std::fclose(f);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sqlite_fts5_peer: %s\n", e.what());
    return 1;
  }
  return 0;
}
