// Soak: many launches from several application threads through the hk* C API, every
// result verified, memory watched.
//
//   hk_soak [--launches N] [--threads T] [--max-rss-growth-mb M] [--quiet]
//
// Defaults: 1 000 000 launches over 4 threads. Each thread owns its kernels and buffers;
// threads 0 and 1 share one in-order queue, the others have their own. Per thread, the
// launches cycle through (out of every 32):
//   * fast path  - `inc`: same kernel, arguments and geometry as the previous launch of
//                  the same kernel: the launch path's cache (no argument or plan work);
//   * slow path  - `fill`: a new scalar argument and one of several geometries (1D/2D/3D,
//                  with or without a local size, with a global offset) every launch;
//   * local mem  - `group_sum`: a __local argument whose size changes with the local size;
//   * large      - `big`: 16 Ki..28 Ki work-items (> 8192: the team's size once the team
//                  is integrated; inline before that);
//   * queue      - `img`: an image argument, which the direct path cannot express, so the
//                  launch goes to PoCL's queue (HK_REASON_ARG_KIND), then a blocking read;
//   * and every 256th launch of a thread reads the `inc` buffer back through
//     hkEnqueueReadBuffer (a command, which the next launch must order after).
// The buffers are CL_MEM_USE_HOST_PTR (on PoCL's CPU device the host memory is the device
// memory), so results are checked in host memory after hkFinish: free when the launch ran
// on the calling thread, a wait when it ran in the background (docs/background.md).
//
// At the start, after the warm-up (first 1/16 of the run) and at the end, VmRSS and VmHWM
// from /proc/self/status are printed; with --max-rss-growth-mb the run fails if VmRSS grew
// by more than that between the warm-up and the end (a leak per launch would show here).
// Exit status 0 only if every launch returned CL_SUCCESS and every result was right.
#include <hostkernel/hostkernel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/group_sum_kernel.hpp"

namespace {

const char *kSource = R"CLC(
kernel void inc(global int *buf) { buf[get_global_id(0)] += 1; }

kernel void fill(global int *out, int seed) {
  size_t w = get_global_size(0), h = get_global_size(1);
  size_t x = get_global_id(0) - get_global_offset(0);
  size_t y = get_global_id(1) - get_global_offset(1);
  size_t z = get_global_id(2) - get_global_offset(2);
  size_t i = (z * h + y) * w + x;
  out[i] = seed * 31 + (int)i + (int)get_global_offset(0) * 7;
}

kernel void big(global uint *out, uint seed) {
  size_t i = get_global_id(0);
  out[i] = (uint)i * 2654435761u ^ seed;
}

constant sampler_t kSampler =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
kernel void img(read_only image2d_t im, global int *out, int seed) {
  int x = (int)get_global_id(0), y = (int)get_global_id(1);
  int4 p = read_imagei(im, kSampler, (int2)(x, y));
  out[y * (int)get_global_size(0) + x] = p.x + p.y + seed;
}
)CLC";

constexpr size_t kIncElems = 256;
constexpr size_t kFillElems = 4096;
constexpr size_t kSumElems = 1024;
constexpr size_t kBigMax = 28 * 1024;
constexpr size_t kImgW = 16, kImgH = 8;

struct Memory {
  long rss_kb = -1, hwm_kb = -1;
};

Memory readMemory() {
  Memory m;
  FILE *f = std::fopen("/proc/self/status", "r");
  if (!f) return m;
  char line[256];
  while (std::fgets(line, sizeof line, f)) {
    if (!std::strncmp(line, "VmRSS:", 6)) m.rss_kb = std::atol(line + 6);
    if (!std::strncmp(line, "VmHWM:", 6)) m.hwm_kb = std::atol(line + 6);
  }
  std::fclose(f);
  return m;
}

void printMemory(const char *when, const Memory &m) {
  std::printf("memory %-8s VmRSS %8ld kB  VmHWM %8ld kB\n", when, m.rss_kb, m.hwm_kb);
  std::fflush(stdout);
}

// Host memory of USE_HOST_PTR buffers: aligned as PoCL prefers (no copy).
struct HostBlock {
  explicit HostBlock(size_t bytes)
      : p(static_cast<int *>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096))) {}
  ~HostBlock() { std::free(p); }
  int *p;
};

struct Shared {
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_program program = nullptr;
  cl_mem image = nullptr;
  std::vector<int> image_pixels;  // RGBA int32, kImgW x kImgH
  std::atomic<int> ready{0};
  std::atomic<long> warm{0};  // threads past their warm-up
};

