// Schema evolution through a dataset handle: drop, alter, add columns (SQL, all-null,
// from a stream).
#include <fmt/format.h>

#include <climits>
#include <cstring>

#include "capi/c_args.h"
#include "capi/dataset_handle.h"
#include "capi/error.h"
#include "capi/stream_input.h"
#include "lance/columnar/c_bridge.h"
#include "lance/columnar/utf8.h"
#include "lance/lance.h"
#include "lance/dataset/operations.h"

namespace lance::capi {
namespace {

// lance-c's add-columns batch size (0 = default) must fit 32 bits; lance-cpp evaluates whole
// fragments, so it has no other effect.
Status CheckBatchSize(uint64_t batch_size) {
  if (batch_size > UINT32_MAX) return Invalid(fmt::format("batch_size={} exceeds u32::MAX", batch_size));
  return Status::OK();
}

// The CAST type name of lance/expr for an Arrow type (AlterColumnType casts by name).
Result<std::string> CastTypeName(const DataType& t) {
  switch (t.id()) {
    case TypeId::kInt8: return std::string("tinyint");
    case TypeId::kInt16: return std::string("smallint");
    case TypeId::kInt32: return std::string("int");
    case TypeId::kInt64: return std::string("bigint");
    case TypeId::kFloat: return std::string("float");
    case TypeId::kDouble: return std::string("double");
    case TypeId::kString: return std::string("string");
    case TypeId::kBool: return std::string("boolean");
    case TypeId::kDate32: return std::string("date");
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:  // the parser's DECIMAL(p > 38, s) is decimal256
      return fmt::format("decimal({}, {})", t.precision(), t.scale());
    case TypeId::kTimestamp:
      if (t.unit() == TimeUnit::kNano && t.timezone().empty()) return std::string("timestamp");
      break;
    default: break;
  }
  return Status::NotSupported("changing a column's type to {} is not supported: lance-cpp casts "
                              "columns to int8/16/32/64, float32/64, utf8, bool, date32, "
                              "timestamp[ns] and decimal128/256 only",
                              t.ToString());
}

struct Alteration {
  std::string path;
  std::optional<std::string> rename;
  std::optional<bool> nullable;
  std::optional<std::string> cast_type;
};

Result<Alteration> ParseAlteration(size_t i, const LanceColumnAlteration& a) {
  Alteration out;
  LANCE_ASSIGN_OR_RAISE(out.path, RequiredString(a.path, fmt::format("alterations[{}].path", i)));
  LANCE_ASSIGN_OR_RAISE(out.rename, OptionalString(a.rename, fmt::format("alterations[{}].rename", i)));
  if (out.rename && out.rename->empty()) {
    return Invalid(fmt::format("alterations[{}].rename must not be empty", i));
  }
  switch (a.nullable_mode) {
    case LANCE_COLUMN_NULLABLE_UNCHANGED: break;
    case LANCE_COLUMN_NULLABLE_TRUE: out.nullable = true; break;
    case LANCE_COLUMN_NULLABLE_FALSE: out.nullable = false; break;
    default:
      return Invalid(fmt::format("invalid nullable_mode {}; expected 0..=2 (see LanceColumnNullableMode)",
                                 a.nullable_mode));
  }
  if (a.data_type != nullptr) {
    if (a.data_type->release == nullptr || a.data_type->format == nullptr) {
      return Invalid(fmt::format("alterations[{}].data_type is uninitialised or already released", i));
    }
    auto type = ReadType(a.data_type);
    if (!type.ok()) {
      return Invalid(fmt::format("alterations[{}].data_type is not a valid Arrow type: {}", i,
                                 type.status().message()));
    }
    LANCE_ASSIGN_OR_RAISE(out.cast_type, CastTypeName(**type));
  }
  if (!out.rename && !out.nullable && !out.cast_type) {
    return Invalid(fmt::format("alterations[{}] is a no-op: set rename, nullable_mode, or data_type "
                               "to request a change",
                               i));
  }
  return out;
}

}  // namespace
}  // namespace lance::capi

using namespace lance::capi;

