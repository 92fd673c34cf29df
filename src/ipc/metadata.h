// Conversion between lance Schemas and the Arrow IPC flatbuffer Schema table.
//
// Dictionary ids: the writer numbers dictionary-encoded fields 0, 1, ... in depth-first
// pre-order of the schema (a dictionary's value type is not descended into: dictionaries
// nested in dictionary values are not supported). The reader keeps the ids found in the file
// in the same pre-order, which is also the order the record batch loader meets those fields.
// Stateless functions, thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "lance/columnar/type.h"
#include "lance/core/result.h"
#include "ipc/format/file_generated.h"

namespace lance::ipc::internal {

namespace fb = lance::ipc::flatbuf;

// The schema read from a stream or file plus what the loaders need about dictionaries.
struct SchemaInfo {
  SchemaPtr schema;
  // Dictionary ids of the dictionary-encoded fields in depth-first pre-order.
  std::vector<int64_t> field_dictionary_ids;
  // Dictionary type (index + value type) of each id.
  std::map<int64_t, DataTypePtr> dictionary_types;
};

// Builds the flatbuffer Schema table for `schema`. Errors: InvalidArgument for types IPC
// cannot carry here (dictionaries inside dictionary values, non-integer index types).
Result<flatbuffers::Offset<fb::Schema>> SerializeSchema(flatbuffers::FlatBufferBuilder& builder,
                                                        const Schema& schema);

// Custom metadata vector, or 0 for null/empty metadata.
flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>> SerializeMetadata(
    flatbuffers::FlatBufferBuilder& builder, const KeyValueMetadataPtr& metadata);

// Reads a verified flatbuffer Schema. Errors: Corruption (inconsistent types, missing parts),
// NotSupported (unions, views, run-end encoding, intervals, 32/64-bit decimals,
// big-endian).
Result<SchemaInfo> DeserializeSchema(const fb::Schema* schema);

KeyValueMetadataPtr DeserializeMetadata(
    const flatbuffers::Vector<flatbuffers::Offset<fb::KeyValue>>* metadata);

}  // namespace lance::ipc::internal
