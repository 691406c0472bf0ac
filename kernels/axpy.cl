// y = a * x + y on floats, one element per work-item. Used by the benchmarks.
kernel void axpy(float a, global const float *x, global float *y)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
