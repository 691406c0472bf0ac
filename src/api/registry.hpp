// Where hostkernel finds its entry for an OpenCL handle. Lookups of kernels and queues
// are lock-free (the launch path); creating entries asks PoCL about the object and is
// done once per object.
//
//   KernelEntry *k = g_kernels.find(handle);          // launch path
//   Registry &r = registry();
//   KernelEntry *k = r.kernelEntry(handle, &err);      // slow path: creates on first use
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "api/entries.hpp"
#include "api/object_table.hpp"

namespace hk::api {

// The launch path's tables: plain globals, constant-initialised, so a lookup is one
// hash and a probe with no guard or indirection.
extern constinit ObjectTable<KernelEntry> g_kernels;
extern constinit ObjectTable<QueueEntry> g_queues;

class Registry {
 public:
  ObjectTable<KernelEntry> &kernels = g_kernels;
  ObjectTable<QueueEntry> &queues = g_queues;

  // Existing or new entry; null (with *err set to an OpenCL error, or CL_SUCCESS when
  // the object is valid but cannot be tracked) if PoCL does not know the object.
  KernelEntry *kernelEntry(cl_kernel kernel, cl_int *err);
  QueueEntry *queueEntry(cl_command_queue queue, cl_int *err);
  const DeviceEntry *deviceEntry(cl_device_id device);

  // The program's image for `device`, shared by all its kernels; taken once.
  std::shared_ptr<program::ProgramImage> programImage(cl_program program,
                                                      cl_device_id device,
                                                      std::string &error);
  // The same without compiling: the image taken before, or the persistent cache's; null
  // when neither has it.
  std::shared_ptr<program::ProgramImage> existingImage(cl_program program,
                                                       cl_device_id device);

  // Native programs (hkCreateNativeProgramWith*): their source and unchecked variant.
  // Kept until the program is released.
  void addNative(cl_program program, std::shared_ptr<program::NativeProgram> native);
  std::shared_ptr<program::NativeProgram> nativeProgram(cl_program program);
  void dropNative(cl_program program);

  // A buffer's device pointer, resolved once per cl_mem (with `queue` if it must be
  // mapped).
  bool bufferPointer(cl_mem mem, QueueEntry &queue, void **out);

  // Forget state when OpenCL objects die or a new object may reuse an address.
  void dropKernel(cl_kernel kernel, bool released);
  void dropQueue(cl_command_queue queue);
  void dropProgram(cl_program program);
  void dropBuffer(cl_mem mem);

  // Launch counts of kernels that no longer exist, by kernel name (for the report).
  void retireCounts(const KernelEntry &entry);
  template <typename F>
  void forEachRetired(F &&f) {
    std::lock_guard lock(mutex_);
    for (auto &[name, c] : retired_) f(name, c);
  }

 private:
  std::mutex mutex_;  // guards the maps below
  std::map<cl_device_id, std::unique_ptr<DeviceEntry>> devices_;
  struct ProgramSlot {
    std::uint64_t id;
    std::weak_ptr<program::ProgramImage> image;
  };
  struct BufferSlot {
    std::uint64_t id;
    void *pointer;
  };
  std::map<cl_program, ProgramSlot> programs_;
  std::shared_ptr<program::ProgramImage> keep(cl_program program, std::uint64_t id,
                                              std::shared_ptr<program::ProgramImage> img);
  std::map<cl_mem, BufferSlot> buffers_;
  struct NativeSlot {
    std::uint64_t id;
    std::shared_ptr<program::NativeProgram> native;
  };
  std::map<cl_program, NativeSlot> natives_;
  struct Retired {
    std::uint64_t by_path[3] = {};
    std::uint64_t by_reason[HK_REASON_COUNT] = {};
  };
  std::map<std::string, Retired> retired_;
 public:
  using RetiredCounts = Retired;
};

Registry &registry();

}  // namespace hk::api
