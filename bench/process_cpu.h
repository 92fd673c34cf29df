// CPU time of the whole process (user + system, every thread) for the benches: the library's
// work runs on pool threads, which google benchmark's own CPU column does not see.
#pragma once

#include <sys/resource.h>

namespace lance::bench {

inline double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace lance::bench
