// The thread team: hostkernel's own worker threads, one per allowed CPU, that split the
// work-groups of a large launch with the calling thread. See docs/team.md.
//
//   struct Ctx { ... };
//   void runRange(void *ctx, std::uint64_t begin, std::uint64_t end, unsigned thread) {
//     for (std::uint64_t g = begin; g < end; ++g) runGroup(*static_cast<Ctx *>(ctx), g);
//   }
//   hk::team::Job job{runRange, &ctx, total_groups, /*steal=*/false};
//   if (!hk::team::Team::instance().run(job))   // busy, nested, or called on a team thread
//     runRange(&ctx, 0, total_groups, 0);        // run it inline instead
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/config.hpp"
#include "team/topology.hpp"

namespace hk::team {

class TeamChoice;

// One parallel job: groups [0, total) of a launch. run() is called with disjoint,
// non-empty ranges whose union is [0, total); `thread` is the team thread index
// (0 = the launching thread). run() must not throw.
struct Job {
  void (*run)(void *ctx, std::uint64_t begin, std::uint64_t end, unsigned thread);
  void *ctx;
  std::uint64_t total;
  // false: static split only, block k of the groups on thread k.
  // true: block k starts on thread k; threads that finish early steal from the others.
  bool steal;
  // Stack the work-groups need on any thread (0: little); threads of the application's
  // with less run none of them (team/dispatch.hpp).
  std::uint64_t stack_bytes = 0;
  // When set, the team adds the time its threads spent running groups, summed over the
  // threads that ran any. The team times its threads anyway where it needs to
  // (ForeignTeam), so that run() itself need not read the clock.
  std::atomic<std::uint64_t> *work_ns = nullptr;
  // HOSTKERNEL_TEAM=auto with OpenMP loaded: the launching kernel's choice of team
  // (team/team_choice.hpp); null: the process's.
  TeamChoice *choice = nullptr;
  // The job comes from the background launch thread (queue/background.hpp) while the
  // application's thread goes on with its own work. Only hostkernel's own workers run it
  // (team/dispatch.cpp), and one thread fewer than the team has, so that the application
  // keeps a CPU: with a team of two, the background thread runs it alone. A team of
  // every CPU beside a busy application thread has one thread more than CPUs, and a job
  // then waits for whichever of its threads the scheduler left out. A stealing job keeps
  // the left-out thread's block for a helper (Team::help()), the application's thread
  // once it waits for the launch; the others steal it when no helper comes.
  bool from_background = false;
};

// How a team is made. Team::instance() uses optionsFromConfig(); tests and benchmarks
// make their own teams.
struct TeamOptions {
  unsigned threads = 1;                  // team size including the caller (exact)
  PinMode pin = PinMode::None;           // pin worker threads to cores or PUs
  std::uint32_t spin_ns = 100'000;       // spin this long before parking (workers, caller)
  std::size_t stack_bytes = std::size_t{64} << 20;  // worker stacks (mapped lazily)
};

// The process's team: size = CPUs in the affinity mask, capped by HOSTKERNEL_NUM_THREADS
// (never more than the allowed CPUs); pinning from HOSTKERNEL_PIN; spin before parking
// from HOSTKERNEL_SPIN_US.
TeamOptions optionsFromConfig(const Config &config, unsigned allowed_cpus);

class Team {
 public:
  // The process-wide team (sized and pinned from hk::config()); threads start lazily on
  // the first run() and are joined at exit or when libhostkernel.so is unloaded.
  static Team &instance();

  explicit Team(const TeamOptions &options);
  ~Team();  // joins the workers (shutdown())
  Team(const Team &) = delete;
  Team &operator=(const Team &) = delete;

  // Threads including the caller. Before the first run() the configured size; after it,
  // the threads actually started plus the caller.
  unsigned size() const { return size_.load(std::memory_order_relaxed); }
  // Stack size of every worker thread (the caller's is its own).
  std::size_t workerStackBytes() const { return options_.stack_bytes; }

  // Runs the job with the caller as thread 0 and returns when every group ran exactly
  // once. Returns false WITHOUT running anything when the team is busy (another
  // application thread is running a job on it), when called on a team thread or from
  // inside a job (nested), or after shutdown: the caller then runs the job inline.
  // A team of one thread, or a job of one group, runs on the caller and returns true.
  bool run(const Job &job);

  // help() lets the calling thread take part in the job the background launch thread is
  // running (Job::from_background): it takes the block of the thread the job leaves out,
  // then what is left of the others', and returns true once no group is left for it.
  // False at once when no such job is open, when another thread already helps it, on a
  // team thread, or when the job needs more stack (Job::stack_bytes) than `stack_room`,
  // the caller's. The caller must not be inside a launch. A thread that waits for the
  // background launch calls it (queue/background.cpp, settleAll): its CPU would idle in
  // the wait while the job runs on one thread fewer than the team has.
  //
  //   if (team.helpWanted()) team.help(room);   // then wait for the launch as before
  bool help(std::uint64_t stack_room);
  // True while a job of the background thread is open for help().
  bool helpWanted() const { return helper_state_.load(std::memory_order_relaxed) != 0; }
  // onHelpWanted() sets the function run() calls, on the background thread, each time it
  // opens a job for help(): threads that wait for the launch may be parked.
  static void onHelpWanted(void (*notify)());

