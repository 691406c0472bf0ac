/* hostkernel C API: drop-in replacements for the OpenCL calls that launch kernels on
 * PoCL's CPU device and for the calls that must know about them (ordering, releases).
 *
 * Every hk* function has the signature and the error codes of the OpenCL function of
 * the same name. Launches of uniform grids on PoCL's CPU device run the kernel's
 * compiled work-group function directly on the calling thread; everything else is
 * forwarded to PoCL unchanged.
 *
 * Usage (or compile unchanged code with `-include hostkernel/replace.h`):
 *
 *   hkSetKernelArg(kernel, 0, sizeof(cl_mem), &buf);
 *   hkSetKernelArg(kernel, 1, sizeof(float), &alpha);
 *   size_t n = 1000, l = 64;   // uniform grids run directly ...
 *   hkEnqueueNDRangeKernel(queue, kernel, 1, NULL, &n, NULL, 0, NULL, NULL);
 *   hkEnqueueReadBuffer(queue, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
 *   hkFinish(queue);           // ... and finish costs nothing when PoCL holds no work
 *
 *   hk_launch_counts c;        // which path each launch took, and why
 *   hkGetKernelLaunchCounts(kernel, &c);
 */
#ifndef HOSTKERNEL_HOSTKERNEL_H
#define HOSTKERNEL_HOSTKERNEL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HK_API __attribute__((visibility("default")))
#else
#define HK_API
#endif

/* ---- launches ------------------------------------------------------------------ */
HK_API cl_int hkEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                                     const size_t *global_work_offset,
                                     const size_t *global_work_size,
                                     const size_t *local_work_size,
                                     cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list, cl_event *event);
HK_API cl_int hkEnqueueTask(cl_command_queue queue, cl_kernel kernel,
                            cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
                            cl_event *event);

/* ---- kernel arguments (recorded, and forwarded so PoCL's queue path keeps working) -- */
HK_API cl_int hkSetKernelArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                             const void *arg_value);
HK_API cl_int hkSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index,
                                       const void *arg_value);

/* ---- synchronisation ------------------------------------------------------------ */
HK_API cl_int hkFinish(cl_command_queue queue);
HK_API cl_int hkFlush(cl_command_queue queue);
HK_API cl_int hkWaitForEvents(cl_uint num_events, const cl_event *event_list);

