#include "lance/ipc/reader.h"

#include <cstring>
#include <limits>
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ipc/codec.h"
#include "ipc/message_reader.h"
#include "ipc/metadata.h"
#include "ipc/wire.h"

namespace lance::ipc {

namespace internal {

namespace {

// Turns an error from array validation into the reader's Corruption.
Status AsCorruption(const Status& st, std::string_view what) {
  if (st.ok() || st.IsCorruption()) return st;
  return Status::Corruption("IPC: invalid {}: {}", what, st.message());
}

bool MulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

constexpr int64_t kUnknownNullCount = -1;

// The dictionaries in force, by id.
using DictionaryMemo = std::map<int64_t, ArrayPtr>;

// Rebuilds arrays from a RecordBatch header and its body, consuming field nodes and buffers
// in depth-first order and checking every size against the layout before the array exists.
class ArrayLoader {
 public:
  ArrayLoader(const fb::RecordBatch* batch, BufferPtr body, const IpcReadOptions& options,
              const std::vector<int64_t>* field_dictionary_ids, const DictionaryMemo* dictionaries)
      : batch_(batch), body_(std::move(body)), options_(options),
        field_dictionary_ids_(field_dictionary_ids), dictionaries_(dictionaries) {}

  Status Init() {
    if (const fb::BodyCompression* c = batch_->compression()) {
      if (c->method() != fb::BodyCompressionMethod::BUFFER) {
        return Status::NotSupported("IPC: body compression method {}",
                                    static_cast<int>(c->method()));
      }
      switch (c->codec()) {
        case fb::CompressionType::LZ4_FRAME:
          codec_ = Compression::kLz4Frame;
          break;
        case fb::CompressionType::ZSTD:
          codec_ = Compression::kZstd;
          break;
        default:
          return Status::NotSupported("IPC: compression codec {}", static_cast<int>(c->codec()));
      }
    }
    // The field nodes and buffers are copied out byte-wise: older writers (the arrow-rs of
    // lance 0.21's deletion files) left these vectors of 16-byte structs only 4-aligned.
    if (const auto* nodes = batch_->nodes(); nodes != nullptr && nodes->size() > 0) {
      nodes_.resize(nodes->size());
      std::memcpy(nodes_.data(), nodes->Data(), nodes_.size() * sizeof(fb::FieldNode));
    }
    if (const auto* buffers = batch_->buffers(); buffers != nullptr && buffers->size() > 0) {
      buffers_.resize(buffers->size());
      std::memcpy(buffers_.data(), buffers->Data(), buffers_.size() * sizeof(fb::Buffer));
    }
    if (batch_->variadic_buffer_counts() != nullptr &&
        batch_->variadic_buffer_counts()->size() > 0) {
      return Status::NotSupported("IPC: variadic buffers (view types)");
    }
    return Status::OK();
  }

