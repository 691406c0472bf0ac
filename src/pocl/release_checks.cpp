#include "pocl/release_checks.hpp"

#include "base/next.hpp"

namespace hk::pocl {

const Release *runningRelease(cl_device_id device) {
  if (const Release *r = currentRelease()) return r;
  const auto &cl = next();
  cl_platform_id platform = nullptr;
  char version[512] = {};
  if (cl.clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) !=
          CL_SUCCESS ||
      cl.clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version - 1, version,
                           nullptr) != CL_SUCCESS)
    return nullptr;
  const Release *r = findRelease(version);
  if (r) setCurrentRelease(r);
  return r;
}

std::uint64_t programScopeVariableBytes(cl_program program, cl_device_id device,
                                        const Release &release) {
  if (!release.has_program_scope_variables) return 0;
  std::size_t bytes = 0;
  if (next().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                   sizeof bytes, &bytes, nullptr) != CL_SUCCESS)
    return 0;
  return bytes;
}

bool binaryMatchesRelease(const PoclBinary &binary, const Release &release, std::string &why) {
  if (binary.version != release.binary_version) {
    why = "poclbinary version " + std::to_string(binary.version) + " is not PoCL " +
          release.version + "'s " + std::to_string(release.binary_version);
    return false;
  }
  // The 112-byte context came with program-scope variables, whose size the header of
  // every binary of those releases carries.
  constexpr std::uint32_t kContextWithVariables = 112;
  const bool has_size = (binary.flags & kBinaryHasProgramScopeVars) != 0;
  if (has_size != (release.context_size == kContextWithVariables)) {
    why = std::string("poclbinary ") + (has_size ? "has" : "lacks") +
          " a program-scope variable size, which does not fit a " +
          std::to_string(release.context_size) + "-byte pocl_context";
    return false;
  }
  return true;
}

}  // namespace hk::pocl
