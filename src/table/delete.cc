// Delete by filter: the rows of the latest version where the predicate is TRUE, found by a
// scan of the columns the predicate reads (plus _rowaddr), then DeleteRowAddresses.
#include <algorithm>

#include "lance/expr/expression.h"
#include "lance/table/dataset.h"
#include "lance/table/write.h"

namespace lance::table {

Result<DeleteResult> DeleteRows(const std::string& uri, const std::string& filter,
                                const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(auto ds, Dataset::Open(uri));
  LANCE_ASSIGN_OR_RAISE(auto pred, expr::Expression::MakePredicate(filter, ds->schema()));
  ScanOptions so;
  so.columns = pred->columns();
  so.with_row_addr = true;
  if (so.columns.empty()) {
    // A constant predicate still needs one column to give the batches their length.
    so.columns.push_back(ds->schema()->field(0)->name());
  }
  LANCE_ASSIGN_OR_RAISE(auto batches, ds->Scan(so));
  std::vector<uint64_t> addresses;
  for (const auto& b : batches) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, pred->Evaluate(*b));
    const ArrayPtr& addr = b->column(b->num_columns() - 1);
    const uint64_t* a = addr->Values<uint64_t>();
    for (int64_t i = 0; i < mask->length; ++i) {
      if (mask->IsValid(i) && mask->BoolValue(i)) addresses.push_back(a[i]);
    }
  }
  return DeleteRowAddresses(uri, std::move(addresses), ds->version(), filter, options);
}

}  // namespace lance::table
