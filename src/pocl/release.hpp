// The PoCL releases hostkernel knows, one description each: every fact of PoCL's ABI that
// differs between them (docs/pocl-releases.md gives the source of each value). The probe
// picks the description from CL_PLATFORM_VERSION and checks it against what the running
// PoCL shows (its poclbinary version, its object ids) before any direct launch; code
// outside src/pocl/ asks the description, never a version number.
//
//   const hk::pocl::Release *r = hk::pocl::findRelease(platform_version);
//   if (!r) queueOnly("unknown PoCL release");
//   else if (!r->takes_il) translateSpirvInProcess();
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hk::pocl {

// How a kernel's printf reaches the output.
enum class PrintfMode : std::uint8_t {
  FormattedBuffer,  // the kernel formats text into pc->printf_buffer; the caller writes it
  KernelWrites,     // the kernel writes each call itself; the buffer stays unused
  BinaryRecords,    // records in pc->printf_buffer, decoded by libpocl from the kernel
};

struct Release {
  const char *version;                 // "3.1": the number after "PoCL " in the platform
  std::uint32_t context_size;          // sizeof(struct pocl_context) the compiled code uses
  std::uint32_t binary_version;        // poclbinary version it writes
  std::uint32_t object_id_offset;      // bytes before an object's u64 id
  PrintfMode printf_mode;
  const char *device_prefix;           // CL_DEVICE_NAME of the CPU driver starts with it
  std::uint32_t dir_clip;              // kernel directory names longer are clipped; 0: never
  std::uint32_t file_clip;             // the same for "<kernel>.so"
  bool takes_il;                       // clCreateProgramWithIL builds SPIR-V itself
  bool has_execution_failed;           // the context's execution_failed is written
  bool has_program_scope_variables;    // programs may declare __global variables
  bool direct_launches;                // hostkernel's direct path was verified on it
  // struct _cl_program (lib/CL/pocl_cl.h): bytes from `context` to `build_hash`, the
  // pointer to the program's per-device build hashes (pocl/program_fields.hpp); 0: unknown.
  std::uint32_t build_hash_after_context;
  // How PoCL's metadata sizes a by-value argument (pocl_llvm_metadata.cc): false, by its
  // type's name (scalarTypeSize); true, by the LLVM type's allocation size when it is a
  // single value (7.0 on).
  bool type_size_from_llvm;
};

// The size PoCL 3.1 to 6.0 give a by-value argument of OpenCL C type `name` (their
// type_size_map: the scalar and vector types), 0 for any other type.
std::uint32_t scalarTypeSize(std::string_view name);

// The description of the release named in `platform_version` ("OpenCL 3.0 PoCL 6.0+debian
// ..."), or null for a release hostkernel was not checked against.
const Release *findRelease(std::string_view platform_version);

// "3.1, 6.0": the releases with direct launches, for messages.
std::string supportedReleases();

// The release of the probed PoCL platform (one per process: the ICD loads one libpocl), or
// null before a probe found one.
const Release *currentRelease();
void setCurrentRelease(const Release *release);

// The release every compile-time default describes (the one of the build machine's tests).
const Release &baselineRelease();

// PoCL's file or directory name for `name` under limit `clip` (0: unlimited): names longer
// than the limit keep their first clip - 41 characters, then ".", then 40 letters of the
// SHA-1 of the full name, each byte as 'A' + low nibble, 'A' + high nibble.
std::string clippedName(std::string_view name, std::uint32_t clip);

}  // namespace hk::pocl
