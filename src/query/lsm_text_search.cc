// query::LsmTextSearch (lsm_text_search.h): one BM25 search per source of the merged read,
// each with its own statistics, each source's rows replaced by a newer source dropped, then
// one top k.
#include "lance/query/lsm_text_search.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/compute.h"
#include "lance/index/fts/inverted_index.h"
#include "lance/index/fts/tokenizer.h"
#include "lance/index/scalar/optimize.h"
#include "lance/memwal/memtable.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/wal.h"
#include "lance/query/filter.h"
#include "lance/query/lsm_plan.h"
#include "lance/query/scanner.h"
#include "query/lsm_columns.h"
#include "query/lsm_keys.h"
#include "query/text_combine.h"

namespace lance::query {

namespace {

using internal::NewerKeys;
using internal::KeySet;

// lance 12 searches a column without an index with the bare simple tokenizer (text_search.cc
// FlatSearchOptions): the tail of such a column is tokenized the same way.
index::fts::TokenizerOptions FlatOptions() {
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

// A leaf of the query as the base plans it (PlanFullTextSearch) and the tokenizer a tail is
// tokenized with for it: the leaf's index's (the base's first INVERTED index on its column,
// which the MemTable mirrors and a flushed generation's maintained index keeps), or lance
// 12's flat one for a column without an index.
struct Leaf {
  const FullTextSearchNode* node = nullptr;
  index::fts::TokenizerOptions tokenizer;
};

// The planned search: the merged read's sources and what every source search needs.
struct Context {
  std::string table;
  std::optional<Plan> plan;
  SchemaPtr out;      // output columns (then `_score`)
  SchemaPtr columns;  // what a source returns before `_score`: the output columns, the key
  FullTextQuery query;  // every leaf's column named (a generation plans it as the base does)
  std::shared_ptr<const Filter> filter;
  std::optional<memwal::PrimaryKeyEncoder> enc;
  // The query planned over the base: the tree a tail is scored by, as a generation's search
  // (the same planner) scores it.
  PlanNodePtr tree;
  std::vector<Leaf> leaves;
  std::vector<std::string> leaf_columns;  // the searched columns, first-seen order

  const LsmMergeNode& merge() const { return static_cast<const LsmMergeNode&>(*plan->root()); }
  const memwal::PrimaryKeyEncoder* encoder() const { return enc ? &*enc : nullptr; }
  const Leaf& LeafOf(const FullTextSearchNode* n) const {
    for (const auto& l : leaves) {
      if (l.node == n) return l;
    }
    return leaves.front();  // every leaf of `tree` is listed (CollectLeaves)
  }
};

// Names the column of every leaf of `q` naming none: the base's one column with an INVERTED
// index (lance 12's LSM search needs one), or, for a match, all of them (the base's search
// makes that a multi-match over them; a generation indexes fewer columns, so they are named).
Status FillColumns(const std::string& table, const std::vector<std::string>& indexed, FullTextQuery* q) {
  if (q->kind != FullTextQuery::Kind::kLeaf) {
    for (auto& ch : q->children) LANCE_RETURN_NOT_OK(FillColumns(table, indexed, &ch));
    return Status::OK();
  }
  if (!q->columns.empty()) return Status::OK();
  if (indexed.size() == 1 || (!indexed.empty() && !q->phrase)) {
    q->columns = indexed;
    return Status::OK();
  }
  return Status::InvalidArgument("{}: an LSM full-text search names its column: the base has {} columns with an "
                                 "INVERTED index",
                                 table, indexed.size());
}

Status CollectLeaves(const table::Snapshot& base, const FullTextSearchNode& n, Context* c) {
  if (n.combine() != FullTextSearchNode::Combine::kNone) {
    for (const auto& in : n.inputs()) {
      LANCE_RETURN_NOT_OK(CollectLeaves(base, static_cast<const FullTextSearchNode&>(*in), c));
    }
    return Status::OK();
  }
  Leaf l;
  l.node = &n;
  l.tokenizer = FlatOptions();
  if (!n.index().uuid.empty()) {
    LANCE_ASSIGN_OR_RAISE(index::scalar::CreateScalarIndexOptions io, index::scalar::OptionsOfIndex(base, n.index()));
    l.tokenizer = io.fts;
  }
  c->leaves.push_back(std::move(l));
  if (std::find(c->leaf_columns.begin(), c->leaf_columns.end(), n.column()) == c->leaf_columns.end()) {
    c->leaf_columns.push_back(n.column());
  }
  return Status::OK();
}

Result<Context> Prepare(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                        const memwal::LsmReadOptions& options, const FullTextQuery& query) {
  Context c;
  c.table = store->DisplayPath(root);
  if (options.offset != 0 || options.limit) {
    return Status::InvalidArgument("{}: an LSM full-text search takes k, not an offset or a limit", c.table);
  }
  if (query.k < 1) return Status::InvalidArgument("{}: full-text search: k must be at least 1 (got {})", c.table, query.k);
  // The merged read's sources (no filter: that would plan point lookups; it is applied here).
  memwal::LsmReadOptions plan_options;
  plan_options.consistency = options.consistency;
  plan_options.live_writers = options.live_writers;
  LANCE_ASSIGN_OR_RAISE(Plan plan, PlanLsmScan(store, root, plan_options));
  c.plan.emplace(std::move(plan));
  const LsmMergeNode::Spec& spec = c.merge().spec();
  LANCE_ASSIGN_OR_RAISE(c.out, internal::LsmOutputSchema(spec.table_schema, options.columns, c.table));
  std::vector<FieldPtr> fields = c.out->fields();
  for (const auto& k : spec.primary_key) {
    if (!c.out->GetFieldByName(k)) fields.push_back(spec.table_schema->GetFieldByName(k));
  }
  c.columns = std::make_shared<Schema>(std::move(fields));
  if (!options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(c.filter, Filter::MakeForBatch(options.filter, spec.table_schema));
  }
  if (!spec.primary_key.empty()) {
    LANCE_ASSIGN_OR_RAISE(memwal::PrimaryKeyEncoder e,
                          memwal::PrimaryKeyEncoder::Make(*spec.table_schema, spec.primary_key));
    c.enc.emplace(std::move(e));
  }
  std::shared_ptr<const table::Snapshot> base;
  for (const auto& in : c.merge().inputs()) {
    const auto& s = static_cast<const LsmSourceNode&>(*in).spec();
    if (s.source == LsmSourceNode::Source::kBase) base = s.snapshot;
  }
  if (!base) return Status::Corruption("{}: the LSM plan has no base source", c.table);

  const auto& m = base->manifest();
  std::vector<std::string> indexed;  // schema order, as the base's search lists them
  for (const auto& f : m.fields) {
    for (const auto& info : m.indices) {
      if (IsInverted(info) && info.fields.size() == 1 && info.fields[0] == f.id &&
          std::find(indexed.begin(), indexed.end(), f.name) == indexed.end()) {
        indexed.push_back(f.name);
      }
    }
  }
  c.query = query;
  LANCE_RETURN_NOT_OK(FillColumns(c.table, indexed, &c.query));
  // The base's planner checks the query (kinds, columns, their types) and resolves each leaf's
  // column and index.
  auto tree = PlanFullTextSearch(base, c.query, "", nullptr, {});
  if (!tree.ok()) return tree.status().WithContext(c.table);
  c.tree = *tree;
  LANCE_RETURN_NOT_OK(CollectLeaves(*base, static_cast<const FullTextSearchNode&>(*c.tree), &c));
  return c;
}

// One source's surviving rows (the context's columns then `_score`), their scores and keys.
struct Candidates {
  RecordBatchPtr rows;
  std::vector<float> score;
  std::vector<std::string> keys;  // encoded primary keys (empty: append-only)
};

// Rows of `rows` (with `_score`) whose key is not in `newer`.
Result<Candidates> DropReplaced(const memwal::PrimaryKeyEncoder* enc, const RecordBatch& rows, const NewerKeys& newer) {
  const ArrayPtr s = rows.GetColumnByName(kScoreColumn);
  if (!s) return Status::Corruption("an LSM full-text source returned no {}", kScoreColumn);
  Candidates c;
  LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> keep, internal::UnreplacedRows(enc, rows, newer, &c.keys));
  c.score.reserve(keep.size());
  for (int64_t r : keep) c.score.push_back(s->Values<float>()[r]);
  LANCE_ASSIGN_OR_RAISE(c.rows, internal::KeptRows(rows, keep));
  return c;
}

ScanOptions SnapshotScan(const Context& c, const memwal::LsmReadOptions& options, int64_t k) {
  ScanOptions o;
  for (const auto& f : c.columns->fields()) o.columns.push_back(f->name());
  o.filter = options.filter;
  o.full_text = c.query;
  o.full_text->k = k;
  return o;
}

// The best k of a generation or the base (`snap`) through our full-text search of it,
// searching deeper while newer sources replace its rows: k + |newer| rows always leave k
// survivors when the source has them.
Result<Candidates> SearchSnapshot(const Context& c, const std::shared_ptr<const table::Snapshot>& snap,
                                  const memwal::LsmReadOptions& options, const NewerKeys& newer,
                                  LsmTextSearchStats* stats) {
  const int64_t k = c.query.k;
  // lance 12 fetches 2k from a source newer sources may replace rows of (lancedb's overfetch
  // factor 2), k from one they cannot; a source left short searches deeper here.
  int64_t fetch = newer.empty() || !c.enc ? k : 2 * k;
  const int64_t most = std::max(fetch, k + static_cast<int64_t>(newer.bound()));
  while (true) {
    LANCE_ASSIGN_OR_RAISE(Scanner s, Scanner::Make(snap, SnapshotScan(c, options, fetch)));
    LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> batches, s.ToBatches());
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, ConcatenateBatches(s.schema(), batches));
    ++stats->searches;
    LANCE_ASSIGN_OR_RAISE(Candidates got, DropReplaced(c.encoder(), *rows, newer));
    if (got.rows->num_rows() >= k || rows->num_rows() < fetch || fetch >= most) {
      stats->candidates += rows->num_rows();
      stats->replaced += rows->num_rows() - got.rows->num_rows();
      return got;
    }
    fetch = std::min(most, fetch * 4);
  }
}

