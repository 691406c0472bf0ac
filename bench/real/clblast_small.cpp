// CLBlast on PoCL: small BLAS calls, repeated. CLBlast keeps compiled programs in a cache
// and creates a kernel object for every routine call; Dot also allocates a temporary
// buffer per call.
//
//   clblast-small [repetitions]
//
// One repetition: y += 2 x, y -= x (SAXPY on 4096 floats), x . x (SDOT, result read back)
// and C += A B (SGEMM, 64 x 64). y and C grow by x and A B every repetition, so a lost or
// repeated call shows at the end. Inputs are small integers and every value stays below
// 2^24, exact in float: every result must equal the host's. A wrong result prints
// "WRONG RESULT" and exits 1; the time of the repetitions after the first (which builds the
// programs) is printed as "loop_seconds S".
#include "workload.hpp"

#include <clblast.h>

#include <vector>

namespace {

using workload::must;
using workload::wrong;

constexpr std::size_t kN = 4096;
constexpr std::size_t kM = 64;

void must(clblast::StatusCode status, const char *what) {
  must(static_cast<cl_int>(status), what);
}

cl_mem buffer(cl_context context, cl_command_queue queue, const std::vector<float> &init) {
  cl_int err;
  cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, init.size() * sizeof(float), nullptr,
                            &err);
  must(err, "clCreateBuffer");
  must(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, init.size() * sizeof(float), init.data(), 0,
                            nullptr, nullptr), "clEnqueueWriteBuffer");
  return m;
}

}  // namespace

int main(int argc, char **argv) {
  const int reps = workload::repetitions(argc, argv, 2500);
  workload::PoclQueue cl;

  std::vector<float> xHost(kN), yHost(kN), aHost(kM * kM), bHost(kM * kM);
  for (std::size_t i = 0; i < kN; ++i) {
    xHost[i] = static_cast<float>(i % 16);
    yHost[i] = static_cast<float>(i % 7);
  }
  for (std::size_t i = 0; i < kM * kM; ++i) {
    aHost[i] = static_cast<float>(i % 4);
    bHost[i] = static_cast<float>((i * 3) % 5);
  }
  cl_mem x = buffer(cl.context, cl.queue, xHost), y = buffer(cl.context, cl.queue, yHost);
  cl_mem a = buffer(cl.context, cl.queue, aHost), b = buffer(cl.context, cl.queue, bHost);
  cl_mem c = buffer(cl.context, cl.queue, std::vector<float>(kM * kM, 0.0f));
  cl_mem dot = buffer(cl.context, cl.queue, std::vector<float>(1, 0.0f));

  double wantDot = 0;
  for (float v : xHost) wantDot += static_cast<double>(v) * v;

  workload::timedRepetitions(reps, [&](int) {
    must(clblast::Axpy<float>(kN, 2.0f, x, 0, 1, y, 0, 1, &cl.queue), "Axpy");
    must(clblast::Axpy<float>(kN, -1.0f, x, 0, 1, y, 0, 1, &cl.queue), "Axpy");
    must(clblast::Dot<float>(kN, dot, 0, x, 0, 1, x, 0, 1, &cl.queue), "Dot");
    must(clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                              clblast::Transpose::kNo, kM, kM, kM, 1.0f, a, 0, kM, b, 0, kM,
                              1.0f, c, 0, kM, &cl.queue), "Gemm");
    float got = 0;
    must(clEnqueueReadBuffer(cl.queue, dot, CL_TRUE, 0, sizeof got, &got, 0, nullptr, nullptr),
         "read dot");
    if (got != wantDot) wrong("dot", got, wantDot);
  });

  std::vector<float> yOut(kN), cOut(kM * kM);
  must(clEnqueueReadBuffer(cl.queue, y, CL_TRUE, 0, kN * sizeof(float), yOut.data(), 0, nullptr,
                           nullptr), "read y");
  must(clEnqueueReadBuffer(cl.queue, c, CL_TRUE, 0, kM * kM * sizeof(float), cOut.data(), 0,
                           nullptr, nullptr), "read c");
  for (std::size_t i = 0; i < kN; ++i)
    if (yOut[i] != yHost[i] + static_cast<float>(reps + 1) * xHost[i])
      wrong("axpy", yOut[i], yHost[i] + static_cast<float>(reps + 1) * xHost[i]);
  for (std::size_t i = 0; i < kM; ++i)
    for (std::size_t j = 0; j < kM; ++j) {
      float want = 0;
      for (std::size_t k = 0; k < kM; ++k) want += aHost[i * kM + k] * bHost[k * kM + j];
      want *= static_cast<float>(reps + 1);
      if (cOut[i * kM + j] != want) wrong("gemm", cOut[i * kM + j], want);
    }
  for (cl_mem m : {x, y, a, b, c, dot}) clReleaseMemObject(m);
  return 0;
}
