#include "team/team.hpp"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <new>
#include <string>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "kernel/thread_state.hpp"
#include "team/cpu_mover.hpp"
#include "team/split.hpp"
#include "team/waiting.hpp"

namespace hk::team {

// One per team thread. `next`/`end` are the thread's block in a stealing job: the owner
// and thieves claim chunks with fetch_add on `next`, so each group is claimed once.
struct alignas(64) Team::Slot {
  std::atomic<std::uint64_t> next{0};
  std::uint64_t end = 0;
  std::atomic<int> cpu{-1};  // where the thread last ran (noteCpu), for spinUntil's yield
  Team *team = nullptr;
  unsigned index = 0;
  bool running = false;  // a thread was created for this slot and not yet joined
  pthread_t thread{};
  // Unpinned workers move off the caller's CPU (moveOffCpu).
  CpuMover mover;
};

// ---------------------------------------------------------------------------------------
// Registry of live teams, for the fork handlers. A spin lock (not a mutex): the child
// handler re-initialises it without caring which thread held it.

struct Team::Registry {
  static inline std::atomic<bool> lock{false};
  static inline Team *head = nullptr;
  static inline pthread_once_t once = PTHREAD_ONCE_INIT;

  static void acquire() {
    while (lock.exchange(true, std::memory_order_acquire)) sched_yield();
  }
  static void release() { lock.store(false, std::memory_order_release); }
  static void prepare() { acquire(); }
  static void parent() { release(); }
  // In the child only the forking thread exists: every team's workers are gone.
  static void child() {
    for (Team *t = head; t; t = t->reg_next_) t->resetAfterFork();
    lock.store(false, std::memory_order_relaxed);
  }
  static void installHandlers() { pthread_atfork(prepare, parent, child); }

  static void add(Team *t) {
    pthread_once(&once, installHandlers);
    acquire();
    t->reg_next_ = head;
    if (head) head->reg_prev_ = t;
    head = t;
    release();
  }
  static void remove(Team *t) {
    acquire();
    if (t->reg_prev_) t->reg_prev_->reg_next_ = t->reg_next_;
    else if (head == t) head = t->reg_next_;
    if (t->reg_next_) t->reg_next_->reg_prev_ = t->reg_prev_;
    t->reg_prev_ = t->reg_next_ = nullptr;
    release();
  }
};

// ---------------------------------------------------------------------------------------
// The process-wide team. Its storage is never destroyed (a run() after exit-time shutdown
// still finds an object and returns false); g_guard's destructor, run at exit and at
// dlclose of libhostkernel.so, joins its workers.

namespace {

alignas(Team) unsigned char g_storage[sizeof(Team)];
std::atomic<Team *> g_instance{nullptr};

struct InstanceGuard {
  ~InstanceGuard() {
    if (Team *t = g_instance.load(std::memory_order_acquire)) t->shutdown();
  }
} g_guard;

}  // namespace

TeamOptions optionsFromConfig(const Config &config, unsigned allowed_cpus) {
  TeamOptions o;
  o.threads = std::max(1u, allowed_cpus);
  if (config.num_threads > 0 && config.num_threads < o.threads) o.threads = config.num_threads;
  o.pin = config.pin;
  o.spin_ns = std::min(config.spin_us, kMaxSpinUs) * 1000u;
  return o;
}

Team &Team::instance() {
  static Team *team = [] {
    auto cpus = allowedCpus();
    Team *t = new (g_storage)
        Team(optionsFromConfig(config(), static_cast<unsigned>(cpus.size())));
    g_instance.store(t, std::memory_order_release);
    return t;
  }();
  return *team;
}

bool Team::onTeamThread() { return kernel::threadState().team_id != 0; }

Team::Team(const TeamOptions &options) : options_(options) {
  if (options_.threads == 0) options_.threads = 1;
  size_.store(options_.threads, std::memory_order_relaxed);
  Registry::add(this);
}

Team::~Team() {
  shutdown();
  Registry::remove(this);
}

// ---------------------------------------------------------------------------------------
// Start and stop (both with busy_ held).

bool Team::start() {
  const unsigned want = options_.threads;
  if (want <= 1) {
    started_ = true;
    return true;
  }
  if (!slots_ || nslots_ != want) {
    slots_ = new Slot[want];
    nslots_ = want;
  }
  if (places_.empty()) {
    if (options_.pin != PinMode::None) {
      // Pinning needs the places before the threads exist: read the topology now (once;
      // the price of asking for pinning, 5-30 ms on these VMs).
      places_ = discoverPlaces(allowedCpus(), want, sched_getcpu());
      places_.resize(want);  // a team larger than the CPUs: unknown places, unpinned
      steal_order_ = stealOrder(places_);
      if (logEnabled(LogLevel::Debug)) logPlaces();
    } else {
      // Unpinned: start at once with ring order; with more than two threads the topology
      // arrives from a helper thread and a later run() installs it (installTopology()).
      places_.resize(want);
      steal_order_ = stealOrder(places_);
    }
  }
  // With two threads each has one victim: the order is the same whatever the topology,
  // and reading it would only cost the first launches a CPU (measured: first run 2-9 ms
  // instead of 0.1-1.4 ms on 2 vCPUs).
  if (options_.pin == PinMode::None && want > 2 && discovery_ == Discovery::None)
    startDiscovery();

  // Workers take no asynchronous signals: the application's handlers run on its threads.
  sigset_t block, saved;
  sigfillset(&block);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&block, sig);
  pthread_sigmask(SIG_SETMASK, &block, &saved);

