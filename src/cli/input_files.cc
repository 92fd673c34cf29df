#include "cli/input_files.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string_view>

#include <poll.h>
#include <unistd.h>

#include <cerrno>

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

// An open input file, closed when its last holder lets go -- unless it is stdin.
using InputFile = std::shared_ptr<std::FILE>;

InputFile OpenInput(const std::string& path, bool from_stdin) {
  if (from_stdin) return InputFile(stdin, [](std::FILE*) {});
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return nullptr;
  return InputFile(f, [](std::FILE* g) { std::fclose(g); });
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
      InputFile f = OpenInput(path, false);
      if (!f) return Status::IOError("{}: cannot open for reading", path);
      return ReadStream(f.get(), path);
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

// Lines of a streamed input's first piece that type it when there is no schema.
constexpr int64_t kInferLines = 10000;

// The schema that types JSON lines: the --schema file, else the existing table's (rows for
// it), else one inferred from the first `max_lines` lines of `sample` (the whole input, or its
// first piece).
Result<SchemaPtr> JsonLinesSchema(const std::string& schema_path, const SchemaPtr& target,
                                  std::string_view sample, const std::string& what,
                                  int64_t max_lines) {
  if (!schema_path.empty()) return ReadSchemaFile(schema_path);
  Result<SchemaPtr> inferred = InferJsonLinesSchema(sample, max_lines);
  if (!target) {
    if (!inferred.ok()) return inferred.status().WithContext(what);
    return inferred;
  }
  if (!inferred.ok()) return target;  // the table's types read each line and say what does not fit
  // Rows for an existing table: its types, for the keys the input has (a merge-insert of some
  // columns updates those alone); a key the table lacks stays, so the write names it.
  std::vector<FieldPtr> fields;
  for (const FieldPtr& f : target->fields()) {
    if ((*inferred)->GetFieldByName(f->name())) fields.push_back(f);
  }
  for (const FieldPtr& f : (*inferred)->fields()) {
    if (!target->GetFieldByName(f->name())) fields.push_back(f);
  }
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
    LANCE_ASSIGN_OR_RAISE(*schema, JsonLinesSchema(schema_path, target, View(data), what,
                                                   std::numeric_limits<int64_t>::max()));
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
    return Status::InvalidArgument("{}: not an Arrow IPC stream or file (nor JSON lines "
                                   "or .csv / .tsv): {}",
                                   what, reader.status().message());
  }
  *schema = (*reader)->schema();
  LANCE_ASSIGN_OR_RAISE(*batches, (*reader)->ReadAll());
  return Status::OK();
}

namespace {

// One read(2) of at most `n` bytes of `fd` (what has arrived, at least one byte, or 0 at the
// end), retried when a signal interrupts it; -1 on an error.
ssize_t ReadSome(int fd, char* out, size_t n) {
  for (;;) {
    const ssize_t k = ::read(fd, out, n);
    if (k >= 0 || errno != EINTR) return k;
  }
}

// An input read in pieces that each end at a record boundary: a LF outside double quotes for
// CSV (`quoted`), any LF for JSON lines. The last piece is what is left at the end. `head`: bytes
// already read from `f` (to sniff the format). `live` (a stream fed as it goes): a piece is the
// whole records that have arrived, as soon as there is one, read with read(2) from the file's
// descriptor (the head too: nothing may sit in the FILE's buffer).
class RecordPieces {
 public:
  RecordPieces(InputFile f, std::string head, std::string what, int64_t piece_bytes, bool quoted,
               bool live)
      : file_(std::move(f)), f_(file_.get()), what_(std::move(what)), piece_bytes_(piece_bytes),
        quoted_(quoted), live_(live), carry_(std::move(head)) {}

