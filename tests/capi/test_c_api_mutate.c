/* The C ABI tests in C (see test_c_api.c): delete, update, merge-insert, schema evolution, compaction, restore, fragment writes. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lance/lance.h>

#include "c_check.h"

/* ---- Mutations --------------------------------------------------------------------------- */

void test_delete_update(LanceDataset* ds) {
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
  CHECK(lance_dataset_version(ds) == v + 2); /* a version of no change, as lance commits */
  CHECK(lance_dataset_count_rows(ds) == 28);
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
  CHECK(lance_dataset_version(ds) == v + 3);
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

void test_merge_insert(LanceDataset* ds) {
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

void test_schema_evolution(LanceDataset* ds) {
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

void test_compact_restore(LanceDataset* ds) {
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
    CHECK_PEOPLE(&t, range(0, 35), 35);
    text_table_free(&t);
    CHECK(lance_dataset_version(ds) == v); /* the original handle is unchanged */
    lance_dataset_close(restored);
  }
  CHECK(lance_dataset_restore(ds, 0) == NULL);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "version must be >= 1");
  CHECK(lance_dataset_restore(ds, 999) == NULL);
  CHECK_ERROR(LANCE_ERR_NOT_FOUND, "999");
}

void test_write_fragments(void) {
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

