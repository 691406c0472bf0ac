// A kernel on its device: its arguments and its lifecycle, whose transitions are all in
// device_kernel.cpp and all run under `mutex` on the slow path:
//
//   preparation   NotYet -> Ready | Failed     its generic work-group function (prepare)
//                 NotYet -> Waiting -> Ready | Failed
//                                              a program nothing has prepared: its first
//                                              launch goes to PoCL's queue, the next one
//                                              prepares (docs/first-launch.md)
//                 Ready: a program made per kernel gives metadata first; fitImage
//                 then takes PoCL's function for the planned geometry, or the
//                 generic one (docs/first-launch.md, "One kernel compiled")
//   unchecked     NotYet -> Ready | Failed     native kernels, on their second launch
//                                              (buildVariantIfDue, docs/native-kernels.md)
//   specialized   Idle -> Ready | Unavailable, or Idle -> Compiling -> Ready | Unavailable
//                                              hot kernels (startSpecializing,
//                                              finishSpecializing, docs/specialized.md)
//
// The launch path reads `image`, `unchecked`, specializedFor() and the argument array without
// a lock: they change only in these transitions (`image` and the specialized function are
// atomics, since their transitions run while other threads launch the kernel).
//
//   MutexLock lock(k.mutex);
//   if (hk_reason why = k.prepare(device, loadImage, &findImage); why != HK_REASON_NONE)
//     return why;  // HK_REASON_FIRST_LAUNCH: PoCL's queue this time
//   k.buildVariantIfDue(context, device);
//   if (k.startSpecializing(plan.total_groups, plan.stack_kib, plan.pc)) ...;  // via PoCL
#pragma once

#include <CL/cl.h>
#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "base/function_ref.hpp"
#include "base/thread_safety.hpp"
#include "kernel/kernel_args.hpp"
#include "pocl/kernel_cache.hpp"
#include "program/native_program.hpp"
#include "program/program_image.hpp"

namespace hk::kernel {

// The program's image on the device being prepared for (the registry's, shared by the
// program's kernels); null with `error` set when there is none.
using ImageLoader = FunctionRef<std::shared_ptr<program::ProgramImage>(std::string &error)>;

class DeviceKernel {
 public:
  std::string name;
  Mutex mutex;  // serialises the transitions, binding and planning
  KernelArgs args;

  // Native kernels (HK_KERNEL in a native program): argument 0 is the hidden true
  // ndrange, which every launch fills in, and full work-groups run the unchecked variant
  // once it is built.
  std::shared_ptr<program::NativeProgram> native;  // null for other kernels
  bool hidden_ndrange = false;

  // Set by the transitions only. `image` is atomic: fitImage() replaces a function bound to
  // one geometry by the generic one while other threads' launches of the kernel run (the
  // generic function accepts every geometry, so a launch planned for the bound one gives
  // the same results with it). Read it with image.load(acquire); writers store with
  // release under `mutex`.
  std::atomic<const program::KernelImage *> image{nullptr};  // with preparation Ready
  const program::KernelImage *unchecked = nullptr;  // with unchecked Ready
  std::atomic<const program::KernelImage *> specialized_image{nullptr};  // once Ready
  pocl::SpecializedGeometry specialized_geometry;  // written before `specialized_image`

  // Counted by launching threads (relaxed load + store, as launch counts are).
  std::atomic<std::uint64_t> checked_groups{0};  // direct launches' work-groups by variant
  std::atomic<std::uint64_t> unchecked_groups{0};
  std::atomic<std::uint64_t> specialized_launches{0};

  // Prepares the kernel for `device`: its work-group function and metadata, once per
  // device (a new device forgets the unchecked variant too). HK_REASON_PREPARE_FAILED,
  // logged once, when the program's binary gives no usable function. `load` may compile
  // (PoCL's binary query). `find`, when given, only finds an image that exists already
  // (null with `error` empty when there is none): a first launch it cannot serve returns
  // HK_REASON_FIRST_LAUNCH without loading, and the next launch uses `load`. `local`: the
  // launch's local size when the application gave one (PoCL's queue then compiles the
  // function for it), null when PoCL chooses.
  hk_reason prepare(cl_device_id device, const ImageLoader &load,
                    const ImageLoader *find = nullptr, const std::size_t *local = nullptr)
      REQUIRES(mutex);

  // After the launch's plan (geometry `pc`), before it runs: a kernel of a program whose
  // image was made per kernel (docs/first-launch.md, "One kernel compiled") has no generic
  // function; it takes PoCL's function for `pc` from PoCL's kernel cache (waiting a while
  // for it when a launch of the kernel with that local size, or with one PoCL chose, is on
  // PoCL's queue), or returns
  // HK_REASON_FIRST_LAUNCH once so that PoCL's queue compiles it, and for a geometry its
  // function does not accept it takes the generic one (the program's binary): then
  // `replan` is set, since the generic function may plan differently.
  hk_reason fitImage(const pocl::PoclContext &pc, bool &replan) REQUIRES(mutex);

  // A native kernel's first launch runs checked throughout; its second (on the same
  // device) builds the unchecked variant, so a kernel launched once is compiled once.
  // Call once per planned launch, after prepare.
  void buildVariantIfDue(cl_context context, cl_device_id device) REQUIRES(mutex);
  // False while a native kernel's unchecked variant is still to be settled: its launches
  // must keep coming to the slow path.
  bool variantsSettled() const {
    return !hidden_ndrange || unchecked_state_ != Unchecked::NotYet;
  }

