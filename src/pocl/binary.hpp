// Reader for PoCL's "poclbinary" (format versions 9, PoCL 3.1; 11, PoCL 4.0 to 7.1; 12,
// PoCL 7.2): the serialized kernel cache that clGetProgramInfo(CL_PROGRAM_BINARIES)
// returns. Every read is bounds-checked: a
// corrupt or truncated input gives an error, never an out-of-bounds read.
//
//   hk::pocl::PoclBinary bin;
//   std::string err;
//   if (!hk::pocl::parsePoclBinary(bytes, size, bin, err)) log(err);
//   const KernelRecord *k = bin.findKernel("axpy");
//   std::span<const std::uint8_t> so = k->findFile("axpy/0-0-0/axpy.so");
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hk::pocl {

// The format versions the reader understands (docs/pocl-releases.md, "poclbinary").
inline constexpr std::uint32_t kPoclBinaryVersions[] = {9, 11, 12};

// Kernel record flags (version 11 and later).
inline constexpr std::uint32_t kKernelHasWorkGroupMeta = 1u << 1;
inline constexpr std::uint32_t kKernelHasSubGroupMeta = 1u << 2;
inline constexpr std::uint32_t kKernelHasReqdSubGroupSize = 1u << 3;  // version 12
// Header flag: the u64 size of the program-scope variables follows the build hash.
inline constexpr std::uint64_t kBinaryHasProgramScopeVars = 1u << 1;

// pocl_type of a kernel argument.
enum class ArgKind : std::uint32_t { Scalar = 0, Pointer = 1, Image = 2, Sampler = 3 };

struct ArgRecord {
  std::uint32_t access_qualifier = 0;   // CL_KERNEL_ARG_ACCESS_*
  std::uint32_t address_qualifier = 0;  // CL_KERNEL_ARG_ADDRESS_*
  std::uint64_t type_qualifier = 0;     // CL_KERNEL_ARG_TYPE_* bits
  ArgKind kind = ArgKind::Scalar;
  std::uint32_t type_size = 0;          // 0 for by-value structs
  std::string name;
  std::string type_name;
};

// One file of the serialized cache; `path` is relative to the program's cache directory,
// without a leading slash ("program.bc", "axpy/0-0-0/axpy.so"). `bytes` points into the
// input buffer given to parsePoclBinary, which must outlive the PoclBinary.
struct FileRecord {
  std::string path;
  std::span<const std::uint8_t> bytes;
};

struct KernelRecord {
  std::string name;
  std::uint32_t num_args = 0;
  std::uint32_t num_locals = 0;           // automatic (kernel-scope) __local variables
  std::array<std::uint64_t, 3> reqd_wg_size{};
  std::vector<std::uint64_t> local_sizes; // num_locals entries, bytes each
  std::string attributes;
  bool has_arg_metadata = false;
  std::uint32_t flags = 0;                // kKernelHas* (version 11 and later)
  std::uint32_t max_subgroups = 0, compile_subgroups = 0;   // kKernelHasSubGroupMeta
  std::uint32_t max_wg_size = 0, preferred_wg_multiple = 0, local_mem_size = 0,
                private_mem_size = 0, spill_mem_size = 0;  // kKernelHasWorkGroupMeta
  std::uint32_t reqd_sub_group_size = 0;  // kKernelHasReqdSubGroupSize
  std::vector<ArgRecord> args;            // num_args entries
  std::vector<FileRecord> files;          // this kernel's files (paths start "<name>/")

  // The file at `path` (exact match), or an empty span.
  std::span<const std::uint8_t> findFile(std::string_view path) const;
};

struct PoclBinary {
  std::uint64_t device_id = 0;
  std::uint32_t version = 0;
  std::uint64_t flags = 0;  // bit 0: flush denormals; bit 1: kBinaryHasProgramScopeVars;
                            // bits 32..63: binary type
  std::uint64_t program_scope_var_bytes = 0;  // total size of the __global variables
  std::string build_hash;   // program build hash (cache directory name)
  std::vector<FileRecord> program_files;  // root-level files (program.bc, ...)
  std::vector<KernelRecord> kernels;
  std::size_t trailing_bytes = 0;  // after the last kernel record (ignored)

  bool flushDenorms() const { return (flags & 1u) != 0; }
  // CL_PROGRAM_BINARY_TYPE_* of the serialized program (4: executable).
  std::uint32_t binaryType() const { return static_cast<std::uint32_t>(flags >> 32); }
  const KernelRecord *findKernel(std::string_view name) const;
};

// True when the bytes start with the poclbinary magic "poclbin\0" (lib/CL/pocl_binary.c
// at PoCL 3.1): the input is meant as a poclbinary, not SPIR or LLVM IR.
bool isPoclBinary(const std::uint8_t *data, std::size_t size);

// Parses `size` bytes at `data`. Returns false and sets `error` (a sentence naming what
// is wrong and at which offset) on any malformed, truncated or unsupported input.
bool parsePoclBinary(const std::uint8_t *data, std::size_t size, PoclBinary &out,
                     std::string &error);

}  // namespace hk::pocl
