// HOSTKERNEL_PERF_MAP=1: tells `perf` the names of the functions in work-group libraries
// loaded from memory. perf names code in a file-backed mapping from the file's symbol
// table; a memfd library's file is gone ("memfd:... (deleted)"), and perf reads
// /tmp/perf-<pid>.map (`START SIZE name` in hex, one function a line, the format of
// generated code) only for anonymous executable memory. So for each library loaded, its
// executable segments are re-mapped as anonymous memory holding the same bytes at the
// same addresses, and one line per function of its symbol table is appended to the map.
//
//   void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
//   std::string err;
//   if (config().perf_map && !publishToPerfMap(handle, bytes, "axpy", err)) dlclose(handle);
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace hk::pocl {

// Publishes the library `handle` loaded from `bytes` (before any of its code runs: its
// code pages are replaced). False, with `error` set, only when a segment could not be
// re-mapped, which may leave the library without its code: the caller must not use it.
// A map that cannot be written is reported once in the log; the library is usable.
bool publishToPerfMap(void *handle, std::span<const std::uint8_t> bytes, const std::string &name,
                      std::string &error);

// /tmp/perf-<pid>.map of the calling process.
std::string perfMapPath();

}  // namespace hk::pocl
