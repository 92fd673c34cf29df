#include "lance/ipc/writer.h"

#include <cstring>
#include <string>
#include <utility>

#include <flatbuffers/flatbuffers.h>

#include "ipc/codec.h"
#include "ipc/metadata.h"
#include "ipc/wire.h"

namespace lance::ipc {

namespace {

using internal::fb::Block;
namespace fb = internal::fb;

constexpr uint8_t kZeros[64] = {};

// One body buffer to write: either a view of caller memory (kept alive by `keep`) or bytes
// owned here (re-aligned bitmaps, rebased offsets, compressed data).
struct BodyPart {
  const uint8_t* view = nullptr;
  int64_t size = 0;
  BufferPtr keep;
  // Used instead of `view` when set; not pointed into, since moving a short string moves its
  // bytes.
  std::string owned;
  bool is_owned = false;

  const uint8_t* data() const {
    return is_owned ? reinterpret_cast<const uint8_t*>(owned.data()) : view;
  }
  static BodyPart Owned(std::string bytes) {
    BodyPart p;
    p.size = static_cast<int64_t>(bytes.size());
    p.owned = std::move(bytes);
    p.is_owned = true;
    return p;
  }
};

// Flattens arrays into field nodes and body buffers in the IPC depth-first order, normalising
// slices as it goes.
class BodyAssembler {
 public:
  std::vector<fb::FieldNode> nodes;
  std::vector<BodyPart> parts;
  // Dictionaries of the dictionary-encoded arrays met, in depth-first pre-order.
  std::vector<ArrayPtr> dictionaries;

  Status Visit(const Array& a) {
    nodes.emplace_back(a.length, a.null_count);
    const DataType& type = *a.type;
    switch (type.id()) {
      case TypeId::kNull:
        return Status::OK();
      case TypeId::kBool:
        AddValidity(a);
        return AddBitmap(a.buffers.size() > 1 ? a.buffers[1] : nullptr, a.offset, a.length);
      case TypeId::kString:
      case TypeId::kLargeString:
      case TypeId::kBinary:
      case TypeId::kLargeBinary: {
        AddValidity(a);
        LANCE_ASSIGN_OR_RAISE(auto range, AddOffsets(a));
        AddView(a.buffers[2], range.first, range.second - range.first);
        return Status::OK();
      }
      case TypeId::kList:
      case TypeId::kLargeList:
      case TypeId::kMap: {
        AddValidity(a);
        LANCE_ASSIGN_OR_RAISE(auto range, AddOffsets(a));
        return VisitChild(a.children[0], range.first, range.second - range.first);
      }
      case TypeId::kFixedSizeList: {
        AddValidity(a);
        const int64_t n = type.list_size();
        return VisitChild(a.children[0], a.offset * n, a.length * n);
      }
      case TypeId::kStruct:
        AddValidity(a);
        for (const auto& child : a.children) {
          LANCE_RETURN_NOT_OK(VisitChild(child, a.offset, a.length));
        }
        return Status::OK();
      case TypeId::kDictionary: {
        if (!a.dictionary) {
          return Status::InvalidArgument("IPC write: dictionary array of type {} has no dictionary",
                                         type.ToString());
        }
        AddValidity(a);
        const int64_t w = type.index_type()->bit_width() / 8;
        AddView(a.buffers[1], a.offset * w, a.length * w);
        dictionaries.push_back(a.dictionary);
        return Status::OK();
      }
      default:
        break;
    }
    if (!type.is_fixed_width()) {
      return Status::InvalidArgument("IPC write: type {} is not supported", type.ToString());
    }
    AddValidity(a);
    const int64_t w = type.bit_width() / 8;
    AddView(a.buffers[1], a.offset * w, a.length * w);
    return Status::OK();
  }

 private:
  void AddView(const BufferPtr& buf, int64_t offset, int64_t size) {
    BodyPart p;
    if (size > 0) {
      p.view = buf->data() + offset;
      p.size = size;
      p.keep = buf;
    }
    parts.push_back(std::move(p));
  }

