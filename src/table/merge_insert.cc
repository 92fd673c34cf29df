// Merge-insert (merge_insert.h): hash the source's keys, scan the dataset's keys once, then
// write updated and inserted rows as new fragments and delete the replaced rows, all in one
// Update transaction.
#include "lance/table/merge_insert.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include <fmt/format.h>

#include "lance/columnar/json.h"
#include "lance/table/dataset.h"
#include "lance/table/feature_flags.h"
#include "table/commit_internal.h"
#include "table/row_rewrite.h"

namespace lance::table {

namespace {

using internal::StoredVersion;
using internal::TableLocation;

// Appends an encoding of element i of `a` that is equal for equal values of the same type;
// false for a null (which never matches).
Result<bool> AppendKey(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) return false;
  const DataType& t = *a.type;
  if (t.is_binary_like() || t.id() == TypeId::kFixedSizeBinary) {
    const std::string_view v = a.GetView(i);
    const uint32_t n = static_cast<uint32_t>(v.size());
    out->append(reinterpret_cast<const char*>(&n), 4);
    out->append(v);
    return true;
  }
  if (t.id() == TypeId::kBool) {
    out->push_back(a.BoolValue(i) ? '\1' : '\0');
    return true;
  }
  const int bits = t.bit_width();
  if (t.is_fixed_width() && bits >= 8 && bits % 8 == 0 && t.id() != TypeId::kDictionary) {
    const int w = bits / 8;
    out->append(reinterpret_cast<const char*>(a.buffers[1]->data()) + (a.offset + i) * w,
                static_cast<size_t>(w));
    return true;
  }
  std::string json;
  LANCE_RETURN_NOT_OK(AppendJsonValue(a, i, &json));
  const uint32_t n = static_cast<uint32_t>(json.size());
  out->append(reinterpret_cast<const char*>(&n), 4);
  out->append(json);
  return true;
}

// Key of row i over `cols`; false when any key column is null.
Result<bool> RowKey(const std::vector<ArrayPtr>& cols, int64_t i, std::string* key) {
  key->clear();
  for (const auto& c : cols) {
    LANCE_ASSIGN_OR_RAISE(bool ok, AppendKey(*c, i, key));
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<MergeInsertResult> MergeInsert(const std::string& uri, const SchemaPtr& in_schema,
                                      const std::vector<RecordBatchPtr>& batches,
                                      const MergeInsertParams& params) {
  if (params.on.empty()) return Status::InvalidArgument("merge-insert: no key column (on)");
  LANCE_ASSIGN_OR_RAISE(TableLocation loc, internal::Locate(uri));
  LANCE_ASSIGN_OR_RAISE(const StoredVersion sv, internal::LatestWritable(loc, uri));
  LANCE_ASSIGN_OR_RAISE(auto ds, internal::OpenForRewrite(loc, sv));
  const SchemaPtr& schema = ds->schema();

  // The source, columns in the dataset's order.
  if (in_schema->num_fields() != schema->num_fields()) {
    return Status::InvalidArgument("merge-insert: the input has {} columns but the dataset has {}",
                                   in_schema->num_fields(), schema->num_fields());
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr in_all, internal::ConcatenateBatches(in_schema, batches));
  std::vector<ArrayPtr> src_cols;
  for (const auto& f : schema->fields()) {
    const int c = in_schema->GetFieldIndex(f->name());
    if (c < 0) return Status::InvalidArgument("merge-insert: the input has no column '{}'", f->name());
    if (!internal::SameStorageType(*in_schema->field(c)->type(), *f->type())) {
      return Status::InvalidArgument("merge-insert: input column '{}' is {} but the dataset has {}",
                                     f->name(), in_schema->field(c)->type()->ToString(),
                                     f->type()->ToString());
    }
    if (!f->nullable() && in_all->column(c)->null_count > 0) {
      return Status::InvalidArgument("merge-insert: column '{}' is not nullable but the input has "
                                     "{} nulls",
                                     f->name(), in_all->column(c)->null_count);
    }
    src_cols.push_back(internal::Relabel(in_all->column(c), f->type()));
  }
  const int64_t n_src = in_all->num_rows();
  RecordBatch source(schema, n_src, src_cols);
  std::vector<ArrayPtr> src_keys;
  for (const auto& k : params.on) {
    const int c = schema->GetFieldIndex(k);
    if (c < 0) return Status::InvalidArgument("merge-insert: no key column '{}' in the dataset", k);
    src_keys.push_back(src_cols[static_cast<size_t>(c)]);
  }

  // Hash the source keys: key -> first source row; -1 marks a key given twice.
  std::unordered_map<std::string, int64_t> index;
  index.reserve(static_cast<size_t>(n_src) * 2);
  std::string key;
  for (int64_t i = 0; i < n_src; ++i) {
    LANCE_ASSIGN_OR_RAISE(bool ok, RowKey(src_keys, i, &key));
    if (!ok) continue;
    auto [it, fresh] = index.emplace(key, i);
    if (!fresh) it->second = -1;
  }

  // Probe with the dataset's keys.
  const bool stable = (sv.manifest.reader_feature_flags() & kFlagStableRowIds) != 0;
  ScanOptions so;
  so.columns = params.on;
  so.with_row_addr = true;
  so.with_row_id = stable;
  LANCE_ASSIGN_OR_RAISE(auto scanned, ds->Scan(so));
  std::vector<char> matched(static_cast<size_t>(n_src), 0);
  std::vector<int64_t> updated_rows;   // source rows to write as updates, in dataset order
  std::vector<uint64_t> updated_ids;   // their stable row ids
  std::vector<uint64_t> deleted;       // row addresses to delete
  MergeInsertResult out;
  const size_t nk = params.on.size();
  for (const auto& b : scanned) {
    std::vector<ArrayPtr> keys(b->columns().begin(), b->columns().begin() + static_cast<std::ptrdiff_t>(nk));
    const uint64_t* addr = b->column(b->num_columns() - 1)->Values<uint64_t>();
    const uint64_t* ids = stable ? b->column(static_cast<int>(nk))->Values<uint64_t>() : nullptr;
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      LANCE_ASSIGN_OR_RAISE(bool ok, RowKey(keys, r, &key));
      auto it = ok ? index.find(key) : index.end();
      if (it == index.end()) {
        if (params.when_not_matched_by_source == WhenNotMatchedBySource::kDelete) {
          deleted.push_back(addr[r]);
          ++out.rows_deleted;
        }
        continue;
      }
      if (it->second < 0) {
        return Status::InvalidArgument("merge-insert: several input rows have the key of dataset "
                                       "row {} (address {}); the update would be ambiguous",
                                       r, addr[r]);
      }
      matched[static_cast<size_t>(it->second)] = 1;
      if (params.when_matched == WhenMatched::kUpdateAll) {
        updated_rows.push_back(it->second);
        if (stable) updated_ids.push_back(ids[r]);
        deleted.push_back(addr[r]);
        ++out.rows_updated;
      }
    }
  }
  std::vector<int64_t> inserted_rows;
  if (params.when_not_matched == WhenNotMatched::kInsert) {
    for (int64_t i = 0; i < n_src; ++i) {
      if (!matched[static_cast<size_t>(i)]) inserted_rows.push_back(i);
    }
  }
  out.rows_inserted = inserted_rows.size();
  out.commit.attempts = 0;
  if (deleted.empty() && inserted_rows.empty()) return out;

  std::vector<::lance::table::DataFragment> fragments;
  if (!updated_rows.empty()) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, internal::TakeRows(source, updated_rows));
    LANCE_ASSIGN_OR_RAISE(fragments, internal::WriteFragments(loc, sv.manifest, schema, {rows},
                                                              params.max_rows_per_file));
    if (stable) LANCE_RETURN_NOT_OK(internal::AssignRowIds(&fragments, updated_ids));
  }
  if (!inserted_rows.empty()) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, internal::TakeRows(source, inserted_rows));
    LANCE_ASSIGN_OR_RAISE(auto more, internal::WriteFragments(loc, sv.manifest, schema, {rows},
                                                              params.max_rows_per_file));
    for (auto& f : more) fragments.push_back(std::move(f));
  }
  LANCE_ASSIGN_OR_RAISE(out.commit, internal::CommitRowUpdate(loc, *ds, sv, std::move(deleted),
                                                              std::move(fragments), params.commit));
  return out;
}

}  // namespace lance::table
