// One kernel built through hostkernel, with a new buffer of ints as its first argument, for
// a child process that reports through its exit status rather than through GoogleTest.
// open() returns 0, or the status that names the step that failed: 10, no PoCL device,
// context or queue; 11, the program's build; 12, the kernel, the buffer or the argument.
// Everything is released through hostkernel when the ChildKernel goes.
//
//   int Child() {
//     ChildKernel run;
//     if (int failed = run.open(kSource, "one", 64)) return failed;
//     ... hkEnqueueNDRangeKernel(run.cl.hk_queue, run.kernel, ...) ...
//     return 0;
//   }
#pragma once

#include <hostkernel/hostkernel.h>

#include "support/pocl_env.hpp"

struct ChildKernel {
  PoclQueues cl{QueueBy::kHostkernel};
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem buffer = nullptr;

  ChildKernel() = default;
  ChildKernel(const ChildKernel &) = delete;
  ChildKernel &operator=(const ChildKernel &) = delete;

  // `name` of `source`, with a buffer of `ints` ints set as its argument 0.
  int open(const char *source, const char *name, size_t ints) {
    if (!cl.error.empty()) return 10;
    cl_int err = CL_SUCCESS;
    program = hkCreateProgramWithSource(cl.context, 1, &source, nullptr, &err);
    if (err != CL_SUCCESS || hkBuildProgram(program, 1, &cl.device, "", nullptr, nullptr))
      return 11;
    kernel = hkCreateKernel(program, name, &err);
    buffer = hkCreateBuffer(cl.context, CL_MEM_READ_WRITE, ints * sizeof(int), nullptr, &err);
    if (err != CL_SUCCESS || hkSetKernelArg(kernel, 0, sizeof buffer, &buffer) != CL_SUCCESS)
      return 12;
    return 0;
  }

  ~ChildKernel() {
    if (kernel) hkReleaseKernel(kernel);
    if (buffer) hkReleaseMemObject(buffer);
    if (program) hkReleaseProgram(program);
    cl.release();
  }
};
