// RaBitQ (IVF_RQ) on the index lance 12 built in tests/golden/vector_index/ivf_rq_l2 (gen.mjs):
// our estimates of its index are its answers (rows, order, distances bit for bit), and coding
// the table's vectors with its rotation and centroids gives back its stored codes and factors;
// the packed code layout round-trips; corrupt metadata is refused.
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
  EXPECT_TRUE(multi.status().IsNotSupported()) << multi.status().ToString();
}

}  // namespace
}  // namespace lance::index::vector
