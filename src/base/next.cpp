#include "base/next.hpp"

namespace hk {
namespace {

// The ICD loader's exported entry points, for the library linked with -lOpenCL. Only the
// functions hostkernel calls or forwards are filled in.
// One line per entry point: the function is as long as that list, and splitting it would
// only split the list.
cl_icd_dispatch makeLoaderTable() {
  cl_icd_dispatch t{};
#define HK_FILL(name) t.name = &::name
  HK_FILL(clGetPlatformInfo);
  HK_FILL(clGetDeviceIDs);
  HK_FILL(clGetDeviceInfo);
  HK_FILL(clGetContextInfo);
  HK_FILL(clGetCommandQueueInfo);
  HK_FILL(clGetMemObjectInfo);
  HK_FILL(clSetMemObjectDestructorCallback);
  HK_FILL(clCreateBufferWithProperties);
  HK_FILL(clGetProgramInfo);
  HK_FILL(clGetProgramBuildInfo);
  HK_FILL(clGetKernelInfo);
  HK_FILL(clGetKernelArgInfo);
  HK_FILL(clGetKernelWorkGroupInfo);
  HK_FILL(clGetEventInfo);
  HK_FILL(clGetEventProfilingInfo);
  HK_FILL(clCreateUserEvent);
  HK_FILL(clSetUserEventStatus);
  HK_FILL(clSetEventCallback);
  HK_FILL(clRetainEvent);
  HK_FILL(clReleaseEvent);
  HK_FILL(clWaitForEvents);
  HK_FILL(clFinish);
  HK_FILL(clFlush);
  HK_FILL(clSetKernelArg);
  HK_FILL(clSetKernelArgSVMPointer);
  HK_FILL(clEnqueueNDRangeKernel);
  HK_FILL(clEnqueueTask);
  HK_FILL(clEnqueueReadBuffer);
  HK_FILL(clEnqueueWriteBuffer);
  HK_FILL(clEnqueueReadBufferRect);
  HK_FILL(clEnqueueWriteBufferRect);
  HK_FILL(clEnqueueCopyBuffer);
  HK_FILL(clEnqueueCopyBufferRect);
  HK_FILL(clEnqueueFillBuffer);
  HK_FILL(clEnqueueMapBuffer);
  HK_FILL(clEnqueueUnmapMemObject);
  HK_FILL(clEnqueueReadImage);
  HK_FILL(clEnqueueWriteImage);
  HK_FILL(clEnqueueCopyImage);
  HK_FILL(clEnqueueFillImage);
  HK_FILL(clEnqueueCopyImageToBuffer);
  HK_FILL(clEnqueueCopyBufferToImage);
  HK_FILL(clEnqueueMapImage);
  HK_FILL(clEnqueueMigrateMemObjects);
  HK_FILL(clEnqueueMarkerWithWaitList);
  HK_FILL(clEnqueueBarrierWithWaitList);
  HK_FILL(clEnqueueMarker);
  HK_FILL(clEnqueueBarrier);
  HK_FILL(clEnqueueWaitForEvents);
  HK_FILL(clEnqueueNativeKernel);
  HK_FILL(clEnqueueSVMFree);
  HK_FILL(clEnqueueSVMMemcpy);
  HK_FILL(clEnqueueSVMMemFill);
  HK_FILL(clEnqueueSVMMap);
  HK_FILL(clEnqueueSVMUnmap);
  HK_FILL(clEnqueueSVMMigrateMem);
  HK_FILL(clCreateCommandQueue);
  HK_FILL(clCreateCommandQueueWithProperties);
  HK_FILL(clRetainCommandQueue);
  HK_FILL(clCreateBuffer);
  HK_FILL(clCreateSubBuffer);
  HK_FILL(clCreateKernel);
  HK_FILL(clCreateKernelsInProgram);
  HK_FILL(clCloneKernel);
  HK_FILL(clCreateProgramWithSource);
  HK_FILL(clCreateProgramWithBinary);
  HK_FILL(clCreateProgramWithIL);
  HK_FILL(clBuildProgram);
  HK_FILL(clCompileProgram);
  HK_FILL(clLinkProgram);
  HK_FILL(clRetainKernel);
  HK_FILL(clRetainProgram);
  HK_FILL(clReleaseKernel);
  HK_FILL(clReleaseProgram);
  HK_FILL(clRetainMemObject);
  HK_FILL(clReleaseMemObject);
  HK_FILL(clReleaseCommandQueue);
  HK_FILL(clReleaseContext);
#undef HK_FILL
  return t;
}

const cl_icd_dispatch g_loader_table = makeLoaderTable();

}  // namespace

namespace detail {
const cl_icd_dispatch *g_next = &g_loader_table;
}

void setNextDispatch(const cl_icd_dispatch *table) { detail::g_next = table; }

}  // namespace hk
