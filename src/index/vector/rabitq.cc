// RaBitQ arithmetic in lance 12's order (see rabitq.h and docs/vector-rq.md).
#include "index/vector/rabitq.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "lance/linalg/distance.h"

namespace lance::index::vector {

namespace {

constexpr size_t kRounds = 4;      // sign-flip + transform rounds of the fast rotation
constexpr size_t kBatch = 32;      // rows per packed block (lance's FastScan batch)
constexpr size_t kSegment = 4;     // dimensions per table segment (one code nibble)
constexpr size_t kSegmentCodes = 16;
// Byte j of a packed block holds, in its low nibble, row kPerm[j] of the batch's first 16
// rows (the high nibble: row kPerm[j] + 16).
constexpr size_t kPerm[16] = {0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15};

void Hadamard(float* v, size_t n) {
  for (size_t half = 1; half < n; half *= 2) {
    for (size_t i = 0; i < n; i += 2 * half) {
      for (size_t j = i; j < i + half; ++j) {
        const float x = v[j], y = v[j + half];
        v[j] = x + y;
        v[j + half] = x - y;
      }
    }
  }
}

void FlipSigns(float* v, size_t n, const uint8_t* signs) {
  for (size_t i = 0; i < n; ++i) {
    if ((signs[i / 8] >> (i % 8)) & 1) v[i] = -v[i];
  }
}

void Scale(float* v, size_t n, float f) {
  for (size_t i = 0; i < n; ++i) v[i] *= f;
}

// The sign of +0 counts as positive (a set bit), as Rust's is_sign_positive.
bool SignPositive(float v) { return !std::signbit(v); }

}  // namespace

Result<RabitqModel> ParseRabitqMetadata(const std::string& text, const std::string& file) {
  auto list = nlohmann::json::parse(text, nullptr, false);
  nlohmann::json j;
  if (list.is_array() && list.size() == 1 && list[0].is_string()) {
    j = nlohmann::json::parse(list[0].get<std::string>(), nullptr, false);
  }
  auto bad = [&](std::string_view what) {
    return Status::Corruption("{}: storage_metadata {} ({})", file, what, text);
  };
  if (!j.is_object()) return bad("is not a list of one RaBitQ JSON object");
  if (!j.contains("num_bits") || !j["num_bits"].is_number_unsigned()) return bad("has no num_bits");
  if (!j.contains("code_dim") || !j["code_dim"].is_number_unsigned()) return bad("has no code_dim");
  RabitqModel m;
  m.num_bits = j["num_bits"].get<uint32_t>();
  m.code_dim = j["code_dim"].get<size_t>();
  const std::string rotation = j.value("rotation_type", std::string("matrix"));
  const std::string estimator = j.value("query_estimator", std::string("residual_query"));
  if (rotation != "fast") {
    return Status::NotSupported("{}: RaBitQ rotation \"{}\" (the fast rotation is read)", file, rotation);
  }
  if (estimator != "raw_query") {
    return Status::NotSupported("{}: RaBitQ query estimator \"{}\" (raw_query is read)", file, estimator);
  }
  if (m.num_bits != 1) {
    return Status::NotSupported("{}: {}-bit RaBitQ codes (1-bit codes are read)", file, m.num_bits);
  }
  if (m.code_dim == 0 || m.code_dim % 8 != 0 || m.code_dim > (1u << 20)) {
    return Status::NotSupported("{}: RaBitQ code_dim {} (a positive multiple of 8 is read)", file,
                                m.code_dim);
  }
  if (j.contains("packed") && !j["packed"].is_boolean()) return bad("has a non-boolean packed");
  m.packed = j.value("packed", false);
  const auto& s = j.contains("fast_rotation_signs") ? j["fast_rotation_signs"] : nlohmann::json();
  if (!s.is_array() || s.size() != kRounds * m.code_bytes()) {
    return bad("has no fast_rotation_signs of 4 x code_dim / 8 bytes");
  }
  for (const auto& b : s) {
    if (!b.is_number_unsigned() || b.get<uint64_t>() > 255) return bad("has a sign byte out of range");
    m.signs.push_back(b.get<uint8_t>());
  }
  return m;
}

std::string RabitqMetadataJson(const RabitqModel& m) {
  nlohmann::ordered_json j;
  j["rotate_mat_position"] = nullptr;
  j["fast_rotation_signs"] = m.signs;
  j["rotation_type"] = "fast";
  j["code_dim"] = m.code_dim;
  j["num_bits"] = m.num_bits;
  j["packed"] = true;
  j["query_estimator"] = "raw_query";
  return nlohmann::json::array({j.dump()}).dump();
}

void RabitqRotate(const RabitqModel& m, const float* in, size_t in_dim, float* out) {
  const size_t dim = m.code_dim, bytes = m.code_bytes();
  std::fill(out, out + dim, 0.0f);
  std::copy_n(in, std::min(in_dim, dim), out);
  size_t trunc = 1;
  while (trunc * 2 <= dim) trunc *= 2;
  const float scale = 1.0f / std::sqrt(static_cast<float>(trunc));
  if (trunc == dim) {
    for (size_t r = 0; r < kRounds; ++r) {
      FlipSigns(out, dim, m.signs.data() + r * bytes);
      Hadamard(out, dim);
      Scale(out, dim, scale);
    }
    return;
  }
  const size_t tail = dim - trunc;
  for (size_t r = 0; r < kRounds; ++r) {
    FlipSigns(out, dim, m.signs.data() + r * bytes);
    float* part = r % 2 == 0 ? out : out + tail;
    Hadamard(part, trunc);
    Scale(part, trunc, scale);
    const size_t half = dim / 2;  // a Kac walk over the halves
    for (size_t i = 0; i < half; ++i) {
      const float x = out[i], y = out[i + half];
      out[i] = x + y;
      out[i + half] = x - y;
    }
  }
  Scale(out, dim, 0.25f);
}

RabitqModel MakeRabitqModel(size_t dim, uint64_t seed) {
  RabitqModel m;
  m.code_dim = dim;
  std::mt19937_64 gen(seed ^ 0x5241424954510000ull);
  for (size_t i = 0; i < kRounds * m.code_bytes(); ++i) m.signs.push_back(static_cast<uint8_t>(gen() >> 56));
  return m;
}

RabitqQuery PrepareRabitqQuery(const RabitqModel& m, const float* query, size_t dim) {
  RabitqQuery q;
  std::vector<float> rotated(m.code_dim);
  RabitqRotate(m, query, dim, rotated.data());
  q.table.assign(m.code_dim * 4, 0.0f);
  // Entry j of a segment sums the rotated values of the bits set in j, built from the entry
  // without j's lowest bit (so the additions are lance's).
  for (size_t s = 0; s + kSegment <= m.code_dim; s += kSegment) {
    float* t = q.table.data() + s * 4;
    for (size_t j = 1; j < kSegmentCodes; ++j) {
      const size_t low = j & (~j + 1);
      t[j] = t[j - low] + rotated[s + static_cast<size_t>(std::countr_zero(j))];
    }
  }
  for (float v : rotated) q.sum += v;
  // The table quantized to u8 over its [min, max] (ties to even, as the SIMD conversion).
  float lo = INFINITY, hi = -INFINITY;
  for (float v : q.table) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const float range = hi - lo;
  const float factor = 255.0f / range;
  q.quantized = std::isfinite(range) && std::isfinite(factor);
  if (q.quantized) {
    q.quantized_table.resize(q.table.size());
    for (size_t i = 0; i < q.table.size(); ++i) {
      const float v = std::nearbyint((q.table[i] - lo) * factor);
      q.quantized_table[i] = static_cast<uint8_t>(std::clamp(v, 0.0f, 255.0f));
    }
  }
  q.lo = lo;
  q.step = range / 255.0f;
  return q;
}

void RabitqScore(const RabitqModel& m, const RabitqQuery& q, const uint8_t* codes, size_t n,
                 const float* add, const float* scale, float dist_q_c, float* out) {
  const size_t code_len = m.code_bytes();
  const size_t full = n - n % kBatch;
  const std::vector<float>& table = q.table;
  const uint8_t* qt = q.quantized_table.data();
  const size_t tables = table.size() / kSegmentCodes;
  const float sum_min = static_cast<float>(tables) * q.lo;
  const float offset = -0.5f * q.sum;
  const size_t used = std::min(code_len, tables / 2);
  for (size_t i = 0; i < n; ++i) {
    const uint8_t* c = codes + i * code_len;
    float ip;
    if (i < full && q.quantized) {
      uint16_t acc = 0;  // lance's kernels add in u16 lanes
      for (size_t b = 0; b < used; ++b) {
        acc = static_cast<uint16_t>(acc + qt[(2 * b) * 16 + (c[b] & 0xF)] + qt[(2 * b + 1) * 16 + (c[b] >> 4)]);
      }
      ip = static_cast<float>(acc) * q.step + sum_min;
    } else {
      ip = 0.0f;
      for (size_t b = 0; b < used; ++b) {
        ip += table[(2 * b) * 16 + (c[b] & 0xF)] + table[(2 * b + 1) * 16 + (c[b] >> 4)];
      }
    }
    out[i] = (ip + offset) * scale[i] + add[i] + dist_q_c;
  }
}

void PackRabitqCodes(const uint8_t* rows, size_t n, size_t code_len, uint8_t* packed) {
  const size_t full = n - n % kBatch;
  for (size_t base = 0; base < full; base += kBatch) {
    for (size_t b = 0; b < code_len; ++b) {
      uint8_t lo[kBatch], hi[kBatch];
      for (size_t j = 0; j < kBatch; ++j) {
        const uint8_t v = rows[(base + j) * code_len + b];
        lo[j] = v & 0xF;
        hi[j] = v >> 4;
      }
      uint8_t* block = packed + base * code_len + b * kBatch;
      for (size_t j = 0; j < 16; ++j) {
        block[j] = static_cast<uint8_t>(lo[kPerm[j]] | (lo[kPerm[j] + 16] << 4));
        block[j + 16] = static_cast<uint8_t>(hi[kPerm[j]] | (hi[kPerm[j] + 16] << 4));
      }
    }
  }
  const size_t rem = n - full;
  for (size_t r = 0; r < rem; ++r) {
    for (size_t b = 0; b < code_len; ++b) packed[full * code_len + b * rem + r] = rows[(full + r) * code_len + b];
  }
}

void UnpackRabitqCodes(const uint8_t* packed, size_t n, size_t code_len, uint8_t* rows) {
  const size_t full = n - n % kBatch;
  for (size_t base = 0; base < full; base += kBatch) {
    for (size_t b = 0; b < code_len; ++b) {
      const uint8_t* block = packed + base * code_len + b * kBatch;
      for (size_t j = 0; j < 16; ++j) {
        const uint8_t v0 = block[j], v1 = block[j + 16];
        rows[(base + kPerm[j]) * code_len + b] = static_cast<uint8_t>((v0 & 0xF) | ((v1 & 0xF) << 4));
        rows[(base + kPerm[j] + 16) * code_len + b] = static_cast<uint8_t>((v0 >> 4) | (v1 & 0xF0));
      }
    }
  }
  const size_t rem = n - full;
  for (size_t r = 0; r < rem; ++r) {
    for (size_t b = 0; b < code_len; ++b) rows[(full + r) * code_len + b] = packed[full * code_len + b * rem + r];
  }
}

RabitqFactors RabitqEncode(const RabitqModel& m, const float* residual, size_t dim,
                           float norm_square, const float* rotated_centroid, uint8_t* code, bool dot) {
  std::vector<float> r(m.code_dim);
  RabitqRotate(m, residual, dim, r.data());
  std::fill(code, code + m.code_bytes(), uint8_t{0});
  float res_dot = 0.0f, cent_dot = 0.0f, res_cent_dot = 0.0f;
  for (size_t d = 0; d < m.code_dim; ++d) {
    const bool pos = SignPositive(r[d]);
    if (pos) code[d / 8] = static_cast<uint8_t>(code[d / 8] | (1u << (d % 8)));
    const float f = pos ? 0.5f : -0.5f;
    res_dot += r[d] * f;
    cent_dot += rotated_centroid[d] * f;
    res_cent_dot += r[d] * rotated_centroid[d];
  }
  auto ratio = [](float a, float b) { return b == 0.0f ? 0.0f : a / b; };
  RabitqFactors out;
  const float correction = ratio(norm_square * cent_dot, res_dot);
  out.add = dot ? (1.0f - res_cent_dot) + correction : norm_square + 2.0f * correction;
  out.scale = ratio((dot ? -1.0f : -2.0f) * norm_square, res_dot);
  if (m.code_dim > 1 && norm_square > 0.0f && res_dot != 0.0f) {
    const float code_norm_square = static_cast<float>(m.code_dim) * 0.25f;
    const float alignment = norm_square * code_norm_square / (res_dot * res_dot);
    const float angular = std::sqrt(std::max(alignment - 1.0f, 0.0f) / (static_cast<float>(m.code_dim) - 1.0f));
    const float error = std::sqrt(norm_square) * 1.9f * angular;
    out.error = dot ? error : 2.0f * error;
  }
  return out;
}

RabitqFactors RabitqEncodeVector(const RabitqModel& m, const float* v, const float* c, size_t dim,
                                 const float* rotated_centroid, uint8_t* code, bool dot) {
  std::vector<float> residual(dim);
  for (size_t d = 0; d < dim; ++d) residual[d] = v[d] - c[d];
  return RabitqEncode(m, residual.data(), dim, linalg::L2(v, c, dim), rotated_centroid, code, dot);
}

}  // namespace lance::index::vector
