#include "queue/background.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <new>

#include "base/clock.hpp"
#include "base/config.hpp"
#include "base/exit_guard.hpp"
#include "base/log.hpp"
#include "base/next.hpp"
#include "base/starting_threads.hpp"
#include "base/thread_safety.hpp"
#include "kernel/thread_state.hpp"
#include "launch/launcher.hpp"
#include "launch/overlap_trial.hpp"
#include "launch/tuning.hpp"
#include "pocl/abi.hpp"
#include "queue/events.hpp"
#include "team/cpu_mover.hpp"
#include "team/dispatch.hpp"
#include "team/team.hpp"
#include "team/waiting.hpp"

namespace hk::queue {

// The trial charges the launches pending at a background chunk's end to the background.
static_assert(launch::OverlapTrial::kPendingLaunches == kBackgroundDepth);

constinit BackgroundNow g_background_now;

namespace {

// The background thread's stack: room for the largest work-group a caller's thread could
// run (planWithinStack plans against the caller's stack; a plan that needs more than this
// runs on the caller).
constexpr std::size_t kStackBytes = std::size_t{16} << 20;
// After a launch, the background thread spins this long for the next one before it
// parks: a caller that launches again within it pays no wake-up.
constexpr std::uint64_t kIdleSpinNs = 50'000;
// A caller that needs the launch's result spins at most this long before it parks, and
// only this long (kTeamSpinNs) when the launch runs on the team, whose threads need the
// CPUs the caller would spin on.
constexpr std::uint64_t kSettleSpinNs = 20'000;
// A settling caller spins this much longer than the launch is expected to take: a
// launch a little slower than its last one must not cost a park and a wake-up (a system
// call each, and the scheduler's latency to run the caller again).
constexpr std::uint64_t kSettleSlackNs = 10'000;
constexpr std::uint64_t kTeamSpinNs = 2'000;
// A launch whose result is needed within this time of its enqueue, or within a quarter of
// its duration, overlapped too little of it to pay for the hand-over (and beside a busy
// process, for sharing a CPU with it); a kernel with kMissesInRow such launches in a row
// runs before its calls return again for its next kPauseLaunches long launches
// (launch::noteLongLaunch).
constexpr std::uint64_t kMinGapNs = 2'000;
constexpr std::uint32_t kMissesInRow = 4;
constexpr std::uint32_t kPauseLaunches = 64;
// A launch during which the background thread was kept from running for more than kLateNs
// (and longer than it ran) lost its CPU to another process: a caller that needs it waits
// for a time slice, milliseconds, where running the launch itself would have cost its
// duration. Two such in a row pause the kernel's background launches for kPauseLaunches
// long launches, doubling with each further one in a row up to kPauseLaunches <<
// kLongestPauseShift: a CPU that stays busy costs a few time slices per thousands of
// launches.
constexpr std::uint64_t kLateNs = 100'000;
// The thread's CPU time is a system call (clock_gettime(CLOCK_THREAD_CPUTIME_ID), 1.3 us on
// a virtual machine), two per launch before it counts done: a fifth of a 10 us kernel. So
// only a launch expected to take at least kCpuTimedNs reads it; a shorter one counts as
// late when its wall time exceeds its expected duration d by max(kLateNs, d): the
// expected duration stands for the CPU time it would have had.
constexpr std::uint64_t kCpuTimedNs = 50'000;
// A launch not started this long after its hand-over (and twice its duration) counts as a
// late one too: the background thread got no CPU, so the launch overlapped nothing and
// cost a hand-over and a wake-up.
constexpr std::uint64_t kNoStartNs = 50'000;
// The same for a launch whose hand-over had to wake the parked background thread: waking a
// thread whose CPU idles can take tens to hundreds of µs on a virtual machine (the host
// must run the idle virtual CPU again), which is no sign of another process. A pause after
// such launches would feed itself: each pause parks the thread, whose next wake-up would
// be late again: a loop that launches just after the idle spin ends (kIdleSpinNs), as
// PyOpenCL's array code does, would keep its kernel paused.
constexpr std::uint64_t kNoStartWokenNs = 1'000'000;
constexpr std::uint32_t kLongestPauseShift = 6;

// The most buffers a launch in the background keeps alive (Job::buffers); a kernel whose
// arguments name more runs on its caller.
constexpr std::size_t kMaxJobBuffers = 32;

// One launch handed over: job n is in slot n % kBackgroundDepth. Its plain fields are
// written by the poster while the slot is `free`, then read by the thread that claims it;
// the atomic ones are also read by settling callers, who may find them already the next
// job's (they only steer the heuristics).
struct Job {
  launch::LaunchableKernel *kernel = nullptr;
  launch::Plan plan{};
  // The kernel's arguments as they were when the launch was enqueued.
  kernel::KernelArgs args;
  Queue *queue = nullptr;
  cl_event event = nullptr;  // retained for the thread that completes it, or null
  CommandTimes times;
  // The buffers of the kernel's arguments, retained at the hand-over and released once the
  // launch is done: the application may release its own references meanwhile, as it may
  // with a command on PoCL's queue, and the memory stays until the launch has used it.
  std::array<cl_mem, kMaxJobBuffers> buffers{};
  std::size_t buffer_count = 0;
  // Set once the thread that ran the job has let go of it (its buffers released): only
  // then may a poster write the slot again, and a fork go on (beforeFork).
  std::atomic<bool> free{true};
  std::atomic<launch::LaunchableKernel *> settle_kernel{nullptr};
  std::atomic<std::uint64_t> posted_ns{0};
  std::atomic<bool> woke{false};  // the hand-over had to wake the parked background thread
  std::atomic<std::uint64_t> spin_limit_ns{0};
  std::atomic<unsigned> team_threads{0};  // the team's size for a team launch, else 0
  std::atomic<std::uint32_t> stack_kib{0};  // the plan's stack need
};

// The background thread and its jobs. Handing over, claiming and completing are counted
// (g_background_now.posted, `claimed`, g_background_now.done): jobs n with done < n <=
// posted are pending, and they run one after another, each claimed (claim()) by the
// background thread or by a caller that needs it before the background thread has
// started it (settleAll). Never destroyed: a launch may still be settled by an exit
// handler.
struct Runner {
  Mutex post_mutex;  // one poster at a time; held across fork()
  bool started GUARDED_BY(post_mutex) = false;
  bool exiting GUARDED_BY(post_mutex) = false;  // set by the exit handler
  pthread_t thread{};     // the background thread, once started
  std::atomic<bool> stop{false};  // the thread ends (Stopper)
  std::uint64_t stack_room = 0;  // the thread's room for work-groups, once it runs
  Job jobs[kBackgroundDepth];
  std::atomic<std::uint32_t> claimed{0};
  // Futex words' companions: set while the background thread is parked on `posted`, and
  // the number of callers parked on `done`, so that neither side makes a system call to
  // wake a thread that is not parked.
  std::atomic<std::uint32_t> parked{0};
  std::atomic<std::uint32_t> waiters{0};
  // When the pending jobs are expected to have ended (each kernel's last duration after
  // the one before it): how long a settling caller spins.
  std::atomic<std::uint64_t> expected_end_ns{0};
  std::atomic<std::size_t> printf_capacity{0};  // the last poster's device's
  // The CPU the poster ran on when it handed the job over: the background thread moves
  // off it (CpuMover) rather than share it with the caller, which goes on running there.
  std::atomic<int> poster_cpu{-1};
  // The thread running a job now (0: none): the event callbacks it runs while it
  // completes the job come after the launch already, and must not wait for it.
  std::atomic<pthread_t> running{0};

