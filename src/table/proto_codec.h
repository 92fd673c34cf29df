// Protobuf <-> model conversion of the messages that manifests and transactions share
// (lance.file.Field, DataFragment and the files it names, BasePath, IndexMetadata), and the
// handling of unknown fields (internal to table/: the manifest and transaction codecs are the
// only users; nothing else in lance-cpp sees a protobuf type).
//
// Unknown fields: each model struct keeps the members of its message that the generated code
// does not know as raw wire bytes (`unknown_fields`); the encoder parses them back into the
// message's unknown field set, which protobuf writes after the known members, so a message
// decoded and encoded again comes out as it was (maps aside, which are written sorted).
#pragma once

#include <string>

#include <google/protobuf/message.h>

#include "file/proto/deterministic.h"
#include "file/proto/file_schema.pb.h"
#include "lance/core/result.h"
#include "lance/file/lance_schema.h"
#include "lance/table/manifest.h"
#include "table/proto/table.pb.h"

namespace lance::table::internal {

// The unknown fields of `m` as wire bytes ("" when none).
std::string UnknownFieldsOf(const google::protobuf::Message& m);
// Makes `bytes` (from UnknownFieldsOf) the unknown fields of `m`.
void SetUnknownFields(const std::string& bytes, google::protobuf::Message* m);

file::LanceField FieldFromProto(const ::lance::file::Field& f);
void FieldToProto(const file::LanceField& lf, ::lance::file::Field* f);

DataFileInfo DataFileFromProto(const pb::DataFile& f);
void DataFileToProto(const DataFileInfo& d, pb::DataFile* f);

DeletionFileInfo DeletionFromProto(const pb::DeletionFile& d);
void DeletionToProto(const DeletionFileInfo& d, pb::DeletionFile* out);

// `validate`: the checks a manifest's fragments must pass (Corruption naming `what`): data
// file paths non-empty, one column index per field, a known deletion file type, no more rows
// deleted than stored. Transactions of other writers are decoded without them.
Result<FragmentInfo> FragmentFromProto(const pb::DataFragment& f, const std::string& what,
                                       bool validate);
void FragmentToProto(const FragmentInfo& fr, pb::DataFragment* f);

BasePathInfo BasePathFromProto(const pb::BasePath& b);
void BasePathToProto(const BasePathInfo& b, pb::BasePath* out);

IndexFileInfo IndexFileFromProto(const pb::IndexFile& f);
void IndexFileToProto(const IndexFileInfo& f, pb::IndexFile* out);

// The 16 raw bytes of a UUID message as "xxxxxxxx-xxxx-..." (lowercase hex), and back.
// Errors: Corruption (decode: not 16 bytes), InvalidArgument (encode: not a hyphenated UUID).
Result<std::string> UuidFromBytes(const std::string& raw, const std::string& what);
Result<std::string> UuidToBytes(const std::string& text);

// Errors: Corruption (bad uuid or fragment bitmap), naming `what`.
Result<IndexInfo> IndexFromProto(const pb::IndexMetadata& pb, const std::string& what);
// Errors: InvalidArgument (a uuid that is not a UUID).
Status IndexToProto(const IndexInfo& x, pb::IndexMetadata* out);

}  // namespace lance::table::internal
