/*
 * cli_report_html.c - bench's and compare's report as one self-contained
 * HTML page: inline CSS and SVG charts, nothing fetched.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_report.h"

/* s with &, <, >, " and ' escaped, for HTML and SVG (XML). */
static void put_markup(cli_text *t, const char *s) {
  for (; *s; ++s) {
    switch (*s) {
    case '&':
      cli_put(t, "&amp;");
      break;
    case '<':
      cli_put(t, "&lt;");
      break;
    case '>':
      cli_put(t, "&gt;");
      break;
    case '"':
      cli_put(t, "&quot;");
      break;
    case '\'':
      cli_put(t, "&#39;");
      break;
    default:
      cli_put(t, "%c", *s);
    }
  }
}

/* A size in words for a page: "1048576 x 100" as "1048576 × 100". */
static void put_size_markup(cli_text *t, const char *size) {
  for (const char *at = size; *at;) {
    if (strncmp(at, " x ", 3) == 0) {
      cli_put(t, " \xc3\x97 ");
      at += 3;
    } else {
      char one[2] = {*at++, 0};
      put_markup(t, one);
    }
  }
}

/* A rate with an SI prefix, for charts: "1.20 M". */
static const char *si(char *buffer, size_t size, double value) {
  static const char *const prefixes[] = {"", " k", " M", " G", " T", " P"};
  int step = 0;
  double shown = value;
  while (fabs(shown) >= 1000 && step < 5) {
    shown /= 1000;
    ++step;
  }
  if (!isfinite(value))
    snprintf(buffer, size, "-");
  else
    snprintf(buffer, size, "%.3g%s", shown, prefixes[step]);
  return buffer;
}

/* One colour a device, the same in every chart. */
static const char *const palette[] = {
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define PALETTE (sizeof palette / sizeof *palette)

static const char style[] =
    ":root{--ink:#1b2533;--muted:#5f6b7a;--line:#e3e7ec;--bg:#f4f6f9;"
    "--card:#fff;--good:#2b8a3e;--bad:#c92a2a}"
    "*{box-sizing:border-box}"
    "body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.5 "
    "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,'Helvetica Neue',"
    "Arial,sans-serif}"
    ".wrap{max-width:1060px;margin:0 auto;padding:0 24px}"
    "header{background:linear-gradient(120deg,#17233d,#2c4a86);color:#fff;"
    "padding:30px 0 26px}"
    ".eyebrow{margin:0;font-size:12px;letter-spacing:.14em;"
    "text-transform:uppercase;opacity:.75}"
    "h1{margin:4px 0 6px;font-size:27px;font-weight:600}"
    ".sub{margin:0;opacity:.85;font-size:14px}"
    "section{margin:26px 0}"
    "h2{margin:0 0 12px;font-size:18px;padding-bottom:6px;"
    "border-bottom:2px solid var(--line)}"
    "h3{margin:0;font-size:17px}"
    "h3 .unit{font-weight:400;color:var(--muted);font-size:14px;"
    "margin-left:8px}"
    ".cards{display:grid;grid-template-columns:repeat(auto-fit,"
    "minmax(190px,1fr));gap:12px}"
    ".card{background:var(--card);border:1px solid var(--line);"
    "border-radius:8px;padding:12px 16px}"
    ".card b{display:block;font-size:22px;font-weight:600}"
    ".card span{color:var(--muted);font-size:13px}"
    "article{background:var(--card);border:1px solid var(--line);"
    "border-radius:10px;padding:18px 22px;margin:0 0 18px;"
    "box-shadow:0 1px 2px rgba(20,30,50,.05)}"
    ".note{margin:2px 0 6px;color:var(--muted);font-size:13.5px}"
    ".label{margin:14px 0 0;font-size:12px;font-weight:600;"
    "color:var(--muted);text-transform:uppercase;letter-spacing:.05em}"
    "table{width:100%;border-collapse:collapse;font-size:13.5px}"
    "th,td{padding:6px 10px;border-bottom:1px solid var(--line);"
    "text-align:left;vertical-align:top}"
    "th{font-size:11.5px;font-weight:600;color:var(--muted);"
    "text-transform:uppercase;letter-spacing:.04em}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}td:first-child{white-space:nowrap}"
    "code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}"
    ".ok{color:var(--good);font-weight:600}"
    ".no{color:var(--bad);font-weight:600}"
    ".quiet{color:var(--muted)}"
    ".swatch{display:inline-block;width:10px;height:10px;border-radius:2px;"
    "margin-right:6px}"
    "svg{display:block;width:100%;height:auto;margin:6px 0 10px}"
    "dl{display:grid;grid-template-columns:150px 1fr;gap:4px 16px;"
    "margin:0;font-size:14px}"
    "dt{color:var(--muted)}dd{margin:0}"
    "footer{margin:30px 0 40px;color:var(--muted);font-size:12.5px}";

/* The chart's geometry: labels left, values right. */
enum {
  CHART_WIDTH = 780,
  CHART_LEFT = 190,
  CHART_RIGHT = 190,
  CHART_ROW = 34,
  CHART_TOP = 8,
  CHART_AXIS = 28
};
#define CHART_PLOT (CHART_WIDTH - CHART_LEFT - CHART_RIGHT)

/* A linear axis's end: 1, 2, 2.5 or 5 times a power of ten, at least
 * value. */
static double nice_top(double value) {
  if (!(value > 0))
    return 1;
  double power = pow(10, floor(log10(value)));
  static const double steps[] = {1, 2, 2.5, 5, 10};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; ++i)
    if (steps[i] * power >= value)
      return steps[i] * power;
  return 10 * power;
}

