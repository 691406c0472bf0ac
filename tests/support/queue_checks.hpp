// What must hold of a queue when a test ends: hkFinish leaves no PoCL work behind. A
// marker enqueued after the test's commands completes only after all of them (the queue
// is in order), so its status after hkFinish says whether PoCL still held work.
//
//   ExpectNoQueuedPoclWork(queue);   // in a fixture's TearDown
#pragma once

#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

inline void ExpectNoQueuedPoclWork(cl_command_queue queue) {
  EXPECT_EQ(hkFinish(queue), CL_SUCCESS);
  cl_event marker = nullptr;
  ASSERT_EQ(hkEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker), CL_SUCCESS);
  EXPECT_EQ(hkFinish(queue), CL_SUCCESS);
  cl_int status = CL_QUEUED;
  EXPECT_EQ(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                           nullptr),
            CL_SUCCESS);
  EXPECT_EQ(status, CL_COMPLETE) << "PoCL still holds work for the queue after hkFinish";
  hkReleaseEvent(marker);
}
