// PoCL's CPU device with a context made by OpenCL itself (clCreateContext, which hostkernel
// does not see), for unit tests that hand programs PoCL built to hostkernel's own layers.
// The context is released with the object.
//
//   OpenClContext cl;
//   ASSERT_NE(cl.context, nullptr) << cl.error;
//   cl_program program = cl.buildProgram(source);
//   ASSERT_NE(program, nullptr) << cl.error;
//   ...
//   clReleaseProgram(program);
#pragma once

#include <CL/cl.h>

#include <string>

#include "support/pocl_device.hpp"
#include "support/pocl_env.hpp"

struct OpenClContext {
  cl_device_id device = nullptr;
  cl_context context = nullptr;  // null when there is no device or no context
  std::string error;             // what failed last, with OpenCL's error code

  OpenClContext() {
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
  ~OpenClContext() {
    if (context) clReleaseContext(context);
  }
  OpenClContext(const OpenClContext &) = delete;
  OpenClContext &operator=(const OpenClContext &) = delete;

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
