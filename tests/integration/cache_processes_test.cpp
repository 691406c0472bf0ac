// The persistent program cache (docs/cache.md) as a user sees it, one fresh process per
// step: every step runs in a new process (this executable again, fork + exec) with its own
// POCL_CACHE_DIR and HOSTKERNEL_CACHE_DIR, which both libraries read once, when they are
// loaded or first used. HK_CACHE_TEST_CHILD in the environment makes the executable a
// child: it launches the programs listed there and exits before gtest starts.
//
// Proof that a warm entry replaced PoCL's binary query: that query is what makes PoCL
// compile a kernel's generic work-group function into its kernel cache
// (<POCL_CACHE_DIR>/<hash>/<kernel>/0-0-0/<kernel>.so). A process with an empty PoCL
// cache whose direct launch leaves no such file never made the query.
#include <CL/cl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <hostkernel/hostkernel.h>
#include "support/launch_counts.hpp"
#include "support/pocl_device.hpp"

namespace fs = std::filesystem;

namespace {

// `fill` computes out[i] = v * MULT + i; MULT makes different programs (and sources).
std::string fillSource(int mult) {
  return "kernel void fill(global int *out, int v) {\n"
         "  size_t i = get_global_id(0);\n"
         "  out[i] = v * " + std::to_string(mult) + " + (int)i;\n}\n";
}

// In the child: builds the program, launches `fill` once directly, checks every element
// and that the launch did not go to PoCL's queue. Returns 0 or a failure code (and says
// why on stderr).
int launchFill(int mult, const std::string &source, const std::string &options) {
  auto fail = [](int code, const char *what) {
    std::fprintf(stderr, "child failure: %s\n", what);
    return code;
  };
  cl_device_id device;
  cl_int err = CL_SUCCESS;
  if (!FindPoclDevice(nullptr, &device)) return fail(10, "no device");
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, nullptr, &err);
  const char *text = source.c_str();
  cl_program p = hkCreateProgramWithSource(ctx, 1, &text, nullptr, &err);
  if (hkBuildProgram(p, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS)
    return fail(11, "build");
  cl_kernel k = hkCreateKernel(p, "fill", &err);
  if (!k) return fail(12, "kernel");
  // HK_CACHE_TEST_FSIZE: a file size limit from here on (PoCL's build writes large
  // temporary files; the first launch is where hostkernel writes its entry).
  if (const char *limit = std::getenv("HK_CACHE_TEST_FSIZE")) {
    const rlim_t n = std::strtoull(limit, nullptr, 10);
    struct rlimit rl = {n, n};
    setrlimit(RLIMIT_FSIZE, &rl);
  }
  constexpr size_t n = 1024;
  std::vector<int> host(n, -1);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, n * sizeof(int), host.data(), &err);
  int v = 7;
  size_t global = n, local = 64;
  if (hkSetKernelArg(k, 0, sizeof out, &out) != CL_SUCCESS ||
      hkSetKernelArg(k, 1, sizeof v, &v) != CL_SUCCESS ||
      hkEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr) !=
          CL_SUCCESS ||
      hkFinish(q) != CL_SUCCESS)
    return fail(13, "launch");
  for (size_t i = 0; i < n; ++i)
    if (host[i] != v * mult + int(i)) return fail(14, "wrong result");
  hk_launch_counts c{};
  if (hkGetKernelLaunchCounts(k, &c) != CL_SUCCESS || Direct(c) != 1)
    return fail(15, "launch did not run directly");
  hkReleaseKernel(k);
  hkReleaseMemObject(out);
  hkReleaseProgram(p);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}

int launchFill(int mult) { return launchFill(mult, fillSource(mult), ""); }

