// The smallest possible kernel: each work-item writes its global id.
// Used by the launch-latency benchmark with a single work-item.
kernel void trivial(global int *out)
{
    size_t gid = get_global_id(0);
    out[gid] = (int)gid;
}
