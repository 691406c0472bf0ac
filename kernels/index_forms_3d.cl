// The same 3-D element-wise update written two ways, for the indexing benchmarks:
//   out[z][y][x] = 2 * in[z][y][x] + 3x + 5y + 7z
// index_linear3d runs on a 1-D grid of nx*ny*nz work-items and recovers (x, y, z) with
// division and remainder by the runtime sizes; index_cartesian3d runs on a 3-D grid and
// reads them from get_global_id(0..2). Both write every element of `out` exactly once.
kernel void index_linear3d(global const int *in, global int *out, uint nx, uint ny)
{
    size_t i = get_global_id(0);
    uint x = (uint)(i % nx);
    uint y = (uint)((i / nx) % ny);
    uint z = (uint)(i / ((size_t)nx * ny));
    out[i] = in[i] * 2 + (int)(x * 3 + y * 5 + z * 7);
}

kernel void index_cartesian3d(global const int *in, global int *out)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t nx = get_global_size(0), ny = get_global_size(1);
    size_t i = (z * ny + y) * nx + x;
    out[i] = in[i] * 2 + (int)(x * 3 + y * 5 + z * 7);
}