typedef struct axis {
  int log;
  double low, high; /* decades (log) or values */
} axis;

static double axis_x(const axis *scale, double value) {
  double at = scale->log
                  ? (log10(value) - scale->low) / (scale->high - scale->low)
                  : (value - scale->low) / (scale->high - scale->low);
  if (!(at > 0))
    at = 0;
  if (at > 1)
    at = 1;
  return CHART_LEFT + at * CHART_PLOT;
}

/* The axis's grid lines and their labels, under the bars. */
static void chart_grid(cli_text *t, const axis *scale, int height,
                       const char *suffix) {
  int ticks = scale->log ? (int)(scale->high - scale->low) : 4;
  for (int i = 0; i <= ticks; ++i) {
    double value = scale->log
                       ? pow(10, scale->low + i)
                       : scale->low + (scale->high - scale->low) * i / ticks;
    double x = axis_x(scale, value);
    char label[32];
    cli_put(t,
            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
            "stroke=\"#e3e7ec\"/>",
            x, CHART_TOP, x, height - CHART_AXIS + 4);
    cli_put(t,
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#5f6b7a\">"
            "%s%s</text>",
            x, height - 8, si(label, sizeof label, value), suffix);
  }
}

/* A row's label: the device's id, and its name below, cut short. */
static void chart_label(cli_text *t, const ck_device *device, int y) {
  char name[40];
  snprintf(name, sizeof name, "%.34s%s", device->name,
           strlen(device->name) > 34 ? "\xe2\x80\xa6" : "");
  cli_put(t, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"600\">",
          CHART_LEFT - 10, y + 15);
  put_markup(t, device->id);
  cli_put(t,
          "</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
          "font-size=\"10.5\" fill=\"#5f6b7a\">",
          CHART_LEFT - 10, y + 28);
  put_markup(t, name);
  cli_put(t, "</text>");
}

static void svg_open(cli_text *t, int height, const char *label) {
  cli_put(
      t,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
      "width=\"%d\" height=\"%d\" role=\"img\" font-family=\"-apple-system,"
      "BlinkMacSystemFont,Segoe UI,Roboto,Helvetica Neue,Arial,sans-serif\" "
      "font-size=\"12\" fill=\"#1b2533\" aria-label=\"",
      CHART_WIDTH, height, CHART_WIDTH, height);
  put_markup(t, label);
  cli_put(t, "\">");
}

/* The bars' axis line, and the chart's end. */
static void svg_close(cli_text *t, int height) {
  cli_put(t,
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#9aa5b1\"/>",
          CHART_LEFT, CHART_TOP, CHART_LEFT, height - CHART_AXIS + 4);
  cli_put(t, "</svg>");
}

/* The axis of a workload's throughput chart: log-scaled where the
 * devices differ by a decade or more. */
