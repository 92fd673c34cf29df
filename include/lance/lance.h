/* lance.h: the C ABI of lance-cpp.
 *
 * Source-compatible with lance-c (github.com/lance-format/lance-c, include/lance/lance.h): the
 * same handles, functions, argument lists, enums (names and values), structs (fields and order)
 * and conventions, so that a program written against lance-c builds against this header and the
 * lance-cpp library unchanged and sees the same results. Plain C99; also valid C++.
 *
 * Conventions
 *   - Data crosses the boundary through the Arrow C Data and C Stream Interfaces (the structs
 *     below). A stream passed *in* is consumed (released by the library) as each function says;
 *     a struct filled *out* belongs to the caller, who calls its release callback.
 *   - Failure is reported by the return value (NULL, -1, LANCE_POLL_ERROR, or 0 for functions
 *     returning a count) together with a per-thread error: lance_last_error_code() says what
 *     kind, lance_last_error_message() hands out the text (and clears the error). Most
 *     functions clear the thread's error when they succeed; the few that do not say so.
 *   - Handles (LanceDataset, LanceScanner, ...) are released by their close/free function,
 *     which accepts NULL. A handle may be used from any thread, one call at a time; a
 *     dataset handle may be shared by threads that only read it.
 *   - No C++ exception ever leaves a function of this header.
 *   - Features lance-cpp does not implement yet (vector and full-text index building, vector
 *     and full-text search, Substrait filters) fail with LANCE_ERR_NOT_SUPPORTED and a message
 *     naming what is missing.
 */
#ifndef LANCE_H
#define LANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Arrow C Data Interface and C Stream Interface -------------------------------------
 * Laid out as the Arrow specification defines them, under its canonical guards, so that this
 * header coexists with any other copy (arrow/c/abi.h, nanoarrow, lance/columnar/c_abi.h). */

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);
  void* private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* ---- Errors ------------------------------------------------------------------------------ */

typedef enum {
  LANCE_OK = 0,
  LANCE_ERR_INVALID_ARGUMENT = 1,       /* bad argument, bad SQL, unknown column, ... */
  LANCE_ERR_IO = 2,                     /* the storage failed */
  LANCE_ERR_NOT_FOUND = 3,              /* no such dataset, version, index */
  LANCE_ERR_DATASET_ALREADY_EXISTS = 4, /* LANCE_WRITE_CREATE on an existing dataset */
  LANCE_ERR_INDEX = 5,                  /* an index could not be used or built */
  LANCE_ERR_INTERNAL = 6,               /* anything else (corrupt data included) */
  LANCE_ERR_NOT_SUPPORTED = 7,          /* a feature this library does not implement */
  LANCE_ERR_COMMIT_CONFLICT = 8,        /* a concurrent writer won; retry on the new version */
} LanceErrorCode;

/* The kind of the last failure on the calling thread; LANCE_OK when none is pending. */
LanceErrorCode lance_last_error_code(void);

/* The text of the last failure on the calling thread, or NULL when none is pending. Taking the
 * message clears the pending error (lance_last_error_code() is LANCE_OK afterwards). The
 * caller frees the string with lance_free_string(). */
const char* lance_last_error_message(void);

/* Frees a string this library handed out (error messages, index listings). NULL is a no-op. */
void lance_free_string(const char* s);

/* ---- Index settings (lance-c's; every vector and scalar type listed is built) ---- */

typedef enum {
  LANCE_INDEX_IVF_FLAT = 101,
  LANCE_INDEX_IVF_SQ = 102,
  LANCE_INDEX_IVF_PQ = 103,
  LANCE_INDEX_IVF_HNSW_SQ = 104,
  LANCE_INDEX_IVF_HNSW_PQ = 105,
  LANCE_INDEX_IVF_HNSW_FLAT = 106,
  /* lance-cpp's addition (not in lance-c): IVF_RQ, 1-bit RaBitQ codes (num_bits 0 or 1). */
  LANCE_INDEX_IVF_RQ = 107,
} LanceVectorIndexType;

typedef enum {
  LANCE_SCALAR_BTREE = 1,
  LANCE_SCALAR_BITMAP = 2,
  LANCE_SCALAR_LABEL_LIST = 3,
  LANCE_SCALAR_INVERTED = 4,
} LanceScalarIndexType;

typedef enum {
  LANCE_METRIC_L2 = 0,
  LANCE_METRIC_COSINE = 1,
  LANCE_METRIC_DOT = 2,
  LANCE_METRIC_HAMMING = 3,
} LanceMetricType;

/* Element type of a query vector. */
typedef enum {
  LANCE_DTYPE_FLOAT32 = 0,
  LANCE_DTYPE_FLOAT16 = 1, /* IEEE half floats passed as uint16_t bit patterns */
  LANCE_DTYPE_FLOAT64 = 2,
  LANCE_DTYPE_UINT8 = 3,
  LANCE_DTYPE_INT8 = 4,
} LanceDataType;

