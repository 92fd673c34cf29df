// Full-text (BM25) search over a MemWAL table's LSM (mem_wal.md "Query Planning": full-text
// search over base + flushed generations + the MemTable), as lance 12's
// query().fullTextSearch(q) over such a table answers (its LsmScanner's full-text planner;
// src/memwal/README.md "Full-text search over the LSM"):
//
//   * the sources are the merged read's (PlanLsmScan): each shard's WAL tail (strong
//     consistency, read from storage: any process sees it) or a live writer's MemTables
//     (LsmReadOptions::live_writers), each unmerged flushed generation, the base;
//   * each source is scored on its own, with its own corpus statistics ("local BM25", as lance
//     12 scores them -- scores of different sources are not rescaled to one corpus):
//       - a generation through its maintained INVERTED index (our full-text search of that
//         Lance dataset: its index's statistics, which count every row it holds, hidden
//         duplicates and tombstones' empty texts included; its deletion vector masks them);
//       - the base through its index (plus its unindexed fragments, flat, as a search of the
//         base alone does);
//       - a WAL tail tokenized with the base index's tokenizer, its statistics those of all
//         its rows (what its generation's index will hold once flushed); a live MemTable
//         through its in-memory INVERTED postings (memtable.h), the same statistics;
//   * a source's row whose key a newer source holds (any row: a tombstone, a row failing the
//     filter) is dropped; within the tail or a MemTable only each key's newest row can match;
//     tombstones never match. lance 12 over-fetches 2k from a source newer sources may
//     replace rows of; here a source left with fewer than k survivors searches again, deeper,
//     so the answer is the top k of the newest rows (lance 12 comes up short there);
//   * `filter` is applied before the search in every source to the newest row of each key;
//   * one top k over every source's survivors, best score first; ties by primary key
//     ascending (append-only tables: the newer source first, then each source's order).
//
// The query: every kind the base's search answers (match, phrase with slop, fuzzy match,
// boolean, boost, multi-match, boosts; a leaf naming no column: the base's one column with an
// INVERTED index, or for a match all of them). The tree is planned over the base
// (PlanFullTextSearch) and a WAL tail or MemTable is scored by it exactly as the generation it
// flushes to: each leaf by BM25 with the unflushed rows' own statistics (a fuzzy leaf expands
// over their term dictionary: the MemTable mirror's, or the tail's tokens), prefiltered, then
// combined as the base combines (multi-match children their best k each).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/lsm_read.h"
#include "lance/query/text_search.h"

namespace lance::query {

struct LsmTextSearchStats {
  int64_t sources = 0;     // sources searched (WAL tails, MemTables, generations, the base)
  int64_t candidates = 0;  // rows the per-source searches returned
  int64_t replaced = 0;    // of those, dropped because a newer source holds their key
  int64_t searches = 0;    // per-source searches run (deeper ones included)
  int64_t memtables = 0;   // live MemTables searched through their in-memory INVERTED index
  // A newer generation's keys are probed, never read: bloom filter tests, and _pk_index
  // searches of the keys its bloom filter may hold.
  int64_t bloom_tests = 0;
  int64_t pk_index_searches = 0;
};

// The best `query.k` rows for `query` over the LSM of the MemWAL table at `root`:
// `options.columns` (default: the base schema's) then `_score`, best first.
// `options.consistency` chooses the sources, `options.live_writers` the MemTables read in
// memory; `options.offset` / `limit` must be unset (k is the limit).
// Errors: InvalidArgument (an unknown or non-string column, no column named while the base
// has none or several INVERTED indexes, a filter that does not bind, offset / limit given,
// k < 1, a phrase over a source without positions, a fuzzy phrase), IOError, Corruption.
Result<std::vector<RecordBatchPtr>> LsmTextSearch(const std::shared_ptr<io::ObjectStore>& store,
                                                  const std::string& root, const memwal::LsmReadOptions& options,
                                                  const FullTextQuery& query, LsmTextSearchStats* stats = nullptr);

// The search's plan as text, one line per source (newest first) saying how it is searched,
// then each generation's and the base's own full-text plan indented below it. Errors: as
// LsmTextSearch's planning.
Result<std::string> ExplainLsmTextSearch(const std::shared_ptr<io::ObjectStore>& store, const std::string& root,
                                         const memwal::LsmReadOptions& options, const FullTextQuery& query);

}  // namespace lance::query
