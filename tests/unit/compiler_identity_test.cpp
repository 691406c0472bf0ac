// The program cache's key names the PoCL that compiles (src/pocl/library_identity.hpp).
// Issue 24: after a PoCL update that kept the version string, the key was unchanged and
// the old compiled code ran for ever; PoCL's own key hashes its build and kernel library.
#include "pocl/library_identity.hpp"

#include <CL/cl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "program/program_cache.hpp"
#include "support/pocl_context.hpp"

namespace {

TEST(CompilerIdentity, KeyNamesPoclsLibrariesAndKernelLibrary) {
  ScopedPoclContext cl;
  ASSERT_NE(cl.context, nullptr) << cl.error;
  cl_program program = cl.buildProgram("kernel void k(global int *o) { o[0] = 1; }");
  ASSERT_NE(program, nullptr) << cl.error;

  const std::string &id = hk::pocl::compilerIdentity();
  EXPECT_NE(id.find("/libpocl.so"), std::string::npos) << id;
  EXPECT_NE(id.find("build-id "), std::string::npos) << id;
  EXPECT_NE(id.find("/kernel-"), std::string::npos) << id;  // kernel-<triple>-<cpu>.bc

  hk::program::CacheKey key;
  std::string why;
  ASSERT_TRUE(hk::program::makeCacheKey(program, cl.device, key, why)) << why;
  EXPECT_NE(key.material.find(id), std::string::npos);
  clReleaseProgram(program);
}

TEST(CompilerIdentity, FileIdentityChangesWithTheFile) {
  char tmpl[] = "/tmp/hk-identity-XXXXXX";
  const int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const std::string before = hk::pocl::fileIdentity(tmpl);
  struct timespec t[2] = {{1000, 0}, {1000, 0}};  // a rebuilt file: same size, other time
  ASSERT_EQ(::utimensat(AT_FDCWD, tmpl, t, 0), 0);
  const std::string touched = hk::pocl::fileIdentity(tmpl);
  EXPECT_NE(before, touched);
  std::ofstream(tmpl) << "x";
  ASSERT_EQ(::utimensat(AT_FDCWD, tmpl, t, 0), 0);
  EXPECT_NE(hk::pocl::fileIdentity(tmpl), touched);  // same time, other size
  ::unlink(tmpl);
}

}  // namespace
