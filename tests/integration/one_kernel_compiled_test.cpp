// A program of many kernels, of which a few are launched directly, has only those few
// compiled (docs/first-launch.md, "One kernel compiled"): each one's first launch goes to
// PoCL's queue, which compiles its work-group function for that geometry into PoCL's
// kernel cache, and its later launches call that function directly. Run by ctest with a
// private, empty PoCL kernel cache (tests/integration/one_kernel_compiled.cmake), which the
// test then reads: only the launched kernels have a library there. A launch with another
// geometry takes the program's binary, as before: every kernel compiled, the same results.
// A kernel with an image argument takes no binary at all.
#include <hostkernel/hostkernel.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr int kKernels = 64;

// kKernels kernels "<prefix><j>" that write v * 3 + j.
std::string source(const std::string &prefix) {
  std::string s;
  for (int j = 0; j < kKernels; ++j)
    s += "kernel void " + prefix + std::to_string(j) +
         "(global int *o, int v) { o[get_global_id(0)] = v * 3 + " + std::to_string(j) +
         "; }\n";
  return s;
}

// The kernels of the program whose kernel names start with `prefix` that have a compiled
// library in PoCL's kernel cache ($POCL_CACHE_DIR/<build hash>/<kernel>/<variant>/*.so).
std::set<std::string> compiledKernels(const std::string &prefix) {
  std::set<std::string> out;
  const char *top = std::getenv("POCL_CACHE_DIR");
  if (!top) return out;
  for (const fs::directory_entry &e : fs::recursive_directory_iterator(top)) {
    if (!e.is_regular_file() || e.path().extension() != ".so") continue;
    const std::string kernel = e.path().parent_path().parent_path().filename().string();
    if (kernel.rfind(prefix, 0) == 0) out.insert(kernel);
  }
  return out;
}

void check(const hk::Buffer<int> &o, std::size_t n, int v, int j) {
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(o[i], v * 3 + j) << i;
}

TEST(OneKernelCompiled, DirectLaunchesCompileOnlyTheirKernels) {
  ASSERT_NE(std::getenv("POCL_CACHE_DIR"), nullptr);
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program program = hk::Program::fromSource(rt, source("one_"));
  constexpr std::size_t n = 1024;
  hk::Buffer<int> o(rt, n);
  for (int j : {5, 17, 40}) {
    hk::Kernel k(program, "one_" + std::to_string(j));
    for (int v = 1; v <= 6; ++v) {
      k.launch({n}, {64}, o, v);
      rt.finish();
      check(o, n, v, j);
    }
    const hk_launch_counts c = k.counts();
    EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u) << j;  // the first launch: PoCL compiles it
    EXPECT_EQ(c.by_reason[HK_REASON_FIRST_LAUNCH], 1u) << j;
    EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 5u) << j;
  }
  EXPECT_EQ(compiledKernels("one_"), (std::set<std::string>{"one_5", "one_17", "one_40"}));
}

// Kernel `j` of a program of its own ("<prefix>0" ...), launched on 1024 work-items.
struct KernelOfMany {
  static constexpr std::size_t n = 1024;
  KernelOfMany(const std::string &prefix, int j)
      : program(hk::Program::fromSource(rt, source(prefix))),
        o(rt, n),
        k(program, prefix + std::to_string(j)),
        j(j) {}
  // Launches with `local` and value v, waits, and checks the output.
  void launch(std::size_t local, int v) {
    k.launch({n}, {local}, o, v);
    rt.finish();
    check(o, n, v, j);
  }
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program program;
  hk::Buffer<int> o;
  hk::Kernel k;
  int j;
};

TEST(OneKernelCompiled, AnotherGeometryTakesTheBinary) {
  KernelOfMany two("two_", 9);
  for (int v = 1; v <= 3; ++v) two.launch(64, v);
  EXPECT_EQ(compiledKernels("two_").size(), 1u);
  // A local size no function at hand was compiled for: the generic function, from the
  // program's binary, which compiles every kernel.
  two.launch(32, 7);
  const hk_launch_counts c = two.k.counts();
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 1u);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 3u);
  EXPECT_EQ(compiledKernels("two_").size(), static_cast<std::size_t>(kKernels));
}

