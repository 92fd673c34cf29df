// lance.hpp: a header-only C++17 wrapper over the C ABI of lance.h.
//
// The same classes and methods as lance-c's lance.hpp (lance::Dataset, lance::Scanner,
// lance::Batch, lance::Error, lance::write_fragments, ...), so C++ code written against lance-c
// builds unchanged. Handles are RAII (move-only) owners of the C handles; every failure of the
// C layer is thrown as lance::Error carrying the LanceErrorCode and the message. Data still
// crosses as Arrow C structs owned by the caller.
//
// Thread-safety: as the C handles (one call at a time per object; Dataset may be read from
// several threads).
#ifndef LANCE_HPP
#define LANCE_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lance/lance.h"

namespace lance {

// A failure of the C layer: its code and message.
class Error : public std::runtime_error {
 public:
  LanceErrorCode code;
  Error(LanceErrorCode code, std::string msg) : std::runtime_error(std::move(msg)), code(code) {}
};

// Throws the calling thread's pending error, if any (taking its message).
inline void check_error() {
  const LanceErrorCode code = lance_last_error_code();
  if (code == LANCE_OK) return;
  const char* msg = lance_last_error_message();
  std::string text = msg != nullptr ? msg : "unknown error";
  lance_free_string(msg);
  throw Error(code, std::move(text));
}

namespace detail {

// After a call that reported failure: throws its error (LANCE_ERR_INTERNAL if, against the
// contract, none is pending).
[[noreturn]] inline void throw_failure(const char* what) {
  check_error();
  throw Error(LANCE_ERR_INTERNAL, std::string(what) + " failed without reporting an error");
}

// A NULL-terminated array of C strings over `strings` (which must outlive it).
class CStrings {
 public:
  explicit CStrings(const std::vector<std::string>& strings) {
    ptrs_.reserve(strings.size() + 1);
    for (const auto& s : strings) ptrs_.push_back(s.c_str());
    ptrs_.push_back(nullptr);
  }
  const char* const* data() const { return ptrs_.data(); }
  size_t size() const { return ptrs_.size() - 1; }

 private:
  std::vector<const char*> ptrs_;
};

// {"k", "v", ..., NULL} over `pairs`, or NULL when there are none.
class KeyValues {
 public:
  explicit KeyValues(const std::vector<std::pair<std::string, std::string>>& pairs) {
    for (const auto& kv : pairs) {
      ptrs_.push_back(kv.first.c_str());
      ptrs_.push_back(kv.second.c_str());
    }
    ptrs_.push_back(nullptr);
  }
  const char* const* get() const { return ptrs_.size() == 1 ? nullptr : ptrs_.data(); }

 private:
  std::vector<const char*> ptrs_;
};

}  // namespace detail

// Owns a C handle, released with `Deleter`.
template <typename T, void (*Deleter)(T*)>
class Handle {
 public:
  explicit Handle(T* ptr = nullptr) : ptr_(ptr) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : ptr_(other.release()) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = other.release();
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  T* get() const { return ptr_; }
  T* release() {
    T* p = ptr_;
    ptr_ = nullptr;
    return p;
  }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  void reset() {
    if (ptr_ != nullptr) Deleter(ptr_);
    ptr_ = nullptr;
  }
  T* ptr_;
};

class Scanner;
class Batch;

// One entry of Dataset::versions().
struct VersionInfo {
  uint64_t id;
  int64_t timestamp_ms;  // since the Unix epoch
};

// One entry of Dataset::calculate_data_stats().
struct FieldStatistics {
  uint32_t id;             // schema field id
  uint64_t bytes_on_disk;  // compressed bytes in the data files
};

enum class WriteMode : int32_t {
  Create = LANCE_WRITE_CREATE,
  Append = LANCE_WRITE_APPEND,
  Overwrite = LANCE_WRITE_OVERWRITE,
};

// LanceWriteParams with C++ types (0 / nullopt: the default).
struct WriteParams {
  uint64_t max_rows_per_file = 0;
  uint64_t max_rows_per_group = 0;
  uint64_t max_bytes_per_file = 0;
  std::optional<std::string> data_storage_version;
  bool enable_stable_row_ids = false;
};

// LanceColumnAlteration with C++ types; `data_type` is borrowed for the call.
struct ColumnAlteration {
  std::string path;
  std::optional<std::string> rename;
  LanceColumnNullableMode nullable_mode = LANCE_COLUMN_NULLABLE_UNCHANGED;
  const ArrowSchema* data_type = nullptr;
};

// A column to add from a SQL expression.
struct SqlColumn {
  std::string name;
  std::string expression;
};

class Dataset {
 public:
  // Opens `uri` at `version` (0: latest).
  static Dataset open(const std::string& uri,
                      const std::vector<std::pair<std::string, std::string>>& storage_opts = {},
                      uint64_t version = 0) {
    detail::KeyValues kv(storage_opts);
    LanceDataset* ds = lance_dataset_open(uri.c_str(), kv.get(), version);
    if (ds == nullptr) detail::throw_failure("lance_dataset_open");
    return Dataset(ds);
  }

