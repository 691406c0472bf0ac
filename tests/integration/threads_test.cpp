// Application threads launching concurrently through the hk* C API.
//
// Four threads, each with its own kernel, launch thousands of times and check every
// launch's result. Three of the kernels use local memory (a __local argument, two __local
// arguments, an automatic local array) with barriers and change their local size from
// launch to launch: if two threads shared a local-memory arena, argument array or context
// block, their reductions and transposes would corrupt each other. Every launch must run
// directly, and most inline (the grids are small and the threads are application threads,
// not team threads).
//
// The threads start together on a freshly built program, so the kernels' first launches
// (when hostkernel loads the work-group functions) race as well.
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/group_sum_kernel.hpp"
#include "support/launch_counts.hpp"
#include "support/pocl_device.hpp"

namespace {

const char *kSource = R"CLC(
kernel void saxpy_int(int a, global const int *x, global const int *y, global int *out) {
  size_t i = get_global_id(0);
  out[i] = a * x[i] + y[i];
}

kernel void group_reverse(global const int *in, global int *out, int mul) {
  local int tile[128];
  size_t l = get_local_id(0), n = get_local_size(0);
  tile[l] = in[get_global_id(0)] * mul;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[n - 1 - l];
}

kernel void tile_transpose(global const int *in, global int *out, local int *a,
                           local int *b, int add) {
  size_t lx = get_local_id(0), ly = get_local_id(1), n = get_local_size(0);
  size_t gx = get_global_id(0), gy = get_global_id(1), w = get_global_size(0);
  a[ly * n + lx] = in[gy * w + gx] + add;
  barrier(CLK_LOCAL_MEM_FENCE);
  b[lx * n + ly] = a[ly * n + lx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[gy * w + gx] = b[ly * n + lx];
}
)CLC";

constexpr size_t kElems = 1024;

struct Env {
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_program program = nullptr;
};

// One thread's work: its kernel, buffers and queue; Run() launches `launches` times and
// returns the first failure ("" if none) and the kernel's launch counts.
class Worker {
 public:
  Worker(const Env &env, int id, cl_command_queue shared_queue, int launches)
      : env_(env), id_(id), shared_queue_(shared_queue), launches_(launches) {}

  void Run(std::atomic<int> &ready, int num_workers) {
    cl_int err = CL_SUCCESS;
    q_ = shared_queue_ ? shared_queue_
                       : clCreateCommandQueueWithProperties(env_.ctx, env_.device, nullptr,
                                                            &err);
    if (err != CL_SUCCESS) return Fail("create queue: " + std::to_string(err));
    static const char *kNames[4] = {"saxpy_int", "group_sum", "group_reverse",
                                    "tile_transpose"};
    in_.resize(kElems);
    in2_.resize(kElems);
    for (size_t i = 0; i < kElems; ++i) {
      in_[i] = int(i * 7 + id_) % 1001 - 500;
      in2_[i] = int(i * 13) % 97;
    }
    bin_ = hkCreateBuffer(env_.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          kElems * sizeof(int), in_.data(), &err);
    if (err != CL_SUCCESS) return Fail("create buffer: " + std::to_string(err));
    bin2_ = hkCreateBuffer(env_.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           kElems * sizeof(int), in2_.data(), &err);
    bout_ = hkCreateBuffer(env_.ctx, CL_MEM_READ_WRITE, kElems * sizeof(int), nullptr, &err);
    if (err != CL_SUCCESS) return Fail("create buffer: " + std::to_string(err));
    // All threads create their kernel and make their first launch at the same moment.
    ready.fetch_add(1);
    while (ready.load() < num_workers) std::this_thread::yield();
    kernel_ = hkCreateKernel(env_.program, kNames[id_ % 4], &err);
    if (err != CL_SUCCESS) return Fail("create kernel: " + std::to_string(err));
    for (int it = 0; it < launches_ && failure_.empty(); ++it) {
      switch (id_ % 4) {
        case 0: Saxpy(it); break;
        case 1: GroupSum(it); break;
        case 2: GroupReverse(it); break;
        case 3: TileTranspose(it); break;
      }
    }
    if (hkGetKernelLaunchCounts(kernel_, &counts_) != CL_SUCCESS)
      Fail("hkGetKernelLaunchCounts failed");
  }

