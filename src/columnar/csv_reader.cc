// ReadCsv: an RFC 4180 tokenizer into row-major cells, then one typed column at a time.
// Types with a direct text form (bool, integers, floats, strings, binary) are parsed here;
// every other type goes through the canonical JSON reader, one batch per column, and only on
// failure cell by cell so the error can name the line and column.
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/csv.h"
#include "lance/columnar/float16.h"
#include "lance/columnar/json.h"
#include "lance/columnar/utf8.h"

namespace lance {

namespace {

struct Cell {
  std::string_view text;
  bool quoted = false;
};

// The cells of every record (row-major) and the line each record starts on.
struct CsvTable {
  std::vector<std::string> header;
  std::vector<Cell> cells;  // rows * header.size()
  std::vector<int64_t> lines;
  std::deque<std::string> unescaped;  // owns the text of quoted fields that held ""
  int64_t num_rows() const { return static_cast<int64_t>(lines.size()); }
};

std::string Excerpt(std::string_view s) {
  if (s.size() <= 40) return std::string(s);
  return std::string(s.substr(0, 37)) + "...";
}

class Tokenizer {
 public:
  Tokenizer(std::string_view text, const std::string& what) : text_(text), what_(what) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }

  Status Run(CsvTable* table) {
    std::vector<Cell> record;
    bool have_header = false;
    while (pos_ < text_.size()) {
      const int64_t start_line = line_;
      const bool blank = text_[pos_] == '\n' || text_.substr(pos_, 2) == "\r\n";
      // A blank line is a record of one empty field only in a one-column file.
      if (blank && (!have_header || table->header.size() != 1)) {
        pos_ += text_[pos_] == '\n' ? 1 : 2;
        ++line_;
        continue;
      }
      record.clear();
      LANCE_RETURN_NOT_OK(ReadRecord(table, &record));
      if (!have_header) {
        for (size_t i = 0; i < record.size(); ++i) {
          std::string name(record[i].text);
          for (size_t k = 0; k < table->header.size(); ++k) {
            if (table->header[k] == name) {
              return Status::InvalidArgument("{}: line {}: column {} repeats the header name '{}'",
                                             what_, start_line, i + 1, name);
            }
          }
          table->header.push_back(std::move(name));
        }
        have_header = true;
        continue;
      }
      if (record.size() != table->header.size()) {
        return Status::InvalidArgument("{}: line {}: expected {} fields (as the header), found {}",
                                       what_, start_line, table->header.size(), record.size());
      }
      table->cells.insert(table->cells.end(), record.begin(), record.end());
      table->lines.push_back(start_line);
    }
    if (!have_header) return Status::InvalidArgument("{}: no header row (the file is empty)", what_);
    return Status::OK();
  }

 private:
  // Reads fields up to and including the record's line break (or the end of the text).
  Status ReadRecord(CsvTable* table, std::vector<Cell>* record) {
    while (true) {
      const size_t column = record->size() + 1;
      Cell cell;
      if (pos_ < text_.size() && text_[pos_] == '"') {
        const int64_t open_line = line_;
        size_t p = pos_ + 1;
        bool escaped = false;
        while (true) {
          const size_t q = text_.find('"', p);
          if (q == std::string_view::npos) {
            return Status::InvalidArgument(
                "{}: line {}, column {}: quoted field is never closed (no matching '\"')", what_,
                open_line, column);
          }
          for (size_t k = p; k < q; ++k) line_ += text_[k] == '\n';
          if (q + 1 < text_.size() && text_[q + 1] == '"') {
            escaped = true;
            p = q + 2;
            continue;
          }
          std::string_view inner = text_.substr(pos_ + 1, q - pos_ - 1);
          if (escaped) {
            std::string s;
            s.reserve(inner.size());
            for (size_t k = 0; k < inner.size(); ++k) {
              s.push_back(inner[k]);
              if (inner[k] == '"') ++k;  // "" -> "
            }
            table->unescaped.push_back(std::move(s));
            inner = table->unescaped.back();
          }
          cell = Cell{inner, true};
          pos_ = q + 1;
          break;
        }
        if (pos_ < text_.size() && !AtFieldEnd()) {
          return Status::InvalidArgument(
              "{}: line {}, column {}: unexpected '{}' after the closing quote (expected ',' or "
              "a line break)",
              what_, line_, column, Excerpt(text_.substr(pos_, 1)));
        }
      } else {
        const size_t start = pos_;
        while (pos_ < text_.size() && !AtFieldEnd()) {
          if (text_[pos_] == '"') {
            return Status::InvalidArgument(
                "{}: line {}, column {}: '\"' inside an unquoted field (quote the whole field "
                "and double the quote)",
                what_, line_, column);
          }
          ++pos_;
        }
        cell = Cell{text_.substr(start, pos_ - start), false};
      }
      record->push_back(cell);
      if (pos_ >= text_.size()) return Status::OK();
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      pos_ += text_[pos_] == '\n' ? 1 : 2;  // LF or CRLF
      ++line_;
      return Status::OK();
    }
  }