/* Vector index build settings; 0 in a numeric field asks for the default. */
typedef struct {
  LanceVectorIndexType index_type;
  LanceMetricType metric;
  uint32_t num_partitions;       /* IVF partitions */
  uint32_t num_sub_vectors;      /* PQ sub-vectors */
  uint32_t num_bits;             /* PQ / SQ bits per code */
  uint32_t max_iterations;       /* k-means iterations */
  uint32_t hnsw_m;               /* HNSW neighbours per node */
  uint32_t hnsw_ef_construction; /* HNSW build beam width */
  uint32_t sample_rate;          /* training rows per partition */
} LanceVectorIndexParams;

/* ---- Handles ----------------------------------------------------------------------------- */

typedef struct LanceDataset LanceDataset;               /* one version of a dataset */
typedef struct LanceScanner LanceScanner;               /* a scan being configured / read */
typedef struct LanceBatch LanceBatch;                   /* one record batch of a scan */
typedef struct LanceVersions LanceVersions;             /* a snapshot of the version list */
typedef struct LanceDataStatistics LanceDataStatistics; /* per-field storage sizes */

/* ---- Opening ----------------------------------------------------------------------------- */

/* Opens the dataset at `uri` (a local path, file://, or memory://name/path), at `version`, or
 * at the latest version when `version` is 0. `storage_opts` is NULL or a NULL-terminated list of
 * key/value strings {"key", "value", ..., NULL}; an odd count is LANCE_ERR_INVALID_ARGUMENT.
 * (lance-cpp's local and memory stores take no options; given ones are checked for shape and
 * otherwise unused.) Returns a handle to close with lance_dataset_close(), or NULL. */
LanceDataset* lance_dataset_open(const char* uri, const char* const* storage_opts,
                                 uint64_t version);

/* Releases a dataset handle. Scanners and streams made from it stay valid. NULL is a no-op. */
void lance_dataset_close(LanceDataset* dataset);

/* ---- Dataset metadata -------------------------------------------------------------------- */

/* The version this handle reads. 0 with LANCE_ERR_INVALID_ARGUMENT for NULL (a success does
 * not clear the thread's error). */
uint64_t lance_dataset_version(const LanceDataset* dataset);

/* Rows of this version (deleted rows excluded). 0 on error. */
uint64_t lance_dataset_count_rows(const LanceDataset* dataset);

/* The newest version of the dataset in storage (reads it). 0 on error. */
uint64_t lance_dataset_latest_version(const LanceDataset* dataset);

/* ---- Versions ---------------------------------------------------------------------------- */

/* Every version of the dataset, ascending, as a snapshot to free with lance_versions_close().
 * NULL on error. */
LanceVersions* lance_dataset_versions(const LanceDataset* dataset);

/* Number of versions in the snapshot; 0 with LANCE_ERR_INVALID_ARGUMENT for NULL. */
uint64_t lance_versions_count(const LanceVersions* versions);

/* Version number at `index` (0 <= index < count); 0 with LANCE_ERR_INVALID_ARGUMENT for NULL or
 * an index out of range. */
uint64_t lance_versions_id_at(const LanceVersions* versions, size_t index);

/* Commit time of the version at `index`, in milliseconds since the Unix epoch (0 when the
 * manifest records none); 0 with LANCE_ERR_INVALID_ARGUMENT for NULL or out of range. */
int64_t lance_versions_timestamp_ms_at(const LanceVersions* versions, size_t index);

/* Releases a versions snapshot. NULL is a no-op. */
void lance_versions_close(LanceVersions* versions);

/* ---- Data statistics --------------------------------------------------------------------- */

/* The compressed bytes each field of this version occupies in its data files (reads every
 * data file's metadata): one entry per schema field, nested fields included, in schema order.
 * Legacy (0.1) datasets report 0 bytes. Free with lance_data_statistics_close(); NULL on error. */
LanceDataStatistics* lance_dataset_calculate_data_stats(const LanceDataset* dataset);

/* Number of entries; 0 with LANCE_ERR_INVALID_ARGUMENT for NULL (0 without an error for an
 * empty schema). */
uint64_t lance_data_statistics_count(const LanceDataStatistics* stats);

/* Field id of entry `index`; 0 with LANCE_ERR_INVALID_ARGUMENT for NULL or out of range (0 is
 * also a valid id: check the error code for untrusted indexes). */
uint32_t lance_data_statistics_field_id_at(const LanceDataStatistics* stats, size_t index);

/* Bytes of entry `index`; 0 with LANCE_ERR_INVALID_ARGUMENT for NULL or out of range. */
uint64_t lance_data_statistics_bytes_on_disk_at(const LanceDataStatistics* stats, size_t index);

/* Releases a statistics snapshot. NULL is a no-op. */
void lance_data_statistics_close(LanceDataStatistics* stats);

/* ---- Restore ----------------------------------------------------------------------------- */

