// The manifest file codec (manifest.h): container (sections, footer) and the Manifest message
// <-> the C++ model. The only place a manifest is parsed or serialized.
#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"
#include "table/proto_codec.h"
#include "table/proto/table.pb.h"

namespace lance::table {

namespace {

constexpr size_t kFooterLen = 16;

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

void AppendU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }
void AppendU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }

// Checks that a length-prefixed section at `pos` lies inside [0, limit); its length in `len`.
Status CheckSection(std::string_view bytes, uint64_t pos, size_t limit, const char* name,
                    const std::string& what, uint32_t* len) {
  if (pos > limit || limit - pos < 4) {
    return Status::Corruption("{}: {} position {} is outside the file ({} bytes before the footer)",
                              what, name, pos, limit);
  }
  *len = Load<uint32_t>(bytes.data() + pos);
  if (*len > limit - pos - 4) {
    return Status::Corruption("{}: {} at {} claims {} bytes but only {} remain before the footer",
                              what, name, pos, *len, limit - pos - 4);
  }
  return Status::OK();
}

Status FromProto(const pb::Manifest& pb, const std::string& what, Manifest* out) {
  Manifest& m = *out;
  m.fields.reserve(static_cast<size_t>(pb.fields_size()));
  for (const auto& f : pb.fields()) m.fields.push_back(internal::FieldFromProto(f));
  m.schema_metadata.assign(pb.schema_metadata().begin(), pb.schema_metadata().end());
  std::sort(m.schema_metadata.begin(), m.schema_metadata.end());
  if (Status st = m.RebuildSchema(); !st.ok()) {
    // A type this library does not read (a newer writer's) is not damage.
    if (st.IsNotSupported()) return Status::NotSupported("{}: schema: {}", what, st.message());
    return Status::Corruption("{}: schema: {}", what, st.message());
  }
  m.fragments.reserve(static_cast<size_t>(pb.fragments_size()));
  for (const auto& fp : pb.fragments()) {
    LANCE_ASSIGN_OR_RAISE(FragmentInfo fr, internal::FragmentFromProto(fp, what, /*validate=*/true));
    m.fragments.push_back(std::move(fr));
  }
  m.version = pb.version();
  m.version_aux_data = pb.version_aux_data();
  if (pb.has_timestamp()) {
    m.timestamp_ns = pb.timestamp().seconds() * 1000000000LL + pb.timestamp().nanos();
  }
  m.tag = pb.tag();
  m.reader_feature_flags = pb.reader_feature_flags();
  m.writer_feature_flags = pb.writer_feature_flags();
  if (pb.has_max_fragment_id()) m.max_fragment_id = pb.max_fragment_id();
  m.transaction_file = pb.transaction_file();
  if (pb.has_writer_version()) {
    const auto& w = pb.writer_version();
    m.writer_library = w.library();
    m.writer_version = w.version();
    if (w.has_prerelease()) m.writer_prerelease = w.prerelease();
    if (w.has_build_metadata()) m.writer_build_metadata = w.build_metadata();
  }
  m.next_row_id = pb.next_row_id();
  if (pb.has_data_format()) {
    m.data_file_format = pb.data_format().file_format();
    m.data_storage_version = pb.data_format().version();
    m.data_format_unknown_fields = internal::UnknownFieldsOf(pb.data_format());
  }
  m.config.insert(pb.config().begin(), pb.config().end());
  m.table_metadata.insert(pb.table_metadata().begin(), pb.table_metadata().end());
  for (const auto& b : pb.base_paths()) m.base_paths.push_back(internal::BasePathFromProto(b));
  if (pb.has_branch()) m.branch = pb.branch();
  if (pb.has_index_section()) m.index_section = pb.index_section();
  if (pb.has_transaction_section()) m.transaction_section = pb.transaction_section();
  m.unknown_fields = internal::UnknownFieldsOf(pb);
  return Status::OK();
}

