// Manifest encoding (Manifest -> manifest file bytes) and feature flags computed from the
// content.
#include "table/manifest_writer.h"

#include <fmt/format.h>

#include "lance/table/feature_flags.h"
#include "table/commit_internal.h"

namespace lance::table {

namespace {

void AppendU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }
void AppendU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

::lance::table::pb::DataFile ToProto(const DataFileInfo& d) {
  ::lance::table::pb::DataFile f;
  f.set_path(d.path);
  for (int32_t id : d.fields) f.add_fields(id);
  for (int32_t c : d.column_indices) f.add_column_indices(c);
  f.set_file_major_version(d.major);
  f.set_file_minor_version(d.minor);
  f.set_file_size_bytes(d.size_bytes);
  if (d.base_id) f.set_base_id(*d.base_id);
  return f;
}

}  // namespace

namespace internal {

void FieldToProto(const file::LanceField& lf, ::lance::file::Field* f) {
  f->set_name(lf.name);
  f->set_id(lf.id);
  f->set_parent_id(lf.parent_id);
  f->set_logical_type(lf.logical_type);
  f->set_nullable(lf.nullable);
  for (const auto& [k, v] : lf.metadata) (*f->mutable_metadata())[k] = v;
}

}  // namespace internal

FeatureFlags ComputeFeatureFlags(const Manifest& m) {
  FeatureFlags f;
  const uint64_t sticky = kFlagCoveredIndexMetadata | kFlagMixedDataFileVersions;
  f.reader = m.reader_feature_flags & sticky;
  f.writer = m.writer_feature_flags & sticky;
  bool deletions = false, row_ids = false, overlays = false;
  for (const auto& fr : m.fragments) {
    deletions |= fr.deletion.has_value();
    row_ids |= !fr.inline_row_ids.empty() || fr.has_external_row_ids;
    overlays |= fr.num_overlays > 0;
  }
  if (deletions) {
    f.reader |= kFlagDeletionFiles;
    f.writer |= kFlagDeletionFiles;
  }
  if (row_ids) {
    f.reader |= kFlagStableRowIds;
    f.writer |= kFlagStableRowIds;
  }
  if (!m.config.empty()) f.writer |= kFlagTableConfig;
  if (!m.base_paths.empty()) {
    f.reader |= kFlagBasePaths;
    f.writer |= kFlagBasePaths;
  }
  if (overlays) {
    f.reader |= kFlagUnstableDataOverlayFiles;
    f.writer |= kFlagUnstableDataOverlayFiles;
  }
  return f;
}

