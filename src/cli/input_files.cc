#include "cli/input_files.h"

#include <string_view>

#include "lance/columnar/csv.h"
#include "lance/columnar/json.h"
#include "lance/io/object_store.h"
#include "lance/ipc/reader.h"

namespace lance::cli {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string_view View(const BufferPtr& b) {
  return {reinterpret_cast<const char*>(b->data()), static_cast<size_t>(b->size())};
}

}  // namespace

Result<BufferPtr> ReadWhole(const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(path));
  return sp.store->Get(sp.path);
}

Result<char> ParseDelimiter(const std::string& text) {
  char c = 0;
  if (text == "\\t" || text == "tab" || text == "TAB" || text == "\t") {
    c = '\t';
  } else if (text.size() == 1) {
    c = text[0];
  } else {
    return Status::InvalidArgument("--delimiter '{}': expected one character, or \\t (tab)", text);
  }
  if (Status s = CheckCsvDelimiter(c); !s.ok()) {
    return Status::InvalidArgument("--delimiter: {}", s.message());
  }
  return c;
}

Result<char> DelimiterFor(const std::string& path, const std::string& delimiter) {
  if (!delimiter.empty()) return ParseDelimiter(delimiter);
  return EndsWith(path, ".tsv") ? '\t' : ',';
}

bool IsDelimitedText(const std::string& path) {
  return EndsWith(path, ".csv") || EndsWith(path, ".tsv");
}

Status ReadInputRows(const std::string& input, const std::string& schema_path,
                     const std::string& delimiter, SchemaPtr* schema,
                     std::vector<RecordBatchPtr>* batches) {
  if (!delimiter.empty() && !IsDelimitedText(input)) {
    return Status::InvalidArgument("{}: --delimiter applies to .csv / .tsv input only", input);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr data, ReadWhole(input));
  if (EndsWith(input, ".jsonl") || EndsWith(input, ".json")) {
    if (schema_path.empty()) {
      return Status::InvalidArgument("{}: JSON lines input needs --schema FILE.json", input);
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr sj, ReadWhole(schema_path));
    LANCE_ASSIGN_OR_RAISE(*schema, SchemaFromJson(View(sj)));
    LANCE_ASSIGN_OR_RAISE(auto batch, ReadJsonLines(View(data), *schema));
    if (batch->num_rows() > 0) batches->push_back(batch);
    return Status::OK();
  }
  if (IsDelimitedText(input)) {
    CsvReadOptions o;
    o.what = input;
    LANCE_ASSIGN_OR_RAISE(o.delimiter, DelimiterFor(input, delimiter));
    if (!schema_path.empty()) {
      LANCE_ASSIGN_OR_RAISE(BufferPtr sj, ReadWhole(schema_path));
      LANCE_ASSIGN_OR_RAISE(o.schema, SchemaFromJson(View(sj)));
    }
    LANCE_ASSIGN_OR_RAISE(auto batch, ReadCsv(View(data), o));
    *schema = batch->schema();
    if (batch->num_rows() > 0) batches->push_back(batch);
    return Status::OK();
  }
  auto reader = ipc::OpenAny(data);
  if (!reader.ok()) {
    return Status::InvalidArgument("{}: not an Arrow IPC stream or file (or use .jsonl with "
                                   "--schema, or .csv / .tsv): {}",
                                   input, reader.status().message());
  }
  *schema = (*reader)->schema();
  LANCE_ASSIGN_OR_RAISE(*batches, (*reader)->ReadAll());
  return Status::OK();
}

}  // namespace lance::cli
