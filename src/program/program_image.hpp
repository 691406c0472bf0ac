// What hostkernel knows about one built cl_program on one device: PoCL's serialized
// binary (taken once, on the first launch of any of its kernels), parsed, and the
// work-group libraries of the kernels loaded from it so far.
//
//   std::string err;
//   auto img = ProgramImage::create(program, device, err);    // one binary query
//   const KernelImage *k = img ? img->kernel("axpy", err) : nullptr;
//   k->fn(args, &pc, 0, 0, 0);
#pragma once

#include <CL/cl.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pocl/abi.hpp"
#include "pocl/binary.hpp"
#include "pocl/kernel_cache.hpp"
#include "pocl/loader.hpp"
#include "program/program_cache.hpp"
#include "program/stack_estimate.hpp"

namespace hk::program {

// A kernel ready to be called: its generic work-group function and its metadata.
struct KernelImage {
  pocl::WorkGroupFn fn = nullptr;
  const pocl::KernelRecord *meta = nullptr;  // owned by the ProgramImage
  bool flush_denorms = false;
  StackModel stack;  // stack of one work-group, from program.bc (docs/stack.md)
  bool group_free = false;  // StackEstimate::group_free: any uniform local size will do
};

// Whether a binary given to clCreateProgramWithBinary may go to PoCL: PoCL 3.1 asserts
// (aborts the process) on a truncated or corrupt poclbinary, so one must pass
// hostkernel's bounds-checked reader first; other binaries (SPIR, LLVM IR) PoCL checks
// itself. False with `why` set when the binary must be refused.
bool binaryAcceptable(const unsigned char *bytes, std::size_t size, std::string &why);

class ProgramImage {
 public:
  // From the persistent cache if it has the program, else from PoCL's binary (the query
  // that compiles every kernel's generic work-group function).
  static std::shared_ptr<ProgramImage> create(cl_program program, cl_device_id device,
                                              std::string &error);
  // From the persistent cache only: null when it does not have the program (nothing is
  // compiled).
  static std::shared_ptr<ProgramImage> fromCache(cl_program program, cl_device_id device);

  // Loads (once) and returns the kernel's work-group function; null with `error` set when
  // the binary has no usable library for it.
  const KernelImage *kernel(const std::string &name, std::string &error);

  // The kernel's work-group function specialized for `g`, from PoCL's kernel cache on
  // disk (pocl/kernel_cache.hpp), loaded once; null with `error` set when PoCL has not
  // compiled that variant (or keeps its cache elsewhere). Shares the generic kernel's
  // metadata and stack model.
  const KernelImage *specializedKernel(const std::string &name,
                                       const pocl::SpecializedGeometry &g, std::string &error);

  const pocl::PoclBinary &binary() const { return binary_; }
  // True when the binary came from the persistent cache (no binary query was made).
  bool fromCache() const { return from_cache_; }

 private:
  static std::shared_ptr<ProgramImage> loadCached(const CacheKey &key);

  std::vector<std::uint8_t> bytes_;  // the poclbinary; binary_ points into it
  pocl::PoclBinary binary_;
  bool from_cache_ = false;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<pocl::LoadedLibrary>> libraries_;
  std::map<std::string, KernelImage> kernels_;
  std::map<std::string, KernelImage> specialized_;  // by "<kernel>/<variant dir>"
  // Stack estimates of all kernels, made with the cache entry or read from it; a kernel
  // not here is estimated when it is first loaded.
  std::map<std::string, StackEstimate> stacks_;
};

}  // namespace hk::program