  Job &job(std::uint32_t n) { return jobs[n % kBackgroundDepth]; }
};

Runner &runner() {
  static Runner *r = new Runner;
  return *r;
}

bool noShare() { return false; }

// The launch's work-groups have run: the queue holds no more work for it, then its event
// completes. Setting the event's status runs the application's event callbacks on the
// thread that ran the launch; one that enqueues on the queue finds the queue idle unless
// later launches of it are pending.
void completeJob(Job &job, cl_int err) {
  if (err != CL_SUCCESS)
    logf(LogLevel::Warn, "kernel '%s': its launch in the background failed (error %d)",
         job.kernel->name.c_str(), err);
  job.queue->in_background.fetch_sub(1, std::memory_order_acq_rel);
  if (cl_event e = job.event) {
    const Queue &q = *job.queue;
    if (q.profiling) recordDirectEvent(e, q.handle, CL_COMMAND_NDRANGE_KERNEL, &job.times,
                                       profilingClock());
    const cl_int status = err != CL_SUCCESS ? err
                          : pocl::executionFailed(job.plan.pc) ? pocl::kExecutionFailedStatus
                                                               : CL_COMPLETE;
    if (next().clSetUserEventStatus(e, status) == CL_SUCCESS && status == CL_COMPLETE)
      noteEventComplete(e, q);
    releaseEvent(e);
  }
}

// A background launch ended: `late` when the background thread lost its CPU (it was kept
// from running for longer than it ran, runJob), or never started the launch long after
// its hand-over (kNoStartNs, settleAll).
void noteWaited(launch::LaunchableKernel &k, bool late) {
  if (!late) {
    if (k.background_late.load(std::memory_order_relaxed))
      k.background_late.store(0, std::memory_order_relaxed);
    return;
  }
  const std::uint32_t n = k.background_late.load(std::memory_order_relaxed) + 1;
  k.background_late.store(n, std::memory_order_relaxed);
  if (n >= 2)
    k.background_pause.store(kPauseLaunches << std::min(n - 2, kLongestPauseShift),
                             std::memory_order_relaxed);
}

// Takes job `n` for this thread to run: only once it is handed over (a thread that read
// `done` before another ran the last pending job must not take a slot not yet written)
// and job n - 1 is done, so that jobs run in their order; false if not, or if another
// thread took job n.
bool claim(Runner &r, std::uint32_t n) {
  const BackgroundNow &now = g_background_now;
  std::uint32_t expected = n - 1;
  return static_cast<std::int32_t>(now.posted.load(std::memory_order_acquire) - n) >= 0 &&
         now.done.load(std::memory_order_acquire) == expected &&
         r.claimed.compare_exchange_strong(expected, n, std::memory_order_acq_rel);
}

// Takes job `n` ahead of its turn, while job n - 1 is claimed by another thread and not
// necessarily done: this thread then runs job n once job n - 1 is done (`claimed` counts
// it taken, so neither the background thread nor another caller claims it). A settling
// caller takes a pending team launch this way (settleAll): the background thread would
// run it on one thread fewer than the team has (Job::from_background) while the caller's
// CPU idles in the wait. False if job n is not handed over or another thread took it.
bool reserve(Runner &r, std::uint32_t n) {
  std::uint32_t expected = n - 1;
  return static_cast<std::int32_t>(g_background_now.posted.load(std::memory_order_acquire) - n) >=
             0 &&
         r.claimed.compare_exchange_strong(expected, n, std::memory_order_acq_rel);
}

// Runs job `n`, claimed by this thread, and counts it done. `judged`: on the background
// thread, which notes whether it lost its CPU meanwhile (noteWaited): for longer than it
// ran, and at least kLateNs (a launch expected to be shorter than kCpuTimedNs: for longer
// than its expected duration). Before the job counts done, while its kernel surely lives.
void runJob(Runner &r, kernel::ThreadState &ts, std::uint32_t n, bool judged) {
  BackgroundNow &now = g_background_now;
  Job &job = r.job(n);
  r.running.store(pthread_self(), std::memory_order_relaxed);
  if (!ts.ready) ts.setUp(job.queue->device->probe.printf_buffer_size);
  if (job.event) job.times.start = profilingClock();
  const std::uint64_t expected = judged ? job.kernel->sampler.lastNs() : 0;
  const bool cpu_timed = judged && expected >= kCpuTimedNs;
  const std::uint64_t wall0 = judged ? nowNs() : 0, cpu0 = cpu_timed ? threadCpuNs() : 0;
  const cl_int err = launch::execute(*job.kernel, job.args, job.plan, ts);
  if (judged) {
    const std::uint64_t wall = nowNs() - wall0;
    const std::uint64_t cpu = cpu_timed ? threadCpuNs() - cpu0 : std::min(expected, wall);
    noteWaited(*job.kernel, wall > cpu && wall - cpu > std::max(kLateNs, cpu));
  }
  completeJob(job, err);
  now.events[n % kBackgroundDepth].store(nullptr, std::memory_order_relaxed);
  r.running.store(0, std::memory_order_relaxed);
  now.done.store(n, std::memory_order_seq_cst);
  if (r.waiters.load(std::memory_order_seq_cst)) team::futexWake(now.done, INT_MAX);
  // A caller ran it while the background thread was parked: the thread takes the next.
  if (!judged && r.parked.load(std::memory_order_seq_cst) &&
      now.posted.load(std::memory_order_acquire) != n)
    team::futexWake(now.posted, 1);
  // Released after the job counts done: the last release may run destructor callbacks
  // (PoCL's, hostkernel's, the application's), which must not find the launch still
  // running. The slot is written again only once it is free.
  for (std::size_t i = 0; i < job.buffer_count; ++i) next().clReleaseMemObject(job.buffers[i]);
  job.free.store(true, std::memory_order_release);
}

// The scheduler often wakes the background thread on the CPU of the caller that posted
// the job, and leaves both there while another CPU idles: the launch then overlaps
// nothing and runs at half speed. So the background thread moves off the poster's CPU
// (at most once a millisecond, CpuMover) before it runs a job there, and while it spins
// there for the next one. True when it shares the poster's CPU and could not move: the
// spin yields to the poster.
bool moveOffPosterCpu(Runner &r, team::CpuMover &mover) {
  const int cpu = sched_getcpu();
  if (cpu < 0 || cpu != r.poster_cpu.load(std::memory_order_relaxed)) return false;
  return !mover.moveOff(cpu);
}

// Team::run() calls it on the background thread when it opens a team job for help():
// callers parked in settleAll wake to take part.
void helpOpened() {
  if (runner().waiters.load(std::memory_order_seq_cst))
    team::futexWake(g_background_now.done, INT_MAX);
}

void *runnerMain(void *) {
  Runner &r = runner();
  BackgroundNow &now = g_background_now;
  kernel::ThreadState &ts = kernel::threadState();
  ts.background_thread = true;
  team::Team::onHelpWanted(&helpOpened);
  team::CpuMover mover;
  StartingThreads::arrived();
  // A job is there to take: pending, and the one before it done.
  auto claimable = [&] {
    const std::uint32_t d = now.done.load(std::memory_order_acquire);
    return now.posted.load(std::memory_order_acquire) != d &&
           r.claimed.load(std::memory_order_acquire) == d;
  };
  // A settling caller runs the team launches that are claimed and not done (settleAll,
  // reserve): this thread's spin would take a CPU from that team, so it parks at once.
  auto callerRunsTeam = [&] {
    const std::uint32_t c = r.claimed.load(std::memory_order_acquire);
    return c != now.done.load(std::memory_order_acquire) &&
           r.job(c).team_threads.load(std::memory_order_relaxed) > 1;
  };
  for (;;) {
    if (!team::spinUntil(kIdleSpinNs, [&] { return claimable() || callerRunsTeam(); },
                         [&] { return moveOffPosterCpu(r, mover); }) ||
        !claimable()) {
      for (;;) {
        r.parked.store(1, std::memory_order_seq_cst);
        const std::uint32_t posted = now.posted.load(std::memory_order_seq_cst);
        if (claimable() || r.stop.load(std::memory_order_acquire)) break;
        team::futexWait(now.posted, posted);
      }
      r.parked.store(0, std::memory_order_relaxed);
    }
    if (!claimable()) {
      if (r.stop.load(std::memory_order_acquire)) return nullptr;
      continue;
    }
    moveOffPosterCpu(r, mover);
    const std::uint32_t n = now.done.load(std::memory_order_acquire) + 1;
    if (claim(r, n)) runJob(r, ts, n, true);  // else run by the caller that needed it first
  }
  return nullptr;
}

void atExit() {
  Runner &r = runner();
  {
    MutexLock lock(r.post_mutex);
    r.exiting = true;
  }
  settleAll();
}

// fork(): the child has no background thread. The parent's launch completes before the
// fork (so that no job is lost half-run), and no other thread posts until it is over.
// The thread that ran the job must also have let go of it: after the job counts done it
// still releases the buffers in PoCL, and a fork meanwhile would hand the child PoCL's
// locks as that thread held them, to wait on for ever. A background thread just started
// must have arrived (StartingThreads), for the same reason.
// post_mutex is taken in one handler and let go in another, which the analysis cannot
// follow.
void beforeFork() NO_THREAD_SAFETY_ANALYSIS {
  Runner &r = runner();
  r.post_mutex.lock();
  settleAll();
  // Not when a job's own event callback forks: its thread lets go after the fork.
  if (!pthread_equal(r.running.load(std::memory_order_relaxed), pthread_self()))
    for (const Job &job : r.jobs)
      while (!job.free.load(std::memory_order_acquire)) sched_yield();
  StartingThreads::await();
}
void afterForkParent() NO_THREAD_SAFETY_ANALYSIS { runner().post_mutex.unlock(); }
void afterForkChild() NO_THREAD_SAFETY_ANALYSIS {
  Runner &r = runner();
  BackgroundNow &now = g_background_now;
  StartingThreads::forgetInChild();
  new (&r.post_mutex) Mutex;
  r.started = false;
  now.posted.store(0, std::memory_order_relaxed);
  now.done.store(0, std::memory_order_relaxed);
  r.claimed.store(0, std::memory_order_relaxed);
  r.parked.store(0, std::memory_order_relaxed);
  r.waiters.store(0, std::memory_order_relaxed);
  for (Job &job : r.jobs) job.free.store(true, std::memory_order_relaxed);
  for (auto &e : now.events) e.store(nullptr, std::memory_order_relaxed);
}

// Starts the background thread with every asynchronous signal blocked (the application's
// handlers run on its own threads); the synchronous ones stay open, as on the team's
// workers: a fault in a kernel reaches the application's handler, as it would on the
// caller. Its exit and fork handlers are registered here, after those
// of the team and of the libraries loaded before: exit() and fork() run them first, so
// that the launch is settled while everything it uses still works.
bool startRunner(Runner &r) REQUIRES(r.post_mutex) {
  static bool handlers = [] {
    std::atexit(atExit);
    pthread_atfork(beforeFork, afterForkParent, afterForkChild);
    return true;
  }();
  (void)handlers;
  sigset_t block, saved;
  sigfillset(&block);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&block, sig);
  pthread_sigmask(SIG_SETMASK, &block, &saved);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStackBytes);
  StartingThreads::starting();
  const int err = pthread_create(&r.thread, &attr, runnerMain, nullptr);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (err != 0) {
    StartingThreads::arrived();
    logf(LogLevel::Warn, "background launches: cannot start a thread (error %d)", err);
    return false;
  }
  // Work-groups get what is left of the stack below the thread's first frames, less the
  // reserve ThreadState keeps for signal handlers.
  r.stack_room = kStackBytes - (std::size_t{1} << 20);
  r.started = true;
  return true;
}

