/* The C ABI (lance/lance.h) exercised from plain C99 (-pedantic, warnings as errors): every
 * function, on datasets it writes itself and on a copy of a dataset lance 12 indexed, checking
 * row values, error codes and that error messages name the problem.
 *
 * Usage: lance_capi_c_test <copy of indexed.lance> <scratch dir> <indexed_indices.json> */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <lance/lance.h>

#include "arrow_rows.h"

/* headers_*_first.c: lance.h and another copy of the Arrow C structs in either order. */
int headers_lance_first(void);
int headers_abi_first(void);

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                             \
  do {                                                                          \
    ++checks;                                                                   \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

/* Expects the pending error to have `code` and a message containing `part`; takes it. */
#define CHECK_ERROR(code, part) check_error_at(__LINE__, (code), (part))

static void check_error_at(int line, LanceErrorCode code, const char* part) {
  const LanceErrorCode got = lance_last_error_code();
  const char* msg = lance_last_error_message();
  ++checks;
  if (got != code || msg == NULL || strstr(msg, part) == NULL) {
    fprintf(stderr, "%s:%d: expected error %d containing \"%s\", got %d \"%s\"\n", __FILE__, line,
            (int)code, part, (int)got, msg ? msg : "(null)");
    ++failures;
  }
  lance_free_string(msg);
  ++checks;
  if (lance_last_error_code() != LANCE_OK || lance_last_error_message() != NULL) {
    fprintf(stderr, "%s:%d: taking the message must clear the error\n", __FILE__, line);
    ++failures;
  }
}

#define CHECK_OK() check_ok_at(__LINE__)

static void check_ok_at(int line) {
  ++checks;
  if (lance_last_error_code() != LANCE_OK) {
    const char* msg = lance_last_error_message();
    fprintf(stderr, "%s:%d: unexpected error: %s\n", __FILE__, line, msg ? msg : "(null)");
    lance_free_string(msg);
    ++failures;
  }
}

static char scratch[4096];

static const char* path_in(const char* name, char* buf) {
  sprintf(buf, "%s/%s", scratch, name);
  return buf;
}

static void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

/* Every row of a scan of `ds` with `columns` (NULL-terminated or NULL) and `filter`. */
static void scan_rows(const LanceDataset* ds, const char* const* columns, const char* filter,
                      TextTable* out) {
  struct ArrowArrayStream stream;
  LanceScanner* s = lance_scanner_new(ds, columns, filter);
  text_table_init(out);
  CHECK(s != NULL);
  if (s == NULL) return;
  CHECK(lance_scanner_to_arrow_stream(s, &stream) == 0);
  CHECK_OK();
  CHECK(text_table_read(out, &stream) == 0);
  lance_scanner_close(s);
}

/* The rows of `t` equal people rows `ids[0..n)` (all three columns, in that order). */
static void check_people(const TextTable* t, const int64_t* ids, int64_t n, int line) {
  char got[256], want[256];
  int64_t r;
  ++checks;
  if (t->nrows != n) {
    fprintf(stderr, "%s:%d: %lld rows, expected %lld\n", __FILE__, line, (long long)t->nrows,
            (long long)n);
    ++failures;
    return;
  }
  for (r = 0; r < n; ++r) {
    text_table_row(t, r, got, sizeof(got));
    people_row_text(ids[r], want, sizeof(want));
    ++checks;
    if (strcmp(got, want) != 0) {
      fprintf(stderr, "%s:%d: row %lld is \"%s\", expected \"%s\"\n", __FILE__, line, (long long)r,
              got, want);
      ++failures;
      return;
    }
  }
}

static int64_t range_ids[1000];
static const int64_t* range(int64_t from, int64_t to) {
  int64_t i;
  for (i = from; i < to; ++i) range_ids[i - from] = i;
  return range_ids;
}

/* ---- Errors and NULL handling ------------------------------------------------------------ */

static void test_errors(void) {
  LanceDataset* ds;
  struct ArrowSchema schema;
  struct ArrowArrayStream stream;
  LanceBatch* batch = (LanceBatch*)&schema; /* must be overwritten with NULL */
  uint64_t one = 0;
  const char* bad_opts[] = {"k", NULL};

  CHECK(lance_last_error_code() == LANCE_OK);
  CHECK(lance_last_error_message() == NULL);
  ds = lance_dataset_open("/nonexistent/lance-capi-test/xyz.lance", NULL, 0);
  CHECK(ds == NULL);
  CHECK_ERROR(LANCE_ERR_NOT_FOUND, "xyz.lance");
  CHECK(lance_dataset_open(NULL, NULL, 0) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "uri must not be NULL");
  CHECK(lance_dataset_open("memory://capi_c/none", bad_opts, 0) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "key-value pairs");
  CHECK(lance_dataset_open("s3://bucket/t.lance", NULL, 0) == NULL);
  CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "s3");

  /* NULL handles: safe frees, errors naming the argument. */
  lance_dataset_close(NULL);
  lance_scanner_close(NULL);
  lance_batch_free(NULL);
  lance_versions_close(NULL);
  lance_data_statistics_close(NULL);
  lance_free_string(NULL);
  CHECK(lance_dataset_version(NULL) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
  CHECK(lance_dataset_count_rows(NULL) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
  CHECK(lance_dataset_latest_version(NULL) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
  CHECK(lance_dataset_fragment_count(NULL) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
  CHECK(lance_dataset_fragment_ids(NULL, &one) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "out_ids must not be NULL");
  CHECK(lance_dataset_schema(NULL, &schema) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset and out must not be NULL");
  CHECK(lance_dataset_take(NULL, &one, 1, NULL, &stream) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "indices");
  CHECK(lance_dataset_versions(NULL) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_versions_count(NULL) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "versions is NULL");
  CHECK(lance_versions_id_at(NULL, 0) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "versions is NULL");
  CHECK(lance_versions_timestamp_ms_at(NULL, 0) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "versions is NULL");
  CHECK(lance_dataset_calculate_data_stats(NULL) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_data_statistics_count(NULL) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "stats is NULL");
  CHECK(lance_data_statistics_field_id_at(NULL, 0) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "stats is NULL");
  CHECK(lance_data_statistics_bytes_on_disk_at(NULL, 0) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "stats is NULL");
  CHECK(lance_dataset_restore(NULL, 1) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_scanner_new(NULL, NULL, NULL) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_scanner_set_limit(NULL, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
  CHECK(lance_scanner_set_offset(NULL, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
  CHECK(lance_scanner_set_batch_size(NULL, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
  CHECK(lance_scanner_with_row_id(NULL, true) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
  CHECK(lance_scanner_set_fragment_ids(NULL, &one, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
  CHECK(lance_scanner_to_arrow_stream(NULL, &stream) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner and out must not be NULL");
  CHECK(lance_scanner_next(NULL, &batch) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner and out must not be NULL");
  CHECK(lance_scanner_poll_next(NULL, NULL, NULL, &batch) == LANCE_POLL_ERROR);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner and out must not be NULL");
  CHECK(lance_batch_to_arrow(NULL, NULL, &schema) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "batch, out_array, and out_schema must not be NULL");
  CHECK(lance_dataset_delete(NULL, "true", NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset and predicate must not be NULL");
  CHECK(lance_dataset_update(NULL, NULL, NULL, NULL, 1, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_dataset_compact_files(NULL, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_dataset_drop_columns(NULL, NULL, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_dataset_alter_columns(NULL, NULL, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_dataset_add_columns_sql(NULL, NULL, 1, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_dataset_add_columns_nulls(NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_dataset_add_columns_stream(NULL, NULL, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "stream must not be NULL");
  CHECK(lance_dataset_merge_insert(NULL, NULL, 1, NULL, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "source stream must not be NULL");
  CHECK(lance_dataset_index_count(NULL) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
  CHECK(lance_dataset_index_list_json(NULL) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset is NULL");
  CHECK(lance_dataset_index_segment_count(NULL, "x") == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset and index_name must not be NULL");
  CHECK(lance_dataset_drop_index(NULL, "x") == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset and name must not be NULL");
  CHECK(lance_write_fragments(NULL, NULL, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "uri, schema, and stream must not be NULL");
}

/* ---- Writing ----------------------------------------------------------------------------- */

static void check_schema_of(const LanceDataset* ds) {
  struct ArrowSchema s;
  memset(&s, 0, sizeof(s));
  CHECK(lance_dataset_schema(ds, &s) == 0);
  CHECK_OK();
  CHECK(strcmp(s.format, "+s") == 0);
  CHECK(s.n_children == 3);
  if (s.n_children == 3) {
    CHECK(strcmp(s.children[0]->name, "id") == 0 && strcmp(s.children[0]->format, "l") == 0);
    CHECK((s.children[0]->flags & ARROW_FLAG_NULLABLE) == 0);
    CHECK(strcmp(s.children[1]->name, "name") == 0 && strcmp(s.children[1]->format, "u") == 0);
    CHECK((s.children[1]->flags & ARROW_FLAG_NULLABLE) != 0);
    CHECK(strcmp(s.children[2]->name, "score") == 0 && strcmp(s.children[2]->format, "g") == 0);
  }
  s.release(&s);
}

/* Writes people rows [0, 25) in fragments of 10, then appends [25, 35). Returns the handle. */
static LanceDataset* test_write(const char* uri) {
  struct ArrowSchema schema, other;
  struct ArrowArrayStream stream;
  LanceDataset* ds = NULL;
  LanceDataset* untouched = (LanceDataset*)&schema;
  LanceWriteParams params;
  uint64_t ids[3] = {9, 9, 9};
  TextTable t;
  int released;

  memset(&params, 0, sizeof(params));
  params.max_rows_per_file = 10;
  params.data_storage_version = "stable";
  people_schema(&schema);
  people_stream(0, 25, 7, &stream);
  released = arrow_rows_streams_released;
  CHECK(lance_dataset_write_with_params(uri, &schema, &stream, LANCE_WRITE_CREATE, &params, NULL, &ds) == 0);
  CHECK_OK();
  CHECK(arrow_rows_streams_released == released + 1); /* consumed */
  CHECK(schema.release != NULL);                      /* borrowed, not released */
  CHECK(ds != NULL);
  if (ds == NULL) return NULL;
  CHECK(lance_dataset_version(ds) == 1);
  CHECK(lance_dataset_count_rows(ds) == 25);
  CHECK(lance_dataset_fragment_count(ds) == 3);
  CHECK(lance_dataset_fragment_ids(ds, ids) == 0);
  CHECK(ids[0] == 0 && ids[1] == 1 && ids[2] == 2);
  check_schema_of(ds);
  scan_rows(ds, NULL, NULL, &t);
  check_people(&t, range(0, 25), 25, __LINE__);
  text_table_free(&t);

  /* CREATE again: the dataset exists; the stream is consumed anyway. */
  people_stream(100, 1, 1, &stream);
  released = arrow_rows_streams_released;
  CHECK(lance_dataset_write(uri, &schema, &stream, LANCE_WRITE_CREATE, NULL, &untouched) == -1);
  CHECK_ERROR(LANCE_ERR_DATASET_ALREADY_EXISTS, "already exists");
  CHECK(arrow_rows_streams_released == released + 1);
  CHECK(untouched == (LanceDataset*)&schema); /* left alone on error */

  /* Argument errors, each naming the problem; the stream is consumed on every path. */
  people_stream(100, 1, 1, &stream);
  CHECK(lance_dataset_write(uri, &schema, &stream, 99, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid write mode 99");
  people_stream(100, 1, 1, &stream);
  CHECK(lance_dataset_write(NULL, &schema, &stream, LANCE_WRITE_APPEND, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "uri must not be NULL");
  CHECK(stream.release == NULL);
  people_stream(100, 1, 1, &stream);
  CHECK(lance_dataset_write("", &schema, &stream, LANCE_WRITE_APPEND, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "uri must not be empty");
  people_stream(100, 1, 1, &stream);
  CHECK(lance_dataset_write(uri, NULL, &stream, LANCE_WRITE_APPEND, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "schema must not be NULL");
  CHECK(lance_dataset_write(uri, &schema, NULL, LANCE_WRITE_APPEND, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "stream must not be NULL");
  int64_schema("id", 0, &other);
  people_stream(100, 1, 1, &stream);
  CHECK(lance_dataset_write(uri, &other, &stream, LANCE_WRITE_APPEND, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "does not match the provided schema");
  other.release(&other);
  params.data_storage_version = "bogus";
  people_stream(100, 1, 1, &stream);
  CHECK(lance_dataset_write_with_params(uri, &schema, &stream, LANCE_WRITE_APPEND, &params, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "bogus");
  params.data_storage_version = "";
  people_stream(100, 1, 1, &stream);
  CHECK(lance_dataset_write_with_params(uri, &schema, &stream, LANCE_WRITE_APPEND, &params, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "must not be an empty string");
  params.data_storage_version = "2.0";
  people_stream(100, 1, 1, &stream);
  CHECK(lance_dataset_write_with_params(uri, &schema, &stream, LANCE_WRITE_APPEND, &params, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "2.0");
  /* An append of another schema. */
  int64_schema("other", 1, &other);
  int64_stream("other", 1, 3, 0, 1, 3, &stream);
  CHECK(lance_dataset_write(uri, &other, &stream, LANCE_WRITE_APPEND, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "other");
  other.release(&other);

  /* Append: a new version; the first handle still reads version 1. */
  {
    LanceDataset* v2 = NULL;
    people_stream(25, 10, 10, &stream);
    CHECK(lance_dataset_write(uri, &schema, &stream, LANCE_WRITE_APPEND, NULL, &v2) == 0);
    CHECK_OK();
    CHECK(v2 != NULL && lance_dataset_version(v2) == 2 && lance_dataset_count_rows(v2) == 35);
    CHECK(lance_dataset_count_rows(ds) == 25);
    CHECK(lance_dataset_latest_version(ds) == 2);
    CHECK_OK();
    lance_dataset_close(ds);
    ds = v2;
  }
  schema.release(&schema);
  return ds;
}

static void test_overwrite_and_versions(void) {
  char uri[4200];
  struct ArrowSchema schema;
  struct ArrowArrayStream stream;
  LanceDataset* ds = NULL;
  LanceDataset* v1;
  LanceVersions* vs;
  TextTable t;
  path_in("overwrite.lance", uri);
  people_schema(&schema);
  /* Overwrite of a missing path creates the dataset. */
  people_stream(0, 5, 5, &stream);
  CHECK(lance_dataset_write(uri, &schema, &stream, LANCE_WRITE_OVERWRITE, NULL, &ds) == 0);
  lance_dataset_close(ds);
  people_stream(50, 3, 3, &stream);
  CHECK(lance_dataset_write(uri, &schema, &stream, LANCE_WRITE_OVERWRITE, NULL, &ds) == 0);
  CHECK(lance_dataset_version(ds) == 2);
  scan_rows(ds, NULL, NULL, &t);
  check_people(&t, range(50, 53), 3, __LINE__);
  text_table_free(&t);
  /* Open at version 1: the first content. */
  v1 = lance_dataset_open(uri, NULL, 1);
  CHECK(v1 != NULL);
  CHECK_OK();
  if (v1 != NULL) {
    scan_rows(v1, NULL, NULL, &t);
    check_people(&t, range(0, 5), 5, __LINE__);
    text_table_free(&t);
    lance_dataset_close(v1);
  }
  CHECK(lance_dataset_open(uri, NULL, 42) == NULL);
  CHECK_ERROR(LANCE_ERR_NOT_FOUND, "42");
  vs = lance_dataset_versions(ds);
  CHECK(vs != NULL);
  CHECK(lance_versions_count(vs) == 2);
  CHECK(lance_versions_id_at(vs, 0) == 1 && lance_versions_id_at(vs, 1) == 2);
  CHECK(lance_versions_timestamp_ms_at(vs, 0) > 1600000000000LL);
  CHECK(lance_versions_timestamp_ms_at(vs, 1) >= lance_versions_timestamp_ms_at(vs, 0));
  CHECK_OK();
  CHECK(lance_versions_id_at(vs, 2) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "version index 2 out of range; count = 2");
  CHECK(lance_versions_timestamp_ms_at(vs, 7) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "out of range");
  lance_versions_close(vs);
  lance_dataset_close(ds);
  schema.release(&schema);
}

/* ---- Scans ------------------------------------------------------------------------------- */

typedef struct {
  volatile int done;
  int status;
  void* stream;
  LanceErrorCode code;
  char message[512];
} AsyncResult;

static void on_scan(void* ctx, int32_t status, void* result) {
  AsyncResult* r = (AsyncResult*)ctx;
  r->status = status;
  r->stream = result;
  r->code = lance_last_error_code();
  if (status != 0) {
    const char* m = lance_last_error_message();
    if (m != NULL) {
      strncpy(r->message, m, sizeof(r->message) - 1);
      lance_free_string(m);
    }
  }
  r->done = 1;
}

static volatile int wakes = 0;
static void on_wake(void* ctx) {
  (void)ctx;
  wakes = wakes + 1;
}

static void wait_for(volatile int* flag) {
  int i;
  for (i = 0; i < 10000 && !*flag; ++i) sleep_ms(1);
}

static void test_scans(const LanceDataset* ds) {
  TextTable t;
  char row[256];
  struct ArrowArrayStream stream;
  LanceScanner* s;
  LanceBatch* b;
  int64_t want[40], n = 0, i;

  /* Everything, in order, across fragments. */
  scan_rows(ds, NULL, NULL, &t);
  check_people(&t, range(0, 35), 35, __LINE__);
  text_table_free(&t);

  /* Projection order and a filter. */
  {
    const char* cols[] = {"score", "id", NULL};
    scan_rows(ds, cols, "id >= 20 AND name IS NOT NULL AND score > 11", &t);
    CHECK(t.ncols == 2 && strcmp(t.names[0], "score") == 0 && strcmp(t.names[1], "id") == 0);
    CHECK(t.nrows == 6); /* 23 25 26 29 31 34 */
    if (t.nrows == 6) {
      const int ids6[] = {23, 25, 26, 29, 31, 34};
      for (i = 0; i < 6; ++i) {
        char want6[64];
        sprintf(want6, "score=%g id=%d", ids6[i] / 2.0, ids6[i]);
        text_table_row(&t, i, row, sizeof(row));
        CHECK(strcmp(row, want6) == 0);
      }
    }
    text_table_free(&t);
  }

  /* Limit, offset, batch size, row ids, fragment ids. */
  s = lance_scanner_new(ds, NULL, NULL);
  CHECK(lance_scanner_set_limit(s, 12) == 0);
  CHECK(lance_scanner_set_offset(s, 8) == 0);
  CHECK(lance_scanner_set_batch_size(s, 3) == 0);
  CHECK(lance_scanner_with_row_id(s, true) == 0);
  CHECK_OK();
  CHECK(lance_scanner_to_arrow_stream(s, &stream) == 0);
  text_table_init(&t);
  CHECK(text_table_read(&t, &stream) == 0);
  CHECK(t.nrows == 12 && t.max_batch_rows <= 3 && t.nbatches >= 4);
  CHECK(t.ncols == 4 && strcmp(t.names[3], "_rowid") == 0);
  /* Rows 8..19: row 8, 9 in fragment 0, 10..19 in fragment 1 (row ids = fragment << 32 | row). */
  CHECK(strcmp(t.cells[0][0], "8") == 0 && strcmp(t.cells[0][3], "8") == 0);
  CHECK(strcmp(t.cells[2][0], "10") == 0 && strcmp(t.cells[2][3], "4294967296") == 0);
  CHECK(strcmp(t.cells[11][0], "19") == 0 && strcmp(t.cells[11][3], "4294967305") == 0);
  text_table_free(&t);
  /* The scanner can start again, with other settings. */
  {
    const uint64_t frags[] = {3, 1, 77};
    CHECK(lance_scanner_set_fragment_ids(s, frags, 3) == 0);
    CHECK(lance_scanner_set_offset(s, 0) == 0);
    CHECK(lance_scanner_set_limit(s, 100) == 0);
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == 0);
    text_table_init(&t);
    CHECK(text_table_read(&t, &stream) == 0);
    CHECK(t.nrows == 20); /* fragment 1 (ids 10..19) then 3 (ids 25..34) */
    CHECK(strcmp(t.cells[0][0], "10") == 0 && strcmp(t.cells[10][0], "25") == 0);
    CHECK(strcmp(t.cells[10][3], "12884901888") == 0);
    text_table_free(&t);
    CHECK(lance_scanner_set_fragment_ids(s, NULL, 0) == 0); /* nothing */
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == 0);
    text_table_init(&t);
    CHECK(text_table_read(&t, &stream) == 0);
    CHECK(t.nrows == 0 && t.ncols == 4);
    text_table_free(&t);
    CHECK(lance_scanner_set_fragment_ids(s, NULL, 2) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "ids is NULL but len > 0");
  }
  CHECK(lance_scanner_set_limit(s, -1) == 0); /* checked when the scan starts */
  CHECK(lance_scanner_to_arrow_stream(s, &stream) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "negative limit");
  lance_scanner_close(s);

  /* System columns anywhere in the projection. */
  {
    const char* cols[] = {"_rowaddr", "id", "_rowid", NULL};
    scan_rows(ds, cols, "id = 12", &t);
    CHECK(t.nrows == 1 && t.ncols == 3);
    text_table_row(&t, 0, row, sizeof(row));
    CHECK(strcmp(row, "_rowaddr=4294967298 id=12 _rowid=4294967298") == 0);
    text_table_free(&t);
  }

  /* Bad columns and filters fail when the scan starts, naming the problem. */
  {
    const char* cols[] = {"id", "no_such_column", NULL};
    s = lance_scanner_new(ds, cols, NULL);
    CHECK(s != NULL);
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "no_such_column");
    CHECK(lance_scanner_next(s, &b) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "no_such_column");
    lance_scanner_close(s);
    s = lance_scanner_new(ds, NULL, "id >>> 3");
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "id >>> 3");
    lance_scanner_close(s);
    s = lance_scanner_new(ds, NULL, "missing_col > 3");
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "missing_col");
    lance_scanner_close(s);
  }

  /* Batch by batch. */
  s = lance_scanner_new(ds, NULL, "id % 2 = 0");
  CHECK(lance_scanner_set_batch_size(s, 4) == 0);
  text_table_init(&t);
  for (;;) {
    struct ArrowArray a;
    struct ArrowSchema sc;
    int32_t rc = lance_scanner_next(s, &b);
    if (rc == 1) {
      CHECK(b == NULL);
      CHECK_OK();
      break;
    }
    CHECK(rc == 0 && b != NULL);
    if (rc != 0) break;
    CHECK(lance_batch_to_arrow(b, &a, &sc) == 0);
    CHECK(a.length <= 4);
    text_table_append(&t, &a, &sc);
    a.release(&a);
    sc.release(&sc);
    lance_batch_free(b);
  }
  CHECK(lance_scanner_next(s, &b) == 1); /* stays at the end */
  for (i = 0, n = 0; i < 35; i += 2) want[n++] = i;
  check_people(&t, want, n, __LINE__);
  text_table_free(&t);
  lance_scanner_close(s);

  /* Polling: the first poll starts the scan in the background. */
  s = lance_scanner_new(ds, NULL, "id >= 30");
  CHECK(lance_scanner_set_batch_size(s, 2) == 0);
  text_table_init(&t);
  {
    int pending = 0, polls = 0;
    for (; polls < 100000; ++polls) {
      LancePollStatus st = lance_scanner_poll_next(s, on_wake, NULL, &b);
      if (st == LANCE_POLL_FINISHED) {
        CHECK(b == NULL);
        break;
      }
      if (st == LANCE_POLL_PENDING) {
        const int before = wakes;
        ++pending;
        CHECK(b == NULL);
        while (wakes == before) sleep_ms(1);
        continue;
      }
      CHECK(st == LANCE_POLL_READY && b != NULL);
      if (st != LANCE_POLL_READY) break;
      {
        struct ArrowArray a;
        struct ArrowSchema sc;
        CHECK(lance_batch_to_arrow(b, &a, &sc) == 0);
        text_table_append(&t, &a, &sc);
        a.release(&a);
        sc.release(&sc);
      }
      lance_batch_free(b);
    }
    /* Each pending poll was followed by a wake (the first poll usually is pending: it starts
     * the scan; a scheduler may also let the scan thread win). */
    CHECK(wakes >= pending);
    CHECK(lance_scanner_poll_next(s, on_wake, NULL, &b) == LANCE_POLL_FINISHED);
  }
  check_people(&t, range(30, 35), 5, __LINE__);
  CHECK(t.max_batch_rows <= 2);
  text_table_free(&t);
  lance_scanner_close(s);

  /* next() and poll_next() on one scanner read one scan. */
  s = lance_scanner_new(ds, NULL, "id < 6");
  CHECK(lance_scanner_set_batch_size(s, 1) == 0);
  CHECK(lance_scanner_next(s, &b) == 0);
  lance_batch_free(b);
  {
    int64_t got = 1;
    LancePollStatus st;
    while ((st = lance_scanner_poll_next(s, on_wake, NULL, &b)) != LANCE_POLL_FINISHED) {
      if (st == LANCE_POLL_PENDING) {
        sleep_ms(1);
        continue;
      }
      CHECK(st == LANCE_POLL_READY);
      if (st != LANCE_POLL_READY) break;
      lance_batch_free(b);
      ++got;
    }
    CHECK(got == 6);
  }
  lance_scanner_close(s);
  /* A poll of a bad scan reports its error. */
  s = lance_scanner_new(ds, NULL, "nope = 1");
  {
    LancePollStatus st;
    int i2;
    for (i2 = 0; i2 < 10000; ++i2) {
      st = lance_scanner_poll_next(s, NULL, NULL, &b);
      if (st != LANCE_POLL_PENDING) break;
      sleep_ms(1);
    }
    CHECK(st == LANCE_POLL_ERROR && b == NULL);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "nope");
  }
  lance_scanner_close(s); /* closing mid-scan is fine too */
  s = lance_scanner_new(ds, NULL, NULL);
  CHECK(lance_scanner_poll_next(s, NULL, NULL, &b) != LANCE_POLL_ERROR);
  if (b != NULL) lance_batch_free(b);
  lance_scanner_close(s);

  /* Asynchronous scan: the settings are captured, the scanner closed at once. */
  {
    AsyncResult r;
    memset(&r, 0, sizeof(r));
    s = lance_scanner_new(ds, NULL, "id BETWEEN 3 AND 7");
    lance_scanner_scan_async(s, on_scan, &r);
    lance_scanner_close(s);
    wait_for(&r.done);
    CHECK(r.done && r.status == 0 && r.stream != NULL);
    if (r.stream != NULL) {
      text_table_init(&t);
      CHECK(text_table_read(&t, (struct ArrowArrayStream*)r.stream) == 0);
      check_people(&t, range(3, 8), 5, __LINE__);
      text_table_free(&t);
      free(r.stream); /* the struct is the callback's (malloc'ed) */
    }
    memset(&r, 0, sizeof(r));
    s = lance_scanner_new(ds, NULL, "bogus_column = 2");
    lance_scanner_scan_async(s, on_scan, &r);
    lance_scanner_close(s);
    wait_for(&r.done);
    CHECK(r.done && r.status == -1 && r.stream == NULL);
    CHECK(r.code == LANCE_ERR_INVALID_ARGUMENT && strstr(r.message, "bogus_column") != NULL);
    memset(&r, 0, sizeof(r));
    lance_scanner_scan_async(NULL, on_scan, &r);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
    wait_for(&r.done);
    CHECK(r.done && r.status == -1 && r.code == LANCE_ERR_INVALID_ARGUMENT);
  }
}

static void test_take(const LanceDataset* ds) {
  struct ArrowArrayStream stream;
  TextTable t;
  char row[256];
  const uint64_t idx[] = {34, 0, 12, 12, 9};
  const int64_t want[] = {34, 0, 12, 12, 9};
  const char* cols[] = {"name", "_rowid", "id", NULL};
  const char* bad[] = {"nothing_here", NULL};
  uint64_t rowids[4];

  CHECK(lance_dataset_take(ds, idx, 5, NULL, &stream) == 0);
  CHECK_OK();
  text_table_init(&t);
  CHECK(text_table_read(&t, &stream) == 0);
  CHECK(t.nbatches == 1); /* one batch, as lance-c */
  check_people(&t, want, 5, __LINE__);
  text_table_free(&t);
  CHECK(lance_dataset_take(ds, idx, 3, cols, &stream) == 0);
  text_table_init(&t);
  CHECK(text_table_read(&t, &stream) == 0);
  text_table_row(&t, 0, row, sizeof(row));
  CHECK(strcmp(row, "name=n34 _rowid=12884901897 id=34") == 0);
  text_table_row(&t, 1, row, sizeof(row));
  CHECK(strcmp(row, "name=null _rowid=0 id=0") == 0);
  text_table_free(&t);
  CHECK(lance_dataset_take(ds, idx, 0, NULL, &stream) == 0);
  text_table_init(&t);
  CHECK(text_table_read(&t, &stream) == 0);
  CHECK(t.nrows == 0 && t.ncols == 3);
  text_table_free(&t);
  {
    const uint64_t out_of_range[] = {35};
    CHECK(lance_dataset_take(ds, out_of_range, 1, NULL, &stream) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "offset 35 is out of range");
  }
  CHECK(lance_dataset_take(ds, NULL, 0, NULL, &stream) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset, indices, and out must not be NULL");
  CHECK(lance_dataset_take(ds, idx, 1, bad, &stream) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "nothing_here");

  /* By row id: ids of fragments 1 and 3, a missing one left out, order and repeats kept. */
  rowids[0] = (3ULL << 32) | 2; /* id 27 */
  rowids[1] = (1ULL << 32) | 0; /* id 10 */
  rowids[2] = (9ULL << 32) | 0; /* no such fragment */
  rowids[3] = (3ULL << 32) | 2;
  CHECK(lance_dataset_take_rows(ds, rowids, 4, NULL, &stream) == 0);
  text_table_init(&t);
  CHECK(text_table_read(&t, &stream) == 0);
  {
    const int64_t w[] = {27, 10, 27};
    check_people(&t, w, 3, __LINE__);
  }
  text_table_free(&t);
  CHECK(lance_dataset_take_rows(ds, NULL, 0, NULL, &stream) == 0);
  text_table_init(&t);
  CHECK(text_table_read(&t, &stream) == 0);
  CHECK(t.nrows == 0);
  text_table_free(&t);
  CHECK(lance_dataset_take_rows(ds, NULL, 1, NULL, &stream) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "row_ids must not be NULL when num_row_ids = 1");
  CHECK(lance_dataset_take_rows(NULL, rowids, 1, NULL, &stream) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(lance_dataset_take_rows(ds, rowids, 1, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "out must not be NULL");
  CHECK(lance_dataset_take_rows(ds, rowids, 1, bad, &stream) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "nothing_here");
}

static void test_data_statistics(const LanceDataset* ds) {
  LanceDataStatistics* st = lance_dataset_calculate_data_stats(ds);
  uint64_t i, total = 0;
  CHECK(st != NULL);
  if (st == NULL) return;
  CHECK(lance_data_statistics_count(st) == 3);
  CHECK_OK();
  for (i = 0; i < 3; ++i) {
    const uint64_t bytes = lance_data_statistics_bytes_on_disk_at(st, (size_t)i);
    CHECK(lance_data_statistics_field_id_at(st, (size_t)i) == (uint32_t)i);
    CHECK_OK();
    CHECK(bytes > 0);
    total += bytes;
  }
  /* 35 int64 ids alone take 280 bytes uncompressed; the whole table is small. */
  CHECK(total > 100 && total < 100000);
  CHECK(lance_data_statistics_field_id_at(st, 3) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "field statistics index 3 out of range; count = 3");
  CHECK(lance_data_statistics_bytes_on_disk_at(st, 99) == 0);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "out of range");
  lance_data_statistics_close(st);
}

/* ---- Mutations --------------------------------------------------------------------------- */

static void test_delete_update(LanceDataset* ds) {
  uint64_t n = 77;
  const uint64_t v = lance_dataset_version(ds);
  TextTable t;
  char row[256];
  const char* cols[] = {"name", "score"};
  const char* vals[] = {"'upd'", "score * 10"};
  const char* empty[] = {""};

  CHECK(lance_dataset_delete(ds, "id % 5 = 0", &n) == 0);
  CHECK_OK();
  CHECK(n == 7); /* 0 5 10 15 20 25 30 */
  CHECK(lance_dataset_version(ds) == v + 1);
  CHECK(lance_dataset_count_rows(ds) == 28);
  n = 77;
  CHECK(lance_dataset_delete(ds, "id > 1000", &n) == 0);
  CHECK(n == 0);
  CHECK(lance_dataset_delete(ds, "", &n) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "predicate must not be empty");
  n = 77;
  CHECK(lance_dataset_delete(ds, "id >>> 2", &n) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "id >>> 2");
  CHECK(n == 77); /* untouched on error */
  CHECK(lance_dataset_delete(ds, "ghost = 1", NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "ghost");

  n = 0;
  CHECK(lance_dataset_update(ds, "id < 4", cols, vals, 2, &n) == 0);
  CHECK_OK();
  CHECK(n == 3); /* 1 2 3 */
  CHECK(lance_dataset_version(ds) == v + 2);
  scan_rows(ds, NULL, "id < 5", &t);
  CHECK(t.nrows == 4);
  if (t.nrows == 4) {
    text_table_row(&t, 0, row, sizeof(row)); /* the updated rows moved to a new fragment */
    CHECK(strcmp(row, "id=4 name=n4 score=null") == 0);
  }
  text_table_free(&t);
  scan_rows(ds, NULL, "name = 'upd'", &t);
  CHECK(t.nrows == 3);
  if (t.nrows == 3) {
    /* Updated rows move to a new fragment; their order there is the update's. */
    int found = 0;
    int64_t r;
    for (r = 0; r < t.nrows; ++r) {
      text_table_row(&t, r, row, sizeof(row));
      found += strcmp(row, "id=2 name=upd score=10") == 0;
      found += strcmp(row, "id=1 name=upd score=5") == 0;
      found += strcmp(row, "id=3 name=upd score=15") == 0;
    }
    CHECK(found == 3);
  }
  text_table_free(&t);
  CHECK(lance_dataset_update(ds, NULL, NULL, NULL, 0, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "num_updates must be >= 1");
  CHECK(lance_dataset_update(ds, NULL, NULL, vals, 1, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "columns and values must not be NULL");
  CHECK(lance_dataset_update(ds, "", cols, vals, 1, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "pass NULL to update all rows");
  CHECK(lance_dataset_update(ds, NULL, empty, vals, 1, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "columns[0] must not be NULL or empty");
  {
    const char* ghost[] = {"ghost"};
    CHECK(lance_dataset_update(ds, NULL, ghost, vals, 1, NULL) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "ghost");
  }
  /* Every row when the predicate is NULL. */
  {
    const char* c1[] = {"score"};
    const char* v1[] = {"1.25"};
    n = 0;
    CHECK(lance_dataset_update(ds, NULL, c1, v1, 1, &n) == 0);
    CHECK(n == 28);
    scan_rows(ds, NULL, "score = 1.25", &t);
    CHECK(t.nrows == 28);
    text_table_free(&t);
  }
}

static void merge_source(int64_t start, int64_t n, struct ArrowArrayStream* out) {
  people_stream(start, n, 2, out);
}

static void test_merge_insert(LanceDataset* ds) {
  struct ArrowArrayStream src;
  LanceMergeInsertResult r;
  LanceMergeInsertParams p;
  const char* on[] = {"id"};
  const char* empty_on[] = {""};
  TextTable t;
  const uint64_t before = lance_dataset_count_rows(ds);
  int released;

  /* Default (NULL params): find-or-create. 33 and 34 exist, 40 and 41 are new. */
  people_stream(33, 2, 2, &src);
  released = arrow_rows_streams_released;
  memset(&r, 0xff, sizeof(r));
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, NULL, &r) == 0);
  CHECK_OK();
  CHECK(arrow_rows_streams_released == released + 1);
  CHECK(r.num_inserted_rows == 0 && r.num_updated_rows == 0 && r.num_deleted_rows == 0);
  CHECK(lance_dataset_count_rows(ds) == before);
  memset(&p, 0, sizeof(p)); /* all zero: the same defaults */
  people_stream(40, 2, 2, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == 0);
  CHECK(r.num_inserted_rows == 2 && r.num_updated_rows == 0 && r.num_deleted_rows == 0);
  CHECK(lance_dataset_count_rows(ds) == before + 2);
  merge_source(42, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, NULL, &r) == 0);
  CHECK(r.num_inserted_rows == 1);
  /* A configuration that can change nothing is refused. */
  memset(&p, 0, sizeof(p));
  p.when_not_matched = LANCE_MERGE_WHEN_NOT_MATCHED_DO_NOTHING;
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "change nothing");
  CHECK(src.release == NULL);

  /* Upsert. */
  memset(&p, 0, sizeof(p));
  p.when_matched = LANCE_MERGE_WHEN_MATCHED_UPDATE_ALL;
  merge_source(41, 3, &src); /* 41, 42 match; 43 new */
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == 0);
  CHECK(r.num_inserted_rows == 1 && r.num_updated_rows == 2 && r.num_deleted_rows == 0);
  scan_rows(ds, NULL, "id >= 40", &t);
  CHECK(t.nrows == 4);
  text_table_free(&t);

  /* Conditional update, matched delete, conditional delete of unmatched rows. */
  memset(&p, 0, sizeof(p));
  p.when_matched = LANCE_MERGE_WHEN_MATCHED_UPDATE_IF;
  p.when_matched_expr = "target.id = 40";
  p.when_not_matched = LANCE_MERGE_WHEN_NOT_MATCHED_DO_NOTHING;
  merge_source(40, 2, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == 0);
  CHECK(r.num_updated_rows == 1 && r.num_inserted_rows == 0);
  memset(&p, 0, sizeof(p));
  p.when_matched = LANCE_MERGE_WHEN_MATCHED_DELETE;
  p.when_not_matched = LANCE_MERGE_WHEN_NOT_MATCHED_DO_NOTHING;
  merge_source(43, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == 0);
  CHECK(r.num_deleted_rows == 1 && r.num_inserted_rows == 0 && r.num_updated_rows == 0);
  memset(&p, 0, sizeof(p));
  p.when_not_matched = LANCE_MERGE_WHEN_NOT_MATCHED_DO_NOTHING;
  p.when_not_matched_by_source = LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_DELETE_IF;
  p.when_not_matched_by_source_expr = "id >= 41";
  merge_source(40, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == 0);
  CHECK(r.num_deleted_rows == 2); /* 41, 42 */
  scan_rows(ds, NULL, "id >= 40", &t);
  CHECK(t.nrows == 1 && strcmp(t.cells[0][0], "40") == 0);
  text_table_free(&t);
  memset(&p, 0, sizeof(p));
  p.when_matched = LANCE_MERGE_WHEN_MATCHED_FAIL;
  merge_source(40, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "fail");

  /* Argument errors (the source is consumed on every path). */
  memset(&p, 0, sizeof(p));
  p.when_matched = 9;
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid when_matched 9");
  CHECK(src.release == NULL);
  memset(&p, 0, sizeof(p));
  p.when_not_matched = 5;
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid when_not_matched 5");
  memset(&p, 0, sizeof(p));
  p.when_not_matched_by_source = 3;
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid when_not_matched_by_source 3");
  memset(&p, 0, sizeof(p));
  p.when_matched = LANCE_MERGE_WHEN_MATCHED_UPDATE_IF;
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "requires when_matched_expr");
  memset(&p, 0, sizeof(p));
  p.when_matched_expr = "x = 1";
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "when_matched_expr must be NULL when when_matched=DoNothing");
  memset(&p, 0, sizeof(p));
  p.when_not_matched_by_source = LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_DELETE_IF;
  p.when_not_matched_by_source_expr = "";
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "when_not_matched_by_source_expr must not be empty");
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, on, 0, &src, NULL, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "num_on_columns must be >= 1");
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, NULL, 1, &src, NULL, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "on_columns must not be NULL");
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(ds, empty_on, 1, &src, NULL, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "on_columns[0] must not be NULL or empty");
  merge_source(0, 1, &src);
  CHECK(lance_dataset_merge_insert(NULL, on, 1, &src, NULL, &r) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(src.release == NULL);
  {
    const char* ghost[] = {"ghost"};
    merge_source(0, 1, &src);
    CHECK(lance_dataset_merge_insert(ds, ghost, 1, &src, NULL, &r) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "ghost");
  }
  {
    struct ArrowArrayStream other;
    int64_stream("zzz", 1, 2, 0, 1, 2, &other);
    CHECK(lance_dataset_merge_insert(ds, on, 1, &other, NULL, &r) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "zzz");
  }
}

static void test_schema_evolution(LanceDataset* ds) {
  struct ArrowSchema s, t_double, t_uint;
  struct ArrowArrayStream stream;
  LanceSqlColumn col;
  LanceColumnAlteration alt[2];
  TextTable t;
  char row[256];
  const uint64_t rows = lance_dataset_count_rows(ds);
  const char* proj[] = {"id", "twice", "note", "tag", NULL};
  uint64_t v;

  col.name = "twice";
  col.expression = "id * 2";
  CHECK(lance_dataset_add_columns_sql(ds, &col, 1, 0) == 0);
  CHECK_OK();
  col.name = "twice";
  CHECK(lance_dataset_add_columns_sql(ds, &col, 1, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "'twice' already exists");
  col.name = "x";
  col.expression = "nope + 1";
  CHECK(lance_dataset_add_columns_sql(ds, &col, 1, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "nope");
  col.expression = "";
  CHECK(lance_dataset_add_columns_sql(ds, &col, 1, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "columns[0].expression must not be NULL or empty");
  col.expression = "1";
  CHECK(lance_dataset_add_columns_sql(ds, &col, 1, 5000000000ULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "batch_size=5000000000 exceeds u32::MAX");
  CHECK(lance_dataset_add_columns_sql(ds, &col, 0, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "num_columns must be > 0");

  /* All-null column by metadata alone. */
  {
    struct ArrowSchema note;
    int64_schema("note", 1, &note); /* an int64 "note" column */
    v = lance_dataset_version(ds);
    CHECK(lance_dataset_add_columns_nulls(ds, &note) == 0);
    CHECK_OK();
    CHECK(lance_dataset_version(ds) == v + 1);
    CHECK(note.release != NULL); /* borrowed */
    CHECK(lance_dataset_add_columns_nulls(ds, &note) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "'note' already exists");
    note.release(&note);
    CHECK(lance_dataset_add_columns_nulls(ds, &note) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "uninitialised or already released");
    int64_schema("strict", 0, &note);
    CHECK(lance_dataset_add_columns_nulls(ds, &note) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "'strict' is not nullable");
    note.release(&note);
  }

  /* Columns from a stream, lined up with the rows. */
  int64_stream("tag", 1, (int64_t)rows, 1000, 1, 7, &stream);
  CHECK(lance_dataset_add_columns_stream(ds, &stream, 0) == 0);
  CHECK_OK();
  int64_stream("short", 1, 3, 0, 1, 3, &stream);
  CHECK(lance_dataset_add_columns_stream(ds, &stream, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "rows");
  int64_stream("x2", 1, (int64_t)rows, 0, 1, 7, &stream);
  CHECK(lance_dataset_add_columns_stream(NULL, &stream, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  CHECK(stream.release == NULL); /* consumed even so */
  int64_stream("x3", 1, (int64_t)rows, 0, 1, 7, &stream);
  CHECK(lance_dataset_add_columns_stream(ds, &stream, 1ULL << 40) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "exceeds u32::MAX");
  CHECK(stream.release == NULL);

  scan_rows(ds, proj, NULL, &t);
  CHECK(t.nrows == (int64_t)rows);
  {
    /* Row r of the scan: twice = 2 * id, note null, tag = 1000 + r (the stream's row r). */
    int64_t r;
    int ok = 1;
    for (r = 0; r < t.nrows; ++r) {
      const long long id = atoll(t.cells[r][0]);
      ok = ok && atoll(t.cells[r][1]) == 2 * id && strcmp(t.cells[r][2], "null") == 0 &&
           atoll(t.cells[r][3]) == 1000 + r;
    }
    CHECK(ok);
  }
  text_table_free(&t);

  /* Alter: rename + nullability, and a type change, in one call. */
  memset(alt, 0, sizeof(alt));
  alt[0].path = "note";
  alt[0].rename = "memo";
  alt[1].path = "twice";
  type_schema("g", &t_double);
  alt[1].data_type = &t_double;
  alt[1].nullable_mode = LANCE_COLUMN_NULLABLE_TRUE;
  CHECK(lance_dataset_alter_columns(ds, alt, 2) == 0);
  CHECK_OK();
  CHECK(t_double.release != NULL); /* borrowed */
  {
    const char* p2[] = {"id", "twice", "memo", NULL};
    scan_rows(ds, p2, "id = 7", &t);
    CHECK(t.nrows == 1);
    text_table_row(&t, 0, row, sizeof(row));
    CHECK(strcmp(row, "id=7 twice=14 memo=null") == 0);
    text_table_free(&t);
  }
  memset(&s, 0, sizeof(s));
  CHECK(lance_dataset_schema(ds, &s) == 0);
  {
    int64_t i;
    for (i = 0; i < s.n_children; ++i) {
      if (strcmp(s.children[i]->name, "twice") == 0) CHECK(strcmp(s.children[i]->format, "g") == 0);
      CHECK(strcmp(s.children[i]->name, "note") != 0);
    }
  }
  s.release(&s);
  t_double.release(&t_double);
  /* Refusals. */
  memset(alt, 0, sizeof(alt));
  alt[0].path = "id";
  CHECK(lance_dataset_alter_columns(ds, alt, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "alterations[0] is a no-op");
  alt[0].nullable_mode = 99;
  CHECK(lance_dataset_alter_columns(ds, alt, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid nullable_mode 99");
  alt[0].nullable_mode = LANCE_COLUMN_NULLABLE_FALSE;
  alt[0].path = "memo";
  CHECK(lance_dataset_alter_columns(ds, alt, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "holds nulls");
  alt[0].nullable_mode = 0;
  alt[0].path = "ghost";
  alt[0].rename = "ghost2";
  CHECK(lance_dataset_alter_columns(ds, alt, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "ghost");
  alt[0].path = "";
  CHECK(lance_dataset_alter_columns(ds, alt, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "alterations[0].path must not be NULL or empty");
  alt[0].path = "tag";
  alt[0].rename = NULL;
  type_schema("L", &t_uint);
  alt[0].data_type = &t_uint;
  CHECK(lance_dataset_alter_columns(ds, alt, 1) == -1);
  CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "uint64");
  t_uint.release(&t_uint);
  CHECK(lance_dataset_alter_columns(ds, alt, 1) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "data_type is uninitialised or already released");
  CHECK(lance_dataset_alter_columns(ds, alt, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "num_alterations must be > 0");

  /* Drop. */
  {
    const char* drop[] = {"memo", "tag"};
    const char* all[] = {"id", "name", "score", "twice"};
    const char* ghost[] = {"ghost"};
    v = lance_dataset_version(ds);
    CHECK(lance_dataset_drop_columns(ds, drop, 2) == 0);
    CHECK_OK();
    CHECK(lance_dataset_version(ds) == v + 1);
    CHECK(lance_dataset_count_rows(ds) == rows);
    memset(&s, 0, sizeof(s));
    CHECK(lance_dataset_schema(ds, &s) == 0);
    CHECK(s.n_children == 4);
    s.release(&s);
    CHECK(lance_dataset_drop_columns(ds, all, 4) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "cannot drop every column");
    CHECK(lance_dataset_drop_columns(ds, ghost, 1) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "ghost");
    CHECK(lance_dataset_drop_columns(ds, drop, 0) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "num_columns must be > 0");
    CHECK(lance_dataset_drop_columns(ds, NULL, 1) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "columns must not be NULL");
  }
  {
    /* Drop the derived column again for the following tests' people rows. */
    const char* drop[] = {"twice"};
    CHECK(lance_dataset_drop_columns(ds, drop, 1) == 0);
  }
}

static void test_compact_restore(LanceDataset* ds) {
  LanceCompactionMetrics m;
  LanceCompactionOptions o;
  TextTable before, after;
  char a[256], b[256];
  int64_t r;
  const uint64_t frags = lance_dataset_fragment_count(ds);
  const uint64_t rows = lance_dataset_count_rows(ds);
  uint64_t v;
  LanceDataset* restored;

  scan_rows(ds, NULL, NULL, &before);
  memset(&o, 0, sizeof(o));
  o.target_rows_per_fragment = 1000;
  o.num_threads = 2;
  o.batch_size = 16;
  memset(&m, 0, sizeof(m));
  CHECK(lance_dataset_compact_files(ds, &o, &m) == 0);
  CHECK_OK();
  CHECK(frags > 1);
  CHECK(m.fragments_removed == frags && m.fragments_added == 1);
  CHECK(m.files_added == 1 && m.files_removed >= m.fragments_removed);
  CHECK(lance_dataset_fragment_count(ds) == 1);
  CHECK(lance_dataset_count_rows(ds) == rows);
  scan_rows(ds, NULL, NULL, &after);
  CHECK(after.nrows == before.nrows);
  for (r = 0; r < after.nrows && r < before.nrows; ++r) {
    text_table_row(&before, r, a, sizeof(a));
    text_table_row(&after, r, b, sizeof(b));
    CHECK(strcmp(a, b) == 0);
  }
  text_table_free(&before);
  text_table_free(&after);
  v = lance_dataset_version(ds);
  memset(&m, 0, sizeof(m));
  CHECK(lance_dataset_compact_files(ds, NULL, &m) == 0);
  CHECK(m.fragments_removed == 0 && m.fragments_added == 0 && m.files_removed == 0);
  CHECK(lance_dataset_version(ds) == v);

  /* Restore version 2 (the append): a new version with its content. */
  restored = lance_dataset_restore(ds, 2);
  CHECK(restored != NULL);
  CHECK_OK();
  if (restored != NULL) {
    TextTable t;
    CHECK(lance_dataset_version(restored) == v + 1);
    scan_rows(restored, NULL, NULL, &t);
    check_people(&t, range(0, 35), 35, __LINE__);
    text_table_free(&t);
    CHECK(lance_dataset_version(ds) == v); /* the original handle is unchanged */
    lance_dataset_close(restored);
  }
  CHECK(lance_dataset_restore(ds, 0) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "version must be >= 1");
  CHECK(lance_dataset_restore(ds, 999) == NULL);
  CHECK_ERROR(LANCE_ERR_NOT_FOUND, "999");
}

static void test_write_fragments(void) {
  char uri[4200], data[4300];
  struct ArrowSchema schema, other;
  struct ArrowArrayStream stream;
  DIR* dir;
  struct dirent* e;
  int files = 0;
  path_in("fragments", uri);
  people_schema(&schema);
  people_stream(0, 12, 5, &stream);
  CHECK(lance_write_fragments(uri, &schema, &stream, NULL) == 0);
  CHECK_OK();
  CHECK(stream.release == NULL);
  sprintf(data, "%s/data", uri);
  dir = opendir(data);
  CHECK(dir != NULL);
  if (dir != NULL) {
    while ((e = readdir(dir)) != NULL) {
      const size_t n = strlen(e->d_name);
      files += n > 6 && strcmp(e->d_name + n - 6, ".lance") == 0;
    }
    closedir(dir);
  }
  CHECK(files == 1);
  /* No manifest: not a dataset. */
  CHECK(lance_dataset_open(uri, NULL, 0) == NULL);
  CHECK_ERROR(LANCE_ERR_NOT_FOUND, "fragments");
  /* A mismatched declared schema; NULL arguments leave the stream with the caller. */
  int64_schema("id", 0, &other);
  people_stream(0, 2, 2, &stream);
  CHECK(lance_write_fragments(uri, &other, &stream, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "does not match");
  other.release(&other);
  people_stream(0, 2, 2, &stream);
  CHECK(lance_write_fragments(NULL, &schema, &stream, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "must not be NULL");
  CHECK(stream.release != NULL);
  stream.release(&stream);
  schema.release(&schema);
}

/* ---- Indexes (on a copy of a dataset lance 12 indexed) ----------------------------------- */

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  long n;
  char* out;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  out = (char*)calloc((size_t)n + 1, 1);
  if (out != NULL && fread(out, 1, (size_t)n, f) != (size_t)n) out[0] = '\0';
  fclose(f);
  return out;
}

/* The uuid of index `name` in the reference's listing (pretty-printed JSON). */
static int expected_uuid(const char* json, const char* name, char* uuid) {
  char key[128];
  const char* at;
  sprintf(key, "\"name\": \"%s\"", name);
  at = strstr(json, key);
  if (at == NULL) return 0;
  at = strstr(at, "\"uuid\": \"");
  if (at == NULL) return 0;
  at += strlen("\"uuid\": \"");
  memcpy(uuid, at, 36);
  uuid[36] = '\0';
  return 1;
}

static int hex(char c) { return c >= 'a' ? c - 'a' + 10 : c - '0'; }

static void test_indexes(const char* uri, const char* listing_path) {
  LanceDataset* ds = lance_dataset_open(uri, NULL, 0);
  char* listing = read_file(listing_path);
  const char* names[] = {"cat_idx", "id_idx", "text_idx", "vec_idx"};
  const char* types[] = {"Bitmap", "BTree", "Inverted", "IVF_PQ"};
  const char* columns[] = {"cat", "id", "text", "vec"};
  const char* json;
  char uuid[40], entry[256];
  int i;
  uint8_t bytes[32];
  uint64_t count = 0;
  TextTable t;
  LanceScanner* s;
  struct ArrowArrayStream stream;
  LanceVectorIndexParams vp;

  CHECK(ds != NULL && listing != NULL);
  if (ds == NULL || listing == NULL) return;
  CHECK(lance_dataset_count_rows(ds) == 300);
  CHECK(lance_dataset_index_count(ds) == 4);
  CHECK_OK();
  json = lance_dataset_index_list_json(ds);
  CHECK(json != NULL);
  CHECK_OK();
  for (i = 0; i < 4 && json != NULL; ++i) {
    CHECK(expected_uuid(listing, names[i], uuid));
    sprintf(entry, "{\"name\":\"%s\",\"uuid\":\"%s\",\"columns\":[\"%s\"],\"type\":\"%s\",\"dataset_version\":",
            names[i], uuid, columns[i], types[i]);
    CHECK(strstr(json, entry) != NULL);
    if (strstr(json, entry) == NULL) fprintf(stderr, "  missing %s in %s\n", entry, json);
  }
  CHECK(json != NULL && json[0] == '[' && json[strlen(json) - 1] == ']');
  lance_free_string(json);

  /* Segments: one per index here, its uuid as 16 bytes. */
  CHECK(lance_dataset_index_segment_count(ds, "id_idx") == 1);
  CHECK_OK();
  CHECK(lance_dataset_index_segments(ds, "id_idx", bytes, 2, &count) == 0);
  CHECK(count == 1);
  CHECK(expected_uuid(listing, "id_idx", uuid));
  {
    int k, pos = 0, same = 1;
    for (k = 0; k < 36; ++k) {
      if (uuid[k] == '-') continue;
      if (pos % 2 == 0) {
        same = same && (bytes[pos / 2] >> 4) == hex(uuid[k]);
      } else {
        same = same && (bytes[pos / 2] & 15) == hex(uuid[k]);
      }
      ++pos;
    }
    CHECK(same && pos == 32);
  }
  CHECK(lance_dataset_index_segments(ds, "id_idx", bytes, 0, &count) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "capacity (0) too small for 1 segments");
  CHECK(lance_dataset_index_segment_count(ds, "nope_idx") == 0);
  CHECK_ERROR(LANCE_ERR_NOT_FOUND, "nope_idx");
  CHECK(lance_dataset_index_segments(ds, "nope_idx", bytes, 2, &count) == -1);
  CHECK_ERROR(LANCE_ERR_NOT_FOUND, "nope_idx");

  /* The rows lance 12 wrote: id = i, cat = c<i % 5>. */
  {
    const char* cols[] = {"id", "cat", NULL};
    scan_rows(ds, cols, "id >= 198 AND id < 203", &t);
    CHECK(t.nrows == 5);
    for (i = 0; i < t.nrows; ++i) {
      char want[64];
      sprintf(want, "id=%d cat=c%d", 198 + i, (198 + i) % 5);
      text_table_row(&t, i, entry, sizeof(entry));
      CHECK(strcmp(entry, want) == 0);
    }
    text_table_free(&t);
  }

  /* Building indexes and searching are not implemented: NOT_SUPPORTED after lance-c's checks. */
  CHECK(lance_dataset_create_scalar_index(ds, "id", "id2", LANCE_SCALAR_BTREE, NULL, false) == -1);
  CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "BTree scalar index on 'id'");
  CHECK(lance_dataset_create_scalar_index(ds, "id", NULL, (LanceScalarIndexType)9, NULL, false) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid scalar index type: 9");
  CHECK(lance_dataset_create_scalar_index(ds, NULL, NULL, LANCE_SCALAR_BTREE, NULL, false) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset and column must not be NULL");
  memset(&vp, 0, sizeof(vp));
  vp.index_type = LANCE_INDEX_IVF_PQ;
  CHECK(lance_dataset_create_vector_index(ds, "vec", NULL, &vp, false) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "num_partitions is required");
  vp.num_partitions = 2;
  CHECK(lance_dataset_create_vector_index(ds, "vec", NULL, &vp, false) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "num_sub_vectors is required");
  vp.num_sub_vectors = 2;
  CHECK(lance_dataset_create_vector_index(ds, "vec", "v2", &vp, true) == -1);
  CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "IVF_PQ vector index on 'vec' named 'v2'");
  CHECK(lance_dataset_create_vector_index(ds, "vec", NULL, NULL, false) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset, column, and params must not be NULL");

  s = lance_scanner_new(ds, NULL, NULL);
  {
    const float q[4] = {1, 2, 3, 4};
    const char* fts_cols[] = {"text", NULL};
    CHECK(lance_scanner_nearest(s, "vec", q, 4, LANCE_DTYPE_FLOAT32, 5) == -1);
    CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "vector search");
    CHECK(lance_scanner_nearest(s, "vec", q, 4, LANCE_DTYPE_FLOAT32, 0) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "k must be > 0");
    CHECK(lance_scanner_nearest(s, "vec", q, 4, (LanceDataType)42, 3) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid element_type: 42");
    CHECK(lance_scanner_nearest(s, NULL, q, 4, LANCE_DTYPE_FLOAT32, 3) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "must not be NULL");
    CHECK(lance_scanner_full_text_search(s, "apple", fts_cols, 1) == -1);
    CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "full-text search");
    CHECK(lance_scanner_full_text_search(s, NULL, NULL, 0) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner and query must not be NULL");
    CHECK(lance_scanner_set_substrait_filter(s, (const uint8_t*)"\x0a\x01", 2) == -1);
    CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "Substrait");
    CHECK(lance_scanner_set_substrait_filter(s, (const uint8_t*)"x", 0) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "Substrait filter bytes must be non-empty");
    CHECK(lance_scanner_set_substrait_filter(s, NULL, 3) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "bytes is NULL");
    CHECK(lance_scanner_set_nprobes(s, 4) == 0);
    CHECK(lance_scanner_set_refine_factor(s, 2) == 0);
    CHECK(lance_scanner_set_ef(s, 30) == 0);
    CHECK(lance_scanner_set_metric(s, LANCE_METRIC_COSINE) == 0);
    CHECK(lance_scanner_set_use_index(s, false) == 0);
    CHECK(lance_scanner_set_prefilter(s, true) == 0);
    CHECK_OK();
    CHECK(lance_scanner_set_metric(s, (LanceMetricType)17) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid metric: 17");
    CHECK(lance_scanner_set_nprobes(NULL, 1) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner is NULL");
    /* The knobs alone change nothing: the scan reads every row. */
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == 0);
    text_table_init(&t);
    CHECK(text_table_read(&t, &stream) == 0);
    CHECK(t.nrows == 300);
    text_table_free(&t);
    CHECK(lance_scanner_set_index_segments(s, bytes, 1) == 0);
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "index_segments requires nearest() to be configured");
    CHECK(lance_scanner_set_index_segments(s, NULL, 0) == 0); /* cleared */
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == 0);
    stream.release(&stream);
    CHECK(lance_scanner_set_index_segments(s, NULL, 1) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "segment_uuids is NULL but len > 0");
  }
  lance_scanner_close(s);

  /* Dropping an index commits a version without it. */
  {
    const uint64_t v = lance_dataset_version(ds);
    CHECK(lance_dataset_drop_index(ds, "cat_idx") == 0);
    CHECK_OK();
    CHECK(lance_dataset_version(ds) == v + 1);
    CHECK(lance_dataset_index_count(ds) == 3);
    json = lance_dataset_index_list_json(ds);
    CHECK(json != NULL && strstr(json, "cat_idx") == NULL && strstr(json, "\"id_idx\"") != NULL);
    lance_free_string(json);
    CHECK(lance_dataset_drop_index(ds, "cat_idx") == -1);
    CHECK_ERROR(LANCE_ERR_NOT_FOUND, "cat_idx");
    CHECK(lance_dataset_count_rows(ds) == 300);
  }
  free(listing);
  lance_dataset_close(ds);
}

int main(int argc, char** argv) {
  LanceDataset* ds;
  char uri[4200];
  if (argc < 4) {
    fprintf(stderr, "usage: %s <indexed.lance copy> <scratch dir> <indexed_indices.json>\n", argv[0]);
    return 2;
  }
  strncpy(scratch, argv[2], sizeof(scratch) - 1);
  mkdir(scratch, 0777);

  CHECK(headers_lance_first() == headers_abi_first());
  CHECK(headers_lance_first() == (int)(sizeof(struct ArrowSchema) + sizeof(struct ArrowArray)) + 3);
  test_errors();
  ds = test_write(path_in("people.lance", uri));
  test_overwrite_and_versions();
  if (ds != NULL) {
    test_scans(ds);
    test_take(ds);
    test_data_statistics(ds);
    test_delete_update(ds);
    test_merge_insert(ds);
    test_schema_evolution(ds);
    test_compact_restore(ds);
    lance_dataset_close(ds);
  }
  test_write_fragments();
  test_indexes(argv[1], argv[3]);

  if (failures != 0) {
    fprintf(stderr, "%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("capi C: %d checks passed\n", checks);
  return 0;
}
