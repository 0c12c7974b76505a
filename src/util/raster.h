/*
 * raster.h - pictures drawn pixel by pixel and written as PNG files: the
 * gas's snapshots (--png) and the charts of runs (--plot FILE.png).
 *
 * A canvas is width x height RGB pixels, 3 bytes each, rows top first.
 * Text is a built-in 5 x 7 bitmap font, scaled by whole pixels: printable
 * ASCII and the few other characters the charts write (ε σ τ ² · × — …).
 * PNG files are encoded with libpng where clkit was built with it.
 */
#ifndef CK_RASTER_H
#define CK_RASTER_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

typedef struct ck__canvas {
  uint8_t *pixels; /* width x height x 3, owned by the caller */
  uint32_t width, height;
} ck__canvas;

/* Fills w x h pixels from (x, y), cut at the canvas's edges. */
void ck__canvas_fill(const ck__canvas *canvas, uint32_t x, uint32_t y,
                     uint32_t w, uint32_t h, const uint8_t rgb[3]);

/* The width in pixels of text (UTF-8) at scale: a glyph is 5 x 7 pixels
 * and characters advance by 6, each pixel scale x scale. */
uint32_t ck__canvas_text_width(const char *text, unsigned scale);

/* Writes text with its top left at (x, y); characters the font lacks are
 * left blank. vertical: the text runs upwards from (x, y), its glyphs
 * turned a quarter left (for a y axis's label), (x, y) its bottom left. */
void ck__canvas_text(const ck__canvas *canvas, int32_t x, int32_t y,
                     unsigned scale, const char *text, const uint8_t rgb[3],
                     int vertical);

/* A path's coverage of the pixels (width x height floats, 0 to 1), for
 * lines drawn smooth: each segment raises it to its own, so that the
 * joints of a line are not drawn twice; ck__coverage_paint then lays the
 * colour on through it. */
typedef struct ck__coverage {
  float *alpha;
  uint32_t width, height;
  uint32_t x0, y0, x1, y1; /* the pixels touched, x1 and y1 past them */
} ck__coverage;

/* A segment `thickness` pixels wide from (x0, y0) to (x1, y1), in pixel
 * coordinates (a pixel's centre at + 0.5), round at its ends. */
void ck__coverage_segment(ck__coverage *coverage, double x0, double y0,
                          double x1, double y1, double thickness);
/* Blends rgb onto canvas (of the coverage's size) through the coverage,
 * and clears it for the next path. */
void ck__coverage_paint(ck__coverage *coverage, const ck__canvas *canvas,
                        const uint8_t rgb[3]);

/* 1 when clkit was built with libpng, and ck__png_write can write. */
int ck__png_available(void);

/* The canvas as an 8-bit RGB PNG file at path, written atomically.
 * Returns CK_OK; CK_ERROR_IO naming path; CK_ERROR_OUT_OF_MEMORY;
 * CK_ERROR_UNSUPPORTED naming path when clkit was built without libpng. */
ck_status ck__png_write(const char *path, const ck__canvas *canvas);

#endif /* CK_RASTER_H */
