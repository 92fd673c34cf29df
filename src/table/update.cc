// UPDATE ... SET ... WHERE as an Update transaction in rewrite-rows mode (update.h).
#include "lance/table/update.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "lance/expr/expression.h"
#include "lance/table/feature_flags.h"
#include "lance/table/row_ids.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"
#include "table/row_update.h"

namespace lance::table {

namespace {

struct Assignment {
  int column = 0;
  std::shared_ptr<const expr::Expression> value;
};

}  // namespace

Result<UpdateResult> UpdateRows(const std::string& uri,
                                const std::vector<std::pair<std::string, std::string>>& assignments,
                                const std::string& where, const UpdateParams& params) {
  LANCE_ASSIGN_OR_RAISE(TableLocation location, TableLocation::FromUri(uri));
  return UpdateRows(location, assignments, where, params);
}

Result<UpdateResult> UpdateRows(const TableLocation& loc,
                                const std::vector<std::pair<std::string, std::string>>& assignments,
                                const std::string& where, const UpdateParams& params) {
  if (assignments.empty()) return Status::InvalidArgument("update: no column to set");
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(loc));
  LANCE_RETURN_NOT_OK(WritableFileVersion(sv.manifest.data_storage_version).status());
  LANCE_ASSIGN_OR_RAISE(auto ds, Snapshot::Open(loc, std::move(sv)));
  const SchemaPtr& schema = ds->schema();
  std::vector<Assignment> sets;
  std::set<int> seen;
  for (const auto& [name, text] : assignments) {
    const int c = schema->GetFieldIndex(name);
    if (c < 0) {
      std::string cols;
      for (const auto& f : schema->fields()) cols += (cols.empty() ? "" : ", ") + f->name();
      return Status::InvalidArgument("update: no column '{}'; columns are: {}", name, cols);
    }
    if (!seen.insert(c).second) return Status::InvalidArgument("update: column '{}' set twice", name);
    auto e = expr::Expression::Make(text, schema);
    if (!e.ok()) return Status::InvalidArgument("update of '{}': {}", name, e.status().message());
    sets.push_back({c, *e});
  }
  const bool stable = (ds->manifest().reader_feature_flags & kFlagStableRowIds) != 0;
  ScanOptions so;
  so.filter = where;
  so.with_row_addr = true;
  so.with_row_id = stable;
  LANCE_ASSIGN_OR_RAISE(auto batches, ds->Scan(so));
  std::vector<RecordBatchPtr> rewritten;
  std::vector<uint64_t> addresses, row_ids;
  const int nc = schema->num_fields();
  for (const auto& b : batches) {
    if (b->num_rows() == 0) continue;
    std::vector<ArrayPtr> cols(b->columns().begin(), b->columns().begin() + nc);
    for (const auto& s : sets) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr v, s.value->Evaluate(*b));
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
    rewritten.push_back(std::make_shared<RecordBatch>(schema, b->num_rows(), std::move(cols)));
    const uint64_t* a = b->column(nc + (stable ? 1 : 0))->Values<uint64_t>();
    addresses.insert(addresses.end(), a, a + b->num_rows());
    if (stable) {
      const uint64_t* r = b->column(nc)->Values<uint64_t>();
      row_ids.insert(row_ids.end(), r, r + b->num_rows());
    }
  }
  UpdateResult out;
  out.commit.attempts = 0;
  if (addresses.empty()) return out;
  out.rows_updated = addresses.size();
  StagedFiles staged(loc);
  LANCE_ASSIGN_OR_RAISE(auto fragments, WriteFragments(staged, ds->manifest(), schema, rewritten,
                                                       params.max_rows_per_file));
  if (stable) LANCE_RETURN_NOT_OK(AssignRowIds(&fragments, row_ids));
  LANCE_ASSIGN_OR_RAISE(out.commit, internal::CommitRowUpdate(loc, staged, *ds, std::move(addresses),
                                                              std::move(fragments), params.commit));
  return out;
}

}  // namespace lance::table
