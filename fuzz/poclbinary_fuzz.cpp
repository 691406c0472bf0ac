// libFuzzer target: hk::pocl::parsePoclBinary on arbitrary bytes.
//
// Besides ASan/UBSan findings, it checks the reader's contract: a failed parse leaves an
// empty result and an error sentence; a successful one returns records whose file spans
// lie inside the input, whose counts match their vectors, and whose names and paths obey
// the rules the loader relies on (C identifiers, relative paths under "<kernel>/").
//
//   build:  cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-15 -DCMAKE_C_COMPILER=clang-15 \
//             -DHK_FUZZ=ON && cmake --build build-fuzz --target poclbinary_fuzz
//   run:    build-fuzz/bin/poclbinary_fuzz fuzz/corpus/poclbinary_fuzz -max_total_time=60
#include <algorithm>
#include <iterator>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pocl/binary.hpp"

namespace {

[[noreturn]] void violated(const char *what) {
  std::fprintf(stderr, "poclbinary_fuzz: contract violated: %s\n", what);
  std::abort();
}

#define CHECK(cond) \
  do {              \
    if (!(cond)) violated(#cond); \
  } while (0)

bool inside(std::span<const std::uint8_t> s, const std::uint8_t *data, std::size_t size) {
  if (s.empty()) return true;
  return s.data() >= data && s.data() + s.size() <= data + size;
}

bool relativePath(const std::string &p) {
  if (p.empty() || p.front() == '/' || p.back() == '/') return false;
  if (p.find("//") != std::string::npos || p.find('\0') != std::string::npos) return false;
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t slash = p.find('/', start);
    if (slash == std::string::npos) slash = p.size();
    const std::string part = p.substr(start, slash - start);
    if (part == "." || part == "..") return false;
    start = slash + 1;
  }
  return true;
}

bool identifier(const std::string &n) {
  if (n.empty() || (n[0] >= '0' && n[0] <= '9')) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_'))
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  hk::pocl::PoclBinary bin;
  bin.device_id = 0xdeadbeef;  // must be reset by the parser
  std::string error;
  const bool ok = hk::pocl::parsePoclBinary(data, size, bin, error);
  if (!ok) {
    CHECK(error.rfind("poclbinary: ", 0) == 0);
    CHECK(bin.kernels.empty() && bin.program_files.empty() && bin.build_hash.empty());
    CHECK(bin.device_id == 0 && bin.version == 0 && bin.flags == 0);
    return 0;
  }
  CHECK(std::find(std::begin(hk::pocl::kPoclBinaryVersions),
                  std::end(hk::pocl::kPoclBinaryVersions),
                  bin.version) != std::end(hk::pocl::kPoclBinaryVersions));
  CHECK(relativePath(bin.build_hash));
  for (const auto &f : bin.program_files) {
    CHECK(relativePath(f.path));
    CHECK(inside(f.bytes, data, size));
  }
  std::size_t total = 0;
  for (const auto &k : bin.kernels) {
    CHECK(identifier(k.name));
    CHECK(k.args.size() == k.num_args);
    CHECK(k.local_sizes.size() == k.num_locals);
    CHECK(bin.findKernel(k.name) != nullptr);
    for (const auto &a : k.args)
      CHECK(static_cast<std::uint32_t>(a.kind) <=
            static_cast<std::uint32_t>(hk::pocl::ArgKind::Sampler));
    for (const auto &f : k.files) {
      CHECK(relativePath(f.path));
      CHECK(f.path.rfind(k.name + "/", 0) == 0);
      CHECK(inside(f.bytes, data, size));
      CHECK(k.findFile(f.path).data() != nullptr || f.bytes.empty());
      total += f.bytes.size();
    }
  }
  CHECK(total <= size);
  (void)bin.flushDenorms();
  (void)bin.binaryType();
  return 0;
}
