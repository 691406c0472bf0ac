#include "pocl/release.hpp"

#include <array>
#include <atomic>

#include "pocl/sha1.hpp"

namespace hk::pocl {
namespace {

// Values read at the release tags (docs/pocl-releases.md, "At a glance").
constexpr Release kReleases[] = {
    {"3.1", 96, 9, 8, PrintfMode::FormattedBuffer, "pthread", 0, 0, false, false, false, true,
     144},
    {"6.0", 112, 11, 8, PrintfMode::KernelWrites, "cpu", 64, 59, true, false, true, true,
     144},
    {"7.1", 112, 11, 16, PrintfMode::BinaryRecords, "cpu", 59, 59, true, true, false, true,
     160},
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
