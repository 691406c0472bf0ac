// Integer and floating-point math: 64-bit integers, float and double builtins, and
// denormals under the build options and caller environments that change them.
#include "integration/corpus_cases/cases.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "support/corpus_table.hpp"
#include "support/random.hpp"

namespace corpus {

std::vector<Case> math_cases() {
  Table t;
  // 64-bit integer math.
  t.add("int64_math", "int64_math.cl", "int64_math", {geo({256}, {64}), geo({100})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(ints<cl_ulong>(g.g(0), 9), Elem::u64),
                     input(ints<cl_ulong>(g.g(0), 10), Elem::u64),
                     sentinel(g.g(0) * 64, Elem::u64)};
        s.args = {mem(0), mem(1), mem(2)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto a = as<cl_ulong>(o[0]), b = as<cl_ulong>(o[1]), out = as<cl_ulong>(o[2]);
        for (size_t i = 0; i < g.g(0); ++i) {
          cl_ulong x = a[i], y = b[i];
          const cl_ulong *r = &out[8 * i];
          ASSERT_EQ(r[0], (cl_ulong)(((unsigned __int128)x * y) >> 64)) << i;
          ASSERT_EQ(r[1], (cl_ulong)(((__int128)(cl_long)x * (cl_long)y) >> 64)) << i;
          ASSERT_EQ(r[2], x << (y & 63)) << i;
          ASSERT_EQ(r[3], (cl_ulong)((cl_long)x >> (y & 63))) << i;
          ASSERT_EQ(r[4], x / (y | 1)) << i;
          ASSERT_EQ(r[5], (cl_ulong)((cl_long)x % (cl_long)((y >> 1) | 1))) << i;
          unsigned sh = y & 63;
          ASSERT_EQ(r[6], sh ? (x << sh) | (x >> (64 - sh)) : x) << i;
        }
      })
      .spirv({geo({256}, {64})});

  // Single-precision math builtins.
  t.add("float_math", "float_math.cl", "float_math",
      {geo({256}, {64}), geo({100}), geo({64}, {1})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(floats(g.g(0), 12, -20.0f, 20.0f), Elem::f32),
                     sentinel(g.g(0) * 32, Elem::f32)};
        s.args = {mem(0), mem(1)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<float>(o[0]), out = as<float>(o[1]);
        for (size_t i = 0; i < g.g(0); ++i) {
          float v = in[i];
          ASSERT_EQ(out[8 * i + 0], std::sqrt(std::fabs(v))) << i;
          ASSERT_EQ(out[8 * i + 6], v / 7.0f) << i;
          ASSERT_TRUE(near(out[8 * i + 3], std::sin(v), 1e-5)) << i;
        }
      })
      .spirv({geo({256}, {64})});

  // Double-precision math (also with a hostile caller FP environment).
  auto double_setup = [](const Geometry &g) {
    Resources s;
    s.buffers = {input(doubles(g.g(0), 11, -50.0, 50.0), Elem::f64),
                 sentinel(g.g(0) * 64, Elem::f64)};
    s.args = {mem(0), mem(1)};
    return s;
  };
  auto double_check = [](const Outputs &o, const Geometry &g) {
    auto in = as<double>(o[0]), out = as<double>(o[1]);
    for (size_t i = 0; i < g.g(0); ++i) {
      double v = in[i];
      const double *r = &out[8 * i];
      ASSERT_EQ(r[0], std::sqrt(std::fabs(v))) << i;
      ASSERT_TRUE(near(r[1], std::exp(v * 0.01), 1e-14)) << i;
      ASSERT_TRUE(near(r[2], std::log(std::fabs(v) + 1.0), 1e-14)) << i;
      ASSERT_TRUE(near(r[3], std::sin(v), 1e-13)) << i;
      ASSERT_TRUE(near(r[4], std::pow(std::fabs(v), 1.5), 1e-14)) << i;
      ASSERT_EQ(r[5], std::fma(v, v, 1.0 / 3.0)) << i;
      ASSERT_EQ(r[6], v / 7.0) << i;
    }
  };
  t.add("double_math", "double_math.cl", "double_math",
      {geo({256}, {64}), geo({100}, {20}), geo({100})}, double_setup, double_check)
      .spirv({geo({256}, {64})});
  t.add("double_math_hostile_fpenv", "double_math.cl", "double_math", {geo({256}, {64})},
      double_setup, double_check)
      .hostile_fpenv();

  // One double builtin per element (math_f64.cl), on inputs from [lo, hi).
  auto f64_setup = [](uint64_t seed, double lo, double hi) {
    return [=](const Geometry &g) {
      Resources s;
      s.buffers = {input(doubles(g.g(0), seed, lo, hi), Elem::f64),
                   sentinel(g.g(0) * 8, Elem::f64)};
      s.args = {mem(0), mem(1)};
      return s;
    };
  };
  t.spirv_only("math_f64.cl", "sin_f64", {geo({256}, {64})}, f64_setup(21, -100.0, 100.0));
  t.spirv_only("math_f64.cl", "exp_f64", {geo({256}, {64})}, f64_setup(22, -20.0, 20.0));

  // Float denormals, normally and with -cl-denorms-are-zero (the FTZ cases come first so
  // that an FTZ setting leaking into later launches shows up), and with a hostile caller
  // environment.
  auto denormals_setup = [](const Geometry &g) {
    std::vector<float> tiny(g.g(0));
    for (size_t i = 0; i < tiny.size(); ++i)
      tiny[i] = 1e-40f * (float)(1 + i % 7) * ((i & 8) ? -1.0f : 1.0f);
    Resources s;
    s.buffers = {input(floats(g.g(0), 20, 0.5f, 2.0f), Elem::f32), input(tiny, Elem::f32),
                 sentinel(g.g(0) * 24, Elem::f32)};
    s.args = {mem(0), mem(1), mem(2)};
    return s;
  };
  // PoCL runs a program built with -cl-denorms-are-zero with FTZ and DAZ set.
  auto denormals_ftz_check = [](const Outputs &o, const Geometry &g) {
    auto out = as<float>(o[2]);
    for (size_t i = 0; i < g.g(0); ++i) {
      ASSERT_EQ(out[6 * i + 0], 0.0f) << i << ": denormal result not flushed (FTZ)";
      ASSERT_EQ(out[6 * i + 2], 0.0f) << i << ": denormal sum not flushed";
      ASSERT_EQ(out[6 * i + 3], -1.0f) << i << ": denormal input not read as zero (DAZ)";
      for (int k : {0, 2, 3, 4, 5})  // (t * 1.0f is folded to t by the compiler)
        ASSERT_NE(std::fpclassify(out[6 * i + k]), FP_SUBNORMAL) << i << "/" << k;
    }
  };
  t.add("denormals_ftz", "denormals.cl", "denormals", {geo({256}, {64}), geo({100})},
      denormals_setup, denormals_ftz_check, "-cl-denorms-are-zero")
      .spirv({geo({256}, {64})}, "denormals_ftz");
  t.add("denormals_ftz_hostile_fpenv", "denormals.cl", "denormals", {geo({256}, {64})},
      denormals_setup, denormals_ftz_check, "-cl-denorms-are-zero")
      .hostile_fpenv();
  auto denormals_check = [](const Outputs &o, const Geometry &g) {
    auto tiny = as<float>(o[1]);
    auto out = as<float>(o[2]);
    for (size_t i = 0; i < g.g(0); ++i) {
      ASSERT_EQ(out[6 * i + 1], tiny[i]) << i << ": denormal input flushed";
      ASSERT_EQ(out[6 * i + 2], tiny[i] + tiny[i]) << i;
      ASSERT_NE(out[6 * i + 0], 0.0f) << i << ": denormal result flushed";
    }
  };
  t.add("denormals", "denormals.cl", "denormals", {geo({256}, {64}), geo({100})},
      denormals_setup, denormals_check)
      .spirv({geo({256}, {64})});
  t.add("denormals_hostile_fpenv", "denormals.cl", "denormals", {geo({256}, {64})},
      denormals_setup, denormals_check)
      .hostile_fpenv();

  return t.cases();
}

}  // namespace corpus
