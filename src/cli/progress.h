// Progress of long commands (create / append / overwrite from a big input, create-index,
// compact) on stderr -- never stdout, which holds the command's result. Shown when stderr is a
// terminal (one line rewritten in place) or when --progress is given (one line per update,
// for logs); otherwise silent.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

namespace lance::cli {

class Progress {
 public:
  // `what` names the operation in every line ("create", "create-index", ...).
  Progress(std::string what, bool requested)
      : what_(std::move(what)), tty_(::isatty(STDERR_FILENO) == 1), on_(requested || tty_),
        start_(Clock::now()), last_(start_) {}
  ~Progress() {
    if (on_ && tty_ && shown_) std::fputc('\n', stderr);
  }
  bool on() const { return on_; }

  // Reports `text` (e.g. "1200000 rows, 43% of the input"), at most about once a second
  // unless `force`.
  void Update(const std::string& text, bool force = false) {
    if (!on_) return;
    const auto now = Clock::now();
    if (!force && now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, tty_ ? "\r%s: %s (%.1f s)\033[K" : "%s: %s (%.1f s)\n", what_.c_str(),
                 text.c_str(), s);
    std::fflush(stderr);
    shown_ = true;
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  bool tty_;
  bool on_;
  Clock::time_point start_;
  Clock::time_point last_;
  bool shown_ = false;
};

inline void AddProgressFlag(CLI::App* sub, bool* progress) {
  sub->add_flag("--progress", *progress,
                "Report progress on stderr even when it is not a terminal (stdout keeps the result)");
}

}  // namespace lance::cli
