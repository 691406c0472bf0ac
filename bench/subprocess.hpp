// Child processes of the bench itself, for cases that need a fresh process or private
// PoCL and hostkernel caches (compile/*, first-kernel/*): the executable runs again with a
// hidden first argument (`--internal-child ...`, handled by childMain in first_launch.cpp).
//
//   hkbench::TempDir pocl("pocl-cache");                           // removed with the object
//   hkbench::Env env{{"POCL_CACHE_DIR", pocl.path()}};
//   hkbench::ProcessResult r = hkbench::runSelf({"first-kernel", "queue"}, env);
//   if (r.status != 0) throw std::runtime_error(r.output);
//
//   hkbench::Worker w({"worker", "compile/new-kernel", "hostkernel"}, env);
//   std::string reply = w.request("run 3");                        // one line each way
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace hkbench {

using Env = std::vector<std::pair<std::string, std::string>>;

// A new empty directory under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string &tag);
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return path_; }
  // Removes the contents, keeps the (now empty) directory.
  void clear();

 private:
  std::string path_;
};

struct ProcessResult {
  int status = -1;     // exit status, or 128 + signal
  std::string output;  // stdout
};

// Runs this executable with `--internal-child args...` and `env` added to the environment;
// waits for it.
ProcessResult runSelf(const std::vector<std::string> &args, const Env &env);

// Runs this executable with `args` (after `--internal-child` only when `internal`); waits.
ProcessResult runSelfCommand(const std::vector<std::string> &args, const Env &env = {},
                             bool internal = false);

// This executable with `--internal-child args...` as a server: one request line in, one
// reply line out. The child ends when the Worker is destroyed (its stdin closes).
class Worker {
 public:
  Worker(const std::vector<std::string> &args, const Env &env);
  ~Worker();
  Worker(const Worker &) = delete;
  Worker &operator=(const Worker &) = delete;
  // Sends `line`, returns the reply without its newline; throws if the child died.
  std::string request(const std::string &line);

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffered_;
};

}  // namespace hkbench
