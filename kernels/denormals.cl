// Float denormals: products that underflow into the denormal range, denormal inputs
// (zero under DAZ), and a rounding-mode sensitive division. Built once normally and once
// with -cl-denorms-are-zero, so flush-to-zero handling shows up.
kernel void denormals(global const float *in, global const float *tiny, global float *out)
{
    size_t i = get_global_id(0);
    float v = in[i], t = tiny[i];
    global float *o = out + 6 * i;
    o[0] = v * 1e-39f * 0.5f;        // normal * small -> denormal result
    o[1] = t * 1.0f;                  // denormal input
    o[2] = t + t;
    o[3] = (t > 0.0f) ? 1.0f : -1.0f;
    o[4] = v / 3.0f;                  // inexact: depends on the rounding mode
    o[5] = (v * 1e-30f) * 1e-8f;      // underflow through a chain
}
