/* The C ABI tests in C (see test_c_api.c): scans (settings, streams, next, poll, async), takes, data statistics. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lance/lance.h>

#include "c_check.h"

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

void test_scans(const LanceDataset* ds) {
  TextTable t;
  char row[256];
  struct ArrowArrayStream stream;
  LanceScanner* s;
  LanceBatch* b;
  int64_t want[40], n = 0, i;

  /* Everything, in order, across fragments. */
  scan_rows(ds, NULL, NULL, &t);
  CHECK_PEOPLE(&t, range(0, 35), 35);
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
  CHECK_PEOPLE(&t, want, n);
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
  CHECK_PEOPLE(&t, range(30, 35), 5);
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
      CHECK_PEOPLE(&t, range(3, 8), 5);
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

void test_take(const LanceDataset* ds) {
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
  CHECK_PEOPLE(&t, want, 5);
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
    CHECK_PEOPLE(&t, w, 3);
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

void test_data_statistics(const LanceDataset* ds) {
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

