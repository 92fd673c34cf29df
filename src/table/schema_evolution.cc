// Drop / rename / alter columns (Project transactions) and add columns (Merge transactions
// with one new data file per fragment). See schema_evolution.h.
#include "lance/table/schema_evolution.h"

#include <algorithm>
#include <functional>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "lance/columnar/json.h"
#include "lance/core/bit_util.h"
#include "lance/expr/expression.h"
#include "lance/file/lance_schema.h"
#include "lance/columnar/compute.h"
#include "lance/table/feature_flags.h"
#include "lance/table/snapshot.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"
#include "lance/table/schema_rules.h"
#include "table/fragment_rows.h"

namespace lance::table {

namespace {

using Fields = std::vector<file::LanceField>;

std::string ColumnList(const Manifest& m) {
  std::string out;
  for (const auto& f : m.fields) {
    if (f.parent_id != -1) continue;
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

// Index in m.fields of the field at `path` ("a" or "a.b.c" through struct children).
Result<int> FindField(const Manifest& m, const std::string& path) {
  int32_t parent = -1;
  int found = -1;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    found = -1;
    for (int i = 0; i < static_cast<int>(m.fields.size()); ++i) {
      if (m.fields[static_cast<size_t>(i)].parent_id == parent && m.fields[static_cast<size_t>(i)].name == part) {
        found = i;
        break;
      }
    }
    if (found < 0) {
      return Status::InvalidArgument("no field '{}' in the dataset (column '{}'); columns are: {}",
                                     part, path, ColumnList(m));
    }
    if (dot == std::string::npos) return found;
    parent = m.fields[static_cast<size_t>(found)].id;
    start = dot + 1;
  }
}

// `id` and the ids of every field below it.
std::set<int32_t> Subtree(const Manifest& m, int32_t id) {
  std::set<int32_t> ids{id};
  bool grew = true;
  while (grew) {
    grew = false;
    for (const auto& f : m.fields) {
      if (ids.count(f.parent_id) && ids.insert(f.id).second) grew = true;
    }
  }
  return ids;
}

// One past the largest field id any field or data file of the dataset uses (ids of dropped
// fields may still sit in data files, so they are never handed out again).
int32_t NextFieldId(const Manifest& m) {
  int32_t max_id = -1;
  for (const auto& f : m.fields) max_id = std::max(max_id, f.id);
  for (const auto& frag : m.fragments) {
    for (const auto& df : frag.files) {
      for (int32_t id : df.fields) max_id = std::max(max_id, id);
    }
  }
  return max_id + 1;
}

Result<CommitInfo> CommitProject(const TableLocation& loc, const CommittedVersion& sv,
                                 Fields fields,
                                 bool preserves_nullability, const CommitOptions& options) {
  Transaction::Project project;
  project.schema = std::move(fields);
  project.preserves_nullability = preserves_nullability;
  Transaction txn;
  txn.read_version = sv.version;
  txn.operation = std::move(project);
  return CommitTransaction(loc, std::move(txn), options);
}

// The values of the (possibly nested) field at `path` in a scan of its top-level column.
ArrayPtr NestedArray(const ArrayPtr& top, const std::vector<std::string>& path,
                     const DataType* type) {
  ArrayPtr cur = top;
  const DataType* t = type;
  for (size_t k = 1; k < path.size() && cur; ++k) {
    const auto& children = t->fields();
    ArrayPtr next;
    for (size_t c = 0; c < children.size(); ++c) {
      if (children[c]->name() == path[k]) {
        next = cur->children[c]->Slice(cur->offset, cur->length);
        t = children[c]->type().get();
        break;
      }
    }
    cur = next;
  }
  return cur;
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

// `live` (one value per live row, at the offsets `addrs` & 0xffffffff, ascending) spread over
// `physical` rows, with nulls at the rows not listed.
Result<ArrayPtr> SpreadOverPhysical(const ArrayPtr& live, const uint64_t* addrs, int64_t physical) {
  if (live->length == physical) return live;
  const DataType& t = *live->type;
  const int bits = t.bit_width();
  if (t.is_fixed_width() && t.id() != TypeId::kDictionary && bits >= 8 && bits % 8 == 0 &&
      live->children.empty()) {
    // Scatter the values straight into place; rows not listed stay null (zeroed).
    const int64_t w = bits / 8;
    LANCE_ASSIGN_OR_RAISE(BufferPtr values, AllocateBuffer(physical * w, /*zero_fill=*/true));
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, AllocateBuffer((physical + 7) / 8, /*zero_fill=*/true));
    const uint8_t* src = live->buffers[1]->data() + live->offset * w;
    uint8_t* dst = values->mutable_data();
    uint8_t* valid = validity->mutable_data();
    for (int64_t i = 0; i < live->length; ++i) {
      const int64_t off = static_cast<int64_t>(addrs[i] & 0xffffffffULL);
      if (off >= physical) return Status::Internal("row offset {} beyond {} rows", off, physical);
      std::memcpy(dst + off * w, src + i * w, static_cast<size_t>(w));
      if (live->IsValid(i)) bit_util::SetBit(valid, off);
    }
    return Array::Make(live->type, physical, {validity, values});
  }
  std::vector<ArrayPtr> pieces;
  int64_t next = 0;  // next physical row to cover
  int64_t i = 0;
  while (i < live->length) {
    const int64_t off = static_cast<int64_t>(addrs[i] & 0xffffffffULL);
    if (off > next) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr nulls, MakeArrayOfNulls(live->type, off - next));
      pieces.push_back(std::move(nulls));
    }
    int64_t j = i + 1;
    while (j < live->length && static_cast<int64_t>(addrs[j] & 0xffffffffULL) == off + (j - i)) ++j;
    pieces.push_back(live->Slice(i, j - i));
    next = off + (j - i);
    i = j;
  }
  if (next < physical) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr nulls, MakeArrayOfNulls(live->type, physical - next));
    pieces.push_back(std::move(nulls));
  }
  if (pieces.size() == 1) return pieces[0];
  return Concatenate(pieces);
}

