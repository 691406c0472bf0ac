// A struct passed by value with mixed float/int/double/short/char/vector fields.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct {
    float f;      // offset 0
    int i;        // 4
    double d;     // 8
    uint u;       // 16
    short s;      // 20
    uchar c;      // 22
    float4 v;     // 32 (16-byte aligned), sizeof = 48
} params_t;

kernel void struct_arg(params_t p, global double *out)
{
    size_t gid = get_global_id(0);
    global double *o = out + 8 * gid;
    o[0] = (double)p.f * (double)gid;
    o[1] = (double)(p.i + (int)gid);
    o[2] = p.d / (double)(gid + 1);
    o[3] = (double)(p.u ^ (uint)gid);
    o[4] = (double)p.s;
    o[5] = (double)p.c;
    o[6] = (double)(p.v.x + p.v.y * 2.0f + p.v.z * 4.0f + p.v.w * 8.0f);
    o[7] = (double)sizeof(params_t);
}
