// Devices that are not the CPU device of a supported PoCL, faked: this machine has only PoCL, so the
// OpenCL implementation below hostkernel is replaced (hk::setNextDispatch, as the layer
// does) by a table of fake functions that answer with made-up platform and device strings.
//
//  * probeDevice accepts exactly the CPU devices of the PoCL releases in release.hpp with
//    direct launches, named as each release names them, and says why not for everything
//    else (other vendors, other PoCL versions, GPU-type devices, strings that are empty,
//    unterminated or missing, queries that fail);
//  * a launch on a queue of such a device is forwarded unchanged to the implementation's
//    clEnqueueNDRangeKernel and counted as HK_REASON_DEVICE, never run directly;
//  * a "PoCL 3.1" device whose program binary is corrupt (or missing) sends the launch to
//    the queue with HK_REASON_PREPARE_FAILED: DESIGN.md, "Errors".
#include <CL/cl_icd.h>
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/next.hpp"
#include "pocl/probe.hpp"

namespace {

// Every fake object: a dispatch pointer then a PoCL-like 64-bit object id.
struct FakeObject {
  void *dispatch = nullptr;
  std::uint64_t id = 0;
};
std::atomic<std::uint64_t> g_next_id{1000};
// Fake objects live until exit (hostkernel may look at a handle after its "release").
std::vector<std::unique_ptr<FakeObject>> g_objects;
FakeObject *newObject() {
  g_objects.push_back(std::make_unique<FakeObject>());
  g_objects.back()->id = g_next_id.fetch_add(1);
  return g_objects.back().get();
}

// Two devices: hostkernel probes a device once per process, so the non-PoCL one and the
// PoCL one must be different objects.
FakeObject g_platform, g_gpu_device, g_cpu_device, g_context, g_program;

// What the fake implementation answers.
struct FakeWorld {
  std::string platform_name = "Portable Computing Language";
  std::string platform_version = "OpenCL 3.0 PoCL 3.1+debian  Linux, LLVM 15.0.6";
  std::string device_name = "pthread-skylake-avx512";
  cl_device_type device_type = CL_DEVICE_TYPE_CPU;
  bool device_info_fails = false;
  bool unterminated_strings = false;  // string answers without their NUL
  std::vector<std::uint8_t> binary;   // CL_PROGRAM_BINARIES of every program
  bool binary_query_fails = false;
  FakeObject *queue_device = &g_cpu_device;  // the device of every queue and program

