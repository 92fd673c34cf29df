/* See arrow_rows.h. Every producer struct owns its memory through private_data and frees it in
 * its release callback, as the Arrow C Data Interface specifies. */
#include "arrow_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int arrow_rows_streams_released = 0;

static void* xcalloc(size_t n, size_t size) {
  void* p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size);
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

static char* xstrdup(const char* s) {
  char* out = (char*)xcalloc(strlen(s) + 1, 1);
  strcpy(out, s);
  return out;
}

/* ---- Schemas --------------------------------------------------------------------------- */

static void release_schema(struct ArrowSchema* s) {
  int64_t i;
  for (i = 0; i < s->n_children; ++i) {
    if (s->children[i]->release != NULL) s->children[i]->release(s->children[i]);
    free(s->children[i]);
  }
  free(s->children);
  free((void*)s->name);
  free((void*)s->format);
  s->release = NULL;
}

static void init_schema(struct ArrowSchema* s, const char* format, const char* name, int nullable,
                        int64_t n_children) {
  memset(s, 0, sizeof(*s));
  s->format = xstrdup(format);
  s->name = name != NULL ? xstrdup(name) : NULL;
  s->flags = nullable ? ARROW_FLAG_NULLABLE : 0;
  s->n_children = n_children;
  if (n_children > 0) {
    int64_t i;
    s->children = (struct ArrowSchema**)xcalloc((size_t)n_children, sizeof(struct ArrowSchema*));
    for (i = 0; i < n_children; ++i) {
      s->children[i] = (struct ArrowSchema*)xcalloc(1, sizeof(struct ArrowSchema));
    }
  }
  s->release = release_schema;
}

void people_schema(struct ArrowSchema* out) {
  init_schema(out, "+s", "", 0, 3);
  init_schema(out->children[0], "l", "id", 0, 0);
  init_schema(out->children[1], "u", "name", 1, 0);
  init_schema(out->children[2], "g", "score", 1, 0);
}

void int64_schema(const char* name, int nullable, struct ArrowSchema* out) {
  init_schema(out, "+s", "", 0, 1);
  init_schema(out->children[0], "l", name, nullable, 0);
}

void type_schema(const char* format, struct ArrowSchema* out) { init_schema(out, format, NULL, 1, 0); }

/* ---- Arrays ---------------------------------------------------------------------------- */

/* An array node: its buffers and children, freed by release_array. */
typedef struct {
  const void* buffers[3];
  struct ArrowArray* children[3];
} Node;

static void release_array(struct ArrowArray* a) {
  Node* node = (Node*)a->private_data;
  int64_t i;
  for (i = 0; i < a->n_children; ++i) {
    if (node->children[i]->release != NULL) node->children[i]->release(node->children[i]);
    free(node->children[i]);
  }
  for (i = 0; i < a->n_buffers; ++i) free((void*)node->buffers[i]);
  free(node);
  a->release = NULL;
}

static void init_array(struct ArrowArray* a, int64_t length, int64_t null_count, int64_t n_buffers,
                       int64_t n_children) {
  Node* node = (Node*)xcalloc(1, sizeof(Node));
  int64_t i;
  memset(a, 0, sizeof(*a));
  a->length = length;
  a->null_count = null_count;
  a->n_buffers = n_buffers;
  a->n_children = n_children;
  a->buffers = node->buffers;
  for (i = 0; i < n_children; ++i) node->children[i] = (struct ArrowArray*)xcalloc(1, sizeof(struct ArrowArray));
  a->children = n_children > 0 ? node->children : NULL;
  a->private_data = node;
  a->release = release_array;
}

static uint8_t* bitmap(int64_t n) { return (uint8_t*)xcalloc((size_t)(n / 8 + 1), 1); }
static void set_bit(uint8_t* b, int64_t i) { b[i / 8] = (uint8_t)(b[i / 8] | (1u << (i % 8))); }

static int name_is_null(int64_t i) { return i % 3 == 0; }
static int score_is_null(int64_t i) { return i % 4 == 0; }

static void people_batch(int64_t start, int64_t n, struct ArrowArray* out) {
  int64_t i, nulls = 0, bytes = 0;
  int64_t* ids = (int64_t*)xcalloc((size_t)n, sizeof(int64_t));
  double* scores = (double*)xcalloc((size_t)n, sizeof(double));
  int32_t* offsets = (int32_t*)xcalloc((size_t)n + 1, sizeof(int32_t));
  uint8_t* name_valid = bitmap(n);
  uint8_t* score_valid = bitmap(n);
  char* chars;
  char tmp[32];
  for (i = 0; i < n; ++i) {
    if (!name_is_null(start + i)) bytes += sprintf(tmp, "n%lld", (long long)(start + i));
  }
  chars = (char*)xcalloc((size_t)bytes + 1, 1);
  bytes = 0;
  init_array(out, n, 0, 1, 3);
  for (i = 0; i < n; ++i) {
    const int64_t r = start + i;
    ids[i] = r;
    offsets[i] = (int32_t)bytes;
    if (!name_is_null(r)) {
      bytes += sprintf(chars + bytes, "n%lld", (long long)r);
      set_bit(name_valid, i);
    }
    if (!score_is_null(r)) {
      scores[i] = (double)r / 2.0;
      set_bit(score_valid, i);
    }
  }
  offsets[n] = (int32_t)bytes;
  init_array(out->children[0], n, 0, 2, 0);
  out->children[0]->buffers[1] = ids;
  for (i = 0, nulls = 0; i < n; ++i) nulls += name_is_null(start + i);
  init_array(out->children[1], n, nulls, 3, 0);
  out->children[1]->buffers[0] = name_valid;
  out->children[1]->buffers[1] = offsets;
  out->children[1]->buffers[2] = chars;
  for (i = 0, nulls = 0; i < n; ++i) nulls += score_is_null(start + i);
  init_array(out->children[2], n, nulls, 2, 0);
  out->children[2]->buffers[0] = score_valid;
  out->children[2]->buffers[1] = scores;
}

