// Launch cases: one small kernel launched and finished, again and again (category
// "latency": the cost of a launch), and axpy on a million floats (category "performance":
// the same kernel with enough work that the thread team matters).
#include "case_util.hpp"

#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

namespace hkbench {
namespace {

// kernel void trivial(global int *out) { out[gid] = gid; } on one work-item.
const Register kTrivial{[] {
  const std::vector<int> out{-1};  // sentinel: the check sees whether the kernel ran
  KernelLaunch k = gridLaunch(
      "trivial.cl", "trivial",
      {LaunchArg::buffer<int>(out)},
      1, 1, 0, ElemType::I32);
  return launchCase(
      "launch/trivial", "latency",
      "trivial(out): 1 work-item (global 1, local 1); one op = launch + finish", k,
      [] { return outputOf(std::vector<int>{0}, ElemType::I32); });
}()};

// y = a*x + y on n floats (serial: these are latency cases).
void axpySerial(NativeArgs &a, std::size_t n) {
  const float s = a.scalar<float>(0);
  const float *x = a.buf<float>(1);
  float *y = a.buf<float>(2);
  for (std::size_t i = 0; i < n; ++i) y[i] = s * x[i] + y[i];
}

// Element i of axpy's x and y. Small integers: a*x+y is exact with or without FMA
// contraction, for any launch count the check uses.
float axpyX(std::size_t i) { return static_cast<float>(i % 1000); }
float axpyY(std::size_t i) { return static_cast<float>(1000 - static_cast<int>(i % 1000)); }

std::vector<float> axpyInput(std::size_t n, float (*element)(std::size_t)) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = element(i);
  return v;
}

KernelLaunch axpyLaunch(std::size_t n, std::size_t local) {
  return gridLaunch("axpy.cl", "axpy",
                    {LaunchArg::scalar(2.0f), LaunchArg::buffer<float>(axpyInput(n, axpyX)),
                     LaunchArg::buffer<float>(axpyInput(n, axpyY))},
                    n, local, 2, ElemType::F32);
}

// 1000 floats padded to 1024, so that local size 64 divides the grid: the kernel has no
// bounds check, and a uniform grid is what the direct path runs.
const Register kAxpy1000{[] {
  KernelLaunch k = axpyLaunch(1024, 64);
  k.native = [](NativeArgs &a) { axpySerial(a, 1024); };
  const std::vector<float> x = axpyInput(1024, axpyX), y = axpyInput(1024, axpyY);
  const std::uint64_t launches = k.checkLaunches;
  return launchCase(
      "launch/axpy-1000", "latency",
      "axpy(a, x, y): 1000 floats padded to 1024, global 1024, local 64 (16 work-groups); "
      "one op = launch + finish",
      k, [x, y, launches] {
        std::vector<float> expect(y);
        for (std::size_t i = 0; i < expect.size(); ++i)
          for (std::uint64_t l = 0; l < launches; ++l) expect[i] = 2.0f * x[i] + expect[i];
        return outputOf(expect, ElemType::F32);
      });
}()};

// The smallest useful launch: one work-group of 64.
const Register k64Elements{[] {
  KernelLaunch k = axpyLaunch(64, 64);
  k.native = [](NativeArgs &a) { axpySerial(a, 64); };
  return launchCase("launch/64-elements", "latency",
                    "axpy(a, x, y) on 64 floats: global 64, local 64 (one work-group); one op "
                    "= launch + finish",
                    k);
}()};

// The two partial-work-group cases copy the first kPartialN of 1024 items with
// out[i] = in[i] * 2 + 1 (guarded_copy, native_copy); guardedCopy() is that work.
constexpr std::size_t kPartialN = 1000;

void guardedCopy(const int *in, int *out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i] * 2 + 1;
}

// The check output of those cases: `out` with its first kPartialN items computed from `in`.
std::function<Output()> partialCopyReference(std::vector<int> in, std::vector<int> out) {
  return [in = std::move(in), out = std::move(out)] {
    std::vector<int> expect(out);
    guardedCopy(in.data(), expect.data(), kPartialN);
    return outputOf(expect, ElemType::I32);
  };
}

