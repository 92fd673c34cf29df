// libFuzzer target for the transaction codec (transactions of other writers are read during
// every commit race): any bytes must give a Transaction or an error, never a crash; a decoded
// transaction encodes to bytes that decode again to the same operation.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "lance/table/transaction.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto t = lance::table::DecodeTransaction(bytes, "fuzz");
  if (!t.ok()) return 0;
  auto again = lance::table::EncodeTransaction(*t);
  if (!again.ok()) return 0;
  auto back = lance::table::DecodeTransaction(*again, "fuzz again");
  if (!back.ok() || back->operation.index() != t->operation.index() ||
      back->read_version != t->read_version || back->uuid != t->uuid) {
    std::abort();
  }
  return 0;
}
