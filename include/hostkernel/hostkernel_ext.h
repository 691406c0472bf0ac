/* hostkernel's own functions, beyond the drop-in replacements of hostkernel.h (as
 * cl_ext.h is to cl.h): the device it runs kernels on directly, programs made from
 * SPIR-V and native programs, what hostkernel knows about a kernel's variants, and where
 * its launches went and why.
 *
 *   hk_launch_counts c;        // which path each launch took, and why
 *   hkGetKernelLaunchCounts(kernel, &c);
 *   printf("%s: %llu\n", hkReasonString(HK_REASON_NON_UNIFORM),
 *          (unsigned long long)c.by_reason[HK_REASON_NON_UNIFORM]);
 *
 * A program that only loads the OpenCL layer (libhostkernel-layer.so) gets the
 * introspection functions from clGetExtensionFunctionAddressForPlatform (docs/layer.md)
 * and includes this header alone, for their types.
 */
#ifndef HOSTKERNEL_HOSTKERNEL_EXT_H
#define HOSTKERNEL_HOSTKERNEL_EXT_H

#include <hostkernel/hostkernel_platform.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the device ----------------------------------------------------------------- */
/* PoCL's CPU device and its platform (platform may be NULL): the one whose launches
 * hostkernel runs directly when there is one (PoCL 3.1's pthread or basic driver), else
 * the first CPU device of a PoCL release hostkernel does not support, whose launches all
 * go to PoCL's queue. CL_DEVICE_NOT_FOUND when no PoCL platform has a CPU device,
 * CL_INVALID_VALUE if device is NULL.
 *
 *   cl_platform_id platform;
 *   cl_device_id device;
 *   if (hkGetPoclDevice(&platform, &device) != CL_SUCCESS) ...;   // no PoCL here
 *   cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
 */
HK_API cl_int hkGetPoclDevice(cl_platform_id *platform, cl_device_id *device);

/* ---- SPIR-V (PoCL 3.1 rejects clCreateProgramWithIL) ---------------------------- */
/* Translates a SPIR-V module (OpenCL kernels, 64-bit) to SPIR 1.2 bitcode in process and
 * creates the program from it with clCreateProgramWithBinary for every device of the
 * context (cl_khr_spir). Build it as usual; "-x spir -spir-std=1.2" in the build options
 * is optional (PoCL only warns without it), and clGetKernelArgInfo answers only for
 * programs built with -cl-kernel-arg-info (docs/spirv.md):
 *
 *   cl_program p = hkCreateProgramWithSPIRV(ctx, spv, spv_size, &err);
 *   if (!p) fprintf(stderr, "%s\n", hkGetLastSPIRVError());
 *   hkBuildProgram(p, 0, NULL, "-x spir -spir-std=1.2 -cl-kernel-arg-info", NULL, NULL);
 *
 * Errors: CL_INVALID_CONTEXT; CL_INVALID_VALUE if il is NULL, length is 0 or the bytes
 * are not SPIR-V (bad magic, truncated, malformed instruction stream); CL_INVALID_BINARY
 * if the module cannot be translated (malformed or unsupported content) or the device
 * rejects the bitcode. Malformed modules never crash the caller: the translator runs in a
 * forked child. */
HK_API cl_program hkCreateProgramWithSPIRV(cl_context context, const void *il, size_t length,
                                           cl_int *errcode_ret);
/* Why the calling thread's last hkCreateProgramWithSPIRV failed ("" after a success). */
HK_API const char *hkGetLastSPIRVError(void);

/* ---- native kernels (docs/native-kernels.md) ------------------------------------ */
/* A native program's kernels are written with the prelude include/hostkernel/kernel.h
 * (HK_KERNEL, hk_in_bounds(), ...) and launched over their true ndrange: hostkernel
 * rounds the grid up to whole work-groups (any global size works with any local size),
 * passes the true ndrange as the hidden argument 0, and runs work-groups that lie inside
 * the ndrange with the program's unchecked variant (HK_CHECKED=0) and boundary
 * work-groups with the checked one (HK_CHECKED=1). Set arguments from index 1; index 0
 * is hostkernel's. Build with hkBuildProgram (it adds -DHK_CHECKED=1 and
 * -cl-kernel-arg-info); the unchecked variant is built on a kernel's second launch.
 *
 *   cl_program p = hkCreateNativeProgramWithSource(ctx, 1, &src, NULL, &err);
 *   hkBuildProgram(p, 0, NULL, "", NULL, NULL);
 *   cl_kernel k = hkCreateKernel(p, "scale", &err);
 *   hkSetKernelArg(k, 1, sizeof a, &a);            // HK_KERNEL(scale, float a, ...)
 *   size_t n = 1000, wg = 64;
 *   hkEnqueueNDRangeKernel(q, k, 1, NULL, &n, &wg, 0, NULL, NULL);   // 16 groups
 *
 * Plain kernels (no HK_KERNEL) in a native program behave as in any program. */
