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
#include "query/text_combine.h"

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

FullTextQuery FullTextQuery::Match(std::string text, std::string column, bool and_operator) {
  FullTextQuery q;
  q.query = std::move(text);
  if (!column.empty()) q.columns = {std::move(column)};
  q.and_operator = and_operator;
  return q;
}

FullTextQuery FullTextQuery::Phrase(std::string text, std::string column, uint32_t slop) {
  FullTextQuery q = Match(std::move(text), std::move(column));
  q.phrase = true;
  q.slop = slop;
  return q;
}

FullTextQuery FullTextQuery::MultiMatch(std::string text, std::vector<std::string> columns, std::vector<float> boosts,
                                        bool and_operator) {
  FullTextQuery q;
  q.kind = Kind::kMultiMatch;
  q.query = text;
  for (size_t i = 0; i < columns.size(); ++i) {
    FullTextQuery m = Match(text, columns[i], and_operator);
    if (i < boosts.size()) m.boost = boosts[i];
    q.children.push_back(std::move(m));
  }
  return q;
}

FullTextQuery FullTextQuery::Boost(FullTextQuery positive, FullTextQuery negative, float negative_boost) {
  FullTextQuery q;
  q.kind = Kind::kBoost;
  q.children = {std::move(positive), std::move(negative)};
  q.negative_boost = negative_boost;
  return q;
}

FullTextQuery FullTextQuery::Boolean(std::vector<std::pair<Occur, FullTextQuery>> clauses) {
  FullTextQuery q;
  q.kind = Kind::kBoolean;
  for (auto& [occur, child] : clauses) {
    child.occur = occur;
    q.children.push_back(std::move(child));
  }
  return q;
}

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

FullTextSearchNode::FullTextSearchNode(std::shared_ptr<const table::Snapshot> snapshot, FullTextQuery query,
                                       Combine combine, std::vector<PlanNodePtr> inputs, std::string filter,
                                       SchemaPtr schema, std::vector<std::string> take_columns)
    : snapshot_(std::move(snapshot)),
      query_(std::move(query)),
      combine_(combine),
      filter_(std::move(filter)),
      schema_(std::move(schema)),
      take_columns_(std::move(take_columns)) {
  query_.children.clear();  // the inputs hold them
  inputs_ = std::move(inputs);
}

namespace {

const char* OccurName(Occur o) {
  return o == Occur::kMust ? "must" : o == Occur::kMustNot ? "must_not" : "should";
}

}  // namespace

std::string FullTextSearchNode::Describe() const {
  std::string clause;
  if (query_.occur != Occur::kShould) clause = fmt::format("{}: ", OccurName(query_.occur));
  if (combine_ != Combine::kNone) {
    const std::string top = query_.k > 0 ? fmt::format(", top {}", query_.k) : "";
    if (combine_ == Combine::kMax) return clause + fmt::format("multi-match: the best of {} columns' scores{}", inputs_.size(), top);
    if (combine_ == Combine::kBoost) {
      return clause + fmt::format("boost: the first's scores minus {} x the second's{}", query_.negative_boost, top);
    }
    return clause + fmt::format("boolean: must rows (scores summed) plus should scores, without must_not rows{}", top);
  }
  auto ids = [&](const std::vector<size_t>& v) {
    std::string s;
    for (size_t i : v) s += (s.empty() ? "" : ", ") + std::to_string(snapshot_->manifest().fragments[i].id);
    return "[" + s + "]";
  };
  const std::string by = index_.uuid.empty() ? std::string("flat search (no index: simple tokenizer, case kept, no stemming, stop words or folding)")
                                             : fmt::format("{}@{}(INVERTED)", index_.name, index_.uuid);
  std::string out = clause + fmt::format("{} query [{}] on column {} by {}", query_.phrase ? "phrase" : "match",
                                         query_.query, column_, by);
  if (query_.k > 0) out += fmt::format(", top {}", query_.k);
  if (!query_.phrase) out += query_.and_operator ? ", operator AND" : ", operator OR";
  if (query_.phrase && query_.slop > 0) out += fmt::format(", slop {}", query_.slop);
  if (query_.boost != 1.0f) out += fmt::format(", boost {}", query_.boost);
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

namespace {

// The columns with an INVERTED index, in schema order.
std::vector<std::string> IndexedTextColumns(const table::Snapshot& snapshot) {
  std::vector<std::string> out;
  for (const auto& f : snapshot.manifest().fields) {
    for (const auto& info : snapshot.manifest().indices) {
      if (IsInverted(info) && info.fields.size() == 1 && info.fields[0] == f.id &&
          std::find(out.begin(), out.end(), f.name) == out.end()) {
        out.push_back(f.name);
      }
    }
  }
  return out;
}

// The leaf node of `query` (a match or phrase over one column).
Result<PlanNodePtr> PlanLeaf(const std::shared_ptr<const table::Snapshot>& snapshot, const FullTextQuery& query,
                             const std::string& filter, const SchemaPtr& schema,
                             const std::vector<std::string>& take_columns) {
  if (query.columns.size() > 1) {
    return Status::InvalidArgument("full-text search: a match or phrase query searches one column (got {}); a "
                                   "multi-match searches several",
                                   query.columns.size());
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
                                                            filter, schema, take_columns));
  }
  if (!found) {
    return Status::InvalidArgument(
        "full-text search: {} has no INVERTED index{}; name one string column to search it without an "
        "index (a flat search, as lance 12), or build an INVERTED index on the column first",
        snapshot->location().display(), query.columns.empty() ? "" : " on column " + query.columns[0]);
  }
  return PlanNodePtr(std::make_shared<FullTextSearchNode>(snapshot, query, column, *found, filter, schema,
                                                          take_columns));
}

