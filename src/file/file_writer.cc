// FileWriter: batches shredded into leaf columns (leaf_column.h), pages cut at a size and
// encoded on the thread pool, written in order with their column metadata, the schema in
// global buffer 0 and the footer.
#include "lance/file/file_writer.h"

#include <google/protobuf/any.pb.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <future>
#include <limits>
#include <functional>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "encoding/proto/encodings_v2_0.pb.h"
#include "encoding/proto/encodings_v2_1.pb.h"
#include "file/proto/deterministic.h"
#include "file/proto/file_schema.pb.h"
#include "file/proto/file_v2.pb.h"
#include "lance/core/bit_util.h"
#include "lance/core/thread_pool.h"
#include "encoding/encoder.h"
#include "file/leaf_column.h"
#include "file/older_writers.h"
#include "lance/file/lance_schema.h"

namespace lance::file {

namespace {

using encoding::DataBlock;
using encoding::LayerKind;

constexpr int64_t kPageAlignment = 64;

std::string PackAny(std::string_view url, const google::protobuf::Message& msg) {
  google::protobuf::Any any;
  any.set_type_url(std::string(url));
  any.set_value(::lance::proto::SerializeDeterministic(msg));
  return ::lance::proto::SerializeDeterministic(any);
}

// A page taken from a column, encoded (possibly on a worker thread) and waiting to be written
// in the order the pages were taken.
struct PendingPage {
  size_t column = 0;
  int64_t first_row = 0;
  encoding::LeafPage page;  // owns the bytes an encoded page may borrow
  bool adopted = false;      // page.values views an input buffer (LeafColumn::adopted)
  encoding::PageEncodeOptions options;
  Result<encoding::EncodedPage> encoded = Status::Internal("page not encoded");
};

// Estimated bytes of an array's buffers (whole buffers, slices count fully).
int64_t ArrayBytes(const Array& a) {
  int64_t n = 0;
  for (const auto& b : a.buffers) n += b ? b->size() : 0;
  for (const auto& c : a.children) n += ArrayBytes(*c);
  return n;
}

}  // namespace

struct FileWriter::Impl {
  std::shared_ptr<io::ObjectStore> store;
  std::string path;
  SchemaPtr input_schema;
  SchemaPtr schema;
  std::vector<LanceField> lance_fields;
  WriteOptions options;
  std::unique_ptr<io::ObjectWriter> out;
  int64_t pos = 0;
  int64_t num_rows = 0;
  std::vector<LeafColumn> columns;
  bool finished = false;
  bool aborted = false;
  // Global buffers after the file descriptor (AddGlobalBuffer): (position, size).
  std::vector<std::pair<uint64_t, uint64_t>> extra_global_buffers;
  // Versions 0.1 / 0.2 (v1) and 0.3 (2.0) are written by an older-format writer instead.
  std::unique_ptr<internal::OlderFileWriter> older;
  // Pages being encoded on the pool, oldest first; written strictly in this order, so the
  // file's bytes do not depend on the threads.
  std::deque<std::future<std::unique_ptr<PendingPage>>> pending;

  // The pool to encode on, or null to encode inline (options, or a caller that is itself a
  // worker of the pool: waiting for our pages there could starve it).
  ThreadPool* Pool() const {
    ThreadPool* p = options.pool;
    if (p == nullptr || p->num_threads() == 0) return nullptr;
    return p->IsWorkerThread() || p->InForkedChild() ? nullptr : p;
  }

  Status WriteBytes(const void* data, int64_t n) {
    if (n == 0) return Status::OK();
    LANCE_RETURN_NOT_OK(out->Write(data, n));
    pos += n;
    return Status::OK();
  }

  Status Align() {
    static const char kZeros[kPageAlignment] = {};
    const int64_t pad = bit_util::RoundUpToMultipleOf64(pos) - pos;
    return WriteBytes(kZeros, pad);
  }

