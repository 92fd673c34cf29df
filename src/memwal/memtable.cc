#include "lance/memwal/memtable.h"

#include <algorithm>
#include <chrono>

#include "lance/memwal/wal.h"

namespace lance::memwal {

namespace {

int64_t ArrayBytes(const Array& a) {
  int64_t n = 0;
  for (const auto& b : a.buffers) {
    if (b) n += b->size();
  }
  for (const auto& c : a.children) n += ArrayBytes(*c);
  if (a.dictionary) n += ArrayBytes(*a.dictionary);
  return n;
}

// Key i of a flat encoding (PrimaryKeyEncoder::EncodeAllFlat).
inline std::string_view KeyAt(const std::string& bytes, const std::vector<size_t>& ends, size_t i) {
  const size_t from = i == 0 ? 0 : ends[i - 1];
  return std::string_view(bytes).substr(from, ends[i] - from);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int64_t InMemoryBytes(const RecordBatch& batch) {
  int64_t n = 0;
  for (const auto& c : batch.columns()) n += ArrayBytes(*c);
  return n;
}

MemTable::MemTable(SchemaPtr schema, std::vector<std::string> pk,
                   std::optional<PrimaryKeyEncoder> enc, uint64_t generation)
    : schema_(std::move(schema)), primary_key_(std::move(pk)), encoder_(std::move(enc)),
      generation_(generation) {}

Result<std::unique_ptr<MemTable>> MemTable::Make(SchemaPtr wal_schema,
                                                 std::vector<std::string> primary_key,
                                                 uint64_t generation,
                                                 std::vector<MemTableIndexSpec> indexes) {
  if (!wal_schema) return Status::InvalidArgument("MemTable: no schema");
  std::optional<PrimaryKeyEncoder> enc;
  if (!primary_key.empty()) {
    LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder e, PrimaryKeyEncoder::Make(*wal_schema, primary_key));
    enc = std::move(e);
  }
  std::unique_ptr<MemTable> t(
      new MemTable(std::move(wal_schema), std::move(primary_key), std::move(enc), generation));
  for (MemTableIndexSpec& spec : indexes) {
    if (spec.text) {
      const FieldPtr f = t->schema_->GetFieldByName(spec.column);
      if (!f || (f->type()->id() != TypeId::kString && f->type()->id() != TypeId::kLargeString)) {
        return Status::InvalidArgument("MemTable (generation {}): in-memory INVERTED index {} needs a utf8 column "
                                       "'{}' in the WAL schema, found {}",
                                       generation, spec.name, spec.column, f ? f->type()->ToString() : "none");
      }
      auto tok = index::fts::Tokenizer::Make(*spec.text);
      if (!tok.ok()) {
        return Status::InvalidArgument("MemTable (generation {}): in-memory INVERTED index {} of column '{}': {}",
                                       generation, spec.name, spec.column, tok.status().message());
      }
      TextIndex x;
      x.spec = spec;
      x.tokenize_mu = std::make_unique<std::mutex>();
      x.tokenizer = std::move(*tok);
      t->text_indexes_.push_back(std::move(x));
      t->text_specs_.push_back(std::move(spec));
      continue;
    }
    auto e = PrimaryKeyEncoder::Make(*t->schema_, {spec.column});
    if (!e.ok()) {
      return Status::InvalidArgument("MemTable (generation {}): in-memory index {} of column '{}': {}",
                                     generation, spec.name, spec.column, e.status().message());
    }
    t->indexes_.push_back(Index{spec, std::move(*e), {}});
    t->index_specs_.push_back(std::move(spec));
  }
  return t;
}

const MemTableIndexSpec* MemTable::TextIndexOf(const std::string& column) const {
  for (const auto& s : text_specs_) {
    if (s.column == column) return &s;
  }
  return nullptr;
}

Result<MemTable::TokenizedBatch> MemTable::Tokenize(TextIndex& index, const RecordBatch& batch) {
  TokenizedBatch out;
  const ArrayPtr col = batch.GetColumnByName(index.spec.column);
  if (!col) return Status::InvalidArgument("MemTable: the batch has no column '{}'", index.spec.column);
  out.length.assign(static_cast<size_t>(batch.num_rows()), 0);
  std::unordered_map<std::string, uint32_t> ids;  // token -> index into out.tokens
  std::vector<index::fts::Token> tokens;
  std::vector<std::pair<uint32_t, uint32_t>> row;  // (token id, position) of one row
  std::vector<TokenizedBatch::Entry> entries;      // row order
  std::vector<uint32_t> positions;
  {
    std::lock_guard<std::mutex> lock(*index.tokenize_mu);
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      if (col->IsNull(r)) continue;
      tokens.clear();
      LANCE_RETURN_NOT_OK(index.tokenizer->Tokenize(col->GetView(r), &tokens));
      out.length[static_cast<size_t>(r)] = static_cast<uint32_t>(tokens.size());
      row.clear();
      for (auto& t : tokens) {
        auto [it, fresh] = ids.try_emplace(t.text, static_cast<uint32_t>(out.tokens.size()));
        if (fresh) out.tokens.push_back(std::move(t.text));
        row.emplace_back(it->second, t.position);
      }
      std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0; i < row.size();) {
        TokenizedBatch::Entry e;
        e.token = row[i].first;
        e.row = static_cast<uint32_t>(r);
        e.positions = static_cast<uint32_t>(positions.size());
        for (; i < row.size() && row[i].first == e.token; ++i) positions.push_back(row[i].second);
        e.freq = static_cast<uint32_t>(positions.size()) - e.positions;
        entries.push_back(e);
      }
    }
  }
  // Grouped by token, each group in row order (a counting sort: entries are in row order).
  std::vector<uint32_t> start(out.tokens.size() + 1, 0);
  for (const auto& e : entries) ++start[e.token + 1];
  for (size_t t = 1; t < start.size(); ++t) start[t] += start[t - 1];
  out.entries.resize(entries.size());
  for (const auto& e : entries) out.entries[start[e.token]++] = e;
  out.positions = std::move(positions);
  return out;
}