  // The next piece; empty at the end. Errors: IOError.
  Result<std::string> Next() {
    lines_before_ += lines_in_last_;
    while (!live_ && !eof_ && static_cast<int64_t>(carry_.size()) < piece_bytes_) LANCE_RETURN_NOT_OK(Fill());
    // Live: what is already waiting joins the piece (a fast producer gives whole pieces, a
    // slow one its records as they come).
    while (live_ && !eof_ && static_cast<int64_t>(carry_.size()) < piece_bytes_ && Readable()) {
      LANCE_RETURN_NOT_OK(Fill());
    }
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
        lines_in_last_ = std::count(piece.begin(), piece.end(), '\n');
        return piece;
      }
      LANCE_RETURN_NOT_OK(Fill());  // one record longer than a piece: read on
    }
  }
  int64_t consumed() const { return consumed_; }
  // Line breaks of the input before the piece Next() returned last.
  int64_t lines_before() const { return lines_before_; }

 private:
  Status Fill() {
    // Reads of at most a piece (and at most 1 MiB), so --input-batch-bytes bounds what is held.
    const size_t chunk = static_cast<size_t>(std::clamp<int64_t>(piece_bytes_, 4096, int64_t{1} << 20));
    const size_t old = carry_.size();
    carry_.resize(old + chunk);
    if (live_) {
      const ssize_t n = ReadSome(::fileno(f_), carry_.data() + old, chunk);
      carry_.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
      if (n < 0) return Status::IOError("{}: read error: {}", what_, std::strerror(errno));
      eof_ = n == 0;
      return Status::OK();
    }
    const size_t n = std::fread(carry_.data() + old, 1, chunk, f_);
    carry_.resize(old + n);
    if (n == 0) {
      if (std::ferror(f_)) return Status::IOError("{}: read error", what_);
      eof_ = true;
    }
    return Status::OK();
  }
  // True when a read of the input would not block now.
  bool Readable() const {
    pollfd p{::fileno(f_), POLLIN, 0};
    return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP)) != 0;
  }
  // Where the next piece ends in carry_ (which starts at a record boundary): the last boundary
  // LF among its first piece_bytes_ bytes, else the first one after them (a record longer than
  // a piece); npos when carry_ holds none.
  size_t LastBoundary() const {
    const size_t limit = static_cast<size_t>(piece_bytes_);
    if (!quoted_) {
      const size_t last = limit > 0 ? carry_.rfind('\n', limit - 1) : std::string::npos;
      return last != std::string::npos ? last : carry_.find('\n', limit);
    }
    size_t last = std::string::npos;
    bool in_quotes = false;
    for (size_t i = 0; i < carry_.size(); ++i) {
      if (i >= limit && last != std::string::npos) break;
      const char c = carry_[i];
      if (c == '"') in_quotes = !in_quotes;
      if (c == '\n' && !in_quotes) {
        last = i;
        if (i >= limit) break;
      }
    }
    return last;
  }

  InputFile file_;
  std::FILE* f_;
  std::string what_;
  int64_t piece_bytes_;
  bool quoted_;
  bool live_;
  std::string carry_;
  bool eof_ = false;
  int64_t consumed_ = 0;
  int64_t lines_before_ = 0;
  int64_t lines_in_last_ = 0;
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
  // `rereadable`: the input is a regular file (a later piece that infers other types then asks
  // for a whole read; a stream cannot be read again, so that is an error asking for --schema).
  static Result<std::unique_ptr<CsvInputRows>> Open(std::unique_ptr<RecordPieces> pieces,
                                                    CsvReadOptions o, const SchemaPtr& target,
                                                    int64_t total, bool rereadable,
                                                    int64_t piece_bytes) {
    std::unique_ptr<CsvInputRows> r(new CsvInputRows());
    r->total_bytes_ = total;
    r->rereadable_ = rereadable;
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
    r->header_lines_ = std::count(r->header_.begin(), r->header_.end(), '\n');
    r->options_ = std::move(o);
    r->piece_bytes_ = piece_bytes;
    return r;
  }
  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    if (pending_) return std::move(pending_);
    LANCE_ASSIGN_OR_RAISE(std::string piece, pieces_->Next());
    bytes_read_ = pieces_->consumed();
    if (piece.empty()) return RecordBatchPtr();
    piece.insert(0, header_);
    // The piece's records are numbered as in the whole input, so its errors stand as they are.
    options_.line_offset = pieces_->lines_before() - header_lines_;
    Result<RecordBatchPtr> batch = ReadCsv(piece, options_);
    if (batch.ok() && inferred_) batch = Agree(piece, std::move(batch).MoveValueUnsafe());
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
        read_whole_ = rereadable_;
        return Status::InvalidArgument("{}: column '{}' infers as {} from line {} on, as {} before "
                                       "(a stream is typed by its first {} bytes: give --schema "
                                       "FILE.json, or --input-batch-bytes larger)",
                                       options_.what, schema_->field(c)->name(), DataTypeToJson(got),
                                       pieces_->lines_before() + 1, DataTypeToJson(want), piece_bytes_);
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
  bool rereadable_ = false;
  int64_t piece_bytes_ = 0;
  std::string header_;
  int64_t header_lines_ = 0;
  SchemaPtr schema_;
  RecordBatchPtr pending_;
};

