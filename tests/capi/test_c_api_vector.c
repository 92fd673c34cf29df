/* The C ABI tests in C (see test_c_api.c): vector search and vector index building on a copy
 * of the dataset lance 12 indexed (300 rows in two fragments, vec = [i % 7, i % 3, i / 10, 1],
 * an IVF_PQ index vec_idx it built). Every answer is compared with a brute-force model computed
 * here from the vectors the scan returns: exact search (use_index false), lance 12's IVF_PQ
 * searched whole with a refine factor covering every row, prefilter and postfilter, the
 * cosine metric (an l2 index is then not used), and IVF_FLAT / IVF_PQ / IVF_HNSW_PQ indexes built
 * through lance_dataset_create_vector_index replacing vec_idx. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lance/lance.h>

#include "c_check.h"

#define NROWS 300
#define DIM 4
#define K 10

typedef struct {
  int64_t id[NROWS];
  uint64_t rowid[NROWS];
  float vec[NROWS][DIM];
  int n;
} Vectors;

typedef struct {
  uint64_t rowid[NROWS];
  float distance[NROWS];
  int n;
} Hits;

static const float kQuery[DIM] = {2.3f, 0.7f, 13.1f, 1.1f};

/* Every row's id, row id and vector, through a scan. */
static void read_vectors(LanceDataset* ds, Vectors* out) {
  const char* cols[] = {"id", "vec", "_rowid", NULL};
  LanceScanner* s = lance_scanner_new(ds, cols, NULL);
  struct ArrowArrayStream stream;
  out->n = 0;
  CHECK(s != NULL && lance_scanner_to_arrow_stream(s, &stream) == 0);
  for (;;) {
    struct ArrowArray batch;
    int64_t i, d;
    if (stream.get_next(&stream, &batch) != 0 || batch.release == NULL) break;
    {
      const struct ArrowArray* ids = batch.children[0];
      const struct ArrowArray* fsl = batch.children[1];
      const struct ArrowArray* values = fsl->children[0];
      const struct ArrowArray* rowids = batch.children[2];
      for (i = 0; i < batch.length && out->n < NROWS; ++i) {
        out->id[out->n] = ((const int64_t*)ids->buffers[1])[ids->offset + i];
        out->rowid[out->n] = ((const uint64_t*)rowids->buffers[1])[rowids->offset + i];
        for (d = 0; d < DIM; ++d) {
          out->vec[out->n][d] =
              ((const float*)values->buffers[1])[values->offset + (fsl->offset + i) * DIM + d];
        }
        ++out->n;
      }
    }
    batch.release(&batch);
  }
  stream.release(&stream);
  lance_scanner_close(s);
  CHECK(out->n == NROWS);
}

/* The k nearest of the rows with id < max_id, by l2 (squared) or cosine distance (1 - cos),
 * ties by row id. */
static void model(const Vectors* v, int cosine, int64_t max_id, int k, Hits* out) {
  double dist[NROWS];
  int order[NROWS], n = 0, i, j, d;
  for (i = 0; i < v->n; ++i) {
    double l2 = 0, dot = 0, qq = 0, xx = 0;
    if (v->id[i] >= max_id) continue;
    for (d = 0; d < DIM; ++d) {
      const double x = v->vec[i][d], q = kQuery[d];
      l2 += (x - q) * (x - q);
      dot += x * q;
      qq += q * q;
      xx += x * x;
    }
    dist[i] = cosine ? 1 - dot / sqrt(qq * xx) : l2;
    order[n++] = i;
  }
  for (i = 1; i < n; ++i) { /* insertion sort by (distance, row id) */
    const int x = order[i];
    for (j = i; j > 0; --j) {
      const int y = order[j - 1];
      if (dist[y] < dist[x] || (dist[y] == dist[x] && v->rowid[y] < v->rowid[x])) break;
      order[j] = y;
    }
    order[j] = x;
  }
  out->n = n < k ? n : k;
  for (i = 0; i < out->n; ++i) {
    out->rowid[i] = v->rowid[order[i]];
    out->distance[i] = (float)dist[order[i]];
  }
}

