// choosePoclLocalSize must pick exactly the local size PoCL 3.1's CPU device picks for a
// NULL local_work_size. Two kinds of checks:
//  - hand-computed cases with fixed device limits (each exercising one branch of the
//    procedure), and
//  - a sweep of 1-, 2- and 3-D global sizes launched on PoCL itself, reading back
//    get_local_size(), for several compute-unit counts.
//
// The PoCL sweeps run in forked children: PoCL reads its compute-unit count
// (POCL_MAX_PTHREAD_COUNT) once per process, and this process itself never initialises
// OpenCL, so forking is safe.

#include "launch/local_size.hpp"
#include "support/pocl_context.hpp"

#include <CL/cl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using hk::launch::choosePoclLocalSize;
using hk::launch::DeviceLimits;

struct Sizes {
  std::size_t v[3];
  bool operator==(const Sizes &o) const { return v[0] == o.v[0] && v[1] == o.v[1] && v[2] == o.v[2]; }
};

std::string str(const Sizes &s) {
  return std::to_string(s.v[0]) + "x" + std::to_string(s.v[1]) + "x" + std::to_string(s.v[2]);
}

Sizes choose(const DeviceLimits &dev, Sizes global) {
  Sizes local{};
  choosePoclLocalSize(dev, global.v, local.v);
  return local;
}

// PoCL's CPU device: 4096 per dimension and per group, preferred multiple 8.
DeviceLimits cpuDevice(unsigned compute_units) { return {{4096, 4096, 4096}, 4096, 8, compute_units}; }

struct Case {
  Sizes global;
  Sizes expected;
};

void expectCases(const DeviceLimits &dev, const std::vector<Case> &cases) {
  for (const Case &c : cases)
    EXPECT_EQ(str(choose(dev, c.global)), str(c.expected))
        << "global " << str(c.global) << ", " << dev.compute_units << " compute units";
}

TEST(LocalSize, HandComputedTwoComputeUnits) {
  expectCases(cpuDevice(2), {
      // 1024 fits; one group for two units, so split x once: 512.
      {{1024, 1, 1}, {512, 1, 1}},
      // Grain 1 (17 is odd): 17 items < 2 * 32 minimum, no split.
      {{17, 1, 1}, {17, 1, 1}},
      // Capped at 4096 per dimension; two groups already.
      {{8192, 1, 1}, {4096, 1, 1}},
      {{1u << 31, 1, 1}, {4096, 1, 1}},
      {{1, 1, 1}, {1, 1, 1}},
      // A large prime: only 1 divides it below 4096 (and this must be quick).
      {{4294967291u, 1, 1}, {1, 1, 1}},
      // 2-D: one 64x64 group, split y (z cannot, y is tried before x).
      {{64, 64, 1}, {64, 32, 1}},
      // 16*16*32 is too big: halve z; then two groups, no split.
      {{16, 16, 32}, {16, 16, 16}},
      // Halving only possible in x (y odd), twice.
      {{4096, 3, 1}, {1024, 3, 1}},
      // All odd, no halving: drop z (grains all 1, z first).
      {{17, 19, 23}, {17, 19, 1}},
      // z cannot be halved to a multiple of its grain 8 (60); y has the smallest grain
      // (ties with x, but y is tried first): drop y.
      {{9, 5, 120}, {9, 1, 120}},
  });
}

TEST(LocalSize, HandComputedMoreComputeUnits) {
  expectCases(cpuDevice(4), {
      {{1024, 1, 1}, {256, 1, 1}},
      {{8192, 1, 1}, {2048, 1, 1}},
      {{64, 64, 1}, {64, 16, 1}},
      // Factor 4 is tried on z, y and x before factor 2: y/4 = 4 is not a multiple of 8
      // but x/4 = 64 is (y/2 = 8 would be, but factor 2 comes later).
      {{256, 16, 1}, {64, 16, 1}},
      {{16, 16, 32}, {16, 16, 8}},
      // 144/4 = 36 is not a multiple of 8; the factor drops to 3: 48.
      {{144, 1, 1}, {48, 1, 1}},
      // 96 items < 4 * 32: not worth splitting.
      {{96, 1, 1}, {96, 1, 1}},
      // 200/4 = 50, 200/2 = 100 are not multiples of 8; 3 does not divide: keep.
      {{200, 1, 1}, {200, 1, 1}},
      // No split works (40/4, 40/2 not multiples of 8; 7, 5 odd): drop the smallest
      // dimension z, since 40*7 >= 32 remain.
      {{40, 7, 5}, {40, 7, 1}},
  });
  expectCases(cpuDevice(3), {{{144, 1, 1}, {48, 1, 1}}});
}

TEST(LocalSize, HandComputedSmallerLimits) {
  // A GPU-like device: z limited to 64, groups to 1024.
  const DeviceLimits dev{{1024, 1024, 64}, 1024, 8, 2};
  expectCases(dev, {
      // z starts at 64 (limit), 8*8*64 > 1024: halve z twice.
      {{8, 8, 256}, {8, 8, 16}},
      {{4096, 1, 1}, {1024, 1, 1}},
  });
}

// ---------------------------------------------------------------------------------------
// Comparison with PoCL itself.