bool TailSource(LsmSourceNode::Source s) {
  return s == LsmSourceNode::Source::kWalTail || s == LsmSourceNode::Source::kMemTable;
}

// Unflushed rows searched as the generation they will flush to: a WAL tail's batches (WAL
// order) or a live MemTable's first `upto` rows, row `position` its place among them (its row
// offset in that generation). Columns the MemTable mirrors are answered by its in-memory
// postings, others by tokenizing the rows here.
class Tail {
 public:
  Tail(const Context& c, std::vector<RecordBatchPtr> batches, const memwal::MemTable* memtable, int64_t upto,
       LsmTextSearchStats* stats)
      : c_(c), batches_(std::move(batches)), memtable_(memtable), upto_(upto), stats_(stats) {}

  const std::vector<RecordBatchPtr>& batches() const { return batches_; }

  // The corpus statistics of every row for `column` and the visible rows (each key's newest,
  // not a tombstone) holding one of `tokens`, each with its frequency (and positions).
  Result<memwal::MemTableTextMatches> Match(const std::string& column, const index::fts::TokenizerOptions& tok,
                                            const std::vector<std::string>& tokens) {
    if (memtable_ && memtable_->TextIndexOf(column)) {
      if (!used_memtable_) ++stats_->memtables;
      used_memtable_ = true;
      return memtable_->MatchText(upto_, column, tokens);
    }
    return TailMatches(column, tok, tokens);
  }

