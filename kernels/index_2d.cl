// 2-D indexing: out[y][x] = x + 10000 * y, row length = global size in x.
// Offset-agnostic: the element index is the global id minus the global offset.
kernel void index_2d(global int *out)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t ix = x - get_global_offset(0), iy = y - get_global_offset(1);
    out[iy * get_global_size(0) + ix] = (int)(x + 10000 * y);
}
