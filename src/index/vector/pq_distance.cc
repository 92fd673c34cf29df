#include "index/vector/pq_distance.h"

#include <algorithm>

namespace lance::index::vector {

void PqDistanceTable::Build(const PqCodebook& pq, const float* query) {
  m_ = pq.num_sub_vectors;
  centroids_ = pq.num_centroids();
  const size_t sub = pq.sub_dim();
  table_.resize(m_ * centroids_);
  for (size_t s = 0; s < m_; ++s) {
    const float* q = query + s * sub;
    float* row = table_.data() + s * centroids_;
    if (dot_) {
      linalg::DotDistances(q, pq.centroid(s, 0), centroids_, sub, row);
    } else {
      linalg::L2Distances(q, pq.centroid(s, 0), centroids_, sub, row);
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
  std::fill(out, out + n, 0.0f);
  for (size_t s = 0; s < m_; ++s) {
    const float* t = table_.data() + s * centroids_;
    const uint8_t* c = codes + s * n;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
      out[j] += t[c[j]];
      out[j + 1] += t[c[j + 1]];
      out[j + 2] += t[c[j + 2]];
      out[j + 3] += t[c[j + 3]];
    }
    for (; j < n; ++j) out[j] += t[c[j]];
  }
  if (dot_) {
    const float diff = static_cast<float>(m_) - 1.0f;
    for (size_t j = 0; j < n; ++j) out[j] -= diff;
  }
}

void PqEncode(const PqCodebook& pq, const float* vectors, size_t n, linalg::DistanceType metric,
              uint8_t* codes) {
  const size_t m = pq.num_sub_vectors, sub = pq.sub_dim(), k = pq.num_centroids();
  const bool dot = metric == linalg::DistanceType::kDot;
  for (size_t i = 0; i < n; ++i) {
    const float* v = vectors + i * pq.dim;
    for (size_t s = 0; s < m; ++s) {
      size_t best = 0;
      float best_d = 0;
      for (size_t c = 0; c < k; ++c) {
        const float d = dot ? linalg::DotDistance(v + s * sub, pq.centroid(s, c), sub)
                            : linalg::L2(v + s * sub, pq.centroid(s, c), sub);
        if (c == 0 || d < best_d) {
          best = c;
          best_d = d;
        }
      }
      codes[i * m + s] = static_cast<uint8_t>(best);
    }
  }
}

}  // namespace lance::index::vector