static axis throughput_axis(const cli_bench_row *rows, size_t count) {
  double least = INFINITY, most = 0;
  for (size_t k = 0; k < count; ++k)
    if (rows[k].status == CK_OK && rows[k].median &&
        rows[k].median->throughput > 0) {
      least = fmin(least, fmin(rows[k].low, rows[k].median->throughput));
      most = fmax(most, fmax(rows[k].high, rows[k].median->throughput));
    }
  axis scale = {0, 0, nice_top(most)};
  if (most > 0 && least > 0 && most / least >= 10) {
    scale.log = 1;
    scale.low = floor(log10(least));
    scale.high = ceil(log10(most));
    if (scale.high <= scale.low)
      scale.high = scale.low + 1;
  }
  return scale;
}

/* A row's bar at height y, class "bar", with its range where several
 * runs were made, its rate and its agreement. */
static void throughput_bar(cli_text *t, const cli_bench_workload *info,
                           const cli_bench_row *row, const axis *scale, int y) {
  double rate = row->median->throughput;
  double end = rate > 0 ? axis_x(scale, rate) : CHART_LEFT;
  double width = end - CHART_LEFT < 2 ? 2 : end - CHART_LEFT;
  char value[48], unit[48];
  cli_put(t, "<rect class=\"bar\" data-workload=\"%s\" data-device=\"",
          info->name);
  put_markup(t, row->device->id);
  cli_put(t,
          "\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" rx=\"3\" "
          "fill=\"%s\"><title>",
          CHART_LEFT, y + 5, width, palette[row->device_at % PALETTE]);
  put_markup(t, row->device->id);
  cli_put(t, ": %s %s</title></rect>", cli_figure(value, sizeof value, rate),
          row->median->throughput_unit);
  if (row->run_count > 1 && row->low < row->high) {
    double from = axis_x(scale, row->low), to = axis_x(scale, row->high);
    cli_put(t,
            "<path d=\"M%.1f %d v8 M%.1f %d H%.1f M%.1f %d v8\" "
            "stroke=\"#1b2533\" stroke-width=\"1.2\" fill=\"none\"/>",
            from, y + 10, from, y + 14, to, to, y + 10);
  }
  snprintf(unit, sizeof unit, "%s", row->median->throughput_unit);
  /* The label goes past the bar and its range. */
  double after = CHART_LEFT + width;
  if (row->run_count > 1 && row->high > 0)
    after = fmax(after, axis_x(scale, row->high));
  cli_put(t, "<text x=\"%.1f\" y=\"%d\">%s ", after + 8, y + 19,
          si(value, sizeof value, rate));
  put_markup(t, unit);
  cli_put(t, "</text>");
  const char *mark = row->is_ref          ? "oracle"
                     : row->check->agrees ? "\xe2\x9c\x93 agrees"
                                          : "\xe2\x9c\x97 disagrees";
  cli_put(t,
          "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"600\" "
          "fill=\"%s\">%s</text>",
          CHART_WIDTH - 4, y + 19,
          row->is_ref          ? "#5f6b7a"
          : row->check->agrees ? "#2b8a3e"
                               : "#c92a2a",
          mark);
}

/* The throughput of each device on one workload: one bar a device that
 * ran. */
static void chart_throughput(cli_text *t, const cli_bench_report *report,
                             size_t w) {
  const cli_bench_workload *info = &report->workloads[w];
  const cli_bench_row *rows = &report->rows[w * report->device_count];
  axis scale = throughput_axis(rows, report->device_count);
  int height = CHART_TOP + (int)report->device_count * CHART_ROW + CHART_AXIS;
  char label[160];
  snprintf(label, sizeof label, "%s throughput by device%s", info->name,
           scale.log ? " (log scale)" : "");
  svg_open(t, height, label);
  chart_grid(t, &scale, height, "");
  for (size_t k = 0; k < report->device_count; ++k) {
    const cli_bench_row *row = &rows[k];
    int y = CHART_TOP + (int)k * CHART_ROW;
    chart_label(t, row->device, y);
    if (row->status != CK_OK || !row->median) {
      cli_put(t, "<text x=\"%d\" y=\"%d\" fill=\"%s\" font-style=\"italic\">",
              CHART_LEFT + 6, y + 19, row->skipped ? "#8a94a1" : "#c92a2a");
      put_markup(t, row->skipped ? "skipped" : "failed");
      cli_put(t, "</text>");
      continue;
    }
    throughput_bar(t, info, row, &scale, y);
  }
  svg_close(t, height);
}

