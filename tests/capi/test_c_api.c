/* The C ABI (lance/lance.h) exercised from plain C99 (-pedantic, warnings as errors): every
 * function, on datasets it writes itself and on a copy of a dataset lance 12 indexed, checking
 * row values, error codes and that error messages name the problem.
 *
 * Usage: lance_capi_c_test <copy of indexed.lance> <scratch dir> <indexed_indices.json> */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <lance/lance.h>

#include "c_check.h"

/* headers_*_first.c: lance.h and another copy of the Arrow C structs in either order. */
int headers_lance_first(void);
int headers_abi_first(void);

/* ---- Errors and NULL handling ------------------------------------------------------------ */

void test_errors(void) {
  LanceDataset* ds;
  struct ArrowSchema schema;
  struct ArrowArrayStream stream;
  LanceBatch* batch = NULL;
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
LanceDataset* test_write(const char* uri) {
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
  CHECK_PEOPLE(&t, range(0, 25), 25);
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

void test_overwrite_and_versions(void) {
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
  CHECK_PEOPLE(&t, range(50, 53), 3);
  text_table_free(&t);
  /* Open at version 1: the first content. */
  v1 = lance_dataset_open(uri, NULL, 1);
  CHECK(v1 != NULL);
  CHECK_OK();
  if (v1 != NULL) {
    scan_rows(v1, NULL, NULL, &t);
    CHECK_PEOPLE(&t, range(0, 5), 5);
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

int main(int argc, char** argv) {
  LanceDataset* ds;
  char uri[4200];
  if (argc < 4) {
    fprintf(stderr, "usage: %s <indexed.lance copy> <scratch dir> <indexed_indices.json>\n", argv[0]);
    return 2;
  }
  strncpy(scratch, argv[2], sizeof(scratch) - 1);
  /* The scratch directory must be fresh (ctest's capi_fixture removes it): the tests create
   * datasets there and expect them not to exist yet. */
  if (mkdir(scratch, 0777) != 0) {
    fprintf(stderr, "cannot create the scratch directory %s (it must not exist yet)\n", scratch);
    return 2;
  }

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
  test_optimize_indices();
  test_vector_search(argv[1]);
  test_full_text_search(argv[1]);

  if (failures != 0) {
    fprintf(stderr, "%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("capi C: %d checks passed\n", checks);
  return 0;
}

