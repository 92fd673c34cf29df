// RaBitQ (IVF_RQ) on the index lance 12 built in tests/golden/vector_index/ivf_rq_l2 (gen.mjs):
// our estimates of its index are its answers (rows, order, distances bit for bit), and coding
// the table's vectors with its rotation and centroids gives back its stored codes and factors;
// the packed code layout round-trips; corrupt metadata is refused.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "index/vector/rabitq.h"
#include "index/vector/rabitq_index.h"
#include "lance/index/vector/ivf_index.h"
#include "lance/io/object_store.h"

namespace lance::index::vector {
namespace {

namespace fs = std::filesystem;

fs::path RqGolden() { return fs::path(__FILE__).parent_path() / "../../../tests/golden/vector_index"; }

std::shared_ptr<IvfIndex> OpenRqGolden() {
  for (const auto& e : fs::directory_iterator(RqGolden() / "ivf_rq_l2.lance" / "_indices")) {
    auto sp = io::ObjectStore::FromUri(e.path().string()).ValueOrDie();
    return IvfIndex::Open(sp.store, sp.path).ValueOrDie();
  }
  return nullptr;
}

nlohmann::json RqAnswers() {
  std::ifstream in(RqGolden() / "answers.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// gen.mjs's vectors(): an LCG in doubles, 6 centres, each value rounded to float32 once.
std::vector<float> RqGoldenVectors(size_t rows, size_t dim) {
  uint32_t s = 7;
  auto r = [&] {
    s = s * 1103515245u + 12345u;
    return (s / 4294967296.0) * 2 - 1;
  };
  std::vector<double> centres(6 * dim);
  for (double& c : centres) c = r() * 4;
  std::vector<float> out(rows * dim);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t d = 0; d < dim; ++d) out[i * dim + d] = static_cast<float>(centres[(i % 6) * dim + d] + r());
  }
  return out;
}

TEST(RabitqTest, SearchOfTheReferenceIndexEqualsItsAnswers) {
  auto index = OpenRqGolden();
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->kind(), IndexKind::kIvfRq);
  ASSERT_NE(index->rq(), nullptr);
  EXPECT_EQ(index->rq()->model.code_dim, 16u);
  EXPECT_EQ(index->num_rows(), 599u);
  const auto answers = RqAnswers();
  int compared = 0;
  for (const auto& c : answers["cases"]) {
    if (c["name"] != "ivf_rq_l2") continue;
    for (const auto& r : c["results"]) {
      if (r.contains("refineFactor")) continue;  // re-scored by the query layer (knn_test)
      AnnQuery q;
      q.vector = answers["queries"][r["query"].get<size_t>()].get<std::vector<float>>();
      q.k = 10;
      q.nprobes = r["nprobes"].get<size_t>();
      const auto got = index->Search(q).ValueOrDie();
      const auto& want = r["rows"];
      ASSERT_EQ(got.size(), want.size()) << r.dump();
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].row, want[i][0].get<uint64_t>()) << r.dump() << " row " << i;
        EXPECT_EQ(got[i].distance, want[i][1].get<float>()) << r.dump() << " row " << i;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 12);
}

TEST(RabitqTest, CodingTheTableGivesTheReferenceCodesAndFactors) {
  auto index = OpenRqGolden();
  ASSERT_NE(index, nullptr);
  const RabitqStorage& s = *index->rq();
  const size_t dim = 16, width = s.model.code_bytes();
  const std::vector<float> vectors = RqGoldenVectors(600, dim);
  std::vector<float> rc(dim);
  std::vector<uint8_t> code(width);
  size_t same_codes = 0, same_factors = 0;
  for (size_t p = 0; p < index->ivf().num_partitions(); ++p) {
    const float* c = index->ivf().centroid(p);
    RabitqRotate(s.model, c, dim, rc.data());
    for (size_t j = index->ivf().offsets[p]; j < index->ivf().offsets[p] + index->ivf().lengths[p]; ++j) {
      const float* v = vectors.data() + index->row_ids()[j] * dim;
      const RabitqFactors f = RabitqEncodeVector(s.model, v, c, dim, rc.data(), code.data());
      same_codes += std::equal(code.begin(), code.end(), s.codes.begin() + static_cast<std::ptrdiff_t>(j * width));
      same_factors += f.add == s.add[j] && f.scale == s.scale[j] && f.error == s.error[j];
    }
  }
  EXPECT_EQ(same_codes, 599u);
  // Bit for bit (the squared distance to the centroid is linalg::L2, lance's l2 at 16 dims).
  EXPECT_EQ(same_factors, 599u);
}

