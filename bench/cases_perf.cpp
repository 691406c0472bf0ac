// Throughput cases (category "performance"): kernels with enough work that how the
// work-groups run — inline, on the team, or on PoCL's threads — matters more than the
// launch itself. Every case has a "native" path: the same work as a plain C++ loop,
// `#pragma omp parallel for schedule(static)` where it is parallel.
#include "case_util.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

namespace hkbench {
namespace {

// ---- indexing: the same 3-D update on a 1-D grid (div/mod) and on a 3-D grid ---------
constexpr cl_uint kNx = 64, kNy = 64, kNz = 64;
constexpr std::size_t kCells = std::size_t{kNx} * kNy * kNz;

KernelLaunch indexLaunch(const char *kernel) {
  KernelLaunch k;
  k.file = "index_forms_3d.cl";
  k.kernel = kernel;
  k.args = {LaunchArg::generated<int>(kCells, smallIntegers<int>(11, 1000, kCells)),
            LaunchArg::generated<int>(kCells, constantFill<int>(-1, kCells))};
  k.outputArg = 1;
  k.outputType = ElemType::I32;
  return k;
}

const Register kLinear3d{[] {
  KernelLaunch k = indexLaunch("index_linear3d");
  k.args.push_back(LaunchArg::scalar(kNx));
  k.args.push_back(LaunchArg::scalar(kNy));
  k.global = {kCells, 1, 1};
  k.local = {256, 1, 1};
  k.native = [](NativeArgs &a) {
    const int *in = a.buf<int>(0);
    int *out = a.buf<int>(1);
    const cl_uint nx = a.scalar<cl_uint>(2), ny = a.scalar<cl_uint>(3);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(kCells); ++i) {
      const std::size_t u = static_cast<std::size_t>(i);
      const cl_uint x = static_cast<cl_uint>(u % nx);
      const cl_uint y = static_cast<cl_uint>((u / nx) % ny);
      const cl_uint z = static_cast<cl_uint>(u / (std::size_t{nx} * ny));
      out[i] = in[i] * 2 + static_cast<int>(x * 3 + y * 5 + z * 7);
    }
  };
  return launchCase("indexing/linear3d", "performance",
                    "out = 2*in + 3x+5y+7z on 64^3 ints, 1-D grid of 262144 (local 256), x/y/z "
                    "by division and remainder by runtime sizes",
                    k);
}()};

const Register kCartesian3d{[] {
  KernelLaunch k = indexLaunch("index_cartesian3d");
  k.workDim = 3;
  k.global = {kNx, kNy, kNz};
  k.local = {64, 4, 1};
  k.native = [](NativeArgs &a) {
    const int *in = a.buf<int>(0);
    int *out = a.buf<int>(1);
#pragma omp parallel for schedule(static)
    for (long z = 0; z < static_cast<long>(kNz); ++z)
      for (std::size_t y = 0; y < kNy; ++y)
        for (std::size_t x = 0; x < kNx; ++x) {
          const std::size_t i = (static_cast<std::size_t>(z) * kNy + y) * kNx + x;
          out[i] = in[i] * 2 + static_cast<int>(x * 3 + y * 5 + static_cast<std::size_t>(z) * 7);
        }
  };
  return launchCase("indexing/cartesian3d", "performance",
                    "out = 2*in + 3x+5y+7z on 64^3 ints, 3-D grid 64x64x64 (local 64x4x1), x/y/z "
                    "from get_global_id",
                    k);
}()};

// ---- stream: copy and triad, in cache and from DRAM ----------------------------------
// cache: 32K floats = 128 KiB per array (fits the 512 KiB L2 with 2-3 arrays);
// dram: 16M floats = 64 MiB per array (2x the 32 MiB L3).
constexpr std::size_t kCacheN = std::size_t{1} << 15;
constexpr std::size_t kDramN = std::size_t{1} << 24;

Case streamCopy(const char *name, std::size_t n, const char *sizeText) {
  KernelLaunch k = gridLaunch(
      "stream.cl", "stream_copy",
      {LaunchArg::generated<float>(n, smallIntegers<float>(21, 1 << 20, n)),
       LaunchArg::generated<float>(n, constantFill<float>(-1.0f, n))},
      n, 256, 1, ElemType::F32, 1);
  k.native = [n](NativeArgs &a) {
    const float *src = a.buf<float>(0);
    float *dst = a.buf<float>(1);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) dst[i] = src[i];
  };
  return launchCase(name, "performance",
                    std::string("stream_copy: c = a on ") + sizeText + ", local 256; one op = launch + finish", k);
}

