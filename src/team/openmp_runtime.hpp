// The application's OpenMP runtime, found in the process with dlsym: libhostkernel never
// links one (it must not bring a runtime into programs that do not use one). libgomp and
// LLVM's libomp both export GOMP_parallel.
//
//   if (const hk::team::OpenMPRuntime *omp = hk::team::findOpenMP())
//     foreign.reset(&omp->parallel_for, omp->stack_bytes);   // jobs on OpenMP's threads
#pragma once

#include <cstdint>

#include "team/foreign_team.hpp"

namespace hk::team {

struct OpenMPRuntime {
  // A ParallelFor over GOMP_parallel: task i on OpenMP thread i; on_worker is true inside
  // a parallel region (omp_get_level() > 0). `threads` is omp_get_max_threads().
  ParallelFor parallel_for;
  std::uint64_t stack_bytes;  // OMP_STACKSIZE, else the process's default thread stack
};

// The runtime loaded in the process, looked up on the first call; null when there is none.
const OpenMPRuntime *findOpenMP();

// True in a process made by fork(): OpenMP's threads are not used there (libgomp is not
// fork-safe), team jobs go to hostkernel's own workers.
bool openmpLostToFork();

// OMP_STACKSIZE's value in bytes ("512K", "8M", a bare number is KiB); 0 when malformed.
std::uint64_t parseOmpStackSize(const char *text);

}  // namespace hk::team
