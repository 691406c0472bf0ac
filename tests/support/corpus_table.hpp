// The tables of the kernel-corpus tests (integration/corpus_cases/): a family's kernels,
// one row per kernel and setup, each row run on several geometries; and the helpers their
// sanity checks use.
//
//   Table t;
//   t.add("axpy", "axpy.cl", "axpy", {geo({1024}, {64}), geo({1000})}, setup, check)
//       .spirv({geo({1024}, {64})});                 // also from SPIR-V, on one geometry
//   t.spirv_only("stream.cl", "stream_copy", {geo({1024}, {64})}, setup);
//   return t.cases();
#pragma once

#include <CL/cl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "support/corpus_case.hpp"
#include "support/pocl_device.hpp"

namespace corpus {

// One kernel with one setup. corpus_test runs it on every geometry of add()'s list, named
// <tag>_<geometry>; spirv_corpus_test on the geometries given to spirv(), named
// <kernel>_<geometry> unless spirv() names them.
class Row {
 public:
  Row &spirv(std::initializer_list<Geometry> geometries, std::string name = "") {
    spirv_geometries_ = geometries;
    spirv_name_ = std::move(name);
    return *this;
  }
  Row &printf_mode(PrintfMode mode) {
    proto_.printf_mode = mode;
    return *this;
  }
  Row &hostile_fpenv() {
    proto_.hostile_fpenv = true;
    return *this;
  }

 private:
  friend class Table;
  std::string tag_;
  Case proto_;  // everything but the name, suite and geometry
  std::vector<Geometry> corpus_geometries_;
  std::vector<Geometry> spirv_geometries_;
  std::string spirv_name_;
};

class Table {
 public:
  Row &add(std::string tag, std::string file, std::string kernel,
           std::initializer_list<Geometry> geometries, Setup setup, Check check = nullptr,
           std::string options = "") {
    Row &row = rows_.emplace_back();
    row.tag_ = std::move(tag);
    row.proto_.file = std::move(file);
    row.proto_.kernel = std::move(kernel);
    row.proto_.options = std::move(options);
    row.proto_.setup = std::move(setup);
    row.proto_.check = std::move(check);
    row.corpus_geometries_ = geometries;
    return row;
  }

  // A kernel that only spirv_corpus_test runs.
  Row &spirv_only(std::string file, std::string kernel,
                  std::initializer_list<Geometry> geometries, Setup setup) {
    return add("", std::move(file), std::move(kernel), {}, std::move(setup)).spirv(geometries);
  }

  std::vector<Case> cases() const {
    std::vector<Case> cases;
    auto emit = [&cases](const Case &proto, Suite suite, const std::string &tag,
                         const std::vector<Geometry> &geometries) {
      for (const Geometry &g : geometries) {
        Case &c = cases.emplace_back(proto);
        c.name = tag + "_" + g.str();
        c.suite = suite;
        c.geometry = g;
      }
    };
    for (const Row &row : rows_) {
      emit(row.proto_, Suite::Corpus, row.tag_, row.corpus_geometries_);
      const std::string &name = row.spirv_name_.empty() ? row.proto_.kernel : row.spirv_name_;
      emit(row.proto_, Suite::Spirv, name, row.spirv_geometries_);
    }
    return cases;
  }

 private:
  std::deque<Row> rows_;  // a deque: add()'s reference stays valid
};

// The setup of a kernel whose one argument is its output: a buffer of `bytes_per_item`
// bytes a work-item, not written yet.
inline Setup one_output(size_t bytes_per_item, Elem elem) {
  return [bytes_per_item, elem](const Geometry &g) {
    Resources r;
    r.buffers = {sentinel(g.items() * bytes_per_item, elem)};
    r.args = {mem(0)};
    return r;
  };
}

// ---------------------------------------------------------------------------------------
// Sanity-check helpers.
template <class T> void expect_untouched(const std::vector<T> &v, size_t from, size_t to,
                                         const char *what) {
  T s;
  std::memset(&s, kSentinel, sizeof s);
  for (size_t i = from; i < to; ++i)
    if (std::memcmp(&v[i], &s, sizeof s) != 0) {
      ADD_FAILURE() << what << "[" << i << "] was written but should not have been";
      return;
    }
}

inline bool near(double a, double b, double rel = 1e-5) {
  return std::fabs(a - b) <= rel * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// Offset of work-item (x,y,z) in a linear array when ids start at the global offset.
inline size_t linear(const Geometry &g, size_t ix, size_t iy = 0, size_t iz = 0) {
  return (iz * g.g(1) + iy) * g.g(0) + ix;
}

// CL_DEVICE_MEM_BASE_ADDR_ALIGN of PoCL's CPU device in bytes (128 where it cannot be
// read): a sub-buffer's origin must be a multiple of it.
inline size_t base_align() {
  static const size_t align = [] {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    cl_uint bits = 0;
    if (FindPoclDevice(&platform, &device))
      clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, nullptr);
    return bits >= 8 ? size_t{bits} / 8 : size_t{128};
  }();
  return align;
}

}  // namespace corpus
