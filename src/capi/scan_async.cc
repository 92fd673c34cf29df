// The scanner's asynchronous C functions: lance_scanner_scan_async (the scan opened on a
// thread of its own, the stream handed to the callback on the dispatcher thread) and
// lance_scanner_poll_next (the scanner's own scan read ahead by a BatchPump).
#include <cstdlib>
#include <cstring>
#include <thread>

#include "capi/dispatcher.h"
#include "capi/error.h"
#include "capi/scanner_handle.h"
#include "lance/columnar/c_bridge.h"
#include "lance/lance.h"

using namespace lance::capi;

namespace {

// Calls `callback` on the dispatcher thread with -1, `error` pending on that thread.
void DispatchFailure(LanceCallback callback, void* ctx, lance::Status error) {
  Dispatch([callback, ctx, error = std::move(error)] {
    SetError(error);
    callback(ctx, -1, nullptr);
  });
}

// Opens the scan and calls back with its stream (malloc'ed; the callback owns it).
void ScanAndCallBack(const ScanConfig& config, LanceCallback callback, void* ctx) {
  auto opened = Guard<lance::Result<std::unique_ptr<lance::RecordBatchReader>>>(
      lance::Status::Internal("internal error while opening the scan"),
      [&] { return OpenScan(config); });
  if (!opened.ok()) return DispatchFailure(callback, ctx, opened.status());
  auto* stream = static_cast<ArrowArrayStream*>(std::malloc(sizeof(ArrowArrayStream)));
  if (stream == nullptr) return DispatchFailure(callback, ctx, lance::Status::OutOfMemory("out of memory"));
  std::memset(stream, 0, sizeof(*stream));
  const lance::Status st = lance::ExportRecordBatchReader(std::move(opened).ValueOrDie(), stream);
  if (!st.ok()) {
    std::free(stream);
    return DispatchFailure(callback, ctx, st);
  }
  Dispatch([callback, ctx, stream] { callback(ctx, 0, stream); });
}

}  // namespace

extern "C" {

void lance_scanner_scan_async(const LanceScanner* scanner, LanceCallback callback,
                              void* callback_ctx) {
  Guard<int>(0, [&] {
    if (callback == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "callback must not be NULL");
      return 0;
    }
    if (scanner == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
      DispatchFailure(callback, callback_ctx, Invalid("scanner is NULL"));
      return 0;
    }
    // The settings are captured now: the scanner may be closed as soon as this returns.
    std::thread([config = scanner->config, callback, callback_ctx] {
      try {
        ScanAndCallBack(config, callback, callback_ctx);
      } catch (...) {
        // Dispatch itself failed (no dispatcher thread): there is no thread to call back on.
      }
    }).detach();
    return 0;
  });
}

LancePollStatus lance_scanner_poll_next(LanceScanner* scanner, LanceWaker waker, void* waker_ctx,
                                        LanceBatch** out) {
  return Guard<LancePollStatus>(LANCE_POLL_ERROR, [&]() -> LancePollStatus {
    if (scanner == nullptr || out == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "scanner and out must not be NULL");
      return LANCE_POLL_ERROR;
    }
    *out = nullptr;
    if (!scanner->pump) {
      // A scan lance_scanner_next began continues in the background; else it starts there.
      auto begun = std::make_shared<std::unique_ptr<lance::RecordBatchReader>>(std::move(scanner->reader));
      ScanConfig config = scanner->config;
      scanner->pump = std::make_unique<BatchPump>(
          [begun, config]() -> lance::Result<std::unique_ptr<lance::RecordBatchReader>> {
            if (*begun) return std::move(*begun);
            return OpenScan(config);
          });
    }
    lance::RecordBatchPtr batch;
    lance::Status error;
    std::function<void()> wake;
    if (waker != nullptr) wake = [waker, waker_ctx] { waker(waker_ctx); };
    switch (scanner->pump->TryNext(&batch, &error, std::move(wake))) {
      case BatchPump::Poll::kReady:
        *out = new LanceBatch{std::move(batch)};
        ClearError();
        return LANCE_POLL_READY;
      case BatchPump::Poll::kPending:
        ClearError();
        return LANCE_POLL_PENDING;
      case BatchPump::Poll::kFinished:
        ClearError();
        return LANCE_POLL_FINISHED;
      case BatchPump::Poll::kError:
        SetError(error);
        return LANCE_POLL_ERROR;
    }
    return LANCE_POLL_ERROR;
  });
}

}  // extern "C"