// The triad's arguments (out, b, c, s) for n items. Small integers and s = 3: b + s*c is
// exact, fused or not.
std::vector<LaunchArg> triadArgs(std::size_t n) {
  return {LaunchArg::generated<float>(n, constantFill<float>(-1.0f, n)),
          LaunchArg::generated<float>(n, smallIntegers<float>(22, 1 << 16, n)),
          LaunchArg::generated<float>(n, smallIntegers<float>(23, 1 << 16, n)),
          LaunchArg::scalar(3.0f)};
}

// The triad's native path: out = b + s*c over n items, arguments as triadArgs(n).
std::function<void(NativeArgs &)> triadNative(std::size_t n) {
  return [n](NativeArgs &a) {
    float *out = a.buf<float>(0);
    const float *b = a.buf<float>(1);
    const float *c = a.buf<float>(2);
    const float s = a.scalar<float>(3);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) out[i] = b[i] + s * c[i];
  };
}

Case streamTriad(const char *name, std::size_t n, const char *sizeText) {
  KernelLaunch k = gridLaunch(
      "stream.cl", "stream_triad",
      triadArgs(n),
      n, 256, 0, ElemType::F32, 1);
  k.native = triadNative(n);
  return launchCase(name, "performance",
                    std::string("stream_triad: a = b + 3*c on ") + sizeText + ", local 256; one op = launch + finish", k);
}

// STREAM triad as a native kernel (HK_KERNEL, kernels/native/native_variants.cl) over n
// items that 256 does not divide: "hostkernel" runs full work-groups with the unchecked
// variant (hk_in_bounds() folded away) and the last one checked; "checked" runs every
// work-group with the checked variant through hostkernel; "queue" is PoCL with the checked
// variant. Target: hostkernel at least as fast as checked.
Case nativeTriad(const char *name, std::size_t n, const char *sizeText) {
  // Two launches checked: the second runs the unchecked variant.
  KernelLaunch k = gridLaunch(
      "native/native_variants.cl", "native_triad",
      triadArgs(n),
      n, 256, 0, ElemType::F32, 2);
  k.nativeKernel = true;
  k.extraPaths = {{"checked", true, std::nullopt}};
  k.native = triadNative(n);
  return launchCase(name, "performance",
                    std::string("native_triad (HK_KERNEL): a = b + 3*c on ") + sizeText +
                        ", local 256; hostkernel = unchecked full groups, checked = every "
                        "group checked; one op = launch + finish",
                    k);
}

const Register kCopyCache{streamCopy("stream/copy/cache", kCacheN, "32K floats (2 x 128 KiB)")};
const Register kCopyDram{streamCopy("stream/copy/dram", kDramN, "16M floats (2 x 64 MiB)")};
const Register kTriadCache{streamTriad("stream/triad/cache", kCacheN, "32K floats (3 x 128 KiB)")};
const Register kTriadDram{streamTriad("stream/triad/dram", kDramN, "16M floats (3 x 64 MiB)")};
const Register kTriadVariantsCache{nativeTriad("stream/triad/variants-cache", kCacheN - 7,
                                               "32K-7 floats")};
const Register kTriadVariantsDram{nativeTriad("stream/triad/variants-dram", kDramN - 7,
                                              "16M-7 floats")};

// ---- localmem: transpose straight through global memory vs through a __local tile ----
constexpr cl_uint kTw = 1024, kTh = 1024;
constexpr std::size_t kTn = std::size_t{kTw} * kTh;

KernelLaunch transposeLaunch(const char *file, const char *kernel) {
  KernelLaunch k;
  k.file = file;
  k.kernel = kernel;
  k.args = {LaunchArg::generated<float>(kTn, smallIntegers<float>(31, 1 << 20, kTn)),
            LaunchArg::generated<float>(kTn, constantFill<float>(-1.0f, kTn)),
            LaunchArg::scalar(kTw), LaunchArg::scalar(kTh)};
  k.workDim = 2;
  k.global = {kTw, kTh, 1};
  k.local = {16, 16, 1};
  k.outputArg = 1;
  k.outputType = ElemType::F32;
  k.checkLaunches = 1;
  return k;
}

