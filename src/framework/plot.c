/*
 * plot.c - charts of a run's history as SVG or PNG (plot.h).
 *
 * The layout is worked out once, in pixels, through a painter that knows
 * its text's widths; the same drawing calls then make SVG elements or
 * pixels. Each series is one <polyline class="series"> in the SVG, its
 * name in a <title> inside it.
 */
#include "framework/plot.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "framework/framework.h"
#include "util/raster.h"

/* ---- Layout constants, in pixels ----------------------------------------- */

enum {
  WIDTH = 880,
  PAD = 16,        /* around the whole chart */
  TICK = 5,        /* a tick mark's length */
  PANEL_GAP = 28,  /* between stacked panels */
  SAMPLE = 24,     /* a legend's line sample */
  MAX_TICKS = 24,  /* of an axis, minor ones included */
  LABEL_ROOM = 18, /* a line of axis text */
  SUBTITLE_LINES = 3,
};

/* A panel's height for 1 to 4 panels. */
static const double panel_heights[CK__PLOT_MAX_PANELS] = {360, 260, 210, 180};

/* Series colours, in order (Tableau's ten, most distinct first). */
static const uint8_t palette[][3] = {
    {31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
    {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {23, 190, 207}};
static const uint8_t background[3] = {255, 255, 255};
static const uint8_t grid_colour[3] = {232, 232, 232};
static const uint8_t frame_colour[3] = {170, 170, 170};
static const uint8_t tick_colour[3] = {90, 90, 90};
static const uint8_t title_colour[3] = {26, 26, 26};
static const uint8_t text_colour[3] = {51, 51, 51};
static const uint8_t muted_colour[3] = {96, 96, 96};

/* ---- The painter: SVG text or a canvas ------------------------------------
 */

typedef enum text_role {
  ROLE_TITLE,
  ROLE_SUBTITLE,
  ROLE_LABEL,
  ROLE_TICK,
  ROLE_LEGEND
} text_role;

/* SVG font sizes of the roles, in pixels. */
static const double font_sizes[] = {18, 13, 14, 12, 13};

typedef enum anchor { ANCHOR_START, ANCHOR_MIDDLE, ANCHOR_END } anchor;

typedef struct painter {
  int svg;
  ck__text_buffer text; /* svg */
  ck__canvas canvas;    /* png */
  ck__coverage coverage;
} painter;

/* PNG text: the bitmap font at twice its size; the title in bold. */
#define PNG_SCALE 2u

static double text_width(const painter *p, const char *text, text_role role) {
  assert(p && text && role <= ROLE_LEGEND);
  if (!p->svg)
    return ck__canvas_text_width(text, PNG_SCALE) + (role == ROLE_TITLE);
  /* Sans-serif averages about 0.6 of its size a character (bold more). */
  size_t characters = 0;
  for (const unsigned char *c = (const unsigned char *)text; *c; ++c)
    characters += (*c & 0xC0) != 0x80;
  return (double)characters * font_sizes[role] *
         (role == ROLE_TITLE ? 0.64 : 0.58);
}

/* text with XML's special characters as entities. */
static void put_xml(ck__text_buffer *out, const char *text) {
  for (; *text; ++text) {
    const char *entity = ck__text_xml_entity(*text);
    if (entity)
      ck__text_put(out, "%s", entity);
    else
      ck__text_put(out, "%c", *text);
  }
}

static void put_colour(ck__text_buffer *out, const uint8_t rgb[3]) {
  ck__text_put(out, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static const uint8_t *role_colour(text_role role) {
  return role == ROLE_TITLE      ? title_colour
         : role == ROLE_SUBTITLE ? muted_colour
         : role == ROLE_TICK     ? tick_colour
                                 : text_colour;
}

/* Text centred vertically on y; vertical: turned a quarter left, centred
 * horizontally on x, running upwards. */
static void draw_text(painter *p, double x, double y, const char *text,
                      text_role role, anchor where, int vertical) {
  assert(p && text && role <= ROLE_LEGEND && where <= ANCHOR_END);
  const uint8_t *rgb = role_colour(role);
  if (p->svg) {
    static const char *const anchors[] = {"start", "middle", "end"};
    double size = font_sizes[role];
    ck__text_put(&p->text, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
    if (vertical)
      ck__text_put(&p->text, " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
    ck__text_put(&p->text, " dy=\"0.36em\" font-size=\"%g\" fill=\"", size);
    put_colour(&p->text, rgb);
    ck__text_put(&p->text, "\"%s%s%s>", where ? " text-anchor=\"" : "",
                 where ? anchors[where] : "", where ? "\"" : "");
    if (role == ROLE_TITLE)
      ck__text_put(&p->text, "<tspan font-weight=\"bold\">");
    put_xml(&p->text, text);
    ck__text_put(&p->text, "%s</text>\n", role == ROLE_TITLE ? "</tspan>" : "");
    return;
  }
  double width = text_width(p, text, role);
  double shift = where == ANCHOR_START    ? 0
                 : where == ANCHOR_MIDDLE ? width / 2
                                          : width;
  double half = 7 * PNG_SCALE / 2.0;
  int32_t left = (int32_t)lround(vertical ? x - half : x - shift);
  int32_t top = (int32_t)lround(vertical ? y + shift : y - half);
  ck__canvas_text(&p->canvas, left, top, PNG_SCALE, text, rgb, vertical);
  if (role == ROLE_TITLE)
    ck__canvas_text(&p->canvas, left + 1, top, PNG_SCALE, text, rgb, vertical);
}

/* A line of width pixels; thin lines along the pixels' grid are drawn on
 * pixel centres, so that they are crisp. */
static void draw_line(painter *p, double x0, double y0, double x1, double y1,
                      const uint8_t rgb[3], double width) {
  if (width <= 1.5 && x0 == x1)
    x0 = x1 = floor(x0) + 0.5;
  if (width <= 1.5 && y0 == y1)
    y0 = y1 = floor(y0) + 0.5;
  if (p->svg) {
    ck__text_put(&p->text,
                 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                 "stroke=\"",
                 x0, y0, x1, y1);
    put_colour(&p->text, rgb);
    ck__text_put(&p->text, "\" stroke-width=\"%g\"/>\n", width);
    return;
  }
  ck__coverage_segment(&p->coverage, x0, y0, x1, y1, width);
  ck__coverage_paint(&p->coverage, &p->canvas, rgb);
}

/* A series' line through count points (x, y pairs in xy). */
static void draw_series(painter *p, const double *xy, size_t count,
                        const uint8_t rgb[3], const ck__plot_series *series) {
  assert(p && (xy || count == 0) && rgb && series);
  if (p->svg) {
    ck__text_put(&p->text,
                 "<polyline class=\"series\" fill=\"none\" stroke=\"");
    put_colour(&p->text, rgb);
    ck__text_put(&p->text, "\" stroke-width=\"2\" stroke-linejoin=\"round\" "
                           "stroke-linecap=\"round\" points=\"");
    for (size_t i = 0; i < count; ++i)
      ck__text_put(&p->text, "%s%.2f,%.2f", i ? " " : "", xy[2 * i],
                   xy[2 * i + 1]);
    ck__text_put(&p->text, "\"><title>");
    put_xml(&p->text, series->name);
    ck__text_put(&p->text, " (");
    put_xml(&p->text, series->axis);
    ck__text_put(&p->text, ")</title></polyline>\n");
    return;
  }
  for (size_t i = 0; i + 1 < count; ++i)
    ck__coverage_segment(&p->coverage, xy[2 * i], xy[2 * i + 1], xy[2 * i + 2],
                         xy[2 * i + 3], 2);
  if (count == 1)
    ck__coverage_segment(&p->coverage, xy[0], xy[1], xy[0], xy[1], 3);
  ck__coverage_paint(&p->coverage, &p->canvas, rgb);
}

/* ---- Scales and ticks ------------------------------------------------------
 */

typedef struct scale {
  int log;         /* positions from log10 of the values */
  double lo, hi;   /* the axis's ends, in the position's units */
  double from, to; /* its pixels: lo at from, hi at to */
  double step;     /* between the labelled ticks, in values (linear) */
  double ticks[MAX_TICKS];
  size_t tick_count;
  double minor[MAX_TICKS]; /* log: 2 to 9 of each decade, where few */
  size_t minor_count;
} scale;

static double position(const scale *s, double value) {
  double at = s->log ? log10(value) : value;
  return s->from + (at - s->lo) / (s->hi - s->lo) * (s->to - s->from);
}

/* 1, 2 or 5 times a power of ten, the least at or above span / target. */
static double nice_step(double span, double target) {
  double raw = span / target;
  double power = pow(10, floor(log10(raw)));
  double fraction = raw / power;
  return (fraction <= 1   ? 1
          : fraction <= 2 ? 2
          : fraction <= 5 ? 5
                          : 10) *
         power;
}

/* A linear scale over [low, high] (loose: with a 25th of its span to
 * spare at each end, so that no line runs along the frame), about target
 * ticks at whole steps within it. */
static void linear_scale(scale *s, double low, double high, double target,
                         int loose) {
  if (!(high > low)) {
    double margin = low != 0 ? fabs(low) * 0.1 : 1;
    low -= margin;
    high += margin;
  }
  if (loose) {
    double spare = (high - low) / 25;
    low -= spare;
    high += spare;
  }
  s->log = 0;
  s->step = nice_step(high - low, target);
  s->lo = low;
  s->hi = high;
  /* Whole steps, counted as such: 0.6 / 0.1 is a hair above 6. */
  double first = ceil(low / s->step - 1e-9);
  double last = floor(high / s->step + 1e-9);
  s->tick_count = 0;
  for (double k = first; k <= last && s->tick_count < MAX_TICKS; ++k) {
    double tick = k * s->step;
    s->ticks[s->tick_count++] = fabs(tick) < 1e-9 * s->step ? 0 : tick;
  }
}

/* A logarithmic scale over [low, high] (both above 0, two decades or
 * more apart) with a twentieth of its span to spare at each end; ticks
 * at whole decades, and at 2 to 9 of each where few decades show. */
static void log_scale(scale *s, double low, double high, double target) {
  s->log = 1;
  double spare = (log10(high) - log10(low)) / 20;
  s->lo = log10(low) - spare;
  s->hi = log10(high) + spare;
  double decades = ceil(s->hi) - floor(s->lo);
  double every = ceil(decades / target);
  s->tick_count = s->minor_count = 0;
  for (double k = ceil(s->lo / every) * every;
       k <= s->hi && s->tick_count < MAX_TICKS; k += every)
    s->ticks[s->tick_count++] = pow(10, k);
  if (decades > 4)
    return;
  for (double k = floor(s->lo); k < s->hi; ++k)
    for (int m = 2; m <= 9 && s->minor_count < MAX_TICKS; ++m) {
      double minor = m * pow(10, k);
      if (log10(minor) >= s->lo && log10(minor) <= s->hi)
        s->minor[s->minor_count++] = minor;
    }
}

/* A tick's label: few digits, an exponent for large and small numbers
 * ("1e-5", "2.5e6"). */
static void tick_text(char *text, size_t size, double value, const scale *s) {
  double magnitude = fabs(value);
  if (value == 0) {
    snprintf(text, size, "0");
  } else if (s->log) {
    double k = round(log10(magnitude));
    if (k >= -3 && k <= 4)
      snprintf(text, size, "%.*f", k < 0 ? (int)-k : 0, value);
    else
      snprintf(text, size, "1e%.0f", k);
  } else if (magnitude < 1e6 && s->step >= 1e-4) {
    int decimals = s->step >= 1 ? 0 : (int)ceil(-log10(s->step) - 1e-9);
    snprintf(text, size, "%.*f", decimals, value);
  } else {
    /* %g's exponent without its sign and leading zeros: 1e+06 as 1e6. */
    char raw[40];
    snprintf(raw, sizeof raw, "%.3g", value);
    char *e = strchr(raw, 'e');
    if (e) {
      char *digits = e + 1;
      int negative = *digits == '-';
      digits += *digits == '-' || *digits == '+';
      while (*digits == '0' && digits[1])
        ++digits;
      snprintf(text, size, "%.*se%s%s", (int)(e - raw), raw,
               negative ? "-" : "", digits);
    } else {
      snprintf(text, size, "%s", raw);
    }
  }
}

/* ---- The chart's layout ----------------------------------------------------
 */

typedef struct panel {
  const char *axis;
  size_t series[CK__PLOT_MAX_SERIES];
  size_t count;
  scale y;
} panel;

typedef struct chart {
  const ck__plot *plot;
  size_t colour[CK__PLOT_MAX_SERIES]; /* each series', by its name */
  panel panels[CK__PLOT_MAX_PANELS];
  size_t panel_count;
  scale x;
  double left, right, height;
  double header, plots_top; /* where the header ends, the panels begin */
  double panel_height;
  double top_ticks[MAX_TICKS], top_at[MAX_TICKS];
  size_t top_tick_count;
  char title[300], subtitle_text[600];
  char subtitle[SUBTITLE_LINES][600]; /* the subtitle, wrapped */
  size_t subtitle_lines;
} chart;

static double value_at(const double *values, size_t stride, size_t i) {
  assert(values);
  return values[i * (stride ? stride : 1)];
}

/* The series into panels by their axes. */
static ck_status group(chart *c) {
  const ck__plot *plot = c->plot;
  assert(plot && c->panel_count == 0);
  if (plot->series_count < 1 || plot->series_count > CK__PLOT_MAX_SERIES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__plot_write: %zu series; a chart draws 1 to %d",
                    plot->series_count, CK__PLOT_MAX_SERIES);
  for (size_t s = 0; s < plot->series_count; ++s) {
    size_t p = 0;
    while (p < c->panel_count &&
           strcmp(c->panels[p].axis, plot->series[s].axis) != 0)
      ++p;
    if (p == CK__PLOT_MAX_PANELS)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "ck__plot_write: more than %d axes", CK__PLOT_MAX_PANELS);
    if (p == c->panel_count)
      c->panels[c->panel_count++].axis = plot->series[s].axis;
    c->panels[p].series[c->panels[p].count++] = s;
    /* A name seen before (a set's loss and accuracy) keeps its colour. */
    size_t named = 0, colours = 0;
    while (named < s && strcmp(plot->series[named].name, plot->series[s].name))
      ++named;
    for (size_t k = 0; k < s; ++k)
      colours = c->colour[k] + 1 > colours ? c->colour[k] + 1 : colours;
    c->colour[s] = named < s ? c->colour[named] : colours;
  }
  return CK_OK;
}

/* The least and largest finite values of a panel's series (y) or of every
 * series (x); 0 when there is none. */
static int value_range(const chart *c, const panel *p, double *low,
                       double *high) {
  const ck__plot *plot = c->plot;
  int found = 0, positive = 1;
  *low = INFINITY;
  *high = -INFINITY;
  size_t count = p ? p->count : plot->series_count;
  for (size_t k = 0; k < count; ++k) {
    const ck__plot_series *series = &plot->series[p ? p->series[k] : k];
    for (size_t i = 0; i < series->count; ++i) {
      double x = value_at(series->x, series->stride, i);
      double y = value_at(series->y, series->stride, i);
      if (!isfinite(x) || !isfinite(y))
        continue;
      double v = p ? y : x;
      *low = fmin(*low, v);
      *high = fmax(*high, v);
      positive &= v > 0;
      found = 1;
    }
    if (!p && found && series->steps && series->until > *high)
      *high = series->until;
  }
  if (!found)
    *low = *high = 0;
  return found ? 1 + positive : 0;
}

/* The ticks of the top scale: nice values of top_value, each at its x
 * (interpolated), dropped where it would crowd the one before. */
static void top_ticks(chart *c, const painter *p) {
  const ck__plot *plot = c->plot;
  size_t n = plot->top_count, stride = plot->top_stride;
  c->top_tick_count = 0;
  if (!plot->top_label || n == 0)
    return;
  scale values;
  double first = value_at(plot->top_value, stride, 0);
  double last = value_at(plot->top_value, stride, n - 1);
  linear_scale(&values, first, last, (c->right - c->left) / 90, 0);
  double shown_at = -INFINITY;
  for (size_t t = 0, k = 0; t < values.tick_count; ++t) {
    double v = values.ticks[t];
    while (k + 1 < n && value_at(plot->top_value, stride, k + 1) < v)
      ++k;
    double v0 = value_at(plot->top_value, stride, k);
    double x0 = value_at(plot->top_x, stride, k);
    double x = x0;
    if (k + 1 < n) {
      double v1 = value_at(plot->top_value, stride, k + 1);
      double x1 = value_at(plot->top_x, stride, k + 1);
      x = v1 > v0 ? x0 + (v - v0) / (v1 - v0) * (x1 - x0) : x0;
    }
    if (!isfinite(x) || v < v0 || x < c->x.lo || x > c->x.hi)
      continue;
    double at = position(&c->x, x);
    char text[40];
    tick_text(text, sizeof text, v, &values);
    if (at - shown_at < text_width(p, text, ROLE_TICK) + 16)
      continue;
    shown_at = at;
    c->top_ticks[c->top_tick_count] = v;
    c->top_at[c->top_tick_count++] = at;
  }
}

/* text cut with "…" to at most room pixels. */
static void fit_text(const painter *p, char *text, size_t size, double room,
                     text_role role) {
  assert(text && size > strlen(text));
  size_t length = strlen(text);
  while (length > 0 && text_width(p, text, role) > room) {
    length = ck__text_utf8_cut(text, length - 1);
    snprintf(text + length, size - length, "…");
  }
}

/* The subtitle in lines that fit the chart's width, broken after its
 * " · " separators; what is left past the last line is cut. */
static void wrap_subtitle(chart *c, const painter *p) {
  const char *rest = c->subtitle_text;
  double room = WIDTH - 2 * PAD;
  c->subtitle_lines = 0;
  while (rest && *rest && c->subtitle_lines < SUBTITLE_LINES) {
    char *line = c->subtitle[c->subtitle_lines++];
    size_t size = sizeof c->subtitle[0], taken = strlen(rest);
    /* The most pieces that fit, or the first piece alone. */
    for (;;) {
      snprintf(line, size, "%.*s", (int)taken, rest);
      if (text_width(p, line, ROLE_SUBTITLE) <= room)
        break;
      const char *cut = NULL;
      for (const char *at = strstr(rest, " · "); at && at < rest + taken;
           at = strstr(at + 1, " · "))
        cut = at;
      if (!cut)
        break;
      taken = (size_t)(cut - rest);
    }
    rest += taken;
    if (strncmp(rest, " · ", strlen(" · ")) == 0)
      rest += strlen(" · ");
    if (c->subtitle_lines == SUBTITLE_LINES && *rest)
      strncat(line, " · …", size - strlen(line) - 1);
    fit_text(p, line, size, room, ROLE_SUBTITLE);
  }
}

static ck_status lay_out(chart *c, const painter *p) {
  const ck__plot *plot = c->plot;
  ck_status status = group(c);
  if (status)
    return status;
  assert(c->panel_count >= 1 && c->panel_count <= CK__PLOT_MAX_PANELS);
  c->panel_height = panel_heights[c->panel_count - 1];
  double target = c->panel_height / 40 < 4 ? 4 : c->panel_height / 40;
  double widest_tick = 0, widest_name = 0;
  for (size_t k = 0; k < c->panel_count; ++k) {
    panel *panel = &c->panels[k];
    double low, high;
    int found = value_range(c, panel, &low, &high);
    if (found == 2 && high / low >= 100)
      log_scale(&panel->y, low, high, target);
    else
      linear_scale(&panel->y, low, high, target, 1);
    for (size_t t = 0; t < panel->y.tick_count; ++t) {
      char text[40];
      tick_text(text, sizeof text, panel->y.ticks[t], &panel->y);
      widest_tick = fmax(widest_tick, text_width(p, text, ROLE_TICK));
    }
    for (size_t s = 0; s < panel->count; ++s)
      widest_name =
          fmax(widest_name,
               text_width(p, plot->series[panel->series[s]].name, ROLE_LEGEND));
  }
  c->left = PAD + LABEL_ROOM + 10 + widest_tick + 6 + TICK;
  c->right = WIDTH - PAD - (SAMPLE + 8 + widest_name + 12);
  double low, high;
  value_range(c, NULL, &low, &high);
  /* Time, steps and epochs count from 0: an axis that begins near it
   * begins there. */
  if (low > 0 && low < (high - low) / 10)
    low = 0;
  linear_scale(&c->x, low, high, (c->right - c->left) / 90, 0);
  c->x.from = c->left;
  c->x.to = c->right;
  const ck_result *result = plot->result;
  const char *details = plot->details ? plot->details : "";
  snprintf(c->title, sizeof c->title, "%s on %s: %s", result->workload,
           result->device, plot->what);
  snprintf(c->subtitle_text, sizeof c->subtitle_text,
           "%s · seed %" PRIu64 "%s%s", result->device_name, result->seed,
           *details ? " · " : "", details);
  wrap_subtitle(c, p);
  c->header = 42 + 20 * (double)c->subtitle_lines;
  c->plots_top = c->header + (plot->top_label ? 2 * LABEL_ROOM + 14 : 12);
  for (size_t k = 0; k < c->panel_count; ++k) {
    scale *y = &c->panels[k].y;
    y->to = c->plots_top + (double)k * (c->panel_height + PANEL_GAP);
    y->from = y->to + c->panel_height;
  }
  c->height = c->plots_top + c->panel_count * (c->panel_height + PANEL_GAP) -
              PANEL_GAP + TICK + 2 * LABEL_ROOM + 14;
  top_ticks(c, p);
  return CK_OK;
}

/* ---- Drawing
 * ----------------------------------------------------------------- */

static void draw_header(painter *p, const chart *c) {
  char text[600];
  double room = WIDTH - 2 * PAD;
  snprintf(text, sizeof text, "%s", c->title);
  fit_text(p, text, sizeof text, room, ROLE_TITLE);
  draw_text(p, PAD, 24, text, ROLE_TITLE, ANCHOR_START, 0);
  for (size_t k = 0; k < c->subtitle_lines; ++k)
    draw_text(p, PAD, 46 + 20 * (double)k, c->subtitle[k], ROLE_SUBTITLE,
              ANCHOR_START, 0);
}

/* A panel's grid, under everything else; then its frame, the ticks
 * outside it with the y axis's labels, and the axis's name, turned. */
static void draw_frame(painter *p, const chart *c, const panel *panel) {
  const scale *y = &panel->y;
  double top = y->to, bottom = y->from;
  char text[40];
  for (size_t t = 0; t < c->x.tick_count; ++t) {
    double at = position(&c->x, c->x.ticks[t]);
    draw_line(p, at, top, at, bottom, grid_colour, 1);
  }
  for (size_t t = 0; t < y->tick_count; ++t) {
    double at = position(y, y->ticks[t]);
    draw_line(p, c->left, at, c->right, at, grid_colour, 1);
  }
  /* The frame, and the ticks outside it. */
  draw_line(p, c->left, top, c->right, top, frame_colour, 1);
  draw_line(p, c->left, bottom, c->right, bottom, frame_colour, 1);
  draw_line(p, c->left, top, c->left, bottom, frame_colour, 1);
  draw_line(p, c->right, top, c->right, bottom, frame_colour, 1);
  for (size_t t = 0; t < y->tick_count; ++t) {
    double at = position(y, y->ticks[t]);
    draw_line(p, c->left - TICK, at, c->left, at, tick_colour, 1);
    tick_text(text, sizeof text, y->ticks[t], y);
    draw_text(p, c->left - TICK - 4, at, text, ROLE_TICK, ANCHOR_END, 0);
  }
  for (size_t t = 0; t < y->minor_count; ++t) {
    double at = position(y, y->minor[t]);
    draw_line(p, c->left - TICK + 2, at, c->left, at, tick_colour, 1);
  }
  for (size_t t = 0; t < c->x.tick_count; ++t) {
    double at = position(&c->x, c->x.ticks[t]);
    draw_line(p, at, bottom, at, bottom + TICK, tick_colour, 1);
  }
  char label[200];
  snprintf(label, sizeof label, "%s", panel->axis);
  fit_text(p, label, sizeof label, bottom - top, ROLE_LABEL);
  draw_text(p, PAD + LABEL_ROOM / 2.0, (top + bottom) / 2, label, ROLE_LABEL,
            ANCHOR_MIDDLE, 1);
}

/* A series' vertices in pixels into xy (room for 2 count + 1 points),
 * the points that y's scale cannot show left out; a best so far held
 * level to each next point and to its until. Returns how many. */
static size_t series_points(const chart *c, const scale *y,
                            const ck__plot_series *series, double *xy) {
  size_t used = 0;
  for (size_t i = 0; i < series->count; ++i) {
    double vx = value_at(series->x, series->stride, i);
    double vy = value_at(series->y, series->stride, i);
    if (!isfinite(vx) || !isfinite(vy) || (y->log && !(vy > 0)))
      continue;
    double px = position(&c->x, vx), py = position(y, vy);
    if (series->steps && used) {
      xy[2 * used] = px;
      xy[2 * used + 1] = xy[2 * used - 1];
      ++used;
    }
    xy[2 * used] = px;
    xy[2 * used + 1] = py;
    ++used;
  }
  double last_x = series->count
                      ? value_at(series->x, series->stride, series->count - 1)
                      : NAN;
  if (series->steps && used && series->until > last_x) {
    xy[2 * used] = position(&c->x, series->until);
    xy[2 * used + 1] = xy[2 * used - 1];
    ++used;
  }
  return used;
}

static void draw_panel(painter *p, const chart *c, size_t index) {
  assert(index < c->panel_count);
  const panel *panel = &c->panels[index];
  double top = panel->y.to;
  draw_frame(p, c, panel);
  /* The series, and the legend to the right. */
  const ck__plot *plot = c->plot;
  for (size_t k = 0; k < panel->count; ++k) {
    const ck__plot_series *series = &plot->series[panel->series[k]];
    const uint8_t *rgb = palette[c->colour[panel->series[k]] %
                                 (sizeof palette / sizeof *palette)];
    double legend_y = top + 10 + 22 * (double)k;
    draw_line(p, c->right + 10, legend_y, c->right + 10 + SAMPLE, legend_y, rgb,
              2.5);
    draw_text(p, c->right + 18 + SAMPLE, legend_y, series->name, ROLE_LEGEND,
              ANCHOR_START, 0);
    double *xy = malloc((2 * series->count + 1) * 2 * sizeof *xy);
    if (!xy) {
      p->text.failed = 1; /* the SVG's failure; a canvas has none */
      continue;
    }
    size_t used = series_points(c, &panel->y, series, xy);
    draw_series(p, xy, used, rgb, series);
    free(xy);
  }
}

static void draw_axes(painter *p, const chart *c) {
  const ck__plot *plot = c->plot;
  const panel *last = &c->panels[c->panel_count - 1];
  double bottom = last->y.from, middle = (c->left + c->right) / 2;
  char text[40];
  for (size_t t = 0; t < c->x.tick_count; ++t) {
    tick_text(text, sizeof text, c->x.ticks[t], &c->x);
    draw_text(p, position(&c->x, c->x.ticks[t]), bottom + TICK + 12, text,
              ROLE_TICK, ANCHOR_MIDDLE, 0);
  }
  draw_text(p, middle, bottom + TICK + 14 + LABEL_ROOM + 4, plot->x_label,
            ROLE_LABEL, ANCHOR_MIDDLE, 0);
  if (!plot->top_label)
    return;
  double top = c->panels[0].y.to;
  scale values = {0};
  if (c->top_tick_count > 1)
    values.step = c->top_ticks[1] - c->top_ticks[0];
  else
    values.step = 1;
  for (size_t t = 0; t < c->top_tick_count; ++t) {
    draw_line(p, c->top_at[t], top - TICK, c->top_at[t], top, tick_colour, 1);
    tick_text(text, sizeof text, c->top_ticks[t], &values);
    draw_text(p, c->top_at[t], top - TICK - 11, text, ROLE_TICK, ANCHOR_MIDDLE,
              0);
  }
  draw_text(p, middle, top - TICK - 14 - LABEL_ROOM - 2, plot->top_label,
            ROLE_LABEL, ANCHOR_MIDDLE, 0);
}

static void draw_chart(painter *p, const chart *c) {
  draw_header(p, c);
  for (size_t k = 0; k < c->panel_count; ++k)
    draw_panel(p, c, k);
  draw_axes(p, c);
}

/* ---- Files
 * ------------------------------------------------------------------- */

static ck_status write_svg(const char *path, const ck__plot *plot) {
  painter p = {.svg = 1};
  chart c = {.plot = plot};
  ck_status status = lay_out(&c, &p);
  if (status)
    return status;
  ck__text_buffer *out = &p.text;
  ck__text_put(out,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
               "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" "
               "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
               "<title>",
               WIDTH, ceil(c.height), WIDTH, ceil(c.height));
  put_xml(out, c.title);
  ck__text_put(out, "</title>\n<desc>");
  put_xml(out, c.subtitle_text);
  ck__text_put(out, "</desc>\n");
  ck__text_put(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"");
  put_colour(out, background);
  ck__text_put(out, "\"/>\n");
  draw_chart(&p, &c);
  ck__text_put(out, "</svg>\n");
  if (out->failed)
    status =
        ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s", path);
  else
    status = ck__file_write_atomic(path, out->data, out->size);
  free(out->data);
  return status;
}

static ck_status write_png(const char *path, const ck__plot *plot) {
  ck_status status = CK_OK;
  painter p = {.svg = 0};
  chart c = {.plot = plot};
  CK_TRY(lay_out(&c, &p));
  uint32_t width = WIDTH, height = (uint32_t)ceil(c.height);
  p.canvas.width = p.coverage.width = width;
  p.canvas.height = p.coverage.height = height;
  p.canvas.pixels = malloc((size_t)width * height * 3);
  p.coverage.alpha = calloc((size_t)width * height, sizeof *p.coverage.alpha);
  if (!p.canvas.pixels || !p.coverage.alpha)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of host memory for a %" PRIu32 " x %" PRIu32 " picture (%s)",
            width, height, path);
  ck__canvas_fill(&p.canvas, 0, 0, width, height, background);
  draw_chart(&p, &c);
  if (p.text.failed)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %s", path);
  CK_TRY(ck__png_write(path, &p.canvas));
fail:
  free(p.canvas.pixels);
  free(p.coverage.alpha);
  return status;
}

/* Whether path ends in ending (".svg"), letters in any case. */
static int ends_in(const char *path, const char *ending) {
  size_t length = strlen(path), size = strlen(ending);
  return length > size && strcasecmp(path + length - size, ending) == 0 &&
         path[length - size - 1] != '/';
}

ck_status ck__plot_option(const ck_param *params, size_t count,
                          const char **path) {
  assert(path);
  *path = ck__param_find(params, count, "plot");
  if (!*path)
    return CK_OK;
  if (ends_in(*path, ".svg"))
    return CK_OK;
  if (!ends_in(*path, ".png")) {
    ck__text_quoted quoted = ck__text_quote(*path);
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "option --plot: \"%s\" ends neither in .svg nor in .png; "
                    "a chart is written as FILE.svg or FILE.png",
                    quoted.text);
  }
  if (!ck__png_available())
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "option --plot: %s: PNG needs libpng, and clkit was built "
                    "without it; write FILE.svg",
                    *path);
  return CK_OK;
}

ck_status ck__plot_write(const char *path, const ck__plot *plot) {
  assert(path && plot);
  ck__c_locale locale = {0};
  ck_status status = ck__c_locale_enter(&locale, path);
  if (status)
    return status;
  status =
      ends_in(path, ".png") ? write_png(path, plot) : write_svg(path, plot);
  ck__c_locale_leave(&locale);
  return status;
}

double ck__plot_timeline_seconds(const ck__history *timeline, double steps) {
  assert(timeline && timeline->parts == 1 && timeline->width[0] == 2);
  const double *rows = timeline->entries[0];
  const double *latest = ck__history_latest(timeline);
  size_t count = timeline->count;
  if (!latest)
    return NAN;
  /* The reads kept, then the latest, which thinning may have left out. */
  double previous_steps = NAN, previous_seconds = NAN;
  for (size_t i = 0; i <= count; ++i) {
    const double *row = i < count ? rows + 2 * i : latest;
    if (steps <= row[0]) {
      if (isnan(previous_steps) || row[0] <= previous_steps)
        return row[1];
      return previous_seconds + (steps - previous_steps) /
                                    (row[0] - previous_steps) *
                                    (row[1] - previous_seconds);
    }
    previous_steps = row[0];
    previous_seconds = row[1];
  }
  return latest[1];
}
