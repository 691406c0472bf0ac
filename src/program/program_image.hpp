// What hostkernel knows about one built cl_program on one device: PoCL's serialized
// binary (taken once, on the first launch of any of its kernels), parsed, and the
// work-group libraries of the kernels loaded from it so far.
//
//   std::string err;
//   auto img = ProgramImage::create(program, device, err);    // one binary query
//   const KernelImage *k = img ? img->kernel("axpy", err) : nullptr;
//   k->fn(args, &pc, 0, 0, 0);
//
// Or, made per kernel (docs/first-launch.md, "One kernel compiled"), without the binary
// until a kernel needs a generic function:
//
//   auto img = ProgramImage::create(program, device, err, /*per_kernel=*/true);
//   const KernelImage *p = img->launchKernel("axpy", err);   // metadata, no function yet
//   ... plan the launch with p's metadata and stack model, then:
//   const KernelImage *v = img->variantFor("axpy", plan.pc, err);  // PoCL's, for plan.pc
//   if (!v) v = img->kernel("axpy", err);   // the binary query: every kernel's generic one
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/thread_safety.hpp"
#include "pocl/abi.hpp"
#include "pocl/binary.hpp"
#include "pocl/kernel_cache.hpp"
#include "pocl/loader.hpp"
#include "pocl/release.hpp"
#include "program/program_cache.hpp"
#include "program/stack_estimate.hpp"

namespace hk::program {

// A kernel ready to be called: its generic work-group function and its metadata.
struct KernelImage {
  // Null in launchKernel's image of a program made per kernel: metadata to plan with,
  // nothing to call (variantFor gives the function).
  pocl::WorkGroupFn fn = nullptr;
  const pocl::KernelRecord *meta = nullptr;  // owned by the ProgramImage
  bool flush_denorms = false;
  StackModel stack;  // stack of one work-group, from program.bc (docs/stack.md)
  bool group_free = false;  // StackEstimate::group_free: any uniform local size will do
  // A function PoCL specialized for `geometry`: it may only be called for launches that
  // pocl::acceptsLaunch(geometry, pc) admits.
  bool bound = false;
  pocl::SpecializedGeometry geometry;
};

// Whether a binary given to clCreateProgramWithBinary may go to PoCL: PoCL 3.1 asserts
// (aborts the process) on a truncated or corrupt poclbinary, so one must pass
// hostkernel's bounds-checked reader first; other binaries (SPIR, LLVM IR) PoCL checks
// itself. False with `why` set when the binary must be refused.
bool binaryAcceptable(const unsigned char *bytes, std::size_t size, std::string &why);

class ProgramImage {
 public:
  // From the persistent cache if it has the program, else from PoCL's binary (the query
  // that compiles every kernel's generic work-group function). With `per_kernel`, instead
  // of the binary query: an image that finds each kernel's functions in PoCL's kernel
  // cache and takes the binary only when kernel() is asked (falls back to the binary
  // query when PoCL's program cannot be located; docs/first-launch.md).
  static std::shared_ptr<ProgramImage> create(cl_program program, cl_device_id device,
                                              std::string &error, bool per_kernel = false);
  // From the persistent cache only: null when it does not have the program (nothing is
  // compiled).
  static std::shared_ptr<ProgramImage> fromCache(cl_program program, cl_device_id device);

  // Loads (once) and returns the kernel's work-group function; null with `error` set when
  // the binary has no usable library for it. An image made per kernel takes the binary
  // first (the query that compiles every kernel's generic function).
  const KernelImage *kernel(const std::string &name, std::string &error);

  // What a launch is planned with. kernel(name) once the binary is there; in an image
  // made per kernel, the kernel's metadata (from PoCL's answers to clGetKernelArgInfo and
  // clGetKernelWorkGroupInfo and from program.bc in PoCL's kernel cache) with fn null, or
  // kernel(name) when that metadata cannot be had exactly (automatic __local variables,
  // argument information missing or inconsistent, program.bc unreadable).
  const KernelImage *launchKernel(const std::string &name, std::string &error);

  // PoCL's function for a launch of geometry `pc` from PoCL's kernel cache (the variant
  // its queue compiled for that geometry, or a less specialized one that accepts it),
  // bound to its geometry; null with `error` when PoCL has compiled none.
  const KernelImage *variantFor(const std::string &name, const pocl::PoclContext &pc,
                                std::string &error);

  // The kernel's work-group function specialized for `g`, from PoCL's kernel cache on
  // disk (pocl/kernel_cache.hpp), loaded once; null with `error` set when PoCL has not
  // compiled that variant (or keeps its cache elsewhere). Shares the generic kernel's
  // metadata and stack model.
  const KernelImage *specializedKernel(const std::string &name,
                                       const pocl::SpecializedGeometry &g, std::string &error);

  // The parsed binary; empty while an image made per kernel has not taken it.
  const pocl::PoclBinary &binary() const;
  // The kernel's record in the binary, or in an image made per kernel the one
  // launchKernel made (its scalars' type_size is 0: unknown); null when there is none yet.
  // Owned by the image.
  const pocl::KernelRecord *argRecord(const std::string &name);
  // True when the binary came from the persistent cache (no binary query was made).
  bool fromCache() const { return from_cache_; }
  // True while the image has no binary (made per kernel, no generic function asked yet).
  bool perKernel() const { return !complete_.load(std::memory_order_acquire); }

 private:
  static std::shared_ptr<ProgramImage> loadCached(const CacheKey &key);
  // The binary query and what follows it (parsing, checks, the persistent cache's entry).
  bool takeBinary(std::string &error);
  static std::shared_ptr<ProgramImage> perKernelImage(cl_program program, cl_device_id device,
                                                      const pocl::Release &release,
                                                      std::string &why);
  const KernelImage *kernelLocked(const std::string &name, std::string &error)
      REQUIRES(mutex_);
  const KernelImage *launchKernelLocked(const std::string &name, std::string &why)
      REQUIRES(mutex_);
  const KernelImage *specializedLocked(const std::string &name, const KernelImage &base,
                                       const pocl::SpecializedGeometry &g, std::string &error)
      REQUIRES(mutex_);

  cl_program program_ = nullptr;  // for the binary query (a kernel holds its program)
  cl_device_id device_ = nullptr;
  const pocl::Release *release_ = nullptr;
  bool cacheable_ = false;
  CacheKey key_;
  std::string build_hash_;  // the program's directory in PoCL's kernel cache
  bool flush_denorms_ = false;
  std::vector<std::uint8_t> program_bc_;  // per kernel: PoCL's program.bc
  std::atomic<bool> complete_{true};       // binary_ is filled and will not change
  std::map<std::string, pocl::KernelRecord> records_;  // per kernel: metadata by kernel
  std::map<std::string, KernelImage> planning_;        // per kernel: launchKernel's

  std::vector<std::uint8_t> bytes_;  // the poclbinary; binary_ points into it
  pocl::PoclBinary binary_;
  bool from_cache_ = false;
  Mutex mutex_;
  std::map<std::string, std::unique_ptr<pocl::LoadedLibrary>> libraries_ GUARDED_BY(mutex_);
  std::map<std::string, KernelImage> kernels_ GUARDED_BY(mutex_);
  // By "<kernel>/<variant dir>".
  std::map<std::string, KernelImage> specialized_ GUARDED_BY(mutex_);
  // Stack estimates of all kernels, made with the cache entry or read from it; a kernel
  // not here is estimated when it is first loaded.
  std::map<std::string, StackEstimate> stacks_;
};

}  // namespace hk::program
