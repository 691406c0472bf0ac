// One case of the kernel-corpus tests (integration/corpus_test.cpp and
// integration/spirv_corpus_test.cpp): a kernel of kernels/, one launch geometry, the
// buffers and arguments it runs with, and what its result must be.
//
//   Case c;
//   c.file = "axpy.cl", c.kernel = "axpy", c.geometry = geo({1024}, {64});
//   c.setup = [](const Geometry &g) {
//     Resources r;
//     r.buffers = {input(floats(g.g(0), 1), Elem::f32), sentinel(g.g(0) * 4, Elem::f32)};
//     r.args = {val(2.5f), mem(0), mem(1)};
//     return r;
//   };
#pragma once

#include <CL/cl.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace corpus {

using Bytes = std::vector<unsigned char>;
using Outputs = std::vector<Bytes>;  // every buffer of a case, read back after a launch

// The geometry of one launch.
struct Geometry {
  cl_uint dim = 1;
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
  size_t offset[3] = {0, 0, 0};
  bool has_local = false;
  bool has_offset = false;

  size_t items() const { return global[0] * global[1] * global[2]; }
  size_t g(int d) const { return global[d]; }
  size_t l(int d) const { return local[d]; }
  size_t off(int d) const { return offset[d]; }
  // What clEnqueueNDRangeKernel takes: nullptr where the launch gives none.
  const size_t *local_or_null() const { return has_local ? local : nullptr; }
  const size_t *offset_or_null() const { return has_offset ? offset : nullptr; }

  // "g64x32_l8x4_o3x5", "g1000_lnull": the part of a test's name after its tag.
  std::string str() const {
    auto join = [this](const size_t *v) {
      std::string s;
      for (cl_uint d = 0; d < dim; ++d) s += (d ? "x" : "") + std::to_string(v[d]);
      return s;
    };
    std::string s = "g" + join(global) + "_l" + (has_local ? join(local) : "null");
    if (has_offset) s += "_o" + join(offset);
    return s;
  }
};

// geo({64, 32}, {8, 4}, {3, 5}): global size, then local size and offset where given.
inline Geometry geo(std::initializer_list<size_t> global,
                    std::initializer_list<size_t> local = {},
                    std::initializer_list<size_t> offset = {}) {
  Geometry g;
  g.dim = static_cast<cl_uint>(global.size());
  std::copy(global.begin(), global.end(), g.global);
  if (local.size()) {
    g.has_local = true;
    std::copy(local.begin(), local.end(), g.local);
  }
  if (offset.size()) {
    g.has_offset = true;
    std::copy(offset.begin(), offset.end(), g.offset);
  }
  return g;
}

// The element type of a buffer, for printing the elements that differ.
enum class Elem { u8, i32, u32, i64, u64, f32, f64 };

struct Buffer {
  Bytes init;             // initial contents; its size is the buffer size
  Elem elem = Elem::u8;   // only for printing mismatches
  bool svm = false;       // clSVMAlloc (fine-grain) instead of a cl_mem
  bool compare = true;    // false: contents may legitimately differ (checked otherwise)
};

struct Arg {
  enum Kind { Mem, SubMem, Svm, Value, Local } kind = Value;
  int buffer = -1;        // Mem, SubMem, Svm
  size_t offset = 0;      // SubMem origin, Svm byte offset
  size_t size = 0;        // SubMem size, Local size
  Bytes value;            // Value
};

inline Arg mem(int b) { return {Arg::Mem, b, 0, 0, {}}; }
inline Arg sub_mem(int b, size_t origin, size_t size) {
  return {Arg::SubMem, b, origin, size, {}};
}
inline Arg svm(int b, size_t byte_offset = 0) { return {Arg::Svm, b, byte_offset, 0, {}}; }
inline Arg local_mem(size_t bytes) { return {Arg::Local, -1, 0, bytes, {}}; }
template <class T> Arg val(const T &v) {
  Arg a;
  a.kind = Arg::Value;
  a.value.resize(sizeof(T));
  std::memcpy(a.value.data(), &v, sizeof(T));
  return a;
}

template <class T> Bytes bytes_of(const std::vector<T> &v) {
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T> std::vector<T> as(const Bytes &b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// Output buffers start with this pattern so that "not written" never looks like a result.
constexpr unsigned char kSentinel = 0xCD;
inline Buffer sentinel(size_t bytes, Elem elem) {
  return {Bytes(bytes, kSentinel), elem, false, true};
}
template <class T> Buffer input(const std::vector<T> &v, Elem elem) {
  return {bytes_of(v), elem, false, true};
}

struct Resources {
  std::vector<Buffer> buffers;
  std::vector<Arg> args;
  // Called once the SVM allocations exist, for contents that hold SVM addresses.
  std::function<void(std::vector<Buffer> &, const std::vector<void *> &svm_bases)> relocate;
};

using Setup = std::function<Resources(const Geometry &)>;
// Sanity check of a result against what the kernel is meant to compute.
using Check = std::function<void(const Outputs &, const Geometry &)>;

enum class PrintfMode { None, Ordered, Sorted };

// Which test runs a case: corpus_test (OpenCL C, hostkernel against PoCL's queue) or
// spirv_corpus_test (the SPIR-V build against the source program on PoCL's queue).
enum class Suite { Corpus, Spirv };

struct Case {
  std::string name;     // the test's name: <tag>_<geometry>
  Suite suite = Suite::Corpus;
  std::string file;     // kernels/<file>
  std::string options;  // build options
  std::string kernel;
  Geometry geometry;
  Setup setup;
  // Run on the reference result, and on the result under test when some buffer is not
  // compared bit for bit.
  Check check;
  PrintfMode printf_mode = PrintfMode::None;
  // Launch the direct path with FTZ, DAZ and round-up set in the caller's MXCSR: the
  // kernel must still see PoCL's floating-point environment, the caller must get its own
  // back.
  bool hostile_fpenv = false;
};

inline void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

}  // namespace corpus
