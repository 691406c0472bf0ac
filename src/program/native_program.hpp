// A native program (include/hostkernel/kernel.h): the OpenCL C source or SPIR-V it was
// made from, the build options it was given, and its unchecked variant, built on demand.
// The application's cl_program is the checked variant (HK_CHECKED=1); the unchecked one
// (HK_CHECKED=0) is a second cl_program that only hostkernel sees, built at most once per
// device, the first time a kernel of the program is launched a second time
// (docs/native-kernels.md).
//
//   auto np = NativeProgram::fromSource(text);          // text: prelude + user source
//   std::string opts = np->buildOptions(user_options);  // for the checked build
//   auto img = np->unchecked(context, device, error);   // later: the unchecked variant
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/thread_safety.hpp"
#include "program/program_image.hpp"

namespace hk::program {

// The text of include/hostkernel/kernel.h.
std::string_view nativePrelude();

// `source` with the prelude in front of it (and a #line so that build errors name the
// user's lines).
std::string withNativePrelude(std::string_view source);

// True for the type name of the hidden first parameter of HK_KERNEL, as PoCL reports it
// from source ("hk_ndrange_t") or from SPIR-V ("struct hk_ndrange_t").
bool isNdrangeTypeName(std::string_view type_name);

class NativeProgram {
 public:
  static std::shared_ptr<NativeProgram> fromSource(std::string source_with_prelude);
  static std::shared_ptr<NativeProgram> fromSpirv(std::span<const std::uint8_t> spirv);
  ~NativeProgram();
  NativeProgram(const NativeProgram &) = delete;
  NativeProgram &operator=(const NativeProgram &) = delete;

  // The options for building the checked variant: `user` plus -DHK_CHECKED=1 and
  // -cl-kernel-arg-info (hostkernel recognises native kernels by argument type). Records
  // `user` for the unchecked build; a rebuild with other options forgets the unchecked
  // variant built before.
  std::string buildOptions(const char *user);

  // The unchecked variant's image on `device`, built on the first call; null (with
  // `error`) when it cannot be built. Thread-safe; the build takes as long as PoCL's.
  std::shared_ptr<ProgramImage> unchecked(cl_context context, cl_device_id device,
                                          std::string &error);
  // Whether the unchecked variant has been built (successfully) on any device.
  bool uncheckedBuilt() const;

 private:
  NativeProgram() = default;
  cl_program buildUnchecked(cl_context context, cl_device_id device, std::string &error);

  bool spirv_ = false;
  std::string source_;               // OpenCL C with the prelude
  std::vector<std::uint8_t> ir_;     // SPIR-V
  mutable Mutex mutex_;
  std::string user_options_;
  struct Variant {
    cl_device_id device;
    cl_program program;                    // null when the build failed
    std::shared_ptr<ProgramImage> image;
    std::string error;
  };
  std::vector<Variant> unchecked_ GUARDED_BY(mutex_);
};

}  // namespace hk::program
