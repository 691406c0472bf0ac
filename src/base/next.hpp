// The OpenCL implementation below hostkernel. Every call into OpenCL goes through this
// table so that the same code serves the linked library (the ICD loader's exported
// functions) and the OpenCL layer (the loader's target table given to clInitLayer).
//
//   cl_int err = hk::next().clFinish(queue);
#pragma once

#include <CL/cl_icd.h>

namespace hk {

namespace detail {
extern const cl_icd_dispatch *g_next;
}

inline const cl_icd_dispatch &next() { return *detail::g_next; }

// Used by the layer: route calls to `table` instead of the ICD loader's exports.
void setNextDispatch(const cl_icd_dispatch *table);

}  // namespace hk