  int enqueues = 0;  // clEnqueueNDRangeKernel calls
  cl_uint last_dim = 0;
  size_t last_global = 0;
  int finishes = 0;
};
FakeWorld g_world;

// The fake's clGetXxxInfo answers, as OpenCL specifies them: the `n` bytes at `bytes`
// into `value` when it is given (CL_INVALID_VALUE when `size` cannot hold them), and their
// count into *ret.
cl_int answerBytes(const void *bytes, size_t n, size_t size, void *value, size_t *ret) {
  if (value) {
    if (size < n) return CL_INVALID_VALUE;
    std::memcpy(value, bytes, n);
  }
  if (ret) *ret = n;
  return CL_SUCCESS;
}

template <typename T>
cl_int answer(const T &v, size_t size, void *value, size_t *ret) {
  return answerBytes(&v, sizeof(T), size, value, ret);
}

// A string with its terminating zero, unless the world leaves it out.
cl_int answerString(const std::string &s, size_t size, void *value, size_t *ret) {
  const size_t n = s.size() + (g_world.unterminated_strings ? 0 : 1);
  return answerBytes(s.c_str(), n, size, value, ret);
}

cl_int CL_API_CALL fakeGetPlatformInfo(cl_platform_id, cl_platform_info what, size_t size,
                                       void *value, size_t *ret) {
  switch (what) {
    case CL_PLATFORM_NAME: return answerString(g_world.platform_name, size, value, ret);
    case CL_PLATFORM_VERSION: return answerString(g_world.platform_version, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL fakeGetDeviceInfo(cl_device_id, cl_device_info what, size_t size,
                                     void *value, size_t *ret) {
  if (g_world.device_info_fails) return CL_INVALID_DEVICE;
  switch (what) {
    case CL_DEVICE_TYPE: return answer(g_world.device_type, size, value, ret);
    case CL_DEVICE_PLATFORM:
      return answer(reinterpret_cast<cl_platform_id>(&g_platform), size, value, ret);
    case CL_DEVICE_NAME: return answerString(g_world.device_name, size, value, ret);
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
      const size_t sizes[3] = {4096, 4096, 4096};
      return answer(sizes, size, value, ret);
    }
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: return answer(size_t{4096}, size, value, ret);
    case CL_DEVICE_MAX_COMPUTE_UNITS: return answer(cl_uint{2}, size, value, ret);
    case CL_DEVICE_PRINTF_BUFFER_SIZE: return answer(size_t{1} << 20, size, value, ret);
    case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: return answer(size_t{8}, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL fakeGetCommandQueueInfo(cl_command_queue, cl_command_queue_info what,
                                           size_t size, void *value, size_t *ret) {
  switch (what) {
    case CL_QUEUE_CONTEXT:
      return answer(reinterpret_cast<cl_context>(&g_context), size, value, ret);
    case CL_QUEUE_DEVICE:
      return answer(reinterpret_cast<cl_device_id>(g_world.queue_device), size, value, ret);
    case CL_QUEUE_PROPERTIES: return answer(cl_command_queue_properties{0}, size, value, ret);
    case CL_QUEUE_REFERENCE_COUNT: return answer(cl_uint{1}, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL fakeGetKernelInfo(cl_kernel, cl_kernel_info what, size_t size, void *value,
                                     size_t *ret) {
  switch (what) {
    case CL_KERNEL_NUM_ARGS: return answer(cl_uint{2}, size, value, ret);
    case CL_KERNEL_PROGRAM:
      return answer(reinterpret_cast<cl_program>(&g_program), size, value, ret);
    case CL_KERNEL_CONTEXT:
      return answer(reinterpret_cast<cl_context>(&g_context), size, value, ret);
    case CL_KERNEL_FUNCTION_NAME: {
      const std::string name = "fill";
      if (value) {
        if (size < name.size() + 1) return CL_INVALID_VALUE;
        std::memcpy(value, name.c_str(), name.size() + 1);
      }
      if (ret) *ret = name.size() + 1;
      return CL_SUCCESS;
    }
    case CL_KERNEL_REFERENCE_COUNT: return answer(cl_uint{1}, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL fakeGetProgramInfo(cl_program, cl_program_info what, size_t size,
                                      void *value, size_t *ret) {
  if (g_world.binary_query_fails && (what == CL_PROGRAM_BINARY_SIZES || what == CL_PROGRAM_BINARIES))
    return CL_INVALID_PROGRAM_EXECUTABLE;
  switch (what) {
    case CL_PROGRAM_NUM_DEVICES: return answer(cl_uint{1}, size, value, ret);
    case CL_PROGRAM_DEVICES:
      return answer(reinterpret_cast<cl_device_id>(g_world.queue_device), size, value, ret);
    case CL_PROGRAM_BINARY_SIZES: return answer(g_world.binary.size(), size, value, ret);
    case CL_PROGRAM_BINARIES: {
      if (!value || size < sizeof(unsigned char *)) return CL_INVALID_VALUE;
      unsigned char *dst = *static_cast<unsigned char **>(value);
      if (dst && !g_world.binary.empty())
        std::memcpy(dst, g_world.binary.data(), g_world.binary.size());
      if (ret) *ret = sizeof(unsigned char *);
      return CL_SUCCESS;
    }
    case CL_PROGRAM_REFERENCE_COUNT: return answer(cl_uint{1}, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL fakeGetEventInfo(cl_event, cl_event_info what, size_t size, void *value,
                                    size_t *ret) {
  switch (what) {
    case CL_EVENT_COMMAND_TYPE: return answer(cl_command_type{CL_COMMAND_NDRANGE_KERNEL}, size, value, ret);
    case CL_EVENT_COMMAND_EXECUTION_STATUS: return answer(cl_int{CL_COMPLETE}, size, value, ret);
    case CL_EVENT_REFERENCE_COUNT: return answer(cl_uint{1}, size, value, ret);
    default: return CL_INVALID_VALUE;
  }
}

cl_event CL_API_CALL fakeCreateUserEvent(cl_context, cl_int *err) {
  if (err) *err = CL_SUCCESS;
  return reinterpret_cast<cl_event>(newObject());
}
cl_int CL_API_CALL fakeSetUserEventStatus(cl_event, cl_int) { return CL_SUCCESS; }
cl_int CL_API_CALL fakeReleaseEvent(cl_event) { return CL_SUCCESS; }
cl_int CL_API_CALL fakeRetainEvent(cl_event) { return CL_SUCCESS; }
cl_int CL_API_CALL fakeWaitForEvents(cl_uint, const cl_event *) { return CL_SUCCESS; }
cl_int CL_API_CALL fakeSetKernelArg(cl_kernel, cl_uint index, size_t, const void *) {
  return index < 2 ? CL_SUCCESS : CL_INVALID_ARG_INDEX;
}
cl_int CL_API_CALL fakeEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint dim,
                                            const size_t *, const size_t *global,
                                            const size_t *, cl_uint, const cl_event *,
                                            cl_event *event) {
  ++g_world.enqueues;
  g_world.last_dim = dim;
  g_world.last_global = global ? global[0] : 0;
  if (event) *event = reinterpret_cast<cl_event>(newObject());
  return CL_SUCCESS;
}
cl_int CL_API_CALL fakeFinish(cl_command_queue) {
  ++g_world.finishes;
  return CL_SUCCESS;
}
cl_int CL_API_CALL fakeFlush(cl_command_queue) { return CL_SUCCESS; }

cl_icd_dispatch makeFakeTable() {
  cl_icd_dispatch t{};
  t.clGetPlatformInfo = fakeGetPlatformInfo;
  t.clGetDeviceInfo = fakeGetDeviceInfo;
  t.clGetCommandQueueInfo = fakeGetCommandQueueInfo;
  t.clGetKernelInfo = fakeGetKernelInfo;
  t.clGetProgramInfo = fakeGetProgramInfo;
  t.clGetEventInfo = fakeGetEventInfo;
  t.clCreateUserEvent = fakeCreateUserEvent;
  t.clSetUserEventStatus = fakeSetUserEventStatus;
  t.clReleaseEvent = fakeReleaseEvent;
  t.clRetainEvent = fakeRetainEvent;
  t.clWaitForEvents = fakeWaitForEvents;
  t.clSetKernelArg = fakeSetKernelArg;
  t.clEnqueueNDRangeKernel = fakeEnqueueNDRangeKernel;
  t.clFinish = fakeFinish;
  t.clFlush = fakeFlush;
  return t;
}
const cl_icd_dispatch g_fake_table = makeFakeTable();

class FakeDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    g_world = FakeWorld{};
    hk::setNextDispatch(&g_fake_table);
  }
  hk::pocl::DeviceProbe probe() {
    return hk::pocl::probeDevice(reinterpret_cast<cl_device_id>(&g_cpu_device));
  }
};

TEST_F(FakeDevice, Pocl31CpuDeviceIsSupported) {
  for (const char *name : {"pthread-skylake-avx512", "basic-haswell"}) {
    g_world.device_name = name;
    hk::pocl::DeviceProbe p = probe();
    EXPECT_TRUE(p.supported) << name << ": " << p.reason;
    EXPECT_EQ(p.name, name);
    EXPECT_EQ(p.max_group_size, 4096u);
    EXPECT_EQ(p.compute_units, 2u);
    ASSERT_NE(p.release, nullptr);
    EXPECT_STREQ(p.release->version, "3.1");
  }
}

// The drivers were renamed in 4.0: each release's CPU device only under its own name.
TEST_F(FakeDevice, EachReleaseAcceptsItsOwnCpuDriverNames) {
  struct Case {
    const char *version, *device;
    bool supported;
  };
  const Case cases[] = {
      {"OpenCL 3.0 PoCL 3.1+debian  Linux", "cpu-generic", false},
      {"OpenCL 3.0 PoCL 6.0+debian  Linux, LLVM 18.1.8", "cpu-skylake-avx512", true},
      {"OpenCL 3.0 PoCL 6.0+debian  Linux, LLVM 18.1.8", "cpu-minimal-haswell", true},
      {"OpenCL 3.0 PoCL 6.0+debian  Linux, LLVM 18.1.8", "pthread-skylake-avx512", false},
      {"OpenCL 3.0 PoCL 6.0+debian  Linux, LLVM 18.1.8", "basic-haswell", false},
  };
  for (const Case &c : cases) {
    g_world.platform_version = c.version;
    g_world.device_name = c.device;
    hk::pocl::DeviceProbe p = probe();
    EXPECT_EQ(p.supported, c.supported) << c.version << " / " << c.device << ": " << p.reason;
    if (!c.supported)
      EXPECT_NE(p.reason.find("is not PoCL's CPU"), std::string::npos) << p.reason;
  }
  g_world.platform_version = "OpenCL 3.0 PoCL 6.0+debian  Linux, LLVM 18.1.8";
  g_world.device_name = "cpu-skylake-avx512";
  const hk::pocl::DeviceProbe p = probe();
  ASSERT_NE(p.release, nullptr);
  EXPECT_EQ(p.release->context_size, 112u);
  EXPECT_EQ(p.release->binary_version, 11u);
  EXPECT_TRUE(p.release->takes_il);
}

// Releases whose ABI was not checked (5.0, 7.2, a future 8.0, point releases, builds by
// hand with other version strings) stay queue-only with one reason, as does a described
// release whose direct path is not verified yet.
TEST_F(FakeDevice, UnknownAndUnverifiedReleasesAreQueueOnlyWithAReason) {
  g_world.device_name = "cpu-skylake-avx512";
  for (const char *v : {"OpenCL 3.0 PoCL 5.0+debian  Linux", "OpenCL 3.0 PoCL 7.2  Linux",
                        "OpenCL 3.0 PoCL 8.0-pre main-0123abc  Linux",
                        "OpenCL 3.0 PoCL 6.0.1  Linux", "OpenCL 3.0 PoCL 6.01"}) {
    g_world.platform_version = v;
    hk::pocl::DeviceProbe p = probe();
    EXPECT_FALSE(p.supported) << v;
    EXPECT_EQ(p.release, nullptr) << v;
    EXPECT_NE(p.reason.find("unsupported PoCL version '" + std::string(v) + "'"),
              std::string::npos)
        << p.reason;
  }
  g_world.platform_version = "OpenCL 3.0 PoCL 7.1+debian  Linux, LLVM 21.1.8";
  hk::pocl::DeviceProbe p = probe();
  ASSERT_NE(p.release, nullptr);
  if (!p.release->direct_launches) {
    EXPECT_FALSE(p.supported);
    EXPECT_NE(p.reason.find("not verified"), std::string::npos) << p.reason;
  }
}

TEST_F(FakeDevice, OtherPlatformsAreRefusedWithTheirName) {
  struct Case {
    const char *platform, *version, *device;
    cl_device_type type;
  };
  const Case cases[] = {
      {"NVIDIA CUDA", "OpenCL 3.0 CUDA 12.2.140", "NVIDIA A100", CL_DEVICE_TYPE_GPU},
      {"Intel(R) OpenCL", "OpenCL 3.0 LINUX", "Intel(R) Xeon(R) CPU", CL_DEVICE_TYPE_CPU},
      {"AMD Accelerated Parallel Processing", "OpenCL 2.1 AMD-APP", "gfx1030", CL_DEVICE_TYPE_GPU},
      {"Portable Computing Language ", "OpenCL 3.0 PoCL 3.1", "pthread-x", CL_DEVICE_TYPE_CPU},
      {"", "", "", CL_DEVICE_TYPE_CPU},
  };
  for (const Case &c : cases) {
    g_world.platform_name = c.platform;
    g_world.platform_version = c.version;
    g_world.device_name = c.device;
    g_world.device_type = c.type;
    hk::pocl::DeviceProbe p = probe();
    EXPECT_FALSE(p.supported) << c.platform;
    EXPECT_FALSE(p.pocl_cpu) << c.platform;
    EXPECT_NE(p.reason.find("is not PoCL"), std::string::npos) << c.platform << ": " << p.reason;
  }
}

TEST_F(FakeDevice, OtherPoclVersionsAreRefused) {
  for (const char *v : {"OpenCL 3.0 PoCL 3.0+debian Linux", "OpenCL 3.0 PoCL 4.0 Linux",
                        "OpenCL 3.0 PoCL 3.10 Linux", "OpenCL 3.0 PoCL 3.12-pre",
                        "OpenCL 3.0 PoCL 5.0", "OpenCL 3.0 PoCL", "PoCL 3", ""}) {
    g_world.platform_version = v;
    hk::pocl::DeviceProbe p = probe();
    EXPECT_FALSE(p.supported) << "'" << v << "'";
    EXPECT_TRUE(p.pocl_cpu) << "'" << v << "'";  // hkGetPoclDevice still finds it
    EXPECT_NE(p.reason.find("unsupported PoCL version"), std::string::npos) << p.reason;
  }
  for (const char *v : {"OpenCL 3.0 PoCL 3.1+debian", "OpenCL 3.0 PoCL 3.1-RC1",
                        "OpenCL 3.0 PoCL 3.1"}) {
    g_world.platform_version = v;
    EXPECT_TRUE(probe().supported) << "'" << v << "'";
  }
}

TEST_F(FakeDevice, PoclDevicesOtherThanTheCpuDriversAreRefused) {
  struct Case {
    const char *device;
    cl_device_type type;
  };
  const Case cases[] = {
      {"cuda-sm_80", CL_DEVICE_TYPE_GPU},        {"level0-Intel GPU", CL_DEVICE_TYPE_GPU},
      {"remote-pthread", CL_DEVICE_TYPE_CPU},    {"almaif", CL_DEVICE_TYPE_ACCELERATOR},
      {"pthread-custom", CL_DEVICE_TYPE_CUSTOM}, {"pthread-as-gpu", CL_DEVICE_TYPE_GPU},
      {"", CL_DEVICE_TYPE_CPU},                  {"tce", CL_DEVICE_TYPE_ACCELERATOR},
  };
  for (const Case &c : cases) {
    g_world.device_name = c.device;
    g_world.device_type = c.type;
    hk::pocl::DeviceProbe p = probe();
    EXPECT_FALSE(p.supported) << "'" << c.device << "'";
    EXPECT_EQ(p.pocl_cpu, (c.type & CL_DEVICE_TYPE_CPU) != 0) << "'" << c.device << "'";
    EXPECT_NE(p.reason.find("is not PoCL's CPU"), std::string::npos) << p.reason;
  }
}

TEST_F(FakeDevice, FailingOrOddQueriesAreRefusedWithoutCrashing) {
  g_world.device_info_fails = true;
  hk::pocl::DeviceProbe p = probe();
  EXPECT_FALSE(p.supported);
  EXPECT_EQ(p.reason, "device info unavailable");
  // Strings returned without their terminating NUL still compare as the text they hold.
  g_world = FakeWorld{};
  g_world.unterminated_strings = true;
  p = probe();
  EXPECT_TRUE(p.supported) << p.reason;
  EXPECT_EQ(p.name, "pthread-skylake-avx512");
  // Strings with a NUL inside: only the text before it counts.
  g_world = FakeWorld{};
  g_world.platform_name = std::string("NVIDIA\0Portable Computing Language", 34);
  EXPECT_FALSE(probe().supported);
}

// The launch goes to the device's own clEnqueueNDRangeKernel with the caller's arguments,
// returns its result and event, and is counted as HK_REASON_DEVICE.
TEST_F(FakeDevice, LaunchOnANonPoclDeviceIsForwardedToItsQueue) {
  g_world.platform_name = "NVIDIA CUDA";
  g_world.platform_version = "OpenCL 3.0 CUDA 12.2";
  g_world.device_name = "NVIDIA A100";
  g_world.device_type = CL_DEVICE_TYPE_GPU;
  g_world.queue_device = &g_gpu_device;
  cl_kernel kernel = reinterpret_cast<cl_kernel>(newObject());
  cl_command_queue queue = reinterpret_cast<cl_command_queue>(newObject());
  cl_mem buf = reinterpret_cast<cl_mem>(newObject());
  int v = 5;
  ASSERT_EQ(hkSetKernelArg(kernel, 0, sizeof buf, &buf), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(kernel, 1, sizeof v, &v), CL_SUCCESS);
  size_t g = 1000, l = 8;
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(hkEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &g, &l, 0, nullptr, nullptr),
              CL_SUCCESS);
  cl_event ev = nullptr;
  ASSERT_EQ(hkEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &g, nullptr, 0, nullptr, &ev),
            CL_SUCCESS);
  EXPECT_NE(ev, nullptr);
  EXPECT_EQ(g_world.enqueues, 4);
  EXPECT_EQ(g_world.last_global, 1000u);
  hk_launch_counts c{};
  ASSERT_EQ(hkGetKernelLaunchCounts(kernel, &c), CL_SUCCESS);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 0u);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 4u);
  EXPECT_EQ(c.by_reason[HK_REASON_DEVICE], 4u);
  // The queue holds the device's work now: hkFinish must ask the device.
  EXPECT_EQ(hkFinish(queue), CL_SUCCESS);
  EXPECT_GE(g_world.finishes, 1);
  if (ev) hkReleaseEvent(ev);
}

// A PoCL 3.1 CPU device whose program binary is not a poclbinary (or cannot be had): the
// launch goes to PoCL's queue, with the reason, and the process carries on.
TEST_F(FakeDevice, CorruptOrMissingProgramBinarySendsLaunchesToTheQueue) {
  struct Case {
    const char *what;
    std::vector<std::uint8_t> binary;
    bool query_fails;
  };
  std::vector<std::uint8_t> truncated = {'p', 'o', 'c', 'l', 'b', 'i', 'n', 0, 1, 2, 3};
  std::vector<std::uint8_t> wrong_version(77, 0);
  std::memcpy(wrong_version.data(), "poclbin", 8);
  wrong_version[16] = 7;  // version 7
  const Case cases[] = {
      {"garbage", std::vector<std::uint8_t>(300, 0xA5), false},
      {"truncated header", truncated, false},
      {"format version 7", wrong_version, false},
      {"binary query fails", {}, true},
  };
  for (const Case &cs : cases) {
    g_world = FakeWorld{};
    g_world.binary = cs.binary;
    g_world.binary_query_fails = cs.query_fails;
    // A new kernel and queue each time: preparation is once per kernel.
    cl_kernel kernel = reinterpret_cast<cl_kernel>(newObject());
    cl_command_queue queue = reinterpret_cast<cl_command_queue>(newObject());
    // Each case is a new "program" too: the registry caches binaries per program.
    g_program.id = g_next_id.fetch_add(1);
    cl_mem buf = reinterpret_cast<cl_mem>(newObject());
    int v = 1;
    ASSERT_EQ(hkSetKernelArg(kernel, 0, sizeof buf, &buf), CL_SUCCESS);
    ASSERT_EQ(hkSetKernelArg(kernel, 1, sizeof v, &v), CL_SUCCESS);
    size_t g = 64, l = 8;
    EXPECT_EQ(hkEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &g, &l, 0, nullptr, nullptr),
              CL_SUCCESS)
        << cs.what;
    EXPECT_EQ(hkEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &g, &l, 0, nullptr, nullptr),
              CL_SUCCESS)
        << cs.what;
    EXPECT_EQ(g_world.enqueues, 2) << cs.what;
    hk_launch_counts c{};
    ASSERT_EQ(hkGetKernelLaunchCounts(kernel, &c), CL_SUCCESS);
    EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 2u) << cs.what;
    EXPECT_EQ(c.by_reason[HK_REASON_PREPARE_FAILED], 2u) << cs.what;
    EXPECT_EQ(hkFinish(queue), CL_SUCCESS);
  }
}

}  // namespace