  Result<ArrayPtr> Load(const DataTypePtr& type) {
    LANCE_ASSIGN_OR_RAISE(const fb::FieldNode* node, NextNode());
    const int64_t length = node->length();
    // -1 means "not counted" (apache-arrow JS writes it for sliced arrays): the count then
    // comes from the bitmap.
    const int64_t null_count = node->null_count();
    // The bound keeps every size computation below (length * 16 and the like) from
    // overflowing.
    if (length < 0 || length > (int64_t{1} << 50) || null_count < kUnknownNullCount ||
        null_count > length) {
      return Status::Corruption("IPC: field node {} has length {} and null count {}",
                                node_index_ - 1, length, null_count);
    }
    const DataType& t = *type;
    if (t.id() == TypeId::kNull) {
      if (null_count != length && null_count != kUnknownNullCount) {
        return Status::Corruption("IPC: null array of length {} declares {} nulls", length,
                                  null_count);
      }
      return Array::Make(type, length, {});
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, NextValidity(length, null_count));
    std::vector<BufferPtr> buffers{validity};
    std::vector<ArrayPtr> children;
    ArrayPtr dictionary;
    switch (t.id()) {
      case TypeId::kBool: {
        LANCE_ASSIGN_OR_RAISE(auto values, NextValues(1, bit_util::BytesForBits(length),
                                                      null_count == length, "bool values"));
        buffers.push_back(std::move(values));
        break;
      }
      case TypeId::kString:
      case TypeId::kLargeString:
      case TypeId::kBinary:
      case TypeId::kLargeBinary: {
        LANCE_ASSIGN_OR_RAISE(auto offsets, NextOffsets(t, length));
        LANCE_ASSIGN_OR_RAISE(auto data, NextBuffer(1, 0, "binary data"));
        LANCE_RETURN_NOT_OK(CheckOffsets(t, *offsets, length, data->size(), "data bytes"));
        buffers.push_back(std::move(offsets));
        buffers.push_back(std::move(data));
        break;
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kMap: {
        LANCE_ASSIGN_OR_RAISE(auto offsets, NextOffsets(t, length));
        LANCE_ASSIGN_OR_RAISE(auto child, Load(t.value_field()->type()));
        LANCE_RETURN_NOT_OK(CheckOffsets(t, *offsets, length, child->length, "child elements"));
        buffers.push_back(std::move(offsets));
        children.push_back(std::move(child));
        break;
      }
      case TypeId::kFixedSizeList: {
        LANCE_ASSIGN_OR_RAISE(auto child, Load(t.value_field()->type()));
        int64_t needed;
        if (MulOverflows(length, t.list_size(), &needed) || child->length < needed) {
          return Status::Corruption(
              "IPC: fixed_size_list of {} lists of {} has a child of length {}", length,
              t.list_size(), child->length);
        }
        children.push_back(std::move(child));
        break;
      }
      case TypeId::kStruct:
        for (const auto& f : t.fields()) {
          LANCE_ASSIGN_OR_RAISE(auto child, Load(f->type()));
          if (child->length < length) {
            return Status::Corruption("IPC: struct of length {} has child '{}' of length {}",
                                      length, f->name(), child->length);
          }
          children.push_back(std::move(child));
        }
        break;
      case TypeId::kDictionary: {
        const int64_t width = t.index_type()->bit_width() / 8;
        LANCE_ASSIGN_OR_RAISE(auto indices, NextBuffer(width, length * width, "dictionary indices"));
        buffers.push_back(std::move(indices));
        if (field_dictionary_ids_ == nullptr || next_dictionary_ >= field_dictionary_ids_->size()) {
          return Status::Corruption("IPC: dictionary-encoded array without a dictionary id");
        }
        const int64_t id = (*field_dictionary_ids_)[next_dictionary_++];
        auto it = dictionaries_->find(id);
        if (it == dictionaries_->end()) {
          return Status::Corruption("IPC: record batch uses dictionary {} before it was sent", id);
        }
        dictionary = it->second;
        break;
      }
      default: {
        if (!t.is_fixed_width() || t.bit_width() % 8 != 0) {
          return Status::NotSupported("IPC: cannot load arrays of type {}", t.ToString());
        }
        const int64_t width = t.bit_width() / 8;
        LANCE_ASSIGN_OR_RAISE(auto values, NextValues(std::min<int64_t>(width, 8), length * width,
                                                      null_count == length, "values"));
        buffers.push_back(std::move(values));
        break;
      }
    }
    auto array = Array::Make(type, length, std::move(buffers), std::move(children), 0,
                             std::move(dictionary));
    if (null_count != kUnknownNullCount && array->null_count != null_count) {
      return Status::Corruption("IPC: array of type {} declares {} nulls, its bitmap has {}",
                                t.ToString(), null_count, array->null_count);
    }
    return array;
  }

  int64_t num_nodes_used() const { return node_index_; }

 private:
  Result<const fb::FieldNode*> NextNode() {
    if (node_index_ >= static_cast<int64_t>(nodes_.size())) {
      return Status::Corruption("IPC: record batch has too few field nodes ({}) for its schema",
                                nodes_.size());
    }
    return &nodes_[static_cast<size_t>(node_index_++)];
  }

  // The next body buffer, decompressed, at least `min_size` bytes long and aligned to
  // `alignment` (copied when the body's bytes are not).
  Result<BufferPtr> NextBuffer(int64_t alignment, int64_t min_size, const char* what) {
    if (buffer_index_ >= static_cast<int64_t>(buffers_.size())) {
      return Status::Corruption("IPC: record batch has too few buffers ({}) for its schema",
                                buffers_.size());
    }
    const fb::Buffer* b = &buffers_[static_cast<size_t>(buffer_index_++)];
    const int64_t offset = b->offset();
    const int64_t size = b->length();
    const int64_t body_size = body_->size();
    if (offset < 0 || size < 0 || offset > body_size || size > body_size - offset) {
      return Status::Corruption("IPC: buffer {} [{}, +{}) lies outside the {}-byte body",
                                buffer_index_ - 1, offset, size, body_size);
    }
    BufferPtr out;
    if (size == 0) {
      out = EmptyBuffer();
    } else if (codec_ == Compression::kNone) {
      out = SliceBuffer(body_, offset, size);
    } else {
      LANCE_ASSIGN_OR_RAISE(out, Decompress(offset, size));
    }
    if (out->size() < min_size) {
      return Status::Corruption("IPC: {} buffer {} has {} bytes, at least {} needed", what,
                                buffer_index_ - 1, out->size(), min_size);
    }
    if (!out->is_aligned(alignment)) {
      LANCE_ASSIGN_OR_RAISE(out, CopyBuffer(out->view()));
    }
    return out;
  }

  // A values buffer. An array whose every element is null may leave it empty (apache-arrow JS
  // writes no bytes for an all-null bool array): its slots are then zeros of the needed size.
  Result<BufferPtr> NextValues(int64_t alignment, int64_t min_size, bool all_null, const char* what) {
    if (all_null && min_size > 0) {
      LANCE_ASSIGN_OR_RAISE(auto buf, NextBuffer(alignment, 0, what));
      if (buf->size() == 0) return AllocateBuffer(min_size, true);
      if (buf->size() < min_size) {
        return Status::Corruption("IPC: {} buffer {} has {} bytes, at least {} needed", what,
                                  buffer_index_ - 1, buf->size(), min_size);
      }
      return buf;
    }
    return NextBuffer(alignment, min_size, what);
  }

  Result<BufferPtr> Decompress(int64_t offset, int64_t size) {
    if (size < kCompressedPrefixSize) {
      return Status::Corruption("IPC: compressed buffer {} of {} bytes lacks its length prefix",
                                buffer_index_ - 1, size);
    }
    const uint8_t* p = body_->data() + offset;
    int64_t uncompressed;
    std::memcpy(&uncompressed, p, 8);
    if (uncompressed == kStoredUncompressed) {
      return SliceBuffer(body_, offset + kCompressedPrefixSize, size - kCompressedPrefixSize);
    }
    // Neither codec can expand beyond a fixed ratio (LZ4: under 256 per byte; zstd: a 3-byte
    // block header per 128 KiB RLE block), so larger claims are lies; checking them before
    // allocating keeps a few damaged bytes from requesting gigabytes.
    const int64_t compressed = size - kCompressedPrefixSize;
    const int64_t max_ratio = codec_ == Compression::kLz4Frame ? 256 : 65536;
    const int64_t plausible = compressed > (int64_t{1} << 40) / max_ratio
                                  ? std::numeric_limits<int64_t>::max()
                                  : compressed * max_ratio + 65536;
    if (uncompressed < 0 || uncompressed > options_.max_decompressed_buffer_size ||
        uncompressed > plausible) {
      return Status::Corruption(
          "IPC: compressed buffer {} of {} bytes declares {} uncompressed bytes", buffer_index_ - 1,
          compressed, uncompressed);
    }
    LANCE_ASSIGN_OR_RAISE(auto out, AllocateBuffer(uncompressed));
    LANCE_RETURN_NOT_OK(DecompressBytes(codec_, p + kCompressedPrefixSize,
                                        size - kCompressedPrefixSize, out->mutable_data(),
                                        uncompressed)
                            .WithContext(fmt::format("IPC buffer {}", buffer_index_ - 1)));
    return out;
  }

  static BufferPtr EmptyBuffer() {
    static const uint64_t kEmpty[8] = {};
    return std::make_shared<Buffer>(reinterpret_cast<const uint8_t*>(kEmpty), 0);
  }

  Result<BufferPtr> NextValidity(int64_t length, int64_t null_count) {
    LANCE_ASSIGN_OR_RAISE(auto buf, NextBuffer(1, 0, "validity"));
    if (null_count == 0 || (null_count == kUnknownNullCount && buf->size() == 0)) {
      return BufferPtr{};
    }
    if (buf->size() < bit_util::BytesForBits(length)) {
      return Status::Corruption("IPC: validity bitmap of {} bytes for {} elements with {} nulls",
                                buf->size(), length, null_count);
    }
    return buf;
  }

  Result<BufferPtr> NextOffsets(const DataType& t, int64_t length) {
    const int64_t width = t.has_large_offsets() ? 8 : 4;
    LANCE_ASSIGN_OR_RAISE(auto buf, NextBuffer(width, 0, "offsets"));
    if (length == 0 && buf->size() < width) {
      // An empty array may omit its single offset.
      return AllocateBuffer(width, true);
    }
    if (buf->size() < (length + 1) * width) {
      return Status::Corruption("IPC: offsets buffer of {} bytes for {} elements of {}",
                                buf->size(), length, t.ToString());
    }
    return buf;
  }

  // Offsets must start at or after 0, never decrease and stay within `limit`.
  static Status CheckOffsets(const DataType& t, const Buffer& offsets, int64_t length,
                             int64_t limit, const char* what) {
    auto check = [&](const auto* o) -> Status {
      int64_t prev = o[0];
      if (prev < 0) return Status::Corruption("IPC: {} offsets start at {}", t.ToString(), prev);
      for (int64_t i = 1; i <= length; ++i) {
        const int64_t cur = o[i];
        if (cur < prev) {
          return Status::Corruption("IPC: {} offsets decrease at element {} ({} after {})",
                                    t.ToString(), i, cur, prev);
        }
        prev = cur;
      }
      if (prev > limit) {
        return Status::Corruption("IPC: {} offsets reach {}, but there are only {} {}",
                                  t.ToString(), prev, limit, what);
      }
      return Status::OK();
    };
    if (t.has_large_offsets()) return check(offsets.data_as<int64_t>());
    return check(offsets.data_as<int32_t>());
  }

  const fb::RecordBatch* batch_;
  std::vector<fb::FieldNode> nodes_;
  std::vector<fb::Buffer> buffers_;
  BufferPtr body_;
  const IpcReadOptions& options_;
  const std::vector<int64_t>* field_dictionary_ids_;
  const DictionaryMemo* dictionaries_;
  Compression codec_ = Compression::kNone;
  int64_t node_index_ = 0;
  int64_t buffer_index_ = 0;
  size_t next_dictionary_ = 0;
};

}  // namespace

// Reader state shared by the stream and file readers: the schema and the dictionaries.
class IpcDecoder {
 public:
  explicit IpcDecoder(IpcReadOptions options) : options_(options) {}