HK_API cl_program hkCreateNativeProgramWithSource(cl_context context, cl_uint count,
                                                  const char **strings, const size_t *lengths,
                                                  cl_int *errcode_ret);
/* The same from SPIR-V compiled with the prelude (clang-15 -include hostkernel/kernel.h,
 * without HK_CHECKED): the variants differ in the value hostkernel gives the prelude's
 * constant hk_checked_variant_ while it translates the module. Build options: as for
 * hkCreateProgramWithSPIRV. */
HK_API cl_program hkCreateNativeProgramWithSPIRV(cl_context context, const void *il,
                                                 size_t length, cl_int *errcode_ret);

/* What hostkernel knows about a kernel's variants, one value per query as with
 * clGetKernelWorkGroupInfo (so that a new value never changes an old one's layout):
 *
 *   cl_ulong groups = 0;
 *   hkGetKernelVariantInfo(kernel, HK_KERNEL_VARIANT_UNCHECKED_GROUPS, sizeof groups,
 *                          &groups, NULL);
 *
 * Errors: CL_INVALID_KERNEL for a kernel that is not valid; CL_INVALID_VALUE if
 * param_name is not one of these, or param_value is not NULL and param_value_size is
 * smaller than the value's size (the type after each name). */
typedef cl_uint hk_kernel_variant_info;
/* cl_bool: the kernel takes the hidden ndrange (HK_KERNEL) */
#define HK_KERNEL_VARIANT_NATIVE 0x4B01
/* cl_bool: its program's unchecked variant has been built */
#define HK_KERNEL_VARIANT_UNCHECKED_BUILT 0x4B02
/* cl_bool: full work-groups of direct launches run it */
#define HK_KERNEL_VARIANT_UNCHECKED_USED 0x4B03
/* cl_ulong: work-groups run directly by the checked variant */
#define HK_KERNEL_VARIANT_CHECKED_GROUPS 0x4B04
/* cl_ulong: ... and by the unchecked one */
#define HK_KERNEL_VARIANT_UNCHECKED_GROUPS 0x4B05
/* size_t[3]: a hot kernel's team launches of one geometry use PoCL's work-group function
 * specialized for it (docs/specialized.md): its local size (0 0 0: none) */
#define HK_KERNEL_VARIANT_SPECIALIZED_LOCAL_SIZE 0x4B06
/* cl_ulong: how many launches ran the specialized function */
#define HK_KERNEL_VARIANT_SPECIALIZED_LAUNCHES 0x4B07
/* cl_bool: the kernel's work-items cannot tell which work-group they are in (no local or
 * group ids or sizes, barriers, local memory or printf), so it gives the same results
 * with any uniform work-group size: hostkernel merges its work-groups, up to 2048
 * work-items, along x (1-D groups and small 2-D and 3-D ones) or along y (2-D and 3-D
 * groups of 256 work-items or more, which keep their rows) (docs/launch.md, "Merged
 * work-groups") */
#define HK_KERNEL_VARIANT_GROUP_FREE 0x4B08
/* size_t[3]: the work-group size hostkernel ran the kernel's latest planned launch with
 * (0 0 0: none yet) */
#define HK_KERNEL_VARIANT_PLANNED_LOCAL_SIZE 0x4B09
/* void *: the address of the work-group function direct launches call (the generic
 * variant; NULL before the kernel is prepared), as named in /tmp/perf-<pid>.map with
 * HOSTKERNEL_PERF_MAP=1 (docs/profiling.md) */
#define HK_KERNEL_VARIANT_WORK_GROUP_FUNCTION 0x4B0A

HK_API cl_int hkGetKernelVariantInfo(cl_kernel kernel, hk_kernel_variant_info param_name,
                                     size_t param_value_size, void *param_value,
                                     size_t *param_value_size_ret);

/* ---- introspection ------------------------------------------------------------- */
/* The path a launch took. */
typedef enum hk_path { HK_PATH_INLINE = 0, HK_PATH_TEAM = 1, HK_PATH_QUEUE = 2 } hk_path;

