// What the two kernel-corpus tests (integration/corpus_test.cpp, from OpenCL C, and
// integration/spirv_corpus_test.cpp, from SPIR-V) share: the capture of printf output and
// the host mirrors of the corpus's struct arguments.
//
//   corpus::StdoutCapture capture;
//   capture.start();
//   ... launch a kernel that calls printf, clFinish ...
//   EXPECT_EQ(corpus::linesOf(capture.stop(), /*sorted=*/true), want);
#pragma once

#include <CL/cl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace corpus {

// Redirects fd 1 (where PoCL and hostkernel write printf output) into a temporary file
// between start() and stop(); flushes stdio on both ends.
class StdoutCapture {
 public:
  void start() {
    std::fflush(stdout);
    file_ = std::tmpfile();
    saved_ = dup(STDOUT_FILENO);
    dup2(fileno(file_), STDOUT_FILENO);
  }
  std::string stop() {
    std::fflush(stdout);
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
    std::rewind(file_);
    std::string text;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) text.append(buf, n);
    std::fclose(file_);
    return text;
  }

 private:
  FILE *file_ = nullptr;
  int saved_ = -1;
};

// The lines of `text`, sorted when the order of work-items' output is not defined.
inline std::vector<std::string> linesOf(const std::string &text, bool sorted) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  if (sorted) std::sort(v.begin(), v.end());
  return v;
}

struct Params {  // must match params_t in kernels/struct_arg.cl
  cl_float f;
  cl_int i;
  cl_double d;
  cl_uint u;
  cl_short s;
  cl_uchar c;
  cl_float4 v;
};
static_assert(sizeof(Params) == 48 && offsetof(Params, v) == 32);

struct Node {  // must match node_t in kernels/svm_chase.cl
  const Node *next;
  cl_int value;
  cl_int pad;
};
static_assert(sizeof(Node) == 16);

}  // namespace corpus
