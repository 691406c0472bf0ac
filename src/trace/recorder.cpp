#include "trace/recorder.hpp"

#include "base/config.hpp"
#include "trace/collector.hpp"

namespace hk::trace {

bool enabled() {
  static const bool on = !config().trace_file.empty();
  return on;
}

std::uint32_t internName(const std::string &name) { return Collector::instance().intern(name); }

ThreadBuffer *ThreadBuffer::acquire() { return Collector::instance().acquire(); }

void ThreadBuffer::retire(ThreadBuffer *buffer) { Collector::instance().retire(buffer); }

void ThreadBuffer::writeOut() { Collector::instance().write(*this); }

}  // namespace hk::trace