/* Commits a new version whose content is that of `version` (always a new version, even when
 * `version` is the latest) and returns a new handle at it; `dataset` is unchanged. `version`
 * 0 is LANCE_ERR_INVALID_ARGUMENT, an unknown version LANCE_ERR_NOT_FOUND, a lost race with an
 * incompatible writer LANCE_ERR_COMMIT_CONFLICT. NULL on error. */
LanceDataset* lance_dataset_restore(const LanceDataset* dataset, uint64_t version);

/* ---- Delete / update --------------------------------------------------------------------- */

/* Deletes the rows where the SQL condition `predicate` holds and commits a new version; the
 * handle then reads that version (scanners already made keep theirs). `predicate` must be a
 * non-empty string. On success `*out_num_deleted` (if not NULL) gets the number of rows deleted;
 * when nothing matches nothing is committed. Returns 0, or -1 (bad SQL and unknown columns are
 * LANCE_ERR_INVALID_ARGUMENT; the out slot is then left alone). */
int32_t lance_dataset_delete(LanceDataset* dataset, const char* predicate,
                             uint64_t* out_num_deleted);

/* Sets columns[i] to the SQL expression values[i] (over the row's old values) in the rows
 * where `predicate` holds, or in every row when `predicate` is NULL (an empty string is
 * refused), and commits a new version the handle then reads. `num_updates` >= 1; every entry
 * non-NULL and non-empty. `*out_num_updated` (optional) gets the number of rows changed.
 * Returns 0 or -1. */
int32_t lance_dataset_update(LanceDataset* dataset, const char* predicate,
                             const char* const* columns, const char* const* values,
                             size_t num_updates, uint64_t* out_num_updated);

/* ---- Merge-insert ------------------------------------------------------------------------ */

/* What happens to a dataset row whose keys match a source row. */
typedef enum {
  LANCE_MERGE_WHEN_MATCHED_DO_NOTHING = 0, /* keep it (the default: find-or-create) */
  LANCE_MERGE_WHEN_MATCHED_UPDATE_ALL = 1, /* replace it with the source row (upsert) */
  LANCE_MERGE_WHEN_MATCHED_UPDATE_IF = 2,  /* replace it where when_matched_expr holds */
  LANCE_MERGE_WHEN_MATCHED_FAIL = 3,       /* fail the whole operation */
  LANCE_MERGE_WHEN_MATCHED_DELETE = 4,     /* delete it */
} LanceMergeWhenMatched;

/* What happens to a source row no dataset row matches. */
typedef enum {
  LANCE_MERGE_WHEN_NOT_MATCHED_INSERT_ALL = 0, /* insert it (the default) */
  LANCE_MERGE_WHEN_NOT_MATCHED_DO_NOTHING = 1, /* drop it */
} LanceMergeWhenNotMatched;

/* What happens to a dataset row no source row matches. */
typedef enum {
  LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_KEEP = 0,      /* keep it (the default) */
  LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_DELETE = 1,    /* delete it */
  LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_DELETE_IF = 2, /* delete it where the expr holds */
} LanceMergeWhenNotMatchedBySource;

/* Merge-insert behaviour; an all-zero struct is the default (find-or-create). The int32_t
 * fields hold the enums above (other values are LANCE_ERR_INVALID_ARGUMENT). An expression is
 * required exactly when its mode needs one (UPDATE_IF: a condition over `target.col` and
 * `source.col`; DELETE_IF: a condition over the dataset row's columns), must be non-empty, and
 * must be NULL otherwise. */
typedef struct LanceMergeInsertParams {
  int32_t when_matched;
  const char* when_matched_expr;
  int32_t when_not_matched;
  int32_t when_not_matched_by_source;
  const char* when_not_matched_by_source_expr;
} LanceMergeInsertParams;

/* What one merge-insert did. */
typedef struct LanceMergeInsertResult {
  uint64_t num_inserted_rows;
  uint64_t num_updated_rows;
  uint64_t num_deleted_rows;
} LanceMergeInsertResult;

/* Merges the rows of `source` into the dataset, joining on the key columns `on_columns`
 * (`num_on_columns` >= 1, each non-NULL and non-empty), as SQL MERGE, and commits a new version
 * the handle then reads. `source` (not NULL) is consumed on every return path; its columns are
 * the dataset's, by name, in any order. `params` NULL means the defaults. A configuration that
 * can change nothing (do nothing / do nothing / keep) is LANCE_ERR_INVALID_ARGUMENT.
 * `*out_result` (optional) gets the counts. Returns 0 or -1. */
int32_t lance_dataset_merge_insert(LanceDataset* dataset, const char* const* on_columns,
                                   size_t num_on_columns, struct ArrowArrayStream* source,
                                   const LanceMergeInsertParams* params,
                                   LanceMergeInsertResult* out_result);

/* ---- Compaction -------------------------------------------------------------------------- */

