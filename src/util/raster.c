/*
 * raster.c - canvases of RGB pixels, a bitmap font, smooth lines and PNG
 * files (raster.h).
 */
#include "util/raster.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CK_HAVE_PNG
#include <png.h>
#endif

void ck__canvas_fill(const ck__canvas *canvas, uint32_t x, uint32_t y,
                     uint32_t w, uint32_t h, const uint8_t rgb[3]) {
  for (uint32_t row = y; row < y + h && row < canvas->height; ++row)
    for (uint32_t column = x; column < x + w && column < canvas->width;
         ++column)
      memcpy(canvas->pixels + ((size_t)row * canvas->width + column) * 3, rgb,
             3);
}

/* ---- The font ------------------------------------------------------------
 * Each glyph is 7 rows, the 5 low bits of a row its pixels, left first. */

/* Printable ASCII, from ' ' (0x20) to '~' (0x7e). */
static const uint8_t ascii_glyphs[95][7] = {
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, /* space */
    {0x04, 0x04, 0x04, 0x04, 0x00, 0x00, 0x04}, /* ! */
    {0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00}, /* " */
    {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A}, /* # */
    {0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04}, /* $ */
    {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}, /* % */
    {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D}, /* & */
    {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00}, /* ' */
    {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}, /* ( */
    {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}, /* ) */
    {0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00}, /* * */
    {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}, /* + */
    {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}, /* , */
    {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}, /* - */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}, /* . */
    {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}, /* / */
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}, /* 0 */
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* 1 */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}, /* 2 */
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}, /* 3 */
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}, /* 4 */
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}, /* 5 */
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}, /* 6 */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}, /* 7 */
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}, /* 8 */
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}, /* 9 */
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00}, /* : */
    {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08}, /* ; */
    {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}, /* < */
    {0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00}, /* = */
    {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}, /* > */
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}, /* ? */
    {0x0E, 0x11, 0x01, 0x0D, 0x15, 0x15, 0x0E}, /* @ */
    {0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11}, /* A */
    {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}, /* B */
    {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}, /* C */
    {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}, /* D */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}, /* E */
    {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10}, /* F */
    {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}, /* G */
    {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}, /* H */
    {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* I */
    {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}, /* J */
    {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}, /* K */
    {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}, /* L */
    {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11}, /* M */
    {0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x11}, /* N */
    {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, /* O */
    {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}, /* P */
    {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D}, /* Q */
    {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}, /* R */
    {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}, /* S */
    {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* T */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}, /* U */
    {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}, /* V */
    {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A}, /* W */
    {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11}, /* X */
    {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04}, /* Y */
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F}, /* Z */
    {0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E}, /* [ */
    {0x00, 0x10, 0x08, 0x04, 0x02, 0x01, 0x00}, /* \ */
    {0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E}, /* ] */
    {0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00}, /* ^ */
    {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F}, /* _ */
    {0x08, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00}, /* ` */
    {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}, /* a */
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E}, /* b */
    {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E}, /* c */
    {0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F}, /* d */
    {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}, /* e */
    {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}, /* f */
    {0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E}, /* g */
    {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}, /* h */
    {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}, /* i */
    {0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0C}, /* j */
    {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12}, /* k */
    {0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E}, /* l */
    {0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11}, /* m */
    {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}, /* n */
    {0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E}, /* o */
    {0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10}, /* p */
    {0x00, 0x00, 0x0D, 0x13, 0x0F, 0x01, 0x01}, /* q */
    {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}, /* r */
    {0x00, 0x00, 0x0E, 0x10, 0x0E, 0x01, 0x1E}, /* s */
    {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}, /* t */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D}, /* u */
    {0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04}, /* v */
    {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A}, /* w */
    {0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11}, /* x */
    {0x00, 0x00, 0x11, 0x11, 0x0F, 0x01, 0x0E}, /* y */
    {0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F}, /* z */
    {0x02, 0x04, 0x04, 0x08, 0x04, 0x04, 0x02}, /* { */
    {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}, /* | */
    {0x08, 0x04, 0x04, 0x02, 0x04, 0x04, 0x08}, /* } */
    {0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00}, /* ~ */
};

/* The characters past ASCII that the charts' labels use. */
static const struct {
  uint32_t code;
  uint8_t rows[7];
} other_glyphs[] = {
    {0x00B2, {0x0C, 0x02, 0x04, 0x08, 0x0E, 0x00, 0x00}}, /* ² */
    {0x00B7, {0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00}}, /* · */
    {0x00D7, {0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x00}}, /* × */
    {0x03B5, {0x00, 0x00, 0x0E, 0x10, 0x0C, 0x10, 0x0E}}, /* ε */
    {0x03C3, {0x00, 0x00, 0x0F, 0x12, 0x11, 0x11, 0x0E}}, /* σ */
    {0x03C4, {0x00, 0x00, 0x1F, 0x04, 0x04, 0x05, 0x02}}, /* τ */
    {0x2014, {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}}, /* — */
    {0x2026, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x15}}, /* … */
};

