// printf from every third work-item, with the common conversions.
kernel void printf_lines(global const int *vals, global const float *fvals)
{
    size_t gid = get_global_id(0);
    if (gid % 3 != 0)
        return;
    printf("item %u group %u: int=%d hex=0x%08x float=%.4f sci=%e long=%ld str=%s chr=%c 100%%\n",
           (uint)gid, (uint)get_group_id(0), vals[gid], vals[gid], fvals[gid],
           fvals[gid] * 1e6f, (long)vals[gid] * 1000000007L,
           (gid & 1) ? "odd" : "even", (char)('A' + gid % 26));
}
