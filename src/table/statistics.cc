#include "lance/table/statistics.h"

#include <map>

#include "lance/file/file_reader.h"

namespace lance::table {

Result<std::vector<FieldStatistics>> CalculateDataStatistics(const Snapshot& dataset) {
  const Manifest& m = dataset.manifest();
  std::map<int32_t, uint64_t> bytes;
  for (const auto& f : m.fields) bytes[f.id] = 0;
  const bool legacy = m.data_storage_version == "0.1" || m.data_storage_version == "legacy";
  if (!legacy) {
    for (size_t i = 0; i < m.fragments.size(); ++i) {
      const FragmentInfo& frag = m.fragments[i];
      for (size_t k = 0; k < frag.files.size(); ++k) {
        const DataFileInfo& df = frag.files[k];
        std::map<int32_t, int32_t> field_of_column;
        for (size_t j = 0; j < df.fields.size() && j < df.column_indices.size(); ++j) {
          if (df.column_indices[j] >= 0) field_of_column[df.column_indices[j]] = df.fields[j];
        }
        LANCE_ASSIGN_OR_RAISE(auto reader, dataset.DataFileReader(i, k));
        const auto& columns = reader->columns();
        int32_t field = 0;  // as lance 12: a column before any mapped one counts for field 0
        for (size_t c = 0; c < columns.size(); ++c) {
          auto it = field_of_column.find(static_cast<int32_t>(c));
          if (it != field_of_column.end()) field = it->second;
          auto slot = bytes.find(field);
          if (slot == bytes.end()) continue;  // a field the schema no longer has
          for (const auto& page : columns[c].pages) {
            for (const auto& buffer : page.buffers) slot->second += buffer.second;
          }
        }
      }
    }
  }
  std::vector<FieldStatistics> out;
  out.reserve(m.fields.size());
  for (const auto& f : m.fields) out.push_back({f.id, bytes[f.id]});
  return out;
}

}  // namespace lance::table
