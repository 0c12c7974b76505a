/*
 * gas_png.c - pictures of the two-dimensional gas as PNG: the particles
 * coloured by speed or the local density, with a legend, drawn on
 * util/raster.c's canvas and written through libpng.
 */
#include "gas/gas_io.h"

#include "clkit/gas.h"
#include "util/raster.h"
#include "util/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Colour stops of each scale, evenly spaced over [0, 1]: speeds from blue
 * through light grey to red, densities dark violet through teal to
 * yellow (as viridis), so that the two never read alike. */
static const double speed_stops[][3] = {
    {59, 76, 192}, {221, 221, 221}, {180, 4, 38}};
static const double density_stops[][3] = {
    {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};

void ck__gas_png_colour(ck__gas_scale scale, double fraction, uint8_t rgb[3]) {
  int density = scale == CK__GAS_SCALE_DENSITY;
  const double(*stops)[3] = density ? density_stops : speed_stops;
  size_t count = density ? sizeof density_stops / sizeof density_stops[0]
                         : sizeof speed_stops / sizeof speed_stops[0];
  if (!(fraction > 0))
    fraction = 0;
  if (fraction > 1)
    fraction = 1;
  double at = fraction * (double)(count - 1);
  size_t low = (size_t)at < count - 1 ? (size_t)at : count - 2;
  double t = at - (double)low;
  for (int c = 0; c < 3; ++c)
    rgb[c] = (uint8_t)lround(stops[low][c] +
                             t * (stops[low + 1][c] - stops[low][c]));
}

#ifdef CK_HAVE_PNG

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* value wrapped into [0, side]. */
static double wrap(double value, double side) {
  double wrapped = value - side * floor(value / side);
  return wrapped >= 0 && wrapped <= side ? wrapped : 0;
}

/* Fills the pixels whose centres lie within radius of (x, y), inside the
 * box's width x height pixels at the top left. */
static void draw_disc(const ck__canvas *c, uint32_t width, uint32_t height,
                      double x, double y, double radius, const uint8_t rgb[3]) {
  double left = fmax(0, floor(x - radius)),
         right = fmin(width - 1.0, x + radius);
  double top = fmax(0, floor(y - radius)),
         bottom = fmin(height - 1.0, y + radius);
  if (left > right || top > bottom)
    return;
  for (uint32_t row = (uint32_t)top; row <= (uint32_t)bottom; ++row)
    for (uint32_t column = (uint32_t)left; column <= (uint32_t)right;
         ++column) {
      double dx = column + 0.5 - x, dy = row + 0.5 - y;
      if (dx * dx + dy * dy <= radius * radius)
        memcpy(c->pixels + ((size_t)row * c->width + column) * 3, rgb, 3);
    }
}

/* The legend below the box: what the colours measure and the frame. */
#define LEGEND_MIN_WIDTH 160u
#define CAPTION_ITEMS 4
static const uint8_t legend_background[3] = {28, 28, 36};
static const uint8_t legend_text[3] = {235, 235, 235};
static const uint8_t box_background[3] = {12, 12, 20};

typedef struct legend {
  int has_scale; /* 0: discs of one colour, no velocities */
  ck__gas_scale scale;
  char low[32], high[32]; /* the scale's ends */
  const char *name;       /* what it measures */
  char caption[CAPTION_ITEMS][48];
  unsigned text_scale; /* 2 on pictures 400 pixels wide or more */
} legend;

/* Lays the caption's items out in rows that fit the width, greedily, from
 * row y, and draws them when c is not NULL. Returns the rows used. */
static uint32_t place_caption(const ck__canvas *c, uint32_t width, uint32_t y,
                              const legend *l) {
  unsigned s = l->text_scale;
  uint32_t margin = 4 * s, room = width - 2 * margin, rows = 1, used = 0;
  for (size_t i = 0; i < CAPTION_ITEMS; ++i) {
    uint32_t item = ck__canvas_text_width(l->caption[i], s),
             gap = used ? 12 * s : 0;
    if (used && used + gap + item > room) {
      ++rows;
      used = gap = 0;
    }
    if (c)
      ck__canvas_text(c, (int32_t)(margin + used + gap),
                      (int32_t)(y + (rows - 1) * 9 * s), s, l->caption[i],
                      legend_text, 0);
    used += gap + item;
  }
  return rows;
}

/* The legend's height in pixels: the bar, its labels and the caption. */
static uint32_t legend_height(uint32_t width, const legend *l) {
  unsigned s = l->text_scale;
  return 4 * s + 8 * s + 2 * s + 7 * s + 4 * s +
         place_caption(NULL, width, 0, l) * 9 * s - 2 * s + 4 * s;
}

/* Draws the legend from row top: the colour bar across the picture, the
 * scale's ends below its ends with its name between, then the caption. */
static void draw_legend(const ck__canvas *c, uint32_t top, const legend *l) {
  unsigned s = l->text_scale;
  uint32_t margin = 4 * s, bar_y = top + margin, bar_height = 8 * s;
  uint32_t bar_width = c->width - 2 * margin;
  for (uint32_t i = 0; i < bar_width; ++i) {
    uint8_t rgb[3];
    double fraction = bar_width > 1 ? (double)i / (bar_width - 1) : 0;
    ck__gas_png_colour(l->scale, l->has_scale ? fraction : 0.5, rgb);
    ck__canvas_fill(c, margin + i, bar_y, 1, bar_height, rgb);
  }
  uint32_t label_y = bar_y + bar_height + 2 * s;
  uint32_t name_width = ck__canvas_text_width(l->name, s);
  if (l->has_scale) {
    ck__canvas_text(c, (int32_t)margin, (int32_t)label_y, s, l->low,
                    legend_text, 0);
    uint32_t high = ck__canvas_text_width(l->high, s);
    ck__canvas_text(c, (int32_t)(c->width - margin - high), (int32_t)label_y, s,
                    l->high, legend_text, 0);
  }
  ck__canvas_text(c, (int32_t)((c->width - name_width) / 2), (int32_t)label_y,
                  s, l->name, legend_text, 0);
  place_caption(c, c->width, label_y + 7 * s + 4 * s, l);
}

/* Particles per bin of the density field: enough that the field shows
 * the density rather than the particles' counting noise. */
#define FIELD_BIN_PARTICLES 32.0

/* Where a coordinate (in bins, from the first bin's centre) falls between
 * two of count bins' centres: the lower one and the weight of the upper;
 * beyond the outer centres, the outer bin alone. */
static void between_centres(double at, uint32_t count, uint32_t *lower,
                            uint32_t *upper, double *weight) {
  at = fmin(fmax(at, 0), count - 1.0);
  *lower = (uint32_t)at < count - 1 ? (uint32_t)at : count - 1;
  *upper = *lower + 1 < count ? *lower + 1 : *lower;
  *weight = at - *lower;
}

/*
 * The box as a field of the number density, particles per unit area:
 * square-ish bins of about FIELD_BIN_PARTICLES particles tile the box;
 * each particle is shared between the four bins whose centres surround
 * it (cloud in cell, which keeps a lattice from beating against the
 * bins), and each pixel interpolates the four bin densities around it.
 * Sets *top to the densest bin, the scale's high end.
 */
static ck_status draw_field(const ck__canvas *c, uint32_t width,
                            uint32_t height, size_t particles, double box_x,
                            double box_y, const double *positions,
                            double *top) {
  double side = sqrt(FIELD_BIN_PARTICLES * box_x * box_y / (double)particles);
  uint32_t bins_x = (uint32_t)fmin(fmax(1, round(box_x / side)), width);
  uint32_t bins_y = (uint32_t)fmin(fmax(1, round(box_y / side)), height);
  double bin_x = box_x / bins_x, bin_y = box_y / bins_y;
  double *density = calloc((size_t)bins_x * bins_y, sizeof *density);
  if (!density)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory for a %" PRIu32 " x %" PRIu32
                    " density field",
                    bins_x, bins_y);
  for (size_t i = 0; i < particles; ++i) {
    /* Rows run downwards, as the picture's. */
    double across = wrap(positions[2 * i], box_x) / bin_x - 0.5;
    double down = (box_y - wrap(positions[2 * i + 1], box_y)) / bin_y - 0.5;
    uint32_t x0, x1, y0, y1;
    double tx, ty;
    between_centres(across, bins_x, &x0, &x1, &tx);
    between_centres(down, bins_y, &y0, &y1, &ty);
    density[(size_t)y0 * bins_x + x0] += (1 - tx) * (1 - ty);
    density[(size_t)y0 * bins_x + x1] += tx * (1 - ty);
    density[(size_t)y1 * bins_x + x0] += (1 - tx) * ty;
    density[(size_t)y1 * bins_x + x1] += tx * ty;
  }
  *top = 0;
  for (size_t bin = 0; bin < (size_t)bins_x * bins_y; ++bin) {
    density[bin] /= bin_x * bin_y;
    *top = fmax(*top, density[bin]);
  }
  for (uint32_t row = 0; row < height; ++row) {
    uint32_t y0, y1;
    double ty;
    between_centres((row + 0.5) / height * bins_y - 0.5, bins_y, &y0, &y1, &ty);
    const double *upper = density + (size_t)y0 * bins_x,
                 *lower = density + (size_t)y1 * bins_x;
    for (uint32_t column = 0; column < width; ++column) {
      uint32_t x0, x1;
      double tx;
      between_centres((column + 0.5) / width * bins_x - 0.5, bins_x, &x0, &x1,
                      &tx);
      double value = (1 - ty) * ((1 - tx) * upper[x0] + tx * upper[x1]) +
                     ty * ((1 - tx) * lower[x0] + tx * lower[x1]);
      uint8_t rgb[3];
      ck__gas_png_colour(CK__GAS_SCALE_DENSITY, *top > 0 ? value / *top : 0,
                         rgb);
      memcpy(c->pixels + ((size_t)row * c->width + column) * 3, rgb, 3);
    }
  }
  free(density);
  return CK_OK;
}

