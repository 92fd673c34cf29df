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
#include <functional>
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

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::index::fm {

inline constexpr int32_t kFmIndexVersion = 10;
inline constexpr const char* kFmDetailsTypeUrl = "/lance.index.pb.FMIndexDetails";
inline constexpr size_t kFmPartitionDocs = 10000;
inline constexpr uint64_t kFmSampleRate = 32;
inline constexpr size_t kFmBlockWords = 4096;
inline constexpr uint32_t kFmSaNodeId = 0xFFFFFFFFu;

// `bytes` with \x00 and \xFF replaced by spaces (what is indexed, and what a needle becomes).
std::string SanitizeFm(std::string_view bytes);

// The suffix array of `text` (libdivsufsort). FmSuffixArray32: the same with 32-bit entries,
// for a text shorter than 2^31 bytes (empty for a longer one).
std::vector<int64_t> FmSuffixArray(std::string_view text);
std::vector<int32_t> FmSuffixArray32(std::string_view text);

// The BWT of `text` (bwt[i] = the byte before the i-th smallest suffix, the last byte before
// the whole text's) and its suffix array's every kFmSampleRate-th entry, from a sort of its
// tokens (runs of bytes above ' ' but \xFF, each with the separator after it) instead of its
// bytes (src/index/fm/token_bwt.cc): the same answer as from FmSuffixArray. The text must end
// with its only \x00 after a separator (the FM text does); false (nothing written) when it does
// not, a token is over 256 bytes, or -- unless `force` -- the distinct tokens hold over a
// quarter of the text (the byte sorter is as quick then).
bool FmBwtByTokens(std::string_view text, std::string* bwt, std::vector<uint64_t>* samples, bool force = false);

// One partition as it is built: the wavelet tree's bit vectors, the C table, the SA samples
// and the document map, and their file columns and metadata (WriteFmPartition). Reading goes
// through FmPartitionMeta and FmBlock below.
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
    uint64_t len = 0;
  };

  // Builds a partition over `docs` (row address, already sanitized bytes), in that order.
  static FmPartition Build(const std::vector<std::pair<uint64_t, std::string>>& docs);
  // The same over raw bytes (sanitized as they are laid into the text; no copy per value).
  static FmPartition BuildRaw(const std::vector<std::pair<uint64_t, std::string_view>>& docs);

  // The file's columns and metadata.
  struct Columns {
    std::vector<uint32_t> node_id, block_id;
    std::vector<std::string> words;
    std::vector<uint64_t> prefix_rank, bit_len;
  };
  Columns ToColumns(uint64_t* wavelet_rows, uint64_t* sa_blocks) const;
  std::vector<std::pair<std::string, std::string>> Metadata(uint64_t wavelet_rows, uint64_t sa_blocks) const;

  const std::vector<uint64_t>& row_ids() const { return row_ids_; }
  uint64_t bwt_len() const { return bwt_len_; }
  size_t num_nodes() const { return nodes_.size(); }

 private:
  std::vector<BitVector> nodes_;
  std::array<Code, 256> codes_{};
  std::vector<std::pair<Child, Child>> children_;
  std::vector<uint64_t> c_table_ = std::vector<uint64_t>(257, 0);
  std::vector<uint64_t> sa_samples_;
  std::vector<uint64_t> doc_starts_;
  std::vector<uint64_t> row_ids_;
  uint64_t bwt_len_ = 0;
};

// What a search of a partition needs before it touches a block: the schema metadata (C table,
// codes, topology, documents) and the small columns (node_id, block_id, prefix_rank, bit_len),
// all checked against each other -- every node's bit count and one count equal what the C
// table and the tree say, block ids run 0, 1, ..., prefix ranks ascend within a block's reach
// -- so a damaged file is Corruption before any block is read.
struct FmPartitionMeta {
  struct Node {
    uint64_t len = 0;   // bits
    uint64_t ones = 0;  // one bits (from the C table and the tree)
    size_t first_row = 0;
    size_t blocks = 0;
  };
  uint64_t bwt_len = 0;
  std::vector<uint64_t> c_table;  // 257 entries
  std::array<FmPartition::Code, 256> codes{};
  std::vector<std::pair<FmPartition::Child, FmPartition::Child>> children;
  std::vector<Node> nodes;
  std::vector<uint64_t> prefix_rank;  // per wavelet row
  size_t sa_first_row = 0;
  uint64_t sa_len = 0;
  std::vector<uint64_t> row_ids, doc_starts;
  int words_column = -1;  // in the file (set by the reader)

