#include "kernel/device_kernel.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <thread>

#include "base/config.hpp"
#include "base/exit_guard.hpp"
#include "base/log.hpp"
#include "base/thread_safety.hpp"
#include "pocl/worker_stack.hpp"

namespace hk::kernel {
namespace {

// Team work after which a kernel looks for its specialized function in PoCL's kernel
// cache. A look costs a fraction of a millisecond (a miss, or read + memfd + dlopen): a
// kernel that has run this long on the team has spent ten times that, and one launched a
// few times never looks.
constexpr std::uint64_t kLookInCacheNs = 2'000'000;

// How long a kernel whose launch is on PoCL's queue waits for PoCL to compile its function
// (DeviceKernel::fitImage), looking again after 1, 2, 4, ... 64 ms.
constexpr auto kWaitForFunction = std::chrono::seconds(2);
constexpr auto kPollMax = std::chrono::milliseconds(64);

}  // namespace

// The transitions of device_kernel.hpp's diagram. A new device restarts at NotYet (prepare).
void DeviceKernel::setPrep(Prep to) {
  [[maybe_unused]] const Prep from = prep_;
  assert(to == Prep::NotYet ||
         (from == Prep::NotYet && to != Prep::NotYet) ||
         (from == Prep::Waiting && (to == Prep::Ready || to == Prep::Failed)) ||
         (from == Prep::Ready && to == Prep::Failed));  // fitImage: no usable function
  prep_ = to;
}

void DeviceKernel::setUnchecked(Unchecked to) {
  [[maybe_unused]] const Unchecked from = unchecked_state_;
  // buildVariantIfDue marks it Failed before it tries, Ready once it is kept.
  assert(to == Unchecked::NotYet || (from == Unchecked::NotYet && to == Unchecked::Failed) ||
         (from == Unchecked::Failed && to == Unchecked::Ready));
  unchecked_state_ = to;
}

// Under `mutex`, or on a kernel object no other thread knows yet (inheritSpecialization).
void DeviceKernel::setSpecial(Special to) {
  [[maybe_unused]] const Special from = special_state_.load(std::memory_order_relaxed);
  assert((from == Special::Idle && to != Special::Idle) ||
         (from == Special::Compiling && (to == Special::Ready || to == Special::Unavailable)));
  special_state_.store(to, std::memory_order_relaxed);
}

hk_reason DeviceKernel::prepare(cl_device_id device, const ImageLoader &load,
                                const ImageLoader *find, const std::size_t *local) {
  if (prep_ == Prep::Ready && device_ == device) return HK_REASON_NONE;
  if (prep_ == Prep::Failed && device_ == device) return HK_REASON_PREPARE_FAILED;
  // Waiting: a launch went to PoCL's queue; this one compiles.
  const bool waited = prep_ == Prep::Waiting && device_ == device;
  if (device_ != device) {  // preparation and the unchecked variant are per device
    if (device_) setPrep(Prep::NotYet);
    unchecked = nullptr;
    unchecked_program_.reset();
    setUnchecked(Unchecked::NotYet);
  }
  device_ = device;
  std::string error;
  program_image_.reset();
  if (find && !waited) {
    program_image_ = (*find)(error);
    if (!program_image_ && error.empty()) {
      setPrep(Prep::Waiting);
      const std::uint64_t size[3] = {local ? local[0] : 0, local ? local[1] : 0,
                                     local ? local[2] : 0};
      noteSentToQueue(size);
      return HK_REASON_FIRST_LAUNCH;
    }
  }
  if (!program_image_) program_image_ = load(error);
  // Native kernels' unchecked variants are compared with the generic function's metadata.
  const program::KernelImage *prepared =
      !program_image_ ? nullptr
      : native        ? program_image_->kernel(name, error)
                      : program_image_->launchKernel(name, error);
  image.store(prepared, std::memory_order_release);
  if (!prepared) {
    setPrep(Prep::Failed);
    logf(LogLevel::Warn, "kernel '%s' uses PoCL's queue: %s", name.c_str(), error.c_str());
    return HK_REASON_PREPARE_FAILED;
  }
  setPrep(Prep::Ready);
  args.markDirty();
  return HK_REASON_NONE;
}

void DeviceKernel::noteSentToQueue(const std::uint64_t local[3]) {
  sent_to_queue_ = true;
  waited_for_function_ = false;
  for (int d = 0; d < 3; ++d) queued_local_[d] = local[d];
}

bool DeviceKernel::queuedFor(const pocl::PoclContext &pc) const {
  if (queued_local_[0] == 0) return true;  // PoCL chose the queued launch's local size
  for (int d = 0; d < 3; ++d)
    if (queued_local_[d] != pc.local_size[d]) return false;
  return true;
}

hk_reason DeviceKernel::fitImage(const pocl::PoclContext &pc, bool &replan) {
  replan = false;
  const program::KernelImage *current = image.load(std::memory_order_relaxed);
  if (current->fn && (!current->bound || pocl::acceptsLaunch(current->geometry, pc)))
    return HK_REASON_NONE;
  std::string error;
  if (!current->fn) {
    const program::KernelImage *v = program_image_->variantFor(name, pc, error);
    if (!v && sent_to_queue_ && !waited_for_function_ && queuedFor(pc)) {
      // A launch of this kernel is on PoCL's queue, which compiles the function when it
      // runs it; this launch, direct, would wait for that queue anyway (it drains it
      // first). Waiting for the function instead is bounded, in case PoCL compiled
      // another geometry's (it chose the queued launch's local size, or the launch has
      // run and was given another global offset).
      waited_for_function_ = true;
      logf(LogLevel::Info, "kernel '%s': waits for PoCL's queue to compile its function "
           "for local size %llu-%llu-%llu", name.c_str(), (unsigned long long)pc.local_size[0],
           (unsigned long long)pc.local_size[1], (unsigned long long)pc.local_size[2]);
      const auto until = std::chrono::steady_clock::now() + kWaitForFunction;
      for (auto pause = std::chrono::milliseconds(1);
           !v && std::chrono::steady_clock::now() < until; pause = std::min(2 * pause, kPollMax)) {
        std::this_thread::sleep_for(pause);
        v = program_image_->variantFor(name, pc, error);
      }
    }
    if (v) {
      image.store(v, std::memory_order_release);
      logf(LogLevel::Debug, "kernel '%s': PoCL's work-group function for %s",
           name.c_str(), pocl::specializedDirName(v->geometry).c_str());
      return HK_REASON_NONE;
    }
    if (!variant_asked_) {
      // PoCL's queue compiles the function for this geometry (and only it), as it would
      // without hostkernel; the next launch finds it.
      variant_asked_ = true;
      noteSentToQueue(pc.local_size);
      return HK_REASON_FIRST_LAUNCH;
    }
  }
  // A geometry that no function at hand accepts: the generic one, from the binary.
  const program::KernelImage *generic = program_image_->kernel(name, error);
  if (!generic) {
    setPrep(Prep::Failed);
    logf(LogLevel::Warn, "kernel '%s' uses PoCL's queue: %s", name.c_str(), error.c_str());
    return HK_REASON_PREPARE_FAILED;
  }
  image.store(generic, std::memory_order_release);
  args.markDirty();
  replan = true;
  return HK_REASON_NONE;
}

void DeviceKernel::buildVariantIfDue(cl_context context, cl_device_id device) {
  const bool due = hidden_ndrange && unchecked_state_ == Unchecked::NotYet &&
                   launched_before_ && device_ == device;
  launched_before_ = true;
  if (!due) return;
  // Kept only if its work-group function takes what the checked one takes.
  setUnchecked(Unchecked::Failed);
  std::string error;
  auto img = native->unchecked(context, device, error);
  const program::KernelImage *u = img ? img->kernel(name, error) : nullptr;
  if (!u) return;
  const program::KernelImage *generic = image.load(std::memory_order_relaxed);
  const pocl::KernelRecord &a = *generic->meta, &b = *u->meta;
  if (a.num_args != b.num_args || a.num_locals != b.num_locals ||
      a.local_sizes != b.local_sizes || a.reqd_wg_size != b.reqd_wg_size ||
      generic->flush_denorms != u->flush_denorms) {
    logf(LogLevel::Warn, "kernel '%s': the unchecked variant differs in its arguments or "
         "locals; the checked one runs every work-group", name.c_str());
    return;
  }
  unchecked_program_ = std::move(img);
  unchecked = u;
  setUnchecked(Unchecked::Ready);
}

bool DeviceKernel::addTeamWork(std::uint64_t ns) {
  if (special_state_.load(std::memory_order_relaxed) != Special::Idle || hidden_ndrange)
    return false;
  const std::uint64_t total = team_ns_.load(std::memory_order_relaxed) + ns;
  team_ns_.store(total, std::memory_order_relaxed);
  const std::uint64_t check = special_check_ns_.load(std::memory_order_relaxed);
  return check && total >= check;
}

// Team launches of the kernel's specialized geometry call `img` from now on. Under `mutex`.
void DeviceKernel::takeSpecialized(const program::KernelImage *img, const char *how) {
  specialized_image.store(img, std::memory_order_release);
  setSpecial(Special::Ready);
  logf(LogLevel::Info, "kernel '%s': PoCL's work-group function for %s%s", name.c_str(),
       pocl::specializedDirName(specialized_geometry).c_str(), how);
}

bool DeviceKernel::startSpecializing(std::uint64_t total_groups, std::uint32_t stack_kib,
                                     const pocl::PoclContext &pc) {
  const std::uint64_t limit = config().specialize_ms * 1000000;
  std::uint64_t check = special_check_ns_.load(std::memory_order_relaxed);
  if (!check) {
    check = std::min(limit, kLookInCacheNs);
    special_check_ns_.store(check, std::memory_order_relaxed);
  }
  const std::uint64_t total = team_ns_.load(std::memory_order_relaxed);
  if (!limit || hidden_ndrange ||
      special_state_.load(std::memory_order_relaxed) != Special::Idle || total < check)
    return false;
  // The next look, unless this one settles it: at twice the work (another process, or
  // PoCL's queue, may compile the function meanwhile; the misses add up to a few percent
  // of the work), and at the limit, where it is compiled. Every return below moves it on,
  // so that team launches do not all take the slow path.
  const bool compile_due = total >= limit;
  special_check_ns_.store(compile_due ? 2 * total : std::min(2 * total, limit),
                          std::memory_order_relaxed);
  if (total_groups < 2) return false;  // not a team launch: look at a later one
  // The launch through PoCL's queue runs on PoCL's workers: its group must fit their
  // stacks (the plan may be for the team's larger ones).
  if ((std::uint64_t{stack_kib} << 10) > pocl::workerStackRoom()) {
    setSpecial(Special::Unavailable);
    logf(LogLevel::Info,
         "kernel '%s': keeps the generic work-group function (a group needs ~%u KiB of "
         "stack, more than PoCL's workers have)",
         name.c_str(), stack_kib);
    return false;
  }
  specialized_geometry = pocl::specializedGeometryOf(pc);  // `specialized_image` is still null
  std::string why;
  if (const program::KernelImage *img =
          program_image_->specializedKernel(name, specialized_geometry, why)) {
    takeSpecialized(img, " (already compiled)");
    return false;
  }
  if (!compile_due) return false;
  // PoCL compiles it during the launch: not once exit has begun (base/exit_guard.hpp);
  // the slot is given back in finishSpecializing, when the launch has ended.
  if (!beginCompile()) return false;
  setSpecial(Special::Compiling);
  return true;
}

DeviceKernel::Specialization DeviceKernel::specialization() const {
  Specialization s;
  const Special state = special_state_.load(std::memory_order_relaxed);
  if (state == Special::Compiling) return s;
  s.team_ns = team_ns_.load(std::memory_order_relaxed);
  s.check_ns = special_check_ns_.load(std::memory_order_relaxed);
  s.ready = state == Special::Ready;
  s.unavailable = state == Special::Unavailable;
  s.image = specialized_image.load(std::memory_order_acquire);
  s.geometry = specialized_geometry;
  return s;
}

void DeviceKernel::inheritSpecialization(const Specialization &s) {
  team_ns_.store(s.team_ns, std::memory_order_relaxed);
  special_check_ns_.store(s.check_ns, std::memory_order_relaxed);
  if (s.unavailable) setSpecial(Special::Unavailable);
  if (s.ready && s.image) {
    specialized_geometry = s.geometry;
    specialized_image.store(s.image, std::memory_order_release);
    setSpecial(Special::Ready);
  }
}

void DeviceKernel::finishSpecializing(bool ran) {
  endCompile();  // the launch that compiled it has ended
  MutexLock lock(mutex);
  std::string why = "the launch through PoCL's queue failed";
  const program::KernelImage *img =
      ran ? program_image_->specializedKernel(name, specialized_geometry, why) : nullptr;
  if (img) {
    takeSpecialized(img, "");
  } else {
    setSpecial(Special::Unavailable);
    logf(LogLevel::Info, "kernel '%s': keeps the generic work-group function (%s)",
         name.c_str(), why.c_str());
  }
}

}  // namespace hk::kernel
