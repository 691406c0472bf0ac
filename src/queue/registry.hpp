// Where hostkernel finds its entry for a kernel or program. Lookups of kernels are
// lock-free (the launch path); creating entries asks PoCL about the object and is done
// once per object. Queues (queue.hpp), devices (device.hpp) and buffers (buffers.hpp)
// have tables of their own.
//
//   KernelEntry *k = g_kernels.find(handle);          // launch path
//   Registry &r = registry();
//   KernelEntry *k = r.kernelEntry(handle, &err);      // slow path: creates on first use
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "queue/kernel_entry.hpp"
#include "base/object_table.hpp"
#include "base/thread_safety.hpp"

namespace hk::queue {

// The launch path's tables: plain globals, constant-initialised, so a lookup is one
// hash and a probe with no guard or indirection.
extern constinit ObjectTable<KernelEntry> g_kernels;

class Registry {
 public:
  ObjectTable<KernelEntry> &kernels = g_kernels;

  // Existing or new entry; null (with *err set to an OpenCL error, or CL_SUCCESS when
  // the object is valid but cannot be tracked) if PoCL does not know the object.
  KernelEntry *kernelEntry(cl_kernel kernel, cl_int *err);

  // The program's image for `device`, shared by all its kernels; taken once and kept as
  // long as the program (dropProgram): kernel objects made and released per call find it.
  std::shared_ptr<program::ProgramImage> programImage(cl_program program,
                                                      cl_device_id device,
                                                      std::string &error);
  // A kernel used once compiles once, counted per program: the image taken before, or
  // the persistent cache's; null (error empty) the first time a kernel of the program
  // asks and neither has it, so that launch goes to PoCL's queue; from the program's
  // second ask on, programImage (compiles), whichever kernel object asks.
  std::shared_ptr<program::ProgramImage> existingImage(cl_program program,
                                                       cl_device_id device,
                                                       std::string &error);

  // Sets k.arg_meta from the image of the kernel's program, when there is one.
  void findArgMeta(KernelEntry &k);

  // Native programs (hkCreateNativeProgramWith*): their source and unchecked variant.
  // Kept until the program is released.
  void addNative(cl_program program, std::shared_ptr<program::NativeProgram> native);
  std::shared_ptr<program::NativeProgram> nativeProgram(cl_program program);
  void dropNative(cl_program program);

  // References the application holds to a program made through hostkernel: created
  // with 1, +1 per retain, -1 per release. PoCL's own count also holds its kernels' and
  // commands' references, so it says "last" only once PoCL is done too, which a program
  // released while a launch of it is queued may never show to hostkernel. programCreated
  // starts the count (and forgets the address's old state); countProgramReference adds
  // `delta` and returns the application's references left, or -1 for a program made
  // elsewhere (PoCL's count decides). Call before PoCL's release: it reads the id.
  void programCreated(cl_program program);
  int countProgramReference(cl_program program, int delta);

  // Forget state when OpenCL objects die or a new object may reuse an address. A
  // released kernel's entry is kept for the program's next kernel object of the same
  // kernel (keepReleased), until the program is dropped.
  void dropKernel(cl_kernel kernel, bool released);
  void dropProgram(cl_program program);

  // Launch counts of kernels that no longer exist, by kernel name (for the report).
  void retireCounts(const KernelEntry &entry);
  template <typename F>
  void forEachRetired(F &&f) {
    MutexLock lock(mutex_);
    for (auto &[name, c] : retired_) f(name, c);
  }

 private:
  Mutex mutex_;
  struct ProgramSlot {
    std::uint64_t id = 0;
    std::shared_ptr<program::ProgramImage> image;
    bool launched = false;  // a kernel of the program asked existingImage before
    // What each kernel's last released kernel object learned, by kernel name: a new
    // kernel object of the same kernel starts from it (seedFromProgram).
    struct History {
      launch::Sampler::Estimate estimate;
      kernel::DeviceKernel::Specialization specialization;
    };
    std::map<std::string, History> histories;
  };
  // A released kernel object's history goes to its program's slot; a new one starts
  // from it.
  void keepHistory(const KernelEntry &k) REQUIRES(mutex_);
  void seedFromProgram(KernelEntry &k) REQUIRES(mutex_);
  // Entries of released kernel objects, by program and kernel name: a program that makes
  // a kernel object per call (PyOpenCL's kernels of element-wise expressions, a new
  // cl::Kernel per call) finds its kernel prepared, planned and timed, as a kept object
  // would. At most kMaxReleasedEntries (the oldest go first), and only while the
  // program's image is kept: they hold it, and a rebuilt or released program drops them.
  static constexpr std::size_t kMaxReleasedEntries = 64;
  using ReleasedKey = std::pair<cl_program, std::string>;
  bool keepReleased(KernelEntry *k) REQUIRES(mutex_);
  std::unique_ptr<KernelEntry> takeReleased(cl_program program, std::uint64_t program_id,
                                            const std::string &name, cl_uint num_args,
                                            cl_context context) REQUIRES(mutex_);
  void dropReleased(cl_program program) REQUIRES(mutex_);
  // A new entry's set-up from PoCL's kernel: its hidden ndrange (native kernels) and the
  // argument records hkSetKernelArg checks against.
  void prepareNew(KernelEntry &k, cl_kernel kernel, cl_uint num_args);
  std::map<ReleasedKey, std::unique_ptr<KernelEntry>> released_ GUARDED_BY(mutex_);
  std::deque<ReleasedKey> released_order_ GUARDED_BY(mutex_);  // oldest first
  std::map<cl_program, ProgramSlot> programs_ GUARDED_BY(mutex_);
  // id, count
  std::map<cl_program, std::pair<std::uint64_t, int>> program_references_ GUARDED_BY(mutex_);
  std::shared_ptr<program::ProgramImage> keep(cl_program program, std::uint64_t id,
                                              std::shared_ptr<program::ProgramImage> img);
  struct NativeSlot {
    std::uint64_t id;
    std::shared_ptr<program::NativeProgram> native;
  };
  std::map<cl_program, NativeSlot> natives_ GUARDED_BY(mutex_);
  struct Retired {
    std::uint64_t by_path[3] = {};
    std::uint64_t by_reason[HK_REASON_COUNT] = {};
    std::uint64_t background = 0;
  };
  std::map<std::string, Retired> retired_ GUARDED_BY(mutex_);
 public:
  using RetiredCounts = Retired;
};

Registry &registry();

}  // namespace hk::queue
