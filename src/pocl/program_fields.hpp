// The two fields of PoCL's struct _cl_program (lib/CL/pocl_cl.h, same fields at v3.1,
// v6.0 and v7.1) that hostkernel reads without asking PoCL to compile anything: the
// program's build hash on a device, which names its directory in PoCL's kernel cache
// (<top>/<build hash>/, pocl/kernel_cache.hpp), and `flush_denorms`. The only public way to
// learn the hash is the program's binary, whose query compiles every kernel of the program
// (docs/first-launch.md, "One kernel compiled").
//
//   ProgramFields f;
//   std::string why;
//   if (readProgramFields(program, device, *release, f, why))
//     dir = top + "/" + f.build_hash;  // "KE/EABAHDMK..."
//
// The struct is read only where every field on the way holds what the OpenCL API says it
// holds (its context, number of devices, the device, number of kernels), and every read
// goes through process_vm_readv, so that a layout other than the one described cannot
// crash the process: it only makes the read fail.
#pragma once

#include <CL/cl.h>

#include <string>

#include "pocl/release.hpp"

namespace hk::pocl {

struct ProgramFields {
  std::string build_hash;  // 40 letters 'A'..'P' with a '/' as the third character
  bool flush_denorms = false;
};

// Fills `out` for `program` built for `device`; false with `why` when the release has no
// described layout, the program is not built, or any check fails (POCL_KERNEL_CACHE=0
// gives a 16-letter directory name, which is refused too).
bool readProgramFields(cl_program program, cl_device_id device, const Release &release,
                       ProgramFields &out, std::string &why);

}  // namespace hk::pocl
