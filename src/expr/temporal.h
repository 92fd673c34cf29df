// Dates and timestamps as text: the forms filters and CASTs accept.
//
// Dates are days since 1970-01-01 (proleptic Gregorian), timestamps nanoseconds since the
// epoch. Accepted text: `YYYY-MM-DD` for dates; for timestamps a date, optionally followed by
// `T` or a space, `HH:MM[:SS[.fraction]]` and an optional `Z` or `+HH:MM`/`-HH:MM` offset
// (the instant is then converted to UTC).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lance::expr {

int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);
std::optional<int64_t> ParseDate(std::string_view text);
std::optional<int64_t> ParseTimestampNs(std::string_view text);
std::string FormatDate(int64_t days);
// `YYYY-MM-DDTHH:MM:SS[.fraction]`, the fraction trimmed to whole milli/micro/nano digits.
std::string FormatTimestampNs(int64_t ns);

}  // namespace lance::expr