// Lance fields (protobuf) and the Arrow schema with ids of `added` top-level fields, with ids
// from `first_id` up.
Status NewFields(const std::vector<FieldPtr>& added, int32_t first_id,
                 std::vector<file::LanceField>* lance_fields, SchemaPtr* with_ids) {
  LANCE_RETURN_NOT_OK(CheckTableSchema(Schema(added), "add columns"));
  LANCE_ASSIGN_OR_RAISE(*lance_fields, file::LanceFieldsFromSchema(Schema(added)));
  for (auto& f : *lance_fields) {
    f.id += first_id;
    if (f.parent_id >= 0) f.parent_id += first_id;
    f.nullable = true;
  }
  LANCE_ASSIGN_OR_RAISE(*with_ids, file::SchemaFromLanceFields(*lance_fields));
  return Status::OK();
}

// The dataset's fields followed by `added`.
Fields AppendedSchema(
    const Manifest& m, const std::vector<file::LanceField>& added) {
  Fields out = m.fields;
  out.insert(out.end(), added.begin(), added.end());
  return out;
}

using ColumnsOf =
    std::function<Result<std::vector<ArrayPtr>>(size_t, const FragmentInfo&)>;

// Shared tail of AddColumns, AddColumnsFromData and AlterColumnType: `columns_of(i, frag)`
// returns the new columns of fragment i spread over its physical rows; they are written as
// one new data file per fragment and a Merge with `schema` is committed.
Result<CommitInfo> CommitNewColumns(const TableLocation& loc, const CommittedVersion& sv,
                                    Fields schema,
                                    const SchemaPtr& file_schema, const ColumnsOf& columns_of,
                                    const CommitOptions& options) {
  StagedFiles staged(loc);
  Transaction::Merge merge;
  for (size_t i = 0; i < sv.manifest.fragments.size(); ++i) {
    const FragmentInfo& frag = sv.manifest.fragments[i];
    LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, columns_of(i, frag));
    RecordBatch batch(file_schema, static_cast<int64_t>(frag.physical_rows), std::move(cols));
    LANCE_ASSIGN_OR_RAISE(DataFileInfo df, WriteColumnFile(staged, sv.manifest, batch));
    FragmentInfo nf = frag;
    nf.files.push_back(std::move(df));
    merge.fragments.push_back(std::move(nf));
  }
  merge.schema = std::move(schema);
  merge.schema_metadata = sv.manifest.schema_metadata;
  merge.preserves_nullability = true;
  Transaction txn;
  txn.read_version = sv.version;
  txn.operation = std::move(merge);
  return CommitTransaction(loc, std::move(txn), options, &staged);
}

