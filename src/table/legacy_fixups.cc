// The read fix-ups lance 12 applies to manifests of older writers (legacy_fixups.h).
#include "table/legacy_fixups.h"

#include <algorithm>

#include <fmt/format.h>

#include "lance/file/file_reader.h"
#include "lance/table/deletion.h"
#include "lance/table/feature_flags.h"

namespace lance::table::internal {

namespace {

// The storage version a data file's recorded major.minor stands for (lance 12's
// LanceFileVersion::try_from_major_minor).
Result<std::string> FileStorageVersion(const DataFileInfo& f, const std::string& path) {
  if (f.major == 0 && f.minor <= 2) return std::string("0.1");
  if ((f.major == 0 && f.minor == 3) || (f.major == 2 && f.minor == 0)) return std::string("2.0");
  if (f.major == 2) return fmt::format("2.{}", f.minor);
  return Status::InvalidArgument("{}: data file {} has unknown Lance file version {}.{}", path,
                                 f.path, f.major, f.minor);
}

}  // namespace

Result<std::string> InferDataStorageVersion(const Manifest& m, const std::string& path) {
  std::optional<std::string> found;
  for (const auto& frag : m.fragments) {
    for (const auto& f : frag.files) {
      LANCE_ASSIGN_OR_RAISE(std::string v, FileStorageVersion(f, path));
      if (!found) {
        found = v;
      } else if (*found != v) {
        return Status::InvalidArgument(
            "{}: all data files must have the same version; detected both {} and {}", path,
            *found, v);
      }
    }
  }
  if (found) return *found;
  return std::string((m.writer_feature_flags & kFlagUseV2FormatDeprecated) ? "2.0" : "0.1");
}

Status ApplyReadFixups(const TableLocation& location, const std::string& path, Manifest* m,
                       bool tolerate_missing) {
  if (m->data_file_format.empty() && m->data_storage_version.empty() &&
      m->data_format_unknown_fields.empty()) {
    LANCE_ASSIGN_OR_RAISE(m->data_storage_version, InferDataStorageVersion(*m, path));
    m->data_file_format = "lance";
  }
  const bool trust_physical_rows = !m->writer_library.empty() || !m->writer_version.empty();
  for (auto& frag : m->fragments) {
    // Modern writers set both counts; base paths came long after them.
    if (!frag.files.empty() && (frag.physical_rows == 0 || !trust_physical_rows) &&
        !frag.files[0].base_id) {
      auto reader = file::FileReader::Open(location.store(), location.Path("data/" + frag.files[0].path));
      if (reader.ok()) {
        frag.physical_rows = static_cast<uint64_t>((*reader)->num_rows());
      } else if (!reader.status().IsNotFound() || !tolerate_missing) {
        return reader.status().WithContext(fmt::format(
            "{}: fragment {} records no trusted row count and its data file cannot be read",
            path, frag.id));
      }
    }
    if (frag.deletion && frag.deletion->num_deleted_rows == 0 && !frag.deletion->base_id) {
      const std::string del = location.Path("_deletions/" + frag.deletion->FileName(frag.id));
      auto bytes = location.store()->Get(del);
      if (bytes.ok()) {
        LANCE_ASSIGN_OR_RAISE(std::vector<uint32_t> rows,
                              DecodeDeletionFile(*bytes, frag.deletion->type, del));
        frag.deletion->num_deleted_rows = rows.size();
      } else if (!bytes.status().IsNotFound() || !tolerate_missing) {
        return bytes.status();
      }
    }
  }
  return Status::OK();
}

}  // namespace lance::table::internal

namespace lance::table::internal {

Status CheckLegacyWritable(const Manifest& m, const std::string& root) {
  if (m.data_storage_version != "0.1") return Status::OK();
  for (const auto& frag : m.fragments) {
    for (const auto& f : frag.files) {
      if (f.major == 0 && f.minor <= 2) continue;
      return Status::InvalidArgument(
          "{}: the dataset contains a mixture of file versions: its data storage version is 0.1 "
          "(legacy) but data file {} of fragment {} is version {}.{}; lance 12 refuses to write "
          "to it too (roll back to an earlier version)",
          root, f.path, frag.id, f.major, f.minor);
    }
  }
  for (const auto& f : m.fields) {
    if (!f.legacy_dictionary || f.legacy_dictionary->second <= 0) continue;
    const bool carried = std::any_of(m.legacy_dictionaries.begin(), m.legacy_dictionaries.end(),
                                     [&](const LegacyDictionaryValues& v) { return v.field_id == f.id; });
    if (!carried) {
      return Status::NotSupported(
          "{}: field '{}' is a dictionary column ({}) of a legacy (0.1) dataset whose values "
          "the manifest file holds; lance-cpp carries binary and fixed-width number values "
          "only",
          root, f.name, f.logical_type);
    }
  }
  return Status::OK();
}

}  // namespace lance::table::internal
