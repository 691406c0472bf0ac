// hkEnqueueNDRangeKernel: the launch path. A launch whose kernel, queue and geometry are
// as they were at the kernel's previous direct launch takes the fast path below: two
// lock-free lookups, one TLS access, the work-group loop. Everything else (first launch,
// changed arguments or geometry, wait lists, pending PoCL work) goes through
// launchSlow(), which prepares, binds and plans, or hands the launch to PoCL's queue.
#include <hostkernel/hostkernel.h>

#include <array>
#include <algorithm>

#include "api/profiling_events.hpp"
#include "api/queue_sync.hpp"
#include "api/registry.hpp"
#include "base/log.hpp"
#include "base/next.hpp"
#include "base/config.hpp"
#include "launch/executor.hpp"
#include "kernel/thread_state.hpp"
#include "launch/tuning.hpp"
#include "team/team.hpp"
#include "pocl/kernel_cache.hpp"
#include "pocl/object_id.hpp"

namespace hk::api {
namespace {

// Work-groups by variant (hkGetKernelVariantInfo); like LaunchCounts, no locked
// instruction.
[[gnu::noinline]] void countVariants(KernelEntry &k, const launch::Plan &plan) {
  const std::uint64_t unchecked = k.unchecked ? launch::fullTotal(plan) : 0;
  k.unchecked_groups.store(k.unchecked_groups.load(std::memory_order_relaxed) + unchecked,
                           std::memory_order_relaxed);
  k.checked_groups.store(
      k.checked_groups.load(std::memory_order_relaxed) + plan.total_groups - unchecked,
      std::memory_order_relaxed);
}

// Adds a team launch's work-group time to the kernel's total; past the kernel's next check
// (`special_check_ns`) the next launch takes the slow path, which specializes.
[[gnu::noinline]] void noteTeamWork(KernelEntry &k, std::uint64_t ns) {
  if (k.special_state.load(std::memory_order_relaxed) != KernelEntry::Special::Idle ||
      k.hidden_ndrange)
    return;
  const std::uint64_t total = k.team_ns.load(std::memory_order_relaxed) + ns;
  k.team_ns.store(total, std::memory_order_relaxed);
  const std::uint64_t check = k.special_check_ns.load(std::memory_order_relaxed);
  if (check && total >= check) k.fast.store(false, std::memory_order_relaxed);
}

// Runs a kernel whose entry is fast (prepared, bound, planned): on the team when the launch
// is large or the kernel's launches have been slow, else on the calling thread. Counts the
// path. Returns CL_OUT_OF_HOST_MEMORY only if a thread's buffers cannot grow. Inlined:
// as a function of its own, the compiler specialises it for its callers' one `ts`
// (threadState()) and reads the thread_local again inside, a second TLS access per launch.
[[gnu::always_inline]] inline cl_int execute(KernelEntry &k, launch::Plan &plan,
                                             kernel::ThreadState &ts) {
  launch::Sampler &sampler = k.sampler;
  const bool timed = sampler.shouldTime(plan.total_groups);
  const std::uint64_t t0 = timed ? launch::nowNs() : 0;
  std::uint64_t team_serial_ns = 0;
  hk_path path = HK_PATH_INLINE;
  if ((plan.team_sized || sampler.slow()) && plan.total_groups > 1) {
    // Stealing pays when the work moved or is long; otherwise block k stays on thread k.
    const bool steal = k.grid_changed.load(std::memory_order_relaxed) ||
                       sampler.lastNs() >= launch::Sampler::kStealNs;
    // PoCL's function specialized for this geometry, once the kernel has one.
    const program::KernelImage *special = k.special.load(std::memory_order_acquire);
    if (special && !pocl::acceptsLaunch(k.special_geometry, plan.pc)) special = nullptr;
    // Built here, not for the inline path: its address escapes to the team, which would
    // make the inline path store it to memory.
    const launch::LaunchBody body{special ? special : k.image, &k.args, &plan,
                                  k.device->probe.printf_buffer_size, k.hidden_ndrange,
                                  k.unchecked};
    std::uint64_t serial_ns = 0;
    switch (launch::runOnTeam(body, steal, timed, &serial_ns)) {
      case launch::TeamResult::Ran:
        path = HK_PATH_TEAM;
        team_serial_ns = serial_ns;
        if (special)
          k.special_launches.store(k.special_launches.load(std::memory_order_relaxed) + 1,
                                   std::memory_order_relaxed);
        break;
      case launch::TeamResult::OutOfMemory: return CL_OUT_OF_HOST_MEMORY;
      case launch::TeamResult::NotRun: break;
    }
  }
  if (path == HK_PATH_INLINE &&
      !launch::runInline(
          launch::LaunchBody{k.image, &k.args, &plan, 0, k.hidden_ndrange, k.unchecked}, ts))
    return CL_OUT_OF_HOST_MEMORY;
  if (timed) {
    const std::uint64_t wall = launch::nowNs() - t0;
    sampler.record(wall, path == HK_PATH_TEAM ? team_serial_ns : wall, plan.total_groups);
    if (path == HK_PATH_TEAM) noteTeamWork(k, team_serial_ns);
  }
  if (k.grid_changed.load(std::memory_order_relaxed))
    k.grid_changed.store(false, std::memory_order_relaxed);
  k.counts.add(path, HK_REASON_NONE);
  if (k.hidden_ndrange) countVariants(k, plan);
  return CL_SUCCESS;
}

// Gives the launch to PoCL and records why.
cl_int launchOnQueue(KernelEntry *k, QueueEntry *q, hk_reason reason, cl_command_queue queue,
                     cl_kernel kernel, cl_uint dim, const size_t *offset, const size_t *global,
                     const size_t *local, cl_uint nwait, const cl_event *waits,
                     cl_event *event) {
  cl_int err = next().clEnqueueNDRangeKernel(queue, kernel, dim, offset, global, local, nwait,
                                             waits, event);
  if (k) k->counts.add(HK_PATH_QUEUE, reason);
  if (q && err == CL_SUCCESS) noteEnqueued(*q, nwait, waits, false);
  return err;
}

// A native kernel on PoCL's queue: the checked variant (the application's program) over
// the grid rounded up to whole work-groups, with the true ndrange as argument 0. Requests
// that cannot be planned go to PoCL as they are, for its error.
cl_int launchNativeOnQueue(KernelEntry &k, QueueEntry &q, hk_reason reason,
                           cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                           const size_t *offset, const size_t *global, const size_t *local,
                           cl_uint nwait, const cl_event *waits, cl_event *event) {
  launch::Plan plan;
  std::array<std::uint64_t, 3> reqd{};
  size_t compiled[3] = {};
  if (next().clGetKernelWorkGroupInfo(kernel, q.device->handle,
                                      CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled,
                                      compiled, nullptr) == CL_SUCCESS)
    for (int i = 0; i < 3; ++i) reqd[i] = compiled[i];
  // Without a local size, the largest group that fits PoCL's worker stacks.
  const std::uint64_t pocl_cap =
      k.image ? k.image->stack.largestPow2Fitting(launch::poclWorkerStackRoom()) : UINT64_MAX;
  if (dim < 1 || dim > 3 || !global ||
      launch::planLaunch(launch::LaunchRequest::from(dim, offset, global, local),
                         q.device->limits, reqd, plan, config().inline_max_items,
                         pocl_cap ? pocl_cap : 1, true) !=
          HK_REASON_NONE)
    return launchOnQueue(&k, &q, reason, queue, kernel, dim, offset, global, local, nwait,
                         waits, event);
  size_t grid[3], wg[3];
  for (cl_uint i = 0; i < dim; ++i) {
    wg[i] = plan.pc.local_size[i];
    grid[i] = plan.pc.num_groups[i] * wg[i];
  }
  std::uint64_t ndrange[3];
  launch::trueNdrange(plan, ndrange);
  // PoCL copies argument values when the command is enqueued: set and enqueue together.
  std::lock_guard lock(k.queue_arg_mutex);
  cl_int err = next().clSetKernelArg(kernel, 0, sizeof ndrange, ndrange);
  if (err != CL_SUCCESS) return err;
  return launchOnQueue(&k, &q, reason, queue, kernel, dim, offset, grid, wg, nwait, waits,
                       event);
}

// Builds the unchecked variant of a native kernel (once; under the kernel's mutex) and
// keeps it if its work-group function takes what the checked one takes.
void prepareUnchecked(KernelEntry &k, cl_context context) {
  k.unchecked_state = KernelEntry::Unchecked::Failed;
  std::string error;
  auto img = k.native->unchecked(context, k.device->handle, error);
  const program::KernelImage *u = img ? img->kernel(k.name, error) : nullptr;
  if (!u) return;
  const pocl::KernelRecord &a = *k.image->meta, &b = *u->meta;
  if (a.num_args != b.num_args || a.num_locals != b.num_locals ||
      a.local_sizes != b.local_sizes || a.reqd_wg_size != b.reqd_wg_size ||
      k.image->flush_denorms != u->flush_denorms) {
    logf(LogLevel::Warn, "kernel '%s': the unchecked variant differs in its arguments or "
         "locals; the checked one runs every work-group", k.name.c_str());
    return;
  }
  k.unchecked_program = std::move(img);
  k.unchecked = u;
  k.unchecked_state = KernelEntry::Unchecked::Ready;
}

// Prepares the kernel for the queue's device: its work-group function and metadata.
hk_reason prepare(KernelEntry &k, const QueueEntry &q) {
  if (k.prep == KernelEntry::Prep::Ready && k.device == q.device) return HK_REASON_NONE;
  if (k.prep == KernelEntry::Prep::Failed && k.device == q.device)
    return HK_REASON_PREPARE_FAILED;
  if (k.device != q.device) {  // the unchecked variant is per device too
    k.unchecked = nullptr;
    k.unchecked_program.reset();
    k.unchecked_state = KernelEntry::Unchecked::NotYet;
  }
  k.device = q.device;
  std::string error;
  k.program_image = registry().programImage(k.program, q.device->handle, error);
  k.image = k.program_image ? k.program_image->kernel(k.name, error) : nullptr;
  if (!k.image) {
    k.prep = KernelEntry::Prep::Failed;
    k.prep_error = error;
    logf(LogLevel::Warn, "kernel '%s' uses PoCL's queue: %s", k.name.c_str(), error.c_str());
    return HK_REASON_PREPARE_FAILED;
  }
  k.prep = KernelEntry::Prep::Ready;
  k.args.markDirty();
  return HK_REASON_NONE;
}

// Team work after which a kernel looks for its specialized function in PoCL's kernel cache.
// Looking costs 0.1-0.3 ms here (a miss, or read + memfd + dlopen): a kernel that has run
// this long on the team has spent ten times that, and one launched a few times never looks.
constexpr std::uint64_t kLookInCacheNs = 2'000'000;

// Team launches of the kernel's special geometry call `img` from now on. Under the
// kernel's mutex.
void takeSpecialized(KernelEntry &k, const program::KernelImage *img, const char *how) {
  k.special.store(img, std::memory_order_release);
  k.special_state.store(KernelEntry::Special::Ready, std::memory_order_relaxed);
  logf(LogLevel::Info, "kernel '%s': PoCL's work-group function for %s%s", k.name.c_str(),
       pocl::specializedDirName(k.special_geometry).c_str(), how);
}

// A hot kernel (docs/specialized.md): takes PoCL's specialized function for the launch's
// geometry from PoCL's kernel cache if it is there already (looked for after
// kLookInCacheNs of team work, then each time the work doubles); past
// HOSTKERNEL_SPECIALIZE_MS, marks the kernel Compiling and returns true: this launch goes
// through PoCL's queue (specializeOnQueue). Under the kernel's mutex.
bool startSpecializing(KernelEntry &k, const launch::Plan &plan) {
  const std::uint64_t limit = config().specialize_ms * 1000000;
  std::uint64_t check = k.special_check_ns.load(std::memory_order_relaxed);
  if (!check) {
    check = std::min(limit, kLookInCacheNs);
    k.special_check_ns.store(check, std::memory_order_relaxed);
  }
  const std::uint64_t total = k.team_ns.load(std::memory_order_relaxed);
  if (!limit || k.hidden_ndrange ||
      k.special_state.load(std::memory_order_relaxed) != KernelEntry::Special::Idle ||
      total < check)
    return false;
  // The next look, unless this one settles it: at twice the work (another process, or
  // PoCL's queue, may compile the function meanwhile; the misses add up to a few percent
  // of the work), and at the limit, where it is compiled. Every return below moves it on,
  // so that team launches do not all take the slow path.
  const bool compile_due = total >= limit;
  k.special_check_ns.store(compile_due ? 2 * total : std::min(2 * total, limit),
                           std::memory_order_relaxed);
  if (plan.total_groups < 2) return false;  // not a team launch: look at a later one
  // The launch through PoCL's queue runs on PoCL's workers: its group must fit their
  // stacks (planWithinStack may have planned for the team's larger ones).
  if ((std::uint64_t{plan.stack_kib} << 10) > launch::poclWorkerStackRoom()) {
    k.special_state.store(KernelEntry::Special::Unavailable, std::memory_order_relaxed);
    logf(LogLevel::Info,
         "kernel '%s': keeps the generic work-group function (a group needs ~%u KiB of "
         "stack, more than PoCL's workers have)",
         k.name.c_str(), plan.stack_kib);
    return false;
  }
  k.special_geometry = pocl::specializedGeometryOf(plan.pc);  // `special` is still null
  std::string why;
  if (const program::KernelImage *img =
          k.program_image->specializedKernel(k.name, k.special_geometry, why)) {
    takeSpecialized(k, img, " (already compiled)");
    return false;
  }
  if (!compile_due) return false;
  k.special_state.store(KernelEntry::Special::Compiling, std::memory_order_relaxed);
  return true;
}

// The launch startSpecializing chose: through PoCL's queue with the plan's local size, so
// that PoCL compiles (and runs) its specialized function; waits for it, then loads the
// function from PoCL's kernel cache for the team launches that follow.
cl_int specializeOnQueue(KernelEntry &k, QueueEntry &q, const launch::Plan &plan,
                         cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                         const size_t *offset, const size_t *global, cl_uint nwait,
                         const cl_event *waits, cl_event *event) {
  const size_t local[3] = {plan.pc.local_size[0], plan.pc.local_size[1],
                           plan.pc.local_size[2]};
  cl_event own = nullptr;
  cl_event *ev = event ? event : &own;
  cl_int err = launchOnQueue(&k, &q, HK_REASON_SPECIALIZE, queue, kernel, dim, offset, global,
                             local, nwait, waits, ev);
  const bool ran = err == CL_SUCCESS && next().clWaitForEvents(1, ev) == CL_SUCCESS;
  if (own) next().clReleaseEvent(own);
  std::lock_guard lock(k.mutex);
  std::string why = "the launch through PoCL's queue failed";
  const program::KernelImage *img =
      ran ? k.program_image->specializedKernel(k.name, k.special_geometry, why) : nullptr;
  if (img) {
    takeSpecialized(k, img, "");
  } else {
    k.special_state.store(KernelEntry::Special::Unavailable, std::memory_order_relaxed);
    logf(LogLevel::Info, "kernel '%s': keeps the generic work-group function (%s)",
         k.name.c_str(), why.c_str());
  }
  return err;
}

// Plans the launch so that one work-group fits `room` bytes of stack (docs/stack.md):
// without a local size, PoCL's choice capped at the largest power of two of work-items
// that fits. HK_REASON_STACK when the group does not fit (an explicit local size, or not
// even one work-item); other reasons as planLaunch gives them.
hk_reason planWithinStack(const KernelEntry &k, const QueueEntry &q,
                          const launch::LaunchRequest &r, std::uint64_t room,
                          launch::Plan &plan) {
  const program::StackModel &stack = k.image->stack;
  const std::uint64_t cap = std::max<std::uint64_t>(stack.largestPow2Fitting(room), 1);
  const auto &reqd = k.image->meta->reqd_wg_size;
  if (hk_reason why = launch::planLaunch(r, q.device->limits, reqd, plan,
                                         config().inline_max_items, cap, k.hidden_ndrange);
      why != HK_REASON_NONE)
    return why;
  // A group-free kernel (docs/launch.md, "Merged work-groups") gives the same results with
  // fewer, larger groups: fewer calls of the work-group function. Only a valid request is
  // merged, so PoCL's errors stay PoCL's. A launch for the team keeps enough groups to
  // spread; a smaller one at least one per team thread, in case its kernel turns out slow
  // enough for the team.
  const std::uint64_t threads = team::Team::instance().size();
  launch::LaunchRequest merged = r;
  if (k.image->group_free && !k.hidden_ndrange && reqd[0] == 0 &&
      launch::mergeGroups(merged,
                          std::min({launch::kMergedGroupItems,
                                    std::uint64_t{q.device->limits.max_group_size}, cap}),
                          q.device->limits.max_item_sizes[0],
                          q.device->limits.max_item_sizes[1],
                          plan.team_sized ? threads * launch::kMergedGroupsPerThread
                                          : threads)) {
    launch::Plan p;
    if (launch::planLaunch(merged, q.device->limits, reqd, p, config().inline_max_items, cap,
                           false) == HK_REASON_NONE)
      plan = p;
  }
  const std::uint64_t need =
      stack.bytesFor(plan.pc.local_size[0] * plan.pc.local_size[1] * plan.pc.local_size[2]);
  plan.stack_kib =
      static_cast<std::uint32_t>(std::min<std::uint64_t>((need + 1023) >> 10, UINT32_MAX));
  return need <= room ? HK_REASON_NONE : HK_REASON_STACK;
}

[[gnu::noinline]] cl_int launchSlow(cl_command_queue queue, cl_kernel kernel, cl_uint dim,
                                    const size_t *offset, const size_t *global,
                                    const size_t *local, cl_uint nwait, const cl_event *waits,
                                    cl_event *event) {
  if (!waitListValid(nwait, waits)) return CL_INVALID_EVENT_WAIT_LIST;
  // PoCL 3.1 accepts a zero local size in dimensions 2 and 3 and then divides by it on
  // its worker thread (a zero in the first dimension it handles itself).
  if (local && dim >= 2 && dim <= 3 && global)
    for (cl_uint i = 1; i < dim; ++i)
      if (local[i] == 0) return CL_INVALID_WORK_GROUP_SIZE;
  LaunchTimes times;
  if (event) times = LaunchTimes::begin();
  Registry &reg = registry();
  cl_int err = CL_SUCCESS;
  KernelEntry *k = reg.kernelEntry(kernel, &err);
  if (!k) {
    if (err == CL_INVALID_KERNEL) return err;  // released, or not a kernel
    return launchOnQueue(nullptr, nullptr, HK_REASON_LIMITS, queue, kernel, dim, offset,
                         global, local, nwait, waits, event);
  }
  QueueEntry *q = reg.queueEntry(queue, &err);
  if (!q) {
    if (err == CL_INVALID_COMMAND_QUEUE) return err;
    return launchOnQueue(k, nullptr, HK_REASON_LIMITS, queue, kernel, dim, offset, global,
                         local, nwait, waits, event);
  }
  launch::Plan plan;  // this launch's own: another thread may re-plan the kernel meanwhile
  bool specialize = false;
  auto toQueue = [&](hk_reason why) {
    if (k->hidden_ndrange)
      return launchNativeOnQueue(*k, *q, why, queue, kernel, dim, offset, global, local,
                                 nwait, waits, event);
    return launchOnQueue(k, q, why, queue, kernel, dim, offset, global, local, nwait, waits,
                         event);
  };
  if (!q->direct) return toQueue(q->reason);
  if (dim < 1 || dim > 3 || !global) return toQueue(HK_REASON_INVALID_LAUNCH);
  if (hasIncompleteUserEvent(nwait, waits) || (nwait && !awaitWaitList(nwait, waits))) {
    q->addBlockers(nwait, waits);  // PoCL will hold this launch until they complete
    return toQueue(HK_REASON_USER_EVENT);
  }
  if (q->stillBlocked()) return toQueue(HK_REASON_USER_EVENT);
  kernel::ThreadState &ts = kernel::threadState();
  if (!ts.ready) ts.setUp(q->device->probe.printf_buffer_size);
  {
    std::lock_guard lock(k->mutex);
    k->fast.store(false, std::memory_order_relaxed);
    if (hk_reason why = prepare(*k, *q); why != HK_REASON_NONE) return toQueue(why);
    if (k->args.dirty()) {
      std::string detail;
      hk_reason why = k->args.bind(
          *k->image, [&](cl_mem m, void **out) { return reg.bufferPointer(m, *q, out); },
          detail);
      if (why != HK_REASON_NONE) {
        k->args.markDirty();
        logf(LogLevel::Info, "kernel '%s' uses PoCL's queue: %s", k->name.c_str(),
             detail.c_str());
        return toQueue(why);
      }
    }
    // A native kernel's first launch runs checked throughout; its second builds the
    // unchecked variant, so a kernel launched once is compiled once.
    if (k->hidden_ndrange && k->unchecked_state == KernelEntry::Unchecked::NotYet &&
        k->launched_before && k->device == q->device)
      prepareUnchecked(*k, q->context);
    k->launched_before = true;
    launch::LaunchRequest r = launch::LaunchRequest::from(dim, offset, global, local);
    hk_reason why = planWithinStack(*k, *q, r, launch::stackRoomForLaunch(ts.stackRoom()), plan);
    if (why == HK_REASON_STACK && k->hidden_ndrange) return toQueue(why);  // groups <= 64
    if (why == HK_REASON_STACK) {
      // PoCL runs the group on one of its own workers: it must fit there (PoCL has no
      // stack check either and would crash). Without a local size, PoCL is given the
      // largest one that fits its workers instead of choosing its own.
      launch::Plan pocl_plan;
      if (planWithinStack(*k, *q, r, launch::poclWorkerStackRoom(), pocl_plan) !=
          HK_REASON_NONE) {
        logf(LogLevel::Warn,
             "kernel '%s': a work-group of %llu work-items needs ~%u KiB of stack, more than "
             "any thread here has: CL_OUT_OF_RESOURCES",
             k->name.c_str(),
             (unsigned long long)(pocl_plan.pc.local_size[0] * pocl_plan.pc.local_size[1] *
                                  pocl_plan.pc.local_size[2]),
             pocl_plan.stack_kib);
        return CL_OUT_OF_RESOURCES;
      }
      const size_t pocl_local[3] = {pocl_plan.pc.local_size[0], pocl_plan.pc.local_size[1],
                                    pocl_plan.pc.local_size[2]};
      return launchOnQueue(k, q, HK_REASON_STACK, queue, kernel, dim, offset, global,
                           local ? local : pocl_local, nwait, waits, event);
    }
    if (why != HK_REASON_NONE) return toQueue(why);
    if (!r.sameAs(k->request.dim, k->request.offset, k->request.global,
                  k->request.has_local ? k->request.local : nullptr))
      k->grid_changed.store(true, std::memory_order_relaxed);
    k->request = r;
    for (int d = 0; d < 3; ++d) k->planned_local[d] = plan.pc.local_size[d];
    k->plans.store(r, plan);
    specialize = startSpecializing(*k, plan);
    // Until its unchecked variant is settled, a native kernel's launches come here.
    if (!k->hidden_ndrange || k->unchecked_state != KernelEntry::Unchecked::NotYet)
      k->fast.store(true, std::memory_order_release);
  }
  if (specialize)
    return specializeOnQueue(*k, *q, plan, queue, kernel, dim, offset, global, nwait, waits,
                             event);
  if (nwait) {
    // Events of PoCL's commands (or of earlier direct launches, already complete).
    if (next().clWaitForEvents(nwait, waits) != CL_SUCCESS)
      return toQueue(HK_REASON_INVALID_LAUNCH);
  }
  if (!q->idle() && (err = drainQueue(*q)) != CL_SUCCESS) return err;
  if (event) times.start = profilingClock();
  if ((err = execute(*k, plan, ts)) != CL_SUCCESS) return err;
  return event ? completeEvent(*q, event, &times) : CL_SUCCESS;
}

}  // namespace
}  // namespace hk::api

