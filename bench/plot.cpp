#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

namespace hkbench {
namespace {

constexpr const char *kCategoryOrder[] = {"latency", "performance", "applications"};
constexpr const char *kCategoryTitle[] = {
    "Latency: one small launch + finish",
    "Performance: throughput of larger launches",
    "Applications: one step of a real code"};

struct PathStyle {
  const char *name;
  const char *fill;
  const char *text;
};
constexpr PathStyle kPaths[] = {
    {"hostkernel", "#2b6cb0", "#1a4480"},
    {"queue", "#dd8452", "#9c4a12"},
    {"native", "#55a868", "#2d6a3e"},
};
constexpr const char *kOtherFill = "#8c8c8c";

// Layout (px).
constexpr double kWidth = 1180;
constexpr double kLabelW = 205;      // case names end here (right-aligned)
constexpr double kTagX = 266;        // path names end here (right-aligned)
constexpr double kPlotX = 272;
constexpr double kPlotW = 600;       // the axis
constexpr double kBarH = 13;
constexpr double kBarGap = 3;
constexpr double kGroupGap = 12;

std::string esc(const std::string &s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// "1 ns", "10 ns", "100 ns", "1 us", ...
std::string decadeLabel(int e) {
  static const char *units[] = {"ns", "µs", "ms", "s"};
  if (e < 0) return "0.1 ns";
  const int u = std::min(e / 3, 3);
  const int rest = e - 3 * u;
  const int v = rest == 0 ? 1 : rest == 1 ? 10 : rest == 2 ? 100 : static_cast<int>(std::pow(10, rest));
  return std::to_string(v) + " " + units[u];
}

// "41 ns", "3.2 µs", "12.5 ms": three significant digits.
std::string shortNs(double ns) {
  static const char *units[] = {"ns", "µs", "ms", "s"};
  int u = 0;
  while (ns >= 1000 && u < 3) {
    ns /= 1000;
    ++u;
  }
  char buf[32];
  if (ns >= 100)
    std::snprintf(buf, sizeof buf, "%.0f %s", ns, units[u]);
  else if (ns >= 10)
    std::snprintf(buf, sizeof buf, "%.1f %s", ns, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", ns, units[u]);
  return buf;
}

std::string ratioText(double ratio, const std::string &baseline) {
  char buf[64];
  if (ratio >= 1.05) {
    std::snprintf(buf, sizeof buf, ratio >= 100 ? "%.0f× faster than %s" : ratio >= 10 ? "%.1f× faster than %s" : "%.2f× faster than %s",
                  ratio, baseline.c_str());
  } else if (ratio <= 1 / 1.05) {
    const double slower = 1 / ratio;
    std::snprintf(buf, sizeof buf, slower >= 10 ? "%.1f× slower than %s" : "%.2f× slower than %s",
                  slower, baseline.c_str());
  } else {
    std::snprintf(buf, sizeof buf, "≈ %s", baseline.c_str());
  }
  return buf;
}

int pathRank(const std::string &p) {
  for (int i = 0; i < 3; ++i)
    if (p == kPaths[i].name) return i;
  return 3;
}

struct Group {
  std::string name;
  std::vector<const Result *> bars;
};

}  // namespace

void writePlot(const std::string &file, const Results &results) {
  // Sections in category order; cases in the order they ran; bars in path order.
  std::vector<std::string> categories;
  std::map<std::string, std::vector<Group>> sections;
  for (const Result &r : results.results) {
    if (r.perOpNs.median <= 0) continue;
    auto &groups = sections[r.category];
    if (groups.empty()) categories.push_back(r.category);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group &x) { return x.name == r.name; });
    if (g == groups.end()) {
      groups.push_back({r.name, {}});
      g = groups.end() - 1;
    }
    g->bars.push_back(&r);
  }
  auto rank = [](const std::string &c) {
    for (int i = 0; i < 3; ++i)
      if (c == kCategoryOrder[i]) return i;
    return 3;
  };
  std::stable_sort(categories.begin(), categories.end(),
                   [&](const std::string &a, const std::string &b) { return rank(a) < rank(b); });
  for (auto &[cat, groups] : sections)
    for (Group &g : groups)
      std::stable_sort(g.bars.begin(), g.bars.end(), [](const Result *a, const Result *b) {
        return pathRank(a->path) < pathRank(b->path);
      });

  std::string body;
  double y = 0;
  auto textTo = [](std::string &to, double x, double ty, const std::string &s, const char *attrs) {
    to += "<text x=\"" + num(x) + "\" y=\"" + num(ty) + "\" " + attrs + ">" + esc(s) + "</text>\n";
  };
  auto text = [&](double x, double ty, const std::string &s, const char *attrs) {
    textTo(body, x, ty, s, attrs);
  };

