// The queue's record of the work PoCL holds (queue/queue.hpp, queue/ordering.hpp): which
// commands a blocking command, a drain or a launch in the background may count as
// complete when another thread gives PoCL commands for the same queue meanwhile. The
// interleavings are written out step by step, so that each runs every time.
#include <gtest/gtest.h>

#include "queue/ordering.hpp"
#include "queue/queue.hpp"

namespace hk::queue {
namespace {

// A queue created through hostkernel: nothing given to PoCL yet.
void startIdle(Queue &q) { q.completed.store(q.enqueued.load()); }

TEST(QueueOrdering, BlockingCommandCompletesWhatWasGivenBeforeIt) {
  Queue q;
  startIdle(q);
  noteEnqueued(q, 0, nullptr);  // a launch on PoCL's queue
  EXPECT_FALSE(q.idle());
  const std::uint64_t given = givenSoFar(q);
  noteCompleted(q, given);  // a blocking read after it, on PoCL's queue
  EXPECT_TRUE(q.idle());
}

// Thread B's blocking read returns; before B records it, thread A gives PoCL a launch and
// records it. B's read says nothing of A's launch, which may still run: the queue must
// not look idle, or A's next read would run directly before the launch has written.
TEST(QueueOrdering, BlockingCommandDoesNotCompleteCommandsGivenDuringIt) {
  Queue q;
  startIdle(q);
  const std::uint64_t given = givenSoFar(q);  // B, before its read
  noteEnqueued(q, 0, nullptr);                // A's launch
  noteCompleted(q, given);                    // B's read has returned
  EXPECT_FALSE(q.idle());
}

TEST(QueueOrdering, BlockingCommandOnAnOutOfOrderQueueCompletesOnlyItself) {
  Queue q;
  q.in_order = false;
  startIdle(q);
  noteEnqueued(q, 0, nullptr);
  noteCompleted(q, givenSoFar(q));
  EXPECT_FALSE(q.idle());  // the launch may still run
  Queue r;
  r.in_order = false;
  startIdle(r);
  noteCompleted(r, givenSoFar(r));
  EXPECT_TRUE(r.idle());  // the blocking command itself holds nothing
}

// A launch in the background is not a prefix of the commands given to PoCL: a drain
// (clFinish, then everything given so far is complete) must not count it.
TEST(QueueOrdering, LaunchInTheBackgroundKeepsTheQueueBusyThroughADrainsClaim) {
  Queue q;
  startIdle(q);
  q.in_background.fetch_add(1);
  q.completedUpTo(givenSoFar(q));  // what drainQueue claims after PoCL's clFinish
  EXPECT_FALSE(q.idle());
  q.in_background.fetch_sub(1);
  EXPECT_TRUE(q.idle());
}

}  // namespace
}  // namespace hk::queue