using namespace hk::api;

extern "C" cl_int hkEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel,
                                         cl_uint dim, const size_t *offset,
                                         const size_t *global, const size_t *local,
                                         cl_uint nwait, const cl_event *waits,
                                         cl_event *event) {
  if (!kernel) return CL_INVALID_KERNEL;  // PoCL 3.1 would crash
  if (!queue) return CL_INVALID_COMMAND_QUEUE;
  KernelEntry *k = g_kernels.find(kernel);
  QueueEntry *q = g_queues.find(queue);
  hk::launch::Plan plan;
  if (isEntry(k) && isEntry(q) && nwait == 0 && k->fast.load(std::memory_order_acquire) &&
      k->id == hk::pocl::objectId(kernel) && q->id == hk::pocl::objectId(queue) &&
      q->device == k->device && q->idle() && global &&
      k->plans.lookup(dim, offset, global, local, plan)) {
    hk::kernel::ThreadState &ts = hk::kernel::threadState();
    // The plan may come from a thread with a larger stack: its group must fit this one.
    if (ts.ready && plan.stack_kib <= (ts.stackRoom() >> 10)) {
      if (!event) return execute(*k, plan, ts);
      LaunchTimes times = LaunchTimes::begin();  // QUEUED; START just before the groups
      times.start = profilingClock();
      if (cl_int err = execute(*k, plan, ts); err != CL_SUCCESS) return err;
      return completeEvent(*q, event, &times);
    }
  }
  return launchSlow(queue, kernel, dim, offset, global, local, nwait, waits, event);
}

extern "C" cl_int hkEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint nwait,
                                const cl_event *waits, cl_event *event) {
  static const size_t one = 1;
  return hkEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &one, &one, nwait, waits, event);
}