class Worker {
 public:
  Worker(Shared &s, int id, cl_command_queue queue, long launches)
      : s_(s), id_(id), q_(queue), launches_(launches), inc_host_(kIncElems * 4),
        fill_host_(kFillElems * 4), sum_in_host_(kSumElems * 4), sum_out_host_(kSumElems * 4),
        big_host_(kBigMax * 4), img_host_(kImgW * kImgH * 4) {}

  void run(int num_threads) {
    if (!setUp()) return;
    s_.ready.fetch_add(1);
    while (s_.ready.load() < num_threads) std::this_thread::yield();
    const long warm_after = launches_ / 16;
    for (long it = 0; it < launches_ && failure_.empty(); ++it) {
      if (it == warm_after) s_.warm.fetch_add(1);
      switch (it % 32) {
        case 0: queueLaunch(it); break;
        case 16: bigLaunch(it); break;
        case 4: case 12: case 20: case 28: groupSum(it); break;
        case 2: case 6: case 10: case 14: case 18: case 22: case 26: case 30:
          fillLaunch(it);
          break;
        default: incLaunch(it); break;
      }
      ++done_;
      if (it % 256 == 255) readBackInc(it);
    }
    if (launches_ <= warm_after) s_.warm.fetch_add(1);
  }

  void release() {
    for (cl_kernel k : {inc_, fill_, sum_, big_, img_})
      if (k) hkReleaseKernel(k);
    for (cl_mem m : {inc_buf_, fill_buf_, sum_in_, sum_out_, big_buf_, img_out_})
      if (m) hkReleaseMemObject(m);
  }

  void addCounts(hk_launch_counts &total) const {
    for (cl_kernel k : {inc_, fill_, sum_, big_, img_}) {
      hk_launch_counts c{};
      if (!k || hkGetKernelLaunchCounts(k, &c) != CL_SUCCESS) continue;
      for (int p = 0; p < 3; ++p) total.by_path[p] += c.by_path[p];
      for (int r = 0; r < HK_REASON_COUNT; ++r) total.by_reason[r] += c.by_reason[r];
    }
  }

  const std::string &failure() const { return failure_; }
  long done() const { return done_; }
  long verified() const { return verified_; }

 private:
  bool fail(const std::string &what) {
    if (failure_.empty()) failure_ = "thread " + std::to_string(id_) + ": " + what;
    return false;
  }
  bool ok(cl_int err, const char *what, long it) {
    if (err == CL_SUCCESS) return true;
    return fail(std::string(what) + " returned " + std::to_string(err) + " at launch " +
                std::to_string(it));
  }
  bool check(long it, const char *kernel, size_t i, long got, long want) {
    if (got == want) return true;
    return fail(std::string(kernel) + " launch " + std::to_string(it) + " element " +
                std::to_string(i) + ": got " + std::to_string(got) + ", want " +
                std::to_string(want));
  }

  cl_mem hostBuffer(HostBlock &b, size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = hkCreateBuffer(s_.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, b.p, &err);
    if (err != CL_SUCCESS) fail("hkCreateBuffer returned " + std::to_string(err));
    return m;
  }
  cl_kernel kernel(const char *name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = hkCreateKernel(s_.program, name, &err);
    if (err != CL_SUCCESS) fail(std::string("hkCreateKernel ") + name + ": " + std::to_string(err));
    return k;
  }
  bool arg(cl_kernel k, cl_uint i, size_t size, const void *v) {
    cl_int err = hkSetKernelArg(k, i, size, v);
    if (err != CL_SUCCESS)
      return fail("hkSetKernelArg " + std::to_string(i) + ": " + std::to_string(err));
    return true;
  }

  bool setUp() {
    std::memset(inc_host_.p, 0, kIncElems * 4);
    for (size_t i = 0; i < kSumElems; ++i) sum_in_host_.p[i] = int((i * 37 + id_) % 201) - 100;
    inc_buf_ = hostBuffer(inc_host_, kIncElems * 4);
    fill_buf_ = hostBuffer(fill_host_, kFillElems * 4);
    sum_in_ = hostBuffer(sum_in_host_, kSumElems * 4);
    sum_out_ = hostBuffer(sum_out_host_, kSumElems * 4);
    big_buf_ = hostBuffer(big_host_, kBigMax * 4);
    img_out_ = hostBuffer(img_host_, kImgW * kImgH * 4);
    inc_ = kernel("inc");
    fill_ = kernel("fill");
    sum_ = kernel("group_sum");
    big_ = kernel("big");
    img_ = kernel("img");
    if (!failure_.empty()) return false;
    return arg(inc_, 0, sizeof(cl_mem), &inc_buf_) && arg(fill_, 0, sizeof(cl_mem), &fill_buf_) &&
           arg(sum_, 0, sizeof(cl_mem), &sum_in_) && arg(sum_, 1, sizeof(cl_mem), &sum_out_) &&
           arg(big_, 0, sizeof(cl_mem), &big_buf_) && arg(img_, 0, sizeof(cl_mem), &s_.image) &&
           arg(img_, 1, sizeof(cl_mem), &img_out_);
  }

