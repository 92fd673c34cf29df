// Which kernel table runs: CPU detection, LANCE_SIMD, SetSimdLevel.
#include <atomic>
#include <cstdlib>
#include <string>

#include "linalg/kernels.h"

namespace lance::linalg {
namespace {

bool CpuHasAvx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("popcnt") && internal::Avx2Kernels() != nullptr &&
         // F16C has no __builtin_cpu_supports name in older compilers: every AVX2 CPU has it
         // (it came with Ivy Bridge / Piledriver), so AVX2 implies it here.
         true;
#else
  return false;
#endif
}

bool CpuHasAvx512() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return CpuHasAvx2() && __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

SimdLevel DetectMax() {
  if (CpuHasAvx512()) return SimdLevel::kAvx512;
  if (CpuHasAvx2()) return SimdLevel::kAvx2;
  return SimdLevel::kPortable;
}

constexpr int kUnset = -1;
std::atomic<int> g_level{kUnset};

SimdLevel InitialLevel() {
  const SimdLevel max = MaxSimdLevel();
  const char* env = std::getenv("LANCE_SIMD");
  if (env == nullptr || *env == '\0') return max;
  auto parsed = ParseSimdLevel(env);
  if (!parsed.ok()) return max;  // an unknown value leaves the default
  return *parsed <= max ? *parsed : max;
}

}  // namespace

std::string_view SimdLevelName(SimdLevel level) {
  switch (level) {
    case SimdLevel::kPortable:
      return "portable";
    case SimdLevel::kAvx2:
      return "avx2";
    case SimdLevel::kAvx512:
      return "avx512";
  }
  return "?";
}

Result<SimdLevel> ParseSimdLevel(std::string_view name) {
  if (name == "portable" || name == "scalar") return SimdLevel::kPortable;
  if (name == "avx2") return SimdLevel::kAvx2;
  if (name == "avx512") return SimdLevel::kAvx512;
  return Status::InvalidArgument("SIMD level '{}': expected portable, avx2 or avx512", name);
}

SimdLevel MaxSimdLevel() {
  static const SimdLevel max = DetectMax();
  return max;
}

SimdLevel ActiveSimdLevel() {
  int level = g_level.load(std::memory_order_acquire);
  if (level == kUnset) {
    int expected = kUnset;
    g_level.compare_exchange_strong(expected, static_cast<int>(InitialLevel()));
    level = g_level.load(std::memory_order_acquire);
  }
  return static_cast<SimdLevel>(level);
}

Status SetSimdLevel(SimdLevel level) {
  if (level > MaxSimdLevel()) {
    return Status::NotSupported("SIMD level {}: this CPU runs at most {}", SimdLevelName(level),
                                SimdLevelName(MaxSimdLevel()));
  }
  g_level.store(static_cast<int>(level), std::memory_order_release);
  return Status::OK();
}

namespace internal {

const Kernels& KernelsFor(SimdLevel level) {
  if (level >= SimdLevel::kAvx2 && Avx2Kernels() != nullptr) return *Avx2Kernels();
  return PortableKernels();
}

}  // namespace internal
}  // namespace lance::linalg