/* The (_rowid, _distance) of a scan set up by the caller (columns {"_rowid"}). */
static void read_hits(LanceScanner* s, Hits* out) {
  struct ArrowArrayStream stream;
  struct ArrowSchema schema;
  out->n = 0;
  if (lance_scanner_to_arrow_stream(s, &stream) != 0) {
    ++checks;
    ++failures;
    {
      const char* msg = lance_last_error_message();
      fprintf(stderr, "test_c_api_vector.c: the k-NN scan failed to start: %s\n", msg ? msg : "?");
      lance_free_string(msg);
    }
    return;
  }
  CHECK(stream.get_schema(&stream, &schema) == 0);
  CHECK(schema.n_children == 2 && strcmp(schema.children[0]->name, "_rowid") == 0 &&
        strcmp(schema.children[1]->name, "_distance") == 0 && strcmp(schema.children[1]->format, "f") == 0);
  schema.release(&schema);
  for (;;) {
    struct ArrowArray batch;
    int64_t i;
    if (stream.get_next(&stream, &batch) != 0 || batch.release == NULL) break;
    for (i = 0; i < batch.length && out->n < NROWS; ++i) {
      out->rowid[out->n] = ((const uint64_t*)batch.children[0]->buffers[1])[batch.children[0]->offset + i];
      out->distance[out->n] = ((const float*)batch.children[1]->buffers[1])[batch.children[1]->offset + i];
      ++out->n;
    }
    batch.release(&batch);
  }
  stream.release(&stream);
}

static LanceScanner* knn(LanceDataset* ds, const char* filter, uint32_t k) {
  const char* cols[] = {"_rowid", NULL};
  LanceScanner* s = lance_scanner_new(ds, cols, filter);
  CHECK(s != NULL);
  CHECK(lance_scanner_nearest(s, "vec", kQuery, DIM, LANCE_DTYPE_FLOAT32, k) == 0);
  CHECK_OK();
  return s;
}

static int same_hits(const Hits* got, const Hits* want, int check_distances, int line) {
  int i, ok = got->n == want->n;
  for (i = 0; ok && i < got->n; ++i) {
    ok = got->rowid[i] == want->rowid[i];
    if (ok && check_distances) {
      ok = fabsf(got->distance[i] - want->distance[i]) <= 1e-4f * (1 + fabsf(want->distance[i]));
    }
  }
  if (!ok) {
    fprintf(stderr, "test_c_api_vector.c:%d: k-NN rows differ from the model (%d vs %d rows)\n", line,
            got->n, want->n);
    for (i = 0; i < got->n || i < want->n; ++i) {
      fprintf(stderr, "  got %llu %g  want %llu %g\n", i < got->n ? (unsigned long long)got->rowid[i] : 0ull,
              i < got->n ? got->distance[i] : 0.0, i < want->n ? (unsigned long long)want->rowid[i] : 0ull,
              i < want->n ? want->distance[i] : 0.0);
    }
  }
  return ok;
}

static char* index_type_of(LanceDataset* ds, const char* name, char* out, size_t cap) {
  const char* json = lance_dataset_index_list_json(ds);
  char key[64];
  const char* at;
  out[0] = '\0';
  sprintf(key, "\"name\":\"%s\"", name);
  at = json ? strstr(json, key) : NULL;
  at = at ? strstr(at, "\"type\":\"") : NULL;
  if (at != NULL) {
    size_t n = 0;
    at += strlen("\"type\":\"");
    while (at[n] != '"' && n + 1 < cap) ++n;
    memcpy(out, at, n);
    out[n] = '\0';
  }
  lance_free_string(json);
  return out;
}

