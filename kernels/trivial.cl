// The smallest possible kernel: each work-item writes its global id.
// Used by the launch-latency benchmark with a single work-item.
kernel void trivial(global int *out)
{
    size_t gid = get_global_id(0);
    out[gid] = (int)gid;
}

// Does nothing: on many work-items, what a launch costs apart from any work
// (launch/team-empty). Its argument list is trivial()'s, so both are set up alike.
kernel void empty(global int *out)
{
}
