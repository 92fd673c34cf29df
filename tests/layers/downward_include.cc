// Compiled against the table layer's view: must compile (public headers of lower layers and
// the layer's own internals are visible). The control that shows the other probes fail for
// the reason they are meant to.
#include "lance/file/file_reader.h"
#include "lance/table/manifest.h"
#include "table/field_tree.h"
int main() { return 0; }
