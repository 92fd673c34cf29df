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
  return path.ends_with(".tsv") ? '\t' : ',';
}

bool IsDelimitedText(const std::string& path) {
  return path.ends_with(".csv") || path.ends_with(".tsv");
}

namespace {

enum class InputFormat { kJsonLines, kCsv, kIpc };

// By the name's extension; for stdin ("-"), FIFOs and other names by the first bytes: Arrow
// IPC magic or continuation marker, '{' for JSON lines, else CSV.
InputFormat FormatOf(const std::string& path, std::string_view head) {
  if (path.ends_with(".jsonl") || path.ends_with(".json")) return InputFormat::kJsonLines;
  if (IsDelimitedText(path)) return InputFormat::kCsv;
  if (path.ends_with(".arrow") || path.ends_with(".arrows") || path.ends_with(".ipc") ||
      path.ends_with(".feather")) {
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

namespace {

// A regular file read in pieces that each end at a record boundary: a LF outside double quotes
// for CSV (`quoted`), any LF for JSON lines. The last piece is what is left at the end.
class RecordPieces {
 public:
  RecordPieces(std::FILE* f, std::string what, int64_t piece_bytes, bool quoted)
      : f_(f), what_(std::move(what)), piece_bytes_(piece_bytes), quoted_(quoted) {}
  ~RecordPieces() { std::fclose(f_); }
  RecordPieces(const RecordPieces&) = delete;
  RecordPieces& operator=(const RecordPieces&) = delete;

  // The next piece; empty at the end. Errors: IOError.
  Result<std::string> Next() {
    while (!eof_ && static_cast<int64_t>(carry_.size()) < piece_bytes_) LANCE_RETURN_NOT_OK(Fill());
    for (;;) {
      const size_t end = LastBoundary();
      if (end != std::string::npos || eof_) {
        std::string piece;
        if (end == std::string::npos || (eof_ && end + 1 == carry_.size())) {
          piece.swap(carry_);
        } else {
          piece = carry_.substr(0, end + 1);
          carry_.erase(0, end + 1);
        }
        consumed_ += static_cast<int64_t>(piece.size());
        return piece;
      }
      LANCE_RETURN_NOT_OK(Fill());  // one record longer than a piece: read on
    }
  }
  int64_t consumed() const { return consumed_; }

 private:
  Status Fill() {
    const size_t old = carry_.size();
    carry_.resize(old + (size_t{1} << 20));
    const size_t n = std::fread(carry_.data() + old, 1, size_t{1} << 20, f_);
    carry_.resize(old + n);
    if (n == 0) {
      if (std::ferror(f_)) return Status::IOError("{}: read error", what_);
      eof_ = true;
    }
    return Status::OK();
  }
  // The position of the last boundary LF in carry_ (which starts at a record boundary).
  size_t LastBoundary() const {
    if (!quoted_) return carry_.rfind('\n');
    size_t last = std::string::npos;
    bool in_quotes = false;
    for (size_t i = 0; i < carry_.size(); ++i) {
      const char c = carry_[i];
      if (c == '"') in_quotes = !in_quotes;
      if (c == '\n' && !in_quotes) last = i;
    }
    return last;
  }

  std::FILE* f_;
  std::string what_;
  int64_t piece_bytes_;
  bool quoted_;
  std::string carry_;
  bool eof_ = false;
  int64_t consumed_ = 0;
};

// True when column `c` of `batch` is utf8 with every value empty: what inference makes of a
// column whose cells are all empty in this piece (they say nothing about its type).
bool AllEmptyText(const RecordBatch& batch, int c) {
  const Array& a = *batch.column(c);
  if (a.type->id() != TypeId::kString || a.length == 0) return a.length == 0;
  return a.ValueOffset(a.length) == a.ValueOffset(0);
}

// CSV pieces: the header row repeated before each, typed by the schema given (or the table's),
// else by inference on the first piece, which later pieces must agree with exactly.
class CsvInputRows final : public InputRows {
 public:
  static Result<std::unique_ptr<CsvInputRows>> Open(std::unique_ptr<RecordPieces> pieces,
                                                    CsvReadOptions o, const SchemaPtr& target,
                                                    int64_t total) {
    std::unique_ptr<CsvInputRows> r(new CsvInputRows());
    r->total_bytes_ = total;
    r->pieces_ = std::move(pieces);
    LANCE_ASSIGN_OR_RAISE(std::string first, r->pieces_->Next());
    r->bytes_read_ = r->pieces_->consumed();
    if (o.schema == nullptr && target) {
      LANCE_ASSIGN_OR_RAISE(o.schema, TargetSchemaForHeader(first, o, target));
    }
    r->inferred_ = o.schema == nullptr;
    LANCE_ASSIGN_OR_RAISE(r->pending_, ReadCsv(first, o));
    r->schema_ = r->pending_->schema();
    r->header_ = std::string(FirstRecord(first));
    if (r->header_.empty() || r->header_.back() != '\n') r->header_ += '\n';
    r->options_ = std::move(o);
    return r;
  }
  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (pending_) return std::move(pending_);
    LANCE_ASSIGN_OR_RAISE(std::string piece, pieces_->Next());
    bytes_read_ = pieces_->consumed();
    if (piece.empty()) return RecordBatchPtr();
    piece.insert(0, header_);
    Result<RecordBatchPtr> batch = ReadCsv(piece, options_);
    if (batch.ok() && inferred_) batch = Agree(piece, std::move(batch).MoveValueUnsafe());
    if (!batch.ok()) read_whole_ = true;
    return batch;
  }

 private:
  CsvInputRows() = default;
  // A piece read by inference, with the first piece's types: the same, or re-read with them
  // when its differing columns are all empty (nulls then) or integers where the first piece
  // had floats (every integer reads as float64, as a whole-file inference would). Anything
  // else means the whole file infers differently: an error that asks for reading it whole.
  Result<RecordBatchPtr> Agree(const std::string& piece, RecordBatchPtr batch) {
    bool reread = false;
    for (int c = 0; c < schema_->num_fields(); ++c) {
      const DataType& want = *schema_->field(c)->type();
      const DataType& got = *batch->schema()->field(c)->type();
      if (got.Equals(want)) continue;
      const bool ints_as_floats = got.id() == TypeId::kInt64 && want.id() == TypeId::kDouble;
      if (!ints_as_floats && !AllEmptyText(*batch, c)) {
        return Status::InvalidArgument("{}: column '{}' infers as {} in a later part of the file "
                                       "(read it whole)",
                                       options_.what, schema_->field(c)->name(), got.ToString());
      }
      reread = true;
    }
    if (!reread) return batch->schema()->Equals(*schema_) ? batch
                                                          : std::make_shared<RecordBatch>(schema_, batch->num_rows(), batch->columns());
    CsvReadOptions typed = options_;
    typed.schema = schema_;
    return ReadCsv(piece, typed);
  }

  std::unique_ptr<RecordPieces> pieces_;
  CsvReadOptions options_;
  bool inferred_ = false;
  std::string header_;
  SchemaPtr schema_;
  RecordBatchPtr pending_;
};

// JSON lines pieces, typed by the schema file.
class JsonInputRows final : public InputRows {
 public:
  JsonInputRows(std::unique_ptr<RecordPieces> pieces, SchemaPtr schema, int64_t total)
      : pieces_(std::move(pieces)), schema_(std::move(schema)) {
    total_bytes_ = total;
  }
  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    LANCE_ASSIGN_OR_RAISE(std::string piece, pieces_->Next());
    const bool first = bytes_read_ == 0;
    bytes_read_ = pieces_->consumed();
    if (piece.empty()) return RecordBatchPtr();
    Result<RecordBatchPtr> batch = ReadJsonLines(piece, schema_);
    if (!batch.ok() && !first) read_whole_ = true;  // its line numbers count from the piece
    return batch;
  }

 private:
  std::unique_ptr<RecordPieces> pieces_;
  SchemaPtr schema_;
};

// Arrow IPC batches straight from the file's mapping.
class IpcInputRows final : public InputRows {
 public:
  IpcInputRows(std::unique_ptr<RecordBatchReader> reader, int64_t total) : reader_(std::move(reader)) {
    total_bytes_ = total;
  }
  SchemaPtr schema() const override { return reader_->schema(); }
  Result<RecordBatchPtr> Next() override {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader_->Next());
    bytes_read_ = b ? std::min(total_bytes_, bytes_read_ + b->num_rows()) : total_bytes_;
    return b;
  }

 private:
  std::unique_ptr<RecordBatchReader> reader_;
};

}  // namespace

