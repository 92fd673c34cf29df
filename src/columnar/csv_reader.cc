// ReadCsv: an RFC 4180 tokenizer into row-major cells, then one typed column at a time.
// Types with a direct text form (bool, integers, floats, strings, binary) are parsed here;
// every other type goes through the canonical JSON reader, one batch per column, and only on
// failure cell by cell so the error can name the line and column.
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
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
  Tokenizer(std::string_view text, const std::string& what, char delimiter, int64_t line_offset)
      : text_(text), what_(what), delimiter_(delimiter), line_offset_(line_offset) {
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
        line_ += line_offset_;  // the records of a piece: numbered as in the whole input
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
              "{}: line {}, column {}: unexpected '{}' after the closing quote (expected '{}' or "
              "a line break)",
              what_, line_, column, Excerpt(text_.substr(pos_, 1)), DelimiterName());
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
      if (text_[pos_] == delimiter_) {
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
    return c == delimiter_ || c == '\n' ||
           (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n');
  }

  std::string DelimiterName() const {
    return delimiter_ == '\t' ? std::string("\\t") : std::string(1, delimiter_);
  }

  std::string_view text_;
  const std::string& what_;
  char delimiter_;
  int64_t line_offset_;
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

// `out_of_range`, when given, is set for an integer the type cannot hold.
template <typename T>
bool ParseInt(std::string_view s, T* out, bool* out_of_range = nullptr) {
  s = StripPlus(s);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  const bool whole = ptr == s.data() + s.size();
  if (ec == std::errc::result_out_of_range && whole && out_of_range != nullptr) {
    *out_of_range = true;
  }
  return ec == std::errc() && whole;
}

// A finite number whose magnitude the type cannot hold (1e400 for float64) is refused, with
// `out_of_range` set, rather than read as infinity; one too small reads as zero or a denormal.
template <typename T>
bool ParseFloat(std::string_view s, T* out, bool* out_of_range = nullptr) {
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
    if (std::isinf(d) || std::isinf(static_cast<T>(d))) {
      if (out_of_range != nullptr) *out_of_range = true;
      return false;
    }
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
    case TypeId::kDecimal256:
      return true;
    case TypeId::kDictionary:
      return JsonValueIsString(*type.dictionary_value_type());
    default:
      return false;
  }
}

// ISO 8601 text for the temporal types. All positions index into `s`.

// Exactly `n` ASCII digits at s[*p], consumed.
bool TakeDigits(std::string_view s, size_t* p, int n, int64_t* out) {
  if (*p + static_cast<size_t>(n) > s.size()) return false;
  int64_t v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[*p + static_cast<size_t>(i)];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *p += static_cast<size_t>(n);
  *out = v;
  return true;
}

bool Take(std::string_view s, size_t* p, char c) {
  if (*p < s.size() && s[*p] == c) {
    ++*p;
    return true;
  }
  return false;
}

// Days from 1970-01-01 to the proleptic Gregorian date y-m-d (era arithmetic: 400-year
// cycles of 146097 days, years counted from March so the leap day ends the year).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// YYYY-MM-DD -> days since the epoch.
bool TakeDate(std::string_view s, size_t* p, int64_t* days, std::string* error) {
  int64_t y = 0, m = 0, d = 0;
  if (!TakeDigits(s, p, 4, &y) || !Take(s, p, '-') || !TakeDigits(s, p, 2, &m) ||
      !Take(s, p, '-') || !TakeDigits(s, p, 2, &d)) {
    *error = "expected an integer or an ISO 8601 date YYYY-MM-DD";
    return false;
  }
  static constexpr int kDaysIn[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12 || d < 1 || d > kDaysIn[m - 1] || (m == 2 && d == 29 && !leap)) {
    *error = fmt::format("{:04}-{:02}-{:02} is not a calendar date", y, m, d);
    return false;
  }
  *days = DaysFromCivil(y, m, d);
  return true;
}