const MemTableIndexSpec* MemTable::IndexOf(const std::string& column) const {
  for (const auto& s : index_specs_) {
    if (s.column == column) return &s;
  }
  return nullptr;
}

Status MemTable::Insert(RecordBatchPtr wal_batch, uint64_t wal_position) {
  if (!wal_batch->schema()->Equals(*schema_)) {
    return Status::InvalidArgument("MemTable (generation {}): the batch is not of the WAL schema",
                                   generation_);
  }
  // The batch's keys flat, and their hashes, outside the lock.
  std::string key_bytes;
  std::vector<size_t> key_ends;
  std::vector<uint64_t> key_hashes;
  if (encoder_) {
    LANCE_RETURN_NOT_OK(encoder_->EncodeAllFlat(*wal_batch, &key_bytes, &key_ends));
    key_hashes.resize(key_ends.size());
    for (size_t i = 0; i < key_ends.size(); ++i) key_hashes[i] = KeyIndex::Hash(KeyAt(key_bytes, key_ends, i));
  }
  // Each index's run of the batch (nulls not indexed; positions relative to the batch until
  // the lock gives its first row position), sorted outside the lock.
  std::vector<Run> runs(indexes_.size());
  for (size_t x = 0; x < indexes_.size(); ++x) {
    LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, indexes_[x].encoder.KeyColumns(*wal_batch));
    std::string all;
    std::vector<std::pair<uint32_t, uint32_t>> span;  // (offset, length) of row r's value
    std::vector<uint32_t> rows;
    for (int64_t r = 0; r < wal_batch->num_rows(); ++r) {
      if (cols[0]->IsNull(r)) continue;
      const size_t at = all.size();
      indexes_[x].encoder.Encode(cols, r, &all);
      span.emplace_back(static_cast<uint32_t>(at), static_cast<uint32_t>(all.size() - at));
      rows.push_back(static_cast<uint32_t>(r));
    }
    std::vector<uint32_t> order(rows.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
    auto view = [&](uint32_t i) { return std::string_view(all).substr(span[i].first, span[i].second); };
    std::stable_sort(order.begin(), order.end(), [&](uint32_t l, uint32_t r) { return view(l) < view(r); });
    Run& run = runs[x];
    run.arena.reserve(all.size());
    run.offsets.reserve(order.size() + 1);
    run.positions.reserve(order.size());
    for (uint32_t i : order) {
      run.arena.append(view(i));
      run.offsets.push_back(static_cast<uint32_t>(run.arena.size()));
      run.positions.push_back(rows[i]);
    }
  }
  std::vector<TokenizedBatch> texts;
  for (TextIndex& x : text_indexes_) {
    LANCE_ASSIGN_OR_RAISE(TokenizedBatch tb, Tokenize(x, *wal_batch));
    texts.push_back(std::move(tb));
  }
  const int64_t bytes = InMemoryBytes(*wal_batch);
  std::lock_guard<std::mutex> lock(mu_);
  if (rows_ + wal_batch->num_rows() > int64_t{UINT32_MAX}) {
    return Status::InvalidArgument("MemTable (generation {}): more than 2^32 rows; flush first",
                                   generation_);
  }
  if (rows_ == 0) {
    first_position_ = wal_position;
    first_row_ms_ = NowMs();
  }
  int64_t index_bytes = kRowLinkBytes * wal_batch->num_rows();
  next_.resize(static_cast<size_t>(rows_ + wal_batch->num_rows()), kNoNext);
  for (size_t i = 0; i < key_ends.size(); ++i) {
    const std::string_view key = KeyAt(key_bytes, key_ends, i);
    // (The estimate of a std::string-keyed hash node, kept: a budget's flush points and the
    // tests' byte figures do not move with the index's layout.)
    const size_t heap = key.size() > 15 ? key.size() + 1 : 0;  // past the SSO buffer
    const auto pos = static_cast<uint32_t>(rows_ + static_cast<int64_t>(i));
    auto [entry, fresh] = newest_.Upsert(key, key_hashes[i], pos);
    if (fresh) {
      index_bytes += kKeyIndexEntryBytes + static_cast<int64_t>(heap);
    } else {
      next_[entry->newest] = pos;
      entry->newest = pos;
    }
  }
  int64_t scalar_bytes = 0;
  for (size_t x = 0; x < indexes_.size(); ++x) {
    if (runs[x].size() == 0) continue;
    for (uint32_t& p : runs[x].positions) p += static_cast<uint32_t>(rows_);
    auto& list = indexes_[x].runs;
    int64_t before = 0;
    for (const Run& r : list) before += r.bytes();
    list.push_back(std::move(runs[x]));
    while (list.size() >= 2 && list[list.size() - 2].size() <= 2 * list.back().size()) {
      Run merged = MergeRuns(list[list.size() - 2], list.back());
      list.pop_back();
      list.back() = std::move(merged);
    }
    int64_t after = 0;
    for (const Run& r : list) after += r.bytes();
    scalar_bytes += after - before;
  }
  // The postings of the batch appended (row positions past every row already held: each
  // token's list stays in row order).
  for (size_t x = 0; x < text_indexes_.size(); ++x) {
    TextIndex& ti = text_indexes_[x];
    const bool keep_positions = ti.spec.text->with_position;
    uint64_t docs = ti.docs_after.empty() ? 0 : ti.docs_after.back();
    uint64_t total = ti.tokens_after.empty() ? 0 : ti.tokens_after.back();
    for (uint32_t len : texts[x].length) {
      ti.doc_length.push_back(len);
      if (len > 0) {
        ++docs;
        total += len;
      }
    }
    ti.docs_after.push_back(docs);
    ti.tokens_after.push_back(total);
    int64_t added = static_cast<int64_t>(sizeof(uint32_t)) * wal_batch->num_rows() + 16;
    const TokenizedBatch& tb = texts[x];
    for (size_t e = 0; e < tb.entries.size();) {
      const uint32_t token = tb.entries[e].token;
      auto [it, fresh] = ti.postings.try_emplace(tb.tokens[token]);
      if (fresh) added += kTokenEntryBytes + static_cast<int64_t>(tb.tokens[token].size());
      for (; e < tb.entries.size() && tb.entries[e].token == token; ++e) {
        const TokenizedBatch::Entry& en = tb.entries[e];
        Posting p;
        p.position = static_cast<uint32_t>(rows_ + en.row);
        p.freq = en.freq;
        p.positions = static_cast<uint32_t>(ti.position_arena.size());
        if (keep_positions) {
          ti.position_arena.insert(ti.position_arena.end(), tb.positions.begin() + en.positions,
                                   tb.positions.begin() + en.positions + en.freq);
          added += static_cast<int64_t>(sizeof(uint32_t) * en.freq);
        }
        it->second.push_back(p);
        added += kPostingBytes;
      }
    }
    scalar_bytes += added;
  }
  index_bytes += scalar_bytes;
  index_bytes_ += scalar_bytes;
  starts_.push_back(rows_);
  rows_ += wal_batch->num_rows();
  bytes_ += bytes + index_bytes;
  last_position_ = std::max(last_position_, wal_position);
  batches_.push_back(std::move(wal_batch));
  return Status::OK();
}

