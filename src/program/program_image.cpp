#include "program/program_image.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <mutex>

#include "base/exit_guard.hpp"
#include "base/log.hpp"
#include "base/next.hpp"
#include "program/cache_payload.hpp"
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
  img->from_cache_ = true;
  return img;
}

std::shared_ptr<ProgramImage> ProgramImage::create(cl_program program, cl_device_id device,
                                                   std::string &error) {
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
  auto img = std::shared_ptr<ProgramImage>(new ProgramImage());
  ProgramCache &cache = ProgramCache::process();
  // The binary query makes PoCL compile every kernel: not once exit has begun (its LLVM
  // may be torn down meanwhile; base/exit_guard.hpp).
  CompileSlot slot;
  if (!slot) {
    error = "the process is exiting";
    return nullptr;
  }
  if (!programBinary(program, device, img->bytes_, error)) return nullptr;
  if (!pocl::parsePoclBinary(img->bytes_.data(), img->bytes_.size(), img->binary_, error))
    return nullptr;
  if (!pocl::binaryMatchesRelease(img->binary_, *release, error)) return nullptr;
  if (img->binary_.trailing_bytes > (std::size_t{1} << 20)) {
    // Keep only what PoCL wrote (see PoclBinary::trailing_bytes); parse the copy again
    // because the records point into the buffer.
    img->bytes_.resize(img->bytes_.size() - img->binary_.trailing_bytes);
    img->bytes_.shrink_to_fit();
    if (!pocl::parsePoclBinary(img->bytes_.data(), img->bytes_.size(), img->binary_, error))
      return nullptr;
  }
  if (cacheable) {
    // The entry carries every kernel's stack estimate (one read of the bitcode for all),
    // so that a later process skips that read too.
    std::vector<std::string> names;
    for (const pocl::KernelRecord &k : img->binary_.kernels) names.push_back(k.name);
    std::vector<StackEstimate> estimates;
    estimateKernelStacks(programBitcode(img->binary_), names, estimates);
    logf(LogLevel::Debug, "read program.bc for stack estimates (%zu kernels)", names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
      img->stacks_.emplace(names[i], std::move(estimates[i]));
    // Without trailing bytes: a loaded entry must parse with none.
    cache.store(key, joinCachePayload(std::span<const std::uint8_t>(img->bytes_).first(
                                          img->bytes_.size() - img->binary_.trailing_bytes),
                                      img->stacks_));
  }
  return img;
}

const KernelImage *ProgramImage::kernel(const std::string &name, std::string &error) {
  std::lock_guard lock(mutex_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return &it->second;
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
  auto lib = pocl::LoadedLibrary::load(so, name, error);
  if (!lib) return nullptr;
  auto fn = reinterpret_cast<pocl::WorkGroupFn>(
      lib->symbol(pocl::workGroupSymbol(name).c_str()));
  if (!fn) {
    error = "symbol " + pocl::workGroupSymbol(name) + " not found";
    return nullptr;
  }
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

const KernelImage *ProgramImage::specializedKernel(const std::string &name,
                                                 const pocl::SpecializedGeometry &g,
                                                 std::string &error) {
  const KernelImage *generic = kernel(name, error);
  if (!generic) return nullptr;
  std::lock_guard lock(mutex_);
  const std::string key = name + "/" + pocl::specializedDirName(g);
  if (auto it = specialized_.find(key); it != specialized_.end()) return &it->second;
  const std::string path =
      pocl::specializedLibraryPath(pocl::poclCacheTopDir(), binary_.build_hash, name, g);
  std::ifstream in(path, std::ios::binary);
  if (path.empty() || !in) {
    error = "PoCL's kernel cache has no " + (path.empty() ? key : path);
    return nullptr;
  }
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  auto lib = pocl::LoadedLibrary::load(bytes, name, error);
  if (!lib) return nullptr;
  auto fn = reinterpret_cast<pocl::WorkGroupFn>(
      lib->symbol(pocl::workGroupSymbol(name).c_str()));
  if (!fn) {
    error = path + " has no symbol " + pocl::workGroupSymbol(name);
    return nullptr;
  }
  libraries_[key] = std::move(lib);
  KernelImage &k = specialized_[key];
  k = *generic;
  k.fn = fn;
  return &k;
}

}  // namespace hk::program