  bool AtFieldEnd() const {
    const char c = text_[pos_];
    return c == ',' || c == '\n' || (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n');
  }

  std::string_view text_;
  const std::string& what_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[i]) return false;
  }
  return true;
}

bool ParseBool(std::string_view s, bool* out) {
  if (EqualsIgnoreCase(s, "true")) {
    *out = true;
    return true;
  }
  if (EqualsIgnoreCase(s, "false")) {
    *out = false;
    return true;
  }
  return false;
}

// Strips one leading '+' when a digit (or '.') follows, which from_chars does not accept.
std::string_view StripPlus(std::string_view s) {
  if (s.size() > 1 && s[0] == '+' && ((s[1] >= '0' && s[1] <= '9') || s[1] == '.')) {
    return s.substr(1);
  }
  return s;
}

template <typename T>
bool ParseInt(std::string_view s, T* out) {
  s = StripPlus(s);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

template <typename T>
bool ParseFloat(std::string_view s, T* out) {
  s = StripPlus(s);
  if (s.empty()) return false;
  // from_chars also takes "inf"/"infinity"/"nan" in any case, which covers the canonical
  // "NaN", "Infinity" and "-Infinity".
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    // Underflow to zero/denormal or overflow: from_chars leaves *out unset; redo with strtod.
    const std::string copy(s);
    char* end = nullptr;
    const double d = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size()) return false;
    *out = static_cast<T>(d);
    return true;
  }
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  // One NaN, as canonical JSON reads "NaN": "-nan" or "nan(123)" would not round trip.
  if (std::isnan(*out)) *out = std::numeric_limits<T>::quiet_NaN();
  return true;
}

// Canonical JSON writes these types' values as JSON strings.
bool JsonValueIsString(const DataType& type) {
  switch (type.id()) {
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary:
    case TypeId::kDecimal128:
      return true;
    case TypeId::kDictionary:
      return JsonValueIsString(*type.dictionary_value_type());
    default:
      return false;
  }
}

class ColumnReader {
 public:
  ColumnReader(const CsvTable& table, size_t column, const std::string& what)
      : table_(table), column_(column), what_(what) {}

  const Cell& cell(int64_t row) const {
    return table_.cells[static_cast<size_t>(row) * table_.header.size() + column_];
  }

  Status BadCell(int64_t row, const DataType& type, std::string_view detail = {}) const {
    return Status::InvalidArgument("{}: line {}, column {} ('{}'): '{}' is not a valid {} value{}{}",
                                   what_, table_.lines[static_cast<size_t>(row)], column_ + 1,
                                   table_.header[column_], Excerpt(cell(row).text),
                                   type.ToString(), detail.empty() ? "" : ": ", detail);
  }

  // Every non-empty cell parses with `parse`.
  template <typename Parse>
  bool AllParse(Parse parse) const {
    for (int64_t r = 0; r < table_.num_rows(); ++r) {
      if (!cell(r).text.empty() && !parse(cell(r).text)) return false;
    }
    return true;
  }

