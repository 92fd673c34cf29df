/* A consumer of lance-cpp's Arrow C stream written in plain C (compiled as C99, -pedantic).
 *
 * It proves that lance/columnar/c_abi.h and lance/c/demo_stream.h are valid C, and that a
 * stream exported by the library can be read through the C callbacks alone: schema (format,
 * names, flags, metadata bytes), every batch's buffers, the end-of-stream marker, and the
 * error path through get_last_error. Exits 0 on success, 1 with a message on the first
 * mismatch. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "columnar/demo_stream.h"
#include "lance/columnar/c_abi.h"

static int failures = 0;

#define CHECK(cond)                                                    \
  do {                                                                 \
    if (!(cond)) {                                                     \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                      \
      return;                                                          \
    }                                                                  \
  } while (0)

static int32_t read_i32(const char** p) {
  int32_t v;
  memcpy(&v, *p, sizeof(v));
  *p += sizeof(v);
  return v;
}

static void check_schema(struct ArrowArrayStream* stream) {
  struct ArrowSchema schema;
  const char* md;
  int32_t len;
  CHECK(stream->get_schema(stream, &schema) == 0);
  CHECK(schema.release != NULL);
  CHECK(strcmp(schema.format, "+s") == 0);
  CHECK(schema.n_children == 2);
  CHECK(strcmp(schema.children[0]->name, "id") == 0);
  CHECK(strcmp(schema.children[0]->format, "l") == 0);
  CHECK((schema.children[0]->flags & ARROW_FLAG_NULLABLE) == 0);
  CHECK(strcmp(schema.children[1]->name, "name") == 0);
  CHECK(strcmp(schema.children[1]->format, "u") == 0);
  CHECK((schema.children[1]->flags & ARROW_FLAG_NULLABLE) != 0);
  CHECK(schema.children[1]->metadata == NULL);

  md = schema.metadata;
  CHECK(md != NULL);
  CHECK(read_i32(&md) == 1);
  len = read_i32(&md);
  CHECK(len == 8 && memcmp(md, "producer", 8) == 0);
  md += len;
  len = read_i32(&md);
  CHECK(len == 9 && memcmp(md, "lance-cpp", 9) == 0);

  schema.release(&schema);
  CHECK(schema.release == NULL);
}

static int bit(const void* bitmap, int64_t i) {
  return (((const uint8_t*)bitmap)[i >> 3] >> (i & 7)) & 1;
}

static void check_batches(struct ArrowArrayStream* stream, int64_t num_batches, int64_t rows) {
  struct ArrowArray chunk;
  int64_t b, i, total = 0;
  char expected[32];
  for (b = 0; b < num_batches; ++b) {
    const struct ArrowArray* ids;
    const struct ArrowArray* names;
    const int64_t* id_values;
    const int32_t* offsets;
    const char* data;
    CHECK(stream->get_next(stream, &chunk) == 0);
    CHECK(chunk.release != NULL);
    CHECK(chunk.length == rows && chunk.n_children == 2 && chunk.null_count == 0);
    ids = chunk.children[0];
    names = chunk.children[1];
    CHECK(ids->n_buffers == 2 && names->n_buffers == 3);
    id_values = (const int64_t*)ids->buffers[1];
    offsets = (const int32_t*)names->buffers[1];
    data = (const char*)names->buffers[2];
    for (i = 0; i < rows; ++i) {
      const int64_t r = total + i;
      const int64_t at = names->offset + i;
      CHECK(id_values[ids->offset + i] == r);
      if (r % 3 == 2) {
        CHECK(names->buffers[0] != NULL && !bit(names->buffers[0], at));
      } else {
        int n = snprintf(expected, sizeof(expected), "row-%lld", (long long)r);
        CHECK(names->buffers[0] == NULL || bit(names->buffers[0], at));
        CHECK(offsets[at + 1] - offsets[at] == n);
        CHECK(memcmp(data + offsets[at], expected, (size_t)n) == 0);
      }
    }
    total += rows;
    chunk.release(&chunk);
    CHECK(chunk.release == NULL);
  }
  CHECK(stream->get_next(stream, &chunk) == 0);
  CHECK(chunk.release == NULL); /* end of stream */
}

static void test_read_all(void) {
  struct ArrowArrayStream stream;
  CHECK(lance_demo_stream(3, 5, -1, &stream) == 0);
  check_schema(&stream);
  check_batches(&stream, 3, 5);
  stream.release(&stream);
  CHECK(stream.release == NULL);
}

static void test_error(void) {
  struct ArrowArrayStream stream;
  struct ArrowArray chunk;
  const char* message;
  CHECK(lance_demo_stream(5, 2, 1, &stream) == 0);
  CHECK(stream.get_next(&stream, &chunk) == 0 && chunk.release != NULL);
  chunk.release(&chunk);
  CHECK(stream.get_next(&stream, &chunk) == EIO);
  message = stream.get_last_error(&stream);
  CHECK(message != NULL && strstr(message, "injected failure after 1 batches") != NULL);
  stream.release(&stream);
  CHECK(lance_demo_stream(1, -1, -1, &stream) == EINVAL);
}

int main(void) {
  test_read_all();
  test_error();
  if (failures != 0) return 1;
  printf("c_abi: ok\n");
  return 0;
}
