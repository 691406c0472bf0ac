// A directory of its own for one test (mkdtemp under /tmp, mode 0700), removed with what
// it holds when the test ends.
//
//   TempDir dir("hk-cache-test");
//   ProgramCache cache(dir.path);
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <string>

struct TempDir {
  std::string path;
  explicit TempDir(const std::string &prefix) {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
};
