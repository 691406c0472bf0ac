// hostkernel's C++ API (hostkernel.hpp): a kernel from OpenCL C source, launched over
// buffers the host reads and writes in place.
//
//   c++ -std=c++20 cpp_api.cpp $(pkg-config --cflags --libs hostkernel)
//
// It checks its own results and that hostkernel ran the launches directly.
#include <hostkernel/hostkernel.hpp>

#include <cstdio>

int main() try {
  constexpr size_t n = 1000, launches = 10;
  hk::Runtime &rt = hk::Runtime::get();
  hk::Kernel scale(hk::Program::fromSource(rt, R"(
      kernel void scale(float a, global float *x) {
        x[get_global_id(0)] *= a;
      })"), "scale");
  hk::Buffer<float> x(rt, n);
  for (size_t i = 0; i < n; ++i) x[i] = float(i);
  for (size_t l = 0; l < launches; ++l) scale.launch({n}, {40}, 2.0f, x);
  rt.finish();

  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += x[i] != float(i) * 1024.0f;
  const hk_launch_counts c = scale.counts();
  const cl_ulong direct = c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM];
  std::printf("cpp_api: %zu launches, %llu direct; %zu of %zu results wrong\n", launches,
              (unsigned long long)direct, wrong, n);
  // A kernel's first launch may go to PoCL's queue, which compiles it.
  return wrong == 0 && direct >= launches - 1 ? 0 : 1;
} catch (const hk::Error &e) {
  std::fprintf(stderr, "cpp_api: %s\n", e.what());
  return 1;
}