Result<std::unique_ptr<InputRows>> OpenInputRows(const std::string& input, const std::string& schema_path,
                                                 const std::string& delimiter, const SchemaPtr& target,
                                                 int64_t piece_bytes) {
  if (input == "-" || input.find("://") != std::string::npos) return std::unique_ptr<InputRows>();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(input, ec)) return std::unique_ptr<InputRows>();
  const bool named_text = IsDelimitedText(input);
  if (!delimiter.empty() && !named_text) {
    return Status::InvalidArgument("{}: --delimiter applies to .csv / .tsv input (or stdin) only",
                                   input);
  }
  const int64_t total = static_cast<int64_t>(std::filesystem::file_size(input, ec));
  std::FILE* f = std::fopen(input.c_str(), "rb");
  if (!f) return std::unique_ptr<InputRows>();  // the whole-file path says why
  char head[64];
  const size_t got = std::fread(head, 1, sizeof(head), f);
  std::rewind(f);
  const InputFormat format = FormatOf(input, std::string_view(head, got));
  if (format == InputFormat::kIpc) {
    std::fclose(f);
    LANCE_ASSIGN_OR_RAISE(BufferPtr data, ReadWhole(input));
    auto reader = ipc::OpenAny(data);
    if (!reader.ok()) return std::unique_ptr<InputRows>();  // the whole-file path says why
    return std::unique_ptr<InputRows>(new IpcInputRows(std::move(*reader), total));
  }
  auto pieces = std::make_unique<RecordPieces>(f, input, piece_bytes, format == InputFormat::kCsv);
  if (format == InputFormat::kJsonLines) {
    if (schema_path.empty()) {
      return Status::InvalidArgument("{}: JSON lines input needs --schema FILE.json", input);
    }
    LANCE_ASSIGN_OR_RAISE(SchemaPtr schema, ReadSchemaFile(schema_path));
    return std::unique_ptr<InputRows>(new JsonInputRows(std::move(pieces), std::move(schema), total));
  }
  CsvReadOptions o;
  o.what = input;
  LANCE_ASSIGN_OR_RAISE(o.delimiter, DelimiterFor(input, delimiter));
  if (!schema_path.empty()) {
    LANCE_ASSIGN_OR_RAISE(o.schema, ReadSchemaFile(schema_path));
  }
  LANCE_ASSIGN_OR_RAISE(auto rows, CsvInputRows::Open(std::move(pieces), std::move(o), target, total));
  return std::unique_ptr<InputRows>(std::move(rows));
}

Result<SchemaPtr> ExistingTableSchema(const std::string& uri) {
  auto ds = table::Snapshot::Open(uri);
  if (ds.ok()) return (*ds)->schema();
  if (ds.status().IsNotFound()) return SchemaPtr();
  return ds.status();
}

}  // namespace lance::cli
