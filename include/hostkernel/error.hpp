// hk::Error, what every hk:: call throws, and hk::errorName, an OpenCL error code's
// name.
// Part of hostkernel's C++ API (hostkernel.hpp includes every part).
#pragma once

#include <hostkernel/hostkernel_platform.h>

#include <stdexcept>
#include <string>

namespace hk {

// "CL_INVALID_ARG_SIZE" for -51; "OpenCL error -1234" for codes it does not know.
inline std::string errorName(cl_int code) {
  switch (code) {
#define HK_ERROR_NAME(e) \
  case e:                \
    return #e;
    HK_ERROR_NAME(CL_SUCCESS) HK_ERROR_NAME(CL_DEVICE_NOT_FOUND)
    HK_ERROR_NAME(CL_DEVICE_NOT_AVAILABLE) HK_ERROR_NAME(CL_COMPILER_NOT_AVAILABLE)
    HK_ERROR_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE) HK_ERROR_NAME(CL_OUT_OF_RESOURCES)
    HK_ERROR_NAME(CL_OUT_OF_HOST_MEMORY) HK_ERROR_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    HK_ERROR_NAME(CL_MEM_COPY_OVERLAP) HK_ERROR_NAME(CL_IMAGE_FORMAT_MISMATCH)
    HK_ERROR_NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED) HK_ERROR_NAME(CL_BUILD_PROGRAM_FAILURE)
    HK_ERROR_NAME(CL_MAP_FAILURE) HK_ERROR_NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    HK_ERROR_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    HK_ERROR_NAME(CL_COMPILE_PROGRAM_FAILURE) HK_ERROR_NAME(CL_LINKER_NOT_AVAILABLE)
    HK_ERROR_NAME(CL_LINK_PROGRAM_FAILURE) HK_ERROR_NAME(CL_DEVICE_PARTITION_FAILED)
    HK_ERROR_NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) HK_ERROR_NAME(CL_INVALID_VALUE)
    HK_ERROR_NAME(CL_INVALID_DEVICE_TYPE) HK_ERROR_NAME(CL_INVALID_PLATFORM)
    HK_ERROR_NAME(CL_INVALID_DEVICE) HK_ERROR_NAME(CL_INVALID_CONTEXT)
    HK_ERROR_NAME(CL_INVALID_QUEUE_PROPERTIES) HK_ERROR_NAME(CL_INVALID_COMMAND_QUEUE)
    HK_ERROR_NAME(CL_INVALID_HOST_PTR) HK_ERROR_NAME(CL_INVALID_MEM_OBJECT)
    HK_ERROR_NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) HK_ERROR_NAME(CL_INVALID_IMAGE_SIZE)
    HK_ERROR_NAME(CL_INVALID_SAMPLER) HK_ERROR_NAME(CL_INVALID_BINARY)
    HK_ERROR_NAME(CL_INVALID_BUILD_OPTIONS) HK_ERROR_NAME(CL_INVALID_PROGRAM)
    HK_ERROR_NAME(CL_INVALID_PROGRAM_EXECUTABLE) HK_ERROR_NAME(CL_INVALID_KERNEL_NAME)
    HK_ERROR_NAME(CL_INVALID_KERNEL_DEFINITION) HK_ERROR_NAME(CL_INVALID_KERNEL)
    HK_ERROR_NAME(CL_INVALID_ARG_INDEX) HK_ERROR_NAME(CL_INVALID_ARG_VALUE)
    HK_ERROR_NAME(CL_INVALID_ARG_SIZE) HK_ERROR_NAME(CL_INVALID_KERNEL_ARGS)
    HK_ERROR_NAME(CL_INVALID_WORK_DIMENSION) HK_ERROR_NAME(CL_INVALID_WORK_GROUP_SIZE)
    HK_ERROR_NAME(CL_INVALID_WORK_ITEM_SIZE) HK_ERROR_NAME(CL_INVALID_GLOBAL_OFFSET)
    HK_ERROR_NAME(CL_INVALID_EVENT_WAIT_LIST) HK_ERROR_NAME(CL_INVALID_EVENT)
    HK_ERROR_NAME(CL_INVALID_OPERATION) HK_ERROR_NAME(CL_INVALID_BUFFER_SIZE)
    HK_ERROR_NAME(CL_INVALID_GLOBAL_WORK_SIZE) HK_ERROR_NAME(CL_INVALID_PROPERTY)
    HK_ERROR_NAME(CL_INVALID_COMPILER_OPTIONS) HK_ERROR_NAME(CL_INVALID_LINKER_OPTIONS)
#undef HK_ERROR_NAME
    default:
      return "OpenCL error " + std::to_string(code);
  }
}

// What every hk:: call throws on failure.
//
//   try {
//     kernel.launch({1000}, x, y);
//   } catch (const hk::Error &e) {
//     if (e.code() == CL_INVALID_KERNEL_ARGS) ...;
//     std::cerr << e.what() << "\n";   // "axpy: 2 arguments given, the kernel takes 3"
//   }
class Error : public std::runtime_error {
 public:
  Error(cl_int code, const std::string &message) : std::runtime_error(message), code_(code) {}
  // The OpenCL error code (CL_INVALID_ARG_SIZE, CL_BUILD_PROGRAM_FAILURE, ...).
  cl_int code() const noexcept { return code_; }

 private:
  cl_int code_;
};

namespace detail {
[[noreturn]] inline void fail(cl_int code, const std::string &context,
                              const std::string &detail = "") {
  throw Error(code, context + ": " + errorName(code) + (detail.empty() ? "" : " " + detail));
}
inline void check(cl_int code, const std::string &context) {
  if (code != CL_SUCCESS) fail(code, context);
}
}  // namespace detail

}  // namespace hk
