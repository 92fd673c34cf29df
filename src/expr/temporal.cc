#include "expr/temporal.h"

#include <fmt/format.h>

namespace lance::expr {

namespace {

bool Digits(std::string_view s, size_t pos, size_t n, int64_t* out) {
  if (pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

unsigned DaysInMonth(int64_t y, unsigned m) {
  static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// Parses YYYY-MM-DD at the start of `s`; sets *used to the bytes consumed.
std::optional<int64_t> ParseDatePrefix(std::string_view s, size_t* used) {
  int64_t y = 0, m = 0, d = 0;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &m) ||
      s[7] != '-' || !Digits(s, 8, 2, &d)) {
    return std::nullopt;
  }
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m))) return std::nullopt;
  *used = 10;
  return DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

// Howard Hinnant's days_from_civil algorithm (public domain arithmetic).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

std::optional<int64_t> ParseDate(std::string_view text) {
  text = Trim(text);
  size_t used = 0;
  auto d = ParseDatePrefix(text, &used);
  if (!d || used != text.size()) return std::nullopt;
  return d;
}

std::optional<int64_t> ParseTimestampNs(std::string_view text) {
  text = Trim(text);
  size_t pos = 0;
  auto days = ParseDatePrefix(text, &pos);
  if (!days) return std::nullopt;
  int64_t ns = *days * 86400LL * 1000000000LL;
  if (pos == text.size()) return ns;
  if (text[pos] != 'T' && text[pos] != ' ') return std::nullopt;
  ++pos;
  int64_t h = 0, mi = 0, sec = 0;
  if (!Digits(text, pos, 2, &h) || pos + 2 >= text.size() || text[pos + 2] != ':' ||
      !Digits(text, pos + 3, 2, &mi)) {
    return std::nullopt;
  }
  pos += 5;
  if (pos < text.size() && text[pos] == ':') {
    if (!Digits(text, pos + 1, 2, &sec)) return std::nullopt;
    pos += 3;
  }
  if (h > 23 || mi > 59 || sec > 60) return std::nullopt;
  int64_t frac = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 9) {
        frac = frac * 10 + (text[pos] - '0');
        ++digits;
      }
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 9; ++digits) frac *= 10;
  }
  ns += ((h * 60 + mi) * 60 + sec) * 1000000000LL + frac;
  if (pos < text.size() && text[pos] == ' ') ++pos;
  if (pos == text.size()) return ns;
  if (text[pos] == 'Z' && pos + 1 == text.size()) return ns;
  if (text[pos] == '+' || text[pos] == '-') {
    const int64_t sign = text[pos] == '+' ? 1 : -1;
    int64_t oh = 0, om = 0;
    if (!Digits(text, pos + 1, 2, &oh)) return std::nullopt;
    size_t p = pos + 3;
    if (p < text.size() && text[p] == ':') ++p;
    if (p < text.size() && !Digits(text, p, 2, &om)) return std::nullopt;
    if (p < text.size()) p += 2;
    if (p != text.size()) return std::nullopt;
    return ns - sign * (oh * 60 + om) * 60 * 1000000000LL;
  }
  return std::nullopt;
}

std::string FormatDate(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

std::string FormatTimestampNs(int64_t ns) {
  const int64_t kDay = 86400LL * 1000000000LL;
  int64_t days = ns / kDay;
  int64_t rem = ns % kDay;
  if (rem < 0) {
    rem += kDay;
    --days;
  }
  const int64_t secs = rem / 1000000000LL;
  const int64_t frac = rem % 1000000000LL;
  std::string out = fmt::format("{}T{:02}:{:02}:{:02}", FormatDate(days), secs / 3600,
                                (secs / 60) % 60, secs % 60);
  if (frac != 0) {
    if (frac % 1000000 == 0) {
      out += fmt::format(".{:03}", frac / 1000000);
    } else if (frac % 1000 == 0) {
      out += fmt::format(".{:06}", frac / 1000);
    } else {
      out += fmt::format(".{:09}", frac);
    }
  }
  return out;
}

}  // namespace lance::expr
