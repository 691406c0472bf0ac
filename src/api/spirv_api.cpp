// hkCreateProgramWithSPIRV: SPIR-V fixed up (program/spirv.hpp) and given to PoCL's
// clCreateProgramWithIL where the release builds SPIR-V itself (Release::takes_il), else
// made into SPIR bitcode and given to PoCL as a binary for every device of the context
// (the releases with cl_khr_spir but no SPIR-V).
#include <hostkernel/hostkernel.h>

#include <string>
#include <vector>

#include "base/log.hpp"
#include "base/next.hpp"
#include "program/program_cache.hpp"
#include "program/spirv.hpp"
#include "queue/device.hpp"
#include "queue/registry.hpp"

using hk::next;

namespace {

thread_local std::string t_spirv_error;

cl_program fail(cl_int code, std::string message, cl_int *errcode_ret) {
  hk::logf(hk::LogLevel::Info, "hkCreateProgramWithSPIRV: %s", message.c_str());
  t_spirv_error = std::move(message);
  if (errcode_ret) *errcode_ret = code;
  return nullptr;
}

// Whether every device's PoCL release builds SPIR-V given to clCreateProgramWithIL.
bool takesIl(const std::vector<cl_device_id> &devices) {
  for (cl_device_id d : devices) {
    const hk::pocl::Release *r = hk::queue::device(d)->probe.release;
    if (!r || !r->takes_il) return false;
  }
  return true;
}

// hkCreateProgramWithSPIRV, and with native_checked = 1 the checked variant of a native
// program (program/spirv.hpp: SpirvTranslateOptions::native_checked).
cl_program createFromSpirv(cl_context context, const void *il, size_t length,
                           cl_int *errcode_ret, int native_checked) {
  t_spirv_error.clear();
  const auto &cl = next();
  cl_uint num_devices = 0;
  cl_int err = context ? cl.clGetContextInfo(context, CL_CONTEXT_NUM_DEVICES,
                                             sizeof num_devices, &num_devices, nullptr)
                       : CL_INVALID_CONTEXT;
  if (err != CL_SUCCESS || num_devices == 0)
    return fail(CL_INVALID_CONTEXT, "invalid context", errcode_ret);
  if (!il || length == 0)
    return fail(CL_INVALID_VALUE, il ? "length is 0" : "il is NULL", errcode_ret);

  std::span<const std::uint8_t> spirv(static_cast<const std::uint8_t *>(il), length);
  std::string error;
  if (!hk::program::checkSpirvStructure(spirv, error))
    return fail(CL_INVALID_VALUE, error, errcode_ret);
  std::vector<cl_device_id> devices(num_devices);
  err = cl.clGetContextInfo(context, CL_CONTEXT_DEVICES, num_devices * sizeof(cl_device_id),
                            devices.data(), nullptr);
  if (err != CL_SUCCESS) return fail(err, "cannot list the context's devices", errcode_ret);
  const bool takes_il = takesIl(devices);
  std::vector<std::uint8_t> bitcode;
  hk::program::SpirvTranslateOptions options;
  options.native_checked = native_checked;
  options.output_spirv = takes_il;
  if (!hk::program::spirvToSpirBitcode(spirv, bitcode, error, options))
    return fail(CL_INVALID_BINARY, error, errcode_ret);
  if (takes_il) {
    cl_program program = cl.clCreateProgramWithIL(context, bitcode.data(), bitcode.size(), &err);
    if (!program)
      return fail(err, "the OpenCL implementation rejected the SPIR-V (error " +
                           std::to_string(err) + ")", errcode_ret);
    hk::queue::registry().programCreated(program);
    for (cl_device_id d : devices) hk::program::noteProgramBinaryInput(program, d, bitcode);
    if (errcode_ret) *errcode_ret = CL_SUCCESS;
    return program;
  }

  std::vector<size_t> lengths(num_devices, bitcode.size());
  std::vector<const unsigned char *> binaries(num_devices, bitcode.data());
  std::vector<cl_int> status(num_devices, CL_SUCCESS);
  cl_program program = cl.clCreateProgramWithBinary(context, num_devices, devices.data(),
                                                    lengths.data(), binaries.data(),
                                                    status.data(), &err);
  if (!program || err != CL_SUCCESS) {
    std::string message = "the OpenCL implementation rejected the SPIR bitcode (error " +
                          std::to_string(err) + ")";
    for (cl_uint i = 0; i < num_devices; ++i)
      if (status[i] != CL_SUCCESS)
        message += "; device " + std::to_string(i) + ": " + std::to_string(status[i]) +
                   " (does it support cl_khr_spir?)";
    if (program) cl.clReleaseProgram(program);
    return fail(err != CL_SUCCESS ? err : CL_INVALID_BINARY, message, errcode_ret);
  }
  hk::queue::registry().programCreated(program);
  for (cl_device_id d : devices) hk::program::noteProgramBinaryInput(program, d, bitcode);
  if (errcode_ret) *errcode_ret = CL_SUCCESS;
  return program;
}

}  // namespace

extern "C" {

cl_program hkCreateProgramWithSPIRV(cl_context context, const void *il, size_t length,
                                    cl_int *errcode_ret) {
  return createFromSpirv(context, il, length, errcode_ret, -1);
}

cl_program hkCreateNativeProgramWithSPIRV(cl_context context, const void *il, size_t length,
                                          cl_int *errcode_ret) {
  cl_program program = createFromSpirv(context, il, length, errcode_ret, 1);
  if (program)
    hk::queue::registry().addNative(
        program, hk::program::NativeProgram::fromSpirv(
                     std::span<const std::uint8_t>(static_cast<const std::uint8_t *>(il), length)));
  return program;
}

const char *hkGetLastSPIRVError(void) { return t_spirv_error.c_str(); }

}  // extern "C"
