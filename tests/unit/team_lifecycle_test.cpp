// Team lifecycle: threads start lazily, are joined at exit without hanging (idle spinning,
// parked, or while another thread keeps launching), and a fork child gets a working team
// even if the parent's team was busy at the time of the fork. Every check that could hang
// runs in a forked child that the parent kills after a deadline.

#include "team/team.hpp"

#include <gtest/gtest.h>
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "base/config.hpp"
#include "team/topology.hpp"

namespace {

using hk::team::Job;
using hk::team::Team;
using hk::team::TeamOptions;

#if defined(__SANITIZE_THREAD__)
constexpr bool kTsan = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kTsan = true;
#else
constexpr bool kTsan = false;
#endif
#else
constexpr bool kTsan = false;
#endif

// A job that checks itself: counts per group, remembers which threads ran.
struct Checked {
  explicit Checked(std::uint64_t n) : total(n), count(n) {}
  std::uint64_t total;
  std::vector<std::atomic<std::uint32_t>> count;
  std::atomic<unsigned> threads_seen{0};  // bit per thread index (< 32)
  static void run(void *ctx, std::uint64_t b, std::uint64_t e, unsigned t) {
    auto &c = *static_cast<Checked *>(ctx);
    c.threads_seen.fetch_or(1u << (t & 31));
    for (std::uint64_t g = b; g < e; ++g) c.count[g].fetch_add(1, std::memory_order_relaxed);
  }
  Job job(bool steal) { return Job{&Checked::run, this, total, steal}; }
  bool exactlyOnce() const {
    for (std::uint64_t g = 0; g < total; ++g)
      if (count[g].load() != 1) return false;
    return true;
  }
};

// Runs body() in a forked child; the child's exit code is body()'s result (exit() unless
// stated: static destructors run, which is where the team's workers are joined). Returns
// the exit status, or -1 if the child did not finish within `seconds` (killed).
template <typename Body>
int inChild(Body body, int seconds = 20) {
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) std::exit(body());
  if (pid < 0) return -2;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Threads of this process (/proc/self/task).
int threadCount() {
  int n = 0;
  if (DIR *d = opendir("/proc/self/task")) {
    while (dirent *e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

// TSan does not support starting threads in the fork child of a multithreaded process
// (die_after_fork): under TSan, tests that fork with threads running are skipped.
#define SKIP_IF_TSAN_AND_THREADED()                                                   \
  if (kTsan && threadCount() > 1)                                                      \
  GTEST_SKIP() << "TSan does not support threads in a multithreaded fork child"

int runAndCheck(Team &team, std::uint64_t total, bool steal) {
  Checked c(total);
  if (!team.run(c.job(steal))) return 10;
  if (!c.exactlyOnce()) return 11;
  // With more than one thread, a static split of >= size groups uses every thread.
  if (!steal && team.size() > 1 && total >= team.size() &&
      c.threads_seen.load() != (1u << team.size()) - 1)
    return 12;
  return 0;
}

TEST(TeamLifecycle, DestroyedTeamJoinsItsWorkersAndLaterRunsReturnFalse) {
  // Spinning, parking at once, and parked workers must all be woken and joined.
  for (std::uint32_t spin : {0u, 2000u, 100000u}) {
    EXPECT_EQ(inChild([spin] {
                TeamOptions o;
                o.threads = 3;
                o.spin_ns = spin;
                auto team = std::make_unique<Team>(o);
                if (runAndCheck(*team, 1000, true)) return 1;
                if (spin == 100000u) std::this_thread::sleep_for(std::chrono::milliseconds(30));
                team->shutdown();
                Checked c(10);
                if (team->run(c.job(false))) return 2;
                team.reset();  // second shutdown: nothing to do, must not hang
                return 0;
              }),
              0)
        << "spin " << spin;
  }
}

TEST(TeamLifecycle, ExitWithSpinningWorkersDoesNotHang) {
  SKIP_IF_TSAN_AND_THREADED();
  // Each child starts the process-wide team, runs, and exits at once: workers spinning.
  EXPECT_EQ(inChild([] {
              Team &team = Team::instance();
              int r = runAndCheck(team, 1000, false);
              return r ? r : runAndCheck(team, 1000, true);
            }),
            0);
}

TEST(TeamLifecycle, ExitWithParkedWorkersDoesNotHang) {
  SKIP_IF_TSAN_AND_THREADED();
  EXPECT_EQ(inChild([] {
              int r = runAndCheck(Team::instance(), 1000, false);
              std::this_thread::sleep_for(std::chrono::milliseconds(30));  // > spin: parked
              return r;
            }),
            0);
}

TEST(TeamLifecycle, ExitWhileAnotherThreadKeepsLaunchingDoesNotHang) {
  SKIP_IF_TSAN_AND_THREADED();
  EXPECT_EQ(inChild([] {
              std::atomic<bool> started{false};
              std::thread launcher([&] {
                for (;;) {  // until the process exits; runs inline once the team is shut
                  Checked c(500);
                  Job job = c.job(false);
                  if (!Team::instance().run(job)) job.run(job.ctx, 0, job.total, 0);
                  started = true;
                }
              });
              launcher.detach();
              while (!started) std::this_thread::yield();
              return 0;
            }),
            0);
}

TEST(TeamLifecycle, ForkChildRunsJobsOnAFreshTeam) {
  // Parent's team started and spinning; the child must start its own workers.
  ASSERT_EQ(runAndCheck(Team::instance(), 1000, false), 0);
  SKIP_IF_TSAN_AND_THREADED();
  EXPECT_EQ(inChild([] {
              for (int i = 0; i < 100; ++i) {
                int r = runAndCheck(Team::instance(), 1 + i * 37, i % 2 == 1);
                if (r) return r;
              }
              return 0;
            }),
            0);
  // And the parent's team still works after the fork.
  EXPECT_EQ(runAndCheck(Team::instance(), 1000, true), 0);
}

TEST(TeamLifecycle, ForkWhileAnotherThreadHoldsTheTeamLeavesTheChildATeam) {
  SKIP_IF_TSAN_AND_THREADED();
  Team &team = Team::instance();
  if (team.size() < 2) GTEST_SKIP() << "one allowed CPU: no team";
  struct Hold {
    std::atomic<bool> holding{false}, release{false};
  } hold;
  Job blocking{[](void *p, std::uint64_t, std::uint64_t, unsigned t) {
                 auto *h = static_cast<Hold *>(p);
                 if (t != 0) return;
                 h->holding = true;
                 while (!h->release) std::this_thread::sleep_for(std::chrono::microseconds(200));
               },
               &hold, 2, false};
  std::thread holder([&] { EXPECT_TRUE(team.run(blocking)); });
  while (!hold.holding) std::this_thread::yield();
  // At the fork the team is busy and its workers exist; in the child neither holds.
  int child = inChild([] { return runAndCheck(Team::instance(), 1000, false); });
  hold.release = true;
  holder.join();
  EXPECT_EQ(child, 0);
}

TEST(TeamLifecycle, TeamIsNeverLargerThanTheAffinityMask) {
  SKIP_IF_TSAN_AND_THREADED();
  // A child restricted to one CPU: the team has one thread, runs jobs on the caller.
  EXPECT_EQ(inChild([] {
              cpu_set_t one;
              CPU_ZERO(&one);
              CPU_SET(hk::team::allowedCpus().front(), &one);
              if (sched_setaffinity(0, sizeof one, &one) != 0) return 20;
              if (hk::team::allowedCpus().size() != 1) return 21;
              Team team(hk::team::optionsFromConfig(hk::config(), 1));
              if (team.size() != 1) return 22;
              Checked c(1000);
              if (!team.run(c.job(false)) || !c.exactlyOnce()) return 23;
              if (c.threads_seen.load() != 1u) return 24;  // thread 0 only
              return 0;
            }),
            0);
  // The process-wide team: CPUs in the mask, capped by HOSTKERNEL_NUM_THREADS.
  unsigned cpus = static_cast<unsigned>(hk::team::allowedCpus().size());
  unsigned cap = hk::config().num_threads;
  EXPECT_EQ(Team::instance().size(), cap && cap < cpus ? cap : cpus);
}

TEST(TeamLifecycle, PinnedWorkersRunOnTheirOwnCpu) {
  auto cpus = hk::team::allowedCpus();
  if (cpus.size() < 2) GTEST_SKIP() << "one allowed CPU";
  for (hk::PinMode pin : {hk::PinMode::Pus, hk::PinMode::Cores}) {
    TeamOptions o;
    o.threads = static_cast<unsigned>(cpus.size());
    o.pin = pin;
    Team team(o);
    static std::atomic<int> worker_cpus[64];
    static std::atomic<int> worker_mask[64];
    Job job{[](void *, std::uint64_t, std::uint64_t, unsigned t) {
              if (t == 0 || t >= 64) return;
              cpu_set_t set;
              CPU_ZERO(&set);
              sched_getaffinity(0, sizeof set, &set);
              worker_mask[t] = CPU_COUNT(&set);
              worker_cpus[t] = sched_getcpu();
            },
            nullptr, o.threads, false};
    ASSERT_TRUE(team.run(job));
    std::vector<int> seen;
    for (unsigned t = 1; t < o.threads && t < 64; ++t) {
      // PUs: exactly one CPU each, all different. Cores: the PUs of one core.
      if (pin == hk::PinMode::Pus) {
        EXPECT_EQ(worker_mask[t].load(), 1) << "thread " << t;
        EXPECT_EQ(std::count(seen.begin(), seen.end(), worker_cpus[t].load()), 0);
        seen.push_back(worker_cpus[t].load());
      } else {
        EXPECT_GE(worker_mask[t].load(), 1) << "thread " << t;
      }
    }
  }
}

}  // namespace
