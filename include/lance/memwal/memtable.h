// MemTable: the in-memory generation of one MemWAL shard (mem_wal.md "MemTable").
//
// An append log of WAL batches (the table's columns + `_tombstone`), each tagged with the WAL
// position that made it durable; later appends have larger row positions. For a primary-key
// table an implicit key index (encoded key -> newest row position) gives last-write-wins: the
// visible row of a key is its newest, and a key whose newest row is a tombstone is absent.
// Append-only tables (no primary key) keep every row.
//
// Maintained scalar indexes (BTREE / BITMAP of mem_wal.md "Maintained indexes") are mirrored in
// memory: for each, sorted runs of (a column's encoded value -- the order-preserving encoding
// of primary_key.h --, row position), one run per inserted batch (sorted before the lock is
// taken), the last two merged while the older is at most twice the newer (as a binary
// counter: O(log n) runs, each row merged O(log n) times), updated by every Insert. Every
// row is indexed (hidden duplicates too); Select keeps a candidate only when it is its key's
// newest row as of the read's snapshot (`upto` rows) and not a tombstone, as a flushed
// generation's deletion vector masks its index.
//
// Maintained INVERTED indexes are mirrored as in-memory postings (MatchText): each row's text
// tokenized with the base index's tokenizer (every row, hidden duplicates too, as a flushed
// generation's index holds them; null text and rows without a token hold no document), the
// postings of each token in row order (with positions when the index keeps them), appended by
// every Insert (tokenized before the lock is taken) and counted in bytes(). A search sees the
// BM25 statistics of the first `upto` rows -- what the generation's own index will hold when
// the MemTable is flushed -- and returns only the rows that are their key's newest as of
// `upto` and not tombstones.
//
// Reads take a snapshot by row count: a reader notes num_rows() and passes it as `upto`;
// rows appended later are invisible to it (each row records the next row of its key, so
// "newest as of upto" is exact while appends go on).
//
// The generation a MemTable becomes when flushed is fixed at creation (the shard manifest's
// current_generation). Thread-safe: Insert and the readers may run concurrently; Contents()
// is a consistent copy (the batches are shared, immutable).
#pragma once

#include <cstdint>
#include <string_view>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/index/fts/tokenizer.h"
#include "lance/memwal/key_index.h"
#include "lance/memwal/primary_key.h"

namespace lance::memwal {

// Bytes of the buffers of `batch` (children and dictionaries included).
int64_t InMemoryBytes(const RecordBatch& batch);
// What one key of the implicit key index costs beside its bytes past the string's inline
// buffer: a hash node (next pointer, std::string, row position, cached hash) as malloc hands
// it out, and its bucket pointer.
inline constexpr int64_t kKeyIndexEntryBytes = 72;
// What a row costs beside its buffers: the next-row-of-its-key link (4 bytes), and in each
// in-memory scalar index its position and value offset (8 bytes) beside the encoded value
// itself (counted as it is; an append reserves kIndexValueReserve a row for it).
inline constexpr int64_t kRowLinkBytes = 4;
inline constexpr int64_t kIndexRowBytes = 8;
inline constexpr int64_t kIndexValueReserve = 24;

// What an in-memory INVERTED index costs beside its token strings: a posting (row position,
// frequency, offset of its positions) and a row's document length.
inline constexpr int64_t kPostingBytes = 12;
inline constexpr int64_t kTokenEntryBytes = 64;  // a hash node of the token -> postings map

// A maintained index mirrored in the MemTable: a scalar one (BTREE / BITMAP: sorted runs), or,
// with `text`, an INVERTED one (postings tokenized with these options).
struct MemTableIndexSpec {
  std::string name;    // the base index's name (e.g. "id_idx")
  std::string column;  // the top-level column it keys
  std::optional<index::fts::TokenizerOptions> text;
};

// A full-text match over a MemTable's first `upto` rows (MemTable::MatchText), or over a WAL
// tail's rows (the query layer builds the same): the corpus statistics of every row, and the
// visible rows holding at least one of the query tokens.
struct MemTableTextMatches {
  uint64_t num_docs = 0;      // rows with at least one token (hidden duplicates too)
  uint64_t total_tokens = 0;  // their tokens
  std::vector<uint64_t> docs_with;  // per query token: the documents holding it
  bool with_positions = false;
  struct Doc {
    RecordBatchPtr batch;
    int64_t row = 0;
    uint32_t position = 0;  // row position (insert order)
    uint32_t length = 0;    // tokens of the row
    std::string key;        // encoded primary key (empty: append-only)
    // Per query token: its positions in the row (with_positions), else its frequency as one
    // entry of `freq`; a token the row lacks has freq 0.
    std::vector<uint32_t> freq;
    std::vector<std::vector<uint32_t>> positions;
  };
  std::vector<Doc> docs;  // row position order
};

// Encoded values of an indexed column (memwal::PrimaryKeyEncoder of that one column): a range
// (an unset bound is open), or, with `lo == hi` both inclusive, one value.
struct ValueRange {
  std::optional<std::string> lo;
  bool lo_inclusive = true;
  std::optional<std::string> hi;
  bool hi_inclusive = true;
};

// Rows a MemTable read selected: positions ascending (insert order) with their batch and row,
// and each one's encoded primary key (empty for an append-only table).
struct MemTableSelection {
  struct Row {
    RecordBatchPtr batch;
    int64_t row = 0;
    uint32_t position = 0;
    std::string key;
  };
  std::vector<Row> rows;
  int64_t candidates = 0;  // positions the index (or the key index) offered
  std::string index;       // the in-memory index used ("" when every key's newest row)
};

class MemTable {
 public:
  // `wal_schema`: the shard's WAL schema; `primary_key`: key columns (empty: append-only).
  // Errors: as PrimaryKeyEncoder::Make.
  // `indexes`: the maintained scalar indexes to mirror (columns of the WAL schema of a type
  // the key encoding takes; errors as PrimaryKeyEncoder::Make).
  static Result<std::unique_ptr<MemTable>> Make(SchemaPtr wal_schema,
                                                std::vector<std::string> primary_key,
                                                uint64_t generation,
                                                std::vector<MemTableIndexSpec> indexes = {});

