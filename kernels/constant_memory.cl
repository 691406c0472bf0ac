// __constant memory: a table passed as an argument and a program-scope constant table.
constant float weights[8] = { 0.5f, 1.25f, -2.0f, 3.5f, 0.125f, -0.75f, 8.0f, 1.0f / 3.0f };

kernel void constant_lookup(constant float *table, uint table_len,
                            global const uint *idx, global float *out)
{
    size_t i = get_global_id(0);
    uint k = idx[i];
    out[i] = table[k % table_len] * weights[i & 7] + weights[(k >> 3) & 7];
}
