// Row mutations through a dataset handle: delete, update, merge-insert, compaction. Each
// commits through the table API and leaves the handle at the version committed.
#include <fmt/format.h>

#include <climits>

#include "capi/c_args.h"
#include "capi/dataset_handle.h"
#include "capi/error.h"
#include "capi/stream_input.h"
#include "lance/lance.h"
#include "lance/table/write.h"

namespace lance::capi {
namespace {

// An optional expression of LanceMergeInsertParams: NULL, or a non-empty string.
Result<std::optional<std::string>> Expr(const char* s, const char* field) {
  LANCE_ASSIGN_OR_RAISE(auto v, OptionalString(s, field));
  if (v && v->empty()) return Invalid(fmt::format("{} must not be empty", field));
  return v;
}

Status Unused(const std::optional<std::string>& expr, const char* field, const char* mode) {
  if (!expr) return Status::OK();
  return Invalid(fmt::format("{}_expr must be NULL when {}={}", field, field, mode));
}

// lance-c's merge-insert parameters as dataset::MergeInsertParams (keys aside).
Result<dataset::MergeInsertParams> MergeParams(const LanceMergeInsertParams* params) {
  dataset::MergeInsertParams p;
  p.when_matched = dataset::WhenMatched::kDoNothing;
  if (params == nullptr) return p;
  LANCE_ASSIGN_OR_RAISE(auto matched_expr, Expr(params->when_matched_expr, "when_matched_expr"));
  LANCE_ASSIGN_OR_RAISE(auto by_source_expr, Expr(params->when_not_matched_by_source_expr,
                                                  "when_not_matched_by_source_expr"));
  switch (params->when_matched) {
    case LANCE_MERGE_WHEN_MATCHED_DO_NOTHING:
      LANCE_RETURN_NOT_OK(Unused(matched_expr, "when_matched", "DoNothing"));
      p.when_matched = dataset::WhenMatched::kDoNothing;
      break;
    case LANCE_MERGE_WHEN_MATCHED_UPDATE_ALL:
      LANCE_RETURN_NOT_OK(Unused(matched_expr, "when_matched", "UpdateAll"));
      p.when_matched = dataset::WhenMatched::kUpdateAll;
      break;
    case LANCE_MERGE_WHEN_MATCHED_UPDATE_IF:
      if (!matched_expr) return Invalid("when_matched=UpdateIf requires when_matched_expr");
      p.when_matched = dataset::WhenMatched::kUpdateAll;
      p.when_matched_update_where = *matched_expr;
      break;
    case LANCE_MERGE_WHEN_MATCHED_FAIL:
      LANCE_RETURN_NOT_OK(Unused(matched_expr, "when_matched", "Fail"));
      p.when_matched = dataset::WhenMatched::kFail;
      break;
    case LANCE_MERGE_WHEN_MATCHED_DELETE:
      LANCE_RETURN_NOT_OK(Unused(matched_expr, "when_matched", "Delete"));
      p.when_matched = dataset::WhenMatched::kDelete;
      break;
    default:
      return Invalid(fmt::format("invalid when_matched {}; expected 0..=4 (see LanceMergeWhenMatched)",
                                 params->when_matched));
  }
  switch (params->when_not_matched) {
    case LANCE_MERGE_WHEN_NOT_MATCHED_INSERT_ALL: p.when_not_matched = dataset::WhenNotMatched::kInsert; break;
    case LANCE_MERGE_WHEN_NOT_MATCHED_DO_NOTHING: p.when_not_matched = dataset::WhenNotMatched::kDoNothing; break;
    default:
      return Invalid(fmt::format("invalid when_not_matched {}; expected 0 or 1 (see "
                                 "LanceMergeWhenNotMatched)",
                                 params->when_not_matched));
  }
  switch (params->when_not_matched_by_source) {
    case LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_KEEP:
      LANCE_RETURN_NOT_OK(Unused(by_source_expr, "when_not_matched_by_source", "Keep"));
      p.when_not_matched_by_source = dataset::WhenNotMatchedBySource::kKeep;
      break;
    case LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_DELETE:
      LANCE_RETURN_NOT_OK(Unused(by_source_expr, "when_not_matched_by_source", "Delete"));
      p.when_not_matched_by_source = dataset::WhenNotMatchedBySource::kDelete;
      break;
    case LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_DELETE_IF:
      if (!by_source_expr) {
        return Invalid("when_not_matched_by_source=DeleteIf requires when_not_matched_by_source_expr");
      }
      p.when_not_matched_by_source = dataset::WhenNotMatchedBySource::kDelete;
      p.when_not_matched_by_source_delete_where = *by_source_expr;
      break;
    default:
      return Invalid(fmt::format("invalid when_not_matched_by_source {}; expected 0..=2 (see "
                                 "LanceMergeWhenNotMatchedBySource)",
                                 params->when_not_matched_by_source));
  }
  return p;
}

}  // namespace
}  // namespace lance::capi

using namespace lance::capi;

