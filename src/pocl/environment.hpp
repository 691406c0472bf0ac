// PoCL's environment variables, as far as hostkernel's program cache (docs/cache.md)
// cares: those that can change what PoCL compiles are part of a cached program's key.
//
//   key += hk::pocl::compilerEnvironment();   // "POCL_WORK_GROUP_METHOD=cbs;..."
#pragma once

#include <string>

namespace hk::pocl {

// The process's POCL_* variables (PoCL 3.1 reads its options as POCL_<NAME> from the
// environment, lib/CL/pocl_runtime_config.c), sorted and each followed by ';', without
// those that only move files or change logging or threading: POCL_CACHE_DIR
// (lib/CL/pocl_cache.c), POCL_DEBUG (lib/CL/devices/devices.c), POCL_MAX_PTHREAD_COUNT
// (lib/CL/devices/pthread/pthread.c) and POCL_AFFINITY (pthread_scheduler.c). Any other
// (POCL_WORK_GROUP_METHOD, POCL_EXTRA_BUILD_FLAGS, ...) may change the compiled code.
std::string compilerEnvironment();

}  // namespace hk::pocl
