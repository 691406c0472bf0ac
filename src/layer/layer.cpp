// libhostkernel-layer.so: hostkernel as an OpenCL layer (ocl-icd 2.3.1, OPENCL_LAYERS).
//
//   OPENCL_LAYERS=/path/to/libhostkernel-layer.so ./unmodified-opencl-program
//
// The loader calls clGetLayerInfo and clInitLayer (the only two exported symbols: see
// layer.map) when it initialises, with `target`, the table of what lies below this layer
// (the loader's trampolines, or the next layer). hostkernel's calls into OpenCL are sent
// there (hk::setNextDispatch), and the table returned to the loader is a copy of `target`
// in which the functions hostkernel must see are replaced by the hk* functions: those of
// include/hostkernel/entries.def, the list replace.h is written from. Everything else
// passes through untouched.
//
// The layer also answers clGetExtensionFunctionAddress[ForPlatform] for the names of
// hostkernel's introspection functions (hkGetKernelLaunchInfo, hkGetKernelLaunchCounts,
// hkReasonString, hkPrintReport, hkGetCommandCounts) and for hkGetPoclDevice, so that a program can find the
// device and ask where its launches went without linking hostkernel; for every other
// name the call is forwarded.
//
// Under hostkernel-run, clInitLayer also restores OPENCL_LAYERS, which the loader cuts to
// its first element, so that child processes load the same layers (restore_layers.hpp).
#include <CL/cl_layer.h>
#include <hostkernel/hostkernel.h>

#include <algorithm>
#include <cstring>

#include "base/next.hpp"
#include "layer/restore_layers.hpp"

namespace {

constexpr cl_uint kEntries = sizeof(cl_icd_dispatch) / sizeof(void *);

// What lies below the layer: the first num_entries entries of the loader's `target`, the
// rest null (a loader built against older headers has a shorter table).
cl_icd_dispatch g_target;
// What the loader calls.
cl_icd_dispatch g_layer;

// hostkernel's introspection functions and device lookup, for programs that do not link
// hostkernel.
void *extensionFunction(const char *name) {
  if (!name) return nullptr;
  static const struct {
    const char *name;
    void *function;
  } kExtensions[] = {
      {"hkGetKernelLaunchInfo", reinterpret_cast<void *>(&hkGetKernelLaunchInfo)},
      {"hkGetKernelLaunchCounts", reinterpret_cast<void *>(&hkGetKernelLaunchCounts)},
      {"hkReasonString", reinterpret_cast<void *>(&hkReasonString)},
      {"hkPrintReport", reinterpret_cast<void *>(&hkPrintReport)},
      {"hkGetCommandCounts", reinterpret_cast<void *>(&hkGetCommandCounts)},
      {"hkGetPoclDevice", reinterpret_cast<void *>(&hkGetPoclDevice)},
  };
  for (const auto &e : kExtensions)
    if (!std::strcmp(name, e.name)) return e.function;
  return nullptr;
}

void *CL_API_CALL layerGetExtensionFunctionAddress(const char *name) {
  if (void *f = extensionFunction(name)) return f;
  return g_target.clGetExtensionFunctionAddress ? g_target.clGetExtensionFunctionAddress(name)
                                                : nullptr;
}

void *CL_API_CALL layerGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                              const char *name) {
  if (void *f = extensionFunction(name)) return f;
  return g_target.clGetExtensionFunctionAddressForPlatform
             ? g_target.clGetExtensionFunctionAddressForPlatform(platform, name)
             : nullptr;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL
clGetLayerInfo(cl_layer_info param_name, size_t param_value_size, void *param_value,
               size_t *param_value_size_ret) {
  static const char kName[] = "hostkernel";
  const void *src = nullptr;
  size_t size = 0;
  cl_layer_api_version version = CL_LAYER_API_VERSION_100;
  switch (param_name) {
    case CL_LAYER_API_VERSION:
      src = &version;
      size = sizeof version;
      break;
    case CL_LAYER_NAME:
      src = kName;
      size = sizeof kName;
      break;
    default:
      return CL_INVALID_VALUE;
  }
  if (param_value) {
    if (param_value_size < size) return CL_INVALID_VALUE;
    std::memcpy(param_value, src, size);
  }
  if (param_value_size_ret) *param_value_size_ret = size;
  return CL_SUCCESS;
}

__attribute__((visibility("default"))) CL_API_ENTRY cl_int CL_API_CALL
clInitLayer(cl_uint num_entries, const cl_icd_dispatch *target_dispatch,
            cl_uint *num_entries_ret, const cl_icd_dispatch **layer_dispatch_ret) {
  if (!target_dispatch || !num_entries_ret || !layer_dispatch_ret) return CL_INVALID_VALUE;
  const cl_uint n = std::min(num_entries, kEntries);
  g_target = cl_icd_dispatch{};
  std::memcpy(&g_target, target_dispatch, n * sizeof(void *));
  hk::setNextDispatch(&g_target);

  g_layer = g_target;
  // The functions of entries.def, the list replace.h is written from.
#define HK_ENTRY(ret, name, params, args) g_layer.cl##name = &hk##name;
#include <hostkernel/entries.def>
  g_layer.clGetExtensionFunctionAddress = &layerGetExtensionFunctionAddress;
  g_layer.clGetExtensionFunctionAddressForPlatform =
      &layerGetExtensionFunctionAddressForPlatform;

  hk::layer::restoreOpenclLayers();
  *num_entries_ret = n;
  *layer_dispatch_ret = &g_layer;
  return CL_SUCCESS;
}

}  // extern "C"