/* The code point of the UTF-8 character at *text, moving past it (a byte
 * that begins no well-formed sequence counts as one character). */
static uint32_t next_character(const char **text) {
  const unsigned char *at = (const unsigned char *)*text;
  uint32_t code = at[0];
  size_t length = code < 0x80 ? 1 : code < 0xE0 ? 2 : code < 0xF0 ? 3 : 4;
  if (code >= 0x80) {
    code &= 0xFF >> (length + 1);
    for (size_t i = 1; i < length; ++i) {
      if ((at[i] & 0xC0) != 0x80) {
        *text += 1;
        return 0xFFFD;
      }
      code = code << 6 | (at[i] & 0x3F);
    }
  }
  *text += length;
  return code;
}

static const uint8_t *glyph_of(uint32_t code) {
  if (code >= 0x20 && code <= 0x7E)
    return ascii_glyphs[code - 0x20];
  for (size_t i = 0; i < sizeof other_glyphs / sizeof other_glyphs[0]; ++i)
    if (other_glyphs[i].code == code)
      return other_glyphs[i].rows;
  return NULL;
}

uint32_t ck__canvas_text_width(const char *text, unsigned scale) {
  uint32_t count = 0;
  while (*text) {
    next_character(&text);
    ++count;
  }
  return count ? (6 * count - 1) * scale : 0;
}

/* One pixel of the font, scale x scale, where it lies on the canvas. */
static void font_pixel(const ck__canvas *canvas, int64_t x, int64_t y,
                       unsigned scale, const uint8_t rgb[3]) {
  if (x < 0 || y < 0 || x >= canvas->width || y >= canvas->height)
    return;
  ck__canvas_fill(canvas, (uint32_t)x, (uint32_t)y, scale, scale, rgb);
}

void ck__canvas_text(const ck__canvas *canvas, int32_t x, int32_t y,
                     unsigned scale, const char *text, const uint8_t rgb[3],
                     int vertical) {
  for (int64_t i = 0; *text; ++i) {
    const uint8_t *glyph = glyph_of(next_character(&text));
    if (!glyph)
      continue;
    int64_t along = 6 * i * scale;
    for (int64_t row = 0; row < 7; ++row)
      for (int64_t bit = 0; bit < 5; ++bit) {
        if (!(glyph[row] >> (4 - bit) & 1))
          continue;
        if (vertical)
          font_pixel(canvas, x + row * scale, y - along - (bit + 1) * scale,
                     scale, rgb);
        else
          font_pixel(canvas, x + along + bit * scale, y + row * scale, scale,
                     rgb);
      }
  }
}

/* ---- Smooth lines -------------------------------------------------------- */

void ck__coverage_segment(ck__coverage *coverage, double x0, double y0,
                          double x1, double y1, double thickness) {
  double half = thickness / 2;
  double reach = half + 1;
  double left = fmax(0, floor(fmin(x0, x1) - reach));
  double right = fmin(coverage->width, ceil(fmax(x0, x1) + reach));
  double top = fmax(0, floor(fmin(y0, y1) - reach));
  double bottom = fmin(coverage->height, ceil(fmax(y0, y1) + reach));
  if (!(left < right && top < bottom))
    return;
  double dx = x1 - x0, dy = y1 - y0, length2 = dx * dx + dy * dy;
  for (uint32_t row = (uint32_t)top; row < (uint32_t)bottom; ++row)
    for (uint32_t column = (uint32_t)left; column < (uint32_t)right; ++column) {
      double px = column + 0.5 - x0, py = row + 0.5 - y0;
      double t = length2 > 0 ? (px * dx + py * dy) / length2 : 0;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      double ex = px - t * dx, ey = py - t * dy;
      /* A pixel's share of the line: 1 inside, falling over a pixel's
       * width at the edge. */
      double alpha = half + 0.5 - sqrt(ex * ex + ey * ey);
      if (alpha <= 0)
        continue;
      float *at = coverage->alpha + (size_t)row * coverage->width + column;
      float value = alpha >= 1 ? 1.0f : (float)alpha;
      *at = value > *at ? value : *at;
    }
  if (coverage->x1 == 0 || (uint32_t)left < coverage->x0)
    coverage->x0 = (uint32_t)left;
  if (coverage->y1 == 0 || (uint32_t)top < coverage->y0)
    coverage->y0 = (uint32_t)top;
  if ((uint32_t)right > coverage->x1)
    coverage->x1 = (uint32_t)right;
  if ((uint32_t)bottom > coverage->y1)
    coverage->y1 = (uint32_t)bottom;
}