// Columns of fragment i computed by `exprs` over a scan (`so`: the columns they read plus
// _rowaddr) of its live rows, as `file_schema`'s types, nulls at deleted rows.
//
// Fast path: the columns are read whole (every physical row, no row list and no _rowaddr),
// the expressions evaluated over all of them and the deleted rows then nulled. An expression
// may fail on a deleted row's value (a CAST, a division by zero) where the live rows are fine:
// that fragment, and one the direct read declines, then goes the scan's way.
ColumnsOf ExpressionColumns(std::shared_ptr<Snapshot> ds,
                            std::vector<std::shared_ptr<const expr::Expression>> exprs,
                            ScanOptions so, SchemaPtr file_schema) {
  auto scan_pos = std::make_shared<uint64_t>(0);
  std::vector<std::string> read_columns = so.columns;
  return [=](size_t i, const FragmentInfo& frag) -> Result<std::vector<ArrayPtr>> {
    uint64_t& pos = *scan_pos;
    const FragmentInfo& fi = ds->manifest().fragments[i];
    const int64_t physical = static_cast<int64_t>(frag.physical_rows);
    std::vector<ArrayPtr> out;
    if (fi.num_rows() > 0) {
      auto whole = internal::ReadPhysicalRows(*ds, i, read_columns);
      auto deleted = ds->DeletedRows(i);
      if (whole.ok() && *whole && deleted.ok()) {
        for (size_t k = 0; k < exprs.size(); ++k) {
          auto v = exprs[k]->Evaluate(***whole);
          if (!v.ok() || (*v)->length != physical) break;
          auto nulled = NullAtRows(*v, *deleted);
          if (!nulled.ok() || !*nulled) break;
          out.push_back(**nulled);
        }
        if (out.size() == exprs.size()) {
          pos += fi.num_rows();
          return out;
        }
        out.clear();
      }
    }
    RecordBatchPtr batch;
    if (fi.num_rows() > 0) {
      ScanOptions fso = so;
      fso.offset = static_cast<int64_t>(pos);
      fso.limit = static_cast<int64_t>(fi.num_rows());
      pos += fi.num_rows();
      LANCE_ASSIGN_OR_RAISE(auto batches, ds->Scan(fso));
      if (batches.size() != 1 || batches[0]->num_rows() != static_cast<int64_t>(fi.num_rows())) {
        return Status::Internal("add columns: fragment {} scanned as {} batches", fi.id, batches.size());
      }
      batch = batches[0];
    }
    for (size_t k = 0; k < exprs.size(); ++k) {
      const DataTypePtr& type = file_schema->field(static_cast<int>(k))->type();
      if (!batch) {
        LANCE_ASSIGN_OR_RAISE(ArrayPtr nulls, MakeArrayOfNulls(type, physical));
        out.push_back(std::move(nulls));
        continue;
      }
      LANCE_ASSIGN_OR_RAISE(ArrayPtr live, exprs[k]->Evaluate(*batch));
      const ArrayPtr& addr = batch->column(batch->num_columns() - 1);
      LANCE_ASSIGN_OR_RAISE(ArrayPtr spread,
                            SpreadOverPhysical(live, addr->Values<uint64_t>(), physical));
      out.push_back(std::move(spread));
    }
    return out;
  };
}

Status CheckNewName(const Manifest& m, const std::string& name,
                    std::set<std::string>* seen) {
  LANCE_RETURN_NOT_OK(CheckColumnName(name, "add columns"));
  for (const auto& f : m.fields) {
    if (f.parent_id == -1 && f.name == name) {
      return Status::InvalidArgument("column '{}' already exists", name);
    }
  }
  if (!seen->insert(name).second) {
    return Status::InvalidArgument("column '{}' is added twice", name);
  }
  return Status::OK();
}

}  // namespace

