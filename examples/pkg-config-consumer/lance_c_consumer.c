/* An engine written in C against the installed lance.h (the lance-c compatible C ABI):
 * it hands lance-cpp its rows through an Arrow C stream it builds itself, writes a dataset,
 * reopens it, filters, deletes and reads the versions back, checking every value.
 *
 *   c_consumer [DIR]     (DIR: where to create the dataset; default: a new directory in /tmp)
 *
 * Exit status 0 when every check holds; otherwise the failed check is printed. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <lance/lance.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 100

static int failures = 0;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "c_consumer: %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
      failures++;                                         \
    }                                                     \
  } while (0)

static void report_error(const char* what) {
  const char* msg = lance_last_error_message();
  fprintf(stderr, "c_consumer: %s failed: code %d: %s\n", what, (int)lance_last_error_code(),
          msg ? msg : "(no message)");
  if (msg) lance_free_string(msg);
  failures++;
}

/* ---- The engine's rows: struct<id: int64 not null, name: utf8> as one batch --------------- */

static int64_t ids[ROWS];
static int32_t name_offsets[ROWS + 1];
static char name_bytes[ROWS * 8];

static void fill_rows(void) {
  int32_t pos = 0;
  for (int i = 0; i < ROWS; i++) {
    ids[i] = i;
    name_offsets[i] = pos;
    pos += sprintf(name_bytes + pos, "row%d", i);
  }
  name_offsets[ROWS] = pos;
}

static void release_schema(struct ArrowSchema* s) { s->release = NULL; }
static void release_array(struct ArrowArray* a) { a->release = NULL; }

static struct ArrowSchema id_field, name_field;
static struct ArrowSchema* schema_children[2] = {&id_field, &name_field};

static void make_schema(struct ArrowSchema* out) {
  memset(&id_field, 0, sizeof id_field);
  id_field.format = "l";
  id_field.name = "id";
  id_field.release = release_schema;
  memset(&name_field, 0, sizeof name_field);
  name_field.format = "u";
  name_field.name = "name";
  name_field.flags = ARROW_FLAG_NULLABLE;
  name_field.release = release_schema;
  memset(out, 0, sizeof *out);
  out->format = "+s";
  out->name = "";
  out->n_children = 2;
  out->children = schema_children;
  out->release = release_schema;
}

static const void* id_buffers[2];
static const void* name_buffers[3];
static struct ArrowArray id_array, name_array;
static struct ArrowArray* array_children[2] = {&id_array, &name_array};

static void make_batch(struct ArrowArray* out) {
  id_buffers[0] = NULL;
  id_buffers[1] = ids;
  memset(&id_array, 0, sizeof id_array);
  id_array.length = ROWS;
  id_array.n_buffers = 2;
  id_array.buffers = id_buffers;
  id_array.release = release_array;
  name_buffers[0] = NULL;
  name_buffers[1] = name_offsets;
  name_buffers[2] = name_bytes;
  memset(&name_array, 0, sizeof name_array);
  name_array.length = ROWS;
  name_array.n_buffers = 3;
  name_array.buffers = name_buffers;
  name_array.release = release_array;
  memset(out, 0, sizeof *out);
  out->length = ROWS;
  out->n_buffers = 1;
  out->buffers = id_buffers; /* struct validity: NULL (no nulls) */
  out->n_children = 2;
  out->children = array_children;
  out->release = release_array;
}

static int batches_left;

static int stream_get_schema(struct ArrowArrayStream* s, struct ArrowSchema* out) {
  (void)s;
  make_schema(out);
  return 0;
}
static int stream_get_next(struct ArrowArrayStream* s, struct ArrowArray* out) {
  (void)s;
  if (batches_left-- > 0) {
    make_batch(out);
  } else {
    memset(out, 0, sizeof *out); /* end of stream: release == NULL */
  }
  return 0;
}
static const char* stream_last_error(struct ArrowArrayStream* s) {
  (void)s;
  return NULL;
}
static int stream_released = 0;
static void stream_release(struct ArrowArrayStream* s) {
  s->release = NULL;
  stream_released++;
}

static void make_stream(struct ArrowArrayStream* out) {
  batches_left = 1;
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = NULL;
}

/* ---- The checks ---------------------------------------------------------------------------- */

/* Sums the "id" values (child 0, int64) of every batch the scanner yields; counts rows. */
static int scan_ids(LanceDataset* ds, const char* filter, int64_t* out_rows, int64_t* out_sum) {
  const char* cols[] = {"id", NULL};
  LanceScanner* sc = lance_scanner_new(ds, cols, filter);
  if (!sc) {
    report_error("lance_scanner_new");
    return -1;
  }
  *out_rows = 0;
  *out_sum = 0;
  for (;;) {
    LanceBatch* b = NULL;
    int32_t rc = lance_scanner_next(sc, &b);
    if (rc == 1) break;
    if (rc != 0) {
      report_error("lance_scanner_next");
      lance_scanner_close(sc);
      return -1;
    }
    struct ArrowArray arr;
    struct ArrowSchema sch;
    if (lance_batch_to_arrow(b, &arr, &sch) != 0) {
      report_error("lance_batch_to_arrow");
      lance_batch_free(b);
      break;
    }
    CHECK(sch.n_children == 1 && strcmp(sch.children[0]->name, "id") == 0 &&
              strcmp(sch.children[0]->format, "l") == 0,
          "scan schema is not struct<id: int64>");
    const struct ArrowArray* col = arr.children[0];
    const int64_t* v = (const int64_t*)col->buffers[1];
    for (int64_t i = 0; i < col->length; i++) *out_sum += v[col->offset + i];
    *out_rows += arr.length;
    arr.release(&arr);
    sch.release(&sch);
    lance_batch_free(b);
  }
  lance_scanner_close(sc);
  return 0;
}

