// Xapian as the full-text peer of bench/run_fts_bench.sh (Debian's libxapian-dev; never linked
// into the library).
//
//   xapian_fts_peer CORPUS QUERIES WORKDIR REPS K OUT.json
//
// Builds two glass databases over the corpus (document i+1 = id i; TermGenerator with the
// English Snowball stemmer, STEM_ALL: only stemmed terms indexed, as lance 12's default
// tokenizer keeps only stems): WORKDIR/nopos without positions (index_text_without_positions,
// like lance 12's default index) and WORKDIR/pos with them. A build is every add_document and
// the final commit, Xapian's default flush threshold (10000 documents; one batch of the whole
// corpus was 2.4x slower on 200k rows). Queries: QueryParser (same stemmer, STEM_ALL; default operator OR or AND; a
// phrase as "w1 w2" with FLAG_PHRASE, on pos), Enquire with BM25Weight(k1 1.2, k2 0, k3 1,
// b 0.75, min_normlen 0.5) -- lance 12's k1 and b --, get_mset(0, K), on databases opened
// read-only after the build.
#include <sys/stat.h>
#include <xapian.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "fts_peer_common.h"

namespace {

uint64_t DirBytes(const std::string& dir) {
  uint64_t n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) n += e.file_size();
  }
  return n;
}

void Build(const std::string& path, bool positions, const std::vector<std::string>& docs) {
  std::filesystem::remove_all(path);
  Xapian::WritableDatabase db(path, Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_BACKEND_GLASS);
  Xapian::TermGenerator tg;
  tg.set_stemmer(Xapian::Stem("english"));
  tg.set_stemming_strategy(Xapian::TermGenerator::STEM_ALL);
  for (const auto& text : docs) {
    Xapian::Document doc;
    tg.set_document(doc);
    if (positions) {
      tg.index_text(text);
    } else {
      tg.index_text_without_positions(text);
    }
    db.add_document(doc);
  }
  db.commit();
  db.close();
}

struct Reader {
  Xapian::Database db;
  Xapian::QueryParser qp;
  int k;
  Reader(const std::string& path, int k_) : db(path), k(k_) {
    qp.set_stemmer(Xapian::Stem("english"));
    qp.set_stemming_strategy(Xapian::QueryParser::STEM_ALL);
    qp.set_database(db);
  }
  fts_peer::Top Search(const fts_peer::Query& q) {
    qp.set_default_op(q.mode == "and" ? Xapian::Query::OP_AND : Xapian::Query::OP_OR);
    const std::string text = q.mode == "phrase" ? "\"" + q.text + "\"" : q.text;
    Xapian::Enquire enq(db);
    enq.set_query(qp.parse_query(text, Xapian::QueryParser::FLAG_PHRASE));
    enq.set_weighting_scheme(Xapian::BM25Weight(1.2, 0, 1, 0.75, 0.5));
    Xapian::MSet m = enq.get_mset(0, static_cast<Xapian::doccount>(k));
    fts_peer::Top top;
    for (auto it = m.begin(); it != m.end(); ++it) {
      top.ids.push_back(static_cast<int64_t>(*it) - 1);
      top.scores.push_back(it.get_weight());
    }
    return top;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: xapian_fts_peer CORPUS QUERIES WORKDIR REPS K OUT.json\n");
    return 2;
  }
  try {
    const auto docs = fts_peer::ReadLines(argv[1]);
    const auto queries = fts_peer::ReadQueries(argv[2]);
    const std::string dir = argv[3];
    const int reps = std::stoi(argv[4]), k = std::stoi(argv[5]);
    const auto nopos = fts_peer::TimeBuild([&] { Build(dir + "/nopos", false, docs); });
    const auto pos = fts_peer::TimeBuild([&] { Build(dir + "/pos", true, docs); });
    FILE* f = std::fopen(argv[6], "w");
    if (!f) throw std::runtime_error(std::string(argv[6]) + ": cannot write");
    std::fprintf(f, "{\"engine\":\"xapian %s\",\"k\":%d,\"reps\":%d,\"build\":{", Xapian::version_string(), k, reps);
    fts_peer::WriteBuild(f, "nopos", nopos, DirBytes(dir + "/nopos"), true);
    fts_peer::WriteBuild(f, "pos", pos, DirBytes(dir + "/pos"), false);
    std::fprintf(f, "},");
    Reader r_nopos(dir + "/nopos", k), r_pos(dir + "/pos", k);
    fts_peer::RunQueries(f, queries, reps, [&](const fts_peer::Query& q) {
      return (q.mode == "phrase" ? r_pos : r_nopos).Search(q);
    });
    std::fprintf(f, "}\n");
    std::fclose(f);
  } catch (const Xapian::Error& e) {
    std::fprintf(stderr, "xapian_fts_peer: %s\n", e.get_description().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xapian_fts_peer: %s\n", e.what());
    return 1;
  }
  return 0;
}