  // Writes `stream` (its own schema is the declared one) and returns the dataset at the
  // committed version. The stream is consumed whether this returns or throws.
  static Dataset write(const std::string& uri, ArrowArrayStream* stream, WriteMode mode,
                       const std::vector<std::pair<std::string, std::string>>& storage_opts = {}) {
    return write(uri, stream, mode, WriteParams{}, storage_opts);
  }

  static Dataset write(const std::string& uri, ArrowArrayStream* stream, WriteMode mode,
                       const WriteParams& params,
                       const std::vector<std::pair<std::string, std::string>>& storage_opts = {}) {
    if (stream == nullptr) throw Error(LANCE_ERR_INVALID_ARGUMENT, "stream must not be null");
    // Until the C call takes the stream over, an exception here must release it.
    struct StreamOwner {
      ArrowArrayStream* s;
      ~StreamOwner() {
        if (s != nullptr && s->release != nullptr) s->release(s);
      }
    } owner{stream};
    struct SchemaOwner {
      ArrowSchema schema{};
      ~SchemaOwner() {
        if (schema.release != nullptr) schema.release(&schema);
      }
    } declared;
    if (stream->get_schema == nullptr) {
      throw Error(LANCE_ERR_INVALID_ARGUMENT, "stream get_schema callback is null");
    }
    if (stream->get_schema(stream, &declared.schema) != 0) {
      const char* why = stream->get_last_error != nullptr ? stream->get_last_error(stream) : nullptr;
      throw Error(LANCE_ERR_INVALID_ARGUMENT,
                  std::string("failed to read stream schema: ") + (why != nullptr ? why : "unknown"));
    }
    detail::KeyValues kv(storage_opts);
    LanceWriteParams c{};
    c.max_rows_per_file = params.max_rows_per_file;
    c.max_rows_per_group = params.max_rows_per_group;
    c.max_bytes_per_file = params.max_bytes_per_file;
    c.data_storage_version =
        params.data_storage_version ? params.data_storage_version->c_str() : nullptr;
    c.enable_stable_row_ids = params.enable_stable_row_ids;
    owner.s = nullptr;  // the C call consumes the stream on every path
    LanceDataset* out = nullptr;
    if (lance_dataset_write_with_params(uri.c_str(), &declared.schema, stream,
                                        static_cast<int32_t>(mode), &c, kv.get(), &out) != 0) {
      detail::throw_failure("lance_dataset_write_with_params");
    }
    if (out == nullptr) throw Error(LANCE_ERR_INTERNAL, "write succeeded without a dataset handle");
    return Dataset(out);
  }

  uint64_t count_rows() const {
    const uint64_t n = lance_dataset_count_rows(handle_.get());
    check_error();
    return n;
  }

  uint64_t version() const { return lance_dataset_version(handle_.get()); }

  uint64_t latest_version() const {
    const uint64_t v = lance_dataset_latest_version(handle_.get());
    check_error();
    return v;
  }

  std::vector<VersionInfo> versions() const {
    Handle<LanceVersions, lance_versions_close> snap(lance_dataset_versions(handle_.get()));
    if (!snap) detail::throw_failure("lance_dataset_versions");
    const uint64_t n = lance_versions_count(snap.get());
    std::vector<VersionInfo> out;
    out.reserve(static_cast<size_t>(n));
    for (size_t i = 0; i < n; ++i) {
      VersionInfo v{lance_versions_id_at(snap.get(), i), lance_versions_timestamp_ms_at(snap.get(), i)};
      check_error();
      out.push_back(v);
    }
    return out;
  }

