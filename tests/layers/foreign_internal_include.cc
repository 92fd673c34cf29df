// Compiled against the table layer's view: must NOT compile, because the encoding layer's
// internal headers are visible to the file layer only.
#include "encoding/structural.h"
int main() { return 0; }
