// Kernels whose results are the work-items' ids and sizes: every geometry's edge cases
// (one work-item, NULL local sizes, offsets, 1 to 3 dimensions) belong here.
#include "integration/corpus_cases/cases.hpp"

#include <cstddef>
#include <vector>

#include "support/corpus_table.hpp"
#include "support/random.hpp"

namespace corpus {

std::vector<Case> work_item_cases() {
  Table t;
  // trivial: out[gid] = gid. One work-item is the benchmark's launch.
  t.add("trivial", "trivial.cl", "trivial",
      {geo({1}, {1}), geo({1}), geo({1000}, {8}), geo({4096}), geo({100}, {100}, {7}),
       geo({4096}, {4096}), geo({8192}, {1})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel((g.off(0) + g.g(0)) * 4, Elem::i32)};
        s.args = {mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_int>(o[0]);
        expect_untouched(out, 0, g.off(0), "out");
        for (size_t i = g.off(0); i < out.size(); ++i) ASSERT_EQ(out[i], (cl_int)i) << i;
      })
      .spirv({geo({1000}, {8}), geo({100}, {100}, {7})});

  // empty: does nothing (the benchmark's team launch overhead); the buffer stays as set.
  t.add("empty", "trivial.cl", "empty", {geo({1}, {1}), geo({1000}, {8}), geo({4096})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel(g.g(0) * 4, Elem::i32)};
        s.args = {mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        expect_untouched(as<cl_int>(o[0]), 0, g.g(0), "out");
      })
      .spirv({geo({1000}, {8})});

  // 2-D indexing.
  t.add("index_2d", "index_2d.cl", "index_2d",
      {geo({64, 32}, {8, 4}), geo({30, 20}, {5, 4}), geo({64, 16}),
       geo({16, 16}, {16, 16}, {3, 5}), geo({1, 1}, {1, 1}), geo({128, 2}, {1, 2}),
       geo({17, 13})},
      one_output(4, Elem::i32),
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_int>(o[0]);
        for (size_t y = 0; y < g.g(1); ++y)
          for (size_t x = 0; x < g.g(0); ++x)
            ASSERT_EQ(out[linear(g, x, y)], (cl_int)(x + g.off(0) + 10000 * (y + g.off(1))))
                << x << "," << y;
      })
      .spirv({geo({64, 32}, {8, 4}), geo({16, 16}, {16, 16}, {3, 5})});

