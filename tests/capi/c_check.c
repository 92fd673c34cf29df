/* See c_check.h. */
#define _POSIX_C_SOURCE 200809L

#include "c_check.h"

#include <string.h>
#include <time.h>

int failures = 0;
int checks = 0;

void check_error_at(const char* file, int line, LanceErrorCode code, const char* part) {
  const LanceErrorCode got = lance_last_error_code();
  const char* msg = lance_last_error_message();
  ++checks;
  if (got != code || msg == NULL || strstr(msg, part) == NULL) {
    fprintf(stderr, "%s:%d: expected error %d containing \"%s\", got %d \"%s\"\n", file, line,
            (int)code, part, (int)got, msg ? msg : "(null)");
    ++failures;
  }
  lance_free_string(msg);
  ++checks;
  if (lance_last_error_code() != LANCE_OK || lance_last_error_message() != NULL) {
    fprintf(stderr, "%s:%d: taking the message must clear the error\n", file, line);
    ++failures;
  }
}

void check_ok_at(const char* file, int line) {
  ++checks;
  if (lance_last_error_code() != LANCE_OK) {
    const char* msg = lance_last_error_message();
    fprintf(stderr, "%s:%d: unexpected error: %s\n", file, line, msg ? msg : "(null)");
    lance_free_string(msg);
    ++failures;
  }
}

char scratch[4096];

const char* path_in(const char* name, char* buf) {
  sprintf(buf, "%s/%s", scratch, name);
  return buf;
}

void sleep_ms(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

void scan_rows(const LanceDataset* ds, const char* const* columns, const char* filter,
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

void check_people(const TextTable* t, const int64_t* ids, int64_t n, const char* file, int line) {
  char got[256], want[256];
  int64_t r;
  ++checks;
  if (t->nrows != n) {
    fprintf(stderr, "%s:%d: %lld rows, expected %lld\n", file, line, (long long)t->nrows,
            (long long)n);
    ++failures;
    return;
  }
  for (r = 0; r < n; ++r) {
    text_table_row(t, r, got, sizeof(got));
    people_row_text(ids[r], want, sizeof(want));
    ++checks;
    if (strcmp(got, want) != 0) {
      fprintf(stderr, "%s:%d: row %lld is \"%s\", expected \"%s\"\n", file, line, (long long)r,
              got, want);
      ++failures;
      return;
    }
  }
}

static int64_t range_ids[1000];
const int64_t* range(int64_t from, int64_t to) {
  int64_t i;
  for (i = from; i < to; ++i) range_ids[i - from] = i;
  return range_ids;
}

