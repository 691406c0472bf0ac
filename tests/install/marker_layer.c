/* A layer that passes every call through and says, on stderr, that the loader loaded it:
 * the tests list it in OPENCL_LAYERS to see that hostkernel-run keeps a user's layers,
 * in this process and in its children. */
#include <CL/cl_layer.h>

#include <stdio.h>
#include <string.h>

CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret) {
  const cl_layer_api_version version = CL_LAYER_API_VERSION_100;
  if (param_name != CL_LAYER_API_VERSION) return CL_INVALID_VALUE;
  if (param_value) {
    if (param_value_size < sizeof version) return CL_INVALID_VALUE;
    memcpy(param_value, &version, sizeof version);
  }
  if (param_value_size_ret) *param_value_size_ret = sizeof version;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries,
                                            const cl_icd_dispatch *target_dispatch,
                                            cl_uint *num_entries_ret,
                                            const cl_icd_dispatch **layer_dispatch_ret) {
  /* The loader copies the returned table's first entries: the target's own table passes
   * every call on unchanged. */
  *num_entries_ret = num_entries;
  *layer_dispatch_ret = target_dispatch;
  fprintf(stderr, "marker layer: loaded\n");
  return CL_SUCCESS;
}
