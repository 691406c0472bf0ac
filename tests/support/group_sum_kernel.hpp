// The OpenCL C of group_sum: each work-group's sum of in[i] + add, through a __local
// argument whose size the launch sets and a barrier per halving. For tests that need a
// kernel with a local argument and barriers beside kernels of their own, given to
// clCreateProgramWithSource as a second source string.
//
//   const char *sources[] = {kOwnKernels, kGroupSumSource};
//   cl_program p = clCreateProgramWithSource(ctx, 2, sources, nullptr, &err);
//   // arguments: in (cl_mem), out (cl_mem, one int per group), local size * sizeof(int)
//   // bytes of local memory, add (int)
#pragma once

inline const char *kGroupSumSource = R"CLC(
kernel void group_sum(global const int *in, global int *out, local int *tmp, int add) {
  size_t l = get_local_id(0), n = get_local_size(0);
  tmp[l] = in[get_global_id(0)] + add;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}
)CLC";
