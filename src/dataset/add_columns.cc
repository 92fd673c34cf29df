// Dataset::AddColumns (expressions), AddColumnsFromData, AddColumnsJoined, AddNullColumns and
// AlterColumnType: new columns computed from rows of the handle's version read through the
// query layer (FragmentReader per fragment, a Scanner for the join keys), one new data file
// per fragment (table's WriteColumnFile), one Merge.
#include <algorithm>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "dataset/columns.h"
#include "dataset/guard.h"
#include "lance/columnar/compute.h"
#include "lance/columnar/json.h"
#include "lance/dataset/dataset.h"
#include "lance/expr/expression.h"
#include "lance/table/feature_flags.h"
#include "lance/table/write.h"

namespace lance::dataset {

using namespace internal;  // NOLINT: the shared steps of columns.h

namespace {

// Columns of fragment i computed by `exprs` over `read_columns` of its live rows, as
// `file_schema`'s types, nulls at deleted rows; the rows read through the query layer's
// FragmentReader.
//
// Fast path: the columns are read for every physical row (one range, no row list, no
// _rowaddr), the expressions evaluated over all of them and the deleted rows then nulled. An
// expression may fail on a deleted row's value (a CAST, a division by zero) where the live
// rows are fine: that fragment then reads its live rows only, with _rowaddr.
ColumnsOf ExpressionColumns(std::shared_ptr<const table::Snapshot> ds,
                            std::vector<std::shared_ptr<const expr::Expression>> exprs,
                            std::vector<std::string> read_columns, SchemaPtr file_schema,
                            ThreadPool* pool) {
  return [=](size_t i, const FragmentInfo& frag) -> Result<std::vector<ArrayPtr>> {
    const int64_t physical = static_cast<int64_t>(frag.physical_rows);
    std::vector<ArrayPtr> out;
    if (frag.num_rows() == 0) {
      for (size_t k = 0; k < exprs.size(); ++k) {
        LANCE_ASSIGN_OR_RAISE(ArrayPtr nulls,
                              MakeArrayOfNulls(file_schema->field(static_cast<int>(k))->type(), physical));
        out.push_back(std::move(nulls));
      }
      return out;
    }
    LANCE_ASSIGN_OR_RAISE(auto reader, query::FragmentReader::Open(ds, i, pool));
    LANCE_ASSIGN_OR_RAISE(SchemaPtr whole_schema, ReadSchema(*ds, read_columns));
    auto whole = reader->Read(whole_schema, query::RowSelection::Range(0, physical));
    if (whole.ok()) {
      for (size_t k = 0; k < exprs.size(); ++k) {
        auto v = exprs[k]->Evaluate(**whole);
        if (!v.ok() || (*v)->length != physical) break;
        auto nulled = NullAtRows(*v, reader->deleted());
        if (!nulled.ok() || !*nulled) break;
        out.push_back(**nulled);
      }
      if (out.size() == exprs.size()) return out;
      out.clear();
    }
    std::vector<std::string> live_columns = read_columns;
    live_columns.push_back(query::kRowAddrColumn);
    LANCE_ASSIGN_OR_RAISE(SchemaPtr live_schema, ReadSchema(*ds, live_columns));
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                          reader->Read(live_schema, reader->LiveRows(0, physical)));
    const ArrayPtr& addr = batch->column(batch->num_columns() - 1);
    for (size_t k = 0; k < exprs.size(); ++k) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr live, exprs[k]->Evaluate(*batch));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr spread,
                            SpreadOverPhysical(live, addr->Values<uint64_t>(), physical));
      out.push_back(std::move(spread));
    }
    return out;
  };
}

Result<CommitInfo> AddColumnsAt(const std::shared_ptr<const table::Snapshot>& ds,
                                const std::vector<ColumnExpression>& columns,
                                const CommitOptions& options, ThreadPool* pool) {
  if (columns.empty()) return Status::InvalidArgument("add columns: no column given");
  LANCE_RETURN_NOT_OK(CheckWritable(*ds));
  const Manifest& m = ds->manifest();
  LANCE_RETURN_NOT_OK(table::WritableFileVersion(m.data_storage_version).status());
  std::vector<std::shared_ptr<const expr::Expression>> exprs;
  std::vector<FieldPtr> added;
  std::set<std::string> seen, reads;
  std::vector<std::string> read_columns;
  for (const auto& c : columns) {
    LANCE_RETURN_NOT_OK(CheckNewName(m, c.name, &seen));
    auto e = expr::Expression::Make(c.expression, ds->schema());
    if (!e.ok()) {
      return Status::InvalidArgument("column '{}': {}", c.name, e.status().message());
    }
    for (const auto& col : (*e)->columns()) {
      if (reads.insert(col).second) read_columns.push_back(col);
    }
    added.push_back(field(c.name, (*e)->type(), true));
    exprs.push_back(*e);
  }
  if (read_columns.empty()) read_columns.push_back(ds->schema()->field(0)->name());
  std::vector<file::LanceField> lance_fields;
  SchemaPtr file_schema;
  LANCE_RETURN_NOT_OK(NewFields(added, NextFieldId(m), &lance_fields, &file_schema));
  return CommitNewColumns(*ds, AppendedSchema(m, lance_fields), file_schema,
                          ExpressionColumns(ds, exprs, read_columns, file_schema, pool), options, pool);
}