/* Compaction settings; 0 in a field asks for the default. */
typedef struct LanceCompactionOptions {
  uint64_t target_rows_per_fragment; /* fragments below this are merged (default 1,048,576) */
  uint64_t max_rows_per_group;       /* accepted; 2.x files have no row groups */
  uint64_t max_bytes_per_file;       /* accepted; lance-cpp caps output files by rows only */
  uint64_t num_threads;              /* accepted; lance-cpp uses its own thread pool */
  uint64_t batch_size;               /* accepted; lance-cpp reads fragments whole */
} LanceCompactionOptions;

/* What one compaction did. */
typedef struct LanceCompactionMetrics {
  uint64_t fragments_removed;
  uint64_t fragments_added;
  uint64_t files_removed; /* data and deletion files of the removed fragments */
  uint64_t files_added;   /* data files of the new fragments */
} LanceCompactionMetrics;

/* Merges runs of small fragments and rewrites fragments with many deleted rows, committing a
 * new version the handle then reads; with nothing to do it commits nothing and reports zeros.
 * `options` NULL means the defaults; `*out_metrics` (optional) gets the counts. Returns 0/-1. */
int32_t lance_dataset_compact_files(LanceDataset* dataset, const LanceCompactionOptions* options,
                                    LanceCompactionMetrics* out_metrics);

/* ---- Schema evolution -------------------------------------------------------------------- */

/* Removes the columns `columns[0..num_columns)` (non-empty names; nested fields as "a.b") and
 * commits a new version the handle then reads. Top-level columns are dropped from the schema
 * only (data files are rewritten by a later compaction). Dropping every column, or an unknown
 * one, is LANCE_ERR_INVALID_ARGUMENT. Returns 0 or -1. */
int32_t lance_dataset_drop_columns(LanceDataset* dataset, const char* const* columns,
                                   size_t num_columns);

/* Nullability change requested by a LanceColumnAlteration. */
typedef enum {
  LANCE_COLUMN_NULLABLE_UNCHANGED = 0,
  LANCE_COLUMN_NULLABLE_TRUE = 1,
  LANCE_COLUMN_NULLABLE_FALSE = 2, /* refused when the column holds a null */
} LanceColumnNullableMode;

/* One change to the column at `path`: a new name (`rename`, NULL = keep), a new nullability
 * (`nullable_mode`, a LanceColumnNullableMode), and/or a new type (`data_type`, an Arrow type
 * the caller keeps: never released here; NULL = keep). At least one must ask for a change. */
typedef struct LanceColumnAlteration {
  const char* path;
  const char* rename;
  int32_t nullable_mode;
  const struct ArrowSchema* data_type;
} LanceColumnAlteration;

/* Applies the alterations and commits, the handle then reading the result. Renames and
 * nullability changes rewrite no data; a type change casts the column's values into new data
 * files (a value that does not convert fails the call). lance-cpp commits the type changes
 * and the rename/nullability changes of one call as separate versions. Returns 0 or -1. */
int32_t lance_dataset_alter_columns(LanceDataset* dataset, const LanceColumnAlteration* alterations,
                                    size_t num_alterations);

/* A new column computed per row by a SQL expression over the existing columns. */
typedef struct LanceSqlColumn {
  const char* name;
  const char* expression;
} LanceSqlColumn;

/* Adds the columns `columns[0..num_columns)` (names and expressions non-empty), writing one new
 * data file per fragment, and commits a new version the handle then reads. `batch_size` must
 * fit 32 bits (0 = default; lance-cpp evaluates whole fragments, so it has no other effect). A
 * bad expression, an unknown column or a name in use is LANCE_ERR_INVALID_ARGUMENT. */
int32_t lance_dataset_add_columns_sql(LanceDataset* dataset, const LanceSqlColumn* columns,
                                      size_t num_columns, uint64_t batch_size);

/* Adds the fields of `schema` (a struct schema the caller keeps: never released here) as
 * columns holding only nulls, by metadata alone. Every field must be nullable; a name in use is
 * LANCE_ERR_INVALID_ARGUMENT; a legacy (0.1) dataset is LANCE_ERR_NOT_SUPPORTED. */
int32_t lance_dataset_add_columns_nulls(LanceDataset* dataset, const struct ArrowSchema* schema);

/* Adds the columns of `stream`, whose rows line up with the dataset's rows in scan order (the
 * row counts must be equal), writing one new data file per fragment. A non-NULL `stream` is
 * consumed on every return path, even when `dataset` is NULL; a NULL one is refused first.
 * `batch_size` as for lance_dataset_add_columns_sql. Returns 0 or -1. */
int32_t lance_dataset_add_columns_stream(LanceDataset* dataset, struct ArrowArrayStream* stream,
                                         uint64_t batch_size);

/* ---- Schema and fragments ---------------------------------------------------------------- */

/* Fills `out` (caller-allocated) with the dataset's schema as a struct ("+s") schema; the
 * caller releases it. Returns 0 or -1. */
