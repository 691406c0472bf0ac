// An ordinary kernel; the test passes it a sub-buffer of a larger buffer.
kernel void scale_add(global float *data, float factor, float bias)
{
    size_t i = get_global_id(0);
    data[i] = data[i] * factor + bias;
}
