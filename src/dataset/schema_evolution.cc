// Dataset::DropColumns / AlterColumns: a Project on the handle's version (nothing rewritten),
// except a field dropped from inside a struct (the struct is rewritten without it, its values
// read through the query layer) and a column made non-nullable (its values read through the
// query layer to prove it holds no null).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "dataset/columns.h"
#include "dataset/guard.h"
#include "lance/columnar/compute.h"
#include "lance/dataset/dataset.h"
#include "lance/file/lance_schema.h"
#include "lance/table/feature_flags.h"
#include "lance/table/write.h"

namespace lance::dataset {

using namespace internal;  // NOLINT: the shared steps of columns.h

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

Result<CommitInfo> DropColumnsAt(const std::shared_ptr<const table::Snapshot>& ds,
                                 const std::vector<std::string>& paths, const CommitOptions& options,
                                 ThreadPool* pool) {
  if (paths.empty()) return Status::InvalidArgument("drop columns: no column named");
  LANCE_RETURN_NOT_OK(CheckWritable(*ds));
  const Manifest& m = ds->manifest();
  std::set<int32_t> removed;
  // Nested fields to drop, by the index (in m.fields) of their top-level column.
  std::map<int, std::vector<std::vector<std::string>>> nested;
  for (const auto& p : paths) {
    LANCE_ASSIGN_OR_RAISE(int idx, FindField(m, p));
    if (m.fields[static_cast<size_t>(idx)].parent_id != -1) {
      std::vector<std::string> parts = SplitPath(p);
      LANCE_ASSIGN_OR_RAISE(int top, FindField(m, parts[0]));
      nested[top].push_back(std::move(parts));
      continue;
    }
    const auto sub = Subtree(m, m.fields[static_cast<size_t>(idx)].id);
    removed.insert(sub.begin(), sub.end());
  }
  for (auto it = nested.begin(); it != nested.end();) {  // inside a dropped column: nothing to do
    it = removed.count(m.fields[static_cast<size_t>(it->first)].id) ? nested.erase(it) : std::next(it);
  }
  Fields kept;
  bool any_top = false;
  for (const auto& f : m.fields) {
    if (removed.count(f.id)) continue;
    kept.push_back(f);
    if (f.parent_id == -1) any_top = true;
  }
  if (!any_top) {
    return Status::InvalidArgument("drop columns: cannot drop every column of the dataset");
  }
  std::set<int32_t> gone = removed;  // ids leaving the schema, rewritten structs' included
  for (const auto& n : nested) {
    const auto sub = Subtree(m, m.fields[static_cast<size_t>(n.first)].id);
    gone.insert(sub.begin(), sub.end());
  }
  if (nested.empty()) return CommitProject(*ds, std::move(kept), true, options);

  // A struct losing a child is rewritten: one new data file per fragment holds the struct
  // without the child under new field ids, in the struct's place in the schema (a Merge, as
  // for a type change). lance 12 only drops the child from the schema (a Project); this
  // library's reader reads struct columns whole from their data files, so it needs the
  // narrower struct stored.
  LANCE_RETURN_NOT_OK(table::WritableFileVersion(m.data_storage_version).status());
  std::vector<std::string> top_names;
  std::vector<std::vector<std::vector<std::string>>> top_paths;
  std::vector<FieldPtr> new_top;
  for (const auto& [idx, drops] : nested) {
    const file::LanceField& top = m.fields[static_cast<size_t>(idx)];
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
  const int32_t first_id = NextFieldId(m);
  for (auto& lf : lance_fields) {
    lf.id += first_id;
    if (lf.parent_id >= 0) lf.parent_id += first_id;
  }
  LANCE_ASSIGN_OR_RAISE(SchemaPtr file_schema, file::SchemaFromLanceFields(lance_fields));
  // Each rewritten struct's subtree takes the place of the old one; other fields stay as kept.
  Fields schema;
  for (const auto& f : kept) {
    auto it = std::find_if(nested.begin(), nested.end(), [&](const auto& n) {
      return Subtree(m, m.fields[static_cast<size_t>(n.first)].id).count(f.id) > 0;
    });
    if (it == nested.end()) {
      schema.push_back(f);
      continue;
    }
    if (f.id != m.fields[static_cast<size_t>(it->first)].id) continue;  // a child of a rewritten struct
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
  std::vector<std::string> read_columns = top_names;
  read_columns.push_back(query::kRowAddrColumn);
  auto columns_of = [&](size_t i, const FragmentInfo& frag) -> Result<std::vector<ArrayPtr>> {
    const FragmentInfo& fi = m.fragments[i];
    const int64_t physical = static_cast<int64_t>(frag.physical_rows);
    std::vector<ArrayPtr> out;
    if (fi.num_rows() == 0) {
      for (int c = 0; c < file_schema->num_fields(); ++c) {
        LANCE_ASSIGN_OR_RAISE(ArrayPtr nulls, MakeArrayOfNulls(file_schema->field(c)->type(), physical));
        out.push_back(std::move(nulls));
      }
      return out;
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, ReadFragmentRows(ds, i, read_columns, true, pool));
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
  return CommitNewColumns(*ds, std::move(schema), file_schema, columns_of, options, pool);
}

Result<CommitInfo> AlterColumnsAt(const std::shared_ptr<const table::Snapshot>& ds,
                                  const std::vector<ColumnAlteration>& alterations,
                                  const CommitOptions& options, ThreadPool* pool) {
  if (alterations.empty()) return Status::InvalidArgument("alter columns: nothing to change");
  LANCE_RETURN_NOT_OK(CheckWritable(*ds));
  const Manifest& m = ds->manifest();
  Fields fields = m.fields;
  bool preserves = true;
  for (const auto& a : alterations) {
    LANCE_ASSIGN_OR_RAISE(int idx, FindField(m, a.path));
    file::LanceField& f = fields[static_cast<size_t>(idx)];
    if (a.nullable.has_value() && *a.nullable != f.nullable) {
      if (!*a.nullable) {
        // Tightening: every stored value must be present.
        preserves = false;
        const auto parts = SplitPath(a.path);
        query::ScanOptions so;
        so.columns = {parts[0]};
        so.use_index = false;
        so.pool = pool;
        LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, std::move(so)));
        LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
        const DataType* top_type = ds->schema()->GetFieldByName(parts[0])->type().get();
        while (true) {
          LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->Next());
          if (!b) break;
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
  return CommitProject(*ds, std::move(fields), preserves, options);
}

}  // namespace

Result<table::CommitInfo> Dataset::DropColumns(const std::vector<std::string>& paths) {
  return Guarded("drop columns", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, DropColumnsAt(snap, paths, CommitOptions(), pool()));
      return out.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::AlterColumns(const std::vector<ColumnAlteration>& alterations) {
  return Guarded("alter columns", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, AlterColumnsAt(snap, alterations, CommitOptions(), pool()));
      return out.version;
    }));
    return out;
  });
}

}  // namespace lance::dataset