  // Every token of `column` any row holds, sorted by bytes (a flushed generation's dictionary).
  Result<std::vector<std::string>> Dictionary(const std::string& column, const index::fts::TokenizerOptions& tok) {
    if (memtable_ && memtable_->TextIndexOf(column)) return memtable_->TextDictionary(upto_, column);
    std::unordered_set<std::string> all;
    LANCE_RETURN_NOT_OK(ForEachDoc(column, tok, [&](size_t, int64_t, uint32_t, const std::vector<index::fts::Token>& t) {
      for (const auto& x : t) all.insert(x.text);
    }));
    std::vector<std::string> out(all.begin(), all.end());
    std::sort(out.begin(), out.end());
    return out;
  }

  // Whether each of `docs` passes the filter (a prefilter, as a generation's search applies
  // it before its top k), evaluated once per row.
  Result<std::vector<uint8_t>> Passes(const std::vector<memwal::MemTableTextMatches::Doc>& docs) {
    std::vector<uint8_t> out(docs.size(), 1);
    if (!c_.filter) return out;
    for (size_t a = 0; a < docs.size();) {
      size_t b = a;
      std::vector<int64_t> rows;
      for (; b < docs.size() && docs[b].batch == docs[a].batch; ++b) {
        if (!pass_.count(docs[b].position)) rows.push_back(docs[b].row);
      }
      if (!rows.empty()) {
        LANCE_ASSIGN_OR_RAISE(RecordBatchPtr taken, TakeRows(*docs[a].batch, rows));
        LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> ok, c_.filter->EvaluateBatch(*taken));
        std::vector<uint8_t> passed(rows.size(), 0);
        for (int64_t r : ok) passed[static_cast<size_t>(r)] = 1;
        size_t at = 0;
        for (size_t d = a; d < b; ++d) {
          if (!pass_.count(docs[d].position)) pass_[docs[d].position] = passed[at++];
        }
      }
      for (size_t d = a; d < b; ++d) out[d] = pass_[docs[d].position];
      a = b;
    }
    return out;
  }

  // Remembers where the row at `d.position` is.
  void Note(const memwal::MemTableTextMatches::Doc& d) { rows_.try_emplace(d.position, Row{d.batch, d.row, d.key}); }

  struct Row {
    RecordBatchPtr batch;
    int64_t row = 0;
    std::string key;
  };
  const Row& RowAt(uint64_t position) const { return rows_.at(static_cast<uint32_t>(position)); }

 private:
  // Each key's newest row (rows read backwards, the first sight of a key wins) and the keys.
  Status Visibility() {
    if (!newest_.empty() || batches_.empty()) return Status::OK();
    const memwal::PrimaryKeyEncoder* enc = c_.encoder();
    newest_.resize(batches_.size());
    keys_.resize(batches_.size());
    KeySet seen;
    for (size_t i = batches_.size(); i-- > 0;) {
      const RecordBatch& b = *batches_[i];
      newest_[i].assign(static_cast<size_t>(b.num_rows()), 1);
      if (!enc) continue;
      LANCE_ASSIGN_OR_RAISE(keys_[i], enc->EncodeAll(b));
      for (int64_t r = b.num_rows(); r-- > 0;) {
        newest_[i][static_cast<size_t>(r)] = seen.insert(keys_[i][static_cast<size_t>(r)]).second;
      }
    }
    return Status::OK();
  }

  // `f(batch, row, position, tokens)` for every row of `column` with a token, in order.
  template <typename F>
  Status ForEachDoc(const std::string& column, const index::fts::TokenizerOptions& options, F f) {
    LANCE_ASSIGN_OR_RAISE(auto tok, index::fts::Tokenizer::Make(options));
    std::vector<index::fts::Token> out;
    uint32_t position = 0;
    for (size_t i = 0; i < batches_.size(); ++i) {
      const RecordBatch& b = *batches_[i];
      const ArrayPtr text = b.GetColumnByName(column);
      if (!text) return Status::Corruption("{}: an unflushed batch has no column '{}'", c_.table, column);
      for (int64_t r = 0; r < b.num_rows(); ++r, ++position) {
        if (text->IsNull(r)) continue;
        out.clear();
        LANCE_RETURN_NOT_OK(tok->Tokenize(text->GetView(r), &out));
        if (!out.empty()) f(i, r, position, out);
      }
    }
    return Status::OK();
  }

  // Match() by tokenizing every row: the statistics of every row, the visible rows matching.
  Result<memwal::MemTableTextMatches> TailMatches(const std::string& column, const index::fts::TokenizerOptions& tok,
                                                  const std::vector<std::string>& tokens) {
    LANCE_RETURN_NOT_OK(Visibility());
    memwal::MemTableTextMatches m;
    m.with_positions = true;
    m.docs_with.assign(tokens.size(), 0);
    std::unordered_map<std::string, size_t> slot;
    for (size_t t = 0; t < tokens.size(); ++t) slot.emplace(tokens[t], t);
    LANCE_RETURN_NOT_OK(ForEachDoc(column, tok, [&](size_t i, int64_t r, uint32_t position,
                                                    const std::vector<index::fts::Token>& out) {
      ++m.num_docs;
      m.total_tokens += out.size();
      memwal::MemTableTextMatches::Doc d;
      d.freq.assign(tokens.size(), 0);
      d.positions.assign(tokens.size(), {});
      bool any = false;
      for (const auto& t : out) {
        auto it = slot.find(t.text);
        if (it == slot.end()) continue;
        if (d.freq[it->second]++ == 0) ++m.docs_with[it->second];
        d.positions[it->second].push_back(t.position);
        any = true;
      }
      const ArrayPtr tomb = batches_[i]->GetColumnByName(memwal::kTombstoneColumn);
      const bool live = newest_[i][static_cast<size_t>(r)] && !(tomb && !tomb->IsNull(r) && tomb->BoolValue(r));
      if (!any || !live) return;
      d.batch = batches_[i];
      d.row = r;
      d.position = position;
      d.length = static_cast<uint32_t>(out.size());
      if (c_.enc) d.key = keys_[i][static_cast<size_t>(r)];
      m.docs.push_back(std::move(d));
    }));
    return m;
  }

  const Context& c_;
  std::vector<RecordBatchPtr> batches_;
  const memwal::MemTable* memtable_;
  int64_t upto_;
  LsmTextSearchStats* stats_;
  bool used_memtable_ = false;
  std::vector<std::vector<uint8_t>> newest_;
  std::vector<std::vector<std::string>> keys_;
  std::unordered_map<uint32_t, uint8_t> pass_;
  std::unordered_map<uint32_t, Row> rows_;
};

