#include "opencl_env.hpp"

#include <hostkernel/hostkernel.h>

#include <fstream>
#include <sstream>
#include <type_traits>
#include <vector>

#ifndef HK_PRELUDE_PATH
#define HK_PRELUDE_PATH "include/hostkernel/kernel.h"
#endif

namespace hkbench {
namespace {

// The string `query` (clGetPlatformInfo, clGetDeviceInfo, ...) gives for `what` of
// `object`, up to its first NUL; empty when the query fails.
template <class Object, class Info>
std::string infoString(cl_int (*query)(Object, Info, std::size_t, void *, std::size_t *),
                       Object object, std::type_identity_t<Info> what) {
  std::size_t size = 0;
  if (query(object, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string s(size, '\0');
  if (query(object, what, size, s.data(), nullptr) != CL_SUCCESS) return {};
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read kernel source " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ClError::ClError(cl_int code, const std::string &what)
    : std::runtime_error(what + " failed: " + clErrorName(code)), code_(code) {}

void checkCl(cl_int err, const std::string &what) {
  if (err != CL_SUCCESS) throw ClError(err, what);
}

std::string clErrorName(cl_int code) {
  switch (code) {
#define HKB_NAME(x) \
  case x:           \
    return #x;
    HKB_NAME(CL_SUCCESS)
    HKB_NAME(CL_DEVICE_NOT_FOUND)
    HKB_NAME(CL_DEVICE_NOT_AVAILABLE)
    HKB_NAME(CL_COMPILER_NOT_AVAILABLE)
    HKB_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    HKB_NAME(CL_OUT_OF_RESOURCES)
    HKB_NAME(CL_OUT_OF_HOST_MEMORY)
    HKB_NAME(CL_BUILD_PROGRAM_FAILURE)
    HKB_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    HKB_NAME(CL_INVALID_VALUE)
    HKB_NAME(CL_INVALID_DEVICE_TYPE)
    HKB_NAME(CL_INVALID_PLATFORM)
    HKB_NAME(CL_INVALID_DEVICE)
    HKB_NAME(CL_INVALID_CONTEXT)
    HKB_NAME(CL_INVALID_COMMAND_QUEUE)
    HKB_NAME(CL_INVALID_HOST_PTR)
    HKB_NAME(CL_INVALID_MEM_OBJECT)
    HKB_NAME(CL_INVALID_BINARY)
    HKB_NAME(CL_INVALID_BUILD_OPTIONS)
    HKB_NAME(CL_INVALID_PROGRAM)
    HKB_NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    HKB_NAME(CL_INVALID_KERNEL_NAME)
    HKB_NAME(CL_INVALID_KERNEL_DEFINITION)
    HKB_NAME(CL_INVALID_KERNEL)
    HKB_NAME(CL_INVALID_ARG_INDEX)
    HKB_NAME(CL_INVALID_ARG_VALUE)
    HKB_NAME(CL_INVALID_ARG_SIZE)
    HKB_NAME(CL_INVALID_KERNEL_ARGS)
    HKB_NAME(CL_INVALID_WORK_DIMENSION)
    HKB_NAME(CL_INVALID_WORK_GROUP_SIZE)
    HKB_NAME(CL_INVALID_WORK_ITEM_SIZE)
    HKB_NAME(CL_INVALID_GLOBAL_OFFSET)
    HKB_NAME(CL_INVALID_EVENT_WAIT_LIST)
    HKB_NAME(CL_INVALID_EVENT)
    HKB_NAME(CL_INVALID_OPERATION)
    HKB_NAME(CL_INVALID_BUFFER_SIZE)
    HKB_NAME(CL_INVALID_GLOBAL_WORK_SIZE)
#undef HKB_NAME
    default:
      return "OpenCL error " + std::to_string(code);
  }
}

OpenCLEnv::OpenCLEnv(std::string kernelsDir) : kernelsDir_(std::move(kernelsDir)) {}

OpenCLEnv::~OpenCLEnv() {
  // Through hostkernel, so that its per-object state dies with the objects.
  for (auto &[key, program] : programs_) hkReleaseProgram(program);
  if (context_) hkReleaseContext(context_);
}

void OpenCLEnv::init() {
  if (context_) return;
  if (hkGetPoclDevice(&platform_, &device_) != CL_SUCCESS) device_ = nullptr;
  if (!device_)
    throw std::runtime_error(
        "no PoCL CPU device found (is pocl-opencl-icd installed, OCL_ICD_VENDORS set?)");
  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(platform_), 0};
  context_ = clCreateContext(props, 1, &device_, nullptr, nullptr, &err);
  checkCl(err, "clCreateContext");
}

cl_device_id OpenCLEnv::device() {
  init();
  return device_;
}

cl_context OpenCLEnv::context() {
  init();
  return context_;
}

cl_program OpenCLEnv::program(const std::string &file, const std::string &options) {
  return program(file, options, Kind::kPlain);
}

cl_program OpenCLEnv::program(const std::string &file, const std::string &options, Kind kind) {
  init();
  const std::string key = file + '\0' + options + '\0' + std::to_string(static_cast<int>(kind));
  if (auto it = programs_.find(key); it != programs_.end()) return it->second;
  std::string source = readFile(kernelsDir_ + "/" + file);
  if (kind == Kind::kPrelude) source = readFile(HK_PRELUDE_PATH) + "\n#line 1\n" + source;
  const char *text = source.c_str();
  const std::size_t length = source.size();
  cl_int err = CL_SUCCESS;
  cl_program program =
      kind == Kind::kNative
          ? hkCreateNativeProgramWithSource(context_, 1, &text, &length, &err)
          : hkCreateProgramWithSource(context_, 1, &text, &length, &err);
  checkCl(err, "clCreateProgramWithSource(" + file + ")");
  err = hkBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::size_t size = 0;
    clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    hkReleaseProgram(program);
    throw ClError(err, "clBuildProgram(" + file + ")\n" + log);
  }
  programs_.emplace(key, program);
  return program;
}

std::string OpenCLEnv::description() {
  init();
  return infoString(clGetDeviceInfo, device_, CL_DEVICE_NAME) + ", " +
         infoString(clGetPlatformInfo, platform_, CL_PLATFORM_VERSION);
}

}  // namespace hkbench
