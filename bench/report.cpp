#include "report.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>

namespace hkbench {
namespace {

constexpr const char *kRowFormat = "%-22s %-11s %10s %10s %10s %5s %8s %9s  %s\n";

std::string jsonString(const std::string &s) {
  std::string o = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += ch;
        }
    }
  }
  return o + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

}  // namespace

std::string formatNs(double ns) {
  char buf[32];
  if (ns < 1e3)
    std::snprintf(buf, sizeof buf, "%.2f ns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

void Table::header() {
  std::fprintf(out_, kRowFormat, "case", "path", "median", "min", "max", "runs", "batch",
               "ratio", "note");
  std::fflush(out_);
}

void Table::row(const Result &r) {
  std::string ratio = "-";
  if (r.ratio) {
    char buf[32];
    std::snprintf(buf, sizeof buf, *r.ratio >= 100 ? "%.0fx" : "%.2fx", *r.ratio);
    ratio = buf;
  }
  std::fprintf(out_, kRowFormat, r.name.c_str(), r.path.c_str(),
               formatNs(r.perOpNs.median).c_str(), formatNs(r.perOpNs.min).c_str(),
               formatNs(r.perOpNs.max).c_str(), std::to_string(r.perOpNs.count).c_str(),
               std::to_string(r.batch).c_str(), ratio.c_str(), r.note.c_str());
  std::fflush(out_);
}

void writeJson(const std::string &file, const std::vector<Result> &results) {
  std::string s = "{\"results\":[";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    s += i ? ",\n  " : "\n  ";
    s += "{\"name\":" + jsonString(r.name) + ",\"category\":" + jsonString(r.category) +
         ",\"path\":" + jsonString(r.path) + ",\"median_ns\":" + jsonNumber(r.perOpNs.median) +
         ",\"min_ns\":" + jsonNumber(r.perOpNs.min) + ",\"max_ns\":" +
         jsonNumber(r.perOpNs.max) + ",\"runs\":" + std::to_string(r.perOpNs.count) + "}";
  }
  s += results.empty() ? "]}\n" : "\n]}\n";
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << s;
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + file);
}

}  // namespace hkbench
