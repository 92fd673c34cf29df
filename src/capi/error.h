// The C ABI's per-thread last error, and the guard every entry point runs its body in.
//
// lance-c keeps one pending error per thread: a failing call sets it, most succeeding calls
// clear it, lance_last_error_message() hands the text out and clears it. Entry points run their
// body through Guard(), which turns every C++ exception (std::bad_alloc included) into
// LANCE_ERR_INTERNAL so that nothing unwinds into C.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "lance/core/result.h"
#include "lance/lance.h"

namespace lance::capi {

// lance-c's code for a lance-cpp status: InvalidArgument, NotFound, AlreadyExists
// (DATASET_ALREADY_EXISTS), CommitConflict and Fenced (COMMIT_CONFLICT), IOError, NotSupported;
// everything else (Corruption, Internal, Cancelled, OutOfMemory) is LANCE_ERR_INTERNAL.
LanceErrorCode CodeOf(const Status& status);

// Sets the calling thread's pending error. Never throws (a message that cannot be stored is
// replaced by a fixed one).
void SetError(LanceErrorCode code, std::string_view message) noexcept;
// The status's code (CodeOf) and message.
void SetError(const Status& status) noexcept;
void ClearError() noexcept;
// An InvalidArgument status (the most common argument error of the C ABI).
Status Invalid(std::string message);

namespace detail {
void SetExceptionError(const char* what) noexcept;
}  // namespace detail

// Runs `body()` and returns what it returns; an exception becomes LANCE_ERR_INTERNAL (naming
// it) and `on_exception` is returned.
template <typename R, typename F>
R Guard(R on_exception, F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    detail::SetExceptionError("out of memory");
  } catch (const std::exception& e) {
    detail::SetExceptionError(e.what());
  } catch (...) {
    detail::SetExceptionError("unknown exception");
  }
  return on_exception;
}

// The usual shape of an int32_t entry point: `body()` returns a Status; OK clears the error
// and returns 0, an error sets it and returns -1.
template <typename F>
int32_t RunStatus(F&& body) noexcept {
  return Guard<int32_t>(-1, [&]() -> int32_t {
    const Status st = body();
    if (!st.ok()) {
      SetError(st);
      return -1;
    }
    ClearError();
    return 0;
  });
}

// The shape of an entry point returning a value (pointer or count): `body()` returns a
// Result<T>; OK clears the error, an error sets it and returns `on_error`.
template <typename T, typename F>
T RunResult(T on_error, F&& body) noexcept {
  return Guard<T>(on_error, [&]() -> T {
    Result<T> r = body();
    if (!r.ok()) {
      SetError(r.status());
      return on_error;
    }
    ClearError();
    return std::move(r).ValueOrDie();
  });
}

}  // namespace lance::capi
