// The stack estimate (src/program/stack_estimate.hpp) against the stack the generic
// work-group functions really use. Each kernel's function is called directly for one
// group of L work-items on a thread whose stack was filled with a pattern beforehand; the
// deepest byte no longer holding the pattern gives the stack used below the call. The
// estimate must never be below it (else a group could overflow a stack we said it fits),
// and for private_array, where the private array is the whole story, not far above.
//
// HK_STACK_TABLE=1 prints the measurements (docs/stack.md has them).
#include "program/stack_estimate.hpp"

#include <CL/cl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "pocl/abi.hpp"
#include "program/program_image.hpp"
#include "support/pocl_context.hpp"

namespace {

using hk::program::KernelImage;
using hk::program::ProgramImage;

constexpr unsigned char kPattern = 0x5a;
constexpr std::size_t kMeasureStack = std::size_t{48} << 20;

// Values live across a barrier (four float16 per work-item): PoCL saves them per
// work-item, which only the estimate's context bytes account for.
const char *kLiveAcrossBarrier = R"CLC(
kernel void live_across_barrier(global const float *in, global float *out, local float *tmp)
{
    size_t i = get_global_id(0);
    uint l = get_local_id(0), n = get_local_size(0);
    float16 a = vload16(i, in), b = vload16(i + n, in);
    float16 c = a * b + (float)l, d = a - b * (float)i;
    tmp[l] = a.s0 + d.s7;
    barrier(CLK_LOCAL_MEM_FENCE);
    float16 s = a * tmp[(l + 1) % n] + b * c - d;
    out[i] = s.s0 + s.s1 * s.s2 + s.s3 - s.s4 + s.s5 * s.s6 + s.s7 + s.s8 - s.s9 + s.sa +
             s.sb * s.sc + s.sd - s.se + s.sf;
}
)CLC";

// Kernels that can and cannot tell which work-group they are in (group_free).
const char *kGroupUse = R"CLC(
float helper_local(void) { return (float)get_local_id(0); }
float helper_math(float x) { return sin(x) + exp(x * 0.5f); }
kernel void free_global_id(global float *y, global const float *x, float a) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}
kernel void free_sizes_and_math(global float *y) {
  size_t i = get_global_id(0);
  y[i] = helper_math((float)(get_global_size(0) + get_global_offset(0) + get_work_dim()));
}
kernel void free_global_atomic(global int *counter, global const int *v) {
  atomic_add(counter, v[get_global_id(0)]);
}
kernel void uses_local_id(global float *y) { y[get_global_id(0)] = (float)get_local_id(0); }
kernel void uses_group_id(global float *y) { y[get_global_id(0)] = (float)get_group_id(0); }
kernel void uses_local_size(global float *y) { y[get_global_id(0)] = (float)get_local_size(0); }
kernel void uses_num_groups(global float *y) { y[get_global_id(0)] = (float)get_num_groups(0); }
kernel void uses_helper_local(global float *y) { y[get_global_id(0)] = helper_local(); }
kernel void uses_local_arg(global float *y, local float *t) {
  size_t i = get_global_id(0);
  t[0] = y[i];
  y[i] = t[0] + 1.0f;
}
kernel void uses_automatic_local(global float *y) {
  local float t[4];
  size_t i = get_global_id(0);
  t[i % 4] = y[i];
  y[i] = t[(i + 1) % 4] * 2.0f;  // another work-item's value: not forwarded
}
kernel void uses_barrier(global float *y) {
  size_t i = get_global_id(0);
  float v = y[i];
  barrier(CLK_GLOBAL_MEM_FENCE);
  y[i] = v + 1.0f;
}
kernel void uses_printf(global float *y) {
  if (get_global_id(0) == 0) printf("%f\n", y[0]);
}
)CLC";

