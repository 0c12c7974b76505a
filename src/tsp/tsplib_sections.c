/*
 * The data sections of a TSPLIB instance (tsplib.c reads the rest):
 * NODE_COORD_SECTION and DISPLAY_DATA_SECTION node by node, and
 * EDGE_WEIGHT_SECTION's values in any of the formats the reader takes,
 * expanded to the full matrix at the end.
 */
#include "util/util.h"

#include "clkit/tsp.h"

#include "tsp/tsp_internal.h"
#include "tsp/tsplib_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t ck__tsp_weights_for(ck__tsp_weight_format format, size_t n) {
  switch (format) {
  case CK__TSP_FORMAT_FULL_MATRIX:
    return n * n;
  case CK__TSP_FORMAT_UPPER_ROW:
    return n * (n - 1) / 2;
  case CK__TSP_FORMAT_LOWER_DIAG_ROW:
  case CK__TSP_FORMAT_UPPER_DIAG_ROW:
    return n * (n + 1) / 2;
  default:
    return 0;
  }
}

ck_status ck__tsp_open_node_block(ck__tsp_reader *reader,
                                  ck__tsp_node_block *block) {
  size_t n = reader->cities;
  block->x = calloc(n, sizeof *block->x);
  block->y = calloc(n, sizeof *block->y);
  block->seen = calloc(n, 1);
  if (!block->x || !block->y || !block->seen)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory reading %s: %s for %zu cities",
                    reader->lines.source, block->title, n);
  block->line = reader->lines.line;
  return CK_OK;
}

void ck__tsp_free_node_block(ck__tsp_node_block *block) {
  free(block->x);
  free(block->y);
  free(block->seen);
  block->x = block->y = NULL;
  block->seen = NULL;
}

/* One "id x y" line of a node section. */
ck_status ck__tsp_read_node(ck__tsp_reader *reader, ck__tsp_node_block *block,
                            char *line) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  ck__text_quoted whole =
      ck__text_quote(line); /* before the fields are cut out */
  char *cursor = line;
  char *fields[4];
  for (int i = 0; i < 4; ++i)
    fields[i] = ck__text_next_field(&cursor);
  if (!fields[2])
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "expected \"id x y\" in %s, found \"%s\"",
                            block->title, whole.text);
  if (fields[3])
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "extra field \"%s\" after \"id x y\" in %s",
                            ck__text_quote(fields[3]).text, block->title);
  int64_t id = 0;
  ck__text_number_kind kind = ck__text_read_integer(fields[0], &id);
  if (kind == CK__TEXT_NUMBER_SYNTAX)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "node id \"%s\" is not a whole number",
                            ck__text_quote(fields[0]).text);
  if (kind != CK__TEXT_NUMBER_OK || id < 1 || id > (int64_t)reader->cities)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "node id %s is outside 1..%" PRIu32 " (DIMENSION)",
                            ck__text_quote(fields[0]).text, reader->cities);
  size_t index = (size_t)id - 1;
  if (block->seen[index])
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "node id %" PRId64 " appears twice in %s", id,
                            block->title);
  double value[2];
  for (int axis = 0; axis < 2; ++axis) {
    const char *text = fields[1 + axis];
    kind = ck__text_read_real(text, &value[axis]);
    /* nan and inf read as not numbers, as ever in TSPLIB files. */
    if (kind == CK__TEXT_NUMBER_SYNTAX || kind == CK__TEXT_NUMBER_NOT_FINITE)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "%c coordinate \"%s\" of node %" PRId64
                              " is not a number",
                              "xy"[axis], ck__text_quote(text).text, id);
    if (kind != CK__TEXT_NUMBER_OK || fabs(value[axis]) > CK_TSP_MAX_COORDINATE)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "%c coordinate %s of node %" PRId64
                              " is out of range (at most %g in magnitude)",
                              "xy"[axis], ck__text_quote(text).text, id,
                              CK_TSP_MAX_COORDINATE);
  }
  block->seen[index] = 1;
  block->x[index] = value[0];
  block->y[index] = value[1];
  block->count += 1;
  return CK_OK;
}

