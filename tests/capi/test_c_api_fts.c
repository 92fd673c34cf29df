/* The C ABI tests in C (see test_c_api.c): full-text search (lance_scanner_full_text_search)
 * over the INVERTED index lance 12 built on the indexed golden's `text` column, then over the
 * one lance-cpp builds through lance_dataset_create_scalar_index in its place; both return
 * lance 12's rows, order and _score. The expected rows are lance 12's answers on this dataset
 * (query().fullTextSearch(q).limit(k) through @lancedb/lancedb 0.39.0). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lance/lance.h>

#include "arrow_rows.h"
#include "c_check.h"

/* lance 12: "pear 9 9 9 18 18 27", limit 3 (distinct scores: the order is determined) */
static const int64_t kIds[3] = {9, 18, 27};
static const double kScores[3] = {14.503910064697266, 9.755491256713867, 5.007073402404785};
/* lance 12: "kiwi", every match: 34 rows, each of score 1.9401129484176636 */
static const double kKiwi = 1.9401129484176636;

static LanceScanner* search_fuzzy(LanceDataset* ds, const char* q, int64_t limit, uint32_t fuzzy, TextTable* t) {
  const char* cols[] = {"id", "text", NULL};
  const char* fts_cols[] = {"text", NULL};
  struct ArrowArrayStream stream;
  LanceScanner* s = lance_scanner_new(ds, cols, NULL);
  CHECK(s != NULL);
  CHECK(lance_scanner_full_text_search(s, q, fts_cols, fuzzy) == 0);
  CHECK_OK();
  if (limit > 0) CHECK(lance_scanner_set_limit(s, limit) == 0);
  text_table_init(t);
  CHECK(lance_scanner_to_arrow_stream(s, &stream) == 0);
  CHECK_OK();
  CHECK(text_table_read(t, &stream) == 0);
  return s;
}

static LanceScanner* search(LanceDataset* ds, const char* q, int64_t limit, TextTable* t) {
  return search_fuzzy(ds, q, limit, 0, t);
}

static void check_reference_answers(LanceDataset* ds, const char* what) {
  TextTable t;
  int64_t r;
  int id, text, score;
  LanceScanner* s = search(ds, "pear 9 9 9 18 18 27", 3, &t);
  id = text_table_column(&t, "id");
  text = text_table_column(&t, "text");
  score = text_table_column(&t, "_score");
  CHECK(t.ncols == 3 && id == 0 && text == 1 && score == 2);
  CHECK(t.nrows == 3);
  for (r = 0; r < t.nrows && r < 3 && score >= 0; ++r) {
    char want[64];
    const double got = strtod(t.cells[r][score], NULL);
    sprintf(want, "doc %lld pear kiwi", (long long)kIds[r]);
    CHECK(strtoll(t.cells[r][id], NULL, 10) == kIds[r]);
    CHECK(strcmp(t.cells[r][text], want) == 0);
    if (fabs(got - kScores[r]) > 1e-5 * kScores[r]) {
      fprintf(stderr, "%s: row %lld score %s, lance 12 %.9g\n", what, (long long)r, t.cells[r][score], kScores[r]);
      CHECK(0);
    }
  }
  text_table_free(&t);
  lance_scanner_close(s);

  s = search(ds, "kiwi", 0, &t);
  score = text_table_column(&t, "_score");
  text = text_table_column(&t, "text");
  CHECK(t.nrows == 34 && score == 2);
  for (r = 0; r < t.nrows && score >= 0; ++r) {
    CHECK(strstr(t.cells[r][text], " kiwi") != NULL);
    CHECK(fabs(strtod(t.cells[r][score], NULL) - kKiwi) < 1e-5);
  }
  text_table_free(&t);
  lance_scanner_close(s);
}

void test_full_text_search(const char* uri) {
  LanceDataset* ds = lance_dataset_open(uri, NULL, 0);
  LanceScanner* s;
  const char* fts_cols[] = {"text", NULL};
  const float q[4] = {1, 2, 3, 4};
  CHECK(ds != NULL);
  check_reference_answers(ds, "lance 12's text_idx");

  /* lance-c's argument checks and what lance-cpp does not do */
  s = lance_scanner_new(ds, NULL, NULL);
  lance_scanner_close(s);

  /* fuzzy: "kiwj" within one edit is "kiwi" (the only such token), scored as kiwi; exact, nothing */
  {
    TextTable t;
    int64_t r;
    int score;
    s = search_fuzzy(ds, "kiwj", 0, 1, &t);
    score = text_table_column(&t, "_score");
    CHECK(t.nrows == 34 && score == 2);
    for (r = 0; r < t.nrows && score >= 0; ++r) CHECK(fabs(strtod(t.cells[r][score], NULL) - kKiwi) < 1e-5);
    text_table_free(&t);
    lance_scanner_close(s);
    s = search_fuzzy(ds, "kiwj", 0, 0, &t);
    CHECK(t.nrows == 0);
    text_table_free(&t);
    lance_scanner_close(s);
  }
  s = lance_scanner_new(ds, NULL, NULL);
  CHECK(lance_scanner_full_text_search(s, NULL, NULL, 0) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "scanner and query must not be NULL");
  CHECK(lance_scanner_full_text_search(s, "apple", fts_cols, 3) == 0); /* fuzzy is a query now */
  CHECK(lance_scanner_full_text_search(s, "apple", NULL, 0) == 0);
  CHECK(lance_scanner_nearest(s, "vec", q, 4, LANCE_DTYPE_FLOAT32, 3) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "mutually exclusive");
  lance_scanner_close(s);

  /* our INVERTED index in place of lance 12's (the tokenizer params as lance's JSON) */
  CHECK(lance_dataset_create_scalar_index(ds, "text", "text_idx", LANCE_SCALAR_INVERTED, "{\"with_position\":false}",
                                          false) == -1);
  CHECK_ERROR(LANCE_ERR_DATASET_ALREADY_EXISTS, "text_idx");
  CHECK(lance_dataset_create_scalar_index(ds, "text", "text_idx", LANCE_SCALAR_INVERTED, "{\"stem\":7}", true) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "params_json");
  CHECK(lance_dataset_create_scalar_index(ds, "id", "id_fts", LANCE_SCALAR_INVERTED, NULL, false) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "utf8");
  CHECK(lance_dataset_create_scalar_index(ds, "text", "text_idx", LANCE_SCALAR_INVERTED,
                                          "{\"base_tokenizer\":\"simple\",\"with_position\":true}", true) == 0);
  CHECK_OK();
  {
    const char* json = lance_dataset_index_list_json(ds);
    CHECK(json != NULL && strstr(json, "\"text_idx\"") != NULL);
    lance_free_string(json);
  }
  check_reference_answers(ds, "lance-cpp's text_idx");
  lance_dataset_close(ds);
}
