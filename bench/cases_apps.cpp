// Application cases (category "applications"): one step of the inner loop of a real code,
// with the host-side work that goes with it.
#include "case_util.hpp"

#include "opencl_env.hpp"

#include <hostkernel/hostkernel_ext.h>

#include <functional>
#include <memory>
#include <vector>

namespace hkbench {
namespace {

// ---- apps/heat2d: explicit 2-D heat equation, double buffered -------------------------
// One op = one time step: set the two buffer arguments (swapped every step), launch,
// finish. Values start in [1, 2] with the edges at 1, and stay there: no denormals however
// many steps the timing runs.
constexpr cl_uint kHeatN = 512;
constexpr std::size_t kHeatCells = std::size_t{kHeatN} * kHeatN;
constexpr float kHeatR = 0.2f;

const Register kHeat2d{[] {
  KernelLaunch k;
  k.file = "heat2d.cl";
  k.kernel = "heat2d_step";
  auto initial = [](float *u) {
    Rng rng(201);
    for (std::size_t y = 0; y < kHeatN; ++y)
      for (std::size_t x = 0; x < kHeatN; ++x) {
        const bool edge = x == 0 || y == 0 || x == kHeatN - 1 || y == kHeatN - 1;
        u[y * kHeatN + x] = edge ? 1.0f : 1.0f + static_cast<float>(rng.uniform());
      }
  };
  k.args = {LaunchArg::generated<float>(kHeatCells, initial),
            LaunchArg::generated<float>(kHeatCells, constantFill<float>(0.0f, kHeatCells)),
            LaunchArg::scalar(kHeatN), LaunchArg::scalar(kHeatN), LaunchArg::scalar(kHeatR)};
  k.workDim = 2;
  k.global = {kHeatN, kHeatN, 1};
  k.local = {64, 4, 1};
  k.swapArgs = std::array<std::size_t, 2>{0, 1};
  k.outputArg = 0;
  k.outputType = ElemType::F32;
  k.checkLaunches = 5;  // odd: the check reads the buffer that started as `out`
  k.native = [](NativeArgs &a) {
    const float *in = a.buf<float>(0);
    float *out = a.buf<float>(1);
    const std::size_t nx = a.scalar<cl_uint>(2), ny = a.scalar<cl_uint>(3);
    const float r = a.scalar<float>(4);
#pragma omp parallel for schedule(static)
    for (long yl = 0; yl < static_cast<long>(ny); ++yl) {
      const std::size_t y = static_cast<std::size_t>(yl);
      const std::size_t row = y * nx;
      if (y == 0 || y == ny - 1) {
        for (std::size_t x = 0; x < nx; ++x) out[row + x] = in[row + x];
        continue;
      }
      out[row] = in[row];
      for (std::size_t x = 1; x + 1 < nx; ++x) {
        const std::size_t i = row + x;
        const float c = in[i];
        const float lap = (in[i - 1] + in[i + 1]) + (in[i - nx] + in[i + nx]) - 4.0f * c;
        out[i] = c + r * lap;
      }
      out[row + nx - 1] = in[row + nx - 1];
    }
  };
  return launchCase("apps/heat2d", "applications",
                    "heat2d_step: 512x512 floats, 5-point stencil, local 64x4; one op = one "
                    "time step: set in/out (swapped) + launch + finish",
                    k);
}()};

// ---- apps/dg-element: DG volume term, one element per work-group ----------------------
// Dyadic inputs (k/8, k/16, ...): every product and sum is exact in double, so the result
// is the same bits in any order, fused or not.
constexpr std::size_t kNp = 32;
constexpr std::size_t kElements = 2048;

const Register kDgElement{[] {
  KernelLaunch k;
  k.file = "dg_element.cl";
  k.kernel = "dg_element";
  auto dyadic = [](std::uint64_t seed, int range, double scale, std::size_t count) {
    return [=](double *p) {
      Rng rng(seed);
      for (std::size_t i = 0; i < count; ++i)
        p[i] = static_cast<double>(static_cast<int>(rng.next32() % (2 * range + 1)) - range) * scale;
    };
  };
  k.args = {LaunchArg::generated<double>(kElements * kNp, dyadic(301, 64, 1.0 / 16, kElements * kNp)),
            LaunchArg::generated<double>(kNp * kNp, dyadic(302, 8, 1.0 / 8, kNp * kNp)),
            LaunchArg::generated<double>(kNp * kNp, dyadic(303, 8, 1.0 / 4, kNp * kNp)),
            LaunchArg::generated<double>(kElements, dyadic(304, 4, 1.0 / 2, kElements)),
            LaunchArg::generated<double>(kElements * kNp, constantFill<double>(-1.0, kElements * kNp)),
            LaunchArg::scalar(0.5)};
  k.global = {kElements * kNp, 1, 1};
  k.local = {kNp, 1, 1};
  k.outputArg = 4;
  k.outputType = ElemType::F64;
  k.checkLaunches = 1;
  k.native = [](NativeArgs &a) {
    const double *u = a.buf<double>(0);
    const double *S = a.buf<double>(1);
    const double *Minv = a.buf<double>(2);
    const double *jinv = a.buf<double>(3);
    double *rhs = a.buf<double>(4);
    const double adv = a.scalar<double>(5);
#pragma omp parallel for schedule(static)
    for (long el = 0; el < static_cast<long>(kElements); ++el) {
      const std::size_t e = static_cast<std::size_t>(el);
      double f[kNp], vol[kNp];
      for (std::size_t j = 0; j < kNp; ++j) f[j] = adv * u[e * kNp + j];
      for (std::size_t i = 0; i < kNp; ++i) {
        double acc = 0.0;
        for (std::size_t j = 0; j < kNp; ++j) acc += S[j * kNp + i] * f[j];
        vol[i] = acc;
      }
      for (std::size_t i = 0; i < kNp; ++i) {
        double r = 0.0;
        for (std::size_t j = 0; j < kNp; ++j) r += Minv[i * kNp + j] * vol[j];
        rhs[e * kNp + i] = jinv[e] * r;
      }
    }
  };
  return launchCase("apps/dg-element", "applications",
                    "dg_element: 2048 elements x 32 nodes (doubles), per element S^T f then "
                    "Minv vol through __local copies of both 32x32 matrices, local 32 "
                    "(reqd_work_group_size)",
                    k);
}()};

// ---- apps/omp-mixed: host OpenMP work between launches ---------------------------------
// One op = one step of a program that does host work with OpenMP between kernels: a
// `parallel for` over 65536 floats, then trivial(out) on 65536 work-items (local 256) +
// finish. The paths' note gives mixed / (host-alone + <path>-alone): what the mix costs
// beyond its parts (threads of two runtimes competing for the CPUs).
constexpr std::size_t kMixedHostFloats = 65536;

// The step's launch and host part; `also` runs after the host loop, in the host part.
KernelLaunch ompMixedLaunch(std::function<void()> also) {
  KernelLaunch k = teamGridLaunch("trivial");
  // The host array converges to 2 (no denormals, however many steps run).
  auto host = std::shared_ptr<float[]>(new float[kMixedHostFloats]());
  k.hostStep = [host, also = std::move(also)] {
    float *h = host.get();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(kMixedHostFloats); ++i) h[i] = h[i] * 0.5f + 1.0f;
    if (also) also();
  };
  k.native = [](NativeArgs &a) {
    int *out = a.buf<int>(0);
#pragma omp parallel for schedule(static)
    for (long i = 0; i < static_cast<long>(kTeamItems); ++i) out[i] = static_cast<int>(i);
  };
  return k;
}

const Register kOmpMixed{launchCase(
    "apps/omp-mixed", "applications",
    "one op = OpenMP parallel for over 65536 host floats, then trivial(out) on 65536 "
    "work-items, local 256 + finish; native: both as OpenMP loops",
    ompMixedLaunch(nullptr))};

// ---- apps/omp-mixed-queue: the same step beside launches on PoCL's own queue -----------
// One op = the apps/omp-mixed step, whose host part also sends a kernel of its own to
// PoCL's queue and waits for it: what a program sees when some of its kernels go through
// PoCL (a library that uses OpenCL itself, or kernels hostkernel gives to PoCL). PoCL's
// worker threads then run beside OpenMP's and the team's. The queue launch is made in a
// context of its own with PoCL's entry points (never hostkernel's), on every path alike.
constexpr std::size_t kQueueSideItems = 4096;

class PoclQueueNeighbour {
 public:
  void step() {
    if (!queue_) setUp();
    checkCl(clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &kQueueSideItems, nullptr, 0,
                                   nullptr, nullptr),
            "clEnqueueNDRangeKernel(neighbour)");
    checkCl(clFinish(queue_), "clFinish(neighbour)");
  }

