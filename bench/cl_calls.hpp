// The OpenCL entry points of a path, as static functions of one struct per path, so that
// code written once (a template over the struct) runs the same commands both ways:
//
//   HkCalls  the hk* functions: what a program compiled with -include hostkernel/replace.h
//            calls (every function of entries.def mapped, the rest left as cl*)
//   ClCalls  the cl* functions through the ICD loader: PoCL alone, or the OpenCL layer
//            when OPENCL_LAYERS names it
//
//   template <class Api> void step(cl_command_queue q, cl_kernel k, const size_t *g) {
//     Api::EnqueueNDRangeKernel(q, k, 1, nullptr, g, nullptr, 0, nullptr, nullptr);
//     Api::Finish(q);
//   }
//
// Both structs are written from entries.def, the list replace.h and the layer are made
// from, so a function hostkernel starts to replace is replaced here too.
#pragma once

#include <hostkernel/hostkernel.h>

namespace hkbench {

// Functions hostkernel does not replace: the same cl* function on both paths, as in a
// program built with replace.h. A struct below hides one of these if entries.def gains it.
struct UnreplacedCalls {
  static void *SVMAlloc(cl_context context, cl_svm_mem_flags flags, size_t size,
                        cl_uint alignment) {
    return clSVMAlloc(context, flags, size, alignment);
  }
  static void SVMFree(cl_context context, void *ptr) { clSVMFree(context, ptr); }
};

struct HkCalls : UnreplacedCalls {
  static constexpr const char *kName = "hostkernel";
  static constexpr bool kCounts = true;  // hkGetKernelLaunchCounts knows its kernels
#define HK_ENTRY(ret, name, params, args) \
  static ret name params { return hk##name args; }
#include <hostkernel/entries.def>
};

// entries.def lists OpenCL 1.x functions that <CL/cl.h> marks deprecated at version 3.0;
// calling them is what the list is for.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct ClCalls : UnreplacedCalls {
  static constexpr const char *kName = "queue";
  static constexpr bool kCounts = false;
#define HK_ENTRY(ret, name, params, args) \
  static ret name params { return cl##name args; }
#include <hostkernel/entries.def>
};
#pragma GCC diagnostic pop

}  // namespace hkbench
