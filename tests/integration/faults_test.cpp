// Faults: things going wrong around hostkernel, as they do in real programs.
//
//   * a kernel that does not compile: the build log reaches the user through
//     hkBuildProgram / clGetProgramBuildInfo as with plain OpenCL, and the launches that
//     follow (of no kernel at all) fail with an error code, never a crash; the same
//     program object rebuilt with working options then launches directly;
//   * fork after initialisation: the child launches correctly on the direct path (PoCL's
//     threads do not exist in the child) and so does the parent afterwards;
//   * a kernel writing out of bounds in a partial work-group: skipped until the checked
//     variants exist (DESIGN.md, "A kernel used once must not pay ...");
//   * libhostkernel.so unloaded while idle: dlopen, launch, dlclose, dlopen again, launch
//     again, with a thread that launched and outlives the unload. That part is built as
//     its own executable (faults_unload, tests/integration/faults.cmake, -DHK_FAULTS_UNLOAD)
//     which is not linked with libhostkernel, so that dlclose can really unload it.
//
// A launch on a device that is not PoCL's CPU device cannot be made on this machine (PoCL
// is the only platform); tests/unit/probe_fake_device_test.cpp covers it with fake devices.
#include <CL/cl.h>
#include <dlfcn.h>
#include <elf.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

// In the faults_unload build only the types are used: every hk* call goes through dlsym.
#include <hostkernel/hostkernel.h>
#include <hostkernel/hostkernel.hpp>
#include "support/launch_counts.hpp"
#include "support/variant_groups.hpp"

namespace {

const char *kGoodSource = R"CLC(
kernel void fill(global int *out, int v) {
  size_t i = get_global_id(0);
  out[i] = v * 3 + (int)i;
}
)CLC";

struct Cl {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue queue = nullptr;

  bool open() {
    cl_int err = CL_SUCCESS;
    if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS) return false;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) != CL_SUCCESS)
      return false;
    ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) return false;
    queue = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
    return err == CL_SUCCESS;
  }
  void close() {
    if (queue) clReleaseCommandQueue(queue);
    if (ctx) clReleaseContext(ctx);
    queue = nullptr;
    ctx = nullptr;
  }
};

// Host memory of a CL_MEM_USE_HOST_PTR buffer: on PoCL's CPU device it is the device
// memory, so a direct launch's result can be read there without a PoCL command (which a
// fork child could not run: PoCL's worker threads are not in the child).
struct HostBuffer {
  // aligned_alloc wants a size that is a multiple of the alignment.
  explicit HostBuffer(size_t n)
      : n(n), host(static_cast<int *>(std::aligned_alloc(4096, (n * 4 + 4095) / 4096 * 4096))) {}
  ~HostBuffer() { std::free(host); }
  size_t n;
  int *host;
  cl_mem mem = nullptr;
};

bool filledWith(const int *host, size_t n, int v) {
  for (size_t i = 0; i < n; ++i)
    if (host[i] != v * 3 + int(i)) return false;
  return true;
}

#ifndef HK_FAULTS_UNLOAD

class Faults : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cl_.open()); }
  void TearDown() override {
    if (cl_.queue) hkFinish(cl_.queue);
    cl_.close();
  }

  std::string BuildLog(cl_program p) {
    size_t n = 0;
    EXPECT_EQ(clGetProgramBuildInfo(p, cl_.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n),
              CL_SUCCESS);
    std::string log(n, '\0');
    EXPECT_EQ(clGetProgramBuildInfo(p, cl_.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr),
              CL_SUCCESS);
    return log;
  }

  Cl cl_;
};

// ---- a kernel that does not compile ----------------------------------------------------

