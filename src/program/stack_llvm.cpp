// The stack estimate's bitcode reader: walks the kernel and the functions it calls in the
// program's LLVM bitcode and adds up what PoCL's work-item loops keep per work-item. The
// same walk finds whether the kernel's work-items can tell which work-group they are in
// (StackEstimate::group_free).
// Includes LLVM headers, so it is compiled with LLVM's flags (src/CMakeLists.txt).
//
// The bitcode is PoCL's own (`program.bc` of the poclbinary, written by the same LLVM 15
// that reads it here), read lazily: only the functions reachable from the kernel.
#include <llvm/ADT/DenseMap.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <map>
#include <string_view>
#include <vector>

#include "base/exit_guard.hpp"
#include "pocl/compiler_names.hpp"
#include "program/stack_estimate.hpp"

namespace hk::program {
namespace {

// Margins over what the bitcode gives (docs/stack.md: measured use is below the
// estimate for every corpus kernel).
constexpr std::uint64_t kBaseBytes = 64 * 1024;   // frame, spills, libm, PoCL's prologue
constexpr std::uint64_t kPerItemSlack = 64;       // loop state PoCL keeps per work-item
constexpr unsigned kMaxCallDepth = 64;            // OpenCL C has no recursion

struct Cost {
  std::uint64_t private_bytes = 0;  // allocas and PHI nodes, per work-item
  std::uint64_t context_bytes = 0;  // values that may cross a barrier, per work-item
  bool barrier = false;             // reaches a barrier
  bool unknown = false;             // a private array of run-time size
  bool groups = false;              // may observe its work-group (StackEstimate::group_free)
};

std::uint64_t roundUp(std::uint64_t v, std::uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

bool isBarrierName(llvm::StringRef name) {
  // barrier(), work_group_barrier() (mangled) and PoCL's own pocl.barrier.
  return name.contains("barrier");
}

// Builtins whose results do not depend on how the ndrange is cut into work-groups. Their
// bodies (PoCL's library) read the group id and local size, so the walk does not look
// inside them.
bool isGroupFreeBuiltin(llvm::StringRef name) {
  return name == "_Z13get_global_idj" || name == "_Z15get_global_sizej" ||
         name == "_Z17get_global_offsetj" || name == "_Z12get_work_dimv" ||
         name == "_Z20get_global_linear_idv";
}

// Calls that observe the group or share data within it: local and group ids and sizes,
// barriers, work-group and sub-group functions, async copies, and printf (whose buffer
// PoCL hands out per group). PoCL's own names for them included.
bool isGroupBuiltin(llvm::StringRef name) {
  for (const char *part : {"get_local", "get_group", "get_num_groups", "get_enqueued",
                           "barrier", "work_group", "sub_group", "async_", "wait_group",
                           "mem_fence", "printf"})
    if (name.contains(part)) return true;
  return pocl::isWorkGroupStateName(std::string_view(name.data(), name.size()));
}

// A global the kernel may write or that PoCL sets per group: `local` variables of kernel
// scope, PoCL's work-group variables (pocl/compiler_names.hpp). Constant tables (libm's)
// are fine.
bool refersToMutableGlobal(const llvm::Value *v, unsigned depth = 0) {
  if (const auto *g = llvm::dyn_cast<llvm::GlobalVariable>(v)) return !g->isConstant();
  if (const auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(v); ce && depth < 8)
    for (const llvm::Use &op : ce->operands())
      if (refersToMutableGlobal(op.get(), depth + 1)) return true;
  return false;
}

class Walker {
 public:
  explicit Walker(const llvm::DataLayout &dl) : dl_(dl) {}

  // The cost of `f` with every callee inlined (as PoCL inlines them), memoised per
  // function; `depth` counts the calls that led here (past kMaxCallDepth: unknown).
  llvm::Error cost(llvm::Function &f, unsigned depth, Cost &out) {
    if (auto it = memo_.find(&f); it != memo_.end()) {
      out = it->second;
      return llvm::Error::success();
    }
    if (depth > kMaxCallDepth) {
      out.unknown = out.groups = true;
      return llvm::Error::success();
    }
    if (llvm::Error e = f.materialize()) return e;
    Cost c;
    BarrierCalls barrier_calls;
    if (llvm::Error e = scanInstructions(f, depth, c, barrier_calls)) return e;
    c.context_bytes += contextBytes(f, barrier_calls);
    memo_[&f] = c;
    out = c;
    return llvm::Error::success();
  }

 private:
  // The calls of a function that reach a barrier.
  using BarrierCalls = llvm::DenseMap<const llvm::Instruction *, bool>;

  // Pass 1 of cost(): callees, allocas and PHIs; which calls reach a barrier.
  llvm::Error scanInstructions(llvm::Function &f, unsigned depth, Cost &c,
                               BarrierCalls &barrier_calls) {
    for (llvm::BasicBlock &bb : f) {
      for (llvm::Instruction &inst : bb) {
        for (const llvm::Use &op : inst.operands())
          if (!llvm::isa<llvm::Function>(op.get()) && refersToMutableGlobal(op.get()))
            c.groups = true;
        if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
          auto *count = llvm::dyn_cast<llvm::ConstantInt>(a->getArraySize());
          if (!count) {
            c.unknown = true;
            continue;
          }
          std::uint64_t bytes = dl_.getTypeAllocSize(a->getAllocatedType()).getFixedValue() *
                                count->getZExtValue();
          // PoCL pads a privatized alloca to its alignment.
          c.private_bytes += roundUp(bytes, a->getAlign().value());
        } else if (llvm::isa<llvm::PHINode>(&inst)) {
          // PoCL turns PHI nodes into allocas before its work-item loops.
          c.private_bytes += dl_.getTypeAllocSize(inst.getType()).getFixedValue();
        } else if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
          bool reaches_barrier = false;
          if (llvm::Error e = costCall(*call, depth, c, reaches_barrier)) return e;
          if (reaches_barrier) {
            barrier_calls[&inst] = true;
            c.barrier = true;
          }
        }
      }
    }
    return llvm::Error::success();
  }