extern "C" {

int32_t lance_dataset_delete(LanceDataset* dataset, const char* predicate,
                             uint64_t* out_num_deleted) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr || predicate == nullptr) {
      return Invalid("dataset and predicate must not be NULL");
    }
    LANCE_ASSIGN_OR_RAISE(auto pred, OptionalString(predicate, "predicate"));
    if (pred->empty()) return Invalid("predicate must not be empty");
    uint64_t deleted = 0;
    LANCE_ASSIGN_OR_RAISE(auto r, dataset->ds->Delete(*pred));
    deleted = r.num_deleted_rows;
    if (out_num_deleted != nullptr) *out_num_deleted = deleted;
    return lance::Status::OK();
  });
}

int32_t lance_dataset_update(LanceDataset* dataset, const char* predicate,
                             const char* const* columns, const char* const* values,
                             size_t num_updates, uint64_t* out_num_updated) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    if (num_updates == 0) return Invalid("num_updates must be >= 1");
    if (columns == nullptr || values == nullptr) {
      return Invalid("columns and values must not be NULL when num_updates > 0");
    }
    LANCE_ASSIGN_OR_RAISE(auto where, OptionalString(predicate, "predicate"));
    if (where && where->empty()) {
      return Invalid("predicate must not be empty (pass NULL to update all rows)");
    }
    LANCE_ASSIGN_OR_RAISE(auto cols, StringArray(columns, num_updates, "columns"));
    LANCE_ASSIGN_OR_RAISE(auto vals, StringArray(values, num_updates, "values"));
    std::vector<std::pair<std::string, std::string>> assignments;
    for (size_t i = 0; i < num_updates; ++i) assignments.emplace_back(cols[i], vals[i]);
    uint64_t updated = 0;
    LANCE_ASSIGN_OR_RAISE(auto r, dataset->ds->Update(assignments, where.value_or("")));
    updated = r.rows_updated;
    if (out_num_updated != nullptr) *out_num_updated = updated;
    return lance::Status::OK();
  });
}

int32_t lance_dataset_merge_insert(LanceDataset* dataset, const char* const* on_columns,
                                   size_t num_on_columns, struct ArrowArrayStream* source,
                                   const LanceMergeInsertParams* params,
                                   LanceMergeInsertResult* out_result) {
  return RunStatus([&]() -> lance::Status {
    if (source == nullptr) return Invalid("source stream must not be NULL");
    LANCE_ASSIGN_OR_RAISE(auto reader, TakeStream(source));  // consumed from here on
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    if (num_on_columns == 0) return Invalid("num_on_columns must be >= 1");
    if (on_columns == nullptr) return Invalid("on_columns must not be NULL when num_on_columns > 0");
    LANCE_ASSIGN_OR_RAISE(auto keys, StringArray(on_columns, num_on_columns, "on_columns"));
    LANCE_ASSIGN_OR_RAISE(auto mp, MergeParams(params));
    mp.on = std::move(keys);
    if (mp.when_matched == lance::dataset::WhenMatched::kDoNothing &&
        mp.when_not_matched == lance::dataset::WhenNotMatched::kDoNothing &&
        mp.when_not_matched_by_source == lance::dataset::WhenNotMatchedBySource::kKeep) {
      return Invalid("the merge insert is configured to change nothing (when matched: do nothing, "
                     "when not matched: do nothing, when not matched by source: keep)");
    }
    LANCE_ASSIGN_OR_RAISE(auto result, dataset->ds->MergeInsert(*reader, mp));
    if (out_result != nullptr) {
      out_result->num_inserted_rows = result.rows_inserted;
      out_result->num_updated_rows = result.rows_updated;
      out_result->num_deleted_rows = result.rows_deleted;
    }
    return lance::Status::OK();
  });
}

int32_t lance_dataset_compact_files(LanceDataset* dataset, const LanceCompactionOptions* options,
                                    LanceCompactionMetrics* out_metrics) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    lance::dataset::CompactionOptions co;
    if (options != nullptr && options->target_rows_per_fragment > 0) {
      if (options->target_rows_per_fragment > static_cast<uint64_t>(INT64_MAX)) {
        return Invalid(fmt::format("target_rows_per_fragment={} is too large",
                                   options->target_rows_per_fragment));
      }
      co.target_rows_per_fragment = static_cast<int64_t>(options->target_rows_per_fragment);
    }
    // max_rows_per_group, max_bytes_per_file, num_threads and batch_size tune lance's own
    // execution; lance-cpp has no counterpart for them and accepts them as lance-c does.
    LANCE_ASSIGN_OR_RAISE(auto result, dataset->ds->Compact(co));
    if (out_metrics != nullptr) {
      out_metrics->fragments_removed = result.fragments_removed;
      out_metrics->fragments_added = result.fragments_added;
      out_metrics->files_removed = result.files_removed;
      out_metrics->files_added = result.files_added;
    }
    return lance::Status::OK();
  });
}

}  // extern "C"
