// hostkernel C++ API: run OpenCL C or SPIR-V kernels on PoCL's CPU device, directly on
// the calling thread where hostkernel can (see hostkernel.h), with RAII objects and
// exceptions. Header-only, over the C API; link with libhostkernel (and libOpenCL).
//
//   #include <hostkernel/hostkernel.hpp>
//
//   hk::Runtime &rt = hk::Runtime::get();                 // PoCL's CPU device
//   hk::Program program = hk::Program::fromSource(rt, R"(
//       kernel void axpy(float a, global const float *x, global float *y) {
//         size_t i = get_global_id(0);
//         y[i] = a * x[i] + y[i];
//       })");
//   hk::Kernel axpy(program, "axpy");
//   hk::Buffer<float> x(rt, 1000), y(rt, 1000);
//   std::fill(x.begin(), x.end(), 1.0f);                  // host access: zero copy
//   axpy.launch({1000}, {40}, 2.5f, x, y);                // grid, work-group, arguments
//   rt.finish();
//   float y0 = y[0];
//
// Errors throw hk::Error (an OpenCL error code and a message that names the kernel and
// the argument: "axpy: argument 1 (x): CL_INVALID_ARG_SIZE ...").
//
// Native kernels (hk::Program::native, include/hostkernel/kernel.h) launch over any
// ndrange with any work-group size: hostkernel rounds the grid up and tells the kernel the
// true ndrange (docs/native-kernels.md).
//
// Objects made from a Runtime must not outlive it (Runtime::get() lives until exit).
// A Kernel is not thread-safe (launch() sets its arguments): use one per thread.
#pragma once

#include <hostkernel/hostkernel.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace hk {

// "CL_INVALID_ARG_SIZE" for -51; "OpenCL error -1234" for codes it does not know.
inline std::string errorName(cl_int code) {
  switch (code) {
#define HK_ERROR_NAME(e) \
  case e:                \
    return #e;
    HK_ERROR_NAME(CL_SUCCESS) HK_ERROR_NAME(CL_DEVICE_NOT_FOUND)
    HK_ERROR_NAME(CL_DEVICE_NOT_AVAILABLE) HK_ERROR_NAME(CL_COMPILER_NOT_AVAILABLE)
    HK_ERROR_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE) HK_ERROR_NAME(CL_OUT_OF_RESOURCES)
    HK_ERROR_NAME(CL_OUT_OF_HOST_MEMORY) HK_ERROR_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    HK_ERROR_NAME(CL_MEM_COPY_OVERLAP) HK_ERROR_NAME(CL_IMAGE_FORMAT_MISMATCH)
    HK_ERROR_NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED) HK_ERROR_NAME(CL_BUILD_PROGRAM_FAILURE)
    HK_ERROR_NAME(CL_MAP_FAILURE) HK_ERROR_NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    HK_ERROR_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    HK_ERROR_NAME(CL_COMPILE_PROGRAM_FAILURE) HK_ERROR_NAME(CL_LINKER_NOT_AVAILABLE)
    HK_ERROR_NAME(CL_LINK_PROGRAM_FAILURE) HK_ERROR_NAME(CL_DEVICE_PARTITION_FAILED)
    HK_ERROR_NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) HK_ERROR_NAME(CL_INVALID_VALUE)
    HK_ERROR_NAME(CL_INVALID_DEVICE_TYPE) HK_ERROR_NAME(CL_INVALID_PLATFORM)
    HK_ERROR_NAME(CL_INVALID_DEVICE) HK_ERROR_NAME(CL_INVALID_CONTEXT)
    HK_ERROR_NAME(CL_INVALID_QUEUE_PROPERTIES) HK_ERROR_NAME(CL_INVALID_COMMAND_QUEUE)
    HK_ERROR_NAME(CL_INVALID_HOST_PTR) HK_ERROR_NAME(CL_INVALID_MEM_OBJECT)
    HK_ERROR_NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) HK_ERROR_NAME(CL_INVALID_IMAGE_SIZE)
    HK_ERROR_NAME(CL_INVALID_SAMPLER) HK_ERROR_NAME(CL_INVALID_BINARY)
    HK_ERROR_NAME(CL_INVALID_BUILD_OPTIONS) HK_ERROR_NAME(CL_INVALID_PROGRAM)
    HK_ERROR_NAME(CL_INVALID_PROGRAM_EXECUTABLE) HK_ERROR_NAME(CL_INVALID_KERNEL_NAME)
    HK_ERROR_NAME(CL_INVALID_KERNEL_DEFINITION) HK_ERROR_NAME(CL_INVALID_KERNEL)
    HK_ERROR_NAME(CL_INVALID_ARG_INDEX) HK_ERROR_NAME(CL_INVALID_ARG_VALUE)
    HK_ERROR_NAME(CL_INVALID_ARG_SIZE) HK_ERROR_NAME(CL_INVALID_KERNEL_ARGS)
    HK_ERROR_NAME(CL_INVALID_WORK_DIMENSION) HK_ERROR_NAME(CL_INVALID_WORK_GROUP_SIZE)
    HK_ERROR_NAME(CL_INVALID_WORK_ITEM_SIZE) HK_ERROR_NAME(CL_INVALID_GLOBAL_OFFSET)
    HK_ERROR_NAME(CL_INVALID_EVENT_WAIT_LIST) HK_ERROR_NAME(CL_INVALID_EVENT)
    HK_ERROR_NAME(CL_INVALID_OPERATION) HK_ERROR_NAME(CL_INVALID_BUFFER_SIZE)
    HK_ERROR_NAME(CL_INVALID_GLOBAL_WORK_SIZE) HK_ERROR_NAME(CL_INVALID_PROPERTY)
    HK_ERROR_NAME(CL_INVALID_COMPILER_OPTIONS) HK_ERROR_NAME(CL_INVALID_LINKER_OPTIONS)