// HH:MM[:SS[.fraction of 1 to 9 digits]] -> nanoseconds since midnight.
bool TakeTime(std::string_view s, size_t* p, int64_t* nanos, std::string* error) {
  int64_t h = 0, mi = 0, sec = 0, frac = 0;
  if (!TakeDigits(s, p, 2, &h) || !Take(s, p, ':') || !TakeDigits(s, p, 2, &mi)) {
    *error = "expected an integer or an ISO 8601 time HH:MM[:SS[.fraction]]";
    return false;
  }
  if (Take(s, p, ':')) {
    if (!TakeDigits(s, p, 2, &sec)) {
      *error = "expected two digits of seconds";
      return false;
    }
    if (Take(s, p, '.') || Take(s, p, ',')) {
      int digits = 0;
      while (*p < s.size() && s[*p] >= '0' && s[*p] <= '9') {
        if (++digits > 9) {
          *error = "a fraction of a second has at most 9 digits";
          return false;
        }
        frac = frac * 10 + (s[(*p)++] - '0');
      }
      if (digits == 0) {
        *error = "expected digits after the decimal point";
        return false;
      }
      for (int i = digits; i < 9; ++i) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || sec > 59) {
    *error = fmt::format("{:02}:{:02}:{:02} is not a time of day", h, mi, sec);
    return false;
  }
  *nanos = ((h * 60 + mi) * 60 + sec) * 1000000000 + frac;
  return true;
}

// Z, +HH, +HHMM or +HH:MM (or -) -> seconds east of UTC.
bool TakeOffset(std::string_view s, size_t* p, int64_t* seconds, std::string* error) {
  if (Take(s, p, 'Z') || Take(s, p, 'z')) {
    *seconds = 0;
    return true;
  }
  const bool minus = *p < s.size() && s[*p] == '-';
  if (!Take(s, p, '+') && !Take(s, p, '-')) {
    *error = "expected Z or a UTC offset +HH:MM after the time";
    return false;
  }
  int64_t h = 0, m = 0;
  if (!TakeDigits(s, p, 2, &h)) {
    *error = "expected a UTC offset +HH[:MM]";
    return false;
  }
  const bool colon = Take(s, p, ':');
  if ((colon || *p < s.size()) && !TakeDigits(s, p, 2, &m)) {
    *error = "expected a UTC offset +HH[:MM]";
    return false;
  }
  if (h > 23 || m > 59) {
    *error = "the UTC offset is out of range";
    return false;
  }
  *seconds = (minus ? -1 : 1) * (h * 3600 + m * 60);
  return true;
}

int64_t NanosPerUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 1000000000;
    case TimeUnit::kMilli:
      return 1000000;
    case TimeUnit::kMicro:
      return 1000;
    case TimeUnit::kNano:
      return 1;
  }
  return 1;
}

