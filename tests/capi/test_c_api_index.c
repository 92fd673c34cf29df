/* The C ABI tests in C (see test_c_api.c): index listing, segments and dropping on a copy of a dataset lance 12 indexed; what is not implemented (index building, search) and its errors. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lance/lance.h>

#include "arrow_rows.h"
#include "c_check.h"

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

/* Builds vector index "v3" of `vp` on column vec, checks it is listed as `type_json`, drops it. */
static void check_builds_and_drops(LanceDataset* ds, const LanceVectorIndexParams* vp, const char* type_json) {
  const uint64_t before = lance_dataset_index_count(ds);
  const char* json = NULL;
  CHECK(lance_dataset_create_vector_index(ds, "vec", "v3", vp, true) == 0);
  CHECK_OK();
  CHECK(lance_dataset_index_count(ds) == before + 1);
  json = lance_dataset_index_list_json(ds);
  CHECK(json != NULL && strstr(json, type_json) != NULL);
  lance_free_string(json);
  CHECK(lance_dataset_drop_index(ds, "v3") == 0);
}

static int hex(char c) { return c >= 'a' ? c - 'a' + 10 : c - '0'; }

void test_indexes(const char* uri, const char* listing_path) {
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

  /* BTREE / BITMAP / LABEL_LIST indexes are built (a new version); a taken name is refused
   * unless replacing. IVF_HNSW_SQ / IVF_HNSW_PQ / IVF_SQ / IVF_HNSW_FLAT are built; lance-c's enum has no other
   * implemented: NOT_SUPPORTED after lance-c's checks (IVF_FLAT / IVF_PQ and search: test_c_api_vector.c; INVERTED and
   * full-text search: test_c_api_fts.c). */
  {
    const uint64_t before = lance_dataset_index_count(ds);
    CHECK(lance_dataset_create_scalar_index(ds, "id", "id2", LANCE_SCALAR_BTREE, NULL, false) == 0);
    CHECK_OK();
    CHECK(lance_dataset_index_count(ds) == before + 1);
    CHECK(lance_dataset_create_scalar_index(ds, "id", "id2", LANCE_SCALAR_BTREE, NULL, false) == -1);
    CHECK_ERROR(LANCE_ERR_DATASET_ALREADY_EXISTS, "an index named 'id2'");
    CHECK(lance_dataset_create_scalar_index(ds, "cat", "id2", LANCE_SCALAR_BITMAP, NULL, true) == 0);
    CHECK(lance_dataset_index_count(ds) == before + 1);
    CHECK(lance_dataset_drop_index(ds, "id2") == 0);
    CHECK(lance_dataset_index_count(ds) == before);
  }
  /* Our addition: ZONEMAP / BLOOMFILTER (listed as lance-c's "ZoneMap" / "BloomFilter"). */
  {
    const uint64_t before = lance_dataset_index_count(ds);
    const char* zjson = NULL;
    CHECK(lance_cpp_dataset_create_zone_index(ds, "id", "id_zm", "ZONEMAP", 64, false) == 0);
    CHECK_OK();
    CHECK(lance_cpp_dataset_create_zone_index(ds, "cat", "cat_bf", "BLOOMFILTER", 0, false) == 0);
    CHECK(lance_dataset_index_count(ds) == before + 2);
    zjson = lance_dataset_index_list_json(ds);
    CHECK(zjson != NULL && strstr(zjson, "\"ZoneMap\"") != NULL && strstr(zjson, "\"BloomFilter\"") != NULL);
    lance_free_string(zjson);
    CHECK(lance_cpp_dataset_create_zone_index(ds, "id", "id_zm", "ZONEMAP", 64, false) == -1);
    CHECK_ERROR(LANCE_ERR_DATASET_ALREADY_EXISTS, "an index named 'id_zm'");
    CHECK(lance_cpp_dataset_create_zone_index(ds, "id", "x", "RTREE", 0, false) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "expected ZONEMAP, BLOOMFILTER or NGRAM");
    CHECK(lance_cpp_dataset_create_zone_index(ds, "id", "x", "NGRAM", 0, false) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "an NGRAM index keys a utf8 column, not int64");
    CHECK(lance_cpp_dataset_create_zone_index(ds, "text", "text_ng", "NGRAM", 0, false) == 0);
    CHECK(lance_dataset_index_count(ds) == before + 3);
    zjson = lance_dataset_index_list_json(ds);
    CHECK(zjson != NULL && strstr(zjson, "\"NGram\"") != NULL);
    lance_free_string(zjson);
    CHECK(lance_dataset_drop_index(ds, "text_ng") == 0);
    CHECK(lance_dataset_drop_index(ds, "id_zm") == 0);
    CHECK(lance_dataset_drop_index(ds, "cat_bf") == 0);
    CHECK(lance_dataset_index_count(ds) == before);
  }
  CHECK(lance_dataset_create_scalar_index(ds, "text", NULL, LANCE_SCALAR_INVERTED, NULL, false) == -1);
  CHECK_ERROR(LANCE_ERR_DATASET_ALREADY_EXISTS, "an index named 'text_idx'");
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
  {
    const uint64_t before = lance_dataset_index_count(ds);
    CHECK(lance_dataset_create_vector_index(ds, "vec", "v2", &vp, true) == 0);
    CHECK_OK();
    CHECK(lance_dataset_index_count(ds) == before + 1);
    CHECK(lance_dataset_drop_index(ds, "v2") == 0);
  }
  vp.index_type = LANCE_INDEX_IVF_HNSW_SQ;
  vp.hnsw_m = 8;
  check_builds_and_drops(ds, &vp, "\"IVF_HNSW_SQ\"");
  vp.index_type = LANCE_INDEX_IVF_HNSW_PQ;
  check_builds_and_drops(ds, &vp, "\"IVF_HNSW_PQ\"");
  vp.index_type = LANCE_INDEX_IVF_SQ;
  check_builds_and_drops(ds, &vp, "\"IVF_SQ\"");
  /* IVF_RQ (our addition) reaches the RaBitQ builder, which codes dimensions in multiples of 8
   * (this column has 4): NOT_SUPPORTED naming why. */
  vp.index_type = LANCE_INDEX_IVF_RQ;
  CHECK(lance_dataset_create_vector_index(ds, "vec", "v3", &vp, true) == -1);
  CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "IVF_RQ over 4 dimensions (a multiple of 8 is written)");
  vp.index_type = LANCE_INDEX_IVF_HNSW_FLAT;
  check_builds_and_drops(ds, &vp, "\"IVF_HNSW_FLAT\"");
  CHECK(lance_dataset_create_vector_index(ds, "vec", NULL, NULL, false) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset, column, and params must not be NULL");

  s = lance_scanner_new(ds, NULL, NULL);
  {
    const float q[4] = {1, 2, 3, 4};
    CHECK(lance_scanner_nearest(s, "vec", q, 4, LANCE_DTYPE_FLOAT32, 0) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "k must be > 0");
    CHECK(lance_scanner_nearest(s, "vec", q, 4, (LanceDataType)42, 3) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "invalid element_type: 42");
    CHECK(lance_scanner_nearest(s, NULL, q, 4, LANCE_DTYPE_FLOAT32, 3) == -1);
    CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "must not be NULL");
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

/* Our addition lance_cpp_dataset_optimize_indices: people rows 0..99 with a BTREE on id and a
 * BITMAP on name, 50 rows appended; optimize indexes the new fragment in both, scans through
 * them return the rows, and a second call has nothing to do. */
void test_optimize_indices(void) {
  char uri[4200];
  struct ArrowSchema schema;
  struct ArrowArrayStream stream;
  LanceDataset* ds = NULL;
  const char* json = NULL;
  const char* cols[] = {"id", "name", NULL};
  TextTable t;
  char row[128];
  int i;
  uint64_t v;

  path_in("optimize.lance", uri);
  people_schema(&schema);
  people_stream(0, 100, 40, &stream);
  CHECK(lance_dataset_write(uri, &schema, &stream, LANCE_WRITE_CREATE, NULL, &ds) == 0);
  CHECK(ds != NULL);
  if (ds == NULL) {
    schema.release(&schema);
    return;
  }
  CHECK(lance_dataset_create_scalar_index(ds, "id", NULL, LANCE_SCALAR_BTREE, NULL, false) == 0);
  CHECK(lance_dataset_create_scalar_index(ds, "name", NULL, LANCE_SCALAR_BITMAP, NULL, false) == 0);
  lance_dataset_close(ds);
  people_stream(100, 50, 50, &stream);
  CHECK(lance_dataset_write(uri, &schema, &stream, LANCE_WRITE_APPEND, NULL, &ds) == 0);
  schema.release(&schema);
  if (ds == NULL) return;

  CHECK(lance_cpp_dataset_optimize_indices(ds, "nope", &json) == -1);
  CHECK_ERROR(LANCE_ERR_NOT_FOUND, "'nope'");
  v = lance_dataset_version(ds);
  CHECK(lance_cpp_dataset_optimize_indices(ds, NULL, &json) == 0);
  CHECK_OK();
  CHECK(json != NULL);
  if (json != NULL) {
    CHECK(strstr(json, "{\"name\":\"id_idx\",\"type\":\"BTREE\",\"outcome\":\"merged\"") != NULL);
    CHECK(strstr(json, "{\"name\":\"name_idx\",\"type\":\"BITMAP\",\"outcome\":\"merged\"") != NULL);
    CHECK(strstr(json, "\"indexed_fragments\":[0,1],\"new_fragments\":[1],\"num_indexed_rows\":150") != NULL);
    lance_free_string(json);
  }
  CHECK(lance_dataset_version(ds) == v + 1); /* both indexes in one commit */
  scan_rows(ds, cols, "id >= 97 AND id < 103", &t);
  CHECK(t.nrows == 6);
  for (i = 0; i < t.nrows; ++i) {
    char want[128];
    people_row_text(97 + i, want, sizeof(want));
    *strstr(want, " score=") = 0;
    text_table_row(&t, i, row, sizeof(row));
    CHECK(strcmp(row, want) == 0);
  }
  text_table_free(&t);
  scan_rows(ds, cols, "name = 'n125'", &t);
  CHECK(t.nrows == 1);
  text_table_free(&t);

  json = NULL;
  CHECK(lance_cpp_dataset_optimize_indices(ds, "id_idx", &json) == 0);
  CHECK(json != NULL && strcmp(json, "[{\"name\":\"id_idx\",\"type\":\"BTREE\",\"outcome\":\"up_to_date\"}]") == 0);
  lance_free_string(json);
  CHECK(lance_dataset_version(ds) == v + 1); /* both indexes in one commit */
  CHECK(lance_cpp_dataset_optimize_indices(NULL, NULL, NULL) == -1);
  CHECK_ERROR(LANCE_ERR_INVALID_ARGUMENT, "dataset must not be NULL");
  lance_dataset_close(ds);
}

