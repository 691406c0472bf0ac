// Native programs from OpenCL C (the prelude in front of the source) and what hostkernel
// knows about a kernel's variants. The SPIR-V counterpart is in spirv_api.cpp.
#include <hostkernel/hostkernel.h>

#include <string>

#include "api/registry.hpp"
#include "base/next.hpp"
#include "program/native_program.hpp"

using namespace hk::api;

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
  registry().dropProgram(program);
  registry().addNative(program, hk::program::NativeProgram::fromSource(std::move(text)));
  return program;
}

cl_int hkGetKernelVariantInfo(cl_kernel kernel, hk_variant_info *info) {
  if (!info) return CL_INVALID_VALUE;
  cl_int err = CL_SUCCESS;
  KernelEntry *k = kernel ? registry().kernelEntry(kernel, &err) : nullptr;
  if (!k) return err != CL_SUCCESS ? err : CL_INVALID_KERNEL;
  std::lock_guard lock(k->mutex);
  *info = hk_variant_info{};
  info->native = k->hidden_ndrange ? CL_TRUE : CL_FALSE;
  info->unchecked_built = k->native && k->native->uncheckedBuilt() ? CL_TRUE : CL_FALSE;
  info->unchecked_used = k->unchecked ? CL_TRUE : CL_FALSE;
  info->checked_groups = k->checked_groups.load(std::memory_order_relaxed);
  info->unchecked_groups = k->unchecked_groups.load(std::memory_order_relaxed);
  if (k->special.load(std::memory_order_acquire))
    for (int d = 0; d < 3; ++d)
      info->specialized_local_size[d] = static_cast<size_t>(k->special_geometry.local[d]);
  info->specialized_launches = k->special_launches.load(std::memory_order_relaxed);
  info->group_free = k->image && k->image->group_free ? CL_TRUE : CL_FALSE;
  for (int d = 0; d < 3; ++d) info->planned_local_size[d] = k->planned_local[d];
  return CL_SUCCESS;
}

}  // extern "C"