// The node of `query` and its inputs; `k` 0 below the root but for a multi-match's columns.
Result<PlanNodePtr> PlanQuery(const std::shared_ptr<const table::Snapshot>& snapshot, FullTextQuery query,
                              const std::string& filter, const SchemaPtr& schema,
                              const std::vector<std::string>& take_columns) {
  using Kind = FullTextQuery::Kind;
  using Combine = FullTextSearchNode::Combine;
  if (query.kind == Kind::kLeaf && !query.phrase) {
    // a match over several columns, or over none while several are indexed, is lance 12's
    // multi-match over them
    std::vector<std::string> columns = query.columns;
    if (columns.empty()) columns = IndexedTextColumns(*snapshot);
    if (columns.size() > 1) {
      FullTextQuery multi;
      multi.kind = Kind::kMultiMatch;
      multi.query = query.query;
      multi.k = query.k;
      multi.occur = query.occur;
      for (auto& c : columns) {
        FullTextQuery m = query;
        m.columns = {std::move(c)};
        multi.children.push_back(std::move(m));
      }
      query = std::move(multi);
    }
  }
  if (query.kind == Kind::kLeaf) return PlanLeaf(snapshot, query, filter, schema, take_columns);
  Combine how = Combine::kBoolean;
  if (query.kind == Kind::kMultiMatch) {
    how = Combine::kMax;
    if (query.children.empty()) return Status::InvalidArgument("full-text search: a multi-match without columns");
    for (const auto& c : query.children) {
      if (c.kind != Kind::kLeaf || c.phrase || c.columns.size() != 1) {
        return Status::InvalidArgument("full-text search: a multi-match holds match queries over one named column "
                                       "each");
      }
    }
  } else if (query.kind == Kind::kBoost) {
    how = Combine::kBoost;
    if (query.children.size() != 2) {
      return Status::InvalidArgument("full-text search: a boost query has a positive and a negative query (got {} "
                                     "queries)",
                                     query.children.size());
    }
  } else {
    bool must_or_should = false;
    for (const auto& c : query.children) must_or_should |= c.occur != Occur::kMustNot;
    if (!must_or_should) {
      return Status::InvalidArgument("full-text search: a boolean query needs at least one must or should query");
    }
  }
  std::vector<PlanNodePtr> inputs;
  for (auto& c : query.children) {
    // a multi-match's best k are among each column's best k (as lance 12 searches them);
    // boost and boolean children are searched whole
    c.k = how == Combine::kMax ? query.k : 0;
    LANCE_ASSIGN_OR_RAISE(PlanNodePtr n, PlanQuery(snapshot, std::move(c), filter, schema, take_columns));
    inputs.push_back(std::move(n));
  }
  return PlanNodePtr(std::make_shared<FullTextSearchNode>(snapshot, std::move(query), how, std::move(inputs), filter,
                                                          schema, take_columns));
}

}  // namespace

Result<PlanNodePtr> PlanFullTextSearch(std::shared_ptr<const table::Snapshot> snapshot, const FullTextQuery& query,
                                       std::string filter, SchemaPtr schema, std::vector<std::string> take_columns) {
  if (query.k < 1) return Status::InvalidArgument("full-text search: k must be at least 1 (got {})", query.k);
  return PlanQuery(snapshot, query, filter, schema, take_columns);
}

namespace {

// A leaf's matches, scored (times its boost), in no order.
Result<std::vector<index::fts::ScoredRow>> ScoreLeaf(const FullTextSearchNode& node, const ExecOptions& exec) {
  const auto& snap = node.snapshot();
  const size_t limit = node.query().k > 0 ? static_cast<size_t>(node.query().k) : 0;
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
    return Status::InvalidArgument("phrase query on column {}: index {} was built without positions (rebuild "
                                   "it with them: lance create-index URI {} --type fts --with-position true "
                                   "--name {} --replace)",
                                   node.column(), node.index().name, node.column(), node.index().name);
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
                                              limit, &f));
    }
  } else if (idx && !tokens.empty()) {
    // the index's best k (the flat search's rows may then push some out)
    LANCE_ASSIGN_OR_RAISE(hits, idx->Search(tokens, rel, mode, [&](uint64_t r) { return keep.Keeps(r); }, limit,
                                            nullptr, node.query().slop));
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
        // lance 12 checks these rows exhaustively (its index walk is greedy)
        if (!index::fts::PhraseMatchesAnywhere(b, e, rel, node.query().slop)) continue;
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
  if (node.query().boost != 1.0f) {
    for (auto& h : hits) h.score *= node.query().boost;
  }
  return hits;
}