  // How the team's threads waited, since it was made. A park is a futex wait (after the
  // spin); a late wake is a park that ended by its 2 ms time limit and then found its
  // condition met: what a lost wake-up looks like. Only a thread the system kept from
  // running for 2 ms between the change and its wake-up call makes one otherwise.
  // Moves: times an unpinned worker found itself on the caller's CPU and moved off it.
  struct WaitStats {
    std::uint64_t parks = 0, late_wakes = 0, moves = 0;
  };
  WaitStats waitStats() const {
    return {parks_.load(std::memory_order_relaxed), late_wakes_.load(std::memory_order_relaxed),
            moves_.load(std::memory_order_relaxed)};
  }

  // True on the team's worker threads (of any team).
  static bool onTeamThread();

  // The workers that spin waiting for a job park now instead of at the end of their
  // spin: the next jobs go to another team (team/team_choice.hpp), whose threads need
  // the CPUs. The next run() wakes them as usual.
  void parkSpinners();

  // Stops and joins the workers; later run()s return false. Waits up to a second for a
  // job running on another thread to finish; if it does not, the workers are left alone
  // (the process is exiting). Idempotent.
  void shutdown();

 private:
  struct Slot;
  struct LiveTeams;
  friend struct LiveTeams;

  enum class Discovery { None, Running, Installed };
  bool start();
  void choosePlaces(unsigned want);
  int startWorker(unsigned k);
  void startDiscovery();
  void installTopology();
  void logPlaces() const;
  static void *discoveryMain(void *team);
  void stopWorkers();
  void resetAfterFork();
  static void *workerMain(void *slot);
  void workerLoop(unsigned index);
  std::uint64_t waitForChange(unsigned thread, std::uint64_t seen);
  int noteCpu(unsigned thread);
  bool moveOffCpu(unsigned thread, int cpu);
  template <typename Ready>
  void callerWait(Ready ready);
  void notifyCaller();
  // Thread `thread`'s share of the job (timed into job.work_ns when set): groups run.
  std::uint64_t work(unsigned thread, const Job &job, unsigned nthreads);
  std::uint64_t runShare(unsigned thread, const Job &job, unsigned nthreads);
  void wakeWorkers();

  // Dispatch line: written by the caller for each job, read by every worker.
  alignas(64) std::atomic<std::uint64_t> state_{0};  // (epoch << 1) | open
  Job job_{};
  unsigned job_threads_ = 0;                          // threads taking part in job_
  unsigned job_blocks_ = 0;                           // its blocks: job_threads_, + 1 for help()
  // The open state of a job of the background thread while no thread has taken its
  // helper's block (help()), else 0.
  std::atomic<std::uint64_t> helper_state_{0};
  std::atomic<std::uint32_t> sleepers_{0};            // workers parked or about to
  std::atomic<std::uint32_t> wake_{0};                // futex word for parked workers

  // Completion line: workers report here, the caller waits on it.
  alignas(64) std::atomic<std::uint64_t> done_{0};    // groups finished
  std::atomic<std::uint32_t> refs_{0};                // workers inside the open job
  std::atomic<std::uint32_t> caller_sleeping_{0};
  std::atomic<std::uint32_t> caller_wake_{0};         // futex word for a parked caller

  // waitStats(): written only by threads about to park, on a line of their own.
  alignas(64) std::atomic<std::uint64_t> parks_{0};
  std::atomic<std::uint64_t> late_wakes_{0};
  std::atomic<std::uint64_t> moves_{0};

  // Caller-owned: taken with busy_, which serialises run(), start and shutdown.
  alignas(64) std::atomic<bool> busy_{false};
  std::atomic<bool> closing_{false};                  // shutdown() wants the team
  std::atomic<bool> park_now_{false};                 // parkSpinners(), until run()
  std::atomic<bool> stop_{false};                     // tells workers to exit
  std::atomic<bool> shut_down_flag_{false};           // shutdown() completed
  std::atomic<unsigned> size_{1};
  std::uint64_t epoch_ = 0;
  bool started_ = false;
  TeamOptions options_;
  std::vector<CpuPlace> places_;
  std::vector<unsigned> steal_order_;                  // stealOrder(places_)
  Discovery discovery_ = Discovery::None;              // the topology helper thread
  bool discovery_joinable_ = false;
  int discovery_caller_cpu_ = -1;
  pthread_t discovery_thread_{};
  std::atomic<std::vector<CpuPlace> *> discovered_{nullptr};  // its result
  Slot *slots_ = nullptr;                              // one per thread
  unsigned nslots_ = 0;

  // The registry of live teams for the fork handler.
  Team *reg_prev_ = nullptr;
  Team *reg_next_ = nullptr;
};

}  // namespace hk::team
