// Checks that a program's PoCL behaves as its Release describes, before hostkernel calls
// anything PoCL compiled for it: the description is chosen by version string, and these
// make a mismatch a queue-only program with a reason instead of a wrong call.
//
//   std::string why;
//   if (programScopeVariableBytes(program, device, *release) != 0) queueOnly("...");
//   if (!binaryMatchesRelease(binary, *release, why)) queueOnly(why);
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "pocl/binary.hpp"
#include "pocl/release.hpp"

namespace hk::pocl {

// The release of `device`'s platform: currentRelease() once a probe set it, else read
// from CL_PLATFORM_VERSION (and made current when described); null for a release that
// release.hpp does not describe.
const Release *runningRelease(cl_device_id device);

// Bytes of the program's __global file-scope variables on `device`, asked with
// CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, which asks nothing of PoCL's kernel
// compiler (the binary query would allocate the variables' storage and leave it without
// its initial values for good: docs/pocl-releases.md, "Program-scope variables"). 0 for
// releases without such variables, where PoCL answers another number.
std::uint64_t programScopeVariableBytes(cl_program program, cl_device_id device,
                                        const Release &release);

// Whether `binary` is in the format of `release`: its format version, and the program-
// scope variable size present exactly when the release's context has global_var_buffer.
bool binaryMatchesRelease(const PoclBinary &binary, const Release &release, std::string &why);

}  // namespace hk::pocl