int32_t lance_dataset_schema(const LanceDataset* dataset, struct ArrowSchema* out);

/* Number of fragments of this version; 0 on error. */
uint64_t lance_dataset_fragment_count(const LanceDataset* dataset);

/* Writes the fragment ids of this version, in manifest order, to `out_ids`, which must hold
 * lance_dataset_fragment_count() entries. Returns 0 or -1. */
int32_t lance_dataset_fragment_ids(const LanceDataset* dataset, uint64_t* out_ids);

/* ---- Random access ----------------------------------------------------------------------- */

/* The rows at positions `indices[0..num_indices)` of the scan order (0 = first live row), in
 * that order, as a stream of one batch filled into `out` (the caller releases it). `indices`
 * must not be NULL (even for 0 rows); `columns` is NULL (every column) or a NULL-terminated
 * list of names ("_rowid" and "_rowaddr" allowed). A position past the end is
 * LANCE_ERR_INVALID_ARGUMENT. Returns 0 or -1. */
int32_t lance_dataset_take(const LanceDataset* dataset, const uint64_t* indices,
                           size_t num_indices, const char* const* columns,
                           struct ArrowArrayStream* out);

/* The rows with the row ids `row_ids[0..num_row_ids)` (values of the "_rowid" column of this
 * version), in that order (repeats kept), as a stream of one batch; ids of deleted or missing
 * rows are left out. `row_ids` may be NULL only when `num_row_ids` is 0. Returns 0 or -1. */
int32_t lance_dataset_take_rows(const LanceDataset* dataset, const uint64_t* row_ids,
                                size_t num_row_ids, const char* const* columns,
                                struct ArrowArrayStream* out);

/* ---- Scanner ----------------------------------------------------------------------------- */

/* A scanner over the version `dataset` reads now (later commits through the handle do not
 * change it): `columns` NULL (every column) or a NULL-terminated list of names, in output
 * order ("_rowid" / "_rowaddr" allowed); `filter` NULL or a SQL condition. Columns and filter
 * are checked when the scan starts (to_arrow_stream, next, poll_next, scan_async). Close with
 * lance_scanner_close(). NULL on error. */
LanceScanner* lance_scanner_new(const LanceDataset* dataset, const char* const* columns,
                                const char* filter);

/* Settings, applied when the scan starts; each returns 0, or -1 for a NULL scanner. A negative
 * limit or offset fails the scan (LANCE_ERR_INVALID_ARGUMENT). Batches hold at most
 * `batch_size` rows (<= 0: the default, 8192). with_row_id appends a uint64 "_rowid" column. */
int32_t lance_scanner_set_limit(LanceScanner* scanner, int64_t limit);
int32_t lance_scanner_set_offset(LanceScanner* scanner, int64_t offset);
int32_t lance_scanner_set_batch_size(LanceScanner* scanner, int64_t batch_size);
int32_t lance_scanner_with_row_id(LanceScanner* scanner, bool enable);

/* Scans only the fragments with the ids `ids[0..len)` (manifest order; unknown ids ignored;
 * len 0 scans nothing). `ids` may be NULL only when `len` is 0. Returns 0 or -1. */
int32_t lance_scanner_set_fragment_ids(LanceScanner* scanner, const uint64_t* ids, size_t len);

/* A filter given as a serialized Substrait ExtendedExpression. Arguments are checked (NULL
 * scanner or bytes, len 0: LANCE_ERR_INVALID_ARGUMENT); lance-cpp has no Substrait decoder,
 * so valid arguments give LANCE_ERR_NOT_SUPPORTED. Returns -1 in every case. */
int32_t lance_scanner_set_substrait_filter(LanceScanner* scanner, const uint8_t* bytes,
                                           size_t len);

/* Releases a scanner (stopping its background reading, if any). NULL is a no-op. */
void lance_scanner_close(LanceScanner* scanner);

/* Starts the scan and fills `out` with a stream of its batches; the caller releases the
 * stream, which may outlive the scanner and the dataset handle. The scanner can start
 * further scans. Returns 0 or -1 (bad columns or filter included). */
int32_t lance_scanner_to_arrow_stream(LanceScanner* scanner, struct ArrowArrayStream* out);

/* The next batch of the scanner's own scan (started by the first call), blocking: returns 0
 * with `*out` set (free it with lance_batch_free()), 1 at the end (`*out` NULL), or -1 on error
 * (`*out` NULL). */
int32_t lance_scanner_next(LanceScanner* scanner, LanceBatch** out);

/* Completion callback of lance_scanner_scan_async: `status` 0 with `result` an
 * ArrowArrayStream* the callback takes over, or -1 with `result` NULL and the error pending on
 * the callback's thread (lance_last_error_message() works inside the callback). */
typedef void (*LanceCallback)(void* ctx, int32_t status, void* result);

