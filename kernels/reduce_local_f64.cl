// Work-group sum of doubles: tree reduction in a __local buffer passed as an argument
// (clSetKernelArg(size, NULL)); each work-group writes the sum of its elements.
// Local size must be a power of two.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void reduce_sum_f64(global const double *in, global double *partial,
                           local double *scratch)
{
    size_t lid = get_local_id(0);
    size_t n = get_local_size(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = n / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
