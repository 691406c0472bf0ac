// One explicit time step of the 2-D heat equation on an nx x ny grid of floats:
//   out = in + r * (in[W] + in[E] + in[N] + in[S] - 4 in)   (5-point stencil)
// Edge cells keep their value (Dirichlet boundary). The host swaps `in` and `out` between
// steps (double buffering). No FMA contraction, so a C++ loop computes the same bits.
#pragma OPENCL FP_CONTRACT OFF
kernel void heat2d_step(global const float *in, global float *out, uint nx, uint ny, float r)
{
    uint x = get_global_id(0), y = get_global_id(1);
    size_t i = (size_t)y * nx + x;
    float c = in[i];
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = c;
        return;
    }
    float lap = (in[i - 1] + in[i + 1]) + (in[i - nx] + in[i + nx]) - 4.0f * c;
    out[i] = c + r * lap;
}