// tests/golden/vector_rq_bits (gen.mjs): lance 12's 4-bit IVF_RQ over 256 rows of 32 dims.
fs::path RqBitsGolden() { return fs::path(__FILE__).parent_path() / "../../../tests/golden/vector_rq_bits"; }

std::shared_ptr<IvfIndex> OpenRqBitsGolden() {
  for (const auto& e : fs::directory_iterator(RqBitsGolden() / "ivf_rq4_l2.lance" / "_indices")) {
    auto sp = io::ObjectStore::FromUri(e.path().string()).ValueOrDie();
    return IvfIndex::Open(sp.store, sp.path).ValueOrDie();
  }
  return nullptr;
}

std::vector<float> RqBitsGoldenVectors() {
  const size_t rows = 256, dim = 32;
  uint32_t s = 13;
  auto r = [&] {
    s = s * 1103515245u + 12345u;
    return (s / 4294967296.0) * 2 - 1;
  };
  std::vector<double> centres(4 * dim);
  for (double& c : centres) c = r() * 4;
  std::vector<float> out(rows * dim);
  for (size_t i = 0; i < rows; ++i) {
    for (size_t d = 0; d < dim; ++d) out[i * dim + d] = static_cast<float>(centres[(i % 4) * dim + d] + r());
  }
  return out;
}

// lance 12's l2 of 32 dimensions on an AVX-512 CPU (where the golden was made): 16 lanes of
// fused multiply-adds, then the 512-bit reduction tree (linalg::L2 keeps the AVX2 8-lane order).
float L2Lanes16(const float* a, const float* b, size_t dim) {
  float acc[16] = {};
  for (size_t d = 0; d < dim; ++d) {
    const float x = a[d] - b[d];
    acc[d % 16] = std::fma(x, x, acc[d % 16]);
  }
  float s8[8], s4[4];
  for (size_t l = 0; l < 8; ++l) s8[l] = acc[l] + acc[l + 8];
  for (size_t l = 0; l < 4; ++l) s4[l] = s8[l] + s8[l + 4];
  return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

// Its ex codes and ex factors are what coding the vectors with its rotation and centroids gives
// (the rescale factor search, the complemented negative levels, the blocked layout), bit for bit
// (with its squared distance to the centroid, which the builder takes from linalg::L2).
TEST(RabitqTest, CodingTheTableGivesTheReferenceExCodesAndFactors) {
  auto index = OpenRqBitsGolden();
  ASSERT_NE(index, nullptr);
  const RabitqStorage& s = *index->rq();
  ASSERT_EQ(s.model.num_bits, 4u);
  const size_t dim = 32, width = s.model.code_bytes(), ex_width = s.model.ex_code_bytes();
  ASSERT_EQ(ex_width, 24u);
  ASSERT_EQ(index->num_rows(), 256u);
  const std::vector<float> vectors = RqBitsGoldenVectors();
  std::vector<float> rc(dim);
  std::vector<uint8_t> code(width), ex(ex_width);
  size_t same_codes = 0, same_ex = 0, same_factors = 0;
  for (size_t p = 0; p < index->ivf().num_partitions(); ++p) {
    const float* c = index->ivf().centroid(p);
    RabitqRotate(s.model, c, dim, rc.data());
    for (size_t j = index->ivf().offsets[p]; j < index->ivf().offsets[p] + index->ivf().lengths[p]; ++j) {
      const float* v = vectors.data() + index->row_ids()[j] * dim;
      std::vector<float> residual(dim);
      for (size_t d = 0; d < dim; ++d) residual[d] = v[d] - c[d];
      const RabitqFactors f = RabitqEncode(s.model, residual.data(), dim, L2Lanes16(v, c, dim),
                                           rc.data(), code.data(), false, ex.data());
      same_codes += std::equal(code.begin(), code.end(), s.codes.begin() + static_cast<std::ptrdiff_t>(j * width));
      same_ex += std::equal(ex.begin(), ex.end(), s.ex_codes.begin() + static_cast<std::ptrdiff_t>(j * ex_width));
      same_factors += f.add == s.add[j] && f.scale == s.scale[j] && f.error == s.error[j] &&
                      f.add_ex == s.add_ex[j] && f.scale_ex == s.scale_ex[j];
    }
  }
  EXPECT_EQ(same_codes, 256u);
  EXPECT_EQ(same_ex, 256u);
  EXPECT_EQ(same_factors, 256u);
}

// Our search of it returns its rows in its order; the distances are its own (bit for bit on a
// CPU with AVX-512, whose ex-dot order the answers were made with; to a few ulps elsewhere).
TEST(RabitqTest, MultiBitSearchOfTheReferenceIndexEqualsItsAnswers) {
  auto index = OpenRqBitsGolden();
  ASSERT_NE(index, nullptr);
  std::ifstream in(RqBitsGolden() / "answers.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const auto answers = nlohmann::json::parse(ss.str());
  int compared = 0;
  for (const auto& r : answers["results"]) {
    AnnQuery q;
    q.vector = answers["queries"][r["query"].get<size_t>()].get<std::vector<float>>();
    q.k = r["k"].get<size_t>();
    q.nprobes = r["nprobes"].get<size_t>();
    const auto got = index->Search(q).ValueOrDie();
    const auto& want = r["rows"];
    ASSERT_EQ(got.size(), want.size()) << r.dump();
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].row, want[i][0].get<uint64_t>()) << r.dump() << " row " << i;
      const float w = want[i][1].get<float>();
      EXPECT_NEAR(got[i].distance, w, 1e-5f * std::max(1.0f, std::fabs(w))) << r.dump() << " row " << i;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 12);
}