#undef HK_ERROR_NAME
    default:
      return "OpenCL error " + std::to_string(code);
  }
}

// What every hk:: call throws on failure.
//
//   try {
//     kernel.launch({1000}, x, y);
//   } catch (const hk::Error &e) {
//     if (e.code() == CL_INVALID_KERNEL_ARGS) ...;
//     std::cerr << e.what() << "\n";   // "axpy: 2 arguments given, the kernel takes 3"
//   }
class Error : public std::runtime_error {
 public:
  Error(cl_int code, const std::string &message) : std::runtime_error(message), code_(code) {}
  // The OpenCL error code (CL_INVALID_ARG_SIZE, CL_BUILD_PROGRAM_FAILURE, ...).
  cl_int code() const noexcept { return code_; }

 private:
  cl_int code_;
};

namespace detail {
[[noreturn]] inline void fail(cl_int code, const std::string &context,
                              const std::string &detail = "") {
  throw Error(code, context + ": " + errorName(code) + (detail.empty() ? "" : " " + detail));
}
inline void check(cl_int code, const std::string &context) {
  if (code != CL_SUCCESS) fail(code, context);
}
}  // namespace detail

// PoCL's CPU device with a context and an in-order queue: where programs are built,
// buffers live and kernels run. Runtime::get() is the process's default instance.
//
//   hk::Runtime &rt = hk::Runtime::get();   // made on first use, lives until exit
//   hk::Runtime own;                         // or one of your own (its own queue)
//   ... launches ...
//   rt.finish();                             // every launch and transfer done
class Runtime {
 public:
  // Finds PoCL's CPU device ("Portable Computing Language" platform); throws
  // CL_DEVICE_NOT_FOUND without one.
  Runtime() : Runtime(findPoclCpu()) {}
  // A context and queue on `device`.
  explicit Runtime(cl_device_id device) : device_(device) {
    cl_int err = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    detail::check(err, "hk::Runtime: clCreateContext");
    queue_ = hkCreateCommandQueueWithProperties(context_, device_, nullptr, &err);
    if (err != CL_SUCCESS) {
      hkReleaseContext(context_);
      detail::fail(err, "hk::Runtime: creating the queue");
    }
  }
  ~Runtime() {
    if (queue_) {
      hkFinish(queue_);
      hkReleaseCommandQueue(queue_);
    }
    if (context_) hkReleaseContext(context_);
  }
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  // The default instance, made on first use and never destroyed (so that objects in
  // static storage may still use it at exit).
  static Runtime &get() {
    static Runtime *runtime = new Runtime();
    return *runtime;
  }

