#include "lance/query/text_search.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/index/fts/inverted_index.h"
#include "lance/index/fts/tokenizer.h"
#include "lance/index/index_metadata.h"
#include "lance/query/scanner.h"
#include "lance/table/feature_flags.h"

namespace lance::query {

namespace {

// The tokenizer lance 12 searches a column without an index with: the simple base tokenizer
// and no filter at all (case kept, no stemming, stop words, folding or length limit), with
// positions (phrases work).
index::fts::TokenizerOptions FlatSearchOptions() {
  index::fts::TokenizerOptions o = index::fts::TokenizerOptions::Defaults("simple");
  o.lower_case = false;
  o.stem = false;
  o.remove_stop_words = false;
  o.ascii_folding = false;
  o.max_token_length.reset();
  o.with_position = true;
  return o;
}

bool IsInverted(const table::IndexInfo& info) {
  return std::string_view(info.details_type_url).ends_with(".InvertedIndexDetails");
}

// The query's tokens (lance 12 tokenizes a query as the index tokenizes documents) and, for a
// phrase, each token's position relative to the first kept.
Status QueryTokens(const index::fts::TokenizerOptions& options, const std::string& text,
                   std::vector<std::string>* tokens, std::vector<uint32_t>* rel) {
  LANCE_ASSIGN_OR_RAISE(auto tok, index::fts::Tokenizer::Make(options));
  std::vector<index::fts::Token> out;
  LANCE_RETURN_NOT_OK(tok->Tokenize(text, &out));
  for (const auto& t : out) {
    tokens->push_back(t.text);
    rel->push_back(t.position - out.front().position);
  }
  return Status::OK();
}

// Rows of `fragments` (manifest positions) that are live and pass `filter`, as addresses, with
// `column` when asked.
struct LiveRows {
  std::vector<uint64_t> addrs;
  std::vector<std::optional<std::string>> text;
};

Result<LiveRows> ReadLive(const std::shared_ptr<const table::Snapshot>& snap, const std::vector<size_t>& fragments,
                          const std::string& filter, const std::string* column, const ExecOptions& exec) {
  LiveRows out;
  if (fragments.empty()) return out;
  ScanOptions o;
  if (column) o.columns.push_back(*column);
  o.columns.push_back("_rowaddr");
  o.filter = filter;
  o.pool = exec.pool;
  o.index_cache = exec.index_cache;
  std::vector<uint64_t> ids;
  for (size_t f : fragments) ids.push_back(snap->manifest().fragments[f].id);
  o.fragment_ids = ids;
  LANCE_ASSIGN_OR_RAISE(Scanner sc, Scanner::Make(snap, o));
  LANCE_ASSIGN_OR_RAISE(auto batches, sc.ToBatches());
  for (const auto& b : batches) {
    const Array& addr = *b->GetColumnByName("_rowaddr");
    const Array* text = column ? b->column(0).get() : nullptr;
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      out.addrs.push_back(addr.Values<uint64_t>()[i]);
      if (text) {
        out.text.push_back(text->IsValid(i) ? std::optional<std::string>(std::string(text->GetView(i)))
                                            : std::nullopt);
      }
    }
  }
  return out;
}

// Which row addresses of the indexed fragments may be returned.
struct RowFilter {
  // fragment id -> sorted row offsets: deleted ones (no filter) or the ones passing (filter)
  std::unordered_map<uint64_t, std::pair<uint64_t, std::vector<uint32_t>>> frags;  // physical rows, rows
  bool listed_pass = false;  // rows lists the passing rows (else the deleted ones)

  bool Keeps(uint64_t addr) const {
    auto it = frags.find(addr >> 32);
    if (it == frags.end()) return false;
    const uint64_t row = addr & 0xffffffffull;
    if (row >= it->second.first) return false;
    const auto& rows = it->second.second;
    const bool listed = std::binary_search(rows.begin(), rows.end(), static_cast<uint32_t>(row));
    return listed == listed_pass;
  }
};

Result<RowFilter> MakeRowFilter(const std::shared_ptr<const table::Snapshot>& snap, const std::vector<size_t>& fragments,
                                const std::string& filter, const ExecOptions& exec) {
  RowFilter out;
  const auto& frags = snap->manifest().fragments;
  if (filter.empty()) {
    for (size_t f : fragments) {
      LANCE_ASSIGN_OR_RAISE(auto deleted, snap->DeletedRows(f));
      out.frags[frags[f].id] = {frags[f].physical_rows, std::move(deleted)};
    }
    return out;
  }
  out.listed_pass = true;
  if (fragments.empty()) return out;
  for (size_t f : fragments) out.frags[frags[f].id] = {frags[f].physical_rows, {}};
  ScanOptions o;
  o.filter = filter;
  o.pool = exec.pool;
  o.index_cache = exec.index_cache;
  std::vector<uint64_t> ids;
  for (size_t f : fragments) ids.push_back(frags[f].id);
  o.fragment_ids = ids;
  LANCE_ASSIGN_OR_RAISE(auto matches, FindMatches(snap, o));
  for (auto& m : matches) {
    std::sort(m.rows.begin(), m.rows.end());
    out.frags[m.fragment_id].second = std::move(m.rows);
  }
  return out;
}

}  // namespace

