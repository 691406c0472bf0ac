// A 16 KiB private array per work-item. PoCL keeps one copy per work-item of the group on
// the work-group function's stack: a group of L work-items needs about L * 16 KiB (L=256:
// 4 MiB, L=1024: 16 MiB, more than a default 8 MiB thread stack). docs/stack.md.
// out[i] = sum over j of in[(i + j) % n] * j * in[(i + 7j) % n], n = 4096, computed
// through the array so it cannot be optimised away.
kernel void private_array(global const float *in, global float *out)
{
    float priv[4096];
    size_t i = get_global_id(0);
    for (int j = 0; j < 4096; ++j)
        priv[j] = in[(i + j) % 4096] * (float)j;
    float s = 0.0f;
    for (int j = 0; j < 4096; j += 3)
        s += priv[j] * priv[(j * 7 + (int)(i & 15)) % 4096];
    out[i] = s;
}
