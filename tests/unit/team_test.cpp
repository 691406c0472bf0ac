// Team: which thread runs which work-groups. Every job here counts executions per group
// atomically and records the thread that ran each group, so a split that loses, repeats
// or misplaces a group fails.
//
// Teams under test: the process-wide Team::instance() (one thread per allowed CPU: two on
// the project's machines) and explicit teams of 3 and 4 threads, larger than the machine,
// with a short spin so that oversubscription stays cheap.

#include "team/team.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "kernel/thread_state.hpp"

namespace {

using hk::team::Job;
using hk::team::Team;
using hk::team::TeamOptions;

constexpr int kNoThread = -1;

// A broken team hangs rather than fails (a caller waiting for groups nobody runs): each
// test aborts the binary if it takes longer than this, naming itself.
class Watchdog {
 public:
  explicit Watchdog(int seconds)
      : thread_([this, seconds] {
          std::unique_lock<std::mutex> lock(mutex_);
          if (!cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) {
            const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
            std::fprintf(stderr, "watchdog: %s hung for %d s\n", info ? info->name() : "?",
                         seconds);
            std::abort();
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

#if defined(__SANITIZE_THREAD__)
constexpr int kWatchdogSeconds = 180;
#else
constexpr int kWatchdogSeconds = 60;
#endif

class TeamTest : public ::testing::Test {
  Watchdog watchdog_{kWatchdogSeconds};
};

// Counts how often each group ran and which thread ran it.
struct Counting {
  explicit Counting(std::uint64_t n) : total(n), count(n), thread(n) {
    for (auto &t : thread) t.store(kNoThread, std::memory_order_relaxed);
  }
  std::uint64_t total;
  std::vector<std::atomic<std::uint32_t>> count;
  std::vector<std::atomic<int>> thread;
  std::atomic<std::uint64_t> calls{0};
  std::atomic<std::uint64_t> bad_ranges{0};
  std::atomic<unsigned> max_thread{0};
  // Optional extra work per range (slowing a thread, nested runs, ...).
  void (*hook)(Counting &, std::uint64_t, std::uint64_t, unsigned) = nullptr;
  void *user = nullptr;

  static void run(void *ctx, std::uint64_t b, std::uint64_t e, unsigned t) {
    auto &c = *static_cast<Counting *>(ctx);
    c.calls.fetch_add(1, std::memory_order_relaxed);
    if (b >= e || e > c.total) {
      c.bad_ranges.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    unsigned m = c.max_thread.load(std::memory_order_relaxed);
    while (t > m && !c.max_thread.compare_exchange_weak(m, t)) {
    }
    if (c.hook) c.hook(c, b, e, t);
    for (std::uint64_t g = b; g < e; ++g) {
      c.count[g].fetch_add(1, std::memory_order_relaxed);
      c.thread[g].store(static_cast<int>(t), std::memory_order_relaxed);
    }
  }
  Job job(bool steal) { return Job{&Counting::run, this, total, steal}; }

  // Number of groups that did not run exactly once; prints the first few.
  std::uint64_t wrongCounts() const {
    std::uint64_t wrong = 0;
    for (std::uint64_t g = 0; g < total; ++g) {
      std::uint32_t n = count[g].load(std::memory_order_relaxed);
      if (n != 1 && wrong++ < 5)
        ADD_FAILURE() << "group " << g << " of " << total << " ran " << n << " times";
    }
    return wrong;
  }
};

// Block k of `total` groups over n threads, computed independently of the team's code.
unsigned expectedOwner(std::uint64_t g, std::uint64_t total, unsigned n) {
  const std::uint64_t q = total / n, r = total % n;
  const std::uint64_t big = r * (q + 1);
  if (g < big) return static_cast<unsigned>(g / (q + 1));
  return static_cast<unsigned>(r + (g - big) / q);
}

const std::vector<std::uint64_t> kSizes = {1,  2,   3,   4,    5,    7,     13,     31,
                                           64, 97,  1000, 4099, 65537, 1000000};

TeamOptions smallSpin(unsigned threads) {
  TeamOptions o;
  o.threads = threads;
  o.spin_ns = 2000;  // more threads than CPUs: park almost at once
  return o;
}

void checkExactlyOnce(Team &team, bool steal, const char *what) {
  for (std::uint64_t total : kSizes) {
    SCOPED_TRACE(std::string(what) + " total=" + std::to_string(total) +
                 " threads=" + std::to_string(team.size()));
    Counting c(total);
    ASSERT_TRUE(team.run(c.job(steal)));
    EXPECT_EQ(c.bad_ranges.load(), 0u);
    EXPECT_EQ(c.wrongCounts(), 0u);
    EXPECT_LT(c.max_thread.load(), team.size());
  }
}

TEST_F(TeamTest, StaticSplitRunsEveryGroupExactlyOnce) {
  checkExactlyOnce(Team::instance(), false, "instance");
  Team three(smallSpin(3)), four(smallSpin(4));
  checkExactlyOnce(three, false, "three");
  checkExactlyOnce(four, false, "four");
}

TEST_F(TeamTest, StealingSplitRunsEveryGroupExactlyOnce) {
  checkExactlyOnce(Team::instance(), true, "instance");
  Team three(smallSpin(3)), four(smallSpin(4));
  checkExactlyOnce(three, true, "three");
  checkExactlyOnce(four, true, "four");
}

TEST_F(TeamTest, RepeatedJobsOfChangingSizeRunExactlyOnce) {
  // Back-to-back jobs while the workers spin: a worker must never run a group of a job
  // that already ended or pick up the next job's ranges with the previous job's function.
  Team &team = Team::instance();
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t total = 1 + static_cast<std::uint64_t>(i * 7919) % 300;
    Counting c(total);
    ASSERT_TRUE(team.run(c.job(i % 2 == 1)));
    ASSERT_EQ(c.wrongCounts(), 0u) << "job " << i;
  }
}

void checkStaticBlocks(Team &team) {
  const unsigned n = team.size();
  for (std::uint64_t total : kSizes) {
    SCOPED_TRACE("total=" + std::to_string(total) + " threads=" + std::to_string(n));
    Counting c(total);
    ASSERT_TRUE(team.run(c.job(false)));
    ASSERT_EQ(c.wrongCounts(), 0u);
    std::uint64_t misplaced = 0;
    for (std::uint64_t g = 0; g < total; ++g) {
      unsigned want = total == 1 ? 0 : expectedOwner(g, total, n);
      int got = c.thread[g].load();
      if (got != static_cast<int>(want) && misplaced++ < 5)
        ADD_FAILURE() << "group " << g << " ran on thread " << got << ", block owner " << want;
    }
    EXPECT_EQ(misplaced, 0u);
    // One call per thread with a non-empty block: no chunking in a static split.
    EXPECT_EQ(c.calls.load(), std::min<std::uint64_t>(total, n));
  }
}

TEST_F(TeamTest, StaticSplitRunsBlockKOnThreadK) {
  checkStaticBlocks(Team::instance());
  Team four(smallSpin(4));
  checkStaticBlocks(four);
}

// A job from the background launch thread leaves the application's thread a CPU: it runs
// on one thread fewer than the team has (team::Job::from_background). With the static
// split every thread of the job gets a block, so the thread left out is the only one
// that never runs a group, every time.
TEST_F(TeamTest, JobFromTheBackgroundRunsOnOneThreadFewer) {
  for (unsigned threads : {2u, 3u, 4u}) {
    Team team(smallSpin(threads));
    for (std::uint64_t total : {64u, 1000u}) {
      SCOPED_TRACE("threads=" + std::to_string(threads) + " total=" + std::to_string(total));
      Counting c(total);
      Job job = c.job(false);
      job.from_background = true;
      ASSERT_TRUE(team.run(job));
      EXPECT_EQ(c.wrongCounts(), 0u);
      EXPECT_EQ(c.max_thread.load(), threads - 2) << "a thread past the job's ran a group";
    }
  }
}

// Thread 0's first group sleeps 20 ms; the others must take some of thread 0's block.
void slowFirstGroupOfThreadZero(Counting &, std::uint64_t b, std::uint64_t, unsigned t) {
  if (t == 0 && b == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

bool someOfThreadZerosBlockStolen(Team &team) {
  const std::uint64_t total = 256;
  // Up to three attempts: on a shared 2-vCPU machine a worker may be descheduled for the
  // whole 20 ms once; it cannot be three times running without something being broken.
  for (int attempt = 0; attempt < 3; ++attempt) {
    Counting c(total);
    c.hook = slowFirstGroupOfThreadZero;
    EXPECT_TRUE(team.run(c.job(true)));
    EXPECT_EQ(c.wrongCounts(), 0u);
    const std::uint64_t block0_end = total / team.size();  // total is a multiple here
    std::uint64_t stolen = 0;
    for (std::uint64_t g = 0; g < block0_end; ++g) stolen += c.thread[g].load() != 0;
    if (stolen > 0) return true;
  }
  return false;
}

TEST_F(TeamTest, StealingTakesGroupsFromASlowThread) {
  Team &team = Team::instance();
  if (team.size() < 2) GTEST_SKIP() << "one allowed CPU: no team";
  EXPECT_TRUE(someOfThreadZerosBlockStolen(team));
  Team four(smallSpin(4));
  EXPECT_TRUE(someOfThreadZerosBlockStolen(four));
}

TEST_F(TeamTest, StaticSplitDoesNotSteal) {
  // The same slow thread 0 with steal=false: its whole block stays on thread 0.
  Team &team = Team::instance();
  if (team.size() < 2) GTEST_SKIP() << "one allowed CPU: no team";
  Counting c(256);
  c.hook = slowFirstGroupOfThreadZero;
  ASSERT_TRUE(team.run(c.job(false)));
  for (std::uint64_t g = 0; g < 256 / team.size(); ++g) ASSERT_EQ(c.thread[g].load(), 0);
}

// Nested use: every range calls run() again on `user` (a Team); all must return false.
std::atomic<int> g_nested_true{0}, g_nested_false{0}, g_wrong_team_flag{0}, g_wrong_id{0};
void nestedRun(Counting &c, std::uint64_t, std::uint64_t, unsigned t) {
  Team &team = *static_cast<Team *>(c.user);
  Counting inner(10);
  if (team.run(inner.job(t % 2 == 0))) g_nested_true++;
  else g_nested_false++;
  // The team thread flag and team_id the launch code relies on.
  if (Team::onTeamThread() != (t != 0)) g_wrong_team_flag++;
  if (hk::kernel::threadState().team_id != t) g_wrong_id++;
}

TEST_F(TeamTest, NestedRunReturnsFalse) {
  for (bool steal : {false, true}) {
    Team &team = Team::instance();
    g_nested_true = g_nested_false = g_wrong_team_flag = g_wrong_id = 0;
    Counting c(64);
    c.hook = nestedRun;
    c.user = &team;
    ASSERT_TRUE(team.run(c.job(steal)));
    EXPECT_EQ(c.wrongCounts(), 0u);
    EXPECT_EQ(g_nested_true.load(), 0);
    EXPECT_GT(g_nested_false.load(), 0);
    EXPECT_EQ(g_wrong_team_flag.load(), 0);
    EXPECT_EQ(g_wrong_id.load(), 0);
  }
  // A worker of one team must not wait on another team either.
  Team four(smallSpin(4));
  g_nested_true = g_nested_false = 0;
  Counting c(64);
  c.hook = [](Counting &cc, std::uint64_t, std::uint64_t, unsigned t) {
    if (t != 1) return;  // one worker only, so the other team is certainly free
    Counting inner(10);
    if (static_cast<Team *>(cc.user)->run(inner.job(false))) g_nested_true++;
    else g_nested_false++;
  };
  c.user = &Team::instance();
  ASSERT_TRUE(four.run(c.job(false)));
  EXPECT_EQ(g_nested_true.load(), 0);
  EXPECT_EQ(g_nested_false.load(), 1);
  EXPECT_FALSE(Team::onTeamThread());
}

TEST_F(TeamTest, BusyTeamReturnsFalseWithoutWaiting) {
  Team &team = Team::instance();
  if (team.size() < 2) GTEST_SKIP() << "one allowed CPU: no team";
  std::atomic<bool> holding{false}, release{false};
  struct Ctx {
    std::atomic<bool> *holding, *release;
  } ctx{&holding, &release};
  Job blocking{[](void *p, std::uint64_t, std::uint64_t, unsigned t) {
                 auto *c = static_cast<Ctx *>(p);
                 if (t != 0) return;
                 c->holding->store(true);
                 while (!c->release->load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
               },
               &ctx, 2, false};
  std::thread holder([&] { EXPECT_TRUE(team.run(blocking)); });
  while (!holding.load()) std::this_thread::yield();
  auto other = std::async(std::launch::async, [&] {
    Counting c(100);
    return team.run(c.job(false));
  });
  bool returned = other.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  release = true;
  holder.join();
  ASSERT_TRUE(returned) << "run() on a busy team waited";
  EXPECT_FALSE(other.get());
}

TEST_F(TeamTest, ConcurrentRunsFromFourApplicationThreadsCompleteExactlyOnce) {
  Team &team = Team::instance();
  std::atomic<int> on_team{0}, inline_runs{0}, failures{0}, ready{0}, per_thread[4]{};
  auto body = [&](int id) {
    ready++;
    while (ready.load() < 4) std::this_thread::yield();  // start together
    for (int i = 0; i < 150; ++i) {
      const std::uint64_t total = 50 + static_cast<std::uint64_t>((id * 131 + i * 17) % 2000);
      Counting c(total);
      Job job = c.job((i + id) % 2 == 0);
      if (team.run(job)) {
        on_team++;
        per_thread[id]++;
      } else {
        job.run(job.ctx, 0, job.total, 0);
        inline_runs++;
      }
      bool ok = c.bad_ranges.load() == 0;
      for (std::uint64_t g = 0; g < total && ok; ++g) ok = c.count[g].load() == 1;
      if (!ok) failures++;
      // Uneven pauses so that the team changes hands (without them the thread that got it
      // first tends to keep it: it asks again right after releasing it).
      std::this_thread::sleep_for(std::chrono::microseconds(10 + 30 * ((i + id) % 4)));
    }
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < 4; ++id) threads.emplace_back(body, id);
  for (auto &t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(on_team.load() + inline_runs.load(), 600);
  EXPECT_GT(on_team.load(), 0);
  std::printf("[ info     ] 600 jobs from 4 threads: %d on the team (%d %d %d %d), %d inline\n",
              on_team.load(), per_thread[0].load(), per_thread[1].load(), per_thread[2].load(),
              per_thread[3].load(), inline_runs.load());
}

TEST_F(TeamTest, WorkersHaveLargeStacks) {
  Team &team = Team::instance();
  if (team.size() < 2) GTEST_SKIP() << "one allowed CPU: no team";
  static std::atomic<std::size_t> worker_stack{0};
  static std::atomic<int> touched{0};
  Job job{[](void *, std::uint64_t, std::uint64_t, unsigned t) {
            if (t == 0) return;
            pthread_attr_t attr;
            std::size_t size = 0;
            if (pthread_getattr_np(pthread_self(), &attr) == 0) {
              pthread_attr_getstacksize(&attr, &size);
              pthread_attr_destroy(&attr);
            }
            worker_stack = size;
            // A 24 MiB frame, as a kernel with big private arrays and a large local size
            // has (more than the 8 MiB of a default thread), touched page by page.
            volatile char *frame = static_cast<volatile char *>(__builtin_alloca(24u << 20));
            for (std::size_t i = 0; i < (24u << 20); i += 4096) frame[i] = 1;
            touched++;
          },
          nullptr, 2, false};
  ASSERT_TRUE(team.run(job));
  EXPECT_GE(worker_stack.load(), team.workerStackBytes());
  EXPECT_GE(team.workerStackBytes(), std::size_t{64} << 20);
  EXPECT_EQ(touched.load(), 1);
}

// No lost wake-ups: without spinning, every wait parks on a futex (workers between jobs,
// the caller until the workers finish). A park has a 2 ms limit as a safety net; one
// that ends by that limit and then finds its condition met is a "late wake", what a lost
// wake-up would look like. Allowed only rarely (a VM may stall the waking thread for 2 ms
// between its change and its wake-up call); a missing wake-up makes nearly every park one.
TEST_F(TeamTest, ParkedThreadsAreWokenNotTimedOut) {
  TeamOptions o;
  o.threads = 2;
  o.spin_ns = 0;
  Team team(o);
  for (int i = 0; i < 3000; ++i) {
    Counting c(7);
    ASSERT_TRUE(team.run(c.job(i % 2 == 1)));
    ASSERT_EQ(c.wrongCounts(), 0u);
  }
  const Team::WaitStats s = team.waitStats();
  std::printf("[ info     ] 3000 jobs without spinning: %llu parks, %llu late wakes\n",
              static_cast<unsigned long long>(s.parks),
              static_cast<unsigned long long>(s.late_wakes));
  EXPECT_GE(s.parks, 1000u);  // the waits did park
  EXPECT_LE(s.late_wakes * 100, s.parks);
}

// parkSpinners(): workers that would spin for seconds park at once, and the next job
// wakes them and runs exactly once. Without it the parks come only after the spin (4 s),
// past the 2 s this test waits.
TEST_F(TeamTest, ParkSpinnersParksTheWorkersNowAndTheNextJobWakesThem) {
  TeamOptions o;
  o.threads = 2;
  o.spin_ns = 4'000'000'000u;
  Team team(o);
  Counting first(64);
  ASSERT_TRUE(team.run(first.job(false)));
  const std::uint64_t parks = team.waitStats().parks;
  team.parkSpinners();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (team.waitStats().parks == parks && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_GT(team.waitStats().parks, parks) << "the worker still spins";
  Counting next(64);
  ASSERT_TRUE(team.run(next.job(false)));
  EXPECT_EQ(next.wrongCounts(), 0u);
}

// An unpinned worker that finds itself on the caller's CPU moves off it, and stays
// unpinned: here a job forces the worker onto the caller's CPU; while it then waits for
// the next job it sees the caller there and moves (waitStats().moves), after which it
// may run on every CPU it could before.
TEST_F(TeamTest, UnpinnedWorkerMovesOffTheCallersCpu) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  if (CPU_COUNT(&all) < 2) GTEST_SKIP() << "one allowed CPU: nowhere to move";
  TeamOptions o;
  o.threads = 2;
  o.spin_ns = 50'000'000;  // the worker spins (and checks its CPU) between the jobs
  Team team(o);
  struct Ctx {
    Team *team = nullptr;
    std::atomic<int> caller_cpu{-1};
    std::atomic<bool> forced{false};
    std::atomic<std::uint64_t> moves_when_forced{0};
    std::atomic<int> worker_mask_count{0};
  } ctx;
  ctx.team = &team;
  // Only the worker moves itself, so the moves counted once it is forced onto the
  // caller's CPU are all later than the force. (A count read by the caller before the
  // job could miss a move the worker made just before the force: the wait below then
  // ended at once and the check saw the forced one-CPU mask.)
  Job force{[](void *p, std::uint64_t, std::uint64_t, unsigned t) {
              auto &c = *static_cast<Ctx *>(p);
              if (t == 0) {
                c.caller_cpu.store(sched_getcpu());
                return;
              }
              while (c.caller_cpu.load() < 0) {
              }
              // Onto the caller's CPU, then every CPU allowed again: the thread stays
              // where it runs, as one the scheduler woke there does.
              cpu_set_t one, every;
              CPU_ZERO(&one);
              CPU_SET(c.caller_cpu.load(), &one);
              c.forced.store(sched_getaffinity(0, sizeof every, &every) == 0 &&
                             sched_setaffinity(0, sizeof one, &one) == 0 &&
                             sched_setaffinity(0, sizeof every, &every) == 0);
              c.moves_when_forced.store(c.team->waitStats().moves);
            },
            &ctx, 2, false};
  // On a loaded machine the scheduler may move the worker off the caller's CPU itself
  // before it spins there, or the worker may not run during its spin: then it does not
  // move, and the force is tried again (up to 20 times, 250 ms each).
  bool moved = false;
  for (int attempt = 0; attempt < 20 && !moved; ++attempt) {
    ctx.caller_cpu.store(-1);
    ctx.forced.store(false);
    ASSERT_TRUE(team.run(force));
    ASSERT_TRUE(ctx.forced.load());
    const std::uint64_t before = ctx.moves_when_forced.load();
    // The caller stays on its CPU (pinned for the test) while the worker spins there.
    cpu_set_t here;
    CPU_ZERO(&here);
    CPU_SET(ctx.caller_cpu.load(), &here);
    ASSERT_EQ(sched_setaffinity(0, sizeof here, &here), 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
    while (team.waitStats().moves == before && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    sched_setaffinity(0, sizeof all, &all);
    moved = team.waitStats().moves > before;
  }
  EXPECT_TRUE(moved) << "the worker never moved off the caller's CPU";
  Job check{[](void *p, std::uint64_t, std::uint64_t, unsigned t) {
              if (t == 0) return;
              cpu_set_t mask;
              if (sched_getaffinity(0, sizeof mask, &mask) == 0)
                static_cast<Ctx *>(p)->worker_mask_count.store(CPU_COUNT(&mask));
            },
            &ctx, 2, false};
  ASSERT_TRUE(team.run(check));
  EXPECT_EQ(ctx.worker_mask_count.load(), CPU_COUNT(&all));  // unpinned again
}

// Dispatch cost of a trivial job (one empty range per thread), median of many, printed for
// docs/team.md. Not asserted: the machine is shared and noisy.
TEST_F(TeamTest, ReportsDispatchCostOfATrivialJob) {
  Team &team = Team::instance();
  if (team.size() < 2) GTEST_SKIP() << "one allowed CPU: no team";
  Job job{[](void *, std::uint64_t, std::uint64_t, unsigned) {}, nullptr, team.size(), false};
  for (bool steal : {false, true}) {
    job.steal = steal;
    std::vector<double> ns;
    for (int i = 0; i < 2000; ++i) team.run(job);  // warm: workers spinning
    for (int i = 0; i < 20000; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      team.run(job);
      auto t1 = std::chrono::steady_clock::now();
      ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    std::sort(ns.begin(), ns.end());
    std::printf("[ info     ] trivial job on %u threads, steal=%d: median %.0f ns, p90 %.0f ns, "
                "p99 %.0f ns\n",
                team.size(), steal, ns[ns.size() / 2], ns[ns.size() * 9 / 10],
                ns[ns.size() * 99 / 100]);
  }
}

}  // namespace
