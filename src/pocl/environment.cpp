#include "pocl/environment.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

extern char **environ;

namespace hk::pocl {

std::string compilerEnvironment() {
  static const char *const kIgnored[] = {"POCL_CACHE_DIR=", "POCL_DEBUG=",
                                         "POCL_MAX_PTHREAD_COUNT=", "POCL_AFFINITY="};
  std::vector<std::string> vars;
  for (char **e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "POCL_", 5) != 0) continue;
    bool ignored = false;
    for (const char *p : kIgnored) ignored |= std::strncmp(*e, p, std::strlen(p)) == 0;
    if (!ignored) vars.emplace_back(*e);
  }
  std::sort(vars.begin(), vars.end());
  std::string s;
  for (auto &v : vars) s += v + ";";
  return s;
}

}  // namespace hk::pocl
