#include "kernel/thread_state.hpp"

#include <pthread.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/fd_io.hpp"
#include "pocl/abi.hpp"

namespace hk::kernel {
namespace {

pthread_key_t g_exit_key;
pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;

void releaseThreadState(void *p) {
  auto *ts = static_cast<ThreadState *>(p);
  if (ts->trace) trace::ThreadBuffer::retire(ts->trace);
  std::free(ts->local_arena);
  std::free(ts->scratch_args);
  std::free(ts->local_slots);
  std::free(ts->printf_buffer);
  std::memset(static_cast<void *>(ts), 0, sizeof *ts);
}

void makeExitKey() { pthread_key_create(&g_exit_key, releaseThreadState); }

// Kept free at the end of every thread's stack: signal handlers, the launch path's own
// frames below the point where stackRoom() is read, PoCL's libm calls.
constexpr std::uintptr_t kStackReserve = 128 * 1024;
constexpr std::uintptr_t kUnknownStack = 1024 * 1024;

std::uintptr_t lowestUsableStackAddress() {
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  std::uintptr_t low = 0;
  if (!mainThreadStackEnd(here, low) && !pthreadStackEnd(here, low))
    return here > kUnknownStack ? here - kUnknownStack : 0;
  return low + kStackReserve < here ? low + kStackReserve : here;
}

std::size_t alignUp(std::size_t v, std::size_t a) { return (v + a - 1) & ~(a - 1); }

}  // namespace

// For the main thread glibc's pthread_getattr_np reads all of /proc/self/maps, which in a
// process that has loaded LLVM is long enough to weigh on a warm first launch. The
// kernel's own rule is cheaper: the stack ends just above the executable's file name, the
// first string exec copies to it (AT_EXECFN), and may grow down to RLIMIT_STACK below that
// end; the kernel keeps other mappings out of that range.
bool mainThreadStackEnd(std::uintptr_t here, std::uintptr_t &end) {
  const auto *name = reinterpret_cast<const char *>(getauxval(AT_EXECFN));
  struct rlimit rl;
  if (!name || ::getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
      rl.rlim_cur > (std::uintptr_t{1} << 32))
    return false;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t top =
      (reinterpret_cast<std::uintptr_t>(name) + std::strlen(name) + 1 + page - 1) & ~(page - 1);
  // Not the main thread (or a stack the thread switched to): `here` is outside.
  if (top < rl.rlim_cur || here >= top || here <= top - rl.rlim_cur) return false;
  end = top - rl.rlim_cur;
  return true;
}

bool pthreadStackEnd(std::uintptr_t here, std::uintptr_t &end) {
  pthread_attr_t attr;
  void *addr = nullptr;
  std::size_t size = 0;
  bool known = false;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    known = pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != nullptr;
    pthread_attr_destroy(&attr);
  }
  const auto low = reinterpret_cast<std::uintptr_t>(addr);
  // The stack must contain this frame; else the answer is wrong (a user-switched stack).
  if (!known || here <= low || here - low > (std::uintptr_t{1} << 40)) return false;
  end = low;
  return true;
}

void ThreadState::setUp(std::size_t capacity) {
  // malloc of a large block maps it lazily: pages a kernel never prints to cost nothing.
  if (capacity == 0 || capacity > UINT32_MAX) capacity = std::size_t{16} << 20;
  printf_buffer = static_cast<std::uint8_t *>(std::malloc(capacity));
  printf_capacity = printf_buffer ? static_cast<std::uint32_t>(capacity) : 0;
  printf_position = 0;
  pthread_once(&g_exit_key_once, makeExitKey);
  pthread_setspecific(g_exit_key, this);
  stack_low = lowestUsableStackAddress();
  if (trace::enabled()) traceBuffer();  // here: a traced launch must not allocate
  ready = true;
}

trace::ThreadBuffer &ThreadState::traceBuffer() {
  if (!trace) {
    trace = trace::ThreadBuffer::acquire();
    pthread_once(&g_exit_key_once, makeExitKey);
    pthread_setspecific(g_exit_key, this);
  }
  return *trace;
}

namespace {

// Replaces `array` by an uninitialised one of `want` pointers when it holds fewer; false
// (array unchanged) when out of memory.
bool growPointers(void **&array, std::size_t &capacity, std::size_t want) {
  if (want <= capacity) return true;
  void *p = std::malloc(want * sizeof(void *));
  if (!p) return false;
  std::free(array);
  array = static_cast<void **>(p);
  capacity = want;
  return true;
}

}  // namespace

bool ThreadState::reserve(std::size_t local_bytes, std::size_t args, std::size_t slots) {
  if (local_bytes > local_capacity) {
    std::size_t cap = alignUp(local_bytes, pocl::kLocalAlignment);
    void *p = std::aligned_alloc(pocl::kLocalAlignment, cap);
    if (!p) return false;
    std::free(local_arena);
    local_arena = static_cast<char *>(p);
    local_capacity = cap;
  }
  return growPointers(scratch_args, scratch_capacity, args) &&
         growPointers(local_slots, slots_capacity, slots);
}

void ThreadState::flushPrintf() {
  // PoCL 7.x kernels print each record themselves (through libpocl) and leave it in the
  // buffer: the next launch starts at 0 again, as PoCL's workers do per command.
  const pocl::Release *release = pocl::currentRelease();
  if (release && release->printf_mode == pocl::PrintfMode::BinaryRecords) {
    printf_position = 0;
    return;
  }
  std::fflush(stdout);
  std::size_t n = printf_position < printf_capacity ? printf_position : printf_capacity;
  writeAll(STDOUT_FILENO, printf_buffer, n);  // what stdout does not take is lost, as in PoCL
  printf_position = 0;
}

}  // namespace hk::kernel
