// PoCL gives every OpenCL object a unique, increasing 64-bit id, stored right after the
// ICD header (`POCL_ICD_OBJECT` then `POCL_OBJECT`'s `uint64_t id`, in lib/CL/pocl_cl.h,
// without ENABLE_EXTRA_VALIDITY_CHECKS); the header's size is Release::object_id_offset. A handle's address can
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
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hk::pocl {

namespace detail {
// Where ids sit in an object; 0 while they are not known to be usable.
extern std::atomic<std::size_t> g_object_id_offset;
}

// The object's id, or 0 if ids were found unusable (then only create/release calls seen
// by hostkernel invalidate cached state).
inline std::uint64_t objectId(const void *handle) {
  const std::size_t at = detail::g_object_id_offset.load(std::memory_order_relaxed);
  if (!at) return 0;
  std::uint64_t id;
  std::memcpy(&id, static_cast<const char *>(handle) + at, sizeof id);
  return id;
}

// Checks, once per process, that objects created one after the other in `context` have
// increasing ids at the running release's offset (or, with no release known, the
// baseline's); disables objectId() otherwise.
void checkObjectIds(cl_context context);

}  // namespace hk::pocl
