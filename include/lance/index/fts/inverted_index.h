// Reading and searching a lance 12 INVERTED (full-text) index segment: `metadata.lance` (params,
// partition ids, deleted fragments) and per partition `part_N_tokens.lance` (the token
// dictionary: an fst map token -> id), `part_N_docs.lance` (row id and token count of every
// document; a document is the row of this file), `part_N_invert.lance` (per token: posting
// blocks of 128 documents, the document count, the best score, and with positions a position
// stream with each block's offset). Layouts: src/index/fts/posting_codec.h, fst_map.h and
// src/index/README.md. Everything read is checked: damaged files give Corruption naming the
// file, never a crash.
//
// Scoring is lance 12's BM25 (bm25.h) over the statistics of every partition together.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lance/core/result.h"
#include "lance/index/fts/tokenizer.h"
#include "lance/index/index_store.h"

namespace lance::index::fts {

// lance 12's BM25 constants and formulas, in its f32 operation order.
inline constexpr float kBm25K1 = 1.2f;
inline constexpr float kBm25B = 0.75f;
// ln((N - n + 0.5) / (n + 0.5) + 1) in f32: n documents of N hold the token.
float Bm25Idf(uint64_t docs_with_token, uint64_t num_docs);
// (K1 + 1) f / (f + K1 (1 - B + B dl / avgdl)) in f32.
float Bm25DocWeight(uint32_t freq, uint32_t doc_tokens, float avg_doc_tokens);
// total_tokens / num_docs in f32 (each converted first).
float Bm25AvgDocLength(uint64_t total_tokens, uint64_t num_docs);

// One token's postings in one partition: documents ascending, their frequencies and (with
// positions) each document's positions, ascending, at positions[pos_start[i] .. pos_start[i+1]).
struct PostingList {
  std::vector<uint32_t> docs;
  std::vector<uint32_t> freqs;
  std::vector<float> block_max_scores;
  bool has_positions = false;
  std::vector<uint32_t> pos_start;
  std::vector<uint32_t> positions;
};

class PostingCursor;

class InvertedPartition {
 public:
  uint64_t id() const { return id_; }
  uint64_t num_docs() const { return row_ids_.size(); }
  uint64_t total_tokens() const { return total_tokens_; }
  size_t num_tokens() const { return token_ids_.size(); }
  // The dictionary, token -> token id.
  const std::unordered_map<std::string, uint32_t>& tokens() const { return token_ids_; }
  std::optional<uint32_t> TokenId(std::string_view token) const;
  // Documents holding token `token_id` (its `_length`).
  uint32_t PostingLength(uint32_t token_id) const { return lengths_[token_id]; }
  float MaxScore(uint32_t token_id) const { return max_scores_[token_id]; }
  uint64_t RowId(uint32_t doc) const { return row_ids_[doc]; }
  uint32_t DocTokens(uint32_t doc) const { return doc_tokens_[doc]; }
  // The fewest tokens of any document (0 when none): bounds BM25 doc weights from above.
  uint32_t MinDocTokens() const { return min_doc_tokens_; }
  // Decodes the postings of `token_id` (positions only when asked and stored).
  Result<PostingList> Postings(uint32_t token_id, bool with_positions) const;
  // The dictionary's tokens in byte order (the order of its fst).
  const std::vector<const std::string*>& SortedTokens() const { return sorted_tokens_; }

