#include "program/cache_payload.hpp"

#include <cstring>

namespace hk::program {
namespace {

// Layout, all integers little-endian as the host writes them (the entry's key names the
// CPU): binary, then per kernel
//   u32 name size, name, u8 ok, u8 has_barrier, u8 group_free, 4 x u64 (base, per item,
//   private, context), u32 error size, error
// then the footer: u64 binary size, u32 kernel count, u32 layout version, 8-byte magic.
// The version changes with the layout and with what a field means (2: group_free): an
// entry written by another version is rebuilt, never trusted.
constexpr char kMagic[8] = {'h', 'k', 's', 't', 'a', 'c', 'k', 's'};
constexpr std::uint32_t kLayoutVersion = 2;
constexpr std::size_t kFooterSize = 8 + 4 + 4 + sizeof kMagic;

template <class T>
void put(std::vector<std::uint8_t> &out, T v) {
  const auto *p = reinterpret_cast<const std::uint8_t *>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

void putString(std::vector<std::uint8_t> &out, const std::string &s) {
  put(out, static_cast<std::uint32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}

// Bounds-checked reads from [pos, end).
class Reader {
 public:
  Reader(std::span<const std::uint8_t> bytes, std::size_t pos) : bytes_(bytes), pos_(pos) {}
  template <class T>
  bool get(T &v) {
    if (bytes_.size() - pos_ < sizeof v) return false;
    std::memcpy(&v, bytes_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool getString(std::string &s) {
    std::uint32_t n = 0;
    if (!get(n) || bytes_.size() - pos_ < n) return false;
    s.assign(reinterpret_cast<const char *>(bytes_.data() + pos_), n);
    pos_ += n;
    return true;
  }
  std::size_t pos() const { return pos_; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_;
};

}  // namespace

std::vector<std::uint8_t> joinCachePayload(std::span<const std::uint8_t> binary,
                                           const std::map<std::string, StackEstimate> &stacks) {
  std::vector<std::uint8_t> out(binary.begin(), binary.end());
  for (const auto &[name, e] : stacks) {
    putString(out, name);
    put(out, static_cast<std::uint8_t>(e.ok));
    put(out, static_cast<std::uint8_t>(e.model.has_barrier));
    put(out, static_cast<std::uint8_t>(e.group_free));
    put(out, e.model.base_bytes);
    put(out, e.model.per_item_bytes);
    put(out, e.model.private_bytes);
    put(out, e.model.context_bytes);
    putString(out, e.error);
  }
  put(out, static_cast<std::uint64_t>(binary.size()));
  put(out, static_cast<std::uint32_t>(stacks.size()));
  put(out, kLayoutVersion);
  out.insert(out.end(), kMagic, kMagic + sizeof kMagic);
  return out;
}

bool splitCachePayload(std::span<const std::uint8_t> payload, CachePayload &out,
                       std::string &why) {
  out = CachePayload{};
  if (payload.size() < kFooterSize ||
      std::memcmp(payload.data() + payload.size() - sizeof kMagic, kMagic, sizeof kMagic) != 0) {
    why = "no stack estimates";
    return false;
  }
  std::uint64_t binary_size = 0;
  std::uint32_t count = 0, version = 0;
  Reader footer(payload, payload.size() - kFooterSize);
  footer.get(binary_size);
  footer.get(count);
  footer.get(version);
  const std::size_t records_end = payload.size() - kFooterSize;
  if (version != kLayoutVersion || binary_size > records_end) {
    why = "stack estimates of another layout";
    return false;
  }
  Reader r(payload.first(records_end), static_cast<std::size_t>(binary_size));
  for (std::uint32_t i = 0; i < count; ++i) {
    std::string name;
    std::uint8_t ok = 0, barrier = 0, group_free = 0;
    StackEstimate e;
    if (!r.getString(name) || !r.get(ok) || !r.get(barrier) || !r.get(group_free) ||
        !r.get(e.model.base_bytes) || !r.get(e.model.per_item_bytes) ||
        !r.get(e.model.private_bytes) || !r.get(e.model.context_bytes) ||
        !r.getString(e.error) || ok > 1 || barrier > 1 || group_free > 1) {
      why = "truncated stack estimates";
      return false;
    }
    e.ok = ok != 0;
    e.model.has_barrier = barrier != 0;
    e.group_free = group_free != 0;
    out.stacks.emplace(std::move(name), std::move(e));
  }
  if (r.pos() != records_end) {
    why = "stack estimates followed by stray bytes";
    return false;
  }
  out.binary_size = static_cast<std::size_t>(binary_size);
  return true;
}

}  // namespace hk::program
