// Paths that launch one OpenCL kernel: "hostkernel" (hk* C API), "queue" (plain PoCL
// through cl*) and, when the case gives one, "native" (a C++ function doing the same work
// on host arrays). All set the arguments once in setup; one operation is one NDRange
// launch followed by a finish, so each launch is complete before the next:
//
//   hostkernel: hkEnqueueNDRangeKernel + hkFinish
//   queue:      clEnqueueNDRangeKernel + clFinish
//   native:     launch.native(args)   (plain loops; OpenMP `parallel for` where parallel)
//
// With `swapArgs = {{a, b}}` (double buffering) one operation first sets arguments a and b
// to the two buffers in alternating order (hkSetKernelArg / clSetKernelArg), then launches:
// step 1 reads the buffer that started as a and writes the one that started as b, step 2
// the other way round, and so on.
//
// Each path creates its own kernel object, buffers and in-order queue through its own API
// (hkCreate* / clCreate*), so outputs and the hostkernel launch counts are per path. The
// check resets the buffers to their initial contents, runs `checkLaunches` launches and
// reads the output argument back (with swapArgs: the buffer the last step wrote when
// outputArg is one of the pair).
//
// Buffer contents are generated when the first path is set up (LaunchArg::fill), shared by
// the paths of the case, and freed with them: a case with 64 MiB arrays costs nothing until
// it runs.
//
//   hkbench::KernelLaunch k;
//   k.file = "axpy.cl"; k.kernel = "axpy";
//   k.args = {hkbench::LaunchArg::scalar(2.0f), hkbench::LaunchArg::buffer<float>(x),
//             hkbench::LaunchArg::buffer<float>(y)};
//   k.global = {1024, 1, 1}; k.local = {64, 1, 1};
//   k.outputArg = 2; k.outputType = hkbench::ElemType::F32;
//   k.native = [](hkbench::NativeArgs &a) {
//     const float s = a.scalar<float>(0); const float *x = a.buf<float>(1); float *y = a.buf<float>(2);
//     for (int i = 0; i < 1024; ++i) y[i] = s * x[i] + y[i];
//   };
//   const hkbench::Register kAxpy{hkbench::launchCase("launch/axpy", "latency", "...", k)};
#pragma once

