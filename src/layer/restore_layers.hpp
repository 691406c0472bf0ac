// OPENCL_LAYERS for child processes. ocl-icd 2.3.1 splits OPENCL_LAYERS in place at each
// ':' while it loads the layers (it writes '\0' into the environment's own string), so
// afterwards the process's environment, and every child's, holds only the first layer.
// hostkernel-run sets HOSTKERNEL_OPENCL_LAYERS to the same list; restoreOpenclLayers()
// puts the whole list back into OPENCL_LAYERS when it finds exactly that cut.
#pragma once

namespace hk::layer {

// Called from clInitLayer, while the loader is still walking its (cut) copy: setenv
// stores a new string and leaves the loader's old one untouched.
void restoreOpenclLayers();

}  // namespace hk::layer
