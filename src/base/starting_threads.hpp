// StartingThreads counts the threads hostkernel has created that have not yet reached its
// own code. Until a new thread runs its start routine it is inside the C library's thread
// start-up, and a sanitizer's (AddressSanitizer's allocates under its allocator's locks,
// and GCC 12's has no fork handler that takes them): a fork() then hands the child those
// locks held, and the child's next thread or allocation waits on them for ever. So
// hostkernel's fork handlers wait for its starting threads to arrive (await) before
// the fork goes on.
//
//   StartingThreads::starting();
//   if (pthread_create(&t, nullptr, threadMain, arg) != 0) StartingThreads::arrived();
//   ...
//   void *threadMain(void *arg) {
//     setUpThisThread();           // its thread_local state, its name
//     StartingThreads::arrived();  // from here a fork may cut in
#pragma once

#include <sched.h>

#include <atomic>

namespace hk {

class StartingThreads {
 public:
  // starting() counts a thread about to be created. Must be followed by arrived(): on the
  // new thread, or on the creating one if the thread could not be created.
  static void starting() { count_.fetch_add(1, std::memory_order_relaxed); }

  // arrived() is a new thread's first step once its own start-up is over (thread_local
  // state set up, name given).
  static void arrived() { count_.fetch_sub(1, std::memory_order_release); }

  // await() returns once every counted thread has arrived. For fork handlers: the forking
  // thread must hold nothing a starting thread needs before it arrives.
  static void await() {
    while (count_.load(std::memory_order_acquire) != 0) sched_yield();
  }

  // forgetInChild() clears the count in a forked child, which has none of its parent's
  // threads. Fork child handlers only.
  static void forgetInChild() { count_.store(0, std::memory_order_relaxed); }

 private:
  static inline std::atomic<int> count_{0};
};

}  // namespace hk
