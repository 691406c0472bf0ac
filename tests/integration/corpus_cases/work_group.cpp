// Kernels whose work-items share a work-group: __local memory (arguments and automatic
// arrays), barriers, and private data that must survive them.
#include "integration/corpus_cases/cases.hpp"

#include <cstddef>
#include <vector>

#include "support/corpus_table.hpp"
#include "support/random.hpp"

namespace corpus {

std::vector<Case> work_group_cases() {
  Table t;
  // __local pointer argument + barrier tree reduction (power-of-two local sizes).
  t.add("reduce_local_arg", "reduce_local_arg.cl", "reduce_sum",
      {geo({4096}, {64}), geo({2048}, {128}), geo({8192}, {256}), geo({16}, {2}),
       geo({64}, {1}), geo({1024}, {32}, {256})},
      [](const Geometry &g) {
        Resources s;
        size_t groups = g.g(0) / g.l(0);
        s.buffers = {input(floats(g.off(0) + g.g(0), 3), Elem::f32),
                     sentinel(groups * 4, Elem::f32)};
        s.args = {mem(0), mem(1), local_mem(g.l(0) * sizeof(float))};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<float>(o[0]);
        auto partial = as<float>(o[1]);
        for (size_t grp = 0; grp < partial.size(); ++grp) {
          double sum = 0;
          for (size_t i = 0; i < g.l(0); ++i) sum += in[g.off(0) + grp * g.l(0) + i];
          ASSERT_TRUE(near(partial[grp], sum, 1e-4))
              << grp << ": " << partial[grp] << " vs " << sum;
        }
      })
      .spirv({geo({4096}, {64})});
  t.spirv_only("reduce_local_f64.cl", "reduce_sum_f64", {geo({2048}, {128})},
               [](const Geometry &g) {
                 Resources s;
                 s.buffers = {input(doubles(g.g(0), 6, -10.0, 10.0), Elem::f64),
                              sentinel(g.g(0) / g.l(0) * 8, Elem::f64)};
                 s.args = {mem(0), mem(1), local_mem(g.l(0) * sizeof(double))};
                 return s;
               });

  // Barriers inside a loop: work-group prefix sum.
  t.add("scan_local", "scan_local.cl", "scan_local",
      {geo({256}, {64}), geo({1024}, {256}), geo({30}, {10}), geo({7}, {7})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(ints<cl_int>(g.g(0), 21, 100), Elem::i32),
                     sentinel(g.g(0) * 4, Elem::i32)};
        s.args = {mem(0), mem(1), local_mem(g.l(0) * 4)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<cl_int>(o[0]), out = as<cl_int>(o[1]);
        cl_int sum = 0;
        for (size_t i = 0; i < g.g(0); ++i) {
          if (i % g.l(0) == 0) sum = 0;
          sum += in[i];
          ASSERT_EQ(out[i], sum) << i;
        }
      })
      .spirv({geo({256}, {64})});

  // Two __local arguments plus an automatic local array.
  t.add("local_mixed", "local_mixed.cl", "local_mixed",
      {geo({256}, {64}), geo({64}, {16}), geo({35}, {5}), geo({4}, {1})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel(g.g(0) * 4, Elem::i32)};
        s.args = {mem(0), local_mem(g.l(0) * 4), local_mem(g.l(0) * 4)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_int>(o[0]);
        size_t n = g.l(0);
        for (size_t i = 0; i < g.g(0); ++i) {
          size_t lid = i % n;
          cl_int want = (cl_int)((lid + 1) % n + 1) + 1000 * (cl_int)((lid + 2) % n + 1) +
                        1000000 * (cl_int)((lid + 3) % n + 1);
          ASSERT_EQ(out[i], want) << i;
        }
      })
      .spirv({geo({256}, {64})});

  // Automatic local tile[16][17]: tiled transpose; and the naive one, for comparison.
  auto transpose_setup = [](const Geometry &g) {
    Resources s;
    size_t w = g.g(0), h = g.g(1);
    s.buffers = {input(floats(w * h, 4), Elem::f32), sentinel(w * h * 4, Elem::f32)};
    s.args = {mem(0), mem(1), val((cl_uint)w), val((cl_uint)h)};
    return s;
  };
  t.add("transpose_tiled", "transpose_tiled.cl", "transpose_tiled",
      {geo({64, 32}, {16, 16}), geo({16, 16}, {16, 16}), geo({32, 64}, {16, 16})},
      transpose_setup,
      [](const Outputs &o, const Geometry &g) {
        auto in = as<float>(o[0]);
        auto out = as<float>(o[1]);
        size_t w = g.g(0), h = g.g(1);
        for (size_t y = 0; y < h; ++y)
          for (size_t x = 0; x < w; ++x)
            ASSERT_EQ(out[x * h + y], in[y * w + x]) << x << "," << y;
      })
      .spirv({geo({64, 32}, {16, 16})});
  t.spirv_only("transpose_naive.cl", "transpose_naive", {geo({64, 32}, {8, 8})},
               transpose_setup);

  // 3-point smoothing through a kernel-scope __local tile, whatever the local size.
  t.spirv_only("smooth_local.cl", "smooth_local", {geo({1024}, {64}), geo({1000})},
               [](const Geometry &g) {
                 Resources s;
                 s.buffers = {input(floats(g.g(0), 10), Elem::f32),
                              sentinel(g.g(0) * 4, Elem::f32)};
                 s.args = {mem(0), mem(1), val((cl_uint)g.g(0))};
                 return s;
               });

  // Private array live across a barrier.
  t.add("private_across_barrier", "private_across_barrier.cl", "private_across_barrier",
      {geo({256}, {64}), geo({96}, {24}), geo({512}, {256}), geo({8}, {1})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(floats(g.g(0) * 8, 5), Elem::f32), sentinel(g.g(0) * 4, Elem::f32)};
        s.args = {mem(0), mem(1)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<float>(o[0]);
        auto out = as<float>(o[1]);
        size_t n = g.l(0);
        for (size_t base = 0; base < g.g(0); base += n) {
          auto priv = [&](size_t lid, size_t k) {
            return in[(base + lid) * 8 + k] * (float)(k + 1) + (float)lid;
          };
          for (size_t lid = 0; lid < n; ++lid) {
            double acc = 0;
            for (size_t k = 0; k < 8; ++k) {
              size_t other = (lid + k) % n;
              acc += priv(lid, k) * priv(other, other & 7);
            }
            ASSERT_TRUE(near(out[base + lid], acc, 1e-4)) << base + lid;
          }
        }
      })
      .spirv({geo({256}, {64})});

  // A 16 KiB private array per work-item (docs/stack.md): groups small enough to fit.
  t.add("private_array", "private_array.cl", "private_array", {geo({64}, {16}), geo({96})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(floats(4096, 41), Elem::f32), sentinel(g.g(0) * 4, Elem::f32)};
        s.args = {mem(0), mem(1)};
        return s;
      })
      .spirv({geo({64}, {16})});

  return t.cases();
}

}  // namespace corpus