void ck__coverage_paint(ck__coverage *coverage, const ck__canvas *canvas,
                        const uint8_t rgb[3]) {
  for (uint32_t row = coverage->y0; row < coverage->y1; ++row)
    for (uint32_t column = coverage->x0; column < coverage->x1; ++column) {
      float *at = coverage->alpha + (size_t)row * coverage->width + column;
      if (*at <= 0)
        continue;
      uint8_t *pixel =
          canvas->pixels + ((size_t)row * canvas->width + column) * 3;
      for (int c = 0; c < 3; ++c)
        pixel[c] = (uint8_t)lround(pixel[c] + *at * (rgb[c] - pixel[c]));
      *at = 0;
    }
  coverage->x0 = coverage->y0 = coverage->x1 = coverage->y1 = 0;
}

/* ---- PNG files ----------------------------------------------------------- */

#ifdef CK_HAVE_PNG

int ck__png_available(void) {
  return 1;
}

/* Where libpng's output and its failure go. */
typedef struct png_sink {
  uint8_t *data;
  size_t size, capacity;
  int out_of_memory;
  char message[256];
} png_sink;

static void png_sink_write(png_structp png, png_bytep bytes, size_t length) {
  png_sink *sink = png_get_io_ptr(png);
  if (length > sink->capacity - sink->size) {
    size_t wanted = sink->capacity ? 2 * sink->capacity : (size_t)1 << 16;
    if (wanted < sink->size + length)
      wanted = sink->size + length;
    uint8_t *grown = length <= SIZE_MAX / 2 - sink->size
                         ? realloc(sink->data, wanted)
                         : NULL;
    if (!grown) {
      sink->out_of_memory = 1;
      png_error(png, "out of memory for the encoded picture");
    }
    sink->data = grown;
    sink->capacity = wanted;
  }
  memcpy(sink->data + sink->size, bytes, length);
  sink->size += length;
}

static void png_sink_flush(png_structp png) {
  (void)png;
}

/* libpng's error handler: keeps the message and returns to the setjmp of
 * png_encode(). */
static void png_failure(png_structp png, png_const_charp message) {
  png_sink *sink = png_get_error_ptr(png);
  snprintf(sink->message, sizeof sink->message, "%s", message);
  png_longjmp(png, 1);
}

/* Warnings are not errors, and the library prints nothing. */
static void png_warning_ignored(png_structp png, png_const_charp message) {
  (void)png;
  (void)message;
}

/* Encodes the canvas into sink; 0, or -1 with sink->message set. Nothing
 * is allocated after the setjmp but by libpng, which
 * png_destroy_write_struct() releases. */
static int png_encode(png_sink *sink, const ck__canvas *canvas) {
  volatile int outcome = -1; /* kept across libpng's longjmp */
  png_infop info = NULL;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, sink,
                                            png_failure, png_warning_ignored);
  if (!png) {
    sink->out_of_memory = 1;
    snprintf(sink->message, sizeof sink->message,
             "cannot create the PNG encoder");
    goto fail;
  }
  info = png_create_info_struct(png);
  if (!info) {
    sink->out_of_memory = 1;
    snprintf(sink->message, sizeof sink->message,
             "cannot create the PNG header");
    goto fail;
  }
  if (setjmp(png_jmpbuf(png)))
    goto fail;
  png_set_write_fn(png, sink, png_sink_write, png_sink_flush);
  png_set_IHDR(png, info, canvas->width, canvas->height, 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (uint32_t row = 0; row < canvas->height; ++row)
    png_write_row(png, canvas->pixels + (size_t)row * canvas->width * 3);
  png_write_end(png, info);
  outcome = 0;
fail:
  if (png)
    png_destroy_write_struct(&png, &info);
  return outcome;
}

ck_status ck__png_write(const char *path, const ck__canvas *canvas) {
  png_sink sink = {0};
  ck_status status = CK_OK;
  if (png_encode(&sink, canvas) != 0)
    status = ck__fail(sink.out_of_memory ? CK_ERROR_OUT_OF_MEMORY : CK_ERROR_IO,
                      "cannot write %s: libpng: %s", path, sink.message);
  else
    status = ck__file_write_atomic(path, sink.data, sink.size);
  free(sink.data);
  return status;
}

#else /* no libpng */

int ck__png_available(void) {
  return 0;
}

ck_status ck__png_write(const char *path, const ck__canvas *canvas) {
  (void)canvas;
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "%s: PNG output needs libpng; clkit was built without it",
                  path);
}

#endif
