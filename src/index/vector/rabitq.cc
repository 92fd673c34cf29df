// RaBitQ arithmetic in lance 12's order (see rabitq.h and docs/vector-rq.md).
#include "index/vector/rabitq.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>

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
  if (m.num_bits < 1 || m.num_bits > kRabitqMaxBits) {
    return Status::NotSupported("{}: {}-bit RaBitQ codes (1 to {} bits are read)", file, m.num_bits,
                                kRabitqMaxBits);
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
  q.rotated.resize(m.code_dim);
  const std::vector<float>& rotated = q.rotated;
  RabitqRotate(m, query, dim, q.rotated.data());
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

void RabitqBinaryIp(const RabitqModel& m, const RabitqQuery& q, const uint8_t* codes, size_t n, float* out) {
  const size_t code_len = m.code_bytes();
  const size_t full = n - n % kBatch;
  const std::vector<float>& table = q.table;
  const uint8_t* qt = q.quantized_table.data();
  const size_t tables = table.size() / kSegmentCodes;
  const float sum_min = static_cast<float>(tables) * q.lo;
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
    out[i] = ip;
  }
}

void RabitqScore(const RabitqModel& m, const RabitqQuery& q, const uint8_t* codes, size_t n,
                 const float* add, const float* scale, float dist_q_c, float* out) {
  RabitqBinaryIp(m, q, codes, n, out);
  const float offset = -0.5f * q.sum;
  for (size_t i = 0; i < n; ++i) out[i] = (out[i] + offset) * scale[i] + add[i] + dist_q_c;
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

namespace {

constexpr size_t kExBlock = 64;  // dimensions per block of the ex-code layout

// Position in the 64-bit top-bit plane of block dimension 16k + b.
constexpr unsigned TopPlaneBit(size_t dim_in_block) {
  const size_t k = dim_in_block / 16, b = dim_in_block % 16;
  return static_cast<unsigned>(8 * (b % 8) + 2 * k + b / 8);
}

void PackTopPlane(const uint8_t* v, unsigned bit, uint8_t* out) {
  uint64_t plane = 0;
  for (size_t d = 0; d < kExBlock; ++d) plane |= uint64_t{(v[d] >> bit) & 1u} << TopPlaneBit(d);
  for (size_t i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(plane >> (8 * i));
}

uint64_t ReadTopPlane(const uint8_t* in) {
  uint64_t plane = 0;
  for (size_t i = 0; i < 8; ++i) plane |= uint64_t{in[i]} << (8 * i);
  return plane;
}

// One block of 64 values (natural order) to its ex_bits * 8 bytes.
void PackExBlock(const uint8_t* v, uint32_t ex_bits, uint8_t* out) {
  switch (ex_bits) {
    case 1:
      for (size_t b = 0; b < 8; ++b) {
        uint8_t byte = 0;
        for (size_t t = 0; t < 8; ++t) byte = static_cast<uint8_t>(byte | ((v[8 * b + t] & 1u) << t));
        out[b] = byte;
      }
      break;
    case 2:
    case 3:
      for (size_t b = 0; b < 16; ++b) {
        out[b] = static_cast<uint8_t>((v[b] & 3u) | ((v[16 + b] & 3u) << 2) | ((v[32 + b] & 3u) << 4) |
                                      ((v[48 + b] & 3u) << 6));
      }
      if (ex_bits == 3) PackTopPlane(v, 2, out + 16);
      break;
    case 4:
      for (size_t u = 0; u < 4; ++u) {
        for (size_t b = 0; b < 8; ++b) {
          out[8 * u + b] = static_cast<uint8_t>((v[16 * u + b] & 15u) | ((v[16 * u + 8 + b] & 15u) << 4));
        }
      }
      break;
    case 5:
      for (size_t b = 0; b < 16; ++b) {
        out[b] = static_cast<uint8_t>((v[b] & 15u) | ((v[16 + b] & 15u) << 4));
        out[16 + b] = static_cast<uint8_t>((v[32 + b] & 15u) | ((v[48 + b] & 15u) << 4));
      }
      PackTopPlane(v, 4, out + 32);
      break;
    case 6:
    case 7:
      for (size_t k = 0; k < 3; ++k) {
        for (size_t b = 0; b < 16; ++b) {
          out[16 * k + b] = static_cast<uint8_t>((v[16 * k + b] & 63u) | (((v[48 + b] >> (2 * k)) & 3u) << 6));
        }
      }
      if (ex_bits == 7) PackTopPlane(v, 6, out + 48);
      break;
    default:  // 8
      std::memcpy(out, v, kExBlock);
      break;
  }
}

void UnpackExBlock(const uint8_t* in, uint32_t ex_bits, uint8_t* v) {
  switch (ex_bits) {
    case 1:
      for (size_t d = 0; d < kExBlock; ++d) v[d] = (in[d / 8] >> (d % 8)) & 1u;
      break;
    case 2:
    case 3:
      for (size_t k = 0; k < 4; ++k) {
        for (size_t b = 0; b < 16; ++b) v[16 * k + b] = (in[b] >> (2 * k)) & 3u;
      }
      break;
    case 4:
      for (size_t u = 0; u < 4; ++u) {
        for (size_t b = 0; b < 8; ++b) {
          v[16 * u + b] = in[8 * u + b] & 15u;
          v[16 * u + 8 + b] = in[8 * u + b] >> 4;
        }
      }
      break;
    case 5:
      for (size_t b = 0; b < 16; ++b) {
        v[b] = in[b] & 15u;
        v[16 + b] = in[b] >> 4;
        v[32 + b] = in[16 + b] & 15u;
        v[48 + b] = in[16 + b] >> 4;
      }
      break;
    case 6:
    case 7:
      for (size_t b = 0; b < 16; ++b) {
        for (size_t k = 0; k < 3; ++k) v[16 * k + b] = in[16 * k + b] & 63u;
        v[48 + b] = static_cast<uint8_t>((in[b] >> 6) | ((in[16 + b] >> 6) << 2) | ((in[32 + b] >> 6) << 4));
      }
      break;
    default:
      std::memcpy(v, in, kExBlock);
      break;
  }
  // The top bit of 3, 5 and 7 bits from its plane.
  if (ex_bits == 3 || ex_bits == 5 || ex_bits == 7) {
    const uint64_t plane = ReadTopPlane(in + 8 * (ex_bits - 1));
    for (size_t d = 0; d < kExBlock; ++d) {
      v[d] = static_cast<uint8_t>(v[d] | (((plane >> TopPlaneBit(d)) & 1u) << (ex_bits - 1)));
    }
  }
}

constexpr float kExEpsilon = 1.0e-5f;
// Per ex_bits, where the search for the rescale factor starts, as a fraction of its end.
constexpr float kExTightStart[9] = {0.0f, 0.15f, 0.20f, 0.52f, 0.59f, 0.71f, 0.75f, 0.77f, 0.81f};

size_t ExLevel(float t, float x, size_t max_code) {
  return static_cast<size_t>(std::clamp(std::floor(t * x + kExEpsilon), 0.0f, static_cast<float>(max_code)));
}

// The rescale factor t maximising <round(t |r|) + 0.5, |r|> / |round(t |r|) + 0.5| over the
// normalised magnitudes `a`: from a start value, every t at which one dimension's level steps
// up, in increasing order (the cosine updated incrementally, as lance 12 does).
float ExRescaleFactor(const std::vector<float>& a, uint32_t ex_bits) {
  float max_value = 0.0f;
  for (float x : a) {
    if (std::isfinite(x)) max_value = std::max(max_value, x);
  }
  if (max_value <= 0.0f) return 0.0f;
  const size_t max_code = (size_t{1} << ex_bits) - 1;
  const float t_end = static_cast<float>(max_code + 10) / max_value;
  const float t_start = t_end * kExTightStart[ex_bits];
  std::vector<size_t> level(a.size(), 0);
  float den = static_cast<float>(a.size()) * 0.25f;  // |code + 0.5|^2, incrementally
  float num = 0.0f;
  std::vector<std::pair<float, size_t>> steps;
  for (size_t i = 0; i < a.size(); ++i) {
    const float x = a[i];
    if (x <= 0.0f || !std::isfinite(x)) continue;
    const size_t c = ExLevel(t_start, x, max_code);
    level[i] = c;
    den += static_cast<float>(c * c + c);
    num += (static_cast<float>(c) + 0.5f) * x;
    for (size_t next = c + 1; next <= max_code; ++next) {
      const float t = static_cast<float>(next) / x;
      if (t < t_end) steps.emplace_back(t, i);
    }
  }
  std::sort(steps.begin(), steps.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  float best = num / std::sqrt(den), best_t = t_start;
  for (const auto& [t, i] : steps) {
    const size_t c = ++level[i];
    den += static_cast<float>(2 * c);
    num += a[i];
    const float cosine = num / std::sqrt(den);
    if (cosine > best) {
      best = cosine;
      best_t = t;
    }
  }
  return best_t;
}

}  // namespace

void PackRabitqExCode(const uint8_t* values, size_t dim, uint32_t ex_bits, uint8_t* blocked) {
  const size_t block_bytes = kExBlock * ex_bits / 8;
  uint8_t v[kExBlock];
  for (size_t base = 0, o = 0; base < dim; base += kExBlock, o += block_bytes) {
    const size_t count = std::min(kExBlock, dim - base);
    std::fill(v, v + kExBlock, uint8_t{0});
    std::memcpy(v, values + base, count);
    PackExBlock(v, ex_bits, blocked + o);
  }
}

void UnpackRabitqExCode(const uint8_t* blocked, size_t dim, uint32_t ex_bits, uint8_t* values) {
  const size_t block_bytes = kExBlock * ex_bits / 8;
  uint8_t v[kExBlock];
  for (size_t base = 0, o = 0; base < dim; base += kExBlock, o += block_bytes) {
    UnpackExBlock(blocked + o, ex_bits, v);
    std::memcpy(values + base, v, std::min(kExBlock, dim - base));
  }
}

float RabitqQuantizeEx(const float* rotated, size_t dim, uint32_t ex_bits, uint8_t* values) {
  float norm_square = 0.0f;
  for (size_t d = 0; d < dim; ++d) norm_square += rotated[d] * rotated[d];
  if (norm_square <= std::numeric_limits<float>::epsilon() || !std::isfinite(norm_square)) {
    std::fill(values, values + dim, uint8_t{0});
    return 0.0f;
  }
  const float norm = std::sqrt(norm_square);
  std::vector<float> a(dim);
  for (size_t d = 0; d < dim; ++d) a[d] = std::fabs(rotated[d]) / norm;
  const float t = ExRescaleFactor(a, ex_bits);
  const size_t max_code = (size_t{1} << ex_bits) - 1;
  const float bias = -(static_cast<float>(1u << ex_bits) - 0.5f);
  float dot = 0.0f;
  for (size_t d = 0; d < dim; ++d) {
    size_t ex = ExLevel(t, a[d], max_code);
    const bool positive = SignPositive(rotated[d]);
    if (!positive) ex = ~ex & max_code;  // negative values count down from the top
    const size_t full = (size_t{positive} << ex_bits) + ex;
    dot += rotated[d] * (static_cast<float>(full) + bias);
    values[d] = static_cast<uint8_t>(ex);
  }
  return dot;
}

namespace {

enum class ExDotOrder { kScalar, kAvx2, kAvx512 };

ExDotOrder DetectExDotOrder() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return ExDotOrder::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return ExDotOrder::kAvx2;
#endif
  return ExDotOrder::kScalar;
}

}  // namespace

float RabitqExDot(const float* q, const uint8_t* v, size_t padded, uint32_t ex_bits) {
  static const ExDotOrder order = DetectExDotOrder();
  if (order == ExDotOrder::kScalar) {
    float sum = 0.0f;
    for (size_t d = 0; d < padded; ++d) {
      const float p = q[d] * static_cast<float>(v[d]);
      sum += p;
    }
    return sum;
  }
  if (order == ExDotOrder::kAvx2) {
    float acc[2][8] = {};
    for (size_t c = 0; c < padded; c += 16) {
      for (size_t h = 0; h < 2; ++h) {
        for (size_t l = 0; l < 8; ++l) {
          acc[h][l] = std::fma(static_cast<float>(v[c + 8 * h + l]), q[c + 8 * h + l], acc[h][l]);
        }
      }
    }
    float s[8];
    for (size_t l = 0; l < 8; ++l) s[l] = acc[0][l] + acc[1][l];
    float h4[4];
    for (size_t l = 0; l < 4; ++l) h4[l] = s[l] + s[l + 4];
    const float p0 = h4[0] + h4[2], p1 = h4[1] + h4[3];
    return p0 + p1;
  }
  // AVX-512: the widths unpacked 16 dimensions per group (1, 4, 8 bits) alternate chains per
  // 16 dimensions; the others per (64-dimension group + 16-dimension run).
  const bool runs4 = !(ex_bits == 1 || ex_bits == 4 || ex_bits == 8);
  float acc[2][16] = {};
  for (size_t c = 0; c < padded / 16; ++c) {
    const size_t chain = runs4 ? (c / 4 + c % 4) % 2 : c % 2;
    for (size_t l = 0; l < 16; ++l) {
      acc[chain][l] = std::fma(static_cast<float>(v[16 * c + l]), q[16 * c + l], acc[chain][l]);
    }
  }
  float s16[16];
  for (size_t l = 0; l < 16; ++l) s16[l] = acc[0][l] + acc[1][l];
  float s8[8];
  for (size_t l = 0; l < 8; ++l) s8[l] = s16[l] + s16[l + 8];
  float s4[4];
  for (size_t l = 0; l < 4; ++l) s4[l] = s8[l] + s8[l + 4];
  const float s2a = s4[0] + s4[2], s2b = s4[1] + s4[3];
  return s2a + s2b;
}

RabitqFactors RabitqEncode(const RabitqModel& m, const float* residual, size_t dim,
                           float norm_square, const float* rotated_centroid, uint8_t* code, bool dot,
                           uint8_t* ex_code) {
  std::vector<float> r(m.code_dim);
  RabitqRotate(m, residual, dim, r.data());
  std::fill(code, code + m.code_bytes(), uint8_t{0});
  const uint32_t ex_bits = m.ex_bits();
  std::vector<uint8_t> ex;
  float ex_res_dot = 0.0f;
  if (ex_bits > 0) {
    ex.resize(m.code_dim);
    ex_res_dot = RabitqQuantizeEx(r.data(), m.code_dim, ex_bits, ex.data());
  }
  const float ex_bias = -(static_cast<float>(1u << ex_bits) - 0.5f);
  float res_dot = 0.0f, cent_dot = 0.0f, res_cent_dot = 0.0f, ex_cent_dot = 0.0f;
  for (size_t d = 0; d < m.code_dim; ++d) {
    const bool pos = SignPositive(r[d]);
    if (pos) code[d / 8] = static_cast<uint8_t>(code[d / 8] | (1u << (d % 8)));
    const float f = pos ? 0.5f : -0.5f;
    res_dot += r[d] * f;
    cent_dot += rotated_centroid[d] * f;
    if (ex_bits > 0) {
      const float x = static_cast<float>((uint32_t{pos} << ex_bits) + ex[d]) + ex_bias;
      ex_cent_dot += rotated_centroid[d] * x;
    }
    res_cent_dot += r[d] * rotated_centroid[d];
  }
  auto ratio = [](float a, float b) { return b == 0.0f ? 0.0f : a / b; };
  RabitqFactors out;
  const float correction = ratio(norm_square * cent_dot, res_dot);
  out.add = dot ? (1.0f - res_cent_dot) + correction : norm_square + 2.0f * correction;
  out.scale = ratio((dot ? -1.0f : -2.0f) * norm_square, res_dot);
  if (ex_bits > 0) {
    const float ex_correction = ratio(norm_square * ex_cent_dot, ex_res_dot);
    out.add_ex = dot ? (1.0f - res_cent_dot) + ex_correction : norm_square + 2.0f * ex_correction;
    out.scale_ex = ratio((dot ? -1.0f : -2.0f) * norm_square, ex_res_dot);
    if (ex_code) PackRabitqExCode(ex.data(), m.code_dim, ex_bits, ex_code);
  }
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
                                 const float* rotated_centroid, uint8_t* code, bool dot, uint8_t* ex_code) {
  std::vector<float> residual(dim);
  for (size_t d = 0; d < dim; ++d) residual[d] = v[d] - c[d];
  return RabitqEncode(m, residual.data(), dim, linalg::L2(v, c, dim), rotated_centroid, code, dot, ex_code);
}

}  // namespace lance::index::vector
