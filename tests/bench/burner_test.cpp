// pocl-launch-bench --burner: the burning process (bench/burner.hpp) burns while its
// Burner lives and never outlives it, nor the process that made it, however that ends.
#include "burner.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace hkbench {
namespace {

using namespace std::chrono_literals;

// /proc/<pid>/stat: the state letter and utime + stime in clock ticks; state '-' if there
// is no such process.
struct Stat {
  char state = '-';
  long long cpuTicks = 0;
};

Stat statOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  // The command may hold spaces: the fields after it start behind the last ')'.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  Stat s;
  std::string skip;
  rest >> s.state;
  for (int field = 4; field <= 13; ++field) rest >> skip;
  long long utime = 0, stime = 0;
  rest >> utime >> stime;
  s.cpuTicks = utime + stime;
  return s;
}

std::string commOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string comm;
  std::getline(in, comm);
  return comm;
}

// A process that is gone, or a zombie nobody reaped yet: it burns nothing.
bool burning(pid_t pid) {
  const char state = statOf(pid).state;
  return state != '-' && state != 'Z' && state != 'X';
}

// True if there is no such process (killed and reaped); otherwise kills it, so that a
// failed test leaves no burner behind, and returns false.
bool reaped(pid_t pid) {
  if (statOf(pid).state == '-') return true;
  kill(pid, SIGKILL);
  return false;
}

// Waits up to 10 s for the process to stop burning; if it does not, kills it (a failed
// test leaves no burner behind) and returns false.
bool stopsBurning(pid_t pid) {
  for (auto end = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < end;
       std::this_thread::sleep_for(10ms))
    if (!burning(pid)) return true;
  kill(pid, SIGKILL);
  return false;
}

// Runs `owner` in a child process that makes a Burner and sends its pid up a pipe before
// `owner` ends the child some way; returns the burner's pid once the child is gone.
template <class Owner>
pid_t burnerOfDeadOwner(Owner owner) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    Burner b;
    const pid_t pid = b.pid();
    // Once the burner runs the shell, it has set its death signal: the owner's death is
    // then what ends it (and not its check of the parent right after fork).
    for (auto end = std::chrono::steady_clock::now() + 10s;
         commOf(pid) != "sh" && std::chrono::steady_clock::now() < end;)
      std::this_thread::sleep_for(1ms);
    if (write(fds[1], &pid, sizeof pid) != sizeof pid) std::_Exit(3);
    owner(b);
    std::_Exit(4);
  }
  close(fds[1]);
  pid_t burner = -1;
  EXPECT_EQ(read(fds[0], &burner, sizeof burner), static_cast<ssize_t>(sizeof burner));
  close(fds[0]);
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  return burner;
}

TEST(Burner, BurnsUntilStopped) {
  Burner b;
  ASSERT_GT(b.pid(), 0);
  // It gets CPU time (however busy the machine: wait up to 10 s for a few ticks).
  bool burned = false;
  for (auto end = std::chrono::steady_clock::now() + 10s;
       !burned && std::chrono::steady_clock::now() < end; std::this_thread::sleep_for(20ms))
    burned = statOf(b.pid()).cpuTicks >= 3;
  EXPECT_TRUE(burned);
  EXPECT_TRUE(b.stop());
  EXPECT_TRUE(reaped(b.pid()));
  EXPECT_TRUE(b.stop());  // the first answer again
}

TEST(Burner, DestructorStopsIt) {
  pid_t pid;
  {
    Burner b;
    pid = b.pid();
    ASSERT_TRUE(burning(pid));
  }
  EXPECT_TRUE(reaped(pid));
}

TEST(Burner, StopSaysWhenItHadDied) {
  Burner b;
  ASSERT_EQ(kill(b.pid(), SIGKILL), 0);
  ASSERT_TRUE(stopsBurning(b.pid()));
  EXPECT_FALSE(b.stop());
  EXPECT_TRUE(reaped(b.pid()));
}

TEST(Burner, DiesWhenItsOwnerIsKilled) {
  const pid_t pid = burnerOfDeadOwner([](Burner &) { raise(SIGKILL); });
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(stopsBurning(pid));
}

TEST(Burner, DiesWhenItsOwnerIsTerminated) {
  const pid_t pid = burnerOfDeadOwner([](Burner &) { raise(SIGTERM); });
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(stopsBurning(pid));
}

TEST(Burner, DiesWhenItsOwnerExitsWithoutDestructors) {
  const pid_t pid = burnerOfDeadOwner([](Burner &) { std::_Exit(0); });
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(stopsBurning(pid));
}

}  // namespace
}  // namespace hkbench
