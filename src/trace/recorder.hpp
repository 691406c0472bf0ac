// HOSTKERNEL_TRACE=FILE.json: a timeline of the launches, recorded into one buffer per
// thread and written as Chrome trace-event JSON (Perfetto, chrome://tracing) at exit, or
// when a buffer fills (docs/profiling.md). Recording an event is a store into the
// thread's own buffer: no lock, allocation or syscall, except for the one launch in
// kCapacity that finds its buffer full and writes it out.
//
//   if (hk::trace::enabled()) {
//     hk::trace::ThreadBuffer &buf = hk::trace::ThreadBuffer::forThisThread();  // once
//     buf.record({hk::trace::Kind::Launch, HK_PATH_INLINE, HK_REASON_NONE, 0,
//                 hk::trace::internName("axpy"), t0, t1 - t0, groups});
//   }
#pragma once

#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace hk::trace {

enum class Kind : std::uint8_t {
  Launch,  // one launch, on the launching thread's lane
  Lane,    // the work-groups one team thread ran of a team launch, on its own lane
};

struct Event {
  Kind kind;
  std::uint8_t path;    // hk_path
  std::uint8_t reason;  // hk_reason: why a queue launch went to PoCL's queue
  std::uint8_t thread;  // Lane: the team thread's index (0: the launching thread)
  std::uint32_t name;   // internName() of the kernel
  std::uint64_t start_ns;  // CLOCK_MONOTONIC
  std::uint64_t dur_ns;
  std::uint64_t groups;    // work-groups of the launch (Lane: that the thread ran)
};

// True when HOSTKERNEL_TRACE names a file.
bool enabled();

// A stable number for a kernel name (never 0), kept for the process's lifetime: events
// outlive their kernels.
std::uint32_t internName(const std::string &name);

class ThreadBuffer {
 public:
  static constexpr std::uint32_t kCapacity = 1u << 15;

  // A buffer for a thread that has none: a retired one, or a new one. Its lane (the
  // trace's tid) is named after the thread (pthread_getname_np).
  static ThreadBuffer *acquire();
  // At thread exit: writes the thread's events and keeps the buffer for another thread.
  static void retire(ThreadBuffer *buffer);

  void record(const Event &e) {
    const std::uint32_t n = count_.load(std::memory_order_relaxed);
    if (n == kCapacity) [[unlikely]] {
      writeOut();
      return record(e);
    }
    events_[n] = e;
    count_.store(n + 1, std::memory_order_release);  // the exit writer reads up to here
  }

 private:
  friend class Collector;
  ThreadBuffer() = default;
  void writeOut();  // appends the events to the file and empties the buffer

  std::atomic<std::uint32_t> count_{0};
  std::uint32_t lane_ = 0;
  std::string label_;
  ThreadBuffer *next_ = nullptr;  // the collector's list of all buffers
  Event events_[kCapacity];
};

}  // namespace hk::trace
