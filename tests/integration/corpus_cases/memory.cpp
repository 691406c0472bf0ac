// Kernels that reach global memory in its several forms: buffers read and written
// element by element, a sub-buffer, SVM pointers, __constant memory and global atomics.
#include "integration/corpus_cases/cases.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "support/corpus_support.hpp"
#include "support/corpus_table.hpp"
#include "support/random.hpp"

namespace corpus {
namespace {

// The node after node i in svm_chase's chains of n nodes; -1: the end of a chain.
int svm_next(size_t i, size_t n) {
  return i % 11 == 10 ? -1 : static_cast<int>((i * 7 + 3) % n);
}

// guarded_copy.cl's kernel (which copies the first size - 23 elements of its grid) or
// unguarded_copy.cl's (every element): out[i] = 2 * in[i] + 1.
Setup copy_setup(bool guarded) {
  return [guarded](const Geometry &g) {
    Resources s;
    s.buffers = {input(ints<cl_int>(g.g(0), 22, 1000), Elem::i32),
                 sentinel(g.g(0) * 4, Elem::i32)};
    s.args = {mem(0), mem(1)};
    if (guarded) s.args.push_back(val((cl_uint)(g.g(0) - 23)));
    return s;
  };
}

}  // namespace

std::vector<Case> memory_cases() {
  Table t;
  // axpy: y = a*x + y.
  t.add("axpy", "axpy.cl", "axpy",
      {geo({1024}, {64}), geo({1000}, {40}), geo({1000}), geo({960}, {64}, {64}),
       geo({8192}, {256}), geo({3}, {1}), geo({997})},
      [](const Geometry &g) {
        size_t n = g.off(0) + g.g(0);
        Resources s;
        s.buffers = {input(floats(n, 1), Elem::f32), input(floats(n, 2), Elem::f32)};
        s.args = {val(2.5f), mem(0), mem(1)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto x = floats(o[0].size() / 4, 1), y0 = floats(o[0].size() / 4, 2);
        auto y = as<float>(o[1]);
        for (size_t i = 0; i < y.size(); ++i) {
          if (i < g.off(0)) {
            ASSERT_EQ(y[i], y0[i]) << i;
          } else {
            ASSERT_TRUE(near(y[i], 2.5 * x[i] + y0[i])) << i << ": " << y[i];
          }
        }
      })
      .spirv({geo({1024}, {64}), geo({997})});

  // Bounds-checked kernel on a padded grid.
  t.add("guarded_copy", "guarded_copy.cl", "guarded_copy",
      {geo({1024}, {64}), geo({1024}), geo({120}, {40})}, copy_setup(true),
      [](const Outputs &o, const Geometry &g) {
        auto in = as<cl_int>(o[0]), out = as<cl_int>(o[1]);
        size_t n = g.g(0) - 23;
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 2 + 1) << i;
        expect_untouched(out, n, out.size(), "out");
      })
      .spirv({geo({1024}, {64})});
  t.spirv_only("unguarded_copy.cl", "unguarded_copy", {geo({1024}, {64})}, copy_setup(false));

  // STREAM's copy and triad.
  t.spirv_only("stream.cl", "stream_copy", {geo({1024}, {64})}, [](const Geometry &g) {
    Resources s;
    s.buffers = {input(floats(g.g(0), 27), Elem::f32), sentinel(g.g(0) * 4, Elem::f32)};
    s.args = {mem(0), mem(1)};
    return s;
  });
  t.spirv_only("stream.cl", "stream_triad", {geo({1024}, {64})}, [](const Geometry &g) {
    Resources s;
    s.buffers = {sentinel(g.g(0) * 4, Elem::f32), input(floats(g.g(0), 28), Elem::f32),
                 input(floats(g.g(0), 29), Elem::f32)};
    s.args = {mem(0), mem(1), mem(2), val(3.0f)};
    return s;
  });

  // Sub-buffer: the kernel sees a window of a larger buffer; the rest must stay as it was.
  for (size_t k : {1, 3}) {
    Row &row = t.add(
        "sub_buffer_origin" + std::to_string(k), "sub_buffer_scale.cl", "scale_add",
        {k == 1 ? geo({256}, {64}) : geo({100}, {25})},
        [k](const Geometry &g) {
          size_t align = base_align() / 4;  // in floats
          size_t total = k * align + g.g(0) + 2 * align;
          Resources s;
          s.buffers = {input(floats(total, 19), Elem::f32)};
          s.args = {sub_mem(0, k * align * 4, g.g(0) * 4), val(1.5f), val(0.25f)};
          return s;
        },
        [k](const Outputs &o, const Geometry &g) {
          size_t start = k * base_align() / 4;
          auto data = as<float>(o[0]);
          auto orig = floats(data.size(), 19);
          for (size_t i = 0; i < data.size(); ++i) {
            if (i >= start && i < start + g.g(0))
              ASSERT_TRUE(near(data[i], orig[i] * 1.5 + 0.25)) << i;
            else
              ASSERT_EQ(data[i], orig[i]) << i << " outside the sub-buffer";
          }
        });
    if (k == 1) row.spirv({geo({256}, {64})});
  }

  // SVM: chains of nodes linked by absolute SVM pointers; output through an interior
  // SVM pointer.
  t.add("svm_chase", "svm_chase.cl", "svm_chase", {geo({64}, {16}), geo({64}), geo({200}, {8})},
      [](const Geometry &g) {
        size_t n = g.g(0);
        Resources s;
        Buffer nodes{Bytes(n * sizeof(Node)), Elem::u64, true, true};
        Buffer out{Bytes((n + 8) * 4, kSentinel), Elem::i32, true, true};
        s.buffers = {nodes, out};
        s.args = {svm(0), svm(1, 8 * 4), val((cl_int)6)};
        s.relocate = [n](std::vector<Buffer> &bufs, const std::vector<void *> &bases) {
          std::vector<Node> v(n);
          const Node *base = static_cast<const Node *>(bases[0]);
          for (size_t i = 0; i < n; ++i) {
            int nx = svm_next(i, n);
            v[i].next = nx < 0 ? nullptr : base + nx;
            v[i].value = (cl_int)(i * 13 % 97) - 40;
            v[i].pad = 0;
          }
          bufs[0].init = bytes_of(v);
        };
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        size_t n = g.g(0);
        auto out = as<cl_int>(o[1]);
        expect_untouched(out, 0, 8, "out");
        for (size_t i = 0; i < n; ++i) {
          int sum = 0, p = (int)i;
          for (int step = 0; step < 6 && p >= 0; ++step) {
            sum = sum * 3 + ((int)((size_t)p * 13 % 97) - 40);
            p = svm_next((size_t)p, n);
          }
          ASSERT_EQ(out[8 + i], sum) << i;
        }
      })
      .spirv({geo({64}, {16})});

  // __constant argument + program-scope constant table.
  t.add("constant_memory", "constant_memory.cl", "constant_lookup",
      {geo({512}, {64}), geo({77}, {7}), geo({300})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(floats(37, 13), Elem::f32),
                     input(ints<cl_uint>(g.g(0), 14, 100000), Elem::u32),
                     sentinel(g.g(0) * 4, Elem::f32)};
        s.args = {mem(0), val((cl_uint)37), mem(1), mem(2)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        static const float w[8] = {0.5f, 1.25f, -2.0f, 3.5f, 0.125f, -0.75f, 8.0f, 1.0f / 3.0f};
        auto table = as<float>(o[0]);
        auto idx = as<cl_uint>(o[1]);
        auto out = as<float>(o[2]);
        for (size_t i = 0; i < g.g(0); ++i) {
          cl_uint k = idx[i];
          ASSERT_TRUE(near(out[i], (double)table[k % 37] * w[i & 7] + w[(k >> 3) & 7])) << i;
        }
      })
      .spirv({geo({512}, {64}), geo({300})});

  // Global atomics histogram.
  t.add("histogram_atomic", "histogram_atomic.cl", "histogram_atomic",
      {geo({4096}, {64}), geo({1000}), geo({3000}, {120}), geo({8192}, {8})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(ints<cl_uint>(g.g(0), 6, 1u << 20), Elem::u32),
                     input(std::vector<cl_int>(16 + 2, 0), Elem::i32)};
        s.args = {mem(0), mem(1), val((cl_uint)16)};
        return s;
      },
      [](const Outputs &o, const Geometry &) {
        auto data = as<cl_uint>(o[0]);
        auto bins = as<cl_int>(o[1]);
        std::vector<cl_int> want(18, 0);
        for (cl_uint v : data) {
          want[v % 16]++;
          want[16] += (cl_int)(v & 0xff);
          want[17] = std::max(want[17], (cl_int)(v & 0xffff));
        }
        ASSERT_EQ(bins, want);
      })
      .spirv({geo({4096}, {64})});

  return t.cases();
}

}  // namespace corpus
