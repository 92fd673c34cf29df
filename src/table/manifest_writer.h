// Encoding manifests: the inverse of DecodeManifest.
//
// The writer feature flags are not taken from the input: they are computed from the
// manifest's content as the public versioning.md says (deletion files -> 1/1; row-id
// sequences -> 2/2; non-empty config -> writer 8; base paths -> 16/16; overlay files ->
// 64/64), and the sticky bits 128 (covered index metadata) and 256 (mixed data file
// versions) are carried over from the input when set.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/result.h"
#include "lance/table/manifest.h"

namespace lance::table {

struct FeatureFlags {
  uint64_t reader = 0;
  uint64_t writer = 0;
};

// The flags a manifest with this content must carry (see above).
FeatureFlags ComputeFeatureFlags(const Manifest& m);

// Manifest file bytes: [u32 len + index section] [u32 len + transaction] u32 len + Manifest,
// footer. `transaction` and `index_section` are serialized protobufs (empty: none); the
// manifest's transaction_section / index_section positions are set accordingly.
// Errors: InvalidArgument (e.g. a deletion file counting more rows than its fragment).
Result<std::string> EncodeManifest(const Manifest& m, std::string_view transaction = {},
                                   std::string_view index_section = {});

}  // namespace lance::table
