// libFuzzer target: parse, bind and evaluate arbitrary filter text against a small batch of
// every kind of column. Must never crash or read out of bounds; errors are fine.
#include <cstddef>
#include <cstdint>
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
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto tree = expr::Parse(text);
  if (tree.ok()) (void)expr::ToString(**tree);
  auto e = expr::Expression::Make(text, kSchema);
  if (e.ok()) {
    auto r = (*e)->Evaluate(*kBatch);
    if (r.ok() && !(*r)->Validate().ok()) __builtin_trap();
  }
  return 0;
}
