// pocl-launch-bench: kernel-launch cost through hostkernel vs PoCL's own queue.
// The command line only; cases live in cases_*.cpp, the timing in runner.cpp.
#include "opencl_env.hpp"
#include "registry.hpp"
#include "report.hpp"
#include "runner.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#ifndef HK_KERNELS_DIR
#define HK_KERNELS_DIR "kernels"
#endif

namespace {

constexpr const char *kUsage = R"(usage: pocl-launch-bench [options]

Times kernel launches through hostkernel (hk* C API) and through PoCL's queue (cl*),
interleaving the paths run by run. Per operation (launch + finish): median, min and max
over the runs; ratio = baseline (queue) median / path median.

  --list                 list the cases and exit
  --filter REGEX         run the cases whose name matches (search), e.g. 'launch/'
  --paths REGEX          run only the paths whose name matches, e.g. '^hostkernel$'
  --runs N               timed runs per path (default 31; --quick: 5)
  --quick                few runs, short warm-up and batches: finishes in seconds
  --batch-ms X           a timed run lasts at least X ms (default 1; --quick: 0.5)
  --warmup-ms X          warm-up per path after its first launch (default 50; --quick: 5)
  --json FILE            also write {"results":[{name,category,path,median_ns,...}]}
  --kernels-dir DIR      OpenCL C sources (default: the repository's kernels/)
  --verbose              progress on stderr
  --callgrind-trivial PATH N
                         only: set up launch/trivial on PATH (hostkernel|queue), run
                         --callgrind-warmup M launches (default 200), then N launches, exit.
                         Run it under callgrind twice (N1, N2): the difference of the
                         instruction totals / (N2 - N1) is the cost of one steady-state
                         launch (scripts/callgrind-launch.sh).
  --help                 this text

Exit status: 0 all cases ran and every path's output matched; 1 a check failed or a case
could not run; 2 bad command line.
)";

struct Options {
  bool list = false;
  bool quick = false;
  bool runsGiven = false, batchGiven = false, warmupGiven = false;
  std::string filter = ".*";
  std::string paths = ".*";
  std::string json;
  std::string kernelsDir = HK_KERNELS_DIR;
  hkbench::RunConfig cfg;
  std::string callgrindPath;
  std::uint64_t callgrindN = 0;
  std::uint64_t callgrindWarmup = 200;
};

[[noreturn]] void usageError(const std::string &msg) {
  std::fprintf(stderr, "pocl-launch-bench: %s (see --help)\n", msg.c_str());
  std::exit(2);
}

std::uint64_t parseCount(const std::string &opt, const std::string &s, std::uint64_t min) {
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(s, &used);
    if (used == s.size() && v >= min && s[0] != '-') return v;
  } catch (const std::exception &) {
  }
  usageError(opt + " wants an integer >= " + std::to_string(min) + ", got '" + s + "'");
}

double parseMs(const std::string &opt, const std::string &s) {
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && v >= 0) return v;
  } catch (const std::exception &) {
  }
  usageError(opt + " wants a non-negative number, got '" + s + "'");
}

std::regex parseRegex(const std::string &opt, const std::string &s) {
  try {
    return std::regex(s, std::regex::ECMAScript);
  } catch (const std::regex_error &e) {
    usageError(opt + ": bad regex '" + s + "': " + e.what());
  }
}

Options parse(int argc, char **argv) {
  Options o;
  std::vector<std::string> a(argv + 1, argv + argc);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string &opt = a[i];
    auto value = [&]() -> const std::string & {
      if (i + 1 >= a.size()) usageError(opt + " needs a value");
      return a[++i];
    };
    if (opt == "--help" || opt == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (opt == "--list") {
      o.list = true;
    } else if (opt == "--quick") {
      o.quick = true;
    } else if (opt == "--verbose" || opt == "-v") {
      o.cfg.verbose = true;
    } else if (opt == "--filter") {
      o.filter = value();
    } else if (opt == "--paths") {
      o.paths = value();
    } else if (opt == "--runs") {
      o.cfg.runs = static_cast<int>(parseCount(opt, value(), 1));
      o.runsGiven = true;
    } else if (opt == "--batch-ms") {
      o.cfg.batchMs = parseMs(opt, value());
      o.batchGiven = true;
    } else if (opt == "--warmup-ms") {
      o.cfg.warmupMs = parseMs(opt, value());
      o.warmupGiven = true;
    } else if (opt == "--json") {
      o.json = value();
    } else if (opt == "--kernels-dir") {
      o.kernelsDir = value();
    } else if (opt == "--callgrind-trivial") {
      o.callgrindPath = value();
      o.callgrindN = parseCount(opt, value(), 0);
      if (o.callgrindPath.empty()) usageError("--callgrind-trivial needs a path name");
    } else if (opt == "--callgrind-warmup") {
      o.callgrindWarmup = parseCount(opt, value(), 0);
    } else {
      usageError("unknown option '" + opt + "'");
    }
  }
  if (o.quick) {
    if (!o.runsGiven) o.cfg.runs = 5;
    if (!o.batchGiven) o.cfg.batchMs = 0.5;
    if (!o.warmupGiven) o.cfg.warmupMs = 5;
  }
  o.cfg.paths = parseRegex("--paths", o.paths);
  return o;
}

