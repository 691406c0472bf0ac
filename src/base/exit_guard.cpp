#include "base/exit_guard.hpp"

#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cstdlib>

namespace hk {
namespace {

std::atomic<bool> g_exiting{false};
std::atomic<int> g_active{0};
thread_local int t_held = 0;  // slots this thread holds

// The longest exit waits for running compiles: a cold PoCL build takes about half a
// second; one that takes longer than this is stuck, and exit must still end.
constexpr long kLongestWaitMs = 30'000;

// exit(): no new slots, then wait for the taken ones. seq_cst on both sides: either the
// compile sees g_exiting and gives its slot back, or this sees its slot and waits.
void closeSlots() {
  g_exiting.store(true, std::memory_order_seq_cst);
  for (long waited = 0; g_active.load(std::memory_order_seq_cst) > t_held &&
                        waited < kLongestWaitMs;
       ++waited) {
    const timespec ms{0, 1'000'000};
    nanosleep(&ms, nullptr);
  }
}

// In a forked child only the forking thread exists: the others' slots are gone.
void afterFork() { g_active.store(t_held, std::memory_order_relaxed); }

void install() {
  std::atexit(closeSlots);
  pthread_atfork(nullptr, nullptr, afterFork);
}

}  // namespace

bool exitBegun() { return g_exiting.load(std::memory_order_relaxed); }

bool beginCompile() {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, install);
  g_active.fetch_add(1, std::memory_order_seq_cst);
  if (g_exiting.load(std::memory_order_seq_cst)) {
    g_active.fetch_sub(1, std::memory_order_seq_cst);
    return false;
  }
  ++t_held;
  return true;
}

void endCompile() {
  --t_held;
  g_active.fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace hk
