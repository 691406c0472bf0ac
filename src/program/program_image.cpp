#include "program/program_image.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "base/exit_guard.hpp"
#include "base/log.hpp"
#include "base/next.hpp"
#include "base/thread_safety.hpp"
#include "program/cache_payload.hpp"
#include "pocl/program_fields.hpp"
#include "pocl/release_checks.hpp"
#include "program/program_cache.hpp"

namespace hk::program {
namespace {

// PoCL 3.1 serializes a program's binary at the first CL_PROGRAM_BINARY_SIZES query and,
// while it does, answers a concurrent query of the same program with a bogus size (its
// 256 MiB maximum): the second thread then gets a binary followed by zeros, which does not
// parse. So two threads never query one program's binary at once here (the first launches
// of several kernels of a new program from several threads do exactly that). Striped by
// program: different programs, whose first query may compile for tens of ms, do not wait
// for each other unless they share a stripe.
std::mutex &binaryQueryMutex(cl_program program) {
  static std::mutex stripes[16];
  const auto h = reinterpret_cast<std::uintptr_t>(program) >> 4;
  return stripes[(h ^ (h >> 4) ^ (h >> 8)) & 15];
}

// PoCL serializes its kernel cache for every device of the program; take our device's.
bool programBinary(cl_program program, cl_device_id device, std::vector<std::uint8_t> &out,
                   std::string &error) {
  std::lock_guard lock(binaryQueryMutex(program));
  const auto &cl = next();
  cl_uint ndev = 0;
  if (cl.clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, nullptr) !=
          CL_SUCCESS ||
      ndev == 0) {
    error = "program devices unavailable";
    return false;
  }
  std::vector<cl_device_id> devices(ndev);
  std::vector<size_t> sizes(ndev);
  if (cl.clGetProgramInfo(program, CL_PROGRAM_DEVICES, ndev * sizeof(cl_device_id),
                          devices.data(), nullptr) != CL_SUCCESS) {
    error = "program devices unavailable";
    return false;
  }
  auto it = std::find(devices.begin(), devices.end(), device);
  if (it == devices.end()) {
    error = "program is not built for the queue's device";
    return false;
  }
  std::size_t index = static_cast<std::size_t>(it - devices.begin());
  // The size query is what makes PoCL compile the generic work-group functions.
  cl_int err = cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, ndev * sizeof(size_t),
                                   sizes.data(), nullptr);
  if (err != CL_SUCCESS || sizes[index] == 0) {
    error = "program has no binary (not built?), error " + std::to_string(err);
    return false;
  }
  std::vector<std::vector<std::uint8_t>> all(ndev);
  std::vector<unsigned char *> ptrs(ndev);
  for (cl_uint i = 0; i < ndev; ++i) {
    all[i].resize(sizes[i]);
    ptrs[i] = all[i].data();
  }
  err = cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, ndev * sizeof(unsigned char *),
                            ptrs.data(), nullptr);
  if (err != CL_SUCCESS) {
    error = "program binary query failed, error " + std::to_string(err);
    return false;
  }
  out = std::move(all[index]);
  return true;
}

// The program's bitcode (PoCL writes it at the root of the binary), or an empty span.
std::span<const std::uint8_t> programBitcode(const pocl::PoclBinary &bin) {
  for (const pocl::FileRecord &f : bin.program_files)
    if (f.path == "program.bc") return f.bytes;
  return {};
}

// Loads kernel `name`'s work-group library from `bytes` into `lib` and finds its
// work-group function there; null with `error` set when either fails (`origin` names
// where the bytes came from).
pocl::WorkGroupFn loadWorkGroupFn(std::span<const std::uint8_t> bytes, const std::string &name,
                                  const std::string &origin,
                                  std::unique_ptr<pocl::LoadedLibrary> &lib,
                                  std::string &error) {
  lib = pocl::LoadedLibrary::load(bytes, name, error);
  if (!lib) return nullptr;
  const std::string symbol = pocl::workGroupSymbol(name);
  auto fn = reinterpret_cast<pocl::WorkGroupFn>(lib->symbol(symbol.c_str()));
  if (!fn) error = origin + " has no symbol " + symbol;
  return fn;
}

}  // namespace

