/* lance/lance.h and lance-cpp's own Arrow C header (lance/columnar/c_abi.h) in one translation
 * unit, lance.h first: the Arrow structs are defined once (the canonical guards). */
#include <lance/lance.h>
#include <lance/columnar/c_abi.h>

int headers_lance_first(void) {
  struct ArrowArrayStream s;
  s.release = 0;
  return (int)sizeof(struct ArrowSchema) + (int)sizeof(struct ArrowArray) + (s.release == 0) +
         ARROW_FLAG_NULLABLE;
}