  DataTypePtr InferType() const {
    int64_t i = 0;
    double d = 0;
    bool b = false;
    if (AllParse([](std::string_view) { return false; })) return utf8();  // no value to go by
    if (AllParse([&](std::string_view s) { return ParseInt(s, &i); })) return int64();
    if (AllParse([&](std::string_view s) { return ParseFloat(s, &d); })) return float64();
    if (AllParse([&](std::string_view s) { return ParseBool(s, &b); })) return boolean();
    return utf8();
  }

  Result<ArrayPtr> Read(const DataTypePtr& type) const {
    switch (type->id()) {
      case TypeId::kBool:
        return ReadWith<BooleanBuilder>(type, [](std::string_view s, BooleanBuilder* b, bool* ok) {
          bool v = false;
          *ok = ParseBool(s, &v);
          return *ok ? b->Append(v) : Status::OK();
        });
      case TypeId::kInt8:
        return ReadNumber<int8_t>(type);
      case TypeId::kInt16:
        return ReadNumber<int16_t>(type);
      case TypeId::kInt32:
        return ReadNumber<int32_t>(type);
      case TypeId::kInt64:
        return ReadNumber<int64_t>(type);
      case TypeId::kUInt8:
        return ReadNumber<uint8_t>(type);
      case TypeId::kUInt16:
        return ReadNumber<uint16_t>(type);
      case TypeId::kUInt32:
        return ReadNumber<uint32_t>(type);
      case TypeId::kUInt64:
        return ReadNumber<uint64_t>(type);
      case TypeId::kFloat:
        return ReadNumber<float>(type);
      case TypeId::kDouble:
        return ReadNumber<double>(type);
      case TypeId::kHalfFloat:
        return ReadWith<UInt16Builder>(type, [](std::string_view s, UInt16Builder* b, bool* ok) {
          double v = 0;
          *ok = ParseFloat(s, &v);
          return *ok ? b->Append(DoubleToHalf(v)) : Status::OK();
        });
      case TypeId::kString:
      case TypeId::kLargeString:
        return ReadStrings(type);
      case TypeId::kBinary:
      case TypeId::kLargeBinary:
        return ReadBinary(type);
      default:
        return ReadThroughJson(type);
    }
  }

