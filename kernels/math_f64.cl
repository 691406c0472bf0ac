// One double-precision math builtin per element (PoCL implements them with SLEEF).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void sin_f64(global const double *in, global double *out)
{
    size_t i = get_global_id(0);
    out[i] = sin(in[i]);
}

kernel void exp_f64(global const double *in, global double *out)
{
    size_t i = get_global_id(0);
    out[i] = exp(in[i]);
}
