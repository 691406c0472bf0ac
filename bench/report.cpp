#include "report.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hkbench {
namespace {

constexpr const char *kRowFormat =
    "%-26s %-12s %-10s %10s %10s %10s %6s %4s %8s %7s %7s  %s\n";

constexpr const char *kSchema = "pocl-launch-bench/2";

// A number as the schema stores it: rounded as `format` prints it (docs/benchmarks.md);
// null when not finite.
nlohmann::ordered_json number(double v, const char *format = "%.4f") {
  if (!std::isfinite(v)) return nullptr;
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return std::strtod(buf, nullptr);
}

nlohmann::ordered_json optional(const std::optional<double> &v, const char *format = "%.4f") {
  return v ? number(*v, format) : nlohmann::ordered_json(nullptr);
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
  using nlohmann::ordered_json;  // keeps the members in the schema's order
  ordered_json doc;
  doc["schema"] = kSchema;
  doc["meta"] = {{"device", meta.device},
                 {"date", meta.date},
                 {"cpus", meta.cpus},
                 {"load_average", meta.loadAverage},
                 {"runs", meta.runs},
                 {"processes", meta.processes},
                 {"batch_ms", number(meta.batchMs, "%g")},
                 {"warmup_ms", number(meta.warmupMs, "%g")},
                 {"quick", meta.quick},
                 {"burner", meta.burner},
                 {"alloc_counting", meta.allocCounting},
                 {"environment", meta.environment}};
  ordered_json list = ordered_json::array();
  for (const Result &r : results) {
    ordered_json o = {{"name", r.name},
                      {"category", r.category},
                      {"path", r.path},
                      {"median_ns", number(r.perOpNs.median)},
                      {"min_ns", number(r.perOpNs.min)},
                      {"max_ns", number(r.perOpNs.max)},
                      {"runs", r.perOpNs.count},
                      {"spread", number(r.spread(), "%.5f")},
                      {"allocations", optional(r.allocsPerOp, "%.5g")},
                      {"batch", r.batch},
                      {"ratio", optional(r.ratio)},
                      {"baseline", r.ratio ? ordered_json(r.baseline) : ordered_json(nullptr)}};
    if (r.shares)
      o["shares"] = {{"inline", number((*r.shares)[0])},
                     {"team", number((*r.shares)[1])},
                     {"queue", number((*r.shares)[2])}};
    o["note"] = r.note;
    o["description"] = r.description;
    list.push_back(std::move(o));
  }
  doc["results"] = std::move(list);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  // Invalid UTF-8 in a note or the environment is replaced, never a failed write.
  out << doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + file);
}

Results readResultsJson(const std::string &file) {
  using nlohmann::json;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file);
  json doc;
  try {
    doc = json::parse(in);
  } catch (const std::exception &e) {
    throw std::runtime_error(file + ": " + e.what());
  }
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
    throw std::runtime_error(file + ": no \"results\" array");
  // Members of the wrong type or missing read as absent, as the schema's readers always did.
  auto str = [](const json &o, const char *key) {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto num = [](const json &o, const char *key) -> std::optional<double> {
    auto it = o.find(key);
    if (it != o.end() && it->is_number()) return it->get<double>();
    return std::nullopt;
  };
  auto flag = [](const json &o, const char *key) {
    auto it = o.find(key);
    return it != o.end() && it->is_boolean() && it->get<bool>();
  };
  Results out;
  if (auto m = doc.find("meta"); m != doc.end() && m->is_object()) {
    out.meta.device = str(*m, "device");
    out.meta.date = str(*m, "date");
    out.meta.loadAverage = str(*m, "load_average");
    out.meta.cpus = static_cast<unsigned>(num(*m, "cpus").value_or(0));
    out.meta.runs = static_cast<int>(num(*m, "runs").value_or(0));
    out.meta.processes = static_cast<int>(num(*m, "processes").value_or(1));
    out.meta.batchMs = num(*m, "batch_ms").value_or(0);
    out.meta.warmupMs = num(*m, "warmup_ms").value_or(0);
    out.meta.quick = flag(*m, "quick");
    out.meta.burner = flag(*m, "burner");
    out.meta.allocCounting = flag(*m, "alloc_counting");
    if (auto env = m->find("environment"); env != m->end() && env->is_array())
      for (const json &e : *env)
        if (e.is_string()) out.meta.environment.push_back(e.get<std::string>());
  }
  for (const json &o : doc["results"]) {
    if (!o.is_object()) throw std::runtime_error(file + ": a result that is not an object");
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
    if (auto sh = o.find("shares"); sh != o.end() && sh->is_object())
      r.shares = std::array<double, 3>{num(*sh, "inline").value_or(0),
                                       num(*sh, "team").value_or(0),
                                       num(*sh, "queue").value_or(0)};
    out.results.push_back(std::move(r));
  }
  return out;
}

}  // namespace hkbench
