#include "case_list.hpp"

#include <cstdio>
#include <cstdlib>

namespace hkbench {
namespace {

// A function-local static: registrations run during static initialisation of other files.
std::vector<Case> &mutableCases() {
  static std::vector<Case> list;
  return list;
}

}  // namespace

const std::vector<Case> &cases() { return mutableCases(); }

const Case *findCase(std::string_view name) {
  for (const Case &c : cases())
    if (c.name == name) return &c;
  return nullptr;
}

Register::Register(Case c) {
  if (findCase(c.name) || !c.make) {
    std::fprintf(stderr, "pocl-launch-bench: case '%s' registered twice or without make\n",
                 c.name.c_str());
    std::abort();
  }
  mutableCases().push_back(std::move(c));
}

}  // namespace hkbench