/* The legend of a picture width pixels wide, of a density field or of
 * discs, and its captions (in the C locale). */
static void set_legend(legend *l, uint32_t width, int field, int has_velocities,
                       size_t particles, uint64_t step, double temperature,
                       double density) {
  l->text_scale = width >= 400 ? 2 : 1;
  l->has_scale = field || has_velocities;
  l->scale = field ? CK__GAS_SCALE_DENSITY : CK__GAS_SCALE_SPEED;
  l->name = field ? "density" : has_velocities ? "speed" : "no velocities";
  snprintf(l->caption[0], sizeof l->caption[0], "N=%zu", particles);
  snprintf(l->caption[1], sizeof l->caption[1], "step=%" PRIu64, step);
  snprintf(l->caption[2], sizeof l->caption[2], "T=%.3g", temperature);
  snprintf(l->caption[3], sizeof l->caption[3], "rho=%.3g", density);
}

/* Each particle's speed into a new *speeds, and their 99th percentile
 * into *top: speeds scaled by it, one fast particle does not leave all
 * the others blue. */
static ck_status speeds_of(const char *path, size_t particles,
                           const double *velocities, double **speeds,
                           double *top) {
  ck_status status = CK_OK;
  double *sorted = malloc(particles * sizeof *sorted);
  *speeds = malloc(particles * sizeof **speeds);
  if (!*speeds || !sorted)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory writing %s: speeds of %zu particles", path,
            particles);
  for (size_t i = 0; i < particles; ++i)
    (*speeds)[i] = sorted[i] = hypot(velocities[2 * i], velocities[2 * i + 1]);
  qsort(sorted, particles, sizeof *sorted, compare_doubles);
  *top = sorted[(size_t)(0.99 * (double)(particles - 1))];

