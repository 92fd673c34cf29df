// The indexes-and-search step of `lance demo` (demo_search.h): a table of documents gets a
// BTREE, a BITMAP, an INVERTED (BM25) and an IVF_HNSW_SQ index. The filter and the k-NN search
// are answered through their indexes and checked against the same query answered without them;
// the BM25 results are checked best first, each holding a query word; a hybrid search fuses the
// two; an FM index answers a substring filter; documents appended later are indexed by
// optimizing the indexes; a compaction after deletions keeps the indexes covering the rows.
#include "cli/demo_search.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/columnar/json.h"
#include "lance/dataset/dataset.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/create.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/query/planner.h"
#include "lance/query/scanner.h"

namespace lance::cli {
namespace {

constexpr int64_t kDocs = 20000;
constexpr int kDim = 16;
const char* const kWords[] = {"lance", "columnar", "vector", "search", "quick", "brown", "fox",
                              "lazy", "dog", "index", "table", "version", "fragment", "storage"};

SchemaPtr DocSchema() {
  return schema({field("id", int64(), false), field("category", utf8()), field("body", utf8()),
                 field("vec", fixed_size_list(float32(), kDim))});
}

// Deterministic documents: 20 categories, 4-9 words from a small vocabulary, and vectors in 32
// clusters (cluster centre + small noise) so that an IVF index has structure to find.
// Documents [first, first + n) (the first kDocs are the table, more are appended later).
Result<RecordBatchPtr> Docs(int64_t first = 0, int64_t n = kDocs) {
  uint32_t state = 0x2545F491u ^ static_cast<uint32_t>(first);
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  std::string json = "[";
  for (int64_t i = first; i < first + n; ++i) {
    std::string body;
    const int words = 4 + static_cast<int>(next() % 6);
    for (int w = 0; w < words; ++w) {
      body += (w ? " " : "") + std::string(kWords[next() % std::size(kWords)]);
    }
    std::string vec;
    const uint32_t cluster = next() % 32;
    for (int d = 0; d < kDim; ++d) {
      const double centre = std::sin(static_cast<double>(cluster * kDim + d)) * 4.0;
      const double noise = (static_cast<double>(next() % 1000) - 500.0) / 1000.0;
      vec += fmt::format("{}{:.4f}", d ? "," : "", centre + noise);
    }
    json += fmt::format("{}{{\"id\":{},\"category\":\"c{}\",\"body\":\"{}\",\"vec\":[{}]}}", i != first ? "," : "", i,
                        next() % 20, body, vec);
  }
  json += "]";
  return RecordBatchFromJSON(DocSchema(), json);
}

Status Check(bool ok, const std::string& what) {
  return ok ? Status::OK() : Status::Internal("demo: {}", what);
}

// The uint64 / float / int64 values of column `c` of every batch.
template <typename T>
std::vector<T> ColumnValues(const std::vector<RecordBatchPtr>& batches, int c) {
  std::vector<T> out;
  for (const auto& b : batches) {
    const T* v = b->column(c)->Values<T>();
    out.insert(out.end(), v, v + b->num_rows());
  }
  return out;
}

// The `k` nearest rows to row `row`'s vector (of `docs`), probing 4 partitions.
query::NearestOptions NearRow(const RecordBatch& docs, int64_t row, int k) {
  const float* all = docs.column(3)->children[0]->Values<float>();
  query::NearestOptions n;
  n.column = "vec";
  n.query.assign(all + row * kDim, all + (row + 1) * kDim);
  n.k = k;
  n.nprobes = 4;
  return n;
}

// `filter` counted through the indexes (its plan naming `planned_on`) and by a scan without
// them: the counts must agree. Returns the count.
Result<uint64_t> CountBothWays(const dataset::Dataset& ds, const std::string& filter, const std::string& planned_on) {
  query::ScanOptions o;
  o.filter = filter;
  LANCE_ASSIGN_OR_RAISE(auto indexed, ds.NewScan(o));
  LANCE_RETURN_NOT_OK(Check(indexed.Explain().find(planned_on) != std::string::npos,
                            "the filter '" + filter + "' was not planned on " + planned_on + ":\n" + indexed.Explain()));
  LANCE_ASSIGN_OR_RAISE(uint64_t n, indexed.CountRows());
  o.use_index = false;
  LANCE_ASSIGN_OR_RAISE(auto scanned, ds.NewScan(o));
  LANCE_ASSIGN_OR_RAISE(uint64_t want, scanned.CountRows());
  LANCE_RETURN_NOT_OK(Check(n == want, fmt::format("'{}': {} rows through the indexes, {} scanned", filter, n, want)));
  return n;
}

// The filter counted through the scalar indexes and without them: the counts must agree.
Status FilterDemo(const dataset::Dataset& ds, const std::string& filter) {
  LANCE_ASSIGN_OR_RAISE(uint64_t n, CountBothWays(ds, filter, "ScalarIndexLookup"));
  std::printf("filter %s: %llu rows through BTREE + BITMAP (a scan agrees)\n", filter.c_str(),
              static_cast<unsigned long long>(n));
  return Status::OK();
}

// Documents appended after the indexes are built: a filter scans their fragment beside the
// index lookups until `lance index optimize` retrains each scalar index with them and merges
// them into the vector index's partitions (its HNSW graphs built anew).
Status OptimizeDemo(dataset::Dataset& ds, const std::string& filter) {
  LANCE_ASSIGN_OR_RAISE(auto more, Docs(kDocs, 2000));
  VectorRecordBatchReader input(DocSchema(), {more});
  LANCE_ASSIGN_OR_RAISE(auto appended, ds.Append(input));
  query::ScanOptions o;
  o.filter = filter;
  LANCE_ASSIGN_OR_RAISE(auto before, ds.NewScan(o));
  LANCE_RETURN_NOT_OK(Check(before.Explain().find("FragmentScan") != std::string::npos,
                            "the appended fragment was not scanned beside the indexes:\n" + before.Explain()));
  std::printf("v%llu append: 2000 documents, not yet indexed (scanned beside the index lookups)\n",
              static_cast<unsigned long long>(appended.commit.version));
  LANCE_ASSIGN_OR_RAISE(auto results, ds.OptimizeIndices());
  std::printf("index optimize:");
  for (const auto& r : results) {
    std::printf(" %s (%s) %s%s", r.name.c_str(), r.type.c_str(), dataset::OutcomeName(r.outcome),
                &r == &results.back() ? "\n" : ";");
  }
  LANCE_ASSIGN_OR_RAISE(auto after, ds.NewScan(o));
  LANCE_RETURN_NOT_OK(Check(after.Explain().find("FragmentScan") == std::string::npos,
                            "after optimize a fragment is still scanned:\n" + after.Explain()));
  LANCE_ASSIGN_OR_RAISE(uint64_t n, CountBothWays(ds, filter, "ScalarIndexLookup"));
  std::printf("filter %s: %llu rows, every fragment through the indexes now (a scan agrees)\n", filter.c_str(),
              static_cast<unsigned long long>(n));
  return Status::OK();
}

// The 10 nearest rows to row `row`'s vector through IVF_HNSW_SQ, and exactly: the row itself
// comes first, and the recall of the index against the exact answer is printed.
Status VectorDemo(const dataset::Dataset& ds, const RecordBatch& docs, int64_t row) {
  const query::NearestOptions n = NearRow(docs, row, 10);
  query::ScanOptions o;
  o.columns = {"id"};
  o.nearest = n;
  LANCE_ASSIGN_OR_RAISE(auto ann, ds.NewScan(o));
  LANCE_RETURN_NOT_OK(Check(ann.Explain().find("ANN over index vec_idx") != std::string::npos,
                            "the search was not planned on the vector index:\n" + ann.Explain()));
  LANCE_ASSIGN_OR_RAISE(auto got, ann.ToBatches());
  o.nearest->use_index = false;
  LANCE_ASSIGN_OR_RAISE(auto exact_scan, ds.NewScan(o));
  LANCE_ASSIGN_OR_RAISE(auto exact, exact_scan.ToBatches());
  const std::vector<int64_t> ids = ColumnValues<int64_t>(got, 0);
  const std::vector<float> dist = ColumnValues<float>(got, 1);
  const std::vector<int64_t> want = ColumnValues<int64_t>(exact, 0);
  LANCE_RETURN_NOT_OK(Check(ids.size() == 10 && want.size() == 10, "the searches did not return 10 rows"));
  LANCE_RETURN_NOT_OK(Check(ids[0] == row && dist[0] == 0.0f,
                            fmt::format("the nearest row to row {}'s vector is row {} at {}", row, ids[0], dist[0])));
  const std::set<int64_t> truth(want.begin(), want.end());
  size_t hits = 0;
  for (int64_t id : ids) hits += truth.count(id);
  std::printf("nearest 10 to row %lld's vector (IVF_HNSW_SQ, nprobes 4): ids", static_cast<long long>(row));
  for (size_t i = 0; i < 5; ++i) std::printf(" %lld (%.3f)", static_cast<long long>(ids[i]), dist[i]);
  std::printf(" ...; recall@10 against exact search %zu/10\n", hits);
  return Status::OK();
}

// BM25 search through the INVERTED index: the best rows, best first, each holding a query word.
Status TextDemo(const dataset::Dataset& ds, const std::string& text) {
  query::FullTextQuery q;
  q.query = text;
  q.k = 5;
  query::ScanOptions o;
  o.columns = {"id", "body"};
  o.full_text = q;
  LANCE_ASSIGN_OR_RAISE(auto scan, ds.NewScan(o));
  LANCE_ASSIGN_OR_RAISE(auto batches, scan.ToBatches());
  std::printf("full-text '%s' (BM25 over the INVERTED index), best 5:\n", text.c_str());
  float last = INFINITY;
  int64_t rows = 0;
  for (const auto& b : batches) {
    const int64_t* ids = b->column(0)->Values<int64_t>();
    const float* score = b->column(2)->Values<float>();
    for (int64_t i = 0; i < b->num_rows(); ++i, ++rows) {
      const std::string body(b->column(1)->GetView(i));
      LANCE_RETURN_NOT_OK(Check(score[i] <= last, "full-text results are not best first"));
      LANCE_RETURN_NOT_OK(Check(body.find("quick") != std::string::npos || body.find("fox") != std::string::npos,
                                fmt::format("row {} ('{}') holds no query word", ids[i], body)));
      last = score[i];
      std::printf("  id %lld score %.3f: %s\n", static_cast<long long>(ids[i]), score[i], body.c_str());
    }
  }
  return Check(rows == 5, fmt::format("full-text search returned {} rows, expected 5", rows));
}

// Substring search through an FM index: `contains(body, needle)` answered by backward search
// over the index's BWT (a needle may span words), counted against a scan without the index.
Status SubstringDemo(dataset::Dataset& ds, const std::string& needle) {
  index::scalar::CreateScalarIndexOptions fm;
  fm.type = index::scalar::ScalarIndexType::kFm;
  fm.name = "body_fm";
  LANCE_ASSIGN_OR_RAISE(auto made, ds.CreateScalarIndex("body", fm));
  const std::string filter = fmt::format("contains(body, '{}')", needle);
  LANCE_ASSIGN_OR_RAISE(uint64_t n, CountBothWays(ds, filter, "@body_fm(FM)"));
  LANCE_RETURN_NOT_OK(Check(n > 0, "'" + filter + "' matched no row"));
  std::printf("v%llu FM index body_fm; substring %s: %llu rows through it (a scan agrees)\n",
              static_cast<unsigned long long>(made.version), filter.c_str(), static_cast<unsigned long long>(n));
  return Status::OK();
}

// Hybrid search: the 5 nearest rows to row `row`'s vector and the 5 best BM25 rows for `text`,
// fused by reciprocal-rank fusion into one ranking (lancedb's default reranker); every fused
// row comes from one of the two lists, best `_relevance_score` first.
Status HybridDemo(const dataset::Dataset& ds, const RecordBatch& docs, int64_t row, const std::string& text) {
  const query::NearestOptions n = NearRow(docs, row, 5);
  query::FullTextQuery q;
  q.query = text;
  q.k = 5;
  query::ScanOptions o;
  o.columns = {"id"};
  std::set<int64_t> either;
  for (int side = 0; side < 2; ++side) {
    query::ScanOptions one = o;
    if (side == 0) one.nearest = n;
    if (side == 1) one.full_text = q;
    LANCE_ASSIGN_OR_RAISE(auto scan, ds.NewScan(one));
    LANCE_ASSIGN_OR_RAISE(auto got, scan.ToBatches());
    for (int64_t id : ColumnValues<int64_t>(got, 0)) either.insert(id);
  }
  o.nearest = n;
  o.full_text = q;
  LANCE_ASSIGN_OR_RAISE(auto scan, ds.NewScan(o));
  LANCE_ASSIGN_OR_RAISE(auto got, scan.ToBatches());
  LANCE_RETURN_NOT_OK(Check(!got.empty() && got[0]->num_columns() == 3, "the hybrid search returned no batch of "
                                                                        "id, _score, _relevance_score"));
  const std::vector<int64_t> ids = ColumnValues<int64_t>(got, 0);
  const std::vector<float> relevance = ColumnValues<float>(got, 2);
  LANCE_RETURN_NOT_OK(Check(ids.size() == 5, fmt::format("the hybrid search returned {} rows, expected 5", ids.size())));
  std::printf("hybrid: row %lld's vector + '%s', fused by RRF (k = 60):", static_cast<long long>(row), text.c_str());
  for (size_t i = 0; i < ids.size(); ++i) {
    LANCE_RETURN_NOT_OK(Check(either.count(ids[i]) != 0, fmt::format("fused row {} is in neither list", ids[i])));
    LANCE_RETURN_NOT_OK(Check(i == 0 || relevance[i] <= relevance[i - 1], "hybrid results are not best first"));
    std::printf(" %lld (%.4f)", static_cast<long long>(ids[i]), relevance[i]);
  }
  std::printf("\n");
  return Status::OK();
}

// Deletes a tenth of the documents and compacts: the rewritten fragments' rows move, and each
// index is remapped to their new addresses (or trained again) in the same commit; the filter
// through the indexes still agrees with a scan. Prints what each index covers afterwards.
Status CompactDemo(dataset::Dataset& ds, const std::string& filter) {
  LANCE_ASSIGN_OR_RAISE(auto deleted, ds.Delete("id % 10 = 3"));
  dataset::CompactionOptions co;
  LANCE_ASSIGN_OR_RAISE(auto compacted, ds.Compact(co));
  std::printf("v%llu delete id %% 10 = 3, v%llu compact: %llu fragments -> %llu, %llu rows rewritten; indexes:",
              static_cast<unsigned long long>(deleted.commit.version),
              static_cast<unsigned long long>(compacted.commit.version),
              static_cast<unsigned long long>(compacted.fragments_removed),
              static_cast<unsigned long long>(compacted.fragments_added),
              static_cast<unsigned long long>(compacted.rows_rewritten));
  const table::Manifest& m = ds.snapshot()->manifest();
  std::set<std::string> names;
  for (const auto& x : m.indices) names.insert(x.name);
  for (const auto& name : names) {
    const auto segments = index::FindIndexSegments(m, name);
    if (segments.empty()) continue;  // a system index
    LANCE_ASSIGN_OR_RAISE(auto coverage, index::CoverageOf(m, segments, name, ds.location().display()));
    if (coverage.unindexed.empty()) {
      std::printf(" %s every row;", name.c_str());
    } else {
      std::printf(" %s %zu of %zu fragments (the rest scanned);", name.c_str(),
                  coverage.live.size() - coverage.unindexed.size(), coverage.live.size());
    }
  }
  std::printf("\n");
  return FilterDemo(ds, filter);
}

}  // namespace

Status RunSearchDemo(const std::string& dir) {
  const std::string uri = dir + "/docs.lance";
  std::printf("\n== indexes and search: %s\n", uri.c_str());
  LANCE_ASSIGN_OR_RAISE(auto docs, Docs());
  VectorRecordBatchReader input(DocSchema(), {docs});
  table::WriteParams create;
  create.mode = table::WriteMode::kCreate;
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Write(uri, input, create));
  std::printf("created: %lld documents (id, category, body, 16-d vec)\n", static_cast<long long>(kDocs));

