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

namespace lance::query {

namespace {

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
  std::string out = fmt::format("{} query [{}] on column {} by {}@{}(INVERTED), top {}", query_.phrase ? "phrase" : "match",
                                query_.query, column_, index_.name, index_.uuid, query_.k);
  if (!query_.phrase) out += query_.and_operator ? ", operator AND" : ", operator OR";
  out += fmt::format("; BM25 over indexed fragments {}", ids(indexed_));
  if (!unindexed_.empty()) out += fmt::format(", flat search of unindexed fragments {}", ids(unindexed_));
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
  if (!found) {
    return Status::InvalidArgument("full-text search: {} has no INVERTED index{}", snapshot->root(),
                                   query.columns.empty() ? "" : " on column " + query.columns[0]);
  }
  return PlanNodePtr(std::make_shared<FullTextSearchNode>(snapshot, query, column, *found, std::move(filter),
                                                          std::move(schema), std::move(take_columns)));
}

namespace internal {

Result<std::unique_ptr<RecordBatchReader>> OpenFullTextSearch(const FullTextSearchNode& node,
                                                              const ExecOptions& exec) {
  const auto& snap = node.snapshot();
  auto store = index::OpenIndexStore(snap->location(), node.index(), index::DefaultPageCache());
  LANCE_ASSIGN_OR_RAISE(auto idx, index::fts::InvertedIndex::Open(store));
  std::vector<std::string> tokens;
  std::vector<uint32_t> rel;
  LANCE_RETURN_NOT_OK(QueryTokens(idx->options(), node.query().query, &tokens, &rel));
  const index::fts::MatchMode mode = node.query().phrase         ? index::fts::MatchMode::kPhrase
                                     : node.query().and_operator ? index::fts::MatchMode::kAll
                                                                 : index::fts::MatchMode::kAny;
  if (mode == index::fts::MatchMode::kPhrase && !idx->with_position()) {
    return Status::InvalidArgument("phrase query on column {}: index {} was built without positions",
                                   node.column(), node.index().name);
  }
  // the indexed fragments' rows that may come back: live, and passing the filter
  LANCE_ASSIGN_OR_RAISE(LiveRows live, ReadLive(snap, node.indexed_fragments(), node.filter(), nullptr, exec));
  std::unordered_set<uint64_t> keep(live.addrs.begin(), live.addrs.end());
  std::vector<index::fts::ScoredRow> hits;
  if (!tokens.empty()) {
    LANCE_ASSIGN_OR_RAISE(hits, idx->Search(tokens, rel, mode, [&](uint64_t r) { return keep.count(r) != 0; }));
  }
  // rows the index does not cover: tokenized here, scored with the index's statistics plus
  // theirs
  LANCE_ASSIGN_OR_RAISE(LiveRows flat,
                        ReadLive(snap, node.unindexed_fragments(), node.filter(), &node.column(), exec));
  if (!flat.addrs.empty() && !tokens.empty()) {
    LANCE_ASSIGN_OR_RAISE(auto tok, index::fts::Tokenizer::Make(idx->options()));
    struct Doc {
      uint64_t addr;
      uint32_t len;
      std::unordered_map<std::string, std::vector<uint32_t>> pos;
    };
    std::vector<Doc> docs;
    uint64_t num_docs = idx->num_docs(), total = idx->total_tokens();
    std::unordered_map<std::string, uint64_t> docs_with;
    for (const auto& t : tokens) docs_with[t] = idx->DocsWithToken(t);
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
  std::sort(hits.begin(), hits.end(), [](const index::fts::ScoredRow& a, const index::fts::ScoredRow& b) {
    return a.score != b.score ? a.score > b.score : a.row_id < b.row_id;
  });
  if (hits.size() > static_cast<size_t>(node.query().k)) hits.resize(static_cast<size_t>(node.query().k));
  // the projection of the rows found, in score order
  std::vector<RecordBatchPtr> out;
  if (!hits.empty()) {
    ScanOptions o;
    o.columns = node.take_columns();
    o.pool = exec.pool;
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
