// A program of N small kernels; K of them launched R times each (no wait between a
// kernel's launches), then a blocking read. Prints the wall time of build + launches.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define CHECK(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { fprintf(stderr, "%s: %d\n", #x, e_); exit(1); } } while (0)

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 128, reps = argc > 2 ? atoi(argv[2]) : 8;
  const int launched[] = {3, 50, 77, 120};  /* kernels launched */
  double t0 = now();
  cl_platform_id plat; cl_device_id dev; cl_int err;
  CHECK(clGetPlatformIDs(1, &plat, NULL));
  CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, NULL));
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err); CHECK(err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err); CHECK(err);
  char *src = malloc(n * 200 + 1); src[0] = 0;
  for (int j = 0; j < n; ++j)
    sprintf(src + strlen(src), "kernel void k%d(global float *o, float v) { size_t i = get_global_id(0); o[i] = o[i] * 0.5f + v + %d.0f; }\n", j, j);
  const char *s = src;
  cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err); CHECK(err);
  CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL));
  double t1 = now();
  enum { items = 4096 };
  float host[items];
  for (int i = 0; i < items; ++i) host[i] = (float)i;
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err); CHECK(err);
  double sum = 0;
  for (int x = 0; x < 4 && launched[x] < n; ++x) {
    char name[16]; sprintf(name, "k%d", launched[x]);
    cl_kernel k = clCreateKernel(p, name, &err); CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof b, &b));
    for (int r = 0; r < reps; ++r) {
      float v = (float)r;
      CHECK(clSetKernelArg(k, 1, sizeof v, &v));
      size_t g = items, l = 64; const size_t *lp = argc > 3 ? NULL : &l;
      CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, lp, 0, NULL, NULL));
    }
    CHECK(clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    for (int i = 0; i < items; i += 97) sum += host[i];
    clReleaseKernel(k);
  }
  double t2 = now();
  printf("kernels %d build %.3f s launches %.3f s total %.3f s checksum %.6g\n", n, t1 - t0, t2 - t1, t2 - t0, sum);
  return 0;
}
