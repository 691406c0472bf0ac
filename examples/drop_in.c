/* An OpenCL program written for OpenCL alone, built unchanged against hostkernel:
 *
 *   cc -include hostkernel/replace.h drop_in.c $(pkg-config --cflags --libs hostkernel)
 *
 * replace.h turns its clEnqueueNDRangeKernel, clSetKernelArg, clFinish, ... into
 * hostkernel's hk* functions, so its launches run directly on the calling thread. It
 * checks its own results, and, built with replace.h, that hostkernel ran its launches.
 */
#include <CL/cl.h>

#include <stdio.h>

#define N 1024
#define LAUNCHES 10

static const char *source =
    "kernel void axpy(float a, global const float *x, global float *y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n";

#define CHECK(call)                                                           \
  do {                                                                        \
    cl_int err_ = (call);                                                     \
    if (err_ != CL_SUCCESS) {                                                 \
      fprintf(stderr, "drop_in: %s failed: %d\n", #call, err_);               \
      return 1;                                                               \
    }                                                                         \
  } while (0)

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &platform, NULL));
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  CHECK(err);
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(program, 1, &device, NULL, NULL, NULL));
  cl_kernel axpy = clCreateKernel(program, "axpy", &err);
  CHECK(err);

  float x[N], y[N];
  for (int i = 0; i < N; ++i) x[i] = (float)i, y[i] = 1.0f;
  cl_mem xb = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
  CHECK(err);
  cl_mem yb = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof y, y, &err);
  CHECK(err);
  const float a = 2.0f;
  const size_t global = N, local = 64;
  CHECK(clSetKernelArg(axpy, 0, sizeof a, &a));
  CHECK(clSetKernelArg(axpy, 1, sizeof xb, &xb));
  CHECK(clSetKernelArg(axpy, 2, sizeof yb, &yb));
  for (int l = 0; l < LAUNCHES; ++l)
    CHECK(clEnqueueNDRangeKernel(queue, axpy, 1, NULL, &global, &local, 0, NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));

  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += y[i] != 1.0f + LAUNCHES * a * (float)i;
  if (wrong) {
    fprintf(stderr, "drop_in: %d of %d results wrong\n", wrong, N);
    return 1;
  }
#ifdef HOSTKERNEL_REPLACE_H
  /* Not part of the program proper: where did hostkernel run its launches? A kernel's
   * first launch may go to PoCL's queue, which compiles it (docs/first-launch.md). */
  hk_launch_counts c;
  CHECK(hkGetKernelLaunchCounts(axpy, &c));
  const cl_ulong direct = c.by_path[HK_PATH_INLINE] + c.by_path[HK_PATH_TEAM];
  printf("drop_in: %d launches, %llu direct\n", LAUNCHES, (unsigned long long)direct);
  if (direct < LAUNCHES - 1) {
    fprintf(stderr, "drop_in: expected at least %d direct launches\n", LAUNCHES - 1);
    return 1;
  }
#endif
  printf("drop_in: %d results correct\n", N);

  clReleaseMemObject(xb);
  clReleaseMemObject(yb);
  clReleaseKernel(axpy);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