const Register kTransposeNaive{[] {
  KernelLaunch k = transposeLaunch("transpose_naive.cl", "transpose_naive");
  k.native = [](NativeArgs &a) {
    const float *in = a.buf<float>(0);
    float *out = a.buf<float>(1);
#pragma omp parallel for schedule(static)
    for (long y = 0; y < static_cast<long>(kTh); ++y)
      for (std::size_t x = 0; x < kTw; ++x) out[x * kTh + static_cast<std::size_t>(y)] = in[static_cast<std::size_t>(y) * kTw + x];
  };
  return launchCase("localmem/transpose-naive", "performance",
                    "transpose_naive: 1024x1024 floats, global 1024x1024, local 16x16, strided "
                    "writes; native: row loop",
                    k);
}()};

const Register kTransposeTiled{[] {
  KernelLaunch k = transposeLaunch("transpose_tiled.cl", "transpose_tiled");
  k.native = [](NativeArgs &a) {
    const float *in = a.buf<float>(0);
    float *out = a.buf<float>(1);
    constexpr std::size_t T = 16;
#pragma omp parallel for schedule(static)
    for (long by = 0; by < static_cast<long>(kTh / T); ++by)
      for (std::size_t bx = 0; bx < kTw / T; ++bx)
        for (std::size_t y = static_cast<std::size_t>(by) * T; y < (static_cast<std::size_t>(by) + 1) * T; ++y)
          for (std::size_t x = bx * T; x < (bx + 1) * T; ++x) out[x * kTh + y] = in[y * kTw + x];
  };
  return launchCase("localmem/transpose-tiled", "performance",
                    "transpose_tiled: 1024x1024 floats through a 16x17 __local tile, local "
                    "16x16; native: 16x16 blocked loop",
                    k);
}()};

// ---- private: a private array that lives across a barrier ----------------------------
const Register kPrivateAcrossBarrier{[] {
  constexpr std::size_t n = std::size_t{1} << 17, l = 256;
  // Integers below 16: every product and sum of the kernel is exact in float.
  KernelLaunch k = gridLaunch(
      "private_across_barrier.cl", "private_across_barrier",
      {LaunchArg::generated<float>(8 * n, smallIntegers<float>(41, 16, 8 * n)),
       LaunchArg::generated<float>(n, constantFill<float>(-1.0f, n))},
      n, l, 1, ElemType::F32, 1);
  k.native = [](NativeArgs &a) {
    const float *in = a.buf<float>(0);
    float *out = a.buf<float>(1);
#pragma omp parallel for schedule(static)
    for (long g = 0; g < static_cast<long>(n / l); ++g) {
      float priv[l][8];
      float shared[l];
      const std::size_t base = static_cast<std::size_t>(g) * l;
      for (std::size_t lid = 0; lid < l; ++lid) {
        for (std::size_t kk = 0; kk < 8; ++kk)
          priv[lid][kk] = in[(base + lid) * 8 + kk] * static_cast<float>(kk + 1) + static_cast<float>(lid);
        shared[lid] = priv[lid][lid & 7];
      }
      for (std::size_t lid = 0; lid < l; ++lid) {
        float acc = 0.0f;
        for (std::size_t kk = 0; kk < 8; ++kk) acc += priv[lid][kk] * shared[(lid + kk) % l];
        out[base + lid] = acc;
      }
    }
  };
  return launchCase("private/across-barrier", "performance",
                    "private_across_barrier: float priv[8] per work-item kept across a "
                    "barrier, 131072 work-items, local 256",
                    k);
}()};

// ---- scheduling: NULL local size (PoCL's choice: 4096 here) vs an explicit 256 -------
constexpr std::size_t kSmoothN = std::size_t{1} << 20;

