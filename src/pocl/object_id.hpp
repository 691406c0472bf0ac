// PoCL 3.1 gives every OpenCL object a unique, increasing 64-bit id, stored right after
// the ICD dispatch pointer (`POCL_ICD_OBJECT` then `POCL_OBJECT`'s `uint64_t id`, in
// lib/CL/pocl_cl.h at v3.1, without ENABLE_EXTRA_VALIDITY_CHECKS). A handle's address can
// be reused by a new object after the old one is freed; its id cannot. hostkernel keeps
// the id beside anything it caches for a handle and compares it on use, so state cached
// for a released object is never applied to a new one, even when the release and the
// creation did not go through hostkernel.
//
//   std::uint64_t id = hk::pocl::objectId(kernel);   // 0 when ids are not usable
//   if (entry->id != id) dropAndRecreate(entry);
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace hk::pocl {

namespace detail {
extern std::atomic<bool> g_object_ids_usable;
}

// The object's id, or 0 if ids were found unusable (then only create/release calls seen
// by hostkernel invalidate cached state).
inline std::uint64_t objectId(const void *handle) {
  if (!detail::g_object_ids_usable.load(std::memory_order_relaxed)) return 0;
  std::uint64_t id;
  std::memcpy(&id, static_cast<const char *>(handle) + sizeof(void *), sizeof id);
  return id;
}

// Checks, once per process, that objects created one after the other in `context` have
// increasing ids where objectId() reads them; disables objectId() otherwise.
void checkObjectIds(cl_context context);

}  // namespace hk::pocl
