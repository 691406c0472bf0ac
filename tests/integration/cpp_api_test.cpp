// The C++ API (include/hostkernel/hostkernel.hpp) as users see it: results equal a host
// computation, launches run inline, argument and build errors throw hk::Error with the
// kernel, the argument and the build log in what().
#include <hostkernel/hostkernel.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "support/file_text.hpp"
#include "support/launch_counts.hpp"

#ifndef HK_KERNELS_DIR
#error "HK_KERNELS_DIR must name the kernels/ directory"
#endif
#ifndef HK_SPIRV_DIR
#error "HK_SPIRV_DIR must name the corpus's SPIR-V directory"
#endif

namespace {

std::string kernelSource(const char *file) {
  return FileText(std::string(HK_KERNELS_DIR) + "/" + file);
}
std::vector<std::uint8_t> spirv(const char *file) {
  return FileBytes(std::string(HK_SPIRV_DIR) + "/" + file);
}

// Inputs for which a*x+y is exact in float (so fused and unfused evaluation agree).
void fillAxpy(hk::Buffer<float> &x, hk::Buffer<float> &y) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i % 64) * 0.25f;
    y[i] = static_cast<float>(i) * 0.5f;
  }
}
void expectAxpy(const hk::Buffer<float> &y, float a, std::size_t from = 0) {
  for (std::size_t i = 0; i < y.size(); ++i) {
    float x = static_cast<float>(i % 64) * 0.25f, y0 = static_cast<float>(i) * 0.5f;
    ASSERT_EQ(y[i], i < from ? y0 : a * x + y0) << i;
  }
}

// what() contains every one of `parts`.
void expectMessage(const hk::Error &e, std::initializer_list<const char *> parts) {
  std::string what = e.what();
  for (const char *p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
}

class CppApi : public ::testing::Test {
 protected:
  hk::Runtime &rt = hk::Runtime::get();
  hk::Program program = hk::Program::fromSource(rt, kernelSource("axpy.cl"));
};

TEST_F(CppApi, AxpyEqualsHostComputationAndRunsDirectly) {
  hk::Kernel axpy(program, "axpy");
  hk::Buffer<float> x(rt, 1000), y(rt, 1000);
  fillAxpy(x, y);
  axpy.launch({1000}, {40}, 2.5f, x, y);
  rt.finish();
  expectAxpy(y, 2.5f);

  fillAxpy(x, y);  // host writes go straight to the buffer: no copies
  axpy.launch({1000}, -1.5f, x, y);
  rt.finish();
  expectAxpy(y, -1.5f);

  hk_launch_counts c = axpy.counts();
  EXPECT_EQ(Direct(c), 2u);
  EXPECT_EQ(c.by_path[HK_PATH_QUEUE], 0u);
}

TEST_F(CppApi, SpirvProgramGivesTheSameResult) {
  hk::Program from_spirv = hk::Program::fromSpirv(rt, spirv("axpy.spv"));
  hk::Kernel axpy(from_spirv, "axpy");
  hk::Buffer<float> x(rt, 4096), y(rt, 4096);
  fillAxpy(x, y);
  axpy.launch({4096}, {64}, 0.75f, x, y);
  rt.finish();
  expectAxpy(y, 0.75f);
  EXPECT_EQ(Direct(axpy.counts()), 1u);
}

TEST_F(CppApi, GlobalOffset) {
  hk::Kernel axpy(program, "axpy");
  hk::Buffer<float> x(rt, 1024), y(rt, 1024);
  fillAxpy(x, y);
  axpy.launch(hk::NDRange{960}.offset({64}), {64}, 2.0f, x, y);
  rt.finish();
  expectAxpy(y, 2.0f, 64);
}

TEST_F(CppApi, LocalArgumentAndValuesFromASpan) {
  hk::Program p = hk::Program::fromSource(rt, kernelSource("reduce_local_arg.cl"));
  hk::Kernel reduce(p, "reduce_sum");
  std::vector<float> values(4096);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 7);
  hk::Buffer<float> in(rt, values), partial(rt, 4096 / 64);
  reduce.launch({4096}, {64}, in, partial, hk::Local<float>(64));
  rt.finish();
  for (std::size_t g = 0; g < partial.size(); ++g) {
    float want = 0;
    for (std::size_t i = 0; i < 64; ++i) want += values[g * 64 + i];
    ASSERT_EQ(partial[g], want) << g;  // small integers: exact in any order
  }
  EXPECT_EQ(reduce.counts().by_path[HK_PATH_QUEUE], 0u);
}

