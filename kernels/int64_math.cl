// 64-bit integer arithmetic: mul_hi, shifts, division, rotate, bit counts.
kernel void int64_math(global const ulong *a, global const ulong *b, global ulong *out)
{
    size_t i = get_global_id(0);
    ulong x = a[i], y = b[i];
    long sx = (long)x, sy = (long)y;
    global ulong *o = out + 8 * i;
    o[0] = mul_hi(x, y);
    o[1] = (ulong)mul_hi(sx, sy);
    o[2] = x << (y & 63);
    o[3] = (ulong)(sx >> (y & 63));
    o[4] = x / (y | 1);
    o[5] = (ulong)(sx % (long)((y >> 1) | 1));
    o[6] = rotate(x, y);
    o[7] = popcount(x) + (clz(y) << 8) + (x * y) + mad_hi(x, y, x ^ y);
}