  // A call's share of its caller's cost `c`; `reaches_barrier` when the callee is a
  // barrier or calls one.
  llvm::Error costCall(llvm::CallBase &call, unsigned depth, Cost &c, bool &reaches_barrier) {
    llvm::Function *callee = call.getCalledFunction();
    if (!callee) {  // indirect (OpenCL C has none) or inline assembly
      c.groups = true;
      return llvm::Error::success();
    }
    const llvm::StringRef name = callee->getName();
    reaches_barrier = isBarrierName(name);
    const bool group_free_builtin = isGroupFreeBuiltin(name);
    if (!group_free_builtin && isGroupBuiltin(name)) c.groups = true;
    if (!callee->isDeclaration() || callee->isMaterializable()) {
      // PoCL inlines every call into the kernel: count the callee once per call site.
      Cost cc;
      if (llvm::Error e = cost(*callee, depth + 1, cc)) return e;
      c.private_bytes += cc.private_bytes;
      c.context_bytes += cc.context_bytes;
      c.unknown |= cc.unknown;
      if (!group_free_builtin) c.groups |= cc.groups;
      reaches_barrier |= cc.barrier;
    } else if (!callee->isIntrinsic() && !group_free_builtin) {
      c.groups = true;  // a function this module does not define: unknown
    }
    return llvm::Error::success();
  }

  // Pass 2 of cost(): the bytes of values that may be live across a barrier, should the
  // kernel have one. PoCL's parallel regions are made of whole basic blocks split at
  // barriers, so a value is context-saved only if it is used in another block or after a
  // barrier in its own.
  std::uint64_t contextBytes(llvm::Function &f, const BarrierCalls &barrier_calls) {
    std::uint64_t bytes = 0;
    for (llvm::BasicBlock &bb : f) {
      llvm::DenseMap<const llvm::Instruction *, unsigned> epoch;
      unsigned barriers_seen = 0;
      for (llvm::Instruction &inst : bb) {
        epoch[&inst] = barriers_seen;
        if (barrier_calls.count(&inst)) ++barriers_seen;
      }
      for (llvm::Instruction &inst : bb) {
        if (inst.getType()->isVoidTy() || llvm::isa<llvm::AllocaInst>(&inst) ||
            llvm::isa<llvm::PHINode>(&inst))
          continue;
        bool crosses = false;
        for (const llvm::User *u : inst.users()) {
          const auto *ui = llvm::dyn_cast<llvm::Instruction>(u);
          if (!ui) continue;
          if (ui->getParent() != &bb || llvm::isa<llvm::PHINode>(ui) ||
              epoch.lookup(ui) != epoch.lookup(&inst)) {
            crosses = true;
            break;
          }
        }
        if (crosses && inst.getType()->isSized())
          bytes += dl_.getTypeAllocSize(inst.getType()).getFixedValue();
      }
    }
    return bytes;
  }

  const llvm::DataLayout &dl_;
  std::map<const llvm::Function *, Cost> memo_;
};

// A `local` pointer argument (SPIR address space 3 in the kernel's argument metadata,
// which clang writes for every kernel), or no metadata to tell.
bool hasLocalArgument(const llvm::Function &kernel) {
  const llvm::MDNode *spaces = kernel.getMetadata("kernel_arg_addr_space");
  if (!spaces) return kernel.arg_size() != 0;
  for (const llvm::MDOperand &op : spaces->operands()) {
    const auto *c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(op.get());
    if (!c || c->getZExtValue() == 3) return true;
  }
  return false;
}

}  // namespace

