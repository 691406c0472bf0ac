// A private array that must survive a barrier: each work-item fills priv[8], publishes
// one element to local memory, waits, then combines its own array with its neighbours'.
// Local size at most 256.
kernel void private_across_barrier(global const float *in, global float *out)
{
    local float shared[256];
    float priv[8];
    size_t gid = get_global_id(0);
    uint lid = get_local_id(0), n = get_local_size(0);
    for (int k = 0; k < 8; ++k)
        priv[k] = in[gid * 8 + k] * (float)(k + 1) + (float)lid;
    shared[lid] = priv[lid & 7];                 // dynamic index: priv lives in memory
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (uint k = 0; k < 8; ++k)
        acc += priv[k] * shared[(lid + k) % n];
    out[gid] = acc;
}
