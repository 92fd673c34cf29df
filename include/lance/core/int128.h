// 128-bit integers (the unscaled values of decimal128 columns). A GCC/Clang extension type,
// named here once so that public headers stay clean under -Wpedantic.
#pragma once

namespace lance {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

}  // namespace lance
