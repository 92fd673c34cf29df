// Writing an INVERTED (full-text) index segment in lance 12's layout (index format 2), so that
// lance 12 lists, plans and searches it as one of its own (src/index/README.md lists the files
// and columns; posting_codec.h and fst_map.h the byte layouts):
//
//   metadata.lance        deleted_fragments (empty bitmap); params JSON, partitions "[0]",
//                         format_version "2", token_set_format "fst", posting block size and
//                         tail codec, and with positions the positions layout and codec
//   part_0_tokens.lance   the token dictionary as an fst map (token -> id), the token count
//                         and the summed token bytes
//   part_0_docs.lance     row id and token count of every document holding a token;
//                         metadata total_tokens
//   part_0_invert.lance   per token id: posting blocks of 128 documents (each led by its best
//                         BM25 score over this partition's statistics), the best score, the
//                         document count, the impacts (per block, then over the whole list),
//                         and with positions the position stream and each block's offset in it
//
// One partition per build: documents are numbered in the order the rows are handed over.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/index/fts/tokenizer.h"
#include "lance/index/index_store.h"
#include "lance/table/manifest.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::index::fts {

inline constexpr int32_t kInvertedIndexVersion = 2;  // the IndexMetadata index_version lance 12 writes
inline constexpr const char* kInvertedDetailsTypeUrl = "/lance.table.InvertedIndexDetails";

struct WrittenInvertedIndex {
  std::vector<table::IndexFileInfo> files;  // in the order lance 12 lists them
  std::string details;                      // serialized lance.table.InvertedIndexDetails
  uint64_t num_docs = 0;                    // documents (rows with at least one token)
  uint64_t total_tokens = 0;
  uint64_t num_tokens = 0;                  // distinct tokens
};

// Tokenizes `texts` (utf8 or large_utf8 arrays; nulls hold no token) whose rows have the ids
// `row_ids` (one per value, in order) with `options` and writes the segment into `store`.
// With a `pool`, the arrays are tokenized in contiguous runs in parallel (one tokenizer each)
// and the runs' postings joined in row order: the files are the same as one thread writes.
// Errors: InvalidArgument (options invalid, a column that is not a string, row ids not one per
// value, text that is not UTF-8), IOError.
Result<WrittenInvertedIndex> WriteInvertedIndex(IndexStore& store, const TokenizerOptions& options,
                                                const std::vector<ArrayPtr>& texts,
                                                const std::vector<uint64_t>& row_ids,
                                                ThreadPool* pool = nullptr);

// Remapping a segment after a compaction moved its rows (no stable row ids), as lance 12's
// compaction does (checked on the files its optimize() writes): every partition keeps its id
// and metadata.lance is copied; the dictionary loses the tokens left without documents (the
// others keep their order, renumbered densely; part_N_tokens.lance is copied when none was
// lost, else written anew: the same map as lance 12's, the fst bytes our own encoder's); the
// documents are the old ones still there, in their old order, with
// their new row ids (`map`: old row id -> new, kRemovedRow for a row the compaction dropped),
// and part_N_invert.lance is written anew from the remapped postings: block scores and
// `_max_score` over the partition's statistics after the removal (documents, total tokens),
// impacts and positions re-encoded.
inline constexpr uint64_t kRemovedRow = UINT64_MAX;
inline constexpr const char* kInvertedTypeName = "INVERTED";

// Writes the remapped copy of the segment in `from` into `to`; returns its files, in the order
// of `from`'s partitions (invert, tokens, docs each), metadata.lance last.
// Errors: what InvertedIndex::Open returns (Corruption, NotSupported for a layout this library
// does not read), IOError.
Result<std::vector<table::IndexFileInfo>> RemapInvertedIndex(const std::shared_ptr<IndexStore>& from, IndexStore& to,
                                                             const std::function<uint64_t(uint64_t)>& map);

}  // namespace lance::index::fts