  Status SetSchema(const fb::Schema* schema) {
    LANCE_ASSIGN_OR_RAISE(info_, DeserializeSchema(schema));
    return Status::OK();
  }
  const SchemaPtr& schema() const { return info_.schema; }

  Result<RecordBatchPtr> LoadRecordBatch(const ParsedMessage& m) {
    const fb::RecordBatch* rb = m.message->header_as_RecordBatch();
    if (rb == nullptr) return Status::Corruption("IPC: record batch message without its header");
    const int64_t num_rows = rb->length();
    if (num_rows < 0) return Status::Corruption("IPC: record batch of {} rows", num_rows);
    ArrayLoader loader(rb, m.body, options_, &info_.field_dictionary_ids, &dictionaries_);
    LANCE_RETURN_NOT_OK(loader.Init());
    std::vector<ArrayPtr> columns;
    columns.reserve(static_cast<size_t>(info_.schema->num_fields()));
    for (const auto& f : info_.schema->fields()) {
      LANCE_ASSIGN_OR_RAISE(auto col, loader.Load(f->type()));
      if (col->length != num_rows) {
        return Status::Corruption("IPC: column '{}' has {} rows, the batch {}", f->name(),
                                  col->length, num_rows);
      }
      columns.push_back(std::move(col));
    }
    auto batch = std::make_shared<const RecordBatch>(info_.schema, num_rows, std::move(columns));
    if (options_.validate_full) {
      LANCE_RETURN_NOT_OK(AsCorruption(batch->ValidateFull(), "record batch"));
    }
    return batch;
  }