extern "C" {

int32_t lance_dataset_drop_columns(LanceDataset* dataset, const char* const* columns,
                                   size_t num_columns) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    if (columns == nullptr) return Invalid("columns must not be NULL");
    if (num_columns == 0) return Invalid("num_columns must be > 0");
    LANCE_ASSIGN_OR_RAISE(auto names, StringArray(columns, num_columns, "columns"));
    return dataset->ds->DropColumns(names).status();
  });
}

int32_t lance_dataset_alter_columns(LanceDataset* dataset, const LanceColumnAlteration* alterations,
                                    size_t num_alterations) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    if (alterations == nullptr) return Invalid("alterations must not be NULL");
    if (num_alterations == 0) return Invalid("num_alterations must be > 0");
    std::vector<Alteration> parsed;
    for (size_t i = 0; i < num_alterations; ++i) {
      LANCE_ASSIGN_OR_RAISE(auto a, ParseAlteration(i, alterations[i]));
      parsed.push_back(std::move(a));
    }
    // Type changes first (they name the column by its current path), then renames and
    // nullability in one Project.
    for (const auto& a : parsed) {
      if (!a.cast_type) continue;
      LANCE_RETURN_NOT_OK(dataset->ds->AlterColumnType(a.path, *a.cast_type).status());
    }
    std::vector<lance::dataset::ColumnAlteration> rest;
    for (const auto& a : parsed) {
      if (a.rename || a.nullable) rest.push_back({a.path, a.rename, a.nullable});
    }
    if (!rest.empty()) LANCE_RETURN_NOT_OK(dataset->ds->AlterColumns(rest).status());
    return lance::Status::OK();
  });
}

int32_t lance_dataset_add_columns_sql(LanceDataset* dataset, const LanceSqlColumn* columns,
                                      size_t num_columns, uint64_t batch_size) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    if (columns == nullptr) return Invalid("columns must not be NULL");
    if (num_columns == 0) return Invalid("num_columns must be > 0");
    LANCE_RETURN_NOT_OK(CheckBatchSize(batch_size));
    std::vector<lance::dataset::ColumnExpression> exprs;
    for (size_t i = 0; i < num_columns; ++i) {
      LANCE_ASSIGN_OR_RAISE(auto name, RequiredString(columns[i].name, fmt::format("columns[{}].name", i)));
      LANCE_ASSIGN_OR_RAISE(auto expr, RequiredString(columns[i].expression,
                                                      fmt::format("columns[{}].expression", i)));
      exprs.push_back({std::move(name), std::move(expr)});
    }
    return dataset->ds->AddColumns(exprs).status();
  });
}

int32_t lance_dataset_add_columns_nulls(LanceDataset* dataset, const struct ArrowSchema* schema) {
  return RunStatus([&]() -> lance::Status {
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    if (schema == nullptr) return Invalid("schema must not be NULL");
    if (schema->release == nullptr || schema->format == nullptr) {
      return Invalid("schema is uninitialised or already released");
    }
    if (!lance::IsValidUtf8(schema->format)) return Invalid("schema format string is not valid UTF-8");
    auto parsed = lance::ReadSchema(schema);
    if (!parsed.ok()) {
      return Invalid(fmt::format("schema is not a valid Arrow schema: {}", parsed.status().message()));
    }
    return dataset->ds->AddNullColumns(*parsed).status();
  });
}

int32_t lance_dataset_add_columns_stream(LanceDataset* dataset, struct ArrowArrayStream* stream,
                                         uint64_t batch_size) {
  return RunStatus([&]() -> lance::Status {
    if (stream == nullptr) return Invalid("stream must not be NULL");
    auto reader = TakeStream(stream);  // consumed from here on, even on a NULL dataset
    if (!reader.ok()) {
      return Invalid(fmt::format("stream is uninitialised, already released, or missing a required "
                                 "get_schema/get_next/release callback: {}",
                                 reader.status().message()));
    }
    if (dataset == nullptr) return Invalid("dataset must not be NULL");
    LANCE_RETURN_NOT_OK(CheckBatchSize(batch_size));
    return dataset->ds->AddColumnsFromData(**reader).status();
  });
}

}  // extern "C"