// A caller that needed the launch's result this soon after its enqueue gained little or
// nothing from it running in the background. A launch on one thread loses only the
// hand-over: a settle within kMinGapNs, or within a quarter of its duration, is a miss,
// and kMissesInRow in a row pause the kernel. A team launch loses its share of the team:
// from the background thread it runs on one thread fewer than from its caller
// (Job::from_background), serial/(T-1) against serial/T for a team of T threads, so it
// gains only when the caller's own work after the enqueue outlasts the difference,
// serial/(T(T-1)): on two CPUs, half the kernel's serial time, which a caller that
// waits for each launch (a benchmark's clFinish, a filter's read of its result) never
// has. Each such miss costs the kernel that much, milliseconds for a long one, so one
// pauses it, and each further one in a row doubles the pause (up to kPauseLaunches <<
// kLongestPauseShift): a caller that never overlaps pays one miss in thousands of
// launches. `team_threads`: the team's size for a team launch, else 0.
void noteSettled(launch::LaunchableKernel &k, std::uint64_t posted_ns, unsigned team_threads) {
  const std::uint64_t gap = nowNs() - posted_ns;
  const std::uint32_t misses = k.background_misses.load(std::memory_order_relaxed) + 1;
  if (team_threads > 1) {
    const std::uint64_t worth =
        k.sampler.serialNs() / (std::uint64_t{team_threads} * (team_threads - 1));
    if (gap < std::max(kMinGapNs, worth)) {
      const std::uint32_t shift = std::min(misses - 1, kLongestPauseShift);
      k.background_misses.store(shift + 1, std::memory_order_relaxed);
      k.background_team_pause.store(kPauseLaunches << shift, std::memory_order_relaxed);
      return;
    }
  } else if (gap < std::max(kMinGapNs, k.sampler.lastNs() / 4)) {
    if (misses < kMissesInRow) {
      k.background_misses.store(misses, std::memory_order_relaxed);
      return;
    }
    k.background_pause.store(kPauseLaunches, std::memory_order_relaxed);
  }
  k.background_misses.store(0, std::memory_order_relaxed);
}

