// What runs a kernel-corpus case (integration/corpus_test.cpp, integration/
// spirv_corpus_test.cpp): the OpenCL objects the cases share, the buffers of one case, and
// the reference launch on PoCL's own queue that the result under test is compared with.
//
//   corpus::Cl &corpus::Cl::get() { ... }          // defined by each test program
//   TEST_P(Corpus, ...) {                           // class Corpus : public CaseTest {};
//     Resources r = c.setup(c.geometry);
//     Instance inst(cl, r);
//     Reference ref;
//     ASSERT_NO_FATAL_FAILURE(launch_reference(cl, inst, program, c, ref));
//     ASSERT_NO_FATAL_FAILURE(read_reference(cl, inst, c, ref));
//     ... launch the kernel under test, inst.read(...), expect_same_outputs(...)
#pragma once

#include <hostkernel/hostkernel.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "support/corpus_case.hpp"
#include "support/corpus_support.hpp"
#include "support/pocl_env.hpp"
#include "support/queue_checks.hpp"

#ifndef HK_KERNELS_DIR
#error "HK_KERNELS_DIR must name the kernels/ directory"
#endif

namespace corpus {

// The bytes of the file at `path` ("" if it cannot be read).
inline std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A program built once, or why it could not be.
struct Built {
  cl_program program = nullptr;
  std::string error;
};

// OpenCL objects shared by all cases: PoCL's CPU device, one context, one queue for the
// reference runs and one for the runs under test, and each program built once.
struct Cl : PoclQueues {
  std::map<std::string, Built> programs;  // by path and build options

  // The test program's one Cl. Each test program defines it, choosing who makes hk_queue.
  static Cl &get();

  explicit Cl(QueueBy hk_queue_by) : PoclQueues(hk_queue_by) {}

  void release() {
    for (auto &[key, built] : programs)
      if (built.program) hkReleaseProgram(built.program);
    programs.clear();
    PoclQueues::release();
  }

  // kernels/<file> from its OpenCL C source, built with `options`.
  const Built &program(const std::string &file, const std::string &options) {
    std::string path = std::string(HK_KERNELS_DIR) + "/" + file;
    return build(path, options, [&](std::string &error) -> cl_program {
      std::string src = read_file(path);
      if (src.empty()) {
        error = "cannot read " + path;
        return nullptr;
      }
      const char *text = src.c_str();
      cl_int err = CL_SUCCESS;
      cl_program p = clCreateProgramWithSource(context, 1, &text, nullptr, &err);
      if (!p) error = "clCreateProgramWithSource(" + path + "): " + std::to_string(err);
      return p;
    });
  }

  // The program made from `path` by `create` (nullptr and an error on failure) and built
  // with `options`, at its first use.
  const Built &build(const std::string &path, const std::string &options,
                     const std::function<cl_program(std::string &error)> &create) {
    std::string key = path + "|" + options;
    if (auto it = programs.find(key); it != programs.end()) return it->second;
    Built &built = programs[key];
    cl_program p = create(built.error);
    if (!p) return built;
    cl_int err = clBuildProgram(p, 1, &device, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      built.error = "build of " + path + " failed (" + std::to_string(err) + "): " +
                    BuildLog(p, device);
      clReleaseProgram(p);
      return built;
    }
    built.program = p;
    return built;
  }
};

// Releases the test program's Cl after its last test.
class ClEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { Cl::get().release(); }
};
inline const auto *const kClEnvironment =
    ::testing::AddGlobalTestEnvironment(new ClEnvironment);

// The fixture of both tests: every case leaves hostkernel's queue with no PoCL work after
// hkFinish.
class CaseTest : public ::testing::TestWithParam<Case> {
 protected:
  void TearDown() override {
    if (Cl::get().error.empty()) ExpectNoQueuedPoclWork(Cl::get().hk_queue);
  }
};

// ---------------------------------------------------------------------------------------
// The buffers of one case, shared by the reference run and the runs under test. `hk` says
// whose calls reach them: hostkernel's (hk*) or plain OpenCL's.
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

  Instance(const Instance &) = delete;
  Instance &operator=(const Instance &) = delete;

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

// ---------------------------------------------------------------------------------------
// The reference: what PoCL's own queue makes of a case.
struct Reference {
  cl_int status = CL_SUCCESS;  // of the launch's event
  std::string text;            // printf output
  Outputs outputs;             // every buffer, once read_reference has run
};

// Launches case `c` on PoCL's own queue, with a kernel of `program` that hostkernel never
// sees, from the buffers' initial contents. Enqueueing and finishing must succeed; the
// event's status is the caller's to judge (PoCL's queue fails some launches itself).
inline void launch_reference(Cl &cl, Instance &inst, cl_program program, const Case &c,
                             Reference &ref) {
  const Geometry &g = c.geometry;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, c.kernel.c_str(), &err);
  ASSERT_EQ(err, CL_SUCCESS) << "clCreateKernel " << c.kernel;
  ASSERT_EQ(inst.reset(cl.pocl_queue, false), CL_SUCCESS);
  ASSERT_EQ(inst.set_args(k, false), CL_SUCCESS);
  StdoutCapture capture;
  bool printing = c.printf_mode != PrintfMode::None;
  if (printing) capture.start();
  cl_event event = nullptr;
  err = clEnqueueNDRangeKernel(cl.pocl_queue, k, g.dim, g.offset_or_null(), g.global,
                               g.local_or_null(), 0, nullptr, &event);
  cl_int finish = clFinish(cl.pocl_queue);
  ref.status = event ? clWaitForEvents(1, &event) : CL_INVALID_EVENT;
  if (event) clReleaseEvent(event);
  if (printing) ref.text = capture.stop();
  clReleaseKernel(k);
  ASSERT_EQ(err, CL_SUCCESS) << "clEnqueueNDRangeKernel";
  ASSERT_EQ(finish, CL_SUCCESS);
}

// After a reference launch that succeeded: reads every buffer back and checks the result
// against what the kernel is meant to compute.
inline void read_reference(Cl &cl, Instance &inst, const Case &c, Reference &ref) {
  ASSERT_EQ(inst.read(cl.pocl_queue, false, ref.outputs), CL_SUCCESS);
  if (c.check) {
    SCOPED_TRACE("sanity check of PoCL's result");
    c.check(ref.outputs, c.geometry);
  }
  if (c.printf_mode != PrintfMode::None) {
    // printf_lines.cl prints from every third work-item of a 1-D grid.
    ASSERT_EQ(linesOf(ref.text, false).size(), (c.geometry.items() + 2) / 3)
        << "PoCL's printf output:\n" << ref.text;
  }
}

}  // namespace corpus
