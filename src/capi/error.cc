#include "capi/error.h"

#include <cstdlib>
#include <cstring>

namespace lance::capi {

namespace {

struct LastError {
  bool pending = false;
  LanceErrorCode code = LANCE_OK;
  std::string message;
};

LastError& Tls() {
  thread_local LastError error;
  return error;
}

}  // namespace

LanceErrorCode CodeOf(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return LANCE_OK;
    case StatusCode::kInvalidArgument: return LANCE_ERR_INVALID_ARGUMENT;
    case StatusCode::kNotFound: return LANCE_ERR_NOT_FOUND;
    case StatusCode::kAlreadyExists: return LANCE_ERR_DATASET_ALREADY_EXISTS;
    case StatusCode::kCommitConflict:
    case StatusCode::kFenced: return LANCE_ERR_COMMIT_CONFLICT;
    case StatusCode::kIOError: return LANCE_ERR_IO;
    case StatusCode::kNotSupported: return LANCE_ERR_NOT_SUPPORTED;
    default: return LANCE_ERR_INTERNAL;
  }
}

void SetError(LanceErrorCode code, std::string_view message) noexcept {
  LastError& e = Tls();
  e.pending = true;
  e.code = code;
  try {
    if (message.empty()) {
      e.message = "unknown error";
    } else {
      e.message.assign(message.data(), message.size());
    }
  } catch (...) {
    e.message.clear();  // no allocation; the message getter then says what happened
  }
}

void SetError(const Status& status) noexcept {
  if (status.ok()) {
    SetError(LANCE_ERR_INTERNAL, "internal error: an error was reported without a cause");
    return;
  }
  SetError(CodeOf(status), status.message());
}

void ClearError() noexcept {
  LastError& e = Tls();
  e.pending = false;
  e.code = LANCE_OK;
  e.message.clear();
}

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message));
}

namespace detail {
void SetExceptionError(const char* what) noexcept {
  try {
    SetError(LANCE_ERR_INTERNAL, std::string("internal error: ") + (what ? what : "exception"));
  } catch (...) {
    SetError(LANCE_ERR_INTERNAL, "internal error: out of memory");
  }
}
}  // namespace detail

}  // namespace lance::capi

extern "C" {

LanceErrorCode lance_last_error_code(void) {
  const auto& e = lance::capi::Tls();
  return e.pending ? e.code : LANCE_OK;
}

const char* lance_last_error_message(void) {
  auto& e = lance::capi::Tls();
  if (!e.pending) return nullptr;
  // An empty message means the message could not be stored (SetError never stores "").
  const char* fallback = "error message unavailable (out of memory)";
  const char* src = e.message.empty() ? fallback : e.message.c_str();
  const size_t n = e.message.empty() ? std::strlen(fallback) : e.message.size();
  char* out = static_cast<char*>(std::malloc(n + 1));
  if (out != nullptr) {
    std::memcpy(out, src, n);
    out[n] = '\0';
  }
  lance::capi::ClearError();
  return out;
}

void lance_free_string(const char* s) { std::free(const_cast<char*>(s)); }

}  // extern "C"
