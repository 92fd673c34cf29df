// Compiled against the query layer's view: must compile (the table layer's public headers and
// the query layer's own internals are visible).
#include "lance/query/scanner.h"
#include "lance/table/snapshot.h"
#include "query/operators.h"
int main() { return 0; }