/* Starts a scan in the background with the scanner's current settings (the scanner may be
 * closed right after) and calls `callback(ctx, ...)` once, on the library's dispatcher thread
 * (callbacks run one at a time), when the stream is ready or the scan failed. The stream struct
 * itself is allocated with malloc() and belongs to the callback's owner: release the stream,
 * then free() the struct (lance-c hands out the same kind of heap struct). A NULL scanner calls
 * back with -1 (and sets the error on the calling thread too); a NULL callback only sets
 * LANCE_ERR_INVALID_ARGUMENT. A success leaves the calling thread's error alone. */
void lance_scanner_scan_async(const LanceScanner* scanner, LanceCallback callback,
                              void* callback_ctx);

/* Results of lance_scanner_poll_next. */
typedef enum {
  LANCE_POLL_READY = 0,    /* *out holds a batch */
  LANCE_POLL_PENDING = 1,  /* nothing yet: the waker will be called once when there is */
  LANCE_POLL_FINISHED = 2, /* the scan is over */
  LANCE_POLL_ERROR = -1,   /* the scan failed; the error is pending on this thread */
} LancePollStatus;

/* Called (from a library thread) when a pending poll can make progress. It must be
 * thread-safe and must not call lance_scanner_* functions itself. */
typedef void (*LanceWaker)(void* ctx);

/* The next batch of the scanner's own scan without blocking: the first call starts the scan
 * on a background thread, which reads ahead a few batches. READY sets `*out` (free it with
 * lance_batch_free()); PENDING arranges for `waker(waker_ctx)` to be called once when a batch,
 * the end or an error is available; FINISHED and ERROR set `*out` to NULL. May be mixed with
 * lance_scanner_next() on the same scanner (one scan, batches in order). */
LancePollStatus lance_scanner_poll_next(LanceScanner* scanner, LanceWaker waker, void* waker_ctx,
                                        LanceBatch** out);

/* ---- Batches ----------------------------------------------------------------------------- */

/* Exports the batch as a struct array and its schema (zero-copy; the batch stays usable); the
 * caller releases both. Returns 0 or -1. */
int32_t lance_batch_to_arrow(const LanceBatch* batch, struct ArrowArray* out_array,
                             struct ArrowSchema* out_schema);

/* Releases a batch. NULL is a no-op. */
void lance_batch_free(LanceBatch* batch);

/* ---- Fragment files without a commit ----------------------------------------------------- */

/* Writes the rows of `stream` as Lance data files under `<uri>/data/` (files of at most
 * 1,048,576 rows, format 2.2) without creating or changing any manifest: each file's footer
 * records its schema with field ids 0.. and its row count, so that another process can commit
 * the files later. `schema` (kept by the caller) must describe the same fields as the stream
 * (LANCE_ERR_INVALID_ARGUMENT otherwise); a dataset already at `uri` is
 * LANCE_ERR_DATASET_ALREADY_EXISTS. `stream` is consumed. Returns 0 or -1. */
int32_t lance_write_fragments(const char* uri, const struct ArrowSchema* schema,
                              struct ArrowArrayStream* stream, const char* const* storage_opts);

/* ---- Indexes ----------------------------------------------------------------------------- */

/* lance_dataset_create_scalar_index builds a BTREE, BITMAP or LABEL_LIST index on the live
 * rows of every fragment of the latest version, as lance 12 does (index_name NULL:
 * "{column}_idx"; params_json is ignored), and commits it as a new version; a taken name is
 * LANCE_ERR_DATASET_ALREADY_EXISTS unless `replace`. Scans answer filters from these indexes
 * (lance_scanner_set_use_index(false) turns that off; the rows are the same). INVERTED builds
 * the full-text index, `params_json` then lance's InvertedIndexParams as JSON (absent keys keep
 * lance's defaults).
 *
 * lance_dataset_create_vector_index builds an IVF_FLAT or IVF_PQ index in lance 12's format
 * (lance lists, plans and searches it) on a fixed_size_list<float32> column and commits it;
 * the handle moves to the new version. As lance-c: num_partitions is required (and
 * num_sub_vectors for PQ); 0 elsewhere asks for the default (8-bit codes, 50 k-means
 * iterations, sample rate 256); a taken name is LANCE_ERR_DATASET_ALREADY_EXISTS unless
 * `replace`. IVF_HNSW_SQ and IVF_HNSW_PQ (l2, cosine) are built as well (hnsw_m required,
 * hnsw_ef_construction: 0 = 300; IVF_HNSW_PQ also needs num_sub_vectors); IVF_SQ and
 * IVF_HNSW_FLAT: LANCE_ERR_NOT_SUPPORTED after lance-c's checks. */
int32_t lance_dataset_create_vector_index(LanceDataset* dataset, const char* column,
                                          const char* index_name,
                                          const LanceVectorIndexParams* params, bool replace);