  unsigned created = 1;
  for (unsigned k = 1; k < want; ++k) {
    Slot &s = slots_[k];
    s.team = this;
    s.index = k;
    const CpuPlace &p = places_[k];
    cpu_set_t *set = nullptr;
    std::size_t set_bytes = 0;
    if (options_.pin != PinMode::None && p.cpu >= 0) {
      int max_cpu = p.cpu;
      for (int c : p.core_cpus) max_cpu = std::max(max_cpu, c);
      set = CPU_ALLOC(max_cpu + 1);
      set_bytes = CPU_ALLOC_SIZE(max_cpu + 1);
      CPU_ZERO_S(set_bytes, set);
      if (options_.pin == PinMode::Cores)
        for (int c : p.core_cpus) CPU_SET_S(c, set_bytes, set);
      else
        CPU_SET_S(p.cpu, set_bytes, set);
    }
    // One attribute object per thread: an unpinned thread must not inherit the previous
    // thread's affinity (and glibc's setter takes no null set to clear it).
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, options_.stack_bytes);
    if (set) pthread_attr_setaffinity_np(&attr, set_bytes, set);
    int err = pthread_create(&s.thread, &attr, &Team::workerMain, &s);
    pthread_attr_destroy(&attr);
    if (set) CPU_FREE(set);
    if (err != 0) {
      logf(LogLevel::Warn, "team: could not start thread %u of %u (%s); running with %u", k,
           want, err == EAGAIN ? "EAGAIN" : "error", k);
      break;
    }
    s.running = true;
    ++created;
  }
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);

  size_.store(created, std::memory_order_relaxed);
  started_ = true;
  if (logEnabled(LogLevel::Info)) {
    logf(LogLevel::Info, "team: %u threads, pin %s, stacks %zu MiB, spin %u us", created,
         options_.pin == PinMode::None ? "none" : options_.pin == PinMode::Cores ? "cores" : "pus",
         options_.stack_bytes >> 20, options_.spin_ns / 1000);
  }
  return true;
}

// The topology helper: hwloc_topology_load() takes 5-30 ms here (it also loads hwloc's
// plugins), too long for the first team launch to wait for.
void *Team::discoveryMain(void *arg) {
  Team *team = static_cast<Team *>(arg);
  auto *places = new std::vector<CpuPlace>(
      discoverPlaces(allowedCpus(), team->options_.threads, team->discovery_caller_cpu_));
  places->resize(team->options_.threads);
  team->discovered_.store(places, std::memory_order_release);
  return nullptr;
}

