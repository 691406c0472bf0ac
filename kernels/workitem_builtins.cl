// Writes every work-item builtin for every work-item (catches wrong launch contexts).
// global_info: work_dim, global id[3], global size[3], global offset[3]   (10 uints)
// local_info:  local id[3], group id[3], num groups[3], local size[3]      (12 uints)
kernel void workitem_builtins(global uint *global_info, global uint *local_info)
{
    size_t idx = 0;
    for (int d = 2; d >= 0; --d)
        idx = idx * get_global_size(d) + (get_global_id(d) - get_global_offset(d));
    global uint *g = global_info + 10 * idx;
    global uint *l = local_info + 12 * idx;
    g[0] = get_work_dim();
    for (uint d = 0; d < 3; ++d) {
        g[1 + d] = (uint)get_global_id(d);
        g[4 + d] = (uint)get_global_size(d);
        g[7 + d] = (uint)get_global_offset(d);
        l[0 + d] = (uint)get_local_id(d);
        l[3 + d] = (uint)get_group_id(d);
        l[6 + d] = (uint)get_num_groups(d);
        l[9 + d] = (uint)get_local_size(d);
    }
}
