#include "team/foreign_team.hpp"

#include <pthread.h>
#include <sched.h>
#include <xmmintrin.h>

#include <algorithm>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "team/split.hpp"

namespace hk::team {

namespace {

// How long a thread that finished its own block leaves another block to its owner before
// it runs that block itself: as long as its own block took, plus this. An owner that has
// not started by then is late by more than a block's work (descheduled, or a pool thread
// busy elsewhere); one that starts sooner keeps its block, and its cache.
constexpr std::uint64_t kRescueGraceNs = 5'000;

}  // namespace

void ForeignTeam::task(void *arg, unsigned index) {
  Run &r = *static_cast<Run *>(arg);
  const Job &job = r.job;
  const std::uint64_t t0 = nowNs();
  std::uint64_t ran = 0;
  if (index < r.n) {
    if (job.steal) ran += drainChunks(r.blocks[index].next, r.blocks[index].end, job, index);
    else ran += claimBlock(r.blocks[index].next, r.blocks[index].end, job, index);
  }
  std::uint64_t last_ns = nowNs();  // when this task's last groups finished
  std::uint64_t work_ns = ran ? last_ns - t0 : 0;
  const std::uint64_t deadline = last_ns + (last_ns - t0) + kRescueGraceNs;
  // A claim that ran groups: the work the caller alone would have done.
  auto claimed = [&](std::uint64_t groups, std::uint64_t since) {
    if (!groups) return;
    ran += groups;
    last_ns = nowNs();
    work_ns += last_ns - since;
  };
  for (unsigned i = 1; i <= r.n; ++i) {
    const unsigned k = (index + i) % r.n;
    Block &b = r.blocks[k];
    if (job.steal) {
      if (b.next.load(std::memory_order_relaxed) >= b.end) continue;
      const std::uint64_t since = nowNs();
      claimed(drainChunks(b.next, b.end, job, index), since);
      continue;
    }
    // Static: leave block k to its owner until the deadline, then rescue it.
    for (unsigned spins = 0; b.next.load(std::memory_order_relaxed) < b.end; ++spins) {
      if ((spins & 15) == 15) {
        const std::uint64_t now = nowNs();
        if (now < deadline) continue;
        claimed(claimBlock(b.next, b.end, job, index), now);
        break;
      }
      _mm_pause();
    }
  }
  if (!ran) return;
  // Each task reports in its own block's line: no counter that every task writes.
  if (index < r.n) {
    r.blocks[index].finished_ns.store(last_ns, std::memory_order_relaxed);
    r.blocks[index].work_ns.store(work_ns, std::memory_order_relaxed);
    return;
  }
  r.stray_work_ns.fetch_add(work_ns, std::memory_order_relaxed);
  std::uint64_t seen = r.stray_finished_ns.load(std::memory_order_relaxed);
  while (seen < last_ns &&
         !r.stray_finished_ns.compare_exchange_weak(seen, last_ns, std::memory_order_relaxed)) {
  }
}

bool ForeignTeam::run(const Job &job, std::uint64_t now_ns, bool judged) {
  if (job.total == 0) return true;
  if (!tryTakeBusy(busy_)) return false;
  const ParallelFor &pf = pf_;
  if (!pf.parallel_for || (pf.on_worker && pf.on_worker(pf.user))) {
    busy_.store(false, std::memory_order_release);
    return false;
  }
  const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(pf.threads, job.total));
  if (n <= 1) {
    runWhole(job, 0);
    busy_.store(false, std::memory_order_release);
    return true;
  }
  if (nblocks_ < n) {
    blocks_.reset(new Block[n]);
    nblocks_ = n;
  }
  publishStaticBlocks(blocks_.get(), n, job.total);
  for (unsigned k = 0; k < n; ++k) {
    blocks_[k].finished_ns.store(0, std::memory_order_relaxed);
    blocks_[k].work_ns.store(0, std::memory_order_relaxed);
  }
  Run &r = run_;
  r.job = job;
  r.blocks = blocks_.get();
  r.n = n;
  r.stray_finished_ns.store(0, std::memory_order_relaxed);
  r.stray_work_ns.store(0, std::memory_order_relaxed);
  const std::uint64_t start_ns = now_ns ? now_ns : nowNs();
  pf.parallel_for(pf.user, n, &ForeignTeam::task, &r);
  // A parallel-for that ran fewer tasks than asked (or none): the caller runs what is left,
  // and the join is not judged.
  bool left = false;
  std::uint64_t all_done_ns = r.stray_finished_ns.load(std::memory_order_relaxed);
  std::uint64_t work_ns = r.stray_work_ns.load(std::memory_order_relaxed);
  for (unsigned k = 0; k < n; ++k) {
    Block &b = blocks_[k];
    if (b.next.load(std::memory_order_relaxed) < b.end) {
      const std::uint64_t t0 = nowNs();
      if (claimBlock(b.next, b.end, job, 0)) {
        left = true;
        work_ns += nowNs() - t0;
      }
    }
    all_done_ns = std::max(all_done_ns, b.finished_ns.load(std::memory_order_relaxed));
    work_ns += b.work_ns.load(std::memory_order_relaxed);
  }
  if (job.work_ns) job.work_ns->fetch_add(work_ns, std::memory_order_relaxed);
  if (judged) noteJoin(start_ns, left ? 0 : all_done_ns, work_ns);
  busy_.store(false, std::memory_order_release);
  return true;
}

