// libFuzzer target for the CSV reader: the input is read with type inference and against a
// schema of several types. Any input must give either a batch or an error; whatever parses
// must validate, and its CSV text must read back equal (null strings aside, which CSV cannot
// carry: the every-type schema's string column is not nullable, so none occur there). A third
// pass reads the input as TSV against temporal columns (ISO 8601 or integer cells).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lance/columnar/csv.h"

namespace {

lance::SchemaPtr SomeTypes() {
  using namespace lance;
  return schema({field("b", boolean()), field("i", int16()), field("u", uint64()),
                 field("f", float32()), field("s", utf8(), false), field("bin", binary()),
                 field("dec", decimal128(9, 2)), field("ts", timestamp(TimeUnit::kMilli)),
                 field("l", list(int32())), field("st", struct_({field("x", utf8())}))});
}

lance::SchemaPtr Temporal() {
  using namespace lance;
  return schema({field("d", date32()), field("d64", date64()), field("t", time64(TimeUnit::kMicro)),
                 field("ts", timestamp(TimeUnit::kNano, "UTC")), field("s", utf8(), false)});
}

void CheckRoundTrip(const lance::RecordBatch& batch, const lance::SchemaPtr& schema,
                    char delimiter = ',') {
  std::string text;
  if (!lance::AppendCsv(batch, true, &text, delimiter).ok()) __builtin_trap();
  lance::CsvReadOptions o;
  o.schema = schema;
  o.delimiter = delimiter;
  auto back = lance::ReadCsv(text, o);
  if (!back.ok() || !(*back)->Equals(batch)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto inferred = lance::ReadCsv(text); inferred.ok()) {
    if (!(*inferred)->ValidateFull().ok()) __builtin_trap();
    // Inferred utf8 columns may hold "" that was a null-free empty field: equal either way.
    CheckRoundTrip(**inferred, (*inferred)->schema());
  }
  static const lance::SchemaPtr kSchema = SomeTypes();
  lance::CsvReadOptions o;
  o.schema = kSchema;
  if (auto typed = lance::ReadCsv(text, o); typed.ok()) {
    if (!(*typed)->ValidateFull().ok()) __builtin_trap();
    CheckRoundTrip(**typed, kSchema);
  }
  static const lance::SchemaPtr kTemporal = Temporal();
  o.schema = kTemporal;
  o.delimiter = '\t';
  if (auto tsv = lance::ReadCsv(text, o); tsv.ok()) {
    if (!(*tsv)->ValidateFull().ok()) __builtin_trap();
    CheckRoundTrip(**tsv, kTemporal, '\t');
  }
  return 0;
}