  // Appends `wal_batch` (of the WAL schema), durable in WAL entry `wal_position`.
  // Errors: InvalidArgument (schema, key column types).
  Status Insert(RecordBatchPtr wal_batch, uint64_t wal_position);

  uint64_t generation() const { return generation_; }
  const SchemaPtr& schema() const { return schema_; }
  const std::vector<std::string>& primary_key() const { return primary_key_; }
  int64_t num_rows() const;
  int64_t num_keys() const;  // distinct keys (rows for append-only)
  // The batches' buffers and an estimate of the key index (the memory the MemTable holds).
  int64_t bytes() const;
  bool empty() const { return num_rows() == 0; }
  // The WAL positions the rows came from (0 when empty).
  uint64_t first_wal_position() const;
  uint64_t last_wal_position() const;
  // Milliseconds since the first row arrived (0 when empty), for the age flush trigger.
  int64_t age_ms() const;

  struct Contents {
    std::vector<RecordBatchPtr> batches;  // insert order
    int64_t num_rows = 0;
    // Row positions (0-based over `batches`) hidden by a newer row of the same key, ascending.
    std::vector<uint32_t> superseded;
    // The newest row position of every key (tombstones included), ascending.
    std::vector<uint32_t> newest;
    uint64_t last_wal_position = 0;
    int64_t bytes = 0;
  };
  Contents Snapshot() const;

  // The newest row of `key` (an encoded key): the batch and row, nullopt when absent.
  // The row may be a tombstone (check `_tombstone`).
  std::optional<std::pair<RecordBatchPtr, int64_t>> Lookup(const std::string& key) const;

  // The scalar (BTREE / BITMAP) in-memory indexes.
  const std::vector<MemTableIndexSpec>& indexes() const { return index_specs_; }
  // The in-memory INVERTED indexes.
  const std::vector<MemTableIndexSpec>& text_indexes() const { return text_specs_; }
  // The in-memory INVERTED index of `column`, null when none.
  const MemTableIndexSpec* TextIndexOf(const std::string& column) const;
  // The in-memory scalar index of `column`, null when none.
  const MemTableIndexSpec* IndexOf(const std::string& column) const;
  // Bytes the in-memory scalar indexes hold (part of bytes()).
  int64_t index_bytes() const;

  // The visible rows among the first `upto` rows: each key's newest row as of `upto` that is
  // not a tombstone (append-only: every row). With `column` (an indexed column) only the
  // rows whose value falls in one of `ranges` (nulls never do); empty `column`: every key's
  // newest row. Errors: InvalidArgument (`column` has no in-memory index).
  Result<MemTableSelection> Select(int64_t upto, const std::string& column,
                                   const std::vector<ValueRange>& ranges) const;
  // The batches holding the first `upto` rows (appends land whole batches: upto as num_rows()
  // returned it falls between two), insert order.
  std::vector<RecordBatchPtr> Batches(int64_t upto) const;
  // The rows among the first `upto` holding any of `tokens` (tokens of the index's tokenizer)
  // in the in-memory INVERTED index of `column`, each its key's newest row as of `upto` and not
  // a tombstone, with the statistics of all `upto` rows. Errors: InvalidArgument (`column` has
  // no in-memory INVERTED index).
  Result<MemTableTextMatches> MatchText(int64_t upto, const std::string& column,
                                        const std::vector<std::string>& tokens) const;
  // The term dictionary of the in-memory INVERTED index of `column` as of the first `upto`
  // rows (every token some row among them holds, hidden duplicates too, as a flushed
  // generation's index holds them), sorted by bytes: what a fuzzy query expands over. Errors:
  // InvalidArgument (`column` has no in-memory INVERTED index).
  Result<std::vector<std::string>> TextDictionary(int64_t upto, const std::string& column) const;
  // Whether each of `keys` (encoded) has a row among the first `upto` rows (tombstones
  // included: they hide older rows too). `held` gets one entry per key.
  void Holds(int64_t upto, const std::vector<std::string>& keys, std::vector<uint8_t>* held) const;

