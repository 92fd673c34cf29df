// Protobuf <-> model conversion of the shared table messages (proto_codec.h).
#include "table/proto_codec.h"

#include <algorithm>

#include <fmt/format.h>
#include <google/protobuf/unknown_field_set.h>
#include <roaring/roaring.h>

namespace lance::table::internal {

namespace {

// More fragment ids than this in one index's bitmap is taken as a damaged bitmap (the ids
// are materialized).
constexpr uint64_t kMaxIndexedFragments = uint64_t{1} << 24;

ExternalFileInfo ExternalFromProto(const pb::ExternalFile& f) {
  return ExternalFileInfo{f.path(), f.offset(), f.size(), UnknownFieldsOf(f)};
}

void ExternalToProto(const ExternalFileInfo& e, pb::ExternalFile* f) {
  f->set_path(e.path);
  f->set_offset(e.offset);
  f->set_size(e.size);
  SetUnknownFields(e.unknown_fields, f);
}

DataOverlayFileInfo OverlayFromProto(const pb::DataOverlayFile& o) {
  DataOverlayFileInfo x;
  if (o.has_data_file()) x.data_file = DataFileFromProto(o.data_file());
  switch (o.coverage_case()) {
    case pb::DataOverlayFile::kSharedOffsetBitmap:
      x.shared_offset_bitmap = o.shared_offset_bitmap();
      break;
    case pb::DataOverlayFile::kFieldCoverage: {
      FieldCoverageInfo c;
      c.offset_bitmaps.assign(o.field_coverage().offset_bitmaps().begin(),
                              o.field_coverage().offset_bitmaps().end());
      c.unknown_fields = UnknownFieldsOf(o.field_coverage());
      x.field_coverage = std::move(c);
      break;
    }
    default:
      break;
  }
  x.committed_version = o.committed_version();
  x.unknown_fields = UnknownFieldsOf(o);
  return x;
}

void OverlayToProto(const DataOverlayFileInfo& x, pb::DataOverlayFile* o) {
  if (x.data_file) DataFileToProto(*x.data_file, o->mutable_data_file());
  if (x.shared_offset_bitmap) {
    o->set_shared_offset_bitmap(*x.shared_offset_bitmap);
  } else if (x.field_coverage) {
    auto* c = o->mutable_field_coverage();
    for (const auto& b : x.field_coverage->offset_bitmaps) c->add_offset_bitmaps(b);
    SetUnknownFields(x.field_coverage->unknown_fields, c);
  }
  o->set_committed_version(x.committed_version);
  SetUnknownFields(x.unknown_fields, o);
}

// The portable Roaring bitmap of `ids`, without run containers (as lance 12 writes them).
// Whether every 16-bit container of the ascending `ids` is smaller as runs (2 + 4 bytes per
// run) than as values (2 bytes each, at most an 8 KiB bitmap).
bool RunsStrictlySmaller(const std::vector<uint32_t>& ids) {
  if (ids.empty()) return false;
  size_t i = 0;
  while (i < ids.size()) {
    const uint32_t key = ids[i] >> 16;
    size_t card = 0, runs = 0;
    for (; i < ids.size() && (ids[i] >> 16) == key; ++i, ++card) {
      if (card == 0 || ids[i] != ids[i - 1] + 1) ++runs;
    }
    if (2 + 4 * runs >= std::min<size_t>(2 * card, 8192)) return false;
  }
  return true;
}

std::string BitmapOf(const std::vector<uint32_t>& ids) {
  roaring_bitmap_t* bm = roaring_bitmap_of_ptr(ids.size(), ids.data());
  // lance 12 stores a container of fragment ids as runs when that is strictly smaller than as
  // values (fragments 0..10: one run; 0, 1, 2: values; observed on its commits). CRoaring's
  // run_optimize also takes runs of equal size, so it is asked only when runs are strictly
  // smaller (every 16-bit container alike, the case of fewer than 65536 fragments).
  if (RunsStrictlySmaller(ids)) roaring_bitmap_run_optimize(bm);
  std::string out(roaring_bitmap_portable_size_in_bytes(bm), '\0');
  roaring_bitmap_portable_serialize(bm, out.data());
  roaring_bitmap_free(bm);
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string UnknownFieldsOf(const google::protobuf::Message& m) {
  const google::protobuf::UnknownFieldSet& u = m.GetReflection()->GetUnknownFields(m);
  if (u.empty()) return std::string();
  std::string out;
  u.SerializeToString(&out);
  return out;
}

void SetUnknownFields(const std::string& bytes, google::protobuf::Message* m) {
  if (bytes.empty()) return;
  m->GetReflection()->MutableUnknownFields(m)->ParseFromString(bytes);
}

file::LanceField FieldFromProto(const ::lance::file::Field& f) {
  file::LanceField lf;
  lf.name = f.name();
  lf.id = f.id();
  lf.parent_id = f.parent_id();
  lf.logical_type = f.logical_type();
  lf.nullable = f.nullable();
  for (const auto& [k, v] : f.metadata()) lf.metadata.emplace_back(k, v);
  std::sort(lf.metadata.begin(), lf.metadata.end());
  lf.unenforced_primary_key = f.unenforced_primary_key();
  lf.unenforced_primary_key_position = f.unenforced_primary_key_position();
  lf.extension_name = f.extension_name();
  lf.legacy_type = static_cast<int32_t>(f.type());
  lf.legacy_encoding = static_cast<int32_t>(f.encoding());
  if (f.has_dictionary()) lf.legacy_dictionary = std::make_pair(f.dictionary().offset(), f.dictionary().length());
  lf.unknown_fields = UnknownFieldsOf(f);
  return lf;
}

void FieldToProto(const file::LanceField& lf, ::lance::file::Field* f) {
  f->set_type(static_cast<::lance::file::Field::Type>(lf.legacy_type));
  f->set_name(lf.name);
  f->set_id(lf.id);
  f->set_parent_id(lf.parent_id);
  f->set_logical_type(lf.logical_type);
  f->set_nullable(lf.nullable);
  f->set_encoding(static_cast<::lance::file::Encoding>(lf.legacy_encoding));
  if (lf.legacy_dictionary) {
    f->mutable_dictionary()->set_offset(lf.legacy_dictionary->first);
    f->mutable_dictionary()->set_length(lf.legacy_dictionary->second);
  }
  f->set_extension_name(lf.extension_name);
  for (const auto& [k, v] : lf.metadata) (*f->mutable_metadata())[k] = v;
  f->set_unenforced_primary_key(lf.unenforced_primary_key);
  f->set_unenforced_primary_key_position(lf.unenforced_primary_key_position);
  SetUnknownFields(lf.unknown_fields, f);
}

DataFileInfo DataFileFromProto(const pb::DataFile& f) {
  DataFileInfo d;
  d.path = f.path();
  d.fields.assign(f.fields().begin(), f.fields().end());
  d.column_indices.assign(f.column_indices().begin(), f.column_indices().end());
  d.major = f.file_major_version();
  d.minor = f.file_minor_version();
  d.size_bytes = f.file_size_bytes();
  if (f.has_base_id()) d.base_id = f.base_id();
  d.unknown_fields = UnknownFieldsOf(f);
  return d;
}

void DataFileToProto(const DataFileInfo& d, pb::DataFile* f) {
  f->set_path(d.path);
  for (int32_t id : d.fields) f->add_fields(id);
  for (int32_t c : d.column_indices) f->add_column_indices(c);
  f->set_file_major_version(d.major);
  f->set_file_minor_version(d.minor);
  f->set_file_size_bytes(d.size_bytes);
  if (d.base_id) f->set_base_id(*d.base_id);
  SetUnknownFields(d.unknown_fields, f);
}

DeletionFileInfo DeletionFromProto(const pb::DeletionFile& d) {
  DeletionFileInfo del;
  // Kept as stored even when the type is not one of the two known ones (a manifest's
  // fragments are checked by FragmentFromProto).
  del.type = static_cast<DeletionFileType>(static_cast<int>(d.file_type()));
  del.read_version = d.read_version();
  del.id = d.id();
  del.num_deleted_rows = d.num_deleted_rows();
  if (d.has_base_id()) del.base_id = d.base_id();
  del.unknown_fields = UnknownFieldsOf(d);
  return del;
}

void DeletionToProto(const DeletionFileInfo& d, pb::DeletionFile* out) {
  out->set_file_type(static_cast<pb::DeletionFile::DeletionFileType>(static_cast<int>(d.type)));
  out->set_read_version(d.read_version);
  out->set_id(d.id);
  out->set_num_deleted_rows(d.num_deleted_rows);
  if (d.base_id) out->set_base_id(*d.base_id);
  SetUnknownFields(d.unknown_fields, out);
}

Result<FragmentInfo> FragmentFromProto(const pb::DataFragment& fp, const std::string& what,
                                       bool validate) {
  FragmentInfo fr;
  fr.id = fp.id();
  fr.files.reserve(static_cast<size_t>(fp.files_size()));
  for (const auto& df : fp.files()) {
    DataFileInfo d = DataFileFromProto(df);
    if (validate && !d.column_indices.empty() && d.column_indices.size() != d.fields.size()) {
      return Status::Corruption("{}: fragment {} file '{}': {} field ids but {} column indices",
                                what, fr.id, d.path, d.fields.size(), d.column_indices.size());
    }
    if (validate && d.path.empty()) {
      return Status::Corruption("{}: fragment {} has a data file with an empty path", what, fr.id);
    }
    fr.files.push_back(std::move(d));
  }
  if (fp.has_deletion_file()) {
    const auto& dp = fp.deletion_file();
    if (validate && dp.file_type() != pb::DeletionFile::ARROW_ARRAY &&
        dp.file_type() != pb::DeletionFile::BITMAP) {
      return Status::Corruption("{}: fragment {}: unknown deletion file type {}", what, fr.id,
                                static_cast<int>(dp.file_type()));
    }
    fr.deletion = DeletionFromProto(dp);
  }
  fr.physical_rows = fp.physical_rows();
  if (validate && fr.deletion && fr.deletion->num_deleted_rows > fr.physical_rows) {
    return Status::Corruption("{}: fragment {} deletes {} rows of {}", what, fr.id,
                              fr.deletion->num_deleted_rows, fr.physical_rows);
  }
  using F = pb::DataFragment;
  if (fp.row_id_sequence_case() == F::kInlineRowIds) fr.inline_row_ids = fp.inline_row_ids();
  if (fp.row_id_sequence_case() == F::kExternalRowIds) fr.external_row_ids = ExternalFromProto(fp.external_row_ids());
  if (fp.last_updated_at_version_sequence_case() == F::kInlineLastUpdatedAtVersions) {
    fr.inline_last_updated_at_versions = fp.inline_last_updated_at_versions();
  }
  if (fp.last_updated_at_version_sequence_case() == F::kExternalLastUpdatedAtVersions) {
    fr.external_last_updated_at_versions = ExternalFromProto(fp.external_last_updated_at_versions());
  }
  if (fp.created_at_version_sequence_case() == F::kInlineCreatedAtVersions) {
    fr.inline_created_at_versions = fp.inline_created_at_versions();
  }
  if (fp.created_at_version_sequence_case() == F::kExternalCreatedAtVersions) {
    fr.external_created_at_versions = ExternalFromProto(fp.external_created_at_versions());
  }
  fr.overlays.reserve(static_cast<size_t>(fp.overlays_size()));
  for (const auto& o : fp.overlays()) fr.overlays.push_back(OverlayFromProto(o));
  fr.unknown_fields = UnknownFieldsOf(fp);
  return fr;
}

void FragmentToProto(const FragmentInfo& fr, pb::DataFragment* f) {
  f->set_id(fr.id);
  for (const auto& d : fr.files) DataFileToProto(d, f->add_files());
  if (fr.deletion) DeletionToProto(*fr.deletion, f->mutable_deletion_file());
  f->set_physical_rows(fr.physical_rows);
  if (!fr.inline_row_ids.empty()) {
    f->set_inline_row_ids(fr.inline_row_ids);
  } else if (fr.external_row_ids) {
    ExternalToProto(*fr.external_row_ids, f->mutable_external_row_ids());
  }
  if (!fr.inline_last_updated_at_versions.empty()) {
    f->set_inline_last_updated_at_versions(fr.inline_last_updated_at_versions);
  } else if (fr.external_last_updated_at_versions) {
    ExternalToProto(*fr.external_last_updated_at_versions, f->mutable_external_last_updated_at_versions());
  }
  if (!fr.inline_created_at_versions.empty()) {
    f->set_inline_created_at_versions(fr.inline_created_at_versions);
  } else if (fr.external_created_at_versions) {
    ExternalToProto(*fr.external_created_at_versions, f->mutable_external_created_at_versions());
  }
  for (const auto& o : fr.overlays) OverlayToProto(o, f->add_overlays());
  SetUnknownFields(fr.unknown_fields, f);
}

BasePathInfo BasePathFromProto(const pb::BasePath& b) {
  BasePathInfo bp;
  bp.id = b.id();
  if (b.has_name()) bp.name = b.name();
  bp.is_dataset_root = b.is_dataset_root();
  bp.path = b.path();
  bp.unknown_fields = UnknownFieldsOf(b);
  return bp;
}

void BasePathToProto(const BasePathInfo& b, pb::BasePath* out) {
  out->set_id(b.id);
  if (b.name) out->set_name(*b.name);
  out->set_is_dataset_root(b.is_dataset_root);
  out->set_path(b.path);
  SetUnknownFields(b.unknown_fields, out);
}

IndexFileInfo IndexFileFromProto(const pb::IndexFile& f) {
  return IndexFileInfo{f.path(), f.size_bytes(), UnknownFieldsOf(f)};
}

void IndexFileToProto(const IndexFileInfo& f, pb::IndexFile* out) {
  out->set_path(f.path);
  out->set_size_bytes(f.size_bytes);
  SetUnknownFields(f.unknown_fields, out);
}

Result<std::string> UuidFromBytes(const std::string& raw, const std::string& what) {
  if (raw.size() != 16) {
    return Status::Corruption("{}: a uuid of {} bytes, expected 16", what, raw.size());
  }
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < raw.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", static_cast<unsigned>(static_cast<unsigned char>(raw[i])));
  }
  return out;
}

Result<std::string> UuidToBytes(const std::string& text) {
  std::string raw;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '-') continue;
    const int hi = HexDigit(text[i]);
    const int lo = i + 1 < text.size() ? HexDigit(text[i + 1]) : -1;
    if (hi < 0 || lo < 0) break;
    raw += static_cast<char>(hi * 16 + lo);
    ++i;
  }
  if (raw.size() != 16) {
    return Status::InvalidArgument("'{}' is not a UUID (32 hex digits, hyphens allowed)", text);
  }
  return raw;
}

