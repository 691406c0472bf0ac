// HOSTKERNEL_PERF_MAP=1 (set by perf_map.cmake): every work-group library hostkernel loads
// is named in /tmp/perf-<pid>.map, at the addresses hostkernel calls, and its code lies in
// anonymous executable memory (the only memory for which perf reads the map).
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "support/pocl_test.hpp"

namespace {

const char *kSource = R"(
kernel void scale(global float *x, float a) { x[get_global_id(0)] *= a; }
kernel void shift(global float *x, float b) { x[get_global_id(0)] += b; }
)";

struct MapEntry {
  std::uintptr_t start = 0, size = 0;
  std::string name;
};

// The map's entry that starts at `addr`; none: size 0.
MapEntry EntryAt(std::uintptr_t addr) {
  std::ifstream in("/tmp/perf-" + std::to_string(getpid()) + ".map");
  std::string line;
  MapEntry found;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    MapEntry e;
    s >> std::hex >> e.start >> e.size >> e.name;
    if (e.start == addr) found = e;  // the last one: a later load may reuse the address
  }
  return found;
}

// The /proc/self/maps line of the mapping holding `addr`.
std::string MappingOf(std::uintptr_t addr) {
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream s(line);
    s >> std::hex >> lo >> dash >> hi;
    if (addr >= lo && addr < hi) return line;
  }
  return {};
}

class PerfMap : public PoclTest {
 protected:
  PerfMap() : PoclTest(kSource) {}
  void SetUpTestObjects() override {
    cl_int err = CL_SUCCESS;
    x_ = hkCreateBuffer(ctx_, CL_MEM_READ_WRITE, 1024 * sizeof(float), nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void ReleaseTestObjects() override {
    for (cl_kernel k : kernels_) hkReleaseKernel(k);
    if (x_) hkReleaseMemObject(x_);
  }
  static void TearDownTestSuite() { unlink(("/tmp/perf-" + std::to_string(getpid()) + ".map").c_str()); }

  // Launches `name` directly once and returns the work-group function it called.
  std::uintptr_t LaunchedFunction(const char *name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = Own(hkCreateKernel(program_, name, &err));
    EXPECT_EQ(err, CL_SUCCESS);
    if (err != CL_SUCCESS) return 0;
    kernels_.push_back(k);
    const float a = 2.0f;
    EXPECT_EQ(hkSetKernelArg(k, 0, sizeof x_, &x_), CL_SUCCESS);
    EXPECT_EQ(hkSetKernelArg(k, 1, sizeof a, &a), CL_SUCCESS);
    const size_t global = 1024, local = 64;
    EXPECT_EQ(Launch(queue_, k, 1, nullptr, &global, &local, 0, nullptr, nullptr), CL_SUCCESS);
    EXPECT_EQ(hkFinish(queue_), CL_SUCCESS);
    EXPECT_EQ(Direct(Counts(k)), 1u) << Describe(Counts(k));
    void *fn = nullptr;
    EXPECT_EQ(hkGetKernelVariantInfo(k, HK_KERNEL_VARIANT_WORK_GROUP_FUNCTION, sizeof fn, &fn,
                                     nullptr),
              CL_SUCCESS);
    return reinterpret_cast<std::uintptr_t>(fn);
  }

  cl_mem x_ = nullptr;
  std::vector<cl_kernel> kernels_;
};

TEST_F(PerfMap, NamesTheWorkGroupFunctionsHostkernelCalls) {
  for (const char *name : {"scale", "shift"}) {
    const std::uintptr_t fn = LaunchedFunction(name);
    ASSERT_NE(fn, 0u) << name;
    const MapEntry e = EntryAt(fn);
    EXPECT_EQ(e.name, std::string("_pocl_kernel_") + name + "_workgroup") << std::hex << fn;
    EXPECT_GT(e.size, 0u) << e.name;
    // perf takes the map's names only for anonymous executable memory: no file name.
    const std::string mapping = MappingOf(fn);
    std::istringstream s(mapping);
    std::string range, perms, offset, dev, inode, path;
    s >> range >> perms >> offset >> dev >> inode >> path;
    EXPECT_EQ(perms.substr(0, 3), "r-x") << mapping;
    EXPECT_EQ(path, "") << mapping;
    EXPECT_EQ(MappingOf(fn + e.size - 1), mapping) << "the function ends in its mapping";
  }
}

}  // namespace