  Status AddLeaves(int field_index, const FieldPtr& f, LeafColumn proto) {
    const DataType& t = *f->type();
    const int d = proto.depth();
    proto.ids.push_back(t.id());
    if (IsStructural(t.id())) {
      if (IsListType(t.id())) {
        proto.continue_rep.push_back(0);
        ++proto.num_lists;
      } else {
        proto.continue_rep.push_back(-1);
      }
      if (t.num_fields() == 0) {
        return Status::InvalidArgument("field '{}': structs without children cannot be written", f->name());
      }
      for (int c = 0; c < t.num_fields(); ++c) {
        LeafColumn next = proto.Branch();
        next.child.push_back(c);
        LANCE_RETURN_NOT_OK(AddLeaves(field_index, t.field(c), std::move(next)));
      }
      return Status::OK();
    }
    (void)d;
    proto.continue_rep.push_back(-1);
    proto.child.push_back(-1);
    proto.leaf_type = f->type();
    if (t.id() == TypeId::kDictionary) {
      // Indices of the index type's width, items of the value type (checked by the schema).
      const DataType& it = *t.index_type();
      proto.is_dict = true;
      proto.index_bytes = it.bit_width() / 8;
      const bool is_signed = it.id() == TypeId::kInt8 || it.id() == TypeId::kInt16 ||
                             it.id() == TypeId::kInt32 || it.id() == TypeId::kInt64;
      proto.index_max = proto.index_bytes >= 8
                            ? (is_signed ? uint64_t{INT64_MAX} : UINT64_MAX)
                            : (uint64_t{1} << (proto.index_bytes * 8 - (is_signed ? 1 : 0))) - 1;
      LANCE_ASSIGN_OR_RAISE(proto.dict_items, encoding::DataBlockPrototype(*t.dictionary_value_type()));
      if (proto.dict_items.kind == DataBlock::Kind::kFixedSizeList ||
          (proto.dict_items.kind == DataBlock::Kind::kFixed && proto.dict_items.bits_per_value % 8 != 0)) {
        return Status::NotSupported("field '{}': dictionary of {}", f->name(),
                                    t.dictionary_value_type()->ToString());
      }
    }
    LANCE_ASSIGN_OR_RAISE(DataBlock prototype,
                          proto.is_dict ? Result<DataBlock>(DataBlock::Fixed(proto.index_bytes * 8))
                                        : encoding::DataBlockPrototype(t));
    if (prototype.kind == DataBlock::Kind::kFixedSizeList &&
        prototype.child->kind != DataBlock::Kind::kFixed) {
      return Status::NotSupported("field '{}': fixed_size_list of {}", f->name(),
                                  t.value_type()->ToString());
    }
    proto.values = std::move(prototype);
    // Repetition of a non-first list element: lists counted from the innermost (0).
    int lists_seen = 0;
    for (size_t k = 0; k < proto.ids.size(); ++k) {
      if (IsListType(proto.ids[k]) && k + 1 < proto.ids.size()) {
        proto.continue_rep[k] = proto.num_lists - 1 - lists_seen;
        ++lists_seen;
      }
    }
    proto.list_below.assign(proto.ids.size(), 0);
    bool below = false;
    for (size_t k = proto.ids.size(); k-- > 0;) {
      below |= k + 1 < proto.ids.size() && IsListType(proto.ids[k]);
      proto.list_below[k] = below ? 1 : 0;
    }
    if (proto.num_lists > 0xFFF) return Status::NotSupported("field '{}' nests too deeply", f->name());
    proto.field_index = field_index;
    columns.push_back(std::move(proto));
    return Status::OK();
  }