// Child mode: HK_CACHE_TEST_CHILD="3,4" launches fillSource(3) then fillSource(4);
// HK_CACHE_TEST_SOURCE / HK_CACHE_TEST_OPTIONS replace the source and build options.
[[gnu::constructor]] void childMode() {
  const char *list = std::getenv("HK_CACHE_TEST_CHILD");
  if (!list) return;
  const char *source = std::getenv("HK_CACHE_TEST_SOURCE");
  const char *options = std::getenv("HK_CACHE_TEST_OPTIONS");
  for (const char *p = list; *p;) {
    char *end = nullptr;
    const int mult = static_cast<int>(std::strtol(p, &end, 10));
    if (end == p) _exit(2);
    if (int rc = launchFill(mult, source ? source : fillSource(mult), options ? options : ""))
      _exit(rc);
    p = *end == ',' ? end + 1 : end;
  }
  std::fflush(nullptr);
  _exit(0);
}

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/hk-cache-it-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path); }
};

using Env = std::vector<std::pair<std::string, std::optional<std::string>>>;

struct ChildResult {
  int status = -1;
  std::string stderr_text;
  bool ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

// Runs this executable as a child (see childMode) that launches the programs of `mults`
// ("3,4"), with `env` applied (nullopt: unset).
ChildResult runChild(const Env &env, const std::string &mults) {
  char log_tmpl[] = "/tmp/hk-cache-it-log-XXXXXX";
  int log_fd = mkstemp(log_tmpl);
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(log_fd, 2);
    for (auto &[name, value] : env) {
      if (value) setenv(name.c_str(), value->c_str(), 1);
      else unsetenv(name.c_str());
    }
    setenv("HK_CACHE_TEST_CHILD", mults.c_str(), 1);
    execl("/proc/self/exe", "cache_processes_test", static_cast<char *>(nullptr));
    _exit(127);
  }
  ChildResult r;
  waitpid(pid, &r.status, 0);
  std::ifstream f(log_tmpl);
  r.stderr_text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  close(log_fd);
  unlink(log_tmpl);
  return r;
}

Env cacheEnv(const fs::path &pocl, const std::optional<std::string> &hk,
             const char *log = "info") {
  return {{"POCL_CACHE_DIR", pocl.string()}, {"HOSTKERNEL_CACHE_DIR", hk},
          {"HOSTKERNEL_LOG", std::string(log)}};
}

// Files PoCL's binary query leaves in its kernel cache: generic work-group libraries.
int genericLibraries(const fs::path &pocl_cache) {
  int n = 0;
  if (!fs::exists(pocl_cache)) return 0;
  for (auto &e : fs::recursive_directory_iterator(pocl_cache))
    if (e.path().filename() == "fill.so" && e.path().parent_path().filename() == "0-0-0") ++n;
  return n;
}

// The cache's entries (*.hkc), not its secret key.
std::vector<fs::path> entries(const fs::path &dir) {
  std::vector<fs::path> v;
  if (!fs::exists(dir)) return v;
  for (auto &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".hkc") v.push_back(e.path());
  return v;
}

