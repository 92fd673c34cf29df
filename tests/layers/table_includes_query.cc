// Compiled against the table layer's view by tests/layers/check_layers.cmake: must NOT compile,
// because query is above table (the table operations that read rows move up to dataset/, above
// query, instead of reaching up).
#include "lance/query/scanner.h"
int main() { return 0; }
