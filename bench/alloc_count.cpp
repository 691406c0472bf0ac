#include "alloc_count.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// Constant-initialised: usable before any constructor runs (the loader and libraries
// allocate before main).
std::atomic<bool> gCounting{false};
std::atomic<std::uint64_t> gAllocations{0};
// HKBENCH_ALLOC_TRACE=N: print the stack of the first N counted allocations to stderr.
std::atomic<long> gTraceLeft{0};
__thread bool tInTrace = false;  // executable TLS: static, valid in any thread at any time

#ifndef HKBENCH_NO_ALLOC_COUNT
[[gnu::noinline]] void trace() {
  if (tInTrace || gTraceLeft.fetch_sub(1, std::memory_order_relaxed) <= 0) return;
  tInTrace = true;
  static const char kHead[] = "pocl-launch-bench: counted allocation at\n";
  [[maybe_unused]] ssize_t w = write(STDERR_FILENO, kHead, sizeof kHead - 1);
  void *frames[24];
  const int n = backtrace(frames, 24);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);  // does not allocate
  tInTrace = false;
}

inline void count() {
  if (gCounting.load(std::memory_order_relaxed)) [[unlikely]] {
    gAllocations.fetch_add(1, std::memory_order_relaxed);
    if (gTraceLeft.load(std::memory_order_relaxed) > 0) trace();
  }
}
#endif

}  // namespace

namespace hkbench {

bool AllocCounter::available() {
#ifdef HKBENCH_NO_ALLOC_COUNT
  return false;
#else
  return true;
#endif
}

void AllocCounter::start() {
  static const bool traceInit = [] {
    if (const char *v = std::getenv("HKBENCH_ALLOC_TRACE"); v && *v) {
      void *frame[1];
      backtrace(frame, 1);  // the first call loads libgcc_s (and allocates): not in malloc
      gTraceLeft.store(std::strtol(v, nullptr, 10), std::memory_order_relaxed);
    }
    return true;
  }();
  (void)traceInit;
  gAllocations.store(0, std::memory_order_relaxed);
  gCounting.store(true, std::memory_order_seq_cst);
}

std::uint64_t AllocCounter::stop() {
  gCounting.store(false, std::memory_order_seq_cst);
  return gAllocations.load(std::memory_order_relaxed);
}

}  // namespace hkbench

#ifndef HKBENCH_NO_ALLOC_COUNT
// glibc's implementations, exported for exactly this purpose (glibc manual, "Replacing
// malloc"). posix_memalign and aligned_alloc have no __libc_ name; memalign serves both.
extern "C" {
void *__libc_malloc(std::size_t) noexcept;
void *__libc_calloc(std::size_t, std::size_t) noexcept;
void *__libc_realloc(void *, std::size_t) noexcept;
void *__libc_memalign(std::size_t, std::size_t) noexcept;
void *__libc_valloc(std::size_t) noexcept;
void *__libc_pvalloc(std::size_t) noexcept;
void __libc_free(void *) noexcept;

__attribute__((visibility("default"))) void *malloc(std::size_t size) noexcept {
  count();
  return __libc_malloc(size);
}

__attribute__((visibility("default"))) void free(void *p) noexcept { __libc_free(p); }

__attribute__((visibility("default"))) void *calloc(std::size_t n, std::size_t size) noexcept {
  count();
  return __libc_calloc(n, size);
}

__attribute__((visibility("default"))) void *realloc(void *p, std::size_t size) noexcept {
  if (size) count();  // realloc(p, 0) frees
  return __libc_realloc(p, size);
}

__attribute__((visibility("default"))) void *memalign(std::size_t alignment, std::size_t size) noexcept {
  count();
  return __libc_memalign(alignment, size);
}

__attribute__((visibility("default"))) void *aligned_alloc(std::size_t alignment,
                                                           std::size_t size) noexcept {
  count();
  return __libc_memalign(alignment, size);
}

__attribute__((visibility("default"))) int posix_memalign(void **out, std::size_t alignment,
                                                          std::size_t size) noexcept {
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  count();
  void *p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

__attribute__((visibility("default"))) void *valloc(std::size_t size) noexcept {
  count();
  return __libc_valloc(size);
}

__attribute__((visibility("default"))) void *pvalloc(std::size_t size) noexcept {
  count();
  return __libc_pvalloc(size);
}
}  // extern "C"
#endif