static void int64_batch(int64_t n, int64_t first, int64_t step, struct ArrowArray* out) {
  int64_t i;
  int64_t* v = (int64_t*)xcalloc((size_t)n, sizeof(int64_t));
  for (i = 0; i < n; ++i) v[i] = first + i * step;
  init_array(out, n, 0, 1, 1);
  init_array(out->children[0], n, 0, 2, 0);
  out->children[0]->buffers[1] = v;
}

/* ---- Streams --------------------------------------------------------------------------- */

typedef struct {
  int kind; /* 0 people, 1 int64 */
  char* column;
  int nullable;
  int64_t nbatches, next;
  struct ArrowArray* batches;
} StreamState;

static int stream_get_schema(struct ArrowArrayStream* s, struct ArrowSchema* out) {
  StreamState* st = (StreamState*)s->private_data;
  if (st->kind == 0) {
    people_schema(out);
  } else {
    int64_schema(st->column, st->nullable, out);
  }
  return 0;
}

static int stream_get_next(struct ArrowArrayStream* s, struct ArrowArray* out) {
  StreamState* st = (StreamState*)s->private_data;
  if (st->next >= st->nbatches) {
    memset(out, 0, sizeof(*out));
    return 0;
  }
  *out = st->batches[st->next];
  st->batches[st->next].release = NULL; /* moved */
  ++st->next;
  return 0;
}

static const char* stream_last_error(struct ArrowArrayStream* s) {
  (void)s;
  return NULL;
}

static void stream_release(struct ArrowArrayStream* s) {
  StreamState* st = (StreamState*)s->private_data;
  int64_t i;
  for (i = 0; i < st->nbatches; ++i) {
    if (st->batches[i].release != NULL) st->batches[i].release(&st->batches[i]);
  }
  free(st->batches);
  free(st->column);
  free(st);
  s->release = NULL;
  ++arrow_rows_streams_released;
}

static void init_stream(struct ArrowArrayStream* out, StreamState* st) {
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = st;
}

void people_stream(int64_t start, int64_t n, int64_t batch_rows, struct ArrowArrayStream* out) {
  StreamState* st = (StreamState*)xcalloc(1, sizeof(StreamState));
  int64_t b;
  st->nbatches = n == 0 ? 0 : (n + batch_rows - 1) / batch_rows;
  st->batches = (struct ArrowArray*)xcalloc((size_t)st->nbatches, sizeof(struct ArrowArray));
  for (b = 0; b < st->nbatches; ++b) {
    const int64_t first = b * batch_rows;
    const int64_t len = first + batch_rows > n ? n - first : batch_rows;
    people_batch(start + first, len, &st->batches[b]);
  }
  init_stream(out, st);
}

void int64_stream(const char* name, int nullable, int64_t n, int64_t first, int64_t step,
                  int64_t batch_rows, struct ArrowArrayStream* out) {
  StreamState* st = (StreamState*)xcalloc(1, sizeof(StreamState));
  int64_t b;
  st->kind = 1;
  st->column = xstrdup(name);
  st->nullable = nullable;
  st->nbatches = n == 0 ? 0 : (n + batch_rows - 1) / batch_rows;
  st->batches = (struct ArrowArray*)xcalloc((size_t)st->nbatches, sizeof(struct ArrowArray));
  for (b = 0; b < st->nbatches; ++b) {
    const int64_t off = b * batch_rows;
    const int64_t len = off + batch_rows > n ? n - off : batch_rows;
    int64_batch(len, first + off * step, step, &st->batches[b]);
  }
  init_stream(out, st);
}

void people_row_text(int64_t i, char* out, size_t cap) {
  char name[32], score[32];
  if (name_is_null(i)) {
    strcpy(name, "null");
  } else {
    sprintf(name, "n%lld", (long long)i);
  }
  if (score_is_null(i)) {
    strcpy(score, "null");
  } else {
    sprintf(score, "%g", (double)i / 2.0);
  }
  snprintf(out, cap, "id=%lld name=%s score=%s", (long long)i, name, score);
}

