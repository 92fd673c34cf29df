// Helpers of the query tests: rows of batches and readers as canonical JSON lines.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/json.h"
#include "lance/columnar/record_batch_reader.h"
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"
#include "table_fixtures/json_lines_test_util.h"

namespace lance::query {

using table::JsonLinesOf;  // tests/table_fixtures/json_lines_test_util.h

// The rows a reader yields, checking that every batch has the reader's schema and is neither
// empty nor longer than `max_rows` (0: no bound).
inline Result<std::vector<std::string>> DrainLines(RecordBatchReader* reader, int64_t max_rows = 0) {
  std::vector<RecordBatchPtr> batches;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(auto b, reader->Next());
    if (!b) break;
    if (!b->schema()->Equals(*reader->schema())) {
      return Status::Internal("batch schema {} differs from the reader's {}", b->schema()->ToString(),
                             reader->schema()->ToString());
    }
    if (b->num_rows() == 0) return Status::Internal("an empty batch");
    if (max_rows > 0 && b->num_rows() > max_rows) {
      return Status::Internal("a batch of {} rows (at most {} asked for)", b->num_rows(), max_rows);
    }
    LANCE_RETURN_NOT_OK(b->ValidateFull());
    batches.push_back(std::move(b));
  }
  return JsonLinesOf(batches);
}

// The rows of a scan with `options`.
inline Result<std::vector<std::string>> ScanLines(std::shared_ptr<const table::Snapshot> snapshot,
                                                  const ScanOptions& options, int64_t max_rows = 0) {
  LANCE_ASSIGN_OR_RAISE(auto scanner, Scanner::Make(std::move(snapshot), options));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  return DrainLines(reader.get(), max_rows);
}

// Deletes the rows of the latest version of `uri` where `filter` is TRUE: found by the query
// layer (FindMatches), deleted by address (what dataset::Dataset::Delete does, one layer up).
inline Result<table::DeleteResult> DeleteWhere(const std::string& uri, const std::string& filter) {
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<const table::Snapshot> snap, table::Snapshot::Open(uri));
  ScanOptions o;
  o.filter = filter;
  LANCE_ASSIGN_OR_RAISE(auto matches, FindMatches(snap, o));
  std::vector<uint64_t> addresses;
  for (const auto& m : matches) {
    for (uint32_t row : m.rows) addresses.push_back(m.fragment_id << 32 | row);
  }
  return table::DeleteRowAddresses(*snap, std::move(addresses), filter);
}

}  // namespace lance::query