  size_t num_rows() const { return sa_first_row + static_cast<size_t>((sa_len + kFmBlockWords - 1) / kFmBlockWords); }
  int64_t MemoryBytes() const;
  // `cols.words` is not read (it may be empty). Errors: Corruption naming `where`.
  static Result<FmPartitionMeta> Decode(const KeyValueMetadata& meta, const FmPartition::Columns& cols,
                                        const std::string& where);
};

// The words of one row of a partition file: a wavelet block (with rank samples every 8
// words, relative to the block) or a block of SA samples.
struct FmBlock {
  std::vector<uint64_t> words;
  std::vector<uint64_t> ranks;  // wavelet blocks: ones before each 8-word superblock, plus the total
  int64_t MemoryBytes() const { return static_cast<int64_t>((words.size() + ranks.size()) * 8 + 64); }
};
// Decodes row `row`'s words and checks them against `meta` (word count, the block's ones
// against the next prefix rank or the node's ones, SA samples inside the text).
// Errors: Corruption naming `where`.
Result<FmBlock> DecodeFmBlock(const FmPartitionMeta& meta, size_t row, std::string_view bytes, const std::string& where);

// Where a search gets row `row`'s block (each row is asked for at most once per search).
using FmBlockSource = std::function<Result<std::shared_ptr<const FmBlock>>(size_t row)>;

// The row addresses of the documents containing `needle` (already sanitized), each once, in
// suffix order; an empty needle matches nothing (as lance 12). Reads only the blocks the
// backward search and the locate walks touch. Errors: Corruption (a rank outside its node, a
// locate walk that never reaches a sample: a damaged file), naming `where`; the source's.
Result<std::vector<uint64_t>> FmSearch(const FmPartitionMeta& meta, const FmBlockSource& blocks, std::string_view needle,
                                       const std::string& where = "fm");

// The occurrences of `needle` (already sanitized) in the partition's text -- the size of its
// suffix-array range, from the backward search alone (no locate walk): at least the number of
// documents FmSearch returns, and what locating them costs. 0 for an empty needle.
// Errors: as FmSearch.
Result<uint64_t> FmCount(const FmPartitionMeta& meta, const FmBlockSource& blocks, std::string_view needle,
                         const std::string& where = "fm");

// A partition with every block decoded (tests; the fuzz target goes through OpenFmIndex).
struct FmLoadedPartition {
  FmPartitionMeta meta;
  std::vector<std::shared_ptr<const FmBlock>> blocks;
  static Result<FmLoadedPartition> Decode(const KeyValueMetadata& meta, const FmPartition::Columns& cols,
                                          const std::string& where);
  Result<std::vector<uint64_t>> Search(std::string_view needle, const std::string& where = "fm") const;
  Result<uint64_t> Count(std::string_view needle, const std::string& where = "fm") const;
};

// The file name of partition `id`: "part_{id}_fm.lance".
std::string FmPartitionFile(uint64_t id);

// Writes partition `id` of `part` into `store`.
Result<table::IndexFileInfo> WriteFmPartition(IndexStore& store, uint64_t id, const FmPartition& part);

// Trains an FM index on `data` (strings or binary; nulls are not indexed) as lance 12 does:
// partitions of kFmPartitionDocs documents in the order handed over (an empty partition 0
// when no value is non-null). Errors: InvalidArgument (another column type), IOError.
// Partitions build on `pool` (null: on the caller).
Result<scalar::TrainedIndex> TrainFmIndex(IndexStore& store, const scalar::TrainingData& data,
                                          ThreadPool* pool = nullptr);

// Opens the segment in `store` (every part_N_fm.lance it lists, N ascending; only the listing
// is read). The index answers TextQuery (contains) exactly as lance 12: matches of the
// sanitized needle; null rows are never returned and null_rows stays empty (lance 12's NOT
// contains keeps them). A search loads, through the store's IndexCache, each partition's
// FmPartitionMeta and the blocks its backward search and locate walks touch -- nothing else
// -- so a second query is answered from the cache; partitions are searched on
// SearchOptions::pool. EstimateMatches is the sum of the partitions' FmCount (occurrences,
// from the backward searches alone; the blocks they read stay in the cache for Search).
Result<std::shared_ptr<scalar::ScalarIndex>> OpenFmIndex(std::shared_ptr<IndexStore> store);

}  // namespace lance::index::fm