  // Waits until every launch and transfer on the queue is done (free when hostkernel ran
  // them directly and PoCL holds no work).
  void finish() const { detail::check(hkFinish(queue_), "hk::Runtime::finish"); }

  cl_device_id device() const { return device_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }

 private:
  static cl_device_id findPoclCpu() {
    cl_uint n = 0;
    if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS) n = 0;
    std::vector<cl_platform_id> platforms(n);
    if (n) clGetPlatformIDs(n, platforms.data(), nullptr);
    for (cl_platform_id p : platforms) {
      char name[256] = {};
      clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
      cl_device_id device = nullptr;
      if (std::strstr(name, "Portable Computing Language") &&
          clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &device, nullptr) == CL_SUCCESS)
        return device;
    }
    throw Error(CL_DEVICE_NOT_FOUND,
                "hk::Runtime: no PoCL CPU device (is pocl-opencl-icd installed?)");
  }

  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
};

// A built program, from OpenCL C source or from SPIR-V. Copies share the program.
// Build errors throw with PoCL's build log in the message.
//
//   hk::Program p = hk::Program::fromSource(rt, source, "-DTILE=16");
//   std::vector<std::uint8_t> spv = read("axpy.spv");     // clang + llvm-spirv
//   hk::Program q = hk::Program::fromSpirv(rt, spv);
//
// Programs are built with -cl-kernel-arg-info (so that errors can name arguments); SPIR-V
// also with "-x spir -spir-std=1.2" (hkCreateProgramWithSPIRV makes it SPIR bitcode).
// Options that change code generation, such as -cl-denorms-are-zero, apply to SPIR-V too.
class Program {
 public:
  static Program fromSource(Runtime &rt, std::string_view source, std::string_view options = {}) {
    const char *text = source.data();
    size_t length = source.size();
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateProgramWithSource(rt.context(), 1, &text, &length, &err);
    detail::check(err, "hk::Program::fromSource");
    Program program(rt, p);
    program.build("hk::Program::fromSource", std::string(options));
    return program;
  }

  static Program fromSpirv(Runtime &rt, std::span<const std::uint8_t> spirv,
                           std::string_view options = {}) {
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateProgramWithSPIRV(rt.context(), spirv.data(), spirv.size(), &err);
    if (err != CL_SUCCESS)
      detail::fail(err, "hk::Program::fromSpirv", std::string("(") + hkGetLastSPIRVError() + ")");
    Program program(rt, p);
    program.build("hk::Program::fromSpirv", "-x spir -spir-std=1.2 " + std::string(options));
    return program;
  }

  static Program fromSpirv(Runtime &rt, const void *spirv, std::size_t size,
                           std::string_view options = {}) {
    return fromSpirv(rt, std::span<const std::uint8_t>(static_cast<const std::uint8_t *>(spirv), size),
                     options);
  }

  // A native program: OpenCL C written with the prelude hostkernel/kernel.h (HK_KERNEL,
  // hk_in_bounds(), ...), which hostkernel puts in front of `source`. Its kernels launch
  // over their true ndrange with any work-group size; full work-groups run the unchecked
  // variant (built on a kernel's second launch), boundary ones the checked variant.
  //
  //   hk::Program p = hk::Program::native(rt, R"(
  //       HK_KERNEL(scale, float a, global float *x) {
  //         if (hk_in_bounds()) x[hk_global_id(0)] *= a;
  //       })");
  //   hk::Kernel scale(p, "scale");
  //   scale.launch({1000}, {64}, 2.0f, x);      // 16 groups; the 16th is partial
  //
  // fromSource/fromSpirv programs are plain OpenCL: they never get the prelude.
  static Program native(Runtime &rt, std::string_view source, std::string_view options = {}) {
    const char *text = source.data();
    size_t length = source.size();
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateNativeProgramWithSource(rt.context(), 1, &text, &length, &err);
    detail::check(err, "hk::Program::native");
    Program program(rt, p);
    program.build("hk::Program::native", std::string(options));
    return program;
  }