  std::vector<FieldStatistics> calculate_data_stats() const {
    Handle<LanceDataStatistics, lance_data_statistics_close> snap(
        lance_dataset_calculate_data_stats(handle_.get()));
    if (!snap) detail::throw_failure("lance_dataset_calculate_data_stats");
    const uint64_t n = lance_data_statistics_count(snap.get());
    std::vector<FieldStatistics> out;
    out.reserve(static_cast<size_t>(n));
    for (size_t i = 0; i < n; ++i) {
      FieldStatistics f{lance_data_statistics_field_id_at(snap.get(), i),
                        lance_data_statistics_bytes_on_disk_at(snap.get(), i)};
      check_error();
      out.push_back(f);
    }
    return out;
  }

  // A new version with the content of `version`, returned as a new Dataset (this one is
  // unchanged).
  Dataset restore(uint64_t version) const {
    LanceDataset* out = lance_dataset_restore(handle_.get(), version);
    if (out == nullptr) detail::throw_failure("lance_dataset_restore");
    return Dataset(out);
  }

  // Deletes the rows matching `predicate`; returns how many. (`delete` is a C++ keyword.)
  uint64_t delete_rows(const std::string& predicate) {
    uint64_t n = 0;
    if (lance_dataset_delete(handle_.get(), predicate.c_str(), &n) != 0) {
      detail::throw_failure("lance_dataset_delete");
    }
    return n;
  }

  // Applies {column, expression} `updates` where `predicate` holds (every row when empty).
  uint64_t update(const std::string& predicate,
                  const std::vector<std::pair<std::string, std::string>>& updates) {
    std::vector<const char*> cols, vals;
    for (const auto& u : updates) {
      cols.push_back(u.first.c_str());
      vals.push_back(u.second.c_str());
    }
    uint64_t n = 0;
    if (lance_dataset_update(handle_.get(), predicate.empty() ? nullptr : predicate.c_str(),
                             cols.data(), vals.data(), updates.size(), &n) != 0) {
      detail::throw_failure("lance_dataset_update");
    }
    return n;
  }

  // Merges `source` (consumed) on `on_columns`; `params` NULL: find-or-create.
  LanceMergeInsertResult merge_insert(const std::vector<std::string>& on_columns,
                                      ArrowArrayStream* source,
                                      const LanceMergeInsertParams* params = nullptr) {
    std::vector<const char*> keys;
    for (const auto& k : on_columns) keys.push_back(k.c_str());
    LanceMergeInsertResult r{};
    if (lance_dataset_merge_insert(handle_.get(), keys.data(), keys.size(), source, params, &r) != 0) {
      detail::throw_failure("lance_dataset_merge_insert");
    }
    return r;
  }

  // Update matches, insert the rest.
  LanceMergeInsertResult upsert(const std::vector<std::string>& on_columns, ArrowArrayStream* source) {
    LanceMergeInsertParams p{};
    p.when_matched = LANCE_MERGE_WHEN_MATCHED_UPDATE_ALL;
    p.when_not_matched = LANCE_MERGE_WHEN_NOT_MATCHED_INSERT_ALL;
    p.when_not_matched_by_source = LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_KEEP;
    return merge_insert(on_columns, source, &p);
  }

  LanceCompactionMetrics compact_files(const LanceCompactionOptions* options = nullptr) {
    LanceCompactionMetrics m{};
    if (lance_dataset_compact_files(handle_.get(), options, &m) != 0) {
      detail::throw_failure("lance_dataset_compact_files");
    }
    return m;
  }

  void drop_columns(const std::vector<std::string>& columns) {
    detail::CStrings c(columns);
    if (lance_dataset_drop_columns(handle_.get(), c.data(), c.size()) != 0) {
      detail::throw_failure("lance_dataset_drop_columns");
    }
  }

  void alter_columns(const std::vector<ColumnAlteration>& alterations) {
    std::vector<LanceColumnAlteration> raw;
    for (const auto& a : alterations) {
      LanceColumnAlteration e{};
      e.path = a.path.c_str();
      e.rename = a.rename ? a.rename->c_str() : nullptr;
      e.nullable_mode = static_cast<int32_t>(a.nullable_mode);
      e.data_type = a.data_type;
      raw.push_back(e);
    }
    if (lance_dataset_alter_columns(handle_.get(), raw.data(), raw.size()) != 0) {
      detail::throw_failure("lance_dataset_alter_columns");
    }
  }

