/* A driver of the C ABI for tests/interop/capi.test.mjs: writes and reads datasets through
 * lance/lance.h only (C99), so that the reference (lance 12) can check what the C ABI writes
 * and the C ABI can be checked on what lance 12 writes.
 *
 *   capi_interop write <uri>              the history below, one commit per step
 *   capi_interop append <uri> <start> <n> people rows [start, start + n) appended
 *   capi_interop dump <uri> [version]     every row as a JSON object per line, scan order
 *   capi_interop info <uri>               {"version":V,"count":N,"fragments":F,"indexes":[...]}
 *   capi_interop drop-index <uri> <name>
 *
 * The history of `write` (people rows, see arrow_rows.h):
 *   v1 create ids 0..29 (fragments of 10)   v2 append 30..39         v3 delete id % 7 = 3
 *   v4 update name = 'upd' where id < 5     v5 upsert ids 35..44     v6 add twice = id * 2
 *   v7 add all-null int64 `later`           v8 compact
 * Exits 0, or 1 with the C ABI's error on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lance/lance.h>

#include "arrow_rows.h"

static int fail(const char* what) {
  const char* msg = lance_last_error_message();
  fprintf(stderr, "%s failed (code %d): %s\n", what, (int)lance_last_error_code(), msg ? msg : "?");
  lance_free_string(msg);
  return 1;
}

static int write_people(const char* uri, int32_t mode, int64_t start, int64_t n, LanceDataset** out) {
  struct ArrowSchema schema;
  struct ArrowArrayStream stream;
  LanceWriteParams params;
  int32_t rc;
  memset(&params, 0, sizeof(params));
  params.max_rows_per_file = 10;
  people_schema(&schema);
  people_stream(start, n, 4, &stream);
  rc = lance_dataset_write_with_params(uri, &schema, &stream, mode, &params, NULL, out);
  schema.release(&schema);
  return rc;
}

static int cmd_write(const char* uri) {
  LanceDataset* ds = NULL;
  uint64_t n = 0;
  const char* cols[] = {"name"};
  const char* vals[] = {"'upd'"};
  const char* on[] = {"id"};
  LanceMergeInsertParams p;
  LanceMergeInsertResult r;
  LanceSqlColumn twice;
  struct ArrowSchema later;
  struct ArrowArrayStream src;
  LanceCompactionMetrics m;
  if (write_people(uri, LANCE_WRITE_CREATE, 0, 30, &ds) != 0) return fail("create");
  lance_dataset_close(ds);
  if (write_people(uri, LANCE_WRITE_APPEND, 30, 10, &ds) != 0) return fail("append");
  if (lance_dataset_delete(ds, "id % 7 = 3", &n) != 0) return fail("delete");
  if (lance_dataset_update(ds, "id < 5", cols, vals, 1, &n) != 0) return fail("update");
  memset(&p, 0, sizeof(p));
  p.when_matched = LANCE_MERGE_WHEN_MATCHED_UPDATE_ALL;
  people_stream(35, 10, 3, &src);
  if (lance_dataset_merge_insert(ds, on, 1, &src, &p, &r) != 0) return fail("merge-insert");
  twice.name = "twice";
  twice.expression = "id * 2";
  if (lance_dataset_add_columns_sql(ds, &twice, 1, 0) != 0) return fail("add columns");
  int64_schema("later", 1, &later);
  if (lance_dataset_add_columns_nulls(ds, &later) != 0) return fail("add null columns");
  later.release(&later);
  if (lance_dataset_compact_files(ds, NULL, &m) != 0) return fail("compact");
  printf("{\"version\":%llu,\"count\":%llu,\"compacted_fragments\":%llu}\n",
         (unsigned long long)lance_dataset_version(ds), (unsigned long long)lance_dataset_count_rows(ds),
         (unsigned long long)m.fragments_removed);
  lance_dataset_close(ds);
  return 0;
}

static void print_json_string(const char* s) {
  putchar('"');
  for (; *s; ++s) {
    if (*s == '"' || *s == '\\') putchar('\\');
    putchar(*s);
  }
  putchar('"');
}

static int cmd_dump(const char* uri, uint64_t version) {
  LanceDataset* ds = lance_dataset_open(uri, NULL, version);
  struct ArrowSchema schema;
  struct ArrowArrayStream stream;
  LanceScanner* s;
  TextTable t;
  int64_t r;
  int c;
  if (ds == NULL) return fail("open");
  if (lance_dataset_schema(ds, &schema) != 0) return fail("schema");
  s = lance_scanner_new(ds, NULL, NULL);
  if (s == NULL || lance_scanner_to_arrow_stream(s, &stream) != 0) return fail("scan");
  text_table_init(&t);
  if (text_table_read(&t, &stream) != 0) return fail("read");
  for (r = 0; r < t.nrows; ++r) {
    putchar('{');
    for (c = 0; c < t.ncols; ++c) {
      if (c) putchar(',');
      print_json_string(t.names[c]);
      putchar(':');
      if (strcmp(schema.children[c]->format, "u") == 0 && strcmp(t.cells[r][c], "null") != 0) {
        print_json_string(t.cells[r][c]);
      } else {
        fputs(t.cells[r][c], stdout);
      }
    }
    puts("}");
  }
  text_table_free(&t);
  schema.release(&schema);
  lance_scanner_close(s);
  lance_dataset_close(ds);
  return 0;
}

static int cmd_info(const char* uri) {
  LanceDataset* ds = lance_dataset_open(uri, NULL, 0);
  const char* json;
  if (ds == NULL) return fail("open");
  json = lance_dataset_index_list_json(ds);
  if (json == NULL) return fail("index list");
  printf("{\"version\":%llu,\"count\":%llu,\"fragments\":%llu,\"indexes\":%s}\n",
         (unsigned long long)lance_dataset_version(ds), (unsigned long long)lance_dataset_count_rows(ds),
         (unsigned long long)lance_dataset_fragment_count(ds), json);
  lance_free_string(json);
  lance_dataset_close(ds);
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "write") == 0) return cmd_write(argv[2]);
  if (argc >= 5 && strcmp(argv[1], "append") == 0) {
    LanceDataset* ds = NULL;
    if (write_people(argv[2], LANCE_WRITE_APPEND, atoll(argv[3]), atoll(argv[4]), &ds) != 0) return fail("append");
    lance_dataset_close(ds);
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "dump") == 0) {
    return cmd_dump(argv[2], argc >= 4 ? (uint64_t)atoll(argv[3]) : 0);
  }
  if (argc >= 3 && strcmp(argv[1], "info") == 0) return cmd_info(argv[2]);
  if (argc >= 4 && strcmp(argv[1], "drop-index") == 0) {
    LanceDataset* ds = lance_dataset_open(argv[2], NULL, 0);
    if (ds == NULL) return fail("open");
    if (lance_dataset_drop_index(ds, argv[3]) != 0) return fail("drop index");
    lance_dataset_close(ds);
    return 0;
  }
  fprintf(stderr, "usage: capi_interop write|append|dump|info|drop-index <uri> ...\n");
  return 2;
}
