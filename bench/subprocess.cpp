#include "subprocess.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace hkbench {
namespace {

std::string selfExe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the bench executable (/proc/self/exe)");
  return std::string(buf, static_cast<std::size_t>(n));
}

// fork + exec of this executable (with `--internal-child` first when `internal`); the
// child's stdin/stdout are `in`/`out` (-1: inherit).
pid_t spawnSelf(const std::vector<std::string> &args, const Env &env, int in, int out,
                int close_in_child, bool internal = true) {
  const std::string exe = selfExe();
  std::vector<std::string> argv_s{exe};
  if (internal) argv_s.push_back("--internal-child");
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (auto &a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (in >= 0) dup2(in, 0);
    if (out >= 0) dup2(out, 1);
    if (close_in_child >= 0) close(close_in_child);
    for (auto &[name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

int waitStatus(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

TempDir::TempDir(const std::string &tag) {
  const char *tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/hkbench-" + tag + "-XXXXXX";
  if (!mkdtemp(tmpl.data()))
    throw std::runtime_error("mkdtemp(" + tmpl + "): " + std::strerror(errno));
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void TempDir::clear() {
  std::error_code ec;
  for (auto &e : std::filesystem::directory_iterator(path_, ec))
    std::filesystem::remove_all(e.path(), ec);
}

ProcessResult runSelf(const std::vector<std::string> &args, const Env &env) {
  return runSelfCommand(args, env, true);
}

ProcessResult runSelfCommand(const std::vector<std::string> &args, const Env &env,
                             bool internal) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = spawnSelf(args, env, -1, fds[1], fds[0], internal);
  close(fds[1]);
  ProcessResult r;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    r.output.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  r.status = waitStatus(pid);
  return r;
}

Worker::Worker(const std::vector<std::string> &args, const Env &env) {
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  pid_ = spawnSelf(args, env, down[0], up[1], -1);
  close(down[0]);
  close(up[1]);
  to_ = down[1];
  from_ = up[0];
}

Worker::~Worker() {
  if (to_ >= 0) close(to_);  // the child reads EOF and exits
  if (from_ >= 0) close(from_);
  if (pid_ > 0) waitStatus(pid_);
}

std::string Worker::request(const std::string &line) {
  // SIGPIPE if the child died: ignore it here, the write then fails with EPIPE.
  struct sigaction ign {}, old {};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old);
  const std::string msg = line + "\n";
  std::size_t done = 0;
  while (done < msg.size()) {
    const ssize_t n = write(to_, msg.data() + done, msg.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      sigaction(SIGPIPE, &old, nullptr);
      throw std::runtime_error("bench child process is gone");
    }
    done += static_cast<std::size_t>(n);
  }
  sigaction(SIGPIPE, &old, nullptr);
  for (;;) {
    if (auto nl = buffered_.find('\n'); nl != std::string::npos) {
      std::string reply = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return reply;
    }
    char buf[4096];
    const ssize_t n = read(from_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("bench child process ended without a reply");
    buffered_.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace hkbench