  // PoCL's function specialized for this launch's geometry, once the kernel has one.
  [[gnu::always_inline]] const program::KernelImage *specializedFor(
      const pocl::PoclContext &pc) const {
    const program::KernelImage *s = specialized_image.load(std::memory_order_acquire);
    return s && pocl::acceptsLaunch(specialized_geometry, pc) ? s : nullptr;
  }
  // Counts a launch that ran specializedFor()'s function. Only the launching thread of
  // the kernel writes the count (a load and a store, no locked instruction).
  void countSpecializedLaunch() {
    specialized_launches.store(specialized_launches.load(std::memory_order_relaxed) + 1,
                               std::memory_order_relaxed);
  }
  // Adds a team launch's work-group time to the kernel's total. True when the total has
  // reached the next specialization check: the next launch should take the slow path.
  bool addTeamWork(std::uint64_t ns);
  // A hot kernel: takes PoCL's specialized function for the launch's geometry from PoCL's
  // kernel cache if it is there already (looked for after some team work, then each time
  // the work doubles); past HOSTKERNEL_SPECIALIZE_MS, marks the kernel Compiling and
  // returns true: this launch should go through PoCL's queue, which compiles it, and then
  // finishSpecializing.
  bool startSpecializing(std::uint64_t total_groups, std::uint32_t stack_kib,
                         const pocl::PoclContext &pc) REQUIRES(mutex);
  // After the launch startSpecializing chose: loads the function PoCL compiled (if `ran`)
  // for the team launches that follow. Takes `mutex`.
  void finishSpecializing(bool ran) EXCLUDES(mutex);

  // What a kernel object learned about specializing its kernel, to hand on to the next
  // kernel object of the same kernel of the same program (libraries that make one per
  // call): its team work so far and, once taken, PoCL's specialized function, which the
  // program's image owns. A compile in progress hands on nothing.
  struct Specialization {
    std::uint64_t team_ns = 0;
    std::uint64_t check_ns = 0;
    bool ready = false;
    bool unavailable = false;
    const program::KernelImage *image = nullptr;
    pocl::SpecializedGeometry geometry;
  };
  Specialization specialization() const;
  // Starts from `s` (a new kernel object, before its first launch).
  void inheritSpecialization(const Specialization &s);

 private:
  void takeSpecialized(const program::KernelImage *img, const char *how) REQUIRES(mutex);
  // A launch goes to PoCL's queue to have its function compiled, for `local` (zeros: a
  // local size PoCL chooses).
  void noteSentToQueue(const std::uint64_t local[3]) REQUIRES(mutex);
  // Whether the launch on PoCL's queue compiles the function a launch of `pc` needs.
  bool queuedFor(const pocl::PoclContext &pc) const REQUIRES(mutex);

  enum class Prep : std::uint8_t { NotYet, Waiting, Ready, Failed };
  enum class Unchecked : std::uint8_t { NotYet, Ready, Failed };
  enum class Special : std::uint8_t { Idle, Compiling, Ready, Unavailable };
  // The transitions of the header's diagram, and only those: asserted in builds without
  // NDEBUG (Debug, and CI's sanitizer builds, scripts/test-sanitizers.sh). A new device
  // restarts preparation and the unchecked variant at NotYet.
  void setPrep(Prep to) REQUIRES(mutex);
  void setUnchecked(Unchecked to) REQUIRES(mutex);
  void setSpecial(Special to);

  Prep prep_ GUARDED_BY(mutex) = Prep::NotYet;
  cl_device_id device_ GUARDED_BY(mutex) = nullptr;  // prepared for
  std::shared_ptr<program::ProgramImage> program_image_ GUARDED_BY(mutex);
  // A launch was planned: the next one builds the variant.
  bool launched_before_ GUARDED_BY(mutex) = false;
  // fitImage sent a launch to PoCL's queue for its function.
  bool variant_asked_ GUARDED_BY(mutex) = false;
  bool sent_to_queue_ GUARDED_BY(mutex) = false;    // a launch went to PoCL's queue while preparing
  // That launch's local size, for which PoCL compiles the function; zeros: PoCL chose it.
  // fitImage waits for no other size's function: PoCL's queue compiles none.
  std::uint64_t queued_local_[3] GUARDED_BY(mutex) = {0, 0, 0};
  bool waited_for_function_ GUARDED_BY(mutex) = false;  // fitImage waited for PoCL to compile it
  Unchecked unchecked_state_ = Unchecked::NotYet;
  std::shared_ptr<program::ProgramImage> unchecked_program_ GUARDED_BY(mutex);
  // Team launches add their work-group time to `team_ns_` (written by launching threads).
  // Past `special_check_ns_` the next launch takes the slow path and looks in PoCL's
  // kernel cache; past config().specialize_ms it goes through PoCL's queue once.
  std::atomic<Special> special_state_{Special::Idle};
  std::atomic<std::uint64_t> team_ns_{0};
  std::atomic<std::uint64_t> special_check_ns_{0};  // 0: not set yet (config not read)
};

}  // namespace hk::kernel
