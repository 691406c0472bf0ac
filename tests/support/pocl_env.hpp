// PoCL's CPU device with one context and in-order queues, for tests that share them
// across cases (the corpus tests) or make them per test (PoclTest).
//
//   PoclQueues cl(QueueBy::kHostkernel);        // device, context, pocl_queue, hk_queue
//   if (!cl.error.empty()) GTEST_SKIP() << cl.error;
//   ...
//   cl.release();
#pragma once

#include <hostkernel/hostkernel.h>

#include <string>

#include "support/pocl_device.hpp"

// Who creates a queue that hostkernel's calls use: hostkernel (hkCreateCommandQueue...,
// as the C++ API does) or OpenCL (a queue hostkernel first sees at its first command).
enum class QueueBy { kHostkernel, kOpenCL };

inline cl_command_queue MakeQueue(cl_context context, cl_device_id device, QueueBy by,
                                  cl_int *err) {
  return by == QueueBy::kHostkernel
             ? hkCreateCommandQueueWithProperties(context, device, nullptr, err)
             : clCreateCommandQueueWithProperties(context, device, nullptr, err);
}

// The build log of `program` for `device` ("" if there is none).
inline std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size)
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log;
}

// PoCL's CPU device, a context and two queues: pocl_queue for PoCL's own runs (made by
// OpenCL) and hk_queue for hostkernel's. `error` says what is missing.
struct PoclQueues {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue pocl_queue = nullptr;
  cl_command_queue hk_queue = nullptr;
  std::string error;

  explicit PoclQueues(QueueBy hk_queue_by) {
    if (!FindPoclDevice(&platform, &device)) {
      error = "no PoCL CPU device";
      return;
    }
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) {
      error = "clCreateContext: " + std::to_string(err);
      return;
    }
    pocl_queue = MakeQueue(context, device, QueueBy::kOpenCL, &err);
    if (pocl_queue) hk_queue = MakeQueue(context, device, hk_queue_by, &err);
    if (!pocl_queue || !hk_queue) error = "clCreateCommandQueue: " + std::to_string(err);
  }

  // Through hostkernel, so that its state for the objects dies with them.
  void release() {
    if (pocl_queue) hkReleaseCommandQueue(pocl_queue);
    if (hk_queue) hkReleaseCommandQueue(hk_queue);
    if (context) hkReleaseContext(context);
    pocl_queue = hk_queue = nullptr;
    context = nullptr;
  }
};
