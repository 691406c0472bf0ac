// clFFT on PoCL: small 1-D complex transforms, repeated. The plans are baked once (as a
// program does); each repetition writes the signal, transforms it forward and back and
// reads it, so every transform is a few launches between a write and a read.
//
//   clfft-small [repetitions]
//
// The backward transform scales by 1/N, so the result is the input again: every element
// must be within 1e-3 of it (the inputs are integers below 16). One input element changes
// per repetition and is checked when the repetition's read returns. A wrong result prints
// "WRONG RESULT" and exits 1; the time of the repetitions after the first is printed as
// "loop_seconds S".
#include "workload.hpp"

#include <clFFT.h>

#include <cmath>
#include <vector>

namespace {

using workload::must;
using workload::wrong;

constexpr std::size_t kN = 1024;  // complex points per transform

clfftPlanHandle plan(cl_context context, cl_command_queue queue) {
  clfftPlanHandle p;
  const std::size_t lengths[1] = {kN};
  must(clfftCreateDefaultPlan(&p, context, CLFFT_1D, lengths), "clfftCreateDefaultPlan");
  must(clfftSetPlanPrecision(p, CLFFT_SINGLE), "clfftSetPlanPrecision");
  must(clfftSetLayout(p, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED), "clfftSetLayout");
  must(clfftSetResultLocation(p, CLFFT_OUTOFPLACE), "clfftSetResultLocation");
  must(clfftBakePlan(p, 1, &queue, nullptr, nullptr), "clfftBakePlan");
  return p;
}

}  // namespace

int main(int argc, char **argv) {
  const int reps = workload::repetitions(argc, argv, 12000);
  workload::PoclQueue cl;
  clfftSetupData setup;
  must(clfftInitSetupData(&setup), "clfftInitSetupData");
  must(clfftSetup(&setup), "clfftSetup");
  clfftPlanHandle p = plan(cl.context, cl.queue);

  const std::size_t bytes = 2 * kN * sizeof(float);
  std::vector<float> signal(2 * kN), back(2 * kN);
  for (std::size_t i = 0; i < 2 * kN; ++i) signal[i] = static_cast<float>((i * 7) % 16);
  cl_int err;
  cl_mem in = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  must(err, "clCreateBuffer");
  cl_mem freq = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  must(err, "clCreateBuffer");
  cl_mem out = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  must(err, "clCreateBuffer");

  workload::timedRepetitions(reps, [&](int r) {
    // One element changes per repetition, so a transform that was lost or ran on stale
    // data shows in the element checked below.
    const std::size_t at = static_cast<std::size_t>(r) % (2 * kN);
    signal[at] = static_cast<float>((r * 5) % 16);
    must(clEnqueueWriteBuffer(cl.queue, in, CL_FALSE, 0, bytes, signal.data(), 0, nullptr,
                              nullptr), "write");
    must(clfftEnqueueTransform(p, CLFFT_FORWARD, 1, &cl.queue, 0, nullptr, nullptr, &in, &freq,
                               nullptr), "forward");
    must(clfftEnqueueTransform(p, CLFFT_BACKWARD, 1, &cl.queue, 0, nullptr, nullptr, &freq, &out,
                               nullptr), "backward");
    must(clEnqueueReadBuffer(cl.queue, out, CL_TRUE, 0, bytes, back.data(), 0, nullptr, nullptr),
         "read");
    if (!(std::fabs(back[at] - signal[at]) < 1e-3f)) wrong("back[i]", back[at], signal[at]);
  });
  for (std::size_t i = 0; i < 2 * kN; ++i)
    if (!(std::fabs(back[i] - signal[i]) < 1e-3f)) wrong("back[i]", back[i], signal[i]);

  clfftDestroyPlan(&p);
  clfftTeardown();
  for (cl_mem m : {in, freq, out}) clReleaseMemObject(m);
  return 0;
}
