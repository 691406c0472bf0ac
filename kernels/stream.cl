// STREAM-style bandwidth kernels on floats, one element per work-item:
//   stream_copy:  c[i] = a[i]
//   stream_triad: a[i] = b[i] + s * c[i]
// No FMA contraction, so a plain C++ loop computes the same bits.
#pragma OPENCL FP_CONTRACT OFF
kernel void stream_copy(global const float *a, global float *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i];
}

kernel void stream_triad(global float *a, global const float *b, global const float *c, float s)
{
    size_t i = get_global_id(0);
    a[i] = b[i] + s * c[i];
}