// Ends the background thread when libhostkernel is unloaded or the process exits (its
// code must not outlive the library). A static object: its destructor runs after the exit
// handler above, which has settled the last launch.
struct Stopper {
  ~Stopper() {
    Runner &r = runner();
    MutexLock lock(r.post_mutex);
    if (!r.started) return;
    settleAll();
    r.stop.store(true, std::memory_order_release);
    team::futexWake(g_background_now.posted, 1);
    pthread_join(r.thread, nullptr);
    r.started = false;
    r.exiting = true;
  }
} g_stopper;

}  // namespace

launch::BackgroundUse backgroundAvailable() {
  if (config().background_us == 0 || exitBegun()) return launch::BackgroundUse::None;
  return team::activeTeam() == team::ActiveTeam::Own
             ? launch::BackgroundUse::AllLaunches
             : launch::BackgroundUse::InlineLaunches;
}

bool startInBackground(launch::LaunchableKernel &k, const launch::Plan &plan, Queue &q,
                       cl_event *event, cl_int *err) {
  Runner &r = runner();
  BackgroundNow &now = g_background_now;
  if (!r.post_mutex.try_lock()) return false;
  MutexLock lock(r.post_mutex, std::adopt_lock);
  if (r.exiting || exitBegun()) return false;
  const std::uint32_t posted = now.posted.load(std::memory_order_acquire);
  const std::uint32_t pending = posted - now.done.load(std::memory_order_acquire);
  // Another queue's launches run there (this caller runs its own), or an out-of-order
  // queue's, whose next command need not wait for them, or as many as may.
  if (pending && (now.queue.load(std::memory_order_relaxed) != &q || !q.in_order ||
                  pending >= kBackgroundDepth))
    return false;
  const std::uint32_t n = posted + 1;
  Job &job = r.job(n);
  if (!job.free.load(std::memory_order_acquire)) return false;  // still letting go
  if (!r.started && !startRunner(r)) return false;
  if (std::uint64_t{plan.stack_kib} << 10 > r.stack_room) return false;
  const std::vector<cl_mem> &buffers = k.args.buffers();
  if (buffers.size() > kMaxJobBuffers) return false;
  job.event = nullptr;
  if (event) {
    job.times = CommandTimes::begin();
    cl_int e = CL_SUCCESS;
    cl_event user = next().clCreateUserEvent(q.context, &e);
    if (e != CL_SUCCESS) return false;
    if (next().clRetainEvent(user) != CL_SUCCESS) {
      next().clReleaseEvent(user);
      return false;
    }
    recordDirectEvent(user, q.handle, CL_COMMAND_NDRANGE_KERNEL, nullptr, 0);
    job.event = user;
    *event = user;
  }
  job.buffer_count = 0;
  for (cl_mem m : buffers)
    if (next().clRetainMemObject(m) == CL_SUCCESS) job.buffers[job.buffer_count++] = m;
  job.args.copyBound(k.args);
  job.kernel = &k;
  job.plan = plan;
  job.queue = &q;
  job.free.store(false, std::memory_order_relaxed);
  const bool team = launch::teamSized(plan, k.sampler);
  const std::uint64_t t = nowNs();
  job.settle_kernel.store(&k, std::memory_order_relaxed);
  job.posted_ns.store(t, std::memory_order_relaxed);
  job.spin_limit_ns.store(team ? kTeamSpinNs : kSettleSpinNs, std::memory_order_relaxed);
  job.team_threads.store(team && k.team_gain.team() ? team::Team::instance().size() : 0,
                         std::memory_order_relaxed);
  job.stack_kib.store(plan.stack_kib, std::memory_order_relaxed);
  const std::uint64_t before = pending ? r.expected_end_ns.load(std::memory_order_relaxed) : 0;
  r.expected_end_ns.store(std::max(before, t) + k.sampler.lastNs(), std::memory_order_relaxed);
  r.printf_capacity.store(q.device->probe.printf_buffer_size, std::memory_order_relaxed);
  q.in_background.fetch_add(1, std::memory_order_acq_rel);
  now.queue.store(&q, std::memory_order_relaxed);
  now.events[n % kBackgroundDepth].store(job.event, std::memory_order_relaxed);
  r.poster_cpu.store(sched_getcpu(), std::memory_order_relaxed);
  k.counts.background.store(k.counts.background.load(std::memory_order_relaxed) + 1,
                            std::memory_order_relaxed);
  now.posted.store(n, std::memory_order_seq_cst);
  const bool parked = r.parked.load(std::memory_order_seq_cst);
  job.woke.store(parked, std::memory_order_relaxed);
  if (parked) team::futexWake(now.posted, 1);
  *err = CL_SUCCESS;
  return true;
}