/* ---- Reading --------------------------------------------------------------------------- */

void text_table_init(TextTable* t) { memset(t, 0, sizeof(*t)); }

void text_table_free(TextTable* t) {
  int64_t r;
  int c;
  for (r = 0; r < t->nrows; ++r) {
    for (c = 0; c < t->ncols; ++c) free(t->cells[r][c]);
    free(t->cells[r]);
  }
  free(t->cells);
  for (c = 0; c < t->ncols; ++c) free(t->names[c]);
  free(t->names);
  memset(t, 0, sizeof(*t));
}

static int valid(const struct ArrowArray* a, int64_t i) {
  const uint8_t* bits = (const uint8_t*)a->buffers[0];
  const int64_t at = a->offset + i;
  if (a->null_count == 0 || bits == NULL) return 1;
  return (bits[at / 8] >> (at % 8)) & 1;
}

static char* cell(const struct ArrowArray* a, const struct ArrowSchema* s, int64_t i) {
  char buf[64];
  const int64_t at = a->offset + i;
  const char* f = s->format;
  if (!valid(a, i)) return xstrdup("null");
  if (strcmp(f, "l") == 0) {
    sprintf(buf, "%lld", (long long)((const int64_t*)a->buffers[1])[at]);
  } else if (strcmp(f, "L") == 0) {
    sprintf(buf, "%llu", (unsigned long long)((const uint64_t*)a->buffers[1])[at]);
  } else if (strcmp(f, "i") == 0) {
    sprintf(buf, "%d", (int)((const int32_t*)a->buffers[1])[at]);
  } else if (strcmp(f, "g") == 0) {
    sprintf(buf, "%g", ((const double*)a->buffers[1])[at]);
  } else if (strcmp(f, "f") == 0) {
    sprintf(buf, "%g", (double)((const float*)a->buffers[1])[at]);
  } else if (strcmp(f, "b") == 0) {
    const uint8_t* bits = (const uint8_t*)a->buffers[1];
    strcpy(buf, ((bits[at / 8] >> (at % 8)) & 1) ? "true" : "false");
  } else if (strcmp(f, "u") == 0) {
    const int32_t* off = (const int32_t*)a->buffers[1];
    const char* data = (const char*)a->buffers[2];
    const int32_t len = off[at + 1] - off[at];
    char* out = (char*)xcalloc((size_t)len + 1, 1);
    memcpy(out, data + off[at], (size_t)len);
    return out;
  } else {
    strcpy(buf, "?");
  }
  return xstrdup(buf);
}

int text_table_append(TextTable* t, const struct ArrowArray* batch, const struct ArrowSchema* schema) {
  int64_t r;
  int c;
  if (t->names == NULL) {
    t->ncols = (int)schema->n_children;
    t->names = (char**)xcalloc((size_t)t->ncols, sizeof(char*));
    for (c = 0; c < t->ncols; ++c) t->names[c] = xstrdup(schema->children[c]->name);
  }
  t->cells = (char***)realloc(t->cells, (size_t)(t->nrows + batch->length + 1) * sizeof(char**));
  if (t->cells == NULL) exit(2);
  for (r = 0; r < batch->length; ++r) {
    char** row = (char**)xcalloc((size_t)t->ncols, sizeof(char*));
    for (c = 0; c < t->ncols; ++c) {
      row[c] = cell(batch->children[c], schema->children[c], batch->offset + r);
    }
    t->cells[t->nrows + r] = row;
  }
  t->nrows += batch->length;
  t->nbatches += 1;
  if (batch->length > t->max_batch_rows) t->max_batch_rows = batch->length;
  return 0;
}

int text_table_read(TextTable* t, struct ArrowArrayStream* stream) {
  struct ArrowSchema schema;
  int rc = stream->get_schema(stream, &schema);
  if (rc != 0) {
    stream->release(stream);
    return rc;
  }
  /* An empty stream still names its columns. */
  if (t->names == NULL) {
    struct ArrowArray none;
    memset(&none, 0, sizeof(none));
    text_table_append(t, &none, &schema);
    t->nbatches = 0;
  }
  for (;;) {
    struct ArrowArray batch;
    rc = stream->get_next(stream, &batch);
    if (rc != 0) break;
    if (batch.release == NULL) break;
    text_table_append(t, &batch, &schema);
    batch.release(&batch);
  }
  schema.release(&schema);
  stream->release(stream);
  return rc;
}

void text_table_row(const TextTable* t, int64_t r, char* out, size_t cap) {
  size_t used = 0;
  int c;
  out[0] = '\0';
  for (c = 0; c < t->ncols && used < cap; ++c) {
    int n = snprintf(out + used, cap - used, "%s%s=%s", c ? " " : "", t->names[c], t->cells[r][c]);
    if (n < 0) return;
    used += (size_t)n;
  }
}

int text_table_column(const TextTable* t, const char* name) {
  int c;
  for (c = 0; c < t->ncols; ++c) {
    if (strcmp(t->names[c], name) == 0) return c;
  }
  return -1;
}
