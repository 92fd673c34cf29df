/* A minimal C entry point that hands out an Arrow C stream produced by lance-cpp.
 *
 * It exists so that plain C code (tests/c_abi/) can prove the C ABI header compiles as C and
 * that a stream exported by the library can be consumed through the C callbacks alone. The
 * stream is generated, not read from storage. Thread-safe: each call makes its own stream. */
#ifndef LANCE_C_DEMO_STREAM_H_
#define LANCE_C_DEMO_STREAM_H_

#include <stdint.h>

#include "lance/columnar/c_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills `out` with a stream of `num_batches` batches of `rows_per_batch` rows each, schema
 * {id: int64 not null, name: utf8} with schema metadata {"producer": "lance-cpp"}. Row r of the
 * stream (counting across batches) has id r and name "row-<r>", except that every third row
 * (r % 3 == 2) has a null name. With `fail_after_batches` >= 0, get_next fails with EIO after
 * that many batches (get_last_error then says why). Returns 0, or EINVAL for a NULL `out` or
 * negative counts (`out` untouched). The caller releases the stream. */
int lance_demo_stream(int64_t num_batches, int64_t rows_per_batch, int64_t fail_after_batches,
                      struct ArrowArrayStream* out);

#ifdef __cplusplus
}
#endif

#endif /* LANCE_C_DEMO_STREAM_H_ */