/* Each device's percent of its bounding peak on one workload, 0 to 100%
 * (class "peak"); a device without measured peaks says so. */
static void chart_peak(cli_text *t, const cli_bench_report *report, size_t w) {
  const cli_bench_workload *info = &report->workloads[w];
  const cli_bench_row *rows = &report->rows[w * report->device_count];
  double most = 100;
  for (size_t k = 0; k < report->device_count; ++k)
    if (isfinite(rows[k].percent))
      most = fmax(most, rows[k].percent);
  axis scale = {0, 0, nice_top(most)};
  int height = CHART_TOP + (int)report->device_count * CHART_ROW + CHART_AXIS;
  char label[160];
  snprintf(label, sizeof label, "%s percent of peak by device", info->name);
  svg_open(t, height, label);
  chart_grid(t, &scale, height, "%");
  for (size_t k = 0; k < report->device_count; ++k) {
    const cli_bench_row *row = &rows[k];
    int y = CHART_TOP + (int)k * CHART_ROW;
    chart_label(t, row->device, y);
    if (!isfinite(row->percent)) {
      cli_put(
          t,
          "<text x=\"%d\" y=\"%d\" fill=\"#8a94a1\" font-style=\"italic\">%s"
          "</text>",
          CHART_LEFT + 6, y + 19,
          row->status != CK_OK ? "no run" : "peak not measured");
      continue;
    }
    double end = axis_x(&scale, row->percent);
    double width = end - CHART_LEFT < 2 ? 2 : end - CHART_LEFT;
    cli_put(
        t,
        "<rect class=\"peak\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" "
        "rx=\"3\" fill=\"%s\" fill-opacity=\"0.75\"/>",
        CHART_LEFT, y + 5, width, palette[row->device_at % PALETTE]);
    cli_put(t, "<text x=\"%.1f\" y=\"%d\">%.3g%% of %s</text>",
            CHART_LEFT + width + 8, y + 19, row->percent,
            strcmp(row->bound, "memory") == 0 ? "bandwidth"
            : strcmp(row->bound, "fp64") == 0 ? "FP64 peak"
                                              : "FP32 peak");
  }
  svg_close(t, height);
}

/* Every device's speed-up over ref, a group of bars a workload, on a log
 * scale around ref's 1x (class "speedup"); nothing where no row but ref's
 * has one. */
