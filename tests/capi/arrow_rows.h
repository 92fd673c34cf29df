/* Test helpers of the C ABI tests, in plain C99 over the Arrow C structs of lance/lance.h only:
 * producers of Arrow C streams with known rows, and a reader that turns any stream or batch
 * into text cells so that tests compare values, not counts.
 *
 * The "people" rows: row i has
 *   id    int64 not null  = i
 *   name  utf8            = "n<i>", NULL when i % 3 == 0
 *   score float64         = i / 2, NULL when i % 4 == 0 */
#ifndef LANCE_TESTS_CAPI_ARROW_ROWS_H_
#define LANCE_TESTS_CAPI_ARROW_ROWS_H_

#include <stddef.h>
#include <stdint.h>

#include <lance/lance.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Streams produced here that have been released so far (to check "consumed" contracts). */
extern int arrow_rows_streams_released;

/* The schema of the people rows ("+s" {id, name, score}); the caller releases it. */
void people_schema(struct ArrowSchema* out);
/* People rows [start, start + n) in batches of `batch_rows` rows (n == 0: no batch). */
void people_stream(int64_t start, int64_t n, int64_t batch_rows, struct ArrowArrayStream* out);
/* One int64 column `name` (nullable or not) with values first, first + step, ... (n rows, in
 * batches of `batch_rows`); its schema. */
void int64_schema(const char* name, int nullable, struct ArrowSchema* out);
void int64_stream(const char* name, int nullable, int64_t n, int64_t first, int64_t step,
                  int64_t batch_rows, struct ArrowArrayStream* out);
/* The type alone: an unnamed field of `format` (e.g. "g", "L"). */
void type_schema(const char* format, struct ArrowSchema* out);

/* The text of row i of the people rows: "id=<i> name=<n<i>|null> score=<%g|null>". */
void people_row_text(int64_t i, char* out, size_t cap);

/* Rows read back as text. Cells: int64/uint64/int32 as %lld, float64/float32 as %g, utf8 as
 * is, bool as true/false, nulls as "null", other types "?". */
typedef struct {
  int ncols;
  char** names;     /* ncols names */
  int64_t nrows;
  char*** cells;    /* nrows rows of ncols cells */
  int64_t nbatches;
  int64_t max_batch_rows;
} TextTable;

void text_table_init(TextTable* t);
void text_table_free(TextTable* t);
/* Appends a struct array (a batch) described by `schema`; releases neither. Returns 0. */
int text_table_append(TextTable* t, const struct ArrowArray* batch, const struct ArrowSchema* schema);
/* Reads a whole stream (and releases it). Returns 0, or the failing callback's code. */
int text_table_read(TextTable* t, struct ArrowArrayStream* stream);
/* Row r as "<name>=<cell> <name>=<cell> ..." into out. */
void text_table_row(const TextTable* t, int64_t r, char* out, size_t cap);
/* The column named `name`, or -1. */
int text_table_column(const TextTable* t, const char* name);

#ifdef __cplusplus
}
#endif

#endif /* LANCE_TESTS_CAPI_ARROW_ROWS_H_ */
