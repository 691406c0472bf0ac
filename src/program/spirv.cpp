// SPIR-V → SPIR bitcode: structural checks and the forked child that runs LLVMSPIRVLib.
// No LLVM header here (spirv_llvm.cpp has them, with LLVM's compile flags).
#include "program/spirv.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdio_ext.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>

#include "base/fd_io.hpp"

namespace hk::program {
namespace {

constexpr std::uint32_t kMagic = 0x07230203;
constexpr std::uint32_t kMagicSwapped = 0x03022307;
constexpr std::uint32_t kIdBoundLimit = 0x3FFFFF;  // SPIR-V's universal limit
constexpr std::uint16_t kOpCapability = 17;
constexpr std::uint16_t kOpMemoryModel = 14;
constexpr std::uint16_t kOpEntryPoint = 15;
constexpr std::uint32_t kExecutionModelKernel = 6;
constexpr std::uint32_t kAddressingPhysical32 = 1;
constexpr std::uint32_t kAddressingPhysical64 = 2;
constexpr std::uint32_t kMemoryModelOpenCL = 2;

std::uint32_t word(std::span<const std::uint8_t> s, std::size_t i) {
  std::uint32_t w;
  std::memcpy(&w, s.data() + 4 * i, 4);
  return w;
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// ---- the forked child ------------------------------------------------------------------

bool readAll(int fd, std::string &out, std::size_t limit) {
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  std::size_t size = std::min<std::size_t>(static_cast<std::size_t>(st.st_size), limit);
  out.resize(size);
  out.resize(preadUpTo(fd, out.data(), size, 0));
  return true;
}

// Status bytes the child writes to the pipe before it exits.
constexpr char kChildOk = 'K';
constexpr char kChildError = 'E';

// Set in the child only: exit() called by the library ends the child at once.
bool g_translating_child = false;

void childAtExit() {
  if (!g_translating_child) return;
  const char text[] = "(the translator called exit())\n";
  (void)!write(STDERR_FILENO, text, sizeof text - 1);
  _exit(detail::kChildExitCalledExit);
}

void childOutOfMemory() {
  const char text[] = "out of memory\n";
  (void)!write(STDERR_FILENO, text, sizeof text - 1);
  _exit(detail::kChildExitOutOfMemory);
}

// The child's address space now (bytes), from /proc/self/statm; 0 if unknown.
std::size_t addressSpaceSize() {
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[128] = {};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  return static_cast<std::size_t>(std::strtoull(buf, nullptr, 10)) *
         static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

[[noreturn]] void childMain(std::span<const std::uint8_t> spirv, int out_fd, int log_fd,
                            int status_fd, std::size_t memory_limit, int native_checked,
                            bool output_spirv) {
  // A crash here is expected on malformed input: no core file, no inherited crash
  // handlers (a test framework's, a sanitizer's, LLVM's stack printer), and stderr (where
  // assertions print) goes to the log the parent reads.
  struct rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS})
    signal(sig, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The application's unflushed stdout is in this child too. Any output to std::cerr
  // flushes std::cout (tied), i.e. stdio's stdout, and the library reports errors on
  // std::cerr: drop the copy (the parent writes it) and send the child's stdout to the
  // log as well, so that nothing here writes the application's output a second time.
  __fpurge(stdout);
  std::cerr.tie(nullptr);  // and no flush of stdout at all (its lock may be held by a
                           // thread of the parent that does not exist here)
  dup2(log_fd, STDOUT_FILENO);
  dup2(log_fd, STDERR_FILENO);
  // Some malformed modules make the library allocate without bound.
  if (std::size_t now = addressSpaceSize()) {
    struct rlimit as{now + memory_limit, now + memory_limit};
    setrlimit(RLIMIT_AS, &as);
  }
  std::set_new_handler(childOutOfMemory);
  detail::installChildErrorHandlers();
  // The library reports errors with exit(): registered last, this handler runs first and
  // ends the child before the parent's atexit handlers and static destructors would run
  // here (and before stdio would flush the parent's pending output a second time).
  g_translating_child = true;
  std::atexit(childAtExit);

  std::vector<std::uint8_t> bitcode;
  std::string error;
  bool ok = detail::translateSpirvWithLlvm(spirv, bitcode, error, native_checked, output_spirv);
  bool written = ok ? writeAll(out_fd, bitcode.data(), bitcode.size())
                    : writeAll(out_fd, error.data(), error.size());
  char status = ok ? kChildOk : kChildError;
  if (written) writeAll(status_fd, &status, 1);
  _exit(0);  // no atexit handlers, no static destructors: they belong to the parent
}

// The interesting part of a crashed child's stderr: the assertion or LLVM error line.
std::string crashReason(const std::string &log) {
  std::size_t start = 0;
  std::string first;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    std::string line = log.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    if (first.empty()) first = line;
    if (line.find("Assertion") != std::string::npos ||
        line.find("LLVM ERROR") != std::string::npos)
      return line;
  }
  return first;
}

std::string signalName(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// What the translator child answered on its status pipe.
enum class ChildAnswer { Status, Died, TimedOut };

// Waits for the child's status byte on `fd` (into `status`), or for EOF when it dies,
// at most `timeout`. A poll that fails counts as a child that never answers.
ChildAnswer awaitStatusByte(int fd, std::chrono::milliseconds timeout, char &status) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return ChildAnswer::TimedOut;
    struct pollfd p{fd, POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ChildAnswer::TimedOut;
    if (r == 0) continue;
    ssize_t n = read(fd, &status, 1);
    if (n < 0 && errno == EINTR) continue;
    return n == 1 ? ChildAnswer::Status : ChildAnswer::Died;
  }
}

// The error of a child that ended without a status byte: how it ended (`reaped`: waitpid
// returned its `wstatus`), with the reason its log `log_fd` gives.
std::string childFailure(int log_fd, bool reaped, int wstatus, std::size_t memory_limit) {
  std::string text;
  readAll(log_fd, text, 64 * 1024);
  const std::string reason = crashReason(text);
  auto with = [&reason](std::string what) { return reason.empty() ? what : what + ": " + reason; };
  if (reaped && WIFEXITED(wstatus)) {
    switch (WEXITSTATUS(wstatus)) {
      case detail::kChildExitOutOfMemory:
        return "malformed SPIR-V: the translator ran out of memory (limit " +
               std::to_string(memory_limit >> 20) + " MiB)";
      case detail::kChildExitCalledExit:
      case detail::kChildExitFatal: return with("SPIR-V translation failed");
      default:
        return with("malformed SPIR-V: the translator exited with status " +
                    std::to_string(WEXITSTATUS(wstatus)));
    }
  }
  if (reaped && WIFSIGNALED(wstatus)) {
    return with("malformed SPIR-V: the translator crashed (" +
                signalName(WTERMSIG(wstatus)) + ")");
  }
  return with("malformed SPIR-V: the translator died");
}

// Translates `spirv` in a forked child (childMain), so that a malformed module that
// crashes, hangs or exhausts memory in the translator costs a child, never the
// application: the child answers with a status byte and the bitcode (or the error) in
// memory files, and is killed after `timeout`.
bool translateIsolated(std::span<const std::uint8_t> spirv, std::vector<std::uint8_t> &bitcode,
                       std::string &error, std::chrono::milliseconds timeout,
                       std::size_t memory_limit, int native_checked, bool output_spirv) {
  Fd out(memfd_create("hostkernel-spirv-out", MFD_CLOEXEC));
  Fd log(memfd_create("hostkernel-spirv-log", MFD_CLOEXEC));
  int pipe_fds[2];
  if (out.get() < 0 || log.get() < 0 || pipe2(pipe_fds, O_CLOEXEC) != 0) {
    error = std::string("cannot start the SPIR-V translator: ") + std::strerror(errno);
    return false;
  }
  Fd status_read(pipe_fds[0]), status_write(pipe_fds[1]);

  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("cannot start the SPIR-V translator: fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) childMain(spirv, out.get(), log.get(), status_write.get(), memory_limit,
                          native_checked, output_spirv);
  status_write.reset();

  char status = 0;
  const ChildAnswer answer = awaitStatusByte(status_read.get(), timeout, status);
  const bool timed_out = answer == ChildAnswer::TimedOut;
  const bool got_status = answer == ChildAnswer::Status;
  if (timed_out) kill(pid, SIGKILL);
  int wstatus = 0;
  pid_t waited;
  do {
    waited = waitpid(pid, &wstatus, 0);
  } while (waited < 0 && errno == EINTR);
  // (ECHILD when the application ignores SIGCHLD: the status byte alone decides.)

  if (timed_out) {
    error = "SPIR-V translation did not finish within " + std::to_string(timeout.count()) +
            " ms (malformed module?); translator stopped";
    return false;
  }
  if (got_status && status == kChildOk) {
    std::string bytes;
    if (!readAll(out.get(), bytes, SIZE_MAX)) {
      error = "cannot read the translated bitcode";
      return false;
    }
    bitcode.assign(bytes.begin(), bytes.end());
    return true;
  }
  if (got_status && status == kChildError) {
    readAll(out.get(), error, 64 * 1024);
    if (error.empty()) error = "SPIR-V translation failed";
    return false;
  }
  error = childFailure(log.get(), waited == pid, wstatus, memory_limit);
  return false;
}

// The module's header: its magic number, size, version, id bound and schema, and at least
// one instruction after it.
bool checkSpirvHeader(std::span<const std::uint8_t> s, std::string &error) {
  if (s.empty()) {
    error = "not SPIR-V: empty input";
    return false;
  }
  if (s.size() >= 4 && s[0] == 'B' && s[1] == 'C' && s[2] == 0xC0 && s[3] == 0xDE) {
    error = "not SPIR-V: this is LLVM bitcode (give it to clCreateProgramWithBinary)";
    return false;
  }
  if (s.size() >= 4) {
    std::uint32_t magic = word(s, 0);
    if (magic == kMagicSwapped) {
      error = "big-endian SPIR-V is not supported";
      return false;
    }
    if (magic != kMagic) {
      error = "not SPIR-V: bad magic number " + hex(magic) + " (expected 0x07230203)";
      return false;
    }
  }
  if (s.size() % 4 != 0) {
    error = "truncated SPIR-V: size " + std::to_string(s.size()) +
            " bytes is not a multiple of 4";
    return false;
  }
  std::size_t words = s.size() / 4;
  if (words < 5) {
    error = "truncated SPIR-V: " + std::to_string(s.size()) +
            " bytes, shorter than the 20-byte header";
    return false;
  }
  std::uint32_t version = word(s, 1);
  if ((version & 0xFF0000FFu) != 0 || ((version >> 16) & 0xFF) != 1) {
    error = "invalid SPIR-V version word " + hex(version);
    return false;
  }
  std::uint32_t bound = word(s, 3);
  if (bound == 0 || bound > kIdBoundLimit) {
    error = "invalid SPIR-V header: id bound " + std::to_string(bound);
    return false;
  }
  if (word(s, 4) != 0) {
    error = "invalid SPIR-V header: instruction schema " + std::to_string(word(s, 4));
    return false;
  }
  if (words == 5) {
    error = "SPIR-V module has no instructions";
    return false;
  }
  return true;
}

// OpMemoryModel: OpenCL's, with 64-bit physical addressing.
bool checkMemoryModel(std::uint32_t addressing, std::uint32_t model, std::string &error) {
  if (model != kMemoryModelOpenCL) {
    error = "not an OpenCL kernel module: memory model " + std::to_string(model) +
            " (OpenCL is 2)";
    return false;
  }
  if (addressing == kAddressingPhysical32) {
    error = "32-bit SPIR-V (addressing model Physical32) cannot run on this 64-bit "
            "device: compile for spir64";
    return false;
  }
  if (addressing != kAddressingPhysical64) {
    error = "unsupported SPIR-V addressing model " + std::to_string(addressing) +
            " (OpenCL kernels use Physical64)";
    return false;
  }
  return true;
}

}  // namespace

bool checkSpirvStructure(std::span<const std::uint8_t> s, std::string &error) {
  if (!checkSpirvHeader(s, error)) return false;
  const std::size_t words = s.size() / 4;
  bool memory_model = false;
  std::size_t index = 0;
  for (std::size_t i = 5; i < words; ++index) {
    std::uint32_t w = word(s, i);
    std::uint32_t count = w >> 16;
    std::uint16_t op = static_cast<std::uint16_t>(w & 0xFFFF);
    std::string where = "instruction " + std::to_string(index) + " (opcode " +
                        std::to_string(op) + ", word " + std::to_string(i) + ")";
    if (count == 0) {
      error = "malformed SPIR-V: " + where + " has a word count of 0";
      return false;
    }
    if (i + count > words) {
      error = "truncated SPIR-V: " + where + " needs " + std::to_string(count) +
              " words, " + std::to_string(words - i) + " left";
      return false;
    }
    if (index == 0 && op != kOpCapability) {
      error = "malformed SPIR-V: the module does not start with OpCapability";
      return false;
    }
    if (op == kOpMemoryModel) {
      if (memory_model || count != 3) {
        error = "malformed SPIR-V: " + where + ": bad OpMemoryModel";
        return false;
      }
      memory_model = true;
      if (!checkMemoryModel(word(s, i + 1), word(s, i + 2), error)) return false;
    }
    if (op == kOpEntryPoint && count >= 2 && word(s, i + 1) != kExecutionModelKernel) {
      error = "not an OpenCL kernel module: entry point with execution model " +
              std::to_string(word(s, i + 1)) + " (Kernel is 6)";
      return false;
    }
    i += count;
  }
  if (!memory_model) {
    error = "malformed SPIR-V: no OpMemoryModel";
    return false;
  }
  return true;
}

bool spirvToSpirBitcode(std::span<const std::uint8_t> spirv, std::vector<std::uint8_t> &bitcode,
                        std::string &error, const SpirvTranslateOptions &options) {
  bitcode.clear();
  error.clear();
  if (!checkSpirvStructure(spirv, error)) return false;
  bool ok = options.isolate ? translateIsolated(spirv, bitcode, error, options.timeout,
                                                options.memory_limit, options.native_checked,
                                                options.output_spirv)
                            : detail::translateSpirvWithLlvm(spirv, bitcode, error,
                                                             options.native_checked,
                                                             options.output_spirv);
  if (!ok) bitcode.clear();
  return ok;
}

bool spirvToSpirBitcode(std::span<const std::uint8_t> spirv, std::vector<std::uint8_t> &bitcode,
                        std::string &error) {
  return spirvToSpirBitcode(spirv, bitcode, error, SpirvTranslateOptions{});
}

}  // namespace hk::program