/* Why a launch or another command went to PoCL's queue (HK_REASON_NONE for direct ones). */
typedef enum hk_reason {
  HK_REASON_NONE = 0,
  HK_REASON_DISABLED,           /* HOSTKERNEL_DISABLE=1 */
  HK_REASON_DEVICE,             /* not the CPU device of a supported PoCL release */
  HK_REASON_PREPARE_FAILED,     /* the kernel's work-group function could not be loaded */
  HK_REASON_NON_UNIFORM,        /* local size does not divide the global size */
  HK_REASON_ARG_KIND,           /* image, sampler or pipe argument */
  HK_REASON_ARG_UNSET,          /* an argument not set through hostkernel (PoCL checks it) */
  HK_REASON_INVALID_LAUNCH,     /* PoCL reports the error (unset argument, bad sizes, ...) */
  HK_REASON_USER_EVENT,         /* the wait list (or the queue) holds an incomplete event */
  HK_REASON_STACK,              /* the work-group would not fit the thread's stack */
  HK_REASON_LIMITS,             /* too many arguments or objects for the direct path */
  HK_REASON_SPECIALIZE,         /* once per hot kernel: PoCL compiles its work-group function
                                   specialized for the local size (docs/specialized.md) */
  HK_REASON_FIRST_LAUNCH,       /* first launch of a kernel whose program is not prepared yet
                                   (docs/first-launch.md) */
  HK_REASON_QUEUE_BUSY,         /* PoCL held work for the queue, or the wait list names
                                   commands still running (a command that is not a launch) */
  HK_REASON_POCL_CHECKS,        /* arguments that PoCL checks: an error it reports, or a case
                                   hostkernel does not validate itself */
  HK_REASON_MEM_KIND,           /* images, pipes, native kernels, memory objects hostkernel
                                   did not create, SVM frees */
  HK_REASON_COUNT
} hk_reason;

/* Commands other than launches, by OpenCL command type (CL_COMMAND_READ_BUFFER, ...):
 * how many ran directly and how many went to PoCL's queue, by reason. Counted for the
 * whole process since it started; CL_INVALID_VALUE for a type that is not a command.
 *
 *   hk_command_counts c;
 *   hkGetCommandCounts(CL_COMMAND_WRITE_BUFFER, &c);
 *   printf("%llu direct, %llu queue\n", (unsigned long long)c.direct,
 *          (unsigned long long)c.queue);
 */
typedef struct hk_command_counts {
  cl_ulong direct;
  cl_ulong queue;
  cl_ulong by_reason[HK_REASON_COUNT]; /* queue commands by reason */
} hk_command_counts;

HK_API cl_int hkGetCommandCounts(cl_command_type type, hk_command_counts *counts);

typedef struct hk_launch_counts {
  cl_ulong by_path[3];                 /* indexed by hk_path */
  cl_ulong by_reason[HK_REASON_COUNT]; /* queue launches by reason */
} hk_launch_counts;

/* Counts of this kernel's launches since it was created, one count per query as
 * clGetKernelWorkGroupInfo answers (a reason added later adds a name and changes no other
 * count's layout):
 *
 *   cl_ulong queued = 0;
 *   hkGetKernelLaunchInfo(kernel, HK_KERNEL_LAUNCHES_ON_PATH(HK_PATH_QUEUE), sizeof queued,
 *                         &queued, NULL);
 *
 * Every value is a cl_ulong. Errors: CL_INVALID_KERNEL if hostkernel has never seen the
 * kernel (or it was released); CL_INVALID_VALUE if param_name is not one of these (a path
 * or a reason out of range, HK_REASON_NONE included), or param_value is not NULL and
 * param_value_size is smaller than a cl_ulong. */
typedef cl_uint hk_kernel_launch_info;
/* launches that took the path (an hk_path) */
#define HK_KERNEL_LAUNCHES_ON_PATH(path) ((hk_kernel_launch_info)(0x4C00 + (path)))
/* launches that went to PoCL's queue for the reason (an hk_reason other than NONE) */
#define HK_KERNEL_LAUNCHES_FOR_REASON(reason) ((hk_kernel_launch_info)(0x4C40 + (reason)))
/* direct launches (also counted on their path) handed to hostkernel's background launch
 * thread, whose enqueue returned before they ran (docs/background.md) */
#define HK_KERNEL_LAUNCHES_IN_BACKGROUND ((hk_kernel_launch_info)0x4C80)

HK_API cl_int hkGetKernelLaunchInfo(cl_kernel kernel, hk_kernel_launch_info param_name,
                                    size_t param_value_size, void *param_value,
                                    size_t *param_value_size_ret);

/* The same counts in one struct. Its size follows HK_REASON_COUNT, which grows when a
 * reason is added: code that may run with another version of libhostkernel than the one
 * its header came from asks hkGetKernelLaunchInfo instead. CL_INVALID_KERNEL if
 * hostkernel has never seen the kernel. */
HK_API cl_int hkGetKernelLaunchCounts(cl_kernel kernel, hk_launch_counts *counts);

/* A short name for a reason ("non-uniform work-groups", ...). */
HK_API const char *hkReasonString(hk_reason reason);

/* Prints per-kernel launch counts by path and the reasons for queue launches to stderr
 * (also done at exit when HOSTKERNEL_REPORT=1). */
HK_API void hkPrintReport(void);

#ifdef __cplusplus
}
#endif
#endif /* HOSTKERNEL_HOSTKERNEL_EXT_H */
