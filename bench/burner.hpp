// --burner: one CPU-burning process beside the cases, so that every path of every case is
// timed under the same load (a neighbour that wants a whole CPU all the time).
//
//   {
//     hkbench::Burner burner;        // fork + exec of `sh -c 'while :; do :; done'`
//     std::printf("%d\n", burner.pid());
//     ... run the cases ...
//     bool ok = burner.stop();       // false if it had died before: the run was not loaded
//   }                                // the destructor stops it too
//
// The burner must never outlive the bench, however the bench ends:
// - stop() and the destructor kill it (SIGKILL) and reap it;
// - it is started with PR_SET_PDEATHSIG = SIGKILL, so the kernel kills it when the thread
//   that made it ends: on a signal that kills the bench (SIGINT, SIGTERM, SIGKILL, a crash),
//   on exit() and std::_Exit() alike. Make the Burner on the main thread, which lives as long
//   as the process;
// - between fork and prctl the bench may already have died: the child then finds another
//   parent (getppid) and exits instead of burning.
// It is pinned to nothing and inherits the bench's nice value.
#pragma once

#include <sys/types.h>

namespace hkbench {

class Burner {
 public:
  Burner();  // throws std::runtime_error if fork fails
  ~Burner();
  Burner(const Burner &) = delete;
  Burner &operator=(const Burner &) = delete;

  pid_t pid() const { return pid_; }
  // Kills and reaps the burner; true if it was still running (burning) until then.
  // Later calls return the first call's answer.
  bool stop();

 private:
  pid_t pid_ = -1;
  bool stopped_ = false;
  bool wasRunning_ = false;
};

}  // namespace hkbench
