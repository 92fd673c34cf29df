// FM-index (lance 12's "Fm" index, index_version 10, details /lance.index.pb.FMIndexDetails,
// an empty message): exact substring search over a utf8 / large_utf8 / binary / large_binary
// column, as the seed describes it -- the needle sanitized (\x00 and \xFF become spaces), sent
// to every segment (partition file), a BWT backward search in each, the matching text
// positions located through the sampled suffix array, mapped to the row addresses of their
// documents, and the partitions' answers united.
//
// Layout (what lance 12 writes; src/index/README.md has the table): one Lance file per
// partition of at most kFmPartitionDocs non-null values, `part_{N}_fm.lance`, with the columns
// node_id u32, block_id u32, words large_binary, prefix_rank u64, bit_len u64 -- one row per
// block of kFmBlockWords 64-bit words of each wavelet-tree node's bit vector (a node with no
// bits keeps one empty row), then the sampled suffix array (every kFmSampleRate-th entry, u64
// LE) packed into rows of at most kFmBlockWords entries with node_id 0xFFFFFFFF -- and the
// schema metadata (hex = lower-case hex of little-endian bytes):
//   num_bwt_nodes, bwt_len, num_sa_blocks, sa_samples_len, total_wavelet_rows, sa_sample_rate,
//   alphabet_size ("256"), partition_fingerprint (16 hex digits),
//   c_table (hex, 257 u64: the count of text bytes below each byte value),
//   huffman_codes (hex, for each of the 256 byte values: code bits u32, length u8, path length
//     u16, the wavelet node ids on the path u32 each),
//   tree_topology (hex, node count u32, then per node its left and right child: tag u8 (0 node,
//     1 leaf) and value u32 (node id / byte)),
//   row_ids (hex, u64 row address of each document), doc_start_positions (hex, u64 offset of
//     each document in the text).
// The text is the documents' sanitized bytes, each followed by \xFF, then one \x00; the BWT
// is over its suffix array; the wavelet tree is Huffman-shaped over the BWT's byte counts.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/scalar_index.h"
#include "lance/table/manifest.h"

namespace lance::index::fm {

inline constexpr int32_t kFmIndexVersion = 10;
inline constexpr const char* kFmDetailsTypeUrl = "/lance.index.pb.FMIndexDetails";
inline constexpr size_t kFmPartitionDocs = 10000;
inline constexpr uint64_t kFmSampleRate = 32;
inline constexpr size_t kFmBlockWords = 4096;
inline constexpr uint32_t kFmSaNodeId = 0xFFFFFFFFu;

// `bytes` with \x00 and \xFF replaced by spaces (what is indexed, and what a needle becomes).
std::string SanitizeFm(std::string_view bytes);

// The suffix array of `text` (SA-IS, linear time). Precondition: the last byte of `text` is
// 0 and occurs nowhere else (the FM text's terminator).
std::vector<int64_t> FmSuffixArray(std::string_view text);

// One partition in memory: the wavelet tree's bit vectors with rank samples, the C table,
// the SA samples and the document map.
class FmPartition {
 public:
  struct Code {
    uint32_t bits = 0;
    uint8_t length = 0;
    std::vector<uint32_t> path;  // wavelet node ids from the root
  };
  struct Child {
    bool leaf = true;
    uint32_t value = 0;  // node id or byte
  };
  struct BitVector {
    std::vector<uint64_t> words;
    std::vector<uint64_t> ranks;  // ones before each 8-word superblock, plus the total
    uint64_t len = 0;
    void BuildRanks();
    uint64_t Rank1(uint64_t pos) const;
    bool Get(uint64_t pos) const { return (words[pos >> 6] >> (pos & 63)) & 1; }
  };

  // Builds a partition over `docs` (row address, already sanitized bytes), in that order.
  static FmPartition Build(const std::vector<std::pair<uint64_t, std::string>>& docs);

  // The row addresses of the documents containing `needle` (already sanitized), each once, in
  // suffix order; an empty needle matches nothing (as lance 12). Errors: Corruption (a locate
  // walk that never reaches a sample: a damaged file), naming `where`.
  Result<std::vector<uint64_t>> Search(std::string_view needle, const std::string& where = "fm") const;

  // The file's columns and metadata (WriteFmPartition) and back (Decode checks every count,
  // code and offset: a damaged file is Corruption, never a crash or an endless locate walk).
  struct Columns {
    std::vector<uint32_t> node_id, block_id;
    std::vector<std::string> words;
    std::vector<uint64_t> prefix_rank, bit_len;
  };
  Columns ToColumns(uint64_t* wavelet_rows, uint64_t* sa_blocks) const;
  std::vector<std::pair<std::string, std::string>> Metadata(uint64_t wavelet_rows, uint64_t sa_blocks) const;
  static Result<FmPartition> Decode(const KeyValueMetadata& meta, const Columns& cols, const std::string& where);

  const std::vector<uint64_t>& row_ids() const { return row_ids_; }
  uint64_t bwt_len() const { return bwt_len_; }
  size_t num_nodes() const { return nodes_.size(); }

 private:
  uint64_t Rank(uint8_t c, uint64_t pos) const;
  uint8_t Access(uint64_t pos, uint64_t* rank) const;
  bool Locate(uint64_t pos, uint64_t* text_pos) const;

  std::vector<BitVector> nodes_;
  std::array<Code, 256> codes_{};
  std::vector<std::pair<Child, Child>> children_;
  std::vector<uint64_t> c_table_ = std::vector<uint64_t>(257, 0);
  std::vector<uint64_t> sa_samples_;
  std::vector<uint64_t> doc_starts_;
  std::vector<uint64_t> row_ids_;
  uint64_t bwt_len_ = 0;
};

// The file name of partition `id`: "part_{id}_fm.lance".
std::string FmPartitionFile(uint64_t id);

// Writes partition `id` of `part` into `store`.
Result<table::IndexFileInfo> WriteFmPartition(IndexStore& store, uint64_t id, const FmPartition& part);
// Reads one partition file. Errors: Corruption naming the file, IOError.
Result<FmPartition> ReadFmPartition(IndexStore& store, const std::string& file);

// Trains an FM index on `data` (strings or binary; nulls are not indexed) as lance 12 does:
// partitions of kFmPartitionDocs documents in the order handed over (an empty partition 0
// when no value is non-null). Errors: InvalidArgument (another column type), IOError.
Result<scalar::TrainedIndex> TrainFmIndex(IndexStore& store, const scalar::TrainingData& data);

// Opens the segment in `store` (every part_N_fm.lance it lists, N ascending). The index
// answers TextQuery (contains) exactly as lance 12: matches of the sanitized needle; null
// rows are never returned and null_rows stays empty (lance 12's NOT contains keeps them).
Result<std::shared_ptr<scalar::ScalarIndex>> OpenFmIndex(std::shared_ptr<IndexStore> store);

}  // namespace lance::index::fm
