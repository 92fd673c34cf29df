// CheckTableSchema / CheckColumnName (schema_rules.h).
#include "lance/table/schema_rules.h"

#include <set>
#include <string>

#include <fmt/format.h>

namespace lance::table {

namespace {

Status CheckType(const DataType& t, const std::string& path, std::string_view what);

// The fields of one struct (or the top level): names non-empty and distinct.
Status CheckSiblings(const std::vector<FieldPtr>& fields, const std::string& parent,
                     std::string_view what) {
  std::set<std::string_view> seen;
  for (const FieldPtr& f : fields) {
    const std::string path = parent.empty() ? f->name() : parent + "." + f->name();
    if (f->name().empty()) {
      return Status::InvalidArgument("{}: {} has a field with an empty name", what,
                                     parent.empty() ? "the schema" : "'" + parent + "'");
    }
    if (!seen.insert(f->name()).second) {
      return Status::InvalidArgument("{}: duplicate field name '{}' in {} (every field of a "
                                     "struct, and every column, needs its own name)",
                                     what, f->name(),
                                     parent.empty() ? "the schema" : "'" + parent + "'");
    }
    LANCE_RETURN_NOT_OK(CheckType(*f->type(), path, what));
  }
  return Status::OK();
}

Status CheckType(const DataType& t, const std::string& path, std::string_view what) {
  switch (t.id()) {
    case TypeId::kFixedSizeList:
      if (t.list_size() < 1) {
        return Status::InvalidArgument("{}: field '{}' is a fixed_size_list of list_size {}; the "
                                       "size must be a positive integer",
                                       what, path, t.list_size());
      }
      break;
    case TypeId::kFixedSizeBinary:
      if (t.byte_width() < 1) {
        return Status::InvalidArgument("{}: field '{}' is a fixed_size_binary of byte_width {}; "
                                       "the width must be a positive integer",
                                       what, path, t.byte_width());
      }
      break;
    case TypeId::kStruct:
      return CheckSiblings(t.fields(), path, what);
    case TypeId::kDictionary:
      return CheckType(*t.dictionary_value_type(), path, what);
    default:
      break;
  }
  // List items, map entries (their names are the format's own: item, entries, key, value).
  for (const FieldPtr& child : t.fields()) {
    LANCE_RETURN_NOT_OK(CheckType(*child->type(), path + "." + child->name(), what));
  }
  return Status::OK();
}

}  // namespace

Status CheckColumnName(std::string_view name, std::string_view what) {
  if (name.empty()) return Status::InvalidArgument("{}: a column name cannot be empty", what);
  if (name.find('.') != std::string_view::npos) {
    return Status::InvalidArgument("{}: top-level column name '{}' cannot contain '.' ('.' "
                                   "separates the parts of a struct field's path)", what, name);
  }
  return Status::OK();
}

Status CheckTableSchema(const Schema& schema, std::string_view what) {
  for (const FieldPtr& f : schema.fields()) LANCE_RETURN_NOT_OK(CheckColumnName(f->name(), what));
  return CheckSiblings(schema.fields(), "", what);
}

}  // namespace lance::table
