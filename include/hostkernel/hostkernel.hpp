// hostkernel C++ API: run OpenCL C or SPIR-V kernels on PoCL's CPU device, directly on
// the calling thread where hostkernel can (see hostkernel.h), with RAII objects and
// exceptions. Header-only, over the C API; link with libhostkernel (and libOpenCL).
//
//   #include <hostkernel/hostkernel.hpp>
//
//   hk::Runtime &rt = hk::Runtime::get();                 // PoCL's CPU device
//   hk::Program program = hk::Program::fromSource(rt, R"(
//       kernel void axpy(float a, global const float *x, global float *y) {
//         size_t i = get_global_id(0);
//         y[i] = a * x[i] + y[i];
//       })");
//   hk::Kernel axpy(program, "axpy");
//   hk::Buffer<float> x(rt, 1000), y(rt, 1000);
//   std::fill(x.begin(), x.end(), 1.0f);                  // host access: zero copy
//   axpy.launch({1000}, {40}, 2.5f, x, y);                // grid, work-group, arguments
//   rt.finish();
//   float y0 = y[0];
//
// Errors throw hk::Error (an OpenCL error code and a message that names the kernel and
// the argument: "axpy: argument 1 (x): CL_INVALID_ARG_SIZE ...").
//
// Native kernels (hk::Program::native, include/hostkernel/kernel.h) launch over any
// ndrange with any work-group size: hostkernel rounds the grid up and tells the kernel the
// true ndrange (docs/native-kernels.md).
//
// Objects made from a Runtime must not outlive it (Runtime::get() lives until exit).
// A Kernel is not thread-safe (launch() sets its arguments): use one per thread.
//
// One header per concept; include one for its class alone, or this one for all:
//   error.hpp    hk::Error, hk::errorName
//   runtime.hpp  hk::Runtime
//   program.hpp  hk::Program
//   ndrange.hpp  hk::NDRange
//   buffer.hpp   hk::Buffer<T>
//   local.hpp    hk::Local<T>
//   kernel.hpp   hk::Kernel, hk::KernelVariants
#pragma once

#include <hostkernel/buffer.hpp>
#include <hostkernel/error.hpp>
#include <hostkernel/hostkernel.h>
#include <hostkernel/kernel.hpp>
#include <hostkernel/local.hpp>
#include <hostkernel/ndrange.hpp>
#include <hostkernel/program.hpp>
#include <hostkernel/runtime.hpp>