static void chart_speedups(cli_text *t, const cli_bench_report *report) {
  double least = 1, most = 1;
  size_t bars = 0;
  for (size_t i = 0; i < report->row_count; ++i) {
    const cli_bench_row *row = &report->rows[i];
    if (row->is_ref || !(row->vs_ref > 0) || !isfinite(row->vs_ref))
      continue;
    least = fmin(least, row->vs_ref);
    most = fmax(most, row->vs_ref);
    ++bars;
  }
  if (!bars)
    return;
  size_t others = 0;
  for (size_t k = 0; k < report->device_count; ++k)
    others += report->devices[k].device->backend != CK_BACKEND_REF;
  enum { BAR = 16, GAP = 4, GROUP_GAP = 14 };
  axis scale = {1, floor(log10(least)), ceil(log10(most))};
  if (scale.high <= scale.low)
    scale.high = scale.low + 1;
  int group = (int)others * (BAR + GAP) + GROUP_GAP;
  int height = CHART_TOP + (int)report->workload_count * group + CHART_AXIS;
  cli_put(t, "<section><h2>Speed-up over ref</h2><article><p class=\"note\">"
             "Each device's rate over ref's by the cost model's GFLOP/s, "
             "each at its own size; log scale.</p>");
  svg_open(t, height, "speed-up over ref by workload and device");
  chart_grid(t, &scale, height, "x");
  for (size_t w = 0; w < report->workload_count; ++w) {
    int y = CHART_TOP + (int)w * group;
    cli_put(t,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-weight=\"600\">"
            "%s</text>",
            CHART_LEFT - 10, y + (group - GROUP_GAP) / 2 + 4,
            report->workloads[w].name);
    int slot = 0;
    for (size_t k = 0; k < report->device_count; ++k) {
      const cli_bench_row *row = &report->rows[w * report->device_count + k];
      if (row->is_ref)
        continue;
      int top = y + slot++ * (BAR + GAP);
      if (!(row->vs_ref > 0) || !isfinite(row->vs_ref)) {
        cli_put(t,
                "<text x=\"%d\" y=\"%d\" fill=\"#8a94a1\" font-size=\"11\" "
                "font-style=\"italic\">",
                CHART_LEFT + 6, top + 12);
        put_markup(t, row->device->id);
        cli_put(t, ": %s</text>",
                row->status != CK_OK ? (row->skipped ? "skipped" : "failed")
                                     : "no rate");
        continue;
      }
      /* From ref's 1x: right for faster, left for slower. */
      double one = axis_x(&scale, 1), end = axis_x(&scale, row->vs_ref);
      double from = fmin(one, end), width = fmax(fabs(end - one), 2);
      char value[32];
      cli_put(t,
              "<rect class=\"speedup\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
              "height=\"%d\" rx=\"3\" fill=\"%s\"><title>",
              from, top, width, BAR, palette[row->device_at % PALETTE]);
      put_markup(t, row->device->id);
      cli_put(t, "</title></rect><text x=\"%.1f\" y=\"%d\" font-size=\"11\">",
              fmax(one, end) + 6, top + 12);
      put_markup(t, row->device->id);
      cli_put(t, " %s</text>", cli_times(value, sizeof value, row->vs_ref));
    }
  }
  double one = axis_x(&scale, 1);
  cli_put(t,
          "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
          "stroke=\"#1b2533\" stroke-dasharray=\"4 3\"/>",
          one, CHART_TOP, one, height - CHART_AXIS + 4);
  cli_put(t, "</svg></article></section>");
}

/* The rows of one workload as a table. */
static void html_rows(cli_text *t, const cli_bench_report *report, size_t w) {
  const cli_bench_row *rows = &report->rows[w * report->device_count];
  cli_put(t,
          "<table><thead><tr><th>Device</th><th>Size</th>"
          "<th>Throughput</th>%s<th>GB/s</th><th>GFLOP/s</th>"
          "<th>%% of peak</th><th>\xc3\x97 ref</th><th>\xc3\x97 first</th>"
          "<th>Agreement</th></tr></thead><tbody>",
          report->meta.repeat > 1 ? "<th>Range</th>" : "");
  for (size_t k = 0; k < report->device_count; ++k) {
    const cli_bench_row *row = &rows[k];
    cli_put(t,
            "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>"
            "<code>",
            palette[row->device_at % PALETTE]);
    put_markup(t, row->device->id);
    cli_put(t, "</code></td>");
    if (row->status != CK_OK) {
      cli_put(t, "<td colspan=\"%d\" class=\"%s\">%s: ",
              report->meta.repeat > 1 ? 9 : 8, row->skipped ? "quiet" : "no",
              row->skipped ? "skipped" : "failed");
      put_markup(t, row->error);
      cli_put(t, "</td></tr>");
      continue;
    }
    char rate[32], low[32], high[32], gbs[32], gflops[32], peak[48], ref[32],
        first[32];
    cli_put(t, "<td>");
    put_size_markup(t, row->size);
    cli_put(t, "</td><td class=\"n\">%s <span class=\"quiet\">",
            cli_figure(rate, sizeof rate, row->median->throughput));
    put_markup(t, row->median->throughput_unit);
    cli_put(t, "</span></td>");
    if (report->meta.repeat > 1)
      cli_put(t, "<td class=\"n\">%s\xe2\x80\x93%s</td>",
              cli_figure(low, sizeof low, row->low),
              cli_figure(high, sizeof high, row->high));
    cli_put(t,
            "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s"
            "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>",
            cli_figure(gbs, sizeof gbs, row->gbs),
            cli_figure(gflops, sizeof gflops, row->gflops),
            cli_percent(peak, sizeof peak, row),
            cli_times(ref, sizeof ref, row->vs_ref),
            cli_times(first, sizeof first, row->vs_first));
    if (row->is_ref)
      cli_put(t, "<td class=\"quiet\">oracle</td></tr>");
    else
      cli_put(t,
              "<td class=\"%s\">%s <span class=\"quiet\">(%.2g)</span></td>"
              "</tr>",
              row->check->agrees ? "ok" : "no",
              row->check->agrees ? "\xe2\x9c\x93 agrees"
                                 : "\xe2\x9c\x97 disagrees",
              row->check->agreement);
  }
  cli_put(t, "</tbody></table>");
}

