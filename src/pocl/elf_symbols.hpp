// Reader of the function symbols and executable segments of an ELF64 little-endian shared
// object held in memory (a kernel's work-group library before it is loaded). Every read
// is bounds-checked: a truncated or corrupt image gives an error, never an out-of-bounds
// read.
//
//   hk::pocl::ElfImage elf;
//   std::string why;
//   if (hk::pocl::readElfImage(bytes, elf, why))
//     for (const auto &f : elf.functions) use(f.name, base + f.value, f.size);
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hk::pocl {

// A defined function with a size: `value` is its address relative to the load base.
struct ElfFunction {
  std::string name;
  std::uint64_t value = 0;
  std::uint64_t size = 0;
};

// A PT_LOAD segment mapped executable, relative to the load base.
struct ElfSegment {
  std::uint64_t vaddr = 0;
  std::uint64_t memsz = 0;
};

struct ElfImage {
  std::vector<ElfFunction> functions;  // from .symtab, else from .dynsym
  std::vector<ElfSegment> executable;
};

bool readElfImage(std::span<const std::uint8_t> bytes, ElfImage &out, std::string &why);

}  // namespace hk::pocl
