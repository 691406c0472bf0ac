#include "parts.hpp"

#include "case_list.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace hkbench {
namespace {

constexpr const char *kPrefix = "mixed / parts ";

// The note without an earlier parts note.
std::string withoutParts(const std::string &note) {
  const std::size_t at = note.find(kPrefix);
  if (at == std::string::npos) return note;
  std::size_t end = note.find("; ", at);
  std::string rest = end == std::string::npos ? std::string() : note.substr(end + 2);
  std::string head = note.substr(0, at);
  if (head.size() >= 2 && head.compare(head.size() - 2, 2, "; ") == 0)
    head.resize(head.size() - 2);
  return head.empty() || rest.empty() ? head + rest : head + "; " + rest;
}

}  // namespace

void noteParts(std::vector<Result> &results) {
  for (Result &r : results) {
    const Case *c = findCase(r.name);
    if (!c) continue;
    const auto spec = std::find_if(c->parts.begin(), c->parts.end(),
                                   [&](const Case::Parts &p) { return p.path == r.path; });
    if (spec == c->parts.end()) continue;
    double sum = 0;
    std::string names;
    bool complete = true;
    for (const std::string &part : spec->parts) {
      const auto found = std::find_if(results.begin(), results.end(), [&](const Result &o) {
        return o.name == r.name && o.path == part;
      });
      if (found == results.end() || found->perOpNs.median <= 0) {
        complete = false;
        break;
      }
      sum += found->perOpNs.median;
      names += (names.empty() ? "" : " + ") + part;
    }
    if (!complete) continue;
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.2fx", r.perOpNs.median / sum);
    const std::string rest = withoutParts(r.note);
    r.note = kPrefix + std::string(ratio) + " (" + names + ")" + (rest.empty() ? "" : "; ") + rest;
  }
}

}  // namespace hkbench
