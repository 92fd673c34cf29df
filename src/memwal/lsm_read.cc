// ReadMemWalDetails (lsm_read.h).
#include "lance/memwal/lsm_read.h"

namespace lance::memwal {

Result<MemWalIndexDetails> ReadMemWalDetails(const table::Snapshot& base) {
  for (const auto& idx : base.manifest().indices) {
    if (idx.name == kMemWalIndexName) return DecodeMemWalIndexDetails(idx.details, base.manifest_path());
  }
  return Status::NotFound("{}: version {} has no MemWAL index ({})", base.location().display(), base.version(),
                          kMemWalIndexName);
}

}  // namespace lance::memwal