fail:
  free(sorted);
  return status;
}

ck_status ck__gas_png_write(const char *path, size_t particles, double box_x,
                            double box_y, const double *positions,
                            const double *velocities, unsigned width,
                            uint64_t step, double temperature) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  ck__canvas c = {0};
  double *speeds = NULL;
  legend l = {0};
  if (!path || !*path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_png_write: no file name given");
  CK_TRY(ck__gas_check_configuration("ck__gas_png_write", particles, box_x,
                                     box_y, positions, velocities));
  if (width < 1 || width > CK__GAS_PNG_MAX_SIDE)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_png_write: width %u is outside 1..%u", width,
                    CK__GAS_PNG_MAX_SIDE);

  /* width pixels along the box's longer side; the legend below, at least
   * LEGEND_MIN_WIDTH wide so that its text fits. */
  double longer = fmax(box_x, box_y);
  uint32_t box_width =
      (uint32_t)fmax(1, lround((double)width * box_x / longer));
  uint32_t box_height =
      (uint32_t)fmax(1, lround((double)width * box_y / longer));
  double scale_x = box_width / box_x, scale_y = box_height / box_y;
  double radius = 0.5 * fmin(scale_x, scale_y);
  /* Discs under about 2 pixels in radius blur into noise: a field then. */
  int field = radius < 2;
  c.width = box_width > LEGEND_MIN_WIDTH ? box_width : LEGEND_MIN_WIDTH;
  CK_TRY(ck__c_locale_enter(&locale, path));
  set_legend(&l, c.width, field, velocities != NULL, particles, step,
             temperature, (double)particles / (box_x * box_y));
  c.height = box_height + legend_height(c.width, &l);
  size_t bytes = (size_t)c.width * c.height * 3;
  c.pixels = malloc(bytes);
  if (!c.pixels)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory writing %s: %zu bytes for a %" PRIu32 " x %" PRIu32
            " picture",
            path, bytes, c.width, c.height);
  ck__canvas_fill(&c, 0, 0, c.width, c.height, legend_background);
  ck__canvas_fill(&c, 0, 0, box_width, box_height, box_background);

  double top = 0;
  if (field) {
    status = draw_field(&c, box_width, box_height, particles, box_x, box_y,
                        positions, &top);
    if (status != CK_OK)
      CK_FAIL_PREFIX(status, "writing %s: ", path);
  } else {
    if (velocities)
      CK_TRY(speeds_of(path, particles, velocities, &speeds, &top));
    for (size_t i = 0; i < particles; ++i) {
      uint8_t rgb[3];
      double fraction = 0.5;
      if (velocities)
        fraction = top > 0 ? speeds[i] / top : 0;
      ck__gas_png_colour(CK__GAS_SCALE_SPEED, fraction, rgb);
      double x = wrap(positions[2 * i], box_x) * scale_x;
      double y = (box_y - wrap(positions[2 * i + 1], box_y)) * scale_y;
      draw_disc(&c, box_width, box_height, x, y, radius, rgb);
    }
  }
  snprintf(l.low, sizeof l.low, "0");
  snprintf(l.high, sizeof l.high, "%.3g", top);
  ck__c_locale_leave(&locale);
  draw_legend(&c, box_height, &l);

  CK_TRY(ck__png_write(path, &c));

fail:
  ck__c_locale_leave(&locale);
  free(c.pixels);
  free(speeds);
  return status;
}

#else /* no libpng */

ck_status ck__gas_png_write(const char *path, size_t particles, double box_x,
                            double box_y, const double *positions,
                            const double *velocities, unsigned width,
                            uint64_t step, double temperature) {
  (void)step;
  (void)temperature;
  (void)particles;
  (void)box_x;
  (void)box_y;
  (void)positions;
  (void)velocities;
  (void)width;
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "%s: PNG output needs libpng; clkit was built without it",
                  path ? path : "(no file name)");
}

#endif