// AddColumnsFromData once the input is one batch `all` (of `schema`) whose row i belongs to
// the i-th live row of `ds`.
Result<CommitInfo> AddAlignedColumns(const std::shared_ptr<const table::Snapshot>& ds,
                                     const SchemaPtr& schema,
                                     const RecordBatchPtr& all, const CommitOptions& options,
                                     ThreadPool* pool) {
  const Manifest& m = ds->manifest();
  std::set<std::string> seen;
  std::vector<FieldPtr> added;
  for (const auto& f : schema->fields()) {
    LANCE_RETURN_NOT_OK(CheckNewName(m, f->name(), &seen));
    added.push_back(field(f->name(), f->type(), true, f->metadata()));
  }
  if (static_cast<uint64_t>(all->num_rows()) != ds->CountRows()) {
    return Status::InvalidArgument("add columns: the input has {} rows but the dataset has {}; "
                                   "row i of the input must belong to row i of a scan",
                                   all->num_rows(), ds->CountRows());
  }
  std::vector<file::LanceField> lance_fields;
  SchemaPtr file_schema;
  LANCE_RETURN_NOT_OK(NewFields(added, NextFieldId(m), &lance_fields, &file_schema));
  std::vector<ArrayPtr> input_cols;
  for (int c = 0; c < schema->num_fields(); ++c) {
    if (!SameStorageType(*all->column(c)->type, *file_schema->field(c)->type())) {
      return Status::NotSupported("add columns: column '{}' of type {} is stored as {}",
                                  schema->field(c)->name(), all->column(c)->type->ToString(),
                                  file_schema->field(c)->type()->ToString());
    }
    input_cols.push_back(Relabel(all->column(c), file_schema->field(c)->type()));
  }
  int64_t pos = 0;
  auto columns_of = [&](size_t i, const FragmentInfo& frag)
      -> Result<std::vector<ArrayPtr>> {
    const FragmentInfo& fi = ds->manifest().fragments[i];
    const int64_t live = static_cast<int64_t>(fi.num_rows());
    LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> deleted, ds->DeletedRows(i));
    std::vector<uint64_t> addrs;
    addrs.reserve(static_cast<size_t>(live));
    size_t d = 0;
    for (uint64_t r = 0; r < frag.physical_rows; ++r) {
      if (d < deleted.size() && deleted[d] == r) {
        ++d;
        continue;
      }
      addrs.push_back(r);
    }
    std::vector<ArrayPtr> out;
    for (int c = 0; c < schema->num_fields(); ++c) {
      ArrayPtr part = input_cols[static_cast<size_t>(c)]->Slice(pos, live);
      LANCE_ASSIGN_OR_RAISE(ArrayPtr spread,
                            SpreadOverPhysical(part, addrs.data(),
                                               static_cast<int64_t>(frag.physical_rows)));
      out.push_back(std::move(spread));
    }
    pos += live;
    return out;
  };
  return CommitNewColumns(*ds, AppendedSchema(m, lance_fields), file_schema,
                          columns_of, options, pool);
}

// The join key of row `row` of `columns` (canonical JSON of each value, unit-separated);
// nullopt when a key value is null (a null key matches nothing).
Result<std::optional<std::string>> JoinKey(const std::vector<ArrayPtr>& columns, int64_t row) {
  std::string key;
  for (const auto& c : columns) {
    if (c->IsNull(row)) return std::optional<std::string>();
    LANCE_RETURN_NOT_OK(AppendJsonValue(*c, row, &key));
    key += '\x1f';
  }
  return std::optional<std::string>(std::move(key));
}

Result<CommitInfo> AddColumnsFromDataAt(const std::shared_ptr<const table::Snapshot>& ds, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const CommitOptions& options, ThreadPool* pool) {
  if (schema->num_fields() == 0) return Status::InvalidArgument("add columns: the input has no column");
  LANCE_RETURN_NOT_OK(CheckWritable(*ds));
  const Manifest& m = ds->manifest();
  LANCE_RETURN_NOT_OK(table::WritableFileVersion(m.data_storage_version).status());
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, ConcatenateBatches(schema, batches));
  return AddAlignedColumns(ds, schema, all, options, pool);
}