FullTextSearchNode::FullTextSearchNode(std::shared_ptr<const table::Snapshot> snapshot, FullTextQuery query,
                                       std::string column, table::IndexInfo index, std::string filter,
                                       SchemaPtr schema, std::vector<std::string> take_columns)
    : snapshot_(std::move(snapshot)),
      query_(std::move(query)),
      column_(std::move(column)),
      index_(std::move(index)),
      filter_(std::move(filter)),
      schema_(std::move(schema)),
      take_columns_(std::move(take_columns)) {
  const std::unordered_set<uint32_t> covered(index_.fragment_ids.begin(), index_.fragment_ids.end());
  const auto& frags = snapshot_->manifest().fragments;
  for (size_t i = 0; i < frags.size(); ++i) {
    (covered.count(static_cast<uint32_t>(frags[i].id)) ? indexed_ : unindexed_).push_back(i);
  }
}

std::string FullTextSearchNode::Describe() const {
  auto ids = [&](const std::vector<size_t>& v) {
    std::string s;
    for (size_t i : v) s += (s.empty() ? "" : ", ") + std::to_string(snapshot_->manifest().fragments[i].id);
    return "[" + s + "]";
  };
  const std::string by = index_.uuid.empty() ? std::string("flat search (no index: simple tokenizer, case kept, no stemming, stop words or folding)")
                                             : fmt::format("{}@{}(INVERTED)", index_.name, index_.uuid);
  std::string out = fmt::format("{} query [{}] on column {} by {}, top {}", query_.phrase ? "phrase" : "match",
                                query_.query, column_, by, query_.k);
  if (!query_.phrase) out += query_.and_operator ? ", operator AND" : ", operator OR";
  if (query_.fuzziness > 0) {
    out += fmt::format(", fuzziness {} (prefix {}, at most {} expansions)", query_.fuzziness, query_.prefix_length,
                       query_.max_expansions);
  }
  if (!index_.uuid.empty()) out += fmt::format("; BM25 over indexed fragments {}", ids(indexed_));
  if (!unindexed_.empty()) {
    out += fmt::format("{}flat search of {}fragments {}", index_.uuid.empty() ? "; BM25 by " : ", ",
                       index_.uuid.empty() ? "" : "unindexed ", ids(unindexed_));
  }
  if (!filter_.empty()) out += fmt::format("; prefilter \"{}\"", filter_);
  return out;
}

Result<PlanNodePtr> PlanFullTextSearch(std::shared_ptr<const table::Snapshot> snapshot, const FullTextQuery& query,
                                       std::string filter, SchemaPtr schema, std::vector<std::string> take_columns) {
  if (query.k < 1) return Status::InvalidArgument("full-text search: k must be at least 1 (got {})", query.k);
  if (query.columns.size() > 1) {
    return Status::NotSupported("full-text search over several columns at once");
  }
  const auto& m = snapshot->manifest();
  const table::IndexInfo* found = nullptr;
  std::string column;
  for (const auto& info : m.indices) {
    if (!IsInverted(info) || info.fields.size() != 1) continue;
    std::string name;
    for (const auto& f : m.fields) {
      if (f.id == info.fields[0]) name = f.name;
    }
    if (!query.columns.empty() && name != query.columns[0]) continue;
    if (found && name == column) continue;  // only a column's first index, as lance 12
    if (found && query.columns.empty()) {
      return Status::InvalidArgument("full-text search: columns {} and {} have indexes; name one", column, name);
    }
    found = &info;
    column = name;
  }
  if (!found && query.columns.size() == 1) {
    // lance 12 answers a named column without an index by a flat search (FlatMatchQuery)
    const auto f = snapshot->schema()->GetFieldByName(query.columns[0]);
    if (f == nullptr) {
      return Status::InvalidArgument("full-text search: {} has no column {}", snapshot->location().display(),
                                     query.columns[0]);
    }
    if (f->type()->id() != TypeId::kString && f->type()->id() != TypeId::kLargeString) {
      return Status::InvalidArgument("full-text search: column {} is {}, not a string column", query.columns[0],
                                     f->type()->ToString());
    }
    return PlanNodePtr(std::make_shared<FullTextSearchNode>(snapshot, query, query.columns[0], table::IndexInfo{},
                                                            std::move(filter), std::move(schema),
                                                            std::move(take_columns)));
  }
  if (!found) {
    return Status::InvalidArgument("full-text search: {} has no INVERTED index{}", snapshot->location().display(),
                                   query.columns.empty() ? "" : " on column " + query.columns[0]);
  }
  return PlanNodePtr(std::make_shared<FullTextSearchNode>(snapshot, query, column, *found, std::move(filter),
                                                          std::move(schema), std::move(take_columns)));
}

