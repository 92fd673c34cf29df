// UPDATE ... SET ... WHERE (Dataset::Update): the matching rows are read through the query
// layer (its one filter engine, every column plus _rowaddr and, with stable row ids, _rowid),
// their new values computed, written as new fragments and committed as an Update in
// rewrite-rows mode (table::CommitRowUpdate), built on the handle's version.
#include <set>

#include <fmt/format.h>

#include "dataset/guard.h"
#include "lance/dataset/dataset.h"
#include "lance/expr/expression.h"
#include "lance/table/feature_flags.h"
#include "lance/table/row_ids.h"
#include "lance/table/row_update.h"
#include "lance/table/write.h"

namespace lance::dataset {

using internal::Guarded;

namespace {

struct Assignment {
  int column = 0;
  std::shared_ptr<const expr::Expression> value;
};

Result<std::vector<Assignment>> BindAssignments(
    const Schema& schema, const std::vector<std::pair<std::string, std::string>>& assignments,
    const SchemaPtr& schema_ptr) {
  if (assignments.empty()) return Status::InvalidArgument("update: no column to set");
  std::vector<Assignment> sets;
  std::set<int> seen;
  for (const auto& [name, text] : assignments) {
    const int c = schema.GetFieldIndex(name);
    if (c < 0) {
      std::string cols;
      for (const auto& f : schema.fields()) cols += (cols.empty() ? "" : ", ") + f->name();
      return Status::InvalidArgument("update: no column '{}'; columns are: {}", name, cols);
    }
    if (!seen.insert(c).second) return Status::InvalidArgument("update: column '{}' set twice", name);
    auto e = expr::Expression::Make(text, schema_ptr);
    if (!e.ok()) return Status::InvalidArgument("update of '{}': {}", name, e.status().message());
    sets.push_back({c, *e});
  }
  return sets;
}

// The batch of new values of the rows of `b` (the dataset's columns first).
Result<RecordBatchPtr> Rewrite(const RecordBatch& b, const SchemaPtr& schema,
                               const std::vector<Assignment>& sets) {
  const int nc = schema->num_fields();
  std::vector<ArrayPtr> cols(b.columns().begin(), b.columns().begin() + nc);
  for (const auto& s : sets) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr v, s.value->Evaluate(b));
    const FieldPtr& target = schema->field(s.column);
    if (!v->type->Equals(*target->type())) {
      auto cast = expr::Cast(v, target->type());
      if (!cast.ok()) {
        return Status::InvalidArgument("update of '{}': {}", target->name(), cast.status().message());
      }
      v = *cast;
    }
    if (!target->nullable() && v->null_count > 0) {
      return Status::InvalidArgument("update: column '{}' is not nullable but '{}' gives {} nulls",
                                     target->name(), s.value->text(), v->null_count);
    }
    cols[static_cast<size_t>(s.column)] = v;
  }
  return std::make_shared<RecordBatch>(schema, b.num_rows(), std::move(cols));
}

Result<UpdateResult> UpdateRows(const std::shared_ptr<const table::Snapshot>& ds,
                                const std::vector<std::pair<std::string, std::string>>& assignments,
                                const std::string& where, const UpdateParams& params,
                                ThreadPool* pool) {
  const table::Manifest& m = ds->manifest();
  LANCE_RETURN_NOT_OK(table::CheckCanWrite(m.reader_feature_flags, m.writer_feature_flags,
                                           ds->manifest_path()));
  LANCE_RETURN_NOT_OK(table::WritableFileVersion(m.data_storage_version).status());
  const SchemaPtr& schema = ds->schema();
  LANCE_ASSIGN_OR_RAISE(auto sets, BindAssignments(*schema, assignments, schema));
  const bool stable = (m.reader_feature_flags & table::kFlagStableRowIds) != 0;
  query::ScanOptions so;
  for (const auto& f : schema->fields()) so.columns.push_back(f->name());
  if (stable) so.columns.push_back(query::kRowIdColumn);
  so.columns.push_back(query::kRowAddrColumn);
  so.filter = where;
  so.pool = pool;
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, std::move(so)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  std::vector<RecordBatchPtr> rewritten;
  std::vector<uint64_t> addresses, row_ids;
  const int nc = schema->num_fields();
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
    if (!b) break;
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr r, Rewrite(*b, schema, sets));
    rewritten.push_back(std::move(r));
    const uint64_t* a = b->column(nc + (stable ? 1 : 0))->Values<uint64_t>();
    addresses.insert(addresses.end(), a, a + b->num_rows());
    if (stable) {
      const uint64_t* id = b->column(nc)->Values<uint64_t>();
      row_ids.insert(row_ids.end(), id, id + b->num_rows());
    }
  }
  UpdateResult out;
  out.rows_updated = addresses.size();
  table::StagedFiles staged(ds->location(), params.commit.sync);
  // Nothing matched: still a version (an Update of no fragments), as lance 12 commits one.
  std::vector<table::FragmentInfo> fragments;
  if (!addresses.empty()) {
    LANCE_ASSIGN_OR_RAISE(fragments, table::WriteFragments(staged, m, schema, rewritten,
                                                           params.max_rows_per_file, pool));
  }
  if (stable) LANCE_RETURN_NOT_OK(table::AssignRowIds(&fragments, row_ids));
  LANCE_ASSIGN_OR_RAISE(out.commit, table::CommitRowUpdate(ds->location(), staged, *ds,
                                                           std::move(addresses), std::move(fragments),
                                                           params.commit));
  return out;
}

}  // namespace

Result<UpdateResult> Dataset::Update(const std::vector<std::pair<std::string, std::string>>& assignments,
                                     const std::string& where, UpdateParams params) {
  return Guarded("update", [&]() -> Result<UpdateResult> {
    UpdateResult out;
    params.commit = WithHandle(std::move(params.commit));
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, UpdateRows(snap, assignments, where, params, pool()));
      return out.commit.version;
    }));
    return out;
  });
}

}  // namespace lance::dataset
