// exit() while another thread's launch compiles a program (issue 24, base/exit_guard.hpp).
// The first direct launch of a cold program takes the program's binary, which makes PoCL
// compile every kernel with LLVM on the launching thread. The main thread calls exit()
// while that compile runs. exit() runs the destructors of LLVM's statics; those that the
// compile itself first used were registered after hostkernel's exit handler and so run
// before it: the main thread must wait for the compile in its thread_local destructor,
// which exit() runs before every handler. Without that wait the child dies of SIGSEGV
// inside LLVM's code generator.
//
// Each run is a forked child with a PoCL cache of its own and a program no cache can hold
// (its source names the child's pid), so the compile always runs. ctest runs the test with
// HOSTKERNEL_FIRST_LAUNCH=direct (tests/CMakeLists.txt): the launch takes the binary. The child's main thread
// exits a fixed time after the launch has begun: the test passes whatever the compile's
// length; it can only catch the fault when the compile is still running then, which it
// is for a program of this size.
#include <hostkernel/hostkernel.hpp>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "support/temp_dir.hpp"

namespace {

// Kernels whose code generation takes a while: chains of sin and cos, inlined by PoCL.
std::string slowToCompileSource(int kernels, int lines) {
  std::string s = "constant float kRun = " + std::to_string(getpid()) + ".0f;\n";
  for (int j = 0; j < kernels; ++j) {
    s += "kernel void k" + std::to_string(j) + "(global float *o, float v) {\n" +
         "  float x = o[get_global_id(0)] + kRun;\n";
    for (int t = 0; t < lines; ++t)
      s += "  x = sin(x * " + std::to_string(t + j) + ".5f + v) + cos(x) * " +
           std::to_string(t) + ".25f;\n";
    s += "  o[get_global_id(0)] = x;\n}\n";
  }
  return s;
}

// In the child: builds the program on the main thread, starts its first launch on
// another, and exits from the main thread while the launch compiles.
[[noreturn]] void exitWhileAnotherThreadCompiles(const std::string &dir, int after_ms) {
  setenv("POCL_CACHE_DIR", dir.c_str(), 1);  // PoCL starts in the child: read from here
  alarm(120);                                // ends the child only if it hangs
  hk::Runtime &rt = hk::Runtime::get();
  // Never destroyed: exit() must not release what the other thread launches with.
  auto *program = new hk::Program(hk::Program::fromSource(rt, slowToCompileSource(6, 10)));
  auto *out = new hk::Buffer<float>(rt, 1024);
  auto *launching = new std::atomic<bool>(false);
  std::thread([=] {
    hk::Kernel k(*program, "k0");
    launching->store(true);
    k.launch({1024}, {64}, *out, 1.0f);
    for (;;) pause();  // touches nothing while the process tears down
  }).detach();
  while (!launching->load()) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
  std::exit(0);
}

TEST(ExitDuringCompile, ExitWhileAnotherThreadCompilesDoesNotCrash) {
  TempDir dir("hk-exit-during-compile");
  // Exits at different points of the compile: a run catches the fault only when a static
  // destroyed early is used again before the compile ends.
  const int exit_after_ms[] = {100, 400, 1200};
  for (int run = 0; run < 3; ++run) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0)
      exitWhileAnotherThreadCompiles(dir.path + "/" + std::to_string(run), exit_after_ms[run]);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "run " << run << ": the child died of signal "
                                   << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "run " << run;
  }
}

}  // namespace
