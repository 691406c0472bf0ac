// libFuzzer target: hk::program::spirvToSpirBitcode on arbitrary bytes, as
// hkCreateProgramWithSPIRV calls it: the structural checks in this process, then the
// translation by LLVMSPIRVLib 15 in a forked child (which may abort on malformed modules:
// that is an error result, not a crash of the caller). Coverage guidance sees only this
// process; the child's ASan reports, if any, go to its log and make the translation fail.
//
// Contract: on success the result is LLVM bitcode; on failure it is empty and the error
// says why; either way the call returns (the child is killed after the timeout).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "program/spirv.hpp"

namespace {
[[noreturn]] void violated(const char *what, const std::string &error) {
  std::fprintf(stderr, "spirv_fuzz: contract violated: %s (error: %s)\n", what, error.c_str());
  std::abort();
}
#define CHECK(cond, error) \
  do {                     \
    if (!(cond)) violated(#cond, error); \
  } while (0)
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  hk::program::SpirvTranslateOptions options;
  options.timeout = std::chrono::milliseconds(10000);
  std::vector<std::uint8_t> bitcode{1, 2, 3};  // must be cleared
  std::string error = "stale";
  const bool ok = hk::program::spirvToSpirBitcode({data, size}, bitcode, error, options);
  std::string structure_error;
  const bool structure_ok = hk::program::checkSpirvStructure({data, size}, structure_error);
  if (ok) {
    CHECK(structure_ok, error);
    CHECK(bitcode.size() >= 4, error);
    const bool raw = bitcode[0] == 'B' && bitcode[1] == 'C' && bitcode[2] == 0xC0 &&
                     bitcode[3] == 0xDE;
    const bool wrapped = bitcode[0] == 0xDE && bitcode[1] == 0xC0 && bitcode[2] == 0x17 &&
                         bitcode[3] == 0x0B;
    CHECK(raw || wrapped, error);
  } else {
    CHECK(bitcode.empty(), error);
    CHECK(!error.empty() && error != "stale", error);
    if (!structure_ok) CHECK(error == structure_error, error);
  }
  return 0;
}
