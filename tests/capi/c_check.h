/* Checks and helpers shared by the C ABI tests in C (test_c_api*.c): counted checks that keep
 * going, error checks that also verify the message names the problem and that taking it
 * clears the error, scans read back as text, the scratch directory. */
#ifndef LANCE_TESTS_CAPI_C_CHECK_H_
#define LANCE_TESTS_CAPI_C_CHECK_H_

#include <stdint.h>
#include <stdio.h>

#include <lance/lance.h>

#include "arrow_rows.h"

extern int failures;
extern int checks;
extern char scratch[4096];

#define CHECK(cond)                                                             \
  do {                                                                          \
    ++checks;                                                                   \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

/* Expects the pending error to have `code` and a message containing `part`; takes it. */
#define CHECK_ERROR(code, part) check_error_at(__FILE__, __LINE__, (code), (part))
/* Expects no pending error. */
#define CHECK_OK() check_ok_at(__FILE__, __LINE__)
/* The rows of a TextTable are the people rows `ids[0..n)`. */
#define CHECK_PEOPLE(t, ids, n) check_people((t), (ids), (n), __FILE__, __LINE__)

void check_error_at(const char* file, int line, LanceErrorCode code, const char* part);
void check_ok_at(const char* file, int line);
void check_people(const TextTable* t, const int64_t* ids, int64_t n, const char* file, int line);

/* `name` inside the scratch directory, written to buf. */
const char* path_in(const char* name, char* buf);
void sleep_ms(long ms);
/* Every row of a scan of `ds` with `columns` (NULL-terminated or NULL) and `filter`. */
void scan_rows(const LanceDataset* ds, const char* const* columns, const char* filter, TextTable* out);
/* ids from, from + 1, ..., to - 1 (a static buffer). */
const int64_t* range(int64_t from, int64_t to);

/* The test groups (test_c_api*.c). */
void test_errors(void);
LanceDataset* test_write(const char* uri);
void test_overwrite_and_versions(void);
void test_scans(const LanceDataset* ds);
void test_take(const LanceDataset* ds);
void test_data_statistics(const LanceDataset* ds);
void test_delete_update(LanceDataset* ds);
void test_merge_insert(LanceDataset* ds);
void test_schema_evolution(LanceDataset* ds);
void test_compact_restore(LanceDataset* ds);
void test_write_fragments(void);
void test_indexes(const char* uri, const char* listing_path);
void test_optimize_indices(void);
void test_vector_search(const char* uri);
void test_full_text_search(const char* uri);

#endif /* LANCE_TESTS_CAPI_C_CHECK_H_ */