namespace {

// `type` (a struct) without the field at `path[depth..]` (names of nested struct fields), and
// `array` (of `type`; may be null) likewise: the remaining children keep their buffers.
Result<std::pair<DataTypePtr, ArrayPtr>> PruneStruct(const DataTypePtr& type, const ArrayPtr& array,
                                                     const std::vector<std::string>& path,
                                                     size_t depth) {
  if (type->id() != TypeId::kStruct) {
    return Status::NotSupported("drop columns: '{}' is not a struct field, so '{}' cannot be "
                                "dropped from it (only struct children can be)",
                                path[depth - 1], path[depth]);
  }
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> children;
  bool found = false;
  for (int c = 0; c < type->num_fields(); ++c) {
    const FieldPtr& f = type->field(c);
    const ArrayPtr child = array ? array->children[static_cast<size_t>(c)] : nullptr;
    if (f->name() != path[depth]) {
      fields.push_back(f);
      children.push_back(child);
      continue;
    }
    found = true;
    if (depth + 1 == path.size()) continue;  // the field dropped
    LANCE_ASSIGN_OR_RAISE(auto pruned, PruneStruct(f->type(), child, path, depth + 1));
    fields.push_back(field(f->name(), pruned.first, f->nullable(), f->metadata()));
    children.push_back(pruned.second);
  }
  if (!found) return Status::InvalidArgument("drop columns: no field '{}' in '{}'", path[depth], path[depth - 1]);
  if (fields.empty()) {
    return Status::InvalidArgument("drop columns: '{}' is the last field of struct '{}'; drop the "
                                   "struct instead",
                                   path[depth], path[depth - 1]);
  }
  DataTypePtr pruned_type = struct_(std::move(fields));
  if (!array) return std::make_pair(pruned_type, ArrayPtr());
  return std::make_pair(pruned_type, Array::Make(pruned_type, array->length, array->buffers,
                                                 std::move(children), array->offset));
}

}  // namespace