  // Applies a dictionary batch. `allow_replacement` is false for files.
  Status ApplyDictionaryBatch(const ParsedMessage& m, bool allow_replacement) {
    const fb::DictionaryBatch* db = m.message->header_as_DictionaryBatch();
    if (db == nullptr || db->data() == nullptr) {
      return Status::Corruption("IPC: dictionary batch message without its header");
    }
    const int64_t id = db->id();
    auto type_it = info_.dictionary_types.find(id);
    if (type_it == info_.dictionary_types.end()) {
      return Status::Corruption("IPC: dictionary batch for id {}, which no field uses", id);
    }
    const DataTypePtr& value_type = type_it->second->dictionary_value_type();
    ArrayLoader loader(db->data(), m.body, options_, nullptr, nullptr);
    LANCE_RETURN_NOT_OK(loader.Init());
    LANCE_ASSIGN_OR_RAISE(auto values, loader.Load(value_type));
    if (values->length != db->data()->length()) {
      return Status::Corruption("IPC: dictionary {} has {} values, its batch says {}", id,
                                values->length, db->data()->length());
    }
    if (options_.validate_full) {
      LANCE_RETURN_NOT_OK(AsCorruption(values->ValidateFull(), "dictionary"));
    }
    ++num_dictionary_batches_;
    auto it = dictionaries_.find(id);
    if (db->is_delta()) {
      if (it == dictionaries_.end()) {
        return Status::Corruption("IPC: delta for dictionary {} before its first batch", id);
      }
      LANCE_ASSIGN_OR_RAISE(auto combined, Concatenate({it->second, values}));
      it->second = std::move(combined);
      ++num_dictionary_deltas_;
      return Status::OK();
    }
    if (it != dictionaries_.end()) {
      if (!allow_replacement) {
        return Status::NotSupported("IPC file: dictionary {} is replaced, which files cannot do",
                                    id);
      }
      it->second = std::move(values);
      ++num_dictionary_replacements_;
      return Status::OK();
    }
    dictionaries_.emplace(id, std::move(values));
    return Status::OK();
  }

