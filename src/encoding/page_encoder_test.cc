// FastLanes packing (the inverse of the reader's unpacking) and page encoder round trips
// through the page decoders, for every width and level shape.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "encoding/encoder.h"
#include "encoding/fastlanes.h"
#include "encoding/structural.h"

namespace lance::encoding {
namespace {

template <typename T>
void PackUnpackAllWidths() {
  constexpr int kBits = sizeof(T) * 8;
  std::mt19937_64 rng(kBits);
  for (int width = 0; width <= kBits; ++width) {
    std::vector<T> in(kFastLanesBlockValues);
    const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    for (auto& v : in) v = static_cast<T>(rng() & mask);
    std::vector<uint8_t> packed(static_cast<size_t>(FastLanesPackedBytes(kBits, width)) + 1, 0xAB);
    PackFastLanesBlock<T>(in.data(), width, packed.data());
    EXPECT_EQ(packed.back(), 0xAB) << "wrote past the block, width " << width;
    std::vector<T> out(kFastLanesBlockValues);
    UnpackFastLanesBlock<T>(packed.data(), width, out.data());
    ASSERT_EQ(in, out) << "bits " << kBits << " width " << width;
  }
}

TEST(FastLanesPackTest, RoundTripsEveryWidth) {
  PackUnpackAllWidths<uint8_t>();
  PackUnpackAllWidths<uint16_t>();
  PackUnpackAllWidths<uint32_t>();
  PackUnpackAllWidths<uint64_t>();
}

// Encodes a page and decodes it with the reader's page decoder.
DecodedPage RoundTrip(const LeafPage& page, const PageEncodeOptions& opt, std::string* layout) {
  auto enc = EncodePage(page, opt);
  EXPECT_TRUE(enc.ok()) << enc.status().ToString();
  if (!enc.ok()) return {};
  *layout = DescribePageLayout(enc->layout);
  PageInput in;
  in.layout = &enc->layout;
  for (size_t i = 0; i < enc->buffers.size(); ++i) in.buffers.push_back(enc->buffer(i));
  in.num_rows = page.num_rows;
  in.minor_version = opt.minor_version;
  in.prototype = DataBlock::EmptyLike(page.values);
  auto dec = DecodePage(in);
  EXPECT_TRUE(dec.ok()) << *layout << ": " << dec.status().ToString();
  return dec.ok() ? std::move(*dec) : DecodedPage{};
}

TEST(PageEncoderTest, IntegersAndLevelsRoundTrip) {
  std::mt19937_64 rng(7);
  for (int minor : {1, 2}) {
    for (bool compress : {false, true}) {
      for (int width : {0, 1, 5, 17, 31, 32}) {
        LeafPage page;
        page.num_rows = 5000;
        page.layers = {LayerKind::kNullableItem};
        page.values = DataBlock::Fixed(32);
        std::vector<uint32_t> vals(5000);
        for (auto& v : vals) v = static_cast<uint32_t>(rng() & ((uint64_t{1} << width) - 1));
        ASSERT_TRUE(page.values.AppendFixedBytes(reinterpret_cast<const uint8_t*>(vals.data()), 5000).ok());
        for (int i = 0; i < 5000; ++i) page.def.push_back(rng() % 4 == 0 ? 1 : 0);
        PageEncodeOptions opt;
        opt.minor_version = minor;
        opt.compress = compress;
        std::string layout;
        DecodedPage got = RoundTrip(page, opt, &layout);
        EXPECT_EQ(got.def, page.def) << layout;
        EXPECT_EQ(std::string_view(got.values.data), std::string_view(page.values.data)) << layout;
      }
    }
  }
}


// Dictionary items with 64-bit offsets (large_utf8 / large_binary dictionaries) use the block
// form with u64 header fields, as lance 12 writes and reads them: u64 64 | u64 position of the
// bytes | u64 offsets | bytes. With 32-bit offsets the header fields are u32.
TEST(PageEncoderTest, DictionaryItemsBlockHeaderFollowsTheOffsetWidth) {
  for (int offset_bits : {32, 64}) {
    LeafPage page;
    page.num_rows = 4;
    page.layers = {LayerKind::kAllValidItem};
    page.values = DataBlock::Fixed(16);
    const uint16_t idx[4] = {1, 0, 1, 1};
    ASSERT_TRUE(page.values.AppendFixedBytes(reinterpret_cast<const uint8_t*>(idx), 4).ok());
    page.offset_bits = offset_bits;
    page.has_dictionary = true;
    page.dictionary = DataBlock::Variable();
    ASSERT_TRUE(page.dictionary.AppendVariable("ab").ok());
    ASSERT_TRUE(page.dictionary.AppendVariable("cde").ok());
    PageEncodeOptions opt;
    opt.minor_version = 1;
    auto enc = EncodePage(page, opt);
    ASSERT_TRUE(enc.ok()) << enc.status().ToString();
    ASSERT_TRUE(enc->layout.has_mini_block_layout());
    EXPECT_EQ(enc->layout.mini_block_layout().num_dictionary_items(), 2u);
    ASSERT_EQ(enc->buffers.size(), 3u);
    const std::string& d = enc->buffers[2];
    const size_t w = static_cast<size_t>(offset_bits / 8);
    ASSERT_EQ(d.size(), 2 * w + 3 * w + 5);
    uint64_t header[2] = {0, 0}, offsets[3] = {0, 0, 0};
    std::memcpy(&header[0], d.data(), w);
    std::memcpy(&header[1], d.data() + w, w);
    for (int k = 0; k < 3; ++k) std::memcpy(&offsets[k], d.data() + 2 * w + static_cast<size_t>(k) * w, w);
    EXPECT_EQ(header[0], static_cast<uint64_t>(offset_bits));
    EXPECT_EQ(header[1], 5 * w);
    EXPECT_EQ(offsets[0], 0u);
    EXPECT_EQ(offsets[1], 2u);
    EXPECT_EQ(offsets[2], 5u);
    EXPECT_EQ(d.substr(5 * w), "abcde");
  }
}

}  // namespace
// A large FSST page is compressed in pieces on the pool; the page is the same bytes as one
// pass on the caller, and decodes to the input.
TEST(PageEncoderTest, FsstPiecesOnAPoolGiveTheSameBytes) {
  std::mt19937_64 rng(16);
  const char* words[] = {"lance ", "columnar ", "format ", "vector ", "search ", "index ", "table "};
  LeafPage page;
  page.layers = {LayerKind::kAllValidItem};
  page.values = DataBlock::Variable();
  int64_t bytes = 0;
  while (bytes < (int64_t{5} << 20)) {
    std::string v;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) v += words[rng() % 7];
    if (rng() % 5 == 0) v += static_cast<char>(rng() % 256);  // an escape now and then
    ASSERT_TRUE(page.values.AppendVariable(v).ok());
    bytes += static_cast<int64_t>(v.size());
    ++page.num_rows;
  }
  PageEncodeOptions opt;
  auto one = EncodePage(page, opt);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  auto pool = ThreadPool::Make(3);
  ASSERT_TRUE(pool.ok());
  opt.pool = pool->get();
  auto pieces = EncodePage(page, opt);
  ASSERT_TRUE(pieces.ok()) << pieces.status().ToString();
  ASSERT_NE(DescribePageLayout(one->layout).find("fsst"), std::string::npos) << DescribePageLayout(one->layout);
  EXPECT_EQ(one->layout.SerializeAsString(), pieces->layout.SerializeAsString());
  ASSERT_EQ(one->buffers.size(), pieces->buffers.size());
  for (size_t i = 0; i < one->buffers.size(); ++i) {
    EXPECT_TRUE(one->buffer(i) == pieces->buffer(i)) << "buffer " << i;
  }
  std::string layout;
  DecodedPage dec = RoundTrip(page, opt, &layout);
  ASSERT_EQ(dec.values.num_values, page.num_rows) << layout;
  for (int64_t i = 0; i < page.num_rows; i += 997) {
    ASSERT_EQ(dec.values.ValueView(i), page.values.ValueView(i)) << "value " << i;
  }
}

}  // namespace lance::encoding
