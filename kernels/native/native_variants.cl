// Native kernels (include/hostkernel/kernel.h, added by hostkernel; for SPIR-V, compiled
// with -include hostkernel/kernel.h) used by the variant tests and benchmarks.

// Scales `in` into `out` over the true ndrange (1, 2 or 3 dimensions, no offset) and
// records which variant ran where:
//  - group_variant[g] = hk_checked() of work-group g (1 checked, 0 unchecked);
//  - seen[r] for every work-item r of the rounded grid: 1 when hk_in_bounds() held, 2 when
//    it did not. An item outside the true ndrange sees 1 only in the unchecked variant,
//    which must never run a boundary group.
HK_KERNEL(native_marks, float a, __global const float *in, __global float *out,
          __global int *index, __global int *group_variant, __global int *seen) {
  const size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  const size_t r = (z * get_global_size(1) + y) * get_global_size(0) + x;
  seen[r] = hk_in_bounds() ? 1 : 2;
  if (get_local_id(0) == 0 && get_local_id(1) == 0 && get_local_id(2) == 0)
    group_variant[(get_group_id(2) * get_num_groups(1) + get_group_id(1)) * get_num_groups(0) +
                  get_group_id(0)] = hk_checked();
  if (hk_in_bounds()) {
    const size_t i = (z * hk_ndrange(1) + y) * hk_ndrange(0) + x;
    out[i] = in[i] * a;
    index[i] = (int)i;
  }
}

// Guarding between barriers: every work-item reaches the barrier; only items inside the
// ndrange read or write global memory. out[i] = in[i] + in[next item of the same group],
// with 0 for a next item outside the ndrange.
HK_KERNEL(native_smooth, __global const float *in, __global float *out,
          __local float *tile) {
  const size_t l = get_local_id(0), n = get_local_size(0);
  const int live = hk_in_bounds();
  tile[l] = live ? in[hk_global_id(0)] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (live) out[hk_global_id(0)] = tile[l] + tile[(l + 1) % n];
}

// STREAM triad over the true ndrange: a[i] = b[i] + s * c[i].
HK_KERNEL(native_triad, __global float *a, __global const float *b, __global const float *c,
          float s) {
  if (hk_in_bounds()) {
    const size_t i = hk_global_id(0);
    a[i] = b[i] + s * c[i];
  }
}

// A plain kernel in a native program: no hidden argument, launched as any other.
__kernel void plain_scale(float a, __global float *x) {
  x[get_global_id(0)] *= a;
}
