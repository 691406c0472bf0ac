// Kernels whose arguments are the point: a struct passed by value, eighteen arguments of
// every scalar and vector width.
#include "integration/corpus_cases/cases.hpp"

#include <cstddef>
#include <vector>

#include "support/corpus_support.hpp"
#include "support/corpus_table.hpp"
#include "support/random.hpp"

namespace corpus {

std::vector<Case> argument_cases() {
  Table t;
  // By-value struct argument.
  t.add("struct_arg", "struct_arg.cl", "struct_arg",
      {geo({64}, {16}), geo({33}), geo({48}, {3})},
      [](const Geometry &g) {
        Params p{};
        p.f = 1.75f;
        p.i = -123456;
        p.d = 2.0 / 3.0;
        p.u = 0xdeadbeefu;
        p.s = -321;
        p.c = 200;
        p.v.s[0] = 1.0f; p.v.s[1] = -2.0f; p.v.s[2] = 0.5f; p.v.s[3] = 4.0f;
        Resources s;
        s.buffers = {sentinel(g.g(0) * 8 * 8, Elem::f64)};
        s.args = {val(p), mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<double>(o[0]);
        for (size_t i = 0; i < g.g(0); ++i) {
          const double *r = &out[8 * i];
          ASSERT_EQ(r[0], 1.75 * (double)i) << i;
          ASSERT_EQ(r[1], (double)(-123456 + (int)i)) << i;
          ASSERT_EQ(r[2], (2.0 / 3.0) / (double)(i + 1)) << i;
          ASSERT_EQ(r[3], (double)(0xdeadbeefu ^ (cl_uint)i)) << i;
          ASSERT_EQ(r[4], -321.0);
          ASSERT_EQ(r[5], 200.0);
          ASSERT_EQ(r[6], 1.0 - 4.0 + 2.0 + 32.0);
          ASSERT_EQ(r[7], 48.0);
        }
      })
      .spirv({geo({64}, {16})});

  // 18 arguments.
  t.add("many_args", "many_args.cl", "many_args", {geo({128}, {32}), geo({50}), geo({7}, {7})},
      [](const Geometry &g) {
        size_t n = g.g(0);
        Resources s;
        s.buffers = {sentinel(n * 4, Elem::f32),                         // 0 out
                     input(floats(n, 15), Elem::f32),                    // 1 a
                     input(ints<cl_int>(n, 16, 1000), Elem::i32),        // 2 b
                     input(floats(n, 17), Elem::f32),                    // 3 c
                     input(doubles(n, 18, -1000.0, 1000.0), Elem::f64),  // 4 d
                     sentinel(n * 4, Elem::i32)};                        // 5 out2
        cl_float2 s7;
        s7.s[0] = 0.25f; s7.s[1] = -8.5f;
        cl_int4 s8;
        s8.s[0] = 1; s8.s[1] = -2; s8.s[2] = 3; s8.s[3] = -4;
        s.args = {mem(0), mem(1), mem(2), val(1.5f), val((cl_int)-3), val((cl_uint)0xa5a5a5a5u),
                  mem(3), val(0.125), val((cl_long)0x123456789abcdefll), val((cl_short)-7),
                  val((cl_uchar)250), mem(4), val(s7), val(s8), mem(5),
                  val((cl_ulong)0xfedcba9876543210ull), val((cl_char)-100), val(3.0f)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto b = as<cl_int>(o[2]);
        auto d = as<double>(o[4]);
        auto out2 = as<cl_int>(o[5]);
        for (size_t i = 0; i < g.g(0); ++i) {
          cl_int want = (cl_int)(0xa5a5a5a5u ^ (cl_uint)i) + -7 + 250 + 1 - 4 + 9 - 16 +
                        (cl_int)(0x123456789abcdefll >> 32) + (cl_int)(0x3210) +
                        (cl_int)(d[i] * 0.125);
          ASSERT_EQ(out2[i], want) << i;
        }
        (void)b;
      })
      .spirv({geo({128}, {32})});

  return t.cases();
}

}  // namespace corpus
