// LLVMSPIRVLib 15: SPIR-V → LLVM module → the fixes PoCL 3.1 needs → SPIR bitcode.
// One of the two translation units that include LLVM headers (program/stack_llvm.cpp is
// the other); both are compiled with LLVM's flags (src/CMakeLists.txt: its definitions,
// and -fno-rtti where libLLVM has no RTTI).
#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/CallingConv.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/raw_ostream.h>
#if LLVM_VERSION_MAJOR >= 21
#include <llvm/TargetParser/Triple.h>
#endif
#include <unistd.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>

#include "program/spirv.hpp"

namespace hk::program::detail {
namespace {

constexpr unsigned kLocalAddressSpace = 3;  // SPIR's local address space
constexpr const char *kSpirTriple = "spir64-unknown-unknown";

bool isKernel(const llvm::Function &f) {
  return f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL;
}

// The functions whose instructions use `v`, directly or through constant expressions;
// `elsewhere` is set when something else (another global's initializer, metadata) does.
void usingFunctions(const llvm::Value *v, llvm::SmallPtrSetImpl<const llvm::Function *> &fns,
                    bool &elsewhere) {
  for (const llvm::User *u : v->users()) {
    if (const auto *inst = llvm::dyn_cast<llvm::Instruction>(u)) {
      fns.insert(inst->getFunction());
    } else if (llvm::isa<llvm::GlobalValue>(u)) {
      elsewhere = true;
    } else if (const auto *c = llvm::dyn_cast<llvm::Constant>(u)) {
      usingFunctions(c, fns, elsewhere);
    } else {
      elsewhere = true;
    }
  }
}

// PoCL 3.1 treats every addrspace(3) global of a module that has `!spirv.Source` as an
// automatic local of every kernel (pocl::isAutomaticLocal). Without the metadata it
// recognises kernel K's locals by the name "K.<var>", as clang names them. So: name each
// local after the one kernel that uses it and drop the metadata; if some local cannot be
// attributed to exactly one kernel, keep the metadata (PoCL's behaviour: correct, just
// more local memory).
void attributeLocals(llvm::Module &m) {
  std::vector<std::pair<llvm::GlobalVariable *, const llvm::Function *>> renames;
  std::vector<llvm::GlobalVariable *> unused;
  bool ambiguous = false;
  for (llvm::GlobalVariable &gv : m.globals()) {
    if (gv.getAddressSpace() != kLocalAddressSpace || gv.isConstant()) continue;
    llvm::SmallPtrSet<const llvm::Function *, 4> fns;
    bool elsewhere = false;
    usingFunctions(&gv, fns, elsewhere);
    if (fns.empty() && !elsewhere) {
      if (gv.hasLocalLinkage()) unused.push_back(&gv);
      continue;
    }
    if (elsewhere || fns.size() != 1 || !isKernel(**fns.begin())) {
      ambiguous = true;
      continue;
    }
    renames.emplace_back(&gv, *fns.begin());
  }
  if (ambiguous) return;
  for (llvm::GlobalVariable *gv : unused) gv->eraseFromParent();
  for (auto &[gv, kernel] : renames) {
    std::string prefix = kernel->getName().str() + ".";
    std::string name = gv->getName().str();
    if (name.compare(0, prefix.size(), prefix) == 0) continue;
    gv->setName(prefix + (name.empty() ? std::string("local") : name));
  }
  if (llvm::NamedMDNode *source = m.getNamedMetadata("spirv.Source"))
    m.eraseNamedMetadata(source);
}

// kernel_arg_name metadata from the arguments' names (present when the SPIR-V has
// OpName for them, e.g. clang -cl-kernel-arg-info), so that clGetKernelArgInfo answers.
void addArgNames(llvm::Module &m) {
  llvm::LLVMContext &ctx = m.getContext();
  for (llvm::Function &f : m.functions()) {
    if (!isKernel(f) || f.isDeclaration() || f.getMetadata("kernel_arg_name")) continue;
    if (f.arg_empty()) continue;
    std::vector<llvm::Metadata *> names;
    for (llvm::Argument &a : f.args()) {
      if (!a.hasName()) break;
      names.push_back(llvm::MDString::get(ctx, a.getName()));
    }
    if (names.size() != f.arg_size()) continue;
    f.setMetadata("kernel_arg_name", llvm::MDNode::get(ctx, names));
  }
}

// clang turns a*b+c into llvm.fmuladd (FP_CONTRACT is on by default in OpenCL C) and the
// SPIR-V writer turns fmuladd into OpenCL.std `mad`, which comes back as a call to mad().
// PoCL implements mad() unfused, while from source the same fmuladd is fused wherever the
// CPU has FMA: run every mad as llvm.fmuladd, as the source program does. (A kernel that
// calls mad() explicitly then gets the fused result from SPIR-V and PoCL's unfused one
// from source; mad's rounding is implementation-defined, so both are correct.)
// For SPIR-V written back (releases that read SPIR-V themselves) the mad becomes
// llvm.fma instead, which the writer keeps as OpenCL.std `fma`: fused, as fmuladd is
// from source on a CPU with FMA.
void madToFused(llvm::Module &m, llvm::Intrinsic::ID fused_op) {
  std::vector<llvm::CallInst *> calls;
  for (llvm::Function &f : m.functions()) {
    if (!f.isDeclaration() || f.getName().find("_Z3mad") != 0) continue;
    llvm::Type *ty = f.getReturnType();
    if (!ty->isFPOrFPVectorTy() || f.arg_size() != 3) continue;
    bool same = true;
    for (llvm::Argument &a : f.args()) same = same && a.getType() == ty;
    if (!same) continue;
    for (llvm::User *u : f.users())
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(u))
        if (call->getCalledFunction() == &f) calls.push_back(call);
  }
  for (llvm::CallInst *call : calls) {
    llvm::IRBuilder<> b(call);
    llvm::Value *fused = b.CreateIntrinsic(fused_op, {call->getType()},
                                           {call->getArgOperand(0), call->getArgOperand(1),
                                            call->getArgOperand(2)});
    call->replaceAllUsesWith(fused);
    call->eraseFromParent();
  }
}

// Native programs: the prelude (include/hostkernel/kernel.h) reads the variant from the
// constant `hk_checked_variant_` (volatile, so that the front end leaves the reads alone).
// Every read becomes the constant itself, so PoCL's optimiser folds hk_in_bounds() as it
// does for the source variants built with -DHK_CHECKED. A module without the constant
// (compiled without the prelude, or with a fixed HK_CHECKED) has only one variant: fine
// for the checked translation, an error for the unchecked one.
bool setCheckedVariant(llvm::Module &m, int checked, std::string &error) {
  llvm::GlobalVariable *gv = m.getGlobalVariable("hk_checked_variant_", true);
  if (!gv || !gv->getValueType()->isIntegerTy()) {
    if (checked == 0) error = "native SPIR-V without hk_checked_variant_ (not compiled with hostkernel/kernel.h?): no unchecked variant";
    return checked != 0;
  }
  llvm::Constant *value = llvm::ConstantInt::get(gv->getValueType(), checked ? 1 : 0);
  gv->setInitializer(value);
  gv->setConstant(true);
  std::vector<llvm::LoadInst *> loads;
  for (llvm::User *u : gv->users())
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(u)) loads.push_back(load);
  for (llvm::LoadInst *load : loads) {
    load->replaceAllUsesWith(value);
    load->eraseFromParent();
  }
  return true;
}

