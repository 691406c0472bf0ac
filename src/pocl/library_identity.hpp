// What identifies the PoCL that compiles in this process, beyond its version string: a
// package update that keeps the version (Debian's 3.1-2, +deb12u1 rebuilds) changes the
// generated code, and PoCL's own cache key changes with it (it hashes its build timestamp
// and its kernel library's hash, lib/CL/pocl_cache.c at v3.1). Neither is readable at run
// time, so hostkernel takes what stands for them (docs/cache.md, "Key"):
//   * every loaded library whose file name starts with libpocl (libpocl.so.2, the device
//     modules such as libpocl-devices-pthread.so) or libLLVM, by its GNU build id when it
//     has one, and by path, size, modification time, device and inode;
//   * every kernel library file (kernel-*.bc) in PoCL's data directories (next to its
//     library, ../share/pocl and ../../share/pocl, and /usr/share/pocl), by the same.
//
//   std::string id = hk::pocl::compilerIdentity();   // computed once per process
#pragma once

#include <string>

namespace hk::pocl {

// One line per library or kernel library file, sorted; computed on the first call.
const std::string &compilerIdentity();

// One file's line: path, size, modification time (ns), device and inode.
std::string fileIdentity(const std::string &path);

}  // namespace hk::pocl