  index::scalar::CreateScalarIndexOptions btree;
  LANCE_ASSIGN_OR_RAISE(auto b, ds->CreateScalarIndex("id", btree));
  index::scalar::CreateScalarIndexOptions bitmap;
  bitmap.type = index::scalar::ScalarIndexType::kBitmap;
  LANCE_ASSIGN_OR_RAISE(auto c, ds->CreateScalarIndex("category", bitmap));
  index::scalar::CreateScalarIndexOptions fts;
  fts.type = index::scalar::ScalarIndexType::kInverted;
  LANCE_ASSIGN_OR_RAISE(auto t, ds->CreateScalarIndex("body", fts));
  index::vector::IvfBuildOptions ivf;
  ivf.kind = index::vector::IndexKind::kIvfHnswSq;
  ivf.num_partitions = 16;
  LANCE_ASSIGN_OR_RAISE(auto v, ds->CreateVectorIndex("vec", ivf));
  std::printf("indexes: %s (BTREE, v%llu), %s (BITMAP, v%llu), %s (INVERTED, v%llu), %s (IVF_HNSW_SQ, v%llu)\n",
              b.info.name.c_str(), static_cast<unsigned long long>(b.version), c.info.name.c_str(),
              static_cast<unsigned long long>(c.version), t.info.name.c_str(),
              static_cast<unsigned long long>(t.version), v.name.c_str(), static_cast<unsigned long long>(v.version));

  LANCE_RETURN_NOT_OK(FilterDemo(*ds, "id BETWEEN 1000 AND 4999 AND category = 'c7'"));
  LANCE_RETURN_NOT_OK(VectorDemo(*ds, *docs, 1234));
  LANCE_RETURN_NOT_OK(TextDemo(*ds, "quick fox"));
  LANCE_RETURN_NOT_OK(HybridDemo(*ds, *docs, 1234, "quick fox"));
  LANCE_RETURN_NOT_OK(SubstringDemo(*ds, "own fox"));
  LANCE_RETURN_NOT_OK(OptimizeDemo(*ds, "id BETWEEN 1000 AND 20999 AND category = 'c7'"));
  return CompactDemo(*ds, "id BETWEEN 1000 AND 20999 AND category = 'c7'");
}

}  // namespace lance::cli
