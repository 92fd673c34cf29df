// LanceScanner and LanceBatch: a scanner's settings and its own scan (read by lance_scanner_next
// on the caller's thread, or by a BatchPump once lance_scanner_poll_next was used), and one
// batch handed out.
#pragma once

#include <memory>

#include "capi/batch_pump.h"
#include "capi/scan_config.h"
#include "lance/columnar/record_batch_reader.h"

struct LanceScanner {
  lance::capi::ScanConfig config;
  std::unique_ptr<lance::RecordBatchReader> reader;  // the own scan, before any poll
  std::unique_ptr<lance::capi::BatchPump> pump;      // the own scan, once polled
};

struct LanceBatch {
  lance::RecordBatchPtr batch;
};
