// PoCL's CPU device and a context on it made by OpenCL itself (clCreateContext, which
// hostkernel does not see), in the two forms tests need.
//
// OpenPoclContext() is for a fixture's SetUp: a missing device or a failed
// clCreateContext is fatal to the test. Call it inside ASSERT_NO_FATAL_FAILURE, so that
// SetUp stops there too; TearDown releases the context.
//
//   void SetUp() override {
//     ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
//     ...
//   }
//
// ScopedPoclContext owns its context and releases it with the object, for unit tests that
// hand programs PoCL built to hostkernel's own layers; a failure is in `error`.
//
//   ScopedPoclContext cl;
//   ASSERT_NE(cl.context, nullptr) << cl.error;
//   cl_program program = cl.buildProgram(source);
//   ASSERT_NE(program, nullptr) << cl.error;
//   ...
//   clReleaseProgram(program);
#pragma once

#include <CL/cl.h>
#include <gtest/gtest.h>

#include <string>

#include "support/pocl_device.hpp"
#include "support/pocl_env.hpp"

inline void OpenPoclContext(cl_device_id *device, cl_context *context) {
  ASSERT_TRUE(FindPoclDevice(nullptr, device)) << "no PoCL CPU device";
  cl_int err = CL_SUCCESS;
  *context = clCreateContext(nullptr, 1, device, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS) << "clCreateContext";
}

struct ScopedPoclContext {
  cl_device_id device = nullptr;
  cl_context context = nullptr;  // null when there is no device or no context
  std::string error;             // what failed last, with OpenCL's error code

  ScopedPoclContext() {
    if (!FindPoclDevice(nullptr, &device)) {
      error = "no PoCL CPU device";
      return;
    }
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err == CL_SUCCESS) return;
    error = "clCreateContext: " + std::to_string(err);
    if (context) clReleaseContext(context);
    context = nullptr;
  }
  ~ScopedPoclContext() {
    if (context) clReleaseContext(context);
  }
  ScopedPoclContext(const ScopedPoclContext &) = delete;
  ScopedPoclContext &operator=(const ScopedPoclContext &) = delete;

  // `source` created and built by PoCL for `device` with `options`; the caller releases
  // it. Null without a context, or when either step fails: `error` says which.
  cl_program buildProgram(const char *source, const char *options = "") {
    if (!context) return nullptr;  // `error` already says why
    cl_int err = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
    if (err != CL_SUCCESS) {
      error = "clCreateProgramWithSource: " + std::to_string(err);
      if (program) clReleaseProgram(program);
      return nullptr;
    }
    err = clBuildProgram(program, 1, &device, options, nullptr, nullptr);
    if (err == CL_SUCCESS) return program;
    error = "clBuildProgram: " + std::to_string(err) + "; " + BuildLog(program, device);
    clReleaseProgram(program);
    return nullptr;
  }
};