TEST_F(CppApi, WrongArgumentSizeThrowsNamingKernelAndArgument) {
  hk::Kernel axpy(program, "axpy");
  hk::Buffer<float> x(rt, 64), y(rt, 64);
  try {
    axpy.launch({64}, 2.5, x, y);  // double for `float a`
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_INVALID_ARG_SIZE);
    expectMessage(e, {"axpy: argument 0 (a): CL_INVALID_ARG_SIZE", "a value of 8 bytes", "float"});
  }
  hk_launch_counts c = axpy.counts();
  EXPECT_EQ(Direct(c) + c.by_path[HK_PATH_QUEUE], 0u) << "a launch with a bad argument ran";
}

TEST_F(CppApi, WrongArgumentKindThrowsNamingKernelAndArgument) {
  hk::Kernel axpy(program, "axpy");
  hk::Buffer<float> x(rt, 64), y(rt, 64);
  try {
    axpy.launch({64}, 2.5f, 1.0f, y);  // a value for `global const float *x`
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_INVALID_ARG_VALUE);
    expectMessage(e, {"axpy: argument 1 (x): CL_INVALID_ARG_VALUE", "global float*"});
  }
  try {
    axpy.launch({64}, x, x, y);  // a buffer for `float a`
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_INVALID_ARG_VALUE);
    expectMessage(e, {"axpy: argument 0 (a)", "a buffer of 256 bytes"});
  }
  try {
    axpy.launch({64}, 2.5f, hk::Local<float>(64), y);  // local memory for a global pointer
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    expectMessage(e, {"axpy: argument 1 (x)", "hk::Local"});
  }
}

TEST_F(CppApi, WrongArgumentCountThrows) {
  hk::Kernel axpy(program, "axpy");
  hk::Buffer<float> x(rt, 64);
  try {
    axpy.launch({64}, 2.5f, x);
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_INVALID_KERNEL_ARGS);
    expectMessage(e, {"axpy: 2 arguments given, the kernel takes 3"});
  }
}

TEST_F(CppApi, LaunchErrorThrowsNamingKernelAndGeometry) {
  hk::Kernel axpy(program, "axpy");
  hk::Buffer<float> x(rt, 64), y(rt, 64);
  try {
    axpy.launch({64}, {100000}, 2.5f, x, y);  // larger than the device's work-group limit
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    expectMessage(e, {"axpy: launch of 64 in work-groups of 100000"});
  }
  try {
    axpy.launch({64, 2}, {64}, 2.5f, x, y);
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_INVALID_WORK_DIMENSION);
  }
}

TEST_F(CppApi, BuildErrorThrowsWithTheBuildLog) {
  try {
    hk::Program::fromSource(rt, "kernel void broken(global int *p) { p[0] = undefined_name; }");
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_BUILD_PROGRAM_FAILURE);
    expectMessage(e, {"hk::Program::fromSource: CL_BUILD_PROGRAM_FAILURE", "build log",
                      "undefined_name"});
  }
}

TEST_F(CppApi, BadSpirvThrows) {
  const char text[] = "certainly not SPIR-V";
  try {
    hk::Program::fromSpirv(rt, text, sizeof text - 1);
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_INVALID_VALUE);
    expectMessage(e, {"hk::Program::fromSpirv: CL_INVALID_VALUE", "not SPIR-V"});
  }
}

TEST_F(CppApi, UnknownKernelNameThrows) {
  try {
    hk::Kernel k(program, "no_such_kernel");
    FAIL() << "no exception";
  } catch (const hk::Error &e) {
    EXPECT_EQ(e.code(), CL_INVALID_KERNEL_NAME);
    expectMessage(e, {"no_such_kernel"});
  }
}

TEST_F(CppApi, BufferIsZeroCopyAndVisibleToTheCApi) {
  hk::Buffer<int> b(rt, {1, 2, 3, 4});
  EXPECT_EQ(b.size(), 4u);
  int read[4] = {};
  ASSERT_EQ(hkEnqueueReadBuffer(rt.queue(), b.get(), CL_TRUE, 0, sizeof read, read, 0, nullptr,
                                nullptr),
            CL_SUCCESS);
  EXPECT_EQ(read[3], 4);
  int write[4] = {9, 8, 7, 6};
  ASSERT_EQ(hkEnqueueWriteBuffer(rt.queue(), b.get(), CL_TRUE, 0, sizeof write, write, 0,
                                 nullptr, nullptr),
            CL_SUCCESS);
  rt.finish();
  EXPECT_EQ(b[0], 9);  // the mapping is the buffer's memory
  hk::Buffer<int> moved = std::move(b);
  EXPECT_EQ(moved[1], 8);
  EXPECT_EQ(b.data(), nullptr);
}

}  // namespace