Result<CommitInfo> DropColumns(const TableLocation& loc, const std::vector<std::string>& paths,
                               const CommitOptions& options) {
  if (paths.empty()) return Status::InvalidArgument("drop columns: no column named");
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(loc));
  std::set<int32_t> removed;
  // Nested fields to drop, by the index (in m.fields) of their top-level column.
  std::map<int, std::vector<std::vector<std::string>>> nested;
  for (const auto& p : paths) {
    LANCE_ASSIGN_OR_RAISE(int idx, FindField(sv.manifest, p));
    if (sv.manifest.fields[static_cast<size_t>(idx)].parent_id != -1) {
      std::vector<std::string> parts = SplitPath(p);
      LANCE_ASSIGN_OR_RAISE(int top, FindField(sv.manifest, parts[0]));
      nested[top].push_back(std::move(parts));
      continue;
    }
    const auto sub = Subtree(sv.manifest, sv.manifest.fields[static_cast<size_t>(idx)].id);
    removed.insert(sub.begin(), sub.end());
  }
  for (auto it = nested.begin(); it != nested.end();) {  // inside a dropped column: nothing to do
    it = removed.count(sv.manifest.fields[static_cast<size_t>(it->first)].id) ? nested.erase(it) : std::next(it);
  }
  Fields kept;
  bool any_top = false;
  for (const auto& f : sv.manifest.fields) {
    if (removed.count(f.id)) continue;
    kept.push_back(f);
    if (f.parent_id == -1) any_top = true;
  }
  if (!any_top) {
    return Status::InvalidArgument("drop columns: cannot drop every column of the dataset");
  }
  std::set<int32_t> gone = removed;  // ids leaving the schema, rewritten structs' included
  for (const auto& n : nested) {
    const auto sub = Subtree(sv.manifest, sv.manifest.fields[static_cast<size_t>(n.first)].id);
    gone.insert(sub.begin(), sub.end());
  }
  if (nested.empty()) return CommitProject(loc, sv, std::move(kept), true, options);

  // A struct losing a child is rewritten: one new data file per fragment holds the struct
  // without the child under new field ids, in the struct's place in the schema (a Merge, as
  // for a type change). lance 12 only drops the child from the schema (a Project); this
  // library's reader reads struct columns whole from their data files, so it needs the
  // narrower struct stored.
  LANCE_RETURN_NOT_OK(WritableFileVersion(sv.manifest.data_storage_version).status());
  LANCE_RETURN_NOT_OK(WritableFileVersion(sv.manifest.data_storage_version).status());
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<Snapshot> ds, Snapshot::Open(loc, sv));
  std::vector<std::string> top_names;
  std::vector<std::vector<std::vector<std::string>>> top_paths;
  std::vector<FieldPtr> new_top;
  for (const auto& [idx, drops] : nested) {
    const file::LanceField& top = sv.manifest.fields[static_cast<size_t>(idx)];
    const FieldPtr& f = ds->schema()->GetFieldByName(top.name);
    DataTypePtr type = f->type();
    for (const auto& path : drops) {
      LANCE_ASSIGN_OR_RAISE(auto pruned, PruneStruct(type, nullptr, path, 1));
      type = pruned.first;
    }
    top_names.push_back(top.name);
    top_paths.push_back(drops);
    new_top.push_back(field(top.name, type, f->nullable(), f->metadata()));
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<file::LanceField> lance_fields,
                        file::LanceFieldsFromSchema(Schema(new_top)));
  const int32_t first_id = NextFieldId(sv.manifest);
  for (auto& lf : lance_fields) {
    lf.id += first_id;
    if (lf.parent_id >= 0) lf.parent_id += first_id;
  }
  LANCE_ASSIGN_OR_RAISE(SchemaPtr file_schema, file::SchemaFromLanceFields(lance_fields));
  // Each rewritten struct's subtree takes the place of the old one; other fields stay as kept.
  Fields schema;
  for (const auto& f : kept) {
    auto it = std::find_if(nested.begin(), nested.end(), [&](const auto& n) {
      return Subtree(sv.manifest, sv.manifest.fields[static_cast<size_t>(n.first)].id).count(f.id) > 0;
    });
    if (it == nested.end()) {
      schema.push_back(f);
      continue;
    }
    if (f.id != sv.manifest.fields[static_cast<size_t>(it->first)].id) continue;  // a child of a rewritten struct
    const size_t k = static_cast<size_t>(std::distance(nested.begin(), it));
    const int32_t new_id = file_schema->field(static_cast<int>(k))->id();
    const std::set<int32_t> ids = [&] {
      std::set<int32_t> out{new_id};
      bool grew = true;
      while (grew) {
        grew = false;
        for (const auto& lf : lance_fields) {
          if (out.count(lf.parent_id) && out.insert(lf.id).second) grew = true;
        }
      }
      return out;
    }();
    for (const auto& lf : lance_fields) {
      if (ids.count(lf.id)) schema.push_back(lf);
    }
  }
  ScanOptions so;
  so.columns = top_names;
  so.with_row_addr = true;
  auto scan_pos = std::make_shared<uint64_t>(0);
  auto columns_of = [&, scan_pos](size_t i, const FragmentInfo& frag)
      -> Result<std::vector<ArrayPtr>> {
    const FragmentInfo& fi = ds->manifest().fragments[i];
    const int64_t physical = static_cast<int64_t>(frag.physical_rows);
    std::vector<ArrayPtr> out;
    if (fi.num_rows() == 0) {
      for (int c = 0; c < file_schema->num_fields(); ++c) {
        LANCE_ASSIGN_OR_RAISE(ArrayPtr nulls, MakeArrayOfNulls(file_schema->field(c)->type(), physical));
        out.push_back(std::move(nulls));
      }
      return out;
    }
    ScanOptions fso = so;
    fso.offset = static_cast<int64_t>(*scan_pos);
    fso.limit = static_cast<int64_t>(fi.num_rows());
    *scan_pos += fi.num_rows();
    LANCE_ASSIGN_OR_RAISE(auto batches, ds->Scan(fso));
    if (batches.size() != 1 || batches[0]->num_rows() != static_cast<int64_t>(fi.num_rows())) {
      return Status::Internal("drop columns: fragment {} scanned as {} batches", fi.id, batches.size());
    }
    const RecordBatchPtr& b = batches[0];
    const ArrayPtr& addr = b->column(b->num_columns() - 1);
    for (size_t k = 0; k < top_names.size(); ++k) {
      ArrayPtr column = b->column(static_cast<int>(k));
      DataTypePtr type = column->type;
      for (const auto& path : top_paths[k]) {
        LANCE_ASSIGN_OR_RAISE(auto pruned, PruneStruct(type, column, path, 1));
        type = pruned.first;
        column = pruned.second;
      }
      column = Relabel(column, file_schema->field(static_cast<int>(k))->type());
      LANCE_ASSIGN_OR_RAISE(ArrayPtr spread,
                            SpreadOverPhysical(column, addr->Values<uint64_t>(), physical));
      out.push_back(std::move(spread));
    }
    return out;
  };
  return CommitNewColumns(loc, sv, std::move(schema), file_schema, columns_of, options);
}

