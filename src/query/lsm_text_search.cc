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

namespace lance::query {

namespace {

using KeySet = std::unordered_set<std::string>;

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

// The planned search: the merged read's sources and what every source search needs.
struct Context {
  std::string table;
  std::optional<Plan> plan;
  SchemaPtr out;      // output columns (then `_score`)
  SchemaPtr columns;  // what a source returns before `_score`: the output columns, the key
  FullTextQuery query;
  std::string column;  // the searched column (a leaf query's)
  std::shared_ptr<const Filter> filter;
  std::optional<memwal::PrimaryKeyEncoder> enc;
  // The tail's tokenizer (the base index's on `column`, or lance 12's flat one) and index.
  index::fts::TokenizerOptions tokenizer;
  std::string index_name;
  bool tail_answers = false;  // a leaf match / phrase, not fuzzy: a tail can be searched
  // Query tokens (unique, in first-seen order) and, per query token, its unique slot and
  // position relative to the first (phrases).
  std::vector<std::string> tokens;
  std::vector<size_t> slot;
  std::vector<uint32_t> rel;

  const LsmMergeNode& merge() const { return static_cast<const LsmMergeNode&>(*plan->root()); }
  const memwal::PrimaryKeyEncoder* encoder() const { return enc ? &*enc : nullptr; }
};

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

  c.query = query;
  if (query.kind != FullTextQuery::Kind::kLeaf) return c;
  // A leaf over one column: named, or the base's one column with an INVERTED index (as lance
  // 12's LSM search needs one column).
  const auto& m = base->manifest();
  auto name_of = [&](int32_t id) {
    for (const auto& f : m.fields) {
      if (f.id == id) return f.name;
    }
    return std::string();
  };
  if (query.columns.size() > 1) {
    return Status::InvalidArgument("{}: an LSM full-text search searches one column (got {})", c.table,
                                   query.columns.size());
  }
  if (query.columns.empty()) {
    std::vector<std::string> indexed;
    for (const auto& info : m.indices) {
      if (!IsInverted(info) || info.fields.size() != 1) continue;
      const std::string n = name_of(info.fields[0]);
      if (std::find(indexed.begin(), indexed.end(), n) == indexed.end()) indexed.push_back(n);
    }
    if (indexed.size() != 1) {
      return Status::InvalidArgument("{}: an LSM full-text search names its column: the base has {} columns with an "
                                     "INVERTED index",
                                     c.table, indexed.size());
    }
    c.query.columns = {indexed[0]};
  }
  c.column = c.query.columns[0];
  const FieldPtr f = spec.table_schema->GetFieldByName(c.column);
  if (!f || (f->type()->id() != TypeId::kString && f->type()->id() != TypeId::kLargeString)) {
    return Status::InvalidArgument("{}: full-text search: no string column '{}'", c.table, c.column);
  }
  c.tokenizer = FlatOptions();
  for (const auto& info : m.indices) {
    if (!IsInverted(info) || info.fields.size() != 1 || name_of(info.fields[0]) != c.column) continue;
    LANCE_ASSIGN_OR_RAISE(index::scalar::CreateScalarIndexOptions io, index::scalar::OptionsOfIndex(*base, info));
    c.tokenizer = io.fts;
    c.index_name = info.name;
    break;  // a column's first index, as lance 12
  }
  c.tail_answers = query.fuzziness == 0;
  if (!c.tail_answers) return c;
  LANCE_ASSIGN_OR_RAISE(auto tok, index::fts::Tokenizer::Make(c.tokenizer));
  std::vector<index::fts::Token> out;
  LANCE_RETURN_NOT_OK(tok->Tokenize(query.query, &out));
  for (const auto& t : out) {
    auto it = std::find(c.tokens.begin(), c.tokens.end(), t.text);
    c.slot.push_back(static_cast<size_t>(it - c.tokens.begin()));
    if (it == c.tokens.end()) c.tokens.push_back(t.text);
    c.rel.push_back(t.position - out.front().position);
  }
  return c;
}

// One source's surviving rows (the context's columns then `_score`), their scores and keys.
struct Candidates {
  RecordBatchPtr rows;
  std::vector<float> score;
  std::vector<std::string> keys;  // encoded primary keys (empty: append-only)
};

Status AddKeys(const memwal::PrimaryKeyEncoder& enc, const std::vector<RecordBatchPtr>& batches, KeySet* keys) {
  std::string key;
  for (const auto& b : batches) {
    LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc.KeyColumns(*b));
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      key.clear();
      enc.Encode(cols, r, &key);
      keys->insert(key);
    }
  }
  return Status::OK();
}

