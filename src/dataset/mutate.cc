// Dataset: the writes that change rows -- delete by filter (rows found by the query layer's
// filter engine), update, merge-insert -- and the column additions and rewrites.
#include <fmt/format.h>

#include "dataset/guard.h"
#include "lance/dataset/dataset.h"
#include "lance/table/write.h"

namespace lance::dataset {

using internal::Guarded;

Result<table::DeleteResult> Dataset::DeleteRowAddresses(std::vector<uint64_t> addresses,
                                                        const std::string& predicate) {
  return Guarded("delete", [&]() -> Result<table::DeleteResult> {
    table::DeleteResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::DeleteRowAddresses(*snap, std::move(addresses), predicate,
                                                           CommitOptions()));
      return out.commit.version;
    }));
    return out;
  });
}

Result<table::DeleteResult> Dataset::Delete(const std::string& filter) {
  return Guarded("delete", [&]() -> Result<table::DeleteResult> {
    if (filter.empty()) return Status::InvalidArgument("delete: the filter must not be empty");
    table::DeleteResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      query::ScanOptions o;
      o.filter = filter;
      o.pool = pool();
      o.index_cache = index_cache();
      LANCE_ASSIGN_OR_RAISE(auto matches, query::FindMatches(snap, o));
      std::vector<uint64_t> addresses;
      size_t total = 0;
      for (const auto& m : matches) total += m.rows.size();
      addresses.reserve(total);
      for (const auto& m : matches) {
        for (uint32_t row : m.rows) addresses.push_back(m.fragment_id << 32 | row);
      }
      LANCE_ASSIGN_OR_RAISE(out, table::DeleteRowAddresses(*snap, std::move(addresses), filter,
                                                           CommitOptions()));
      return out.commit.version;
    }));
    return out;
  });
}

}  // namespace lance::dataset
