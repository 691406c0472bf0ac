#include "pocl/program_fields.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/next.hpp"

namespace hk::pocl {
namespace {

// Copies `n` bytes at `at` of this process, or returns false (EFAULT) where nothing is
// mapped: a read that a wrong layout sends astray fails instead of crashing.
bool readOwnMemory(std::uintptr_t at, void *out, std::size_t n) {
  if (at == 0) return false;
  iovec local{out, n};
  iovec remote{reinterpret_cast<void *>(at), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

template <typename T>
bool readField(std::uintptr_t at, T &out) {
  return readOwnMemory(at, &out, sizeof out);
}

// The layout from `context` on, at all three tags (64-bit):
//   +0 context, +8 flush_denorms (unsigned), +24 associated_num_devices, +28 num_devices,
//   +32 devices, ..., build_hash - 24 num_kernels, build_hash - 16 kernel_meta,
//   build_hash - 8 kernels, build_hash (SHA1_digest_t *, char[41] per device).
// 7.1 adds builtin_kernel_ids and builtin_kernel_attributes before pocl_binary_sizes,
// which moves num_kernels and build_hash 16 bytes on (Release::build_hash_after_context).
constexpr std::uintptr_t kFlushDenorms = 8;
constexpr std::uintptr_t kNumDevices = 28;
constexpr std::uintptr_t kDevices = 32;
// The POCL_ICD_OBJECT and POCL_OBJECT headers come before `context`; their size depends on
// PoCL's build (lock type, validity magics), so `context` is looked for in this range.
constexpr std::uintptr_t kContextFirst = 8, kContextLast = 160;
constexpr std::size_t kHashBytes = 41;  // SHA1_digest_t: 40 letters and a NUL

bool hashShaped(const char (&h)[kHashBytes]) {
  if (h[40] != '\0' || h[2] != '/') return false;
  for (int i = 0; i < 40; ++i)
    if (i != 2 && (h[i] < 'A' || h[i] > 'P')) return false;
  return true;
}

}  // namespace

bool readProgramFields(cl_program program, cl_device_id device, const Release &release,
                       ProgramFields &out, std::string &why) {
  if (release.build_hash_after_context == 0) {
    why = "the layout of PoCL " + std::string(release.version) + "'s program is not described";
    return false;
  }
  const auto &cl = next();
  cl_context context = nullptr;
  cl_uint num_devices = 0;
  size_t num_kernels = 0;
  if (cl.clGetProgramInfo(program, CL_PROGRAM_CONTEXT, sizeof context, &context, nullptr) !=
          CL_SUCCESS ||
      cl.clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof num_devices, &num_devices,
                          nullptr) != CL_SUCCESS ||
      num_devices == 0 ||
      cl.clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof num_kernels, &num_kernels,
                          nullptr) != CL_SUCCESS) {
    why = "the program is not built";
    return false;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(program);
  const std::uintptr_t hash_at = release.build_hash_after_context;
  for (std::uintptr_t c = kContextFirst; c <= kContextLast; c += 8) {
    cl_context seen = nullptr;
    if (!readField(base + c, seen)) break;
    if (seen != context) continue;
    cl_uint devices_there = 0;
    std::uintptr_t devices = 0, hashes = 0;
    size_t kernels_there = 0;
    unsigned flush = 0;
    if (!readField(base + c + kNumDevices, devices_there) || devices_there != num_devices ||
        !readField(base + c + kDevices, devices) ||
        !readField(base + c + hash_at - 24, kernels_there) || kernels_there != num_kernels ||
        !readField(base + c + kFlushDenorms, flush) || flush > 1 ||
        !readField(base + c + hash_at, hashes))
      continue;
    std::vector<cl_device_id> list(num_devices);
    if (!readOwnMemory(devices, list.data(), list.size() * sizeof(cl_device_id))) continue;
    std::size_t index = 0;
    while (index < list.size() && list[index] != device) ++index;
    if (index == list.size()) {
      why = "the program is not built for the device";
      return false;
    }
    char hash[kHashBytes];
    if (!readOwnMemory(hashes + index * kHashBytes, hash, sizeof hash) || !hashShaped(hash))
      continue;
    out.build_hash.assign(hash, 40);
    out.flush_denorms = flush != 0;
    return true;
  }
  why = "PoCL's program does not have the described layout, or no kernel cache directory";
  return false;
}

}  // namespace hk::pocl