namespace internal {

Result<std::unique_ptr<RecordBatchReader>> OpenFullTextSearch(const FullTextSearchNode& node,
                                                              const ExecOptions& exec) {
  const auto& snap = node.snapshot();
  if (snap->manifest().reader_feature_flags & table::kFlagStableRowIds) {
    return Status::NotSupported("full-text search of {}: tables with stable row ids are not searched yet",
                                snap->location().display());
  }
  std::shared_ptr<const index::fts::InvertedIndex> idx;
  if (!node.index().uuid.empty()) {
    auto store = index::OpenIndexStore(snap->location(), node.index(), exec.index_cache);
    if (!exec.index_cache) {
      // Nothing kept past the query (a private cache holding the segment, which holds the
      // store owning that cache, would never be freed).
      LANCE_ASSIGN_OR_RAISE(idx, index::fts::InvertedIndex::Open(store));
    } else {
      // The opened segment is kept in the query's index cache: a later query sharing it
      // reads nothing.
      LANCE_ASSIGN_OR_RAISE(
          idx, store->GetPage<index::fts::InvertedIndex>(
                   "inverted", [&]() -> Result<std::pair<std::shared_ptr<const index::fts::InvertedIndex>, int64_t>> {
                     LANCE_ASSIGN_OR_RAISE(auto opened, index::fts::InvertedIndex::Open(store));
                     const int64_t bytes = opened->MemoryBytes();
                     return std::pair<std::shared_ptr<const index::fts::InvertedIndex>, int64_t>(std::move(opened),
                                                                                                 bytes);
                   }));
    }
  }
  const index::fts::TokenizerOptions options = idx ? idx->options() : FlatSearchOptions();
  std::vector<std::string> tokens;
  std::vector<uint32_t> rel;
  LANCE_RETURN_NOT_OK(QueryTokens(options, node.query().query, &tokens, &rel));
  const index::fts::MatchMode mode = node.query().phrase         ? index::fts::MatchMode::kPhrase
                                     : node.query().and_operator ? index::fts::MatchMode::kAll
                                                                 : index::fts::MatchMode::kAny;
  if (mode == index::fts::MatchMode::kPhrase && idx && !idx->with_position()) {
    return Status::InvalidArgument("phrase query on column {}: index {} was built without positions",
                                   node.column(), node.index().name);
  }
  // the indexed fragments' rows that may come back: live (in a fragment of this version, not
  // deleted) and, with a filter, passing it
  LANCE_ASSIGN_OR_RAISE(RowFilter keep, MakeRowFilter(snap, node.indexed_fragments(), node.filter(), exec));
  std::vector<index::fts::ScoredRow> hits;
  const bool fuzzy = node.query().fuzziness > 0;
  if (fuzzy && mode == index::fts::MatchMode::kPhrase) {
    return Status::InvalidArgument("full-text search on column {}: a phrase query cannot be fuzzy (fuzziness {})",
                                   node.column(), node.query().fuzziness);
  }
  if (idx && fuzzy) {
    // lance 12 tokenizes a fuzzy query with the bare simple tokenizer, then expands it over
    // each partition's dictionary
    std::vector<std::string> raw;
    std::vector<uint32_t> raw_rel;
    LANCE_RETURN_NOT_OK(QueryTokens(FlatSearchOptions(), node.query().query, &raw, &raw_rel));
    index::fts::FuzzyOptions f{node.query().fuzziness, node.query().max_expansions, node.query().prefix_length};
    if (!raw.empty()) {
      LANCE_ASSIGN_OR_RAISE(hits, idx->Search(raw, {}, mode, [&](uint64_t r) { return keep.Keeps(r); },
                                              static_cast<size_t>(node.query().k), &f));
    }
  } else if (idx && !tokens.empty()) {
    // the index's best k (the flat search's rows may then push some out)
    LANCE_ASSIGN_OR_RAISE(hits, idx->Search(tokens, rel, mode, [&](uint64_t r) { return keep.Keeps(r); },
                                            static_cast<size_t>(node.query().k)));
  }
  // rows the index does not cover: tokenized here, scored with the index's statistics plus
  // theirs
  LANCE_ASSIGN_OR_RAISE(LiveRows flat,
                        ReadLive(snap, node.unindexed_fragments(), node.filter(), &node.column(), exec));
  if (!flat.addrs.empty() && !tokens.empty()) {
    LANCE_ASSIGN_OR_RAISE(auto tok, index::fts::Tokenizer::Make(options));
    struct Doc {
      uint64_t addr;
      uint32_t len;
      std::unordered_map<std::string, std::vector<uint32_t>> pos;
    };
    std::vector<Doc> docs;
    uint64_t num_docs = idx ? idx->num_docs() : 0, total = idx ? idx->total_tokens() : 0;
    std::unordered_map<std::string, uint64_t> docs_with;
    for (const auto& t : tokens) docs_with[t] = idx ? idx->DocsWithToken(t) : 0;
    std::vector<index::fts::Token> out;
    for (size_t i = 0; i < flat.addrs.size(); ++i) {
      if (!flat.text[i]) continue;
      LANCE_RETURN_NOT_OK(tok->Tokenize(*flat.text[i], &out));
      if (out.empty()) continue;
      Doc d{flat.addrs[i], static_cast<uint32_t>(out.size()), {}};
      for (const auto& t : out) {
        if (docs_with.count(t.text)) d.pos[t.text].push_back(t.position);
      }
      ++num_docs;
      total += out.size();
      for (const auto& [t, p] : d.pos) ++docs_with[t];
      docs.push_back(std::move(d));
    }
    const float avgdl = index::fts::Bm25AvgDocLength(total, num_docs);
    for (const Doc& d : docs) {
      bool all = true, any = false;
      for (const auto& t : tokens) {
        if (d.pos.count(t)) {
          any = true;
        } else {
          all = false;
        }
      }
      if (!any || (mode != index::fts::MatchMode::kAny && !all)) continue;
      if (mode == index::fts::MatchMode::kPhrase) {
        std::vector<const uint32_t*> b, e;
        for (const auto& t : tokens) {
          const auto& p = d.pos.at(t);
          b.push_back(p.data());
          e.push_back(p.data() + p.size());
        }
        if (!index::fts::PhraseMatches(b, e, rel)) continue;
      }
      float score = 0.0f;
      for (const auto& t : tokens) {
        auto it = d.pos.find(t);
        if (it == d.pos.end()) continue;
        score += index::fts::Bm25Idf(docs_with[t], num_docs) *
                 index::fts::Bm25DocWeight(static_cast<uint32_t>(it->second.size()), d.len, avgdl);
      }
      hits.push_back({d.addr, score});
    }
  }
  std::sort(hits.begin(), hits.end(), index::fts::Better);
  if (hits.size() > static_cast<size_t>(node.query().k)) hits.resize(static_cast<size_t>(node.query().k));
  // the projection of the rows found, in score order
  std::vector<RecordBatchPtr> out;
  if (!hits.empty()) {
    ScanOptions o;
    o.columns = node.take_columns();
    o.pool = exec.pool;
    o.index_cache = exec.index_cache;
    LANCE_ASSIGN_OR_RAISE(Scanner sc, Scanner::Make(snap, o));
    std::vector<uint64_t> ids;
    for (const auto& h : hits) ids.push_back(h.row_id);
    LANCE_ASSIGN_OR_RAISE(auto reader, sc.TakeRowIds(ids));
    LANCE_ASSIGN_OR_RAISE(auto batches, reader->ReadAll());
    size_t at = 0;
    for (const auto& b : batches) {
      FloatBuilder scores(float32());
      for (int64_t i = 0; i < b->num_rows(); ++i) LANCE_RETURN_NOT_OK(scores.Append(hits[at++].score));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr s, scores.Finish());
      std::vector<ArrayPtr> cols = b->columns();
      cols.push_back(std::move(s));
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rb, RecordBatch::Make(node.schema(), b->num_rows(), std::move(cols)));
      out.push_back(std::move(rb));
    }
    if (at != hits.size()) return Status::Internal("full-text search: took {} rows of {}", at, hits.size());
  }
  return std::unique_ptr<RecordBatchReader>(new VectorRecordBatchReader(node.schema(), std::move(out)));
}

}  // namespace internal

}  // namespace lance::query
