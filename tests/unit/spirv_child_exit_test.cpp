// Regression (found by fuzz/spirv_fuzz): on some malformed modules LLVMSPIRVLib 15 reports
// the error by calling exit(<SPIRV error code>) (11 InvalidModule, 13 UnimplementedOpCode)
// in the forked translator child. exit() in a fork child runs the *application's* atexit
// handlers and flushes the *application's* stdio buffers, which the child inherited: text
// the application had printf'ed but not yet flushed appears twice in its output, and its
// atexit handlers (removing files, writing reports, hostkernel's own HOSTKERNEL_REPORT)
// run in a process that is not the application. spirv.hpp promises the opposite ("no
// atexit handlers, no static destructors: they belong to the parent").
//
// The inputs are in fuzz/regressions/spirv_fuzz/. Each check runs in a forked process of
// its own whose stdout is a file (fully buffered, like a pipe or a redirect).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "program/spirv.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kRegressions =
    fs::path(HK_KERNELS_DIR) / ".." / "fuzz" / "regressions" / "spirv_fuzz";

std::string readText(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

int g_marker_fd = -1;  // where the atexit handler writes (not stdio: that is under test)
pid_t g_main_pid = 0;

void atexitHandler() {
  if (getpid() == g_main_pid) return;
  const char msg[] = "atexit handler ran in another process\n";
  if (write(g_marker_fd, msg, sizeof msg - 1) < 0) {
  }
}

// In a forked process: stdout to `out`, one buffered line, an atexit handler, then the
// translation of `module`. Returns the translation error (written to `err_path`).
[[noreturn]] void translateWithBufferedOutput(const std::vector<std::uint8_t> &module,
                                              const std::string &out, const std::string &marker,
                                              const std::string &err_path) {
  if (!std::freopen(out.c_str(), "w", stdout)) _exit(90);
  std::setvbuf(stdout, nullptr, _IOFBF, 1 << 16);
  g_marker_fd = open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
  g_main_pid = getpid();
  std::atexit(atexitHandler);
  std::printf("application output before the translation\n");  // still in the buffer
  std::vector<std::uint8_t> bitcode;
  std::string error;
  const bool ok = hk::program::spirvToSpirBitcode(module, bitcode, error);
  std::ofstream(err_path) << (ok ? std::string("translated") : error);
  std::fflush(stdout);
  _exit(0);
}

TEST(SpirvChildExit, TranslatorExitInTheChildRunsNoAtexitHandlerAndFlushesNoBuffer) {
  std::vector<fs::path> inputs;
  if (fs::is_directory(kRegressions))
    for (const auto &e : fs::directory_iterator(kRegressions))
      if (e.path().filename().string().rfind("translator-exits-", 0) == 0) inputs.push_back(e.path());
  ASSERT_FALSE(inputs.empty()) << "no translator-exits-* inputs in " << kRegressions;
  const std::string dir = fs::temp_directory_path() / ("hk-spirv-exit-" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (const fs::path &input : inputs) {
    std::ifstream f(input, std::ios::binary);
    const std::vector<std::uint8_t> module{std::istreambuf_iterator<char>(f),
                                           std::istreambuf_iterator<char>()};
    const std::string out = dir + "/stdout", marker = dir + "/marker", err = dir + "/error";
    fs::remove(out);
    fs::remove(marker);
    fs::remove(err);
    std::fflush(nullptr);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) translateWithBufferedOutput(module, out, marker, err);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << input;
    const std::string error = readText(err);
    EXPECT_NE(error, "translated") << input << ": expected a malformed module";
    const std::string text = readText(out);
    size_t copies = 0;
    for (size_t at = text.find("application output"); at != std::string::npos;
         at = text.find("application output", at + 1))
      ++copies;
    EXPECT_EQ(copies, 1u) << input.filename() << " (" << error
                          << "): the application's buffered output was written " << copies
                          << " times:\n" << text;
    EXPECT_EQ(readText(marker), "") << input.filename() << " (" << error << ")";
  }
  fs::remove_all(dir);
}

}  // namespace