// The usual way to cover n elements with a fixed local size: pad the grid, guard in the
// kernel. PoCL 3.1's CPU device has no non-uniform work-groups (a global size that the
// local size does not divide is CL_INVALID_WORK_GROUP_SIZE), so this is how a partial last
// work-group looks: here 40 of its 64 work-items return at once.
const Register kPartialWorkgroup{[] {
  std::vector<int> in(1024), out(1024, -1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 % 1000);
  KernelLaunch k = gridLaunch(
      "guarded_copy.cl", "guarded_copy",
      {LaunchArg::buffer<int>(in), LaunchArg::buffer<int>(out),
       LaunchArg::scalar(static_cast<cl_uint>(kPartialN))},
      1024, 64, 1, ElemType::I32);
  k.native = [](NativeArgs &a) { guardedCopy(a.buf<int>(0), a.buf<int>(1), a.scalar<cl_uint>(2)); };
  return launchCase("launch/guarded-padded", "latency",
                    "guarded_copy(in, out, n=1000): grid padded to 1024, local 64; the last "
                    "work-group has 24 active work-items; one op = launch + finish",
                    k, partialCopyReference(in, out));
}()};

// A native kernel over 1000 items in work-groups of 64: hostkernel rounds the grid up to
// 16 groups; 15 run the unchecked variant, the last (40 of 64 items outside the ndrange)
// the checked one. "uniform" is the same kernel over 1024 items (16 full groups, all
// unchecked): the target is hostkernel within 1.2x of it. "checked" runs every group
// with the checked variant through hostkernel. The queue path runs the checked
// program on the rounded grid, as hostkernel does when it falls back to PoCL.
const Register kNativePartial{[] {
  std::vector<int> in(1024), out(1024, -1);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = i < kPartialN ? static_cast<int>(i * 7 % 1000) : -1;  // -1 -> 2*-1+1 = -1
  KernelLaunch k = gridLaunch(
      "native/native_copy.cl", "native_copy",
      {LaunchArg::buffer<int>(in), LaunchArg::buffer<int>(out)},
      kPartialN, 64, 1, ElemType::I32);
  k.nativeKernel = true;
  k.extraPaths = {{"uniform", false, std::array<std::size_t, 3>{1024, 1, 1}},
                  {"checked", true, std::nullopt}};
  k.native = [](NativeArgs &a) { guardedCopy(a.buf<int>(0), a.buf<int>(1), kPartialN); };
  return launchCase("launch/partial-workgroup", "latency",
                    "native_copy (HK_KERNEL) over n=1000, local 64: 15 full groups unchecked "
                    "+ 1 partial checked; 'uniform' = n=1024; queue = checked on the rounded "
                    "grid; one op = launch + finish",
                    k, partialCopyReference(in, out));
}()};

// 18 arguments of every kind: what binding and copying arguments costs per launch.
const Register kManyArgs{[] {
  constexpr std::size_t n = 128;
  std::vector<float> out(n, -1.0f), a(n), c(n);
  std::vector<int> b(n), out2(n, -1);
  std::vector<double> d(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 17);
    b[i] = static_cast<int>(i % 5) - 2;
    c[i] = static_cast<float>(i % 3);
    d[i] = static_cast<double>(i % 9);
  }
  const cl_float2 s7 = {{2.0f, 0.5f}};
  const cl_int4 s8 = {{1, 2, 3, 4}};
  KernelLaunch k = gridLaunch(
      "many_args.cl", "many_args",
      {LaunchArg::buffer<float>(out),
       LaunchArg::buffer<float>(a),
       LaunchArg::buffer<int>(b),
       LaunchArg::scalar(1.5f),
       LaunchArg::scalar(cl_int{3}),
       LaunchArg::scalar(cl_uint{0x55}),
       LaunchArg::buffer<float>(c),
       LaunchArg::scalar(2.0),
       LaunchArg::scalar(cl_long{7} << 32),
       LaunchArg::scalar(cl_short{-5}),
       LaunchArg::scalar(cl_uchar{200}),
       LaunchArg::buffer<double>(d),
       LaunchArg::scalar(s7),
       LaunchArg::scalar(s8),
       LaunchArg::buffer<int>(out2),
       LaunchArg::scalar(cl_ulong{0x12345}),
       LaunchArg::scalar(cl_char{-3}),
       LaunchArg::scalar(0.25f)},
      n, 32, 0, ElemType::F32);
  return launchCase("launch/many-args", "latency",
                    "many_args: 18 arguments (6 buffers; scalars of 1-8 bytes, float2, int4), "
                    "global 128, local 32; one op = launch + finish",
                    k);
}()};