Result<std::vector<std::string>> Tokens(const index::fts::TokenizerOptions& options, const std::string& text,
                                        std::vector<uint32_t>* rel) {
  LANCE_ASSIGN_OR_RAISE(auto tok, index::fts::Tokenizer::Make(options));
  std::vector<index::fts::Token> out;
  LANCE_RETURN_NOT_OK(tok->Tokenize(text, &out));
  std::vector<std::string> tokens;
  for (const auto& t : out) {
    tokens.push_back(t.text);
    if (rel) rel->push_back(t.position - out.front().position);
  }
  return tokens;
}

// A leaf's matches among the tail's rows, as a generation's index scores them (ScoreLeaf in
// text_search.cc): BM25 with the tail's statistics, times the leaf's boost, rows failing the
// filter left out; row ids the rows' positions. A fuzzy leaf over an indexed column expands
// lance 12's flat tokens over the tail's dictionary (index::fts::ExpandFuzzy), each expansion
// scored (repeats kept), AND then needing every query token through one of its expansions; over
// a column without an index it is an exact match, as the flat search of a generation.
Result<std::vector<index::fts::ScoredRow>> ScoreTailLeaf(const Context& c, Tail& t, const Leaf& leaf) {
  const FullTextQuery& q = leaf.node->query();
  const std::string& column = leaf.node->column();
  const bool fuzzy = q.fuzziness > 0;
  if (fuzzy && q.phrase) {
    return Status::InvalidArgument("{}: full-text search on column {}: a phrase query cannot be fuzzy (fuzziness {})",
                                   c.table, column, q.fuzziness);
  }
  std::vector<std::string> terms;  // the query's terms in order (fuzzy: its expansions)
  std::vector<uint32_t> group;     // per term: the query token it stands for (AND needs each)
  std::vector<uint32_t> rel;       // phrase: per term its position relative to the first
  size_t groups = 0;
  std::vector<std::string> unique;  // the terms without repeats
  std::vector<size_t> slot;         // per term: its index in `unique`
  std::vector<size_t> scored;       // slots scored per document (fuzzy: one per term)
  if (fuzzy && !leaf.node->index().uuid.empty()) {
    LANCE_ASSIGN_OR_RAISE(std::vector<std::string> raw, Tokens(FlatOptions(), q.query, nullptr));
    LANCE_ASSIGN_OR_RAISE(std::vector<std::string> dict, t.Dictionary(column, leaf.tokenizer));
    terms = index::fts::ExpandFuzzy(dict, raw, {q.fuzziness, q.max_expansions, q.prefix_length}, &group);
    groups = raw.size();
  } else {
    LANCE_ASSIGN_OR_RAISE(terms, Tokens(leaf.tokenizer, q.query, &rel));
  }
  for (const auto& term : terms) {
    auto it = std::find(unique.begin(), unique.end(), term);
    slot.push_back(static_cast<size_t>(it - unique.begin()));
    if (it == unique.end()) unique.push_back(term);
  }
  if (fuzzy && !leaf.node->index().uuid.empty()) {
    scored = slot;
  } else {
    for (size_t u = 0; u < unique.size(); ++u) scored.push_back(u);
    group.assign(slot.begin(), slot.end());
    groups = unique.size();
  }
  std::vector<index::fts::ScoredRow> hits;
  if (terms.empty()) return hits;
  LANCE_ASSIGN_OR_RAISE(memwal::MemTableTextMatches m, t.Match(column, leaf.tokenizer, unique));
  if (q.phrase && !m.with_positions) {
    return Status::InvalidArgument("{}: phrase query on column {}: index {} was built without positions", c.table,
                                   column, leaf.node->index().name);
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<uint8_t> pass, t.Passes(m.docs));
  const float avgdl = index::fts::Bm25AvgDocLength(m.total_tokens, m.num_docs);
  std::vector<uint8_t> has(groups);
  for (size_t i = 0; i < m.docs.size(); ++i) {
    const auto& d = m.docs[i];
    if (!pass[i]) continue;
    std::fill(has.begin(), has.end(), 0);
    bool any = false;
    for (size_t x = 0; x < terms.size(); ++x) {
      if (d.freq[slot[x]] == 0) continue;
      has[group[x]] = 1;
      any = true;
    }
    const bool all = std::find(has.begin(), has.end(), 0) == has.end();
    if (!any || ((q.and_operator || q.phrase) && !all)) continue;
    if (q.phrase) {
      std::vector<const uint32_t*> b, e;
      for (size_t x : slot) {
        b.push_back(d.positions[x].data());
        e.push_back(d.positions[x].data() + d.positions[x].size());
      }
      if (!index::fts::PhraseMatchesAnywhere(b, e, rel, q.slop)) continue;
    }
    float score = 0.0f;
    for (size_t u : scored) {
      if (d.freq[u] == 0) continue;
      score += index::fts::Bm25Idf(m.docs_with[u], m.num_docs) * index::fts::Bm25DocWeight(d.freq[u], d.length, avgdl);
    }
    if (q.boost != 1.0f) score *= q.boost;
    t.Note(d);
    hits.push_back({d.position, score});
  }
  return hits;
}

