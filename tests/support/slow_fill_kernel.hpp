// The OpenCL C of slow_fill, a kernel of few work-items that takes long: out[i] = value + i,
// after `n` rounds of arithmetic that keep the work-item busy (their result, masked with
// `mask` = 0, is added so that the compiler keeps them). For the tests of launches in the
// background, which need launches long enough to overlap the caller.
//
//   cl_program p = hkCreateProgramWithSource(ctx, 1, &kSlowFillSource, nullptr, &err);
//   // arguments: out (cl_mem), n (int), value (int), mask (cl_uint, 0)
#pragma once

inline const char *kSlowFillSource = R"CLC(
kernel void slow_fill(global int *out, int n, int value, uint mask) {
  const int i = get_global_id(0);
  unsigned v = (unsigned)i;
  for (int r = 0; r < n; ++r) v = v * 1664525u + 1013904223u;
  out[i] = value + i + (int)(v & mask);
}
)CLC";
