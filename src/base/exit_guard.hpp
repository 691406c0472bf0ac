// Compiles hostkernel starts, and its own reads of LLVM bitcode, against exit(). exit()
// runs the static destructors of libLLVM (and of PoCL) on the exiting thread; a compile
// running on another thread meanwhile crashes inside LLVM. So once exit has begun,
// hostkernel starts no new compile (the caller falls back, saying why), and exit waits
// for the ones already running to end before the destructors run.
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