// The argument metadata PoCL reads into its kernel metadata (pocl_llvm_metadata.cc), from
// the materialized kernel `f`.
static void readArgumentMetadata(const llvm::Function &f, StackEstimate &e) {
  const unsigned n = static_cast<unsigned>(f.arg_size());
  const llvm::MDNode *spaces = f.getMetadata("kernel_arg_addr_space");
  const llvm::MDNode *types = f.getMetadata("kernel_arg_type");
  if (spaces && types && spaces->getNumOperands() == n && types->getNumOperands() == n) {
    for (unsigned j = 0; j < n; ++j) {
      const auto *space = llvm::dyn_cast<llvm::ConstantAsMetadata>(spaces->getOperand(j));
      const auto *type = llvm::dyn_cast<llvm::MDString>(types->getOperand(j));
      const auto *value = space ? llvm::dyn_cast<llvm::ConstantInt>(space->getValue()) : nullptr;
      if (!value || !type || value->getZExtValue() > 3) {
        e.arg_address_spaces.clear();
        e.arg_types.clear();
        break;
      }
      e.arg_address_spaces.push_back(static_cast<int>(value->getZExtValue()));
      e.arg_types.push_back(type->getString().str());
    }
  }
  if (const llvm::MDNode *reqd = f.getMetadata("reqd_work_group_size");
      reqd && reqd->getNumOperands() == 3)
    for (unsigned d = 0; d < 3; ++d)
      if (const auto *m = llvm::dyn_cast<llvm::ConstantAsMetadata>(reqd->getOperand(d)))
        if (const auto *v = llvm::dyn_cast<llvm::ConstantInt>(m->getValue()))
          e.reqd_wg_size[d] = v->getZExtValue();
}

StackModel unknownStackModel() {
  StackModel m;
  m.base_bytes = kBaseBytes;
  m.per_item_bytes = 16 * 1024;  // a 4096-float private array per work-item
  return m;
}

bool estimateKernelStack(std::span<const std::uint8_t> program_bc, const std::string &kernel,
                         StackModel &model, std::string &error) {
  std::vector<StackEstimate> one;
  estimateKernelStacks(program_bc, {kernel}, one);
  model = one[0].model;
  error = one[0].error;
  return one[0].ok;
}

void estimateKernelStacks(std::span<const std::uint8_t> program_bc,
                          const std::vector<std::string> &kernels,
                          std::vector<StackEstimate> &out) {
  out.assign(kernels.size(), StackEstimate{});
  for (StackEstimate &e : out) e.model = unknownStackModel();
  auto fail_all = [&](const std::string &why) {
    for (StackEstimate &e : out) e.error = why;
  };
  // LLVM's static destructors run at exit: no bitcode is read once exit has begun.
  CompileSlot slot;
  if (!slot) {
    fail_all("the process is exiting");
    return;
  }
  // Reading the module (its globals and constants, even lazily) is most of the cost: once
  // for all kernels.
  llvm::LLVMContext ctx;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(program_bc.data()), program_bc.size()),
      "program.bc", /*RequiresNullTerminator=*/false);
  auto module = llvm::getLazyBitcodeModule(buffer->getMemBufferRef(), ctx,
                                           /*ShouldLazyLoadMetadata=*/true);
  if (!module) {
    fail_all("program.bc: " + llvm::toString(module.takeError()));
    return;
  }
  Walker walker((*module)->getDataLayout());
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    StackEstimate &e = out[i];
    llvm::Function *f = (*module)->getFunction(kernels[i]);
    if (!f) {
      e.error = "program.bc has no function '" + kernels[i] + "'";
      continue;
    }
    for (const llvm::Argument &a : f->args()) {
      e.pointer_args.push_back(a.getType()->isPointerTy() && !a.hasByValAttr());
      llvm::Type *t = a.hasByValAttr() ? a.getParamByValType() : a.getType();
      e.arg_value_sizes.push_back(
          t && t->isSized() && t->isSingleValueType()
              ? static_cast<std::uint32_t>(
                    (*module)->getDataLayout().getTypeAllocSize(t).getFixedValue())
              : 0);
    }
    const std::string local_prefix = kernels[i] + ".";
    e.automatic_locals = false;
    for (const llvm::GlobalVariable &g : (*module)->globals()) {
      const llvm::StringRef n = g.getName();
      if (!g.isConstant() && (g.getAddressSpace() == 3 ||
                              (n.size() >= local_prefix.size() &&
                               n.substr(0, local_prefix.size()) == local_prefix))) {
        e.automatic_locals = true;
        break;
      }
    }
    Cost c;
    if (llvm::Error err = walker.cost(*f, 0, c)) {
      // The module may be half-read: no answer for this kernel or the ones after it.
      const std::string why = "program.bc: " + llvm::toString(std::move(err));
      for (std::size_t j = i; j < kernels.size(); ++j) out[j].error = why;
      return;
    }
    readArgumentMetadata(*f, e);
    if (c.unknown) {
      e.error = "kernel '" + kernels[i] + "' has a private array of run-time size";
      continue;
    }
    e.group_free = !c.groups && !c.barrier && !hasLocalArgument(*f);
    StackModel &m = e.model;
    m.private_bytes = c.private_bytes;
    m.context_bytes = c.barrier ? c.context_bytes : 0;
    m.has_barrier = c.barrier;
    const std::uint64_t p = m.private_bytes + m.context_bytes;
    m.base_bytes = kBaseBytes;
    m.per_item_bytes = p + p / 8 + kPerItemSlack;
    e.ok = true;
  }
}

}  // namespace hk::program