  int64_t num_dictionary_batches() const { return num_dictionary_batches_; }
  int64_t num_dictionary_deltas() const { return num_dictionary_deltas_; }
  int64_t num_dictionary_replacements() const { return num_dictionary_replacements_; }

 private:
  IpcReadOptions options_;
  SchemaInfo info_;
  DictionaryMemo dictionaries_;
  int64_t num_dictionary_batches_ = 0;
  int64_t num_dictionary_deltas_ = 0;
  int64_t num_dictionary_replacements_ = 0;
};

}  // namespace internal

using internal::IpcDecoder;
using internal::ParsedMessage;
namespace fb = internal::fb;

// ---- Stream ----

class StreamDecoder {
 public:
  StreamDecoder(BufferPtr data, IpcReadOptions options)
      : data_(std::move(data)), decoder_(options) {}
  StreamDecoder(ReadFn read, IpcReadOptions options) : read_(std::move(read)), decoder_(options) {}

  Status Open() {
    LANCE_ASSIGN_OR_RAISE(std::optional<ParsedMessage> m, NextMessage());
    if (!m || m->message == nullptr) return Status::Corruption("IPC stream: ends before its schema");
    if (m->message->header_type() != fb::MessageHeader::Schema) {
      return Status::Corruption("IPC stream: first message is a {}, expected a Schema",
                                fb::EnumNameMessageHeader(m->message->header_type()));
    }
    return decoder_.SetSchema(m->message->header_as_Schema());
  }

  Result<RecordBatchPtr> Next() {
    while (!done_) {
      LANCE_ASSIGN_OR_RAISE(std::optional<ParsedMessage> m, NextMessage());
      if (!m || m->message == nullptr) {
        // No message: the end marker, or a stream cut right after a message (accepted as ended).
        done_ = true;
        break;
      }
      switch (m->message->header_type()) {
        case fb::MessageHeader::RecordBatch:
          return decoder_.LoadRecordBatch(*m);
        case fb::MessageHeader::DictionaryBatch:
          LANCE_RETURN_NOT_OK(decoder_.ApplyDictionaryBatch(*m, true));
          break;
        case fb::MessageHeader::Schema:
          return Status::Corruption("IPC stream: a second Schema message at offset {}",
                                    offset_ - m->metadata_length);
        default:
          return Status::NotSupported("IPC stream: {} messages are not supported",
                                      fb::EnumNameMessageHeader(m->message->header_type()));
      }
    }
    return RecordBatchPtr{};
  }

  const SchemaPtr& schema() const { return decoder_.schema(); }
  const IpcDecoder& decoder() const { return decoder_; }

 private:
  // The message at offset_ (advancing past it), or nullopt when the input ends exactly there.
  Result<std::optional<ParsedMessage>> NextMessage() {
    if (read_) return PullMessage();
    if (offset_ == data_->size()) return std::optional<ParsedMessage>();
    LANCE_ASSIGN_OR_RAISE(ParsedMessage m, internal::ReadMessage(data_, offset_, data_->size()));
    offset_ = m.next_offset;
    return std::optional<ParsedMessage>(std::move(m));
  }

  // Reads up to `n` bytes to `out` from the source; fewer only at its end.
  Result<int64_t> ReadSome(uint8_t* out, int64_t n) {
    int64_t got = 0;
    while (got < n) {
      LANCE_ASSIGN_OR_RAISE(int64_t k, read_(out + got, n - got));
      if (k < 0 || k > n - got) {
        return Status::IOError("IPC stream: the source returned {} bytes for a read of {}", k, n - got);
      }
      if (k == 0) break;
      got += k;
    }
    return got;
  }