  void add_columns_sql(const std::vector<SqlColumn>& columns, uint64_t batch_size = 0) {
    std::vector<LanceSqlColumn> raw;
    for (const auto& c : columns) {
      LanceSqlColumn e{};
      e.name = c.name.c_str();
      e.expression = c.expression.c_str();
      raw.push_back(e);
    }
    if (lance_dataset_add_columns_sql(handle_.get(), raw.data(), raw.size(), batch_size) != 0) {
      detail::throw_failure("lance_dataset_add_columns_sql");
    }
  }

  // `schema` is borrowed (not released).
  void add_columns_nulls(const ArrowSchema* schema) {
    if (lance_dataset_add_columns_nulls(handle_.get(), schema) != 0) {
      detail::throw_failure("lance_dataset_add_columns_nulls");
    }
  }

  // `stream` (non-null) is consumed whether this returns or throws.
  void add_columns_stream(ArrowArrayStream* stream, uint64_t batch_size = 0) {
    if (lance_dataset_add_columns_stream(handle_.get(), stream, batch_size) != 0) {
      detail::throw_failure("lance_dataset_add_columns_stream");
    }
  }

  void schema(ArrowSchema* out) const {
    if (lance_dataset_schema(handle_.get(), out) != 0) detail::throw_failure("lance_dataset_schema");
  }

  void take(const uint64_t* indices, size_t num_indices, const std::vector<std::string>& columns,
            ArrowArrayStream* out) const {
    detail::CStrings c(columns);
    if (lance_dataset_take(handle_.get(), indices, num_indices, columns.empty() ? nullptr : c.data(),
                           out) != 0) {
      detail::throw_failure("lance_dataset_take");
    }
  }

  void take(const uint64_t* indices, size_t num_indices, ArrowArrayStream* out) const {
    take(indices, num_indices, std::vector<std::string>{}, out);
  }

  void take_rows(const uint64_t* row_ids, size_t num_row_ids, const std::vector<std::string>& columns,
                 ArrowArrayStream* out) const {
    detail::CStrings c(columns);
    if (lance_dataset_take_rows(handle_.get(), row_ids, num_row_ids,
                                columns.empty() ? nullptr : c.data(), out) != 0) {
      detail::throw_failure("lance_dataset_take_rows");
    }
  }

  void take_rows(const uint64_t* row_ids, size_t num_row_ids, ArrowArrayStream* out) const {
    take_rows(row_ids, num_row_ids, std::vector<std::string>{}, out);
  }

  // A scanner over every column, without a filter.
  Scanner scan() const;
  // A scanner over `columns` (empty: every column) with the SQL `filter` (empty: none).
  Scanner scan(const std::vector<std::string>& columns, const std::string& filter) const;

  uint64_t fragment_count() const {
    const uint64_t n = lance_dataset_fragment_count(handle_.get());
    check_error();
    return n;
  }

  std::vector<uint64_t> fragment_ids() const {
    std::vector<uint64_t> ids(static_cast<size_t>(fragment_count()));
    if (!ids.empty() && lance_dataset_fragment_ids(handle_.get(), ids.data()) != 0) {
      detail::throw_failure("lance_dataset_fragment_ids");
    }
    return ids;
  }

  void create_vector_index(const std::string& column, const LanceVectorIndexParams& params,
                           const std::string& name = "", bool replace = false) {
    if (lance_dataset_create_vector_index(handle_.get(), column.c_str(),
                                          name.empty() ? nullptr : name.c_str(), &params, replace) != 0) {
      detail::throw_failure("lance_dataset_create_vector_index");
    }
  }

  void create_scalar_index(const std::string& column, LanceScalarIndexType index_type,
                           const std::string& name = "", const std::string& params_json = "",
                           bool replace = false) {
    if (lance_dataset_create_scalar_index(handle_.get(), column.c_str(),
                                          name.empty() ? nullptr : name.c_str(), index_type,
                                          params_json.empty() ? nullptr : params_json.c_str(),
                                          replace) != 0) {
      detail::throw_failure("lance_dataset_create_scalar_index");
    }
  }

