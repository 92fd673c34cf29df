// Deletes: by row address (DeleteRowAddresses) and by filter (DeleteRows: the rows of the
// latest version where the predicate is TRUE), both staged by StageDeletions and committed
// as one Delete transaction.
//
// Finding the rows. Per fragment, only the predicate's columns are read (from the data files
// directly, FileReader::ReadAll), then evaluated in runs of kChunkRows physical rows on every
// core; a TRUE position becomes a row address from the run's position (fragment id << 32 |
// offset), so no `_rowaddr` column is built (8 bytes per row, in fresh pages the kernel has to
// fault in) and no take of the live rows is needed: deleted rows are evaluated with the rest
// and skipped (a run whose evaluation fails and holds deleted rows is evaluated again over its
// live rows alone, as a scan would). Predicates this path does not cover (no column, a column
// stored outside its fragment's data files or in another base) go through a scan with
// `_rowaddr` like any reader.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lance/core/thread_pool.h"
#include "lance/expr/expression.h"
#include "lance/file/file_reader.h"
#include "lance/table/snapshot.h"
#include "lance/table/deletion.h"
#include "lance/table/feature_flags.h"
#include "lance/table/write.h"
#include "table/field_tree.h"

namespace lance::table {

namespace {

// Rows per task: a multiple of the mini-block chunk sizes (so a run decodes no chunk twice),
// small enough that a run's columns stay in the core's cache and enough runs to feed both
// cores.
constexpr int64_t kChunkRows = 32 * 1024;

// Where a predicate column of a fragment is read: a top-level field of one data file.
struct ColumnSource {
  std::shared_ptr<const file::FileReader> reader;
  int field = -1;
};

// The sources of `columns` in fragment `frag`, found as a scan finds them (the first data file
// listing the field or one of its descendants, then the top-level field with that id in the
// file's schema); nullopt when one of them is not plainly there (the scan path then decides:
// all-null column, error, other base).
Result<std::optional<std::vector<ColumnSource>>> FindSources(
    const Snapshot& ds, size_t index, const std::vector<FieldPtr>& columns) {
  const FragmentInfo& frag = ds.manifest().fragments[index];
  const internal::FieldTree tree(ds.manifest().fields);
  std::vector<ColumnSource> out;
  for (const FieldPtr& column : columns) {
    const int holding = tree.FileHolding(frag, column->id());
    const DataFileInfo* df = holding < 0 ? nullptr : &frag.files[static_cast<size_t>(holding)];
    if (df == nullptr || df->base_id) return std::optional<std::vector<ColumnSource>>();
    // The dataset's own reader (opened once, shared with its scans; row count checked).
    LANCE_ASSIGN_OR_RAISE(auto reader, ds.DataFileReader(index, static_cast<size_t>(holding)));
    ColumnSource src{reader, -1};
    const auto& fs = src.reader->schema()->fields();
    for (size_t k = 0; k < fs.size(); ++k) {
      if (fs[k]->id() == column->id()) src.field = static_cast<int>(k);
    }
    if (src.field < 0 || !fs[static_cast<size_t>(src.field)]->type()->Equals(*column->type())) {
      return std::optional<std::vector<ColumnSource>>();
    }
    out.push_back(std::move(src));
  }
  return std::optional<std::vector<ColumnSource>>(std::move(out));
}

// Addresses of the live rows of physical rows [start, start + length) of fragment `frag`
// where `pred` is TRUE, appended to `out`. `columns` are the fragment's predicate columns
// (every physical row); `deleted` its deleted rows, sorted.
Status EvaluateRun(const FragmentInfo& frag, int64_t start, int64_t length,
                   const std::vector<ArrayPtr>& columns, const std::vector<ColumnSource>& sources,
                   const std::vector<uint32_t>& deleted, const SchemaPtr& schema,
                   const expr::Expression& pred, std::vector<uint64_t>* out) {
  const auto del_begin =
      std::lower_bound(deleted.begin(), deleted.end(), static_cast<uint32_t>(start));
  const auto del_end =
      std::lower_bound(del_begin, deleted.end(), static_cast<uint32_t>(start + length));
  std::vector<ArrayPtr> slices;
  for (const auto& c : columns) slices.push_back(c->Slice(start, length));
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, RecordBatch::Make(schema, length, std::move(slices)));
  auto mask = pred.Evaluate(*batch);
  const uint64_t high = frag.id << 32;
  if (mask.ok()) {
    // Deleted rows are evaluated too (it is one pass over the run) and skipped here.
    auto d = del_begin;
    for (int64_t k : expr::TrueIndices(**mask)) {
      const int64_t row = start + k;
      while (d != del_end && static_cast<int64_t>(*d) < row) ++d;
      if (d != del_end && static_cast<int64_t>(*d) == row) continue;
      out->push_back(high | static_cast<uint64_t>(row));
    }
    return Status::OK();
  }
  if (del_begin == del_end) return mask.status();
  // An error, maybe from a deleted row (a division by zero there): a scan never evaluates
  // those, so evaluate the live rows alone, as it does.
  std::vector<int64_t> live;
  auto d = del_begin;
  for (int64_t r = start; r < start + length; ++r) {
    if (d != del_end && static_cast<int64_t>(*d) == r) {
      ++d;
    } else {
      live.push_back(r);
    }
  }
  if (live.empty()) return Status::OK();
  std::vector<ArrayPtr> taken;
  for (const ColumnSource& src : sources) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, src.reader->Take(live, {src.field}));
    taken.push_back(b->column(0));
  }
  LANCE_ASSIGN_OR_RAISE(batch, RecordBatch::Make(schema, static_cast<int64_t>(live.size()),
                                                 std::move(taken)));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr live_mask, pred.Evaluate(*batch));
  for (int64_t k : expr::TrueIndices(*live_mask)) {
    out->push_back(high | static_cast<uint64_t>(live[static_cast<size_t>(k)]));
  }
  return Status::OK();
}

