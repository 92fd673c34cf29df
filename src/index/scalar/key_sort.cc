#include "index/scalar/key_sort.h"

#include <algorithm>
#include <numeric>

namespace lance::index::scalar {

Result<ArrayPtr> ConcatTrainingValues(const TrainingData& data) {
  int64_t n = 0;
  for (const auto& v : data.values) n += v->length;
  if (n != static_cast<int64_t>(data.row_ids.size())) {
    return Status::InvalidArgument("index training data: {} values but {} row ids", n,
                                   data.row_ids.size());
  }
  DataTypePtr type = data.type ? data.type : (data.values.empty() ? nullptr : data.values[0]->type);
  if (!type) return Status::InvalidArgument("index training data: no value type");
  for (const auto& v : data.values) {
    if (!v->type->Equals(*type)) {
      return Status::InvalidArgument("index training data: a chunk of type {} in a {} column",
                                     v->type->ToString(), type->ToString());
    }
  }
  if (data.values.empty()) return MakeEmptyArray(type);
  if (data.values.size() == 1) return data.values[0];
  return Concatenate(data.values);
}

std::vector<int64_t> SortPermutation(const Array& values, const std::vector<uint64_t>& row_ids) {
  std::vector<int64_t> perm(static_cast<size_t>(values.length));
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
    const int c = CompareElements(values, a, b);
    if (c != 0) return c < 0;
    return row_ids[static_cast<size_t>(a)] < row_ids[static_cast<size_t>(b)];
  });
  return perm;
}

KeyValueMetadataPtr MakeMetadata(std::vector<std::pair<std::string, std::string>> pairs) {
  return std::make_shared<KeyValueMetadata>(std::move(pairs));
}

std::optional<std::string> PrefixSuccessor(std::string prefix) {
  while (!prefix.empty()) {
    auto& c = reinterpret_cast<unsigned char&>(prefix.back());
    if (c != 0xff) {
      ++c;
      return prefix;
    }
    prefix.pop_back();
  }
  return std::nullopt;
}

}  // namespace lance::index::scalar