// The parallel-for's join waits for every task, also one whose thread was kept from
// running (another process on its CPU): the work was done long before the join. A job
// is late when its join came more than kLateJoinNs after its last group and either took
// longer than its work would have taken on the caller alone, or added more than an
// eighth to the time its groups took (a long job beside a busy process: its join waits
// for a time slice, milliseconds, which the first test forgives when the job is long).
// An eighth is what a team must win by to be chosen (team_choice.cpp): a join that costs
// more loses to the own workers, which never wait for a thread that has not started.
// Two late jobs in a row are a strike (one alone is a pool that had to start or wake a
// thread, as after omp_pause_resource or a long idle time). After a strike slow() is
// true for a while (doubling with each strike in a row, up to a limit) and then the team
// is tried again.
void ForeignTeam::noteJoin(std::uint64_t start_ns, std::uint64_t all_done_ns,
                           std::uint64_t work_ns) {
  constexpr std::uint64_t kLateJoinNs = 100'000;
  constexpr std::uint64_t kFirstPauseNs = 50'000'000, kLongestPauseNs = 1'000'000'000;
  const std::uint64_t now = nowNs();
  const std::uint64_t join_ns = all_done_ns && now > all_done_ns ? now - all_done_ns : 0;
  const std::uint64_t groups_ns = all_done_ns > start_ns ? all_done_ns - start_ns : 0;
  const bool late = all_done_ns != 0 && join_ns >= kLateJoinNs &&
                    (now - start_ns > work_ns || join_ns > groups_ns / 8);
  if (!late) {
    pause_ns_ = 0;
    late_in_row_ = 0;
    return;
  }
  if (++late_in_row_ < 2) return;
  pause_ns_ = pause_ns_ ? std::min(pause_ns_ * 2, kLongestPauseNs) : kFirstPauseNs;
  slow_until_ns_.store(now + pause_ns_, std::memory_order_relaxed);
  slow_periods_.fetch_add(1, std::memory_order_relaxed);
  logf(LogLevel::Debug, "team: the application's threads joined %llu us after the last group "
       "twice in a row; the own workers run its jobs for %llu ms",
       (unsigned long long)((now - all_done_ns) / 1000), (unsigned long long)(pause_ns_ / 1'000'000));
}

bool ForeignTeam::slow() const {
  const std::uint64_t until = slow_until_ns_.load(std::memory_order_relaxed);
  return until != 0 && nowNs() < until;
}

bool ForeignTeam::slow(std::uint64_t now_ns) const {
  return now_ns < slow_until_ns_.load(std::memory_order_relaxed);
}

std::uint64_t defaultThreadStackBytes() {
  std::size_t size = 0;
  pthread_attr_t attr;
  if (pthread_getattr_default_np(&attr) == 0) {
    pthread_attr_getstacksize(&attr, &size);
    pthread_attr_destroy(&attr);
  }
  return size ? size : std::size_t{8} << 20;
}

void ForeignTeam::reset(const ParallelFor *pf, std::uint64_t stack_bytes) {
  while (busy_.exchange(true, std::memory_order_acquire)) sched_yield();
  pf_ = pf ? *pf : ParallelFor{};
  stack_bytes_.store(stack_bytes, std::memory_order_relaxed);
  active_.store(pf != nullptr, std::memory_order_release);
  busy_.store(false, std::memory_order_release);
}

}  // namespace hk::team
