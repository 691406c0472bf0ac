// SHA-1 (FIPS 180-4), for the names PoCL gives files of kernels with long names.
//
//   std::array<std::uint8_t, 20> d = hk::pocl::sha1("abc");
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace hk::pocl {

std::array<std::uint8_t, 20> sha1(std::string_view data);

}  // namespace hk::pocl