int32_t lance_dataset_create_scalar_index(LanceDataset* dataset, const char* column,
                                          const char* index_name, LanceScalarIndexType index_type,
                                          const char* params_json, bool replace);

/* lance-cpp addition (lance-c has no call for these types): lance_cpp_dataset_create_zone_index
 * builds a ZONEMAP (`index_type` "ZONEMAP") or BLOOMFILTER ("BLOOMFILTER") index on the live
 * rows of the latest version in lance 12's layout (lance 12 plans its filters through it) and
 * commits it; the handle moves to the new version. `rows_per_zone` is the zone size (the bloom
 * filter's expected items too; 0 = 8192, lance 12's default); index_name NULL: "{column}_idx";
 * a taken name is LANCE_ERR_DATASET_ALREADY_EXISTS unless `replace`. Scans use it as a
 * prefilter and recheck the predicate on the rows of the zones it keeps. `index_type` "NGRAM"
 * builds the trigram index of a utf8 column instead (rows_per_zone ignored): contains(col, 'x')
 * and LIKE '%x%' are prefiltered through it and rechecked. Returns 0 or -1. */
int32_t lance_cpp_dataset_create_zone_index(LanceDataset* dataset, const char* column,
                                            const char* index_name, const char* index_type,
                                            uint64_t rows_per_zone, bool replace);

/* lance-cpp addition: lance_cpp_dataset_optimize_indices indexes the fragments appended since
 * an index was built, as lance 12's optimize does for scalar indexes: the newest segment and the
 * unindexed fragments are retrained into one new segment with the parameters of the old one,
 * which it replaces, all in one commit (the handle moves to it), as lance 12 does.
 * `index_name` NULL: every user index, vector indexes reported "not_supported"; naming a
 * vector index is LANCE_ERR_NOT_SUPPORTED, an unknown one LANCE_ERR_NOT_FOUND. If `out_json`
 * is not NULL it gets a JSON array, one object per index: {"name":..., "type":...,
 * "outcome":"merged"|"up_to_date"|"not_supported"} plus, when merged, "uuid", "version",
 * "indexed_fragments", "new_fragments", "num_indexed_rows" (free with lance_free_string()).
 * Returns 0 or -1. */
int32_t lance_cpp_dataset_optimize_indices(LanceDataset* dataset, const char* index_name, const char** out_json);

/* Removes the index `name` (every segment) from the dataset and commits a new version the
 * handle then reads; its files stay until cleanup. LANCE_ERR_NOT_FOUND when there is no such
 * user index. Returns 0 or -1. */
int32_t lance_dataset_drop_index(LanceDataset* dataset, const char* name);

/* Number of user indexes (index segments, system indexes excluded) of this version; 0 on
 * error. */
uint64_t lance_dataset_index_count(const LanceDataset* dataset);

/* The user indexes of this version as a JSON array, one object per segment:
 * {"name":..., "uuid":..., "columns":[...], "type":..., "dataset_version":N}, where type is
 * "BTree", "Bitmap", "LabelList", "Inverted", "NGram", "ZoneMap", "BloomFilter", "IVF_PQ",
 * "IVF_SQ", "IVF_FLAT", "IVF_RQ", "IVF_HNSW_PQ", "IVF_HNSW_SQ", "IVF_HNSW_FLAT" or "Unknown".
 * Free with lance_free_string(); NULL on error. */
const char* lance_dataset_index_list_json(const LanceDataset* dataset);

/* Number of segments (entries sharing the name) of the user index `index_name`; 0 with
 * LANCE_ERR_NOT_FOUND when there is none, 0 with another code on other errors. */
uint64_t lance_dataset_index_segment_count(const LanceDataset* dataset, const char* index_name);

/* Writes the 16-byte UUIDs (RFC 4122 byte order) of the segments of `index_name` to
 * `out_uuids` (room for `capacity` UUIDs) and their number to `*out_count` (optional).
 * More segments than `capacity` is LANCE_ERR_INVALID_ARGUMENT with nothing written; no such
 * index is LANCE_ERR_NOT_FOUND. Returns 0 or -1. */
int32_t lance_dataset_index_segments(const LanceDataset* dataset, const char* index_name,
                                     uint8_t* out_uuids, size_t capacity, uint64_t* out_count);

/* ---- Vector and full-text search --------------------------------------------------------
 * lance_scanner_nearest turns the scan into a k-nearest-neighbour search of `column` (lance-c's
 * checks: LANCE_ERR_INVALID_ARGUMENT for NULLs, k == 0, an unknown element type, or full-text
 * search already set): the batches hold the projected columns plus "_distance" (float32:
 * squared l2, 1 - cos, 1 - dot), nearest first, as lance's Scanner::nearest -- through the
 * column's vector index when its metric is the one asked for, else exact; deleted rows never
 * returned; fragments the index does not cover searched exactly. The setters tune it (0 /
 * -1 as below; applied when the scan starts): nprobes (default 20), refine_factor (re-rank
 * k x f candidates exactly), metric (default: the index's, l2 without one), use_index(false)
 * (exact search), prefilter(true) (with a filter: the filter first, the ANN over the passing
 * rows; default false: the filter over the k rows the ANN returns), ef (HNSW indexes: the
 * results kept per partition graph search; default 1.5 x k x refine_factor). Index
 * segments with a nearest query are LANCE_ERR_NOT_SUPPORTED when the scan
 * starts; without one LANCE_ERR_INVALID_ARGUMENT, as in lance-c. Full-text search checks its
 * arguments as lance-c does and fails with LANCE_ERR_NOT_SUPPORTED. */
