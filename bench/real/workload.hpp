// What the C++ workloads of bench/real/ share: PoCL's CPU device, error exits, the
// "WRONG RESULT" line scripts/real-programs-ab.sh looks for and the "loop_seconds" line it
// reads.
//
//   workload::PoclQueue cl;                                 // context and queue on PoCL
//   workload::must(clFinish(cl.queue), "clFinish");         // exits 2 with the error code
//   workload::timedRepetitions(reps, [&](int r) { ... });  // prints loop_seconds
//   if (got != want) workload::wrong("dot", got, want);     // exits 1: a wrong result
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

// A context and an in-order queue on poclCpu(), released when it goes out of scope. Exits 2
// when either cannot be created.
struct PoclQueue {
  PoclQueue() : device(poclCpu()) {
    cl_int err;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    must(err, "clCreateContext");
    queue = clCreateCommandQueue(context, device, 0, &err);
    must(err, "clCreateCommandQueue");
  }
  ~PoclQueue() {
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
  }
  PoclQueue(const PoclQueue &) = delete;
  PoclQueue &operator=(const PoclQueue &) = delete;

  cl_device_id device;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};

// Runs body(r) for r = 0, 1, ..., reps, then prints the seconds of repetitions 1 to reps in
// the line the A/B script reads. Repetition 0 is untimed: the libraries build their
// programs on first use.
template <class Body>
void timedRepetitions(int reps, Body body) {
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r <= reps; ++r) {
    if (r == 1) start = std::chrono::steady_clock::now();
    body(r);
  }
  std::printf("loop_seconds %.6f\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace workload
