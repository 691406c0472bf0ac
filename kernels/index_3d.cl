// 3-D indexing: out[z][y][x] = x + 100 * y + 10000 * z (+ 1000000 so zero means "not written").
kernel void index_3d(global int *out)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t ix = x - get_global_offset(0);
    size_t iy = y - get_global_offset(1);
    size_t iz = z - get_global_offset(2);
    size_t nx = get_global_size(0), ny = get_global_size(1);
    out[(iz * ny + iy) * nx + ix] = (int)(1000000 + x + 100 * y + 10000 * z);
}
