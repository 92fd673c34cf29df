#include <fmt/format.h>

#include "lance/columnar/array.h"

namespace lance {

namespace {
int64_t CountNulls(const DataTypePtr& type, int64_t length, int64_t offset,
                   const std::vector<BufferPtr>& buffers) {
  if (type->id() == TypeId::kNull) return length;
  if (buffers.empty() || !buffers[0]) return 0;
  return length - bit_util::CountSetBits(buffers[0]->data(), offset, length);
}
}  // namespace

ArrayPtr Array::Make(DataTypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                     std::vector<ArrayPtr> children, int64_t offset, ArrayPtr dictionary) {
  auto a = std::make_shared<Array>();
  a->null_count = CountNulls(type, length, offset, buffers);
  a->type = std::move(type);
  a->length = length;
  a->offset = offset;
  a->buffers = std::move(buffers);
  a->children = std::move(children);
  a->dictionary = std::move(dictionary);
  return a;
}

int64_t Array::DictionaryIndex(int64_t i) const {
  const int64_t k = offset + i;
  switch (type->index_type()->id()) {
    case TypeId::kInt8: return buffers[1]->data_as<int8_t>()[k];
    case TypeId::kInt16: return buffers[1]->data_as<int16_t>()[k];
    case TypeId::kInt32: return buffers[1]->data_as<int32_t>()[k];
    case TypeId::kUInt8: return buffers[1]->data_as<uint8_t>()[k];
    case TypeId::kUInt16: return buffers[1]->data_as<uint16_t>()[k];
    case TypeId::kUInt32: return buffers[1]->data_as<uint32_t>()[k];
    case TypeId::kUInt64: return static_cast<int64_t>(buffers[1]->data_as<uint64_t>()[k]);
    default: return buffers[1]->data_as<int64_t>()[k];
  }
}

std::string_view Array::GetView(int64_t i) const {
  if (type->id() == TypeId::kFixedSizeBinary) {
    const int64_t w = type->byte_width();
    return {reinterpret_cast<const char*>(buffers[1]->data() + (offset + i) * w),
            static_cast<size_t>(w)};
  }
  const int64_t start = ValueOffset(i);
  const int64_t end = ValueOffset(i + 1);
  return {reinterpret_cast<const char*>(buffers[2]->data() + start),
          static_cast<size_t>(end - start)};
}

ArrayPtr Array::Slice(int64_t off, int64_t len) const {
  auto a = std::make_shared<Array>(*this);
  a->offset = offset + off;
  a->length = len;
  a->null_count = CountNulls(type, len, a->offset, buffers);
  return a;
}

Result<RecordBatchPtr> RecordBatch::Make(SchemaPtr schema, int64_t num_rows,
                                         std::vector<ArrayPtr> columns) {
  if (static_cast<int>(columns.size()) != schema->num_fields()) {
    return Status::InvalidArgument("record batch: schema has {} fields but {} columns given",
                                   schema->num_fields(), columns.size());
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const auto& f = schema->field(static_cast<int>(i));
    if (!columns[i]) return Status::InvalidArgument("record batch: column '{}' is null", f->name());
    if (columns[i]->length != num_rows) {
      return Status::InvalidArgument("record batch: column '{}' has {} rows, expected {}",
                                     f->name(), columns[i]->length, num_rows);
    }
    if (!columns[i]->type->Equals(*f->type())) {
      return Status::InvalidArgument("record batch: column '{}' has type {}, schema says {}",
                                     f->name(), columns[i]->type->ToString(),
                                     f->type()->ToString());
    }
  }
  return std::make_shared<const RecordBatch>(std::move(schema), num_rows, std::move(columns));
}

ArrayPtr RecordBatch::GetColumnByName(std::string_view name) const {
  const int i = schema_->GetFieldIndex(name);
  return i < 0 ? nullptr : columns_[static_cast<size_t>(i)];
}

RecordBatchPtr RecordBatch::Slice(int64_t offset, int64_t length) const {
  std::vector<ArrayPtr> cols;
  cols.reserve(columns_.size());
  for (const auto& c : columns_) cols.push_back(c->Slice(offset, length));
  return std::make_shared<const RecordBatch>(schema_, length, std::move(cols));
}

Status RecordBatch::Validate() const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i]->length != num_rows_) {
      return Status::InvalidArgument("record batch: column {} has {} rows, expected {}", i,
                                     columns_[i]->length, num_rows_);
    }
    LANCE_RETURN_NOT_OK(columns_[i]->Validate().WithContext(
        fmt::format("column '{}'", schema_->field(static_cast<int>(i))->name())));
  }
  return Status::OK();
}

Status RecordBatch::ValidateFull() const {
  LANCE_RETURN_NOT_OK(Validate());
  for (size_t i = 0; i < columns_.size(); ++i) {
    LANCE_RETURN_NOT_OK(columns_[i]->ValidateFull().WithContext(
        fmt::format("column '{}'", schema_->field(static_cast<int>(i))->name())));
  }
  return Status::OK();
}

bool RecordBatch::Equals(const RecordBatch& other, bool check_metadata) const {
  if (num_rows_ != other.num_rows_ || !schema_->Equals(*other.schema_, check_metadata)) {
    return false;
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i]->Equals(*other.columns_[i])) return false;
  }
  return true;
}

std::string RecordBatch::ToString() const {
  std::string out;
  for (size_t i = 0; i < columns_.size(); ++i) {
    out += schema_->field(static_cast<int>(i))->name();
    out += ": ";
    out += columns_[i]->ToString();
    out += '\n';
  }
  return out;
}

}  // namespace lance