bool binaryAcceptable(const unsigned char *bytes, std::size_t size, std::string &why) {
  if (!pocl::isPoclBinary(bytes, size)) return true;
  pocl::PoclBinary parsed;
  return pocl::parsePoclBinary(bytes, size, parsed, why);
}

namespace {

// The program's key in the persistent cache; false when the cache is off or cannot key
// the program.
bool cacheKeyOf(cl_program program, cl_device_id device, CacheKey &key) {
  ProgramCache &cache = ProgramCache::process();
  if (!cache.enabled()) return false;
  std::string why;
  if (makeCacheKey(program, device, key, why)) return true;
  logf(LogLevel::Debug, "program cache not used for program %p: %s",
       static_cast<void *>(program), why.c_str());
  return false;
}

}  // namespace

std::shared_ptr<ProgramImage> ProgramImage::fromCache(cl_program program, cl_device_id device) {
  CacheKey key;
  return cacheKeyOf(program, device, key) ? loadCached(key) : nullptr;
}

// A warm entry of the persistent cache (docs/cache.md) replaces the binary query, which
// compiles every kernel's work-group function.
std::shared_ptr<ProgramImage> ProgramImage::loadCached(const CacheKey &key) {
  ProgramCache &cache = ProgramCache::process();
  auto img = std::shared_ptr<ProgramImage>(new ProgramImage());
  if (!cache.load(key, img->bytes_)) return nullptr;
  CachePayload payload;
  std::string bad;
  if (!splitCachePayload(img->bytes_, payload, bad)) {
    cache.noteRejected(key, bad);
    return nullptr;
  }
  if (!pocl::parsePoclBinary(img->bytes_.data(), payload.binary_size, img->binary_, bad) ||
      img->binary_.trailing_bytes != 0) {
    cache.noteRejected(key, "payload is not a usable binary: " + bad);
    return nullptr;
  }
  img->stacks_ = std::move(payload.stacks);
  img->build_hash_ = img->binary_.build_hash;
  img->from_cache_ = true;
  return img;
}

std::shared_ptr<ProgramImage> ProgramImage::create(cl_program program, cl_device_id device,
                                                   std::string &error, bool per_kernel) {
  const pocl::Release *release = pocl::runningRelease(device);
  if (!release) {
    error = "the device's PoCL release is not one hostkernel knows";
    return nullptr;
  }
  // Before the binary query, which would leave the variables uninitialised for PoCL's own
  // launches too.
  if (const std::uint64_t vars = pocl::programScopeVariableBytes(program, device, *release)) {
    error = "program has " + std::to_string(vars) +
            " bytes of program-scope variables, which only PoCL's queue initialises";
    return nullptr;
  }
  CacheKey key;
  const bool cacheable = cacheKeyOf(program, device, key);
  if (cacheable)
    if (auto cached = loadCached(key)) return cached;
  std::shared_ptr<ProgramImage> img;
  if (per_kernel) {
    std::string why;
    img = perKernelImage(program, device, *release, why);
    if (!img)
      logf(LogLevel::Debug, "program %p: its kernels' functions from its binary: %s",
           static_cast<void *>(program), why.c_str());
  }
  const bool take_binary = !img;
  if (!img) img = std::shared_ptr<ProgramImage>(new ProgramImage());
  img->program_ = program;
  img->device_ = device;
  img->release_ = release;
  img->cacheable_ = cacheable;
  img->key_ = std::move(key);
  if (take_binary && !img->takeBinary(error)) return nullptr;
  return img;
}

// PoCL's program located in its kernel cache (pocl/program_fields.hpp), with the bitcode
// every kernel's metadata check and stack estimate read.
std::shared_ptr<ProgramImage> ProgramImage::perKernelImage(cl_program program,
                                                           cl_device_id device,
                                                           const pocl::Release &release,
                                                           std::string &why) {
  pocl::ProgramFields fields;
  if (!pocl::readProgramFields(program, device, release, fields, why)) return nullptr;
  const std::string top = pocl::poclCacheTopDir();
  if (top.empty()) {
    why = "PoCL's kernel cache directory is not known";
    return nullptr;
  }
  auto img = std::shared_ptr<ProgramImage>(new ProgramImage());
  constexpr std::uint64_t kMaxBitcodeBytes = std::uint64_t{1} << 30;
  if (!pocl::readPoclCacheFile(top + "/" + fields.build_hash + "/program.bc", kMaxBitcodeBytes,
                               img->program_bc_, why))
    return nullptr;
  img->build_hash_ = fields.build_hash;
  img->flush_denorms_ = fields.flush_denorms;
  img->complete_.store(false, std::memory_order_relaxed);
  return img;
}

