#include "layer/restore_layers.hpp"

#include <cstdlib>
#include <cstring>

namespace hk::layer {

void restoreOpenclLayers() {
  const char *wanted = std::getenv("HOSTKERNEL_OPENCL_LAYERS");
  const char *current = std::getenv("OPENCL_LAYERS");
  // Only the loader's cut is undone: the program may have set OPENCL_LAYERS on purpose,
  // and an absent variable would make setenv grow the environment under other threads'
  // getenv (replacing an existing entry only swaps one pointer).
  if (!wanted || !current) return;
  const std::size_t n = std::strlen(current);
  if (n == 0 || std::strncmp(wanted, current, n) != 0 || wanted[n] != ':') return;
  setenv("OPENCL_LAYERS", wanted, 1);
}

}  // namespace hk::layer