// Row addresses matching `pred`, fragment by fragment: its predicate columns read whole (the
// columns of one fragment in parallel), then evaluated in runs on every core; nullopt when a
// column is not plainly in the fragment's data files (the scan path then decides).
Result<std::optional<std::vector<uint64_t>>> FindByRuns(const Snapshot& ds,
                                                        const expr::Expression& pred) {
  using Found = std::optional<std::vector<uint64_t>>;
  if (pred.columns().empty()) return Found();
  std::vector<FieldPtr> fields;
  for (const auto& name : pred.columns()) {
    FieldPtr f = ds.schema()->GetFieldByName(name);
    if (!f) return Found();
    fields.push_back(f);
  }
  const SchemaPtr schema = ::lance::schema(fields);
  const auto& fragments = ds.manifest().fragments;
  std::vector<std::vector<ColumnSource>> sources(fragments.size());
  for (size_t i = 0; i < fragments.size(); ++i) {
    if (fragments[i].num_rows() == 0) continue;
    LANCE_ASSIGN_OR_RAISE(auto found, FindSources(ds, i, fields));
    if (!found) return Found();
    sources[i] = std::move(*found);
  }
  std::vector<uint64_t> addresses;
  for (size_t i = 0; i < fragments.size(); ++i) {
    const FragmentInfo& frag = fragments[i];
    if (frag.num_rows() == 0) continue;
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> deleted, ds.DeletedRows(i));
    const auto& srcs = sources[i];
    std::vector<ArrayPtr> columns(srcs.size());
    std::vector<Status> read_errors(srcs.size());
    auto read = [&](int64_t c) {
      const ColumnSource& src = srcs[static_cast<size_t>(c)];
      auto st = [&]() -> Status {
        LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, src.reader->ReadAll({src.field}));
        const FieldPtr& f = fields[static_cast<size_t>(c)];
        if (!b->column(0)->type->Equals(*f->type())) {
          return Status::NotSupported("fragment {}: column '{}' is stored as {} but the dataset "
                                      "schema says {}",
                                      frag.id, f->name(), b->column(0)->type->ToString(),
                                      f->type()->ToString());
        }
        columns[static_cast<size_t>(c)] = b->column(0);
        return Status::OK();
      }();
      read_errors[static_cast<size_t>(c)] = st;
    };
    if (srcs.size() == 1) {
      read(0);
    } else {
      ParallelFor(ThreadPool::Default(), static_cast<int64_t>(srcs.size()), read);
    }
    for (const Status& st : read_errors) LANCE_RETURN_NOT_OK(st);
    const int64_t rows = static_cast<int64_t>(frag.physical_rows);
    const int64_t num_runs = (rows + kChunkRows - 1) / kChunkRows;
    std::vector<std::vector<uint64_t>> hits(static_cast<size_t>(num_runs));
    std::vector<Status> errors(static_cast<size_t>(num_runs));
    ParallelFor(ThreadPool::Default(), num_runs, [&](int64_t r) {
      const int64_t start = r * kChunkRows;
      errors[static_cast<size_t>(r)] =
          EvaluateRun(frag, start, std::min(kChunkRows, rows - start), columns, srcs, deleted,
                      schema, pred, &hits[static_cast<size_t>(r)]);
    });
    for (const Status& st : errors) LANCE_RETURN_NOT_OK(st);
    for (const auto& h : hits) addresses.insert(addresses.end(), h.begin(), h.end());
  }
  return Found(std::move(addresses));
}

