#include "trace/collector.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/config.hpp"
#include "base/log.hpp"
#include "base/thread_safety.hpp"

namespace hk::trace {
namespace {

using json = nlohmann::ordered_json;  // members in the order written: readable by eye

std::uint64_t monotonicNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(t.tv_nsec);
}

const char *pathName(std::uint8_t path) {
  switch (path) {
    case HK_PATH_INLINE: return "inline";
    case HK_PATH_TEAM: return "team";
    default: return "queue";
  }
}

// Short keys of hk_reason for the "reason" argument of queue launches.
const char *reasonKey(std::uint8_t reason) {
  switch (reason) {
    case HK_REASON_DISABLED: return "disabled";
    case HK_REASON_DEVICE: return "device";
    case HK_REASON_PREPARE_FAILED: return "prepare_failed";
    case HK_REASON_NON_UNIFORM: return "non_uniform";
    case HK_REASON_ARG_KIND: return "arg_kind";
    case HK_REASON_ARG_UNSET: return "arg_unset";
    case HK_REASON_INVALID_LAUNCH: return "invalid_launch";
    case HK_REASON_USER_EVENT: return "user_event";
    case HK_REASON_STACK: return "stack";
    case HK_REASON_LIMITS: return "limits";
    case HK_REASON_SPECIALIZE: return "specialize";
    case HK_REASON_FIRST_LAUNCH: return "first_launch";
    case HK_REASON_QUEUE_BUSY: return "queue_busy";
    case HK_REASON_POCL_CHECKS: return "pocl_checks";
    case HK_REASON_MEM_KIND: return "mem_kind";
    default: return "none";
  }
}

// Trace-event times are microseconds.
double micros(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

}  // namespace

Collector &Collector::instance() {
  static Collector *c = [] {
    auto *made = new Collector();
    std::atexit([] { Collector::instance().finish(); });
    return made;
  }();
  return *c;
}

// HOSTKERNEL_TRACE with each "%p" replaced by the process id: child processes that
// inherit the variable write files of their own instead of the parent's.
static std::string tracePath(int pid) {
  std::string path = config().trace_file;
  for (std::size_t at = path.find("%p"); at != std::string::npos; at = path.find("%p", at))
    path.replace(at, 2, std::to_string(pid));
  return path;
}

Collector::Collector()
    : pid_(static_cast<int>(::getpid())), origin_ns_(monotonicNs()) {
  path_ = tracePath(pid_);
}

std::uint32_t Collector::intern(const std::string &name) {
  MutexLock lock(mutex_);
  auto [it, added] = ids_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
  if (added) names_.push_back(name);
  return it->second;
}

ThreadBuffer *Collector::acquire() {
  char name[32] = "";
  pthread_getname_np(pthread_self(), name, sizeof name);
  MutexLock lock(mutex_);
  ThreadBuffer *b = nullptr;
  if (!free_.empty()) {
    b = free_.back();
    free_.pop_back();
  } else {
    b = new ThreadBuffer();
    b->next_ = all_;
    all_ = b;
  }
  b->lane_ = next_lane_++;
  b->label_ = std::string(name) + " (" + std::to_string(b->lane_) + ")";
  lanes_.emplace_back(b->lane_, b->label_);
  return b;
}

void Collector::retire(ThreadBuffer *buffer) {
  MutexLock lock(mutex_);
  writeLocked(*buffer);
  free_.push_back(buffer);
}

void Collector::write(ThreadBuffer &buffer) {
  MutexLock lock(mutex_);
  writeLocked(buffer);
}

bool Collector::openLocked() {
  if (buf_) return true;
  if (failed_ || finished_ || static_cast<int>(::getpid()) != pid_) return false;
  tmp_path_ = path_ + ".XXXXXX";
  const int fd = ::mkostemp(tmp_path_.data(), O_CLOEXEC);  // O_EXCL, mode 0600
  if (fd < 0) {
    failed_ = true;
    logf(LogLevel::Warn, "HOSTKERNEL_TRACE: cannot create a file next to %s: %s (no trace)",
         path_.c_str(), std::strerror(errno));
    return false;
  }
  buf_ = std::make_unique<__gnu_cxx::stdio_filebuf<char>>(fd, std::ios::out | std::ios::binary);
  file_.rdbuf(buf_.get());
  file_ << "{\"traceEvents\":[\n";
  return true;
}

void Collector::emitLocked(const json &event) {
  if (!first_) file_ << ",\n";
  first_ = false;
  // A thread name that is not UTF-8 is repaired, not a reason to throw.
  file_ << event.dump(-1, ' ', false, json::error_handler_t::replace);
}

void Collector::writeLocked(ThreadBuffer &buffer) {
  const std::uint32_t n = buffer.count_.load(std::memory_order_acquire);
  if (n != 0 && openLocked()) {
    // One object per kind of event, its members set in place for each event and
    // streamed out: writing a buffer costs no allocation per event (kernel names are
    // OpenCL C identifiers, so the stream's strict UTF-8 check cannot fail).
    const int pid = pid_;
    auto shape = [&](const char *cat, json args) {
      return json{{"name", ""}, {"cat", cat}, {"ph", "X"}, {"ts", 0.0}, {"dur", 0.0},
                  {"pid", pid}, {"tid", buffer.lane_}, {"args", std::move(args)}};
    };
    json direct = shape("launch", {{"groups", 0}, {"path", ""}});
    json queued = shape("launch", {{"groups", 0}, {"path", "queue"}, {"reason", ""}});
    json lane = shape("team", {{"groups", 0}, {"thread", 0}});
    for (std::uint32_t i = 0; i < n; ++i) {
      const Event &e = buffer.events_[i];
      json &event = e.kind == Kind::Lane ? lane : e.path == HK_PATH_QUEUE ? queued : direct;
      event["name"] = e.name < names_.size() ? names_[e.name] : std::string("?");
      event["ts"] = micros(e.start_ns - origin_ns_);
      event["dur"] = micros(e.dur_ns);
      json &args = event["args"];
      args["groups"] = e.groups;
      if (e.kind == Kind::Lane)
        args["thread"] = e.thread;
      else if (e.path == HK_PATH_QUEUE)
        args["reason"] = reasonKey(e.reason);
      else
        args["path"] = pathName(e.path);
      file_ << (first_ ? "" : ",\n") << event;
      first_ = false;
    }
  }
  buffer.count_.store(0, std::memory_order_relaxed);
}

void Collector::finish() {
  MutexLock lock(mutex_);
  if (finished_) return;
  for (ThreadBuffer *b = all_; b; b = b->next_) writeLocked(*b);
  if (openLocked()) {
    for (const auto &[lane, label] : lanes_)
      emitLocked(json{{"name", "thread_name"}, {"ph", "M"}, {"pid", pid_}, {"tid", lane},
                      {"args", {{"name", label}}}});
    emitLocked(json{{"name", "process_name"}, {"ph", "M"}, {"pid", pid_},
                    {"args", {{"name", program_invocation_short_name}}}});
    file_ << "\n],\"displayTimeUnit\":\"ns\"}\n";
    file_.flush();
    const bool written = file_.good() && buf_->close() != nullptr;
    file_.rdbuf(nullptr);
    buf_.reset();
    // rename() replaces whatever has the name (a symbolic link included) in one step.
    if (!written)
      logf(LogLevel::Warn, "HOSTKERNEL_TRACE: writing %s failed", tmp_path_.c_str());
    else if (::rename(tmp_path_.c_str(), path_.c_str()) != 0)
      logf(LogLevel::Warn, "HOSTKERNEL_TRACE: cannot replace %s (%s); the trace is in %s",
           path_.c_str(), std::strerror(errno), tmp_path_.c_str());
  }
  finished_ = true;
}

}  // namespace hk::trace