static void html_devices(cli_text *t, const cli_bench_report *report) {
  cli_put(t, "<section><h2>Devices</h2><table><thead><tr><th>Device</th>"
             "<th>Name</th><th>Kind</th><th>Platform and driver</th>"
             "<th>Units</th><th>Memory</th><th>Bandwidth</th><th>FP32</th>"
             "<th>FP64</th></tr></thead><tbody>");
  int measured = 0;
  for (size_t k = 0; k < report->device_count; ++k) {
    const ck_device *device = report->devices[k].device;
    const cli_peaks *peaks = &report->devices[k].peaks;
    char memory[32], gbs[32], fp32[32], fp64[32];
    cli_human_bytes(memory, sizeof memory, device->global_memory);
    measured |=
        isfinite(peaks->gbs) || isfinite(peaks->fp32) || isfinite(peaks->fp64);
    cli_put(t,
            "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>"
            "<code>",
            palette[k % PALETTE]);
    put_markup(t, device->id);
    cli_put(t, "</code></td><td>");
    put_markup(t, device->name);
    cli_put(t, "</td><td>%s</td><td>", cli_kind_name(device));
    put_markup(t, device->backend == CK_BACKEND_REF ? "clkit's serial C"
                                                    : device->platform);
    if (device->driver_version[0]) {
      cli_put(t, " <span class=\"quiet\">");
      put_markup(t, device->driver_version);
      cli_put(t, "</span>");
    }
    cli_put(t,
            "</td><td class=\"n\">%u</td><td class=\"n\">%s</td>"
            "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s"
            "</td></tr>",
            device->compute_units, memory,
            cli_figure(gbs, sizeof gbs, peaks->gbs),
            cli_figure(fp32, sizeof fp32, peaks->fp32),
            cli_figure(fp64, sizeof fp64, peaks->fp64));
  }
  cli_put(t, "</tbody></table>");
  cli_put(t, measured ? "<p class=\"note\">Peaks in GB/s and GFLOP/s.</p>"
                      : "<p class=\"note\">No device's peaks are measured yet: "
                        "percent of peak shows \xe2\x80\x9c-\xe2\x80\x9d.</p>");
  cli_put(t, "</section>");
}

static void html_meta(cli_text *t, const cli_bench_report *report) {
  const cli_bench_meta *meta = &report->meta;
  static const char *const labels[] = {
      "Command", "Date", "Host",  "Operating system",
      "Kernel",  "CPU",  "clkit", "Commit"};
  char cpu[320], version[64];
  snprintf(cpu, sizeof cpu, "%s (%ld CPUs)", meta->cpu, meta->cpus);
  snprintf(version, sizeof version, "%s", meta->version);
  const char *values[] = {
      meta->command_line, meta->date, meta->hostname, meta->os,
      meta->kernel,       cpu,        version,        meta->commit};
  cli_put(t, "<section><h2>Run</h2><article><dl>");
  for (size_t i = 0; i < sizeof labels / sizeof *labels; ++i) {
    cli_put(t, "<dt>%s</dt><dd>%s", labels[i],
            i == 0 || i == 7 ? "<code>" : "");
    put_markup(t, values[i]);
    cli_put(t, "%s</dd>", i == 0 || i == 7 ? "</code>" : "");
  }
  cli_put(t,
          "<dt>Sizes</dt><dd>%s</dd><dt>Runs a row</dt><dd>%u (median and "
          "range)</dd><dt>Seed</dt><dd>%llu</dd></dl></article></section>",
          meta->size, meta->repeat, (unsigned long long)meta->seed);
}

