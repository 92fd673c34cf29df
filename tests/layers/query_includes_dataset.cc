// Compiled against the query layer's view by tests/layers/check_layers.cmake: must NOT compile,
// because dataset (the front door) is above query.
#include "lance/dataset/dataset.h"
int main() { return 0; }
