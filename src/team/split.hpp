// How a team takes a job and divides its groups among its threads: the busy flag, the
// static blocks, and the two ways of claiming groups from a block, shared by the own team
// and ForeignTeam.
//
//   if (!tryTakeBusy(busy_)) return false;            // another caller's job runs
//   publishStaticBlocks(blocks, n, job.total);        // block k: [next, end)
//   claimBlock(next, end, job, k);                    // static: the whole rest, once
//   drainChunks(next, end, job, k);                   // stealing: chunk by chunk
//   runWhole(job, 0);                                 // a team of one
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "base/clock.hpp"
#include "team/team.hpp"

namespace hk::team {

// tryTakeBusy() takes a team's `busy` flag, which its run() holds for a whole job; false
// when another caller holds it. A load comes first so that callers that find the team
// busy leave its cache line shared instead of writing it.
inline bool tryTakeBusy(std::atomic<bool> &busy) {
  return !busy.load(std::memory_order_relaxed) &&
         !busy.exchange(true, std::memory_order_acquire);
}

// Block k of a static split of `total` groups over `n` threads: the first total % n
// blocks get one group more.
inline void staticBlock(std::uint64_t total, unsigned n, unsigned k, std::uint64_t &begin,
                        std::uint64_t &end) {
  const std::uint64_t q = total / n, r = total % n;
  begin = k * q + std::min<std::uint64_t>(k, r);
  end = begin + q + (k < r ? 1 : 0);
}

// publishStaticBlocks() sets blocks[0..n) to the static split of `total` groups: each
// block's `next` (an atomic) and `end`. Must happen before the job is published to the
// threads that claim from the blocks (the publication's release orders these stores).
template <class Block>
inline void publishStaticBlocks(Block *blocks, unsigned n, std::uint64_t total) {
  for (unsigned k = 0; k < n; ++k) {
    std::uint64_t b, e;
    staticBlock(total, n, k, b, e);
    blocks[k].next.store(b, std::memory_order_relaxed);
    blocks[k].end = e;
  }
}

// Claims what is left of the block in one exchange and runs it on `thread`; the number
// of groups run (0 when someone else had claimed it).
inline std::uint64_t claimBlock(std::atomic<std::uint64_t> &next, std::uint64_t end,
                                const Job &job, unsigned thread) {
  if (next.load(std::memory_order_relaxed) >= end) return 0;
  const std::uint64_t b = next.exchange(end, std::memory_order_relaxed);
  if (b >= end) return 0;
  job.run(job.ctx, b, end, thread);
  return end - b;
}

// Claims chunks of a quarter of what is left (at least one group) until the block is
// empty, running each on `thread`; fetch_add makes every claim disjoint, and a claim past
// `end` is empty. The number of groups run.
inline std::uint64_t drainChunks(std::atomic<std::uint64_t> &next, std::uint64_t end,
                                 const Job &job, unsigned thread) {
  std::uint64_t count = 0;
  for (;;) {
    const std::uint64_t cur = next.load(std::memory_order_relaxed);
    if (cur >= end) return count;
    const std::uint64_t chunk = std::max<std::uint64_t>(1, (end - cur) >> 2);
    const std::uint64_t b = next.fetch_add(chunk, std::memory_order_relaxed);
    if (b >= end) return count;
    const std::uint64_t e = std::min(b + chunk, end);
    job.run(job.ctx, b, e, thread);
    count += e - b;
  }
}

// The whole job on `thread` (a team of one), timed into job.work_ns when set.
inline void runWhole(const Job &job, unsigned thread) {
  const std::uint64_t t0 = job.work_ns ? nowNs() : 0;
  job.run(job.ctx, 0, job.total, thread);
  if (job.work_ns) job.work_ns->fetch_add(nowNs() - t0, std::memory_order_relaxed);
}

}  // namespace hk::team
