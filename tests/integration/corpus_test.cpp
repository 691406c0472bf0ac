// Corpus test: every kernel of kernels/ runs through PoCL's own queue and through
// hostkernel's direct path, and the two must agree bit for bit.
//
// For each case (one kernel, one geometry):
//   1. PoCL:       clSetKernelArg + clEnqueueNDRangeKernel + clFinish on a cl_kernel that
//                  hostkernel never sees; all buffers (and SVM allocations) are read back.
//   2. hostkernel: the same buffers reset to the same initial contents, a second cl_kernel
//                  from hkCreateKernel, hkSetKernelArg/hkSetKernelArgSVMPointer,
//                  hkEnqueueNDRangeKernel, hkEnqueueReadBuffer, hkFinish. Launched twice
//                  (the first launch of a kernel may use a different variant than later
//                  ones), each time compared with memcmp against PoCL's bytes.
//   3. hkGetKernelLaunchCounts must show that both launches ran inline: if the direct
//      path breaks and everything silently falls back to PoCL's queue, this test fails.
// printf output is captured from fd 1 on both paths and compared as text. The caller's
// MXCSR control bits (FTZ/DAZ/rounding) must be the same after a direct launch as before.
//
// Build with -DHK_QUEUE_ONLY (no libhostkernel; the hk* calls become plain OpenCL calls)
// to check the harness and the corpus against PoCL alone:
//   g++ -std=c++20 -DHK_QUEUE_ONLY -DHK_KERNELS_DIR='"kernels"' -Iinclude
//       tests/integration/corpus_test.cpp -lOpenCL -lgtest -lgtest_main -pthread
#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>
#include <unistd.h>
#include <xmmintrin.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/corpus_support.hpp"
#include "support/pocl_env.hpp"
#include "support/queue_checks.hpp"
#include "support/random.hpp"

#ifndef HK_KERNELS_DIR
#error "HK_KERNELS_DIR must name the kernels/ directory"
#endif

namespace {

using corpus::Node;
using corpus::Params;

using Bytes = std::vector<unsigned char>;
using Outputs = std::vector<Bytes>;

// ---------------------------------------------------------------------------------------
// Geometry of one launch.
struct Geometry {
  cl_uint dim = 1;
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {1, 1, 1};
  size_t offset[3] = {0, 0, 0};
  bool has_local = false;
  bool has_offset = false;

  size_t items() const { return global[0] * global[1] * global[2]; }
  size_t g(int d) const { return global[d]; }
  size_t l(int d) const { return local[d]; }
  size_t off(int d) const { return offset[d]; }