  // One framed message read from the source into a buffer of its own (framing, metadata and
  // body), then parsed as ReadMessage parses a whole input: only one message is held at once.
  Result<std::optional<ParsedMessage>> PullMessage() {
    uint8_t head[8];
    LANCE_ASSIGN_OR_RAISE(int64_t got, ReadSome(head, 4));
    if (got == 0) return std::optional<ParsedMessage>();
    if (got < 4) {
      return Status::Corruption("IPC: truncated message header at offset {} (input ends at {})",
                                offset_, offset_ + got);
    }
    uint32_t word;
    std::memcpy(&word, head, 4);
    int64_t prefix = 4;
    int32_t length;
    if (word == internal::kContinuationMarker) {
      LANCE_ASSIGN_OR_RAISE(got, ReadSome(head + 4, 4));
      if (got < 4) return Status::Corruption("IPC: truncated message length at offset {}", offset_);
      std::memcpy(&length, head + 4, 4);
      prefix = 8;
    } else {
      std::memcpy(&length, &word, 4);
    }
    if (length < 0) {
      return Status::Corruption("IPC: message at offset {} declares {} metadata bytes", offset_, length);
    }
    // The metadata first (to learn the body's length), then framing, metadata and body together.
    LANCE_ASSIGN_OR_RAISE(BufferPtr meta, AllocateBuffer(std::max<int64_t>(length, 0)));
    uint8_t* meta_bytes = std::const_pointer_cast<Buffer>(meta)->mutable_data();
    LANCE_ASSIGN_OR_RAISE(got, ReadSome(meta_bytes, length));
    if (got < length) {
      return Status::Corruption("IPC: message at offset {} declares {} metadata bytes, only {} remain",
                                offset_, length, got);
    }
    int64_t body_length = 0;
    if (length > 0) {
      std::unique_ptr<uint64_t[]> storage;
      LANCE_ASSIGN_OR_RAISE(const fb::Message* msg, internal::VerifyFlatbuffer<fb::Message>(
                                                        meta_bytes, length, &storage, "message"));
      body_length = msg->body_length();
      if (body_length < 0) {
        return Status::Corruption("IPC: message at offset {} declares a {}-byte body", offset_,
                                  body_length);
      }
    }
    // A body the metadata declares is only believed as its bytes arrive: beyond 16 MiB it is
    // read in parts first, so a lying length costs what the input holds, not what it claims.
    constexpr int64_t kPart = int64_t{16} << 20;
    std::vector<BufferPtr> parts;
    int64_t have = 0;
    if (body_length > kPart) {
      while (have < body_length) {
        LANCE_ASSIGN_OR_RAISE(BufferPtr part, AllocateBuffer(std::min(kPart, body_length - have)));
        LANCE_ASSIGN_OR_RAISE(got, ReadSome(std::const_pointer_cast<Buffer>(part)->mutable_data(), part->size()));
        have += got;
        parts.push_back(std::move(part));
        if (got < parts.back()->size()) break;
      }
      if (have < body_length) {
        return Status::Corruption("IPC: message at offset {} declares a {}-byte body, only {} bytes remain",
                                  offset_, body_length, have);
      }
    }
    const int64_t total = prefix + length + body_length;
    LANCE_ASSIGN_OR_RAISE(BufferPtr framed, AllocateBuffer(total));
    uint8_t* bytes = std::const_pointer_cast<Buffer>(framed)->mutable_data();
    std::memcpy(bytes, head, static_cast<size_t>(prefix));
    if (length > 0) std::memcpy(bytes + prefix, meta_bytes, static_cast<size_t>(length));
    if (parts.empty()) {
      LANCE_ASSIGN_OR_RAISE(got, ReadSome(bytes + prefix + length, body_length));
      if (got < body_length) {
        return Status::Corruption("IPC: message at offset {} declares a {}-byte body, only {} bytes remain",
                                  offset_, body_length, got);
      }
    } else {
      int64_t at = prefix + length;
      for (const BufferPtr& part : parts) {
        std::memcpy(bytes + at, part->data(), static_cast<size_t>(part->size()));
        at += part->size();
      }
    }
    LANCE_ASSIGN_OR_RAISE(ParsedMessage m, internal::ReadMessage(framed, 0, total));
    current_ = std::move(framed);
    m.next_offset += offset_;
    offset_ = m.next_offset;
    return std::optional<ParsedMessage>(std::move(m));
  }