bool startedLate(std::uint64_t waited_ns, bool woken, std::uint64_t duration_ns) {
  return waited_ns > (woken ? kNoStartWokenNs : std::max(2 * duration_ns, kNoStartNs));
}

void settleAll() {
  Runner &r = runner();
  BackgroundNow &now = g_background_now;
  const std::uint32_t target = now.posted.load(std::memory_order_acquire);
  auto done = [&] {
    return static_cast<std::int32_t>(now.done.load(std::memory_order_acquire) - target) >= 0;
  };
  if (done()) return;
  // An event callback of a launch runs on the thread that runs it, before the launch is
  // counted done: what it enqueues comes after the launch already.
  if (pthread_equal(r.running.load(std::memory_order_relaxed), pthread_self())) return;
  // The heuristics judge the last launch handed over: how soon after it its result is
  // needed. Its description may already be a successor's (it completed, and others were
  // handed over meanwhile): it only steers them.
  const Job &last = r.job(target);
  if (launch::LaunchableKernel *k = last.settle_kernel.load(std::memory_order_relaxed))
    noteSettled(*k, last.posted_ns.load(std::memory_order_relaxed),
                last.team_threads.load(std::memory_order_relaxed));
  kernel::ThreadState &ts = kernel::threadState();
  if (!ts.ready) ts.setUp(r.printf_capacity.load(std::memory_order_relaxed));
  auto fits = [&](const Job &job) {
    return ts.depth == 0 && std::uint64_t{job.stack_kib.load(std::memory_order_relaxed)} << 10 <=
                                launch::stackRoomForLaunch(ts.stackRoom());
  };
  bool first = true;
  std::uint32_t reserved = 0;  // a job this thread took ahead of its turn (reserve)
  std::uint32_t helped = 0;    // the job this thread last helped, or looked to (Team::help())
  while (!done()) {
    const std::uint32_t d = now.done.load(std::memory_order_acquire);
    const std::uint32_t n = d + 1;
    Job &job = r.job(n);
    if (reserved == n) {
      reserved = 0;
      runJob(r, ts, n, false);
      continue;
    }
    // Not started yet (the background thread is parked, or has no CPU, or busy with the
    // one before): this thread runs it, if its stack has the room, rather than wait for
    // the background thread to take it.
    if (fits(job) && claim(r, n)) {
      // The first one not even started long after its hand-over: the background thread
      // got no CPU (the others are busy), and the launch overlapped nothing. Counted as a
      // late one. The kernel's duration is the lesser of its last launch's wall time and
      // the sampler's estimate (the lesser of its last two launches): a late launch
      // before this one lasted as long as another process kept its thread off the CPU,
      // and must not make this one look started in time.
      if (first && n == target) {
        launch::LaunchableKernel &k = *job.kernel;
        noteWaited(k, startedLate(nowNs() - job.posted_ns.load(std::memory_order_relaxed),
                                  job.woke.load(std::memory_order_relaxed),
                                  std::min(k.sampler.lastNs(), k.sampler.serialNs())));
      }
      first = false;
      runJob(r, ts, n, false);
      continue;
    }
    // Running on another thread. A team launch there runs on one thread fewer than the
    // team has, while this thread's CPU idles in the wait: this thread takes the left-out
    // thread's share (Team::help()) once the background thread has opened the team job
    // (it wakes the waiters then: helpOpened). sasmodels' cylinder model, two work-groups
    // of 70 ms and a read at once, ran such launches on the background thread alone, at
    // twice their time.
    // Only a team launch names the team (Team::instance()), which then exists already.
    const bool may_help =
        helped != n && job.team_threads.load(std::memory_order_relaxed) > 1 && fits(job);
    team::Team *team = may_help ? &team::Team::instance() : nullptr;
    if (team && team->helpWanted()) {
      helped = n;
      if (team->help(launch::stackRoomForLaunch(ts.stackRoom()))) continue;
    }
    // The one after it, when it is a team launch, this thread takes ahead of its turn: from
    // the background thread it would run on one thread fewer than the team has (clpeak's
    // bandwidth kernels, sixteen launches and a clFinish, ran at two thirds of PoCL's
    // bandwidth).
    if (reserved == 0 && static_cast<std::int32_t>(target - n) > 0) {
      Job &after = r.job(n + 1);
      if (after.team_threads.load(std::memory_order_relaxed) > 1 && fits(after) &&
          reserve(r, n + 1))
        reserved = n + 1;
    }
    // Spin while the pending launches are likely to end soon (expected_end_ns), at most
    // the job's spin limit, then park until one is done.
    auto moved = [&] {
      return now.done.load(std::memory_order_acquire) != d || (team && team->helpWanted());
    };
    const std::uint64_t expected_end = r.expected_end_ns.load(std::memory_order_relaxed);
    const std::uint64_t t = nowNs();
    const std::uint64_t spin =
        std::min((expected_end > t ? expected_end - t : 0) + kSettleSlackNs,
                 job.spin_limit_ns.load(std::memory_order_relaxed));
    if (team::spinUntil(spin, moved, noShare)) continue;
    r.waiters.fetch_add(1, std::memory_order_seq_cst);
    while (!moved()) team::futexWait(now.done, d);
    r.waiters.fetch_sub(1, std::memory_order_relaxed);
  }
}

}  // namespace hk::queue