 private:
  // Values sorted (ties by position): value i is arena[offsets[i], offsets[i + 1]).
  struct Run {
    std::string arena;
    std::vector<uint32_t> offsets{0};
    std::vector<uint32_t> positions;
    size_t size() const { return positions.size(); }
    std::string_view value(size_t i) const {
      return std::string_view(arena).substr(offsets[i], offsets[i + 1] - offsets[i]);
    }
    int64_t bytes() const {
      return static_cast<int64_t>(arena.size()) + kIndexRowBytes * static_cast<int64_t>(positions.size());
    }
  };
  struct Index {
    MemTableIndexSpec spec;
    PrimaryKeyEncoder encoder;  // of the one column
    std::vector<Run> runs;      // oldest (largest) first
  };
  // An INVERTED index in memory: per token its postings in row order.
  struct Posting {
    uint32_t position = 0;   // row position
    uint32_t freq = 0;
    uint32_t positions = 0;  // offset of its `freq` token positions in `position_arena`
  };
  struct TextIndex {
    MemTableIndexSpec spec;
    std::unique_ptr<std::mutex> tokenize_mu;  // the tokenizer is not thread-safe
    std::unique_ptr<index::fts::Tokenizer> tokenizer;
    std::unordered_map<std::string, std::vector<Posting>> postings;
    std::vector<uint32_t> position_arena;  // with positions
    std::vector<uint32_t> doc_length;      // per row (0: no document)
    std::vector<uint64_t> docs_after;      // per batch: documents in the batches up to it
    std::vector<uint64_t> tokens_after;    // per batch: their tokens
  };
  // One batch tokenized (outside the lock), flat: its unique tokens, and its postings grouped
  // by token (each group in row order), their positions in one array.
  struct TokenizedBatch {
    struct Entry {
      uint32_t token = 0;      // index into `tokens`
      uint32_t row = 0;        // row in the batch
      uint32_t freq = 0;
      uint32_t positions = 0;  // offset of its `freq` positions in `positions`
    };
    std::vector<std::string> tokens;
    std::vector<Entry> entries;
    std::vector<uint32_t> positions;
    std::vector<uint32_t> length;  // per row: its tokens
  };
  static Result<TokenizedBatch> Tokenize(TextIndex& index, const RecordBatch& batch);
  // The in-memory INVERTED index of `column`. Errors: InvalidArgument (none).
  Result<const TextIndex*> TextIndexNamed(const std::string& column) const;
  static Run MergeRuns(const Run& a, const Run& b);
  static constexpr uint32_t kNoNext = UINT32_MAX;

  MemTable(SchemaPtr schema, std::vector<std::string> pk, std::optional<PrimaryKeyEncoder> enc,
           uint64_t generation);
  // Whether row `pos` is its key's newest as of `upto` (under mu_).
  bool NewestAt(uint32_t pos, int64_t upto) const { return next_[pos] == kNoNext || next_[pos] >= upto; }
  std::pair<RecordBatchPtr, int64_t> RowAt(uint32_t pos) const;  // under mu_

  SchemaPtr schema_;
  std::vector<std::string> primary_key_;
  std::optional<PrimaryKeyEncoder> encoder_;
  uint64_t generation_;

  mutable std::mutex mu_;
  std::vector<RecordBatchPtr> batches_;
  std::vector<int64_t> starts_;  // first row position of each batch
  KeyIndex newest_;  // per key: its newest and first rows (first: held as of any snapshot past it)
  std::vector<uint32_t> next_;  // per row: the next row of its key (kNoNext: none yet)
  std::vector<MemTableIndexSpec> index_specs_;
  std::vector<Index> indexes_;
  std::vector<MemTableIndexSpec> text_specs_;
  std::vector<TextIndex> text_indexes_;
  int64_t index_bytes_ = 0;
  int64_t rows_ = 0;
  int64_t bytes_ = 0;
  uint64_t first_position_ = 0;
  uint64_t last_position_ = 0;
  int64_t first_row_ms_ = 0;
};

}  // namespace lance::memwal
