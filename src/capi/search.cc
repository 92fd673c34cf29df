// The scanner's search settings: vector (k-NN) and full-text queries, their tuning knobs,
// index segments, and Substrait filters. lance_scanner_nearest records a k-NN query (the
// query layer's ScanOptions::nearest, applied with the knobs when the scan starts: see
// scan_config.cc); full-text search and Substrait filters check their arguments as lance-c
// does and then fail with LANCE_ERR_NOT_SUPPORTED.
#include <fmt/format.h>

#include <cstring>

#include "capi/c_args.h"
#include "capi/error.h"
#include "capi/scanner_handle.h"
#include "lance/columnar/float16.h"
#include "lance/lance.h"

namespace lance::capi {
namespace {

template <typename F>
int32_t Set(LanceScanner* scanner, F&& set) {
  return Guard<int32_t>(-1, [&]() -> int32_t {
    if (scanner == nullptr) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
      return -1;
    }
    set(scanner->config);
    ClearError();
    return 0;
  });
}

const char* ElementTypeName(int32_t t) {
  switch (t) {
    case LANCE_DTYPE_FLOAT32: return "float32";
    case LANCE_DTYPE_FLOAT16: return "float16";
    case LANCE_DTYPE_FLOAT64: return "float64";
    case LANCE_DTYPE_UINT8: return "uint8";
    case LANCE_DTYPE_INT8: return "int8";
    default: return nullptr;
  }
}

}  // namespace
}  // namespace lance::capi

using namespace lance::capi;

extern "C" {

int32_t lance_scanner_set_substrait_filter(LanceScanner* scanner, const uint8_t* bytes, size_t len) {
  return RunStatus([&]() -> lance::Status {
    if (scanner == nullptr) return Invalid("scanner is NULL");
    if (bytes == nullptr) return Invalid("bytes is NULL");
    if (len == 0) return Invalid("Substrait filter bytes must be non-empty");
    return lance::Status::NotSupported(
        "Substrait filters are not supported by lance-cpp ({} bytes given); pass the filter as SQL "
        "to lance_scanner_new",
        len);
  });
}

int32_t lance_scanner_nearest(LanceScanner* scanner, const char* column, const void* query_data,
                              size_t query_len, LanceDataType element_type, uint32_t k) {
  return RunStatus([&]() -> lance::Status {
    if (scanner == nullptr || column == nullptr || query_data == nullptr) {
      return Invalid("scanner, column, and query_data must not be NULL");
    }
    if (k == 0) return Invalid("k must be > 0");
    if (scanner->config.has_fts) {
      return Invalid("cannot call nearest after full_text_search; they are mutually exclusive");
    }
    LANCE_ASSIGN_OR_RAISE(auto col, OptionalString(column, "column"));
    const char* type = ElementTypeName(static_cast<int32_t>(element_type));
    if (type == nullptr) {
      return Invalid(fmt::format("invalid element_type: {}", static_cast<int>(element_type)));
    }
    // The query as float32 (the planner casts it to the column's element type as lance does).
    std::vector<float> q(query_len);
    for (size_t i = 0; i < query_len; ++i) {
      switch (static_cast<int32_t>(element_type)) {
        case LANCE_DTYPE_FLOAT32: q[i] = static_cast<const float*>(query_data)[i]; break;
        case LANCE_DTYPE_FLOAT64: q[i] = static_cast<float>(static_cast<const double*>(query_data)[i]); break;
        case LANCE_DTYPE_FLOAT16:
          q[i] = lance::HalfToFloat(static_cast<const uint16_t*>(query_data)[i]);
          break;
        case LANCE_DTYPE_UINT8: q[i] = static_cast<const uint8_t*>(query_data)[i]; break;
        default: q[i] = static_cast<const int8_t*>(query_data)[i]; break;
      }
    }
    if (!col) return Invalid("column must not be empty");
    lance::query::NearestOptions n;
    n.column = *col;
    n.query = std::move(q);
    n.k = k;
    scanner->config.nearest = std::move(n);
    scanner->config.has_nearest = true;
    return lance::Status::OK();
  });
}

int32_t lance_scanner_set_nprobes(LanceScanner* scanner, uint32_t n) {
  return Set(scanner, [&](ScanConfig& c) { c.nprobes = n; });
}

int32_t lance_scanner_set_refine_factor(LanceScanner* scanner, uint32_t f) {
  return Set(scanner, [&](ScanConfig& c) { c.refine_factor = f; });
}

int32_t lance_scanner_set_ef(LanceScanner* scanner, uint32_t e) {
  return Set(scanner, [&](ScanConfig& c) { c.ef = e; });
}

int32_t lance_scanner_set_metric(LanceScanner* scanner, LanceMetricType metric) {
  return Guard<int32_t>(-1, [&]() -> int32_t {
    const int m = static_cast<int>(metric);
    if (scanner != nullptr && (m < LANCE_METRIC_L2 || m > LANCE_METRIC_HAMMING)) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, fmt::format("invalid metric: {}", m));
      return -1;
    }
    return Set(scanner, [&](ScanConfig& c) { c.metric = m; });
  });
}

int32_t lance_scanner_set_use_index(LanceScanner* scanner, bool enable) {
  return Set(scanner, [&](ScanConfig& c) { c.use_index = enable; });
}

int32_t lance_scanner_set_prefilter(LanceScanner* scanner, bool enable) {
  return Set(scanner, [&](ScanConfig& c) { c.prefilter = enable; });
}

int32_t lance_scanner_set_index_segments(LanceScanner* scanner, const uint8_t* segment_uuids,
                                         size_t len) {
  return Guard<int32_t>(-1, [&]() -> int32_t {
    if (scanner != nullptr && segment_uuids == nullptr && len > 0) {
      SetError(LANCE_ERR_INVALID_ARGUMENT, "segment_uuids is NULL but len > 0");
      return -1;
    }
    return Set(scanner, [&](ScanConfig& c) {
      if (len == 0) {
        c.index_segments.reset();
        return;
      }
      std::vector<std::array<uint8_t, 16>> uuids(len);
      for (size_t i = 0; i < len; ++i) std::memcpy(uuids[i].data(), segment_uuids + i * 16, 16);
      c.index_segments = std::move(uuids);
    });
  });
}

int32_t lance_scanner_full_text_search(LanceScanner* scanner, const char* query,
                                       const char* const* columns, uint32_t max_fuzzy_distance) {
  return RunStatus([&]() -> lance::Status {
    if (scanner == nullptr || query == nullptr) return Invalid("scanner and query must not be NULL");
    if (scanner->config.has_nearest) {
      return Invalid("cannot call full_text_search after nearest; they are mutually exclusive");
    }
    LANCE_ASSIGN_OR_RAISE(auto q, OptionalString(query, "query"));
    LANCE_ASSIGN_OR_RAISE(auto cols, StringList(columns, "columns"));
    lance::query::FullTextQuery fts;
    fts.query = q.value_or("");
    // lance's MatchQuery defaults for the rest: at most 50 expansions, no fixed prefix
    fts.fuzziness = max_fuzzy_distance;
    if (cols) fts.columns = *cols;
    scanner->config.fts = std::move(fts);
    scanner->config.has_fts = true;
    return lance::Status::OK();
  });
}

}  // extern "C"