  // A native program from SPIR-V compiled with the prelude (clang-15 -include
  // hostkernel/kernel.h, no HK_CHECKED): see hkCreateNativeProgramWithSPIRV.
  static Program nativeSpirv(Runtime &rt, std::span<const std::uint8_t> spirv,
                             std::string_view options = {}) {
    cl_int err = CL_SUCCESS;
    cl_program p = hkCreateNativeProgramWithSPIRV(rt.context(), spirv.data(), spirv.size(), &err);
    if (err != CL_SUCCESS)
      detail::fail(err, "hk::Program::nativeSpirv",
                   std::string("(") + hkGetLastSPIRVError() + ")");
    Program program(rt, p);
    program.build("hk::Program::nativeSpirv", "-x spir -spir-std=1.2 " + std::string(options));
    return program;
  }

  Program(const Program &other) : rt_(other.rt_), program_(other.program_) {
    clRetainProgram(program_);
  }
  Program(Program &&other) noexcept
      : rt_(other.rt_), program_(std::exchange(other.program_, nullptr)) {}
  Program &operator=(Program other) noexcept {
    std::swap(rt_, other.rt_);
    std::swap(program_, other.program_);
    return *this;
  }
  ~Program() {
    if (program_) hkReleaseProgram(program_);
  }

  cl_program get() const { return program_; }
  Runtime &runtime() const { return *rt_; }

 private:
  Program(Runtime &rt, cl_program p) : rt_(&rt), program_(p) {}

  void build(const char *context, const std::string &options) {
    std::string opts = "-cl-kernel-arg-info " + options;
    cl_device_id device = rt_->device();
    cl_int err = hkBuildProgram(program_, 1, &device, opts.c_str(), nullptr, nullptr);
    if (err == CL_SUCCESS) return;
    size_t size = 0;
    clGetProgramBuildInfo(program_, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    if (size) clGetProgramBuildInfo(program_, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    log.resize(std::strlen(log.c_str()));
    detail::fail(err, context, "(options \"" + options + "\"); build log:\n" + log);
  }

  Runtime *rt_;
  cl_program program_;
};

// A grid or a work-group: 1 to 3 sizes, and for a grid an optional global offset.
//
//   hk::NDRange grid{1024, 768};                    // 2-D (braces: {x}, {x, y}, {x, y, z})
//   hk::NDRange shifted = hk::NDRange{1000}.offset({24});   // ids 24 .. 1023
//   kernel.launch(grid, {16, 16}, args...);         // work-group 16 x 16
class NDRange {
 public:
  NDRange(std::initializer_list<std::size_t> sizes) {
    if (sizes.size() < 1 || sizes.size() > 3)
      throw Error(CL_INVALID_WORK_DIMENSION,
                  "hk::NDRange: " + std::to_string(sizes.size()) + " dimensions (1 to 3)");
    dims_ = static_cast<cl_uint>(sizes.size());
    std::size_t d = 0;
    for (std::size_t s : sizes) sizes_[d++] = s;
  }
  explicit NDRange(std::size_t x) : NDRange({x}) {}
  NDRange(std::size_t x, std::size_t y) : NDRange({x, y}) {}
  NDRange(std::size_t x, std::size_t y, std::size_t z) : NDRange({x, y, z}) {}

  // This range with a global offset (one value per dimension).
  NDRange offset(std::initializer_list<std::size_t> offsets) const {
    if (offsets.size() != dims_)
      throw Error(CL_INVALID_GLOBAL_OFFSET, "hk::NDRange: offset has " +
                                                std::to_string(offsets.size()) +
                                                " dimensions, the range " + std::to_string(dims_));
    NDRange r = *this;
    std::size_t d = 0;
    for (std::size_t o : offsets) r.offsets_[d++] = o;
    r.has_offset_ = true;
    return r;
  }

  cl_uint dims() const { return dims_; }
  const std::size_t *sizes() const { return sizes_; }
  const std::size_t *offsets() const { return has_offset_ ? offsets_ : nullptr; }
  std::size_t operator[](std::size_t d) const { return sizes_[d]; }
  std::size_t items() const { return sizes_[0] * sizes_[1] * sizes_[2]; }
  // "1024x768", "1000+24"
  std::string str() const {
    std::string s;
    for (cl_uint d = 0; d < dims_; ++d) s += (d ? "x" : "") + std::to_string(sizes_[d]);
    if (has_offset_) {
      s += "+";
      for (cl_uint d = 0; d < dims_; ++d) s += (d ? "x" : "") + std::to_string(offsets_[d]);
    }
    return s;
  }

 private:
  cl_uint dims_ = 1;
  std::size_t sizes_[3] = {1, 1, 1};
  std::size_t offsets_[3] = {0, 0, 0};
  bool has_offset_ = false;
};

// An array of n T in device memory that the host reads and writes in place: on PoCL's CPU
// device a buffer's memory is host memory, so a Buffer maps it once, for its lifetime, and
// data() is that memory (no copies, ever). Move-only.
//
//   hk::Buffer<float> x(rt, n);                   // uninitialised
//   hk::Buffer<float> y(rt, {1.0f, 2.0f, 3.0f});  // or copied from values / a span
//   for (float &v : x) v = 0.5f;                  // write, then launch
//   kernel.launch({n}, x, y);
//   rt.finish();                                  // then read
//   float first = y[0];
//
// The rule: touch data() only while no launch that uses the buffer may be running, that is
// after rt.finish() (or before the launch). A launch that hostkernel runs directly has
// finished when launch() returns, but a launch may go to PoCL's queue (non-uniform
// work-groups, for one), which runs asynchronously.
template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>, "hk::Buffer<T>: T must be trivially copyable");

