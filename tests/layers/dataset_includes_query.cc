// Compiled against the dataset layer's view: must compile (the query and table layers' public
// headers and the dataset layer's own internals are visible).
#include "dataset/guard.h"
#include "lance/dataset/dataset.h"
#include "lance/query/scanner.h"
#include "lance/table/commit.h"
int main() { return 0; }
