#include "index/vector/pq_distance.h"

#include <algorithm>

#include "lance/linalg/kmeans.h"

namespace lance::index::vector {

void PqDistanceTable::Build(const PqCodebook& pq, const float* query) {
  m_ = pq.num_sub_vectors;
  centroids_ = pq.num_centroids();
  const size_t sub = pq.sub_dim();
  table_.resize(m_ * centroids_);
  const size_t padded = (centroids_ + 7) / 8 * 8;
  const float* packed = pq.packed_by8.data();
  if (!dot_ && pq.packed_by8.empty()) {
    packed_ = PackPqCodebook(pq);
    packed = packed_.data();
  }
  for (size_t s = 0; s < m_; ++s) {
    const float* q = query + s * sub;
    float* row = table_.data() + s * centroids_;
    if (dot_) {
      linalg::DotDistances(q, pq.centroid(s, 0), centroids_, sub, row);
    } else {
      linalg::L2DistancesPacked(q, packed + s * padded * sub, centroids_, sub, row);
    }
  }
}

void PqDistanceTable::Score(const uint8_t* codes, size_t n, float* out) const {
  const float diff = static_cast<float>(m_) - 1.0f;
  for (size_t j = 0; j < n; ++j) {
    const uint8_t* code = codes + j * m_;
    float sum = 0.0f;
    for (size_t s = 0; s < m_; ++s) sum += table_[s * centroids_ + code[s]];
    out[j] = dot_ ? sum - diff : sum;
  }
}

void PqDistanceTable::ScoreTransposed(const uint8_t* codes, size_t n, float* out) const {
  // Blocks of 8 codes summed in registers over every sub-vector (one table row after another,
  // from 0.0f: Score's order, so the same floats), instead of one pass over `out` per
  // sub-vector with a load and a store per lookup. Gather-free: on the CPUs measured here
  // (bench/README.md "ADC scan") eight scalar loads beat one AVX2 gather.
  constexpr size_t kBlock = 8;
  const size_t m = m_, k = centroids_;
  const float* table = table_.data();
  size_t j = 0;
  for (; j + kBlock <= n; j += kBlock) {
    float acc[kBlock] = {};
    for (size_t s = 0; s < m; ++s) {
      const float* t = table + s * k;
      const uint8_t* c = codes + s * n + j;
      for (size_t r = 0; r < kBlock; ++r) acc[r] += t[c[r]];
    }
    std::copy_n(acc, kBlock, out + j);
  }
  for (; j < n; ++j) {
    float sum = 0.0f;
    for (size_t s = 0; s < m; ++s) sum += table[s * k + codes[s * n + j]];
    out[j] = sum;
  }
  if (dot_) {
    const float diff = static_cast<float>(m_) - 1.0f;
    for (size_t i = 0; i < n; ++i) out[i] -= diff;
  }
}

std::vector<float> PackPqCodebook(const PqCodebook& pq) {
  const size_t m = pq.num_sub_vectors, k = pq.num_centroids(), sub = pq.sub_dim();
  const size_t padded = (k + 7) / 8 * 8;
  std::vector<float> out(m * padded * sub);
  for (size_t s = 0; s < m; ++s) {
    const std::vector<float> p = linalg::PackBy8(pq.centroid(s, 0), k, sub);
    std::copy(p.begin(), p.end(), out.begin() + static_cast<std::ptrdiff_t>(s * padded * sub));
  }
  return out;
}

void PqEncode(const PqCodebook& pq, const float* vectors, size_t n, linalg::DistanceType metric,
              uint8_t* codes, ThreadPool* pool) {
  const size_t m = pq.num_sub_vectors, sub = pq.sub_dim(), k = pq.num_centroids();
  if (metric == linalg::DistanceType::kDot) {
    // Dot codes (no caller writes them: every index is coded by l2) keep the exact pairwise
    // scan.
    for (size_t i = 0; i < n; ++i) {
      const float* v = vectors + i * pq.dim;
      for (size_t s = 0; s < m; ++s) {
        size_t best = 0;
        float best_d = 0;
        for (size_t c = 0; c < k; ++c) {
          const float d = linalg::DotDistance(v + s * sub, pq.centroid(s, c), sub);
          if (c == 0 || d < best_d) {
            best = c;
            best_d = d;
          }
        }
        codes[i * m + s] = static_cast<uint8_t>(best);
      }
    }
    return;
  }
  // l2: chunks of rows in parallel; per sub-vector the chunk's sub-vectors gathered back to back
  // and assigned by the k-means kernel (|c|^2 - 2 x.c in register blocks, the lowest centroid
  // on ties), thousands of times faster than one pairwise distance per centroid.
  constexpr size_t kChunk = 2048;
  const size_t chunks = (n + kChunk - 1) / kChunk;
  ParallelFor(pool, static_cast<int64_t>(chunks), [&](int64_t t) {
    const size_t begin = static_cast<size_t>(t) * kChunk, count = std::min(kChunk, n - begin);
    std::vector<float> part(count * sub);
    std::vector<uint32_t> idx(count);
    for (size_t s = 0; s < m; ++s) {
      for (size_t i = 0; i < count; ++i) {
        std::copy_n(vectors + (begin + i) * pq.dim + s * sub, sub, part.data() + i * sub);
      }
      // Cannot fail: k > 0, sub > 0, l2.
      (void)linalg::AssignToCentroids(part.data(), count, sub, pq.centroid(s, 0), k,
                                      linalg::DistanceType::kL2, nullptr, idx.data());
      for (size_t i = 0; i < count; ++i) codes[(begin + i) * m + s] = static_cast<uint8_t>(idx[i]);
    }
  });
}

}  // namespace lance::index::vector
