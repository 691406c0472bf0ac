// A stand-in OpenMP runtime for the tests of HOSTKERNEL_TEAM=auto: libhostkernel finds an
// OpenMP runtime with dlsym(RTLD_DEFAULT) (team/openmp_runtime.cpp), and these definitions,
// exported by the test program (CMake ENABLE_EXPORTS), are what it finds. GOMP_parallel
// runs the region on n threads (2 when n is 0), the caller as thread 0.
//
// Include it in one source file of the test program only: it defines the runtime's
// functions.
//
//   stand_in_openmp::late_join_ms = 5;   // thread 1 returns 5 ms after its work
//   ... launches ...
//   EXPECT_EQ(stand_in_openmp::regions.load(), 4);
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace stand_in_openmp {
inline std::atomic<int> regions{0};           // GOMP_parallel calls
inline std::atomic<int> regions_off_main{0};  // of them, from a thread other than `main_thread`
inline pthread_t main_thread{};
inline std::atomic<int> late_join_ms{0};      // thread 1 returns this long after its work
inline thread_local int thread_num = 0;
inline thread_local int level = 0;
}  // namespace stand_in_openmp

extern "C" {
__attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void *), void *data,
                                                          unsigned n, unsigned) {
  using namespace stand_in_openmp;
  regions.fetch_add(1);
  if (!pthread_equal(pthread_self(), main_thread)) regions_off_main.fetch_add(1);
  std::vector<std::thread> threads;
  for (unsigned i = 1; i < (n ? n : 2); ++i)
    threads.emplace_back([fn, data, i] {
      thread_num = static_cast<int>(i);
      level = 1;
      fn(data);
      if (i == 1) std::this_thread::sleep_for(std::chrono::milliseconds(late_join_ms.load()));
    });
  level = 1;
  fn(data);
  level = 0;
  for (auto &t : threads) t.join();
}
__attribute__((visibility("default"))) int omp_get_thread_num() {
  return stand_in_openmp::thread_num;
}
__attribute__((visibility("default"))) int omp_get_level() { return stand_in_openmp::level; }
__attribute__((visibility("default"))) int omp_get_max_threads() { return 2; }
}
