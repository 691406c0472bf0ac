// PoCL's kernel cache on disk, where PoCL 3.1 writes the work-group functions it compiles
// for its own NDRange launches (POCL-3.1-FACTS, "Cache dir on disk"):
//
//   <top>/<program build hash>/<kernel>/<x>-<y>-<z>[-goffs0][-smallgrid]/<kernel>.so
//
// A launch through PoCL's queue with local size x*y*z leaves there a work-group function
// *specialized* for it: the local size is a constant, and with -goffs0 the global offset
// is zero, with -smallgrid every grid dimension is narrower than 65535 work-items. For
// bandwidth-bound kernels it runs much faster than the generic (dynamic local size)
// function in the program's binary: its work-item loops run a constant number of times,
// which the compiler optimises for. hostkernel loads it for hot kernels (docs/specialized.md):
//
//   SpecializedGeometry g = specializedGeometryOf(plan.pc);
//   std::string so = specializedLibraryPath(poclCacheTopDir(), binary.build_hash, "axpy", g);
//   ... later launches with acceptsLaunch(g, pc) may call its work-group function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pocl/abi.hpp"

namespace hk::pocl {

// The directory PoCL 3.1 caches kernels in: $POCL_CACHE_DIR, else
// $XDG_CACHE_HOME/pocl/kcache, else $HOME/.cache/pocl/kcache (lib/CL/pocl_cache.c,
// pocl_cache_init_topdir); empty when none is set.
std::string poclCacheTopDir();

// What PoCL specializes a work-group function for.
struct SpecializedGeometry {
  std::uint64_t local[3] = {0, 0, 0};
  bool zero_offset = false;  // "-goffs0": compiled for a zero global offset
  bool small_grid = false;   // "-smallgrid": compiled for grids narrower than 65535
};

// Widest grid dimension (work-items) below which PoCL's CPU device compiles a
// "-smallgrid" variant: grid_width_specialization_limit, USHRT_MAX for CPU devices
// (lib/CL/devices/common.c).
inline constexpr std::uint64_t kSmallGridLimit = 65535;

// The variant PoCL compiles for a launch of geometry `pc` (its local size, offset and
// grid).
SpecializedGeometry specializedGeometryOf(const PoclContext &pc);

// Whether a launch of geometry `pc` may call a function specialized for `g`: the same
// local size, a zero offset if `g` assumes one, a small grid if `g` assumes one.
bool acceptsLaunch(const SpecializedGeometry &g, const PoclContext &pc);

// "<x>-<y>-<z>[-goffs0][-smallgrid]", as lib/CL/pocl_cache.c
// (pocl_cache_kernel_cachedir_path) names the variant's directory.
std::string specializedDirName(const SpecializedGeometry &g);

// Where PoCL keeps the kernel's function specialized for `g` ("" when `top` is empty),
// with the running release's clipping of long kernel names (as genericLibraryPath).
std::string specializedLibraryPath(const std::string &top, const std::string &build_hash,
                                   const std::string &kernel, const SpecializedGeometry &g);

// Every variant that accepts a launch whose own variant is `g`, most specialized first:
// `g`, then without -smallgrid, without -goffs0, without both (PoCL's queue compiles only
// the first; the others are there when earlier launches had larger grids or offsets).
std::vector<SpecializedGeometry> acceptingVariants(const SpecializedGeometry &g);

// Reads a file of PoCL's kernel cache that hostkernel will load or parse, under the rules
// of hostkernel's own cache (docs/cache.md, "Trust"): opened with O_NOFOLLOW | O_NONBLOCK,
// a regular file owned by the effective user, writable by no one else, at most
// `max_bytes`. False with `why` otherwise (`why` says "no file" when there is none).
bool readPoclCacheFile(const std::string &path, std::uint64_t max_bytes,
                       std::vector<std::uint8_t> &out, std::string &why);

}  // namespace hk::pocl