/* The page's head and its header: the host, the date, clkit's version. */
static void html_head(cli_text *t, const cli_bench_report *report) {
  const cli_bench_meta *meta = &report->meta;
  cli_put(t,
          "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width, "
          "initial-scale=1\"><title>clkit %s: ",
          meta->command);
  put_markup(t, meta->hostname);
  cli_put(t, ", %s</title><style>%s</style></head><body>", meta->date, style);
  cli_put(t,
          "<header><div class=\"wrap\"><p class=\"eyebrow\">clkit %s "
          "report</p><h1>",
          meta->command);
  put_markup(t, meta->hostname);
  cli_put(t,
          ": %zu device%s, %zu workload%s</h1><p class=\"sub\">%s \xc2\xb7 "
          "clkit %s (",
          report->device_count, report->device_count == 1 ? "" : "s",
          report->workload_count, report->workload_count == 1 ? "" : "s",
          meta->date, meta->version);
  put_markup(t, meta->commit);
  cli_put(t, ") \xc2\xb7 sizes %s \xc2\xb7 %u run%s a row</p></div></header>",
          meta->size, meta->repeat, meta->repeat == 1 ? "" : "s");
}

/* The cards at the top: devices, workloads, rows that agree, failed and
 * skipped. */
static void html_cards(cli_text *t, const cli_bench_report *report) {
  size_t agreeing = 0, checked = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < report->row_count; ++i) {
    const cli_bench_row *row = &report->rows[i];
    if (row->status != CK_OK) {
      failed += !row->skipped;
      skipped += row->skipped != 0;
      continue;
    }
    if (!row->is_ref) {
      ++checked;
      agreeing += row->check->agrees != 0;
    }
  }
  cli_put(t, "<main class=\"wrap\"><section class=\"cards\">");
  cli_put(t, "<div class=\"card\"><b>%zu</b><span>devices</span></div>",
          report->device_count);
  cli_put(t, "<div class=\"card\"><b>%zu</b><span>workloads</span></div>",
          report->workload_count);
  cli_put(t,
          "<div class=\"card\"><b class=\"%s\">%zu of %zu</b><span>rows "
          "agree with ref</span></div>",
          agreeing == checked && !failed ? "ok" : "no", agreeing, checked);
  if (failed)
    cli_put(t,
            "<div class=\"card\"><b class=\"no\">%zu</b><span>rows "
            "failed</span></div>",
            failed);
  if (skipped)
    cli_put(t,
            "<div class=\"card\"><b class=\"quiet\">%zu</b><span>rows "
            "skipped: the device does not offer the run</span></div>",
            skipped);
  cli_put(t, "</section>");
}

/* Each workload's article: its charts and its table. */
static void html_results(cli_text *t, const cli_bench_report *report) {
  int peaks = 0;
  for (size_t i = 0; i < report->row_count; ++i)
    peaks |= isfinite(report->rows[i].percent);
  cli_put(t, "<section><h2>Results</h2>");
  for (size_t w = 0; w < report->workload_count; ++w) {
    const cli_bench_workload *info = &report->workloads[w];
    cli_put(t, "<article id=\"%s\"><h3>%s<span class=\"unit\">", info->name,
            info->name);
    put_markup(t, info->oracle ? info->oracle->throughput_unit : "");
    cli_put(t, "</span></h3><p class=\"note\">Size: ");
    put_size_markup(t, info->format);
    cli_put(t, ". Agreement with ref checked at ");
    put_size_markup(t, info->check_size);
    cli_put(t, ".</p><p class=\"label\">Throughput</p>");
    chart_throughput(t, report, w);
    if (peaks) {
      cli_put(t, "<p class=\"label\">Percent of peak</p>");
      chart_peak(t, report, w);
    }
    html_rows(t, report, w);
    cli_put(t, "</article>");
  }
  cli_put(t, "</section>");
}

char *cli_report_html(const cli_bench_report *report) {
  cli_text t = {0};
  html_head(&t, report);
  html_cards(&t, report);
  html_devices(&t, report);
  chart_speedups(&t, report);
  html_results(&t, report);
  html_meta(&t, report);
  cli_put(&t,
          "<footer>Throughput is each row's median run. GB/s and GFLOP/s "
          "follow each workload's cost model; percent of peak is the higher "
          "of the two shares of the device's measured peaks. Speed-ups "
          "compare GFLOP/s, which hold across sizes. Made by clkit "
          "%s.</footer></main></body></html>\n",
          report->meta.version);
  return cli_text_finish(&t);
}