// The scored rows of `node` (a leaf or a combining node): its best k, best first (k 0: all,
// in no order).
Result<std::vector<index::fts::ScoredRow>> Score(const FullTextSearchNode& node, const ExecOptions& exec) {
  using Combine = FullTextSearchNode::Combine;
  const size_t limit = node.query().k > 0 ? static_cast<size_t>(node.query().k) : 0;
  std::vector<index::fts::ScoredRow> out;
  if (node.combine() == Combine::kNone) {
    LANCE_ASSIGN_OR_RAISE(out, ScoreLeaf(node, exec));
    internal::BestFirst(&out, limit);
    return out;
  }
  std::vector<std::vector<index::fts::ScoredRow>> in;
  for (const auto& input : node.inputs()) {
    LANCE_ASSIGN_OR_RAISE(auto rows, Score(static_cast<const FullTextSearchNode&>(*input), exec));
    in.push_back(std::move(rows));
  }
  out = internal::CombineScores(node, in);
  internal::BestFirst(&out, limit);
  return out;
}

}  // namespace

namespace internal {

void BestFirst(std::vector<index::fts::ScoredRow>* hits, size_t limit) {
  if (limit == 0) return;
  if (hits->size() > limit) {
    std::partial_sort(hits->begin(), hits->begin() + static_cast<std::ptrdiff_t>(limit), hits->end(),
                      index::fts::Better);
    hits->resize(limit);
  } else {
    std::sort(hits->begin(), hits->end(), index::fts::Better);
  }
}

std::vector<index::fts::ScoredRow> CombineScores(const FullTextSearchNode& node,
                                                 const std::vector<std::vector<index::fts::ScoredRow>>& in) {
  using Combine = FullTextSearchNode::Combine;
  // row id -> score (the order of the result is BestFirst's, so the map's does not matter)
  std::unordered_map<uint64_t, float> score;
  size_t most = 0;
  for (const auto& rows : in) most = std::max(most, rows.size());
  score.reserve(most);
  const auto add = [&](uint64_t row, float s) { score.emplace(row, s); };
  if (node.combine() == Combine::kMax) {
    for (const auto& rows : in) {
      for (const auto& h : rows) {
        auto [it, fresh] = score.emplace(h.row_id, h.score);
        if (!fresh) it->second = std::max(it->second, h.score);
      }
    }
  } else if (node.combine() == Combine::kBoost) {
    for (const auto& h : in[0]) add(h.row_id, h.score);
    for (const auto& h : in[1]) {
      auto it = score.find(h.row_id);
      if (it != score.end()) it->second -= node.query().negative_boost * h.score;
    }
  } else {
    // boolean: the rows of every must, their scores summed; then each should adds its score
    // to the rows it finds (with no must, it adds its rows); must_not rows go
    bool has_must = false;
    for (size_t i = 0; i < in.size(); ++i) {
      const auto& q = static_cast<const FullTextSearchNode&>(*node.inputs()[i]).query();
      if (q.occur != Occur::kMust) continue;
      if (!has_must) {
        for (const auto& h : in[i]) add(h.row_id, h.score);
        has_must = true;
        continue;
      }
      std::unordered_map<uint64_t, float> next;
      for (const auto& h : in[i]) {
        auto it = score.find(h.row_id);
        if (it != score.end()) next.emplace(h.row_id, it->second + h.score);
      }
      score = std::move(next);
    }
    for (size_t i = 0; i < in.size(); ++i) {
      const auto& q = static_cast<const FullTextSearchNode&>(*node.inputs()[i]).query();
      if (q.occur != Occur::kShould) continue;
      for (const auto& h : in[i]) {
        auto it = score.find(h.row_id);
        if (it != score.end()) {
          it->second += h.score;
        } else if (!has_must) {
          add(h.row_id, h.score);
        }
      }
    }
    for (size_t i = 0; i < in.size(); ++i) {
      const auto& q = static_cast<const FullTextSearchNode&>(*node.inputs()[i]).query();
      if (q.occur != Occur::kMustNot) continue;
      for (const auto& h : in[i]) score.erase(h.row_id);
    }
  }
  std::vector<index::fts::ScoredRow> out;
  out.reserve(score.size());
  for (const auto& [r, s] : score) out.push_back({r, s});
  return out;
}

Result<std::unique_ptr<RecordBatchReader>> OpenFullTextSearch(const FullTextSearchNode& node,
                                                              const ExecOptions& exec) {
  const auto& snap = node.snapshot();
  if (snap->manifest().reader_feature_flags & table::kFlagStableRowIds) {
    return Status::NotSupported("full-text search of {}: tables with stable row ids are not searched yet",
                                snap->location().display());
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<index::fts::ScoredRow> hits, Score(node, exec));
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
