// How much stack one work-group of a kernel needs, estimated once per kernel from the
// program's bitcode (the poclbinary's `program.bc`), without running the kernel.
//
// PoCL's generic work-group function runs every work-item of the group in loops and keeps
// a private copy, per work-item, of each of the kernel's private variables (`alloca`s, also
// the ones PoCL makes of PHI nodes) and, in kernels with barriers, of each value live
// across a barrier. All of them are on the work-group function's stack, sized by
// pc->local_size, with no stack probing: a group that does not fit the thread's stack
// jumps the guard page. So the stack of a group of L work-items is affine in L:
//
//   StackModel m;
//   std::string err;
//   if (estimateKernelStack(program_bc, "private_array", m, err))
//     need = m.bytesFor(256);   // base + 256 * per_item, margins included
//
// The method, its margins and its limits are in docs/stack.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hk::program {

struct StackModel {
  // Bytes of the work-group function's frame that do not grow with the group (register
  // spills, saved registers, callees such as libm), margin included.
  std::uint64_t base_bytes = 0;
  // Bytes per work-item, margin included.
  std::uint64_t per_item_bytes = 0;
  // What the bitcode gave, before margins (for reports and tests).
  std::uint64_t private_bytes = 0;  // private variables (allocas, PHI nodes)
  std::uint64_t context_bytes = 0;  // values that may be live across a barrier
  bool has_barrier = false;

  // Stack bytes for a group of `items` work-items; saturates instead of overflowing.
  std::uint64_t bytesFor(std::uint64_t items) const {
    if (items && per_item_bytes > (UINT64_MAX - base_bytes) / items) return UINT64_MAX;
    return base_bytes + items * per_item_bytes;
  }
  // The largest power of two L with bytesFor(L) <= room (0 when not even one work-item
  // fits).
  std::uint64_t largestPow2Fitting(std::uint64_t room) const {
    if (bytesFor(1) > room) return 0;
    std::uint64_t l = 1;
    while (l < (std::uint64_t{1} << 40) && bytesFor(l * 2) <= room) l *= 2;
    return l;
  }
};

// When the bitcode cannot be read (or the kernel has a private array of run-time size,
// which OpenCL C does not allow): a deliberately generous model, see docs/stack.md.
StackModel unknownStackModel();

// Reads `kernel` (and everything it calls) from `program_bc` and fills `model`. Returns
// false with `error` set when the bitcode does not give an answer; `model` is then
// unknownStackModel(). Only the kernel and the functions it calls are read in full, but
// reading the module's globals is most of a warm first launch's instructions for PoCL's
// program.bc (which holds its builtin library's constants): ProgramImage keeps the answers
// in the persistent cache entry, so a warm process does not read the bitcode at all.
bool estimateKernelStack(std::span<const std::uint8_t> program_bc, const std::string &kernel,
                         StackModel &model, std::string &error);

// One kernel's answer from estimateKernelStacks.
struct StackEstimate {
  StackModel model;   // unknownStackModel() when !ok
  bool ok = false;
  std::string error;  // why there is no answer
  // Found by the same walk: no work-item can tell which work-group it is in, nor share
  // data with its group (no local or group ids or sizes, barriers, local memory, group
  // functions or printf; only builtins known not to). Such a kernel gives the same
  // results with any uniform work-group size (docs/launch.md, "Merged work-groups").
  bool group_free = false;
  // What PoCL's metadata of the kernel says, found in the same bitcode
  // (pocl_llvm_metadata.cc at v3.1, v6.0 and v7.1), for a kernel whose metadata is not
  // taken from the program's binary (ProgramImage::launchKernel). Per argument: PoCL's
  // POCL_ARG_TYPE_POINTER rule, a pointer type without byval.
  std::vector<bool> pointer_args;
  // Per argument, the allocation size of its LLVM type (the byval type for byval
  // arguments) when that is a single value, else 0: PoCL 7's type_size of a by-value one.
  std::vector<std::uint32_t> arg_value_sizes;
  // Per argument, the kernel's kernel_arg_addr_space (SPIR numbers: 0 private, 1 global,
  // 2 constant, 3 local) and kernel_arg_type metadata, which PoCL's metadata copies; empty
  // when the bitcode lacks them for some argument.
  std::vector<int> arg_address_spaces;
  std::vector<std::string> arg_types;
  // reqd_work_group_size, 0 0 0 without it.
  std::uint64_t reqd_wg_size[3] = {0, 0, 0};
  // False only when no global of the module can be one of the kernel's automatic
  // (kernel-scope) __local variables by PoCL's rule (isAutomaticLocal, lib/llvmopencl: a
  // mutable global named "<kernel>.*", or in address space 3): then PoCL's metadata has
  // none and the work-group function takes no argument for them.
  bool automatic_locals = true;
};

// estimateKernelStack for several kernels of one program, reading the bitcode once (the
// read, not the walk, is most of the cost). `out` gets one entry per name, in order.
void estimateKernelStacks(std::span<const std::uint8_t> program_bc,
                          const std::vector<std::string> &kernels,
                          std::vector<StackEstimate> &out);

}  // namespace hk::program