void test_vector_search(const char* uri) {
  LanceDataset* ds = lance_dataset_open(uri, NULL, 0);
  Vectors v;
  Hits want, got, unfiltered;
  LanceScanner* s;
  LanceVectorIndexParams vp;
  char type[32];
  int i;
  CHECK(ds != NULL);
  if (ds == NULL) return;
  read_vectors(ds, &v);
  CHECK(strcmp(index_type_of(ds, "vec_idx", type, sizeof type), "IVF_PQ") == 0);

  /* Exact search. */
  model(&v, 0, NROWS, K, &want);
  s = knn(ds, NULL, K);
  CHECK(lance_scanner_set_use_index(s, false) == 0);
  read_hits(s, &got);
  CHECK(same_hits(&got, &want, 1, __LINE__));
  lance_scanner_close(s);

  /* lance 12's IVF_PQ: both partitions, k x 30 = every row re-ranked exactly. */
  s = knn(ds, NULL, K);
  CHECK(lance_scanner_set_nprobes(s, 2) == 0 && lance_scanner_set_refine_factor(s, 30) == 0);
  read_hits(s, &got);
  CHECK(same_hits(&got, &want, 1, __LINE__));
  lance_scanner_close(s);
  /* Without refine: PQ distances, k rows, nearest first. */
  s = knn(ds, NULL, K);
  read_hits(s, &unfiltered);
  CHECK(unfiltered.n == K);
  for (i = 1; i < unfiltered.n; ++i) CHECK(unfiltered.distance[i - 1] <= unfiltered.distance[i]);
  lance_scanner_close(s);

  /* Prefilter: the ANN over the rows with id < 150 only. */
  model(&v, 0, 150, K, &want);
  s = knn(ds, "id < 150", K);
  CHECK(lance_scanner_set_prefilter(s, true) == 0);
  CHECK(lance_scanner_set_nprobes(s, 2) == 0 && lance_scanner_set_refine_factor(s, 30) == 0);
  read_hits(s, &got);
  CHECK(same_hits(&got, &want, 1, __LINE__));
  lance_scanner_close(s);
  /* Postfilter (the default): the k unfiltered rows that pass, in order. */
  {
    Hits post;
    post.n = 0;
    for (i = 0; i < unfiltered.n; ++i) {
      int r;
      for (r = 0; r < v.n; ++r) {
        if (v.rowid[r] == unfiltered.rowid[i] && v.id[r] < 150) {
          post.rowid[post.n] = unfiltered.rowid[i];
          post.distance[post.n++] = unfiltered.distance[i];
        }
      }
    }
    s = knn(ds, "id < 150", K);
    read_hits(s, &got);
    CHECK(same_hits(&got, &post, 1, __LINE__));
    lance_scanner_close(s);
  }

  /* Cosine: the l2 index does not answer, exact cosine search does. */
  model(&v, 1, NROWS, K, &want);
  s = knn(ds, NULL, K);
  CHECK(lance_scanner_set_metric(s, LANCE_METRIC_COSINE) == 0);
  read_hits(s, &got);
  CHECK(same_hits(&got, &want, 1, __LINE__));
  lance_scanner_close(s);

  /* Index segments restrict nothing yet: refused with a nearest query. */
  s = knn(ds, NULL, K);
  {
    const uint8_t seg[16] = {0};
    struct ArrowArrayStream stream;
    CHECK(lance_scanner_set_index_segments(s, seg, 1) == 0);
    CHECK(lance_scanner_to_arrow_stream(s, &stream) == -1);
    CHECK_ERROR(LANCE_ERR_NOT_SUPPORTED, "index segments");
  }
  lance_scanner_close(s);

  /* Our IVF_FLAT replacing vec_idx: every partition probed is exact search. */
  memset(&vp, 0, sizeof vp);
  vp.index_type = LANCE_INDEX_IVF_FLAT;
  vp.metric = LANCE_METRIC_L2;
  vp.num_partitions = 4;
  CHECK(lance_dataset_create_vector_index(ds, "vec", "vec_idx", &vp, false) == -1);
  CHECK_ERROR(LANCE_ERR_DATASET_ALREADY_EXISTS, "vec_idx");
  CHECK(lance_dataset_create_vector_index(ds, "vec", "vec_idx", &vp, true) == 0);
  CHECK_OK();
  CHECK(strcmp(index_type_of(ds, "vec_idx", type, sizeof type), "IVF_FLAT") == 0);
  model(&v, 0, NROWS, K, &want);
  s = knn(ds, NULL, K);
  CHECK(lance_scanner_set_nprobes(s, 4) == 0);
  read_hits(s, &got);
  CHECK(same_hits(&got, &want, 1, __LINE__));
  lance_scanner_close(s);

  /* Our IVF_PQ (2 sub-vectors), refined over every row. */
  vp.index_type = LANCE_INDEX_IVF_PQ;
  vp.num_partitions = 2;
  vp.num_sub_vectors = 2;
  CHECK(lance_dataset_create_vector_index(ds, "vec", "vec_idx", &vp, true) == 0);
  CHECK_OK();
  CHECK(strcmp(index_type_of(ds, "vec_idx", type, sizeof type), "IVF_PQ") == 0);
  s = knn(ds, NULL, K);
  CHECK(lance_scanner_set_nprobes(s, 2) == 0 && lance_scanner_set_refine_factor(s, 30) == 0);
  read_hits(s, &got);
  CHECK(same_hits(&got, &want, 1, __LINE__));
  lance_scanner_close(s);

  /* Our IVF_HNSW_PQ (2 partitions, 2 sub-vectors, m 8): both graphs walked with an ef over
   * every row, refined exactly, is exact search. */
  vp.index_type = LANCE_INDEX_IVF_HNSW_PQ;
  vp.hnsw_m = 8;
  CHECK(lance_dataset_create_vector_index(ds, "vec", "vec_idx", &vp, true) == 0);
  CHECK_OK();
  CHECK(strcmp(index_type_of(ds, "vec_idx", type, sizeof type), "IVF_HNSW_PQ") == 0);
  s = knn(ds, NULL, K);
  CHECK(lance_scanner_set_nprobes(s, 2) == 0 && lance_scanner_set_refine_factor(s, 30) == 0);
  CHECK(lance_scanner_set_ef(s, NROWS) == 0);
  read_hits(s, &got);
  CHECK(same_hits(&got, &want, 1, __LINE__));
  lance_scanner_close(s);
  lance_dataset_close(ds);
}
