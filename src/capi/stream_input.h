// Arrow C streams passed in to the C ABI (writes, merge-insert, add columns): taken over at
// once (the stream is consumed whatever happens next, as lance-c's "consumed on every return
// path"), then read whole (the table API writes from batches in memory today).
#pragma once

#include <memory>
#include <vector>

#include "lance/columnar/record_batch_reader.h"
#include "lance/core/result.h"
#include "lance/lance.h"

namespace lance::capi {

// Takes `stream` over (REQUIRES: not NULL). Errors: InvalidArgument for a released stream,
// missing callbacks, or a schema that does not import (the stream is released anyway).
Result<std::unique_ptr<RecordBatchReader>> TakeStream(ArrowArrayStream* stream);

struct StreamRows {
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
};
// Every batch of `reader`. Errors: the stream's (get_next failures, bad batches).
Result<StreamRows> ReadAll(RecordBatchReader& reader);

// Checks the declared `fields` of a write against the stream's: names, types, nullability
// and field metadata, in order (schema-level metadata aside), as lance-c compares them.
// Errors: InvalidArgument showing both schemas.
Status CheckSameFields(const Schema& declared, const Schema& stream);

}  // namespace lance::capi