Result<CommitInfo> AlterColumns(const TableLocation& loc,
                                const std::vector<ColumnAlteration>& alterations,
                                const CommitOptions& options) {
  if (alterations.empty()) return Status::InvalidArgument("alter columns: nothing to change");
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(loc));
  Fields fields = sv.manifest.fields;
  bool preserves = true;
  std::shared_ptr<Snapshot> ds;
  for (const auto& a : alterations) {
    LANCE_ASSIGN_OR_RAISE(int idx, FindField(sv.manifest, a.path));
    file::LanceField& f = fields[static_cast<size_t>(idx)];
    if (a.nullable.has_value() && *a.nullable != f.nullable) {
      if (!*a.nullable) {
        // Tightening: every stored value must be present.
        preserves = false;
        if (!ds) {
          LANCE_ASSIGN_OR_RAISE(ds, Snapshot::Open(loc, sv));
        }
        const auto parts = SplitPath(a.path);
        ScanOptions so;
        so.columns = {parts[0]};
        LANCE_ASSIGN_OR_RAISE(auto batches, ds->Scan(so));
        const DataType* top_type = ds->schema()->GetFieldByName(parts[0])->type().get();
        for (const auto& b : batches) {
          ArrayPtr values = NestedArray(b->column(0), parts, top_type);
          if (!values) return Status::Internal("alter columns: cannot locate '{}' in a scan", a.path);
          if (values->null_count > 0 || (parts.size() > 1 && b->column(0)->null_count > 0)) {
            return Status::InvalidArgument("cannot make '{}' non-nullable: it holds nulls", a.path);
          }
        }
      }
      f.nullable = *a.nullable;
    }
    if (a.rename.has_value()) {
      const std::string& name = *a.rename;
      if (name.empty() || name.find('.') != std::string::npos) {
        return Status::InvalidArgument("cannot rename '{}' to '{}': a name must be non-empty and "
                                       "contain no '.'",
                                       a.path, name);
      }
      for (const auto& other : fields) {
        if (other.parent_id == f.parent_id && other.id != f.id && other.name == name) {
          return Status::InvalidArgument("cannot rename '{}' to '{}': that name is taken", a.path,
                                         name);
        }
      }
      f.name = name;
    }
  }
  return CommitProject(loc, sv, std::move(fields), preserves, options);
}

Result<CommitInfo> AddColumns(const TableLocation& loc, const std::vector<ColumnExpression>& columns,
                              const CommitOptions& options) {
  if (columns.empty()) return Status::InvalidArgument("add columns: no column given");
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(loc));
  LANCE_RETURN_NOT_OK(WritableFileVersion(sv.manifest.data_storage_version).status());
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<Snapshot> ds, Snapshot::Open(loc, sv));
  std::vector<std::shared_ptr<const expr::Expression>> exprs;
  std::vector<FieldPtr> added;
  std::set<std::string> seen, reads;
  ScanOptions so;
  so.with_row_addr = true;
  for (const auto& c : columns) {
    LANCE_RETURN_NOT_OK(CheckNewName(sv.manifest, c.name, &seen));
    auto e = expr::Expression::Make(c.expression, ds->schema());
    if (!e.ok()) {
      return Status::InvalidArgument("column '{}': {}", c.name, e.status().message());
    }
    for (const auto& col : (*e)->columns()) {
      if (reads.insert(col).second) so.columns.push_back(col);
    }
    added.push_back(field(c.name, (*e)->type(), true));
    exprs.push_back(*e);
  }
  if (so.columns.empty()) so.columns.push_back(ds->schema()->field(0)->name());
  std::vector<file::LanceField> lance_fields;
  SchemaPtr file_schema;
  LANCE_RETURN_NOT_OK(NewFields(added, NextFieldId(sv.manifest), &lance_fields, &file_schema));
  return CommitNewColumns(loc, sv, AppendedSchema(sv.manifest, lance_fields), file_schema,
                          ExpressionColumns(ds, exprs, so, file_schema), options);
}