std::string readKernelFile(const std::string &file) {
  if (file == "inline:live_across_barrier") return kLiveAcrossBarrier;
  if (file == "inline:group_use") return kGroupUse;
  std::ifstream in(std::string(HK_KERNELS_DIR) + "/" + file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// PoCL's device and context, and the image of every program built so far, by file.
struct Cl {
  ScopedPoclContext opencl;
  // Declared after `opencl`: the images go before the context they were made in.
  std::map<std::string, std::shared_ptr<ProgramImage>> images;

  static Cl &get() {
    static Cl cl;
    return cl;
  }
  ProgramImage *image(const std::string &file) {
    auto &img = images[file];
    if (img) return img.get();
    cl_program program = opencl.buildProgram(readKernelFile(file).c_str());
    if (!program) return nullptr;
    std::string err;
    img = ProgramImage::create(program, opencl.device, err);  // keeps what it needs
    clReleaseProgram(program);
    return img.get();
  }
  // Kernel `name` of image(file). Null when the program gave no image or has no such
  // kernel, with a test failure that says which.
  const KernelImage *kernel(const std::string &file, const std::string &name) {
    ProgramImage *img = image(file);
    if (!img) {
      ADD_FAILURE() << file << ": no program image; " << opencl.error;
      return nullptr;
    }
    std::string err;
    const KernelImage *k = img->kernel(name, err);
    if (!k) ADD_FAILURE() << file << ", kernel " << name << ": " << err;
    return k;
  }
};

// Argument storage for one direct call: every buffer its own zeroed block, scalars zero
// unless the case gives a value.
struct Args {
  std::vector<void *> slots, array;
  std::vector<std::unique_ptr<char[]>> blocks;
  void *block(std::size_t bytes) {
    blocks.emplace_back(new char[bytes]());
    return blocks.back().get();
  }
};

struct Case {
  std::string file, kernel;
  std::vector<std::size_t> group_sizes;
  std::map<unsigned, double> doubles;     // scalar arguments by index (double or float)
  std::map<unsigned, std::uint32_t> uints;
};

struct Call {
  const KernelImage *image;
  void **args;
  hk::pocl::PoclContext pc;
  std::uintptr_t sp = 0;
};

void *runCall(void *p) {
  auto *c = static_cast<Call *>(p);
  c->sp = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  c->image->fn(c->args, &c->pc, 0, 0, 0);
  return nullptr;
}

// Stack bytes the call used below runCall's frame.
std::uint64_t measure(Call &call) {
  void *stack = mmap(nullptr, kMeasureStack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (stack == MAP_FAILED) return 0;
  std::memset(stack, kPattern, kMeasureStack);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack, kMeasureStack);
  pthread_t t;
  std::uint64_t used = 0;
  if (pthread_create(&t, &attr, runCall, &call) == 0) {
    pthread_join(t, nullptr);
    const auto *bytes = static_cast<const unsigned char *>(stack);
    std::size_t i = 0;
    while (i < kMeasureStack && bytes[i] == kPattern) ++i;
    const auto lowest = reinterpret_cast<std::uintptr_t>(stack) + i;
    used = call.sp > lowest ? call.sp - lowest : 0;
  }
  pthread_attr_destroy(&attr);
  munmap(stack, kMeasureStack);
  return used;
}

class StackEstimate : public ::testing::TestWithParam<Case> {};

TEST_P(StackEstimate, IsNeverBelowTheMeasuredStackUse) {
  const Case &c = GetParam();
  Cl &cl = Cl::get();
  ASSERT_NE(cl.opencl.context, nullptr) << cl.opencl.error;
  const KernelImage *k = cl.kernel(c.file, c.kernel);
  ASSERT_NE(k, nullptr);
  const hk::program::StackModel &m = k->stack;
  ASSERT_GT(m.per_item_bytes, 0u);
  const bool table = std::getenv("HK_STACK_TABLE") != nullptr;
  if (table) {  // what the estimate costs at preparation (reading program.bc)
    std::span<const std::uint8_t> bc;
    for (const auto &f : cl.image(c.file)->binary().program_files)
      if (f.path == "program.bc") bc = f.bytes;
    hk::program::StackModel again;
    std::string err;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(hk::program::estimateKernelStack(bc, c.kernel, again, err)) << err;
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now() - t0).count();
    std::printf("| %s | estimate took %lld us, program.bc %zu bytes |\n", c.kernel.c_str(),
                (long long)us, bc.size());
  }
  std::vector<std::pair<std::size_t, std::uint64_t>> measured;
  for (std::size_t L : c.group_sizes) {
    Args a;
    const auto &meta = *k->meta;
    a.slots.resize(meta.num_args + meta.num_locals + 1);
    a.array.resize(a.slots.size());
    for (std::uint32_t i = 0; i < meta.num_args; ++i) {
      const auto &arg = meta.args[i];
      if (arg.kind == hk::pocl::ArgKind::Pointer) {
        // __local: 64 bytes per work-item; global: 64 float16 per work-item.
        const bool local = arg.address_qualifier == CL_KERNEL_ARG_ADDRESS_LOCAL;
        a.slots[i] = a.block(local ? L * 64 + 4096 : L * 64 * 64 + 65536);
        a.array[i] = &a.slots[i];
      } else {
        char *v = static_cast<char *>(a.block(64));
        if (c.doubles.count(i)) {
          if (arg.type_size == 4) {
            float f = static_cast<float>(c.doubles.at(i));
            std::memcpy(v, &f, 4);
          } else {
            std::memcpy(v, &c.doubles.at(i), 8);
          }
        }
        if (c.uints.count(i)) std::memcpy(v, &c.uints.at(i), 4);
        a.array[i] = v;
      }
    }
    for (std::uint32_t j = 0; j < meta.num_locals; ++j) {
      a.slots[meta.num_args + j] = a.block(meta.local_sizes[j] + 128);
      a.array[meta.num_args + j] = &a.slots[meta.num_args + j];
    }
    Call call{k, a.array.data(), {}};
    call.pc.num_groups[0] = call.pc.num_groups[1] = call.pc.num_groups[2] = 1;
    call.pc.local_size[0] = L;
    call.pc.local_size[1] = call.pc.local_size[2] = 1;
    hk::pocl::setWorkDim(call.pc, 1);
    const std::uint64_t used = measure(call);
    measured.emplace_back(L, used);
    const std::uint64_t estimate = m.bytesFor(L);
    if (table)
      std::printf("| %s | %zu | %llu | %llu | %.2f |\n", c.kernel.c_str(), L,
                  (unsigned long long)used, (unsigned long long)estimate,
                  used ? double(estimate) / double(used) : 0.0);
    EXPECT_GT(used, 0u) << "nothing measured";
    EXPECT_LE(used, estimate) << c.kernel << " L=" << L << ": the group used more stack than "
                              << "estimated (private " << m.private_bytes << " B, context "
                              << m.context_bytes << " B per work-item)";
  }
  // The per-work-item part alone (the fixed base would hide an underestimate of it).
  if (measured.size() >= 2) {
    const auto [l0, u0] = measured.front();
    const auto [l1, u1] = measured.back();
    const double slope = (double(u1) - double(u0)) / double(l1 - l0);
    if (table)
      std::printf("| %s | per work-item | %.1f | %llu | |\n", c.kernel.c_str(), slope,
                  (unsigned long long)m.per_item_bytes);
    EXPECT_LE(slope, double(m.per_item_bytes))
        << c.kernel << ": measured stack per work-item above the estimate's";
  }
}

const Case kCases[] = {
    {"private_array.cl", "private_array", {1, 16, 64, 256, 1024}, {}, {}},
    {"private_across_barrier.cl", "private_across_barrier", {1, 64, 256}, {}, {}},
    {"reduce_local_arg.cl", "reduce_sum", {1, 64, 1024}, {}, {}},
    {"reduce_local_f64.cl", "reduce_sum_f64", {64, 1024}, {}, {}},
    {"scan_local.cl", "scan_local", {64, 1024}, {}, {}},
    {"local_mixed.cl", "local_mixed", {64}, {}, {}},
    {"smooth_local.cl", "smooth_local", {64, 1024}, {}, {{2, 1024}}},
    {"dg_element.cl", "dg_element", {32}, {{5, 1.0}}, {}},  // reqd_work_group_size(32)
    {"inline:live_across_barrier", "live_across_barrier", {1, 64, 256}, {}, {}},
    {"axpy.cl", "axpy", {1, 1024, 4096}, {{0, 2.0}}, {}},
    {"math_f64.cl", "sin_f64", {64, 4096}, {}, {}},
    {"double_math.cl", "double_math", {64, 1024}, {}, {}},
};

INSTANTIATE_TEST_SUITE_P(Kernels, StackEstimate, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.kernel;
                         });

