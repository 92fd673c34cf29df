#include "index/fts/posting_cursor.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "index/fts/posting_codec.h"

namespace lance::index::fts {

Status PostingCursor::Init(const InvertedPartition& part, uint32_t token_id, bool with_positions) {
  if (token_id >= part.lengths_.size()) {
    return Status::InvalidArgument("{}: no token id {}", part.invert_path_, token_id);
  }
  part_ = &part;
  token_ = token_id;
  what_ = fmt::format("{} token {}", part.invert_path_, token_id);
  length_ = part.lengths_[token_id];
  with_positions_ = with_positions && !part.position_streams_.empty();
  const auto& blocks = part.blocks_[token_id];
  first_.resize(blocks.size());
  block_max_.resize(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    const std::string_view block = blocks[b];
    const size_t n = std::min<size_t>(kPackedBlock, length_ - b * kPackedBlock);
    if (block.size() < (n == kPackedBlock ? 8u : 5u)) {
      return Status::Corruption("{}: posting block {} of {} bytes", what_, b, block.size());
    }
    std::memcpy(&block_max_[b], block.data(), 4);
    if (n == kPackedBlock) {
      std::memcpy(&first_[b], block.data() + 4, 4);  // little-endian u32, as the codec reads it
    } else {
      size_t pos = 4;
      LANCE_ASSIGN_OR_RAISE(first_[b], ReadVarint(block, &pos, what_));
    }
    if (b > 0 && first_[b] <= first_[b - 1]) return Status::Corruption("{}: posting blocks not ascending", what_);
  }
  impact_e0_ = SIZE_MAX;
  num_impact_entries_ = 0;
  if (!part.impact_entry_.empty()) {
    const size_t e0 = part.impact_entry_[token_id];
    // per block: its last document within its range (Open checked the entry count)
    for (size_t b = 0; b < blocks.size(); ++b) {
      const uint32_t last = part.impact_last_[e0 + b];
      if (last < first_[b] || (b + 1 < blocks.size() && last >= first_[b + 1])) {
        return Status::Corruption("{}: impacts of block {} end at document {}, outside the block", what_, b, last);
      }
    }
    impact_e0_ = e0;
    num_impact_entries_ = part.impact_entry_[token_id + 1] - e0;
  }
  if (with_positions_ && part.position_block_offsets_[token_id].size() != blocks.size()) {
    return Status::Corruption("{}: {} position block offsets for {} posting blocks", what_,
                              part.position_block_offsets_[token_id].size(), blocks.size());
  }
  EnterBlock(0, 0);
  return Status::OK();
}

Status PostingCursor::LoadBlock(size_t b) {
  const size_t n = std::min<size_t>(kPackedBlock, length_ - b * kPackedBlock);
  docs_.resize(n);  // no-op but for the last block: sized once per cursor
  freqs_.resize(n);
  float score = 0;
  LANCE_RETURN_NOT_OK(
      DecodePostingBlockTo(part_->blocks_[token_][b], n, kPackedBlock, docs_.data(), freqs_.data(), &score, what_));
  // ascending (checked by the decode): the first and last bound every document
  if (docs_.front() < first_[b] || docs_.back() >= BlockEnd(b)) {
    return Status::Corruption("{}: posting block {} outside its range", what_, b);
  }
  if (docs_.back() >= part_->row_ids_.size()) {
    return Status::Corruption("{}: doc {} of {} documents", what_, docs_.back(), part_->row_ids_.size());
  }
  block_ = b;
  return Status::OK();
}

Status PostingCursor::Next() {
  if (doc_ == kEnd) return Status::OK();
  LANCE_RETURN_NOT_OK(Materialize());
  if (doc_ == kEnd) return Status::OK();
  if (++at_ < docs_.size()) {
    doc_ = docs_[at_];
    return Status::OK();
  }
  EnterBlock(block_ + 1, 0);
  return Status::OK();
}

void PostingCursor::EnterBlock(size_t b, uint32_t target) {
  if (b >= first_.size()) {
    doc_ = kEnd;
    return;
  }
  block_ = b;
  decoded_ = false;
  doc_ = std::max(target, first_[b]);
}

Status PostingCursor::Materialize() {
  while (!decoded_ && doc_ != kEnd) {
    const uint32_t target = doc_;
    LANCE_RETURN_NOT_OK(LoadBlock(block_));
    decoded_ = true;
    at_ = static_cast<size_t>(std::lower_bound(docs_.begin(), docs_.end(), target) - docs_.begin());
    if (at_ < docs_.size()) {
      doc_ = docs_[at_];
    } else {
      EnterBlock(block_ + 1, 0);  // every document of the block is below the target
    }
  }
  return Status::OK();
}

size_t PostingCursor::BlockOf(uint32_t d) const {
  // the walk asks for ascending documents: step forward from the last answer while that is
  // short, else search
  size_t b = hint_;
  if (b < first_.size() && first_[b] <= d) {
    for (int steps = 0; steps < 4 && b + 1 < first_.size() && first_[b + 1] <= d; ++steps) ++b;
    if (b + 1 >= first_.size() || first_[b + 1] > d) return hint_ = b;
  }
  auto it = std::upper_bound(first_.begin(), first_.end(), d);
  return hint_ = it == first_.begin() ? 0 : static_cast<size_t>(it - first_.begin()) - 1;
}

void PostingCursor::SeekShallow(uint32_t target) {
  if (doc_ >= target) return;
  if (decoded_ && target < BlockEnd(block_)) {
    // a walk's targets are mostly a few documents on (an intersection of lists of like
    // lengths): a short linear step first, the binary search only past it
    const uint32_t* d = docs_.data();
    const size_t n = docs_.size();
    size_t i = at_;
    for (int steps = 0; steps < 8 && i < n && d[i] < target; ++steps) ++i;
    if (i < n && d[i] < target) i = static_cast<size_t>(std::lower_bound(d + i, d + n, target) - d);
    at_ = i;
    if (at_ < docs_.size()) {
      doc_ = docs_[at_];
    } else {
      EnterBlock(block_ + 1, 0);
    }
    return;
  }
  EnterBlock(std::max(block_ == SIZE_MAX ? 0 : block_, BlockOf(target)), target);
}

Status PostingCursor::SeekTo(uint32_t target) {
  SeekShallow(target);
  return Materialize();
}

Status PostingCursor::Positions(const uint32_t** begin, const uint32_t** end) {
  if (!with_positions_) return Status::InvalidArgument("{}: positions were not asked for or not stored", what_);
  LANCE_RETURN_NOT_OK(Materialize());
  if (doc_ == kEnd) return Status::InvalidArgument("{}: no current document", what_);
  if (pos_block_ != block_) {
    const std::string_view stream = part_->position_streams_[token_];
    size_t pos = part_->position_block_offsets_[token_][block_];
    if (pos > stream.size()) return Status::Corruption("{}: position block offset {} past the stream", what_, pos);
    uint64_t count = 0;
    for (uint32_t f : freqs_) count += f;
    if (count > stream.size() * 8 + kPackedBlock) {
      return Status::Corruption("{}: {} positions cannot fit a stream of {} bytes", what_, count, stream.size());
    }
    deltas_.clear();
    LANCE_RETURN_NOT_OK(DecodePositionRun(stream, &pos, static_cast<size_t>(count), &deltas_, what_));
    // per document: its deltas summed from its first position, through raw pointers (a
    // push_back per position kept the vectors' ends in memory, the block's hottest loop)
    positions_.resize(deltas_.size());
    pos_start_.resize(freqs_.size() + 1);
    const uint32_t* in = deltas_.data();
    uint32_t* out = positions_.data();
    uint32_t* starts = pos_start_.data();
    size_t k = 0;
    starts[0] = 0;
    uint64_t widest = 0;
    for (size_t d = 0; d < freqs_.size(); ++d) {
      const uint32_t f = freqs_[d];
      uint64_t cur = 0;
      for (uint32_t j = 0; j < f; ++j) {
        cur += in[k + j];
        out[k + j] = static_cast<uint32_t>(cur);
      }
      widest = std::max(widest, cur);  // a document's positions ascend: its last is its largest
      k += f;
      starts[d + 1] = static_cast<uint32_t>(k);
    }
    if (widest > 0xffffffffull) return Status::Corruption("{}: position over 32 bits", what_);
    pos_block_ = block_;
  }
  *begin = positions_.data() + pos_start_[at_];
  *end = positions_.data() + pos_start_[at_ + 1];
  return Status::OK();
}

}  // namespace lance::index::fts
