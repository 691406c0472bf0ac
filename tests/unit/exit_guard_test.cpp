// CompileSlot (src/base/exit_guard.hpp): exit() must not tear LLVM down under a compile
// hostkernel started. Issue 24: exit() while another thread launched crashed inside LLVM,
// compiling a specialized variant hostkernel had requested mid-run. Each test runs in a
// child process, which exits; an exit handler registered before the guard's stands for
// libLLVM's static destructors (registered when it was loaded, so run after the guard's).
#include "base/exit_guard.hpp"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "program/stack_estimate.hpp"

namespace {

int g_out = -1;  // the pipe to the parent, in the child

void say(const char *what) { (void)!::write(g_out, what, std::strlen(what)); }

// Forks; the child runs `body` (which ends with exit) with g_out open; returns what the
// child said and its exit status.
template <typename F>
std::string inChild(F body, int &status) {
  int p[2];
  if (::pipe(p) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    ::close(p[0]);
    g_out = p[1];
    ::alarm(120);  // ends the child only if it hangs
    body();
    _exit(99);  // body did not exit
  }
  ::close(p[1]);
  std::string said;
  char buf[256];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) said.append(buf, n);
  ::close(p[0]);
  waitpid(pid, &status, 0);
  return said;
}

TEST(ExitGuard, ExitWaitsForARunningCompileBeforeTheDestructors) {
  int status = 0;
  const std::string said = inChild(
      [] {
        std::atexit([] { say("destructors;"); });  // libLLVM's, registered at its load
        static std::atomic<bool> holding{false};
        std::thread([] {
          hk::CompileSlot slot;
          if (!slot) return say("no slot;");
          say("compiling;");
          holding.store(true);
          while (!hk::exitBegun()) sched_yield();  // the compile still runs when exit begins
          say(hk::beginCompile() ? "new slot;" : "new refused;");
          say("compiled;");
        }).detach();
        while (!holding.load()) sched_yield();
        std::exit(0);
      },
      status);
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status) << ": " << said;
  EXPECT_EQ(said, "compiling;new refused;compiled;destructors;");
}

// LLVM registers the destructors of statics a compile first uses during that compile,
// after the guard's exit handler: they run before it. The main thread's thread_local
// destructor, which exit() runs before every handler, must wait for the compile.
TEST(ExitGuard, ExitWaitsForACompileBeforeTheDestructorsRegisteredDuringIt) {
  int status = 0;
  const std::string said = inChild(
      [] {
        hk::waitForCompilesAtThreadExit();
        static std::atomic<bool> holding{false};
        std::thread([] {
          {
            hk::CompileSlot slot;
            if (!slot) return say("no slot;");
            std::atexit([] { say("destructors;"); });  // a static the compile first used
            holding.store(true);
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            say("compiled;");
          }
          for (;;) pause();
        }).detach();
        while (!holding.load()) sched_yield();
        std::exit(0);
      },
      status);
  ASSERT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status) << ": " << said;
  EXPECT_EQ(said, "compiled;destructors;");
}

TEST(ExitGuard, NoCompileStartsOnceExitHasBegun) {
  int status = 0;
  const std::string said = inChild(
      [] {
        std::atexit([] {  // runs after the guard's handler, as libLLVM's destructors do
          say(hk::beginCompile() ? "slot;" : "refused;");
          std::vector<hk::program::StackEstimate> out;
          hk::program::estimateKernelStacks({}, {"k"}, out);
          say((out[0].error + ";").c_str());
        });
        { hk::CompileSlot first; }  // installs the guard's exit handler
        std::exit(0);
      },
      status);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(said, "refused;the process is exiting;");
}

}  // namespace