int64_t MemTable::num_rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_;
}
int64_t MemTable::num_keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  return encoder_ ? static_cast<int64_t>(newest_.size()) : rows_;
}
int64_t MemTable::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}
uint64_t MemTable::first_wal_position() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_position_;
}
uint64_t MemTable::last_wal_position() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_position_;
}
int64_t MemTable::age_ms() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_ == 0 ? 0 : NowMs() - first_row_ms_;
}

MemTable::Contents MemTable::Snapshot() const {
  Contents c;
  std::lock_guard<std::mutex> lock(mu_);
  c.batches = batches_;
  c.num_rows = rows_;
  c.bytes = bytes_;
  c.last_wal_position = last_position_;
  if (!encoder_) {
    c.newest.resize(static_cast<size_t>(rows_));
    for (int64_t i = 0; i < rows_; ++i) c.newest[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
    return c;
  }
  // Positions only (4 bytes a key, sorted here): the flush re-encodes what keys it needs from
  // the batches, and a copy of every key string cost a 64 MiB-bound flush 17 MiB of heap.
  c.newest.reserve(newest_.size());
  newest_.ForEach([&](const KeyIndex::Entry& e) { c.newest.push_back(e.newest); });
  std::sort(c.newest.begin(), c.newest.end());
  c.superseded.reserve(static_cast<size_t>(rows_) - c.newest.size());
  size_t j = 0;
  for (int64_t r = 0; r < rows_; ++r) {
    if (j < c.newest.size() && c.newest[j] == static_cast<uint32_t>(r)) {
      ++j;
    } else {
      c.superseded.push_back(static_cast<uint32_t>(r));
    }
  }
  return c;
}

std::optional<std::pair<RecordBatchPtr, int64_t>> MemTable::Lookup(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  const KeyIndex::Entry* e = newest_.Find(key);
  if (e == nullptr) return std::nullopt;
  return RowAt(e->newest);
}

MemTable::Run MemTable::MergeRuns(const Run& a, const Run& b) {
  Run out;
  out.arena.reserve(a.arena.size() + b.arena.size());
  out.offsets.reserve(a.size() + b.size() + 1);
  out.positions.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  auto take = [&](const Run& r, size_t k) {
    out.arena.append(r.value(k));
    out.offsets.push_back(static_cast<uint32_t>(out.arena.size()));
    out.positions.push_back(r.positions[k]);
  };
  while (i < a.size() || j < b.size()) {
    // Ties: a's rows are older (smaller positions) -- value order, then position order.
    if (j == b.size() || (i < a.size() && a.value(i) <= b.value(j))) {
      take(a, i++);
    } else {
      take(b, j++);
    }
  }
  return out;
}

std::pair<RecordBatchPtr, int64_t> MemTable::RowAt(uint32_t pos) const {
  const int64_t p = pos;
  auto b = std::upper_bound(starts_.begin(), starts_.end(), p) - starts_.begin() - 1;
  return std::make_pair(batches_[static_cast<size_t>(b)], p - starts_[static_cast<size_t>(b)]);
}

int64_t MemTable::index_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_bytes_;
}