Status ToProto(const Manifest& m, pb::Manifest* out) {
  pb::Manifest& pb = *out;
  for (const auto& lf : m.fields) internal::FieldToProto(lf, pb.add_fields());
  for (const auto& fr : m.fragments) {
    if (fr.deletion && fr.deletion->num_deleted_rows > fr.physical_rows) {
      return Status::InvalidArgument("fragment {}: deletion file counts {} rows of {}", fr.id,
                                     fr.deletion->num_deleted_rows, fr.physical_rows);
    }
    internal::FragmentToProto(fr, pb.add_fragments());
  }
  pb.set_version(m.version);
  pb.set_version_aux_data(m.version_aux_data);
  for (const auto& [k, v] : m.schema_metadata) (*pb.mutable_schema_metadata())[k] = v;
  if (m.timestamp_ns) {
    pb.mutable_timestamp()->set_seconds(*m.timestamp_ns / 1000000000LL);
    pb.mutable_timestamp()->set_nanos(static_cast<int32_t>(*m.timestamp_ns % 1000000000LL));
  }
  pb.set_tag(m.tag);
  const FeatureFlags flags = ComputeFeatureFlags(m);
  pb.set_reader_feature_flags(flags.reader);
  pb.set_writer_feature_flags(flags.writer);
  if (m.max_fragment_id) pb.set_max_fragment_id(*m.max_fragment_id);
  pb.set_transaction_file(m.transaction_file);
  if (!m.writer_library.empty() || !m.writer_version.empty() || m.writer_prerelease ||
      m.writer_build_metadata) {
    auto* w = pb.mutable_writer_version();
    w->set_library(m.writer_library);
    w->set_version(m.writer_version);
    if (m.writer_prerelease) w->set_prerelease(*m.writer_prerelease);
    if (m.writer_build_metadata) w->set_build_metadata(*m.writer_build_metadata);
  }
  pb.set_next_row_id(m.next_row_id);
  if (!m.data_file_format.empty() || !m.data_storage_version.empty() ||
      !m.data_format_unknown_fields.empty()) {
    auto* d = pb.mutable_data_format();
    d->set_file_format(m.data_file_format);
    d->set_version(m.data_storage_version);
    internal::SetUnknownFields(m.data_format_unknown_fields, d);
  }
  for (const auto& [k, v] : m.config) (*pb.mutable_config())[k] = v;
  for (const auto& b : m.base_paths) internal::BasePathToProto(b, pb.add_base_paths());
  for (const auto& [k, v] : m.table_metadata) (*pb.mutable_table_metadata())[k] = v;
  if (m.branch) pb.set_branch(*m.branch);
  internal::SetUnknownFields(m.unknown_fields, &pb);
  return Status::OK();
}

// The value type of a dictionary field's logical type "dict:<value>:<index>:<ordered>".
std::string_view DictionaryValueType(std::string_view logical) {
  if (!logical.starts_with("dict:")) return {};
  logical.remove_prefix(5);
  for (int i = 0; i < 2; ++i) {
    const size_t p = logical.rfind(':');
    if (p == std::string_view::npos) return {};
    logical = logical.substr(0, p);
  }
  return logical;
}

// Bytes per value of a fixed-width dictionary value type (0: binary-like or unsupported).
int FixedWidth(std::string_view t) {
  if (t == "int8" || t == "uint8") return 1;
  if (t == "int16" || t == "uint16" || t == "halffloat") return 2;
  if (t == "int32" || t == "uint32" || t == "float") return 4;
  if (t == "int64" || t == "uint64" || t == "double") return 8;
  return 0;
}

bool IsBinaryLike(std::string_view t) {
  return t == "string" || t == "binary" || t == "large_string" || t == "large_binary";
}

// The dictionary values field `f` points at in `bytes[0, limit)`, when they are there.
std::optional<LegacyDictionaryValues> ReadDictionaryValues(std::string_view bytes, size_t limit,
                                                           const file::LanceField& f) {
  if (!f.legacy_dictionary) return std::nullopt;
  const auto [pos, count] = *f.legacy_dictionary;
  const std::string_view type = DictionaryValueType(f.logical_type);
  if (pos < 0 || count <= 0 || static_cast<uint64_t>(pos) > limit) return std::nullopt;
  const uint64_t room = limit - static_cast<uint64_t>(pos);
  LegacyDictionaryValues v;
  v.field_id = f.id;
  v.count = count;
  if (IsBinaryLike(type)) {
    if (static_cast<uint64_t>(count) >= room / 8) return std::nullopt;  // count + 1 positions
    v.binary = true;
    std::vector<int64_t> positions(static_cast<size_t>(count) + 1);
    std::memcpy(positions.data(), bytes.data() + pos, positions.size() * 8);
    for (size_t i = 0; i < positions.size(); ++i) {
      if (positions[i] < 0 || static_cast<uint64_t>(positions[i]) > limit ||
          (i > 0 && positions[i] < positions[i - 1])) {
        return std::nullopt;
      }
    }
    v.data.assign(bytes.data() + positions.front(),
                  static_cast<size_t>(positions.back() - positions.front()));
    for (int64_t p : positions) v.offsets.push_back(p - positions.front());
    return v;
  }
  const int width = FixedWidth(type);
  if (width == 0 || static_cast<uint64_t>(count) > room / static_cast<uint64_t>(width)) {
    return std::nullopt;
  }
  v.data.assign(bytes.data() + pos, static_cast<size_t>(count) * static_cast<size_t>(width));
  return v;
}

}  // namespace

