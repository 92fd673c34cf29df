// Reading a table's rows back in tests, through the query layer (the one read path): for the
// tests of table operations, which live in the query and dataset test binaries because the
// table layer cannot see query/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lance/columnar/record_batch_reader.h"
#include "lance/expr/expression.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "table_fixtures/json_lines_test_util.h"

namespace lance::table {

// Rows per batch that keep a fragment's rows in one batch.
inline constexpr int64_t kWholeFragment = int64_t{1} << 40;

// Every batch of a scan of `snapshot` with `options` (no filter needed); batch_size 0 = one
// batch per fragment with rows.
inline Result<std::vector<RecordBatchPtr>> ScanBatches(std::shared_ptr<const Snapshot> snapshot,
                                                        query::ScanOptions options = {}) {
  if (options.batch_size == 0) options.batch_size = kWholeFragment;
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(std::move(snapshot), std::move(options)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  return reader->ReadAll();
}

namespace evolve_test {

// Every row of the latest version (or `options`) as canonical JSON lines, one per row.
inline Result<std::vector<std::string>> Rows(const std::string& uri, query::ScanOptions options = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(uri));
  LANCE_ASSIGN_OR_RAISE(auto batches, ScanBatches(ds, std::move(options)));
  return JsonLinesOf(batches);
}

// Deletes the live rows of the latest version where `filter` is TRUE: found by evaluating the
// filter over a scan of every column with _rowaddr, then deleted by address (what a delete by
// filter does, without the query layer's filter engine that dataset::Dataset::Delete uses).
inline Result<DeleteResult> DeleteRows(const std::string& uri, const std::string& filter) {
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(uri));
  LANCE_ASSIGN_OR_RAISE(auto pred, expr::Expression::MakePredicate(filter, ds->schema()));
  query::ScanOptions so;
  so.with_row_addr = true;
  LANCE_ASSIGN_OR_RAISE(auto batches, ScanBatches(ds, so));
  std::vector<uint64_t> addresses;
  for (const auto& b : batches) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, pred->Evaluate(*b));
    const uint64_t* addr = b->column(b->num_columns() - 1)->Values<uint64_t>();
    for (int64_t r : expr::TrueIndices(*mask)) addresses.push_back(addr[r]);
  }
  return DeleteRowAddresses(uri, std::move(addresses), ds->version(), filter);
}

}  // namespace evolve_test
}  // namespace lance::table
