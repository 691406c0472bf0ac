// What the C++ workloads of bench/real/ share: PoCL's CPU device, error exits, the
// "WRONG RESULT" line scripts/real-programs-ab.sh looks for and the "loop_seconds" line it
// reads.
//
//   cl_device_id device = workload::poclCpu();
//   workload::must(clFinish(queue), "clFinish");        // exits 2 with the error code
//   if (got != want) workload::wrong("dot", got, want);  // exits 1: a wrong result
#pragma once

#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace workload {

[[noreturn]] inline void wrong(const char *what, double got, double want) {
  std::fprintf(stderr, "WRONG RESULT: %s = %.9g, want %.9g\n", what, got, want);
  std::exit(1);
}

inline void must(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "%s failed: OpenCL error %d\n", what, err);
    std::exit(2);
  }
}

// The first CPU device of PoCL's platform; exits 2 when there is none.
inline cl_device_id poclCpu() {
  cl_platform_id platforms[8];
  cl_uint count = 0;
  must(clGetPlatformIDs(8, platforms, &count), "clGetPlatformIDs");
  for (cl_uint i = 0; i < count && i < 8; ++i) {
    char name[256] = {};
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
    cl_device_id device;
    if (std::string(name).find("Portable Computing Language") != std::string::npos &&
        clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_CPU, 1, &device, nullptr) == CL_SUCCESS)
      return device;
  }
  std::fprintf(stderr, "no PoCL CPU device (is pocl-opencl-icd installed?)\n");
  std::exit(2);
}

// argv[1] as the number of repetitions, or `fallback`.
inline int repetitions(int argc, char **argv, int fallback) {
  return argc > 1 ? std::atoi(argv[1]) : fallback;
}

// Prints the seconds since `start` in the line the A/B script reads.
inline void printLoopSeconds(std::chrono::steady_clock::time_point start) {
  std::printf("loop_seconds %.6f\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace workload