  void drop_index(const std::string& name) {
    if (lance_dataset_drop_index(handle_.get(), name.c_str()) != 0) {
      detail::throw_failure("lance_dataset_drop_index");
    }
  }

  uint64_t index_count() const {
    const uint64_t n = lance_dataset_index_count(handle_.get());
    check_error();
    return n;
  }

  std::string list_indices_json() const {
    const char* json = lance_dataset_index_list_json(handle_.get());
    if (json == nullptr) detail::throw_failure("lance_dataset_index_list_json");
    std::string out(json);
    lance_free_string(json);
    return out;
  }

  // Throws Error(LANCE_ERR_NOT_FOUND) when there is no such index.
  uint64_t index_segment_count(const std::string& index_name) const {
    const uint64_t n = lance_dataset_index_segment_count(handle_.get(), index_name.c_str());
    if (n == 0) check_error();
    return n;
  }

  std::vector<std::array<uint8_t, 16>> index_segments(const std::string& index_name) const {
    std::vector<std::array<uint8_t, 16>> out(static_cast<size_t>(index_segment_count(index_name)));
    if (out.empty()) return out;
    uint64_t written = 0;
    if (lance_dataset_index_segments(handle_.get(), index_name.c_str(),
                                     reinterpret_cast<uint8_t*>(out.data()), out.size(), &written) != 0) {
      detail::throw_failure("lance_dataset_index_segments");
    }
    out.resize(static_cast<size_t>(written));
    return out;
  }

  // The C handle (still owned by this object).
  const LanceDataset* c_handle() const { return handle_.get(); }

 private:
  explicit Dataset(LanceDataset* ds) : handle_(ds) {}
  Handle<LanceDataset, lance_dataset_close> handle_;
};

// One batch of a scan.
class Batch {
 public:
  explicit Batch(LanceBatch* batch) : handle_(batch) {}

  // Exports the batch (struct array + schema, both the caller's to release).
  void to_arrow(ArrowArray* out_array, ArrowSchema* out_schema) const {
    if (lance_batch_to_arrow(handle_.get(), out_array, out_schema) != 0) {
      detail::throw_failure("lance_batch_to_arrow");
    }
  }

  const LanceBatch* c_handle() const { return handle_.get(); }

 private:
  Handle<LanceBatch, lance_batch_free> handle_;
};

class Scanner {
 public:
  explicit Scanner(LanceScanner* scanner) : handle_(scanner) {}

  Scanner& limit(int64_t n) { return checked(lance_scanner_set_limit(handle_.get(), n), "limit"); }
  Scanner& offset(int64_t n) { return checked(lance_scanner_set_offset(handle_.get(), n), "offset"); }
  Scanner& batch_size(int64_t n) {
    return checked(lance_scanner_set_batch_size(handle_.get(), n), "batch_size");
  }
  Scanner& with_row_id(bool enable = true) {
    return checked(lance_scanner_with_row_id(handle_.get(), enable), "with_row_id");
  }
  Scanner& fragment_ids(const uint64_t* ids, size_t len) {
    return checked(lance_scanner_set_fragment_ids(handle_.get(), ids, len), "fragment_ids");
  }
  Scanner& fragment_ids(const std::vector<uint64_t>& ids) { return fragment_ids(ids.data(), ids.size()); }
  Scanner& substrait_filter(const uint8_t* bytes, size_t len) {
    return checked(lance_scanner_set_substrait_filter(handle_.get(), bytes, len), "substrait_filter");
  }
  Scanner& substrait_filter(const std::vector<uint8_t>& bytes) {
    return substrait_filter(bytes.data(), bytes.size());
  }
  Scanner& index_segments(const uint8_t* uuids, size_t len) {
    return checked(lance_scanner_set_index_segments(handle_.get(), uuids, len), "index_segments");
  }
  Scanner& index_segments(const std::vector<std::array<uint8_t, 16>>& uuids) {
    return index_segments(reinterpret_cast<const uint8_t*>(uuids.data()), uuids.size());
  }

  // The scan as an Arrow C stream (the caller's to release).
  void to_arrow_stream(ArrowArrayStream* out) {
    if (lance_scanner_to_arrow_stream(handle_.get(), out) != 0) {
      detail::throw_failure("lance_scanner_to_arrow_stream");
    }
  }

