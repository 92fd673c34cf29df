// Result<T>: either a value of T or a non-OK Status.
//
// The value-or-error type returned by every fallible lance-cpp call that produces something.
// Like Status it is a plain value: thread-safe as far as T is.
#pragma once

#include <cassert>
#include <new>
#include <type_traits>
#include <utility>
#include <variant>

#include "lance/core/status.h"

namespace lance {

template <typename T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  // REQUIRES: !status.ok(). An OK status without a value becomes an Internal error.
  Result(Status status)  // NOLINT(runtime/explicit): implicit by design, as `return status;`
      : v_(status.ok() ? Status::Internal("Result constructed from an OK Status") : std::move(status)) {}
  Result(const T& value) : v_(value) {}  // NOLINT
  Result(T&& value) : v_(std::move(value)) {}  // NOLINT
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, T> &&
                                        !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, Result<T>>>>
  Result(U&& value) : v_(T(std::forward<U>(value))) {}  // NOLINT

  bool ok() const { return v_.index() == 1; }
  const Status& status() const& {
    static const Status kOk;
    return ok() ? kOk : std::get<0>(v_);
  }
  Status status() && { return ok() ? Status::OK() : std::move(std::get<0>(v_)); }

  // REQUIRES: ok().
  const T& ValueOrDie() const& {
    if (!ok()) std::get<0>(v_).Abort("Result::ValueOrDie");
    return std::get<1>(v_);
  }
  T& ValueOrDie() & {
    if (!ok()) std::get<0>(v_).Abort("Result::ValueOrDie");
    return std::get<1>(v_);
  }
  T ValueOrDie() && {
    if (!ok()) std::get<0>(v_).Abort("Result::ValueOrDie");
    return std::move(std::get<1>(v_));
  }
  const T& operator*() const& { return ValueOrDie(); }
  T& operator*() & { return ValueOrDie(); }
  T operator*() && { return std::move(*this).ValueOrDie(); }
  const T* operator->() const { return &ValueOrDie(); }
  T* operator->() { return &ValueOrDie(); }

  // Moves the value out. REQUIRES: ok().
  T MoveValueUnsafe() { return std::move(std::get<1>(v_)); }

  template <typename U>
  T ValueOr(U&& alternative) && {
    return ok() ? std::move(std::get<1>(v_)) : T(std::forward<U>(alternative));
  }

 private:
  std::variant<Status, T> v_;
};

namespace internal {
inline Status GenericToStatus(const Status& st) { return st; }
inline Status GenericToStatus(Status&& st) { return std::move(st); }
template <typename T>
Status GenericToStatus(const Result<T>& r) { return r.status(); }
template <typename T>
Status GenericToStatus(Result<T>&& r) { return std::move(r).status(); }
}  // namespace internal

}  // namespace lance

#define LANCE_ASSIGN_OR_RAISE_IMPL(result_name, lhs, rexpr) \
  auto&& result_name = (rexpr);                             \
  if (!result_name.ok()) return std::move(result_name).status(); \
  lhs = std::move(result_name).MoveValueUnsafe();

// Evaluates `rexpr` (a Result<T>); on error returns its Status, otherwise assigns the value
// to `lhs`, which may be a declaration (`auto x`) or an existing variable.
#define LANCE_ASSIGN_OR_RAISE(lhs, rexpr) \
  LANCE_ASSIGN_OR_RAISE_IMPL(LANCE_CONCAT(_lance_result_, __COUNTER__), lhs, rexpr)

// Like LANCE_RETURN_NOT_OK but accepts a Status or a Result.
#define LANCE_RETURN_IF_ERROR(expr)                                         \
  do {                                                                      \
    ::lance::Status _lance_st = ::lance::internal::GenericToStatus(expr);   \
    if (!_lance_st.ok()) return _lance_st;                                  \
  } while (false)
