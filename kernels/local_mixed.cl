// Two __local argument buffers plus one automatic local array: checks that every local
// region gets its own storage. Local size at most 64.
kernel void local_mixed(global int *out, local int *a, local int *b)
{
    local int c[64];
    uint lid = get_local_id(0), n = get_local_size(0);
    a[lid] = (int)lid + 1;
    b[lid] = 1000 * ((int)lid + 1);
    c[lid] = 1000000 * ((int)lid + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = a[(lid + 1) % n] + b[(lid + 2) % n] + c[(lid + 3) % n];
}
