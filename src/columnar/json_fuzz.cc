// libFuzzer target for the text parsers of the columnar layer: schema JSON, canonical JSON
// rows (against a schema holding every type, and against the schema inferred from the input)
// and the standalone value parsers. Any input must give either a value or an error; whatever
// parses must validate, print and read back equal.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"

namespace {

lance::SchemaPtr EveryTypeSchema() {
  using namespace lance;
  return schema({field("b", boolean()), field("i8", int8()), field("u64", uint64()),
                 field("h", float16()), field("f", float32()), field("d", float64()),
                 field("s", utf8()), field("lb", large_binary()), field("fb", fixed_size_binary(2)),
                 field("ts", timestamp(TimeUnit::kNano, "UTC")), field("dec", decimal128(20, 3)),
                 field("l", list(int32())), field("fl", fixed_size_list(int8(), 2)),
                 field("st", struct_({field("x", utf8()), field("y", large_list(float64()))})),
                 field("m", map(utf8(), int64())), field("dict", dictionary(int8(), utf8())),
                 field("n", null())});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto s = lance::SchemaFromJson(text); s.ok()) {
    auto again = lance::SchemaFromJson(lance::SchemaToJson(**s));
    if (!again.ok() || !(*again)->Equals(**s, true)) __builtin_trap();
  }
  static const lance::SchemaPtr kSchema = EveryTypeSchema();
  if (auto batch = lance::ReadJsonLines(text, kSchema); batch.ok()) {
    if (!(*batch)->ValidateFull().ok()) __builtin_trap();
    std::string out;
    if (!lance::AppendJsonLines(**batch, &out).ok()) __builtin_trap();
    auto back = lance::ReadJsonLines(out, kSchema);
    if (!back.ok() || !(*back)->Equals(**batch)) __builtin_trap();
  }
  // An inferred schema reads its own text, or says why not (an integer beyond int64).
  if (auto inferred = lance::InferJsonLinesSchema(text); inferred.ok()) {
    if (auto batch = lance::ReadJsonLines(text, *inferred); batch.ok() && !(*batch)->ValidateFull().ok()) {
      __builtin_trap();
    }
  }
  (void)lance::Base64Decode(text);
  (void)lance::Decimal128FromString(text, 38, 10);
  return 0;
}
