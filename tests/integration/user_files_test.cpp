// Files hostkernel writes for the user (docs/profiling.md): the trace (HOSTKERNEL_TRACE)
// and the perf map (HOSTKERNEL_PERF_MAP, /tmp/perf-<pid>.map). Issue 24: both followed a
// symbolic link planted by another user and wrote through it (truncating or appending to
// a file the attacker chose), and the perf map was world-readable. The attacker is uid
// 65534 (setpriv); each test forks a child that launches and exits (user_files.cmake sets
// both variables), and the parent, which launches nothing, checks the files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hostkernel/hostkernel.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "support/child_kernel.hpp"
#include "support/file_text.hpp"

namespace {

const char *kSource = "kernel void one(global int *x) { x[get_global_id(0)] = 1; }";

// The child: one direct launch (its work-group library is loaded and mapped), then exit.
int Launch() {
  ChildKernel run;
  if (int failed = run.open(kSource, "one", 64)) return failed;
  const size_t global = 64, local = 16;
  if (hkEnqueueNDRangeKernel(run.cl.hk_queue, run.kernel, 1, nullptr, &global, &local, 0,
                             nullptr, nullptr) ||
      hkFinish(run.cl.hk_queue))
    return 13;
  return 0;
}

int asAttacker(const std::string &command) {
  return std::system(
      ("setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '" + command + "'").c_str());
}

class UserFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to act as a second user (setpriv)";
    if (std::system("command -v setpriv > /dev/null") != 0) GTEST_SKIP() << "no setpriv";
    trace_ = std::getenv("HOSTKERNEL_TRACE") ? std::getenv("HOSTKERNEL_TRACE") : "";
    if (trace_.empty()) GTEST_SKIP() << "HOSTKERNEL_TRACE unset (user_files.cmake sets it)";
    dir_ = trace_.substr(0, trace_.find_last_of('/'));
    victim_ = "/tmp/hk-user-files-victim-" + std::to_string(getpid());
    std::ofstream(victim_) << "precious";
    ::chmod(victim_.c_str(), 0644);
    // The trace's directory belongs to the attacker (a shared scratch directory, say).
    std::system(("rm -rf '" + dir_ + "'").c_str());
    ASSERT_EQ(::mkdir(dir_.c_str(), 0755), 0);
    ASSERT_EQ(::chown(dir_.c_str(), 65534, 65534), 0);
  }
  void TearDown() override {
    ::unlink(victim_.c_str());
    std::system(("rm -rf '" + dir_ + "'").c_str());
  }

  // Forks the child, runs `before(child pid)` while it waits, then lets it launch and exit.
  template <typename F>
  int RunChild(F before) {
    int go[2];
    if (::pipe(go) != 0) return -1;
    const pid_t pid = fork();
    if (pid == 0) {
      char c;
      ::close(go[1]);
      if (::read(go[0], &c, 1) != 1) _exit(20);
      std::exit(Launch());  // exit, not _exit: the trace is written at exit
    }
    ::close(go[0]);
    before(pid);
    ::write(go[1], "x", 1);
    ::close(go[1]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
  }

  std::string trace_, dir_, victim_;
};

TEST_F(UserFiles, TraceReplacesASymbolicLinkInsteadOfWritingThroughIt) {
  ASSERT_EQ(asAttacker("ln -s " + victim_ + " " + trace_), 0);
  ASSERT_EQ(RunChild([](pid_t) {}), 0);
  EXPECT_EQ(FileText(victim_), "precious");
  struct stat st;
  ASSERT_EQ(::lstat(trace_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(FileText(trace_).find("\"traceEvents\""), std::string::npos);
}

TEST_F(UserFiles, PerfMapIsPrivate) {
  std::string map;
  ASSERT_EQ(RunChild([&](pid_t pid) {
              map = "/tmp/perf-" + std::to_string(pid) + ".map";
              ::unlink(map.c_str());
            }),
            0);
  struct stat st;
  ASSERT_EQ(::lstat(map.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(FileText(map).find("_pocl_kernel_one_workgroup"), std::string::npos);
  ::unlink(map.c_str());
}

TEST_F(UserFiles, PerfMapDoesNotFollowALinkPlantedForThePid) {
  std::string map;
  ASSERT_EQ(RunChild([&](pid_t pid) {
              map = "/tmp/perf-" + std::to_string(pid) + ".map";
              ::unlink(map.c_str());
              asAttacker("ln -s " + victim_ + " " + map);
            }),
            0);
  EXPECT_EQ(FileText(victim_), "precious");
  ::unlink(map.c_str());
}

}  // namespace