Result<MemTableSelection> MemTable::Select(int64_t upto, const std::string& column,
                                           const std::vector<ValueRange>& ranges) const {
  const Index* index = nullptr;
  if (!column.empty()) {
    for (const auto& x : indexes_) {
      if (x.spec.column == column) index = &x;
    }
    if (index == nullptr) {
      return Status::InvalidArgument("MemTable (generation {}): no in-memory index of column '{}'",
                                     generation_, column);
    }
  }
  MemTableSelection out;
  if (index) out.index = index->spec.name;
  std::vector<uint32_t> positions;
  std::lock_guard<std::mutex> lock(mu_);
  upto = std::min(upto, rows_);
  if (index) {
    for (const ValueRange& r : ranges) {
      for (const Run& run : index->runs) {
        // The first value at or past the low bound (binary search over the sorted values).
        size_t lo = 0, hi = run.size();
        if (r.lo) {
          const std::string_view bound(*r.lo);
          while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            const std::string_view v = run.value(mid);
            if (r.lo_inclusive ? v < bound : v <= bound) {
              lo = mid + 1;
            } else {
              hi = mid;
            }
          }
        }
        for (size_t i = lo; i < run.size(); ++i) {
          const std::string_view v = run.value(i);
          if (r.hi && (r.hi_inclusive ? v > *r.hi : v >= *r.hi)) break;
          const uint32_t p = run.positions[i];
          if (p >= upto) continue;  // came after the snapshot
          ++out.candidates;
          if (NewestAt(p, upto)) positions.push_back(p);
        }
      }
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());  // overlapping ranges
  } else if (encoder_) {
    positions.reserve(newest_.size());
    newest_.ForEach([&](const KeyIndex::Entry& e) {
      if (e.first >= upto) return;
      ++out.candidates;
      uint32_t p = e.first;
      while (!NewestAt(p, upto)) p = next_[p];
      positions.push_back(p);
    });
    std::sort(positions.begin(), positions.end());
  } else {
    out.candidates = upto;
    for (int64_t p = 0; p < upto; ++p) positions.push_back(static_cast<uint32_t>(p));
  }
  out.rows.reserve(positions.size());
  std::vector<ArrayPtr> key_cols;
  const Array* tomb = nullptr;
  const RecordBatch* last = nullptr;
  for (uint32_t p : positions) {
    auto [batch, row] = RowAt(p);
    if (batch.get() != last) {
      last = batch.get();
      const ArrayPtr t = batch->GetColumnByName(std::string(kTombstoneColumn));
      tomb = t.get();
      if (encoder_) {
        LANCE_ASSIGN_OR_RAISE(key_cols, encoder_->KeyColumns(*batch));
      }
    }
    if (tomb && !tomb->IsNull(row) && tomb->BoolValue(row)) continue;
    MemTableSelection::Row r{batch, row, p, {}};
    if (encoder_) encoder_->Encode(key_cols, row, &r.key);
    out.rows.push_back(std::move(r));
  }
  return out;
}

