// A Path whose functions are the members of one state object shared by them:
//
//   auto state = std::make_shared<MyState>(...);   // setup(), run(n), check() [, mark(),
//   Path p = statePath<kCounts>("queue", state);   //  note(), shares() when kCounts]
//
// kCounts: the state also reports where its hostkernel launches went (mark before the
// timed runs, note and shares after them).
#pragma once

#include "registry.hpp"

#include <memory>
#include <string>
#include <utility>

namespace hkbench {

template <bool kCounts, class State>
Path statePath(std::string name, std::shared_ptr<State> state) {
  Path p;
  p.name = std::move(name);
  p.setup = [state] { state->setup(); };
  p.run = [state](std::uint64_t n) { state->run(n); };
  p.check = [state] { return state->check(); };
  if constexpr (kCounts) {
    p.mark = [state] { state->mark(); };
    p.note = [state] { return state->note(); };
    p.shares = [state] { return state->shares(); };
  }
  return p;
}

}  // namespace hkbench