// The first field of `f`'s tree (itself, struct members, list items; not a map's fixed
// entries/key layout) that is not nullable, or null.
const Field* FirstNonNullable(const FieldPtr& f) {
  if (!f->nullable()) return f.get();
  if (f->type()->id() == TypeId::kMap) return nullptr;
  for (const auto& c : f->type()->fields()) {
    if (const Field* bad = FirstNonNullable(c)) return bad;
  }
  return nullptr;
}

Result<CommitInfo> AddNullColumnsAt(const std::shared_ptr<const table::Snapshot>& ds, const SchemaPtr& schema,
                                  const CommitOptions& options) {
  if (schema->num_fields() == 0) return Status::InvalidArgument("add columns: the schema has no field");
  LANCE_RETURN_NOT_OK(CheckWritable(*ds));
  const Manifest& m = ds->manifest();
  const std::string& dsv = m.data_storage_version;
  if (dsv == "0.1" || dsv == "legacy") {
    return Status::NotSupported("{}: all-null columns cannot be added to a legacy (0.1) dataset",
                                ds->location().display());
  }
  std::set<std::string> seen;
  std::vector<FieldPtr> added;
  for (const auto& f : schema->fields()) {
    LANCE_RETURN_NOT_OK(CheckNewName(m, f->name(), &seen));
    if (const Field* bad = FirstNonNullable(f)) {
      return Status::InvalidArgument("add all-null column '{}': field '{}' is not nullable (an "
                                     "all-null column must be)",
                                     f->name(), bad->name());
    }
    added.push_back(f);
  }
  std::vector<file::LanceField> lance_fields;
  SchemaPtr file_schema;
  LANCE_RETURN_NOT_OK(NewFields(added, NextFieldId(m), &lance_fields, &file_schema));
  Transaction::Merge merge;
  merge.fragments = m.fragments;
  merge.schema = AppendedSchema(m, lance_fields);
  merge.schema_metadata = m.schema_metadata;
  merge.preserves_nullability = true;
  Transaction txn;
  txn.read_version = ds->version();
  txn.operation = std::move(merge);
  return table::CommitTransaction(ds->location(), std::move(txn), options);
}

Result<CommitInfo> AddColumnsJoinedAt(const std::shared_ptr<const table::Snapshot>& ds,
                                      const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const std::vector<std::string>& on,
                                      const CommitOptions& options, ThreadPool* pool) {
  if (on.empty()) return Status::InvalidArgument("add columns: no key column (--on)");
  std::vector<int> key_index;
  for (const auto& k : on) {
    const int i = schema->GetFieldIndex(k);
    if (i < 0) {
      return Status::InvalidArgument("add columns: key column '{}' is not in the input", k);
    }
    if (std::find(key_index.begin(), key_index.end(), i) != key_index.end()) {
      return Status::InvalidArgument("add columns: key column '{}' is named twice", k);
    }
    key_index.push_back(i);
  }
  std::vector<FieldPtr> new_fields;
  std::vector<int> new_index;
  for (int c = 0; c < schema->num_fields(); ++c) {
    if (std::find(key_index.begin(), key_index.end(), c) != key_index.end()) continue;
    new_fields.push_back(schema->field(c));
    new_index.push_back(c);
  }
  if (new_fields.empty()) {
    return Status::InvalidArgument("add columns: the input has only the key columns");
  }
  LANCE_RETURN_NOT_OK(CheckWritable(*ds));
  const Manifest& m = ds->manifest();
  LANCE_RETURN_NOT_OK(table::WritableFileVersion(m.data_storage_version).status());
  for (const auto& k : on) {
    if (ds->schema()->GetFieldIndex(k) < 0) {
      return Status::InvalidArgument("add columns: key column '{}' is not a column of the "
                                     "dataset",
                                     k);
    }
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, ConcatenateBatches(schema, batches));

  // Input row of each key; the input's keys must be unique.
  std::unordered_map<std::string, int64_t> by_key;
  std::vector<ArrayPtr> input_keys;
  for (int i : key_index) input_keys.push_back(all->column(i));
  for (int64_t r = 0; r < all->num_rows(); ++r) {
    LANCE_ASSIGN_OR_RAISE(auto key, JoinKey(input_keys, r));
    if (!key) continue;
    if (!by_key.emplace(*key, r).second) {
      std::string shown = *key;
      std::replace(shown.begin(), shown.end(), '\x1f', ' ');
      return Status::InvalidArgument("add columns: input rows {} and {} have the same key ({}); "
                                     "each dataset row can take one input row",
                                     by_key[*key], r, shown);
    }
  }

  // For each live row in scan order, its input row (the appended all-null row when none): the
  // keys of the version read by the query layer's scan.
  query::ScanOptions so;
  so.columns = on;
  so.use_index = false;
  so.pool = pool;
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, std::move(so)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  const int64_t no_match = all->num_rows();
  std::vector<int64_t> take;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
    if (!b) break;
    std::vector<ArrayPtr> keys;
    for (int c = 0; c < b->num_columns(); ++c) keys.push_back(b->column(c));
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      LANCE_ASSIGN_OR_RAISE(auto key, JoinKey(keys, r));
      auto it = key ? by_key.find(*key) : by_key.end();
      take.push_back(it == by_key.end() ? no_match : it->second);
    }
  }
  std::vector<ArrayPtr> aligned;
  for (int c : new_index) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr null_row, MakeArrayOfNulls(all->column(c)->type, 1));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr extended, Concatenate({all->column(c), null_row}));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr taken, TakeArray(extended, take));
    aligned.push_back(std::move(taken));
  }
  auto new_schema = lance::schema(std::move(new_fields));
  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(new_schema, static_cast<int64_t>(take.size()),
                                                      std::move(aligned)));
  return AddAlignedColumns(ds, new_schema, batch, options, pool);
}