  // See lance_scanner_scan_async.
  void scan_async(LanceCallback callback, void* ctx) const {
    lance_scanner_scan_async(handle_.get(), callback, ctx);
  }

  // The next batch of the scanner's own scan (blocking); nullopt at the end.
  std::optional<Batch> next() {
    LanceBatch* b = nullptr;
    const int32_t rc = lance_scanner_next(handle_.get(), &b);
    if (rc < 0) detail::throw_failure("lance_scanner_next");
    if (rc == 1) return std::nullopt;
    return Batch(b);
  }

  // One non-blocking step (see lance_scanner_poll_next): READY fills `*out`.
  LancePollStatus poll_next(LanceWaker waker, void* waker_ctx, std::optional<Batch>* out) {
    LanceBatch* b = nullptr;
    const LancePollStatus st = lance_scanner_poll_next(handle_.get(), waker, waker_ctx, &b);
    if (st == LANCE_POLL_ERROR) detail::throw_failure("lance_scanner_poll_next");
    if (st == LANCE_POLL_READY) out->emplace(b);
    return st;
  }

  Scanner& nearest(const std::string& column, const float* q, size_t dim, uint32_t k) {
    return nearest(column, q, dim, LANCE_DTYPE_FLOAT32, k);
  }
  Scanner& nearest(const std::string& column, const void* q, size_t dim, LanceDataType dtype,
                   uint32_t k) {
    return checked(lance_scanner_nearest(handle_.get(), column.c_str(), q, dim, dtype, k), "nearest");
  }
  Scanner& nprobes(uint32_t n) { return checked(lance_scanner_set_nprobes(handle_.get(), n), "nprobes"); }
  Scanner& refine_factor(uint32_t f) {
    return checked(lance_scanner_set_refine_factor(handle_.get(), f), "refine_factor");
  }
  Scanner& ef(uint32_t e) { return checked(lance_scanner_set_ef(handle_.get(), e), "ef"); }
  Scanner& metric(LanceMetricType m) { return checked(lance_scanner_set_metric(handle_.get(), m), "metric"); }
  Scanner& use_index(bool enable) {
    return checked(lance_scanner_set_use_index(handle_.get(), enable), "use_index");
  }
  Scanner& prefilter(bool enable) {
    return checked(lance_scanner_set_prefilter(handle_.get(), enable), "prefilter");
  }
  Scanner& full_text_search(const std::string& query, const std::vector<std::string>& columns = {},
                            uint32_t max_fuzzy_distance = 0) {
    detail::CStrings c(columns);
    return checked(lance_scanner_full_text_search(handle_.get(), query.c_str(),
                                                  columns.empty() ? nullptr : c.data(),
                                                  max_fuzzy_distance),
                   "full_text_search");
  }

  LanceScanner* c_handle() { return handle_.get(); }

 private:
  Scanner& checked(int32_t rc, const char* what) {
    if (rc != 0) detail::throw_failure(what);
    return *this;
  }
  Handle<LanceScanner, lance_scanner_close> handle_;
};

inline Scanner Dataset::scan() const {
  LanceScanner* s = lance_scanner_new(handle_.get(), nullptr, nullptr);
  if (s == nullptr) detail::throw_failure("lance_scanner_new");
  return Scanner(s);
}

inline Scanner Dataset::scan(const std::vector<std::string>& columns, const std::string& filter) const {
  detail::CStrings c(columns);
  LanceScanner* s = lance_scanner_new(handle_.get(), columns.empty() ? nullptr : c.data(),
                                      filter.empty() ? nullptr : filter.c_str());
  if (s == nullptr) detail::throw_failure("lance_scanner_new");
  return Scanner(s);
}

// Writes `stream` (consumed) as data files under `<uri>/data/` without a commit.
inline void write_fragments(const std::string& uri, const ArrowSchema* schema, ArrowArrayStream* stream,
                            const std::vector<std::pair<std::string, std::string>>& storage_opts = {}) {
  detail::KeyValues kv(storage_opts);
  if (lance_write_fragments(uri.c_str(), schema, stream, kv.get()) != 0) {
    detail::throw_failure("lance_write_fragments");
  }
}

}  // namespace lance

#endif  // LANCE_HPP