int main(int argc, char** argv) {
  char dir[256];
  if (argc > 1) {
    snprintf(dir, sizeof dir, "%s", argv[1]);
  } else {
    char tmpl[] = "/tmp/lance_c_consumer_XXXXXX";
    if (!mkdtemp(tmpl)) {
      perror("mkdtemp");
      return 2;
    }
    snprintf(dir, sizeof dir, "%s", tmpl);
  }
  char uri[320];
  snprintf(uri, sizeof uri, "%s/engine.lance", dir);
  fill_rows();

  /* create from the engine's own stream */
  struct ArrowSchema schema;
  make_schema(&schema);
  struct ArrowArrayStream stream;
  make_stream(&stream);
  LanceDataset* ds = NULL;
  if (lance_dataset_write(uri, &schema, &stream, LANCE_WRITE_CREATE, NULL, &ds) != 0) {
    report_error("lance_dataset_write");
    return 1;
  }
  CHECK(stream_released == 1, "the input stream was released %d times (expected 1)",
        stream_released);
  CHECK(lance_dataset_version(ds) == 1, "new dataset at version %llu (expected 1)",
        (unsigned long long)lance_dataset_version(ds));
  lance_dataset_close(ds);

  /* creating it again is refused with the documented code */
  make_stream(&stream);
  CHECK(lance_dataset_write(uri, &schema, &stream, LANCE_WRITE_CREATE, NULL, NULL) == -1 &&
            lance_last_error_code() == LANCE_ERR_DATASET_ALREADY_EXISTS,
        "a second create was not refused as LANCE_ERR_DATASET_ALREADY_EXISTS");
  {
    const char* msg = lance_last_error_message();
    CHECK(msg && strstr(msg, "engine.lance"), "the error text does not name the dataset");
    if (msg) lance_free_string(msg);
  }

  /* reopen, count, filter */
  ds = lance_dataset_open(uri, NULL, 0);
  if (!ds) {
    report_error("lance_dataset_open");
    return 1;
  }
  CHECK(lance_dataset_count_rows(ds) == ROWS, "count %llu (expected %d)",
        (unsigned long long)lance_dataset_count_rows(ds), ROWS);
  int64_t rows = 0, sum = 0;
  if (scan_ids(ds, "id >= 90", &rows, &sum) == 0) {
    CHECK(rows == 10 && sum == 945, "id >= 90: %lld rows summing to %lld (expected 10, 945)",
          (long long)rows, (long long)sum);
  }

  /* delete through the handle: it moves to version 2 */
  uint64_t deleted = 0;
  if (lance_dataset_delete(ds, "id < 10 OR name = 'row99'", &deleted) != 0) {
    report_error("lance_dataset_delete");
  } else {
    CHECK(deleted == 11, "deleted %llu rows (expected 11)", (unsigned long long)deleted);
    CHECK(lance_dataset_version(ds) == 2, "handle at version %llu after delete (expected 2)",
          (unsigned long long)lance_dataset_version(ds));
    if (scan_ids(ds, NULL, &rows, &sum) == 0) {
      CHECK(rows == 89 && sum == 4950 - 45 - 99,
            "after delete: %lld rows summing to %lld (expected 89, 4806)", (long long)rows,
            (long long)sum);
    }
  }

  /* both versions are listed; version 1 still reads as written */
  LanceVersions* vs = lance_dataset_versions(ds);
  if (!vs) {
    report_error("lance_dataset_versions");
  } else {
    CHECK(lance_versions_count(vs) == 2 && lance_versions_id_at(vs, 0) == 1 &&
              lance_versions_id_at(vs, 1) == 2,
          "versions are not [1, 2]");
    lance_versions_close(vs);
  }
  LanceDataset* v1 = lance_dataset_open(uri, NULL, 1);
  if (!v1) {
    report_error("lance_dataset_open version 1");
  } else {
    CHECK(lance_dataset_count_rows(v1) == ROWS, "version 1 has %llu rows (expected %d)",
          (unsigned long long)lance_dataset_count_rows(v1), ROWS);
    lance_dataset_close(v1);
  }

  /* a bad filter is an invalid argument with a message, not a crash */
  const char* cols[] = {"id", NULL};
  LanceScanner* bad = lance_scanner_new(ds, cols, "no_such_column > 1");
  if (bad) {
    struct ArrowArrayStream out;
    CHECK(lance_scanner_to_arrow_stream(bad, &out) == -1 &&
              lance_last_error_code() == LANCE_ERR_INVALID_ARGUMENT,
          "a filter on an unknown column was not LANCE_ERR_INVALID_ARGUMENT");
    const char* msg = lance_last_error_message();
    CHECK(msg && strstr(msg, "no_such_column"), "the error text does not name the column");
    if (msg) lance_free_string(msg);
    lance_scanner_close(bad);
  }
  lance_dataset_close(ds);

  /* a missing dataset */
  char missing[340];
  snprintf(missing, sizeof missing, "%s/missing.lance", dir);
  CHECK(lance_dataset_open(missing, NULL, 0) == NULL &&
            lance_last_error_code() == LANCE_ERR_NOT_FOUND,
        "opening a missing dataset was not LANCE_ERR_NOT_FOUND");
  {
    const char* msg = lance_last_error_message();
    if (msg) lance_free_string(msg);
  }

  if (failures == 0) printf("c_consumer: ok (%s)\n", uri);
  return failures == 0 ? 0 : 1;
}
