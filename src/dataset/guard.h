// The guard every public method of dataset/ runs its body under: no exception leaves the
// library (std::bad_alloc becomes OutOfMemory, anything else Internal naming what was thrown).
#pragma once

#include <exception>
#include <new>
#include <string_view>
#include <type_traits>

#include "lance/core/result.h"
#include "lance/core/status.h"

namespace lance::dataset::internal {

// Runs `body` (returning Status or Result<T>) and turns an exception into its Status; `what`
// names the operation in the message.
template <typename F>
auto Guarded(std::string_view what, F&& body) noexcept -> decltype(body()) {
  using R = decltype(body());
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return R(Status::OutOfMemory("{}: out of memory", what));
  } catch (const std::exception& e) {
    return R(Status::Internal("{}: unexpected exception: {}", what, e.what()));
  } catch (...) {
    return R(Status::Internal("{}: unexpected exception of unknown type", what));
  }
}

}  // namespace lance::dataset::internal