/* ---- other commands: forwarded to PoCL; they mark the queue as holding PoCL work -- */
HK_API cl_int hkEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *,
                                  cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t,
                                   const void *, cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueReadBufferRect(cl_command_queue, cl_mem, cl_bool, const size_t *,
                                      const size_t *, const size_t *, size_t, size_t, size_t,
                                      size_t, void *, cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueWriteBufferRect(cl_command_queue, cl_mem, cl_bool, const size_t *,
                                       const size_t *, const size_t *, size_t, size_t, size_t,
                                       size_t, const void *, cl_uint, const cl_event *,
                                       cl_event *);
HK_API cl_int hkEnqueueCopyBuffer(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t,
                                  cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueCopyBufferRect(cl_command_queue, cl_mem, cl_mem, const size_t *,
                                      const size_t *, const size_t *, size_t, size_t, size_t,
                                      size_t, cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueFillBuffer(cl_command_queue, cl_mem, const void *, size_t, size_t,
                                  size_t, cl_uint, const cl_event *, cl_event *);
HK_API void *hkEnqueueMapBuffer(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t,
                                size_t, cl_uint, const cl_event *, cl_event *, cl_int *);
HK_API cl_int hkEnqueueUnmapMemObject(cl_command_queue, cl_mem, void *, cl_uint,
                                      const cl_event *, cl_event *);
HK_API cl_int hkEnqueueReadImage(cl_command_queue, cl_mem, cl_bool, const size_t *,
                                 const size_t *, size_t, size_t, void *, cl_uint,
                                 const cl_event *, cl_event *);
HK_API cl_int hkEnqueueWriteImage(cl_command_queue, cl_mem, cl_bool, const size_t *,
                                  const size_t *, size_t, size_t, const void *, cl_uint,
                                  const cl_event *, cl_event *);
HK_API cl_int hkEnqueueCopyImage(cl_command_queue, cl_mem, cl_mem, const size_t *,
                                 const size_t *, const size_t *, cl_uint, const cl_event *,
                                 cl_event *);
HK_API cl_int hkEnqueueFillImage(cl_command_queue, cl_mem, const void *, const size_t *,
                                 const size_t *, cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueCopyImageToBuffer(cl_command_queue, cl_mem, cl_mem, const size_t *,
                                         const size_t *, size_t, cl_uint, const cl_event *,
                                         cl_event *);
HK_API cl_int hkEnqueueCopyBufferToImage(cl_command_queue, cl_mem, cl_mem, size_t,
                                         const size_t *, const size_t *, cl_uint,
                                         const cl_event *, cl_event *);
HK_API void *hkEnqueueMapImage(cl_command_queue, cl_mem, cl_bool, cl_map_flags,
                               const size_t *, const size_t *, size_t *, size_t *, cl_uint,
                               const cl_event *, cl_event *, cl_int *);
HK_API cl_int hkEnqueueMigrateMemObjects(cl_command_queue, cl_uint, const cl_mem *,
                                         cl_mem_migration_flags, cl_uint, const cl_event *,
                                         cl_event *);
HK_API cl_int hkEnqueueMarkerWithWaitList(cl_command_queue, cl_uint, const cl_event *,
                                          cl_event *);
HK_API cl_int hkEnqueueBarrierWithWaitList(cl_command_queue, cl_uint, const cl_event *,
                                           cl_event *);
HK_API cl_int hkEnqueueMarker(cl_command_queue, cl_event *);
HK_API cl_int hkEnqueueBarrier(cl_command_queue);
HK_API cl_int hkEnqueueWaitForEvents(cl_command_queue, cl_uint, const cl_event *);
HK_API cl_int hkEnqueueNativeKernel(cl_command_queue, void(CL_CALLBACK *)(void *), void *,
                                    size_t, cl_uint, const cl_mem *, const void **, cl_uint,
                                    const cl_event *, cl_event *);
HK_API cl_int hkEnqueueSVMFree(cl_command_queue, cl_uint, void *[],
                               void(CL_CALLBACK *)(cl_command_queue, cl_uint, void *[],
                                                   void *),
                               void *, cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueSVMMemcpy(cl_command_queue, cl_bool, void *, const void *, size_t,
                                 cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueSVMMemFill(cl_command_queue, void *, const void *, size_t, size_t,
                                  cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueSVMMap(cl_command_queue, cl_bool, cl_map_flags, void *, size_t,
                              cl_uint, const cl_event *, cl_event *);
HK_API cl_int hkEnqueueSVMUnmap(cl_command_queue, void *, cl_uint, const cl_event *,
                                cl_event *);
HK_API cl_int hkEnqueueSVMMigrateMem(cl_command_queue, cl_uint, const void **, const size_t *,
                                     cl_mem_migration_flags, cl_uint, const cl_event *,
                                     cl_event *);

/* ---- object lifetime: cached state dies with the object ------------------------ */
HK_API cl_mem hkCreateBuffer(cl_context, cl_mem_flags, size_t, void *, cl_int *);
HK_API cl_mem hkCreateSubBuffer(cl_mem, cl_mem_flags, cl_buffer_create_type, const void *,
                                cl_int *);
HK_API cl_command_queue hkCreateCommandQueue(cl_context, cl_device_id,
                                             cl_command_queue_properties, cl_int *);
HK_API cl_command_queue hkCreateCommandQueueWithProperties(cl_context, cl_device_id,
                                                           const cl_queue_properties *,
                                                           cl_int *);
HK_API cl_program hkCreateProgramWithSource(cl_context, cl_uint, const char **,
                                            const size_t *, cl_int *);
HK_API cl_program hkCreateProgramWithBinary(cl_context, cl_uint, const cl_device_id *,
                                            const size_t *, const unsigned char **, cl_int *,
                                            cl_int *);
HK_API cl_program hkCreateProgramWithIL(cl_context, const void *, size_t, cl_int *);
HK_API cl_int hkBuildProgram(cl_program, cl_uint, const cl_device_id *, const char *,
                             void(CL_CALLBACK *)(cl_program, void *), void *);
HK_API cl_int hkCompileProgram(cl_program, cl_uint, const cl_device_id *, const char *,
                               cl_uint, const cl_program *, const char **,
                               void(CL_CALLBACK *)(cl_program, void *), void *);
HK_API cl_program hkLinkProgram(cl_context, cl_uint, const cl_device_id *, const char *,
                                cl_uint, const cl_program *,
                                void(CL_CALLBACK *)(cl_program, void *), void *, cl_int *);
HK_API cl_kernel hkCreateKernel(cl_program, const char *, cl_int *);
HK_API cl_int hkCreateKernelsInProgram(cl_program, cl_uint, cl_kernel *, cl_uint *);
HK_API cl_kernel hkCloneKernel(cl_kernel, cl_int *);
HK_API cl_int hkReleaseKernel(cl_kernel);
HK_API cl_int hkReleaseProgram(cl_program);
HK_API cl_int hkReleaseMemObject(cl_mem);
HK_API cl_int hkReleaseCommandQueue(cl_command_queue);
HK_API cl_int hkReleaseContext(cl_context);
HK_API cl_int hkReleaseEvent(cl_event);

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

typedef struct hk_variant_info {
  cl_bool native;            /* the kernel takes the hidden ndrange (HK_KERNEL) */
  cl_bool unchecked_built;   /* its program's unchecked variant has been built */
  cl_bool unchecked_used;    /* full work-groups of direct launches run it */
  cl_ulong checked_groups;   /* work-groups run directly by the checked variant */
  cl_ulong unchecked_groups; /* ... and by the unchecked one */
  /* A hot kernel's team launches of one geometry use PoCL's work-group function
   * specialized for it (docs/specialized.md): its local size (0 0 0: none), and how many
   * launches ran it. */
  size_t specialized_local_size[3];
  cl_ulong specialized_launches;
  /* The kernel's work-items cannot tell which work-group they are in (no local or group
   * ids or sizes, barriers, local memory or printf), so it gives the same results with
   * any uniform work-group size: hostkernel merges its work-groups along the first
   * dimension, up to 2048 work-items (docs/launch.md, "Merged work-groups"). */
  cl_bool group_free;
  /* The work-group size hostkernel ran the kernel's latest planned launch with (0 0 0:
   * none yet). */
  size_t planned_local_size[3];
} hk_variant_info;

/* What hostkernel knows about the kernel's variants. CL_INVALID_KERNEL for a kernel that
 * is not valid. */
HK_API cl_int hkGetKernelVariantInfo(cl_kernel kernel, hk_variant_info *info);

/* ---- events of direct launches ------------------------------------------------- */
/* A direct launch's event is complete when it is returned. These answer for it as for a
 * kernel command: CL_EVENT_COMMAND_TYPE is CL_COMMAND_NDRANGE_KERNEL, CL_EVENT_COMMAND_QUEUE
 * the queue, and on a CL_QUEUE_PROFILING_ENABLE queue the profiling timestamps are the
 * launch's (PoCL's time base); every other event and query is forwarded. */
HK_API cl_int hkGetEventInfo(cl_event, cl_event_info, size_t, void *, size_t *);
HK_API cl_int hkGetEventProfilingInfo(cl_event, cl_profiling_info, size_t, void *, size_t *);

/* ---- introspection ------------------------------------------------------------- */
/* The path a launch took. */
typedef enum hk_path { HK_PATH_INLINE = 0, HK_PATH_TEAM = 1, HK_PATH_QUEUE = 2 } hk_path;

/* Why a launch went to PoCL's queue (HK_REASON_NONE for direct launches). */
typedef enum hk_reason {
  HK_REASON_NONE = 0,
  HK_REASON_DISABLED,           /* HOSTKERNEL_DISABLE=1 */
  HK_REASON_DEVICE,             /* not PoCL 3.1's CPU (pthread/basic) device */
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
  HK_REASON_FIRST_LAUNCH,       /* first launch of a kernel whose program is not prepared yet */
  HK_REASON_COUNT
} hk_reason;

typedef struct hk_launch_counts {
  cl_ulong by_path[3];                 /* indexed by hk_path */
  cl_ulong by_reason[HK_REASON_COUNT]; /* queue launches by reason */
} hk_launch_counts;

/* Counts of this kernel's launches since it was created. CL_INVALID_KERNEL if hostkernel
 * has never seen the kernel. */
HK_API cl_int hkGetKernelLaunchCounts(cl_kernel kernel, hk_launch_counts *counts);

/* A short name for a reason ("non-uniform work-groups", ...). */
HK_API const char *hkReasonString(hk_reason reason);

/* Prints per-kernel launch counts by path and the reasons for queue launches to stderr
 * (also done at exit when HOSTKERNEL_REPORT=1). */
HK_API void hkPrintReport(void);

#ifdef __cplusplus
}
#endif
#endif /* HOSTKERNEL_HOSTKERNEL_H */