Case smoothCase(const char *name, bool localNull) {
  auto uniform = [](float *p) {
    Rng rng(51);
    for (std::size_t i = 0; i < kSmoothN; ++i) p[i] = static_cast<float>(rng.uniform());
  };
  KernelLaunch k = gridLaunch(
      "smooth_local.cl", "smooth_local",
      {LaunchArg::generated<float>(kSmoothN, uniform),
       LaunchArg::generated<float>(kSmoothN, constantFill<float>(-1.0f, kSmoothN)),
       LaunchArg::scalar(static_cast<cl_uint>(kSmoothN))},
      kSmoothN, 256, 1, ElemType::F32, 1);
  k.localNull = localNull;
  k.native = [](NativeArgs &a) {
    const float *in = a.buf<float>(0);
    float *out = a.buf<float>(1);
    const long n = static_cast<long>(a.scalar<cl_uint>(2));
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) {
      const float v = in[i];
      const float l = i > 0 ? in[i - 1] : v;
      const float r = i + 1 < n ? in[i + 1] : v;
      out[i] = 0.25f * l + 0.5f * v + 0.25f * r;
    }
  };
  return launchCase(name, "performance",
                    std::string("smooth_local: 3-point smoothing of 1M floats through a __local "
                                "tile, ") +
                        (localNull ? "local size NULL (PoCL picks 4096: 256 work-groups)"
                                   : "local 256 (4096 work-groups)"),
                    k);
}

const Register kSchedDefault{smoothCase("scheduling/default", true)};
const Register kSchedExplicit{smoothCase("scheduling/explicit", false)};

// ---- atomics: a histogram with three global atomics per work-item -------------------
const Register kHistogram{[] {
  constexpr std::size_t n = std::size_t{1} << 18;
  constexpr cl_uint bins = 256;
  auto random = [](cl_uint *p) {
    Rng rng(61);
    for (std::size_t i = 0; i < n; ++i) p[i] = rng.next32();
  };
  KernelLaunch k = gridLaunch(
      "histogram_atomic.cl", "histogram_atomic",
      {LaunchArg::generated<cl_uint>(n, random),
       LaunchArg::generated<int>(bins + 2, constantFill<int>(0, bins + 2)),
       LaunchArg::scalar(bins)},
      n, 256, 1, ElemType::I32);
  k.native = [](NativeArgs &a) {
    const cl_uint *data = a.buf<cl_uint>(0);
    int *hist = a.buf<int>(1);
    const cl_uint nb = a.scalar<cl_uint>(2);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) {
      const cl_uint v = data[i];
      std::atomic_ref<int>(hist[v % nb]).fetch_add(1, std::memory_order_relaxed);
      std::atomic_ref<int>(hist[nb]).fetch_add(static_cast<int>(v & 0xff),
                                               std::memory_order_relaxed);
      std::atomic_ref<int> mx(hist[nb + 1]);
      const int want = static_cast<int>(v & 0xffff);
      int cur = mx.load(std::memory_order_relaxed);
      while (cur < want && !mx.compare_exchange_weak(cur, want, std::memory_order_relaxed)) {
      }
    }
  };
  return launchCase("atomics/histogram", "performance",
                    "histogram_atomic: 262144 uints into 256 bins, 3 global atomics per "
                    "work-item (inc, add, max), local 256; native: std::atomic_ref",
                    k);
}()};

// ---- groupreduce / groupscan: work-group collectives written with __local memory ------
const Register kGroupReduceF64{[] {
  constexpr std::size_t n = std::size_t{1} << 20, l = 256;
  // Integer values: every partial sum is exact, in any order.
  KernelLaunch k = gridLaunch(
      "reduce_local_f64.cl", "reduce_sum_f64",
      {LaunchArg::generated<double>(n, smallIntegers<double>(71, 1 << 20, n)),
       LaunchArg::generated<double>(n / l, constantFill<double>(-1.0, n / l)),
       LaunchArg::local(l * sizeof(double))},
      n, l, 1, ElemType::F64, 1);
  k.native = [](NativeArgs &a) {
    const double *in = a.buf<double>(0);
    double *partial = a.buf<double>(1);
#pragma omp parallel for schedule(static)
    for (long g = 0; g < static_cast<long>(n / l); ++g) {
      const double *group = in + static_cast<std::size_t>(g) * l;
      partial[g] = std::accumulate(group, group + l, 0.0);
    }
  };
  return launchCase("groupreduce/add-f64", "performance",
                    "reduce_sum_f64: per-work-group sum of 1M doubles, tree in a __local "
                    "argument with 9 barriers, local 256",
                    k);
}()};

