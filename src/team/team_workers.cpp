// The team's threads: the process-wide team, starting the workers (placement, signal
// masks, the topology helper), stopping them (with time limits at exit), and forgetting
// them in a forked child. Start and stop run with busy_ held, between jobs.
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <new>
#include <string>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "base/starting_threads.hpp"
#include "kernel/thread_state.hpp"
#include "team/team.hpp"
#include "team/team_internal.hpp"

namespace hk::team {

// ---------------------------------------------------------------------------------------
// The live teams, for the fork handlers. A spin lock (not a mutex): the child
// handler re-initialises it without caring which thread held it.

struct Team::LiveTeams {
  static inline std::atomic<bool> lock{false};
  static inline Team *head = nullptr;
  static inline pthread_once_t once = PTHREAD_ONCE_INIT;

  static void acquire() {
    while (lock.exchange(true, std::memory_order_acquire)) sched_yield();
  }
  static void release() { lock.store(false, std::memory_order_release); }
  // The workers just started must have arrived (StartingThreads).
  static void prepare() {
    acquire();
    StartingThreads::await();
  }
  static void parent() { release(); }
  // In the child only the forking thread exists: every team's workers are gone.
  static void child() {
    StartingThreads::forgetInChild();
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
  LiveTeams::add(this);
}

Team::~Team() {
  shutdown();
  LiveTeams::remove(this);
}

// ---------------------------------------------------------------------------------------
// Start and stop (both with busy_ held).

// choosePlaces() sets places_ and steal_order_ for `want` threads. Pinning needs the
// places before the threads exist, so the topology is read now (once: the price of asking
// for pinning is hwloc loading the machine's topology). Unpinned, the team starts at once
// with ring order; with more than two threads the topology arrives from a helper thread
// and a later run() installs it (installTopology()).
void Team::choosePlaces(unsigned want) {
  if (options_.pin != PinMode::None) {
    places_ = discoverPlaces(allowedCpus(), want, sched_getcpu());
    places_.resize(want);  // a team larger than the CPUs: unknown places, unpinned
    steal_order_ = stealOrder(places_);
    if (logEnabled(LogLevel::Debug)) logPlaces();
  } else {
    places_.resize(want);
    steal_order_ = stealOrder(places_);
  }
}

// startWorker() creates worker k on its place (pinned to it when options_.pin asks) and
// marks its slot running; pthread_create's error otherwise. Must run with the signal mask
// the workers are to inherit.
int Team::startWorker(unsigned k) {
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
  StartingThreads::starting();
  const int err = pthread_create(&s.thread, &attr, &Team::workerMain, &s);
  pthread_attr_destroy(&attr);
  if (set) CPU_FREE(set);
  if (err == 0) s.running = true;
  else StartingThreads::arrived();
  return err;
}

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
  if (places_.empty()) choosePlaces(want);
  // With two threads each has one victim: the order is the same whatever the topology,
  // and reading it would only take a CPU from the first launches.
  if (options_.pin == PinMode::None && want > 2 && discovery_ == Discovery::None)
    startDiscovery();

  // Workers take no asynchronous signals: the application's handlers run on its threads.
  sigset_t block, saved;
  sigfillset(&block);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&block, sig);
  pthread_sigmask(SIG_SETMASK, &block, &saved);

  unsigned created = 1;
  for (unsigned k = 1; k < want; ++k) {
    if (int err = startWorker(k); err != 0) {
      logf(LogLevel::Warn, "team: could not start thread %u of %u (%s); running with %u", k,
           want, err == EAGAIN ? "EAGAIN" : "error", k);
      break;
    }
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

// The topology helper: hwloc_topology_load() takes milliseconds (it also loads hwloc's
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
  helper_state_.store(0, std::memory_order_relaxed);
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

void *Team::workerMain(void *arg) {
  Slot *slot = static_cast<Slot *>(arg);
  kernel::threadState().team_id = slot->index;
  char name[16];
  std::snprintf(name, sizeof name, "hk-team-%u", slot->index);
  pthread_setname_np(pthread_self(), name);
  StartingThreads::arrived();
  slot->team->workerLoop(slot->index);
  return nullptr;
}

}  // namespace hk::team