TEST(RabitqTest, PackedLayoutRoundTrips) {
  for (size_t n : {0u, 5u, 32u, 70u, 200u}) {
    for (size_t width : {1u, 2u, 6u}) {
      std::vector<uint8_t> rows(n * width), packed(n * width), back(n * width);
      for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<uint8_t>(i * 37 + 11);
      PackRabitqCodes(rows.data(), n, width, packed.data());
      UnpackRabitqCodes(packed.data(), n, width, back.data());
      EXPECT_EQ(back, rows) << n << " x " << width;
    }
  }
}

TEST(RabitqTest, RotationKeepsTheNorm) {
  for (size_t dim : {16u, 24u, 128u}) {
    RabitqModel m;
    m.code_dim = dim;
    for (size_t i = 0; i < 4 * m.code_bytes(); ++i) m.signs.push_back(static_cast<uint8_t>(i * 73 + 5));
    std::vector<float> v(dim), out(dim);
    float n0 = 0, n1 = 0;
    for (size_t d = 0; d < dim; ++d) {
      v[d] = std::sin(static_cast<float>(d) + 1.0f);
      n0 += v[d] * v[d];
    }
    RabitqRotate(m, v.data(), dim, out.data());
    for (float x : out) n1 += x * x;
    // A power of two keeps the norm; otherwise lance's Kac walks and final 1/4 leave it
    // scaled by a fixed factor (its estimator only needs the direction).
    if ((dim & (dim - 1)) == 0) {
      EXPECT_NEAR(n1, n0, 1e-4 * n0) << dim;
    } else {
      EXPECT_GT(n1, 0.0f);
    }
  }
}

TEST(RabitqTest, MalformedMetadataIsCorruption) {
  const std::string ok = RabitqMetadataJson(RabitqModel{16, 1, std::vector<uint8_t>(8, 1), true});
  EXPECT_TRUE(ParseRabitqMetadata(ok, "f").ok());
  for (const std::string bad : {"", "[]", "[1]", "[\"{}\"]", "[\"{\\\"num_bits\\\":1,\\\"code_dim\\\":16,\\\"rotation_type\\\":\\\"fast\\\",\\\"query_estimator\\\":\\\"raw_query\\\"}\"]",
                                "[\"{\\\"num_bits\\\":1,\\\"code_dim\\\":16,\\\"packed\\\":true,"
                                "\\\"rotation_type\\\":\\\"fast\\\",\\\"query_estimator\\\":\\\"raw_query\\\","
                                "\\\"fast_rotation_signs\\\":[1,2]}\"]"}) {
    auto r = ParseRabitqMetadata(bad, "f");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_TRUE(r.status().IsCorruption()) << bad << ": " << r.status().ToString();
  }
  auto multi = ParseRabitqMetadata(RabitqMetadataJson(RabitqModel{16, 4, std::vector<uint8_t>(8, 1), true}), "f");
  ASSERT_TRUE(multi.ok()) << multi.status().ToString();
  EXPECT_EQ(multi->num_bits, 4u);
  EXPECT_EQ(multi->ex_code_bytes(), 24u);  // 64 dimensions (one padded block) x 3 bits
  auto ten = ParseRabitqMetadata(RabitqMetadataJson(RabitqModel{16, 10, std::vector<uint8_t>(8, 1), true}), "f");
  EXPECT_TRUE(ten.status().IsNotSupported()) << ten.status().ToString();
}

