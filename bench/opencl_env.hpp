// The OpenCL objects every case shares: PoCL's CPU device, one context, and programs built
// from the kernels/ corpus. Created on first use, so cases that need no OpenCL (and --list)
// pay nothing.
//
//   hkbench::OpenCLEnv env(HK_KERNELS_DIR);
//   cl_program p = env.program("axpy.cl");          // built once, cached
//   hkbench::checkCl(err, "clCreateKernel(axpy)");  // throws ClError unless CL_SUCCESS
#pragma once

#include <CL/cl.h>

#include <map>
#include <stdexcept>
#include <string>

namespace hkbench {

// An OpenCL call failed.
class ClError : public std::runtime_error {
 public:
  ClError(cl_int code, const std::string &what);
  cl_int code() const { return code_; }

 private:
  cl_int code_;
};

// "CL_INVALID_VALUE" etc., or the number.
std::string clErrorName(cl_int code);

// Throws ClError(err, what) unless err == CL_SUCCESS.
inline void checkCl(cl_int err, const char *what) {
  if (err != CL_SUCCESS) throw ClError(err, what);
}
void checkCl(cl_int err, const std::string &what);

class OpenCLEnv {
 public:
  explicit OpenCLEnv(std::string kernelsDir);
  ~OpenCLEnv();
  OpenCLEnv(const OpenCLEnv &) = delete;
  OpenCLEnv &operator=(const OpenCLEnv &) = delete;

  // PoCL's CPU device (hkGetPoclDevice); throws if there is none.
  cl_device_id device();
  cl_context context();
  // The program built from <kernelsDir>/<file> with `options`; built once per pair,
  // through hkCreateProgramWithSource/hkBuildProgram (they forward to PoCL), so every path
  // can share it. The build log is part of the exception on failure.
  cl_program program(const std::string &file, const std::string &options = "");
  // Native kernels (kernels/native, include/hostkernel/kernel.h). kNative: a native
  // program (hkCreateNativeProgramWithSource: both variants, hidden ndrange set by
  // hostkernel). kPrelude: a plain program of the prelude and the source, for code that
  // passes the ndrange and rounds the grid itself (PoCL's queue; a variant on its own).
  enum class Kind { kPlain, kNative, kPrelude };
  cl_program program(const std::string &file, const std::string &options, Kind kind);
  // "pthread-haswell-AMD EPYC, OpenCL 3.0 PoCL 3.1+debian ..." (initialises).
  std::string description();
  const std::string &kernelsDir() const { return kernelsDir_; }

 private:
  void init();

  std::string kernelsDir_;
  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  std::map<std::string, cl_program> programs_;
};

}  // namespace hkbench
