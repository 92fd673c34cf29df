// TrainLabelListIndex takes the labels chunk by chunk, straight from the scanned chunks: its
// file must be the one it writes from the same lists given as one array, byte for byte, for
// chunks of any size (sliced ones too), null lists, null and repeated labels, short and long
// strings and integers, row ids out of position order.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "lance/columnar/builder.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/bitmap.h"
#include "lance/index/scalar/label_list.h"
#include "lance/io/memory_object_store.h"

namespace lance::index::scalar {
namespace {

std::string TrainedFile(const TrainingData& data) {
  auto mem = io::MemoryObjectStore::Make();
  auto store = IndexStore::Make(mem, "ours");
  auto t = TrainLabelListIndex(*store, data);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  auto bytes = mem->Get(store->PathOf(kBitmapFile));
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? std::string((*bytes)->view()) : std::string();
}

TEST(LabelListTrain, ChunksGiveTheFileOfOneArray) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 12; ++round) {
    const bool strings = round % 3 != 2;
    const bool long_labels = round % 3 == 1;
    const int64_t n = 2000 + static_cast<int64_t>(rng() % 20000);
    DataTypePtr item = strings ? utf8() : int64();
    auto lists = std::make_unique<ListBuilder>(list(field("item", item, true)),
                                               strings ? std::unique_ptr<ArrayBuilder>(std::make_unique<StringBuilder>(utf8()))
                                                       : std::unique_ptr<ArrayBuilder>(std::make_unique<NumericBuilder<int64_t>>(int64())));
    for (int64_t i = 0; i < n; ++i) {
      if (rng() % 13 == 0) {
        ASSERT_TRUE(lists->Append(false).ok());
        continue;
      }
      ASSERT_TRUE(lists->Append().ok());
      const int k = static_cast<int>(rng() % 5);
      for (int j = 0; j < k; ++j) {
        const uint64_t r = rng();
        Status st;
        if (r % 17 == 0) {
          st = lists->value_builder()->AppendNulls(1);
        } else if (strings) {
          const std::string label = (long_labels ? "a-long-label-" : "l") + std::to_string(r % 40);
          st = static_cast<StringBuilder*>(lists->value_builder())->Append(label);
        } else {
          st = static_cast<NumericBuilder<int64_t>*>(lists->value_builder())->Append(static_cast<int64_t>(r % 60) - 30);
        }
        ASSERT_TRUE(st.ok());
      }
    }
    auto whole = lists->Finish();
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    TrainingData one;
    one.type = (*whole)->type;
    one.values = {*whole};
    one.row_ids.resize(static_cast<size_t>(n));
    std::iota(one.row_ids.begin(), one.row_ids.end(), uint64_t{7});
    if (round % 2) std::shuffle(one.row_ids.begin(), one.row_ids.end(), rng);
    // The same lists in chunks: slices of the one array (offsets not at 0), some empty.
    TrainingData chunked;
    chunked.type = one.type;
    chunked.row_ids = one.row_ids;
    for (int64_t at = 0; at < n;) {
      const int64_t len = std::min<int64_t>(n - at, static_cast<int64_t>(rng() % 3000));
      chunked.values.push_back((*whole)->Slice(at, len));
      at += len;
    }
    const std::string want = TrainedFile(one);
    ASSERT_FALSE(want.empty());
    EXPECT_TRUE(TrainedFile(chunked) == want) << "round " << round << " (" << chunked.values.size() << " chunks)";
  }
}

}  // namespace
}  // namespace lance::index::scalar