const Register kGroupScanI32{[] {
  constexpr std::size_t n = std::size_t{1} << 20, l = 256;
  KernelLaunch k = gridLaunch(
      "scan_local.cl", "scan_local",
      {LaunchArg::generated<int>(n, smallIntegers<int>(81, 1000, n)),
       LaunchArg::generated<int>(n, constantFill<int>(-1, n)),
       LaunchArg::local(l * sizeof(int))},
      n, l, 1, ElemType::I32, 1);
  k.native = [](NativeArgs &a) {
    const int *in = a.buf<int>(0);
    int *out = a.buf<int>(1);
#pragma omp parallel for schedule(static)
    for (long g = 0; g < static_cast<long>(n / l); ++g) {
      int s = 0;
      for (std::size_t i = 0; i < l; ++i) {
        const std::size_t j = static_cast<std::size_t>(g) * l + i;
        s += in[j];
        out[j] = s;
      }
    }
  };
  return launchCase("groupscan/add-i32", "performance",
                    "scan_local: inclusive per-work-group prefix sum of 1M ints (Hillis-Steele, "
                    "16 barriers), local 256",
                    k);
}()};

// ---- math: double-precision builtins (SLEEF in PoCL, glibc natively) -----------------
constexpr std::size_t kMathN = std::size_t{1} << 18;

Case mathCase(const char *name, const char *kernel, double lo, double hi, double (*fn)(double)) {
  auto uniform = [lo, hi](double *p) {
    Rng rng(91);
    for (std::size_t i = 0; i < kMathN; ++i) p[i] = lo + (hi - lo) * rng.uniform();
  };
  KernelLaunch k = gridLaunch(
      "math_f64.cl", kernel,
      {LaunchArg::generated<double>(kMathN, uniform),
       LaunchArg::generated<double>(kMathN, constantFill<double>(-1.0, kMathN))},
      kMathN, 256, 1, ElemType::F64, 1);
  // glibc and SLEEF are both within 1 ulp of the exact result: at most 2 ulp apart.
  k.nativeUlps = 2;
  k.native = [fn](NativeArgs &a) {
    const double *in = a.buf<double>(0);
    double *out = a.buf<double>(1);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(kMathN); ++i) out[i] = fn(in[i]);
  };
  return launchCase(name, "performance",
                    std::string(kernel) + ": 262144 doubles, local 256; native: glibc, "
                                          "checked within 2 ulp",
                    k);
}

const Register kSin{mathCase("math/sin-f64", "sin_f64", -100.0, 100.0,
                             [](double x) { return std::sin(x); })};
const Register kExp{mathCase("math/exp-f64", "exp_f64", -50.0, 50.0,
                             [](double x) { return std::exp(x); })};

// ---- narrow: a guarded kernel on a padded grid vs an unguarded one on an exact grid ---
constexpr std::size_t kNarrowGrid = std::size_t{1} << 20;
constexpr std::size_t kNarrowMasked = kNarrowGrid - 100;

Case narrowCase(const char *name, bool masked) {
  KernelLaunch k = gridLaunch(
      masked ? "guarded_copy.cl" : "unguarded_copy.cl",
      masked ? "guarded_copy" : "unguarded_copy",
      {LaunchArg::generated<int>(kNarrowGrid, smallIntegers<int>(101, 1 << 20, kNarrowGrid)),
       LaunchArg::generated<int>(kNarrowGrid, constantFill<int>(-1, kNarrowGrid))},
      kNarrowGrid, 256, 1, ElemType::I32, 1);
  const std::size_t n = masked ? kNarrowMasked : kNarrowGrid;
  if (masked) k.args.push_back(LaunchArg::scalar(static_cast<cl_uint>(n)));
  k.native = [n](NativeArgs &a) {
    const int *in = a.buf<int>(0);
    int *out = a.buf<int>(1);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) out[i] = in[i] * 2 + 1;
  };
  return launchCase(name, "performance",
                    masked ? "guarded_copy: n = 2^20-100 ints, grid padded to 2^20 with an "
                             "if (i >= n) return guard, local 256"
                           : "unguarded_copy: 2^20 ints on an exact grid of 2^20, no guard, "
                             "local 256",
                    k);
}

const Register kNarrowMaskedCase{narrowCase("narrow/masked", true)};
const Register kNarrowUnmaskedCase{narrowCase("narrow/unmasked", false)};

}  // namespace
}  // namespace hkbench
