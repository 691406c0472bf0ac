// A Path whose functions are the members of one state object shared by them:
//
//   auto state = std::make_shared<MyState>(...);  // setup(), run(n), check(), mark(),
//   Path p = statePath<false>("queue", state);     // note() [, shares() when kCounts]
//
// Every state has mark() (before the timed runs) and note() (after them); kCounts: it also
// has shares(), the fractions of its hostkernel launches by path.
#pragma once

#include "case_list.hpp"

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
  p.mark = [state] { state->mark(); };
  p.note = [state] { return state->note(); };
  if constexpr (kCounts) p.shares = [state] { return state->shares(); };
  return p;
}

}  // namespace hkbench