// A reduction through a __local argument and barriers, at launch scale.
const Register kGroupReduceLaunch{[] {
  constexpr std::size_t n = 256, l = 64;
  std::vector<float> in(n), partial(n / l, -1.0f);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 13);
  KernelLaunch k = gridLaunch(
      "reduce_local_arg.cl", "reduce_sum",
      {LaunchArg::buffer<float>(in), LaunchArg::buffer<float>(partial),
       LaunchArg::local(l * sizeof(float))},
      n, l, 1, ElemType::F32);
  k.native = [](NativeArgs &a) {
    const float *src = a.buf<float>(0);
    float *dst = a.buf<float>(1);
    for (std::size_t g = 0; g < n / l; ++g)
      dst[g] = std::accumulate(src + g * l, src + (g + 1) * l, 0.0f);
  };
  return launchCase("launch/groupreduce", "latency",
                    "reduce_sum(in, partial, local float[64]): tree reduction with barriers, "
                    "global 256, local 64 (4 work-groups); one op = launch + finish",
                    k);
}()};

// Nearly no work: what handing a launch to the team and waiting for it costs, with the
// work of writing 65536 ids.
const Register kTeamTrivial{[] {
  KernelLaunch k = teamGridLaunch("trivial");
  k.native = [](NativeArgs &a) {
    int *out = a.buf<int>(0);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(kTeamItems); ++i) out[i] = static_cast<int>(i);
  };
  return launchCase("launch/team-trivial", "latency",
                    "trivial(out) on 65536 work-items, local 256 (256 work-groups); one op = "
                    "launch + finish; native: OpenMP parallel for",
                    k);
}()};

// The same grid with an empty kernel: the team's launch overhead alone, against OpenMP's
// fork/join over an empty loop. (On launch/team-trivial the work itself differs: PoCL's
// loop for trivial() stores 64-bit ids narrowed to int, 16 bytes at a time, and takes
// 1.37x the native loop's time on one thread.)
const Register kTeamEmpty{[] {
  KernelLaunch k = teamGridLaunch("empty");
  k.native = [](NativeArgs &) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(kTeamItems); ++i) {
    }
  };
  return launchCase("launch/team-empty", "latency",
                    "empty(out) on 65536 work-items, local 256 (256 work-groups): the team's "
                    "launch overhead; one op = launch + finish; native: OpenMP parallel for "
                    "over an empty body (the fork and join)",
                    k);
}()};

// The FACTS measurement: axpy on a million floats, L=64.
const Register kAxpy1e6{[] {
  constexpr std::size_t n = 1000000;
  auto xs = [](float *x) {
    for (std::size_t i = 0; i < n; ++i) x[i] = axpyX(i);
  };
  auto ys = [](float *y) {
    for (std::size_t i = 0; i < n; ++i) y[i] = axpyY(i);
  };
  KernelLaunch k = gridLaunch(
      "axpy.cl", "axpy",
      {LaunchArg::scalar(2.0f), LaunchArg::generated<float>(n, xs),
       LaunchArg::generated<float>(n, ys)},
      n, 64, 2, ElemType::F32);
  k.native = [](NativeArgs &a) {
    const float s = a.scalar<float>(0);
    const float *x = a.buf<float>(1);
    float *y = a.buf<float>(2);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) y[i] = s * x[i] + y[i];
  };
  return launchCase("launch/axpy-1e6", "performance",
                    "axpy(a, x, y) on 1e6 floats, global 1e6, local 64 (15625 work-groups); one "
                    "op = launch + finish; native: OpenMP parallel for",
                    k);
}()};

}  // namespace
}  // namespace hkbench
