#include "report.hpp"

#include "json.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hkbench {
namespace {

constexpr const char *kRowFormat =
    "%-26s %-12s %-10s %10s %10s %10s %6s %4s %8s %7s %7s  %s\n";

constexpr const char *kSchema = "pocl-launch-bench/2";

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

std::string jsonNumber(double v, const char *format = "%.4f") {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string jsonOptional(const std::optional<double> &v, const char *format = "%.4f") {
  return v ? jsonNumber(*v, format) : "null";
}

// "0", "0.02", "3", "12.5": allocations per operation.
std::string formatAllocs(const std::optional<double> &a) {
  if (!a) return "-";
  char buf[32];
  if (*a == 0)
    return "0";
  else if (*a < 0.01)
    std::snprintf(buf, sizeof buf, "<0.01");
  else if (*a < 10 && std::fabs(*a - std::round(*a)) > 0.005)
    std::snprintf(buf, sizeof buf, "%.2f", *a);
  else
    std::snprintf(buf, sizeof buf, "%.0f", *a);
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
  std::fprintf(out_, kRowFormat, "case", "category", "path", "median", "min", "max", "+-", "runs",
               "batch", "ratio", "allocs", "note");
  std::fflush(out_);
}

void Table::row(const Result &r) {
  std::string ratio = "-";
  if (r.ratio) {
    char buf[32];
    std::snprintf(buf, sizeof buf, *r.ratio >= 100 ? "%.0fx" : "%.2fx", *r.ratio);
    ratio = buf;
  }
  char spread[16];
  std::snprintf(spread, sizeof spread, "%.1f%%", 100 * r.spread());
  std::fprintf(out_, kRowFormat, r.name.c_str(), r.category.c_str(), r.path.c_str(),
               formatNs(r.perOpNs.median).c_str(), formatNs(r.perOpNs.min).c_str(),
               formatNs(r.perOpNs.max).c_str(), spread, std::to_string(r.perOpNs.count).c_str(),
               std::to_string(r.batch).c_str(), ratio.c_str(), formatAllocs(r.allocsPerOp).c_str(),
               r.note.c_str());
  std::fflush(out_);
}

void writeJson(const std::string &file, const RunMeta &meta, const std::vector<Result> &results) {
  std::string s = "{\"schema\":" + jsonString(kSchema) + ",\n \"meta\":{";
  s += "\"device\":" + jsonString(meta.device) + ",\"date\":" + jsonString(meta.date) +
       ",\"cpus\":" + std::to_string(meta.cpus) + ",\"load_average\":" +
       jsonString(meta.loadAverage) + ",\"runs\":" + std::to_string(meta.runs) +
       ",\"processes\":" + std::to_string(meta.processes) +
       ",\"batch_ms\":" + jsonNumber(meta.batchMs, "%g") + ",\"warmup_ms\":" +
       jsonNumber(meta.warmupMs, "%g") + ",\"quick\":" + (meta.quick ? "true" : "false") +
       ",\"alloc_counting\":" + (meta.allocCounting ? "true" : "false") + ",\"environment\":[";
  for (std::size_t i = 0; i < meta.environment.size(); ++i)
    s += (i ? "," : "") + jsonString(meta.environment[i]);
  s += "]},\n \"results\":[";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    s += i ? ",\n  " : "\n  ";
    s += "{\"name\":" + jsonString(r.name) + ",\"category\":" + jsonString(r.category) +
         ",\"path\":" + jsonString(r.path) + ",\"median_ns\":" + jsonNumber(r.perOpNs.median) +
         ",\"min_ns\":" + jsonNumber(r.perOpNs.min) + ",\"max_ns\":" +
         jsonNumber(r.perOpNs.max) + ",\"runs\":" + std::to_string(r.perOpNs.count) +
         ",\"spread\":" + jsonNumber(r.spread(), "%.5f") + ",\"allocations\":" +
         jsonOptional(r.allocsPerOp, "%.5g") + ",\"batch\":" + std::to_string(r.batch) +
         ",\"ratio\":" + jsonOptional(r.ratio) + ",\"baseline\":" +
         (r.ratio ? jsonString(r.baseline) : std::string("null"));
    if (r.shares)
      s += ",\"shares\":{\"inline\":" + jsonNumber((*r.shares)[0]) + ",\"team\":" +
           jsonNumber((*r.shares)[1]) + ",\"queue\":" + jsonNumber((*r.shares)[2]) + "}";
    s += ",\"note\":" + jsonString(r.note) + ",\"description\":" + jsonString(r.description) +
         "}";
  }
  s += results.empty() ? "]}\n" : "\n]}\n";
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << s;
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + file);
}

Results readResultsJson(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file);
  std::ostringstream ss;
  ss << in.rdbuf();
  json::Value doc;
  try {
    doc = json::parse(ss.str());
  } catch (const std::exception &e) {
    throw std::runtime_error(file + ": " + e.what());
  }
  const json::Value *list = doc.find("results");
  if (!list || list->type != json::Value::Type::Array)
    throw std::runtime_error(file + ": no \"results\" array");
  auto str = [](const json::Value &o, const char *key) {
    const json::Value *v = o.find(key);
    return v && v->isString() ? v->string : std::string();
  };
  auto num = [](const json::Value &o, const char *key) -> std::optional<double> {
    const json::Value *v = o.find(key);
    if (v && v->isNumber()) return v->number;
    return std::nullopt;
  };
  Results out;
  if (const json::Value *m = doc.find("meta")) {
    out.meta.device = str(*m, "device");
    out.meta.date = str(*m, "date");
    out.meta.loadAverage = str(*m, "load_average");
    out.meta.cpus = static_cast<unsigned>(num(*m, "cpus").value_or(0));
    out.meta.runs = static_cast<int>(num(*m, "runs").value_or(0));
    out.meta.processes = static_cast<int>(num(*m, "processes").value_or(1));
    out.meta.batchMs = num(*m, "batch_ms").value_or(0);
    out.meta.warmupMs = num(*m, "warmup_ms").value_or(0);
    if (const json::Value *q = m->find("quick")) out.meta.quick = q->boolean;
    if (const json::Value *a = m->find("alloc_counting")) out.meta.allocCounting = a->boolean;
    if (const json::Value *env = m->find("environment"))
      for (const json::Value &e : env->array)
        if (e.isString()) out.meta.environment.push_back(e.string);
  }
  for (const json::Value &o : list->array) {
    Result r;
    r.name = str(o, "name");
    r.category = str(o, "category");
    r.path = str(o, "path");
    r.description = str(o, "description");
    r.note = str(o, "note");
    r.baseline = str(o, "baseline");
    const std::optional<double> median = num(o, "median_ns");
    if (r.name.empty() || r.path.empty() || !median)
      throw std::runtime_error(file + ": a result without name, path or median_ns");
    r.perOpNs.median = *median;
    r.perOpNs.min = num(o, "min_ns").value_or(*median);
    r.perOpNs.max = num(o, "max_ns").value_or(*median);
    r.perOpNs.count = static_cast<std::size_t>(num(o, "runs").value_or(0));
    r.storedSpread = num(o, "spread");
    r.allocsPerOp = num(o, "allocations");
    r.ratio = num(o, "ratio");
    r.batch = static_cast<std::uint64_t>(num(o, "batch").value_or(0));
    if (const json::Value *sh = o.find("shares"))
      r.shares = std::array<double, 3>{num(*sh, "inline").value_or(0),
                                       num(*sh, "team").value_or(0),
                                       num(*sh, "queue").value_or(0)};
    out.results.push_back(std::move(r));
  }
  return out;
}

}  // namespace hkbench
