// Status: the outcome of a fallible operation in lance-cpp.
//
// A Status is either OK (no allocation) or carries a code naming the failure mode of the
// format and a message saying what went wrong first, then the values (path, version, field,
// expected vs found). Statuses are values: cheap to move, safe to copy, immutable once built,
// and so safe to share between threads.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

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

namespace status_detail {

// One argument of a status message: the formatting factories below take any mix of integers,
// floating-point numbers, bools, characters, strings and pointers, and the message text is
// built inside the library (so this header needs no formatting library). Placeholders are
// "{}" or "{:spec}" with the usual format-spec grammar ("{:#018x}", "{:.3f}"); "{{" and "}}"
// are literal braces.
class MessageArg {
 public:
  enum class Kind { kSigned, kUnsigned, kDouble, kBool, kChar, kString, kPointer };

  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> &&
                                                    !std::is_same_v<T, bool> &&
                                                    !std::is_same_v<T, char>>>
  MessageArg(T v) {  // NOLINT(runtime/explicit)
    if constexpr (std::is_signed_v<T>) {
      kind_ = Kind::kSigned;
      i_ = static_cast<long long>(v);
    } else {
      kind_ = Kind::kUnsigned;
      u_ = static_cast<unsigned long long>(v);
    }
  }
  MessageArg(bool v) : kind_(Kind::kBool), b_(v) {}             // NOLINT
  MessageArg(char v) : kind_(Kind::kChar), c_(v) {}             // NOLINT
  MessageArg(double v) : kind_(Kind::kDouble), d_(v) {}         // NOLINT
  MessageArg(float v) : kind_(Kind::kDouble), d_(v) {}          // NOLINT
  MessageArg(std::string_view v) : kind_(Kind::kString), s_(v) {}  // NOLINT
  MessageArg(const std::string& v) : kind_(Kind::kString), s_(v) {}  // NOLINT
  MessageArg(const char* v) : kind_(Kind::kString), s_(v ? v : "(null)") {}  // NOLINT
  MessageArg(const void* v) : kind_(Kind::kPointer), p_(v) {}   // NOLINT
  // Enumerations print as their underlying integer.
  template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>, typename = void>
  MessageArg(E v) : MessageArg(static_cast<std::underlying_type_t<E>>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  long long as_signed() const { return i_; }
  unsigned long long as_unsigned() const { return u_; }
  double as_double() const { return d_; }
  bool as_bool() const { return b_; }
  char as_char() const { return c_; }
  std::string_view as_string() const { return s_; }
  const void* as_pointer() const { return p_; }

 private:
  Kind kind_ = Kind::kSigned;
  union {
    long long i_ = 0;
    unsigned long long u_;
    double d_;
    bool b_;
    char c_;
    const void* p_;
  };
  std::string_view s_;
};

// `format` with its placeholders replaced by `args` in order (see MessageArg). A placeholder
// without an argument is kept as written; surplus arguments are ignored.
std::string FormatMessage(std::string_view format, std::initializer_list<MessageArg> args);

}  // namespace status_detail

// Returns the stable human-readable name of a code ("Corruption", "NotFound", ...).
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message);

  static Status OK() { return Status(); }

  template <typename... Args>
  static Status InvalidArgument(std::string_view format, const Args&... args) {
    return Make(StatusCode::kInvalidArgument, format, {status_detail::MessageArg(args)...});
  }
  template <typename... Args>
  static Status NotFound(std::string_view format, const Args&... args) {
    return Make(StatusCode::kNotFound, format, {status_detail::MessageArg(args)...});
  }
  template <typename... Args>
  static Status AlreadyExists(std::string_view format, const Args&... args) {
    return Make(StatusCode::kAlreadyExists, format, {status_detail::MessageArg(args)...});
  }
  // A commit lost to a concurrent one that it cannot be rebased over. Not retryable: running
  // the operation again on the new version would conflict again (e.g. after an overwrite).
  template <typename... Args>
  static Status CommitConflict(std::string_view format, const Args&... args) {
    return Make(StatusCode::kCommitConflict, format, {status_detail::MessageArg(args)...});
  }
  // A commit conflict that running the whole operation again on the latest version may
  // resolve (e.g. a concurrent delete of the same rows). IsRetryable() is true.
  template <typename... Args>
  static Status RetryableCommitConflict(std::string_view format, const Args&... args) {
    return Make(StatusCode::kCommitConflict, format, {status_detail::MessageArg(args)...},
                /*retryable=*/true);
  }
  template <typename... Args>
  static Status Fenced(std::string_view format, const Args&... args) {
    return Make(StatusCode::kFenced, format, {status_detail::MessageArg(args)...});
  }
  template <typename... Args>
  static Status Corruption(std::string_view format, const Args&... args) {
    return Make(StatusCode::kCorruption, format, {status_detail::MessageArg(args)...});
  }
  template <typename... Args>
  static Status IOError(std::string_view format, const Args&... args) {
    return Make(StatusCode::kIOError, format, {status_detail::MessageArg(args)...});
  }
  template <typename... Args>
  static Status NotSupported(std::string_view format, const Args&... args) {
    return Make(StatusCode::kNotSupported, format, {status_detail::MessageArg(args)...});
  }
  template <typename... Args>
  static Status Cancelled(std::string_view format, const Args&... args) {
    return Make(StatusCode::kCancelled, format, {status_detail::MessageArg(args)...});
  }
  template <typename... Args>
  static Status Internal(std::string_view format, const Args&... args) {
    return Make(StatusCode::kInternal, format, {status_detail::MessageArg(args)...});
  }
  template <typename... Args>
  static Status OutOfMemory(std::string_view format, const Args&... args) {
    return Make(StatusCode::kOutOfMemory, format, {status_detail::MessageArg(args)...});
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
  bool IsOutOfMemory() const { return code() == StatusCode::kOutOfMemory; }
  // True for a CommitConflict made by RetryableCommitConflict: the operation may succeed if
  // run again from the latest version. False for every other status.
  bool IsRetryable() const { return state_ != nullptr && state_->retryable; }

  // "Corruption: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>"; OK stays OK.
  Status WithContext(std::string_view context) const;

  // Aborts the process with the message if not OK. For tests, tools and impossible states only.
  void Abort(std::string_view where = {}) const;

 private:
  static Status Make(StatusCode code, std::string_view format,
                     std::initializer_list<status_detail::MessageArg> args,
                     bool retryable = false);

  struct State {
    StatusCode code;
    std::string message;
    bool retryable = false;
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
