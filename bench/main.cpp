// pocl-launch-bench: kernel-launch cost through hostkernel vs PoCL's own queue (and a
// native C++ loop). The command line only; cases live in cases_*.cpp, the timing in
// runner.cpp, output in report.cpp, plot.cpp and compare.cpp.
#include "alloc_count.hpp"
#include "burner.hpp"
#include "case_list.hpp"
#include "compare.hpp"
#include "first_launch.hpp"
#include "opencl_env.hpp"
#include "parts.hpp"
#include "plot.hpp"
#include "processes.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "subprocess.hpp"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#ifndef HK_KERNELS_DIR
#define HK_KERNELS_DIR "kernels"
#endif

namespace {

constexpr const char *kUsage = R"(usage: pocl-launch-bench [options]

Times kernel launches through hostkernel (hk* C API), through PoCL's queue (cl*) and,
where a case has one, a native C++ loop (OpenMP where parallel), interleaving the paths
run by run. Per operation (launch + finish): median, min and max over the runs, +- = the
median absolute deviation of the runs relative to the median, ratio = baseline (queue)
median / path median, allocs = heap allocations per operation. Cases and the JSON schema:
docs/benchmarks.md.

  --list                 list the cases and exit
  --filter REGEX         run the cases whose name matches (search), e.g. 'launch/'
  --paths REGEX          run only the paths whose name matches, e.g. '^hostkernel$'
  --runs N               timed runs per path (default 31; --quick: 5, and 3 for the
                         compile/* and first-kernel/* cases)
  --quick                few runs, short warm-up and batches: the suite in about a minute
  --batch-ms X           a timed run lasts at least X ms (default 1; --quick: 0.5)
  --warmup-ms X          warm-up per path after its first launch (default 50; --quick: 5)
  --processes N          run the cases in N fresh processes, one after another, and
                         combine them: median of the per-process medians, +- = their
                         MAD / median (placement in memory and on CPUs is per process)
  --burner               run the cases beside one CPU-burning process (a shell busy
                         loop, started before the first case and killed at the end):
                         every path under the same load; the JSON's meta.burner says so
  --json FILE            also write the results as JSON (schema: docs/benchmarks.md)
  --plot FILE.svg        also draw the medians as an SVG bar chart
  --compare BASE.json    compare with an earlier --json file: per-category geometric mean
                         change and the unusual cases
  --fail-on-unusual      with --compare: exit 3 when there are unusual cases
  --from-json FILE       run nothing: take the results from FILE (for --plot, --compare)
  --kernels-dir DIR      OpenCL C sources (default: the repository's kernels/)
  --verbose              per-phase progress on stderr
  --callgrind-trivial PATH N
                         only: set up launch/trivial on PATH (hostkernel|queue), run
                         --callgrind-warmup M launches (default 200), then N launches, exit.
                         Run it under callgrind twice (N1, N2): the difference of the
                         instruction totals / (N2 - N1) is the cost of one steady-state
                         launch (scripts/callgrind-launch.sh).
  --callgrind-case NAME  with --callgrind-trivial: use this case instead of launch/trivial
  --help                 this text

Exit status: 0 all cases ran and every path's output matched (a comparison alone does not
change this); 1 a check failed or a case could not run; 2 bad command line; 3 unusual
changes with --fail-on-unusual.
)";

struct Options {
  bool list = false;
  bool quick = false;
  bool runsGiven = false, batchGiven = false, warmupGiven = false;
  std::string filter = ".*";
  std::string paths = ".*";
  std::string json;
  std::string plot;
  std::string compare;
  std::string fromJson;
  bool failOnUnusual = false;
  std::string kernelsDir = HK_KERNELS_DIR;
  hkbench::RunConfig cfg;
  std::string callgrindPath;
  std::uint64_t callgrindN = 0;
  std::uint64_t callgrindWarmup = 200;
  std::string callgrindCase = "launch/trivial";
  std::uint64_t processes = 1;
  bool burner = false;
  // The command line without --processes, --burner and the outputs (--json, --plot, --compare,
  // --fail-on-unusual): what each of the --processes children runs.
  std::vector<std::string> childArgs;
};

// The options whose value is stored as given, and where.
constexpr std::pair<std::string_view, std::string Options::*> kTextOptions[] = {
    {"--filter", &Options::filter},
    {"--paths", &Options::paths},
    {"--json", &Options::json},
    {"--plot", &Options::plot},
    {"--compare", &Options::compare},
    {"--from-json", &Options::fromJson},
    {"--kernels-dir", &Options::kernelsDir},
    {"--callgrind-case", &Options::callgrindCase},
};

// The field that stores text option `opt`, or nullptr if it is none of kTextOptions.
std::string Options::*textOption(std::string_view opt) {
  for (const auto &[name, field] : kTextOptions)
    if (name == opt) return field;
  return nullptr;
}

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
    const std::size_t first = i;
    if (opt == "--help" || opt == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (opt == "--list") {
      o.list = true;
    } else if (opt == "--quick") {
      o.quick = true;
    } else if (opt == "--verbose" || opt == "-v") {
      o.cfg.verbose = true;
    } else if (std::string Options::*field = textOption(opt)) {
      o.*field = value();
    } else if (opt == "--runs") {
      o.cfg.runs = static_cast<int>(parseCount(opt, value(), 1));
      o.runsGiven = true;
    } else if (opt == "--batch-ms") {
      o.cfg.batchMs = parseMs(opt, value());
      o.batchGiven = true;
    } else if (opt == "--warmup-ms") {
      o.cfg.warmupMs = parseMs(opt, value());
      o.warmupGiven = true;
    } else if (opt == "--fail-on-unusual") {
      o.failOnUnusual = true;
    } else if (opt == "--callgrind-trivial") {
      o.callgrindPath = value();
      o.callgrindN = parseCount(opt, value(), 0);
      if (o.callgrindPath.empty()) usageError("--callgrind-trivial needs a path name");
    } else if (opt == "--callgrind-warmup") {
      o.callgrindWarmup = parseCount(opt, value(), 0);
    } else if (opt == "--processes") {
      o.processes = parseCount(opt, value(), 1);
    } else if (opt == "--burner") {
      o.burner = true;
    } else {
      usageError("unknown option '" + opt + "'");
    }
    // The burner of a --processes run is the parent's: one for all the children.
    if (opt != "--processes" && opt != "--burner" && opt != "--json" && opt != "--plot" &&
        opt != "--compare" && opt != "--fail-on-unusual")
      o.childArgs.insert(o.childArgs.end(), a.begin() + static_cast<std::ptrdiff_t>(first),
                         a.begin() + static_cast<std::ptrdiff_t>(i + 1));
  }
  if (o.processes > 1 && (o.list || !o.fromJson.empty() || !o.callgrindPath.empty()))
    usageError("--processes is for running cases, not with --list, --from-json or "
               "--callgrind-trivial");
  if (o.failOnUnusual && o.compare.empty()) usageError("--fail-on-unusual needs --compare");
  if (o.burner && (o.list || !o.fromJson.empty() || !o.callgrindPath.empty()))
    usageError("--burner is for running cases, not with --list, --from-json or "
               "--callgrind-trivial");
  if (!o.fromJson.empty() && o.plot.empty() && o.compare.empty() && o.json.empty())
    usageError("--from-json is for --plot, --compare or --json");
  if (o.quick) {
    if (!o.runsGiven) o.cfg.runs = 5;
    if (!o.runsGiven) o.cfg.onceRuns = 3;  // compile/*, first-kernel/*: ~1 s per cold run
    if (!o.batchGiven) o.cfg.batchMs = 0.5;
    if (!o.warmupGiven) o.cfg.warmupMs = 5;
  }
  o.cfg.paths = parseRegex("--paths", o.paths);
  return o;
}

int categoryRank(const std::string &c);

int listCases(hkbench::OpenCLEnv &env, const std::regex &filter) {
  std::vector<const hkbench::Case *> sorted;
  for (const hkbench::Case &c : hkbench::cases()) sorted.push_back(&c);
  std::stable_sort(sorted.begin(), sorted.end(), [](const hkbench::Case *a, const hkbench::Case *b) {
    return categoryRank(a->category) < categoryRank(b->category);
  });
  for (const hkbench::Case *cp : sorted) {
    const hkbench::Case &c = *cp;
    if (!std::regex_search(c.name, filter)) continue;
    std::string paths;
    for (const hkbench::Path &p : c.make(env)) paths += (paths.empty() ? "" : ",") + p.name;
    std::printf("%-26s %-12s %-23s %s\n", c.name.c_str(), c.category.c_str(), paths.c_str(),
                c.description.c_str());
  }
  return 0;
}

int callgrindTrivial(hkbench::OpenCLEnv &env, const Options &o) {
  const hkbench::Case *c = hkbench::findCase(o.callgrindCase);
  if (!c) {
    std::fprintf(stderr, "pocl-launch-bench: no case %s (see --list)\n", o.callgrindCase.c_str());
    return 1;
  }
  hkbench::runFixed(*c, o.callgrindPath, env, o.callgrindWarmup, o.callgrindN);
  std::fprintf(stderr, "callgrind: %s, path %s, %llu warm-up + %llu operations\n",
               c->name.c_str(), o.callgrindPath.c_str(),
               static_cast<unsigned long long>(o.callgrindWarmup),
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

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// HOSTKERNEL_*, OMP_*, GOMP_*, POCL_* and OPENCL_LAYERS, as "NAME=value", sorted.
std::vector<std::string> relevantEnvironment() {
  std::vector<std::string> out;
  for (char **e = environ; e && *e; ++e) {
    const std::string kv = *e;
    for (const char *prefix : {"HOSTKERNEL_", "OMP_", "GOMP_", "POCL_", "OPENCL_LAYERS="})
      if (kv.rfind(prefix, 0) == 0) {
        out.push_back(kv);
        break;
      }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int categoryRank(const std::string &c) {
  if (c == "latency") return 0;
  if (c == "performance") return 1;
  if (c == "applications") return 2;
  return 3;
}

// "[3/40] stream/triad/dram ..." on stderr: one line per case, or (on a terminal) one line
// rewritten in place and cleared before the table rows are printed.
class Progress {
 public:
  explicit Progress(std::size_t total) : total_(total), tty_(isatty(STDERR_FILENO) == 1) {}
  void start(std::size_t i, const std::string &name) {
    if (tty_)
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s ...", i + 1, total_, name.c_str());
    else
      std::fprintf(stderr, "[%zu/%zu] %s ...\n", i + 1, total_, name.c_str());
    std::fflush(stderr);
  }
  void clear() {
    if (tty_) std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
  }

 private:
  std::size_t total_;
  bool tty_;
};

// The comment lines above the table: device, settings, environment, what the columns mean.
void printHeader(const hkbench::RunMeta &meta) {
  std::printf("# device: %s\n", meta.device.c_str());
  std::string runs = std::to_string(meta.runs) + " runs per path";
  if (meta.processes > 1)
    runs = std::to_string(meta.processes) + " processes, " + runs + " in each";
  std::printf("# %s, %s, batches >= %g ms, warm-up %g ms; %u CPUs, load average %s\n",
              meta.date.c_str(), runs.c_str(), meta.batchMs, meta.warmupMs, meta.cpus,
              meta.loadAverage.c_str());
  if (meta.burner)
    std::printf("# beside a CPU burner: one busy-looping process ran through every case\n");
  if (!meta.environment.empty()) {
    std::string env;
    for (const std::string &e : meta.environment) env += " " + e;
    std::printf("# environment:%s\n", env.c_str());
  }
  std::printf("# per operation (launch + finish); %s; ratio = queue median / path median; "
              "allocs = heap allocations per operation%s\n",
              meta.processes > 1 ? "median = median of the per-process medians, +- = their "
                                   "MAD / median; min, max over all runs"
                                 : "+- = MAD/median of the runs",
              meta.allocCounting ? "" : " (not counted in this build)");
}

// --burner: the burning process, started now (docs/benchmarks.md); its pid goes to stderr,
// where a test looks for it. Null without --burner.
std::unique_ptr<hkbench::Burner> startBurner(const Options &o) {
  if (!o.burner) return nullptr;
  auto burner = std::make_unique<hkbench::Burner>();
  std::fprintf(stderr, "burner: pid %d, a shell busy loop beside the cases\n",
               static_cast<int>(burner->pid()));
  return burner;
}

// Stops the burner; false (with a message) if it had ended before: the run was not under
// the load it claims.
bool stopBurner(hkbench::Burner *burner) {
  if (!burner || burner->stop()) return true;
  std::fprintf(stderr, "pocl-launch-bench: the CPU burner (pid %d) ended before the cases "
               "did\n", static_cast<int>(burner->pid()));
  return false;
}

// Writes the JSON and plot files and runs the comparison that were asked for; returns the
// exit status they imply (0 or 3), or 1 on I/O errors.
int outputs(const Options &o, const hkbench::Results &results) {
  try {
    if (!o.json.empty()) hkbench::writeJson(o.json, results.meta, results.results);
    if (!o.plot.empty()) {
      hkbench::writePlot(o.plot, results);
      std::fprintf(stderr, "plot: %s\n", o.plot.c_str());
    }
    if (!o.compare.empty()) {
      const hkbench::Results base = hkbench::readResultsJson(o.compare);
      std::fflush(stdout);
      const int unusual = hkbench::compareResults(base, o.compare, results, stdout);
      std::fflush(stdout);
      if (unusual > 0 && o.failOnUnusual) return 3;
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

// --processes N: runs this executable N times with o.childArgs and --json into a temporary
// directory, one process after the other, then prints and writes the combined results
// (bench/processes.hpp). A child's table is shown only when the child fails.
int runInProcesses(const Options &o) {
  hkbench::TempDir dir("processes");
  std::vector<hkbench::Results> each;
  bool failed = false;
  const std::string load = loadAverage();  // the machine's, before the burner adds to it
  const std::unique_ptr<hkbench::Burner> burner = startBurner(o);
  for (std::uint64_t i = 0; i < o.processes; ++i) {
    std::fprintf(stderr, "[process %llu/%llu]\n", static_cast<unsigned long long>(i + 1),
                 static_cast<unsigned long long>(o.processes));
    const std::string json = dir.path() + "/process-" + std::to_string(i) + ".json";
    std::vector<std::string> args = o.childArgs;
    args.insert(args.end(), {"--json", json});
    const hkbench::ProcessResult r = hkbench::runSelfCommand(args);
    if (r.status != 0) {
      std::fprintf(stderr, "pocl-launch-bench: process %llu exited with status %d:\n%s",
                   static_cast<unsigned long long>(i + 1), r.status, r.output.c_str());
      failed = true;
    }
    try {
      each.push_back(hkbench::readResultsJson(json));
    } catch (const std::exception &e) {
      if (r.status == 0) std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
      failed = true;
    }
  }
  if (!stopBurner(burner.get())) failed = true;
  hkbench::Results results = hkbench::combineProcesses(each);
  hkbench::noteParts(results.results);  // from the combined medians
  if (burner) {
    results.meta.burner = true;
    results.meta.loadAverage = load;
  }
  printHeader(results.meta);
  hkbench::Table table(stdout);
  table.header();
  for (const hkbench::Result &r : results.results) table.row(r);
  const int status = outputs(o, results);
  if (failed) {
    std::fprintf(stderr, "pocl-launch-bench: a process failed; results are not trustworthy\n");
    return 1;
  }
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  // Child processes of the compile/* and first-kernel/* cases (bench/first_launch.hpp).
  if (argc > 1 && std::string(argv[1]) == "--internal-child") return hkbench::childMain(argc, argv);
  const Options o = parse(argc, argv);
  const std::regex filter = parseRegex("--filter", o.filter);
  if (o.processes > 1) {
    if (std::none_of(hkbench::cases().begin(), hkbench::cases().end(),
                     [&](const hkbench::Case &c) { return std::regex_search(c.name, filter); }))
      usageError("no case matches --filter '" + o.filter + "'");
    try {
      return runInProcesses(o);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
      return 1;
    }
  }
  hkbench::OpenCLEnv env(o.kernelsDir);

  if (!o.fromJson.empty()) {
    hkbench::Results results;
    try {
      results = hkbench::readResultsJson(o.fromJson);
    } catch (const std::exception &e) {
      std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
      return 1;
    }
    std::erase_if(results.results, [&](const hkbench::Result &r) {
      return !std::regex_search(r.name, filter) || !std::regex_search(r.path, o.cfg.paths);
    });
    return outputs(o, results);
  }

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
  // Latency, then performance, then applications; registration order within each.
  std::stable_sort(selected.begin(), selected.end(),
                   [](const hkbench::Case *a, const hkbench::Case *b) {
                     return categoryRank(a->category) < categoryRank(b->category);
                   });

  warnAboutEnvironment();
  std::string device;
  try {
    device = env.description();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
    return 1;
  }
  // The machine's load average, before the burner adds to it.
  const std::string load = loadAverage();
  std::unique_ptr<hkbench::Burner> burner;
  try {
    burner = startBurner(o);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "pocl-launch-bench: %s\n", e.what());
    return 1;
  }
  // hostkernel starts its thread team on the first launch that wants it, and that start
  // allocates. Start it now, so that no case's numbers (or allocation count) depend on
  // whether it happens to be the first to reach the team.
  if (std::regex_search(std::string("hostkernel"), o.cfg.paths)) {
    if (const hkbench::Case *team = hkbench::findCase("launch/team-trivial")) {
      try {
        hkbench::runFixed(*team, "hostkernel", env, 0, 2);
      } catch (const std::exception &e) {
        std::fprintf(stderr, "warning: could not start hostkernel's team: %s\n", e.what());
      }
    }
  }

  hkbench::Results results;
  hkbench::RunMeta &meta = results.meta;
  meta.device = device;
  meta.date = utcNow();
  meta.cpus = std::thread::hardware_concurrency();
  meta.loadAverage = load;
  meta.burner = burner != nullptr;
  meta.runs = o.cfg.runs;
  meta.batchMs = o.cfg.batchMs;
  meta.warmupMs = o.cfg.warmupMs;
  meta.quick = o.quick;
  meta.allocCounting = hkbench::AllocCounter::available();
  meta.environment = relevantEnvironment();
  printHeader(meta);

  hkbench::Table table(stdout);
  table.header();
  std::vector<std::string> problems;
  Progress progress(selected.size());
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const hkbench::Case *c = selected[i];
    progress.start(i, c->name);
    try {
      hkbench::CaseOutcome out = hkbench::runCase(*c, env, o.cfg);
      progress.clear();
      for (const hkbench::Result &r : out.results) {
        table.row(r);
        results.results.push_back(r);
      }
      for (const std::string &p : out.problems) {
        std::fprintf(stderr, "CHECK FAILED: %s\n", p.c_str());
        problems.push_back(p);
      }
    } catch (const std::exception &e) {
      progress.clear();
      std::fprintf(stderr, "FAILED: %s: %s\n", c->name.c_str(), e.what());
      problems.push_back(c->name + ": " + e.what());
    }
  }

  if (!stopBurner(burner.get()))
    problems.push_back("the CPU burner ended before the cases did");
  const int status = outputs(o, results);
  if (!problems.empty()) {
    std::fprintf(stderr, "pocl-launch-bench: %zu problem(s); results are not trustworthy\n",
                 problems.size());
    return 1;
  }
  return status;
}