  void AddValidity(const Array& a) {
    if (a.null_count == 0 || a.validity() == nullptr) {
      parts.emplace_back();  // absent bitmap: all valid
      return;
    }
    (void)AddBitmap(a.buffers[0], a.offset, a.length);
  }

  // Bits [offset, offset + length) of `buf`, moved to start at bit 0 when needed.
  Status AddBitmap(const BufferPtr& buf, int64_t offset, int64_t length) {
    const int64_t bytes = bit_util::BytesForBits(length);
    if (length == 0 || buf == nullptr) {
      parts.emplace_back();
      return Status::OK();
    }
    if (offset % 8 == 0) {
      AddView(buf, offset / 8, bytes);
      return Status::OK();
    }
    std::string bits(static_cast<size_t>(bytes), '\0');
    bit_util::CopyBitmap(buf->data(), offset, length, reinterpret_cast<uint8_t*>(bits.data()), 0);
    parts.push_back(BodyPart::Owned(std::move(bits)));
    return Status::OK();
  }

  // Writes the offsets of elements [a.offset, a.offset + a.length], rebased to start at 0,
  // and returns the referenced range [first, last) of the data buffer or child.
  Result<std::pair<int64_t, int64_t>> AddOffsets(const Array& a) {
    const bool large = a.type->has_large_offsets();
    const int64_t width = large ? 8 : 4;
    if (a.length == 0) {
      parts.push_back(BodyPart::Owned(std::string(static_cast<size_t>(width), '\0')));
      return std::make_pair(int64_t{0}, int64_t{0});
    }
    const int64_t first = a.ValueOffset(0);
    const int64_t last = a.ValueOffset(a.length);
    if (first == 0) {
      AddView(a.buffers[1], a.offset * width, (a.length + 1) * width);
      return std::make_pair(first, last);
    }
    std::string rebased(static_cast<size_t>((a.length + 1) * width), '\0');
    if (large) {
      const int64_t* src = a.buffers[1]->data_as<int64_t>() + a.offset;
      for (int64_t i = 0; i <= a.length; ++i) {
        const int64_t v = src[i] - first;
        std::memcpy(rebased.data() + i * 8, &v, 8);
      }
    } else {
      const int32_t* src = a.buffers[1]->data_as<int32_t>() + a.offset;
      const auto base = static_cast<int32_t>(first);
      for (int64_t i = 0; i <= a.length; ++i) {
        const int32_t v = src[i] - base;
        std::memcpy(rebased.data() + i * 4, &v, 4);
      }
    }
    parts.push_back(BodyPart::Owned(std::move(rebased)));
    return std::make_pair(first, last);
  }

  // Visits child elements [offset, offset + length), slicing when the child holds more.
  Status VisitChild(const ArrayPtr& child, int64_t offset, int64_t length) {
    if (offset == 0 && child->length == length) return Visit(*child);
    return Visit(*child->Slice(offset, length));
  }
};

}  // namespace

// Shared implementation of both writers: message framing, dictionaries, footer.
class IpcPayloadWriter {
 public:
  IpcPayloadWriter(OutputSink* sink, SchemaPtr schema, IpcWriteOptions options, bool file_format,
                   KeyValueMetadataPtr footer_metadata)
      : sink_(sink), schema_(std::move(schema)), options_(options), file_format_(file_format),
        footer_metadata_(std::move(footer_metadata)) {}

  Status Start() {
    if (options_.alignment != 8 && options_.alignment != 64) {
      return Status::InvalidArgument("IPC write: alignment must be 8 or 64, got {}",
                                     options_.alignment);
    }
    if (file_format_) {
      LANCE_RETURN_NOT_OK(Write(internal::kFileMagic.data(), 6));
      LANCE_RETURN_NOT_OK(Write(kZeros, 2));
    }
    flatbuffers::FlatBufferBuilder b;
    LANCE_ASSIGN_OR_RAISE(auto schema, internal::SerializeSchema(b, *schema_));
    auto message = fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                                     schema.Union(), 0);
    b.Finish(message);
    std::vector<BodyPart> none;
    return WriteMessage(b, none, 0, nullptr);
  }

