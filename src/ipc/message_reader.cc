#include "ipc/message_reader.h"

#include <cstring>

#include "ipc/wire.h"

namespace lance::ipc::internal {

namespace {

// Generous bounds: Arrow metadata is small, but a wide schema can have many fields.
constexpr flatbuffers::uoffset_t kMaxVerifierDepth = 128;
constexpr flatbuffers::uoffset_t kMaxVerifierTables = 10'000'000;

const uint8_t* AlignedOrCopy(const uint8_t* data, int64_t size,
                             std::unique_ptr<uint64_t[]>* storage) {
  if (reinterpret_cast<uintptr_t>(data) % 8 == 0) return data;
  storage->reset(new uint64_t[static_cast<size_t>((size + 7) / 8)]);
  std::memcpy(storage->get(), data, static_cast<size_t>(size));
  return reinterpret_cast<const uint8_t*>(storage->get());
}

template <typename T>
bool VerifyRoot(flatbuffers::Verifier& v);
template <>
bool VerifyRoot<fb::Message>(flatbuffers::Verifier& v) {
  return fb::VerifyMessageBuffer(v);
}
template <>
bool VerifyRoot<fb::Footer>(flatbuffers::Verifier& v) {
  return fb::VerifyFooterBuffer(v);
}

}  // namespace

template <typename T>
Result<const T*> VerifyFlatbuffer(const uint8_t* data, int64_t size,
                                  std::unique_ptr<uint64_t[]>* storage, const char* kind) {
  if (size < 8 || size >= int64_t{FLATBUFFERS_MAX_BUFFER_SIZE}) {
    return Status::Corruption("IPC: {} flatbuffer of {} bytes", kind, size);
  }
  const uint8_t* aligned = AlignedOrCopy(data, size, storage);
  flatbuffers::Verifier verifier(aligned, static_cast<size_t>(size), kMaxVerifierDepth,
                                 kMaxVerifierTables);
  if (!VerifyRoot<T>(verifier)) {
    return Status::Corruption("IPC: {} flatbuffer ({} bytes) fails verification", kind, size);
  }
  return flatbuffers::GetRoot<T>(aligned);
}

template Result<const fb::Message*> VerifyFlatbuffer<fb::Message>(const uint8_t*, int64_t,
                                                                  std::unique_ptr<uint64_t[]>*,
                                                                  const char*);
template Result<const fb::Footer*> VerifyFlatbuffer<fb::Footer>(const uint8_t*, int64_t,
                                                                std::unique_ptr<uint64_t[]>*,
                                                                const char*);

Result<ParsedMessage> ReadMessage(const BufferPtr& data, int64_t offset, int64_t limit) {
  ParsedMessage out;
  const uint8_t* base = data->data();
  if (offset < 0 || limit > data->size() || offset > limit || limit - offset < 4) {
    return Status::Corruption("IPC: truncated message header at offset {} (input ends at {})",
                              offset, limit);
  }
  uint32_t word;
  std::memcpy(&word, base + offset, 4);
  int64_t prefix = 4;
  int32_t length;
  if (word == kContinuationMarker) {
    if (limit - offset < 8) {
      return Status::Corruption("IPC: truncated message length at offset {}", offset);
    }
    std::memcpy(&length, base + offset + 4, 4);
    prefix = 8;
  } else {
    // Pre-1.0 framing: the length alone.
    std::memcpy(&length, &word, 4);
  }
  if (length == 0) {
    out.next_offset = offset + prefix;
    out.metadata_length = prefix;
    return out;
  }
  if (length < 0 || length > limit - offset - prefix) {
    return Status::Corruption(
        "IPC: message at offset {} declares {} metadata bytes, only {} remain", offset, length,
        limit - offset - prefix);
  }
  const int64_t meta_start = offset + prefix;
  LANCE_ASSIGN_OR_RAISE(out.message, VerifyFlatbuffer<fb::Message>(base + meta_start, length,
                                                                    &out.aligned_copy, "message"));
  const auto version = out.message->version();
  if (version < fb::MetadataVersion::V4 || version > fb::MetadataVersion::V5) {
    return Status::NotSupported("IPC: message metadata version {} (only V4 and V5 are read)",
                                static_cast<int>(version) + 1);
  }
  const int64_t body_start = meta_start + length;
  const int64_t body_length = out.message->body_length();
  if (body_length < 0 || body_length > limit - body_start) {
    return Status::Corruption(
        "IPC: message at offset {} declares a {}-byte body, only {} bytes remain", offset,
        body_length, limit - body_start);
  }
  out.body = SliceBuffer(data, body_start, body_length);
  out.next_offset = body_start + body_length;
  out.metadata_length = prefix + length;
  return out;
}

}  // namespace lance::ipc::internal
