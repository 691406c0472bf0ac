// The usual bounds-checked kernel: the grid is padded up to the local size and the
// extra work-items return early.
kernel void guarded_copy(global const int *in, global int *out, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    out[i] = in[i] * 2 + 1;
}