int listCases(hkbench::OpenCLEnv &env, const std::regex &filter) {
  for (const hkbench::Case &c : hkbench::cases()) {
    if (!std::regex_search(c.name, filter)) continue;
    std::string paths;
    for (const hkbench::Path &p : c.make(env)) paths += (paths.empty() ? "" : ",") + p.name;
    std::printf("%-22s %-9s %-18s %s\n", c.name.c_str(), c.category.c_str(), paths.c_str(),
                c.description.c_str());
  }
  return 0;
}

int callgrindTrivial(hkbench::OpenCLEnv &env, const Options &o) {
  const hkbench::Case *c = hkbench::findCase("launch/trivial");
  if (!c) {
    std::fprintf(stderr, "pocl-launch-bench: launch/trivial is not registered\n");
    return 1;
  }
  hkbench::runFixed(*c, o.callgrindPath, env, o.callgrindWarmup, o.callgrindN);
  std::fprintf(stderr, "callgrind-trivial: path %s, %llu warm-up + %llu launches\n",
               o.callgrindPath.c_str(), static_cast<unsigned long long>(o.callgrindWarmup),
               static_cast<unsigned long long>(o.callgrindN));
  return 0;
}

// Conditions that make numbers misleading, on stderr.
void warnAboutEnvironment() {
  if (const char *layers = std::getenv("OPENCL_LAYERS"); layers && *layers)
    std::fprintf(stderr, "warning: OPENCL_LAYERS=%s: the queue path is not plain PoCL\n", layers);
  if (const char *d = std::getenv("HOSTKERNEL_DISABLE"); d && *d && std::string(d) != "0")
    std::fprintf(stderr, "warning: HOSTKERNEL_DISABLE=%s: hostkernel forwards to the queue\n", d);
}

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one;
  in >> one;
  return one.empty() ? "?" : one;
}

}  // namespace

int main(int argc, char **argv) {
  const Options o = parse(argc, argv);
  const std::regex filter = parseRegex("--filter", o.filter);
  hkbench::OpenCLEnv env(o.kernelsDir);

  try {
    if (o.list) return listCases(env, filter);
    if (!o.callgrindPath.empty()) return callgrindTrivial(env, o);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
    return 1;
  }

  std::vector<const hkbench::Case *> selected;
  for (const hkbench::Case &c : hkbench::cases())
    if (std::regex_search(c.name, filter)) selected.push_back(&c);
  if (selected.empty()) usageError("no case matches --filter '" + o.filter + "'");

  warnAboutEnvironment();
  std::string device;
  try {
    device = env.description();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
    return 1;
  }
  std::printf("# device: %s\n", device.c_str());
  std::printf("# %d runs per path, batches >= %g ms, warm-up %g ms; %u CPUs, load average %s\n",
              o.cfg.runs, o.cfg.batchMs, o.cfg.warmupMs, std::thread::hardware_concurrency(),
              loadAverage().c_str());
  std::printf("# per operation (launch + finish); ratio = queue median / path median\n");

  hkbench::Table table(stdout);
  table.header();
  std::vector<hkbench::Result> all;
  std::vector<std::string> problems;
  for (const hkbench::Case *c : selected) {
    try {
      hkbench::CaseOutcome out = hkbench::runCase(*c, env, o.cfg);
      for (const hkbench::Result &r : out.results) {
        table.row(r);
        all.push_back(r);
      }
      for (const std::string &p : out.problems) {
        std::fprintf(stderr, "CHECK FAILED: %s\n", p.c_str());
        problems.push_back(p);
      }
    } catch (const std::exception &e) {
      std::fprintf(stderr, "FAILED: %s: %s\n", c->name.c_str(), e.what());
      problems.push_back(c->name + ": " + e.what());
    }
  }

  if (!o.json.empty()) {
    try {
      hkbench::writeJson(o.json, all);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
      return 1;
    }
  }
  if (!problems.empty()) {
    std::fprintf(stderr, "pocl-launch-bench: %zu problem(s); results are not trustworthy\n",
                 problems.size());
    return 1;
  }
  return 0;
}