// The rows of `node` among the tail's, combined as the base's search combines them
// (internal::CombineScores), its best `limit` (0: all, in no order).
Result<std::vector<index::fts::ScoredRow>> ScoreTailNode(const Context& c, Tail& t, const FullTextSearchNode& node,
                                                         size_t limit) {
  std::vector<index::fts::ScoredRow> out;
  if (node.combine() == FullTextSearchNode::Combine::kNone) {
    LANCE_ASSIGN_OR_RAISE(out, ScoreTailLeaf(c, t, c.LeafOf(&node)));
  } else {
    std::vector<std::vector<index::fts::ScoredRow>> in;
    for (const auto& input : node.inputs()) {
      const auto& child = static_cast<const FullTextSearchNode&>(*input);
      LANCE_ASSIGN_OR_RAISE(auto rows, ScoreTailNode(c, t, child, child.query().k > 0 ? child.query().k : 0));
      in.push_back(std::move(rows));
    }
    out = internal::CombineScores(node, in);
  }
  internal::BestFirst(&out, limit);
  return out;
}

// Every match of the query among the tail's rows not replaced by a newer source: the
// context's columns then `_score`.
Result<Candidates> SearchTail(const Context& c, Tail& t, const NewerKeys& newer, LsmTextSearchStats* stats) {
  ++stats->searches;
  LANCE_ASSIGN_OR_RAISE(std::vector<index::fts::ScoredRow> hits,
                        ScoreTailNode(c, t, static_cast<const FullTextSearchNode&>(*c.tree), 0));
  std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.row_id < b.row_id; });
  stats->candidates += static_cast<int64_t>(hits.size());
  std::vector<FieldPtr> fields = c.columns->fields();
  fields.push_back(field(kScoreColumn, float32(), true));
  auto schema = std::make_shared<Schema>(std::move(fields));
  Candidates out;
  std::vector<RecordBatchPtr> parts;
  // Runs of one batch (positions ascending: a batch's rows are contiguous).
  for (size_t a = 0; a < hits.size();) {
    const RecordBatchPtr& batch = t.RowAt(hits[a].row_id).batch;
    std::vector<int64_t> rows;
    FloatBuilder scores(float32());
    std::vector<ArrayPtr> key_cols;
    if (c.enc && !newer.empty()) {
      LANCE_ASSIGN_OR_RAISE(key_cols, c.enc->KeyColumns(*batch));
    }
    size_t b = a;
    for (; b < hits.size() && t.RowAt(hits[b].row_id).batch == batch; ++b) {
      const Tail::Row& r = t.RowAt(hits[b].row_id);
      if (c.enc && !newer.empty()) {
        LANCE_ASSIGN_OR_RAISE(bool held, newer.Holds(key_cols, r.row, r.key));
        if (held) {
          ++stats->replaced;
          continue;
        }
      }
      rows.push_back(r.row);
      LANCE_RETURN_NOT_OK(scores.Append(hits[b].score));
      out.score.push_back(hits[b].score);
      if (c.enc) out.keys.push_back(r.key);
    }
    a = b;
    if (rows.empty()) continue;
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr taken, TakeRows(*batch, rows));
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, internal::ProjectByName(*taken, c.columns));
    std::vector<ArrayPtr> cols = projected->columns();
    LANCE_ASSIGN_OR_RAISE(ArrayPtr s, scores.Finish());
    cols.push_back(std::move(s));
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr part, RecordBatch::Make(schema, projected->num_rows(), std::move(cols)));
    parts.push_back(std::move(part));
  }
  LANCE_ASSIGN_OR_RAISE(out.rows, ConcatenateBatches(schema, parts));
  return out;
}

}  // namespace

