/* hostkernel's OpenCL C prelude for native kernels: kernels launched over their true
 * ndrange, which hostkernel rounds up to whole work-groups.
 *
 *   HK_KERNEL(scale, float a, __global float *x) {
 *     if (hk_in_bounds()) x[hk_global_id(0)] *= a;   // items past hk_ndrange(0) do nothing
 *   }
 *
 *   hk::Kernel scale(hk::Program::native(rt, source), "scale");
 *   scale.launch({1000}, {64}, 2.0f, x);     // 16 work-groups of 64; 1000 items are real
 *
 * hostkernel adds this file in front of every native program's source (do not #include
 * it there: PoCL's compiler does not see hostkernel's include directory). Plain OpenCL C
 * programs never see it.
 *
 * HK_KERNEL(name, params...) declares `__kernel void name(hk_ndrange_t hk_range_,
 * params...)`: a hidden first parameter, filled by hostkernel on every launch, carries the
 * true ndrange. hk::Kernel hides it (argument 0 of the C++ launch is the first parameter
 * after it); with the C API, set arguments from index 1 and leave index 0 to hostkernel.
 *
 * Each native program exists in two variants, built from the same source:
 *  - checked (HK_CHECKED=1): hk_in_bounds() compares the work-item's id with the true
 *    ndrange;
 *  - unchecked (HK_CHECKED=0): hk_in_bounds() is the constant 1 and the checks vanish.
 * In one launch, work-groups that lie entirely inside the true ndrange run the unchecked
 * variant and the boundary (partial) work-groups the checked one (docs/native-kernels.md).
 * So a kernel must give the same results in both variants for every item inside the
 * ndrange, and may touch nothing outside it only where it asks hk_in_bounds().
 *
 * Barriers: every work-item of a group must reach every barrier, so never return early
 * before a barrier; guard the code between barriers instead:
 *
 *   HK_KERNEL(smooth, __global const float *in, __global float *out, __local float *t) {
 *     const bool live = hk_in_bounds();
 *     t[get_local_id(0)] = live ? in[hk_global_id(0)] : 0.0f;
 *     barrier(CLK_LOCAL_MEM_FENCE);
 *     if (live) out[hk_global_id(0)] = t[get_local_id(0)] + ...;
 *   }
 *
 * SPIR-V: compile the kernel file with this prelude (`clang-15 -include
 * hostkernel/kernel.h ...`) and no HK_CHECKED. The variant is then the value of the
 * program-scope constant hk_checked_variant_, which hostkernel sets to 1 or 0 while it
 * translates the SPIR-V (docs/native-kernels.md).
 */
#ifndef HOSTKERNEL_KERNEL_H
#define HOSTKERNEL_KERNEL_H

/* The true ndrange of a launch (work-items per dimension, 1 for unused dimensions). */
typedef struct hk_ndrange_t {
  ulong size[3];
} hk_ndrange_t;

#define HK_KERNEL(name, ...) \
  __kernel void name(const hk_ndrange_t hk_range_, ##__VA_ARGS__)

/* The hidden parameter itself, to hand it to helper functions taking an hk_ndrange_t. */
#define HK_NDRANGE hk_range_

/* The true ndrange in dimension d (0..2); 1 for other d. */
#define hk_ndrange(d) ((uint)(d) < 3u ? hk_range_.size[(d)] : (ulong)1)

/* The work-item's global id (offset included): get_global_id. */
#define hk_global_id(d) get_global_id(d)

/* 1 when the work-item lies inside the true ndrange r. A macro, not a function: as a
 * helper function (struct by value, reading work-item ids) PoCL 3.1 built its SPIR-V into
 * a library that did not load ("undefined symbol: _group_id_x"). */
#define hk_in_range_(r)                                                   \
  ((ulong)(get_global_id(0) - get_global_offset(0)) < (r).size[0] &&     \
   (ulong)(get_global_id(1) - get_global_offset(1)) < (r).size[1] &&     \
   (ulong)(get_global_id(2) - get_global_offset(2)) < (r).size[2])

#if defined(HK_CHECKED)
/* OpenCL C built by hostkernel: the variant is a macro. */
#define hk_checked() (HK_CHECKED)
#else
/* SPIR-V: hostkernel's translation replaces every read of this constant with 1 or 0.
 * volatile keeps the front end from folding the read before that. */
__constant volatile int hk_checked_variant_ = 1;
#define hk_checked() (hk_checked_variant_)
#endif

/* Checked variant: 1 when the work-item lies inside the true ndrange. Unchecked: 1.
 * (hk_checked() is 1 in the checked variant and 0 in the unchecked one.) */
#define hk_in_bounds() (!hk_checked() || hk_in_range_(hk_range_))

#endif /* HOSTKERNEL_KERNEL_H */