 public:
  // `flags`: device access (CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY).
  Buffer(Runtime &rt, std::size_t n, cl_mem_flags flags = CL_MEM_READ_WRITE) : rt_(&rt), n_(n) {
    if (n == 0) throw Error(CL_INVALID_BUFFER_SIZE, "hk::Buffer: 0 elements");
    if (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_NO_ACCESS))
      throw Error(CL_INVALID_VALUE, "hk::Buffer: flags must leave host access to the Buffer");
    cl_int err = CL_SUCCESS;
    mem_ = hkCreateBuffer(rt.context(), flags | CL_MEM_ALLOC_HOST_PTR, bytes(), nullptr, &err);
    detail::check(err, "hk::Buffer: hkCreateBuffer");
    host_ = static_cast<T *>(hkEnqueueMapBuffer(rt.queue(), mem_, CL_TRUE,
                                                CL_MAP_READ | CL_MAP_WRITE, 0, bytes(), 0,
                                                nullptr, nullptr, &err));
    if (err != CL_SUCCESS || !host_) {
      hkReleaseMemObject(mem_);
      detail::fail(err != CL_SUCCESS ? err : CL_MAP_FAILURE, "hk::Buffer: mapping");
    }
  }
  Buffer(Runtime &rt, std::span<const T> values, cl_mem_flags flags = CL_MEM_READ_WRITE)
      : Buffer(rt, values.size(), flags) {
    std::memcpy(host_, values.data(), bytes());
  }
  Buffer(Runtime &rt, std::initializer_list<T> values, cl_mem_flags flags = CL_MEM_READ_WRITE)
      : Buffer(rt, std::span<const T>(values.begin(), values.size()), flags) {}

  Buffer(Buffer &&other) noexcept
      : rt_(other.rt_), mem_(std::exchange(other.mem_, nullptr)),
        host_(std::exchange(other.host_, nullptr)), n_(std::exchange(other.n_, 0)) {}
  Buffer &operator=(Buffer &&other) noexcept {
    if (this != &other) {
      release();
      rt_ = other.rt_;
      mem_ = std::exchange(other.mem_, nullptr);
      host_ = std::exchange(other.host_, nullptr);
      n_ = std::exchange(other.n_, 0);
    }
    return *this;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { release(); }

  T *data() { return host_; }
  const T *data() const { return host_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  T &operator[](std::size_t i) { return host_[i]; }
  const T &operator[](std::size_t i) const { return host_[i]; }
  T *begin() { return host_; }
  T *end() { return host_ + n_; }
  const T *begin() const { return host_; }
  const T *end() const { return host_ + n_; }
  std::span<T> span() { return {host_, n_}; }
  std::span<const T> span() const { return {host_, n_}; }
  // The cl_mem, for the C API (hk*/cl* calls see the same memory).
  cl_mem get() const { return mem_; }

 private:
  void release() {
    if (!mem_) return;
    hkEnqueueUnmapMemObject(rt_->queue(), mem_, host_, 0, nullptr, nullptr);
    hkReleaseMemObject(mem_);
    mem_ = nullptr;
    host_ = nullptr;
  }

  Runtime *rt_;
  cl_mem mem_ = nullptr;
  T *host_ = nullptr;
  std::size_t n_ = 0;
};

// A __local argument of n elements of T (the kernel's pointer gets n * sizeof(T) bytes of
// local memory per work-group).
//
//   // kernel void reduce(global const float *in, global float *out, local float *tmp)
//   reduce.launch({4096}, {64}, in, out, hk::Local<float>(64));
template <class T>
struct Local {
  explicit Local(std::size_t n) : count(n) {}
  std::size_t count;
  std::size_t bytes() const { return count * sizeof(T); }
};

// What hostkernel knows about a kernel's variants (Kernel::variants(); each field is the
// value of the HK_KERNEL_VARIANT_* query of the same name, see hostkernel_ext.h).
//
//   hk::KernelVariants v = scale.variants();
//   if (v.native && v.unchecked_groups == 0) ...;   // no full group ran unchecked yet
struct KernelVariants {
  cl_bool native = CL_FALSE;
  cl_bool unchecked_built = CL_FALSE;
  cl_bool unchecked_used = CL_FALSE;
  cl_ulong checked_groups = 0;
  cl_ulong unchecked_groups = 0;
  std::size_t specialized_local_size[3] = {0, 0, 0};
  cl_ulong specialized_launches = 0;
  cl_bool group_free = CL_FALSE;
  std::size_t planned_local_size[3] = {0, 0, 0};
};

// A kernel of a program, launched with its arguments in order: hk::Buffer<T> (or a raw
// cl_mem) for global and constant pointers, hk::Local<T>(n) for local pointers, and values
// (scalars, vectors such as cl_float4, structs) by value. Argument kinds are checked
// against the kernel's signature before anything is set.
//
//   hk::Kernel axpy(program, "axpy");   // kernel void axpy(float a, global const float *x,
//                                       //                  global float *y)
//   axpy.launch({n}, 2.5f, x, y);                        // work-group size: hostkernel's pick
//   axpy.launch({n}, {64}, 2.5f, x, y);                  // work-group of 64
//   axpy.launch(hk::NDRange{n - 8}.offset({8}), 2.5f, x, y);
//   hk_launch_counts c = axpy.counts();                  // c.by_path[HK_PATH_INLINE] ...
//
// Not thread-safe: launch() sets the kernel's arguments; use one Kernel per thread.
class Kernel {
 public:
  Kernel(const Program &program, std::string_view name) : rt_(&program.runtime()), name_(name) {
    cl_int err = CL_SUCCESS;
    kernel_ = hkCreateKernel(program.get(), name_.c_str(), &err);
    if (err != CL_SUCCESS) detail::fail(err, "hk::Kernel: " + name_);
    cl_uint n = 0;
    clGetKernelInfo(kernel_, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr);
    // A native kernel's argument 0 is the hidden ndrange: hostkernel sets it.
    cl_bool native = CL_FALSE;
    if (hkGetKernelVariantInfo(kernel_, HK_KERNEL_VARIANT_NATIVE, sizeof native, &native,
                               nullptr) == CL_SUCCESS &&
        native)
      hidden_ = 1;
    args_.resize(n - hidden_);
    for (cl_uint i = hidden_; i < n; ++i) {
      ArgInfo &a = args_[i - hidden_];
      char text[256] = {};
      if (clGetKernelArgInfo(kernel_, i, CL_KERNEL_ARG_NAME, sizeof text - 1, text, nullptr) ==
          CL_SUCCESS)
        a.name = text;
      std::memset(text, 0, sizeof text);
      if (clGetKernelArgInfo(kernel_, i, CL_KERNEL_ARG_TYPE_NAME, sizeof text - 1, text,
                             nullptr) == CL_SUCCESS)
        a.type = text;
      cl_kernel_arg_address_qualifier q = 0;
      if (clGetKernelArgInfo(kernel_, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q,
                             nullptr) == CL_SUCCESS)
        a.address = q;
    }
  }
  Kernel(Kernel &&other) noexcept
      : rt_(other.rt_), kernel_(std::exchange(other.kernel_, nullptr)),
        name_(std::move(other.name_)), args_(std::move(other.args_)), hidden_(other.hidden_) {}
  Kernel &operator=(Kernel &&other) noexcept {
    std::swap(rt_, other.rt_);
    std::swap(kernel_, other.kernel_);
    std::swap(name_, other.name_);
    std::swap(args_, other.args_);
    std::swap(hidden_, other.hidden_);
    return *this;
  }
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;
  ~Kernel() {
    if (kernel_) hkReleaseKernel(kernel_);
  }

  // Sets the arguments and launches over `global`; the work-group size is hostkernel's
  // (PoCL's) choice.
  template <class... Args>
  void launch(const NDRange &global, Args &&...args) {
    launchWith(global, nullptr, std::forward<Args>(args)...);
  }
  // ... with work-groups of `local` (as many dimensions as `global`, no offset).
  template <class... Args>
  void launch(const NDRange &global, const NDRange &local, Args &&...args) {
    launchWith(global, &local, std::forward<Args>(args)...);
  }

  // Launches so far by path (inline, team, PoCL's queue) and queue launches by reason.
  hk_launch_counts counts() const {
    hk_launch_counts c{};
    detail::check(hkGetKernelLaunchCounts(kernel_, &c), name_ + ": hkGetKernelLaunchCounts");
    return c;
  }
  // What hostkernel knows about the kernel's variants: work-groups run by each variant
  // for native kernels (hk::Program::native), its specialized and planned local sizes.
  KernelVariants variants() const {
    KernelVariants v;
    query(HK_KERNEL_VARIANT_NATIVE, v.native);
    query(HK_KERNEL_VARIANT_UNCHECKED_BUILT, v.unchecked_built);
    query(HK_KERNEL_VARIANT_UNCHECKED_USED, v.unchecked_used);
    query(HK_KERNEL_VARIANT_CHECKED_GROUPS, v.checked_groups);
    query(HK_KERNEL_VARIANT_UNCHECKED_GROUPS, v.unchecked_groups);
    query(HK_KERNEL_VARIANT_SPECIALIZED_LOCAL_SIZE, v.specialized_local_size);
    query(HK_KERNEL_VARIANT_SPECIALIZED_LAUNCHES, v.specialized_launches);
    query(HK_KERNEL_VARIANT_GROUP_FREE, v.group_free);
    query(HK_KERNEL_VARIANT_PLANNED_LOCAL_SIZE, v.planned_local_size);
    return v;
  }
  const std::string &name() const { return name_; }
  // Arguments launch() takes (a native kernel's hidden ndrange is not one of them).
  std::size_t numArgs() const { return args_.size(); }
  bool isNative() const { return hidden_ != 0; }
  cl_kernel get() const { return kernel_; }

 private:
  struct ArgInfo {
    std::string name, type;               // empty when the program has no argument info
    cl_kernel_arg_address_qualifier address = 0;  // 0: unknown
  };

  template <class V>
  void query(hk_kernel_variant_info name, V &value) const {
    detail::check(hkGetKernelVariantInfo(kernel_, name, sizeof value, &value, nullptr),
                  name_ + ": hkGetKernelVariantInfo");
  }

  template <class X> struct IsBuffer : std::false_type {};
  template <class X> struct IsBuffer<Buffer<X>> : std::true_type {};
  template <class X> struct IsLocal : std::false_type {};
  template <class X> struct IsLocal<Local<X>> : std::true_type {};

  // "axpy: argument 1 (x)"
  std::string where(cl_uint i) const {
    std::string s = name_ + ": argument " + std::to_string(i);
    return args_[i].name.empty() ? s : s + " (" + args_[i].name + ")";
  }
  std::string expects(cl_uint i) const {
    const ArgInfo &a = args_[i];
    const char *space = a.address == CL_KERNEL_ARG_ADDRESS_GLOBAL     ? "global "
                        : a.address == CL_KERNEL_ARG_ADDRESS_CONSTANT ? "constant "
                        : a.address == CL_KERNEL_ARG_ADDRESS_LOCAL    ? "local "
                                                                      : "";
    return a.type.empty() ? std::string("") : std::string("the kernel expects ") + space + a.type;
  }

  // Kind check against the signature, then hkSetKernelArg.
  template <class A>
  void setArg(cl_uint i, const A &value) {
    using T = std::remove_cv_t<std::remove_reference_t<A>>;
    static_assert(!std::is_same_v<T, NDRange>,
                  "hk::Kernel::launch: an NDRange among the kernel arguments (the work-group "
                  "size goes right after the grid)");
    static_assert(IsBuffer<T>::value || IsLocal<T>::value || std::is_same_v<T, cl_mem> ||
                      !std::is_pointer_v<T>,
                  "hk::Kernel::launch: pass buffers as hk::Buffer<T> (or a cl_mem), not pointers");
    static_assert(IsBuffer<T>::value || IsLocal<T>::value || std::is_trivially_copyable_v<T>,
                  "hk::Kernel::launch: arguments by value must be trivially copyable");
    const cl_kernel_arg_address_qualifier q = args_[i].address;
    const bool memory = q == CL_KERNEL_ARG_ADDRESS_GLOBAL || q == CL_KERNEL_ARG_ADDRESS_CONSTANT;
    cl_int err = CL_SUCCESS;
    std::string passed;
    if constexpr (IsBuffer<T>::value || std::is_same_v<T, cl_mem>) {
      cl_mem mem;
      if constexpr (IsBuffer<T>::value) {
        mem = value.get();
        passed = "a buffer of " + std::to_string(value.bytes()) + " bytes";
      } else {
        mem = value;
        passed = "a cl_mem";
      }
      if (q != 0 && !memory)
        detail::fail(CL_INVALID_ARG_VALUE, where(i), "(passed " + passed + "; " + expects(i) + ")");
      err = hkSetKernelArg(kernel_, i + hidden_, sizeof(cl_mem), &mem);
    } else if constexpr (IsLocal<T>::value) {
      passed = "hk::Local of " + std::to_string(value.bytes()) + " bytes";
      if (q != 0 && q != CL_KERNEL_ARG_ADDRESS_LOCAL)
        detail::fail(CL_INVALID_ARG_VALUE, where(i), "(passed " + passed + "; " + expects(i) + ")");
      err = hkSetKernelArg(kernel_, i + hidden_, value.bytes(), nullptr);
    } else {
      passed = "a value of " + std::to_string(sizeof(T)) + " bytes";
      if (q != 0 && q != CL_KERNEL_ARG_ADDRESS_PRIVATE)
        detail::fail(CL_INVALID_ARG_VALUE, where(i), "(passed " + passed + "; " + expects(i) + ")");
      err = hkSetKernelArg(kernel_, i + hidden_, sizeof(T), &value);
    }
    if (err != CL_SUCCESS) {
      std::string e = expects(i);
      detail::fail(err, where(i), "(passed " + passed + (e.empty() ? "" : "; " + e) + ")");
    }
  }

  template <class... Args>
  void launchWith(const NDRange &global, const NDRange *local, Args &&...args) {
    if (sizeof...(Args) != args_.size())
      throw Error(CL_INVALID_KERNEL_ARGS, name_ + ": " + std::to_string(sizeof...(Args)) +
                                              " arguments given, the kernel takes " +
                                              std::to_string(args_.size()));
    if (local && (local->dims() != global.dims() || local->offsets()))
      throw Error(CL_INVALID_WORK_DIMENSION,
                  name_ + ": work-group " + local->str() + " for a grid of " + global.str() +
                      " (same number of dimensions, no offset)");
    cl_uint i = 0;
    (setArg(i++, args), ...);
    cl_int err = hkEnqueueNDRangeKernel(rt_->queue(), kernel_, global.dims(), global.offsets(),
                                        global.sizes(), local ? local->sizes() : nullptr, 0,
                                        nullptr, nullptr);
    if (err != CL_SUCCESS)
      detail::fail(err, name_ + ": launch of " + global.str() +
                            (local ? " in work-groups of " + local->str() : ""));
  }

  Runtime *rt_;
  cl_kernel kernel_ = nullptr;
  std::string name_;
  std::vector<ArgInfo> args_;  // the arguments launch() takes
  cl_uint hidden_ = 0;         // 1 for native kernels: launch() argument i is kernel argument i + 1
};

}  // namespace hk
