#include "capi/stream_input.h"

#include <fmt/format.h>

#include "capi/error.h"
#include "lance/columnar/c_bridge.h"

namespace lance::capi {

Result<std::unique_ptr<RecordBatchReader>> TakeStream(ArrowArrayStream* stream) {
  auto r = ImportRecordBatchReader(stream);
  if (!r.ok()) return Invalid(std::string(r.status().message()));
  return r;
}

Result<StreamRows> ReadAll(RecordBatchReader& reader) {
  StreamRows out;
  out.schema = reader.schema();
  LANCE_ASSIGN_OR_RAISE(out.batches, reader.ReadAll());
  return out;
}

Status CheckSameFields(const Schema& declared, const Schema& stream) {
  bool same = declared.num_fields() == stream.num_fields();
  for (int i = 0; same && i < declared.num_fields(); ++i) {
    same = declared.field(i)->Equals(*stream.field(i), /*check_metadata=*/true);
  }
  if (same) return Status::OK();
  return Invalid(fmt::format("stream schema does not match the provided schema.\n  expected: {}\n  got:      {}",
                             declared.ToString(), stream.ToString()));
}

}  // namespace lance::capi
