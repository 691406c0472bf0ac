// Native programs from OpenCL C (the prelude in front of the source). The SPIR-V
// counterpart is in spirv_api.cpp; what hostkernel knows about a kernel's variants is
// answered in report_api.cpp.
#include <hostkernel/hostkernel.h>

#include <string>

#include "base/next.hpp"
#include "program/native_program.hpp"
#include "queue/registry.hpp"

using hk::queue::registry;

extern "C" {

cl_program hkCreateNativeProgramWithSource(cl_context context, cl_uint count,
                                           const char **strings, const size_t *lengths,
                                           cl_int *errcode_ret) {
  if (count == 0 || !strings) {
    if (errcode_ret) *errcode_ret = CL_INVALID_VALUE;
    return nullptr;
  }
  std::string source;
  for (cl_uint i = 0; i < count; ++i) {
    if (!strings[i]) {
      if (errcode_ret) *errcode_ret = CL_INVALID_VALUE;
      return nullptr;
    }
    if (lengths && lengths[i]) source.append(strings[i], lengths[i]);
    else source.append(strings[i]);
  }
  std::string text = hk::program::withNativePrelude(source);
  const char *p = text.c_str();
  size_t length = text.size();
  cl_program program = hk::next().clCreateProgramWithSource(context, 1, &p, &length,
                                                            errcode_ret);
  if (!program) return nullptr;
  registry().programCreated(program);
  registry().addNative(program, hk::program::NativeProgram::fromSource(std::move(text)));
  return program;
}

}  // extern "C"
