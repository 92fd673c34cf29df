#include "cli/input_files.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "lance/columnar/csv.h"
#include "lance/columnar/json.h"
#include "lance/io/object_store.h"
#include "lance/ipc/reader.h"
#include "lance/table/schema_rules.h"
#include "lance/table/snapshot.h"

namespace lance::cli {

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string_view View(const BufferPtr& b) {
  return {reinterpret_cast<const char*>(b->data()), static_cast<size_t>(b->size())};
}

}  // namespace

// All bytes of an open stream (stdin, a FIFO, a /dev/fd/N of a shell's <(...)).
Result<BufferPtr> ReadStream(std::FILE* f, const std::string& what) {
  std::string bytes;
  char chunk[1 << 16];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) bytes.append(chunk, n);
  if (std::ferror(f)) return Status::IOError("{}: read error", what);
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, AllocateBuffer(static_cast<int64_t>(bytes.size())));
  if (!bytes.empty()) std::memcpy(out->mutable_data(), bytes.data(), bytes.size());
  return out;
}

Result<BufferPtr> ReadWhole(const std::string& path) {
  if (path == "-") return ReadStream(stdin, "stdin");
  if (path.find("://") == std::string::npos) {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
        !std::filesystem::is_directory(st)) {
      // A FIFO or a character device: read it as a stream (an object store cannot).
      std::FILE* f = std::fopen(path.c_str(), "rb");
      if (!f) return Status::IOError("{}: cannot open for reading", path);
      Result<BufferPtr> r = ReadStream(f, path);
      std::fclose(f);
      return r;
    }
  }
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(path));
  return sp.store->Get(sp.path);
}

Result<SchemaPtr> ReadSchemaFile(const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr sj, ReadWhole(path));
  LANCE_ASSIGN_OR_RAISE(SchemaPtr schema, SchemaFromJson(View(sj)));
  LANCE_RETURN_NOT_OK(table::CheckTableSchema(*schema, "--schema " + path));
  return schema;
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

namespace {

enum class InputFormat { kJsonLines, kCsv, kIpc };

// By the name's extension; for stdin ("-"), FIFOs and other names by the first bytes: Arrow
// IPC magic or continuation marker, '{' for JSON lines, else CSV.
InputFormat FormatOf(const std::string& path, std::string_view head) {
  if (EndsWith(path, ".jsonl") || EndsWith(path, ".json")) return InputFormat::kJsonLines;
  if (IsDelimitedText(path)) return InputFormat::kCsv;
  if (EndsWith(path, ".arrow") || EndsWith(path, ".arrows") || EndsWith(path, ".ipc") ||
      EndsWith(path, ".feather")) {
    return InputFormat::kIpc;
  }
  if (head.substr(0, 6) == "ARROW1" || head.substr(0, 4) == std::string_view("\xff\xff\xff\xff", 4)) {
    return InputFormat::kIpc;
  }
  const size_t first = head.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && head[first] == '{') return InputFormat::kJsonLines;
  if (path == "-" || first != std::string_view::npos) return InputFormat::kCsv;
  return InputFormat::kIpc;
}

}  // namespace

namespace {

// The first record of CSV `text` (up to the first line break outside quotes).
std::string_view FirstRecord(std::string_view text) {
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') quoted = !quoted;
    if (text[i] == '\n' && !quoted) return text.substr(0, i + 1);
  }
  return text;
}

// The fields of `target` the CSV header names, in the target's order; null when a header
// name is not a field of `target` (the input is then typed by inference and the write says
// what does not match).
Result<SchemaPtr> TargetSchemaForHeader(std::string_view data, const CsvReadOptions& base,
                                        const SchemaPtr& target) {
  CsvReadOptions o = base;
  o.schema = nullptr;
  LANCE_ASSIGN_OR_RAISE(auto header, ReadCsv(FirstRecord(data), o));
  std::vector<FieldPtr> fields;
  for (const FieldPtr& f : target->fields()) {
    if (header->schema()->GetFieldByName(f->name())) fields.push_back(f);
  }
  if (static_cast<int>(fields.size()) != header->schema()->num_fields()) return SchemaPtr();
  return schema(std::move(fields), target->metadata());
}

}  // namespace

Status ReadInputRows(const std::string& input, const std::string& schema_path,
                     const std::string& delimiter, SchemaPtr* schema,
                     std::vector<RecordBatchPtr>* batches, const SchemaPtr& target) {
  const bool named_text = IsDelimitedText(input) || input == "-";
  if (!delimiter.empty() && !named_text) {
    return Status::InvalidArgument("{}: --delimiter applies to .csv / .tsv input (or stdin) only",
                                   input);
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr data, ReadWhole(input));
  const std::string what = input == "-" ? "stdin" : input;
  const InputFormat format = FormatOf(input, View(data).substr(0, 64));
  if (format == InputFormat::kJsonLines) {
    if (schema_path.empty()) {
      return Status::InvalidArgument("{}: JSON lines input needs --schema FILE.json", what);
    }
    LANCE_ASSIGN_OR_RAISE(*schema, ReadSchemaFile(schema_path));
    LANCE_ASSIGN_OR_RAISE(auto batch, ReadJsonLines(View(data), *schema));
    if (batch->num_rows() > 0) batches->push_back(batch);
    return Status::OK();
  }
  if (format == InputFormat::kCsv) {
    CsvReadOptions o;
    o.what = what;
    LANCE_ASSIGN_OR_RAISE(o.delimiter, DelimiterFor(input, delimiter));
    if (!schema_path.empty()) {
      LANCE_ASSIGN_OR_RAISE(o.schema, ReadSchemaFile(schema_path));
    } else if (target) {
      // Rows for an existing table: its schema types the cells, not inference.
      LANCE_ASSIGN_OR_RAISE(o.schema, TargetSchemaForHeader(View(data), o, target));
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
                                   what, reader.status().message());
  }
  *schema = (*reader)->schema();
  LANCE_ASSIGN_OR_RAISE(*batches, (*reader)->ReadAll());
  return Status::OK();
}

Result<SchemaPtr> ExistingTableSchema(const std::string& uri) {
  auto ds = table::Snapshot::Open(uri);
  if (ds.ok()) return (*ds)->schema();
  if (ds.status().IsNotFound()) return SchemaPtr();
  return ds.status();
}

}  // namespace lance::cli