// Rows of `rows` (with `_score`) whose key is not in `newer`.
Result<Candidates> DropReplaced(const memwal::PrimaryKeyEncoder* enc, const RecordBatch& rows, const KeySet& newer) {
  const ArrayPtr s = rows.GetColumnByName(kScoreColumn);
  if (!s) return Status::Corruption("an LSM full-text source returned no {}", kScoreColumn);
  Candidates c;
  std::vector<int64_t> keep;
  std::vector<ArrayPtr> cols;
  if (enc) {
    LANCE_ASSIGN_OR_RAISE(cols, enc->KeyColumns(rows));
  }
  std::string key;
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    if (enc) {
      key.clear();
      enc->Encode(cols, r, &key);
      if (newer.count(key)) continue;
      c.keys.push_back(key);
    }
    keep.push_back(r);
    c.score.push_back(s->Values<float>()[r]);
  }
  if (static_cast<int64_t>(keep.size()) == rows.num_rows()) {
    c.rows = std::make_shared<RecordBatch>(rows);
  } else {
    LANCE_ASSIGN_OR_RAISE(c.rows, TakeRows(rows, keep));
  }
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
                                  const memwal::LsmReadOptions& options, const KeySet& newer,
                                  LsmTextSearchStats* stats) {
  const int64_t k = c.query.k;
  // lance 12 fetches 2k from a source newer sources may replace rows of (lancedb's overfetch
  // factor 2), k from one they cannot; a source left short searches deeper here.
  int64_t fetch = newer.empty() || !c.enc ? k : 2 * k;
  const int64_t most = std::max(fetch, k + static_cast<int64_t>(newer.size()));
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

// The corpus of a WAL tail (its batches, WAL order) as a MemTable's in-memory index would give
// it: statistics over every row, the visible rows (each key's newest, not a tombstone) holding
// a query token.
Result<memwal::MemTableTextMatches> TailMatches(const Context& c, const std::vector<RecordBatchPtr>& batches) {
  memwal::MemTableTextMatches m;
  m.with_positions = true;
  m.docs_with.assign(c.tokens.size(), 0);
  const memwal::PrimaryKeyEncoder* enc = c.encoder();
  // Each key's newest row: rows read backwards, the first sight of a key wins.
  std::vector<std::vector<uint8_t>> newest(batches.size());
  std::vector<std::vector<std::string>> keys(batches.size());
  {
    KeySet seen;
    for (size_t i = batches.size(); i-- > 0;) {
      const RecordBatch& b = *batches[i];
      newest[i].assign(static_cast<size_t>(b.num_rows()), 1);
      if (!enc) continue;
      LANCE_ASSIGN_OR_RAISE(keys[i], enc->EncodeAll(b));
      for (int64_t r = b.num_rows(); r-- > 0;) {
        newest[i][static_cast<size_t>(r)] = seen.insert(keys[i][static_cast<size_t>(r)]).second;
      }
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto tok, index::fts::Tokenizer::Make(c.tokenizer));
  std::unordered_map<std::string, size_t> slot;
  for (size_t t = 0; t < c.tokens.size(); ++t) slot.emplace(c.tokens[t], t);
  std::vector<index::fts::Token> out;
  uint32_t position = 0;
  for (size_t i = 0; i < batches.size(); ++i) {
    const RecordBatch& b = *batches[i];
    const ArrayPtr text = b.GetColumnByName(c.column);
    if (!text) return Status::Corruption("{}: a WAL tail batch has no column '{}'", c.table, c.column);
    const ArrayPtr tomb = b.GetColumnByName(memwal::kTombstoneColumn);
    for (int64_t r = 0; r < b.num_rows(); ++r, ++position) {
      if (text->IsNull(r)) continue;
      out.clear();
      LANCE_RETURN_NOT_OK(tok->Tokenize(text->GetView(r), &out));
      if (out.empty()) continue;
      ++m.num_docs;
      m.total_tokens += out.size();
      memwal::MemTableTextMatches::Doc d;
      d.freq.assign(c.tokens.size(), 0);
      d.positions.assign(c.tokens.size(), {});
      bool any = false;
      for (const auto& t : out) {
        auto it = slot.find(t.text);
        if (it == slot.end()) continue;
        if (d.freq[it->second]++ == 0) ++m.docs_with[it->second];
        d.positions[it->second].push_back(t.position);
        any = true;
      }
      const bool live = newest[i][static_cast<size_t>(r)] && !(tomb && !tomb->IsNull(r) && tomb->BoolValue(r));
      if (!any || !live) continue;
      d.batch = batches[i];
      d.row = r;
      d.position = position;
      d.length = static_cast<uint32_t>(out.size());
      if (enc) d.key = keys[i][static_cast<size_t>(r)];
      m.docs.push_back(std::move(d));
    }
  }
  return m;
}

// The matches of `m` (a WAL tail's or a MemTable's) not replaced by a newer source, passing
// the filter, scored with `m`'s statistics: the context's columns then `_score`.
Result<Candidates> ScoreMatches(const Context& c, const memwal::MemTableTextMatches& m, const KeySet& newer,
                                LsmTextSearchStats* stats) {
  const bool phrase = c.query.phrase;
  if (phrase && !m.with_positions) {
    return Status::InvalidArgument("{}: phrase query on column {}: index {} was built without positions", c.table,
                                   c.column, c.index_name);
  }
  const float avgdl = index::fts::Bm25AvgDocLength(m.total_tokens, m.num_docs);
  // Matching docs grouped by batch (in position order: a batch's rows are contiguous).
  std::vector<std::pair<RecordBatchPtr, std::vector<int64_t>>> groups;
  std::vector<std::vector<float>> group_scores;
  std::vector<std::vector<std::string>> group_keys;
  ++stats->searches;
  for (const auto& d : m.docs) {
    bool all = true, any = false;
    for (uint32_t f : d.freq) {
      any |= f > 0;
      all &= f > 0;
    }
    if (!any || (c.query.and_operator && !all) || (phrase && !all)) continue;
    if (phrase) {
      std::vector<const uint32_t*> b, e;
      for (size_t t : c.slot) {
        b.push_back(d.positions[t].data());
        e.push_back(d.positions[t].data() + d.positions[t].size());
      }
      if (!index::fts::PhraseMatchesAnywhere(b, e, c.rel, c.query.slop)) continue;
    }
    ++stats->candidates;
    if (c.enc && newer.count(d.key)) {
      ++stats->replaced;
      continue;
    }
    float score = 0.0f;
    for (size_t t = 0; t < d.freq.size(); ++t) {
      if (d.freq[t] == 0) continue;
      score += index::fts::Bm25Idf(m.docs_with[t], m.num_docs) * index::fts::Bm25DocWeight(d.freq[t], d.length, avgdl);
    }
    if (c.query.boost != 1.0f) score *= c.query.boost;
    if (groups.empty() || groups.back().first != d.batch) {
      groups.emplace_back(d.batch, std::vector<int64_t>{});
      group_scores.emplace_back();
      group_keys.emplace_back();
    }
    groups.back().second.push_back(d.row);
    group_scores.back().push_back(score);
    group_keys.back().push_back(d.key);
  }
  std::vector<FieldPtr> fields = c.columns->fields();
  fields.push_back(field(kScoreColumn, float32(), true));
  auto schema = std::make_shared<Schema>(std::move(fields));
  Candidates out;
  std::vector<RecordBatchPtr> parts;
  for (size_t g = 0; g < groups.size(); ++g) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, TakeRows(*groups[g].first, groups[g].second));
    std::vector<int64_t> pass;
    if (c.filter) {
      LANCE_ASSIGN_OR_RAISE(pass, c.filter->EvaluateBatch(*rows));
      LANCE_ASSIGN_OR_RAISE(rows, TakeRows(*rows, pass));
    } else {
      for (int64_t r = 0; r < rows->num_rows(); ++r) pass.push_back(r);
    }
    if (rows->num_rows() == 0) continue;
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, internal::ProjectByName(*rows, c.columns));
    FloatBuilder scores(float32());
    for (int64_t p : pass) {
      LANCE_RETURN_NOT_OK(scores.Append(group_scores[g][static_cast<size_t>(p)]));
      out.score.push_back(group_scores[g][static_cast<size_t>(p)]);
      if (c.enc) out.keys.push_back(group_keys[g][static_cast<size_t>(p)]);
    }
    std::vector<ArrayPtr> cols = projected->columns();
    LANCE_ASSIGN_OR_RAISE(ArrayPtr s, scores.Finish());
    cols.push_back(std::move(s));
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr part, RecordBatch::Make(schema, projected->num_rows(), std::move(cols)));
    parts.push_back(std::move(part));
  }
  LANCE_ASSIGN_OR_RAISE(out.rows, ConcatenateBatches(schema, parts));
  return out;
}

