/* An ordinary OpenCL program that knows nothing of hostkernel. Built with
 * `-include hostkernel/replace.h` and linked with libhostkernel.so (tests/integration/
 * replace.cmake), its OpenCL calls become hostkernel's and its launches run directly.
 *
 * It checks its own results; only the block under HK_CHECK_REPLACED (not part of the
 * program proper) asks hostkernel whether it saw and ran the launches.
 * Exit status 0 on success; otherwise it prints what failed.
 */
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "kernel void axpy(float a, global const float *x, global float *y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n"
    "kernel void block_sum(global const float *in, global float *out, local float *tmp) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = n / 2; s > 0; s >>= 1) {\n"
    "    if (l < s) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = tmp[0];\n"
    "}\n";

#define N 4096
#define LOCAL 128
#define GROUPS (N / LOCAL)
#define ITERATIONS 50

static int failures = 0;

#define CHECK_CL(call)                                                                   \
  do {                                                                                   \
    cl_int check_err_ = (call);                                                          \
    if (check_err_ != CL_SUCCESS) {                                                      \
      fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, check_err_); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

#define CHECK(cond, ...)                                         \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "%s:%d: check failed: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                              \
      fprintf(stderr, "\n");                                     \
      if (++failures > 10) exit(1);                              \
    }                                                            \
  } while (0)

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  CHECK_CL(clGetPlatformIDs(1, &platform, NULL));
  CHECK_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK_CL(err);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
  CHECK_CL(err);
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  CHECK_CL(err);
  err = clBuildProgram(program, 1, &device, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = {0};
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fprintf(stderr, "build failed (%d):\n%s\n", err, log);
    return 1;
  }
  cl_kernel axpy = clCreateKernel(program, "axpy", &err);
  CHECK_CL(err);
  cl_kernel block_sum = clCreateKernel(program, "block_sum", &err);
  CHECK_CL(err);

  /* Small integers in floats: every result below is exact, with or without FMA. */
  static float x[N], y[N], sums[GROUPS], expect_y[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)(i % 17);
    y[i] = (float)(i % 13);
    expect_y[i] = y[i];
  }
  cl_mem bx = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x,
                             &err);
  CHECK_CL(err);
  cl_mem by = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof y, NULL, &err);
  CHECK_CL(err);
  cl_mem bsums = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof sums, NULL, &err);
  CHECK_CL(err);
  cl_event written;
  CHECK_CL(clEnqueueWriteBuffer(queue, by, CL_FALSE, 0, sizeof y, y, 0, NULL, &written));
  float zero = 0.0f;
  CHECK_CL(clEnqueueFillBuffer(queue, bsums, &zero, sizeof zero, 0, sizeof sums, 0, NULL,
                               NULL));

  CHECK_CL(clSetKernelArg(axpy, 1, sizeof(cl_mem), &bx));
  CHECK_CL(clSetKernelArg(axpy, 2, sizeof(cl_mem), &by));
  CHECK_CL(clSetKernelArg(block_sum, 0, sizeof(cl_mem), &by));
  CHECK_CL(clSetKernelArg(block_sum, 1, sizeof(cl_mem), &bsums));
  CHECK_CL(clSetKernelArg(block_sum, 2, LOCAL * sizeof(float), NULL));

  size_t global = N, local = LOCAL;
  for (int it = 0; it < ITERATIONS; ++it) {
    float a = (float)(it % 5 - 2);
    CHECK_CL(clSetKernelArg(axpy, 0, sizeof a, &a));
    CHECK_CL(clEnqueueNDRangeKernel(queue, axpy, 1, NULL, &global, &local, it == 0 ? 1 : 0,
                                    it == 0 ? &written : NULL, NULL));
    cl_event summed;
    CHECK_CL(clEnqueueNDRangeKernel(queue, block_sum, 1, NULL, &global, &local, 0, NULL,
                                    &summed));
    CHECK_CL(clWaitForEvents(1, &summed));
    cl_int status = -1;
    CHECK_CL(clGetEventInfo(summed, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                            NULL));
    CHECK(status == CL_COMPLETE, "iteration %d: event status %d after clWaitForEvents", it,
          status);
    CHECK_CL(clEnqueueReadBuffer(queue, bsums, CL_FALSE, 0, sizeof sums, sums, 1, &summed,
                                 NULL));
    CHECK_CL(clFinish(queue));
    CHECK_CL(clReleaseEvent(summed));

    for (int i = 0; i < N; ++i) expect_y[i] = a * x[i] + expect_y[i];
    for (int g = 0; g < GROUPS; ++g) {
      float want = 0.0f;
      for (int j = 0; j < LOCAL; ++j) want += expect_y[g * LOCAL + j];
      CHECK(sums[g] == want, "iteration %d: sum of block %d is %g, expected %g", it, g,
            (double)sums[g], (double)want);
    }
  }

  float *mapped = (float *)clEnqueueMapBuffer(queue, by, CL_TRUE, CL_MAP_READ, 0, sizeof y, 0,
                                              NULL, NULL, &err);
  CHECK_CL(err);
  for (int i = 0; i < N; ++i)
    CHECK(mapped[i] == expect_y[i], "y[%d] is %g, expected %g", i, (double)mapped[i],
          (double)expect_y[i]);
  CHECK_CL(clEnqueueUnmapMemObject(queue, by, mapped, 0, NULL, NULL));
  CHECK_CL(clFinish(queue));

