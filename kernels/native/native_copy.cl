// Native kernels for the benchmarks (launch/partial-workgroup): out[i] = 2 * in[i] + 1
// over the true ndrange; no work-item outside it touches memory.
HK_KERNEL(native_copy, __global const int *in, __global int *out) {
  if (hk_in_bounds()) {
    const size_t i = hk_global_id(0);
    out[i] = in[i] * 2 + 1;
  }
}
