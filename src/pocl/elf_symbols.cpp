#include "pocl/elf_symbols.hpp"

#include <elf.h>

#include <cstring>

namespace hk::pocl {
namespace {

// A copy of the T at `offset`, if the image holds all of it.
template <typename T>
bool readAt(std::span<const std::uint8_t> bytes, std::uint64_t offset, T &out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// Table `count` entries of `entsize` bytes at `offset`: inside the image, entries at least
// as large as `need`.
bool tableFits(std::span<const std::uint8_t> bytes, std::uint64_t offset, std::uint64_t count,
               std::uint64_t entsize, std::size_t need) {
  if (count == 0) return true;
  if (entsize < need || offset > bytes.size()) return false;
  return count <= (bytes.size() - offset) / entsize;
}

// The NUL-terminated string at `index` of the string table section `strtab`.
bool stringAt(std::span<const std::uint8_t> bytes, const Elf64_Shdr &strtab, std::uint32_t index,
              std::string &out) {
  if (strtab.sh_offset > bytes.size() || strtab.sh_size > bytes.size() - strtab.sh_offset ||
      index >= strtab.sh_size)
    return false;
  const char *begin = reinterpret_cast<const char *>(bytes.data() + strtab.sh_offset);
  const void *nul = std::memchr(begin + index, '\0', strtab.sh_size - index);
  if (!nul) return false;
  out.assign(begin + index, static_cast<const char *>(nul));
  return true;
}

bool readSegments(std::span<const std::uint8_t> bytes, const Elf64_Ehdr &eh, ElfImage &out) {
  if (!tableFits(bytes, eh.e_phoff, eh.e_phnum, eh.e_phentsize, sizeof(Elf64_Phdr)))
    return false;
  for (std::uint64_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!readAt(bytes, eh.e_phoff + i * eh.e_phentsize, ph)) return false;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_memsz)
      out.executable.push_back({ph.p_vaddr, ph.p_memsz});
  }
  return true;
}

// The functions of the symbol table section `symtab` (SHT_SYMTAB or SHT_DYNSYM).
bool readSymbols(std::span<const std::uint8_t> bytes, const Elf64_Ehdr &eh,
                 const Elf64_Shdr &symtab, ElfImage &out) {
  Elf64_Shdr strtab;
  if (symtab.sh_link >= eh.e_shnum ||
      !readAt(bytes, eh.e_shoff + std::uint64_t{symtab.sh_link} * eh.e_shentsize, strtab) ||
      symtab.sh_entsize == 0)
    return false;
  const std::uint64_t count = symtab.sh_size / symtab.sh_entsize;
  if (!tableFits(bytes, symtab.sh_offset, count, symtab.sh_entsize, sizeof(Elf64_Sym)))
    return false;
  for (std::uint64_t i = 0; i < count; ++i) {
    Elf64_Sym sym;
    if (!readAt(bytes, symtab.sh_offset + i * symtab.sh_entsize, sym)) return false;
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_size == 0)
      continue;
    ElfFunction f{{}, sym.st_value, sym.st_size};
    if (!stringAt(bytes, strtab, sym.st_name, f.name)) return false;
    out.functions.push_back(std::move(f));
  }
  return true;
}

}  // namespace

bool readElfImage(std::span<const std::uint8_t> bytes, ElfImage &out, std::string &why) {
  out = {};
  Elf64_Ehdr eh;
  if (!readAt(bytes, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    why = "not an ELF64 little-endian image";
    return false;
  }
  if (!readSegments(bytes, eh, out)) {
    why = "program headers out of bounds";
    return false;
  }
  if (!tableFits(bytes, eh.e_shoff, eh.e_shnum, eh.e_shentsize, sizeof(Elf64_Shdr))) {
    why = "section headers out of bounds";
    return false;
  }
  // .symtab has the local functions too; a stripped library has only .dynsym.
  for (std::uint32_t want : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (std::uint64_t i = 0; i < eh.e_shnum; ++i) {
      Elf64_Shdr sh;
      if (!readAt(bytes, eh.e_shoff + i * eh.e_shentsize, sh)) return false;
      if (sh.sh_type != want) continue;
      if (!readSymbols(bytes, eh, sh, out)) {
        out.functions.clear();
        why = "symbol table out of bounds";
        return false;
      }
      return true;
    }
  }
  why = "no symbol table";
  return false;
}

}  // namespace hk::pocl