  void Release() {
    if (q_ && q_ != shared_queue_) {
      hkFinish(q_);
      hkReleaseCommandQueue(q_);
    }
    for (cl_mem m : {bin_, bin2_, bout_})
      if (m) hkReleaseMemObject(m);
    if (kernel_) hkReleaseKernel(kernel_);
  }

  const std::string &failure() const { return failure_; }
  const hk_launch_counts &counts() const { return counts_; }
  int launches() const { return launches_; }
  int id() const { return id_; }

 private:
  void Fail(const std::string &what) {
    if (failure_.empty()) failure_ = "thread " + std::to_string(id_) + ": " + what;
  }

  bool SetArg(cl_uint i, size_t size, const void *value) {
    cl_int err = hkSetKernelArg(kernel_, i, size, value);
    if (err != CL_SUCCESS) Fail("hkSetKernelArg " + std::to_string(i) + ": " + std::to_string(err));
    return err == CL_SUCCESS;
  }

  bool LaunchAndRead(cl_uint dim, const size_t *g, const size_t *l, size_t out_elems,
                     std::vector<int> &out) {
    cl_int err = hkEnqueueNDRangeKernel(q_, kernel_, dim, nullptr, g, l, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) {
      Fail("hkEnqueueNDRangeKernel: " + std::to_string(err));
      return false;
    }
    out.assign(out_elems, -123456);
    err = hkEnqueueReadBuffer(q_, bout_, CL_TRUE, 0, out_elems * sizeof(int), out.data(), 0,
                              nullptr, nullptr);
    if (err != CL_SUCCESS) {
      Fail("hkEnqueueReadBuffer: " + std::to_string(err));
      return false;
    }
    return true;
  }

  void Check(int it, size_t i, int got, int want) {
    if (got != want)
      Fail("launch " + std::to_string(it) + " element " + std::to_string(i) + ": got " +
           std::to_string(got) + ", want " + std::to_string(want));
  }

  void Saxpy(int it) {
    int a = it - 17;
    const size_t g = 256 << (it % 3), l = 64;  // 256, 512, 1024
    if (!SetArg(0, sizeof a, &a) || !SetArg(1, sizeof(cl_mem), &bin_) ||
        !SetArg(2, sizeof(cl_mem), &bin2_) || !SetArg(3, sizeof(cl_mem), &bout_))
      return;
    std::vector<int> out;
    if (!LaunchAndRead(1, &g, &l, g, out)) return;
    for (size_t i = 0; i < g && failure_.empty(); ++i)
      Check(it, i, out[i], a * in_[i] + in2_[i]);
  }

  void GroupSum(int it) {
    static const size_t kLocal[3] = {16, 64, 256};
    const size_t l = kLocal[it % 3], g = kElems;
    int add = it % 50;
    if (!SetArg(0, sizeof(cl_mem), &bin_) || !SetArg(1, sizeof(cl_mem), &bout_) ||
        !SetArg(2, l * sizeof(int), nullptr) || !SetArg(3, sizeof add, &add))
      return;
    std::vector<int> out;
    if (!LaunchAndRead(1, &g, &l, g / l, out)) return;
    for (size_t grp = 0; grp < g / l && failure_.empty(); ++grp) {
      int want = 0;
      for (size_t j = 0; j < l; ++j) want += in_[grp * l + j] + add;
      Check(it, grp, out[grp], want);
    }
  }

  void GroupReverse(int it) {
    static const size_t kLocal[3] = {32, 128, 64};
    const size_t l = kLocal[it % 3], g = kElems;
    int mul = it % 9 - 4;
    if (!SetArg(0, sizeof(cl_mem), &bin_) || !SetArg(1, sizeof(cl_mem), &bout_) ||
        !SetArg(2, sizeof mul, &mul))
      return;
    std::vector<int> out;
    if (!LaunchAndRead(1, &g, &l, g, out)) return;
    for (size_t i = 0; i < g && failure_.empty(); ++i)
      Check(it, i, out[i], in_[(i / l) * l + (l - 1 - i % l)] * mul);
  }