  BufferPtr data_;
  ReadFn read_;
  BufferPtr current_;  // pull mode: the bytes of the last message (its metadata points into them)
  IpcDecoder decoder_;
  int64_t offset_ = 0;
  bool done_ = false;
};

StreamReader::StreamReader(std::unique_ptr<StreamDecoder> decoder) : decoder_(std::move(decoder)) {}
StreamReader::~StreamReader() = default;

Result<std::unique_ptr<StreamReader>> StreamReader::Open(BufferPtr data, IpcReadOptions options) {
  if (data == nullptr) return Status::InvalidArgument("IPC stream: null input buffer");
  auto decoder = std::make_unique<StreamDecoder>(std::move(data), options);
  LANCE_RETURN_NOT_OK(decoder->Open());
  return std::unique_ptr<StreamReader>(new StreamReader(std::move(decoder)));
}

Result<std::unique_ptr<StreamReader>> StreamReader::OpenFrom(ReadFn read, IpcReadOptions options) {
  if (!read) return Status::InvalidArgument("IPC stream: no read function");
  auto decoder = std::make_unique<StreamDecoder>(std::move(read), options);
  LANCE_RETURN_NOT_OK(decoder->Open());
  return std::unique_ptr<StreamReader>(new StreamReader(std::move(decoder)));
}

SchemaPtr StreamReader::schema() const { return decoder_->schema(); }
Result<RecordBatchPtr> StreamReader::Next() { return decoder_->Next(); }
int64_t StreamReader::num_dictionary_batches() const {
  return decoder_->decoder().num_dictionary_batches();
}
int64_t StreamReader::num_dictionary_deltas() const {
  return decoder_->decoder().num_dictionary_deltas();
}
int64_t StreamReader::num_dictionary_replacements() const {
  return decoder_->decoder().num_dictionary_replacements();
}

// ---- File ----

struct FileReader::State {
  BufferPtr data;
  IpcReadOptions options;
  std::unique_ptr<IpcDecoder> decoder;
  KeyValueMetadataPtr footer_metadata;
  std::vector<fb::Block> record_batches;
  int64_t footer_start = 0;