Result<Manifest> DecodeManifest(std::string_view bytes, const std::string& what,
                                std::string* inline_transaction) {
  if (bytes.size() < kFooterLen + 4) {
    return Status::Corruption("{}: {} bytes is too short for a manifest (footer is {} bytes)", what,
                              bytes.size(), kFooterLen);
  }
  const char* footer = bytes.data() + bytes.size() - kFooterLen;
  if (std::memcmp(footer + 12, "LANC", 4) != 0) {
    return Status::Corruption("{}: manifest footer magic is not \"LANC\"", what);
  }
  const uint16_t major = Load<uint16_t>(footer + 8);
  const uint16_t minor = Load<uint16_t>(footer + 10);
  // Older writers (lance <= 0.33 at least) wrote container 0.1: the same layout (sections
  // before the manifest, footer pointing at it). lance 12 reads any container version
  // without looking at it; we accept the two that exist.
  if (major != 0 || (minor != 1 && minor != 2)) {
    return Status::NotSupported("{}: manifest container version {}.{} (expected 0.1 or 0.2)", what,
                                major, minor);
  }
  const size_t limit = bytes.size() - kFooterLen;
  const uint64_t pos = Load<uint64_t>(footer);
  uint32_t len = 0;
  LANCE_RETURN_NOT_OK(CheckSection(bytes, pos, limit, "manifest", what, &len));
  pb::Manifest pb;
  if (!pb.ParseFromArray(bytes.data() + pos + 4, static_cast<int>(len))) {
    return Status::Corruption("{}: the manifest protobuf ({} bytes at {}) does not decode", what,
                              len, pos);
  }
  Manifest m;
  LANCE_RETURN_NOT_OK(FromProto(pb, what, &m));
  for (const auto& f : m.fields) {
    if (auto v = ReadDictionaryValues(bytes, limit, f)) m.legacy_dictionaries.push_back(std::move(*v));
  }
  if (inline_transaction) inline_transaction->clear();
  if (m.transaction_section) {
    uint32_t tlen = 0;
    LANCE_RETURN_NOT_OK(
        CheckSection(bytes, *m.transaction_section, limit, "transaction section", what, &tlen));
    if (inline_transaction) inline_transaction->assign(bytes.data() + *m.transaction_section + 4, tlen);
  }
  if (m.index_section) {
    uint32_t ilen = 0;
    LANCE_RETURN_NOT_OK(CheckSection(bytes, *m.index_section, limit, "index section", what, &ilen));
    pb::IndexSection idx;
    if (!idx.ParseFromArray(bytes.data() + *m.index_section + 4, static_cast<int>(ilen))) {
      return Status::Corruption("{}: the index section at {} does not decode", what, *m.index_section);
    }
    m.indices.reserve(static_cast<size_t>(idx.indices_size()));
    for (const auto& entry : idx.indices()) {
      LANCE_ASSIGN_OR_RAISE(IndexInfo info, internal::IndexFromProto(entry, what));
      m.indices.push_back(std::move(info));
    }
    m.index_section_unknown_fields = internal::UnknownFieldsOf(idx);
  }
  return m;
}

Result<std::string> EncodeManifest(const Manifest& m, std::string_view transaction) {
  std::string out;
  // Dictionary values first (as lance writes them), in field-id order; the fields point at
  // them.
  std::optional<Manifest> relocated;
  if (!m.legacy_dictionaries.empty()) {
    relocated = m;
    std::vector<const LegacyDictionaryValues*> values;
    for (const auto& v : m.legacy_dictionaries) values.push_back(&v);
    std::sort(values.begin(), values.end(),
              [](const auto* a, const auto* b) { return a->field_id < b->field_id; });
    for (const LegacyDictionaryValues* v : values) {
      auto field = std::find_if(relocated->fields.begin(), relocated->fields.end(),
                                [&](const file::LanceField& f) { return f.id == v->field_id; });
      if (field == relocated->fields.end()) continue;  // the field was dropped
      const uint64_t start = out.size();
      out += v->data;
      if (v->binary) {
        const uint64_t positions = out.size();
        for (int64_t o : v->offsets) AppendU64(&out, start + static_cast<uint64_t>(o));
        field->legacy_dictionary = std::make_pair(static_cast<int64_t>(positions), v->count);
      } else {
        field->legacy_dictionary = std::make_pair(static_cast<int64_t>(start), v->count);
      }
    }
  }
  const Manifest& mm = relocated ? *relocated : m;
  pb::Manifest pb;
  LANCE_RETURN_NOT_OK(ToProto(mm, &pb));
  if (!m.indices.empty()) {
    pb::IndexSection idx;
    for (const auto& x : m.indices) LANCE_RETURN_NOT_OK(internal::IndexToProto(x, idx.add_indices()));
    internal::SetUnknownFields(m.index_section_unknown_fields, &idx);
    const std::string section = ::lance::proto::SerializeDeterministic(idx);
    pb.set_index_section(out.size());
    AppendU32(&out, static_cast<uint32_t>(section.size()));
    out += section;
  }
  if (!transaction.empty()) {
    pb.set_transaction_section(out.size());
    AppendU32(&out, static_cast<uint32_t>(transaction.size()));
    out += transaction;
  }
  const uint64_t pos = out.size();
  const std::string body = ::lance::proto::SerializeDeterministic(pb);
  AppendU32(&out, static_cast<uint32_t>(body.size()));
  out += body;
  AppendU64(&out, pos);
  out.append("\x00\x00\x02\x00LANC", 8);
  return out;
}

}  // namespace lance::table