namespace {

// AddColumnsFromData once the input is one batch `all` (of `schema`) whose row i belongs to
// the i-th live row of `ds` (the dataset at `sv`).
Result<CommitInfo> AddAlignedColumns(const TableLocation& loc, const CommittedVersion& sv,
                                     const std::shared_ptr<Snapshot>& ds, const SchemaPtr& schema,
                                     const RecordBatchPtr& all, const CommitOptions& options) {
  std::set<std::string> seen;
  std::vector<FieldPtr> added;
  for (const auto& f : schema->fields()) {
    LANCE_RETURN_NOT_OK(CheckNewName(sv.manifest, f->name(), &seen));
    added.push_back(field(f->name(), f->type(), true, f->metadata()));
  }
  if (static_cast<uint64_t>(all->num_rows()) != ds->CountRows()) {
    return Status::InvalidArgument("add columns: the input has {} rows but the dataset has {}; "
                                   "row i of the input must belong to row i of a scan",
                                   all->num_rows(), ds->CountRows());
  }
  std::vector<file::LanceField> lance_fields;
  SchemaPtr file_schema;
  LANCE_RETURN_NOT_OK(NewFields(added, NextFieldId(sv.manifest), &lance_fields, &file_schema));
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
  return CommitNewColumns(loc, sv, AppendedSchema(sv.manifest, lance_fields), file_schema,
                          columns_of, options);
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

}  // namespace

Result<CommitInfo> AddColumnsFromData(const TableLocation& loc, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const CommitOptions& options) {
  if (schema->num_fields() == 0) return Status::InvalidArgument("add columns: the input has no column");
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(loc));
  LANCE_RETURN_NOT_OK(WritableFileVersion(sv.manifest.data_storage_version).status());
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<Snapshot> ds, Snapshot::Open(loc, sv));
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, ConcatenateBatches(schema, batches));
  return AddAlignedColumns(loc, sv, ds, schema, all, options);
}

namespace {

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

}  // namespace

Result<CommitInfo> AddNullColumns(const TableLocation& loc, const SchemaPtr& schema,
                                  const CommitOptions& options) {
  if (schema->num_fields() == 0) return Status::InvalidArgument("add columns: the schema has no field");
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(loc));
  const std::string& dsv = sv.manifest.data_storage_version;
  if (dsv == "0.1" || dsv == "legacy") {
    return Status::NotSupported("{}: all-null columns cannot be added to a legacy (0.1) dataset",
                                loc.root());
  }
  std::set<std::string> seen;
  std::vector<FieldPtr> added;
  for (const auto& f : schema->fields()) {
    LANCE_RETURN_NOT_OK(CheckNewName(sv.manifest, f->name(), &seen));
    if (const Field* bad = FirstNonNullable(f)) {
      return Status::InvalidArgument("add all-null column '{}': field '{}' is not nullable (an "
                                     "all-null column must be)",
                                     f->name(), bad->name());
    }
    added.push_back(f);
  }
  std::vector<file::LanceField> lance_fields;
  SchemaPtr file_schema;
  LANCE_RETURN_NOT_OK(NewFields(added, NextFieldId(sv.manifest), &lance_fields, &file_schema));
  Transaction::Merge merge;
  merge.fragments = sv.manifest.fragments;
  merge.schema = AppendedSchema(sv.manifest, lance_fields);
  merge.schema_metadata = sv.manifest.schema_metadata;
  merge.preserves_nullability = true;
  Transaction txn;
  txn.read_version = sv.version;
  txn.operation = std::move(merge);
  return CommitTransaction(loc, std::move(txn), options);
}

Result<CommitInfo> AddColumnsJoined(const TableLocation& loc, const SchemaPtr& schema,
                                    const std::vector<RecordBatchPtr>& batches,
                                    const std::vector<std::string>& on,
                                    const CommitOptions& options) {
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
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(loc));
  LANCE_RETURN_NOT_OK(WritableFileVersion(sv.manifest.data_storage_version).status());
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<Snapshot> ds, Snapshot::Open(loc, sv));
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

  // For each live row in scan order, its input row (the appended all-null row when none).
  ScanOptions so;
  so.columns = on;
  LANCE_ASSIGN_OR_RAISE(auto scanned, ds->Scan(so));
  const int64_t no_match = all->num_rows();
  std::vector<int64_t> take;
  for (const auto& b : scanned) {
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
  return AddAlignedColumns(loc, sv, ds, new_schema, batch, options);
}

