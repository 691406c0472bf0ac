// A small std::thread pool whose parallel-for runs task i on thread i (the caller is
// thread 0), and its hk_team_executor: the example of hkSetTeamExecutor
// (include/hostkernel/executor.h), used by tests/integration/team_executor_test.cpp.
//
//   ThreadPool pool(4);                        // the caller + 3 threads
//   hk_team_executor e = pool.executor();
//   hkSetTeamExecutor(&e);                     // hostkernel's large launches run on it
//   ... launches ...
//   hkSetTeamExecutor(NULL);                   // before the pool goes
#pragma once

#include <hostkernel/executor.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

class ThreadPool {
 public:
  using Task = void (*)(void *ctx, unsigned index);

  // `threads` including the calling thread (at least 1).
  explicit ThreadPool(unsigned threads) : size_(threads ? threads : 1) {
    for (unsigned w = 1; w < size_; ++w) workers_.emplace_back([this, w] { loop(w); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread &t : workers_) t.join();
  }
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned size() const { return size_; }
  // True on the pool's own threads (and on the caller while it runs task 0 and its peers).
  static bool onWorker() { return in_pool_; }
  // Tasks run so far, on any thread.
  std::uint64_t tasksRun() const { return tasks_run_.load(std::memory_order_relaxed); }

  // task(ctx, i) for every i in [0, n): thread i % size() runs task i. Returns when all
  // have returned. Called from one of the pool's threads (a nested call), it runs every
  // task on that thread: the pool is busy with the outer call.
  void parallelFor(unsigned n, Task task, void *ctx) {
    if (in_pool_ || size_ == 1) {
      for (unsigned i = 0; i < n; ++i) runTask(task, ctx, i);
      return;
    }
    std::lock_guard<std::mutex> one_call(call_);  // application threads take turns
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      ctx_ = ctx;
      n_ = n;
      pending_ = size_ - 1;
      ++generation_;
    }
    start_.notify_all();
    in_pool_ = true;
    for (unsigned i = 0; i < n; i += size_) runTask(task, ctx, i);
    in_pool_ = false;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
  }

  // This pool as hostkernel's team.
  hk_team_executor executor() {
    hk_team_executor e{};
    e.parallel_for = [](void *user, unsigned n, Task task, void *ctx) {
      static_cast<ThreadPool *>(user)->parallelFor(n, task, ctx);
    };
    e.on_worker = [](void *) -> int { return onWorker(); };
    e.threads = size_;
    e.user = this;
    return e;
  }

 private:
  void runTask(Task task, void *ctx, unsigned i) {
    task(ctx, i);
    tasks_run_.fetch_add(1, std::memory_order_relaxed);
  }

  void loop(unsigned w) {
    in_pool_ = true;
    std::uint64_t seen = 0;
    for (;;) {
      Task task;
      void *ctx;
      unsigned n;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        task = task_;
        ctx = ctx_;
        n = n_;
      }
      for (unsigned i = w; i < n; i += size_) runTask(task, ctx, i);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }

  const unsigned size_;
  std::vector<std::thread> workers_;
  std::mutex call_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  bool stop_ = false;
  std::uint64_t generation_ = 0;
  Task task_ = nullptr;
  void *ctx_ = nullptr;
  unsigned n_ = 0;
  unsigned pending_ = 0;
  std::atomic<std::uint64_t> tasks_run_{0};
  static inline thread_local bool in_pool_ = false;
};
