// RaBitQ (lance 12's IVF_RQ quantizer) arithmetic: the fast rotation, the 1-bit codes in their
// packed 32-row layout, the per-row factors, and the distance estimate of a raw query, each the
// way lance 12 computes it so that the estimates are its floats (docs/vector-rq.md has the
// format and the formulas).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lance/core/result.h"

namespace lance::index::vector {

// The quantizer's storage_metadata (auxiliary.idx: a JSON list of one JSON string).
struct RabitqModel {
  size_t code_dim = 0;         // rotated dimension (= the vector dimension)
  uint32_t num_bits = 1;       // bits per dimension, 1..9: the sign bit + num_bits - 1 "ex" bits
  std::vector<uint8_t> signs;  // fast rotation: 4 rounds of ceil(code_dim / 8) sign bytes
  bool packed = true;          // codes stored in the packed 32-row layout (else row-major)
  size_t code_bytes() const { return (code_dim + 7) / 8; }
  uint32_t ex_bits() const { return num_bits - 1; }
  // Bytes of a row's ex code in the blocked layout (whole blocks of 64 dimensions).
  size_t ex_code_bytes() const { return (code_dim + 63) / 64 * 64 * ex_bits() / 8; }
};

inline constexpr uint32_t kRabitqMaxBits = 9;  // lance 12 builds 1..=9 bits

// auxiliary.idx columns of more than 1 bit (the others: ivf_format.h).
inline constexpr const char* kRabitExCodeColumn = "__blocked_ex_codes";
inline constexpr const char* kRabitLegacyExCodeColumn = "__ex_codes";
inline constexpr const char* kRabitExAddFactorsColumn = "__add_factors_ex";
inline constexpr const char* kRabitExScaleFactorsColumn = "__scale_factors_ex";


// A new model over `dim` dimensions (a multiple of 8): its fast rotation's sign bytes drawn
// from `seed` (the same seed, the same rotation).
RabitqModel MakeRabitqModel(size_t dim, uint64_t seed);

// Parses storage_metadata `text` of `file`. Corruption when malformed, NotSupported for what is
// not read (a dense rotation matrix, the residual-query estimator, more than 9 bits).
Result<RabitqModel> ParseRabitqMetadata(const std::string& text, const std::string& file);
// The storage_metadata value lance 12 writes for `m` (keys in its order).
std::string RabitqMetadataJson(const RabitqModel& m);

// Four rounds of sign flips and a scaled Walsh-Hadamard transform (lance's fast rotation;
// for a dimension that is not a power of two, alternating head / tail transforms with a
// Kac walk between rounds and a final 1/4). `in` has `in_dim` <= m.code_dim values; `out`
// m.code_dim.
void RabitqRotate(const RabitqModel& m, const float* in, size_t in_dim, float* out);

// A query prepared once for every partition: its rotation, the per-nibble table (dim / 4
// segments of 16 sums of the segment's rotated values) and the sum of the rotated values.
struct RabitqQuery {
  std::vector<float> rotated;  // the rotated query (code_dim values)
  std::vector<float> table;    // per segment of 4 dimensions, the sum of each of its 16 codes
  float sum = 0;               // of the rotated query
  // The table quantized to u8 over [lo, lo + 255 step] (when its range is finite), for the
  // whole batches of 32 rows.
  std::vector<uint8_t> quantized_table;
  bool quantized = false;
  float lo = 0, step = 0;
};
RabitqQuery PrepareRabitqQuery(const RabitqModel& m, const float* query, size_t dim);

// Estimated distances of a partition's `n` rows (codes in lance's packed layout, m.code_bytes()
// per row; factors per row) to the prepared query whose distance to the partition's centroid is
// `dist_q_c`, into out[0..n). Rows of the leading whole batches of 32 are summed over the table
// quantized to u8 (as lance 12's FastScan); the last n % 32 rows over the float table.
void RabitqScore(const RabitqModel& m, const RabitqQuery& q, const uint8_t* codes, size_t n,
                 const float* add, const float* scale, float dist_q_c, float* out);

// Row-major codes (n rows of `code_len` bytes) to lance's packed layout and back: each batch of
// 32 rows as code_len blocks of 32 bytes (the nibbles of rows 0-15 / 16-31 interleaved in the
// order of its SIMD shuffle), the n % 32 tail rows transposed (byte-major).
void PackRabitqCodes(const uint8_t* rows, size_t n, size_t code_len, uint8_t* packed);
void UnpackRabitqCodes(const uint8_t* packed, size_t n, size_t code_len, uint8_t* rows);

// The sign-bit code and the factors of one vector for the raw-query estimator: `residual`
// is the vector minus its centroid (dim values), `norm_square` its squared l2 distance to the
// centroid, `rotated_centroid` the centroid's rotation. code: m.code_bytes() bytes. l2 (and
// cosine, on unit vectors): add = |r|^2 + 2 |r|^2 <C, x> / <R, x>, scale = -2 |r|^2 / <R, x>;
// dot (`dot`): add = (1 - <R, C>) + |r|^2 <C, x> / <R, x>, scale = -|r|^2 / <R, x>, and the
// error bound without the factor 2 (x: the code's +-0.5 values; R, C: rotated residual and
// centroid; lance 12's factors bit for bit, docs/vector-rq.md).
//
// With m.num_bits > 1 also the ex code (`ex_code`: m.ex_code_bytes() bytes, blocked layout) and
// its factors add_ex / scale_ex: the rotated residual's magnitudes quantized to num_bits - 1
// bits at the rescale factor that best aligns the code with it (extended RaBitQ), the code
// complemented for negative values; with x' = (sign << ex_bits) + ex - (2^ex_bits - 0.5) per
// dimension, add_ex / scale_ex are add / scale with <R, x'> and <C, x'> for <R, x>, <C, x>.
struct RabitqFactors {
  float add = 0, scale = 0, error = 0;
  float add_ex = 0, scale_ex = 0;
};
RabitqFactors RabitqEncode(const RabitqModel& m, const float* residual, size_t dim,
                           float norm_square, const float* rotated_centroid, uint8_t* code, bool dot = false,
                           uint8_t* ex_code = nullptr);
// The same for vector `v` of the partition with centroid `c` (rotated: `rotated_centroid`):
// residual v - c, norm_square linalg::L2(v, c), as lance's IVF assignment computes it.
RabitqFactors RabitqEncodeVector(const RabitqModel& m, const float* v, const float* c, size_t dim,
                                 const float* rotated_centroid, uint8_t* code, bool dot = false,
                                 uint8_t* ex_code = nullptr);

// Ex codes (one value of `ex_bits` bits per dimension, `dim` values) to lance's blocked layout
// and back: blocks of 64 dimensions (the last zero-padded), bit-interleaved per width
// (docs/vector-rq.md "Multi-bit"). `blocked` holds ceil(dim / 64) * 64 * ex_bits / 8 bytes.
void PackRabitqExCode(const uint8_t* values, size_t dim, uint32_t ex_bits, uint8_t* blocked);
void UnpackRabitqExCode(const uint8_t* blocked, size_t dim, uint32_t ex_bits, uint8_t* values);

// The ex values of a rotated residual `rotated` (dim values) into values[0..dim), returning
// <R, x'> (see RabitqFactors), summed in dimension order as lance 12 does.
float RabitqQuantizeEx(const float* rotated, size_t dim, uint32_t ex_bits, uint8_t* values);

// The binary inner products <Q, code bits> of a partition's `n` rows (packed layout) with the
// prepared query: whole 32-row batches over the u8 table, the tail over the float table, as
// RabitqScore sums them.
void RabitqBinaryIp(const RabitqModel& m, const RabitqQuery& q, const uint8_t* codes, size_t n, float* ip);

// sum_d q[d] * v[d] over `padded` values (a multiple of 64; q zero beyond the dimension) in
// the order lance 12's ex-dot kernel for this CPU sums them (AVX-512: two 16-lane FMA chains
// alternating per 16 dimensions, then its tree reduction; AVX2 + FMA: two 8-lane chains; else
// sequential multiply-adds).
float RabitqExDot(const float* q, const uint8_t* v, size_t padded, uint32_t ex_bits);

// A multi-bit estimate from a row's binary inner product `ip`, the dot product `ex_dot` of the
// rotated query with its ex values, and its ex factors, lance 12's expression in its order.
inline float RabitqExDistance(const RabitqModel& m, const RabitqQuery& q, float ip, float ex_dot, float add_ex,
                              float scale_ex, float query_term) {
  const float code_scale = static_cast<float>(1u << m.ex_bits());
  const float code_bias = -(code_scale - 0.5f);
  const float full_dot = code_scale * ip + ex_dot + code_bias * q.sum;
  return full_dot * scale_ex + add_ex + query_term;
}

}  // namespace lance::index::vector
