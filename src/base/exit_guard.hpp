// Compiles hostkernel starts, and its own reads of LLVM bitcode, against exit(). exit()
// runs the static destructors of libLLVM (and of PoCL) on the exiting thread; a compile
// running on another thread meanwhile crashes inside LLVM. So once exit has begun,
// hostkernel starts no new compile (the caller falls back, saying why), and exit waits
// for the ones already running to end before the destructors run.
//
// exit() runs the exiting thread's thread_local destructors first, then the atexit
// handlers, newest first (glibc's __run_exit_handlers). A static that LLVM first uses
// during a compile has its destructor registered then, after the guard's handler, so it
// runs before that handler, under the compile: the first codegen of a process is such a
// compile. So the threads likely to call exit also wait in a thread_local destructor.
//
//   hk::CompileSlot slot;                  // or beginCompile() ... endCompile()
//   if (!slot) return fail("the process is exiting");
//   compile();                            // exit() waits for the slot's release
#pragma once

namespace hk {

// True once the process has begun to exit (its exit handlers run).
bool exitBegun();

// Takes a slot for one compile: false (and nothing taken) once exit has begun. The first
// call registers the exit handler that closes the slots and waits for the taken ones: it
// runs before the handlers registered earlier (libLLVM's static destructors among them).
bool beginCompile();
// Releases a slot beginCompile() gave.
void endCompile();

// Makes the calling thread wait, when it ends or calls exit(), for the compiles running on
// other threads (at most as long as exit does), before any atexit handler runs; on the
// main thread, whose end is exit(), it also refuses new slots from then on. Called on the
// thread that loads hostkernel and on those that build programs or create queues: a
// program's main thread among them. exit() from another thread that never did either
// is covered by the handler alone. Cheap after a thread's first call.
void waitForCompilesAtThreadExit();

class CompileSlot {
 public:
  CompileSlot() : held_(beginCompile()) {}
  ~CompileSlot() {
    if (held_) endCompile();
  }
  CompileSlot(const CompileSlot &) = delete;
  CompileSlot &operator=(const CompileSlot &) = delete;
  explicit operator bool() const { return held_; }

 private:
  bool held_;
};

}  // namespace hk