  // 3-D indexing.
  t.add("index_3d", "index_3d.cl", "index_3d",
      {geo({8, 8, 8}, {2, 4, 8}), geo({6, 10, 3}, {3, 5, 1}), geo({16, 4, 4}),
       geo({4, 6, 8}, {4, 3, 2}, {1, 2, 3}), geo({2, 2, 64}, {1, 1, 16}), geo({5, 7, 3}),
       geo({16, 16, 16}, {}, {2, 4, 8})},
      one_output(4, Elem::i32),
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_int>(o[0]);
        for (size_t z = 0; z < g.g(2); ++z)
          for (size_t y = 0; y < g.g(1); ++y)
            for (size_t x = 0; x < g.g(0); ++x)
              ASSERT_EQ(out[linear(g, x, y, z)],
                        (cl_int)(1000000 + x + g.off(0) + 100 * (y + g.off(1)) +
                                 10000 * (z + g.off(2))))
                  << x << "," << y << "," << z;
      })
      .spirv({geo({8, 8, 8}, {2, 4, 8}), geo({4, 6, 8}, {4, 3, 2}, {1, 2, 3})});

  // The same 3-D update indexed two ways (index_forms_3d.cl): from a 1-D grid over a
  // 4 x 6 x 8 volume, and from a 3-D grid.
  t.spirv_only("index_forms_3d.cl", "index_linear3d", {geo({4 * 6 * 8}, {32})},
               [](const Geometry &g) {
                 Resources s;
                 s.buffers = {input(ints<cl_int>(g.items(), 3, 1000), Elem::i32),
                              sentinel(g.items() * 4, Elem::i32)};
                 s.args = {mem(0), mem(1), val(cl_uint{4}), val(cl_uint{6})};
                 return s;
               });
  t.spirv_only("index_forms_3d.cl", "index_cartesian3d", {geo({4, 6, 8}, {4, 3, 2})},
               [](const Geometry &g) {
                 Resources s;
                 s.buffers = {input(ints<cl_int>(g.items(), 4, 1000), Elem::i32),
                              sentinel(g.items() * 4, Elem::i32)};
                 s.args = {mem(0), mem(1)};
                 return s;
               });

  // Global offsets in 1, 2 and 3 dimensions.
  t.add("global_offset", "global_offset.cl", "global_offset",
      {geo({100}, {10}, {5}), geo({16, 8}, {4, 4}, {3, 4}),
       geo({4, 4, 4}, {2, 2, 2}, {1, 10, 100}), geo({64}, {}, {1000}), geo({8, 8}, {}, {7, 9}),
       geo({32}, {32}, {0})},
      one_output(16, Elem::u32),
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_uint>(o[0]);
        for (size_t z = 0; z < g.g(2); ++z)
          for (size_t y = 0; y < g.g(1); ++y)
            for (size_t x = 0; x < g.g(0); ++x) {
              const cl_uint *r = &out[4 * linear(g, x, y, z)];
              size_t id[3] = {x + g.off(0), y + g.off(1), z + g.off(2)};
              for (int d = 0; d < 3; ++d)
                ASSERT_EQ(r[d], (cl_uint)(id[d] * 7 + g.off(d))) << x << "," << y << "," << z;
              ASSERT_EQ(r[3], g.dim);
            }
      })
      .spirv({geo({16, 8}, {4, 4}, {3, 4}), geo({4, 4, 4}, {2, 2, 2}, {1, 10, 100})});

  // Every work-item builtin for every work-item. With an explicit local size both
  // buffers are compared bit for bit; with a NULL local size the implementation picks
  // the work-group size, so only the global part is compared and the local part is
  // checked for consistency.
  auto builtins_check = [](const Outputs &o, const Geometry &g) {
    auto gi = as<cl_uint>(o[0]);
    auto li = as<cl_uint>(o[1]);
    for (size_t idx = 0; idx < g.items(); ++idx) {
      size_t rest = idx, id[3];
      for (int d = 0; d < 3; ++d) {
        id[d] = rest % g.g(d);
        rest /= g.g(d);
      }
      const cl_uint *G = &gi[10 * idx], *L = &li[12 * idx];
      ASSERT_EQ(G[0], g.dim) << idx;
      for (int d = 0; d < 3; ++d) {
        ASSERT_EQ(G[1 + d], id[d] + g.off(d)) << "global id, item " << idx << " dim " << d;
        ASSERT_EQ(G[4 + d], g.g(d)) << "global size, item " << idx << " dim " << d;
        ASSERT_EQ(G[7 + d], g.off(d)) << "global offset, item " << idx << " dim " << d;
        cl_uint lid = L[d], grp = L[3 + d], ngr = L[6 + d], lsz = L[9 + d];
        if (g.has_local) {
          ASSERT_EQ(lsz, g.l(d)) << "local size, item " << idx << " dim " << d;
        }
        ASSERT_GT(lsz, 0u);
        ASSERT_EQ(g.g(d) % lsz, 0u) << "local size " << lsz << " dim " << d;
        ASSERT_EQ(ngr, g.g(d) / lsz) << "num groups, item " << idx << " dim " << d;
        ASSERT_EQ(grp * lsz + lid, id[d]) << "group/local id, item " << idx << " dim " << d;
        ASSERT_LT(lid, lsz);
      }
    }
  };
  auto builtins_setup = [](const Geometry &g) {
    Resources s;
    s.buffers = {sentinel(g.items() * 40, Elem::u32), sentinel(g.items() * 48, Elem::u32)};
    s.buffers[1].compare = g.has_local;
    s.args = {mem(0), mem(1)};
    return s;
  };
  t.add("workitem_builtins", "workitem_builtins.cl", "workitem_builtins",
      {geo({48}, {16}), geo({45}, {9}), geo({1}, {1}), geo({12, 8}, {4, 2}),
       geo({12, 10}, {3, 5}), geo({8, 4, 6}, {2, 2, 3}), geo({4, 6, 2}, {2, 3, 1}, {5, 6, 7}),
       geo({64}, {64}, {3}), geo({16, 16}, {16, 1}, {100, 200}), geo({256}), geo({24, 18}),
       geo({6, 4, 10})},
      builtins_setup, builtins_check)
      .spirv({geo({12, 10}, {3, 5}), geo({4, 6, 2}, {2, 3, 1}, {5, 6, 7})});

  // reqd_work_group_size(8,4,1). (A NULL local size is CL_INVALID_WORK_GROUP_SIZE for such
  // a kernel in OpenCL 1.2, and PoCL 3.1 returns that: error cases are not tested here.)
  t.add("reqd_wg_size", "reqd_wg_size.cl", "reqd_wg_size",
      {geo({32, 8}, {8, 4}), geo({8, 4}, {8, 4}), geo({64, 4}, {8, 4}, {8, 0})},
      one_output(4, Elem::u32),
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_uint>(o[0]);
        for (size_t y = 0; y < g.g(1); ++y)
          for (size_t x = 0; x < g.g(0); ++x)
            ASSERT_EQ(out[y * g.g(0) + x],
                      (cl_uint)(x % 8) | (cl_uint)(y % 4) << 8 | 8u << 16 | 4u << 24)
                << x << "," << y;
      })
      .spirv({geo({32, 8}, {8, 4})});

  return t.cases();
}

}  // namespace corpus
