#include "lance/core/status.h"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace lance {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kCommitConflict: return "CommitConflict";
    case StatusCode::kFenced: return "Fenced";
    case StatusCode::kCorruption: return "Corruption";
    case StatusCode::kIOError: return "IOError";
    case StatusCode::kNotSupported: return "NotSupported";
    case StatusCode::kCancelled: return "Cancelled";
    case StatusCode::kInternal: return "Internal";
    case StatusCode::kOutOfMemory: return "OutOfMemory";
  }
  return "Unknown";
}

namespace status_detail {

namespace {

// One placeholder's text: `spec` is what follows the ':' (empty for "{}").
void AppendArg(std::string* out, const MessageArg& arg, std::string_view spec) {
  const std::string f = spec.empty() ? std::string("{}") : fmt::format("{{:{}}}", spec);
  auto put = [&](const auto& v) {
    try {
      out->append(fmt::format(fmt::runtime(f), v));
    } catch (const fmt::format_error&) {
      out->append(fmt::format("{}", v));  // a spec that does not fit the value: plain text
    }
  };
  switch (arg.kind()) {
    case MessageArg::Kind::kSigned: put(arg.as_signed()); break;
    case MessageArg::Kind::kUnsigned: put(arg.as_unsigned()); break;
    case MessageArg::Kind::kDouble: put(arg.as_double()); break;
    case MessageArg::Kind::kBool: put(arg.as_bool()); break;
    case MessageArg::Kind::kChar: put(arg.as_char()); break;
    case MessageArg::Kind::kString: put(arg.as_string()); break;
    case MessageArg::Kind::kPointer: put(arg.as_pointer()); break;
  }
}

}  // namespace

std::string FormatMessage(std::string_view format, std::initializer_list<MessageArg> args) {
  std::string out;
  out.reserve(format.size() + 16 * args.size());
  const MessageArg* next = args.begin();
  for (size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      out.push_back(c);
      ++i;
      continue;
    }
    if (c == '{') {
      const size_t close = format.find('}', i + 1);
      if (close != std::string_view::npos && next != args.end()) {
        std::string_view inner = format.substr(i + 1, close - i - 1);
        if (!inner.empty() && inner.front() == ':') inner.remove_prefix(1);
        AppendArg(&out, *next++, inner);
        i = close;
        continue;
      }
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace status_detail

Status Status::Make(StatusCode code, std::string_view format,
                    std::initializer_list<status_detail::MessageArg> args, bool retryable) {
  Status st(code, status_detail::FormatMessage(format, args));
  if (retryable && st.state_) {
    st.state_ = std::make_shared<const State>(State{code, st.state_->message, true});
  }
  return st;
}

Status::Status(StatusCode code, std::string message) {
  if (code != StatusCode::kOk) {
    state_ = std::make_shared<const State>(State{code, std::move(message)});
  }
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return state_ ? state_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code()));
  out += ": ";
  out += state_->message;
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  Status out(code(), fmt::format("{}: {}", context, state_->message));
  if (state_->retryable) {
    out.state_ = std::make_shared<const State>(State{code(), out.state_->message, true});
  }
  return out;
}

void Status::Abort(std::string_view where) const {
  if (ok()) return;
  std::fprintf(stderr, "lance: fatal error%s%.*s: %s\n", where.empty() ? "" : " in ",
               static_cast<int>(where.size()), where.data(), ToString().c_str());
  std::abort();
}

}  // namespace lance
