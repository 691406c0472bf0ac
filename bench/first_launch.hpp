// The child side of the compile/* and first-kernel/* cases (bench/cases_compile.cpp):
// what runs in `pocl-launch-bench --internal-child ...` (bench/subprocess.hpp).
//
//   first-kernel PATH KERNELS_DIR
//       one process, one first launch: platform, context, queue, axpy.cl built, kernel,
//       buffers, one launch (global 1024, local 64) + finish, result checked. Prints
//       "ok <ns from program creation to the finished launch> <1 if it ran directly>
//       <ns of create + build + kernel + args> <ns of the launch + finish>".
//   script-kernels PATH KERNELS_DIR
//       the shape of a PyOpenCL script: one process builds kScriptKernels distinct small
//       element-wise programs, one after another, and launches each kernel once (global
//       4096, local 64) on one buffer, then finishes and checks the buffer. Prints the
//       first-kernel line with the build ns and the launch ns summed over the kernels,
//       and the number of launches that ran directly.
//   worker MODE PATH KERNELS_DIR          (MODE: new-kernel | new-workgroupsize)
//       a server for one path of a compile/* case; requests on stdin, one reply line each:
//       "setup" -> "ok"; "run N" -> "ok <launches that ran directly>" after N operations;
//       "check" -> "ok <output as hex>" (the y buffer, verified against a host mirror).
//       Errors reply "error <message>".
//
// PATH is "hostkernel" (hk* C API) or "queue" (cl*, plain PoCL). The operation of
// new-kernel: a program never built before (axpy.cl plus a unique constant: PoCL's
// cache key is the preprocessed source) built, its kernel created and launched once
// (global 1024, local 64), then released. Of new-workgroupsize: axpy launched with a
// local size it was never launched with (1, 2, 3, ... skipping 64; global 8 * local),
// the program and kernel built once in setup and launched there with local 64.
#pragma once

namespace hkbench {

constexpr int kScriptKernels = 20;

// main() of `pocl-launch-bench --internal-child ...` (argv[1] is "--internal-child").
int childMain(int argc, char **argv);

}  // namespace hkbench
