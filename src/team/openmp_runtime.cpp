#include "team/openmp_runtime.hpp"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cctype>
#include <cstdlib>

namespace hk::team {
namespace {

using GompParallel = void (*)(void (*fn)(void *), void *data, unsigned num_threads,
                              unsigned flags);
using IntFn = int (*)();

// Set in a forked child. libgomp is not fork-safe: a child of a process whose OpenMP
// threads ran never returns from its next GOMP_parallel (its pool's threads are gone).
// The handler is installed when libhostkernel loads, so that a fork before the first
// team launch counts too.
std::atomic<bool> g_forked{false};
[[maybe_unused]] const int g_atfork =
    pthread_atfork(nullptr, nullptr, [] { g_forked.store(true, std::memory_order_relaxed); });

GompParallel g_parallel = nullptr;
IntFn g_thread_num = nullptr;
IntFn g_level = nullptr;

struct Body {
  void (*task)(void *, unsigned);
  void *ctx;
};

// Runs on every thread of the region, the caller as thread 0.
void regionBody(void *arg) {
  const Body &b = *static_cast<const Body *>(arg);
  b.task(b.ctx, static_cast<unsigned>(g_thread_num()));
}

// ForeignTeam's task is called with its run as the region's data: a thread of the region
// reaches the job in one step, not through a Body on the caller's stack.
void foreignTeamRegion(void *run) {
  ForeignTeam::task(run, static_cast<unsigned>(g_thread_num()));
}

void ompParallelFor(void *, unsigned n, void (*task)(void *, unsigned), void *ctx) {
  if (task == &ForeignTeam::task) return g_parallel(foreignTeamRegion, ctx, n, 0);
  Body b{task, ctx};
  g_parallel(regionBody, &b, n, 0);
}

int ompOnWorker(void *) { return g_level() > 0; }

OpenMPRuntime *lookUp() {
  g_parallel = reinterpret_cast<GompParallel>(dlsym(RTLD_DEFAULT, "GOMP_parallel"));
  g_thread_num = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_get_thread_num"));
  g_level = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_get_level"));
  auto max_threads = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  if (!g_parallel || !g_thread_num || !g_level || !max_threads) return nullptr;
  std::uint64_t stack = 0;
  for (const char *name : {"OMP_STACKSIZE", "GOMP_STACKSIZE"})
    if (const char *v = std::getenv(name); v && !stack) stack = parseOmpStackSize(v);
  const int threads = max_threads();
  return new OpenMPRuntime{
      ParallelFor{ompParallelFor, nullptr, ompOnWorker, threads > 0 ? unsigned(threads) : 1u},
      stack ? stack : defaultThreadStackBytes()};
}

}  // namespace

const OpenMPRuntime *findOpenMP() {
  static const OpenMPRuntime *runtime = lookUp();
  return runtime;
}

bool openmpLostToFork() { return g_forked.load(std::memory_order_relaxed); }

std::uint64_t parseOmpStackSize(const char *text) {
  if (!text) return 0;
  while (std::isspace(static_cast<unsigned char>(*text))) ++text;
  if (!std::isdigit(static_cast<unsigned char>(*text))) return 0;
  char *end = nullptr;
  const std::uint64_t n = std::strtoull(text, &end, 10);
  while (std::isspace(static_cast<unsigned char>(*end))) ++end;
  std::uint64_t unit = 1024;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case '\0': break;
    case 'B': unit = 1; break;
    case 'K': unit = 1024; break;
    case 'M': unit = 1024 * 1024; break;
    case 'G': unit = 1024 * 1024 * 1024; break;
    default: return 0;
  }
  if (*end) ++end;
  while (std::isspace(static_cast<unsigned char>(*end))) ++end;
  if (*end) return 0;
  return n > UINT64_MAX / unit ? 0 : n * unit;
}

}  // namespace hk::team
