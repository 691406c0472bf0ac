// A thread's work-group execution state: its __local arena, printf buffer, stack room,
// launch nesting depth and team id. Everything a launch needs that belongs to the thread
// that runs work-groups is in one thread_local struct, so that a launch pays for one TLS
// access (in a shared library each access may
// call __tls_get_addr). Zero-initialised and trivially destructible: no TLS guard or
// destructor registration on the hot path; buffers are set up on the thread's first
// launch and released by a pthread key destructor at thread exit.
//
//   ThreadState &ts = threadState();          // once per launch
//   if (!ts.ready) ts.setUp(printf_capacity);   // first launch on this thread only
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/recorder.hpp"

namespace hk::kernel {

struct ThreadState {
  bool ready;
  std::uint32_t depth;          // launches running on this thread (nesting)
  std::uint32_t team_id;        // 0 for application threads
  // The background launch thread (queue/background.cpp): its team jobs run on the own
  // workers, never on the application's OpenMP threads or executor, and leave the
  // application a CPU (team::Job::from_background).
  bool background_thread;
  // __local memory: one arena, 128-byte aligned, grown when a kernel needs more.
  char *local_arena;
  std::size_t local_capacity;
  // Argument array copies for kernels with __local memory, and their local slots.
  void **scratch_args;
  std::size_t scratch_capacity;
  void **local_slots;
  std::size_t slots_capacity;
  // Native kernels: this launch's true ndrange, the hidden argument 0 (hk_ndrange_t).
  std::uint64_t ndrange[3];
  // Kernel printf output, written to stdout after each launch (PoCL 3.1: text), or the
  // records a PoCL 7.x kernel has printed itself, dropped after each launch.
  std::uint8_t *printf_buffer;
  std::uint32_t printf_capacity;
  std::uint32_t printf_position;
  // Lowest stack address a launch may use on this thread (the stack's end plus a reserve
  // for signal handlers), read once at setUp (stackLimits below); if the stack is
  // unknown, 1 MiB below where setUp ran.
  std::uintptr_t stack_low;
  // HOSTKERNEL_TRACE: the thread's event buffer (traceBuffer()), else null.
  trace::ThreadBuffer *trace;

  // Stack bytes left below the caller's frame: what a work-group may use here.
  [[gnu::always_inline]] std::uint64_t stackRoom() const {
    const std::uintptr_t sp = stackPointer();
    return sp > stack_low ? sp - stack_low : 0;
  }
  // Reads %rsp: __builtin_frame_address would make the launch path set up a frame
  // pointer.
  [[gnu::always_inline]] static std::uintptr_t stackPointer() {
#if defined(__x86_64__)
    std::uintptr_t sp;
    asm("mov %%rsp, %0" : "=r"(sp));
    return sp;
#else
    return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
#endif
  }

  void setUp(std::size_t printf_capacity);
  // The thread's trace buffer, taken on first use (also by threads never set up: their
  // launches all went to PoCL's queue). Only when trace::enabled().
  trace::ThreadBuffer &traceBuffer();
  // Grows the buffers (allocation: only when a kernel needs more than any before it).
  bool reserve(std::size_t local_bytes, std::size_t args, std::size_t slots);
  // Writes pending printf output to stdout, after the application's buffered output, or
  // drops the records the kernel has printed (Release::printf_mode).
  void flushPrintf();
};

// Where this thread's stack ends (its lowest address), two ways; false when unknown.
// The main thread's from AT_EXECFN and RLIMIT_STACK (no /proc/self/maps read; false on
// other threads), any thread's from pthread_getattr_np. setUp tries them in this order.
bool mainThreadStackEnd(std::uintptr_t here, std::uintptr_t &end);
bool pthreadStackEnd(std::uintptr_t here, std::uintptr_t &end);

namespace detail {
// Zero-initialised (constant initialisation): no TLS wrapper or guard on access.
inline constinit thread_local ThreadState t_state{};
}  // namespace detail

// One TLS access. The empty asm hides where the pointer came from: without it the
// optimiser may recompute the thread_local's address at a later use instead of keeping it
// in a register, and in a shared library each computation is a TLS descriptor call (or
// __tls_get_addr).
inline ThreadState &threadState() {
  ThreadState *ts = &detail::t_state;
  asm("" : "+r"(ts));
  return *ts;
}

}  // namespace hk::kernel