#ifdef HK_CHECK_REPLACED
  {
    cl_kernel kernels[2] = {axpy, block_sum};
    const char *names[2] = {"axpy", "block_sum"};
    for (int k = 0; k < 2; ++k) {
      hk_launch_counts counts;
      cl_int rc = hkGetKernelLaunchCounts(kernels[k], &counts);
      CHECK(rc == CL_SUCCESS, "%s: hostkernel never saw the kernel (%d): replace.h not applied?",
            names[k], rc);
      if (rc != CL_SUCCESS) continue;
      /* Every launch ran directly (inline, or on the team if the sampler found it slow),
       * except one whose wait list was still running after hostkernel's bounded wait on a
       * loaded machine: that one goes to PoCL's queue with reason USER_EVENT (timing). */
      CHECK(counts.by_path[HK_PATH_INLINE] + counts.by_path[HK_PATH_TEAM] +
                    counts.by_path[HK_PATH_QUEUE] == ITERATIONS &&
                counts.by_path[HK_PATH_QUEUE] == counts.by_reason[HK_REASON_USER_EVENT] &&
                counts.by_path[HK_PATH_QUEUE] <= ITERATIONS / 10,
            "%s: of %d launches, %llu ran inline, %llu on the team, %llu on PoCL's queue",
            names[k], ITERATIONS, (unsigned long long)counts.by_path[HK_PATH_INLINE],
            (unsigned long long)counts.by_path[HK_PATH_TEAM],
            (unsigned long long)counts.by_path[HK_PATH_QUEUE]);
      for (int r = 1; r < HK_REASON_COUNT; ++r)
        if (counts.by_reason[r])
          fprintf(stderr, "%s: %llu queue launches: %s\n", names[k],
                  (unsigned long long)counts.by_reason[r], hkReasonString((hk_reason)r));
    }
  }
#endif

  CHECK_CL(clReleaseEvent(written));
  CHECK_CL(clReleaseMemObject(bsums));
  CHECK_CL(clReleaseMemObject(by));
  CHECK_CL(clReleaseMemObject(bx));
  CHECK_CL(clReleaseKernel(block_sum));
  CHECK_CL(clReleaseKernel(axpy));
  CHECK_CL(clReleaseProgram(program));
  CHECK_CL(clReleaseCommandQueue(queue));
  CHECK_CL(clReleaseContext(context));

  if (failures) {
    fprintf(stderr, "replace_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("replace_test: OK (%d iterations)\n", ITERATIONS);
  return 0;
}