std::string readBytes(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void writeBytes(const fs::path &p, const std::string &s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << s;
}

int count(const std::string &text, const std::string &what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(ProgramCacheProcesses, WarmEntrySkipsPoclsBinaryQuery) {
  TempDir hk, pocl_cold, pocl_fresh;
  auto r = runChild(cacheEnv(pocl_cold.path, hk.path.string()), "3");
  ASSERT_TRUE(r.ok()) << r.stderr_text;
  ASSERT_EQ(entries(hk.path).size(), 1u);
  // The cold process queried the binary: PoCL compiled the generic function.
  EXPECT_EQ(genericLibraries(pocl_cold.path), 1);

  r = runChild(cacheEnv(pocl_fresh.path, hk.path.string()), "3");
  ASSERT_TRUE(r.ok()) << r.stderr_text;
  EXPECT_EQ(genericLibraries(pocl_fresh.path), 0) << "the warm process queried the binary";
  EXPECT_EQ(entries(hk.path).size(), 1u);
  EXPECT_EQ(count(r.stderr_text, "ignoring"), 0) << r.stderr_text;
}

// The entry also carries the kernels' stack estimates (docs/stack.md): a warm process
// does not read the program's bitcode, and plans the same launch.
TEST(ProgramCacheProcesses, WarmEntryCarriesStackEstimates) {
  TempDir hk, pocl_cold, pocl_fresh;
  auto r = runChild(cacheEnv(pocl_cold.path, hk.path.string(), "debug"), "3");
  ASSERT_TRUE(r.ok()) << r.stderr_text;
  EXPECT_EQ(count(r.stderr_text, "read program.bc for stack estimates"), 1) << r.stderr_text;
  r = runChild(cacheEnv(pocl_fresh.path, hk.path.string(), "debug"), "3");
  ASSERT_TRUE(r.ok()) << r.stderr_text;
  EXPECT_EQ(count(r.stderr_text, "program cache: using"), 1) << r.stderr_text;
  EXPECT_EQ(count(r.stderr_text, "read program.bc"), 0) << r.stderr_text;
  EXPECT_EQ(count(r.stderr_text, "no stack estimate"), 0) << r.stderr_text;
}

TEST(ProgramCacheProcesses, CorruptOrTruncatedEntryIsIgnoredAndRewritten) {
  TempDir hk, pocl;
  ASSERT_TRUE(runChild(cacheEnv(pocl.path, hk.path.string()), "3").ok());
  ASSERT_EQ(entries(hk.path).size(), 1u);
  const fs::path entry = entries(hk.path)[0];
  const std::string good = readBytes(entry);
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x10;
  for (const std::string &bad : {flipped, good.substr(0, good.size() / 2)}) {
    writeBytes(entry, bad);
    TempDir pocl_fresh;
    auto r = runChild(cacheEnv(pocl_fresh.path, hk.path.string()), "3");
    ASSERT_TRUE(r.ok()) << r.stderr_text;
    EXPECT_EQ(count(r.stderr_text, "program cache: ignoring"), 1) << r.stderr_text;
    EXPECT_EQ(genericLibraries(pocl_fresh.path), 1);  // rebuilt through the binary query
    ASSERT_EQ(entries(hk.path).size(), 1u);
    EXPECT_NE(readBytes(entry), bad);
    // The rewritten entry is used by the next process.
    TempDir pocl_next;
    r = runChild(cacheEnv(pocl_next.path, hk.path.string()), "3");
    ASSERT_TRUE(r.ok()) << r.stderr_text;
    EXPECT_EQ(genericLibraries(pocl_next.path), 0);
    EXPECT_EQ(count(r.stderr_text, "ignoring"), 0) << r.stderr_text;
  }
}

TEST(ProgramCacheProcesses, ForeignEntryIsIgnored) {
  // Program A's entry stored under program B's name: B must still compute B.
  TempDir hk_a, hk_b, pocl;
  ASSERT_TRUE(runChild(cacheEnv(pocl.path, hk_a.path.string()), "3").ok());
  ASSERT_TRUE(runChild(cacheEnv(pocl.path, hk_b.path.string()), "5").ok());
  ASSERT_EQ(entries(hk_a.path).size(), 1u);
  ASSERT_EQ(entries(hk_b.path).size(), 1u);
  const fs::path b_entry = entries(hk_b.path)[0];
  ASSERT_NE(entries(hk_a.path)[0].filename(), b_entry.filename());
  const std::string a_bytes = readBytes(entries(hk_a.path)[0]);
  writeBytes(b_entry, a_bytes);
  TempDir pocl_fresh;
  auto r = runChild(cacheEnv(pocl_fresh.path, hk_b.path.string()), "5");
  ASSERT_TRUE(r.ok()) << r.stderr_text;  // checks v * 5 + i, not v * 3 + i
  EXPECT_EQ(count(r.stderr_text, "program cache: ignoring"), 1) << r.stderr_text;
  EXPECT_NE(readBytes(b_entry), a_bytes);
}

TEST(ProgramCacheProcesses, ProgramsThatIncludeFilesSeeTheirChanges) {
  // The key holds the source as written, not the header's contents: such programs must
  // not be served from the cache after the header changed.
  TempDir hk, pocl, inc;
  const std::string source = "#include \"mult.h\"\n"
                             "kernel void fill(global int *out, int v) {\n"
                             "  out[get_global_id(0)] = v * MULT + (int)get_global_id(0);\n}\n";
  const std::string options = "-I " + inc.path.string();
  for (int mult : {3, 4}) {
    writeBytes(inc.path / "mult.h", "#define MULT " + std::to_string(mult) + "\n");
    Env env = cacheEnv(pocl.path, hk.path.string());
    env.push_back({"HK_CACHE_TEST_SOURCE", source});
    env.push_back({"HK_CACHE_TEST_OPTIONS", options});
    auto r = runChild(env, std::to_string(mult));
    EXPECT_TRUE(r.ok()) << "MULT " << mult << ": " << r.stderr_text;
  }
}

TEST(ProgramCacheProcesses, LocationAndDisabling) {
  TempDir xdg, home;
  auto run = [&](std::optional<std::string> hk_dir, std::optional<std::string> xdg_dir) {
    TempDir pocl;
    Env env = cacheEnv(pocl.path, hk_dir);
    env.push_back({"XDG_CACHE_HOME", xdg_dir});
    env.push_back({"HOME", home.path.string()});
    auto r = runChild(env, "3");
    EXPECT_TRUE(r.ok()) << r.stderr_text;
  };
  {
    // In an empty working directory: "off" is not a relative directory name either.
    TempDir cwd;
    const fs::path old = fs::current_path();
    fs::current_path(cwd.path);
    run(std::string("off"), xdg.path.string());
    run(std::string(""), xdg.path.string());
    fs::current_path(old);
    EXPECT_TRUE(entries(cwd.path).empty());
  }
  EXPECT_FALSE(fs::exists(xdg.path / "hostkernel"));
  EXPECT_FALSE(fs::exists(home.path / ".cache"));
  run(std::nullopt, xdg.path.string());  // default: $XDG_CACHE_HOME/hostkernel
  EXPECT_EQ(entries(xdg.path / "hostkernel").size(), 1u);
  run(std::nullopt, std::nullopt);  // then ~/.cache/hostkernel
  EXPECT_EQ(entries(home.path / ".cache" / "hostkernel").size(), 1u);
}

TEST(ProgramCacheProcesses, UnwritableDirectoryWorksWithoutCacheAndSaysSoOnce) {
  TempDir tmp, pocl;
  writeBytes(tmp.path / "file", "x");
  const std::string hk = (tmp.path / "file" / "cache").string();  // cannot be created
  auto r = runChild(cacheEnv(pocl.path, hk, "warn"),
                    "3,4");
  ASSERT_TRUE(r.ok()) << r.stderr_text;
  EXPECT_EQ(count(r.stderr_text, "not written"), 1) << r.stderr_text;
}

TEST(ProgramCacheProcesses, FullDirectoryWorksWithoutCache) {
  // A file size limit stands in for a full file system (no mount needed): 16 KiB, less
  // than an entry (~48 KiB), more than the child's stderr log; set after the build (see
  // launchFill). PoCL's own cache is warmed first so that PoCL writes nothing at the
  // first launch.
  TempDir hk, pocl;
  ASSERT_TRUE(runChild(cacheEnv(pocl.path, "off"), "3").ok());
  Env env = cacheEnv(pocl.path, hk.path.string(), "warn");
  env.push_back({"HK_CACHE_TEST_FSIZE", "16384"});
  auto r = runChild(env, "3");
  ASSERT_TRUE(WIFEXITED(r.status)) << "ended by signal " << WTERMSIG(r.status);
  ASSERT_TRUE(r.ok()) << r.stderr_text;
  EXPECT_EQ(count(r.stderr_text, "not written"), 1) << r.stderr_text;
  EXPECT_TRUE(entries(hk.path).empty());  // no entry and no temporary file
}

}  // namespace
