// libFuzzer target: parse, bind and evaluate arbitrary filter text against a small batch of
// every kind of column. Must never crash or read out of bounds; errors are fine.
//
// Long inputs: an input starting with byte 0x01 is a pattern, `\x01 <count: u16 LE> open \0
// middle \0 close`, that stands for open x count, middle, close x count -- deep nesting
// (`(` ... `)`) and long chains (`id = 1 OR ` ... ) of up to 65535 units from a few bytes, so
// that mutations explore depth and length (seeds in fuzz/corpus/expr_parse_fuzz).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lance/columnar/json.h"
#include "lance/expr/ast.h"
#include "lance/expr/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace lance;
  static const SchemaPtr kSchema =
      schema({field("i", int32()), field("f", float64()), field("s", utf8()), field("b", boolean()),
              field("d", date32()), field("t", timestamp(TimeUnit::kMicro)),
              field("m", decimal128(9, 2)), field("st", struct_({field("a", int64())}))});
  static const RecordBatchPtr kBatch = *ReadJsonLines(
      "{\"i\":1,\"f\":0.5,\"s\":\"ab\",\"b\":true,\"d\":1,\"t\":2,\"m\":\"1.25\",\"st\":{\"a\":3}}\n"
      "{\"i\":null,\"f\":\"NaN\",\"s\":null,\"b\":null,\"d\":null,\"t\":null,\"m\":null,\"st\":null}\n"
      "{\"i\":-7,\"f\":-0.0,\"s\":\"\",\"b\":false,\"d\":-3,\"t\":0,\"m\":\"-0.01\",\"st\":{\"a\":null}}\n",
      kSchema);
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string expanded;
  if (size >= 3 && data[0] == 0x01) {
    const size_t count = data[1] | (size_t{data[2]} << 8);
    const std::string_view rest = text.substr(3);
    const size_t a = rest.find('\0');
    const size_t b = a == std::string_view::npos ? a : rest.find('\0', a + 1);
    if (b == std::string_view::npos) return 0;
    const std::string_view open = rest.substr(0, a), middle = rest.substr(a + 1, b - a - 1),
                           close = rest.substr(b + 1);
    if ((open.size() + close.size()) * count > (size_t{4} << 20)) return 0;
    for (size_t i = 0; i < count; ++i) expanded += open;
    expanded += middle;
    for (size_t i = 0; i < count; ++i) expanded += close;
    text = expanded;
  }
  auto tree = expr::Parse(text);
  if (tree.ok()) (void)expr::ToString(**tree);
  auto e = expr::Expression::Make(text, kSchema);
  if (e.ok()) {
    auto r = (*e)->Evaluate(*kBatch);
    if (r.ok() && !(*r)->Validate().ok()) __builtin_trap();
  }
  return 0;
}