/* The values of one line of EDGE_WEIGHT_SECTION. */
ck_status ck__tsp_read_weights(ck__tsp_reader *reader, char *line) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  char *cursor = line, *field;
  while ((field = ck__text_next_field(&cursor)) != NULL) {
    if (reader->weight_count == reader->weights_needed)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "extra value \"%s\": EDGE_WEIGHT_FORMAT %s with "
                              "DIMENSION %" PRIu32 " has %zu values",
                              ck__text_quote(field).text,
                              ck__tsp_format_names[reader->format],
                              reader->cities, reader->weights_needed);
    int64_t weight = 0;
    ck__text_number_kind kind = ck__text_read_integer(field, &weight);
    if (kind == CK__TEXT_NUMBER_SYNTAX)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "edge weight \"%s\" is not a whole number",
                              ck__text_quote(field).text);
    /* The diagonal is not read (a city's distance to itself is 0), so any
     * 32-bit value is taken there; elsewhere the distance limit holds. */
    size_t i = reader->row, j = reader->column, n = reader->cities;
    if (kind == CK__TEXT_NUMBER_OK && weight < 0 && i != j)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "edge weight %s is negative",
                              ck__text_quote(field).text);
    if (kind != CK__TEXT_NUMBER_OK || weight > INT32_MAX ||
        weight < INT32_MIN || (i != j && weight > CK_TSP_MAX_DISTANCE))
      return i == j ? ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                                       "edge weight %s is out of range (a "
                                       "32-bit integer on the diagonal): row "
                                       "%zu, column %zu",
                                       ck__text_quote(field).text, i + 1, j + 1)
                    : ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                                       "edge weight %s is out of range (at "
                                       "most %d, so that sums of distances "
                                       "fit 32-bit integers): row %zu, "
                                       "column %zu",
                                       ck__text_quote(field).text,
                                       CK_TSP_MAX_DISTANCE, i + 1, j + 1);
    if (i == j)
      weight = 0;
    /* A full matrix must be symmetric: the entry below the diagonal
     * against the one above it, read earlier. */
    if (reader->format == CK__TSP_FORMAT_FULL_MATRIX && j < i &&
        reader->weights[j * n + i] != (int32_t)weight)
      return ck__text_fail_at(
          CK_ERROR_PARSE, lines, at,
          "edge weight %s at row %zu, column %zu differs from %" PRId32
          " at row %zu, column %zu: clkit reads symmetric instances only",
          ck__text_quote(field).text, i + 1, j + 1, reader->weights[j * n + i],
          j + 1, i + 1);
    if (reader->weight_count == reader->weight_capacity) {
      size_t capacity =
          reader->weight_capacity ? 2 * reader->weight_capacity : 4096;
      if (capacity > reader->weights_needed)
        capacity = reader->weights_needed;
      int32_t *grown = realloc(reader->weights, capacity * sizeof *grown);
      if (!grown)
        return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                        "out of memory reading %s: %zu edge weights",
                        lines->source, capacity);
      reader->weights = grown;
      reader->weight_capacity = capacity;
    }
    reader->weights[reader->weight_count++] = (int32_t)weight;
    /* The next weight's place: rows of the full matrix (FULL_MATRIX), of
     * its upper triangle without (UPPER_ROW) or with (UPPER_DIAG_ROW) the
     * diagonal, or of its lower triangle with it (LOWER_DIAG_ROW). */
    ++reader->column;
    if (reader->format == CK__TSP_FORMAT_LOWER_DIAG_ROW ? reader->column > i
                                                        : reader->column == n) {
      reader->row = i + 1;
      reader->column = reader->format == CK__TSP_FORMAT_UPPER_ROW        ? i + 2
                       : reader->format == CK__TSP_FORMAT_UPPER_DIAG_ROW ? i + 1
                                                                         : 0;
    }
  }
  return CK_OK;
}

/* The full n x n matrix from the values of the file's format. */
ck_status ck__tsp_expand_matrix(ck__tsp_reader *reader, int32_t **matrix) {
  size_t n = reader->cities;
  const int32_t *w = reader->weights;
  *matrix = NULL;
  if (reader->format == CK__TSP_FORMAT_FULL_MATRIX) {
    *matrix = reader->weights; /* stored as given */
    reader->weights = NULL;
    return CK_OK;
  }
  int32_t *m = calloc(n * n, sizeof *m);
  if (!m)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory reading %s: a %zu x %zu matrix",
                    reader->lines.source, n, n);
  size_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    size_t from = reader->format == CK__TSP_FORMAT_UPPER_ROW        ? i + 1
                  : reader->format == CK__TSP_FORMAT_UPPER_DIAG_ROW ? i
                                                                    : 0;
    size_t to = reader->format == CK__TSP_FORMAT_LOWER_DIAG_ROW ? i + 1 : n;
    for (size_t j = from; j < to; ++j) {
      m[i * n + j] = w[next];
      m[j * n + i] = w[next];
      ++next;
    }
  }
  *matrix = m;
  return CK_OK;
}