  Status WriteBatch(const RecordBatch& batch) {
    if (closed_) return Status::InvalidArgument("IPC write: writer already closed");
    if (batch.num_columns() != schema_->num_fields()) {
      return Status::InvalidArgument("IPC write: batch has {} columns, schema has {} fields",
                                     batch.num_columns(), schema_->num_fields());
    }
    BodyAssembler body;
    for (int i = 0; i < batch.num_columns(); ++i) {
      const auto& col = batch.column(i);
      const auto& f = schema_->field(i);
      if (!col || !col->type->Equals(*f->type())) {
        return Status::InvalidArgument("IPC write: column '{}' has type {}, schema says {}",
                                       f->name(), col ? col->type->ToString() : "null",
                                       f->type()->ToString());
      }
      if (col->length != batch.num_rows()) {
        return Status::InvalidArgument("IPC write: column '{}' has {} rows, batch has {}",
                                       f->name(), col->length, batch.num_rows());
      }
      LANCE_RETURN_NOT_OK(body.Visit(*col));
    }
    LANCE_RETURN_NOT_OK(WriteDictionaries(body.dictionaries));
    return WriteRecordBatchMessage(batch.num_rows(), std::move(body), false, 0, false);
  }

  Status Close() {
    if (closed_) return Status::InvalidArgument("IPC write: writer already closed");
    closed_ = true;
    const uint32_t eos[2] = {internal::kContinuationMarker, 0};
    LANCE_RETURN_NOT_OK(Write(eos, sizeof(eos)));
    if (!file_format_) return Status::OK();
    flatbuffers::FlatBufferBuilder b;
    LANCE_ASSIGN_OR_RAISE(auto schema, internal::SerializeSchema(b, *schema_));
    auto dicts = b.CreateVectorOfStructs(dictionary_blocks_);
    auto batches = b.CreateVectorOfStructs(record_blocks_);
    auto metadata = internal::SerializeMetadata(b, footer_metadata_);
    b.Finish(fb::CreateFooter(b, fb::MetadataVersion::V5, schema, dicts, batches, metadata));
    const auto footer_size = static_cast<int32_t>(b.GetSize());
    LANCE_RETURN_NOT_OK(Write(b.GetBufferPointer(), footer_size));
    LANCE_RETURN_NOT_OK(Write(&footer_size, 4));
    return Write(internal::kFileMagic.data(), 6);
  }

 private:
  Status Write(const void* data, int64_t size) {
    LANCE_RETURN_NOT_OK(sink_->Write(data, size));
    position_ += size;
    return Status::OK();
  }

  Status WriteDictionaries(const std::vector<ArrayPtr>& dictionaries) {
    if (last_dictionaries_.size() < dictionaries.size()) {
      last_dictionaries_.resize(dictionaries.size());
    }
    for (size_t id = 0; id < dictionaries.size(); ++id) {
      const ArrayPtr& dict = dictionaries[id];
      ArrayPtr& last = last_dictionaries_[id];
      ArrayPtr to_send = dict;
      bool delta = false;
      if (last) {
        if (last == dict || last->Equals(*dict)) continue;
        if (options_.emit_dictionary_deltas && dict->length > last->length &&
            dict->Slice(0, last->length)->Equals(*last)) {
          delta = true;
          to_send = dict->Slice(last->length, dict->length - last->length);
        } else if (file_format_) {
          return Status::InvalidArgument(
              "IPC file write: dictionary {} changed between batches; the file format cannot "
              "replace dictionaries (only extend them with deltas)",
              id);
        }
      }
      BodyAssembler body;
      LANCE_RETURN_NOT_OK(body.Visit(*to_send));
      if (!body.dictionaries.empty()) {
        return Status::InvalidArgument("IPC write: dictionary {} values are dictionary encoded",
                                       id);
      }
      LANCE_RETURN_NOT_OK(WriteRecordBatchMessage(to_send->length, std::move(body), true,
                                                  static_cast<int64_t>(id), delta));
      last = dict;
    }
    return Status::OK();
  }

