// Single-precision math builtins (candidates for vectorised library variants).
kernel void float_math(global const float *in, global float *out)
{
    size_t i = get_global_id(0);
    float v = in[i];
    global float *o = out + 8 * i;
    o[0] = sqrt(fabs(v));
    o[1] = exp(v * 0.01f);
    o[2] = log(fabs(v) + 1.0f);
    o[3] = sin(v);
    o[4] = cos(v);
    o[5] = pow(fabs(v), 1.5f);
    o[6] = v / 7.0f;
    o[7] = atan2(v, 3.0f) + rsqrt(fabs(v) + 2.0f);
}
