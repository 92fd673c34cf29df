// Numeric options are range-checked where the command line is parsed, before any command
// runs: a value outside the option's range, or anything but plain decimal digits, is a usage
// error that names the option, the value and the range (issue 15: negative versions meant
// "latest", 2^64 was clamped, --limit -1 meant "no limit").
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace lance::cli {

namespace {

struct Range {
  std::string_view option;
  int64_t min;
  int64_t max;
  std::string_view skip_command;  // a command where the option is not a number ("" none)
};

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Every numeric option of every command, by name.
constexpr Range kRanges[] = {
    {"--version", 1, kMax, "file write"},  // `file write --version` is a format, 2.1 / 2.2
    {"--limit", 0, kMax, ""},
    {"--offset", 0, kMax, ""},
    {"--batch-size", 1, kMax, ""},
    {"--max-rows-per-file", 1, kMax, ""},
    {"--target-rows-per-fragment", 1, kMax, ""},
    {"--keep", 1, kMax, ""},
    {"--max-page-bytes", 1, kMax, ""},
    {"--input-batch-bytes", 1, kMax, ""},
    {"-k", 1, kMax, ""},
    {"--threads", 1, 1024, ""},
    {"--ngram-min", 1, std::numeric_limits<uint32_t>::max(), ""},
    {"--ngram-max", 1, std::numeric_limits<uint32_t>::max(), ""},
};

CLI::Validator RangeValidator(const Range& r) {
  const std::string name(r.option);
  const int64_t min = r.min, max = r.max;
  return CLI::Validator(
      [name, min, max](std::string& s) -> std::string {
        int64_t v = 0;
        const char* end = s.data() + s.size();
        const auto [p, ec] = std::from_chars(s.data(), end, v);
        const bool digits = !s.empty() && s[0] != '+' && p == end;
        if (!digits && ec != std::errc::result_out_of_range) {
          return "'" + s + "' is not an integer (" + name + " takes " + std::to_string(min) +
                 ".." + std::to_string(max) + ")";
        }
        if (ec == std::errc::result_out_of_range || v < min || v > max) {
          return s + " is out of range (" + name + " takes " + std::to_string(min) + ".." +
                 std::to_string(max) + ")";
        }
        return std::string();
      },
      "INT in [" + std::to_string(min) + ".." + std::to_string(max) + "]");
}

void Apply(CLI::App* app, const std::string& path) {
  // The top level's --version is the version flag.
  for (CLI::Option* opt : path.empty() ? std::vector<CLI::Option*>{} : app->get_options()) {
    for (const Range& r : kRanges) {
      if (path == r.skip_command) continue;
      for (const std::string& n : opt->get_lnames()) {
        if ("--" + n == r.option) opt->check(RangeValidator(r));
      }
      for (const std::string& n : opt->get_snames()) {
        if ("-" + n == r.option) opt->check(RangeValidator(r));
      }
    }
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) {
    Apply(sub, path.empty() ? sub->get_name() : path + " " + sub->get_name());
  }
}

}  // namespace

void AddNumericRanges(CLI::App& app) { Apply(&app, ""); }

}  // namespace lance::cli
