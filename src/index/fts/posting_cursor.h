// A forward cursor over one token's postings in one partition, decoding a posting block (128
// documents) only when the cursor stops inside it, and its positions only when asked: a
// search that skips a block (its documents cannot reach the top k) or seeks past it (another
// token of an AND or phrase has no document there) never decodes it. Each block's first
// document and stored best score are read from its header at Init (a few bytes a block).
//
// Decoded blocks are checked as InvertedPartition::Postings checks a whole list (documents
// ascending and below the partition's count, frequencies above 0, positions within 32 bits):
// damaged files give Corruption naming the file and token, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/result.h"
#include "lance/index/fts/inverted_index.h"

namespace lance::index::fts {

class PostingCursor {
 public:
  static constexpr uint32_t kEnd = UINT32_MAX;

  // At the token's first document. Errors: Corruption (a block header cut short, block firsts
  // not ascending).
  Status Init(const InvertedPartition& part, uint32_t token_id, bool with_positions);

  // The current document (kEnd past the last). Until Materialize(), after a move into a block
  // not decoded yet, only a lower bound of it: the block's first document or the target sought.
  uint32_t doc() const { return doc_; }
  bool decoded() const { return decoded_; }
  // Decodes the current block if needed: doc() is then exact (possibly in a later block).
  Status Materialize();
  uint32_t freq() const { return freqs_[at_]; }  // after Materialize()
  size_t length() const { return length_; }

  Status Next();
  // MaxScore's tight loop (after Materialize()): passes over the decoded block's documents
  // from the current one while below(doc, freq) holds. True: stopped at one where it does not
  // (doc() exact); false: past the block, into the next one undecoded (doc() a lower bound).
  template <class Below>
  bool SkipInBlock(Below&& below) {
    for (; at_ < docs_.size(); ++at_) {
      if (!below(docs_[at_], freqs_[at_])) {
        doc_ = docs_[at_];
        return true;
      }
    }
    EnterBlock(block_ + 1, 0);
    return false;
  }
  // To the first document >= target (never backwards); blocks wholly before it are passed over
  // undecoded. SeekShallow decodes nothing: it only moves into the block that may hold the
  // target (doc() a lower bound until Materialize()).
  Status SeekTo(uint32_t target);
  void SeekShallow(uint32_t target);

  // The block that holds (or would hold) document `d`: the last block whose first document is
  // at most d (0 when d is before every block).
  size_t BlockOf(uint32_t d) const;
  size_t num_blocks() const { return first_.size(); }
  // The first document of the first block (kEnd without blocks).
  uint32_t FirstDoc() const { return first_.empty() ? kEnd : first_[0]; }
  // The best score the index stored for block b (over its own partition's statistics).
  float BlockMax(size_t b) const { return block_max_[b]; }
  // The first document of block b + 1 (kEnd for the last block): block b's documents are
  // below it.
  uint32_t BlockEnd(size_t b) const { return b + 1 < first_.size() ? first_[b + 1] : kEnd; }

  // lance 12's `_impacts` of the token (when the index stored them): per block its last
  // document and the (frequency, length code) pairs that dominate every document of it (no
  // document has a higher frequency at a code at most the pair's), codes ascending.
  bool has_impacts() const { return impact_e0_ != SIZE_MAX; }
  uint32_t BlockLast(size_t b) const { return part_->impact_last_[impact_e0_ + b]; }
  using ImpactPair = std::pair<uint32_t, uint32_t>;  // (frequency, length code)
  const ImpactPair* ImpactsBegin(size_t entry) const {
    return part_->impact_pairs_.data() + part_->impact_pair_at_[impact_e0_ + entry];
  }
  const ImpactPair* ImpactsEnd(size_t entry) const {
    return part_->impact_pairs_.data() + part_->impact_pair_at_[impact_e0_ + entry + 1];
  }
  // entries: the blocks 0 .. num_blocks() - 1, then the groups of 32 blocks
  size_t num_impact_entries() const { return num_impact_entries_; }
  // The highest frequency a document of block b with length code `code` can have: that of
  // the last pair with a code at most `code` (0: no document of the block can have it).
  uint32_t FreqCap(size_t b, uint32_t code) const {
    uint32_t f = 0;
    for (const ImpactPair* p = ImpactsBegin(b), *e = ImpactsEnd(b); p != e && p->second <= code; ++p) f = p->first;
    return f;
  }

  // The current document's positions, ascending [*begin, *end). Needs with_positions at Init.
  Status Positions(const uint32_t** begin, const uint32_t** end);

 private:
  Status LoadBlock(size_t b);
  // Into block b undecoded (doc() = max(target, its first)); past the last: kEnd.
  void EnterBlock(size_t b, uint32_t target);

  const InvertedPartition* part_ = nullptr;
  size_t impact_e0_ = SIZE_MAX;     // the token's first `_impacts` entry (SIZE_MAX: none)
  size_t num_impact_entries_ = 0;
  uint32_t token_ = 0;
  std::string what_;
  size_t length_ = 0;
  bool with_positions_ = false;
  std::vector<uint32_t> first_;     // per block: its first document (from the header)
  std::vector<float> block_max_;    // per block: the stored best score
  mutable size_t hint_ = 0;         // BlockOf's last answer
  size_t block_ = SIZE_MAX;         // the block the cursor is in
  bool decoded_ = false;            // docs_ / freqs_ hold block_
  std::vector<uint32_t> docs_, freqs_;
  size_t at_ = 0;                   // index in docs_
  uint32_t doc_ = kEnd;
  size_t pos_block_ = SIZE_MAX;     // the block whose positions are decoded
  std::vector<uint32_t> pos_start_, positions_, deltas_;
};

}  // namespace lance::index::fts