Result<std::vector<RecordBatchPtr>> LsmTextSearch(const std::shared_ptr<io::ObjectStore>& store,
                                                  const std::string& root, const memwal::LsmReadOptions& options,
                                                  const FullTextQuery& query, LsmTextSearchStats* stats) {
  LsmTextSearchStats local;
  if (stats == nullptr) stats = &local;
  *stats = {};
  LANCE_ASSIGN_OR_RAISE(Context c, Prepare(store, root, options, query));
  const memwal::PrimaryKeyEncoder* enc = c.encoder();
  // Newest source first; `newer` holds the keys of every source read so far (any of their
  // rows: tombstones and rows failing the filter hide older rows too).
  NewerKeys newer(enc);
  std::vector<Candidates> found;
  for (const auto& in : c.merge().inputs()) {
    const auto& s = static_cast<const LsmSourceNode&>(*in).spec();
    ++stats->sources;
    if (TailSource(s.source)) {
      const bool mem = s.source == LsmSourceNode::Source::kMemTable;
      Tail tail(c, mem ? s.memtable->Batches(s.memtable_upto) : s.tail_batches, mem ? s.memtable.get() : nullptr,
                mem ? s.memtable_upto : 0, stats);
      if (!tail.batches().empty()) {
        LANCE_ASSIGN_OR_RAISE(Candidates got, SearchTail(c, tail, newer, stats));
        found.push_back(std::move(got));
        LANCE_RETURN_NOT_OK(newer.AddRows(tail.batches()));
      }
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(Candidates got, SearchSnapshot(c, s.snapshot, options, newer, stats));
    found.push_back(std::move(got));
    if (s.source == LsmSourceNode::Source::kGeneration) {
      LANCE_RETURN_NOT_OK(newer.AddGeneration(s.snapshot, s.rows, c.merge().spec().primary_key));
    }
  }

  stats->bloom_tests = newer.bloom_tests();
  stats->pk_index_searches = newer.index_searches();

  // One top k: best score first, ties by key (append-only: the newer source, then its order).
  struct Pick {
    float score;
    size_t source;
    int64_t row;
  };
  std::vector<Pick> picks;
  for (size_t i = 0; i < found.size(); ++i) {
    for (size_t r = 0; r < found[i].score.size(); ++r) picks.push_back({found[i].score[r], i, static_cast<int64_t>(r)});
  }
  auto key_of = [&](const Pick& p) -> const std::string& { return found[p.source].keys[static_cast<size_t>(p.row)]; };
  std::stable_sort(picks.begin(), picks.end(), [&](const Pick& a, const Pick& b) {
    if (a.score != b.score) return a.score > b.score;
    if (enc) return key_of(a) < key_of(b);
    return false;
  });
  if (picks.size() > static_cast<size_t>(c.query.k)) picks.resize(static_cast<size_t>(c.query.k));
  std::vector<FieldPtr> out_fields = c.out->fields();
  out_fields.push_back(field(kScoreColumn, float32(), true));
  auto out_schema = std::make_shared<Schema>(out_fields);
  std::vector<RecordBatchPtr> result;
  for (const Pick& p : picks) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr row,
                          internal::ProjectByName(*found[p.source].rows->Slice(p.row, 1), out_schema));
    result.push_back(std::move(row));
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr one, ConcatenateBatches(out_schema, result));
  return std::vector<RecordBatchPtr>{std::move(one)};
}