 private:
  // Empty cells are null; `append(text, builder, &ok)` appends a parsed value or sets ok=false.
  template <typename Builder, typename Append>
  Result<ArrayPtr> ReadWith(const DataTypePtr& type, Append append) const {
    Builder builder(type);
    LANCE_RETURN_NOT_OK(builder.Reserve(table_.num_rows()));
    for (int64_t r = 0; r < table_.num_rows(); ++r) {
      const std::string_view s = cell(r).text;
      if (s.empty()) {
        LANCE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      bool ok = false;
      LANCE_RETURN_NOT_OK(append(s, &builder, &ok));
      if (!ok) return BadCell(r, *type);
    }
    return builder.Finish();
  }

  template <typename T>
  Result<ArrayPtr> ReadNumber(const DataTypePtr& type) const {
    return ReadWith<NumericBuilder<T>>(type, [](std::string_view s, NumericBuilder<T>* b, bool* ok) {
      T v{};
      if constexpr (std::is_floating_point_v<T>) {
        *ok = ParseFloat(s, &v);
      } else {
        *ok = ParseInt(s, &v);
      }
      return *ok ? b->Append(v) : Status::OK();
    });
  }

  Result<ArrayPtr> ReadStrings(const DataTypePtr& type) const {
    BinaryBuilder builder(type);
    LANCE_RETURN_NOT_OK(builder.Reserve(table_.num_rows()));
    for (int64_t r = 0; r < table_.num_rows(); ++r) {
      const std::string_view s = cell(r).text;
      if (!IsValidUtf8(s)) return BadCell(r, *type, "not valid UTF-8");
      LANCE_RETURN_NOT_OK(builder.Append(s));
    }
    return builder.Finish();
  }

  // Base64; an unquoted empty field is null, a quoted one ("") the empty value.
  Result<ArrayPtr> ReadBinary(const DataTypePtr& type) const {
    BinaryBuilder builder(type);
    for (int64_t r = 0; r < table_.num_rows(); ++r) {
      const Cell& c = cell(r);
      if (c.text.empty() && !c.quoted) {
        LANCE_RETURN_NOT_OK(builder.AppendNull());
        continue;
      }
      auto bytes = Base64Decode(c.text);
      if (!bytes.ok()) return BadCell(r, *type, "expected base64");
      LANCE_RETURN_NOT_OK(builder.Append(*bytes));
    }
    return builder.Finish();
  }

  // `{"v":<cell as JSON>}` for a non-empty cell, `{}` (null) for an empty one. Line breaks
  // in a cell become spaces: they can only be JSON whitespace (or an error either way).
  void AppendJsonLine(int64_t row, bool as_string, std::string* out) const {
    const std::string_view s = cell(row).text;
    if (s.empty()) {
      *out += "{}\n";
      return;
    }
    *out += "{\"v\":";
    if (as_string) {
      *out += '"';
      for (char c : s) {
        if (c == '"' || c == '\\') {
          *out += '\\';
          *out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          *out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          *out += c;
        }
      }
      *out += '"';
    } else {
      for (char c : s) *out += (c == '\n' || c == '\r') ? ' ' : c;
    }
    *out += "}\n";
  }

  Result<ArrayPtr> ReadThroughJson(const DataTypePtr& type) const {
    const bool as_string = JsonValueIsString(*type);
    const SchemaPtr one = schema({field("v", type)});
    std::string lines;
    for (int64_t r = 0; r < table_.num_rows(); ++r) AppendJsonLine(r, as_string, &lines);
    auto batch = ReadJsonLines(lines, one);
    if (batch.ok() && (*batch)->num_rows() == table_.num_rows()) return (*batch)->column(0);
    for (int64_t r = 0; r < table_.num_rows(); ++r) {  // find the cell at fault
      std::string line;
      AppendJsonLine(r, as_string, &line);
      auto single = ReadJsonLines(line, one);
      if (!single.ok()) return BadCell(r, *type, single.status().message());
      if ((*single)->num_rows() != 1) return BadCell(r, *type);
    }
    return batch.ok() ? Status::InvalidArgument("{}: column {} ('{}') does not read as {}", what_,
                                                column_ + 1, table_.header[column_], type->ToString())
                      : batch.status();
  }

  const CsvTable& table_;
  size_t column_;
  const std::string& what_;
};

}  // namespace

Result<RecordBatchPtr> ReadCsv(std::string_view text, const CsvReadOptions& options) {
  CsvTable table;
  LANCE_RETURN_NOT_OK(Tokenizer(text, options.what).Run(&table));
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  if (options.schema == nullptr) {
    for (size_t c = 0; c < table.header.size(); ++c) {
      ColumnReader reader(table, c, options.what);
      DataTypePtr type = reader.InferType();
      LANCE_ASSIGN_OR_RAISE(ArrayPtr column, reader.Read(type));
      fields.push_back(field(table.header[c], type));
      columns.push_back(std::move(column));
    }
    return RecordBatch::Make(schema(std::move(fields)), table.num_rows(), std::move(columns));
  }
  const Schema& s = *options.schema;
  for (size_t c = 0; c < table.header.size(); ++c) {
    if (s.GetFieldIndex(table.header[c]) < 0) {
      return Status::InvalidArgument("{}: line 1, column {}: header name '{}' is not a field of "
                                     "the schema",
                                     options.what, c + 1, table.header[c]);
    }
  }
  for (const FieldPtr& f : s.fields()) {
    size_t c = 0;
    while (c < table.header.size() && table.header[c] != f->name()) ++c;
    if (c == table.header.size()) {
      return Status::InvalidArgument("{}: schema field '{}' has no column in the header row",
                                     options.what, f->name());
    }
    ColumnReader reader(table, c, options.what);
    LANCE_ASSIGN_OR_RAISE(ArrayPtr column, reader.Read(f->type()));
    if (!f->nullable() && column->null_count > 0) {
      int64_t r = 0;
      while (column->IsValid(r)) ++r;
      return Status::InvalidArgument("{}: line {}, column {} ('{}'): empty field, but the field "
                                     "is not nullable",
                                     options.what, table.lines[static_cast<size_t>(r)], c + 1,
                                     f->name());
    }
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(options.schema, table.num_rows(), std::move(columns));
}

}  // namespace lance