// Row addresses matching `pred` from a scan of its columns plus `_rowaddr`.
Result<std::vector<uint64_t>> FindByScan(const Snapshot& ds, const expr::Expression& pred) {
  ScanOptions so;
  so.columns = pred.columns();
  so.with_row_addr = true;
  if (so.columns.empty()) {
    // A constant predicate still needs one column to give the batches their length.
    so.columns.push_back(ds.schema()->field(0)->name());
  }
  LANCE_ASSIGN_OR_RAISE(auto batches, ds.Scan(so));
  std::vector<RecordBatchPtr> slices;
  for (const auto& b : batches) {
    for (int64_t start = 0; start < b->num_rows(); start += kChunkRows) {
      slices.push_back(b->Slice(start, std::min(kChunkRows, b->num_rows() - start)));
    }
  }
  std::vector<std::vector<uint64_t>> found(slices.size());
  std::vector<Status> errors(slices.size());
  ParallelFor(ThreadPool::Default(), static_cast<int64_t>(slices.size()), [&](int64_t i) {
    const RecordBatch& b = *slices[static_cast<size_t>(i)];
    auto run = [&]() -> Status {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, pred.Evaluate(b));
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
  return addresses;
}

// Deletes the rows at `addresses` of `ds` (a version of the table at `loc`; any order, repeats
// and already deleted rows ignored), recording `predicate`.
Result<DeleteResult> DeleteFromSnapshot(const TableLocation& loc, const Snapshot& ds,
                                        std::vector<uint64_t> addresses, const std::string& predicate,
                                        const CommitOptions& options) {
  const Manifest& m = ds.manifest();
  LANCE_RETURN_NOT_OK(CheckCanWrite(m.reader_feature_flags, m.writer_feature_flags, ds.manifest_path()));
  StagedFiles staged(loc);
  LANCE_ASSIGN_OR_RAISE(StagedDeletions deletions, StageDeletions(staged, ds, std::move(addresses)));
  DeleteResult out;
  out.num_deleted_rows = deletions.num_deleted_rows;
  out.removed_fragment_ids = deletions.removed_fragment_ids;
  if (deletions.rebase.deleted_rows.empty()) return out;
  Transaction::Delete del;
  del.updated_fragments = std::move(deletions.updated_fragments);
  del.deleted_fragment_ids = std::move(deletions.removed_fragment_ids);
  del.predicate = predicate;
  del.rebase = std::move(deletions.rebase);
  Transaction txn;
  txn.read_version = ds.version();
  txn.operation = std::move(del);
  LANCE_ASSIGN_OR_RAISE(out.commit, CommitTransaction(loc, std::move(txn), options, &staged));
  return out;
}

}  // namespace

Result<DeleteResult> DeleteRowAddresses(const TableLocation& location, std::vector<uint64_t> addresses,
                                        std::optional<uint64_t> read_version,
                                        const std::string& predicate, const CommitOptions& options) {
  OpenOptions oo;
  oo.version = read_version;
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(location, oo));
  return DeleteFromSnapshot(location, *ds, std::move(addresses), predicate, options);
}

Result<DeleteResult> DeleteRowAddresses(const std::string& uri, std::vector<uint64_t> addresses,
                                        std::optional<uint64_t> read_version,
                                        const std::string& predicate, const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return DeleteRowAddresses(location, std::move(addresses), read_version, predicate, options);
}

Result<DeleteResult> DeleteRows(const TableLocation& location, const std::string& filter,
                                const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(location));
  LANCE_ASSIGN_OR_RAISE(auto pred, expr::Expression::MakePredicate(filter, ds->schema()));
  LANCE_ASSIGN_OR_RAISE(auto by_runs, FindByRuns(*ds, *pred));
  std::vector<uint64_t> addresses;
  if (by_runs) {
    addresses = std::move(*by_runs);
  } else {
    LANCE_ASSIGN_OR_RAISE(addresses, FindByScan(*ds, *pred));
  }
  return DeleteFromSnapshot(location, *ds, std::move(addresses), filter, options);
}

Result<DeleteResult> DeleteRows(const std::string& uri, const std::string& filter,
                                const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return DeleteRows(location, filter, options);
}

}  // namespace lance::table
