/* hostkernel C API: drop-in replacements for the OpenCL calls that launch kernels on
 * PoCL's CPU device and for the calls that must know about them (ordering, releases).
 * hostkernel's own functions (launch counts, native programs, SPIR-V, ...) are declared
 * in hostkernel_ext.h, as OpenCL's extensions are in cl_ext.h.
 *
 * Every hk* function has the signature and the error codes of the OpenCL function of
 * the same name. Launches of uniform grids on PoCL's CPU device run the kernel's
 * compiled work-group function directly on the calling thread; everything else is
 * forwarded to PoCL unchanged. The functions are listed once, in entries.def.
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
 * What the replacements do besides forwarding:
 * - launches (hkEnqueueNDRangeKernel, hkEnqueueTask) run directly where they can: on the
 *   calling thread before the call returns, or, for kernels whose launches take long, on
 *   hostkernel's background thread while the caller goes on (as on PoCL's queue, the
 *   results are there after a blocking read or map, hkFinish or the launch's event);
 * - hkSetKernelArg* record the arguments and forward them, so PoCL's queue path keeps
 *   working;
 * - every other enqueue, and finish, flush and wait, keep PoCL's commands ordered with
 *   direct launches (they mark the queue as holding PoCL work);
 * - the create and release calls let cached state die with its object;
 * - hkGetEventInfo and hkGetEventProfilingInfo answer for a direct launch's event (which
 *   is complete when it is returned, or when its work is, in the background) as for a
 *   kernel command: CL_EVENT_COMMAND_TYPE is
 *   CL_COMMAND_NDRANGE_KERNEL, CL_EVENT_COMMAND_QUEUE the queue, and on a
 *   CL_QUEUE_PROFILING_ENABLE queue the profiling timestamps are the launch's (PoCL's
 *   time base); every other event and query is forwarded.
 *
 * This header includes hostkernel_ext.h, so that a program linked with libhostkernel
 * has every hk* function with one include; a program that only loads the OpenCL layer
 * includes hostkernel_ext.h alone, for the extensions' types.
 */
#ifndef HOSTKERNEL_HOSTKERNEL_H
#define HOSTKERNEL_HOSTKERNEL_H

#include <hostkernel/hostkernel_platform.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HK_ENTRY(ret, name, params, args) HK_API ret hk##name params;
#include <hostkernel/entries.def>

#ifdef __cplusplus
}
#endif

#include <hostkernel/hostkernel_ext.h>

#endif /* HOSTKERNEL_HOSTKERNEL_H */
