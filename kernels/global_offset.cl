// Global offsets: each work-item records its id and the offset, indexed from 0.
kernel void global_offset(global uint *out)
{
    uint dim = get_work_dim();
    size_t ix = get_global_id(0) - get_global_offset(0);
    size_t iy = get_global_id(1) - get_global_offset(1);
    size_t iz = get_global_id(2) - get_global_offset(2);
    size_t idx = (iz * get_global_size(1) + iy) * get_global_size(0) + ix;
    global uint *o = out + 4 * idx;
    o[0] = (uint)get_global_id(0) * 7 + (uint)get_global_offset(0);
    o[1] = (uint)get_global_id(1) * 7 + (uint)get_global_offset(1);
    o[2] = (uint)get_global_id(2) * 7 + (uint)get_global_offset(2);
    o[3] = dim;
}