  void TileTranspose(int it) {
    static const size_t kTile[2] = {8, 16};
    const size_t n = kTile[it % 2], w = 32;
    const size_t g[2] = {w, kElems / w}, l[2] = {n, n};
    int add = it;
    if (!SetArg(0, sizeof(cl_mem), &bin_) || !SetArg(1, sizeof(cl_mem), &bout_) ||
        !SetArg(2, n * n * sizeof(int), nullptr) || !SetArg(3, n * n * sizeof(int), nullptr) ||
        !SetArg(4, sizeof add, &add))
      return;
    std::vector<int> out;
    if (!LaunchAndRead(2, g, l, kElems, out)) return;
    for (size_t gy = 0; gy < g[1] && failure_.empty(); ++gy)
      for (size_t gx = 0; gx < w && failure_.empty(); ++gx) {
        const size_t x0 = gx / n * n, y0 = gy / n * n, lx = gx % n, ly = gy % n;
        Check(it, gy * w + gx, out[gy * w + gx], in_[(y0 + lx) * w + (x0 + ly)] + add);
      }
  }

  const Env &env_;
  const int id_;
  const cl_command_queue shared_queue_;
  const int launches_;
  cl_command_queue q_ = nullptr;
  cl_kernel kernel_ = nullptr;
  cl_mem bin_ = nullptr, bin2_ = nullptr, bout_ = nullptr;
  std::vector<int> in_, in2_;
  std::string failure_;
  hk_launch_counts counts_{};
};

class Threads : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(FindPoclDevice(nullptr, &env_.device));
    cl_int err = CL_SUCCESS;
    env_.ctx = clCreateContext(nullptr, 1, &env_.device, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const char *sources[] = {kSource, kGroupSumSource};
    env_.program = clCreateProgramWithSource(env_.ctx, 2, sources, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(clBuildProgram(env_.program, 1, &env_.device, "", nullptr, nullptr), CL_SUCCESS);
  }
  void TearDown() override {
    if (env_.program) hkReleaseProgram(env_.program);
    if (env_.ctx) hkReleaseContext(env_.ctx);
  }

  void RunWorkers(int num_workers, int launches, cl_command_queue shared_queue) {
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < num_workers; ++i)
      workers.push_back(std::make_unique<Worker>(env_, i, shared_queue, launches));
    std::atomic<int> ready{0};
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (auto &w : workers)
      threads.emplace_back([&ready, &w, num_workers] { w->Run(ready, num_workers); });
    for (auto &t : threads) t.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    printf("%d threads x %d launches in %.2f s\n", num_workers, launches, seconds);
    for (auto &w : workers) {
      EXPECT_EQ(w->failure(), "");
      const hk_launch_counts &c = w->counts();
      if (w->failure().empty()) {
        // Every launch ran directly (never PoCL's queue). How many of them ran inline
        // depends on timing (the sampler), so it is printed, not asserted.
        EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 0u) << "thread " << w->id() << ": " << Describe(c);
        EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], cl_ulong(w->launches()))
            << "thread " << w->id() << ": " << Describe(c);
        printf("thread %d: %s\n", int(w->id()), Describe(c).c_str());
      }
      w->Release();
    }
  }

  Env env_;
};

TEST_F(Threads, FourThreadsWithOwnKernelsAndQueuesRunDirectlyAndCorrectly) {
  RunWorkers(4, 3000, nullptr);
}

// Command queues are thread-safe in OpenCL: the same four workers sharing one in-order
// queue (hostkernel's per-queue ordering state is then updated from four threads).
TEST_F(Threads, FourThreadsSharingOneQueueRunDirectlyAndCorrectly) {
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueueWithProperties(env_.ctx, env_.device, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  RunWorkers(4, 1000, q);
  hkFinish(q);
  hkReleaseCommandQueue(q);
}

}  // namespace