// JSON lines pieces, typed by the schema file, the table's schema or the first piece.
class JsonInputRows final : public InputRows {
 public:
  // `first`: the input's first piece when it was read already (to infer the schema from).
  // `inferred`: the schema was inferred from that piece; `rereadable`: of a regular file, so a
  // later piece it does not type asks for the whole read (which infers from every line).
  JsonInputRows(std::unique_ptr<RecordPieces> pieces, SchemaPtr schema, std::string what, int64_t total,
                std::optional<std::string> first, bool inferred, bool rereadable, int64_t piece_bytes)
      : pieces_(std::move(pieces)), schema_(std::move(schema)), what_(std::move(what)),
        first_(std::move(first)), inferred_(inferred), rereadable_(rereadable), piece_bytes_(piece_bytes) {
    total_bytes_ = total;
  }
  SchemaPtr schema() const override { return schema_; }
  Result<RecordBatchPtr> Next() override {
    std::string piece;
    if (first_) {
      piece = std::move(*first_);
      first_.reset();
    } else {
      LANCE_ASSIGN_OR_RAISE(piece, pieces_->Next());
    }
    bytes_read_ = pieces_->consumed();
    if (piece.empty()) return RecordBatchPtr();
    Result<RecordBatchPtr> batch = ReadJsonLines(piece, schema_, pieces_->lines_before() + 1);
    if (!batch.ok()) {
      read_whole_ = rereadable_;
      if (inferred_ && !rereadable_) {
        return Status::InvalidArgument("{}: {} (a stream is typed by its first {} lines or {} bytes: "
                                       "give --schema FILE.json, or --input-batch-bytes larger)",
                                       what_, batch.status().message(), kInferLines, piece_bytes_);
      }
      return batch.status().WithContext(what_);
    }
    return batch;
  }

 private:
  std::unique_ptr<RecordPieces> pieces_;
  SchemaPtr schema_;
  std::string what_;
  std::optional<std::string> first_;
  bool inferred_ = false;
  bool rereadable_ = false;
  int64_t piece_bytes_ = 0;
};

// Arrow IPC batches: a stream pulled message by message, or a file from its mapping.
class IpcInputRows final : public InputRows {
 public:
  // `consumed`: bytes of the input read so far (null: unknown, counted by rows).
  IpcInputRows(std::unique_ptr<RecordBatchReader> reader, int64_t total,
               std::shared_ptr<const int64_t> consumed)
      : reader_(std::move(reader)), consumed_(std::move(consumed)) {
    total_bytes_ = total;
  }
  SchemaPtr schema() const override { return reader_->schema(); }
  Result<RecordBatchPtr> Next() override {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader_->Next());
    if (consumed_) {
      bytes_read_ = *consumed_;
    } else {
      bytes_read_ = b ? std::min(total_bytes_, bytes_read_ + b->num_rows()) : total_bytes_;
    }
    return b;
  }

 private:
  std::unique_ptr<RecordBatchReader> reader_;
  std::shared_ptr<const int64_t> consumed_;
};

}  // namespace

