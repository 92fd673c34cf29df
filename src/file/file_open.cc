// Opening a data file: the footer (2.0 / 2.1+, or a v1 footer handed to LegacyV1Reader), the
// column metadata and global buffer offset tables, the FileDescriptor schema and row count,
// checked against the file size before anything is decoded; each column's pages are parsed at
// the first read that needs them (FileReader::Impl::LoadColumns). The result is the page
// table FileReader reads from (page_table.h).
#include "lance/file/file_reader.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "encoding/legacy.h"
#include "file/legacy_v1_reader.h"
#include "file/page_table.h"
#include "file/proto/file_schema.pb.h"
#include "file/proto/file_v2.pb.h"
#include "lance/file/lance_schema.h"

namespace lance::file {

namespace {

constexpr std::string_view kPageLayoutUrl = "/lance.encodings21.PageLayout";
constexpr std::string_view kArrayEncodingUrl = "/lance.encodings.ArrayEncoding";

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

FileReader::~FileReader() = default;

std::string FileVersion::ToString() const {
  if (is_legacy()) return "2.0";
  if (is_v1()) return "0.1";
  return std::to_string(major) + "." + std::to_string(minor);
}

Result<std::unique_ptr<FileReader>> FileReader::Open(BufferPtr file) {
  if (!file) return Status::InvalidArgument("FileReader::Open: no file buffer");
  auto fetch = [file](const std::vector<io::Range>& ranges) -> Result<std::vector<BufferPtr>> {
    std::vector<BufferPtr> out;
    for (const auto& r : ranges) {
      if (r.offset < 0 || r.length < 0 || r.end() > file->size()) {
        return Status::Corruption("lance file: range [{}, +{}) past {} bytes", r.offset, r.length,
                                  file->size());
      }
      out.push_back(SliceBuffer(file, r.offset, r.length));
    }
    return out;
  };
  if (file->size() >= kV1FooterSize && LegacyV1Reader::IsV1Footer(file->data() + file->size())) {
    return OpenV1(file->size(), file, std::move(fetch));
  }
  return OpenTail(file->size(), file, std::move(fetch));
}

Result<std::unique_ptr<FileReader>> FileReader::OpenV1(
    int64_t size, BufferPtr tail,
    std::function<Result<std::vector<BufferPtr>>(const std::vector<io::Range>&)> fetch,
    int64_t tail_offset) {
  LANCE_ASSIGN_OR_RAISE(auto v1, LegacyV1Reader::Open(size, std::move(tail), tail_offset, std::move(fetch)));
  std::unique_ptr<FileReader> reader(new FileReader());
  reader->size_bytes_ = size;
  reader->version_ = v1->version();
  reader->schema_ = v1->schema();
  reader->num_rows_ = v1->num_rows();
  reader->columns_ = v1->columns();
  reader->num_columns_ = static_cast<int>(reader->columns_.size());
  reader->v1_ = std::move(v1);
  return reader;
}

Result<RecordBatchPtr> FileReader::LegacyStatistics() const {
  if (!v1_) return RecordBatchPtr{};
  return v1_->Statistics();
}

std::vector<int64_t> FileReader::LegacyBatchOffsets() const {
  if (!v1_) return {};
  return v1_->batch_offsets();
}

Result<std::unique_ptr<FileReader>> FileReader::Open(std::shared_ptr<io::ObjectStore> store,
                                                     std::string path) {
  if (!store) return Status::InvalidArgument("FileReader::Open: no object store");
  const std::string shown = store->DisplayPath(path);  // messages name the file as the user knows it
  LANCE_ASSIGN_OR_RAISE(io::ObjectMeta meta, store->Head(path));
  const int64_t size = meta.size;
  if (size < kFooterSize) {
    return Status::Corruption("lance file '{}': {} bytes, smaller than the {} byte footer", shown,
                              size, kFooterSize);
  }
  // One read usually covers the footer, offset tables, global buffers and column metadata.
  constexpr int64_t kTailGuess = 64 * 1024;
  int64_t tail_start = std::max<int64_t>(0, size - kTailGuess);
  LANCE_ASSIGN_OR_RAISE(BufferPtr tail, store->GetRange(path, tail_start, size - tail_start));
  if (tail->size() != size - tail_start) {
    return Status::IOError("lance file '{}': short read of the last {} bytes", shown, size - tail_start);
  }
  if (LegacyV1Reader::IsV1Footer(tail->data() + tail->size())) {
    auto fetch = [store, path](const std::vector<io::Range>& ranges) {
      return store->GetRanges(path, ranges);
    };
    auto reader = OpenV1(size, tail, std::move(fetch), tail_start);
    if (!reader.ok()) return reader.status().WithContext("lance file '" + shown + "'");
    return reader;
  }
  // The metadata starts at the column metadata or at global buffer 0 (the schema), whichever
  // comes first: lance writes the schema before the column metadata, so with large metadata
  // either may lie before the first guess.
  const uint8_t* footer = tail->data() + tail->size() - kFooterSize;
  const uint64_t limit = static_cast<uint64_t>(size - kFooterSize);
  uint64_t metadata_start = Load<uint64_t>(footer);
  const uint64_t gbo_table = Load<uint64_t>(footer + 16);
  const uint32_t num_global = Load<uint32_t>(footer + 24);
  if (num_global > 0 && gbo_table >= static_cast<uint64_t>(tail_start) && gbo_table <= limit &&
      limit - gbo_table >= 16) {
    const uint8_t* entry = tail->data() + (gbo_table - static_cast<uint64_t>(tail_start));
    const uint64_t schema_pos = Load<uint64_t>(entry);
    const uint64_t schema_len = Load<uint64_t>(entry + 8);
    // A bogus entry is left for OpenTail to report; only a plausible one widens the read.
    if (schema_pos <= limit && schema_len <= limit - schema_pos) {
      metadata_start = std::min(metadata_start, schema_pos);
    }
  }
  if (metadata_start < static_cast<uint64_t>(tail_start)) {
    if (metadata_start > limit) {
      return Status::Corruption("lance file '{}': column metadata start {} past {}", shown,
                                metadata_start, limit);
    }
    tail_start = static_cast<int64_t>(metadata_start);
    LANCE_ASSIGN_OR_RAISE(tail, store->GetRange(path, tail_start, size - tail_start));
    if (tail->size() != size - tail_start) {
      return Status::IOError("lance file '{}': short read of the metadata", shown);
    }
  }
  auto fetch = [store, path](const std::vector<io::Range>& ranges) {
    return store->GetRanges(path, ranges);
  };
  auto reader = OpenTail(size, tail, std::move(fetch), tail_start);
  if (!reader.ok()) return reader.status().WithContext("lance file '" + shown + "'");
  (*reader)->impl_->display = shown;
  return reader;
}

Result<std::unique_ptr<FileReader>> FileReader::OpenTail(
    int64_t size, BufferPtr tail,
    std::function<Result<std::vector<BufferPtr>>(const std::vector<io::Range>&)> fetch,
    int64_t tail_offset) {
  if (size < kFooterSize || !tail || tail->size() != size - tail_offset) {
    return Status::Corruption("lance file: {} bytes, smaller than the {} byte footer", size,
                              kFooterSize);
  }
  const uint8_t* footer = tail->data() + tail->size() - kFooterSize;
  if (std::memcmp(footer + 36, kMagic, 4) != 0) {
    return Status::Corruption("lance file: missing LANC magic at the end");
  }
  // `base + x` addresses file offset x; only offsets >= tail_offset may be dereferenced,
  // which check_range below enforces for every metadata read.
  const uint8_t* base = tail->data() - tail_offset;
  const uint64_t column_meta_start = Load<uint64_t>(footer);
  const uint64_t cmo_table = Load<uint64_t>(footer + 8);
  const uint64_t gbo_table = Load<uint64_t>(footer + 16);
  const uint32_t num_global = Load<uint32_t>(footer + 24);
  const uint32_t num_columns = Load<uint32_t>(footer + 28);
  std::unique_ptr<FileReader> reader(new FileReader());
  reader->size_bytes_ = size;
  reader->tail_ = tail;
  reader->version_.major = Load<uint16_t>(footer + 32);
  reader->version_.minor = Load<uint16_t>(footer + 34);
  reader->impl_ = std::make_unique<Impl>();
  reader->impl_->fetch = std::move(fetch);
  const FileVersion& v = reader->version_;
  if (!v.is_legacy() && !(v.major == 2 && v.minor >= 1 && v.minor <= 3)) {
    return Status::NotSupported("lance file version {}.{} is not supported", v.major, v.minor);
  }
  const auto limit = static_cast<uint64_t>(size - kFooterSize);
  auto check_meta = [&](uint64_t pos, uint64_t len, const std::string& what) -> Status {
    if (pos < static_cast<uint64_t>(tail_offset) || pos > limit || len > limit - pos) {
      return Status::Corruption("lance file: {} [{}, +{}) outside the metadata [{}, {})", what,
                                pos, len, tail_offset, limit);
    }
    return Status::OK();
  };
  auto check_range = [&](uint64_t pos, uint64_t len, const std::string& what) -> Status {
    if (pos > limit || len > limit - pos) {
      return Status::Corruption("lance file: {} [{}, +{}) outside the {} bytes before the footer",
                                what, pos, len, limit);
    }
    return Status::OK();
  };
  LANCE_RETURN_NOT_OK(check_meta(cmo_table, uint64_t{num_columns} * 16, "column metadata offset table"));
  LANCE_RETURN_NOT_OK(check_meta(gbo_table, uint64_t{num_global} * 16, "global buffer offset table"));
  if (column_meta_start > limit) {
    return Status::Corruption("lance file: column metadata start {} past {}", column_meta_start, limit);
  }
  for (uint32_t g = 0; g < num_global; ++g) {
    const uint64_t pos = Load<uint64_t>(base + gbo_table + g * 16);
    const uint64_t len = Load<uint64_t>(base + gbo_table + g * 16 + 8);
    LANCE_RETURN_NOT_OK(check_range(pos, len, "global buffer " + std::to_string(g)));
    reader->global_buffers_.emplace_back(pos, len);
  }
  if (num_global == 0) return Status::Corruption("lance file: no global buffer (file descriptor)");
  LANCE_RETURN_NOT_OK(check_meta(reader->global_buffers_[0].first, reader->global_buffers_[0].second,
                                 "file descriptor"));

  // Schema and row count.
  ::lance::file::FileDescriptor descriptor;
  const auto [fd_pos, fd_len] = reader->global_buffers_[0];
  if (!descriptor.ParseFromArray(base + fd_pos, static_cast<int>(fd_len))) {
    return Status::Corruption("lance file: global buffer 0 is not a FileDescriptor");
  }
  std::vector<LanceField> fields;
  for (const auto& f : descriptor.schema().fields()) {
    LanceField lf;
    lf.name = f.name();
    lf.id = f.id();
    lf.parent_id = f.parent_id();
    lf.logical_type = f.logical_type();
    lf.nullable = f.nullable();
    for (const auto& [k, val] : f.metadata()) lf.metadata.emplace_back(k, val);
    std::sort(lf.metadata.begin(), lf.metadata.end());
    fields.push_back(std::move(lf));
  }
  std::vector<std::pair<std::string, std::string>> schema_md(descriptor.schema().metadata().begin(),
                                                             descriptor.schema().metadata().end());
  std::sort(schema_md.begin(), schema_md.end());
  LANCE_ASSIGN_OR_RAISE(reader->schema_, SchemaFromLanceFields(fields, std::move(schema_md)));
  reader->num_rows_ = static_cast<int64_t>(descriptor.length());
  if (reader->num_rows_ < 0) return Status::Corruption("lance file: row count {}", descriptor.length());

  // Column metadata: each column's range checked now, its pages parsed at first use
  // (Impl::LoadColumns).
  Impl& impl = *reader->impl_;
  impl.tail = tail;
  impl.tail_offset = tail_offset;
  impl.file_size = size;
  impl.version = v;
  impl.num_rows = descriptor.length();
  impl.column_meta.reserve(num_columns);
  for (uint32_t c = 0; c < num_columns; ++c) {
    const uint64_t pos = Load<uint64_t>(base + cmo_table + c * 16);
    const uint64_t len = Load<uint64_t>(base + cmo_table + c * 16 + 8);
    LANCE_RETURN_NOT_OK(check_meta(pos, len, "column " + std::to_string(c) + " metadata"));
    if (len > INT32_MAX) {
      return Status::Corruption("lance file: column {} metadata is not a ColumnMetadata", c);
    }
    impl.column_meta.emplace_back(pos, len);
  }
  impl.pages.resize(num_columns);
  impl.column_status.resize(num_columns);
  impl.column_once = std::make_unique<std::once_flag[]>(num_columns);
  reader->num_columns_ = static_cast<int>(num_columns);

  // Column of each top-level field: 2.1+ one per leaf (fixed-size lists are leaves), 2.0 one
  // per field in pre-order.
  std::function<int(const DataType&)> count = [&](const DataType& t) -> int {
    const bool nested = t.id() == TypeId::kStruct || t.id() == TypeId::kList ||
                        t.id() == TypeId::kLargeList || t.id() == TypeId::kMap;
    if (!nested) return 1;
    int n = v.is_legacy() ? 1 : 0;
    for (const auto& f : t.fields()) n += count(*f->type());
    return n;
  };
  int next = 0;
  for (const auto& f : reader->schema_->fields()) {
    reader->impl_->first_column.push_back(next);
    reader->impl_->num_field_columns.push_back(count(*f->type()));
    next += count(*f->type());
  }
  if (next != static_cast<int>(num_columns)) {
    return Status::Corruption("lance file: the schema needs {} columns, the file has {}", next,
                              num_columns);
  }
  return reader;
}

Status FileReader::Impl::LoadColumns(int first, int count) {
  for (int c = first; c < first + count; ++c) {
    const auto k = static_cast<size_t>(c);
    std::call_once(column_once[k], [&] { column_status[k] = ParseColumn(c); });
    if (!column_status[k].ok()) return column_status[k];
  }
  return Status::OK();
}

Status FileReader::Impl::ParseColumn(int c) {
  auto fail = [&](Status st) {
    return display.empty() ? st : st.WithContext("lance file '" + display + "'");
  };
  const auto limit = static_cast<uint64_t>(file_size - kFooterSize);
  const auto [pos, len] = column_meta[static_cast<size_t>(c)];
  ::lance::file::v2::ColumnMetadata meta;
  const uint8_t* at = tail->data() + (pos - static_cast<uint64_t>(tail_offset));
  if (!meta.ParseFromArray(at, static_cast<int>(len))) {
    return fail(Status::Corruption("lance file: column {} metadata is not a ColumnMetadata", c));
  }
  std::vector<PageMeta> column_pages;
  column_pages.reserve(static_cast<size_t>(meta.pages_size()));
  google::protobuf::Any any;
  for (int p = 0; p < meta.pages_size(); ++p) {
    const auto& page = meta.pages(p);
    if (page.buffer_offsets_size() != page.buffer_sizes_size()) {
      return fail(Status::Corruption("column {} page {}: {} buffer offsets but {} sizes", c, p,
                                     page.buffer_offsets_size(), page.buffer_sizes_size()));
    }
    PageMeta pm;
    pm.num_rows = static_cast<int64_t>(page.length());
    pm.priority = static_cast<int64_t>(page.priority());
    pm.buffers.reserve(static_cast<size_t>(page.buffer_offsets_size()));
    for (int b = 0; b < page.buffer_offsets_size(); ++b) {
      const uint64_t bpos = page.buffer_offsets(b), blen = page.buffer_sizes(b);
      if (bpos > limit || blen > limit - bpos) {
        return fail(Status::Corruption(
            "lance file: column {} page {} buffer {} [{}, +{}) outside the {} bytes before the "
            "footer", c, p, b, bpos, blen, limit));
      }
      pm.buffers.emplace_back(bpos, blen);
    }
    if (!page.encoding().has_direct()) {
      return fail(Status::NotSupported("column {} page {}: only direct encodings are supported", c, p));
    }
    if (!any.ParseFromString(page.encoding().direct().encoding())) {
      return fail(Status::Corruption("column {} page {}: encoding is not a protobuf Any", c, p));
    }
    pm.encoding_url = any.type_url();
    if (EndsWith(any.type_url(), kPageLayoutUrl)) {
      if (version.is_legacy()) {
        return fail(Status::Corruption("column {} page {}: 2.1 page layout in a 2.0 file", c, p));
      }
      pm.layout = std::make_unique<pb21::PageLayout>();
      if (!pm.layout->ParseFromString(any.value())) {
        return fail(Status::Corruption("column {} page {}: bad PageLayout", c, p));
      }
    } else if (EndsWith(any.type_url(), kArrayEncodingUrl)) {
      if (!version.is_legacy()) {
        return fail(Status::Corruption("column {} page {}: 2.0 array encoding in a {} file", c, p,
                                       version.ToString()));
      }
      pm.legacy = std::make_unique<pb20::ArrayEncoding>();
      if (!pm.legacy->ParseFromString(any.value())) {
        return fail(Status::Corruption("column {} page {}: bad ArrayEncoding", c, p));
      }
    } else {
      return fail(Status::NotSupported("column {} page {}: encoding type '{}'", c, p, any.type_url()));
    }
    column_pages.push_back(std::move(pm));
  }
  if (!version.is_legacy()) {
    // 2.1+ columns are leaves of top-level rows: their pages must cover the file exactly.
    uint64_t rows = 0;
    for (const auto& pm : column_pages) rows += static_cast<uint64_t>(pm.num_rows);
    if (rows != num_rows) {
      return fail(Status::Corruption("lance file: column {} pages hold {} rows, the file has {}",
                                     c, rows, num_rows));
    }
  }
  pages[static_cast<size_t>(c)] = std::move(column_pages);
  return Status::OK();
}

const std::vector<ColumnInfo>& FileReader::columns() const {
  if (v1_ || !impl_) return columns_;
  std::call_once(impl_->info_once, [&] {
    std::vector<ColumnInfo> out(static_cast<size_t>(num_columns_));
    for (int c = 0; c < num_columns_; ++c) {
      if (!impl_->LoadColumns(c, 1).ok()) continue;
      for (const PageMeta& pm : impl_->pages[static_cast<size_t>(c)]) {
        PageInfo pi;
        pi.num_rows = pm.num_rows;
        pi.priority = pm.priority;
        pi.buffers = pm.buffers;
        pi.encoding_url = pm.encoding_url;
        pi.description = pm.layout ? encoding::DescribePageLayout(*pm.layout)
                                   : encoding::DescribeLegacyEncoding(*pm.legacy);
        out[static_cast<size_t>(c)].pages.push_back(std::move(pi));
      }
    }
    columns_ = std::move(out);
  });
  return columns_;
}

Result<BufferPtr> FileReader::ReadGlobalBuffer(int index) const {
  if (!impl_ || index < 0 || index >= num_global_buffers()) {
    return Status::InvalidArgument("lance file: global buffer {} requested, the file has {}", index,
                                   impl_ ? num_global_buffers() : 0);
  }
  const auto [pos, len] = global_buffers_[static_cast<size_t>(index)];
  LANCE_ASSIGN_OR_RAISE(std::vector<BufferPtr> got,
                        impl_->fetch({io::Range{static_cast<int64_t>(pos), static_cast<int64_t>(len)}}));
  if (got.size() != 1 || got[0]->size() != static_cast<int64_t>(len)) {
    return Status::IOError("lance file: short read of global buffer {} ({} bytes)", index, len);
  }
  return got[0];
}

}  // namespace lance::file
