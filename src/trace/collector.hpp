// Where the thread buffers of trace/recorder.hpp go: the process's one Collector owns the
// list of buffers, the kernel names and the trace file, and writes events as Chrome
// trace-event JSON (the "JSON object format": {"traceEvents": [...]}) with nlohmann-json.
// The trace is written to a new private file next to the named one (created with O_EXCL,
// mode 0600) from the first write (a buffer that filled, or exit) and renamed to the
// name at exit: the name is never opened, so a symbolic link there is replaced, not
// followed, and two processes given one name leave one whole trace each in turn, never a
// mix. A forked child writes nothing (the file is its parent's).
//
//   Collector &c = Collector::instance();
//   std::uint32_t id = c.intern("axpy");
//   c.write(buffer);     // a full buffer's events, appended
#pragma once

#include <cstdint>
#include <ext/stdio_filebuf.h>
#include <memory>
#include <ostream>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/thread_safety.hpp"
#include "trace/recorder.hpp"

namespace hk::trace {

class Collector {
 public:
  // Made on first use, with an atexit handler that writes every buffer and closes the
  // file; never destroyed (buffers may be written after static destructors).
  static Collector &instance();

  std::uint32_t intern(const std::string &name);
  ThreadBuffer *acquire();
  void retire(ThreadBuffer *buffer);
  // Appends the buffer's events to the file and empties it (the buffer's own thread, or
  // the exit writer).
  void write(ThreadBuffer &buffer);
  void finish();

 private:
  Collector();
  void writeLocked(ThreadBuffer &buffer) REQUIRES(mutex_);
  bool openLocked() REQUIRES(mutex_);
  void emitLocked(const nlohmann::ordered_json &event) REQUIRES(mutex_);

  Mutex mutex_;
  std::string path_;       // the name HOSTKERNEL_TRACE gives
  std::string tmp_path_ GUARDED_BY(mutex_);  // the file written until exit, renamed to path_
  // Owns the file's descriptor.
  std::unique_ptr<__gnu_cxx::stdio_filebuf<char>> buf_ GUARDED_BY(mutex_);
  std::ostream file_ GUARDED_BY(mutex_){nullptr};
  // The file could not be written: reported once, events dropped.
  bool failed_ GUARDED_BY(mutex_) = false;
  bool finished_ GUARDED_BY(mutex_) = false;
  bool first_ GUARDED_BY(mutex_) = true;  // no event written yet: no comma before it
  int pid_ GUARDED_BY(mutex_) = 0;        // the process that writes the file
  std::uint64_t origin_ns_ = 0;  // the trace's time zero
  std::vector<std::string> names_ GUARDED_BY(mutex_){""};  // by id; 0 is no name
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::pair<std::uint32_t, std::string>> lanes_;  // lane, thread name
  ThreadBuffer *all_ = nullptr;   // every buffer, in use or free
  std::vector<ThreadBuffer *> free_;
  std::uint32_t next_lane_ = 1;
};

}  // namespace hk::trace
