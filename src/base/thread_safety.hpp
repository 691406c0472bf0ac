// Locking rules the compiler checks: clang's thread-safety analysis (-Wthread-safety),
// run over src/ by scripts/check-thread-safety.sh in CI. A member written
// `GUARDED_BY(mutex_)` may only be touched with mutex_ held, a function marked
// `REQUIRES(mutex_)` only called with it held; the analysis proves both at compile time.
// GCC ignores the annotations. std::mutex and std::lock_guard carry none in libstdc++, so
// state guarded this way uses hk::Mutex and hk::MutexLock.
//
//   class Counter {
//    public:
//     void add(int n) {
//       MutexLock lock(mutex_);
//       addLocked(n);
//     }
//    private:
//     void addLocked(int n) REQUIRES(mutex_) { total_ += n; }
//     Mutex mutex_;
//     int total_ GUARDED_BY(mutex_) = 0;
//   };
#pragma once

#include <mutex>

#if defined(__clang__)
#define HK_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define HK_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) HK_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY HK_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) HK_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) HK_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) HK_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) HK_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) HK_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) HK_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) HK_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS HK_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace hk {

// A std::mutex the analysis knows. Same cost, same rules.
class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { m_.lock(); }
  void unlock() RELEASE() { m_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return m_.try_lock(); }
  // For std::condition_variable and similar, which need the std::mutex itself.
  std::mutex &native() { return m_; }

 private:
  std::mutex m_;
};

// Holds a Mutex for its scope (std::lock_guard for the analysis).
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex &m) ACQUIRE(m) : m_(m) { m_.lock(); }
  // Takes over `m`, which the caller holds (after a successful try_lock()).
  MutexLock(Mutex &m, std::adopt_lock_t) REQUIRES(m) : m_(m) {}
  ~MutexLock() RELEASE() { m_.unlock(); }
  MutexLock(const MutexLock &) = delete;
  MutexLock &operator=(const MutexLock &) = delete;

 private:
  Mutex &m_;
};

}  // namespace hk