// A first launch with a local size of its own, after the queued first launch has run:
// PoCL's queue compiles its function (as PoCL alone would), without a wait for the queued
// launch's function, which is another size's. The next new size takes the binary. Was a
// bug: each of the two waited the full bound (2 s) for a function PoCL never compiled.
// ctest runs this test with HOSTKERNEL_LOG=info, so that a wait is said on stderr.
TEST(OneKernelCompiled, ANewLocalSizeDoesNotWaitForAnotherSizesFunction) {
  KernelOfMany three("three_", 3);
  three.launch(64, 1);  // PoCL's queue: its first launch
  testing::internal::CaptureStderr();
  three.launch(16, 2);  // PoCL's queue again: compiles the function for 16
  three.launch(8, 3);   // the program's binary: the generic function, direct
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said.find("waits for PoCL's queue"), std::string::npos) << said;
  const hk_launch_counts c = three.k.counts();
  EXPECT_EQ(c.by_reason[HK_REASON_FIRST_LAUNCH], 2u);
  EXPECT_EQ(c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM], 1u);
}

// A kernel with an image argument runs on PoCL's queue whatever the launch
// (HK_REASON_ARG_KIND after its first launch): its later launches must not take the
// program's binary, which would compile every other kernel of the program for a function
// nobody calls. Was so: ffmpeg's OpenCL filters compiled all their programs' kernels.
TEST(OneKernelCompiled, AKernelWithAnImageArgumentCompilesNoOtherKernel) {
  hk::Runtime &rt = hk::Runtime::get();
  cl_bool images = CL_FALSE;
  ASSERT_EQ(clGetDeviceInfo(rt.device(), CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images,
                            nullptr),
            CL_SUCCESS);
  if (!images) GTEST_SKIP() << "the device has no image support";
  const std::string src =
      source("img_") +
      "kernel void img_read(read_only image2d_t im, global int *o) {\n"
      "  o[get_global_id(0)] = read_imagei(im, (int2)((int)get_global_id(0), 0)).x * 2;\n"
      "}\n";
  hk::Program program = hk::Program::fromSource(rt, src);
  constexpr std::size_t n = 64;
  // RGBA: a format every image device has (PoCL 7.1 has no CL_R of CL_SIGNED_INT32).
  std::vector<cl_int> pixels(4 * n);
  for (std::size_t i = 0; i < 4 * n; ++i) pixels[i] = static_cast<cl_int>(i * 7 + 1);
  const cl_image_format format{CL_RGBA, CL_SIGNED_INT32};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = n;
  desc.image_height = 1;
  cl_int err = CL_SUCCESS;
  cl_mem image = clCreateImage(rt.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format,
                               &desc, pixels.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  hk::Buffer<int> o(rt, n);
  hk::Kernel k(program, "img_read");
  const cl_mem out = o.get();
  ASSERT_EQ(hkSetKernelArg(k.get(), 0, sizeof image, &image), CL_SUCCESS);
  ASSERT_EQ(hkSetKernelArg(k.get(), 1, sizeof out, &out), CL_SUCCESS);
  const std::size_t global = n, local = 16;
  for (int launch = 0; launch < 4; ++launch) {
    ASSERT_EQ(hkEnqueueNDRangeKernel(rt.queue(), k.get(), 1, nullptr, &global, &local, 0,
                                     nullptr, nullptr),
              CL_SUCCESS);
    rt.finish();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(o[i], pixels[4 * i] * 2) << i;
  }
  const hk_launch_counts c = k.counts();
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 4u);
  EXPECT_EQ(c.by_reason[HK_REASON_ARG_KIND], 3u);
  EXPECT_EQ(compiledKernels("img_"), (std::set<std::string>{"img_read"}));
  clReleaseMemObject(image);
}

}  // namespace
