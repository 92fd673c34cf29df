#include "columnar/demo_stream.h"

#include <cerrno>
#include <new>
#include <string>

#include "lance/columnar/builder.h"
#include "lance/columnar/c_bridge.h"

namespace lance {
namespace {

// Generates the documented demo batches one at a time.
class DemoReader final : public RecordBatchReader {
 public:
  DemoReader(int64_t num_batches, int64_t rows_per_batch, int64_t fail_after_batches)
      : schema_(lance::schema({field("id", int64(), false), field("name", utf8())},
                       std::make_shared<const KeyValueMetadata>(
                           std::vector<std::pair<std::string, std::string>>{
                               {"producer", "lance-cpp"}}))),
        num_batches_(num_batches),
        rows_per_batch_(rows_per_batch),
        fail_after_batches_(fail_after_batches) {}

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (fail_after_batches_ >= 0 && next_batch_ >= fail_after_batches_) {
      return Status::IOError("demo stream: injected failure after {} batches", fail_after_batches_);
    }
    if (next_batch_ >= num_batches_) return RecordBatchPtr{};
    Int64Builder ids(int64());
    BinaryBuilder names(utf8());
    const int64_t first = next_batch_ * rows_per_batch_;
    for (int64_t r = first; r < first + rows_per_batch_; ++r) {
      LANCE_RETURN_NOT_OK(ids.Append(r));
      LANCE_RETURN_NOT_OK(r % 3 == 2 ? names.AppendNull() : names.Append("row-" + std::to_string(r)));
    }
    ++next_batch_;
    LANCE_ASSIGN_OR_RAISE(auto id_array, ids.Finish());
    LANCE_ASSIGN_OR_RAISE(auto name_array, names.Finish());
    return RecordBatch::Make(schema_, rows_per_batch_, {id_array, name_array});
  }

 private:
  SchemaPtr schema_;
  int64_t num_batches_;
  int64_t rows_per_batch_;
  int64_t fail_after_batches_;
  int64_t next_batch_ = 0;
};

}  // namespace
}  // namespace lance

extern "C" int lance_demo_stream(int64_t num_batches, int64_t rows_per_batch,
                                 int64_t fail_after_batches, struct ArrowArrayStream* out) {
  if (out == nullptr || num_batches < 0 || rows_per_batch < 0) return EINVAL;
  try {  // nothing may unwind into C
    auto reader =
        std::make_unique<lance::DemoReader>(num_batches, rows_per_batch, fail_after_batches);
    const lance::Status st = lance::ExportRecordBatchReader(std::move(reader), out);
    return st.ok() ? 0 : EINVAL;
  } catch (const std::bad_alloc&) {
    return ENOMEM;
  }
}
