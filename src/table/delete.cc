// Delete by filter: the rows of the latest version where the predicate is TRUE, found by a
// scan of the columns the predicate reads (plus _rowaddr) evaluated in slices on every core,
// then deleted through the commit machinery (internal::DeleteFromDataset).
#include <algorithm>

#include "lance/core/thread_pool.h"
#include "lance/expr/expression.h"
#include "lance/table/dataset.h"
#include "lance/table/write.h"
#include "table/commit_internal.h"

namespace lance::table {

namespace {

// Rows per evaluated slice: the predicate's temporaries (an int64 column of the slice is
// 256 KiB) stay in cache and in the allocator's reused memory instead of being fresh pages
// of a column-sized allocation, and the slices spread over the cores.
constexpr int64_t kSliceRows = 32 * 1024;

}  // namespace

Result<DeleteResult> DeleteRows(const std::string& uri, const std::string& filter,
                                const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(internal::TableLocation loc, internal::Locate(uri));
  LANCE_ASSIGN_OR_RAISE(auto ds, Dataset::Open(loc.store, loc.root));
  LANCE_ASSIGN_OR_RAISE(auto pred, expr::Expression::MakePredicate(filter, ds->schema()));
  ScanOptions so;
  so.columns = pred->columns();
  so.with_row_addr = true;
  if (so.columns.empty()) {
    // A constant predicate still needs one column to give the batches their length.
    so.columns.push_back(ds->schema()->field(0)->name());
  }
  LANCE_ASSIGN_OR_RAISE(auto batches, ds->Scan(so));
  std::vector<RecordBatchPtr> slices;
  for (const auto& b : batches) {
    for (int64_t start = 0; start < b->num_rows(); start += kSliceRows) {
      slices.push_back(b->Slice(start, std::min(kSliceRows, b->num_rows() - start)));
    }
  }
  std::vector<std::vector<uint64_t>> found(slices.size());
  std::vector<Status> errors(slices.size());
  ParallelFor(ThreadPool::Default(), static_cast<int64_t>(slices.size()), [&](int64_t i) {
    const RecordBatch& b = *slices[static_cast<size_t>(i)];
    auto run = [&]() -> Status {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, pred->Evaluate(b));
      const uint64_t* a = b.column(b.num_columns() - 1)->Values<uint64_t>();
      auto& out = found[static_cast<size_t>(i)];
      for (int64_t r : expr::TrueIndices(*mask)) out.push_back(a[r]);
      return Status::OK();
    };
    errors[static_cast<size_t>(i)] = run();
  });
  for (const Status& st : errors) LANCE_RETURN_NOT_OK(st);
  std::vector<uint64_t> addresses;
  for (const auto& f : found) addresses.insert(addresses.end(), f.begin(), f.end());
  return internal::DeleteFromDataset(loc, *ds, std::move(addresses), filter, options);
}

}  // namespace lance::table
