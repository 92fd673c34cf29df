// Status: the outcome of a fallible operation in lance-cpp.
//
// A Status is either OK (no allocation) or carries a code naming the failure mode of the
// format and a message saying what went wrong first, then the values (path, version, field,
// expected vs found). Statuses are values: cheap to move, safe to copy, immutable once built,
// and so safe to share between threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace lance {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,
  kNotFound = 2,
  kAlreadyExists = 3,
  kCommitConflict = 4,
  kFenced = 5,
  kCorruption = 6,
  kIOError = 7,
  kNotSupported = 8,
  kCancelled = 9,
  kInternal = 10,
  kOutOfMemory = 11,
};

// Returns the stable human-readable name of a code ("Corruption", "NotFound", ...).
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }

  template <typename... Args>
  static Status InvalidArgument(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kInvalidArgument, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status NotFound(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kNotFound, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status AlreadyExists(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kAlreadyExists, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status CommitConflict(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kCommitConflict, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Fenced(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kFenced, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Corruption(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kCorruption, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status IOError(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kIOError, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status NotSupported(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kNotSupported, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Cancelled(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kCancelled, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status Internal(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kInternal, fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  static Status OutOfMemory(fmt::format_string<Args...> f, Args&&... args) {
    return Status(StatusCode::kOutOfMemory, fmt::format(f, std::forward<Args>(args)...));
  }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  // The message without the code name; empty for OK.
  const std::string& message() const;

  bool IsInvalidArgument() const { return code() == StatusCode::kInvalidArgument; }
  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsAlreadyExists() const { return code() == StatusCode::kAlreadyExists; }
  bool IsCommitConflict() const { return code() == StatusCode::kCommitConflict; }
  bool IsFenced() const { return code() == StatusCode::kFenced; }
  bool IsCorruption() const { return code() == StatusCode::kCorruption; }
  bool IsIOError() const { return code() == StatusCode::kIOError; }
  bool IsNotSupported() const { return code() == StatusCode::kNotSupported; }
  bool IsCancelled() const { return code() == StatusCode::kCancelled; }
  bool IsInternal() const { return code() == StatusCode::kInternal; }

  // "Corruption: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

  // Aborts the process with the message if not OK. For tests, tools and impossible states only.
  void Abort(std::string_view where = {}) const;

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  // shared_ptr keeps copies cheap; the state is never mutated after construction.
  std::shared_ptr<const State> state_;
};

}  // namespace lance

#define LANCE_CONCAT_INNER(a, b) a##b
#define LANCE_CONCAT(a, b) LANCE_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function when it is not OK.
#define LANCE_RETURN_NOT_OK(expr)                   \
  do {                                              \
    ::lance::Status _lance_st = (expr);             \
    if (!_lance_st.ok()) return _lance_st;          \
  } while (false)
