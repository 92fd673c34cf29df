// The read fix-ups lance 12 applies to manifests of older writers (legacy_fixups.h).
#include "table/legacy_fixups.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

#include "lance/core/bit_util.h"
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


namespace {

// Dictionary column `a` keyed to the stored values `v` (same index type).
Result<ArrayPtr> Rekey(const Array& a, const LegacyDictionaryValues& v, const std::string& name) {
  const DataTypePtr& vt = a.type->dictionary_value_type();
  const int width = v.binary ? 0 : vt->bit_width() / 8;
  auto value = [&](int64_t i) -> std::string_view {
    if (v.binary) {
      return std::string_view(v.data).substr(static_cast<size_t>(v.offsets[static_cast<size_t>(i)]),
                                             static_cast<size_t>(v.offsets[static_cast<size_t>(i) + 1] -
                                                                 v.offsets[static_cast<size_t>(i)]));
    }
    return std::string_view(v.data).substr(static_cast<size_t>(i * width), static_cast<size_t>(width));
  };
  if (v.binary != vt->is_binary_like() || (v.binary && v.offsets.size() != static_cast<size_t>(v.count) + 1) ||
      (!v.binary && (width <= 0 || v.data.size() != static_cast<size_t>(v.count * width)))) {
    return Status::NotSupported("field '{}': the dictionary the dataset stores does not fit {}", name,
                                vt->ToString());
  }
  std::map<std::string_view, int64_t> index;
  for (int64_t i = 0; i < v.count; ++i) index.emplace(value(i), i);
  const Array& dict = *a.dictionary;
  const int kw = a.type->index_type()->bit_width() / 8;
  std::string keys(static_cast<size_t>(a.length * kw), '\0');
  for (int64_t i = 0; i < a.length; ++i) {
    int64_t k = 0;
    if (a.IsValid(i)) {
      const int64_t d = a.DictionaryIndex(i);
      std::string_view val = v.binary ? dict.GetView(d)
                                      : std::string_view(reinterpret_cast<const char*>(dict.buffers[1]->data()) +
                                                             (dict.offset + d) * width,
                                                         static_cast<size_t>(width));
      auto it = index.find(val);
      if (it == index.end()) {
        return Status::NotSupported("field '{}': value '{}' (row {}) is not in the dictionary of {} "
                                    "values the legacy dataset stores, which v1 files share",
                                    name, v.binary ? std::string(val) : std::string("<fixed>"), i, v.count);
      }
      k = it->second;
    }
    std::memcpy(keys.data() + i * kw, &k, static_cast<size_t>(kw));  // little-endian low bytes
  }
  ArrayPtr values;
  if (v.binary) {
    std::string offsets;
    for (int64_t o : v.offsets) {
      if (vt->has_large_offsets()) {
        offsets.append(reinterpret_cast<const char*>(&o), 8);
      } else {
        const auto o32 = static_cast<int32_t>(o);
        offsets.append(reinterpret_cast<const char*>(&o32), 4);
      }
    }
    values = Array::Make(vt, v.count, {nullptr, BufferFromString(std::move(offsets)), BufferFromString(v.data)});
  } else {
    values = Array::Make(vt, v.count, {nullptr, BufferFromString(v.data)});
  }
  BufferPtr validity;
  if (a.null_count > 0) {
    LANCE_ASSIGN_OR_RAISE(validity, AllocateBuffer((a.length + 7) / 8, true));
    bit_util::CopyBitmap(a.validity(), a.offset, a.length, validity->mutable_data(), 0);
  }
  return Array::Make(a.type, a.length, {validity, BufferFromString(std::move(keys))}, {}, 0, values);
}

}  // namespace

Result<std::vector<RecordBatchPtr>> ToDatasetDictionaries(const Manifest& m, const SchemaPtr& schema,
                                                          const std::vector<RecordBatchPtr>& batches) {
  std::vector<RecordBatchPtr> out = batches;
  for (int c = 0; c < schema->num_fields(); ++c) {
    const Field& f = *schema->field(c);
    if (f.type()->id() != TypeId::kDictionary) continue;
    const LegacyDictionaryValues* v = nullptr;
    for (const auto& d : m.legacy_dictionaries) {
      if (d.field_id == f.id()) v = &d;
    }
    if (v == nullptr) continue;
    for (auto& b : out) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr col, Rekey(*b->column(c), *v, f.name()));
      std::vector<ArrayPtr> cols = b->columns();
      cols[static_cast<size_t>(c)] = std::move(col);
      b = std::make_shared<RecordBatch>(b->schema(), b->num_rows(), std::move(cols));
    }
  }
  return out;
}


