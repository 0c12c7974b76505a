/*
 * test_plot.c - the chart writer (src/framework/plot.c) on its own: the
 * endings --plot takes; the seconds a timeline gives between its reads;
 * an SVG's lines, a point a finite value, held level for a best so far;
 * the y axis logarithmic only for positive values over two decades;
 * text escaped for XML; a PNG of the same chart; charts refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "framework/plot.h"
#include "test_support.h"
#include "util/raster.h"

static char work_dir[] = "/tmp/clkit-test-plot-XXXXXX";

static void endings(void) {
  static const char *const good[] = {"a.svg", "dir/B.SVG", "c.png", "d.Png"};
  static const char *const bad[] = {"e.jpg", "svg",  "f.svg.txt", "g.svg/",
                                    "-",     ".svg", "dir/.png"};
  const char *path = NULL;
  for (size_t i = 0; i < sizeof good / sizeof *good; ++i) {
    ck_param param = {"plot", good[i]};
    CHECK_OK(ck__plot_option(&param, 1, &path));
    CHECK(path == good[i]);
  }
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    ck_param param = {"plot", bad[i]};
    CHECK_INVALID(ck__plot_option(&param, 1, &path), "option --plot");
  }
  ck_param other = {"trace", "t.csv"};
  CHECK_OK(ck__plot_option(&other, 1, &path));
  CHECK(path == NULL);
}

static void timeline(void) {
  ck__history history;
  static const size_t width[] = {2};
  CHECK_OK(ck__history_init(&history, CK__HISTORY_SAMPLE, 1, width, "reads"));
  CHECK(isnan(ck__plot_timeline_seconds(&history, 3)));
  const double rows[] = {0, 0.5, 10, 1.5, 20, 3.5};
  CHECK_OK(ck__history_push_rows(&history, rows, 3));
  CHECK(ck__plot_timeline_seconds(&history, 0) == 0.5);
  CHECK(ck__plot_timeline_seconds(&history, 5) == 1.0);
  CHECK(ck__plot_timeline_seconds(&history, 15) == 2.5);
  CHECK(ck__plot_timeline_seconds(&history, 20) == 3.5);
  CHECK(ck__plot_timeline_seconds(&history, 30) == 3.5);
  ck__history_free(&history);
}

/* The text of the file, or NULL. */
static char *written(const char *path) {
  size_t size = 0;
  return test_read_file(path, &size);
}

/* How many times needle stands in text. */
static size_t occurrences(const char *text, const char *needle) {
  size_t count = 0;
  for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
    ++count;
  return count;
}

/* The points of the index-th series line of an SVG (0 when there is
 * none). */
static size_t points_of(const char *svg, size_t index) {
  const char *at = svg;
  for (size_t i = 0; at && i <= index; ++i) {
    at = strstr(at, "<polyline class=\"series\"");
    if (at && i < index)
      ++at;
  }
  if (!at || !(at = strstr(at, "points=\"")))
    return 0;
  at += strlen("points=\"");
  size_t count = *at != '"';
  for (; *at != '"'; ++at)
    count += *at == ' ';
  return count;
}

static const ck_result *result_of(void) {
  static ck_result result;
  snprintf(result.workload, sizeof result.workload, "pso");
  snprintf(result.device, sizeof result.device, "ref");
  snprintf(result.device_name, sizeof result.device_name, "the <host>");
  result.seed = 7;
  return &result;
}

