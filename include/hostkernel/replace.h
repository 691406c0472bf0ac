/* Maps the OpenCL calls that hostkernel must see onto their hk* versions, so that an
 * existing OpenCL program gets direct launches without source changes:
 *
 *   cc -include hostkernel/replace.h app.c -lhostkernel -lOpenCL
 *
 * Launches, argument setting and every enqueue/finish/flush/wait call are mapped (so
 * ordering between direct launches and PoCL's commands holds), and so are the create and
 * release calls of kernels, programs, buffers, queues and contexts (so cached state never
 * outlives its object), and the event queries (so a direct launch's event reports its
 * command type, queue and profiling timestamps). The OpenCL layer
 * (libhostkernel-layer.so) intercepts exactly these functions: both are made from the
 * list in entries.def. Include it before, or instead of, <CL/cl.h>.
 */
#ifndef HOSTKERNEL_REPLACE_H
#define HOSTKERNEL_REPLACE_H

#include <hostkernel/hostkernel.h>

/* begin: written from entries.def by cmake/HkReplaceHeader.cmake */
#define clEnqueueNDRangeKernel hkEnqueueNDRangeKernel
#define clEnqueueTask hkEnqueueTask
#define clSetKernelArg hkSetKernelArg
#define clSetKernelArgSVMPointer hkSetKernelArgSVMPointer
#define clFinish hkFinish
#define clFlush hkFlush
#define clWaitForEvents hkWaitForEvents
#define clEnqueueReadBuffer hkEnqueueReadBuffer
#define clEnqueueWriteBuffer hkEnqueueWriteBuffer
#define clEnqueueReadBufferRect hkEnqueueReadBufferRect
#define clEnqueueWriteBufferRect hkEnqueueWriteBufferRect
#define clEnqueueCopyBuffer hkEnqueueCopyBuffer
#define clEnqueueCopyBufferRect hkEnqueueCopyBufferRect
#define clEnqueueFillBuffer hkEnqueueFillBuffer
#define clEnqueueMapBuffer hkEnqueueMapBuffer
#define clEnqueueUnmapMemObject hkEnqueueUnmapMemObject
#define clEnqueueReadImage hkEnqueueReadImage
#define clEnqueueWriteImage hkEnqueueWriteImage
#define clEnqueueCopyImage hkEnqueueCopyImage
#define clEnqueueFillImage hkEnqueueFillImage
#define clEnqueueCopyImageToBuffer hkEnqueueCopyImageToBuffer
#define clEnqueueCopyBufferToImage hkEnqueueCopyBufferToImage
#define clEnqueueMapImage hkEnqueueMapImage
#define clEnqueueMigrateMemObjects hkEnqueueMigrateMemObjects
#define clEnqueueMarkerWithWaitList hkEnqueueMarkerWithWaitList
#define clEnqueueBarrierWithWaitList hkEnqueueBarrierWithWaitList
#define clEnqueueMarker hkEnqueueMarker
#define clEnqueueBarrier hkEnqueueBarrier
#define clEnqueueWaitForEvents hkEnqueueWaitForEvents
#define clEnqueueNativeKernel hkEnqueueNativeKernel
#define clEnqueueSVMFree hkEnqueueSVMFree
#define clEnqueueSVMMemcpy hkEnqueueSVMMemcpy
#define clEnqueueSVMMemFill hkEnqueueSVMMemFill
#define clEnqueueSVMMap hkEnqueueSVMMap
#define clEnqueueSVMUnmap hkEnqueueSVMUnmap
#define clEnqueueSVMMigrateMem hkEnqueueSVMMigrateMem
#define clCreateBuffer hkCreateBuffer
#define clCreateBufferWithProperties hkCreateBufferWithProperties
#define clCreateSubBuffer hkCreateSubBuffer
#define clCreateCommandQueue hkCreateCommandQueue
#define clCreateCommandQueueWithProperties hkCreateCommandQueueWithProperties
#define clCreateProgramWithSource hkCreateProgramWithSource
#define clCreateProgramWithBinary hkCreateProgramWithBinary
#define clCreateProgramWithIL hkCreateProgramWithIL
#define clBuildProgram hkBuildProgram
#define clCompileProgram hkCompileProgram
#define clLinkProgram hkLinkProgram
#define clCreateKernel hkCreateKernel
#define clCreateKernelsInProgram hkCreateKernelsInProgram
#define clCloneKernel hkCloneKernel
#define clRetainKernel hkRetainKernel
#define clRetainProgram hkRetainProgram
#define clReleaseKernel hkReleaseKernel
#define clReleaseProgram hkReleaseProgram
#define clReleaseMemObject hkReleaseMemObject
#define clReleaseCommandQueue hkReleaseCommandQueue
#define clReleaseContext hkReleaseContext
#define clReleaseEvent hkReleaseEvent
#define clGetMemObjectInfo hkGetMemObjectInfo
#define clGetEventInfo hkGetEventInfo
#define clGetEventProfilingInfo hkGetEventProfilingInfo
#define clSetEventCallback hkSetEventCallback
/* end: written from entries.def */

#endif /* HOSTKERNEL_REPLACE_H */
