// A file's whole contents, read in binary mode, as text or as bytes; empty when the file
// cannot be read, so a test that needs the file fails on what it finds missing.
//
//   std::string source = FileText(std::string(HK_KERNELS_DIR) + "/axpy.cl");
//   std::vector<std::uint8_t> il = FileBytes(std::string(HK_SPIRV_DIR) + "/axpy.spv");
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

inline std::string FileText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::vector<std::uint8_t> FileBytes(const std::string &path) {
  const std::string text = FileText(path);
  return std::vector<std::uint8_t>(text.begin(), text.end());
}
