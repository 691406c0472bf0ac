#include "program/native_program.hpp"

#include "base/exit_guard.hpp"
#include "base/log.hpp"
#include "base/next.hpp"
#include "base/thread_safety.hpp"
#include "pocl/release_checks.hpp"
#include "program/spirv.hpp"

namespace hk::program {
namespace {

constexpr char kPrelude[] =
#include "program/native_prelude.inc"
    ;

// The options of one variant: the user's with the variant's macro and argument info.
std::string variantOptions(bool spirv, int checked, const std::string &user) {
  std::string opts = spirv ? "-x spir -spir-std=1.2 " : "";
  opts += "-DHK_CHECKED=" + std::to_string(checked) + " -cl-kernel-arg-info " + user;
  return opts;
}

}  // namespace

std::string_view nativePrelude() { return {kPrelude, sizeof kPrelude - 1}; }

std::string withNativePrelude(std::string_view source) {
  std::string text(nativePrelude());
  text += "\n#line 1\n";
  text += source;
  return text;
}

bool isNdrangeTypeName(std::string_view t) {
  return t == "hk_ndrange_t" || t == "struct hk_ndrange_t";
}

std::shared_ptr<NativeProgram> NativeProgram::fromSource(std::string source_with_prelude) {
  auto np = std::shared_ptr<NativeProgram>(new NativeProgram());
  np->source_ = std::move(source_with_prelude);
  return np;
}

std::shared_ptr<NativeProgram> NativeProgram::fromSpirv(std::span<const std::uint8_t> spirv) {
  auto np = std::shared_ptr<NativeProgram>(new NativeProgram());
  np->spirv_ = true;
  np->ir_.assign(spirv.begin(), spirv.end());
  return np;
}

NativeProgram::~NativeProgram() {
  for (Variant &v : unchecked_)
    if (v.program) next().clReleaseProgram(v.program);
}

std::string NativeProgram::buildOptions(const char *user) {
  MutexLock lock(mutex_);
  std::string u = user ? user : "";
  if (u != user_options_) {
    // Kernels keep the images they hold (shared), so dropping them here is safe.
    for (Variant &v : unchecked_)
      if (v.program) next().clReleaseProgram(v.program);
    unchecked_.clear();
    user_options_ = u;
  }
  // The checked variant of SPIR-V is already fixed by the translation; the macro is
  // harmless there and keeps the options the same for both kinds.
  return variantOptions(false, 1, user_options_);
}

bool NativeProgram::uncheckedBuilt() const {
  MutexLock lock(mutex_);
  for (const Variant &v : unchecked_)
    if (v.image) return true;
  return false;
}

cl_program NativeProgram::buildUnchecked(cl_context context, cl_device_id device,
                                         std::string &error) {
  const auto &cl = next();
  cl_int err = CL_SUCCESS;
  cl_program p = nullptr;
  bool spir_bitcode = false;  // the SPIR route: PoCL is given bitcode and its options
  if (spirv_) {
    std::vector<std::uint8_t> bitcode;
    SpirvTranslateOptions topts;
    topts.native_checked = 0;
    const pocl::Release *release = pocl::runningRelease(device);
    topts.output_spirv = release && release->takes_il;  // SPIR-V again, for PoCL's own reader
    spir_bitcode = !topts.output_spirv;
    if (!spirvToSpirBitcode(ir_, bitcode, error, topts)) return nullptr;
    const unsigned char *bin = bitcode.data();
    size_t len = bitcode.size();
    cl_int status = CL_SUCCESS;
    p = topts.output_spirv
            ? cl.clCreateProgramWithIL(context, bin, len, &err)
            : cl.clCreateProgramWithBinary(context, 1, &device, &len, &bin, &status, &err);
  } else {
    const char *text = source_.c_str();
    size_t len = source_.size();
    p = cl.clCreateProgramWithSource(context, 1, &text, &len, &err);
  }
  if (!p || err != CL_SUCCESS) {
    error = "creating the unchecked variant failed, error " + std::to_string(err);
    if (p) cl.clReleaseProgram(p);
    return nullptr;
  }
  const std::string opts = variantOptions(spir_bitcode, 0, user_options_);
  err = cl.clBuildProgram(p, 1, &device, opts.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    error = "building the unchecked variant failed, error " + std::to_string(err);
    cl.clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

std::shared_ptr<ProgramImage> NativeProgram::unchecked(cl_context context, cl_device_id device,
                                                       std::string &error) {
  MutexLock lock(mutex_);
  for (const Variant &v : unchecked_)
    if (v.device == device) {
      error = v.error;
      return v.image;
    }
  Variant v{device, nullptr, nullptr, {}};
  // A compile: not once exit has begun (base/exit_guard.hpp); the checked variant runs.
  CompileSlot slot;
  if (!slot) {
    error = "the process is exiting";
    return nullptr;
  }
  v.program = buildUnchecked(context, device, v.error);
  if (v.program) v.image = ProgramImage::create(v.program, device, v.error);
  if (!v.image)
    logf(LogLevel::Info, "native program: no unchecked variant (%s); the checked one runs",
         v.error.c_str());
  error = v.error;
  unchecked_.push_back(v);
  return v.image;
}

}  // namespace hk::program
