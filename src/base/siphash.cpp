#include "base/siphash.hpp"

#include <cstring>

namespace hk {
namespace {

std::uint64_t rotl(std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

std::uint64_t load64(const std::uint8_t *p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void store64(std::uint64_t v, std::uint8_t *p) {
  for (int i = 0; i < 8; ++i, v >>= 8) p[i] = static_cast<std::uint8_t>(v);
}

void round(std::uint64_t &v0, std::uint64_t &v1, std::uint64_t &v2, std::uint64_t &v3) {
  v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
  v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
  v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
  v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
}

}  // namespace

SipHash128::SipHash128(const Key &key) {
  const std::uint64_t k0 = load64(key.data()), k1 = load64(key.data() + 8);
  v0_ = k0 ^ 0x736f6d6570736575ull;
  v1_ = k1 ^ 0x646f72616e646f6dull ^ 0xee;  // 0xee: the 128-bit variant
  v2_ = k0 ^ 0x6c7967656e657261ull;
  v3_ = k1 ^ 0x7465646279746573ull;
}

void SipHash128::compress(std::uint64_t m) {
  v3_ ^= m;
  round(v0_, v1_, v2_, v3_);
  round(v0_, v1_, v2_, v3_);
  v0_ ^= m;
}

void SipHash128::update(std::span<const std::uint8_t> bytes) {
  total_ += bytes.size();
  std::size_t i = 0;
  while (tail_len_ && i < bytes.size()) {
    tail_ |= std::uint64_t{bytes[i++]} << (8 * tail_len_);
    if (++tail_len_ == 8) {
      compress(tail_);
      tail_ = 0;
      tail_len_ = 0;
    }
  }
  for (; i + 8 <= bytes.size(); i += 8) compress(load64(bytes.data() + i));
  for (; i < bytes.size(); ++i) tail_ |= std::uint64_t{bytes[i]} << (8 * tail_len_++);
}

SipHash128::Tag SipHash128::finish() {
  compress(tail_ | (total_ << 56));
  Tag tag{};
  v2_ ^= 0xee;
  for (int r = 0; r < 4; ++r) round(v0_, v1_, v2_, v3_);
  store64(v0_ ^ v1_ ^ v2_ ^ v3_, tag.data());
  v1_ ^= 0xdd;
  for (int r = 0; r < 4; ++r) round(v0_, v1_, v2_, v3_);
  store64(v0_ ^ v1_ ^ v2_ ^ v3_, tag.data() + 8);
  return tag;
}

bool tagsEqual(const SipHash128::Tag &a, const SipHash128::Tag &b) {
  unsigned diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

}  // namespace hk
