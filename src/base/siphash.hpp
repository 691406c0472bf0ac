// SipHash-2-4 with a 128-bit tag (Aumasson and Bernstein): a keyed pseudo-random function,
// used as a message authentication code. Without the 16-byte key, a valid tag for new
// bytes cannot be made, whatever tags of other bytes one has seen.
//
//   hk::SipHash128 mac(key);            // std::array<std::uint8_t, 16>
//   mac.update(header); mac.update(payload);
//   std::array<std::uint8_t, 16> tag = mac.finish();
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace hk {

class SipHash128 {
 public:
  using Key = std::array<std::uint8_t, 16>;
  using Tag = std::array<std::uint8_t, 16>;

  explicit SipHash128(const Key &key);
  void update(std::span<const std::uint8_t> bytes);
  Tag finish();  // once

 private:
  void compress(std::uint64_t m);
  std::uint64_t v0_, v1_, v2_, v3_;
  std::uint64_t tail_ = 0;  // the bytes not yet compressed, little-endian
  unsigned tail_len_ = 0;
  std::uint64_t total_ = 0;
};

// Equal tags, compared in time that does not depend on where they differ.
bool tagsEqual(const SipHash128::Tag &a, const SipHash128::Tag &b);

}  // namespace hk
