// A kernel with reqd_work_group_size(8,4,1): the launch must use exactly 8x4.
__attribute__((reqd_work_group_size(8, 4, 1)))
kernel void reqd_wg_size(global uint *out)
{
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    out[y * get_global_size(0) + x] = (uint)get_local_id(0) | ((uint)get_local_id(1) << 8)
                                    | ((uint)get_local_size(0) << 16)
                                    | ((uint)get_local_size(1) << 24);
}
