// The job protocol of hostkernel's own team (docs/team.md, "One job, step by step"): the
// caller publishes a job and opens the state, workers join while it is open and run
// their share (a static block, or chunks stolen in steal order), the caller runs its own,
// waits until every group is done, closes the state and waits for the workers inside to
// leave. The threads themselves are team_workers.cpp's; the waiting, team_waiting.cpp's.
#include "team/team.hpp"

#include <atomic>
#include <cstdint>

#include "base/clock.hpp"
#include "team/split.hpp"
#include "team/team_internal.hpp"

namespace hk::team {
namespace {
std::atomic<void (*)()> g_help_wanted{nullptr};  // onHelpWanted()
}  // namespace

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
  if (!tryTakeBusy(busy_)) return false;
  if (closing_.load(std::memory_order_relaxed)) {  // shutdown() is waiting for busy_
    busy_.store(false, std::memory_order_release);
    return false;
  }
  if (!started_) start();
  if (discovery_ == Discovery::Running &&
      discovered_.load(std::memory_order_relaxed) != nullptr)
    installTopology();
  unsigned n = size_.load(std::memory_order_relaxed);
  // The background thread's job leaves one thread out, and a stealing one keeps that
  // thread's block for a helper (help()): the others steal it if none comes.
  const bool helped = job.from_background && job.steal && n > 1 && job.total > 1;
  if (job.from_background && n > 1) --n;
  if ((n == 1 && !helped) || job.total == 1) {
    runWhole(job, 0);
    busy_.store(false, std::memory_order_release);
    return true;
  }

  if (park_now_.load(std::memory_order_relaxed)) park_now_.store(false, std::memory_order_relaxed);
  // Publish: job, blocks, then the open state (release) that workers wait for.
  const unsigned blocks = helped ? n + 1 : n;
  job_ = job;
  job_threads_ = n;
  job_blocks_ = blocks;
  if (job.steal) publishStaticBlocks(slots_, blocks, job.total);
  done_.store(0, std::memory_order_relaxed);
  noteCpu(0);
  const std::uint64_t open = (++epoch_ << 1) | 1;
  state_.store(open, std::memory_order_seq_cst);
  if (helped) {
    helper_state_.store(open, std::memory_order_seq_cst);
    if (void (*notify)() = g_help_wanted.load(std::memory_order_acquire)) notify();
  }
  if (n > 1 && sleepers_.load(std::memory_order_seq_cst) != 0) wakeWorkers();

  const std::uint64_t total = job.total;
  const std::uint64_t mine = work(0, job, blocks);
  if (done_.fetch_add(mine, std::memory_order_seq_cst) + mine < total)
    callerWait([&] { return done_.load(std::memory_order_seq_cst) >= total; });

  // Close: a worker or helper that has not joined yet sees a closed state and stays out;
  // wait for the ones inside to leave before job_ and the slots may change.
  if (helped) helper_state_.store(0, std::memory_order_relaxed);
  state_.store(open - 1, std::memory_order_seq_cst);
  if (refs_.load(std::memory_order_seq_cst) != 0)
    callerWait([&] { return refs_.load(std::memory_order_seq_cst) == 0; });
  busy_.store(false, std::memory_order_release);
  return true;
}

void Team::onHelpWanted(void (*notify)()) { g_help_wanted.store(notify, std::memory_order_release); }

bool Team::help(std::uint64_t stack_room) {
  std::uint64_t s = helper_state_.load(std::memory_order_acquire);
  if (s == 0 || onTeamThread() ||
      !helper_state_.compare_exchange_strong(s, 0, std::memory_order_acq_rel))
    return false;
  // As a worker joins: announced in refs_, then only into the job that is still open.
  refs_.fetch_add(1, std::memory_order_seq_cst);
  if (state_.load(std::memory_order_seq_cst) == s && job_.stack_bytes <= stack_room) {
    const Job job = job_;
    const unsigned blocks = job_blocks_;
    const std::uint64_t count = work(blocks - 1, job, blocks);
    if (count && done_.fetch_add(count, std::memory_order_seq_cst) + count >= job.total)
      notifyCaller();
  }
  if (refs_.fetch_sub(1, std::memory_order_seq_cst) == 1) notifyCaller();
  return true;
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
      if (index < job_threads_) {
        const std::uint64_t count = work(index, job, job_blocks_);
        if (count && done_.fetch_add(count, std::memory_order_seq_cst) + count >= job.total)
          notifyCaller();
      }
    }
    if (refs_.fetch_sub(1, std::memory_order_seq_cst) == 1) notifyCaller();
  }
}

}  // namespace hk::team