  Result<ParsedMessage> ReadBlock(const fb::Block& block, const char* what, int64_t index) {
    const int64_t offset = block.offset();
    const int64_t meta = block.meta_data_length();
    const int64_t body = block.body_length();
    if (offset < internal::kFileHeaderSize || meta <= 0 || body < 0 ||
        offset > footer_start || meta > footer_start - offset ||
        body > footer_start - offset - meta) {
      return Status::Corruption("IPC file: {} block {} [{}, +{}, +{}] lies outside the data",
                                what, index, offset, meta, body);
    }
    LANCE_ASSIGN_OR_RAISE(ParsedMessage m,
                          internal::ReadMessage(data, offset, offset + meta + body));
    if (m.message == nullptr || m.message->body_length() != body) {
      return Status::Corruption("IPC file: {} block {} does not hold the message it describes",
                                what, index);
    }
    return m;
  }
};

FileReader::FileReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
FileReader::~FileReader() = default;

IpcFormat DetectFormat(const Buffer& data) {
  return data.size() >= 6 && std::memcmp(data.data(), internal::kFileMagic.data(), 6) == 0
             ? IpcFormat::kFile
             : IpcFormat::kStream;
}

Result<std::unique_ptr<FileReader>> FileReader::Open(BufferPtr data, IpcReadOptions options) {
  if (data == nullptr) return Status::InvalidArgument("IPC file: null input buffer");
  const int64_t size = data->size();
  const uint8_t* p = data->data();
  if (size < internal::kFileHeaderSize + internal::kFileTrailerSize) {
    return Status::Corruption("IPC file: {} bytes is too short for an Arrow file", size);
  }
  if (std::memcmp(p, internal::kFileMagic.data(), 6) != 0 ||
      std::memcmp(p + size - 6, internal::kFileMagic.data(), 6) != 0) {
    return Status::Corruption("IPC file: missing the ARROW1 magic at the start or end");
  }
  int32_t footer_length;
  std::memcpy(&footer_length, p + size - internal::kFileTrailerSize, 4);
  const int64_t max_footer = size - internal::kFileHeaderSize - internal::kFileTrailerSize;
  if (footer_length <= 0 || footer_length > max_footer) {
    return Status::Corruption("IPC file: footer length {} (at most {} possible)", footer_length,
                              max_footer);
  }
  auto state = std::make_unique<State>();
  state->data = data;
  state->options = options;
  state->footer_start = size - internal::kFileTrailerSize - footer_length;
  std::unique_ptr<uint64_t[]> storage;
  LANCE_ASSIGN_OR_RAISE(const fb::Footer* footer,
                        internal::VerifyFlatbuffer<fb::Footer>(p + state->footer_start,
                                                               footer_length, &storage, "footer"));
  if (footer->version() < fb::MetadataVersion::V4 || footer->version() > fb::MetadataVersion::V5) {
    return Status::NotSupported("IPC file: footer metadata version {}",
                                static_cast<int>(footer->version()) + 1);
  }
  state->decoder = std::make_unique<IpcDecoder>(options);
  LANCE_RETURN_NOT_OK(state->decoder->SetSchema(footer->schema()));
  state->footer_metadata = internal::DeserializeMetadata(footer->custom_metadata());
  // The Block structs are copied out byte-wise: older writers (the arrow-rs of lance 0.21's
  // deletion files) left the block vectors 4- but not 8-aligned, which arrow readers accept.
  auto copy_blocks = [](const flatbuffers::Vector<const fb::Block*>* v) {
    std::vector<fb::Block> out;
    if (v == nullptr) return out;
    out.resize(v->size());
    if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(fb::Block));
    return out;
  };
  state->record_batches = copy_blocks(footer->record_batches());
  const std::vector<fb::Block> dictionary_blocks = copy_blocks(footer->dictionaries());
  if (state->record_batches.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Status::Corruption("IPC file: {} record batches", state->record_batches.size());
  }
  {
    int64_t index = 0;
    for (const fb::Block& block : dictionary_blocks) {
      LANCE_ASSIGN_OR_RAISE(ParsedMessage m, state->ReadBlock(block, "dictionary", index++));
      if (m.message->header_type() != fb::MessageHeader::DictionaryBatch) {
        return Status::Corruption("IPC file: dictionary block {} holds a {} message", index - 1,
                                  fb::EnumNameMessageHeader(m.message->header_type()));
      }
      LANCE_RETURN_NOT_OK(state->decoder->ApplyDictionaryBatch(m, false));
    }
  }
  return std::unique_ptr<FileReader>(new FileReader(std::move(state)));
}

const SchemaPtr& FileReader::schema() const { return state_->decoder->schema(); }
int FileReader::num_record_batches() const {
  return static_cast<int>(state_->record_batches.size());
}
const KeyValueMetadataPtr& FileReader::footer_metadata() const { return state_->footer_metadata; }

Result<RecordBatchPtr> FileReader::ReadRecordBatch(int i) const {
  if (i < 0 || i >= num_record_batches()) {
    return Status::InvalidArgument("IPC file: record batch {} requested, the file has {}", i,
                                   num_record_batches());
  }
  LANCE_ASSIGN_OR_RAISE(ParsedMessage m,
                        state_->ReadBlock(state_->record_batches[static_cast<size_t>(i)],
                                          "record batch", i));
  if (m.message->header_type() != fb::MessageHeader::RecordBatch) {
    return Status::Corruption("IPC file: record batch block {} holds a {} message", i,
                              fb::EnumNameMessageHeader(m.message->header_type()));
  }
  return state_->decoder->LoadRecordBatch(m);
}

Result<std::vector<RecordBatchPtr>> FileReader::ReadAll() const {
  std::vector<RecordBatchPtr> out;
  out.reserve(state_->record_batches.size());
  for (int i = 0; i < num_record_batches(); ++i) {
    LANCE_ASSIGN_OR_RAISE(auto batch, ReadRecordBatch(i));
    out.push_back(std::move(batch));
  }
  return out;
}

namespace {

// Presents a FileReader as a RecordBatchReader.
class FileBatchReader final : public RecordBatchReader {
 public:
  explicit FileBatchReader(std::unique_ptr<FileReader> file) : file_(std::move(file)) {}
  SchemaPtr schema() const override { return file_->schema(); }
  Result<RecordBatchPtr> Next() override {
    if (next_ >= file_->num_record_batches()) return RecordBatchPtr{};
    return file_->ReadRecordBatch(next_++);
  }

 private:
  std::unique_ptr<FileReader> file_;
  int next_ = 0;
};

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> OpenStream(BufferPtr data, IpcReadOptions options) {
  LANCE_ASSIGN_OR_RAISE(auto reader, StreamReader::Open(std::move(data), options));
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

Result<std::unique_ptr<RecordBatchReader>> OpenAny(BufferPtr data, IpcReadOptions options) {
  if (data == nullptr) return Status::InvalidArgument("IPC: null input buffer");
  if (DetectFormat(*data) == IpcFormat::kFile) {
    LANCE_ASSIGN_OR_RAISE(auto file, FileReader::Open(std::move(data), options));
    return std::unique_ptr<RecordBatchReader>(new FileBatchReader(std::move(file)));
  }
  return OpenStream(std::move(data), options);
}

}  // namespace lance::ipc
