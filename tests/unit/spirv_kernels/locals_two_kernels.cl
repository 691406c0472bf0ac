// Two kernels, one with a kernel-scope __local array: after translation from SPIR-V the
// array must belong to `with_tile` only (PoCL would otherwise give it to every kernel).
kernel void with_tile(global const float *in, global float *out)
{
    local float tile[256];
    uint lid = get_local_id(0), n = get_local_size(0);
    tile[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[n - 1 - lid];
}

kernel void without_locals(global const float *in, global float *out)
{
    out[get_global_id(0)] = in[get_global_id(0)] * 2.0f;
}