Result<CommitInfo> AlterColumnTypeAt(const std::shared_ptr<const table::Snapshot>& ds,
                                     const std::string& column,
                                     const std::string& type_name, const CommitOptions& options,
                                     ThreadPool* pool) {
  LANCE_RETURN_NOT_OK(CheckWritable(*ds));
  const Manifest& m = ds->manifest();
  LANCE_RETURN_NOT_OK(table::WritableFileVersion(m.data_storage_version).status());
  LANCE_ASSIGN_OR_RAISE(int idx, FindField(m, column));
  const file::LanceField& old = m.fields[static_cast<size_t>(idx)];
  if (old.parent_id != -1 || Subtree(m, old.id).size() != 1) {
    return Status::NotSupported("alter column type: '{}' is nested or has children; only "
                                "top-level columns of a leaf type can change type",
                                column);
  }
  if (column.find('"') != std::string::npos) {
    return Status::InvalidArgument("alter column type: column name '{}' contains a quote", column);
  }
  auto e = expr::Expression::Make(fmt::format("CAST(\"{}\" AS {})", column, type_name), ds->schema());
  if (!e.ok()) {
    return Status::InvalidArgument("alter column type of '{}' to '{}': {}", column, type_name,
                                   e.status().message());
  }
  std::vector<file::LanceField> lance_fields;
  SchemaPtr file_schema;
  LANCE_RETURN_NOT_OK(NewFields({field(old.name, (*e)->type(), true)}, NextFieldId(m),
                                &lance_fields, &file_schema));
  if (lance_fields.size() != 1) {
    return Status::NotSupported("alter column type: '{}' is not a leaf type", type_name);
  }
  // The field keeps its place, name, nullability and metadata under a new id (the old id's
  // values stay in the old data files, which readers then ignore).
  Fields schema;
  for (int i = 0; i < static_cast<int>(m.fields.size()); ++i) {
    if (i != idx) {
      schema.push_back(m.fields[static_cast<size_t>(i)]);
      continue;
    }
    file::LanceField f = lance_fields[0];
    f.nullable = old.nullable;
    f.metadata = old.metadata;
    schema.push_back(std::move(f));
  }
  auto columns_of = ExpressionColumns(ds, {*e}, {old.name}, file_schema, pool);
  return CommitNewColumns(*ds, std::move(schema), file_schema, columns_of, options, pool);
}

}  // namespace

Result<table::CommitInfo> Dataset::AddColumns(const std::vector<ColumnExpression>& columns) {
  return Guarded("add columns", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, AddColumnsAt(snap, columns, CommitOptions(), pool()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AddNullColumns(const SchemaPtr& schema) {
  return Guarded("add columns", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, AddNullColumnsAt(snap, schema, CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AddColumnsFromData(RecordBatchReader& input) {
  return Guarded("add columns", [&]() -> Result<table::CommitInfo> {
    LANCE_ASSIGN_OR_RAISE(auto batches, input.ReadAll());
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, AddColumnsFromDataAt(snap, input.schema(), batches, CommitOptions(), pool()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AddColumnsJoined(RecordBatchReader& input,
                                                    const std::vector<std::string>& on) {
  return Guarded("add columns", [&]() -> Result<table::CommitInfo> {
    LANCE_ASSIGN_OR_RAISE(auto batches, input.ReadAll());
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, AddColumnsJoinedAt(snap, input.schema(), batches, on,
                                                    CommitOptions(), pool()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AlterColumnType(const std::string& column, const std::string& type_name) {
  return Guarded("alter column type", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, AlterColumnTypeAt(snap, column, type_name, CommitOptions(), pool()));
      return out.version;
    }));
    return out;
  });
}

}  // namespace lance::dataset