 private:
  friend class InvertedIndex;
  friend class PostingCursor;  // src/index/fts/posting_cursor.h: block-at-a-time decoding
  uint64_t id_ = 0;
  std::string invert_path_;
  std::unordered_map<std::string, uint32_t> token_ids_;
  std::vector<const std::string*> sorted_tokens_;  // keys of token_ids_, byte order
  std::vector<uint64_t> row_ids_;
  std::vector<uint32_t> doc_tokens_;
  uint64_t total_tokens_ = 0;
  uint32_t min_doc_tokens_ = 0;
  std::vector<uint32_t> lengths_;
  std::vector<float> max_scores_;
  // per token: the posting blocks (binary values of `_posting`) and the position stream
  std::vector<std::vector<std::string_view>> blocks_;
  std::vector<std::string_view> position_streams_;
  std::vector<std::vector<uint32_t>> position_block_offsets_;
  // `_impacts` (parsed at Open; empty when the file has none): token t's values (one per
  // posting block, then one per group of 32 blocks) are entries impact_entry_[t] ..
  // impact_entry_[t + 1]; entry e is the range's last document impact_last_[e] and its
  // (frequency, length code) pairs impact_pairs_[impact_pair_at_[e] .. impact_pair_at_[e + 1]),
  // frequency and code ascending (src/index/fts/posting_codec.h EncodeImpacts)
  std::vector<uint32_t> impact_entry_;
  std::vector<uint32_t> impact_last_;
  std::vector<uint32_t> impact_pair_at_;
  std::vector<std::pair<uint32_t, uint32_t>> impact_pairs_;
  std::shared_ptr<const void> keep_alive_;  // the decoded invert file the views point into
  int64_t memory_bytes_ = 0;
};

// What a search did, for tests and benchmarks: documents scored (a BM25 sum computed).
struct SearchStats {
  uint64_t scored = 0;
};

// A match of rows: best first is the caller's business; row ids as the index stores them
// (row addresses for tables without stable row ids).
struct ScoredRow {
  uint64_t row_id = 0;
  float score = 0;
};

// Result order: higher score first, equal scores by row id.
bool Better(const ScoredRow& a, const ScoredRow& b);

enum class MatchMode { kAny, kAll, kPhrase };

// A fuzzy match query's expansion, as lance 12 expands it per partition: each query token
// becomes the dictionary tokens within `fuzziness` edits (Levenshtein over code points:
// insert, delete, substitute) that start with its first `prefix_length` bytes, in dictionary
// (byte) order, at most `max_expansions` over all query tokens. The expansions are then one
// query: repeats kept (two query tokens expanding to one token score it twice), and AND needs
// every query token matched by one of its expansions. fuzziness 0: no expansion.
struct FuzzyOptions {
  uint32_t fuzziness = 0;
  size_t max_expansions = 50;
  uint32_t prefix_length = 0;
};

// The Levenshtein distance of two UTF-8 strings over code points, if at most `max` (else
// nullopt). Bytes that are not UTF-8 count as one code point each.
std::optional<uint32_t> BoundedEditDistance(std::string_view a, std::string_view b, uint32_t max);

// `tokens` expanded over `part`'s dictionary by `fuzzy` (see FuzzyOptions), in order; with
// `origin`, each expansion's query token index beside it.
std::vector<std::string> ExpandFuzzy(const InvertedPartition& part, const std::vector<std::string>& tokens,
                                     const FuzzyOptions& fuzzy, std::vector<uint32_t>* origin = nullptr);
// The same over any dictionary, `sorted` by bytes and without repeats (an in-memory index's,
// a tail's tokens).
std::vector<std::string> ExpandFuzzy(const std::vector<std::string>& sorted, const std::vector<std::string>& tokens,
                                     const FuzzyOptions& fuzzy, std::vector<uint32_t>* origin = nullptr);

class InvertedIndex {
 public:
  // Opens a segment: every file is read and checked now (the partitions' dictionaries, docs
  // and posting columns; postings are decoded per query). Errors: NotFound (a file missing),
  // Corruption, NotSupported (an index format, layout or codec lance 12 does not write by
  // default: format_version other than 2, posting blocks of 256, legacy token sets).
  static Result<std::shared_ptr<const InvertedIndex>> Open(std::shared_ptr<IndexStore> store);

  const TokenizerOptions& options() const { return options_; }
  bool with_position() const { return options_.with_position; }
  const std::vector<std::shared_ptr<InvertedPartition>>& partitions() const { return partitions_; }
  // Fragments removed from the index's coverage (metadata `deleted_fragments`).
  const std::vector<uint32_t>& deleted_fragments() const { return deleted_fragments_; }

  // Corpus statistics over every partition.
  uint64_t num_docs() const { return num_docs_; }
  uint64_t total_tokens() const { return total_tokens_; }
  uint64_t DocsWithToken(std::string_view token) const;
  // Bytes held (the files' decoded columns and the dictionaries), for cache accounting.
  int64_t MemoryBytes() const;