int32_t lance_scanner_nearest(LanceScanner* scanner, const char* column, const void* query_data,
                              size_t query_len, LanceDataType element_type, uint32_t k);

int32_t lance_scanner_set_nprobes(LanceScanner* scanner, uint32_t n);
int32_t lance_scanner_set_refine_factor(LanceScanner* scanner, uint32_t f);
int32_t lance_scanner_set_ef(LanceScanner* scanner, uint32_t e);
int32_t lance_scanner_set_metric(LanceScanner* scanner, LanceMetricType metric);
int32_t lance_scanner_set_use_index(LanceScanner* scanner, bool enable);
int32_t lance_scanner_set_prefilter(LanceScanner* scanner, bool enable);

/* Restricts a nearest query to the index segments `segment_uuids` (`len` UUIDs of 16 bytes,
 * end to end); len 0 clears the restriction. Returns 0, or -1 for a NULL scanner or NULL
 * uuids with len > 0. */
int32_t lance_scanner_set_index_segments(LanceScanner* scanner, const uint8_t* segment_uuids,
                                         size_t len);

/* lance_scanner_full_text_search turns the scan into a BM25 search of `query` (lance-c's
 * semantics): over the NULL-terminated `columns`, or (NULL) every FTS-indexed column; over
 * several columns it is lance's multi-match (each row's best column score); max_fuzzy_distance
 * > 0 is a fuzzy match. The batches hold the projected columns plus "_score", best first. */
int32_t lance_scanner_full_text_search(LanceScanner* scanner, const char* query,
                                       const char* const* columns, uint32_t max_fuzzy_distance);

/* ---- Writing datasets -------------------------------------------------------------------- */

/* Write modes (passed as int32_t; other values are LANCE_ERR_INVALID_ARGUMENT). */
typedef enum {
  LANCE_WRITE_CREATE = 0,    /* new dataset; LANCE_ERR_DATASET_ALREADY_EXISTS if one is there */
  LANCE_WRITE_APPEND = 1,    /* add rows (same schema); creates the dataset when missing */
  LANCE_WRITE_OVERWRITE = 2, /* replace schema and rows in a new version; creates when missing */
} LanceWriteMode;

/* Writes the rows of `stream` to the dataset at `uri` (non-empty) and commits a version.
 * `schema` (kept by the caller, never released here) must describe the stream's fields
 * exactly (names, types, nullability, field metadata), else LANCE_ERR_INVALID_ARGUMENT.
 * `stream` (not NULL) is consumed on every return path. A dataset created by this call records
 * lance-c's auto-cleanup settings in its config ("lance.auto_cleanup.interval" = "20",
 * "lance.auto_cleanup.older_than" = "14days"), which lance writers act on (lance-cpp's own
 * commits do not clean up yet). On success, if `out_dataset` is not NULL, `*out_dataset` gets a
 * handle at the new version (to close); on error it is left alone. Returns 0 or -1. */
int32_t lance_dataset_write(const char* uri, const struct ArrowSchema* schema,
                            struct ArrowArrayStream* stream, int32_t mode,
                            const char* const* storage_opts, LanceDataset** out_dataset);

/* Write settings; 0 / NULL fields ask for the default. */
typedef struct LanceWriteParams {
  uint64_t max_rows_per_file;       /* rows per fragment (default 1,048,576) */
  uint64_t max_rows_per_group;      /* accepted; 2.x files have no row groups */
  uint64_t max_bytes_per_file;      /* accepted; lance-cpp caps files by rows only */
  const char* data_storage_version; /* "2.1", "2.2", "stable" (= 2.2); "2.0", "legacy", "0.1"
                                       and "next" are LANCE_ERR_NOT_SUPPORTED (lance-cpp cannot
                                       write them), other text LANCE_ERR_INVALID_ARGUMENT */
  bool enable_stable_row_ids;       /* new datasets only; always applied (no default marker) */
} LanceWriteParams;

/* lance_dataset_write with settings (`params` NULL: as lance_dataset_write). */
int32_t lance_dataset_write_with_params(const char* uri, const struct ArrowSchema* schema,
                                        struct ArrowArrayStream* stream, int32_t mode,
                                        const LanceWriteParams* params,
                                        const char* const* storage_opts,
                                        LanceDataset** out_dataset);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LANCE_H */