bool TailSource(LsmSourceNode::Source s) {
  return s == LsmSourceNode::Source::kWalTail || s == LsmSourceNode::Source::kMemTable;
}

// A tail or MemTable that holds rows while the query is one a tail cannot answer.
Status CheckTailAnswers(const Context& c, const LsmSourceNode::Spec& s) {
  if (c.tail_answers) return Status::OK();
  const bool empty = s.source == LsmSourceNode::Source::kWalTail ? s.tail_batches.empty() : s.memtable_upto == 0;
  if (empty) return Status::OK();
  return Status::NotSupported("{}: full-text search of the LSM: the unflushed rows of shard {} are searched by a "
                              "match or phrase query over one column, not a fuzzy or compound one (flush them, "
                              "or search --consistency eventual)",
                              c.table, s.shard);
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
  KeySet newer;
  std::vector<Candidates> found;
  for (const auto& in : c.merge().inputs()) {
    const auto& s = static_cast<const LsmSourceNode&>(*in).spec();
    ++stats->sources;
    if (TailSource(s.source)) {
      LANCE_RETURN_NOT_OK(CheckTailAnswers(c, s));
      std::vector<RecordBatchPtr> batches =
          s.source == LsmSourceNode::Source::kMemTable ? s.memtable->Batches(s.memtable_upto) : s.tail_batches;
      if (!batches.empty()) {
        memwal::MemTableTextMatches m;
        if (s.source == LsmSourceNode::Source::kMemTable && s.memtable->TextIndexOf(c.column)) {
          // The live MemTable's in-memory postings: no tokenizing here.
          LANCE_ASSIGN_OR_RAISE(m, s.memtable->MatchText(s.memtable_upto, c.column, c.tokens));
          ++stats->memtables;
        } else {
          LANCE_ASSIGN_OR_RAISE(m, TailMatches(c, batches));
        }
        LANCE_ASSIGN_OR_RAISE(Candidates got, ScoreMatches(c, m, newer, stats));
        found.push_back(std::move(got));
        if (enc) LANCE_RETURN_NOT_OK(AddKeys(*enc, batches, &newer));
      }
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(Candidates got, SearchSnapshot(c, s.snapshot, options, newer, stats));
    found.push_back(std::move(got));
    if (enc && s.source == LsmSourceNode::Source::kGeneration) {
      ScanOptions k;
      k.columns = c.merge().spec().primary_key;
      LANCE_ASSIGN_OR_RAISE(Scanner keys, Scanner::Make(s.snapshot, std::move(k)));
      LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> kb, keys.ToBatches());
      LANCE_RETURN_NOT_OK(AddKeys(*enc, kb, &newer));
    }
  }

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
  std::string out = fmt::format(
      "LsmTextSearch: {} query \"{}\"{}, k {}, {} consistency; each source scored with its own statistics (lance "
      "12's local BM25), its rows whose key a newer source holds dropped, then one top k by score (ties by key)",
      c.table, c.query.query, c.column.empty() ? std::string() : " on column " + c.column, c.query.k,
      c.merge().spec().consistency == memwal::Consistency::kStrong ? "strong" : "eventual");
  if (c.filter) out += fmt::format("; filter \"{}\" on each key's newest row", c.filter->text());
  out += "\n";
  const std::string tokenizer = c.index_name.empty() ? std::string("lance 12's flat tokenizer")
                                                     : "the tokenizer of base index " + c.index_name;
  for (const auto& in : c.merge().inputs()) {
    const auto& src = static_cast<const LsmSourceNode&>(*in);
    const auto& s = src.spec();
    out += "  " + src.Describe() + "\n    -> ";
    if (s.source == LsmSourceNode::Source::kWalTail) {
      out += fmt::format("BM25 over its {} rows' statistics, tokenized with {}\n", s.rows, tokenizer);
    } else if (s.source == LsmSourceNode::Source::kMemTable) {
      const memwal::MemTableIndexSpec* x = c.column.empty() ? nullptr : s.memtable->TextIndexOf(c.column);
      out += x ? fmt::format("in-memory INVERTED index {} on {} (postings of its first {} rows)\n", x->name,
                             x->column, s.memtable_upto)
               : fmt::format("no in-memory INVERTED index on {}: its rows tokenized with {}\n", c.column, tokenizer);
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