std::vector<RecordBatchPtr> MemTable::Batches(int64_t upto) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RecordBatchPtr> out;
  for (size_t i = 0; i < batches_.size() && starts_[i] < upto; ++i) out.push_back(batches_[i]);
  return out;
}

Result<const MemTable::TextIndex*> MemTable::TextIndexNamed(const std::string& column) const {
  for (const auto& x : text_indexes_) {
    if (x.spec.column == column) return &x;
  }
  return Status::InvalidArgument("MemTable (generation {}): no in-memory INVERTED index of column '{}'", generation_,
                                 column);
}

Result<MemTableTextMatches> MemTable::MatchText(int64_t upto, const std::string& column,
                                                const std::vector<std::string>& tokens) const {
  LANCE_ASSIGN_OR_RAISE(const TextIndex* index, TextIndexNamed(column));
  MemTableTextMatches out;
  out.with_positions = index->spec.text->with_position;
  out.docs_with.assign(tokens.size(), 0);
  std::lock_guard<std::mutex> lock(mu_);
  upto = std::max<int64_t>(0, std::min(upto, rows_));
  // The statistics of the first `upto` rows: whole batches, then the rows of a batch `upto`
  // falls inside (appends land whole batches, so only a caller's own count does that).
  const size_t whole =
      static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), upto) - starts_.begin());
  size_t batches_in = 0;  // batches wholly before upto
  for (size_t b = 0; b < whole; ++b) {
    const int64_t end = b + 1 < starts_.size() ? starts_[b + 1] : rows_;
    if (end <= upto) batches_in = b + 1;
  }
  if (batches_in > 0) {
    out.num_docs = index->docs_after[batches_in - 1];
    out.total_tokens = index->tokens_after[batches_in - 1];
  }
  for (int64_t r = batches_in < starts_.size() ? starts_[batches_in] : upto; r < upto; ++r) {
    const uint32_t len = index->doc_length[static_cast<size_t>(r)];
    if (len > 0) {
      ++out.num_docs;
      out.total_tokens += len;
    }
  }
  // position -> its document (a row holding one of the tokens, before upto)
  std::unordered_map<uint32_t, size_t> at;
  std::vector<MemTableTextMatches::Doc> docs;
  for (size_t t = 0; t < tokens.size(); ++t) {
    auto it = index->postings.find(tokens[t]);
    if (it == index->postings.end()) continue;
    const auto& list = it->second;
    const auto end = std::lower_bound(list.begin(), list.end(), static_cast<uint32_t>(upto),
                                      [](const Posting& p, uint32_t u) { return p.position < u; });
    out.docs_with[t] = static_cast<uint64_t>(end - list.begin());
    for (auto p = list.begin(); p != end; ++p) {
      if (!NewestAt(p->position, upto)) continue;  // a newer row of its key is visible
      auto [slot, fresh] = at.try_emplace(p->position, docs.size());
      if (fresh) {
        MemTableTextMatches::Doc d;
        d.position = p->position;
        d.length = index->doc_length[p->position];
        d.freq.assign(tokens.size(), 0);
        if (out.with_positions) d.positions.assign(tokens.size(), {});
        docs.push_back(std::move(d));
      }
      MemTableTextMatches::Doc& d = docs[slot->second];
      d.freq[t] = p->freq;
      if (out.with_positions) {
        d.positions[t].assign(index->position_arena.begin() + p->positions,
                              index->position_arena.begin() + p->positions + p->freq);
      }
    }
  }
  std::sort(docs.begin(), docs.end(), [](const auto& a, const auto& b) { return a.position < b.position; });
  std::vector<ArrayPtr> key_cols;
  const Array* tomb = nullptr;
  const RecordBatch* last = nullptr;
  for (auto& d : docs) {
    auto [batch, row] = RowAt(d.position);
    if (batch.get() != last) {
      last = batch.get();
      const ArrayPtr t = batch->GetColumnByName(std::string(kTombstoneColumn));
      tomb = t.get();
      if (encoder_) {
        LANCE_ASSIGN_OR_RAISE(key_cols, encoder_->KeyColumns(*batch));
      }
    }
    if (tomb && !tomb->IsNull(row) && tomb->BoolValue(row)) continue;
    d.batch = std::move(batch);
    d.row = row;
    if (encoder_) encoder_->Encode(key_cols, row, &d.key);
    out.docs.push_back(std::move(d));
  }
  return out;
}

Result<std::vector<std::string>> MemTable::TextDictionary(int64_t upto, const std::string& column) const {
  LANCE_ASSIGN_OR_RAISE(const TextIndex* index, TextIndexNamed(column));
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock(mu_);
  upto = std::max<int64_t>(0, std::min(upto, rows_));
  for (const auto& [token, list] : index->postings) {
    // postings are in row order: the token is among the first `upto` rows if its first is
    if (!list.empty() && static_cast<int64_t>(list.front().position) < upto) out.push_back(token);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void MemTable::Holds(int64_t upto, const std::vector<std::string>& keys, std::vector<uint8_t>* held) const {
  held->assign(keys.size(), 0);
  std::lock_guard<std::mutex> lock(mu_);
  if (!encoder_) return;
  for (size_t i = 0; i < keys.size(); ++i) {
    const KeyIndex::Entry* e = newest_.Find(keys[i]);
    (*held)[i] = e != nullptr && e->first < upto;
  }
}

}  // namespace lance::memwal
