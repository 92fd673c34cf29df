#include "lance/table/feature_flags.h"

#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "lance/table/manifest.h"

namespace lance::table {

namespace {

struct FlagName {
  uint64_t bit;
  const char* name;
};

constexpr FlagName kNames[] = {
    {kFlagDeletionFiles, "deletion_files"},
    {kFlagStableRowIds, "stable_row_ids"},
    {kFlagUseV2FormatDeprecated, "use_v2_format_deprecated"},
    {kFlagTableConfig, "table_config"},
    {kFlagBasePaths, "base_paths"},
    {kFlagDisableTransactionFile, "disable_transaction_file"},
    {kFlagUnstableDataOverlayFiles, "unstable_data_overlay_files"},
    {kFlagCoveredIndexMetadata, "covered_index_metadata"},
    {kFlagMixedDataFileVersions, "mixed_data_file_versions"},
};

Status CheckPaired(uint64_t reader_flags, uint64_t writer_flags, const std::string& what) {
  const bool r = (reader_flags & kFlagMixedDataFileVersions) != 0;
  const bool w = (writer_flags & kFlagMixedDataFileVersions) != 0;
  if (r != w) {
    return Status::Corruption(
        "{}: the mixed_data_file_versions feature flag (256) is set in the {} flags only "
        "(reader flags {}, writer flags {}); it must be set in both or neither",
        what, r ? "reader" : "writer", reader_flags, writer_flags);
  }
  return Status::OK();
}

Status CheckSupported(uint64_t flags, bool overlay_enabled, const char* side,
                      const std::string& what) {
  const uint64_t unsupported = flags & ~SupportedFlags(overlay_enabled);
  if (unsupported != 0) {
    return Status::NotSupported(
        "{}: this dataset cannot be {} by this version of lance-cpp: {} feature flags {} "
        "include {} which it does not support; please upgrade lance-cpp to {} this dataset",
        what, side[0] == 'r' ? "read" : "written", side, flags, FlagNames(unsupported),
        side[0] == 'r' ? "read" : "write");
  }
  return Status::OK();
}

}  // namespace

FeatureFlags ComputeFeatureFlags(const Manifest& m) {
  const uint64_t sticky = kFlagStableRowIds | kFlagCoveredIndexMetadata | kFlagMixedDataFileVersions;
  FeatureFlags f{m.reader_feature_flags & sticky, m.writer_feature_flags & sticky};
  bool deletions = false, row_ids = false, overlays = false;
  for (const auto& fr : m.fragments) {
    deletions |= fr.deletion.has_value();
    row_ids |= fr.has_row_ids();
    overlays |= !fr.overlays.empty();
  }
  auto both = [&f](uint64_t bit) {
    f.reader |= bit;
    f.writer |= bit;
  };
  if (deletions) both(kFlagDeletionFiles);
  if (row_ids) both(kFlagStableRowIds);
  if (!m.config.empty()) f.writer |= kFlagTableConfig;
  if (!m.base_paths.empty()) both(kFlagBasePaths);
  if (overlays) both(kFlagUnstableDataOverlayFiles);
  return f;
}

bool DataOverlayFilesEnabled() { return std::getenv(kEnableOverlayFilesEnv) != nullptr; }

uint64_t SupportedFlags(bool overlay_files_enabled) {
  uint64_t supported = kFlagFirstUnknown - 1;
  if (!overlay_files_enabled) supported &= ~kFlagUnstableDataOverlayFiles;
  return supported;
}

std::string FlagNames(uint64_t flags) {
  std::string out;
  auto add = [&out](const std::string& s) {
    if (!out.empty()) out += '|';
    out += s;
  };
  for (const auto& n : kNames) {
    if (flags & n.bit) add(n.name);
  }
  for (int b = 9; b < 64; ++b) {
    const uint64_t bit = 1ULL << b;
    if (flags & bit) add(fmt::format("unknown({})", bit));
  }
  return out;
}

Status CheckCanRead(uint64_t reader_flags, uint64_t writer_flags, bool overlay_files_enabled,
                    const std::string& what) {
  LANCE_RETURN_NOT_OK(CheckSupported(reader_flags, overlay_files_enabled, "reader", what));
  return CheckPaired(reader_flags, writer_flags, what);
}

Status CheckCanRead(uint64_t reader_flags, uint64_t writer_flags, const std::string& what) {
  return CheckCanRead(reader_flags, writer_flags, DataOverlayFilesEnabled(), what);
}

Status CheckCanWrite(uint64_t reader_flags, uint64_t writer_flags, bool overlay_files_enabled,
                     const std::string& what) {
  LANCE_RETURN_NOT_OK(CheckSupported(writer_flags, overlay_files_enabled, "writer", what));
  return CheckPaired(reader_flags, writer_flags, what);
}

Status CheckCanWrite(uint64_t reader_flags, uint64_t writer_flags, const std::string& what) {
  return CheckCanWrite(reader_flags, writer_flags, DataOverlayFilesEnabled(), what);
}

}  // namespace lance::table
