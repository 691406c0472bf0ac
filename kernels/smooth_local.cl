// 3-point smoothing of n floats through a kernel-scope __local tile:
//   out[i] = 0.25 * in[i-1] + 0.5 * in[i] + 0.25 * in[i+1]   (ends repeat the edge value)
// Neighbours inside the work-group come from the tile, those across its edges from global
// memory, so the result does not depend on the local size (any size up to 4096). Used to
// compare a NULL local size (PoCL's choice) with an explicit one. No FMA contraction.
#pragma OPENCL FP_CONTRACT OFF
kernel void smooth_local(global const float *in, global float *out, uint n)
{
    local float tile[4096];
    size_t gid = get_global_id(0);
    uint lid = get_local_id(0), ls = get_local_size(0);
    float v = in[gid];
    tile[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    float l = lid > 0 ? tile[lid - 1] : (gid > 0 ? in[gid - 1] : v);
    float r = lid + 1 < ls ? tile[lid + 1] : (gid + 1 < n ? in[gid + 1] : v);
    out[gid] = 0.25f * l + 0.5f * v + 0.25f * r;
}