  // "g64x32_l8x4_o3x5", "g1000_lnull"
  std::string str() const {
    auto join = [this](const size_t *v) {
      std::string s;
      for (cl_uint d = 0; d < dim; ++d) s += (d ? "x" : "") + std::to_string(v[d]);
      return s;
    };
    std::string s = "g" + join(global) + "_l" + (has_local ? join(local) : "null");
    if (has_offset) s += "_o" + join(offset);
    return s;
  }
};

Geometry geo(std::initializer_list<size_t> global, std::initializer_list<size_t> local = {},
             std::initializer_list<size_t> offset = {}) {
  Geometry g;
  g.dim = static_cast<cl_uint>(global.size());
  std::copy(global.begin(), global.end(), g.global);
  if (local.size()) {
    g.has_local = true;
    std::copy(local.begin(), local.end(), g.local);
  }
  if (offset.size()) {
    g.has_offset = true;
    std::copy(offset.begin(), offset.end(), g.offset);
  }
  return g;
}

// ---------------------------------------------------------------------------------------
// Buffers and arguments of one case.
enum class Elem { u8, i32, u32, i64, u64, f32, f64 };

struct Buffer {
  Bytes init;             // initial contents; its size is the buffer size
  Elem elem = Elem::u8;   // only for printing mismatches
  bool svm = false;       // clSVMAlloc (fine-grain) instead of a cl_mem
  bool compare = true;    // false: contents may legitimately differ (checked otherwise)
};

struct Arg {
  enum Kind { Mem, SubMem, Svm, Value, Local } kind = Value;
  int buffer = -1;        // Mem, SubMem, Svm
  size_t offset = 0;      // SubMem origin, Svm byte offset
  size_t size = 0;        // SubMem size, Local size
  Bytes value;            // Value
};

Arg mem(int b) { return {Arg::Mem, b, 0, 0, {}}; }
Arg sub_mem(int b, size_t origin, size_t size) { return {Arg::SubMem, b, origin, size, {}}; }
Arg svm(int b, size_t byte_offset = 0) { return {Arg::Svm, b, byte_offset, 0, {}}; }
Arg local_mem(size_t bytes) { return {Arg::Local, -1, 0, bytes, {}}; }
template <class T> Arg val(const T &v) {
  Arg a;
  a.kind = Arg::Value;
  a.value.resize(sizeof(T));
  std::memcpy(a.value.data(), &v, sizeof(T));
  return a;
}

template <class T> Bytes bytes_of(const std::vector<T> &v) {
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T> std::vector<T> as(const Bytes &b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// Output buffers start with this pattern so that "not written" never looks like a result.
constexpr unsigned char kSentinel = 0xCD;
Buffer sentinel(size_t bytes, Elem elem) { return {Bytes(bytes, kSentinel), elem, false, true}; }
template <class T> Buffer input(const std::vector<T> &v, Elem elem) {
  return {bytes_of(v), elem, false, true};
}

struct Resources {
  std::vector<Buffer> buffers;
  std::vector<Arg> args;
  // Called once the SVM allocations exist, for contents that hold SVM addresses.
  std::function<void(std::vector<Buffer> &, const std::vector<void *> &svm_bases)> relocate;
};

enum class PrintfMode { None, Ordered, Sorted };

struct Case {
  std::string name;
  std::string file;     // kernels/<file>
  std::string options;  // build options
  std::string kernel;
  Geometry geometry;
  std::function<Resources(const Geometry &)> setup;
  // Sanity check of a result against what the kernel is meant to compute: run on PoCL's
  // result, and on hostkernel's when some buffer is not compared bit for bit.
  std::function<void(const Outputs &, const Geometry &)> check;
  PrintfMode printf_mode = PrintfMode::None;
  // Launch the direct path with FTZ, DAZ and round-up set in the caller's MXCSR: the
  // kernel must still see PoCL's floating-point environment, the caller must get its own
  // back.
  bool hostile_fpenv = false;
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

// ---------------------------------------------------------------------------------------
// OpenCL objects shared by all cases: PoCL's CPU device, one context, one queue for the
// PoCL runs and one for the hostkernel runs, and each program built once.
struct Cl : PoclQueues {
  size_t base_align = 128;
  std::map<std::string, cl_program> programs;
  std::map<std::string, std::string> build_errors;

  static Cl &get() {
    static Cl *cl = new Cl();
    return *cl;
  }

  Cl() : PoclQueues(QueueBy::kOpenCL) {
    if (!error.empty()) return;
    cl_uint bits = 0;
    clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, nullptr);
    if (bits >= 8) base_align = bits / 8;
  }

  void release() {
    for (auto &[key, p] : programs) hkReleaseProgram(p);
    programs.clear();
    PoclQueues::release();
  }

  // Builds kernels/<file> with `options` once; nullptr (and build_errors[key]) on failure.
  cl_program program(const std::string &file, const std::string &options) {
    std::string key = file + "|" + options;
    if (auto it = programs.find(key); it != programs.end()) return it->second;
    if (build_errors.count(key)) return nullptr;
    std::ifstream in(std::string(HK_KERNELS_DIR) + "/" + file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string src = ss.str();
    if (!in || src.empty()) {
      build_errors[key] = "cannot read " + file;
      return nullptr;
    }
    const char *text = src.c_str();
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(context, 1, &text, nullptr, &err);
    if (err == CL_SUCCESS) err = clBuildProgram(p, 1, &device, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      std::string log;
      if (p) {
        log = BuildLog(p, device);
        clReleaseProgram(p);
      }
      build_errors[key] = "build of " + file + " failed (" + std::to_string(err) + "): " + log;
      return nullptr;
    }
    programs[key] = p;
    return p;
  }
};

class CorpusEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { Cl::get().release(); }
};
const auto *const kEnvironment = ::testing::AddGlobalTestEnvironment(new CorpusEnvironment);

// ---------------------------------------------------------------------------------------
// The buffers of one case, shared by the PoCL run and the hostkernel runs.
class Instance {
 public:
  Instance(Cl &cl, Resources &s) : cl_(cl), s_(s) {
    mems_.assign(s.buffers.size(), nullptr);
    svms_.assign(s.buffers.size(), nullptr);
    for (size_t i = 0; i < s.buffers.size(); ++i) {
      const Buffer &b = s.buffers[i];
      size_t size = std::max<size_t>(b.init.size(), 1);
      if (b.svm) {
        svms_[i] = clSVMAlloc(cl.context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                              size, 0);
        if (!svms_[i]) error_ = "clSVMAlloc failed";
      } else {
        cl_int err = CL_SUCCESS;
        mems_[i] = hkCreateBuffer(cl.context, CL_MEM_READ_WRITE, size, nullptr, &err);
        if (err != CL_SUCCESS) error_ = "hkCreateBuffer: " + std::to_string(err);
      }
    }
    subs_.assign(s.args.size(), nullptr);
    for (size_t i = 0; i < s.args.size(); ++i) {
      const Arg &a = s.args[i];
      if (a.kind != Arg::SubMem) continue;
      cl_buffer_region region{a.offset, a.size};
      cl_int err = CL_SUCCESS;
      subs_[i] = hkCreateSubBuffer(mems_[a.buffer], CL_MEM_READ_WRITE,
                                   CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
      if (err != CL_SUCCESS) error_ = "hkCreateSubBuffer: " + std::to_string(err);
    }
    if (s.relocate) s.relocate(s.buffers, svms_);
  }

  ~Instance() {
    for (cl_mem m : subs_)
      if (m) hkReleaseMemObject(m);
    for (cl_mem m : mems_)
      if (m) hkReleaseMemObject(m);
    for (void *p : svms_)
      if (p) clSVMFree(cl_.context, p);
  }

  const std::string &error() const { return error_; }

  // Restores every buffer's initial contents.
  cl_int reset(cl_command_queue q, bool hk) {
    for (size_t i = 0; i < s_.buffers.size(); ++i) {
      const Bytes &init = s_.buffers[i].init;
      if (init.empty()) continue;
      if (svms_[i]) {
        std::memcpy(svms_[i], init.data(), init.size());
        continue;
      }
      cl_int err = hk ? hkEnqueueWriteBuffer(q, mems_[i], CL_TRUE, 0, init.size(), init.data(),
                                             0, nullptr, nullptr)
                      : clEnqueueWriteBuffer(q, mems_[i], CL_TRUE, 0, init.size(), init.data(),
                                             0, nullptr, nullptr);
      if (err != CL_SUCCESS) return err;
    }
    return CL_SUCCESS;
  }

  cl_int set_args(cl_kernel k, bool hk) {
    for (cl_uint i = 0; i < s_.args.size(); ++i) {
      const Arg &a = s_.args[i];
      cl_int err = CL_SUCCESS;
      auto set = [&](size_t size, const void *value) {
        return hk ? hkSetKernelArg(k, i, size, value) : clSetKernelArg(k, i, size, value);
      };
      switch (a.kind) {
        case Arg::Mem: err = set(sizeof(cl_mem), &mems_[a.buffer]); break;
        case Arg::SubMem: err = set(sizeof(cl_mem), &subs_[i]); break;
        case Arg::Local: err = set(a.size, nullptr); break;
        case Arg::Value: err = set(a.value.size(), a.value.data()); break;
        case Arg::Svm: {
          void *p = static_cast<char *>(svms_[a.buffer]) + a.offset;
          err = hk ? hkSetKernelArgSVMPointer(k, i, p) : clSetKernelArgSVMPointer(k, i, p);
          break;
        }
      }
      if (err != CL_SUCCESS) return err;
    }
    return CL_SUCCESS;
  }

  // Reads every buffer back; call after the queue has finished.
  cl_int read(cl_command_queue q, bool hk, Outputs &out) {
    out.assign(s_.buffers.size(), {});
    for (size_t i = 0; i < s_.buffers.size(); ++i) {
      out[i].resize(s_.buffers[i].init.size());
      if (out[i].empty()) continue;
      if (svms_[i]) continue;  // after the finish below
      cl_int err = hk ? hkEnqueueReadBuffer(q, mems_[i], CL_TRUE, 0, out[i].size(),
                                            out[i].data(), 0, nullptr, nullptr)
                      : clEnqueueReadBuffer(q, mems_[i], CL_TRUE, 0, out[i].size(),
                                            out[i].data(), 0, nullptr, nullptr);
      if (err != CL_SUCCESS) return err;
    }
    cl_int err = hk ? hkFinish(q) : clFinish(q);
    if (err != CL_SUCCESS) return err;
    for (size_t i = 0; i < s_.buffers.size(); ++i)
      if (svms_[i] && !out[i].empty()) std::memcpy(out[i].data(), svms_[i], out[i].size());
    return CL_SUCCESS;
  }

 private:
  Cl &cl_;
  Resources &s_;
  std::vector<cl_mem> mems_;
  std::vector<void *> svms_;
  std::vector<cl_mem> subs_;
  std::string error_;
};

size_t elem_size(Elem e) {
  switch (e) {
    case Elem::u8: return 1;
    case Elem::i32: case Elem::u32: case Elem::f32: return 4;
    case Elem::i64: case Elem::u64: case Elem::f64: return 8;
  }
  return 1;
}

std::string format_elem(const unsigned char *p, Elem e) {
  char buf[96];
  switch (e) {
    case Elem::u8: std::snprintf(buf, sizeof buf, "0x%02x", p[0]); break;
    case Elem::i32: { int32_t v; std::memcpy(&v, p, 4); std::snprintf(buf, sizeof buf, "%d", v); break; }
    case Elem::u32: { uint32_t v; std::memcpy(&v, p, 4); std::snprintf(buf, sizeof buf, "%u (0x%08x)", v, v); break; }
    case Elem::i64: { int64_t v; std::memcpy(&v, p, 8); std::snprintf(buf, sizeof buf, "%lld", (long long)v); break; }
    case Elem::u64: { uint64_t v; std::memcpy(&v, p, 8); std::snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)v); break; }
    case Elem::f32: { float v; uint32_t u; std::memcpy(&v, p, 4); std::memcpy(&u, p, 4); std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", v, u); break; }
    case Elem::f64: { double v; uint64_t u; std::memcpy(&v, p, 8); std::memcpy(&u, p, 8); std::snprintf(buf, sizeof buf, "%.17g (0x%016llx)", v, (unsigned long long)u); break; }
  }
  return buf;
}

// "" if equal, else where and how they differ.
std::string diff(const Bytes &want, const Bytes &got, Elem elem) {
  if (want.size() == got.size() && std::memcmp(want.data(), got.data(), want.size()) == 0)
    return "";
  std::ostringstream os;
  if (want.size() != got.size()) {
    os << "size " << got.size() << " != " << want.size();
    return os.str();
  }
  size_t es = elem_size(elem), first = want.size(), bytes = 0, elems = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == got[i]) continue;
    ++bytes;
    if (first == want.size()) first = i;
  }
  for (size_t i = 0; i + es <= want.size(); i += es)
    if (std::memcmp(&want[i], &got[i], es) != 0) ++elems;
  os << "first differing byte " << first << " of " << want.size() << " (" << bytes
     << " bytes, " << elems << " elements of " << es << " bytes differ)";
  int shown = 0;
  for (size_t i = first / es * es; i + es <= want.size() && shown < 4; i += es) {
    if (std::memcmp(&want[i], &got[i], es) == 0) continue;
    os << "\n    element " << i / es << ": PoCL " << format_elem(&want[i], elem)
       << ", hostkernel " << format_elem(&got[i], elem);
    ++shown;
  }
  return os.str();
}

std::string reasons(const hk_launch_counts &before, const hk_launch_counts &after) {
  std::ostringstream os;
  os << "inline " << after.by_path[HK_PATH_INLINE] - before.by_path[HK_PATH_INLINE] << ", team "
     << after.by_path[HK_PATH_TEAM] - before.by_path[HK_PATH_TEAM] << ", queue "
     << after.by_path[HK_PATH_QUEUE] - before.by_path[HK_PATH_QUEUE];
  for (int r = 0; r < HK_REASON_COUNT; ++r) {
    cl_ulong n = after.by_reason[r] - before.by_reason[r];
    if (n) os << "; queue reason '" << hkReasonString(static_cast<hk_reason>(r)) << "' x" << n;
  }
  return os.str();
}

constexpr unsigned kMxcsrControl = 0xFFC0;  // DAZ, exception masks, rounding, FTZ
constexpr unsigned kMxcsrHostile = 0x8000 /*FTZ*/ | 0x4000 /*round up*/ | 0x0040 /*DAZ*/;

// ---------------------------------------------------------------------------------------
class Corpus : public ::testing::TestWithParam<Case> {
 protected:
  // Every case leaves hostkernel's queue with no PoCL work after hkFinish.
  void TearDown() override {
    if (Cl::get().error.empty()) ExpectNoQueuedPoclWork(Cl::get().hk_queue);
  }
};

TEST_P(Corpus, MatchesPoclQueueBitForBit) {
  const Case &c = GetParam();
  Cl &cl = Cl::get();
  ASSERT_EQ(cl.error, "");
  cl_program program = cl.program(c.file, c.options);
  ASSERT_NE(program, nullptr) << cl.build_errors[c.file + "|" + c.options];

  const Geometry &g = c.geometry;
  const size_t *offset = g.has_offset ? g.offset : nullptr;
  const size_t *local = g.has_local ? g.local : nullptr;

  Resources setup = c.setup(g);
  Instance inst(cl, setup);
  ASSERT_EQ(inst.error(), "");

  // 1. PoCL's queue, on a kernel object hostkernel never sees.
  cl_int err = CL_SUCCESS;
  cl_kernel kq = clCreateKernel(program, c.kernel.c_str(), &err);
  ASSERT_EQ(err, CL_SUCCESS) << "clCreateKernel " << c.kernel;
  ASSERT_EQ(inst.reset(cl.pocl_queue, false), CL_SUCCESS);
  ASSERT_EQ(inst.set_args(kq, false), CL_SUCCESS);
  corpus::StdoutCapture capture;
  if (c.printf_mode != PrintfMode::None) capture.start();
  cl_event pocl_event = nullptr;
  err = clEnqueueNDRangeKernel(cl.pocl_queue, kq, g.dim, offset, g.global, local, 0, nullptr,
                               &pocl_event);
  cl_int finish = clFinish(cl.pocl_queue);
  const cl_int pocl_wait = pocl_event ? clWaitForEvents(1, &pocl_event) : CL_INVALID_EVENT;
  if (pocl_event) clReleaseEvent(pocl_event);
  std::string want_text = c.printf_mode != PrintfMode::None ? capture.stop() : "";
  ASSERT_EQ(err, CL_SUCCESS) << "clEnqueueNDRangeKernel";
  ASSERT_EQ(finish, CL_SUCCESS);
  if (pocl_wait == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
    // PoCL's queue fails this launch itself (its event ends with an error; PoCL 7.1
    // cannot load the library it compiled for workitem_builtins, docs/pocl-releases.md).
    // There is no result to compare: hostkernel must fail it the same way. (Through the
    // layer, whose report must list no queue launch, the case ends here.)
    clReleaseKernel(kq);
#ifdef HK_QUEUE_ONLY
    GTEST_SKIP() << "PoCL's own queue fails " << c.kernel << " " << g.str();
#endif
    cl_kernel kh = hkCreateKernel(program, c.kernel.c_str(), &err);
    ASSERT_EQ(err, CL_SUCCESS) << "hkCreateKernel " << c.kernel;
    ASSERT_EQ(inst.reset(cl.hk_queue, true), CL_SUCCESS);
    ASSERT_EQ(inst.set_args(kh, true), CL_SUCCESS);
    cl_event event = nullptr;
    ASSERT_EQ(hkEnqueueNDRangeKernel(cl.hk_queue, kh, g.dim, offset, g.global, local, 0,
                                     nullptr, &event),
              CL_SUCCESS);
    ASSERT_NE(event, nullptr);
    EXPECT_EQ(hkWaitForEvents(1, &event), pocl_wait) << "PoCL's queue fails this launch";
    hkReleaseEvent(event);
    EXPECT_EQ(hkFinish(cl.hk_queue), CL_SUCCESS);
    hkReleaseKernel(kh);
    GTEST_SKIP() << "PoCL's own queue fails " << c.kernel << " " << g.str()
                 << " (its event ends with an error); hostkernel's event does too";
  }
  ASSERT_EQ(pocl_wait, CL_SUCCESS) << "clWaitForEvents on PoCL's launch";
  Outputs want;
  ASSERT_EQ(inst.read(cl.pocl_queue, false, want), CL_SUCCESS);
  clReleaseKernel(kq);
  if (c.check) {
    SCOPED_TRACE("sanity check of PoCL's result");
    c.check(want, g);
  }
  if (c.printf_mode != PrintfMode::None) {
    // printf_lines.cl prints from every third work-item of a 1-D grid.
    ASSERT_EQ(corpus::linesOf(want_text, false).size(), (g.items() + 2) / 3)
        << "PoCL's printf output:\n" << want_text;
  }

  // 2. hostkernel, twice, on its own kernel object.
  cl_kernel kh = hkCreateKernel(program, c.kernel.c_str(), &err);
  ASSERT_EQ(err, CL_SUCCESS) << "hkCreateKernel " << c.kernel;
  ASSERT_EQ(inst.set_args(kh, true), CL_SUCCESS);
  hk_launch_counts before{}, after{};
  if (hkGetKernelLaunchCounts(kh, &before) != CL_SUCCESS) before = hk_launch_counts{};

  constexpr int kRuns = 2;
  for (int run = 0; run < kRuns; ++run) {
    SCOPED_TRACE("hostkernel launch " + std::to_string(run + 1) + " of " + std::to_string(kRuns));
    ASSERT_EQ(inst.reset(cl.hk_queue, true), CL_SUCCESS);
    if (c.printf_mode != PrintfMode::None) capture.start();
    cl_event event = nullptr;
    unsigned csr = _mm_getcsr();
    if (c.hostile_fpenv) _mm_setcsr((csr & ~0x6000u) | kMxcsrHostile);
    unsigned csr_in = _mm_getcsr();
    err = hkEnqueueNDRangeKernel(cl.hk_queue, kh, g.dim, offset, g.global, local, 0, nullptr,
                                 run == 1 ? &event : nullptr);
    unsigned csr_out = _mm_getcsr();
    _mm_setcsr(csr);
    cl_int wait = CL_SUCCESS;
    if (event) {
      wait = hkWaitForEvents(1, &event);
      hkReleaseEvent(event);
    }
    finish = hkFinish(cl.hk_queue);
    std::string got_text = c.printf_mode != PrintfMode::None ? capture.stop() : "";
    ASSERT_EQ(err, CL_SUCCESS) << "hkEnqueueNDRangeKernel";
    EXPECT_EQ(wait, CL_SUCCESS) << "hkWaitForEvents";
    EXPECT_EQ(finish, CL_SUCCESS) << "hkFinish";
    EXPECT_EQ(csr_out & kMxcsrControl, csr_in & kMxcsrControl)
        << std::hex << "the launch changed the caller's MXCSR control bits: 0x" << csr_in
        << " -> 0x" << csr_out;

    Outputs got;
    ASSERT_EQ(inst.read(cl.hk_queue, true, got), CL_SUCCESS);
    for (size_t i = 0; i < got.size(); ++i) {
      if (!setup.buffers[i].compare) continue;
      std::string d = diff(want[i], got[i], setup.buffers[i].elem);
      if (!d.empty())
        ADD_FAILURE() << c.kernel << " " << g.str() << ": buffer " << i
                      << (setup.buffers[i].svm ? " (SVM)" : "") << " differs from PoCL's\n    "
                      << d;
    }
    // Buffers compared bit for bit need no sanity check; the others do.
    bool all_compared = std::all_of(setup.buffers.begin(), setup.buffers.end(),
                                    [](const Buffer &b) { return b.compare; });
    if (c.check && !all_compared) {
      SCOPED_TRACE("sanity check of hostkernel's result");
      c.check(got, g);
    }
    if (c.printf_mode != PrintfMode::None) {
      bool sorted = c.printf_mode == PrintfMode::Sorted;
      EXPECT_EQ(corpus::linesOf(got_text, sorted), corpus::linesOf(want_text, sorted))
          << "printf output differs\n--- PoCL:\n" << want_text << "--- hostkernel:\n" << got_text;
    }
  }

  // 3. Both launches must have run directly (on this thread, or split over the team when
  //    the kernel's launches were slow).
  ASSERT_EQ(hkGetKernelLaunchCounts(kh, &after), CL_SUCCESS);
  EXPECT_EQ(after.by_path[HK_PATH_INLINE] + after.by_path[HK_PATH_TEAM] -
                before.by_path[HK_PATH_INLINE] - before.by_path[HK_PATH_TEAM],
            cl_ulong{kRuns})
      << "launch paths: " << reasons(before, after);
  EXPECT_EQ(after.by_path[HK_PATH_QUEUE] - before.by_path[HK_PATH_QUEUE], cl_ulong{0})
      << "launch paths: " << reasons(before, after);
  hkReleaseKernel(kh);
}

// ---------------------------------------------------------------------------------------
// Sanity-check helpers.
template <class T> void expect_untouched(const std::vector<T> &v, size_t from, size_t to,
                                         const char *what) {
  T s;
  std::memset(&s, kSentinel, sizeof s);
  for (size_t i = from; i < to; ++i)
    if (std::memcmp(&v[i], &s, sizeof s) != 0) {
      ADD_FAILURE() << what << "[" << i << "] was written but should not have been";
      return;
    }
}

bool near(double a, double b, double rel = 1e-5) {
  return std::fabs(a - b) <= rel * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// Offset of work-item (x,y,z) in a linear array when ids start at the global offset.
size_t linear(const Geometry &g, size_t ix, size_t iy = 0, size_t iz = 0) {
  return (iz * g.g(1) + iy) * g.g(0) + ix;
}

// ---------------------------------------------------------------------------------------
// Cases. Every launch here has at most 8192 work-items and uniform work-groups, so that
// hostkernel's direct path must run it inline.
int svm_next(size_t i, size_t n) {  // -1: end of chain
  return i % 11 == 10 ? -1 : static_cast<int>((i * 7 + 3) % n);
}

std::vector<Case> make_cases() {
  std::vector<Case> cases;
  auto add = [&](std::string tag, std::string file, std::string kernel,
                 std::initializer_list<Geometry> geometries,
                 std::function<Resources(const Geometry &)> setup,
                 std::function<void(const Outputs &, const Geometry &)> check = nullptr,
                 std::string options = "") -> Case & {
    for (const Geometry &g : geometries) {
      Case c;
      c.name = tag + "_" + g.str();
      c.file = file;
      c.kernel = kernel;
      c.options = options;
      c.geometry = g;
      c.setup = setup;
      c.check = check;
      cases.push_back(c);
    }
    return cases.back();
  };

  // trivial: out[gid] = gid. One work-item is the benchmark's launch.
  add("trivial", "trivial.cl", "trivial",
      {geo({1}, {1}), geo({1}), geo({1000}, {8}), geo({4096}), geo({100}, {100}, {7}),
       geo({4096}, {4096}), geo({8192}, {1})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel((g.off(0) + g.g(0)) * 4, Elem::i32)};
        s.args = {mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_int>(o[0]);
        expect_untouched(out, 0, g.off(0), "out");
        for (size_t i = g.off(0); i < out.size(); ++i) ASSERT_EQ(out[i], (cl_int)i) << i;
      });

  // empty: does nothing (the benchmark's team launch overhead); the buffer stays as set.
  add("empty", "trivial.cl", "empty", {geo({1}, {1}), geo({1000}, {8}), geo({4096})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel(g.g(0) * 4, Elem::i32)};
        s.args = {mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        expect_untouched(as<cl_int>(o[0]), 0, g.g(0), "out");
      });

  // axpy: y = a*x + y.
  add("axpy", "axpy.cl", "axpy",
      {geo({1024}, {64}), geo({1000}, {40}), geo({1000}), geo({960}, {64}, {64}),
       geo({8192}, {256}), geo({3}, {1}), geo({997})},
      [](const Geometry &g) {
        size_t n = g.off(0) + g.g(0);
        Resources s;
        s.buffers = {input(floats(n, 1), Elem::f32), input(floats(n, 2), Elem::f32)};
        s.args = {val(2.5f), mem(0), mem(1)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto x = floats(o[0].size() / 4, 1), y0 = floats(o[0].size() / 4, 2);
        auto y = as<float>(o[1]);
        for (size_t i = 0; i < y.size(); ++i) {
          if (i < g.off(0)) {
            ASSERT_EQ(y[i], y0[i]) << i;
          } else {
            ASSERT_TRUE(near(y[i], 2.5 * x[i] + y0[i])) << i << ": " << y[i];
          }
        }
      });

  // 2-D indexing.
  add("index_2d", "index_2d.cl", "index_2d",
      {geo({64, 32}, {8, 4}), geo({30, 20}, {5, 4}), geo({64, 16}), geo({16, 16}, {16, 16}, {3, 5}),
       geo({1, 1}, {1, 1}), geo({128, 2}, {1, 2}), geo({17, 13})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel(g.items() * 4, Elem::i32)};
        s.args = {mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_int>(o[0]);
        for (size_t y = 0; y < g.g(1); ++y)
          for (size_t x = 0; x < g.g(0); ++x)
            ASSERT_EQ(out[linear(g, x, y)], (cl_int)(x + g.off(0) + 10000 * (y + g.off(1))))
                << x << "," << y;
      });

  // 3-D indexing.
  add("index_3d", "index_3d.cl", "index_3d",
      {geo({8, 8, 8}, {2, 4, 8}), geo({6, 10, 3}, {3, 5, 1}), geo({16, 4, 4}),
       geo({4, 6, 8}, {4, 3, 2}, {1, 2, 3}), geo({2, 2, 64}, {1, 1, 16}), geo({5, 7, 3}),
       geo({16, 16, 16}, {}, {2, 4, 8})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel(g.items() * 4, Elem::i32)};
        s.args = {mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_int>(o[0]);
        for (size_t z = 0; z < g.g(2); ++z)
          for (size_t y = 0; y < g.g(1); ++y)
            for (size_t x = 0; x < g.g(0); ++x)
              ASSERT_EQ(out[linear(g, x, y, z)],
                        (cl_int)(1000000 + x + g.off(0) + 100 * (y + g.off(1)) +
                                 10000 * (z + g.off(2))))
                  << x << "," << y << "," << z;
      });

  // __local pointer argument + barrier tree reduction (power-of-two local sizes).
  add("reduce_local_arg", "reduce_local_arg.cl", "reduce_sum",
      {geo({4096}, {64}), geo({2048}, {128}), geo({8192}, {256}), geo({16}, {2}), geo({64}, {1}),
       geo({1024}, {32}, {256})},
      [](const Geometry &g) {
        Resources s;
        size_t groups = g.g(0) / g.l(0);
        s.buffers = {input(floats(g.off(0) + g.g(0), 3), Elem::f32),
                     sentinel(groups * 4, Elem::f32)};
        s.args = {mem(0), mem(1), local_mem(g.l(0) * sizeof(float))};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<float>(o[0]);
        auto partial = as<float>(o[1]);
        for (size_t grp = 0; grp < partial.size(); ++grp) {
          double sum = 0;
          for (size_t i = 0; i < g.l(0); ++i) sum += in[g.off(0) + grp * g.l(0) + i];
          ASSERT_TRUE(near(partial[grp], sum, 1e-4)) << grp << ": " << partial[grp] << " vs " << sum;
        }
      });

  // Automatic local tile[16][17]: tiled transpose.
  add("transpose_tiled", "transpose_tiled.cl", "transpose_tiled",
      {geo({64, 32}, {16, 16}), geo({16, 16}, {16, 16}), geo({32, 64}, {16, 16})},
      [](const Geometry &g) {
        Resources s;
        size_t w = g.g(0), h = g.g(1);
        s.buffers = {input(floats(w * h, 4), Elem::f32), sentinel(w * h * 4, Elem::f32)};
        s.args = {mem(0), mem(1), val((cl_uint)w), val((cl_uint)h)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<float>(o[0]);
        auto out = as<float>(o[1]);
        size_t w = g.g(0), h = g.g(1);
        for (size_t y = 0; y < h; ++y)
          for (size_t x = 0; x < w; ++x)
            ASSERT_EQ(out[x * h + y], in[y * w + x]) << x << "," << y;
      });

  // A 16 KiB private array per work-item (docs/stack.md): groups small enough to fit.
  add("private_array", "private_array.cl", "private_array", {geo({64}, {16}), geo({96})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(floats(4096, 41), Elem::f32), sentinel(g.g(0) * 4, Elem::f32)};
        s.args = {mem(0), mem(1)};
        return s;
      });

  // Private array live across a barrier.
  add("private_across_barrier", "private_across_barrier.cl", "private_across_barrier",
      {geo({256}, {64}), geo({96}, {24}), geo({512}, {256}), geo({8}, {1})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(floats(g.g(0) * 8, 5), Elem::f32), sentinel(g.g(0) * 4, Elem::f32)};
        s.args = {mem(0), mem(1)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<float>(o[0]);
        auto out = as<float>(o[1]);
        size_t n = g.l(0);
        for (size_t base = 0; base < g.g(0); base += n) {
          auto priv = [&](size_t lid, size_t k) {
            return in[(base + lid) * 8 + k] * (float)(k + 1) + (float)lid;
          };
          for (size_t lid = 0; lid < n; ++lid) {
            double acc = 0;
            for (size_t k = 0; k < 8; ++k) {
              size_t other = (lid + k) % n;
              acc += priv(lid, k) * priv(other, other & 7);
            }
            ASSERT_TRUE(near(out[base + lid], acc, 1e-4)) << base + lid;
          }
        }
      });

  // Global atomics histogram.
  add("histogram_atomic", "histogram_atomic.cl", "histogram_atomic",
      {geo({4096}, {64}), geo({1000}), geo({3000}, {120}), geo({8192}, {8})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(ints<cl_uint>(g.g(0), 6, 1u << 20), Elem::u32),
                     input(std::vector<cl_int>(16 + 2, 0), Elem::i32)};
        s.args = {mem(0), mem(1), val((cl_uint)16)};
        return s;
      },
      [](const Outputs &o, const Geometry &) {
        auto data = as<cl_uint>(o[0]);
        auto bins = as<cl_int>(o[1]);
        std::vector<cl_int> want(18, 0);
        for (cl_uint v : data) {
          want[v % 16]++;
          want[16] += (cl_int)(v & 0xff);
          want[17] = std::max(want[17], (cl_int)(v & 0xffff));
        }
        ASSERT_EQ(bins, want);
      });

  // By-value struct argument.
  add("struct_arg", "struct_arg.cl", "struct_arg",
      {geo({64}, {16}), geo({33}), geo({48}, {3})},
      [](const Geometry &g) {
        Params p{};
        p.f = 1.75f;
        p.i = -123456;
        p.d = 2.0 / 3.0;
        p.u = 0xdeadbeefu;
        p.s = -321;
        p.c = 200;
        p.v.s[0] = 1.0f; p.v.s[1] = -2.0f; p.v.s[2] = 0.5f; p.v.s[3] = 4.0f;
        Resources s;
        s.buffers = {sentinel(g.g(0) * 8 * 8, Elem::f64)};
        s.args = {val(p), mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<double>(o[0]);
        for (size_t i = 0; i < g.g(0); ++i) {
          const double *r = &out[8 * i];
          ASSERT_EQ(r[0], 1.75 * (double)i) << i;
          ASSERT_EQ(r[1], (double)(-123456 + (int)i)) << i;
          ASSERT_EQ(r[2], (2.0 / 3.0) / (double)(i + 1)) << i;
          ASSERT_EQ(r[3], (double)(0xdeadbeefu ^ (cl_uint)i)) << i;
          ASSERT_EQ(r[4], -321.0);
          ASSERT_EQ(r[5], 200.0);
          ASSERT_EQ(r[6], 1.0 - 4.0 + 2.0 + 32.0);
          ASSERT_EQ(r[7], 48.0);
        }
      });

  // printf: one work-group (ordered) and several (each group's lines may interleave
  // differently on PoCL's threads, so compared sorted).
  auto printf_setup = [](const Geometry &g) {
    Resources s;
    s.buffers = {input(ints<cl_int>(g.g(0), 7, 2000000), Elem::i32),
                 input(floats(g.g(0), 8, -100.0f, 100.0f), Elem::f32)};
    s.args = {mem(0), mem(1)};
    return s;
  };
  add("printf_lines", "printf_lines.cl", "printf_lines", {geo({12}, {12})}, printf_setup)
      .printf_mode = PrintfMode::Ordered;
  for (const Geometry &g : {geo({24}, {6}), geo({40}), geo({96}, {32})}) {
    add("printf_lines", "printf_lines.cl", "printf_lines", {g}, printf_setup)
        .printf_mode = PrintfMode::Sorted;
  }

  // Global offsets in 1, 2 and 3 dimensions.
  add("global_offset", "global_offset.cl", "global_offset",
      {geo({100}, {10}, {5}), geo({16, 8}, {4, 4}, {3, 4}), geo({4, 4, 4}, {2, 2, 2}, {1, 10, 100}),
       geo({64}, {}, {1000}), geo({8, 8}, {}, {7, 9}), geo({32}, {32}, {0})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel(g.items() * 16, Elem::u32)};
        s.args = {mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_uint>(o[0]);
        for (size_t z = 0; z < g.g(2); ++z)
          for (size_t y = 0; y < g.g(1); ++y)
            for (size_t x = 0; x < g.g(0); ++x) {
              const cl_uint *r = &out[4 * linear(g, x, y, z)];
              size_t id[3] = {x + g.off(0), y + g.off(1), z + g.off(2)};
              for (int d = 0; d < 3; ++d)
                ASSERT_EQ(r[d], (cl_uint)(id[d] * 7 + g.off(d))) << x << "," << y << "," << z;
              ASSERT_EQ(r[3], g.dim);
            }
      });

  // 64-bit integer math.
  add("int64_math", "int64_math.cl", "int64_math", {geo({256}, {64}), geo({100})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(ints<cl_ulong>(g.g(0), 9), Elem::u64),
                     input(ints<cl_ulong>(g.g(0), 10), Elem::u64),
                     sentinel(g.g(0) * 64, Elem::u64)};
        s.args = {mem(0), mem(1), mem(2)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto a = as<cl_ulong>(o[0]), b = as<cl_ulong>(o[1]), out = as<cl_ulong>(o[2]);
        for (size_t i = 0; i < g.g(0); ++i) {
          cl_ulong x = a[i], y = b[i];
          const cl_ulong *r = &out[8 * i];
          ASSERT_EQ(r[0], (cl_ulong)(((unsigned __int128)x * y) >> 64)) << i;
          ASSERT_EQ(r[1], (cl_ulong)(((__int128)(cl_long)x * (cl_long)y) >> 64)) << i;
          ASSERT_EQ(r[2], x << (y & 63)) << i;
          ASSERT_EQ(r[3], (cl_ulong)((cl_long)x >> (y & 63))) << i;
          ASSERT_EQ(r[4], x / (y | 1)) << i;
          ASSERT_EQ(r[5], (cl_ulong)((cl_long)x % (cl_long)((y >> 1) | 1))) << i;
          unsigned sh = y & 63;
          ASSERT_EQ(r[6], sh ? (x << sh) | (x >> (64 - sh)) : x) << i;
        }
      });

  // Double-precision math (also with a hostile caller FP environment).
  auto double_setup = [](const Geometry &g) {
    Resources s;
    s.buffers = {input(doubles(g.g(0), 11, -50.0, 50.0), Elem::f64),
                 sentinel(g.g(0) * 64, Elem::f64)};
    s.args = {mem(0), mem(1)};
    return s;
  };
  auto double_check = [](const Outputs &o, const Geometry &g) {
    auto in = as<double>(o[0]), out = as<double>(o[1]);
    for (size_t i = 0; i < g.g(0); ++i) {
      double v = in[i];
      const double *r = &out[8 * i];
      ASSERT_EQ(r[0], std::sqrt(std::fabs(v))) << i;
      ASSERT_TRUE(near(r[1], std::exp(v * 0.01), 1e-14)) << i;
      ASSERT_TRUE(near(r[2], std::log(std::fabs(v) + 1.0), 1e-14)) << i;
      ASSERT_TRUE(near(r[3], std::sin(v), 1e-13)) << i;
      ASSERT_TRUE(near(r[4], std::pow(std::fabs(v), 1.5), 1e-14)) << i;
      ASSERT_EQ(r[5], std::fma(v, v, 1.0 / 3.0)) << i;
      ASSERT_EQ(r[6], v / 7.0) << i;
    }
  };
  add("double_math", "double_math.cl", "double_math", {geo({256}, {64}), geo({100}, {20}), geo({100})},
      double_setup, double_check);
  add("double_math_hostile_fpenv", "double_math.cl", "double_math", {geo({256}, {64})},
      double_setup, double_check)
      .hostile_fpenv = true;

  // Single-precision math builtins.
  add("float_math", "float_math.cl", "float_math", {geo({256}, {64}), geo({100}), geo({64}, {1})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(floats(g.g(0), 12, -20.0f, 20.0f), Elem::f32),
                     sentinel(g.g(0) * 32, Elem::f32)};
        s.args = {mem(0), mem(1)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<float>(o[0]), out = as<float>(o[1]);
        for (size_t i = 0; i < g.g(0); ++i) {
          float v = in[i];
          ASSERT_EQ(out[8 * i + 0], std::sqrt(std::fabs(v))) << i;
          ASSERT_EQ(out[8 * i + 6], v / 7.0f) << i;
          ASSERT_TRUE(near(out[8 * i + 3], std::sin(v), 1e-5)) << i;
        }
      });

  // __constant argument + program-scope constant table.
  add("constant_memory", "constant_memory.cl", "constant_lookup",
      {geo({512}, {64}), geo({77}, {7}), geo({300})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(floats(37, 13), Elem::f32),
                     input(ints<cl_uint>(g.g(0), 14, 100000), Elem::u32),
                     sentinel(g.g(0) * 4, Elem::f32)};
        s.args = {mem(0), val((cl_uint)37), mem(1), mem(2)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        static const float w[8] = {0.5f, 1.25f, -2.0f, 3.5f, 0.125f, -0.75f, 8.0f, 1.0f / 3.0f};
        auto table = as<float>(o[0]);
        auto idx = as<cl_uint>(o[1]);
        auto out = as<float>(o[2]);
        for (size_t i = 0; i < g.g(0); ++i) {
          cl_uint k = idx[i];
          ASSERT_TRUE(near(out[i], (double)table[k % 37] * w[i & 7] + w[(k >> 3) & 7])) << i;
        }
      });

  // 18 arguments.
  add("many_args", "many_args.cl", "many_args", {geo({128}, {32}), geo({50}), geo({7}, {7})},
      [](const Geometry &g) {
        size_t n = g.g(0);
        Resources s;
        s.buffers = {sentinel(n * 4, Elem::f32),                         // 0 out
                     input(floats(n, 15), Elem::f32),                    // 1 a
                     input(ints<cl_int>(n, 16, 1000), Elem::i32),        // 2 b
                     input(floats(n, 17), Elem::f32),                    // 3 c
                     input(doubles(n, 18, -1000.0, 1000.0), Elem::f64),  // 4 d
                     sentinel(n * 4, Elem::i32)};                        // 5 out2
        cl_float2 s7;
        s7.s[0] = 0.25f; s7.s[1] = -8.5f;
        cl_int4 s8;
        s8.s[0] = 1; s8.s[1] = -2; s8.s[2] = 3; s8.s[3] = -4;
        s.args = {mem(0), mem(1), mem(2), val(1.5f), val((cl_int)-3), val((cl_uint)0xa5a5a5a5u),
                  mem(3), val(0.125), val((cl_long)0x123456789abcdefll), val((cl_short)-7),
                  val((cl_uchar)250), mem(4), val(s7), val(s8), mem(5),
                  val((cl_ulong)0xfedcba9876543210ull), val((cl_char)-100), val(3.0f)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto b = as<cl_int>(o[2]);
        auto d = as<double>(o[4]);
        auto out2 = as<cl_int>(o[5]);
        for (size_t i = 0; i < g.g(0); ++i) {
          cl_int want = (cl_int)(0xa5a5a5a5u ^ (cl_uint)i) + -7 + 250 + 1 - 4 + 9 - 16 +
                        (cl_int)(0x123456789abcdefll >> 32) + (cl_int)(0x3210) +
                        (cl_int)(d[i] * 0.125);
          ASSERT_EQ(out2[i], want) << i;
        }
        (void)b;
      });

  // Sub-buffer: the kernel sees a window of a larger buffer; the rest must stay as it was.
  for (size_t k : {1, 3}) {
    add("sub_buffer", "sub_buffer_scale.cl", "scale_add",
        {k == 1 ? geo({256}, {64}) : geo({100}, {25})},
        [k](const Geometry &g) {
          size_t align = Cl::get().base_align / 4;  // in floats
          size_t total = k * align + g.g(0) + 2 * align;
          Resources s;
          s.buffers = {input(floats(total, 19), Elem::f32)};
          s.args = {sub_mem(0, k * align * 4, g.g(0) * 4), val(1.5f), val(0.25f)};
          return s;
        },
        [k](const Outputs &o, const Geometry &g) {
          size_t start = k * Cl::get().base_align / 4;
          auto data = as<float>(o[0]);
          auto orig = floats(data.size(), 19);
          for (size_t i = 0; i < data.size(); ++i) {
            if (i >= start && i < start + g.g(0))
              ASSERT_TRUE(near(data[i], orig[i] * 1.5 + 0.25)) << i;
            else
              ASSERT_EQ(data[i], orig[i]) << i << " outside the sub-buffer";
          }
        });
    cases.back().name = "sub_buffer_origin" + std::to_string(k) + "_" + cases.back().geometry.str();
  }

  // SVM: chains of nodes linked by absolute SVM pointers; output through an interior
  // SVM pointer.
  add("svm_chase", "svm_chase.cl", "svm_chase", {geo({64}, {16}), geo({64}), geo({200}, {8})},
      [](const Geometry &g) {
        size_t n = g.g(0);
        Resources s;
        Buffer nodes{Bytes(n * sizeof(Node)), Elem::u64, true, true};
        Buffer out{Bytes((n + 8) * 4, kSentinel), Elem::i32, true, true};
        s.buffers = {nodes, out};
        s.args = {svm(0), svm(1, 8 * 4), val((cl_int)6)};
        s.relocate = [n](std::vector<Buffer> &bufs, const std::vector<void *> &bases) {
          std::vector<Node> v(n);
          const Node *base = static_cast<const Node *>(bases[0]);
          for (size_t i = 0; i < n; ++i) {
            int nx = svm_next(i, n);
            v[i].next = nx < 0 ? nullptr : base + nx;
            v[i].value = (cl_int)(i * 13 % 97) - 40;
            v[i].pad = 0;
          }
          bufs[0].init = bytes_of(v);
        };
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        size_t n = g.g(0);
        auto out = as<cl_int>(o[1]);
        expect_untouched(out, 0, 8, "out");
        for (size_t i = 0; i < n; ++i) {
          int sum = 0, p = (int)i;
          for (int step = 0; step < 6 && p >= 0; ++step) {
            sum = sum * 3 + ((int)((size_t)p * 13 % 97) - 40);
            p = svm_next((size_t)p, n);
          }
          ASSERT_EQ(out[8 + i], sum) << i;
        }
      });

  // Every work-item builtin for every work-item. With an explicit local size both
  // buffers are compared bit for bit; with a NULL local size the implementation picks
  // the work-group size, so only the global part is compared and the local part is
  // checked for consistency.
  auto builtins_check = [](const Outputs &o, const Geometry &g) {
    auto gi = as<cl_uint>(o[0]);
    auto li = as<cl_uint>(o[1]);
    for (size_t idx = 0; idx < g.items(); ++idx) {
      size_t rest = idx, id[3];
      for (int d = 0; d < 3; ++d) {
        id[d] = rest % g.g(d);
        rest /= g.g(d);
      }
      const cl_uint *G = &gi[10 * idx], *L = &li[12 * idx];
      ASSERT_EQ(G[0], g.dim) << idx;
      for (int d = 0; d < 3; ++d) {
        ASSERT_EQ(G[1 + d], id[d] + g.off(d)) << "global id, item " << idx << " dim " << d;
        ASSERT_EQ(G[4 + d], g.g(d)) << "global size, item " << idx << " dim " << d;
        ASSERT_EQ(G[7 + d], g.off(d)) << "global offset, item " << idx << " dim " << d;
        cl_uint lid = L[d], grp = L[3 + d], ngr = L[6 + d], lsz = L[9 + d];
        if (g.has_local) {
          ASSERT_EQ(lsz, g.l(d)) << "local size, item " << idx << " dim " << d;
        }
        ASSERT_GT(lsz, 0u);
        ASSERT_EQ(g.g(d) % lsz, 0u) << "local size " << lsz << " dim " << d;
        ASSERT_EQ(ngr, g.g(d) / lsz) << "num groups, item " << idx << " dim " << d;
        ASSERT_EQ(grp * lsz + lid, id[d]) << "group/local id, item " << idx << " dim " << d;
        ASSERT_LT(lid, lsz);
      }
    }
  };
  auto builtins_setup = [](const Geometry &g) {
    Resources s;
    s.buffers = {sentinel(g.items() * 40, Elem::u32), sentinel(g.items() * 48, Elem::u32)};
    s.buffers[1].compare = g.has_local;
    s.args = {mem(0), mem(1)};
    return s;
  };
  add("workitem_builtins", "workitem_builtins.cl", "workitem_builtins",
      {geo({48}, {16}), geo({45}, {9}), geo({1}, {1}), geo({12, 8}, {4, 2}), geo({12, 10}, {3, 5}),
       geo({8, 4, 6}, {2, 2, 3}), geo({4, 6, 2}, {2, 3, 1}, {5, 6, 7}), geo({64}, {64}, {3}),
       geo({16, 16}, {16, 1}, {100, 200}), geo({256}), geo({24, 18}), geo({6, 4, 10})},
      builtins_setup, builtins_check);

  // Float denormals, normally and with -cl-denorms-are-zero (the FTZ cases come first so
  // that an FTZ setting leaking into later launches shows up), and with a hostile caller
  // environment.
  auto denormals_setup = [](const Geometry &g) {
    std::vector<float> tiny(g.g(0));
    for (size_t i = 0; i < tiny.size(); ++i)
      tiny[i] = 1e-40f * (float)(1 + i % 7) * ((i & 8) ? -1.0f : 1.0f);
    Resources s;
    s.buffers = {input(floats(g.g(0), 20, 0.5f, 2.0f), Elem::f32), input(tiny, Elem::f32),
                 sentinel(g.g(0) * 24, Elem::f32)};
    s.args = {mem(0), mem(1), mem(2)};
    return s;
  };
  // PoCL runs a program built with -cl-denorms-are-zero with FTZ and DAZ set.
  auto denormals_ftz_check = [](const Outputs &o, const Geometry &g) {
    auto out = as<float>(o[2]);
    for (size_t i = 0; i < g.g(0); ++i) {
      ASSERT_EQ(out[6 * i + 0], 0.0f) << i << ": denormal result not flushed (FTZ)";
      ASSERT_EQ(out[6 * i + 2], 0.0f) << i << ": denormal sum not flushed";
      ASSERT_EQ(out[6 * i + 3], -1.0f) << i << ": denormal input not read as zero (DAZ)";
      for (int k : {0, 2, 3, 4, 5})  // (t * 1.0f is folded to t by the compiler)
        ASSERT_NE(std::fpclassify(out[6 * i + k]), FP_SUBNORMAL) << i << "/" << k;
    }
  };
  add("denormals_ftz", "denormals.cl", "denormals", {geo({256}, {64}), geo({100})},
      denormals_setup, denormals_ftz_check, "-cl-denorms-are-zero");
  add("denormals_ftz_hostile_fpenv", "denormals.cl", "denormals", {geo({256}, {64})},
      denormals_setup, denormals_ftz_check, "-cl-denorms-are-zero")
      .hostile_fpenv = true;
  auto denormals_check = [](const Outputs &o, const Geometry &g) {
    auto tiny = as<float>(o[1]);
    auto out = as<float>(o[2]);
    for (size_t i = 0; i < g.g(0); ++i) {
      ASSERT_EQ(out[6 * i + 1], tiny[i]) << i << ": denormal input flushed";
      ASSERT_EQ(out[6 * i + 2], tiny[i] + tiny[i]) << i;
      ASSERT_NE(out[6 * i + 0], 0.0f) << i << ": denormal result flushed";
    }
  };
  add("denormals", "denormals.cl", "denormals", {geo({256}, {64}), geo({100})}, denormals_setup,
      denormals_check);
  add("denormals_hostile_fpenv", "denormals.cl", "denormals", {geo({256}, {64})},
      denormals_setup, denormals_check)
      .hostile_fpenv = true;

  // Two __local arguments plus an automatic local array.
  add("local_mixed", "local_mixed.cl", "local_mixed",
      {geo({256}, {64}), geo({64}, {16}), geo({35}, {5}), geo({4}, {1})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel(g.g(0) * 4, Elem::i32)};
        s.args = {mem(0), local_mem(g.l(0) * 4), local_mem(g.l(0) * 4)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_int>(o[0]);
        size_t n = g.l(0);
        for (size_t i = 0; i < g.g(0); ++i) {
          size_t lid = i % n;
          cl_int want = (cl_int)((lid + 1) % n + 1) + 1000 * (cl_int)((lid + 2) % n + 1) +
                        1000000 * (cl_int)((lid + 3) % n + 1);
          ASSERT_EQ(out[i], want) << i;
        }
      });

  // Barriers inside a loop: work-group prefix sum.
  add("scan_local", "scan_local.cl", "scan_local",
      {geo({256}, {64}), geo({1024}, {256}), geo({30}, {10}), geo({7}, {7})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(ints<cl_int>(g.g(0), 21, 100), Elem::i32), sentinel(g.g(0) * 4, Elem::i32)};
        s.args = {mem(0), mem(1), local_mem(g.l(0) * 4)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<cl_int>(o[0]), out = as<cl_int>(o[1]);
        cl_int sum = 0;
        for (size_t i = 0; i < g.g(0); ++i) {
          if (i % g.l(0) == 0) sum = 0;
          sum += in[i];
          ASSERT_EQ(out[i], sum) << i;
        }
      });

  // reqd_work_group_size(8,4,1). (A NULL local size is CL_INVALID_WORK_GROUP_SIZE for such
  // a kernel in OpenCL 1.2, and PoCL 3.1 returns that: error cases are not tested here.)
  add("reqd_wg_size", "reqd_wg_size.cl", "reqd_wg_size",
      {geo({32, 8}, {8, 4}), geo({8, 4}, {8, 4}), geo({64, 4}, {8, 4}, {8, 0})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {sentinel(g.items() * 4, Elem::u32)};
        s.args = {mem(0)};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto out = as<cl_uint>(o[0]);
        for (size_t y = 0; y < g.g(1); ++y)
          for (size_t x = 0; x < g.g(0); ++x)
            ASSERT_EQ(out[y * g.g(0) + x],
                      (cl_uint)(x % 8) | (cl_uint)(y % 4) << 8 | 8u << 16 | 4u << 24)
                << x << "," << y;
      });

  // Bounds-checked kernel on a padded grid.
  add("guarded_copy", "guarded_copy.cl", "guarded_copy",
      {geo({1024}, {64}), geo({1024}), geo({120}, {40})},
      [](const Geometry &g) {
        Resources s;
        s.buffers = {input(ints<cl_int>(g.g(0), 22, 1000), Elem::i32),
                     sentinel(g.g(0) * 4, Elem::i32)};
        s.args = {mem(0), mem(1), val((cl_uint)(g.g(0) - 23))};
        return s;
      },
      [](const Outputs &o, const Geometry &g) {
        auto in = as<cl_int>(o[0]), out = as<cl_int>(o[1]);
        size_t n = g.g(0) - 23;
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 2 + 1) << i;
        expect_untouched(out, n, out.size(), "out");
      });

  return cases;
}

INSTANTIATE_TEST_SUITE_P(Kernels, Corpus, ::testing::ValuesIn(make_cases()),
                         [](const ::testing::TestParamInfo<Case> &info) { return info.param.name; });

}  // namespace

// ---------------------------------------------------------------------------------------
// -DHK_QUEUE_ONLY: hk* become plain OpenCL calls (every launch counted as inline), so the
// harness and the corpus can be checked against PoCL alone before libhostkernel exists.
#ifdef HK_QUEUE_ONLY
#include <mutex>
namespace {
std::mutex g_counts_mutex;
std::map<cl_kernel, hk_launch_counts> g_counts;
}  // namespace
extern "C" {
cl_int hkEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *o,
                              const size_t *g, const size_t *l, cl_uint n, const cl_event *w,
                              cl_event *e) {
  cl_int err = clEnqueueNDRangeKernel(q, k, dim, o, g, l, n, w, e);
  if (err == CL_SUCCESS) {
    std::lock_guard<std::mutex> lock(g_counts_mutex);
    g_counts[k].by_path[HK_PATH_INLINE]++;
  }
  return err;
}
cl_int hkSetKernelArg(cl_kernel k, cl_uint i, size_t s, const void *v) {
  return clSetKernelArg(k, i, s, v);
}
cl_int hkSetKernelArgSVMPointer(cl_kernel k, cl_uint i, const void *v) {
  return clSetKernelArgSVMPointer(k, i, v);
}
cl_int hkFinish(cl_command_queue q) { return clFinish(q); }
cl_command_queue hkCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                    const cl_queue_properties *p, cl_int *e) {
  return clCreateCommandQueueWithProperties(c, d, p, e);
}
cl_int hkEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w,
                                   cl_event *e) {
  return clEnqueueMarkerWithWaitList(q, n, w, e);
}
cl_int hkWaitForEvents(cl_uint n, const cl_event *e) { return clWaitForEvents(n, e); }
cl_int hkEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, void *p,
                           cl_uint n, const cl_event *w, cl_event *e) {
  return clEnqueueReadBuffer(q, m, b, o, s, p, n, w, e);
}
cl_int hkEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
                            const void *p, cl_uint n, const cl_event *w, cl_event *e) {
  return clEnqueueWriteBuffer(q, m, b, o, s, p, n, w, e);
}
cl_mem hkCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *p, cl_int *e) {
  return clCreateBuffer(c, f, s, p, e);
}
cl_mem hkCreateSubBuffer(cl_mem m, cl_mem_flags f, cl_buffer_create_type t, const void *i,
                         cl_int *e) {
  return clCreateSubBuffer(m, f, t, i, e);
}
cl_kernel hkCreateKernel(cl_program p, const char *n, cl_int *e) { return clCreateKernel(p, n, e); }
cl_int hkReleaseKernel(cl_kernel k) {
  {
    std::lock_guard<std::mutex> lock(g_counts_mutex);
    g_counts.erase(k);
  }
  return clReleaseKernel(k);
}
cl_int hkReleaseProgram(cl_program p) { return clReleaseProgram(p); }
cl_int hkReleaseMemObject(cl_mem m) { return clReleaseMemObject(m); }
cl_int hkReleaseCommandQueue(cl_command_queue q) { return clReleaseCommandQueue(q); }
cl_int hkReleaseContext(cl_context c) { return clReleaseContext(c); }
cl_int hkReleaseEvent(cl_event e) { return clReleaseEvent(e); }
cl_int hkGetKernelLaunchCounts(cl_kernel k, hk_launch_counts *c) {
  std::lock_guard<std::mutex> lock(g_counts_mutex);
  *c = g_counts[k];
  return CL_SUCCESS;
}
const char *hkReasonString(hk_reason) { return "queue-only build"; }
}
#endif
