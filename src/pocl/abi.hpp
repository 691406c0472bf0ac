// The calling convention of PoCL's compiled work-group functions (pthread/basic CPU
// devices, 64-bit). PoclContext is one layout for every release in release.hpp: the
// 112-byte struct pocl_context of PoCL 4.0 and later, whose first 92 bytes are PoCL 3.1's
// 96-byte one; 3.1's work_dim sits at 92, in the later layout's padding, so setWorkDim
// writes both places and a 3.1 function reads only what it expects (layouts checked
// against include/pocl_context.h at tags v3.1, v6.0 and v7.1).
//
//   hk::pocl::PoclContext pc{};            // geometry of the launch
//   hk::pocl::setWorkDim(pc, 2);
//   fn(args, &pc, gx, gy, gz);             // runs work-group (gx, gy, gz) completely
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pocl/release.hpp"

namespace hk::pocl {

struct PoclContext {
  std::uint64_t num_groups[3];
  std::uint64_t global_offset[3];
  std::uint64_t local_size[3];
  std::uint8_t *printf_buffer;
  std::uint32_t *printf_buffer_position;
  std::uint32_t printf_buffer_capacity;
  std::uint32_t work_dim_96;       // work_dim of the 96-byte layout
  std::uint8_t *global_var_buffer;  // the program's __global variables (112-byte layout)
  // work_dim of the 112-byte layout and execution_failed, the flag a work-item sets when it
  // reaches `unreachable`, in one word: setWorkDim clears the flag with the same store.
  std::uint64_t work_dim_and_failed;
};
static_assert(sizeof(PoclContext) == 112);
static_assert(offsetof(PoclContext, num_groups) == 0);
static_assert(offsetof(PoclContext, global_offset) == 24);
static_assert(offsetof(PoclContext, local_size) == 48);
static_assert(offsetof(PoclContext, printf_buffer) == 72);
static_assert(offsetof(PoclContext, printf_buffer_position) == 80);
static_assert(offsetof(PoclContext, printf_buffer_capacity) == 88);
static_assert(offsetof(PoclContext, work_dim_96) == 92);
static_assert(offsetof(PoclContext, global_var_buffer) == 96);
static_assert(offsetof(PoclContext, work_dim_and_failed) == 104);

// Sets the launch's dimension count in both layouts and clears execution_failed.
[[gnu::always_inline]] inline void setWorkDim(PoclContext &pc, std::uint32_t dim) {
  pc.work_dim_96 = dim;
  pc.work_dim_and_failed = dim;
}
inline std::uint32_t workDim(const PoclContext &pc) {
  return static_cast<std::uint32_t>(pc.work_dim_and_failed);
}
// Whether a work-item reached `unreachable` (releases with Release::has_execution_failed;
// on the others the word stays as setWorkDim left it, so this is false).
inline bool executionFailed(const PoclContext &pc) {
  return (pc.work_dim_and_failed >> 32) != 0;
}
inline void setExecutionFailed(PoclContext &pc) {
  pc.work_dim_and_failed |= std::uint64_t{1} << 32;
}

// The status PoCL's queue gives the event of a launch with executionFailed (its CL_FAILED).
inline constexpr int kExecutionFailedStatus = -1;

// args: num_args + num_locals (+1 spare) pointers. Scalars and by-value structs point at
// the value; buffers and __local regions point at a slot holding the memory's address.
using WorkGroupFn = void (*)(void **args, PoclContext *pc, std::size_t group_x,
                             std::size_t group_y, std::size_t group_z);

// Local-memory regions (argument and automatic) are aligned like PoCL aligns them.
inline constexpr std::size_t kLocalAlignment = 128;

// Symbol of a kernel's generic work-group function inside its .so.
inline std::string workGroupSymbol(std::string_view kernel) {
  return "_pocl_kernel_" + std::string(kernel) + "_workgroup";
}

// Path of a kernel's generic (dynamic local size) work-group library inside the binary,
// with the running release's clipping of long names.
inline std::string genericLibraryPath(std::string_view kernel) {
  const Release *r = currentRelease();
  if (!r) r = &baselineRelease();
  return clippedName(kernel, r->dir_clip) + "/0-0-0/" + clippedName(kernel, r->file_clip) +
         ".so";
}

}  // namespace hk::pocl