  // Compresses the parts in place when a codec is set; empty parts stay empty.
  Status CompressParts(std::vector<BodyPart>* parts) {
    const Compression codec = options_.compression;
    for (BodyPart& p : *parts) {
      if (p.size == 0) continue;
      std::string out;
      out.resize(internal::kCompressedPrefixSize);
      LANCE_RETURN_NOT_OK(
          internal::CompressBytes(codec, options_.compression_level, p.data(), p.size, &out));
      int64_t prefix = p.size;
      if (static_cast<int64_t>(out.size()) >= p.size + internal::kCompressedPrefixSize) {
        // Not worth it: store the bytes as they are.
        prefix = internal::kStoredUncompressed;
        out.resize(internal::kCompressedPrefixSize);
        out.append(reinterpret_cast<const char*>(p.data()), static_cast<size_t>(p.size));
      }
      std::memcpy(out.data(), &prefix, 8);
      p = BodyPart::Owned(std::move(out));
    }
    return Status::OK();
  }

  Status WriteRecordBatchMessage(int64_t length, BodyAssembler body, bool is_dictionary,
                                 int64_t dictionary_id, bool is_delta) {
    const bool compressed = options_.compression != Compression::kNone;
    if (compressed) LANCE_RETURN_NOT_OK(CompressParts(&body.parts));
    std::vector<fb::Buffer> buffers;
    buffers.reserve(body.parts.size());
    int64_t body_length = 0;
    for (const BodyPart& p : body.parts) {
      buffers.emplace_back(body_length, p.size);
      body_length += bit_util::RoundUp(p.size, options_.alignment);
    }
    flatbuffers::FlatBufferBuilder b(1024 + 48 * (body.nodes.size() + buffers.size()));
    auto nodes = b.CreateVectorOfStructs(body.nodes);
    auto bufs = b.CreateVectorOfStructs(buffers);
    flatbuffers::Offset<fb::BodyCompression> compression;
    if (compressed) {
      compression = fb::CreateBodyCompression(b, options_.compression == Compression::kZstd
                                                     ? fb::CompressionType::ZSTD
                                                     : fb::CompressionType::LZ4_FRAME);
    }
    auto record_batch = fb::CreateRecordBatch(b, length, nodes, bufs, compression);
    flatbuffers::Offset<fb::Message> message;
    if (is_dictionary) {
      auto dict = fb::CreateDictionaryBatch(b, dictionary_id, record_batch, is_delta);
      message = fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::DictionaryBatch,
                                  dict.Union(), body_length);
    } else {
      message = fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch,
                                  record_batch.Union(), body_length);
    }
    b.Finish(message);
    Block block;
    LANCE_RETURN_NOT_OK(WriteMessage(b, body.parts, body_length, &block));
    if (file_format_) {
      (is_dictionary ? dictionary_blocks_ : record_blocks_).push_back(block);
    }
    return Status::OK();
  }

  Status WriteMessage(const flatbuffers::FlatBufferBuilder& b, const std::vector<BodyPart>& parts,
                      int64_t body_length, Block* block) {
    const int64_t start = position_;
    const auto meta_size = static_cast<int64_t>(b.GetSize());
    // Pad the metadata so that the body starts at an aligned absolute position.
    const int64_t padded = bit_util::RoundUp(start + 8 + meta_size, options_.alignment) - start - 8;
    const uint32_t prefix[2] = {internal::kContinuationMarker, static_cast<uint32_t>(padded)};
    LANCE_RETURN_NOT_OK(Write(prefix, 8));
    LANCE_RETURN_NOT_OK(Write(b.GetBufferPointer(), meta_size));
    LANCE_RETURN_NOT_OK(Write(kZeros, padded - meta_size));
    for (const BodyPart& p : parts) {
      LANCE_RETURN_NOT_OK(Write(p.data(), p.size));
      const int64_t pad = bit_util::RoundUp(p.size, options_.alignment) - p.size;
      LANCE_RETURN_NOT_OK(Write(kZeros, pad));
    }
    if (block != nullptr) {
      *block = Block(start, static_cast<int32_t>(8 + padded), body_length);
    }
    return Status::OK();
  }

  OutputSink* sink_;
  SchemaPtr schema_;
  IpcWriteOptions options_;
  bool file_format_;
  KeyValueMetadataPtr footer_metadata_;
  int64_t position_ = 0;
  bool closed_ = false;
  std::vector<ArrayPtr> last_dictionaries_;
  std::vector<Block> dictionary_blocks_;
  std::vector<Block> record_blocks_;
};

