// Matrix transpose through a kernel-scope (automatic) __local tile, padded to avoid
// bank conflicts. Needs a 16x16 local size; width/height are multiples of 16.
#define TILE 16
kernel void transpose_tiled(global const float *in, global float *out, uint width, uint height)
{
    local float tile[TILE][TILE + 1];
    uint lx = get_local_id(0), ly = get_local_id(1);
    uint x = get_group_id(0) * TILE + lx;
    uint y = get_group_id(1) * TILE + ly;
    tile[ly][lx] = in[y * width + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint tx = get_group_id(1) * TILE + lx;   // column in the transposed matrix
    uint ty = get_group_id(0) * TILE + ly;   // row in the transposed matrix
    out[ty * height + tx] = tile[lx][ly];
}