  // Title, run description, legend.
  y = 30;
  text(20, y, "pocl-launch-bench: median time per operation (log scale, shorter is faster)",
       "class=\"title\"");
  y += 20;
  std::string sub;
  if (!results.meta.date.empty()) sub += results.meta.date;
  if (!results.meta.device.empty()) {
    // "pthread-haswell-AMD EPYC, OpenCL 3.0 PoCL 3.1+debian  Linux, ..." up to the build details.
    std::string device = results.meta.device;
    if (const auto cut = device.find("  "); cut != std::string::npos) device.resize(cut);
    if (device.size() > 80) device = device.substr(0, 77) + "...";
    sub += (sub.empty() ? "" : " · ") + device;
  }
  if (results.meta.runs)
    sub += (sub.empty() ? "" : " · ") + std::to_string(results.meta.runs) + " runs/path" +
           (results.meta.quick ? " (--quick)" : "");
  if (results.meta.cpus) sub += " · " + std::to_string(results.meta.cpus) + " CPUs";
  if (!results.meta.loadAverage.empty()) sub += ", load " + results.meta.loadAverage;
  if (results.meta.burner) sub += " · beside a CPU burner";
  text(20, y, sub, "class=\"sub\"");
  // A loaded machine makes thread-heavy numbers unreliable: say so where it is seen.
  if (results.meta.cpus && !results.meta.loadAverage.empty() &&
      std::atof(results.meta.loadAverage.c_str()) > results.meta.cpus) {
    y += 16;
    text(20, y,
         "⚠ load average above the CPU count: timings are noisy, OpenMP (native) ones "
         "especially",
         "class=\"warn\"");
  }
  y += 22;
  double lx = 20;
  for (const PathStyle &p : kPaths) {
    body += "<rect x=\"" + num(lx) + "\" y=\"" + num(y - 10) + "\" width=\"14\" height=\"11\" fill=\"" +
            p.fill + "\"/>\n";
    text(lx + 19, y, p.name, "class=\"legend\"");
    lx += 110;
  }
  text(lx + 10, y,
       "bar = median · thin line = min…max of the runs · ratio = baseline (queue) median / path median",
       "class=\"sub\"");
  y += 16;

