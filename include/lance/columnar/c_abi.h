/* The Arrow C Data Interface and C Stream Interface: the ABI through which lance-cpp hands
 * Arrow data to, and takes it from, other libraries in the same process without copying.
 *
 * The three structs are laid out exactly as the Arrow specification defines them
 * (docs/source/format/CDataInterface.rst and CStreamInterface.rst in apache/arrow). Every
 * library that speaks this ABI carries its own copy of these definitions; the canonical
 * include guards below let those copies coexist in one translation unit, so they must stay
 * spelled exactly as they are.
 *
 * This header is plain C (C99 or later) and also valid C++. It declares no functions: the
 * C++ bridge is lance/columnar/c_bridge.h. Thread-safety: a struct is owned by one party at a
 * time; calling its callbacks concurrently is the caller's responsibility to serialize. */
#ifndef LANCE_COLUMNAR_C_ABI_H_
#define LANCE_COLUMNAR_C_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

/* ArrowSchema.flags bits. */
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

/* The type of an array or the schema of a record batch (as a struct type). */
struct ArrowSchema {
  const char* format;   /* mandatory type description, e.g. "i", "+l", "tsu:UTC" */
  const char* name;     /* optional field name (NULL or "" when absent) */
  const char* metadata; /* optional: int32 count, then int32-length-prefixed key/value bytes */
  int64_t flags;        /* ARROW_FLAG_* bits */
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary; /* value type of a dictionary-encoded type, else NULL */

  void (*release)(struct ArrowSchema*); /* NULL once released */
  void* private_data;                   /* producer bookkeeping */
};

/* The data of an array (or of a record batch as a struct array). */
struct ArrowArray {
  int64_t length;
  int64_t null_count; /* -1 when not computed */
  int64_t offset;     /* logical start inside the buffers, in elements */
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary; /* values of a dictionary-encoded array, else NULL */

  void (*release)(struct ArrowArray*); /* NULL once released */
  void* private_data;                  /* producer bookkeeping */
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

/* A pull-style stream of arrays sharing one schema. get_schema/get_next return 0 or an errno
 * value (EINVAL, ENOMEM, EIO, ...); get_next marks `out` released at the end of the stream.
 * get_last_error is only meaningful right after a failing call and stays valid until the
 * next callback on the stream. */
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  void (*release)(struct ArrowArrayStream*); /* NULL once released */
  void* private_data;                        /* producer bookkeeping */
};

#endif /* ARROW_C_STREAM_INTERFACE */

#ifdef __cplusplus
}
#endif

#endif /* LANCE_COLUMNAR_C_ABI_H_ */
