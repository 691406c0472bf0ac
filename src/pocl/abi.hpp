// The calling convention of PoCL 3.1's compiled work-group functions (pthread/basic CPU
// devices, 64-bit). Layout checked against PoCL's include/pocl_context.h at tag v3.1;
// the static_asserts keep it from drifting.
//
//   hk::pocl::PoclContext pc{};            // geometry of the launch
//   fn(args, &pc, gx, gy, gz);             // runs work-group (gx, gy, gz) completely
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hk::pocl {

struct PoclContext {
  std::uint64_t num_groups[3];
  std::uint64_t global_offset[3];
  std::uint64_t local_size[3];
  std::uint8_t *printf_buffer;
  std::uint32_t *printf_buffer_position;
  std::uint32_t printf_buffer_capacity;
  std::uint32_t work_dim;
};
static_assert(sizeof(PoclContext) == 96);
static_assert(offsetof(PoclContext, num_groups) == 0);
static_assert(offsetof(PoclContext, global_offset) == 24);
static_assert(offsetof(PoclContext, local_size) == 48);
static_assert(offsetof(PoclContext, printf_buffer) == 72);
static_assert(offsetof(PoclContext, printf_buffer_position) == 80);
static_assert(offsetof(PoclContext, printf_buffer_capacity) == 88);
static_assert(offsetof(PoclContext, work_dim) == 92);

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

// Path of a kernel's generic (dynamic local size) work-group library inside the binary.
inline std::string genericLibraryPath(std::string_view kernel) {
  std::string k(kernel);
  return k + "/0-0-0/" + k + ".so";
}

}  // namespace hk::pocl