void Team::startDiscovery() {
  discovery_caller_cpu_ = sched_getcpu();
  sigset_t block, saved;
  sigfillset(&block);
  pthread_sigmask(SIG_SETMASK, &block, &saved);
  // Normal priority: at SCHED_IDLE it would be preempted while holding the mmap lock
  // (hwloc dlopens its plugins), and the new workers' first stack faults wait for it.
  if (pthread_create(&discovery_thread_, nullptr, &Team::discoveryMain, this) == 0) {
    discovery_ = Discovery::Running;
    discovery_joinable_ = true;
  }
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

// With busy_ held, between jobs: the helper has finished, take its places.
void Team::installTopology() {
  std::vector<CpuPlace> *places = discovered_.exchange(nullptr, std::memory_order_acquire);
  if (!places) return;
  if (discovery_joinable_) pthread_join(discovery_thread_, nullptr);
  discovery_ = Discovery::Installed;
  places_ = std::move(*places);
  delete places;
  steal_order_ = stealOrder(places_);
  if (logEnabled(LogLevel::Debug)) logPlaces();
}

void Team::logPlaces() const {
  for (unsigned k = 0; k < places_.size(); ++k) {
    const CpuPlace &p = places_[k];
    std::string victims;
    for (unsigned i = 0; i + 1 < nslots_ && !steal_order_.empty(); ++i)
      victims += " " + std::to_string(steal_order_[std::size_t{k} * (nslots_ - 1) + i]);
    logf(LogLevel::Debug, "team: thread %u cpu %d (core cpus %zu), steals from%s", k, p.cpu,
         p.core_cpus.size(), victims.c_str());
  }
}

void Team::stopWorkers() {
  if (discovery_ == Discovery::Running) {
    // The helper finishes within milliseconds; if it is stuck (hwloc's lock inherited
    // held through a fork from a thread of the application), leave it rather than hang.
    bool joined = false;
    if (discovery_joinable_) {
      timespec limit;
      clock_gettime(CLOCK_REALTIME, &limit);
      limit.tv_sec += 2;
      joined = pthread_timedjoin_np(discovery_thread_, nullptr, &limit) == 0;
      if (!joined) pthread_detach(discovery_thread_);
    }
    if (joined || !discovery_joinable_)
      delete discovered_.exchange(nullptr, std::memory_order_acquire);
    discovery_ = Discovery::None;
  }
  if (!started_) return;
  stop_.store(true, std::memory_order_seq_cst);
  state_.fetch_add(2, std::memory_order_seq_cst);  // a change every waiting worker sees
  wakeWorkers();
  for (unsigned k = 1; k < nslots_; ++k)
    if (slots_[k].running) {
      pthread_join(slots_[k].thread, nullptr);
      slots_[k].running = false;
    }
  started_ = false;
}

void Team::shutdown() {
  if (shut_down_flag_.load(std::memory_order_acquire)) return;
  // A worker cannot join itself (exit() called from inside a job): leave the threads.
  if (onTeamThread()) return;
  // Take the team: no job runs and none can start. busy_ stays set for good.
  closing_.store(true, std::memory_order_relaxed);
  const std::uint64_t deadline = nowNs() + 1'000'000'000u;
  while (busy_.exchange(true, std::memory_order_acquire)) {
    if (nowNs() >= deadline) {
      logf(LogLevel::Debug, "team: a job is still running at shutdown; workers left running");
      return;
    }
    timespec ms{0, 1'000'000};
    nanosleep(&ms, nullptr);
  }
  if (started_ && logEnabled(LogLevel::Info)) {
    const WaitStats w = waitStats();
    logf(LogLevel::Info, "team: %llu parks, %llu late wakes, %llu moves off the caller's CPU",
         (unsigned long long)w.parks, (unsigned long long)w.late_wakes,
         (unsigned long long)w.moves);
  }
  stopWorkers();
  delete[] slots_;
  slots_ = nullptr;
  nslots_ = 0;
  places_.clear();
  places_.shrink_to_fit();
  steal_order_.clear();
  steal_order_.shrink_to_fit();
  size_.store(1, std::memory_order_relaxed);
  shut_down_flag_.store(true, std::memory_order_release);
}

void Team::resetAfterFork() {
  if (shut_down_flag_.load(std::memory_order_relaxed)) return;
  // The parent's workers do not exist in the child: forget them (their stacks stay
  // mapped, untouched) and start new ones at the next run(). Nor does the topology
  // helper: if it had finished, its places are installed without a join.
  if (discovery_ == Discovery::Running) {
    discovery_joinable_ = false;
    // Not finished at the fork: the helper may have held hwloc's or the loader's locks,
    // so the child does not run hwloc again and keeps ring order.
    if (!discovered_.load(std::memory_order_relaxed)) discovery_ = Discovery::Installed;
  }
  for (unsigned k = 0; k < nslots_; ++k) slots_[k].running = false;
  started_ = false;
  size_.store(options_.threads, std::memory_order_relaxed);
  epoch_ = 0;
  state_.store(0, std::memory_order_relaxed);
  sleepers_.store(0, std::memory_order_relaxed);
  wake_.store(0, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  refs_.store(0, std::memory_order_relaxed);
  caller_sleeping_.store(0, std::memory_order_relaxed);
  caller_wake_.store(0, std::memory_order_relaxed);
  stop_.store(false, std::memory_order_relaxed);
  closing_.store(false, std::memory_order_relaxed);
  busy_.store(false, std::memory_order_relaxed);
}

// ---------------------------------------------------------------------------------------
// Waiting: spin, then park on a futex (an event count: the waiter reads the futex word,
// announces itself, re-checks its condition, then sleeps only if the word is unchanged).

void Team::wakeWorkers() {
  wake_.fetch_add(1, std::memory_order_seq_cst);
  futexWake(wake_, INT_MAX);
}

int Team::noteCpu(unsigned thread) {
  const int c = sched_getcpu();  // glibc reads it from rseq: a few ns
  std::atomic<int> &mine = slots_[thread].cpu;
  if (mine.load(std::memory_order_relaxed) != c) mine.store(c, std::memory_order_relaxed);
  return c;
}

// An unpinned worker that spins on the caller's CPU moves off it (CpuMover). Yielding
// alone leaves both threads on one vCPU: the scheduler sees a spinning thread and a
// yielding one, a CPU that looks half idle, and does not spread them. False when it did
// not move (pinned, one CPU, too soon).
bool Team::moveOffCpu(unsigned thread, int cpu) {
  if (options_.pin != PinMode::None || !slots_[thread].mover.moveOff(cpu)) return false;
  moves_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

std::uint64_t Team::waitForChange(unsigned thread, std::uint64_t seen) {
  std::uint64_t s = seen;
  // A worker waits for the caller (thread 0) to publish a job; on the caller's CPU it
  // moves off, or else yields to it.
  if (spinUntil(
          options_.spin_ns,
          [&] {
            return (s = state_.load(std::memory_order_acquire)) != seen ||
                   park_now_.load(std::memory_order_relaxed);
          },
          [&] {
            const int c = noteCpu(thread);
            if (c != slots_[0].cpu.load(std::memory_order_relaxed)) return false;
            if (!moveOffCpu(thread, c)) return true;
            noteCpu(thread);
            return false;
          }) &&
      s != seen)
    return s;
  for (;;) {
    const std::uint32_t w = wake_.load(std::memory_order_seq_cst);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    s = state_.load(std::memory_order_seq_cst);
    bool timed_out = false;
    if (s == seen) {
      parks_.fetch_add(1, std::memory_order_relaxed);
      timed_out = futexWait(wake_, w);
    }
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    s = state_.load(std::memory_order_acquire);
    if (s != seen) {
      if (timed_out) late_wakes_.fetch_add(1, std::memory_order_relaxed);
      return s;
    }
  }
}

template <typename Ready>
void Team::callerWait(Ready ready) {
  // The caller waits for the workers: yield if one of them is on its CPU.
  const unsigned n = size_.load(std::memory_order_relaxed);
  auto shareCpu = [&] {
    const int c = noteCpu(0);
    for (unsigned k = 1; k < n; ++k)
      if (slots_[k].cpu.load(std::memory_order_relaxed) == c) return true;
    return false;
  };
  if (spinUntil(options_.spin_ns, ready, shareCpu)) return;
  for (;;) {
    const std::uint32_t w = caller_wake_.load(std::memory_order_seq_cst);
    caller_sleeping_.store(1, std::memory_order_seq_cst);
    if (ready()) break;
    parks_.fetch_add(1, std::memory_order_relaxed);
    const bool timed_out = futexWait(caller_wake_, w);
    if (ready()) {
      if (timed_out) late_wakes_.fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  caller_sleeping_.store(0, std::memory_order_relaxed);
}

void Team::notifyCaller() {
  if (caller_sleeping_.load(std::memory_order_seq_cst)) {
    caller_wake_.fetch_add(1, std::memory_order_seq_cst);
    futexWake(caller_wake_, 1);
  }
}

// ---------------------------------------------------------------------------------------
// Running a job.

std::uint64_t Team::work(unsigned t, const Job &job, unsigned n) {
  if (!job.work_ns) return runShare(t, job, n);
  const std::uint64_t t0 = nowNs();
  const std::uint64_t count = runShare(t, job, n);
  if (count) job.work_ns->fetch_add(nowNs() - t0, std::memory_order_relaxed);
  return count;
}

std::uint64_t Team::runShare(unsigned t, const Job &job, unsigned n) {
  if (!job.steal) {
    std::uint64_t b, e;
    staticBlock(job.total, n, t, b, e);
    if (b < e) job.run(job.ctx, b, e, t);
    return e - b;
  }
  // Stealing: the own block chunk by chunk, then the others' in steal order.
  std::uint64_t count = 0;
  auto drain = [&](Slot &s) { count += drainChunks(s.next, s.end, job, t); };
  drain(slots_[t]);
  const unsigned *row = steal_order_.data() + std::size_t{t} * (nslots_ - 1);
  for (unsigned i = 0; i + 1 < nslots_; ++i)
    if (row[i] < n) drain(slots_[row[i]]);
  return count;
}

void Team::parkSpinners() {
  if (!park_now_.load(std::memory_order_relaxed)) park_now_.store(true, std::memory_order_relaxed);
}

bool Team::run(const Job &job) {
  if (job.total == 0) return true;
  if (onTeamThread()) return false;
  if (busy_.load(std::memory_order_relaxed) || busy_.exchange(true, std::memory_order_acquire))
    return false;
  if (closing_.load(std::memory_order_relaxed)) {  // shutdown() is waiting for busy_
    busy_.store(false, std::memory_order_release);
    return false;
  }
  if (!started_) start();
  if (discovery_ == Discovery::Running &&
      discovered_.load(std::memory_order_relaxed) != nullptr)
    installTopology();
  const unsigned n = size_.load(std::memory_order_relaxed);
  if (n == 1 || job.total == 1) {
    runWhole(job, 0);
    busy_.store(false, std::memory_order_release);
    return true;
  }

  if (park_now_.load(std::memory_order_relaxed)) park_now_.store(false, std::memory_order_relaxed);
  // Publish: job, blocks, then the open state (release) that workers wait for.
  job_ = job;
  job_threads_ = n;
  if (job.steal)
    for (unsigned k = 0; k < n; ++k) {
      std::uint64_t b, e;
      staticBlock(job.total, n, k, b, e);
      slots_[k].next.store(b, std::memory_order_relaxed);
      slots_[k].end = e;
    }
  done_.store(0, std::memory_order_relaxed);
  noteCpu(0);
  const std::uint64_t open = (++epoch_ << 1) | 1;
  state_.store(open, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) != 0) wakeWorkers();

  const std::uint64_t total = job.total;
  const std::uint64_t mine = work(0, job, n);
  if (done_.fetch_add(mine, std::memory_order_seq_cst) + mine < total)
    callerWait([&] { return done_.load(std::memory_order_seq_cst) >= total; });

  // Close: a worker that has not joined yet sees a closed state and stays out; wait for
  // the ones inside to leave before job_ and the slots may change.
  state_.store(open - 1, std::memory_order_seq_cst);
  if (refs_.load(std::memory_order_seq_cst) != 0)
    callerWait([&] { return refs_.load(std::memory_order_seq_cst) == 0; });
  busy_.store(false, std::memory_order_release);
  return true;
}

void *Team::workerMain(void *arg) {
  Slot *slot = static_cast<Slot *>(arg);
  kernel::threadState().team_id = slot->index;
  char name[16];
  std::snprintf(name, sizeof name, "hk-team-%u", slot->index);
  pthread_setname_np(pthread_self(), name);
  slot->team->workerLoop(slot->index);
  return nullptr;
}

void Team::workerLoop(unsigned index) {
  noteCpu(index);
  std::uint64_t seen = 0;
  for (;;) {
    const std::uint64_t s = waitForChange(index, seen);
    if (stop_.load(std::memory_order_acquire)) return;
    seen = s;
    if (!(s & 1)) continue;  // closed: a job ended
    // Join the job only if it is still open after announcing ourselves (the caller
    // closes, then waits for refs_ to drop to zero).
    refs_.fetch_add(1, std::memory_order_seq_cst);
    if (state_.load(std::memory_order_seq_cst) == s) {
      const Job job = job_;
      const unsigned n = job_threads_;
      if (index < n) {
        const std::uint64_t count = work(index, job, n);
        if (count && done_.fetch_add(count, std::memory_order_seq_cst) + count >= job.total)
          notifyCaller();
      }
    }
    if (refs_.fetch_sub(1, std::memory_order_seq_cst) == 1) notifyCaller();
  }
}

}  // namespace hk::team