  for (const std::string &cat : categories) {
    const auto &groups = sections[cat];
    // The section's axis: whole decades around its medians and minima/maxima.
    double lo = 1e300, hi = 0;
    for (const Group &g : groups)
      for (const Result *r : g.bars) {
        lo = std::min({lo, r->perOpNs.median, r->perOpNs.min > 0 ? r->perOpNs.min : r->perOpNs.median});
        hi = std::max({hi, r->perOpNs.median, r->perOpNs.max});
      }
    int e0 = static_cast<int>(std::floor(std::log10(lo)));
    int e1 = static_cast<int>(std::ceil(std::log10(hi)));
    if (e1 <= e0) e1 = e0 + 1;
    const double span = e1 - e0;
    auto xOf = [&](double ns) {
      const double t = (std::log10(std::max(ns, 1e-3)) - e0) / span;
      return kPlotX + std::clamp(t, 0.0, 1.0) * kPlotW;
    };

    y += 26;
    const int r = rank(cat);
    text(20, y, r < 3 ? kCategoryTitle[r] : cat, "class=\"section\"");
    y += 8;
    const double axisTop = y + 14;
    double h = 0;
    for (const Group &g : groups) h += g.bars.size() * (kBarH + kBarGap) - kBarGap + kGroupGap;
    const double axisBottom = axisTop + h;
    // Painted in this order: group bands, grid, bars and labels.
    std::string bands, grid, bars;
    // Decade grid and labels (top), with faint 2x and 5x lines.
    for (int e = e0; e <= e1; ++e) {
      const double x = xOf(std::pow(10.0, e));
      grid += "<line x1=\"" + num(x) + "\" y1=\"" + num(axisTop - 4) + "\" x2=\"" + num(x) + "\" y2=\"" +
              num(axisBottom) + "\" class=\"grid\"/>\n";
      textTo(grid, x, axisTop - 6, decadeLabel(e), "class=\"tick\" text-anchor=\"middle\"");
      if (e < e1)
        for (double m : {2.0, 5.0}) {
          const double xm = xOf(m * std::pow(10.0, e));
          grid += "<line x1=\"" + num(xm) + "\" y1=\"" + num(axisTop) + "\" x2=\"" + num(xm) +
                  "\" y2=\"" + num(axisBottom) + "\" class=\"minor\"/>\n";
        }
    }
    y = axisTop + 4;
    bool shade = false;
    for (const Group &g : groups) {
      const double gh = g.bars.size() * (kBarH + kBarGap) - kBarGap;
      if (shade)
        bands += "<rect x=\"10\" y=\"" + num(y - 4) + "\" width=\"" + num(kWidth - 20) + "\" height=\"" +
                num(gh + 8) + "\" class=\"band\"/>\n";
      shade = !shade;
      textTo(bars, kLabelW, y + gh / 2 + 4, g.name, "class=\"case\" text-anchor=\"end\"");
      for (const Result *res : g.bars) {
        const int pr = pathRank(res->path);
        const char *fill = pr < 3 ? kPaths[pr].fill : kOtherFill;
        const char *ink = pr < 3 ? kPaths[pr].text : "#444";
        const double x1 = xOf(res->perOpNs.median);
        textTo(bars, kTagX, y + kBarH - 3, res->path, "class=\"tag\" text-anchor=\"end\"");
        bars += "<rect x=\"" + num(kPlotX) + "\" y=\"" + num(y) + "\" width=\"" +
                num(std::max(x1 - kPlotX, 1.0)) + "\" height=\"" + num(kBarH) + "\" fill=\"" + fill +
                "\"><title>" + esc(res->name + " [" + res->path + "]: median " + formatNs(res->perOpNs.median) +
                                   ", min " + formatNs(res->perOpNs.min) + ", max " +
                                   formatNs(res->perOpNs.max) + (res->note.empty() ? "" : "; " + res->note)) +
                "</title></rect>\n";
        if (res->perOpNs.max > res->perOpNs.min) {
          const double ym = y + kBarH / 2;
          bars += "<line x1=\"" + num(xOf(res->perOpNs.min)) + "\" y1=\"" + num(ym) + "\" x2=\"" +
                  num(xOf(res->perOpNs.max)) + "\" y2=\"" + num(ym) + "\" class=\"range\"/>\n";
        }
        // Label: path initial inside the bar start, value and ratio right of the bar end.
        std::string label = shortNs(res->perOpNs.median);
        std::string extra;
        if (res->ratio && !res->baseline.empty()) extra = ratioText(*res->ratio, res->baseline);
        if (res->path == "hostkernel" && res->shares && (*res->shares)[1] > 0) {
          char buf[32];
          const double team = 100 * (*res->shares)[1];
          if (team < 0.5)
            std::snprintf(buf, sizeof buf, "team <1%%");
          else
            std::snprintf(buf, sizeof buf, "team %.0f%%", team);
          extra += extra.empty() ? buf : std::string(" · ") + buf;
        }
        const double tx = std::max(x1, xOf(res->perOpNs.max)) + 6;
        bars += "<text x=\"" + num(tx) + "\" y=\"" + num(y + kBarH - 2.5) + "\" class=\"value\" fill=\"" +
                ink + "\">" + esc(label) +
                (extra.empty() ? "" : "<tspan class=\"ratio\" dx=\"8\">" + esc(extra) + "</tspan>") +
                "</text>\n";
        y += kBarH + kBarGap;
      }
      y += kGroupGap - kBarGap;
    }
    body += bands + grid + bars;
    y = axisBottom;
  }
  y += 20;

  std::string svg;
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(y) +
         "\" viewBox=\"0 0 " + num(kWidth) + " " + num(y) + "\">\n";
  svg += "<style>\n"
         "text { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; }\n"
         ".title { font-size: 17px; font-weight: bold; fill: #222; }\n"
         ".sub { font-size: 11px; fill: #666; }\n"
         ".legend { font-size: 12px; fill: #333; }\n"
         ".section { font-size: 14px; font-weight: bold; fill: #222; }\n"
         ".case { font-size: 12px; fill: #222; }\n"
         ".tag { font-size: 9.5px; fill: #888; }\n"
         ".warn { font-size: 11.5px; fill: #b03a2e; }\n"
         ".tick { font-size: 10px; fill: #777; }\n"
         ".value { font-size: 11px; font-weight: bold; }\n"
         ".ratio { font-size: 10.5px; font-weight: normal; fill: #555; }\n"
         ".grid { stroke: #c8c8c8; stroke-width: 1; }\n"
         ".minor { stroke: #ececec; stroke-width: 1; }\n"
         ".band { fill: #f4f6f8; }\n"
         ".range { stroke: #222; stroke-width: 1.2; stroke-opacity: 0.55; }\n"
         "</style>\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += body;
  svg += "</svg>\n";
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << svg;
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + file);
}

}  // namespace hkbench