Result<CommitInfo> AlterColumnType(const TableLocation& loc, const std::string& column,
                                   const std::string& type_name, const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(CommittedVersion sv, LoadLatestWritableVersion(loc));
  LANCE_RETURN_NOT_OK(WritableFileVersion(sv.manifest.data_storage_version).status());
  LANCE_ASSIGN_OR_RAISE(int idx, FindField(sv.manifest, column));
  const file::LanceField& old = sv.manifest.fields[static_cast<size_t>(idx)];
  if (old.parent_id != -1 || Subtree(sv.manifest, old.id).size() != 1) {
    return Status::NotSupported("alter column type: '{}' is nested or has children; only "
                                "top-level columns of a leaf type can change type",
                                column);
  }
  if (column.find('"') != std::string::npos) {
    return Status::InvalidArgument("alter column type: column name '{}' contains a quote", column);
  }
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<Snapshot> ds, Snapshot::Open(loc, sv));
  auto e = expr::Expression::Make(fmt::format("CAST(\"{}\" AS {})", column, type_name), ds->schema());
  if (!e.ok()) {
    return Status::InvalidArgument("alter column type of '{}' to '{}': {}", column, type_name,
                                   e.status().message());
  }
  std::vector<file::LanceField> lance_fields;
  SchemaPtr file_schema;
  LANCE_RETURN_NOT_OK(NewFields({field(old.name, (*e)->type(), true)}, NextFieldId(sv.manifest),
                                &lance_fields, &file_schema));
  if (lance_fields.size() != 1) {
    return Status::NotSupported("alter column type: '{}' is not a leaf type", type_name);
  }
  // The field keeps its place, name, nullability and metadata under a new id (the old id's
  // values stay in the old data files, which readers then ignore).
  Fields schema;
  for (int i = 0; i < static_cast<int>(sv.manifest.fields.size()); ++i) {
    if (i != idx) {
      schema.push_back(sv.manifest.fields[static_cast<size_t>(i)]);
      continue;
    }
    file::LanceField f = lance_fields[0];
    f.nullable = old.nullable;
    f.metadata = old.metadata;
    schema.push_back(std::move(f));
  }
  ScanOptions so;
  so.columns = {old.name};
  so.with_row_addr = true;
  auto columns_of = ExpressionColumns(ds, {*e}, so, file_schema);
  return CommitNewColumns(loc, sv, std::move(schema), file_schema, columns_of, options);
}

// The URI forms.

Result<CommitInfo> DropColumns(const std::string& uri, const std::vector<std::string>& paths,
                               const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, TableLocation::FromUri(uri));
  return DropColumns(loc, paths, options);
}

Result<CommitInfo> AlterColumns(const std::string& uri,
                                const std::vector<ColumnAlteration>& alterations,
                                const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, TableLocation::FromUri(uri));
  return AlterColumns(loc, alterations, options);
}

Result<CommitInfo> AlterColumnType(const std::string& uri, const std::string& column,
                                   const std::string& type_name, const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, TableLocation::FromUri(uri));
  return AlterColumnType(loc, column, type_name, options);
}

Result<CommitInfo> AddColumns(const std::string& uri, const std::vector<ColumnExpression>& columns,
                              const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, TableLocation::FromUri(uri));
  return AddColumns(loc, columns, options);
}

Result<CommitInfo> AddNullColumns(const std::string& uri, const SchemaPtr& schema,
                                  const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, TableLocation::FromUri(uri));
  return AddNullColumns(loc, schema, options);
}

Result<CommitInfo> AddColumnsFromData(const std::string& uri, const SchemaPtr& schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, TableLocation::FromUri(uri));
  return AddColumnsFromData(loc, schema, batches, options);
}

Result<CommitInfo> AddColumnsJoined(const std::string& uri, const SchemaPtr& schema,
                                    const std::vector<RecordBatchPtr>& batches,
                                    const std::vector<std::string>& on,
                                    const CommitOptions& options) {
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, TableLocation::FromUri(uri));
  return AddColumnsJoined(loc, schema, batches, on, options);
}

}  // namespace lance::table
