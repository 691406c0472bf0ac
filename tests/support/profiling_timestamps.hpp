// The profiling timestamps of a command's event, read through hostkernel: QUEUED, SUBMIT,
// START and END, in that order. Each query must succeed and each timestamp must be no
// earlier than the one before. A failed query ends the call with a fatal failure: inside
// ASSERT_NO_FATAL_FAILURE it ends the test too.
//
//   cl_ulong t[kProfilingTimestamps];
//   ASSERT_NO_FATAL_FAILURE(ReadOrderedTimestamps(event, t));
//   EXPECT_GT(t[0], 0u);
#pragma once

#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

inline constexpr int kProfilingTimestamps = 4;

inline void ReadOrderedTimestamps(cl_event event, cl_ulong (&t)[kProfilingTimestamps]) {
  const cl_profiling_info names[kProfilingTimestamps] = {
      CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START,
      CL_PROFILING_COMMAND_END};
  for (int i = 0; i < kProfilingTimestamps; ++i) {
    t[i] = 0;
    ASSERT_EQ(hkGetEventProfilingInfo(event, names[i], sizeof t[i], &t[i], nullptr),
              CL_SUCCESS)
        << "profiling info " << i;
  }
  for (int i = 1; i < kProfilingTimestamps; ++i)
    EXPECT_LE(t[i - 1], t[i]) << "profiling timestamp " << i << " before " << i - 1;
}
