// Inclusive prefix sum per work-group (Hillis-Steele): barriers inside a loop.
kernel void scan_local(global const int *in, global int *out, local int *buf)
{
    uint lid = get_local_id(0), n = get_local_size(0);
    buf[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < n; off <<= 1) {
        int v = (lid >= off) ? buf[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        buf[lid] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = buf[lid];
}
