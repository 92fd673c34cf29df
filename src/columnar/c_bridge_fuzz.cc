// libFuzzer target for C Data schema import: the input describes a tree of ArrowSchema nodes
// (format strings, child counts, flags, dictionaries), the kind of structure a foreign producer
// hands us. Import must either fail cleanly or give a type that exports and imports back equal.
//
// Input: records separated by '\n', taken in pre-order. Record bytes: [0] child count (mod 4),
// [1] flags (low 3 bits), [2] bit 0: has a dictionary, bit 1: has metadata; the rest is the
// format string. Missing records read as the null type "n".
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "lance/columnar/c_bridge.h"

namespace {

struct SchemaTree {
  std::deque<ArrowSchema> nodes;  // stable addresses
  std::deque<std::string> strings;
  std::deque<std::vector<ArrowSchema*>> child_lists;
  std::vector<std::string_view> records;
  size_t next_record = 0;

  static void Release(ArrowSchema* s) { s->release = nullptr; }

  const char* Keep(std::string s) { return strings.emplace_back(std::move(s)).c_str(); }

  ArrowSchema* Build(int depth) {
    ArrowSchema& node = nodes.emplace_back();
    std::string_view rec = next_record < records.size() ? records[next_record++] : "";
    const int n_children = rec.size() > 0 && depth < 12 ? static_cast<uint8_t>(rec[0]) % 4 : 0;
    node.flags = rec.size() > 1 ? static_cast<uint8_t>(rec[1]) & 7 : 0;
    const uint8_t extra = rec.size() > 2 ? static_cast<uint8_t>(rec[2]) : 0;
    node.format = Keep(rec.size() > 3 ? std::string(rec.substr(3)) : std::string("n"));
    node.name = Keep("f" + std::to_string(nodes.size()));
    if (extra & 2) {
      // Well-formed metadata {"k": <format>}: the C layout has no length, so malformed bytes
      // would only test our reading past a producer's buffer, which the ABI cannot prevent.
      std::string md;
      auto put32 = [&md](int32_t v) { md.append(reinterpret_cast<const char*>(&v), 4); };
      put32(1);
      put32(1);
      md += "k";
      put32(static_cast<int32_t>(std::string_view(node.format).size()));
      md += node.format;
      node.metadata = Keep(std::move(md));
    }
    auto& children = child_lists.emplace_back();
    for (int i = 0; i < n_children; ++i) children.push_back(Build(depth + 1));
    node.n_children = n_children;
    node.children = children.empty() ? nullptr : children.data();
    if ((extra & 1) && depth < 12) node.dictionary = Build(depth + 1);
    node.release = &Release;
    return &node;
  }

  // Marks every node live again (import releases the root only, our release is a no-op).
  void Revive() {
    for (auto& n : nodes) n.release = &Release;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  SchemaTree tree;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  while (!text.empty() && tree.records.size() < 256) {
    const size_t nl = text.find('\n');
    tree.records.push_back(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  ArrowSchema* root = tree.Build(0);
  auto type = lance::ImportType(root);
  if (type.ok()) {
    ArrowSchema exported;
    if (!lance::ExportType(**type, &exported).ok()) __builtin_trap();
    auto again = lance::ImportType(&exported);
    if (!again.ok() || !(*again)->Equals(**type, true)) __builtin_trap();
  }
  tree.Revive();
  if (auto field = lance::ImportField(root); field.ok()) {
    ArrowSchema exported;
    if (!lance::ExportField(**field, &exported).ok()) __builtin_trap();
    auto again = lance::ImportField(&exported);
    if (!again.ok() || !(*again)->Equals(**field, true)) __builtin_trap();
  }
  tree.Revive();
  if (auto schema = lance::ImportSchema(root); schema.ok()) {
    ArrowSchema exported;
    if (!lance::ExportSchema(**schema, &exported).ok()) __builtin_trap();
    auto again = lance::ImportSchema(&exported);
    if (!again.ok() || !(*again)->Equals(**schema, true)) __builtin_trap();
  }
  return 0;
}
