// hk::NDRange: a grid or a work-group of 1 to 3 dimensions.
// Part of hostkernel's C++ API (hostkernel.hpp includes every part).
#pragma once

#include <hostkernel/error.hpp>

#include <cstddef>
#include <initializer_list>
#include <string>

namespace hk {

// A grid or a work-group: 1 to 3 sizes, and for a grid an optional global offset.
//
//   hk::NDRange grid{1024, 768};                    // 2-D (braces: {x}, {x, y}, {x, y, z})
//   hk::NDRange shifted = hk::NDRange{1000}.offset({24});   // ids 24 .. 1023
//   kernel.launch(grid, {16, 16}, args...);         // work-group 16 x 16
class NDRange {
 public:
  NDRange(std::initializer_list<std::size_t> sizes) {
    if (sizes.size() < 1 || sizes.size() > 3)
      throw Error(CL_INVALID_WORK_DIMENSION,
                  "hk::NDRange: " + std::to_string(sizes.size()) + " dimensions (1 to 3)");
    dims_ = static_cast<cl_uint>(sizes.size());
    std::size_t d = 0;
    for (std::size_t s : sizes) sizes_[d++] = s;
  }
  explicit NDRange(std::size_t x) : NDRange({x}) {}
  NDRange(std::size_t x, std::size_t y) : NDRange({x, y}) {}
  NDRange(std::size_t x, std::size_t y, std::size_t z) : NDRange({x, y, z}) {}

  // This range with a global offset (one value per dimension).
  NDRange offset(std::initializer_list<std::size_t> offsets) const {
    if (offsets.size() != dims_)
      throw Error(CL_INVALID_GLOBAL_OFFSET, "hk::NDRange: offset has " +
                                                std::to_string(offsets.size()) +
                                                " dimensions, the range " + std::to_string(dims_));
    NDRange r = *this;
    std::size_t d = 0;
    for (std::size_t o : offsets) r.offsets_[d++] = o;
    r.has_offset_ = true;
    return r;
  }

  cl_uint dims() const { return dims_; }
  const std::size_t *sizes() const { return sizes_; }
  const std::size_t *offsets() const { return has_offset_ ? offsets_ : nullptr; }
  std::size_t operator[](std::size_t d) const { return sizes_[d]; }
  std::size_t items() const { return sizes_[0] * sizes_[1] * sizes_[2]; }
  // "1024x768", "1000+24"
  std::string str() const {
    std::string s;
    for (cl_uint d = 0; d < dims_; ++d) s += (d ? "x" : "") + std::to_string(sizes_[d]);
    if (has_offset_) {
      s += "+";
      for (cl_uint d = 0; d < dims_; ++d) s += (d ? "x" : "") + std::to_string(offsets_[d]);
    }
    return s;
  }

 private:
  cl_uint dims_ = 1;
  std::size_t sizes_[3] = {1, 1, 1};
  std::size_t offsets_[3] = {0, 0, 0};
  bool has_offset_ = false;
};

}  // namespace hk
