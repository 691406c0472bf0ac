// PoCL's CPU device and a new context on it, for a fixture's SetUp. A missing device or a
// failed clCreateContext is fatal to the test: call it inside ASSERT_NO_FATAL_FAILURE, so
// that SetUp stops there too.
//
//   void SetUp() override {
//     ASSERT_NO_FATAL_FAILURE(OpenPoclContext(&device_, &ctx_));
//     ...
//   }
#pragma once

#include <gtest/gtest.h>

#include "support/pocl_device.hpp"

inline void OpenPoclContext(cl_device_id *device, cl_context *context) {
  ASSERT_TRUE(FindPoclDevice(nullptr, device)) << "no PoCL CPU device";
  cl_int err = CL_SUCCESS;
  *context = clCreateContext(nullptr, 1, device, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS) << "clCreateContext";
}
