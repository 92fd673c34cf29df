// Reading one encapsulated IPC message out of an in-memory stream or file.
//
// Checks the framing against the input size, copies the metadata when it is not 8-byte
// aligned, runs the flatbuffers Verifier over it and checks the version and body range.
// Thread-compatible: a ParsedMessage is owned by one reader.
#pragma once

#include <cstdint>
#include <memory>

#include "lance/columnar/buffer.h"
#include "lance/core/result.h"
#include "ipc/metadata.h"

namespace lance::ipc::internal {

struct ParsedMessage {
  // Null at the end-of-stream marker.
  const fb::Message* message = nullptr;
  // The body (a slice of the input).
  BufferPtr body;
  // Offset just past the message (and its body) in the input.
  int64_t next_offset = 0;
  // Bytes of the framed metadata: marker, length and padded flatbuffer.
  int64_t metadata_length = 0;
  // Aligned copy of the metadata, when the input's was misaligned.
  std::unique_ptr<uint64_t[]> aligned_copy;
};

// Reads the message starting at `offset` of `data`; `limit` bounds it (message and body) from
// above. Errors: Corruption.
Result<ParsedMessage> ReadMessage(const BufferPtr& data, int64_t offset, int64_t limit);

// Verifies an arbitrary flatbuffer region and returns an aligned pointer to it (copying into
// `storage` when needed). `kind` names the root table for errors.
template <typename T>
Result<const T*> VerifyFlatbuffer(const uint8_t* data, int64_t size,
                                  std::unique_ptr<uint64_t[]>* storage, const char* kind);

}  // namespace lance::ipc::internal