 private:
  // Never released: the objects live as long as the process, like the cases themselves.
  void setUp() {
    cl_platform_id platform;
    cl_device_id device;
    checkCl(hkGetPoclDevice(&platform, &device), "hkGetPoclDevice");
    cl_int err;
    cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    checkCl(err, "clCreateContext(neighbour)");
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
    checkCl(err, "clCreateCommandQueueWithProperties(neighbour)");
    // Converges to 2: no denormals however many steps run.
    const char *src =
        "kernel void relax(global float *x) { size_t i = get_global_id(0);"
        " x[i] = x[i] * 0.5f + 1.0f; }";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
    checkCl(err, "clCreateProgramWithSource(neighbour)");
    checkCl(clBuildProgram(prog, 1, &device, "", nullptr, nullptr), "clBuildProgram(neighbour)");
    cl_kernel k = clCreateKernel(prog, "relax", &err);
    checkCl(err, "clCreateKernel(neighbour)");
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, kQueueSideItems * sizeof(float),
                                nullptr, &err);
    checkCl(err, "clCreateBuffer(neighbour)");
    const float zero = 0.0f;
    checkCl(clEnqueueFillBuffer(q, buf, &zero, sizeof zero, 0, kQueueSideItems * sizeof(float),
                                0, nullptr, nullptr),
            "clEnqueueFillBuffer(neighbour)");
    checkCl(clSetKernelArg(k, 0, sizeof buf, &buf), "clSetKernelArg(neighbour)");
    checkCl(clFinish(q), "clFinish(neighbour)");
    kernel_ = k;
    queue_ = q;
  }
  cl_command_queue queue_ = nullptr;
  cl_kernel kernel_ = nullptr;
};

const Register kOmpMixedQueue{[] {
  auto neighbour = std::make_shared<PoclQueueNeighbour>();
  return launchCase("apps/omp-mixed-queue", "applications",
                    "one op = apps/omp-mixed's step whose host part also launches a kernel of "
                    "4096 work-items on PoCL's own queue (a context of its own) + finish",
                    ompMixedLaunch([neighbour] { neighbour->step(); }));
}()};

}  // namespace
}  // namespace hkbench