  // Takes the column's buffered rows as a page and encodes it, on the pool when there is one;
  // writes the pages that are done (and waits for the oldest when too many are pending).
  Status FlushPage(size_t ci) {
    LeafColumn& c = columns[ci];
    auto job = std::make_unique<PendingPage>();
    job->column = ci;
    job->first_row = c.first_row;
    job->adopted = std::exchange(c.adopted, false);
    LANCE_ASSIGN_OR_RAISE(job->page, c.TakePage());
    encoding::LeafPage& page = job->page;
    const DataType& storage = c.is_dict ? *c.leaf_type->dictionary_value_type() : *c.leaf_type;
    if (storage.id() == TypeId::kLargeString || storage.id() == TypeId::kLargeBinary) {
      page.offset_bits = 64;
    }
    encoding::PageEncodeOptions& opt = job->options;
    opt.minor_version = options.version.minor;
    opt.max_chunk_values = options.max_chunk_values;
    opt.compress = options.compress;
    ThreadPool* pool = Pool();
    opt.pool = pool;
    if (pool == nullptr) {
      job->encoded = encoding::EncodePage(job->page, job->options);
      return WritePage(*job);
    }
    // Pages are written in order, so one slow page (FSST strings) at the front holds back the
    // ones behind it. Rather than wait idle for it once the workers all have a page, the
    // caller encodes this page itself; it waits only when twice as many pages are pending.
    const size_t busy = static_cast<size_t>(pool->num_threads()) + 1;
    LANCE_RETURN_NOT_OK(WritePending(std::numeric_limits<size_t>::max()));  // the done ones
    if (pending.size() >= busy) {
      job->encoded = encoding::EncodePage(job->page, job->options);
      std::promise<std::unique_ptr<PendingPage>> done;
      done.set_value(std::move(job));
      pending.push_back(done.get_future());
    } else {
      pending.push_back(pool->Submit([job = std::move(job)]() mutable {
        job->encoded = encoding::EncodePage(job->page, job->options);
        return std::move(job);
      }));
    }
    return WritePending(2 * busy);
  }

  // Writes the oldest pending pages: every one that is done, and more (waiting for them) until
  // at most `keep` remain.
  Status WritePending(size_t keep) {
    while (!pending.empty() &&
           (pending.size() > keep ||
            pending.front().wait_for(std::chrono::seconds(0)) == std::future_status::ready)) {
      std::unique_ptr<PendingPage> job = pending.front().get();
      pending.pop_front();
      LANCE_RETURN_NOT_OK(WritePage(*job));
    }
    return Status::OK();
  }

  Status WritePage(PendingPage& job) {
    LeafColumn& c = columns[job.column];
    const encoding::LeafPage& page = job.page;
    const int64_t first_row = job.first_row;
    const auto& encoded = job.encoded;
    if (!encoded.ok()) {
      return encoded.status().WithContext(
          fmt::format("field '{}'", schema->field(c.field_index)->name()));
    }
    auto* pm = c.meta.add_pages();
    for (size_t i = 0; i < encoded->buffers.size(); ++i) {
      const std::string_view b = encoded->buffer(i);
      LANCE_RETURN_NOT_OK(Align());
      pm->add_buffer_offsets(static_cast<uint64_t>(pos));
      pm->add_buffer_sizes(b.size());
      LANCE_RETURN_NOT_OK(WriteBytes(b.data(), static_cast<int64_t>(b.size())));
    }
    if (page.num_rows > UINT32_MAX) return Status::NotSupported("page of {} rows", page.num_rows);
    pm->set_length(static_cast<uint32_t>(page.num_rows));
    pm->set_priority(static_cast<uint64_t>(first_row));
    pm->mutable_encoding()->mutable_direct()->set_encoding(
        PackAny("/lance.encodings21.PageLayout", encoded->layout));
    // The page is written (the store copies what it is given): its value bytes can hold the
    // column's next page.
    encoding::Bytes& used = ValueBytes(job.page.values);
    if (!job.adopted && used.capacity() >= (size_t{1} << 20) && used.capacity() > c.spare.capacity()) {
      used.Truncate(0);
      c.spare = std::move(used);
    }
    return Status::OK();
  }