static void svg(void) {
  char path[600];
  test_path_in(work_dir, "chart.svg", path, sizeof path);
  /* x, a best so far over decades (one point not finite), a mean. */
  const double x[] = {0, 1, 2, 3, 4, 5};
  const double best[] = {100, 20, NAN, 0.5, 0.1, 0.01};
  const double mean[] = {300, 200, 100, INFINITY, 50, 40};
  const double negative[] = {5, 3, 1, -1, -3, -5};
  const double steps[] = {0, 2, 4};
  const double lengths[] = {900, 850, 800};
  ck__plot_series series[] = {
      {.name = "best", .axis = "value", .x = x, .y = best, .count = 6},
      {.name = "mean", .axis = "value", .x = x, .y = mean, .count = 6},
      {.name = "drift",
       .axis = "energy (ε)",
       .x = x,
       .y = negative,
       .count = 6},
      {.name = "length",
       .axis = "tour length",
       .x = steps,
       .y = lengths,
       .count = 3,
       .steps = 1,
       .until = 5},
  };
  ck__plot plot = {.result = result_of(),
                   .what = "a<b & \"c\"",
                   .details = "d's",
                   .x_label = "time (s)",
                   .top_label = "iteration",
                   .top_x = x,
                   .top_value = x,
                   .top_count = 6,
                   .series = series,
                   .series_count = 4};
  CHECK_OK(ck__plot_write(path, &plot));
  char *text = written(path);
  CHECK(text != NULL);
  if (!text)
    return;
  CHECK(strncmp(text, "<?xml", 5) == 0);
  CHECK(strstr(text, "<title>pso on ref: a&lt;b &amp; &quot;c&quot;</title>"));
  CHECK(strstr(text, "the &lt;host&gt; · seed 7 · d&apos;s"));
  CHECK(!strstr(text, "<script") && !strstr(text, "href"));
  CHECK(occurrences(text, "<polyline class=\"series\"") == 4);
  CHECK(points_of(text, 0) == 5); /* NaN left out */
  CHECK(points_of(text, 1) == 5); /* infinity left out */
  CHECK(points_of(text, 2) == 6);
  CHECK(points_of(text, 3) == 6); /* 2 x 3 - 1, and held to 5 */
  /* The values' panel spans four decades above 0: ticks at decades. */
  CHECK(strstr(text, ">0.01</text>") && strstr(text, ">100</text>"));
  /* The energies reach below 0: a linear axis. */
  CHECK(strstr(text, ">-5</text>") && strstr(text, ">0</text>"));
  CHECK(strstr(text, ">energy (ε)</text>") && strstr(text, ">iteration<"));
  free(text);

  /* Where a value is 0 the axis stays linear. */
  const double zero[] = {100, 10, 1, 0.1, 0.01, 0};
  ck__plot_series one = {
      .name = "best", .axis = "value", .x = x, .y = zero, .count = 6};
  plot = (ck__plot){.result = result_of(),
                    .what = "w",
                    .x_label = "x",
                    .series = &one,
                    .series_count = 1};
  CHECK_OK(ck__plot_write(path, &plot));
  text = written(path);
  CHECK(text && !strstr(text, ">0.01</text>") && strstr(text, ">0</text>"));
  CHECK(text && strstr(text, "<desc>the &lt;host&gt; · seed 7</desc>"));
  free(text);
}

static void png(void) {
  char path[600];
  test_path_in(work_dir, "chart.png", path, sizeof path);
  const double x[] = {0, 1, 2}, y[] = {3, 1, 2};
  ck__plot_series series = {
      .name = "y", .axis = "y (m)", .x = x, .y = y, .count = 3};
  ck__plot plot = {.result = result_of(),
                   .what = "w",
                   .x_label = "x (s)",
                   .series = &series,
                   .series_count = 1};
  ck_status status = ck__plot_write(path, &plot);
  if (!ck__png_available()) {
    CHECK(status == CK_ERROR_UNSUPPORTED);
    return;
  }
  CHECK_OK(status);
  size_t size = 0;
  unsigned char *bytes = (unsigned char *)test_read_file(path, &size);
  CHECK(bytes && size > 33 && memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) == 0);
  /* IHDR's width: 880 pixels, big-endian. */
  CHECK(bytes && size > 33 && bytes[16] == 0 && bytes[17] == 0 &&
        bytes[18] == 0x03 && bytes[19] == 0x70);
  free(bytes);
}

static void refused(void) {
  char path[600];
  test_path_in(work_dir, "refused.svg", path, sizeof path);
  const double x[] = {0, 1};
  ck__plot plot = {.result = result_of(), .what = "w", .x_label = "x"};
  CHECK_INVALID(ck__plot_write(path, &plot), "0 series");
  ck__plot_series series[CK__PLOT_MAX_PANELS + 1];
  const char *const axes[] = {"a", "b", "c", "d", "e"};
  for (size_t i = 0; i < CK__PLOT_MAX_PANELS + 1; ++i)
    series[i] = (ck__plot_series){
        .name = "s", .axis = axes[i], .x = x, .y = x, .count = 2};
  plot.series = series;
  plot.series_count = CK__PLOT_MAX_PANELS + 1;
  CHECK_INVALID(ck__plot_write(path, &plot), "axes");
  CHECK(access(path, F_OK) != 0);
}

int main(void) {
  if (!mkdtemp(work_dir)) {
    perror("mkdtemp");
    return 1;
  }
  endings();
  timeline();
  svg();
  png();
  refused();
  remove_tree(work_dir);
  return CHECK_DONE();
}