TEST_F(Faults, BuildFailureLogReachesTheUserAndLaunchesOfNothingFail) {
  const char *bad = R"CLC(
kernel void broken(global int *out) {
#ifndef FIXED
  out[0] = hk_undeclared_identifier_42;
#else
  out[get_global_id(0)] = 42;
#endif
}
)CLC";
  cl_int err = CL_SUCCESS;
  cl_program p = hkCreateProgramWithSource(cl_.ctx, 1, &bad, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);

  // The same failure through PoCL alone, for reference.
  cl_program ref = clCreateProgramWithSource(cl_.ctx, 1, &bad, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const cl_int pocl_build = clBuildProgram(ref, 1, &cl_.device, "", nullptr, nullptr);
  EXPECT_EQ(pocl_build, CL_BUILD_PROGRAM_FAILURE);

  // A notify callback is given the program, as with plain OpenCL.
  struct Notified {
    cl_program program = nullptr;
    int calls = 0;
  } notified;
  auto notify = [](cl_program prog, void *user) {
    auto *n = static_cast<Notified *>(user);
    n->program = prog;
    ++n->calls;
  };
  EXPECT_EQ(hkBuildProgram(p, 1, &cl_.device, "", notify, &notified), pocl_build);
  EXPECT_EQ(notified.calls, 1);
  EXPECT_EQ(notified.program, p);

  cl_build_status status = CL_BUILD_NONE;
  ASSERT_EQ(clGetProgramBuildInfo(p, cl_.device, CL_PROGRAM_BUILD_STATUS, sizeof status,
                                  &status, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(status, CL_BUILD_ERROR);
  const std::string log = BuildLog(p);
  EXPECT_NE(log.find("hk_undeclared_identifier_42"), std::string::npos)
      << "the build log does not name the error:\n" << log;
  // PoCL compiles from a temporary file whose name appears in the log: compare without it.
  auto withoutTempName = [](std::string s) {
    for (size_t at = s.find("tempfile_"); at != std::string::npos; at = s.find("tempfile_", at + 1))
      s.replace(at, std::min<size_t>(15, s.size() - at), "tempfile_XXXXXX");
    return s;
  };
  EXPECT_EQ(withoutTempName(log), withoutTempName(BuildLog(ref)))
      << "hostkernel's build log differs from PoCL's";

  // No kernel can be made from it ...
  cl_kernel k = hkCreateKernel(p, "broken", &err);
  EXPECT_EQ(k, nullptr);
  EXPECT_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);
  cl_kernel ks[4] = {};
  cl_uint made = 99;
  EXPECT_EQ(hkCreateKernelsInProgram(p, 4, ks, &made), CL_INVALID_PROGRAM_EXECUTABLE);
  // ... so the program's launches are launches of nothing: errors, not crashes.
  size_t g = 16, l = 8;
  EXPECT_EQ(hkEnqueueNDRangeKernel(cl_.queue, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_INVALID_KERNEL);
  EXPECT_EQ(hkEnqueueTask(cl_.queue, k, 0, nullptr, nullptr), CL_INVALID_KERNEL);
  cl_event ev = nullptr;
  EXPECT_EQ(hkEnqueueNDRangeKernel(cl_.queue, k, 1, nullptr, &g, &l, 0, nullptr, &ev),
            CL_INVALID_KERNEL);
  EXPECT_EQ(ev, nullptr);
  int v = 1;
  EXPECT_EQ(hkSetKernelArg(k, 0, sizeof v, &v), CL_INVALID_KERNEL);
  hk_launch_counts c{};
  EXPECT_EQ(hkGetKernelLaunchCounts(k, &c), CL_INVALID_KERNEL);
  EXPECT_EQ(hkFinish(cl_.queue), CL_SUCCESS);

  // The same program object, rebuilt so that it compiles, launches directly: nothing of
  // the failed build is left behind.
  ASSERT_EQ(hkBuildProgram(p, 1, &cl_.device, "-DFIXED", nullptr, nullptr), CL_SUCCESS);
  k = hkCreateKernel(p, "broken", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  HostBuffer out(64);
  std::memset(out.host, 0, 64 * 4);
  out.mem = hkCreateBuffer(cl_.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 64 * 4, out.host,
                           &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(k, 0, sizeof(cl_mem), &out.mem), CL_SUCCESS);
  g = 64;
  ASSERT_EQ(hkEnqueueNDRangeKernel(cl_.queue, k, 1, nullptr, &g, &l, 0, nullptr, nullptr),
            CL_SUCCESS);
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(out.host[i], 42) << "element " << i;
  EXPECT_EQ(Direct(Counts(k)), 1u);
  hkReleaseKernel(k);
  hkReleaseMemObject(out.mem);
  hkReleaseProgram(p);
  clReleaseProgram(ref);
}

TEST_F(Faults, BadBuildOptionsGetPoclsAnswerAndTheProgramStaysUsable) {
  cl_int err = CL_SUCCESS;
  cl_program ref = clCreateProgramWithSource(cl_.ctx, 1, &kGoodSource, nullptr, &err);
  cl_program p = hkCreateProgramWithSource(cl_.ctx, 1, &kGoodSource, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const char *opts = "-cl-hk-no-such-option";
  const cl_int pocl = clBuildProgram(ref, 1, &cl_.device, opts, nullptr, nullptr);
  EXPECT_NE(pocl, CL_SUCCESS);
  EXPECT_EQ(hkBuildProgram(p, 1, &cl_.device, opts, nullptr, nullptr), pocl);
  cl_kernel k = hkCreateKernel(p, "fill", &err);
  EXPECT_EQ(k, nullptr);
  EXPECT_NE(err, CL_SUCCESS);
  ASSERT_EQ(hkBuildProgram(p, 1, &cl_.device, "", nullptr, nullptr), CL_SUCCESS);
  k = hkCreateKernel(p, "fill", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  // A kernel name that is not in the program.
  cl_kernel missing = hkCreateKernel(p, "no_such_kernel", &err);
  EXPECT_EQ(missing, nullptr);
  EXPECT_EQ(err, CL_INVALID_KERNEL_NAME);
  hkReleaseKernel(k);
  hkReleaseProgram(p);
  clReleaseProgram(ref);
}

// ---- fork after initialisation ---------------------------------------------------------

TEST_F(Faults, ForkChildLaunchesDirectlyAndSoDoesTheParent) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  cl_int err = CL_SUCCESS;
  cl_program p = hkCreateProgramWithSource(cl_.ctx, 1, &kGoodSource, nullptr, &err);
  ASSERT_EQ(hkBuildProgram(p, 1, &cl_.device, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel k = hkCreateKernel(p, "fill", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  constexpr size_t kSmall = 1024, kLarge = 64 * 1024;  // the large one: team-sized
  HostBuffer out(kLarge);
  out.mem = hkCreateBuffer(cl_.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, kLarge * 4,
                           out.host, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  auto launch = [&](int v, size_t g) {
    if (hkSetKernelArg(k, 0, sizeof(cl_mem), &out.mem) != CL_SUCCESS) return false;
    if (hkSetKernelArg(k, 1, sizeof v, &v) != CL_SUCCESS) return false;
    std::memset(out.host, 0, g * 4);
    size_t l = 64;
    return hkEnqueueNDRangeKernel(cl_.queue, k, 1, nullptr, &g, &l, 0, nullptr, nullptr) ==
               CL_SUCCESS &&
           hkFinish(cl_.queue) == CL_SUCCESS && filledWith(out.host, g, v);
  };
  // Initialise everything in the parent: the kernel prepared, a small and a large launch.
  ASSERT_TRUE(launch(1, kSmall));
  ASSERT_TRUE(launch(2, kLarge));
  ASSERT_TRUE(launch(3, kSmall));  // the fast path is now primed with these arguments
  const hk_launch_counts before = Counts(k);
  ASSERT_EQ(before.by_path[HK_PATH_QUEUE], 0u);

  fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(120);  // a hang in the child fails the test instead of blocking it
    int code = 0;
    // The same launch again (the fast path), then new arguments, a large launch, and an
    // event: all without PoCL's threads.
    size_t g = kSmall, l = 64;
    std::memset(out.host, 0, g * 4);
    if (hkEnqueueNDRangeKernel(cl_.queue, k, 1, nullptr, &g, &l, 0, nullptr, nullptr) !=
            CL_SUCCESS ||
        hkFinish(cl_.queue) != CL_SUCCESS || !filledWith(out.host, g, 3))
      code = 10;
    else if (!launch(4, kSmall)) code = 11;
    else if (!launch(5, kLarge)) code = 12;
    else {
      cl_event ev = nullptr;
      int v = 6;
      hkSetKernelArg(k, 1, sizeof v, &v);
      g = kSmall;
      if (hkEnqueueNDRangeKernel(cl_.queue, k, 1, nullptr, &g, &l, 0, nullptr, &ev) !=
              CL_SUCCESS ||
          !ev || hkWaitForEvents(1, &ev) != CL_SUCCESS || !filledWith(out.host, g, 6))
        code = 13;
      else {
        cl_int status = -1;
        hkGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
        if (status != CL_COMPLETE) code = 14;
        hkReleaseEvent(ev);
      }
    }
    hk_launch_counts c{};
    if (code == 0 && hkGetKernelLaunchCounts(k, &c) == CL_SUCCESS &&
        (c.by_path[HK_PATH_QUEUE] != 0 ||
         c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM] !=
             before.by_path[HK_PATH_INLINE] + before.by_path[HK_PATH_TEAM] + 4))
      code = 15;
    fflush(nullptr);
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "child died with signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0)
      << "10: fast-path launch, 11: new arguments, 12: large launch, 13/14: event, "
         "15: launch counts";
  // The parent carries on: direct launches, and PoCL's queue still works for it.
  EXPECT_TRUE(launch(7, kSmall));
  EXPECT_TRUE(launch(8, kLarge));
  std::vector<int> host(kSmall, 0);
  ASSERT_EQ(launch(9, kSmall), true);
  ASSERT_EQ(hkEnqueueReadBuffer(cl_.queue, out.mem, CL_TRUE, 0, kSmall * 4, host.data(), 0,
                                nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_TRUE(filledWith(host.data(), kSmall, 9));
  EXPECT_EQ(Counts(k).by_path[HK_PATH_QUEUE], 0u);
  hkReleaseKernel(k);
  hkReleaseMemObject(out.mem);
  hkReleaseProgram(p);
}

// ---- out-of-bounds writes in a partial work-group ---------------------------------------

// A native kernel's grid is rounded up to whole work-groups, so the items of its partial
// (boundary) group past the true ndrange would write past the end of a buffer sized for
// the ndrange. Their writes are guarded by hk_in_bounds(), which only the checked variant
// evaluates: the buffer here is a sub-buffer whose parent continues with a canary, so a
// partial group that ran unchecked (or a checked variant that does not check) overwrites
// the canary. Three launches: checked throughout, then (from the second) full groups
// unchecked and the boundary group checked.
TEST_F(Faults, OutOfBoundsWriteInPartialGroupIsCaughtByCheckedVariant) {
  const char *source =
      "HK_KERNEL(fill_guarded, __global int *out, int v) {\n"
      "  if (hk_in_bounds()) out[hk_global_id(0)] = v + (int)hk_global_id(0);\n"
      "}\n";
  cl_int err = CL_SUCCESS;
  cl_program p = hkCreateNativeProgramWithSource(cl_.ctx, 1, &source, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkBuildProgram(p, 1, &cl_.device, "", nullptr, nullptr), CL_SUCCESS) << BuildLog(p);
  cl_kernel k = hkCreateKernel(p, "fill_guarded", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  constexpr size_t kItems = 1000, kCanary = 24, kGroup = 64;  // 16 groups, the last partial
  std::vector<int> host(kItems + kCanary, 7);
  cl_mem parent = clCreateBuffer(cl_.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                 host.size() * sizeof(int), host.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_buffer_region region{0, kItems * sizeof(int)};
  cl_mem out = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                 &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(k, 1, sizeof out, &out), CL_SUCCESS);
  for (int v = 100; v < 400; v += 100) {
    ASSERT_EQ(hkSetKernelArg(k, 2, sizeof v, &v), CL_SUCCESS);
    ASSERT_EQ(hkEnqueueNDRangeKernel(cl_.queue, k, 1, nullptr, &kItems, &kGroup, 0, nullptr,
                                     nullptr),
              CL_SUCCESS);
    ASSERT_EQ(hkFinish(cl_.queue), CL_SUCCESS);
    for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(host[i], v + int(i)) << "v " << v << ", i " << i;
    for (size_t i = kItems; i < host.size(); ++i)
      ASSERT_EQ(host[i], 7) << "launch with v " << v << " wrote past the ndrange, at " << i;
  }
  EXPECT_EQ(Direct(Counts(k)), 3u);
  const VariantGroups groups = GroupsByVariant(k);
  EXPECT_EQ(groups.unchecked, 2u * 15u) << "full groups of launches 2 and 3";
  EXPECT_EQ(groups.checked, 16u + 2u) << "launch 1, then the boundary groups";
  hkReleaseMemObject(out);
  hkReleaseMemObject(parent);
  hkReleaseKernel(k);
  hkReleaseProgram(p);
}

// ---- no OpenCL platform ----------------------------------------------------------------

// Run by integration.faults_no_platform, with the ICD loader pointed at an empty vendor
// directory: the C++ API says what is missing, the C API answers with OpenCL's errors.
TEST(NoPlatform, ClearErrorsAndNoCrash) {
  if (!std::getenv("HK_TEST_NO_PLATFORM")) GTEST_SKIP() << "run by integration.faults_no_platform";
  cl_uint n = 0;
  const cl_int err = clGetPlatformIDs(0, nullptr, &n);
  ASSERT_TRUE(err != CL_SUCCESS || n == 0) << "a platform exists: the test set-up is wrong";
  try {
    hk::Runtime::get();
    FAIL() << "hk::Runtime::get() returned without an OpenCL platform";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_DEVICE_NOT_FOUND);
    EXPECT_NE(std::string(e.what()).find("no PoCL CPU device"), std::string::npos) << e.what();
  }
  cl_device_id device = nullptr;
  EXPECT_EQ(hkGetPoclDevice(nullptr, &device), CL_DEVICE_NOT_FOUND);
  EXPECT_EQ(device, nullptr);
  const size_t one = 1;
  EXPECT_EQ(hkEnqueueNDRangeKernel(nullptr, nullptr, 1, nullptr, &one, nullptr, 0, nullptr,
                                   nullptr),
            CL_INVALID_KERNEL);
  EXPECT_EQ(hkFinish(nullptr), CL_INVALID_COMMAND_QUEUE);
  EXPECT_EQ(hkSetKernelArg(nullptr, 0, sizeof one, &one), CL_INVALID_KERNEL);
  cl_int create_err = CL_SUCCESS;
  EXPECT_EQ(hkCreateProgramWithSource(nullptr, 1, nullptr, nullptr, &create_err), nullptr);
  EXPECT_NE(create_err, CL_SUCCESS);
}

#else  // HK_FAULTS_UNLOAD

// ---- libhostkernel.so unloaded while idle ----------------------------------------------

// The hk* functions this test needs, looked up in one dlopen of the library.
struct Api {
  const char *path = nullptr;
  void *handle = nullptr;
  decltype(&hkCreateKernel) createKernel = nullptr;
  decltype(&hkSetKernelArg) setKernelArg = nullptr;
  decltype(&hkEnqueueNDRangeKernel) enqueue = nullptr;
  decltype(&hkFinish) finish = nullptr;
  decltype(&hkReleaseKernel) releaseKernel = nullptr;
  decltype(&hkGetKernelLaunchCounts) counts = nullptr;

  bool open(const char *library) {
    path = library;
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) return false;
    createKernel = reinterpret_cast<decltype(createKernel)>(dlsym(handle, "hkCreateKernel"));
    setKernelArg = reinterpret_cast<decltype(setKernelArg)>(dlsym(handle, "hkSetKernelArg"));
    enqueue = reinterpret_cast<decltype(enqueue)>(dlsym(handle, "hkEnqueueNDRangeKernel"));
    finish = reinterpret_cast<decltype(finish)>(dlsym(handle, "hkFinish"));
    releaseKernel = reinterpret_cast<decltype(releaseKernel)>(dlsym(handle, "hkReleaseKernel"));
    counts = reinterpret_cast<decltype(counts)>(dlsym(handle, "hkGetKernelLaunchCounts"));
    return createKernel && setKernelArg && enqueue && finish && releaseKernel && counts;
  }
  int close() {
    int r = dlclose(handle);
    handle = nullptr;
    return r;
  }
};

// libhostkernel.so as built is never unloaded by dlclose: it has STB_GNU_UNIQUE symbols
// (function-local statics of libstdc++ inline functions, e.g. std::to_string's digit
// table), and glibc never unloads an object with one. To see what happens when hostkernel's
// code really goes away, this writes a copy of the library whose dynamic symbols of that
// binding are plain STB_GLOBAL (harmless here: nothing else defines them), which dlclose
// does unload. Returns the copy's path, or "" (with `error`) if the file is not as expected.
std::string unloadableCopy(const char *library, std::string &error) {
  FILE *f = std::fopen(library, "rb");
  if (!f) return error = "cannot read the library", "";
  std::vector<unsigned char> elf;
  unsigned char chunk[65536];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) elf.insert(elf.end(), chunk, chunk + n);
  std::fclose(f);
  if (elf.size() < sizeof(Elf64_Ehdr) || std::memcmp(elf.data(), ELFMAG, SELFMAG) != 0 ||
      elf[EI_CLASS] != ELFCLASS64)
    return error = "not a 64-bit ELF file", "";
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  int patched = 0;
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    const size_t at = eh.e_shoff + size_t(i) * eh.e_shentsize;
    if (at + sizeof sh > elf.size()) return error = "bad section table", "";
    std::memcpy(&sh, elf.data() + at, sizeof sh);
    if (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) continue;
    if (sh.sh_offset + sh.sh_size > elf.size() || sh.sh_entsize != sizeof(Elf64_Sym))
      return error = "bad symbol table", "";
    for (size_t s = 0; s < sh.sh_size / sizeof(Elf64_Sym); ++s) {
      unsigned char &info = elf[sh.sh_offset + s * sizeof(Elf64_Sym) + offsetof(Elf64_Sym, st_info)];
      if (ELF64_ST_BIND(info) == STB_GNU_UNIQUE) {
        info = ELF64_ST_INFO(STB_GLOBAL, ELF64_ST_TYPE(info));
        ++patched;
      }
    }
  }
  char path[] = "/tmp/libhostkernel-unloadable-XXXXXX.so";
  const int fd = mkstemps(path, 3);
  if (fd < 0) return error = "mkstemps failed", "";
  const bool ok = ::write(fd, elf.data(), elf.size()) == ssize_t(elf.size());
  ::close(fd);
  if (!ok) return error = "write failed", "";
  std::fprintf(stderr, "%d GNU-unique symbols made global in %s\n", patched, path);
  return path;
}

bool libraryMapped(const char *path) {
  // RTLD_NOLOAD: a handle only if the library is still in the process.
  void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (h) dlclose(h);
  return h != nullptr;
}

// Makes a kernel through `api`, launches it directly (small and large grids) and checks
// the results in host memory. Returns "" or what went wrong.
std::string launchThrough(const Api &api, const Cl &cl, cl_program program, HostBuffer &out,
                          int v) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = api.createKernel(program, "fill", &err);
  if (err != CL_SUCCESS) return "hkCreateKernel: " + std::to_string(err);
  std::string problem;
  for (size_t g : {size_t(256), out.n}) {
    std::memset(out.host, 0, out.n * 4);
    size_t l = 64;
    if (api.setKernelArg(k, 0, sizeof(cl_mem), &out.mem) != CL_SUCCESS ||
        api.setKernelArg(k, 1, sizeof v, &v) != CL_SUCCESS)
      problem = "hkSetKernelArg failed";
    else if ((err = api.enqueue(cl.queue, k, 1, nullptr, &g, &l, 0, nullptr, nullptr)) !=
             CL_SUCCESS)
      problem = "hkEnqueueNDRangeKernel: " + std::to_string(err);
    else if (api.finish(cl.queue) != CL_SUCCESS || !filledWith(out.host, g, v))
      problem = "wrong result for " + std::to_string(g) + " work-items";
    if (!problem.empty()) break;
  }
  hk_launch_counts c{};
  if (problem.empty() && api.counts(k, &c) != CL_SUCCESS) problem = "no launch counts";
  if (problem.empty() && c.by_path[HK_PATH_QUEUE] != 0) problem = "launches went to the queue";
  api.finish(cl.queue);
  api.releaseKernel(k);
  return problem;
}

// Three rounds of: dlopen, launch on this thread and on a second thread, dlclose while
// the second thread is still alive (idle), then let it exit. Exits the process with 0 if
// everything worked; a crash (e.g. at the second thread's exit, in per-thread clean-up
// code that was unloaded) kills it. Prints whether dlclose really unloaded the library.
[[noreturn]] void unloadRounds(const char *library) {
  auto fail = [](const std::string &what) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  };
  Cl cl;
  if (!cl.open()) fail("no OpenCL CPU device");
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(cl.ctx, 1, &kGoodSource, nullptr, &err);
  if (clBuildProgram(program, 1, &cl.device, "", nullptr, nullptr) != CL_SUCCESS)
    fail("build");
  HostBuffer out(16 * 1024);
  out.mem = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, out.n * 4, out.host,
                           &err);
  if (libraryMapped(library)) fail("this test must not be linked with libhostkernel");
  for (int round = 0; round < 3; ++round) {
    Api api;
    if (!api.open(library)) fail(std::string("dlopen: ") + dlerror());
    std::string problem = launchThrough(api, cl, program, out, 10 + round);
    if (!problem.empty()) fail("round " + std::to_string(round) + ": " + problem);
    std::atomic<int> step{0};
    std::string thread_problem;
    std::thread t([&] {
      thread_problem = launchThrough(api, cl, program, out, 100 + round);
      step.store(1);
      while (step.load() != 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    while (step.load() != 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!thread_problem.empty())
      fail("round " + std::to_string(round) + ", second thread: " + thread_problem);
    if (api.close() != 0) fail(std::string("dlclose: ") + dlerror());
    std::fprintf(stderr, "round %d: dlclose %s the library\n", round,
                 libraryMapped(library) ? "did NOT unload" : "unloaded");
    step.store(2);
    t.join();
    std::fprintf(stderr, "round %d: the second thread exited\n", round);
  }
  clReleaseMemObject(out.mem);
  clReleaseProgram(program);
  cl.close();
  std::fflush(nullptr);
  std::_Exit(0);
}

// The library under test: the build's, or HK_FAULTS_LIBRARY (e.g. an installed one).
const char *library() {
  const char *env = std::getenv("HK_FAULTS_LIBRARY");
  return env && *env ? env : HK_LIBHOSTKERNEL;
}

// True if dlclose really unmaps `path` (checked in a child process, which may keep it).
bool dlcloseUnloads(const char *path) {
  pid_t pid = fork();
  if (pid == 0) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) _exit(2);
    dlclose(h);
    _exit(libraryMapped(path) ? 3 : 0);
  }
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

// libhostkernel.so as built and installed.
TEST(FaultsUnload, LibraryUnloadedWhileIdleAndLoadedAgainStillLaunches) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(unloadRounds(library()), ::testing::ExitedWithCode(0), "");
}

// The real library is never unloaded (unloadableCopy() says why), which hides what
// happens when hostkernel's code does go away; this copy is unloaded by dlclose.
// team/team.hpp says the team "is joined at exit or when libhostkernel.so is unloaded":
// unloading is meant to work.
TEST(FaultsUnload, UnloadableCopyUnloadedWhileIdleAndLoadedAgainStillLaunches) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string error;
  const std::string copy = unloadableCopy(library(), error);
  ASSERT_FALSE(copy.empty()) << error;
  if (!dlcloseUnloads(copy.c_str())) {
    std::remove(copy.c_str());
    // E.g. a dependency marked NODELETE (libLLVM-15 has GNU-unique symbols) that binds to
    // symbols of ours makes glibc keep us too.
    GTEST_SKIP() << "dlclose does not unload even the copy without GNU-unique symbols";
  }
  EXPECT_EXIT(unloadRounds(copy.c_str()), ::testing::ExitedWithCode(0),
              "round 0: dlclose unloaded the library");
  std::remove(copy.c_str());
}

#endif  // HK_FAULTS_UNLOAD

}  // namespace
