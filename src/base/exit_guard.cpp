#include "base/exit_guard.hpp"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

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

// Waits until no other thread holds a slot, or kLongestWaitMs.
void waitForOtherSlots() {
  for (long waited = 0; g_active.load(std::memory_order_seq_cst) > t_held &&
                        waited < kLongestWaitMs;
       ++waited) {
    const timespec ms{0, 1'000'000};
    nanosleep(&ms, nullptr);
  }
}

// exit(): no new slots, then wait for the taken ones. seq_cst on both sides: either the
// compile sees g_exiting and gives its slot back, or this sees its slot and waits.
void closeSlots() {
  g_exiting.store(true, std::memory_order_seq_cst);
  waitForOtherSlots();
}

// Its destructor runs when its thread ends, and in exit() before every atexit handler.
// On the main thread that is exit() (the return from main is one; pthread_exit there is
// rare and only sends later compiles' launches to PoCL's queue): it closes the slots as
// the handler does, so that no compile starts while LLVM's destructors run. On another
// thread it only waits: a thread that ends must not stop the compiles of the others.
struct ThreadExitWait {
  bool armed = false;
  ~ThreadExitWait() {
    if (!armed) return;
    if (gettid() == getpid())
      closeSlots();
    else
      waitForOtherSlots();
  }
};
thread_local ThreadExitWait t_exit_wait;

// The thread that loads hostkernel: usually the program's main thread.
[[maybe_unused]] const bool kLoadingThreadWaits = (waitForCompilesAtThreadExit(), true);

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

void waitForCompilesAtThreadExit() {
  t_exit_wait.armed = true;  // the first access constructs it and registers its destructor
}

void endCompile() {
  --t_held;
  g_active.fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace hk