  // The documents matching `tokens` (a query's tokens in order, repeats kept; for a phrase,
  // `positions[i]` is token i's position relative to the first), scored with this index's
  // statistics: score = sum over tokens of idf * doc weight. kAny: any token; kAll: every
  // position (with `positions` given, tokens at one position are alternatives, as lance 12
  // answers AND over ngram tokens; else every token); kPhrase: every token at its relative
  // position (needs positions: InvalidArgument otherwise). Rows `keep` refuses (deleted, filtered out) are left out; null keeps all.
  // `limit` > 0: only the best `limit` rows (Better order), best first; 0: every match, in
  // no particular order. Documents are visited in id order, one at a time, over the query
  // tokens' posting lists. With `fuzzy` (fuzziness > 0; kAny or kAll only), each partition
  // searches its own expansion of `tokens` (ExpandFuzzy; kAll then needs each query token
  // matched by one of its expansions), each expanded token scored with its statistics over
  // every partition. kPhrase with `slop` > 0: the tokens in order, each within `slop` of where
  // the previous one puts it (PhraseMatches). kAny with `limit` > 0 is a MaxScore top-k: the
  // query tokens whose summed upper bounds (idf x the doc weight of their highest frequency in
  // the partition's shortest document) cannot beat the current k-th score only score the
  // documents the others find, so most postings of common tokens are never scored (`stats`).
  // Postings are decoded a block (128 documents) at a time, when the walk stops in it. Every
  // top-k is also block-max: where the bounds of the blocks every token has at a document (the
  // stored best scores with one partition, else the blocks' `_impacts` over the index's
  // statistics; with impacts also their joint bound at one length) fall below the k-th score,
  // the walk jumps to the next block boundary without decoding; per document a token not
  // walked is bounded by its block's impacts at that document's length. kAll (one token per
  // position) and kPhrase walk the rarest token and seek the others to its documents; a
  // phrase's positions are decoded only for documents whose score could enter the top k and
  // that every token's impacts allow.
  Result<std::vector<ScoredRow>> Search(const std::vector<std::string>& tokens,
                                        const std::vector<uint32_t>& positions, MatchMode mode,
                                        const std::function<bool(uint64_t)>& keep, size_t limit = 0,
                                        const FuzzyOptions* fuzzy = nullptr, uint32_t slop = 0,
                                        SearchStats* stats = nullptr) const;

 private:
  InvertedIndex() = default;
  static Status LoadImpacts(const RecordBatch& inv, const std::string& ipath, InvertedPartition* part);
  // One partition's matches of `tokens` pushed into `out` (a heap when limit > 0).
  Status SearchPartition(const InvertedPartition& part, const std::vector<std::string>& tokens,
                         const std::vector<uint32_t>& positions, MatchMode mode,
                         const std::function<bool(uint64_t)>& keep, size_t limit, uint32_t slop,
                         std::vector<ScoredRow>* out, SearchStats* stats) const;
  TokenizerOptions options_;
  std::vector<std::shared_ptr<InvertedPartition>> partitions_;
  std::vector<uint32_t> deleted_fragments_;
  uint64_t num_docs_ = 0;
  uint64_t total_tokens_ = 0;
};

// Whether a document with these per-term positions (term i's ascending positions; `rel[i]`
// its position in the query, ascending) holds the phrase, as lance 12 decides it. slop 0: some
// start s with s + rel[i] among term i's positions for every i. slop > 0: lance 12's greedy
// walk: one cursor per term, each at its first position; with term i's cursor at position p_i
// and d_i = p_i - rel[i], the phrase holds when d_i <= d_{i+1} <= d_i + slop for every i; else
// every cursor moves to its first position with d at least the largest of max(d_i + 1,
// d_{i+1} - slop) (or d_i where d_i > d_{i+1}) over the pairs checked up to the first that
// failed, and the walk repeats until a cursor runs out (no match). The walk can miss a match
// an exhaustive search would find: lance 12 misses it too.
bool PhraseMatches(const std::vector<const uint32_t*>& begins, const std::vector<const uint32_t*>& ends,
                   const std::vector<uint32_t>& rel, uint32_t slop = 0);

// Whether some choice of one position p_i per term has d_i <= d_{i+1} <= d_i + slop for every
// i (d_i = p_i - rel[i]): the exhaustive form of PhraseMatches, as lance 12 checks the rows its
// index does not cover. Equal to PhraseMatches for slop 0.
bool PhraseMatchesAnywhere(const std::vector<const uint32_t*>& begins, const std::vector<const uint32_t*>& ends,
                           const std::vector<uint32_t>& rel, uint32_t slop);

}  // namespace lance::index::fts
