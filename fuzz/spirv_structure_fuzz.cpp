// libFuzzer target: hk::program::checkSpirvStructure (the checks made in the calling
// process before any SPIR-V reaches LLVMSPIRVLib) on arbitrary bytes. Every read must stay
// inside the input; a rejection must say why; an accepted module must have the header and
// instruction stream the translator relies on.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "program/spirv.hpp"

namespace {
[[noreturn]] void violated(const char *what) {
  std::fprintf(stderr, "spirv_structure_fuzz: contract violated: %s\n", what);
  std::abort();
}
#define CHECK(cond) \
  do {              \
    if (!(cond)) violated(#cond); \
  } while (0)

std::uint32_t word(const std::uint8_t *d, std::size_t i) {
  std::uint32_t w;
  std::memcpy(&w, d + 4 * i, 4);
  return w;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::string error;
  const bool ok = hk::program::checkSpirvStructure({data, size}, error);
  if (!ok) {
    CHECK(!error.empty());
    return 0;
  }
  // Accepted: little-endian magic, whole words, a header and at least one instruction,
  // and word counts that tile the stream exactly.
  CHECK(size % 4 == 0 && size >= 24);
  CHECK(word(data, 0) == 0x07230203u);
  const std::size_t words = size / 4;
  std::size_t i = 5;
  while (i < words) {
    const std::uint32_t count = word(data, i) >> 16;
    CHECK(count != 0);
    i += count;
  }
  CHECK(i == words);
  return 0;
}