void writeStderr(const char *text) {
  (void)!write(STDERR_FILENO, text, std::strlen(text));
}

void childFatalError(void *, const char *reason, bool) {
  writeStderr("LLVM ERROR: ");
  writeStderr(reason);
  writeStderr("\n");
  _exit(kChildExitFatal);
}

void childOutOfMemory(void *, const char *, bool) {
  writeStderr("out of memory\n");
  _exit(kChildExitOutOfMemory);
}

}  // namespace

void installChildErrorHandlers() {
  llvm::remove_fatal_error_handler();
  llvm::install_fatal_error_handler(childFatalError, nullptr);
  llvm::remove_bad_alloc_error_handler();
  llvm::install_bad_alloc_error_handler(childOutOfMemory, nullptr);
}

bool translateSpirvWithLlvm(std::span<const std::uint8_t> spirv,
                            std::vector<std::uint8_t> &bitcode, std::string &error,
                            int native_checked, bool output_spirv) {
  llvm::LLVMContext ctx;
#if LLVM_VERSION_MAJOR < 17
  ctx.setOpaquePointers(false);  // LLVMSPIRVLib 15 asserts with opaque pointers
#endif
  std::istringstream stream(
      std::string(reinterpret_cast<const char *>(spirv.data()), spirv.size()));
  SPIRV::TranslatorOpts opts;
  opts.enableAllExtensions();  // as llvm::readSpirv's short form does: accept what it knows
  llvm::Module *raw = nullptr;
  std::string message;
  if (!llvm::readSpirv(ctx, opts, stream, raw, message)) {
    delete raw;
    error = "SPIR-V translation failed: " + (message.empty() ? std::string("unknown error") : message);
    return false;
  }
  std::unique_ptr<llvm::Module> m(raw);

#if LLVM_VERSION_MAJOR >= 21
  const std::string triple = m->getTargetTriple().str();  // a Triple from LLVM 21
#else
  const std::string triple = m->getTargetTriple();
#endif
  if (!triple.empty() && triple.compare(0, 6, "spir64") != 0) {
    error = "SPIR-V translated to an unexpected target '" + triple + "' (expected spir64)";
    return false;
  }
  if (!output_spirv) {
#if LLVM_VERSION_MAJOR >= 21
    m->setTargetTriple(llvm::Triple(kSpirTriple));
#else
    m->setTargetTriple(kSpirTriple);
#endif
    attributeLocals(*m);
    addArgNames(*m);
  }
  madToFused(*m, output_spirv ? llvm::Intrinsic::fma : llvm::Intrinsic::fmuladd);
  if (native_checked >= 0 && !setCheckedVariant(*m, native_checked, error)) return false;

  std::string problems;
  llvm::raw_string_ostream verify_out(problems);
  if (llvm::verifyModule(*m, &verify_out)) {
    verify_out.flush();
    if (problems.size() > 2000) problems.resize(2000);
    error = "SPIR-V translated to invalid LLVM IR: " + problems;
    return false;
  }

  if (output_spirv) {
    // PoCL's own SPIR-V reader (7.1: lib/CL/devices/spirv_parser.cc) knows no untyped
    // pointer types and asserts on a kernel whose parameters use them; LLVMSPIRVLib 21
    // writes them whenever the extension is allowed.
#if LLVM_VERSION_MAJOR >= 21
    opts.setAllowedToUseExtension(SPIRV::ExtensionID::SPV_KHR_untyped_pointers, false);
#endif
    std::ostringstream spirv_out;
    if (!llvm::writeSpirv(m.get(), opts, spirv_out, message)) {
      error = "SPIR-V writing failed: " + message;
      return false;
    }
    const std::string bytes = spirv_out.str();
    bitcode.assign(bytes.begin(), bytes.end());
    return true;
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream out(buffer);
  llvm::WriteBitcodeToFile(*m, out);
  bitcode.assign(buffer.begin(), buffer.end());
  return true;
}

}  // namespace hk::program::detail
