#include "burner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace hkbench {

Burner::Burner() {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("burner: fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec: the bench may have threads.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
    // Nothing of the bench's standard streams: whoever reads the bench's output through a
    // pipe sees its end when the bench ends, not when the burner does.
    const int null = open("/dev/null", O_RDWR);
    if (null < 0) _exit(1);
    for (int fd = 0; fd <= 2; ++fd) dup2(null, fd);
    if (null > 2) close(null);
    // A loop of shell builtins: no system calls, one whole CPU. exec also ends the
    // copy-on-write sharing of the bench's pages that fork began (the bench would
    // otherwise pay a page fault on its next write to each of them).
    execl("/bin/sh", "sh", "-c", "while :; do :; done", static_cast<char *>(nullptr));
    _exit(127);
  }
  pid_ = pid;
}

Burner::~Burner() { stop(); }

bool Burner::stop() {
  if (stopped_ || pid_ <= 0) return wasRunning_;
  stopped_ = true;
  int status = 0;
  pid_t r;
  while ((r = waitpid(pid_, &status, WNOHANG)) < 0 && errno == EINTR) {
  }
  if (r == pid_ || r < 0) return wasRunning_ = false;  // it had ended, or is not ours
  wasRunning_ = true;
  kill(pid_, SIGKILL);
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  return wasRunning_;
}

}  // namespace hkbench
