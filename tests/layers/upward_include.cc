// Compiled against the file layer's view by tests/layers/check_layers.cmake: must NOT compile,
// because table is above file.
#include "lance/table/manifest.h"
int main() { return 0; }
