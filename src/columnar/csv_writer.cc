// AppendCsv: each cell is the value's canonical JSON text with a JSON string's quotes and
// escapes taken off (strings and binary are read from their buffers directly), then quoted
// for CSV when it must be.
#include <string>

#include <nlohmann/json.hpp>

#include "lance/columnar/csv.h"
#include "lance/columnar/json.h"

namespace lance {

namespace {

// A field starting with a UTF-8 byte order mark is quoted too: at the start of the text the
// reader would take it for the file's BOM.
bool NeedsQuotes(std::string_view s, char delimiter) {
  return s.find_first_of("\"\r\n") != std::string_view::npos ||
         s.find(delimiter) != std::string_view::npos || s.substr(0, 3) == "\xEF\xBB\xBF";
}

void AppendField(std::string_view s, bool quote_empty, char delimiter, std::string* out) {
  if (!NeedsQuotes(s, delimiter) && !(s.empty() && quote_empty)) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

Status AppendCell(const Array& column, int64_t row, char delimiter, std::string* scratch,
                  std::string* out) {
  if (column.IsNull(row)) return Status::OK();
  switch (column.type_id()) {
    case TypeId::kString:
    case TypeId::kLargeString:
      AppendField(column.GetView(row), /*quote_empty=*/true, delimiter, out);
      return Status::OK();
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      AppendField(Base64Encode(column.GetView(row)), /*quote_empty=*/true, delimiter, out);
      return Status::OK();
    default:
      break;
  }
  scratch->clear();
  LANCE_RETURN_NOT_OK(AppendJsonValue(column, row, scratch));
  if (!scratch->empty() && (*scratch)[0] == '"') {
    const auto parsed = nlohmann::json::parse(*scratch, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_string()) {
      return Status::Internal("canonical JSON of a {} value is not a JSON string: {}",
                              column.type->ToString(), *scratch);
    }
    AppendField(parsed.get_ref<const std::string&>(), /*quote_empty=*/true, delimiter, out);
    return Status::OK();
  }
  AppendField(*scratch, /*quote_empty=*/false, delimiter, out);
  return Status::OK();
}

}  // namespace

Status CheckCsvDelimiter(char delimiter) {
  if (delimiter == '"' || delimiter == '\r' || delimiter == '\n') {
    return Status::InvalidArgument("a CSV delimiter cannot be '\"', CR or LF (got byte {})",
                                   static_cast<int>(static_cast<unsigned char>(delimiter)));
  }
  return Status::OK();
}

Status AppendCsv(const RecordBatch& batch, bool header, std::string* out, char delimiter) {
  LANCE_RETURN_NOT_OK(CheckCsvDelimiter(delimiter));
  const Schema& s = *batch.schema();
  if (header) {
    for (int c = 0; c < s.num_fields(); ++c) {
      if (c > 0) out->push_back(delimiter);
      AppendField(s.field(c)->name(), /*quote_empty=*/true, delimiter, out);
    }
    out->push_back('\n');
  }
  std::string scratch;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    for (int c = 0; c < s.num_fields(); ++c) {
      if (c > 0) out->push_back(delimiter);
      LANCE_RETURN_NOT_OK(AppendCell(*batch.column(c), r, delimiter, &scratch, out));
    }
    out->push_back('\n');
  }
  return Status::OK();
}

}  // namespace lance