StreamWriter::StreamWriter(std::unique_ptr<IpcPayloadWriter> impl) : impl_(std::move(impl)) {}
StreamWriter::~StreamWriter() = default;

Result<std::unique_ptr<StreamWriter>> StreamWriter::Open(OutputSink* sink, SchemaPtr schema,
                                                         IpcWriteOptions options) {
  auto impl = std::make_unique<IpcPayloadWriter>(sink, std::move(schema), options, false, nullptr);
  LANCE_RETURN_NOT_OK(impl->Start());
  return std::unique_ptr<StreamWriter>(new StreamWriter(std::move(impl)));
}

Status StreamWriter::WriteBatch(const RecordBatch& batch) { return impl_->WriteBatch(batch); }
Status StreamWriter::Close() { return impl_->Close(); }

FileWriter::FileWriter(std::unique_ptr<IpcPayloadWriter> impl) : impl_(std::move(impl)) {}
FileWriter::~FileWriter() = default;

Result<std::unique_ptr<FileWriter>> FileWriter::Open(OutputSink* sink, SchemaPtr schema,
                                                     IpcWriteOptions options,
                                                     KeyValueMetadataPtr footer_metadata) {
  auto impl = std::make_unique<IpcPayloadWriter>(sink, std::move(schema), options, true,
                                                 std::move(footer_metadata));
  LANCE_RETURN_NOT_OK(impl->Start());
  return std::unique_ptr<FileWriter>(new FileWriter(std::move(impl)));
}

Status FileWriter::WriteBatch(const RecordBatch& batch) { return impl_->WriteBatch(batch); }
Status FileWriter::Close() { return impl_->Close(); }

namespace {
// An upper bound of the body bytes of `array` (sliced arrays count their whole buffers).
int64_t BufferBytes(const Array& array) {
  int64_t n = 0;
  for (const auto& b : array.buffers) n += b ? b->size() + 8 : 0;
  for (const auto& c : array.children) n += BufferBytes(*c);
  if (array.dictionary) n += BufferBytes(*array.dictionary);
  return n;
}

// Reserves the output of an uncompressed one-shot write once instead of growing it.
Status ReserveFor(BufferSink& sink, const std::vector<RecordBatchPtr>& batches,
                  const IpcWriteOptions& options) {
  if (options.compression != Compression::kNone) return Status::OK();
  int64_t n = 64 << 10;
  for (const auto& b : batches) {
    n += 4096;
    for (const auto& c : b->columns()) n += BufferBytes(*c);
  }
  return sink.Reserve(n);
}
}  // namespace

Result<BufferPtr> WriteStream(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                              const IpcWriteOptions& options) {
  BufferSink sink;
  LANCE_RETURN_NOT_OK(ReserveFor(sink, batches, options));
  LANCE_ASSIGN_OR_RAISE(auto writer, StreamWriter::Open(&sink, schema, options));
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(writer->WriteBatch(*b));
  LANCE_RETURN_NOT_OK(writer->Close());
  return sink.Finish();
}

Result<BufferPtr> WriteFile(const SchemaPtr& schema, const std::vector<RecordBatchPtr>& batches,
                            const IpcWriteOptions& options) {
  BufferSink sink;
  LANCE_RETURN_NOT_OK(ReserveFor(sink, batches, options));
  LANCE_ASSIGN_OR_RAISE(auto writer, FileWriter::Open(&sink, schema, options));
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(writer->WriteBatch(*b));
  LANCE_RETURN_NOT_OK(writer->Close());
  return sink.Finish();
}

}  // namespace lance::ipc
