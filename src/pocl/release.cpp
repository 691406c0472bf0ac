#include "pocl/release.hpp"

#include <array>
#include <atomic>

#include "pocl/sha1.hpp"

namespace hk::pocl {
namespace {

// Values read at the release tags (docs/pocl-releases.md, "At a glance").
constexpr Release kReleases[] = {
    {"3.1", 96, 9, 8, PrintfMode::FormattedBuffer, "pthread", 0, 0, false, false, false, true,
     144, false},
    {"6.0", 112, 11, 8, PrintfMode::KernelWrites, "cpu", 64, 59, true, false, true, true,
     144, false},
    {"7.1", 112, 11, 16, PrintfMode::BinaryRecords, "cpu", 59, 59, true, true, false, true,
     160, true},
};

std::atomic<const Release *> g_current{nullptr};

}  // namespace

const Release *findRelease(std::string_view v) {
  // "OpenCL <major>.<minor> PoCL <POCL_VERSION_FULL>  <features>" (clGetPlatformInfo.c):
  // the release is the number up to the first character that is neither digit nor '.'.
  const auto at = v.find("PoCL ");
  if (at == std::string_view::npos) return nullptr;
  std::string_view rest = v.substr(at + 5);
  std::size_t n = 0;
  while (n < rest.size() && ((rest[n] >= '0' && rest[n] <= '9') || rest[n] == '.')) ++n;
  const std::string_view number = rest.substr(0, n);
  for (const Release &r : kReleases)
    if (number == r.version) return &r;
  return nullptr;
}

std::string supportedReleases() {
  std::string out;
  for (const Release &r : kReleases)
    if (r.direct_launches) out += (out.empty() ? "" : ", ") + std::string(r.version);
  return out;
}

const Release *currentRelease() { return g_current.load(std::memory_order_acquire); }
void setCurrentRelease(const Release *release) {
  g_current.store(release, std::memory_order_release);
}

const Release &baselineRelease() { return kReleases[0]; }

std::uint32_t scalarTypeSize(std::string_view name) {
  // type_size_map in lib/CL/pocl_llvm_metadata.cc (v3.1, v6.0): 3-vectors take 4 lanes.
  std::uint32_t lanes = 1;
  std::size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  const std::string_view base = name.substr(0, end), count = name.substr(end);
  if (count == "2") lanes = 2;
  else if (count == "3" || count == "4") lanes = 4;
  else if (count == "8") lanes = 8;
  else if (count == "16") lanes = 16;
  else if (!count.empty()) return 0;
  static constexpr std::pair<std::string_view, std::uint32_t> kBase[] = {
      {"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"int", 4},   {"uint", 4},
      {"long", 8}, {"ulong", 8}, {"half", 2},  {"float", 4},  {"double", 8}};
  for (const auto &[type, bytes] : kBase)
    if (base == type) return bytes * lanes;
  return 0;
}

std::string clippedName(std::string_view name, std::uint32_t clip) {
  if (clip == 0 || name.size() <= clip) return std::string(name);
  constexpr std::size_t kHashLetters = 40;
  std::string out(name.substr(0, clip - kHashLetters - 1));
  out += '.';
  for (std::uint8_t byte : sha1(name)) {
    out += static_cast<char>('A' + (byte & 0xF));
    out += static_cast<char>('A' + (byte >> 4));
  }
  return out;
}

}  // namespace hk::pocl
