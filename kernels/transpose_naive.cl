// Matrix transpose straight through global memory: each work-item reads in[y][x] (along
// rows) and writes out[x][y] (a stride of `height` floats between neighbours). The
// baseline for transpose_tiled.cl; any 2-D local size works.
kernel void transpose_naive(global const float *in, global float *out, uint width, uint height)
{
    uint x = get_global_id(0), y = get_global_id(1);
    out[x * height + y] = in[y * width + x];
}
