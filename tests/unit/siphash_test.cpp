// SipHash-2-4-128 (src/base/siphash.hpp) against the reference implementation's vectors
// (vectors_sip128: key 00..0f, message 00..len-1), whole and fed in pieces.
#include "base/siphash.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

hk::SipHash128::Tag tagOf(std::size_t len, std::size_t piece) {
  hk::SipHash128::Key key;
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> m(len);
  for (std::size_t i = 0; i < len; ++i) m[i] = static_cast<std::uint8_t>(i);
  hk::SipHash128 mac(key);
  for (std::size_t at = 0; at < len; at += piece)
    mac.update({m.data() + at, std::min(piece, len - at)});
  return mac.finish();
}

TEST(SipHash128, MatchesTheReferenceVectors) {
  const hk::SipHash128::Tag empty = {0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6,
                                     0x6d, 0xf6, 0x72, 0x14, 0xc7, 0x55, 0x02, 0x93};
  const hk::SipHash128::Tag one = {0xda, 0x87, 0xc1, 0xd8, 0x6b, 0x99, 0xaf, 0x44,
                                   0x34, 0x76, 0x59, 0x11, 0x9b, 0x22, 0xfc, 0x45};
  const hk::SipHash128::Tag fifteen = {0x54, 0x93, 0xe9, 0x99, 0x33, 0xb0, 0xa8, 0x11,
                                       0x7e, 0x08, 0xec, 0x0f, 0x97, 0xcf, 0xc3, 0xd9};
  EXPECT_EQ(tagOf(0, 1), empty);
  EXPECT_EQ(tagOf(1, 1), one);
  for (std::size_t piece : {1, 3, 8, 15}) EXPECT_EQ(tagOf(15, piece), fifteen) << piece;
  EXPECT_EQ(tagOf(1000, 7), tagOf(1000, 1000));
  EXPECT_TRUE(hk::tagsEqual(empty, tagOf(0, 1)));
  EXPECT_FALSE(hk::tagsEqual(empty, one));
}

}  // namespace
