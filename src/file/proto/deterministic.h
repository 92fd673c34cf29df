// Reproducible protobuf bytes, for every layer that writes protobuf messages (file, table,
// index, memwal). Copied beside the generated `file/proto/*.pb.h` headers, so it has their
// visibility: the file layer and every layer above it, never installed.
//
// Why: protobuf's C++ maps iterate in a per-process random order, so a message with a map
// (schema metadata, writer config defaults) serialized twice from the same values can give
// different bytes. With deterministic serialization map entries are written sorted by key;
// everything else is byte-for-byte what SerializeAsString() writes.
#pragma once

#include <string>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message_lite.h>

namespace lance::proto {

inline std::string SerializeDeterministic(const google::protobuf::MessageLite& m) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    m.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace lance::proto