TEST(RabitqTest, BlockedExCodesRoundTripAndSitWhereLanceReadsThem) {
  for (uint32_t ex_bits = 1; ex_bits <= 8; ++ex_bits) {
    for (size_t dim : {8u, 16u, 24u, 64u, 72u, 128u}) {
      const size_t padded = (dim + 63) / 64 * 64, bytes = padded * ex_bits / 8;
      std::vector<uint8_t> v(dim), blocked(bytes, 0xEE), back(dim);
      for (size_t d = 0; d < dim; ++d) v[d] = static_cast<uint8_t>((d * 29 + 7) & ((1u << ex_bits) - 1));
      PackRabitqExCode(v.data(), dim, ex_bits, blocked.data());
      UnpackRabitqExCode(blocked.data(), dim, ex_bits, back.data());
      EXPECT_EQ(back, v) << ex_bits << " bits, " << dim << " dims";
    }
  }
  // One set value per dimension and width, at the byte and bit lance's kernels unpack it from.
  auto single = [](uint32_t ex_bits, size_t dim, uint8_t value) {
    std::vector<uint8_t> v(64, 0), blocked(8 * ex_bits, 0);
    v[dim] = value;
    PackRabitqExCode(v.data(), 64, ex_bits, blocked.data());
    return blocked;
  };
  EXPECT_EQ(single(1, 13, 1)[1], 1u << 5);
  EXPECT_EQ(single(2, 37, 3)[5], 3u << 4);    // byte b: dims b, b+16, b+32, b+48 at bit pairs
  EXPECT_EQ(single(4, 27, 9)[8 + 3], 9u << 4);  // byte 8u+b: dim 16u+b low nibble, 16u+8+b high
  EXPECT_EQ(single(8, 50, 200)[50], 200u);
  const auto three = single(3, 21, 4);         // the top bit in the plane after the 2-bit bytes:
  EXPECT_EQ(three[16 + 5], 1u << 2);           // dim 16k+b at bit 8 (b % 8) + 2k + b / 8
  const auto six = single(6, 49, 0b110110);    // dim 48+b: its low 6 bits in the top 2 bits of
  EXPECT_EQ(six[1], 0b10u << 6);               // bytes b, 16+b, 32+b
  EXPECT_EQ(six[17], 0b01u << 6);
  EXPECT_EQ(six[33], 0b11u << 6);
}

TEST(RabitqTest, ExDotIsTheInnerProduct) {
  for (uint32_t ex_bits : {1u, 3u, 4u, 8u}) {
    std::vector<float> q(128, 0.0f);
    std::vector<uint8_t> v(128);
    double want = 0;
    for (size_t d = 0; d < 96; ++d) {
      q[d] = std::cos(static_cast<float>(d) * 0.7f);
      v[d] = static_cast<uint8_t>((d * 11) & ((1u << ex_bits) - 1));
      want += static_cast<double>(q[d]) * v[d];
    }
    EXPECT_NEAR(RabitqExDot(q.data(), v.data(), 128, ex_bits), want, 1e-4 * (1 + std::fabs(want))) << ex_bits;
  }
}

// More bits: the code's direction closer to the rotated residual's, and the ex factors' estimate
// of the distance to a query closer to the exact one.
TEST(RabitqTest, MoreBitsEstimateBetter) {
  const size_t dim = 64;
  RabitqModel m = MakeRabitqModel(dim, 9);
  std::vector<float> c(dim, 0.0f), v(dim), query(dim), rc(dim, 0.0f);
  for (size_t d = 0; d < dim; ++d) {
    v[d] = std::sin(static_cast<float>(d) * 1.3f) + 0.2f;
    query[d] = std::cos(static_cast<float>(d) * 0.4f);
  }
  double exact = 0;
  for (size_t d = 0; d < dim; ++d) exact += (static_cast<double>(v[d]) - query[d]) * (v[d] - query[d]);
  double last_error = INFINITY;
  for (uint32_t bits : {2u, 4u, 8u}) {
    m.num_bits = bits;
    std::vector<uint8_t> code(m.code_bytes()), ex(m.ex_code_bytes()), values(dim);
    const RabitqFactors f = RabitqEncodeVector(m, v.data(), c.data(), dim, rc.data(), code.data(), false, ex.data());
    PackRabitqCodes(code.data(), 1, code.size(), code.data());  // one row: the tail layout
    const RabitqQuery q = PrepareRabitqQuery(m, query.data(), dim);
    float ip = 0;
    RabitqBinaryIp(m, q, code.data(), 1, &ip);
    UnpackRabitqExCode(ex.data(), dim, m.ex_bits(), values.data());
    const float ex_dot = RabitqExDot(q.rotated.data(), values.data(), dim, m.ex_bits());
    // dist_q_c: the query's squared distance to the (zero) centroid.
    float qq = 0;
    for (float x : query) qq += x * x;
    const double error = std::fabs(RabitqExDistance(m, q, ip, ex_dot, f.add_ex, f.scale_ex, qq) - exact);
    EXPECT_LT(error, last_error) << bits << " bits";
    EXPECT_LT(error, 0.1 * exact) << bits << " bits";
    last_error = error;
  }
}

}  // namespace
}  // namespace lance::index::vector