std::vector<Sizes> sweepGeometries() {
  std::vector<Sizes> out;
  for (std::size_t x = 1; x <= 300; ++x) out.push_back({{x, 1, 1}});
  for (std::size_t x : {384, 500, 1000, 1024, 1536, 2000, 2048, 3000, 4095, 4096, 4097, 6000,
                        8192, 10007, 12288, 65536, 99991, 100000, 1 << 20})
    out.push_back({{x, 1, 1}});

  const std::size_t s2[] = {1, 2, 3, 5, 7, 8, 12, 16, 17, 24, 31, 32, 64, 96, 100, 128, 250, 256, 1000, 4096};
  for (std::size_t x : s2)
    for (std::size_t y : s2)
      if (x * y <= (1u << 21)) out.push_back({{x, y, 1}});

  const std::size_t s3[] = {1, 3, 8, 12, 16, 17, 32, 64, 100};
  for (std::size_t x : s3)
    for (std::size_t y : s3)
      for (std::size_t z : s3) out.push_back({{x, y, z}});
  for (Sizes s : {Sizes{{4096, 2, 2}}, Sizes{{2, 2, 4096}}, Sizes{{1, 4096, 3}}, Sizes{{24, 40, 56}},
                  Sizes{{7, 11, 13}}, Sizes{{128, 128, 128}}})
    out.push_back(s);
  return out;
}

unsigned dimsOf(const Sizes &s) { return s.v[2] > 1 ? 3 : s.v[1] > 1 ? 2 : 1; }

const char *kSource =
    "kernel void ls(global ulong *o){ if (get_global_id(0)==0 && get_global_id(1)==0 && "
    "get_global_id(2)==0){ o[0]=get_local_size(0); o[1]=get_local_size(1); "
    "o[2]=get_local_size(2);} }";

// Runs in the child. Writes a report to `out`; returns the exit status:
// 0 all matched, 1 mismatches, 2 OpenCL setup failed.
int runPoclSweep(FILE *out) {
#define CHECK_CL(call)                                                       \
  do {                                                                       \
    cl_int e_ = (call);                                                      \
    if (e_ != CL_SUCCESS) {                                                  \
      std::fprintf(out, "%s failed: %d (line %d)\n", #call, e_, __LINE__); \
      return 2;                                                              \
    }                                                                        \
  } while (0)

  ScopedPoclContext cl;
  cl_program prog = cl.buildProgram(kSource);
  if (!prog) {
    std::fprintf(out, "%s\n", cl.error.c_str());
    return 2;
  }
  const cl_device_id dev = cl.device;
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueueWithProperties(cl.context, dev, nullptr, &err);
  CHECK_CL(err);
  cl_kernel k = clCreateKernel(prog, "ls", &err);
  CHECK_CL(err);
  cl_mem buf = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 3 * sizeof(cl_ulong), nullptr, &err);
  CHECK_CL(err);
  CHECK_CL(clSetKernelArg(k, 0, sizeof buf, &buf));

  DeviceLimits limits{};
  CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof limits.max_item_sizes,
                           limits.max_item_sizes, nullptr));
  CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(std::size_t),
                           &limits.max_group_size, nullptr));
  cl_uint cus = 0;
  CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, nullptr));
  limits.compute_units = cus;
  // PoCL's optimizer uses the device's preferred_wg_size_multiple, which is what this
  // kernel query (and CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE) reports.
  CHECK_CL(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                    sizeof(std::size_t), &limits.preferred_multiple, nullptr));
  std::fprintf(out, "device: %zux%zux%zu items, group %zu, preferred %zu, %u compute units\n",
               limits.max_item_sizes[0], limits.max_item_sizes[1], limits.max_item_sizes[2],
               limits.max_group_size, limits.preferred_multiple, limits.compute_units);

  std::size_t compared = 0, mismatches = 0;
  for (const Sizes &g : sweepGeometries()) {
    const cl_ulong zero = 0;
    CHECK_CL(clEnqueueFillBuffer(q, buf, &zero, sizeof zero, 0, 3 * sizeof(cl_ulong), 0, nullptr, nullptr));
    CHECK_CL(clEnqueueNDRangeKernel(q, k, dimsOf(g), nullptr, g.v, nullptr, 0, nullptr, nullptr));
    cl_ulong got[3] = {};
    CHECK_CL(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof got, got, 0, nullptr, nullptr));
    const Sizes pocl{{got[0], got[1], got[2]}};
    const Sizes ours = choose(limits, g);
    ++compared;
    if (!(pocl == ours)) {
      if (++mismatches <= 50)
        std::fprintf(out, "global %s: PoCL %s, ours %s\n", str(g).c_str(), str(pocl).c_str(),
                     str(ours).c_str());
    }
  }
  std::fprintf(out, "compared %zu geometries, %zu mismatches\n", compared, mismatches);

  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  return mismatches ? 1 : 0;
#undef CHECK_CL
}

// Forks a child that sets the PoCL environment and runs the sweep; returns its exit
// status and report.
int sweepInChild(const char *pthread_count, std::string &report) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(fds[0]);
    if (pthread_count) setenv("POCL_MAX_PTHREAD_COUNT", pthread_count, 1);
    // Generic (non-specialised) work-group functions: otherwise PoCL compiles one per
    // distinct local size. Does not affect the local size choice.
    setenv("POCL_WORK_GROUP_SPECIALIZATION", "0", 1);
    FILE *out = fdopen(fds[1], "w");
    const int status = runPoclSweep(out);
    std::fclose(out);
    _exit(status);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) report.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int wstatus = 0;
  if (waitpid(pid, &wstatus, 0) != pid) return -1;
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
}

TEST(LocalSize, MatchesPoclCpuDevice) {
  // nullptr: the device's own compute unit count (or the user's POCL_MAX_PTHREAD_COUNT).
  // The others exercise larger and non-power-of-two split factors.
  for (const char *count : {static_cast<const char *>(nullptr), "3", "4", "7", "16"}) {
    std::string report;
    const int status = sweepInChild(count, report);
    EXPECT_EQ(status, 0) << "POCL_MAX_PTHREAD_COUNT=" << (count ? count : "(default)") << "\n" << report;
    if (status == 0) std::printf("%s", report.c_str());
  }
}

}  // namespace