Status FillDataFileSizes(const TableLocation& loc, Manifest* m) {
  for (auto& frag : m->fragments) {
    for (auto& f : frag.files) {
      if (f.size_bytes != 0 || f.base_id) continue;
      Result<io::ObjectMeta> meta = loc.store()->Head(loc.Path("data/" + f.path));
      if (meta.status().IsNotFound()) continue;  // left as stored; a read reports it
      LANCE_RETURN_NOT_OK(meta.status());
      f.size_bytes = static_cast<uint64_t>(meta->size);
    }
  }
  return Status::OK();
}

namespace {

bool IsV1File(const DataFileInfo& f) { return f.major == 0 && f.minor <= 2; }

}  // namespace

Status FixDuplicateFieldIds(Manifest* m, const std::string& root) {
  // Only fragments of several data files can list one id twice.
  if (std::all_of(m->fragments.begin(), m->fragments.end(),
                  [](const FragmentInfo& f) { return f.files.size() <= 1; })) {
    return Status::OK();
  }
  std::set<int32_t> duplicated;
  for (const auto& frag : m->fragments) {
    std::set<int32_t> seen;
    for (const auto& f : frag.files) {
      for (int32_t id : f.fields) {
        if (id >= 0 && !seen.insert(id).second) duplicated.insert(id);
      }
    }
  }
  if (duplicated.empty()) return Status::OK();

  // The highest id the schema or any data file uses; the duplicated ids, ascending, get the
  // ids after it.
  int32_t next = -1;
  for (const auto& f : m->fields) next = std::max(next, f.id);
  for (const auto& frag : m->fragments) {
    for (const auto& f : frag.files) {
      for (int32_t id : f.fields) next = std::max(next, id);
    }
  }
  std::map<int32_t, int32_t> renamed;
  for (int32_t id : duplicated) renamed[id] = ++next;

  // In each fragment the last data file listing an id keeps the data the schema field means
  // (lance 12 walks the files backwards, each file's ids in order); its entry takes the new id.
  std::vector<FragmentInfo> fragments = m->fragments;
  for (auto& frag : fragments) {
    std::set<int32_t> moved;
    for (auto f = frag.files.rbegin(); f != frag.files.rend(); ++f) {
      for (int32_t& id : f->fields) {
        auto it = renamed.find(id);
        if (it == renamed.end() || !moved.insert(id).second) continue;
        if (IsV1File(*f)) {
          // A v1 file finds its columns by the ids of its own embedded schema, so the new id
          // would name nothing in it: lance 12 commits the remapped manifest and then fails
          // every read of the field ("No page info found for field"). Refuse instead.
          return Status::NotSupported(
              "{}: field id {} is listed by more than one data file of fragment {} (the schema "
              "corruption of lance 0.10 add/drop columns); lance 12's commit-time fix gives it id "
              "{} in legacy (v1) data file {}, whose own schema keeps id {}, which leaves a version "
              "neither lance 12 nor lance-cpp can read; lance-cpp does not commit to this dataset",
              root, id, frag.id, it->second, f->path, id);
        }
        id = it->second;
      }
    }
  }
  for (auto& field : m->fields) {
    if (auto it = renamed.find(field.id); it != renamed.end()) field.id = it->second;
    if (auto it = renamed.find(field.parent_id); it != renamed.end()) field.parent_id = it->second;
  }
  // Data files none of whose fields the schema still has are no longer read.
  std::set<int32_t> live;
  for (const auto& f : m->fields) live.insert(f.id);
  for (auto& frag : fragments) {
    std::erase_if(frag.files, [&](const DataFileInfo& f) {
      return std::none_of(f.fields.begin(), f.fields.end(), [&](int32_t id) { return live.count(id) > 0; });
    });
  }
  m->fragments = std::move(fragments);
  return m->RebuildSchema();
}

Status MigrateIndexMetadata(const TableLocation& loc, Manifest* m) {
  for (auto& x : m->indices) {
    if (!x.index_version) x.index_version = 0;
    if (!x.files.empty() || x.base_id || x.uuid.empty()) continue;
    const std::string dir = loc.Path("_indices/" + x.uuid);
    Result<io::ListResult> listed = loc.store()->ListDir(dir);
    if (listed.status().IsNotFound()) continue;  // nothing to list; a read reports it
    LANCE_RETURN_NOT_OK(listed.status());
    for (const auto& o : listed->objects) {
      IndexFileInfo f;
      f.path = o.path.substr(o.path.rfind('/') + 1);
      f.size_bytes = static_cast<uint64_t>(o.size);
      x.files.push_back(std::move(f));
    }
  }
  return Status::OK();
}

Status ApplyCommitMigrations(const TableLocation& loc, Manifest* m) {
  LANCE_RETURN_NOT_OK(FillDataFileSizes(loc, m));
  LANCE_RETURN_NOT_OK(FixDuplicateFieldIds(m, loc.root()));
  return MigrateIndexMetadata(loc, m);
}

}  // namespace lance::table::internal
