// DefaultVectorColumn: which column a k-NN search without a named column searches
// (lance/query/nearest.h).
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lance/query/nearest.h"

namespace lance::query {

namespace {

bool IsVectorItem(const DataType& t) { return t.is_floating() || t.id() == TypeId::kUInt8; }

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Result<std::string> DefaultVectorColumn(const Schema& schema, size_t dim, const std::string& what) {
  if (schema.GetFieldByName("vector") != nullptr) return std::string("vector");
  std::vector<std::string> matching;   // fixed_size_list of dim floats / uint8
  std::vector<std::string> other_dim;  // fixed_size_list of another length ("name (n)")
  std::vector<std::string> lists;      // variable-length lists of numbers
  for (const auto& f : schema.fields()) {
    const DataType& t = *f->type();
    if (t.id() == TypeId::kFixedSizeList && IsVectorItem(*t.value_type())) {
      if (static_cast<size_t>(t.list_size()) == dim) {
        matching.push_back(f->name());
      } else {
        other_dim.push_back(fmt::format("{} ({} values)", f->name(), t.list_size()));
      }
    } else if ((t.id() == TypeId::kList || t.id() == TypeId::kLargeList) &&
               (t.value_type()->is_floating() || t.value_type()->is_integer())) {
      lists.push_back(f->name());
    }
  }
  if (matching.size() == 1) return matching[0];
  if (matching.size() > 1) {
    return Status::InvalidArgument("{}: {} vector columns hold {} values ({}); name one with --column", what,
                                   matching.size(), dim, Join(matching));
  }
  std::string hint;
  if (!other_dim.empty()) {
    hint = fmt::format("; its vector columns are {}, and the query has {} values", Join(other_dim), dim);
  } else if (!lists.empty()) {
    hint = fmt::format("; {} {} variable-length list{} of numbers, not a fixed_size_list vector column (JSON "
                       "input gives one only to a column named \"vector\", or to one typed by create --schema)",
                       Join(lists), lists.size() == 1 ? "is a" : "are", lists.size() == 1 ? "" : "s");
  }
  return Status::InvalidArgument("{}: no vector column (no column \"vector\", no fixed_size_list column of {} "
                                 "value{}){}", what, dim, dim == 1 ? "" : "s", hint);
}

}  // namespace lance::query
