/* Builds one OpenCL C file with PoCL's CPU device and writes the program's poclbinary
 * (what clGetProgramInfo(CL_PROGRAM_BINARIES) returns) to a file: the seeds of the
 * poclbinary fuzz target are made with it (fuzz/make-corpus.sh).
 *
 *   make_poclbinary kernels/axpy.cl out.bin ["-cl-denorms-are-zero"]
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *readAll(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s kernel.cl out.bin [build options]\n", argv[0]);
    return 2;
  }
  size_t len = 0;
  char *src = readAll(argv[1], &len);
  if (!src) {
    perror(argv[1]);
    return 1;
  }
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL) != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL CPU device\n");
    return 1;
  }
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  const char *srcs[1] = {src};
  cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, &len, &err);
  err = clBuildProgram(prog, 1, &device, argc > 3 ? argv[3] : "", NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[8192] = {0};
    clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    fprintf(stderr, "%s: build failed (%d)\n%s\n", argv[1], err, log);
    return 1;
  }
  size_t size = 0;
  clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
  unsigned char *bin = malloc(size);
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
    fprintf(stderr, "binary query failed\n");
    return 1;
  }
  FILE *out = fopen(argv[2], "wb");
  if (!out || fwrite(bin, 1, size, out) != size || fclose(out) != 0) {
    perror(argv[2]);
    return 1;
  }
  printf("%s: %zu bytes\n", argv[2], size);
  clReleaseProgram(prog);
  clReleaseContext(ctx);
  free(bin);
  free(src);
  return 0;
}