const pocl::PoclBinary &ProgramImage::binary() const {
  static const pocl::PoclBinary kNone;
  return complete_.load(std::memory_order_acquire) ? binary_ : kNone;
}

const pocl::KernelRecord *ProgramImage::argRecord(const std::string &name) {
  if (complete_.load(std::memory_order_acquire)) return binary_.findKernel(name);
  MutexLock lock(mutex_);
  if (complete_.load(std::memory_order_relaxed)) return binary_.findKernel(name);
  auto it = records_.find(name);
  return it == records_.end() ? nullptr : &it->second;
}

bool ProgramImage::takeBinary(std::string &error) {
  ProgramCache &cache = ProgramCache::process();
  // The binary query makes PoCL compile every kernel: not once exit has begun (its LLVM
  // may be torn down meanwhile; base/exit_guard.hpp).
  CompileSlot slot;
  if (!slot) {
    error = "the process is exiting";
    return false;
  }
  if (!programBinary(program_, device_, bytes_, error)) return false;
  if (!pocl::parsePoclBinary(bytes_.data(), bytes_.size(), binary_, error)) return false;
  if (!pocl::binaryMatchesRelease(binary_, *release_, error)) return false;
  if (binary_.trailing_bytes > (std::size_t{1} << 20)) {
    // Keep only what PoCL wrote (see PoclBinary::trailing_bytes); parse the copy again
    // because the records point into the buffer.
    bytes_.resize(bytes_.size() - binary_.trailing_bytes);
    bytes_.shrink_to_fit();
    if (!pocl::parsePoclBinary(bytes_.data(), bytes_.size(), binary_, error)) return false;
  }
  if (!build_hash_.empty() && build_hash_ != binary_.build_hash) {
    error = "the binary's build hash " + binary_.build_hash + " is not the program's " +
            build_hash_ + " read before";
    return false;
  }
  build_hash_ = binary_.build_hash;
  if (cacheable_) {
    // The entry carries every kernel's stack estimate (one read of the bitcode for all),
    // so that a later process skips that read too.
    std::vector<std::string> names;
    for (const pocl::KernelRecord &k : binary_.kernels) names.push_back(k.name);
    std::vector<StackEstimate> estimates;
    estimateKernelStacks(programBitcode(binary_), names, estimates);
    logf(LogLevel::Debug, "read program.bc for stack estimates (%zu kernels)", names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
      stacks_.insert_or_assign(names[i], std::move(estimates[i]));
    // Without trailing bytes: a loaded entry must parse with none.
    cache.store(key_, joinCachePayload(std::span<const std::uint8_t>(bytes_).first(
                                           bytes_.size() - binary_.trailing_bytes),
                                       stacks_));
  }
  complete_.store(true, std::memory_order_release);
  return true;
}

const KernelImage *ProgramImage::kernel(const std::string &name, std::string &error) {
  MutexLock lock(mutex_);
  return kernelLocked(name, error);
}

const KernelImage *ProgramImage::kernelLocked(const std::string &name, std::string &error) {
  if (auto it = kernels_.find(name); it != kernels_.end()) return &it->second;
  if (!complete_.load(std::memory_order_relaxed)) {
    logf(LogLevel::Info, "kernel '%s' needs a generic work-group function: the program's "
         "binary is taken (every kernel of the program is compiled)", name.c_str());
    if (!takeBinary(error)) return nullptr;
  }
  const pocl::KernelRecord *meta = binary_.findKernel(name);
  if (!meta) {
    error = "kernel '" + name + "' is not in the program's binary";
    return nullptr;
  }
  auto so = meta->findFile(pocl::genericLibraryPath(name));
  if (so.empty()) {
    error = "kernel '" + name + "' has no generic work-group library in the binary";
    return nullptr;
  }
  std::unique_ptr<pocl::LoadedLibrary> lib;
  const pocl::WorkGroupFn fn =
      loadWorkGroupFn(so, name, "the program's generic library", lib, error);
  if (!fn) return nullptr;
  libraries_[name] = std::move(lib);
  KernelImage &k = kernels_[name];
  k.fn = fn;
  k.meta = meta;
  k.flush_denorms = binary_.flushDenorms();
  StackEstimate estimate;
  if (auto it = stacks_.find(name); it != stacks_.end())
    estimate = it->second;
  else {
    std::vector<StackEstimate> one;
    estimateKernelStacks(programBitcode(binary_), {name}, one);
    estimate = std::move(one[0]);
    logf(LogLevel::Debug, "read program.bc for stack estimates (kernel '%s')", name.c_str());
  }
  k.stack = estimate.model;
  k.group_free = estimate.ok && estimate.group_free;
  if (!estimate.ok)
    logf(LogLevel::Warn, "kernel '%s': no stack estimate (%s): assuming %llu bytes per work-item",
         name.c_str(), estimate.error.c_str(), (unsigned long long)k.stack.per_item_bytes);
  return &k;
}

const KernelImage *ProgramImage::launchKernel(const std::string &name, std::string &error) {
  MutexLock lock(mutex_);
  if (complete_.load(std::memory_order_relaxed)) return kernelLocked(name, error);
  std::string why;
  if (const KernelImage *k = launchKernelLocked(name, why)) return k;
  logf(LogLevel::Info, "kernel '%s': %s", name.c_str(), why.c_str());
  return kernelLocked(name, error);
}

const KernelImage *ProgramImage::launchKernelLocked(const std::string &name, std::string &why) {
  if (auto it = planning_.find(name); it != planning_.end()) return &it->second;
  std::vector<StackEstimate> one;
  estimateKernelStacks(program_bc_, {name}, one);
  StackEstimate &estimate = one[0];
  logf(LogLevel::Debug, "read program.bc for stack estimates (kernel '%s')", name.c_str());
  const std::size_t n = estimate.pointer_args.size();
  if (n == 0 && !estimate.error.empty()) {
    why = "program.bc does not give the kernel (" + estimate.error + ")";
    return nullptr;
  }
  if (estimate.arg_address_spaces.size() != n || estimate.arg_types.size() != n) {
    why = "program.bc has no argument metadata for the kernel";
    return nullptr;
  }
  if (estimate.automatic_locals) {
    why = "the kernel may have automatic __local variables, which only the binary lists";
    return nullptr;
  }
  // The record PoCL's metadata gives (pocl_llvm_metadata.cc): kinds from the argument
  // types, address qualifiers from kernel_arg_addr_space.
  static constexpr cl_kernel_arg_address_qualifier kQualifier[4] = {
      CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_GLOBAL,
      CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ADDRESS_LOCAL};
  pocl::KernelRecord rec;
  rec.name = name;
  rec.num_args = static_cast<std::uint32_t>(n);
  rec.args.resize(n);
  for (int d = 0; d < 3; ++d) rec.reqd_wg_size[d] = estimate.reqd_wg_size[d];
  for (std::size_t i = 0; i < n; ++i) {
    pocl::ArgRecord &a = rec.args[i];
    const std::string &t = estimate.arg_types[i];
    // An image, sampler or pipe argument sends every launch of the kernel to PoCL's queue
    // (KernelArgs::bind, HK_REASON_ARG_KIND): the record says so, and no binary is taken
    // for a function that will never be called (the binary query compiles every kernel
    // of the program). For PoCL's checks
    // of clSetKernelArg the argument is neither a pointer nor a scalar
    // (KernelArgs::acceptedLikePocl): its values go to PoCL.
    if (t.rfind("image", 0) == 0 || t.rfind("sampler_t", 0) == 0 || t.rfind("pipe", 0) == 0) {
      a.kind = t.rfind("sampler_t", 0) == 0 ? pocl::ArgKind::Sampler : pocl::ArgKind::Image;
      a.address_qualifier = a.kind == pocl::ArgKind::Sampler ? CL_KERNEL_ARG_ADDRESS_PRIVATE
                                                             : CL_KERNEL_ARG_ADDRESS_GLOBAL;
      a.type_name = t;
      a.type_size = a.kind == pocl::ArgKind::Sampler ? sizeof(cl_sampler) : sizeof(cl_mem);
      continue;
    }
    // Device-side enqueue's types: the binary's metadata decides.
    for (const char *p : {"queue_t", "clk_event_t", "reserve_id_t"})
      if (t.rfind(p, 0) == 0) {
        why = "argument " + std::to_string(i) + " is of type " + t;
        return nullptr;
      }
    const bool pointer = estimate.pointer_args[i];
    a.address_qualifier = kQualifier[estimate.arg_address_spaces[i]];
    if (pointer != (a.address_qualifier != CL_KERNEL_ARG_ADDRESS_PRIVATE)) {
      why = "argument " + std::to_string(i) + ": its address space and type disagree";
      return nullptr;
    }
    a.kind = pointer ? pocl::ArgKind::Pointer : pocl::ArgKind::Scalar;
    a.type_name = t;
    if (release_->type_size_from_llvm)
      a.type_size = pointer ? sizeof(void *) : estimate.arg_value_sizes[i];
    else
      a.type_size = a.address_qualifier != CL_KERNEL_ARG_ADDRESS_PRIVATE
                        ? sizeof(void *)
                        : pocl::scalarTypeSize(t);
  }
  rec.has_arg_metadata = true;
  const pocl::KernelRecord &meta = records_[name] = std::move(rec);
  KernelImage &k = planning_[name];
  k.meta = &meta;
  k.flush_denorms = flush_denorms_;
  k.stack = estimate.model;
  // Merged work-groups would change the local size, which PoCL's specialized functions
  // fix: a kernel of an image made per kernel launches with PoCL's geometry.
  k.group_free = false;
  if (!estimate.ok)
    logf(LogLevel::Warn, "kernel '%s': no stack estimate (%s): assuming %llu bytes per work-item",
         name.c_str(), estimate.error.c_str(), (unsigned long long)k.stack.per_item_bytes);
  stacks_.insert_or_assign(name, std::move(estimate));
  return &k;
}

const KernelImage *ProgramImage::variantFor(const std::string &name,
                                            const pocl::PoclContext &pc, std::string &error) {
  MutexLock lock(mutex_);
  const KernelImage *base = complete_.load(std::memory_order_relaxed)
                                ? kernelLocked(name, error)
                                : launchKernelLocked(name, error);
  if (!base) return nullptr;
  const pocl::SpecializedGeometry own = pocl::specializedGeometryOf(pc);
  for (const pocl::SpecializedGeometry &g : pocl::acceptingVariants(own))
    if (const KernelImage *k = specializedLocked(name, *base, g, error)) return k;
  error = "PoCL's kernel cache has no function of kernel '" + name + "' for " +
          pocl::specializedDirName(own);
  return nullptr;
}

const KernelImage *ProgramImage::specializedKernel(const std::string &name,
                                                 const pocl::SpecializedGeometry &g,
                                                 std::string &error) {
  MutexLock lock(mutex_);
  const KernelImage *base = complete_.load(std::memory_order_relaxed)
                                ? kernelLocked(name, error)
                                : launchKernelLocked(name, error);
  if (!base) return nullptr;
  return specializedLocked(name, *base, g, error);
}

const KernelImage *ProgramImage::specializedLocked(const std::string &name,
                                                   const KernelImage &base,
                                                   const pocl::SpecializedGeometry &g,
                                                   std::string &error) {
  const std::string key = name + "/" + pocl::specializedDirName(g);
  if (auto it = specialized_.find(key); it != specialized_.end()) return &it->second;
  const std::string path =
      pocl::specializedLibraryPath(pocl::poclCacheTopDir(), build_hash_, name, g);
  if (path.empty()) {
    error = "PoCL's kernel cache has no " + key;
    return nullptr;
  }
  constexpr std::uint64_t kMaxLibraryBytes = std::uint64_t{256} << 20;
  std::vector<std::uint8_t> bytes;
  std::string why;
  if (!pocl::readPoclCacheFile(path, kMaxLibraryBytes, bytes, why)) {
    error = "PoCL's kernel cache: " + why;
    return nullptr;
  }
  std::unique_ptr<pocl::LoadedLibrary> lib;
  const pocl::WorkGroupFn fn = loadWorkGroupFn(bytes, name, path, lib, error);
  if (!fn) return nullptr;
  libraries_[key] = std::move(lib);
  KernelImage &k = specialized_[key];
  k = base;
  k.fn = fn;
  k.bound = true;
  k.geometry = g;
  return &k;
}

}  // namespace hk::program
