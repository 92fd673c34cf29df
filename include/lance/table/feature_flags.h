// Feature flags of a Lance table manifest: two u64 bitmaps (reader_feature_flags and
// writer_feature_flags) naming the features a reader or writer must understand to touch the
// dataset. Any bit this library does not support (every bit from 512 up, and the unstable
// data-overlay bit 64 unless the environment variable LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES
// is set) refuses every read and write with NotSupported; the paired mixed-data-file-versions
// bit set in only one of the two bitmaps is Corruption.
//
// The overlay gate is the environment variable alone, read on every check: debug and release
// builds behave the same. (Even with the gate open, a fragment that has overlay files is not
// read yet: Snapshot::Open refuses it with NotSupported.)
#pragma once

#include <cstdint>
#include <string>

#include "lance/core/status.h"

namespace lance::table {

struct Manifest;

inline constexpr uint64_t kFlagDeletionFiles = 1ULL << 0;
inline constexpr uint64_t kFlagStableRowIds = 1ULL << 1;
inline constexpr uint64_t kFlagUseV2FormatDeprecated = 1ULL << 2;
inline constexpr uint64_t kFlagTableConfig = 1ULL << 3;
inline constexpr uint64_t kFlagBasePaths = 1ULL << 4;
inline constexpr uint64_t kFlagDisableTransactionFile = 1ULL << 5;
inline constexpr uint64_t kFlagUnstableDataOverlayFiles = 1ULL << 6;
inline constexpr uint64_t kFlagCoveredIndexMetadata = 1ULL << 7;
inline constexpr uint64_t kFlagMixedDataFileVersions = 1ULL << 8;
// The first bit no released format defines; it and every higher bit are unknown.
inline constexpr uint64_t kFlagFirstUnknown = 1ULL << 9;

inline constexpr const char* kEnableOverlayFilesEnv = "LANCE_ENABLE_UNSTABLE_DATA_OVERLAY_FILES";

struct FeatureFlags {
  uint64_t reader = 0;
  uint64_t writer = 0;
};

// The flags a manifest with this content carries: the one place lance-cpp decides them, used
// by every commit and by EncodeManifest. From the content, as the public versioning.md says:
// a deletion file -> 1/1; row-id sequences -> 2/2; a non-empty config -> writer 8; base paths
// -> 16/16; overlay files -> 64/64. Carried over from the manifest's own flags (sticky):
// stable row ids (2, kept by a dataset created with them even while it has no fragment),
// covered index metadata (128) and mixed data file versions (256); nothing else of them.
FeatureFlags ComputeFeatureFlags(const Manifest& m);

// True when the environment variable above is set (to any value, the empty string included).
bool DataOverlayFilesEnabled();

// The bits this build understands, given whether overlay files are enabled.
uint64_t SupportedFlags(bool overlay_files_enabled);

// "deletion_files|stable_row_ids|unknown(1024)" style names, "" for 0.
std::string FlagNames(uint64_t flags);

// Checks before a read: unsupported reader bits -> NotSupported (asks the user to upgrade);
// half-set paired bit -> Corruption. `what` names the manifest in the message.
Status CheckCanRead(uint64_t reader_flags, uint64_t writer_flags, bool overlay_files_enabled,
                    const std::string& what = "manifest");
Status CheckCanRead(uint64_t reader_flags, uint64_t writer_flags,
                    const std::string& what = "manifest");
// Checks before a write: same rules on the writer bits.
Status CheckCanWrite(uint64_t reader_flags, uint64_t writer_flags, bool overlay_files_enabled,
                     const std::string& what = "manifest");
Status CheckCanWrite(uint64_t reader_flags, uint64_t writer_flags,
                     const std::string& what = "manifest");

}  // namespace lance::table
