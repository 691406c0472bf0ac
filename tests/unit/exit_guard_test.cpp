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
std::atomic<bool> g_compile_holds{false};  // in the child: the compile holds its slot

void say(const char *what) { (void)!::write(g_out, what, std::strlen(what)); }

// Forks; the child runs `body` (which ends with exit) with g_out open. Returns what the
// child said; a child that did not exit (a signal ended it) fails the test.
template <typename F>
std::string saidByChild(F body) {
  int p[2];
  if (::pipe(p) != 0) {
    ADD_FAILURE() << "pipe failed";
    return "";
  }
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
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << "signal " << WTERMSIG(status) << ": " << said;
  return said;
}

// Forks; the child runs `prepare`, then `compile` on a thread of its own, and calls exit()
// as soon as `compile` has set g_compile_holds (holding its CompileSlot), so that exit
// begins while the compile runs. Returns what the child said, as saidByChild does.
template <typename Prepare, typename Compile>
std::string saidByChildExitingDuringCompile(Prepare prepare, Compile compile) {
  return saidByChild([&] {
    prepare();
    std::thread(compile).detach();
    while (!g_compile_holds.load()) sched_yield();
    std::exit(0);
  });
}

TEST(ExitGuard, ExitWaitsForARunningCompileBeforeTheDestructors) {
  const std::string said = saidByChildExitingDuringCompile(
      [] { std::atexit([] { say("destructors;"); }); },  // libLLVM's, registered at its load
      [] {
        hk::CompileSlot slot;
        if (!slot) return say("no slot;");
        say("compiling;");
        g_compile_holds.store(true);
        while (!hk::exitBegun()) sched_yield();  // the compile still runs when exit begins
        say(hk::beginCompile() ? "new slot;" : "new refused;");
        say("compiled;");
      });
  EXPECT_EQ(said, "compiling;new refused;compiled;destructors;");
}

// LLVM registers the destructors of statics a compile first uses during that compile,
// after the guard's exit handler: they run before it. The main thread's thread_local
// destructor, which exit() runs before every handler, must wait for the compile.
TEST(ExitGuard, ExitWaitsForACompileBeforeTheDestructorsRegisteredDuringIt) {
  const std::string said = saidByChildExitingDuringCompile(
      [] { hk::waitForCompilesAtThreadExit(); },
      [] {
        {
          hk::CompileSlot slot;
          if (!slot) return say("no slot;");
          std::atexit([] { say("destructors;"); });  // a static the compile first used
          g_compile_holds.store(true);
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          say("compiled;");
        }
        for (;;) pause();
      });
  EXPECT_EQ(said, "compiled;destructors;");
}

TEST(ExitGuard, NoCompileStartsOnceExitHasBegun) {
  const std::string said = saidByChild([] {
    std::atexit([] {  // runs after the guard's handler, as libLLVM's destructors do
      say(hk::beginCompile() ? "slot;" : "refused;");
      std::vector<hk::program::StackEstimate> out;
      hk::program::estimateKernelStacks({}, {"k"}, out);
      say((out[0].error + ";").c_str());
    });
    { hk::CompileSlot first; }  // installs the guard's exit handler
    std::exit(0);
  });
  EXPECT_EQ(said, "refused;the process is exiting;");
}

}  // namespace