Result<std::string> ExplainLsmTextSearch(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                                         const memwal::LsmReadOptions& options, const FullTextQuery& query) {
  LANCE_ASSIGN_OR_RAISE(Context c, Prepare(store, root, options, query));
  std::string cols;
  for (const auto& col : c.leaf_columns) cols += (cols.empty() ? "" : ", ") + col;
  std::string out = fmt::format(
      "LsmTextSearch: {} query \"{}\" on column{} {}, k {}, {} consistency; each source scored with its own "
      "statistics (lance 12's local BM25), its rows whose key a newer source holds dropped, then one top k by score "
      "(ties by key)",
      c.table, c.query.query, c.leaf_columns.size() > 1 ? "s" : "", cols, c.query.k,
      c.merge().spec().consistency == memwal::Consistency::kStrong ? "strong" : "eventual");
  if (c.filter) out += fmt::format("; filter \"{}\" on each key's newest row", c.filter->text());
  out += "\n";
  // How each searched column of unflushed rows is tokenized.
  auto tokenized = [&](const std::string& col) {
    for (const auto& l : c.leaves) {
      if (l.node->column() == col && !l.node->index().uuid.empty()) {
        return "the tokenizer of base index " + l.node->index().name;
      }
    }
    return std::string("lance 12's flat tokenizer");
  };
  const std::string tree = "the query tree as the base plans it (" +
                           static_cast<const FullTextSearchNode&>(*c.tree).Describe() + ")";
  for (const auto& in : c.merge().inputs()) {
    const auto& src = static_cast<const LsmSourceNode&>(*in);
    const auto& s = src.spec();
    out += "  " + src.Describe() + "\n    -> ";
    if (s.source == LsmSourceNode::Source::kWalTail) {
      std::string how;
      for (const auto& col : c.leaf_columns) how += fmt::format("{}{} tokenized with {}", how.empty() ? "" : "; ", col, tokenized(col));
      out += fmt::format("BM25 over its {} rows' statistics, {}; {}\n", s.rows, how, tree);
    } else if (s.source == LsmSourceNode::Source::kMemTable) {
      std::string how;
      for (const auto& col : c.leaf_columns) {
        const memwal::MemTableIndexSpec* x = s.memtable->TextIndexOf(col);
        how += (how.empty() ? "" : "; ") +
               (x ? fmt::format("in-memory INVERTED index {} on {} (postings of its first {} rows)", x->name, x->column,
                                s.memtable_upto)
                  : fmt::format("no in-memory INVERTED index on {}: its rows tokenized with {}", col, tokenized(col)));
      }
      out += how + "; " + tree + "\n";
    } else {
      LANCE_ASSIGN_OR_RAISE(Scanner sc, Scanner::Make(s.snapshot, SnapshotScan(c, options, c.query.k)));
      out += "its own full-text search (its index's statistics):\n";
      std::string plan = sc.Explain();
      size_t at = 0;
      while (at < plan.size()) {
        size_t end = plan.find('\n', at);
        if (end == std::string::npos) end = plan.size();
        out += "      " + plan.substr(at, end - at) + "\n";
        at = end + 1;
      }
    }
  }
  return out;
}

}  // namespace lance::query
