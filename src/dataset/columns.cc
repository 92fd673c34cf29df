// Shared steps of the schema-evolution operations of Dataset (columns.h).
#include "dataset/columns.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "lance/core/bit_util.h"
#include "lance/columnar/compute.h"
#include "lance/file/lance_schema.h"
#include "lance/table/feature_flags.h"
#include "lance/table/schema_rules.h"
#include "lance/table/write.h"

namespace lance::dataset::internal {

Status CheckWritable(const table::Snapshot& ds) {
  const Manifest& m = ds.manifest();
  return table::CheckCanWrite(m.reader_feature_flags, m.writer_feature_flags, ds.manifest_path());
}

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

Result<CommitInfo> CommitProject(const table::Snapshot& ds, Fields fields,
                                 bool preserves_nullability, const CommitOptions& options) {
  Transaction::Project project;
  project.schema = std::move(fields);
  project.preserves_nullability = preserves_nullability;
  Transaction txn;
  txn.read_version = ds.version();
  txn.operation = std::move(project);
  return table::CommitTransaction(ds.location(), std::move(txn), options);
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
  LANCE_RETURN_NOT_OK(table::CheckTableSchema(Schema(added), "add columns"));
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

// CommitNewColumns: shared tail of AddColumns, AddColumnsFromData and AlterColumnType: `columns_of(i, frag)`
// returns the new columns of fragment i spread over its physical rows; they are written as
// one new data file per fragment and a Merge with `schema` is committed.
Result<CommitInfo> CommitNewColumns(const table::Snapshot& ds, Fields schema,
                                    const SchemaPtr& file_schema, const ColumnsOf& columns_of,
                                    const CommitOptions& options, ThreadPool* pool) {
  const table::Manifest& m = ds.manifest();
  table::StagedFiles staged(ds.location());
  Transaction::Merge merge;
  for (size_t i = 0; i < m.fragments.size(); ++i) {
    const FragmentInfo& frag = m.fragments[i];
    LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, columns_of(i, frag));
    RecordBatch batch(file_schema, static_cast<int64_t>(frag.physical_rows), std::move(cols));
    LANCE_ASSIGN_OR_RAISE(table::DataFileInfo df, table::WriteColumnFile(staged, m, batch, pool));
    FragmentInfo nf = frag;
    nf.files.push_back(std::move(df));
    merge.fragments.push_back(std::move(nf));
  }
  merge.schema = std::move(schema);
  merge.schema_metadata = m.schema_metadata;
  merge.preserves_nullability = true;
  Transaction txn;
  txn.read_version = ds.version();
  txn.operation = std::move(merge);
  return table::CommitTransaction(ds.location(), std::move(txn), options, &staged);
}

Status CheckNewName(const Manifest& m, const std::string& name,
                    std::set<std::string>* seen) {
  LANCE_RETURN_NOT_OK(table::CheckColumnName(name, "add columns"));
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


Result<SchemaPtr> ReadSchema(const table::Snapshot& ds, const std::vector<std::string>& columns) {
  std::vector<FieldPtr> fields;
  for (const auto& name : columns) {
    if (query::IsSystemColumn(name)) {
      fields.push_back(field(name, uint64(), false));
      continue;
    }
    FieldPtr f = ds.schema()->GetFieldByName(name);
    if (!f) return Status::InvalidArgument("no column '{}' in the dataset; columns are: {}", name, ColumnList(ds.manifest()));
    fields.push_back(std::move(f));
  }
  return schema(std::move(fields));
}

Result<RecordBatchPtr> ReadFragmentRows(const std::shared_ptr<const table::Snapshot>& ds, size_t index,
                                        const std::vector<std::string>& columns, bool live_only,
                                        ThreadPool* pool) {
  LANCE_ASSIGN_OR_RAISE(SchemaPtr read_schema, ReadSchema(*ds, columns));
  LANCE_ASSIGN_OR_RAISE(auto reader, query::FragmentReader::Open(ds, index, pool));
  const query::RowSelection rows = live_only ? reader->LiveRows(0, reader->physical_rows())
                                             : query::RowSelection::Range(0, reader->physical_rows());
  return reader->Read(read_schema, rows);
}

}  // namespace lance::dataset::internal
