/* The same as headers_lance_first.c with lance/columnar/c_abi.h first. */
#include <lance/columnar/c_abi.h>
#include <lance/lance.h>

int headers_abi_first(void) {
  struct ArrowArrayStream s;
  s.release = 0;
  return (int)sizeof(struct ArrowSchema) + (int)sizeof(struct ArrowArray) + (s.release == 0) +
         ARROW_FLAG_NULLABLE;
}