Result<std::unique_ptr<InputRows>> OpenInputRows(const std::string& input, const std::string& schema_path,
                                                 const std::string& delimiter, const SchemaPtr& target,
                                                 int64_t piece_bytes, bool live) {
  if (input.find("://") != std::string::npos) return std::unique_ptr<InputRows>();
  if (piece_bytes < 1) {
    return Status::InvalidArgument("--input-batch-bytes {}: expected at least 1", piece_bytes);
  }
  const bool from_stdin = input == "-";
  std::error_code ec;
  bool regular = false;
  if (!from_stdin) {
    const auto st = std::filesystem::status(input, ec);
    if (ec || !std::filesystem::exists(st) || std::filesystem::is_directory(st)) {
      return std::unique_ptr<InputRows>();  // the whole-input path says why
    }
    regular = std::filesystem::is_regular_file(st);
  }
  const std::string what = from_stdin ? "stdin" : input;
  if (!delimiter.empty() && !IsDelimitedText(input) && regular) {
    return Status::InvalidArgument("{}: --delimiter applies to .csv / .tsv input (or stdin) only",
                                   input);
  }
  const int64_t total = regular ? static_cast<int64_t>(std::filesystem::file_size(input, ec)) : 0;
  InputFile file = OpenInput(input, from_stdin);
  if (!file) return std::unique_ptr<InputRows>();  // the whole-input path says why
  std::FILE* f = file.get();
  live = live && !regular;
  // The first bytes name the format of an input without a telling extension; they stay the
  // start of what is read (a stream cannot seek back). A live stream gives what has arrived
  // once it names the format (8 bytes, or a whole first line), not 64 bytes that may be late.
  std::string head(64, '\0');
  if (live) {
    size_t got = 0;
    // (An IPC stream's first bytes are 0xFF x 4 and a length that may hold a LF byte.)
    auto named = [&] {
      return got >= 8 || (got > 0 && head[0] != '\xff' && head.substr(0, got).find('\n') != std::string::npos);
    };
    while (!named()) {
      const ssize_t n = ReadSome(::fileno(f), head.data() + got, head.size() - got);
      if (n < 0) return Status::IOError("{}: read error: {}", what, std::strerror(errno));
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    head.resize(got);
  } else {
    head.resize(std::fread(head.data(), 1, head.size(), f));
    if (std::ferror(f)) return Status::IOError("{}: read error", what);
  }
  const InputFormat format = FormatOf(input, head);
  if (!delimiter.empty() && format != InputFormat::kCsv) {
    return Status::InvalidArgument("{}: --delimiter applies to CSV input only", what);
  }
  if (format == InputFormat::kIpc) {
    if (head.starts_with("ARROW1")) {
      // The file format needs random access: a regular file is mapped, a stream read whole.
      file.reset();
      if (regular) {
        LANCE_ASSIGN_OR_RAISE(BufferPtr data, ReadWhole(input));
        auto reader = ipc::OpenAny(data);
        if (!reader.ok()) return std::unique_ptr<InputRows>();  // the whole-input path says why
        return std::unique_ptr<InputRows>(new IpcInputRows(std::move(*reader), total, nullptr));
      }
      return std::unique_ptr<InputRows>();
    }
    // The stream format: pulled message by message, whatever the input is.
    struct Source {
      InputFile f;
      std::string head;
      size_t head_pos = 0;
      int64_t consumed = 0;
    };
    auto src = std::make_shared<Source>();
    src->f = std::move(file);
    src->head = std::move(head);
    auto read = [src, what](uint8_t* out, int64_t n) -> Result<int64_t> {
      size_t k = std::min(static_cast<size_t>(n), src->head.size() - src->head_pos);
      std::memcpy(out, src->head.data() + src->head_pos, k);
      src->head_pos += k;
      if (k < static_cast<size_t>(n)) k += std::fread(out + k, 1, static_cast<size_t>(n) - k, src->f.get());
      if (std::ferror(src->f.get())) return Status::IOError("{}: read error", what);
      src->consumed += static_cast<int64_t>(k);
      return static_cast<int64_t>(k);
    };
    auto reader = ipc::StreamReader::OpenFrom(read);
    if (!reader.ok()) {
      return Status::InvalidArgument("{}: not an Arrow IPC stream or file (nor JSON lines "
                                     "or .csv / .tsv): {}",
                                     what, reader.status().message());
    }
    std::shared_ptr<const int64_t> consumed(src, &src->consumed);
    return std::unique_ptr<InputRows>(new IpcInputRows(std::move(*reader), total, std::move(consumed)));
  }
  auto pieces = std::make_unique<RecordPieces>(std::move(file), std::move(head), what, piece_bytes,
                                               format == InputFormat::kCsv, live);
  if (format == InputFormat::kJsonLines) {
    std::optional<std::string> first;
    if (schema_path.empty()) {
      LANCE_ASSIGN_OR_RAISE(first, pieces->Next());  // the piece the schema is inferred from
    }
    LANCE_ASSIGN_OR_RAISE(SchemaPtr schema,
                          JsonLinesSchema(schema_path, target, first ? *first : "", what, kInferLines));
    const bool inferred = schema_path.empty() && !target;
    return std::unique_ptr<InputRows>(new JsonInputRows(std::move(pieces), std::move(schema), what,
                                                        total, std::move(first), inferred,
                                                        inferred && regular, piece_bytes));
  }
  CsvReadOptions o;
  o.what = what;
  LANCE_ASSIGN_OR_RAISE(o.delimiter, DelimiterFor(input, delimiter));
  if (!schema_path.empty()) {
    LANCE_ASSIGN_OR_RAISE(o.schema, ReadSchemaFile(schema_path));
  }
  LANCE_ASSIGN_OR_RAISE(auto rows, CsvInputRows::Open(std::move(pieces), std::move(o), target, total,
                                                      regular, piece_bytes));
  return std::unique_ptr<InputRows>(std::move(rows));
}

Result<SchemaPtr> ExistingTableSchema(const std::string& uri) {
  auto ds = table::Snapshot::Open(uri);
  if (ds.ok()) return (*ds)->schema();
  if (ds.status().IsNotFound()) return SchemaPtr();
  return ds.status();
}

}  // namespace lance::cli