Result<IndexInfo> IndexFromProto(const pb::IndexMetadata& pb, const std::string& what) {
  IndexInfo x;
  x.name = pb.name();
  if (pb.has_uuid()) {
    LANCE_ASSIGN_OR_RAISE(x.uuid, UuidFromBytes(pb.uuid().uuid(), fmt::format("{}: index '{}'", what, x.name)));
  }
  x.fields.assign(pb.fields().begin(), pb.fields().end());
  x.dataset_version = pb.dataset_version();
  if (!pb.fragment_bitmap().empty()) {
    const char* p = pb.fragment_bitmap().data();
    const size_t n = pb.fragment_bitmap().size();
    const size_t need = roaring_bitmap_portable_deserialize_size(p, n);
    roaring_bitmap_t* bm = need == 0 || need > n ? nullptr : roaring_bitmap_portable_deserialize_safe(p, n);
    if (bm == nullptr) {
      return Status::Corruption("{}: the fragment bitmap of index '{}' is not a portable Roaring "
                                "bitmap ({} bytes)",
                                what, x.name, n);
    }
    const uint64_t count = roaring_bitmap_get_cardinality(bm);
    if (count > kMaxIndexedFragments) {
      roaring_bitmap_free(bm);
      return Status::Corruption("{}: the fragment bitmap of index '{}' holds {} fragment ids", what,
                                x.name, count);
    }
    x.fragment_ids.resize(count);
    if (count > 0) roaring_bitmap_to_uint32_array(bm, x.fragment_ids.data());
    roaring_bitmap_free(bm);
    x.has_fragment_bitmap = true;
  }
  if (pb.has_index_details()) {
    x.details_type_url = pb.index_details().type_url();
    x.details = pb.index_details().value();
  }
  if (pb.has_index_version()) x.index_version = pb.index_version();
  if (pb.has_created_at()) x.created_at_ms = pb.created_at();
  if (pb.has_base_id()) x.base_id = pb.base_id();
  x.files.reserve(static_cast<size_t>(pb.files_size()));
  for (const auto& f : pb.files()) x.files.push_back(IndexFileFromProto(f));
  x.covering_fields.assign(pb.covering_fields().begin(), pb.covering_fields().end());
  x.unknown_fields = UnknownFieldsOf(pb);
  return x;
}

Status IndexToProto(const IndexInfo& x, pb::IndexMetadata* out) {
  if (!x.uuid.empty()) {
    LANCE_ASSIGN_OR_RAISE(std::string raw, UuidToBytes(x.uuid));
    out->mutable_uuid()->set_uuid(std::move(raw));
  }
  for (int32_t f : x.fields) out->add_fields(f);
  out->set_name(x.name);
  out->set_dataset_version(x.dataset_version);
  if (x.has_fragment_bitmap) out->set_fragment_bitmap(BitmapOf(x.fragment_ids));
  if (!x.details_type_url.empty() || !x.details.empty()) {
    out->mutable_index_details()->set_type_url(x.details_type_url);
    out->mutable_index_details()->set_value(x.details);
  }
  if (x.index_version) out->set_index_version(*x.index_version);
  if (x.created_at_ms) out->set_created_at(*x.created_at_ms);
  if (x.base_id) out->set_base_id(*x.base_id);
  for (const auto& f : x.files) IndexFileToProto(f, out->add_files());
  for (int32_t f : x.covering_fields) out->add_covering_fields(f);
  SetUnknownFields(x.unknown_fields, out);
  return Status::OK();
}

}  // namespace lance::table::internal