Result<std::string> EncodeManifest(const Manifest& m, std::string_view transaction,
                                   std::string_view index_section) {
  ::lance::table::pb::Manifest pb;
  for (const auto& lf : m.fields) internal::FieldToProto(lf, pb.add_fields());
  for (const auto& [k, v] : m.schema_metadata) (*pb.mutable_schema_metadata())[k] = v;
  for (const auto& fr : m.fragments) {
    auto* f = pb.add_fragments();
    f->set_id(fr.id);
    for (const auto& d : fr.files) *f->add_files() = ToProto(d);
    if (fr.deletion) {
      if (fr.deletion->num_deleted_rows > fr.physical_rows) {
        return Status::InvalidArgument("fragment {}: deletion file counts {} rows of {}", fr.id,
                                       fr.deletion->num_deleted_rows, fr.physical_rows);
      }
      auto* d = f->mutable_deletion_file();
      d->set_file_type(fr.deletion->type == DeletionFileType::kBitmap
                           ? ::lance::table::pb::DeletionFile::BITMAP
                           : ::lance::table::pb::DeletionFile::ARROW_ARRAY);
      d->set_read_version(fr.deletion->read_version);
      d->set_id(fr.deletion->id);
      d->set_num_deleted_rows(fr.deletion->num_deleted_rows);
      if (fr.deletion->base_id) d->set_base_id(*fr.deletion->base_id);
    }
    f->set_physical_rows(fr.physical_rows);
    if (!fr.inline_row_ids.empty()) f->set_inline_row_ids(fr.inline_row_ids);
  }
  pb.set_version(m.version);
  if (m.timestamp_ns) {
    pb.mutable_timestamp()->set_seconds(*m.timestamp_ns / 1000000000LL);
    pb.mutable_timestamp()->set_nanos(static_cast<int32_t>(*m.timestamp_ns % 1000000000LL));
  }
  pb.set_tag(m.tag);
  if (m.max_fragment_id) pb.set_max_fragment_id(*m.max_fragment_id);
  pb.set_transaction_file(m.transaction_file);
  if (!m.writer_library.empty() || !m.writer_version.empty()) {
    pb.mutable_writer_version()->set_library(m.writer_library);
    pb.mutable_writer_version()->set_version(m.writer_version);
  }
  pb.set_next_row_id(m.next_row_id);
  if (!m.data_file_format.empty() || !m.data_storage_version.empty()) {
    pb.mutable_data_format()->set_file_format(m.data_file_format);
    pb.mutable_data_format()->set_version(m.data_storage_version);
  }
  for (const auto& [k, v] : m.config) (*pb.mutable_config())[k] = v;
  for (const auto& [k, v] : m.table_metadata) (*pb.mutable_table_metadata())[k] = v;
  for (const auto& b : m.base_paths) {
    auto* bp = pb.add_base_paths();
    bp->set_id(b.id);
    if (b.name) bp->set_name(*b.name);
    bp->set_is_dataset_root(b.is_dataset_root);
    bp->set_path(b.path);
  }
  if (m.branch) pb.set_branch(*m.branch);
  const uint64_t sticky = kFlagCoveredIndexMetadata | kFlagMixedDataFileVersions;
  internal::ApplyFeatureFlags(&pb, m.reader_feature_flags & sticky, m.writer_feature_flags & sticky);
  return internal::SerializeManifestFile(&pb, std::string(index_section), std::string(transaction));
}

namespace internal {

void ApplyFeatureFlags(::lance::table::pb::Manifest* m, uint64_t sticky_reader, uint64_t sticky_writer) {
  uint64_t r = sticky_reader, w = sticky_writer;
  bool deletions = false, row_ids = false, overlays = false;
  for (const auto& f : m->fragments()) {
    deletions |= f.has_deletion_file();
    row_ids |= f.has_inline_row_ids() || f.has_external_row_ids();
    overlays |= f.overlays_size() > 0;
  }
  if (deletions) {
    r |= kFlagDeletionFiles;
    w |= kFlagDeletionFiles;
  }
  if (row_ids) {
    r |= kFlagStableRowIds;
    w |= kFlagStableRowIds;
  }
  if (!m->config().empty()) w |= kFlagTableConfig;
  if (m->base_paths_size() > 0) {
    r |= kFlagBasePaths;
    w |= kFlagBasePaths;
  }
  if (overlays) {
    r |= kFlagUnstableDataOverlayFiles;
    w |= kFlagUnstableDataOverlayFiles;
  }
  m->set_reader_feature_flags(r);
  m->set_writer_feature_flags(w);
}

std::string SerializeManifestFile(::lance::table::pb::Manifest* m, const std::string& index_section,
                                  const std::string& transaction) {
  std::string out;
  m->clear_index_section();
  m->clear_transaction_section();
  if (!index_section.empty()) {
    m->set_index_section(out.size());
    AppendU32(&out, static_cast<uint32_t>(index_section.size()));
    out += index_section;
  }
  if (!transaction.empty()) {
    m->set_transaction_section(out.size());
    AppendU32(&out, static_cast<uint32_t>(transaction.size()));
    out += transaction;
  }
  const uint64_t pos = out.size();
  const std::string body = m->SerializeAsString();
  AppendU32(&out, static_cast<uint32_t>(body.size()));
  out += body;
  AppendU64(&out, pos);
  out.append("\x00\x00\x02\x00LANC", 8);
  return out;
}

}  // namespace internal

}  // namespace lance::table
