// SPIR-V → SPIR 1.2 bitcode, for PoCL 3.1, which rejects SPIR-V (clCreateProgramWithIL)
// but builds SPIR bitcode given to clCreateProgramWithBinary (cl_khr_spir).
//
//   std::vector<std::uint8_t> bc;
//   std::string err;
//   if (!hk::program::spirvToSpirBitcode(spirv_bytes, bc, err))
//     fprintf(stderr, "%s\n", err.c_str());   // "not SPIR-V: bad magic number 0x..."
//   const unsigned char *p = bc.data(); size_t n = bc.size();
//   clCreateProgramWithBinary(ctx, 1, &dev, &n, &p, &status, &e);   // then clBuildProgram
//
// The translation is LLVMSPIRVLib 15's reader (llvm::readSpirv) plus four fixes that make
// PoCL treat the module as it treats the same kernels built from source:
//  - `!spirv.Source` is removed: with it PoCL makes every addrspace(3) global an automatic
//    local of every kernel. Without it PoCL recognises a kernel's locals by their name,
//    "<kernel>.<var>", so each such global is renamed after the one kernel that uses it
//    (the metadata stays when a local cannot be attributed to exactly one kernel);
//  - kernels get `kernel_arg_name` metadata from their argument names, when the SPIR-V
//    has them (clang -cl-kernel-arg-info), so clGetKernelArgInfo can answer names;
//  - calls to mad() become llvm.fmuladd: clang's a*b+c contraction reaches SPIR-V as
//    OpenCL.std mad, which PoCL implements unfused, while from source PoCL fuses the same
//    expression where the CPU has FMA (an explicit mad() call is then fused too: allowed,
//    mad's rounding is implementation-defined, but not bit-equal to PoCL from source);
//  - the triple is spir64-unknown-unknown (32-bit SPIR-V is rejected).
// The result is checked with LLVM's verifier before it is returned.
//
// Bad input never crashes the caller. The header and the instruction stream are checked
// first (size, magic number, word counts); the translation itself then runs in a forked
// child, because Debian's LLVMSPIRVLib 15 is built with assertions and aborts, crashes,
// loops or allocates without bound on many malformed modules, and reports even ordinary
// errors (an unknown extension) by calling exit(). The child has a memory limit and a time
// limit; a child that dies, exits, runs out of memory or time is an error with the reason
// ("malformed SPIR-V: the translator crashed (SIGABRT): <assertion>").
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hk::program {

struct SpirvTranslateOptions {
  // Translate in a forked child (the default). In process is a few ms faster, for input
  // known to be good: any translation error then ends the process (the library calls
  // exit() or abort()).
  bool isolate = true;
  // Time allowed to the child; it is killed after that.
  std::chrono::milliseconds timeout{60000};
  // Memory the child may map beyond what it inherits (RLIMIT_AS); valid modules need a
  // few tens of MiB.
  std::size_t memory_limit = std::size_t{2} << 30;
  // Native programs (include/hostkernel/kernel.h): 1 or 0 makes every read of the
  // prelude's `hk_checked_variant_` constant that value (the checked or the unchecked
  // variant); with 0, a module without the constant is an error. -1: a plain program.
  int native_checked = -1;
  // The result is SPIR-V again, for releases that build SPIR-V themselves
  // (clCreateProgramWithIL): of the fixes above only the one for mad applies (as fma),
  // with native_checked.
  bool output_spirv = false;
};

// Translates a SPIR-V module (binary, little-endian) to SPIR bitcode that PoCL 3.1 accepts.
// On failure returns false, leaves `bitcode` empty and sets `error`.
bool spirvToSpirBitcode(std::span<const std::uint8_t> spirv, std::vector<std::uint8_t> &bitcode,
                        std::string &error);
bool spirvToSpirBitcode(std::span<const std::uint8_t> spirv, std::vector<std::uint8_t> &bitcode,
                        std::string &error, const SpirvTranslateOptions &options);

// The structural checks alone (no LLVM): header fields and that every instruction's word
// count is non-zero and stays inside the module.
bool checkSpirvStructure(std::span<const std::uint8_t> spirv, std::string &error);

namespace detail {
// spirv_llvm.cpp: LLVMSPIRVLib and the module fixes, in the calling process. The only
// code that includes LLVM headers.
bool translateSpirvWithLlvm(std::span<const std::uint8_t> spirv,
                            std::vector<std::uint8_t> &bitcode, std::string &error,
                            int native_checked = -1, bool output_spirv = false);
// How the child ends when it does not return a result (its exit status).
inline constexpr int kChildExitFatal = 70;        // LLVM fatal error (message on stderr)
inline constexpr int kChildExitOutOfMemory = 71;  // allocation failed under the limit
inline constexpr int kChildExitCalledExit = 72;   // the library called exit()
// Makes LLVM's fatal and out-of-memory errors end the (child) process with _exit.
void installChildErrorHandlers();
}  // namespace detail

}  // namespace hk::program