  void incLaunch(long it) {
    const size_t g = kIncElems, l = 64;
    if (!ok(hkEnqueueNDRangeKernel(q_, inc_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            "hkEnqueueNDRangeKernel(inc)", it))
      return;
    if (!ok(hkFinish(q_), "hkFinish(inc)", it)) return;
    ++inc_count_;
    for (size_t i = 0; i < g; ++i)
      if (!check(it, "inc", i, inc_host_.p[i], inc_count_)) return;
    ++verified_;
  }

  void readBackInc(long it) {
    std::vector<int> host(kIncElems, -1);
    if (!ok(hkEnqueueReadBuffer(q_, inc_buf_, CL_TRUE, 0, kIncElems * 4, host.data(), 0,
                                nullptr, nullptr),
            "hkEnqueueReadBuffer(inc)", it))
      return;
    for (size_t i = 0; i < kIncElems; ++i)
      if (!check(it, "inc read back", i, host[i], inc_count_)) return;
  }

  void fillLaunch(long it) {
    struct Geometry {
      cl_uint dim;
      size_t g[3], l[3];
      bool local, offset;
    };
    static const Geometry kGeometries[] = {
        {1, {64, 1, 1}, {8, 1, 1}, true, false},
        {1, {100, 1, 1}, {1, 1, 1}, false, false},   // PoCL's default local size
        {1, {4096, 1, 1}, {256, 1, 1}, true, true},
        {2, {32, 16, 1}, {8, 4, 1}, true, false},
        {2, {30, 7, 1}, {1, 1, 1}, false, true},
        {3, {8, 8, 4}, {4, 2, 2}, true, false},
        {1, {1, 1, 1}, {1, 1, 1}, true, false},
    };
    const Geometry &geo = kGeometries[(it / 2 + id_) % (sizeof kGeometries / sizeof *kGeometries)];
    const int seed = int(it % 100003) - 50000;
    if (!arg(fill_, 1, sizeof seed, &seed)) return;
    const size_t off[3] = {geo.offset ? size_t(3 + it % 5) : 0, geo.offset ? 2u : 0u, 0};
    const size_t n = geo.g[0] * geo.g[1] * geo.g[2];
    std::fill(fill_host_.p, fill_host_.p + n, 0x7fffffff);
    if (!ok(hkEnqueueNDRangeKernel(q_, fill_, geo.dim, geo.offset ? off : nullptr, geo.g,
                                   geo.local ? geo.l : nullptr, 0, nullptr, nullptr),
            "hkEnqueueNDRangeKernel(fill)", it))
      return;
    if (!ok(hkFinish(q_), "hkFinish(fill)", it)) return;
    for (size_t i = 0; i < n; ++i)
      if (!check(it, "fill", i, fill_host_.p[i], seed * 31 + int(i) + int(off[0]) * 7)) return;
    ++verified_;
  }

  void groupSum(long it) {
    static const size_t kLocal[] = {16, 32, 64, 128};
    const size_t l = kLocal[(it / 4) % 4], g = kSumElems;
    const int add = int(it % 17);
    if (!arg(sum_, 2, l * sizeof(int), nullptr) || !arg(sum_, 3, sizeof add, &add)) return;
    if (!ok(hkEnqueueNDRangeKernel(q_, sum_, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            "hkEnqueueNDRangeKernel(group_sum)", it))
      return;
    if (!ok(hkFinish(q_), "hkFinish(group_sum)", it)) return;
    for (size_t grp = 0; grp < g / l; ++grp) {
      long want = 0;
      for (size_t j = 0; j < l; ++j) want += sum_in_host_.p[grp * l + j] + add;
      if (!check(it, "group_sum", grp, sum_out_host_.p[grp], want)) return;
    }
    ++verified_;
  }

  void bigLaunch(long it) {
    const size_t g = 16 * 1024 + 4096 * size_t((it / 32) % 4);  // 16..28 Ki work-items
    const size_t l = 64;
    const cl_uint seed = cl_uint(it * 2246822519u);
    if (!arg(big_, 1, sizeof seed, &seed)) return;
    const bool with_local = (it / 32) % 2 == 0;
    if (!ok(hkEnqueueNDRangeKernel(q_, big_, 1, nullptr, &g, with_local ? &l : nullptr, 0,
                                   nullptr, nullptr),
            "hkEnqueueNDRangeKernel(big)", it))
      return;
    if (!ok(hkFinish(q_), "hkFinish(big)", it)) return;
    const auto *out = reinterpret_cast<const cl_uint *>(big_host_.p);
    for (size_t i = 0; i < g; ++i)
      if (!check(it, "big", i, out[i], cl_uint(cl_uint(i) * 2654435761u ^ seed))) return;
    ++verified_;
  }

  void queueLaunch(long it) {
    const size_t g[2] = {kImgW, kImgH};
    const int seed = int(it % 1000);
    if (!arg(img_, 2, sizeof seed, &seed)) return;
    if (!ok(hkEnqueueNDRangeKernel(q_, img_, 2, nullptr, g, nullptr, 0, nullptr, nullptr),
            "hkEnqueueNDRangeKernel(img)", it))
      return;
    std::vector<int> host(kImgW * kImgH, -1);
    if (!ok(hkEnqueueReadBuffer(q_, img_out_, CL_TRUE, 0, host.size() * 4, host.data(), 0,
                                nullptr, nullptr),
            "hkEnqueueReadBuffer(img)", it))
      return;
    for (size_t i = 0; i < host.size(); ++i)
      if (!check(it, "img", i, host[i],
                 s_.image_pixels[4 * i] + s_.image_pixels[4 * i + 1] + seed))
        return;
    ++verified_;
  }

  Shared &s_;
  const int id_;
  const cl_command_queue q_;
  const long launches_;
  HostBlock inc_host_, fill_host_, sum_in_host_, sum_out_host_, big_host_, img_host_;
  cl_mem inc_buf_ = nullptr, fill_buf_ = nullptr, sum_in_ = nullptr, sum_out_ = nullptr,
         big_buf_ = nullptr, img_out_ = nullptr;
  cl_kernel inc_ = nullptr, fill_ = nullptr, sum_ = nullptr, big_ = nullptr, img_ = nullptr;
  int inc_count_ = 0;
  long done_ = 0, verified_ = 0;
  std::string failure_;
};

int usage(const char *argv0) {
  std::fprintf(stderr,
               "usage: %s [--launches N] [--threads T] [--max-rss-growth-mb M]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  long launches = 1000000;
  int threads = 4;
  long max_growth_mb = -1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--launches" && i + 1 < argc) launches = std::atol(argv[++i]);
    else if (a == "--threads" && i + 1 < argc) threads = std::atoi(argv[++i]);
    else if (a == "--max-rss-growth-mb" && i + 1 < argc) max_growth_mb = std::atol(argv[++i]);
    else return usage(argv[0]);
  }
  if (launches < 1 || threads < 1 || threads > 64) return usage(argv[0]);

  const Memory at_start = readMemory();
  printMemory("start", at_start);

  Shared s;
  cl_platform_id platform = nullptr;
  cl_int err = CL_SUCCESS;
  if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &s.device, nullptr) != CL_SUCCESS) {
    std::fprintf(stderr, "soak: no OpenCL CPU device\n");
    return 1;
  }
  s.ctx = clCreateContext(nullptr, 1, &s.device, nullptr, nullptr, &err);
  const char *sources[] = {kSource, kGroupSumSource};
  s.program = hkCreateProgramWithSource(s.ctx, 2, sources, nullptr, &err);
  if (err != CL_SUCCESS ||
      hkBuildProgram(s.program, 1, &s.device, "", nullptr, nullptr) != CL_SUCCESS) {
    std::fprintf(stderr, "soak: building the program failed\n");
    return 1;
  }
  s.image_pixels.resize(kImgW * kImgH * 4);
  for (size_t i = 0; i < s.image_pixels.size(); ++i) s.image_pixels[i] = int(i * 7 % 1009);
  const cl_image_format fmt = {CL_RGBA, CL_SIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = kImgW;
  desc.image_height = kImgH;
  s.image = clCreateImage(s.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, &desc,
                          s.image_pixels.data(), &err);
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "soak: clCreateImage returned %d\n", err);
    return 1;
  }

  // Queues: threads 0 and 1 share one; every other thread has its own.
  std::vector<cl_command_queue> queues;
  std::vector<cl_command_queue> queue_of(threads);
  for (int t = 0; t < threads; ++t) {
    if (t == 1) {
      queue_of[t] = queue_of[0];
      continue;
    }
    queue_of[t] = hkCreateCommandQueueWithProperties(s.ctx, s.device, nullptr, &err);
    if (err != CL_SUCCESS) {
      std::fprintf(stderr, "soak: creating a queue returned %d\n", err);
      return 1;
    }
    queues.push_back(queue_of[t]);
  }

  std::printf("soak: %ld launches over %d threads\n", launches, threads);
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < threads; ++t)
    workers.push_back(std::make_unique<Worker>(
        s, t, queue_of[t], launches / threads + (t < launches % threads ? 1 : 0)));

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (auto &w : workers) pool.emplace_back([&w, threads] { w->run(threads); });
  Memory after_warmup;
  bool warm_reported = false;
  std::thread monitor;
  std::atomic<bool> stop{false};
  monitor = std::thread([&] {
    while (!stop.load()) {
      if (!warm_reported && s.warm.load() >= threads) {
        after_warmup = readMemory();
        printMemory("warm", after_warmup);
        warm_reported = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  for (auto &t : pool) t.join();
  stop.store(true);
  monitor.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  for (cl_command_queue q : queues) hkFinish(q);
  long done = 0, verified = 0;
  hk_launch_counts total{};
  int failures = 0;
  for (auto &w : workers) {
    done += w->done();
    verified += w->verified();
    w->addCounts(total);
    if (!w->failure().empty()) {
      std::fprintf(stderr, "soak FAILED: %s\n", w->failure().c_str());
      ++failures;
    }
  }
  const Memory at_end = readMemory();
  if (!warm_reported) after_warmup = at_end;
  printMemory("end", at_end);

  std::printf("soak: %ld launches in %.1f s (%.0f launches/s), %ld verified\n", done, seconds,
              done / seconds, verified);
  std::printf("soak: paths inline %llu team %llu queue %llu",
              (unsigned long long)total.by_path[HK_PATH_INLINE],
              (unsigned long long)total.by_path[HK_PATH_TEAM],
              (unsigned long long)total.by_path[HK_PATH_QUEUE]);
  for (int r = 1; r < HK_REASON_COUNT; ++r)
    if (total.by_reason[r])
      std::printf("  [%s] %llu", hkReasonString(static_cast<hk_reason>(r)),
                  (unsigned long long)total.by_reason[r]);
  std::printf("\n");
  const long growth_kb = at_end.rss_kb - after_warmup.rss_kb;
  std::printf("soak: VmRSS growth after warm-up %ld kB, peak VmHWM %ld kB\n", growth_kb,
              at_end.hwm_kb);

  // Every launch must be accounted for by hostkernel: the queue launches are the image
  // ones and, with the production defaults, the compiles hostkernel leaves to PoCL's queue
  // once per program or kernel (a first launch, docs/first-launch.md; a specialized
  // variant, docs/specialized.md). Those are a bounded number, never a share of the run.
  const unsigned long long counted =
      total.by_path[HK_PATH_INLINE] + total.by_path[HK_PATH_TEAM] + total.by_path[HK_PATH_QUEUE];
  if (failures == 0 && counted != static_cast<unsigned long long>(done)) {
    std::fprintf(stderr, "soak FAILED: hostkernel counted %llu launches, %ld were made\n",
                 counted, done);
    ++failures;
  }
  const unsigned long long compiles =
      total.by_reason[HK_REASON_FIRST_LAUNCH] + total.by_reason[HK_REASON_SPECIALIZE];
  if (failures == 0 &&
      total.by_path[HK_PATH_QUEUE] != total.by_reason[HK_REASON_ARG_KIND] + compiles) {
    std::fprintf(stderr, "soak FAILED: queue launches for reasons other than image arguments "
                         "and compiles\n");
    ++failures;
  }
  const unsigned long long max_compiles = 16ull * static_cast<unsigned>(threads);
  if (failures == 0 && compiles > max_compiles) {
    std::fprintf(stderr, "soak FAILED: %llu launches went to PoCL's queue to compile (at most "
                         "%llu: once per kernel and geometry)\n", compiles, max_compiles);
    ++failures;
  }
  if (max_growth_mb >= 0 && growth_kb > max_growth_mb * 1024) {
    std::fprintf(stderr, "soak FAILED: VmRSS grew by %ld kB after the warm-up (limit %ld MB)\n",
                 growth_kb, max_growth_mb);
    ++failures;
  }

  for (auto &w : workers) w->release();
  for (cl_command_queue q : queues) hkReleaseCommandQueue(q);
  clReleaseMemObject(s.image);
  hkReleaseProgram(s.program);
  clReleaseContext(s.ctx);
  std::printf("soak: %s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}