// Nanoseconds -> the unit, refusing a fraction the unit cannot hold or an int64 overflow.
std::optional<int64_t> InUnit(__int128 nanos, TimeUnit unit, std::string* error) {
  const int64_t per = NanosPerUnit(unit);
  if (nanos % per != 0) {
    *error = fmt::format("the fraction of a second is finer than the type's unit ({})",
                         TimeUnitName(unit));
    return std::nullopt;
  }
  const __int128 v = nanos / per;
  if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()) {
    *error = "out of the type's range";
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

// The value of ISO 8601 text `s` for a date, time or timestamp type, in the type's unit.
std::optional<int64_t> ParseIsoTemporal(const DataType& type, std::string_view s,
                                        std::string* error) {
  size_t p = 0;
  int64_t days = 0;
  int64_t nanos = 0;
  int64_t offset = 0;
  switch (type.id()) {
    case TypeId::kDate32:
    case TypeId::kDate64:
      if (!TakeDate(s, &p, &days, error)) return std::nullopt;
      break;
    case TypeId::kTime32:
    case TypeId::kTime64:
      if (!TakeTime(s, &p, &nanos, error)) return std::nullopt;
      break;
    case TypeId::kTimestamp: {
      if (!TakeDate(s, &p, &days, error)) {
        *error = "expected an integer or an ISO 8601 timestamp YYYY-MM-DD[THH:MM:SS[.fraction]]";
        return std::nullopt;
      }
      if (p < s.size() && (s[p] == 'T' || s[p] == 't' || s[p] == ' ')) {
        ++p;
        if (!TakeTime(s, &p, &nanos, error)) return std::nullopt;
        if (p < s.size()) {
          if (!TakeOffset(s, &p, &offset, error)) return std::nullopt;
          if (type.timezone().empty()) {
            *error = "the text has a UTC offset, but the column is a timestamp without time zone";
            return std::nullopt;
          }
        }
      }
      break;
    }
    default:
      *error = "not a temporal type";
      return std::nullopt;
  }
  if (p != s.size()) {
    *error = fmt::format("unexpected '{}' at character {}", Excerpt(s.substr(p)), p + 1);
    return std::nullopt;
  }
  switch (type.id()) {
    case TypeId::kDate32:
      return days;
    case TypeId::kDate64:
      return days * 86400000;
    case TypeId::kTime32:
    case TypeId::kTime64:
      return InUnit(nanos, type.unit(), error);
    default:
      return InUnit(static_cast<__int128>(days) * 86400 * 1000000000 + nanos -
                        static_cast<__int128>(offset) * 1000000000,
                    type.unit(), error);
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

  // The first of int64, float64, boolean, date32, timestamp[us], timestamp[us, UTC] (when a
  // value has a UTC offset; values without one are then read as UTC), timestamp[ns] (naive,
  // then UTC) and utf8 that holds every non-empty cell. A number too
  // large for int64 and float64 in an otherwise numeric column is refused by name: reading
  // the column as float64 (or the value as infinity) would change the data without a word.
  Result<DataTypePtr> InferType() const {
    int64_t i = 0;
    double d = 0;
    bool b = false;
    std::string why;
    if (AllParse([](std::string_view) { return false; })) return utf8();  // no value to go by
    if (AllParse([&](std::string_view s) { return ParseInt(s, &i); })) return int64();
    const auto number = [&](std::string_view s, bool* int_range, bool* float_range) {
      const bool is_int = ParseInt(s, &i, int_range);
      return ParseFloat(s, &d, float_range) || is_int;
    };
    if (AllParse([&](std::string_view s) {
          bool int_range = false;
          bool float_range = false;
          return number(s, &int_range, &float_range) || float_range;
        })) {
      for (int64_t r = 0; r < table_.num_rows(); ++r) {
        bool int_range = false;
        bool float_range = false;
        if (cell(r).text.empty()) continue;
        number(cell(r).text, &int_range, &float_range);
        if (int_range) {
          return BadCell(r, *int64(), "beyond int64's range; give the column a type with "
                                      "--schema (uint64, float64, decimal128 or utf8)");
        }
        if (float_range) {
          return BadCell(r, *float64(), "beyond float64's range; give the column a type with "
                                        "--schema (utf8 or decimal128 keeps the digits)");
        }
      }
      return float64();
    }
    if (AllParse([&](std::string_view s) { return ParseBool(s, &b); })) return boolean();
    const auto all_temporal = [&](const DataTypePtr& type) {
      return AllParse([&](std::string_view s) { return ParseIsoTemporal(*type, s, &why).has_value(); });
    };
    for (const DataTypePtr& type :
         {date32(), timestamp(TimeUnit::kMicro), timestamp(TimeUnit::kMicro, "UTC"),
          timestamp(TimeUnit::kNano), timestamp(TimeUnit::kNano, "UTC")}) {
      if (all_temporal(type)) return type;
    }
    return utf8();
  }

  Result<ArrayPtr> Read(const DataTypePtr& type) const {
    switch (type->id()) {
      case TypeId::kBool:
        return ReadWith<BooleanBuilder>(type, [](std::string_view s, BooleanBuilder* b, bool* ok, std::string*) {
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
        return ReadWith<UInt16Builder>(type, [](std::string_view s, UInt16Builder* b, bool* ok, std::string*) {
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
      case TypeId::kDate32:
      case TypeId::kTime32:
        return ReadTemporal<int32_t>(type);
      case TypeId::kDate64:
      case TypeId::kTime64:
      case TypeId::kTimestamp:
        return ReadTemporal<int64_t>(type);
      default:
        return ReadThroughJson(type);
    }
  }

 private:
  // Empty cells are null; `append(text, builder, &ok, &why)` appends a parsed value or leaves
  // ok false (why, when set, says what is wrong with the cell).
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
      std::string why;
      LANCE_RETURN_NOT_OK(append(s, &builder, &ok, &why));
      if (!ok) return BadCell(r, *type, why);
    }
    return builder.Finish();
  }

  template <typename T>
  Result<ArrayPtr> ReadNumber(const DataTypePtr& type) const {
    return ReadWith<NumericBuilder<T>>(type, [](std::string_view s, NumericBuilder<T>* b, bool* ok, std::string* why) {
      T v{};
      bool out_of_range = false;
      if constexpr (std::is_floating_point_v<T>) {
        *ok = ParseFloat(s, &v, &out_of_range);
      } else {
        *ok = ParseInt(s, &v, &out_of_range);
      }
      if (out_of_range) *why = "beyond the type's range";
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

  // An integer in the type's unit (as canonical JSON writes it) or ISO 8601 text.
  template <typename T>
  Result<ArrayPtr> ReadTemporal(const DataTypePtr& type) const {
    return ReadWith<NumericBuilder<T>>(
        type, [&type](std::string_view s, NumericBuilder<T>* b, bool* ok, std::string* why) {
          T v{};
          if (ParseInt(s, &v)) {
            *ok = true;
            return b->Append(v);
          }
          const std::optional<int64_t> x = ParseIsoTemporal(*type, s, why);
          if (!x) return Status::OK();
          if (*x < std::numeric_limits<T>::min() || *x > std::numeric_limits<T>::max()) {
            *why = "out of the type's range";
            return Status::OK();
          }
          *ok = true;
          return b->Append(static_cast<T>(*x));
        });
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
  if (Status d = CheckCsvDelimiter(options.delimiter); !d.ok()) {
    return Status::InvalidArgument("{}: {}", options.what, d.message());
  }
  LANCE_RETURN_NOT_OK(Tokenizer(text, options.what, options.delimiter, options.line_offset).Run(&table));
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  if (options.schema == nullptr) {
    for (size_t c = 0; c < table.header.size(); ++c) {
      ColumnReader reader(table, c, options.what);
      LANCE_ASSIGN_OR_RAISE(DataTypePtr type, reader.InferType());
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