TEST(StackEstimate, PrivateArrayIsSixteenKibPerWorkItem) {
  const KernelImage *k = Cl::get().kernel("private_array.cl", "private_array");
  ASSERT_NE(k, nullptr);
  EXPECT_GE(k->stack.private_bytes, 16384u);
  EXPECT_LT(k->stack.private_bytes, 16384u + 1024u);
  EXPECT_FALSE(k->stack.has_barrier);
  // L=1024 needs more than an 8 MiB stack; L=256 fits one.
  EXPECT_GT(k->stack.bytesFor(1024), std::uint64_t{16} << 20);
  EXPECT_LT(k->stack.bytesFor(256), std::uint64_t{6} << 20);
  EXPECT_EQ(k->stack.largestPow2Fitting(std::uint64_t{8} << 20), 256u);
}

TEST(StackEstimate, BarrierKernelsCountValuesAcrossTheBarrier) {
  const KernelImage *k =
      Cl::get().kernel("private_across_barrier.cl", "private_across_barrier");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->stack.has_barrier);
  EXPECT_GE(k->stack.private_bytes, 32u);  // float priv[8]
  EXPECT_GT(k->stack.context_bytes, 0u);
}

// The same walk tells which kernels cannot observe their work-group: only those may run
// with merged work-groups (docs/launch.md).
TEST(StackEstimate, GroupFreeOnlyForKernelsBlindToTheirGroup) {
  const std::map<std::string, bool> expected = {
      {"free_global_id", true},        {"free_sizes_and_math", true},
      {"free_global_atomic", true},    {"uses_local_id", false},
      {"uses_group_id", false},        {"uses_local_size", false},
      {"uses_num_groups", false},      {"uses_helper_local", false},
      {"uses_local_arg", false},       {"uses_automatic_local", false},
      {"uses_barrier", false},         {"uses_printf", false}};
  for (const auto &[name, group_free] : expected) {
    const KernelImage *k = Cl::get().kernel("inline:group_use", name);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->group_free, group_free) << name;
  }
}

TEST(StackEstimate, UnreadableBitcodeGivesTheGenerousModel) {
  hk::program::StackModel m;
  std::string err;
  const std::uint8_t junk[16] = {'B', 'C', 0xc0, 0xde, 1, 2, 3};
  EXPECT_FALSE(hk::program::estimateKernelStack(junk, "k", m, err));
  EXPECT_FALSE(err.empty());
  EXPECT_EQ(m.per_item_bytes, hk::program::unknownStackModel().per_item_bytes);
  EXPECT_FALSE(hk::program::estimateKernelStack({}, "k", m, err));
}

}  // namespace
