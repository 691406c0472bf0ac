// A program's image made per kernel (docs/first-launch.md, "One kernel compiled") plans a
// kernel's launches with metadata it gathers without the program's binary: PoCL's build
// hash and flush_denorms read from PoCL's program (pocl/program_fields.hpp), the arguments
// from clGetKernelArgInfo and program.bc. For every kernel of kernels/*.cl, that metadata
// must be the binary's, field for field, or the kernel must not be planned with it (then
// launchKernel gives the generic function from the binary): a kernel with automatic
// __local variables never is. Taking the binary afterwards checks that the build hash read
// from PoCL's program is the binary's (ProgramImage::takeBinary refuses a mismatch).
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "program/program_image.hpp"
#include "support/pocl_context.hpp"

namespace {

namespace fs = std::filesystem;
using hk::program::KernelImage;
using hk::program::ProgramImage;

std::vector<std::string> kernelNames(cl_program program) {
  size_t n = 0;
  clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &n);
  std::string names(n, '\0');
  clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, n, names.data(), nullptr);
  names.resize(n ? n - 1 : 0);
  std::vector<std::string> out;
  std::stringstream in(names);
  for (std::string k; std::getline(in, k, ';');) out.push_back(k);
  return out;
}

struct Totals {
  int per_kernel = 0, from_binary = 0;
};

void checkProgram(cl_context ctx, cl_device_id device, const std::string &src,
                  const char *options, const std::string &what, Totals &totals) {
  cl_int err = CL_SUCCESS;
  const char *text = src.c_str();
  cl_program program = clCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  if (clBuildProgram(program, 1, &device, options, nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);  // not for this PoCL (program-scope variables on 3.1, ...)
    return;
  }
  std::string error;
  auto full = ProgramImage::create(program, device, error);
  if (!full) {  // stays on PoCL's queue (program-scope variables)
    clReleaseProgram(program);
    return;
  }
  for (const std::string &name : kernelNames(program)) {
    SCOPED_TRACE(what + ": " + name);
    auto img = ProgramImage::create(program, device, error, /*per_kernel=*/true);
    ASSERT_TRUE(img) << error;
    ASSERT_TRUE(img->perKernel()) << "PoCL's program not located";
    const KernelImage *p = img->launchKernel(name, error);
    ASSERT_TRUE(p) << error;
    const hk::pocl::KernelRecord *want = full->binary().findKernel(name);
    ASSERT_TRUE(want);
    if (p->fn) {  // not planned per kernel: the generic function from the binary
      EXPECT_FALSE(img->perKernel());
      ++totals.from_binary;
      continue;
    }
    ++totals.per_kernel;
    // (7.1's generic library of a kernel that reads its group id does not load: such a
    // kernel stays on PoCL's queue whichever image it has.)
    const KernelImage *generic = full->kernel(name, error);
    EXPECT_EQ(want->num_locals, 0u);
    EXPECT_EQ(p->meta->num_locals, want->num_locals);
    EXPECT_EQ(p->meta->num_args, want->num_args);
    EXPECT_EQ(p->meta->reqd_wg_size, want->reqd_wg_size);
    EXPECT_EQ(p->flush_denorms, full->binary().flushDenorms());
    if (generic) EXPECT_EQ(p->stack.per_item_bytes, generic->stack.per_item_bytes);
    ASSERT_EQ(p->meta->args.size(), want->args.size());
    for (std::size_t i = 0; i < want->args.size(); ++i) {
      EXPECT_EQ(p->meta->args[i].kind, want->args[i].kind) << i;
      EXPECT_EQ(p->meta->args[i].address_qualifier, want->args[i].address_qualifier) << i;
      EXPECT_EQ(p->meta->args[i].type_name, want->args[i].type_name) << i;
      EXPECT_EQ(p->meta->args[i].type_size, want->args[i].type_size) << i;
    }
    // The binary now: its build hash must be the one read from PoCL's program.
    if (generic) EXPECT_TRUE(img->kernel(name, error)) << error;
    else img->kernel(name, error);
    EXPECT_FALSE(img->perKernel()) << error;
  }
  clReleaseProgram(program);
}

TEST(PerKernelImage, MetadataIsTheBinarysOrNotUsed) {
  ScopedPoclContext cl;
  ASSERT_NE(cl.context, nullptr) << cl.error;
  Totals totals;
  for (const fs::directory_entry &e : fs::directory_iterator(HK_KERNELS_DIR)) {
    if (e.path().extension() != ".cl") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    checkProgram(cl.context, cl.device, text.str(), "", e.path().filename().string(), totals);
  }
  // flush_denorms read from PoCL's program, and a kernel-scope __local array.
  checkProgram(cl.context, cl.device,
               "kernel void f(global float *o) { o[get_global_id(0)] *= 0.5f; }\n"
               "kernel void g(global float *o) { local float t[64];\n"
               "  t[get_local_id(0)] = o[get_global_id(0)]; barrier(CLK_LOCAL_MEM_FENCE);\n"
               "  o[get_global_id(0)] = t[63 - get_local_id(0)]; }\n",
               "-cl-denorms-are-zero", "denormals-are-zero", totals);
  EXPECT_GE(totals.per_kernel, 20);
  EXPECT_GE(totals.from_binary, 1);
}

}  // namespace
