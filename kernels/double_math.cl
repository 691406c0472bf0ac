// Double-precision math: sqrt, exp, log, sin, pow, fma, division.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void double_math(global const double *in, global double *out)
{
    size_t i = get_global_id(0);
    double v = in[i];
    global double *o = out + 8 * i;
    o[0] = sqrt(fabs(v));
    o[1] = exp(v * 0.01);
    o[2] = log(fabs(v) + 1.0);
    o[3] = sin(v);
    o[4] = pow(fabs(v), 1.5);
    o[5] = fma(v, v, 1.0 / 3.0);
    o[6] = v / 7.0;
    o[7] = (double)(long)(v * 1e6) + rsqrt(fabs(v) + 2.0);
}
