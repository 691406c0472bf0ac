// Paths that launch one OpenCL kernel: "hostkernel" (hk* C API) and "queue" (plain PoCL
// through cl*). Both set the arguments once in setup; one operation is one NDRange launch
// followed by a finish, so each launch is complete before the next:
//
//   hostkernel: hkEnqueueNDRangeKernel + hkFinish
//   queue:      clEnqueueNDRangeKernel + clFinish
//
// Each path creates its own kernel object, buffers and in-order queue through its own API
// (hkCreate* / clCreate*), so outputs and the hostkernel launch counts are per path. The check resets the buffers to their initial
// contents, runs `checkLaunches` launches and reads the output buffer back.
//
//   hkbench::KernelLaunch k;
//   k.file = "axpy.cl"; k.kernel = "axpy";
//   k.args = {hkbench::LaunchArg::scalar(2.0f), hkbench::LaunchArg::buffer<float>(x),
//             hkbench::LaunchArg::buffer<float>(y)};
//   k.global = {1024, 1, 1}; k.local = {64, 1, 1};
//   k.outputArg = 2; k.outputType = hkbench::ElemType::F32;
//   const hkbench::Register kAxpy{hkbench::launchCase("launch/axpy", "...", k, reference)};
#pragma once

#include "registry.hpp"

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hkbench {

struct LaunchArg {
  enum class Kind { Buffer, Scalar };
  Kind kind = Kind::Scalar;
  std::vector<std::byte> bytes;  // a buffer's initial contents, or a scalar's value

  template <class T>
  static LaunchArg buffer(std::span<const T> init) {
    LaunchArg a;
    a.kind = Kind::Buffer;
    a.bytes.resize(init.size_bytes());
    std::memcpy(a.bytes.data(), init.data(), init.size_bytes());
    return a;
  }
  template <class T>
  static LaunchArg scalar(const T &value) {
    LaunchArg a;
    a.kind = Kind::Scalar;
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &value, sizeof(T));
    return a;
  }
};

struct KernelLaunch {
  std::string file;     // in kernels/
  std::string kernel;
  std::string buildOptions;
  std::vector<LaunchArg> args;  // in argument order
  cl_uint workDim = 1;
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{1, 1, 1};
  bool localNull = false;       // pass NULL as local_work_size
  std::size_t outputArg = 0;    // buffer argument read back by the check
  ElemType outputType = ElemType::Bytes;
  std::uint64_t checkLaunches = 3;
};

// The "hostkernel" and "queue" paths for one kernel launch.
std::vector<Path> launchPaths(OpenCLEnv &env, std::shared_ptr<const KernelLaunch> launch);

// A case whose paths are launchPaths(launch); category = the part of name before '/'.
Case launchCase(std::string name, std::string description, KernelLaunch launch,
                std::function<Output()> reference = {});

// "inline 100%", "team 60% inline 40%", "queue 100% (non-uniform work-groups)": where a
// kernel's launches went, from hkGetKernelLaunchCounts.
std::string hostkernelLaunchNote(cl_kernel kernel);

}  // namespace hkbench