  Status WriteFooter() {
    // Global buffer 0: the file descriptor (before the column metadata, as lance writes it).
    const std::string fd_bytes = internal::EncodeFileDescriptor(lance_fields, *schema, num_rows);
    LANCE_RETURN_NOT_OK(Align());
    const int64_t fd_pos = pos;
    LANCE_RETURN_NOT_OK(WriteBytes(fd_bytes.data(), static_cast<int64_t>(fd_bytes.size())));

    // Column metadata blocks.
    ::lance::encodings::ColumnEncoding column_encoding;
    column_encoding.mutable_values();
    const std::string column_encoding_any = PackAny("/lance.encodings.ColumnEncoding", column_encoding);
    LANCE_RETURN_NOT_OK(Align());
    const int64_t column_meta_start = pos;
    std::vector<std::pair<uint64_t, uint64_t>> cmo;
    for (auto& c : columns) {
      c.meta.mutable_encoding()->mutable_direct()->set_encoding(column_encoding_any);
      const std::string bytes = ::lance::proto::SerializeDeterministic(c.meta);
      cmo.emplace_back(static_cast<uint64_t>(pos), bytes.size());
      LANCE_RETURN_NOT_OK(WriteBytes(bytes.data(), static_cast<int64_t>(bytes.size())));
    }
    std::string tables;
    const int64_t cmo_start = pos;
    for (const auto& [p, n] : cmo) {
      tables.append(reinterpret_cast<const char*>(&p), 8);
      tables.append(reinterpret_cast<const char*>(&n), 8);
    }
    const int64_t gbo_start = cmo_start + static_cast<int64_t>(tables.size());
    const uint64_t gb[2] = {static_cast<uint64_t>(fd_pos), fd_bytes.size()};
    tables.append(reinterpret_cast<const char*>(gb), 16);
    for (const auto& [p, n] : extra_global_buffers) {
      tables.append(reinterpret_cast<const char*>(&p), 8);
      tables.append(reinterpret_cast<const char*>(&n), 8);
    }
    const uint64_t footer64[3] = {static_cast<uint64_t>(column_meta_start),
                                  static_cast<uint64_t>(cmo_start), static_cast<uint64_t>(gbo_start)};
    tables.append(reinterpret_cast<const char*>(footer64), 24);
    const uint32_t counts[2] = {static_cast<uint32_t>(1 + extra_global_buffers.size()),
                                static_cast<uint32_t>(columns.size())};
    tables.append(reinterpret_cast<const char*>(counts), 8);
    const uint16_t version[2] = {options.version.major, options.version.minor};
    tables.append(reinterpret_cast<const char*>(version), 4);
    tables.append(kMagic, 4);
    return WriteBytes(tables.data(), static_cast<int64_t>(tables.size()));
  }
};

FileWriter::FileWriter() = default;

FileWriter::~FileWriter() {
  if (impl_ && !impl_->finished) Abort();
}

namespace internal {

std::string EncodeFileDescriptor(const std::vector<LanceField>& fields, const ::lance::Schema& schema, int64_t num_rows) {
  ::lance::file::FileDescriptor fd;
  auto* s = fd.mutable_schema();
  for (const auto& lf : fields) {
    auto* f = s->add_fields();
    f->set_name(lf.name);
    f->set_id(lf.id);
    f->set_parent_id(lf.parent_id);
    f->set_logical_type(lf.logical_type);
    f->set_nullable(lf.nullable);
    const std::string& t = lf.logical_type;
    if (t.rfind("dict:", 0) == 0) {
      // As lance 12: dictionary encoding, with an empty Dictionary message.
      f->set_encoding(::lance::file::DICTIONARY);
      f->mutable_dictionary();
    } else if (t == "string" || t == "large_string" || t == "binary" || t == "large_binary") {
      f->set_encoding(::lance::file::VAR_BINARY);
    } else if (t != "struct") {
      f->set_encoding(::lance::file::PLAIN);
    }
    for (const auto& [k, v] : lf.metadata) (*f->mutable_metadata())[k] = v;
  }
  if (schema.metadata()) {
    for (const auto& [k, v] : schema.metadata()->pairs()) (*s->mutable_metadata())[k] = v;
  }
  fd.set_length(static_cast<uint64_t>(num_rows));
  return ::lance::proto::SerializeDeterministic(fd);
}

}  // namespace internal

Result<std::unique_ptr<FileWriter>> FileWriter::Open(std::shared_ptr<io::ObjectStore> store,
                                                     std::string path, SchemaPtr schema,
                                                     WriteOptions options) {
  if (!store) return Status::InvalidArgument("FileWriter::Open: no object store");
  if (!schema) return Status::InvalidArgument("FileWriter::Open: no schema");
  if (options.version.major == 0 && options.version.minor <= 3) {
    std::unique_ptr<FileWriter> w(new FileWriter());
    w->impl_ = std::make_unique<Impl>();
    LANCE_ASSIGN_OR_RAISE(w->impl_->older, options.version.minor == 3
                                               ? internal::OpenV20Writer(store, path, schema, options)
                                               : internal::OpenV1Writer(store, path, schema, options));
    w->impl_->options = options;
    return w;
  }
  if (options.version.major != 2 || (options.version.minor != 1 && options.version.minor != 2)) {
    return Status::InvalidArgument("lance file writer: version {}.{} (expected 2.1, 2.2, 0.3 for "
                                   "2.0 or 0.2 for legacy v1)",
                                   options.version.major, options.version.minor);
  }
  if (options.max_chunk_values < 1 || options.max_chunk_values > 4096 ||
      (options.max_chunk_values & (options.max_chunk_values - 1)) != 0) {
    return Status::InvalidArgument("lance file writer: max_chunk_values {} is not a power of two <= 4096",
                                   options.max_chunk_values);
  }
  if (options.max_page_bytes < 1) {
    return Status::InvalidArgument("lance file writer: max_page_bytes {}", options.max_page_bytes);
  }
  std::unique_ptr<FileWriter> w(new FileWriter());
  w->impl_ = std::make_unique<Impl>();
  Impl& im = *w->impl_;
  im.store = std::move(store);
  im.path = std::move(path);
  im.input_schema = schema;
  im.options = options;
  LANCE_ASSIGN_OR_RAISE(im.lance_fields, LanceFieldsFromSchema(*schema, &im.schema));
  for (int i = 0; i < im.schema->num_fields(); ++i) {
    auto st = im.AddLeaves(i, im.schema->field(i), LeafColumn{});
    if (!st.ok()) return st.WithContext("lance file '" + im.path + "'");
  }
  LANCE_ASSIGN_OR_RAISE(im.out, im.store->OpenWriter(im.path));
  return w;
}

Status FileWriter::Write(const RecordBatch& batch) {
  Impl& im = *impl_;
  if (im.older) return im.older->Write(batch);
  if (im.finished || im.aborted) return Status::InvalidArgument("lance file writer: already finished");
  const ::lance::Schema& s = *batch.schema();
  if (s.num_fields() != im.input_schema->num_fields()) {
    return Status::InvalidArgument("lance file '{}': batch has {} fields, the file {}", im.path,
                                   s.num_fields(), im.input_schema->num_fields());
  }
  for (int i = 0; i < s.num_fields(); ++i) {
    const ::lance::Field& a = *s.field(i);
    const ::lance::Field& b = *im.input_schema->field(i);
    if (a.name() != b.name() || !a.type()->Equals(*b.type())) {
      return Status::InvalidArgument("lance file '{}': batch field {} is '{}: {}', expected '{}: {}'",
                                     im.path, i, a.name(), a.type()->ToString(), b.name(),
                                     b.type()->ToString());
    }
  }
  const int64_t n = batch.num_rows();
  if (n == 0) return Status::OK();
  int64_t bytes = 0;
  for (const auto& c : batch.columns()) bytes += ArrayBytes(*c);
  const int64_t per_row = std::max<int64_t>(1, bytes / n);
  const int64_t piece = std::clamp<int64_t>(im.options.max_page_bytes / per_row, 1, n);
  ThreadPool* pool = im.Pool();
  std::vector<Status> shredded(im.columns.size());
  for (int64_t start = 0; start < n; start += piece) {
    const int64_t len = std::min(piece, n - start);
    // Columns shred independently (on the pool too); pages are then taken in column order.
    auto shred = [&](int64_t i) {
      LeafColumn& c = im.columns[static_cast<size_t>(i)];
      const ArrayPtr col = batch.column(c.field_index);
      Status st = c.Reserve(*col, start, im.options.max_page_bytes);
      const ArrayPtr part = len == n ? col : col->Slice(start, len);
      shredded[static_cast<size_t>(i)] = st.ok() ? c.Shred(*part) : std::move(st);
    };
    const auto num_columns = static_cast<int64_t>(im.columns.size());
    if (pool != nullptr && num_columns > 1) {
      ParallelFor(pool, num_columns, shred);
    } else {
      for (int64_t i = 0; i < num_columns; ++i) shred(i);
    }
    for (size_t i = 0; i < im.columns.size(); ++i) {
      LeafColumn& c = im.columns[i];
      LANCE_RETURN_NOT_OK(shredded[i].WithContext(
          fmt::format("lance file '{}': field '{}'", im.path, im.schema->field(c.field_index)->name())));
      if (c.BufferedBytes() >= im.options.max_page_bytes) {
        LANCE_RETURN_NOT_OK(im.FlushPage(i));
      }
    }
    im.num_rows += len;
  }
  return Status::OK();
}

Result<int> FileWriter::AddGlobalBuffer(std::string_view bytes) {
  Impl& im = *impl_;
  if (im.older) return Status::NotSupported("global buffers need a 2.1+ lance file");
  if (im.finished || im.aborted) return Status::InvalidArgument("lance file writer: already finished");
  LANCE_RETURN_NOT_OK(im.WritePending(0));
  LANCE_RETURN_NOT_OK(im.Align());
  const int64_t at = im.pos;
  LANCE_RETURN_NOT_OK(im.WriteBytes(bytes.data(), static_cast<int64_t>(bytes.size())));
  im.extra_global_buffers.emplace_back(static_cast<uint64_t>(at), bytes.size());
  return static_cast<int>(im.extra_global_buffers.size());
}

Result<WriteSummary> FileWriter::Finish() {
  Impl& im = *impl_;
  if (im.older) {
    im.finished = true;
    return im.older->Finish();
  }
  if (im.finished || im.aborted) return Status::InvalidArgument("lance file writer: already finished");
  for (size_t i = 0; i < im.columns.size(); ++i) {
    if (im.columns[i].rows > 0) LANCE_RETURN_NOT_OK(im.FlushPage(i));
  }
  LANCE_RETURN_NOT_OK(im.WritePending(0));
  LANCE_RETURN_NOT_OK(im.WriteFooter());
  LANCE_RETURN_NOT_OK(im.out->Close());
  im.finished = true;
  WriteSummary summary;
  summary.num_rows = im.num_rows;
  summary.size_bytes = im.pos;
  summary.num_columns = static_cast<int>(im.columns.size());
  summary.version = im.options.version;
  summary.schema = im.schema;
  return summary;
}

void FileWriter::Abort() {
  if (!impl_ || impl_->finished || impl_->aborted) return;
  impl_->aborted = true;
  if (impl_->older) return impl_->older->Abort();
  for (auto& f : impl_->pending) f.wait();
  impl_->pending.clear();
  if (impl_->out) (void)impl_->out->Abort();
}

const SchemaPtr& FileWriter::schema() const {
  return impl_->older ? impl_->older->schema() : impl_->schema;
}

}  // namespace lance::file

