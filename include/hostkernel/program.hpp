// hk::Program: a program built from OpenCL C or SPIR-V, plain or native.
// Part of hostkernel's C++ API (hostkernel.hpp includes every part).
#pragma once

#include <hostkernel/error.hpp>
#include <hostkernel/hostkernel.h>
#include <hostkernel/runtime.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace hk {

// A built program, from OpenCL C source or from SPIR-V. Copies share the program.
// Build errors throw with PoCL's build log in the message.
//
//   hk::Program p = hk::Program::fromSource(rt, source, "-DTILE=16");
//   std::vector<std::uint8_t> spv = read("axpy.spv");     // clang + llvm-spirv
//   hk::Program q = hk::Program::fromSpirv(rt, spv);
//
// Programs are built with -cl-kernel-arg-info (so that errors can name arguments); SPIR-V
// also with "-x spir -spir-std=1.2" (hkCreateProgramWithSPIRV makes it SPIR bitcode).
// Options that change code generation, such as -cl-denorms-are-zero, apply to SPIR-V too.
class Program {
 public:
  static Program fromSource(Runtime &rt, std::string_view source, std::string_view options = {}) {
    const char *text = source.data();
    size_t length = source.size();
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateProgramWithSource(rt.context(), 1, &text, &length, &err);
    detail::check(err, "hk::Program::fromSource");
    Program program(rt, p);
    program.build("hk::Program::fromSource", std::string(options));
    return program;
  }

  static Program fromSpirv(Runtime &rt, std::span<const std::uint8_t> spirv,
                           std::string_view options = {}) {
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateProgramWithSPIRV(rt.context(), spirv.data(), spirv.size(), &err);
    if (err != CL_SUCCESS)
      detail::fail(err, "hk::Program::fromSpirv", std::string("(") + hkGetLastSPIRVError() + ")");
    Program program(rt, p);
    program.build("hk::Program::fromSpirv", "-x spir -spir-std=1.2 " + std::string(options));
    return program;
  }

  static Program fromSpirv(Runtime &rt, const void *spirv, std::size_t size,
                           std::string_view options = {}) {
    return fromSpirv(rt, std::span<const std::uint8_t>(static_cast<const std::uint8_t *>(spirv), size),
                     options);
  }

  // A native program: OpenCL C written with the prelude hostkernel/kernel.h (HK_KERNEL,
  // hk_in_bounds(), ...), which hostkernel puts in front of `source`. Its kernels launch
  // over their true ndrange with any work-group size; full work-groups run the unchecked
  // variant (built on a kernel's second launch), boundary ones the checked variant.
  //
  //   hk::Program p = hk::Program::native(rt, R"(
  //       HK_KERNEL(scale, float a, global float *x) {
  //         if (hk_in_bounds()) x[hk_global_id(0)] *= a;
  //       })");
  //   hk::Kernel scale(p, "scale");
  //   scale.launch({1000}, {64}, 2.0f, x);      // 16 groups; the 16th is partial
  //
  // fromSource/fromSpirv programs are plain OpenCL: they never get the prelude.
  static Program native(Runtime &rt, std::string_view source, std::string_view options = {}) {
    const char *text = source.data();
    size_t length = source.size();
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateNativeProgramWithSource(rt.context(), 1, &text, &length, &err);
    detail::check(err, "hk::Program::native");
    Program program(rt, p);
    program.build("hk::Program::native", std::string(options));
    return program;
  }

  // A native program from SPIR-V compiled with the prelude (clang-15 -include
  // hostkernel/kernel.h, no HK_CHECKED): see hkCreateNativeProgramWithSPIRV.
  static Program nativeSpirv(Runtime &rt, std::span<const std::uint8_t> spirv,
                             std::string_view options = {}) {
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateNativeProgramWithSPIRV(rt.context(), spirv.data(), spirv.size(), &err);
    if (err != CL_SUCCESS)
      detail::fail(err, "hk::Program::nativeSpirv",
                   std::string("(") + hkGetLastSPIRVError() + ")");
    Program program(rt, p);
    program.build("hk::Program::nativeSpirv", "-x spir -spir-std=1.2 " + std::string(options));
    return program;
  }

  Program(const Program &other) : rt_(other.rt_), program_(other.program_) {
    clRetainProgram(program_);
  }
  Program(Program &&other) noexcept
      : rt_(other.rt_), program_(std::exchange(other.program_, nullptr)) {}
  Program &operator=(Program other) noexcept {
    std::swap(rt_, other.rt_);
    std::swap(program_, other.program_);
    return *this;
  }
  ~Program() {
    if (program_) hkReleaseProgram(program_);
  }

  cl_program get() const { return program_; }
  Runtime &runtime() const { return *rt_; }

 private:
  Program(Runtime &rt, cl_program p) : rt_(&rt), program_(p) {}

  void build(const char *context, const std::string &options) {
    std::string opts = "-cl-kernel-arg-info " + options;
    cl_device_id device = rt_->device();
    cl_int err = hkBuildProgram(program_, 1, &device, opts.c_str(), nullptr, nullptr);
    if (err == CL_SUCCESS) return;
    size_t size = 0;
    clGetProgramBuildInfo(program_, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    if (size) clGetProgramBuildInfo(program_, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    log.resize(std::strlen(log.c_str()));
    detail::fail(err, context, "(options \"" + options + "\"); build log:\n" + log);
  }

  Runtime *rt_;
  cl_program program_;
};

}  // namespace hk