#include "case_list.hpp"

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hkbench {

struct LaunchArg {
  enum class Kind { Buffer, Scalar, Local };
  Kind kind = Kind::Scalar;
  std::size_t size = 0;                    // bytes: buffer, local, or scalar
  std::vector<std::byte> bytes;            // a scalar's value
  std::function<void(std::byte *)> fill;   // a buffer's initial contents (writes size bytes)

  // A buffer holding a copy of `init`.
  template <class T>
  static LaunchArg buffer(std::span<const T> init) {
    auto copy = std::make_shared<std::vector<T>>(init.begin(), init.end());
    LaunchArg a;
    a.kind = Kind::Buffer;
    a.size = init.size_bytes();
    a.fill = [copy](std::byte *dst) { std::memcpy(dst, copy->data(), copy->size() * sizeof(T)); };
    return a;
  }
  template <class T>
  static LaunchArg buffer(const std::vector<T> &init) {
    return buffer<T>(std::span<const T>(init));
  }
  // A buffer of `count` elements whose contents gen(T *first) writes when the case runs.
  template <class T>
  static LaunchArg generated(std::size_t count, std::function<void(T *)> gen) {
    LaunchArg a;
    a.kind = Kind::Buffer;
    a.size = count * sizeof(T);
    a.fill = [gen = std::move(gen)](std::byte *dst) { gen(reinterpret_cast<T *>(dst)); };
    return a;
  }
  template <class T>
  static LaunchArg scalar(const T &value) {
    LaunchArg a;
    a.kind = Kind::Scalar;
    a.size = sizeof(T);
    a.bytes.resize(sizeof(T));
    std::memcpy(a.bytes.data(), &value, sizeof(T));
    return a;
  }
  // A __local argument of `bytes` bytes (clSetKernelArg(k, i, bytes, NULL)).
  static LaunchArg local(std::size_t bytes) {
    LaunchArg a;
    a.kind = Kind::Local;
    a.size = bytes;
    return a;
  }
};

// What a native implementation sees: the arguments of one launch, by index.
class NativeArgs {
 public:
  // A buffer argument's host array (64-byte aligned).
  template <class T>
  T *buf(std::size_t i) const {
    return reinterpret_cast<T *>(ptr_.at(i));
  }
  template <class T>
  T scalar(std::size_t i) const {
    T v;
    std::memcpy(&v, ptr_.at(i), sizeof(T));
    return v;
  }

 private:
  friend class NativeState;
  std::vector<std::byte *> ptr_;
};

struct KernelLaunch {
  std::string file;     // in kernels/
  std::string kernel;
  std::string buildOptions;
  std::vector<LaunchArg> args;  // in argument order
  cl_uint workDim = 1;
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{1, 1, 1};
  bool localNull = false;       // pass NULL as local_work_size
  std::optional<std::array<std::size_t, 2>> swapArgs;  // double buffering (see above)
  std::size_t outputArg = 0;    // buffer argument read back by the check
  ElemType outputType = ElemType::Bytes;
  std::uint64_t checkLaunches = 3;
  // The "native" path: one launch's work on host arrays; none when empty.
  std::function<void(NativeArgs &)> native;
  // The native path may differ from the OpenCL paths by this many units in the last place
  // (F32/F64 outputs; 0 = bit for bit). For math builtins that glibc and PoCL (SLEEF)
  // implement differently.
  unsigned nativeUlps = 0;
  // A native kernel (kernels/native/*.cl, written with include/hostkernel/kernel.h):
  // `args` leave out the hidden ndrange (kernel argument 0) and `global` is the true
  // ndrange. The hostkernel path builds a native program (hkCreateNativeProgramWithSource:
  // full work-groups unchecked, boundary ones checked); the queue path builds the prelude
  // and source with -DHK_CHECKED=1, sets argument 0 itself and launches the grid rounded
  // up to whole work-groups, as hostkernel does when it gives a launch to PoCL.
  bool nativeKernel = false;
  // More hostkernel paths for a native kernel: "checked" runs the queue path's program
  // (every work-group checked) through hkEnqueueNDRangeKernel; a path with `global` runs
  // the native program over that ndrange instead (e.g. a uniform one of the same grid).
  struct ExtraPath {
    std::string name;
    bool checkedOnly = false;
    std::optional<std::array<std::size_t, 3>> global;
  };
  std::vector<ExtraPath> extraPaths;
  // Host work done before every launch of every path (apps/omp-mixed: an OpenMP loop over
  // host arrays). With it the case also gets the paths "host-alone" (this alone) and
  // "<path>-alone" (the launch alone), and each mixed path's note gives
  // mixed / (host-alone + <path>-alone).
  std::function<void()> hostStep;

  // The arguments' initial contents, generated on first use and shared until the last
  // path holding them is gone.
  struct Initial {
    std::vector<std::unique_ptr<std::byte[], void (*)(void *)>> buffers;  // by arg index
  };
  std::shared_ptr<const Initial> initial() const;

 private:
  mutable std::weak_ptr<const Initial> initial_;
};

// The "hostkernel", "queue" and (if launch->native) "native" paths for one kernel launch.
std::vector<Path> launchPaths(OpenCLEnv &env, std::shared_ptr<const KernelLaunch> launch);

// A case whose paths are launchPaths(launch).
Case launchCase(std::string name, std::string category, std::string description,
                KernelLaunch launch, std::function<Output()> reference = {});

// "inline 100%", "team 60% inline 40%", "queue 100% (non-uniform work-groups)": where a
// kernel's launches went, from hkGetKernelLaunchCounts. With `since`, only the launches
// made after that snapshot. Fills shares[path] (fractions) when given.
std::string hostkernelLaunchNote(cl_kernel kernel);
std::string hostkernelLaunchNote(cl_kernel kernel, const std::array<cl_ulong, 3> &since,
                                 std::array<double, 3> *shares = nullptr);

// The same for a kernel created through cl*, when the process runs with hostkernel's
// OpenCL layer (OPENCL_LAYERS): where the layer sent its launches, from the layer's
// hkGetKernelLaunchCounts extension function ("layer: inline 100%"). Without the layer the
// lookup finds nothing and the note is empty: the queue path is then plain PoCL.
std::string layerLaunchNote(cl_kernel kernel, const std::array<cl_ulong, 3> &since);
// The layer's counts by path of `kernel` (all zero without the layer).
std::array<cl_ulong, 3> layerLaunchCounts(cl_kernel kernel);
// hostkernel's counts by path of `kernel` (hkGetKernelLaunchCounts; zero if it has none).
std::array<cl_ulong, 3> hostkernelLaunchCounts(cl_kernel kernel);

// Where a path's timed launches of one kernel went, for a path state's mark(), note() and
// shares(): hostkernel's counts for a kernel made through hk* (kHostkernel), the layer's
// for one made through cl* (an empty note without the layer).
//
//   LaunchTally<Api::kCounts> tally_;
//   void mark() { tally_.mark(kernel_); }            // just before the timed runs
//   std::string note() { return tally_.note(kernel_); }
template <bool kHostkernel>
class LaunchTally {
 public:
  void mark(cl_kernel kernel) {
    marked_ = kHostkernel ? hostkernelLaunchCounts(kernel) : layerLaunchCounts(kernel);
  }
  std::string note(cl_kernel kernel) {
    if constexpr (kHostkernel) return hostkernelLaunchNote(kernel, marked_, &shares_);
    return layerLaunchNote(kernel, marked_);
  }
  // Fractions of the launches since mark() by path, as of the last note() (hostkernel).
  std::optional<std::array<double, 3>> shares() const {
    if constexpr (kHostkernel) return shares_;
    return std::nullopt;
  }

 private:
  std::array<cl_ulong, 3> marked_{};
  std::array<double, 3> shares_{};
};

}  // namespace hkbench
