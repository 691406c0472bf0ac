// Cases that measure first times (category "latency", one operation per timed run:
// Case::once), each in processes of its own so that PoCL's kernel cache (POCL_CACHE_DIR)
// and hostkernel's program cache (HOSTKERNEL_CACHE_DIR, docs/cache.md) are private
// temporary directories, never the user's:
//
//   compile/new-kernel         a program never built before: build + first launch
//   compile/new-workgroupsize  an existing kernel's first launch with a new local size
//   first-kernel/cold-cache    a whole fresh process, both caches empty
//   first-kernel/warm-cache    a whole fresh process, both caches filled by an earlier one
//   first-kernel/script-20     a whole fresh process that builds and launches once each of
//                              20 distinct small kernels (a PyOpenCL script's shape)
//
// The child side is bench/first_launch.cpp; the processes, bench/subprocess.cpp.
#include "case_list.hpp"
#include "first_launch.hpp"
#include "opencl_env.hpp"
#include "subprocess.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hkbench {
namespace {

// Private caches for one path.
struct Caches {
  TempDir pocl{"pocl-cache"}, hostkernel{"hk-cache"};
  Env env() const {
    return {{"POCL_CACHE_DIR", pocl.path()}, {"HOSTKERNEL_CACHE_DIR", hostkernel.path()}};
  }
  void clear() {
    pocl.clear();
    hostkernel.clear();
  }
};

std::string replyValue(const std::string &reply, const std::string &what) {
  if (reply.rfind("ok", 0) != 0) throw std::runtime_error(what + ": " + reply);
  return reply.size() > 3 ? reply.substr(3) : std::string();
}

Output outputFromHex(const std::string &hex) {
  Output o;
  o.type = ElemType::F32;
  o.bytes.resize(hex.size() / 2);
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  for (std::size_t i = 0; i < o.bytes.size(); ++i)
    o.bytes[i] = static_cast<std::byte>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  return o;
}

// compile/*: a worker process per path.
Path workerPath(const std::string &mode, const std::string &name, const std::string &kernelsDir) {
  struct State {
    std::unique_ptr<Caches> caches;
    std::unique_ptr<Worker> worker;
    unsigned long ops = 0, direct = 0;
  };
  auto st = std::make_shared<State>();
  Path p;
  p.name = name;
  p.setup = [=] {
    st->caches = std::make_unique<Caches>();
    st->worker = std::make_unique<Worker>(
        std::vector<std::string>{"worker", mode, name, kernelsDir}, st->caches->env());
    replyValue(st->worker->request("setup"), "setup");
  };
  p.run = [=](std::uint64_t n) {
    st->direct += std::stoul(replyValue(st->worker->request("run " + std::to_string(n)), "run"));
    st->ops += n;
  };
  p.check = [=] { return outputFromHex(replyValue(st->worker->request("check"), "check")); };
  if (name == "hostkernel")
    p.note = [=] {
      return "direct " + std::to_string(st->direct) + " of " + std::to_string(st->ops);
    };
  return p;
}

// A latency case of whole operations, each measured once (no warm-up): the hostkernel
// path and the queue path, both made by `path(name, kernelsDir)`.
Case processCase(std::string caseName, std::string description,
                 std::function<Path(const std::string &, const std::string &)> path) {
  Case c;
  c.name = std::move(caseName);
  c.category = "latency";
  c.description = std::move(description);
  c.warmup = false;
  c.once = true;
  c.make = [path](OpenCLEnv &env) {
    return std::vector<Path>{path("hostkernel", env.kernelsDir()),
                             path("queue", env.kernelsDir())};
  };
  return c;
}

Case workerCase(std::string caseName, std::string mode, std::string description) {
  return processCase(std::move(caseName), std::move(description),
                     [mode](const std::string &name, const std::string &dir) {
                       return workerPath(mode, name, dir);
                     });
}

const Register kNewKernel{workerCase(
    "compile/new-kernel", "new-kernel",
    "axpy.cl + a unique constant (a program PoCL has not seen): create, build, create kernel, "
    "set args, first launch (global 1024, local 64) + finish, release; own caches")};

const Register kNewWorkGroupSize{workerCase(
    "compile/new-workgroupsize", "new-workgroupsize",
    "axpy built and launched once (local 64); one op = a launch with a local size not used "
    "before (1, 2, 3, ...; global 8x local) + finish: PoCL compiles a specialized variant")};

// first-kernel/*: one fresh process per operation, `mode` its child (bench/first_launch.hpp)
// making `launches` launches.
Path firstKernelPath(const std::string &name, bool warm, const std::string &kernelsDir,
                     const std::string &mode = "first-kernel", int launches = 1) {
  struct State {
    std::unique_ptr<Caches> caches;
    std::vector<double> inner_ms;   // program creation -> first launch finished
    std::vector<double> launch_ms;  // of which the first launch + finish
    unsigned long processes = 0, direct = 0;
  };
  auto st = std::make_shared<State>();
  auto once = [=] {
    ProcessResult r = runSelf({mode, name, kernelsDir}, st->caches->env());
    if (r.status != 0 || r.output.rfind("ok ", 0) != 0)
      throw std::runtime_error("first-kernel child (" + name + ") exit status " +
                               std::to_string(r.status) + ": " + r.output);
    std::istringstream in(r.output.substr(3));
    long long ns = 0, build_ns = 0, launch_ns = 0;
    int direct = 0;
    in >> ns >> direct >> build_ns >> launch_ns;
    st->inner_ms.push_back(static_cast<double>(ns) / 1e6);
    st->launch_ms.push_back(static_cast<double>(launch_ns) / 1e6);
    st->direct += static_cast<unsigned long>(direct);
    ++st->processes;
  };
  Path p;
  p.name = name;
  p.setup = [=] {
    st->caches = std::make_unique<Caches>();
    if (warm) {
      once();  // fills both caches
      st->inner_ms.clear();
      st->launch_ms.clear();
      st->processes = st->direct = 0;
    }
  };
  p.run = [=](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) {
      if (!warm && i > 0) st->caches->clear();  // runs of one op: cleared in quiesce
      once();
    }
  };
  if (!warm) p.quiesce = [=] { st->caches->clear(); };
  p.note = [=] {
    auto median = [](std::vector<double> v) {
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      return v[v.size() / 2];
    };
    if (st->inner_ms.empty()) return std::string();
    char buf[160];
    std::snprintf(buf, sizeof buf, "program->launch %.1f ms (launch %.2f ms)",
                  median(st->inner_ms), median(st->launch_ms));
    std::string s = buf;
    if (name == "hostkernel")
      s += ", direct " + std::to_string(st->direct) + " of " +
           std::to_string(st->processes * static_cast<unsigned long>(launches));
    return s;
  };
  return p;
}

Case firstKernelCase(std::string caseName, bool warm, std::string description) {
  return processCase(std::move(caseName), std::move(description),
                     [warm](const std::string &name, const std::string &dir) {
                       return firstKernelPath(name, warm, dir);
                     });
}

const Register kFirstCold{firstKernelCase(
    "first-kernel/cold-cache", false,
    "a fresh process (fork + exec to exit): platform, context, axpy.cl built, first launch "
    "(global 1024, local 64) + finish; PoCL's and hostkernel's caches empty")};

const Register kFirstWarm{firstKernelCase(
    "first-kernel/warm-cache", true,
    "the same fresh process with both caches filled by an earlier process of the same path")};

const Register kScript{processCase(
    "first-kernel/script-20",
    "a fresh process (fork + exec to exit) that creates, builds and launches once (global 4096, "
    "local 64) each of 20 distinct one-kernel programs, then finishes; both caches empty",
    [](const std::string &name, const std::string &dir) {
      return firstKernelPath(name, false, dir, "script-kernels", kScriptKernels);
    })};

}  // namespace
}  // namespace hkbench
