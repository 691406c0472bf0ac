// 18 arguments mixing buffers, scalars of every width and vector scalars.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void many_args(global float *out, global const float *a, global const int *b,
                      float s0, int s1, uint s2, global const float *c, double s3,
                      long s4, short s5, uchar s6, global const double *d, float2 s7,
                      int4 s8, global int *out2, ulong s9, char s10, float s11)
{
    size_t i = get_global_id(0);
    out[i] = a[i] * s0 + (float)(b[i] * s1) + c[i] * s7.x + s7.y + s11 + (float)s10;
    out2[i] = (int)(s2 ^ (uint)i) + (int)s5 + (int)s6 + s8.x + s8.y * 2 + s8.z * 3 + s8.w * 4
            + (int)(s4 >> 32) + (int)(s9 & 0xffff) + (int)(d[i] * s3);
}
