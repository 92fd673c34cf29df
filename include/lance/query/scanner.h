// Scanner: the front of the query layer -- reads of one table::Snapshot, planned by the
// Planner and run as a stream.
//
//   auto snap = table::Snapshot::Open(uri);
//   query::ScanOptions o;
//   o.columns = {"id", "score"};
//   o.filter = "score > 50";
//   LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(*snap, o));
//   LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
//   while (true) { LANCE_ASSIGN_OR_RAISE(auto batch, reader->Next()); if (!batch) break; ... }
//
// Scans read fragments in manifest order (or the chosen fragments, in manifest order) and rows
// in stored order, skipping deleted rows. A reader holds at most a few batches of at most
// batch_size rows (ScanOptions::prefetch bounds how many run ahead), so a scan of any size
// runs in bounded memory. The reader keeps the snapshot alive.
//
// Thread safety: a Scanner is immutable after Make and may be used from many threads; each
// reader it opens is used by one thread at a time (RecordBatchReader's rule).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/query/planner.h"
#include "lance/table/snapshot.h"

namespace lance::query {

class Scanner {
 public:
  // Checks `options` (see Planner::PlanScan for the errors) and plans the scan.
  static Result<Scanner> Make(std::shared_ptr<const table::Snapshot> snapshot,
                              ScanOptions options = {});

  const ScanOptions& options() const { return options_; }
  const std::shared_ptr<const table::Snapshot>& snapshot() const { return snapshot_; }
  // The schema of the scan's batches.
  const SchemaPtr& schema() const { return schema_; }
  const Plan& plan() const { return plan_; }
  // The scan's plan as text (Plan::Explain).
  std::string Explain() const { return plan_.Explain(); }

  // The scan as a stream of batches (each of at most batch_size rows, none empty).
  Result<std::unique_ptr<RecordBatchReader>> ToReader() const;
  // Every batch of the scan (for small results and tests).
  Result<std::vector<RecordBatchPtr>> ToBatches() const;

  // The number of rows the scan yields: with neither filter nor limit/offset from the
  // manifest, else by running the filter (reading only its columns).
  Result<uint64_t> CountRows() const;

  // Rows at these scan positions (0 = the snapshot's first live row) / with these row ids,
  // in the given order, with the scan's projection, in batches of at most batch_size rows.
  // Errors: InvalidArgument for a position out of range or a filter in the options; ids that
  // name no live row are skipped.
  Result<std::unique_ptr<RecordBatchReader>> Take(std::vector<uint64_t> positions) const;
  Result<std::unique_ptr<RecordBatchReader>> TakeRowIds(std::vector<uint64_t> row_ids) const;

 private:
  Scanner(std::shared_ptr<const table::Snapshot> snapshot, ScanOptions options, SchemaPtr schema,
          Plan plan)
      : snapshot_(std::move(snapshot)),
        options_(std::move(options)),
        schema_(std::move(schema)),
        plan_(std::move(plan)) {}

  std::shared_ptr<const table::Snapshot> snapshot_;
  ScanOptions options_;
  SchemaPtr schema_;
  Plan plan_;
};

// Physical rows of one fragment (ascending) where a filter is TRUE.
struct FragmentMatches {
  size_t index = 0;         // position in the manifest's fragments
  uint64_t fragment_id = 0;
  std::vector<uint32_t> rows;
};

// The live rows where `filter` is TRUE, per fragment (fragments without a match left out), in
// manifest order: the filter run over every chunk of every chosen fragment in parallel, only
// its columns read, no row materialized -- what a delete by filter needs (row address =
// fragment id << 32 | row). Options used: filter (required), fragment_ids, pool.
// Errors: as Planner::PlanScan; InvalidArgument for an empty filter.
Result<std::vector<FragmentMatches>> FindMatches(std::shared_ptr<const table::Snapshot> snapshot,
                                                 const ScanOptions& options);

}  // namespace lance::query
