// The payload of a program's persistent cache entry (docs/cache.md, "Entry format"): PoCL's
// serialized binary followed by the stack estimate of each of its kernels, so that a warm
// process neither asks PoCL for the binary nor reads the program's bitcode.
//
//   std::vector<std::uint8_t> payload = joinCachePayload(binary, estimates);
//   cache.store(key, payload);
//   ...
//   CachePayload p;
//   std::string why;
//   if (cache.load(key, bytes) && splitCachePayload(bytes, p, why))
//     parsePoclBinary(bytes.data(), p.binary_size, ...);   // the binary is the prefix
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "program/stack_estimate.hpp"

namespace hk::program {

struct CachePayload {
  std::size_t binary_size = 0;                   // the poclbinary is bytes [0, binary_size)
  std::map<std::string, StackEstimate> stacks;   // by kernel name
};

// `binary` followed by a record per kernel and a footer that locates them.
std::vector<std::uint8_t> joinCachePayload(std::span<const std::uint8_t> binary,
                                           const std::map<std::string, StackEstimate> &stacks);

// Reads what joinCachePayload wrote. False, with `why`, when the records are missing,
// truncated or inconsistent (the caller then rebuilds the entry).
bool splitCachePayload(std::span<const std::uint8_t> payload, CachePayload &out,
                       std::string &why);

}  // namespace hk::program
