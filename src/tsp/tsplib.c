/*
 * TSPLIB files: the instance reader (TYPE TSP with the metrics of
 * clkit/tsp.h), distances and tour lengths, .tour files both ways and the
 * "name : optimum" list of known optima.
 *
 * Every reader takes the whole text at once (ck__file_read_text, or a copy
 * of the caller's bytes) and cuts it in place: each line at its newline,
 * each field at the blank after it, so fields are plain C strings for the
 * number parsers. Numbers go through strtod() under the C locale, after a
 * check of their decimal syntax (strtod alone would also take hex, inf and
 * nan). Arrays whose size a file's DIMENSION sets are calloc()ed, so a
 * short file that claims millions of cities costs no more than the pages it
 * fills; an EXPLICIT matrix grows with the values actually read and is
 * expanded to the full square only once they are all there.
 *
 * What the instance reader accepts beyond the letter of TSPLIB, because
 * published files do it: "KEY: VALUE" with or without blanks around the
 * ':', CRLF endings and trailing blanks, blank lines anywhere, COMMENT
 * repeated (the first is kept), no TYPE, no EOF once every section is
 * complete, anything after EOF (not read), EDGE_WEIGHT_FORMAT FUNCTION
 * with a coordinate metric. Every other keyword may appear once. Sections
 * need DIMENSION before them, since it sizes them, and a section ends when
 * it holds DIMENSION nodes (or its format's number of weights): a keyword
 * before that means a truncated section, data after it a long one.
 *
 * Messages of malformed content read "FILE:LINE: what is wrong".
 */
#include "util/util.h"

#include "clkit/tsp.h"

#include "ck_tsp.h"
#include "tsp/tsp_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Why CK_TSP_MAX_COORDINATE (clkit/tsp.h), the largest coordinate magnitude
 * accepted, is 1.8e8: the distances are 32-bit integers computed from
 * doubles, and the local search adds up to four of them in an int: within
 * +-1.8e8 every EUC_2D/CEIL_2D/ATT distance is at most ceil(2*sqrt(2)*1.8e8) =
 * 509116883 <= CK_TSP_MAX_DISTANCE = 2^29 - 1, and GEO's (int) of the degrees
 * is defined. EXPLICIT weights off the diagonal are held to CK_TSP_MAX_DISTANCE
 * directly.
 */
/* Bytes gathered before each write() of a tour file. */
#define WRITE_CHUNK ((size_t)1 << 16)

/* ---- small helpers ------------------------------------------------------- */

/* Splits "KEY : VALUE", "KEY: VALUE" or "KEY" in place. *value is NULL
 * when the line has no ':' and otherwise the trimmed text after it. */
static void split_keyword(char *line, char **key, char **value) {
  char *colon = strchr(line, ':');
  *key = line;
  *value = NULL;
  if (colon) {
    char *end = colon;
    while (end > line && ck__text_is_blank(end[-1]))
      --end;
    *end = '\0';
    *value = colon + 1;
    while (ck__text_is_blank(**value))
      ++*value;
  }
}

/* Copies a value into a fixed field, cut to fit. */
static void copy_text(char *out, size_t capacity, const char *text) {
  size_t length = ck__text_utf8_cut(text, capacity - 1);
  memcpy(out, text, length);
  out[length] = '\0';
}

/* ---- lines --------------------------------------------------------------- */

/* The next line, its newline and surrounding blanks cut off, or NULL at the
 * end of the text. */
static ck_status next_line(ck__text_lines *lines, char **line) {
  ck_status status = ck__text_next_line(lines, line);
  if (status == CK_OK && *line)
    while (ck__text_is_blank(**line))
      ++*line;
  return status;
}

/* ---- instances: the parser ---------------------------------------------- */

/* EDGE_WEIGHT_FORMAT values the reader takes. */
typedef enum weight_format {
  FORMAT_NONE = 0,
  FORMAT_FUNCTION, /* allowed with a coordinate metric; no matrix */
  FORMAT_FULL_MATRIX,
  FORMAT_UPPER_ROW,
  FORMAT_LOWER_DIAG_ROW,
  FORMAT_UPPER_DIAG_ROW
} weight_format;

static const char *const format_names[] = {
    "",          "FUNCTION",       "FULL_MATRIX",
    "UPPER_ROW", "LOWER_DIAG_ROW", "UPPER_DIAG_ROW"};

static const char *const metric_names[] = {"EUC_2D", "CEIL_2D", "ATT", "GEO",
                                           "EXPLICIT"};

/* The keywords of TSPLIB that clkit knows but does not read: they belong
 * to other problem types. */
static const char *const foreign_keywords[] = {
    "CAPACITY",       "EDGE_DATA_FORMAT",  "DEPOT_SECTION",
    "DEMAND_SECTION", "EDGE_DATA_SECTION", "FIXED_EDGES_SECTION",
    "TOUR_SECTION",   "BACKHAUL_SECTION",  "DISTANCE",
    "SERVICE_TIME",   "VEHICLES",          "CAPACITY_SECTION"};

/* A section read node by node (NODE_COORD_SECTION, DISPLAY_DATA_SECTION). */
typedef struct node_block {
  const char *title;
  double *x, *y;
  uint8_t *seen; /* one flag per id */
  size_t count;  /* nodes read */
  size_t line;   /* where the section began; 0 while absent */
} node_block;

typedef enum section {
  SECTION_NONE = 0,
  SECTION_NODES,
  SECTION_DISPLAY,
  SECTION_WEIGHTS
} section;

typedef struct tsp_reader {
  ck__text_lines lines;
  int content; /* a line other than blanks was seen */
  char name[sizeof((ck_tsp_instance *)0)->name];
  char comment[sizeof((ck_tsp_instance *)0)->comment];
  /* Where each header keyword was given; 0 while absent. */
  size_t name_line, comment_line, type_line, dimension_line, metric_line,
      format_line, display_type_line, coord_type_line;
  uint32_t cities;
  ck_tsp_metric metric;
  weight_format format;
  node_block coords, display;
  /* EDGE_WEIGHT_SECTION: values as read, weights_needed of them. */
  int32_t *weights;
  size_t weight_count, weight_capacity, weights_needed, weights_line;
  size_t row, column; /* of the next weight in the full matrix, 0-based */
  section current;    /* the section being read */
  section ended;      /* the section completed last, for "too many" messages */
} tsp_reader;

/* Is the first word of line (up to a blank or ':') a TSPLIB keyword? A
 * section ends early when one appears in place of its data. */
static int starts_with_keyword(const char *line) {
  static const char *const keywords[] = {"NAME",
                                         "COMMENT",
                                         "TYPE",
                                         "DIMENSION",
                                         "EDGE_WEIGHT_TYPE",
                                         "EDGE_WEIGHT_FORMAT",
                                         "DISPLAY_DATA_TYPE",
                                         "NODE_COORD_TYPE",
                                         "NODE_COORD_SECTION",
                                         "EDGE_WEIGHT_SECTION",
                                         "DISPLAY_DATA_SECTION",
                                         "EOF"};
  size_t length = 0;
  while (line[length] && !ck__text_is_blank(line[length]) &&
         line[length] != ':')
    ++length;
  for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; ++i)
    if (strlen(keywords[i]) == length && memcmp(keywords[i], line, length) == 0)
      return 1;
  for (size_t i = 0; i < sizeof foreign_keywords / sizeof foreign_keywords[0];
       ++i)
    if (strlen(foreign_keywords[i]) == length &&
        memcmp(foreign_keywords[i], line, length) == 0)
      return 1;
  return 0;
}

static size_t weights_for(weight_format format, size_t n) {
  switch (format) {
  case FORMAT_FULL_MATRIX:
    return n * n;
  case FORMAT_UPPER_ROW:
    return n * (n - 1) / 2;
  case FORMAT_LOWER_DIAG_ROW:
  case FORMAT_UPPER_DIAG_ROW:
    return n * (n + 1) / 2;
  default:
    return 0;
  }
}

static const char *section_title(const tsp_reader *reader, section which) {
  if (which == SECTION_NODES)
    return reader->coords.title;
  if (which == SECTION_DISPLAY)
    return reader->display.title;
  return "EDGE_WEIGHT_SECTION";
}

/* EXPLICIT instances keep n^2 weights; refuse the large ones as soon as
 * both DIMENSION and the type are known. */
static ck_status check_explicit_size(const tsp_reader *reader, size_t line) {
  if (reader->metric_line && reader->metric == CK_TSP_EXPLICIT &&
      reader->dimension_line && reader->cities > CK_TSP_MAX_EXPLICIT)
    return ck__text_fail_at(CK_ERROR_UNSUPPORTED, &reader->lines, line,
                            "EDGE_WEIGHT_TYPE EXPLICIT with DIMENSION %" PRIu32
                            ": at most %u cities are supported (the matrix is "
                            "kept whole)",
                            reader->cities, CK_TSP_MAX_EXPLICIT);
  return CK_OK;
}

/* A keyword given twice is an error, bar COMMENT. */
static ck_status check_once(const tsp_reader *reader, size_t *first,
                            const char *key) {
  size_t line = reader->lines.line;
  if (*first)
    return ck__text_fail_at(CK_ERROR_PARSE, &reader->lines, line,
                            "%s given twice (first on line %zu)", key, *first);
  *first = line;
  return CK_OK;
}

static ck_status open_node_block(tsp_reader *reader, node_block *block) {
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

static void free_node_block(node_block *block) {
  free(block->x);
  free(block->y);
  free(block->seen);
  block->x = block->y = NULL;
  block->seen = NULL;
}

/* A section keyword: checks what must come before it and starts it. */
static ck_status begin_section(tsp_reader *reader, const char *key,
                               const char *value, section which) {
  const ck__text_lines *lines = &reader->lines;
  size_t line = lines->line;
  if (value && *value)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, line,
                            "%s takes no value (found \"%s\")", key,
                            ck__text_quote(value).text);
  if (!reader->dimension_line)
    return ck__text_fail_at(
        CK_ERROR_PARSE, lines, line,
        "%s before DIMENSION: the number of cities must come "
        "first",
        key);
  node_block *block = which == SECTION_NODES     ? &reader->coords
                      : which == SECTION_DISPLAY ? &reader->display
                                                 : NULL;
  size_t first = block ? block->line : reader->weights_line;
  if (first)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, line,
                            "%s given twice (first on line %zu)", key, first);
  if (block) {
    ck_status status = open_node_block(reader, block);
    if (status != CK_OK)
      return status;
  } else {
    if (!reader->metric_line || reader->metric != CK_TSP_EXPLICIT)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, line,
                              "EDGE_WEIGHT_SECTION needs EDGE_WEIGHT_TYPE : "
                              "EXPLICIT before it");
    if (reader->format == FORMAT_NONE || reader->format == FORMAT_FUNCTION)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, line,
                              "EDGE_WEIGHT_SECTION needs an EDGE_WEIGHT_FORMAT "
                              "(FULL_MATRIX, UPPER_ROW, LOWER_DIAG_ROW or "
                              "UPPER_DIAG_ROW) before it");
    reader->weights_needed = weights_for(reader->format, reader->cities);
    reader->weights_line = line;
    reader->row = 0;
    reader->column = reader->format == FORMAT_UPPER_ROW ? 1 : 0;
  }
  reader->current = which;
  return CK_OK;
}

/* Looks value up in names (count entries); -1 when absent. */
static int find_name(const char *const *names, size_t count,
                     const char *value) {
  for (size_t i = 0; i < count; ++i)
    if (strcmp(names[i], value) == 0)
      return (int)i;
  return -1;
}

/* Splits "KEY : VALUE", or "KEY" alone (only sections and EOF come
 * without a value), in place; refuses a line that is neither. Instances
 * and tour files share it. */
static ck_status split_key_line(const ck__text_lines *lines, size_t at,
                                char *line, char **key, char **value) {
  ck__text_quoted whole = ck__text_quote(line);
  split_keyword(line, key, value);
  if (!*value) {
    char *cursor = line;
    *key = ck__text_next_field(&cursor);
    if (*cursor)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "expected \"KEYWORD : value\", found \"%s\"",
                              whole.text);
  }
  return CK_OK;
}

/* NAME's value, kept for the instance; read_keyword's. */
static ck_status read_name(tsp_reader *reader, const char *key,
                           const char *value) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  ck_status status = check_once(reader, &reader->name_line, key);
  if (status != CK_OK)
    return status;
  /* The name heads tour files, a line of its own, and SVG titles. */
  if (ck__text_control_byte(value) >= 0)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "NAME holds a control character");
  if (ck__text_invalid_utf8_byte(value) >= 0)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "NAME is not UTF-8 text");
  copy_text(reader->name, sizeof reader->name, value);
  return CK_OK;
}

/* The keywords with a value that sets how the instance is read: TYPE,
 * DIMENSION, EDGE_WEIGHT_TYPE, EDGE_WEIGHT_FORMAT, DISPLAY_DATA_TYPE and
 * NODE_COORD_TYPE (read_keyword has checked the key). */
static ck_status read_setting(tsp_reader *reader, const char *key,
                              const char *value) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  ck_status status = CK_OK;
  if (strcmp(key, "TYPE") == 0) {
    CK_TRY(check_once(reader, &reader->type_line, key));
    if (strcmp(value, "TSP") != 0)
      return ck__text_fail_at(CK_ERROR_UNSUPPORTED, lines, at,
                              "TYPE %s is not supported: clkit reads symmetric "
                              "TSP instances (TYPE : TSP) only",
                              ck__text_quote(value).text);
  } else if (strcmp(key, "DIMENSION") == 0) {
    int64_t n = 0;
    CK_TRY(check_once(reader, &reader->dimension_line, key));
    ck__text_number_kind kind = ck__text_read_integer(value, &n);
    if (kind == CK__TEXT_NUMBER_SYNTAX)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "DIMENSION \"%s\" is not a whole number",
                              ck__text_quote(value).text);
    if (kind != CK__TEXT_NUMBER_OK || n < 3 || n > (int64_t)CK_TSP_MAX_CITIES)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "DIMENSION %s is outside 3..%u",
                              ck__text_quote(value).text, CK_TSP_MAX_CITIES);
    reader->cities = (uint32_t)n;
    CK_TRY(check_explicit_size(reader, at));
  } else if (strcmp(key, "EDGE_WEIGHT_TYPE") == 0) {
    CK_TRY(check_once(reader, &reader->metric_line, key));
    int metric = find_name(metric_names, 5, value);
    if (metric < 0)
      return ck__text_fail_at(CK_ERROR_UNSUPPORTED, lines, at,
                              "EDGE_WEIGHT_TYPE %s is not supported (clkit "
                              "reads EUC_2D, CEIL_2D, ATT, GEO and EXPLICIT)",
                              ck__text_quote(value).text);
    reader->metric = (ck_tsp_metric)metric;
    CK_TRY(check_explicit_size(reader, at));
  } else if (strcmp(key, "EDGE_WEIGHT_FORMAT") == 0) {
    CK_TRY(check_once(reader, &reader->format_line, key));
    int format = find_name(format_names + 1, 5, value);
    if (format < 0)
      return ck__text_fail_at(
          CK_ERROR_UNSUPPORTED, lines, at,
          "EDGE_WEIGHT_FORMAT %s is not supported (clkit "
          "reads FULL_MATRIX, UPPER_ROW, LOWER_DIAG_ROW and "
          "UPPER_DIAG_ROW)",
          ck__text_quote(value).text);
    reader->format = (weight_format)(format + 1);
  } else if (strcmp(key, "DISPLAY_DATA_TYPE") == 0) {
    static const char *const kinds[] = {"COORD_DISPLAY", "TWOD_DISPLAY",
                                        "NO_DISPLAY"};
    CK_TRY(check_once(reader, &reader->display_type_line, key));
    if (find_name(kinds, 3, value) < 0)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "unknown DISPLAY_DATA_TYPE \"%s\" (expected "
                              "COORD_DISPLAY, TWOD_DISPLAY or NO_DISPLAY)",
                              ck__text_quote(value).text);
  } else { /* NODE_COORD_TYPE */
    CK_TRY(check_once(reader, &reader->coord_type_line, key));
    if (strcmp(value, "THREED_COORDS") == 0)
      return ck__text_fail_at(CK_ERROR_UNSUPPORTED, lines, at,
                              "NODE_COORD_TYPE THREED_COORDS is not supported "
                              "(clkit reads 2D coordinates)");
    if (strcmp(value, "TWOD_COORDS") != 0 && strcmp(value, "NO_COORDS") != 0)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "unknown NODE_COORD_TYPE \"%s\" (expected "
                              "TWOD_COORDS or NO_COORDS)",
                              ck__text_quote(value).text);
  }
  return CK_OK;

fail:
  return status;
}

/* One line of the specification part (or a section keyword, or EOF). */
static ck_status read_keyword(tsp_reader *reader, char *line, int *at_eof) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  char *key, *value;
  ck_status status = split_key_line(lines, at, line, &key, &value);
  if (status != CK_OK)
    return status;

  if (strcmp(key, "EOF") == 0) {
    if (value && *value)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "EOF takes no value (found \"%s\")",
                              ck__text_quote(value).text);
    *at_eof = 1;
    return CK_OK;
  }
  if (strcmp(key, "NODE_COORD_SECTION") == 0)
    return begin_section(reader, key, value, SECTION_NODES);
  if (strcmp(key, "DISPLAY_DATA_SECTION") == 0)
    return begin_section(reader, key, value, SECTION_DISPLAY);
  if (strcmp(key, "EDGE_WEIGHT_SECTION") == 0)
    return begin_section(reader, key, value, SECTION_WEIGHTS);
  for (size_t i = 0; i < sizeof foreign_keywords / sizeof foreign_keywords[0];
       ++i)
    if (strcmp(key, foreign_keywords[i]) == 0)
      return ck__text_fail_at(CK_ERROR_UNSUPPORTED, lines, at,
                              "%s is not supported: clkit reads symmetric TSP "
                              "instances only",
                              key);

  static const char *const spec_keys[] = {"NAME",
                                          "COMMENT",
                                          "TYPE",
                                          "DIMENSION",
                                          "EDGE_WEIGHT_TYPE",
                                          "EDGE_WEIGHT_FORMAT",
                                          "DISPLAY_DATA_TYPE",
                                          "NODE_COORD_TYPE"};
  if (find_name(spec_keys, sizeof spec_keys / sizeof spec_keys[0], key) < 0)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at, "unknown keyword \"%s\"",
                            ck__text_quote(key).text);
  if (!value)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "expected \"%s : value\", found no ':'", key);

  if (strcmp(key, "COMMENT") == 0) {
    /* Files often carry several; the first one is kept. */
    if (!reader->comment_line) {
      reader->comment_line = at;
      copy_text(reader->comment, sizeof reader->comment, value);
    }
    return CK_OK;
  }
  if (strcmp(key, "NAME") == 0)
    return read_name(reader, key, value);
  if (!*value)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at, "%s has no value", key);
  return read_setting(reader, key, value);
}

/* One "id x y" line of a node section. */
static ck_status read_node(tsp_reader *reader, node_block *block, char *line) {
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
static ck_status read_weights(tsp_reader *reader, char *line) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  char *cursor = line, *field;
  while ((field = ck__text_next_field(&cursor)) != NULL) {
    if (reader->weight_count == reader->weights_needed)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                              "extra value \"%s\": EDGE_WEIGHT_FORMAT %s with "
                              "DIMENSION %" PRIu32 " has %zu values",
                              ck__text_quote(field).text,
                              format_names[reader->format], reader->cities,
                              reader->weights_needed);
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
    if (reader->format == FORMAT_FULL_MATRIX && j < i &&
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
    if (reader->format == FORMAT_LOWER_DIAG_ROW ? reader->column > i
                                                : reader->column == n) {
      reader->row = i + 1;
      reader->column = reader->format == FORMAT_UPPER_ROW        ? i + 2
                       : reader->format == FORMAT_UPPER_DIAG_ROW ? i + 1
                                                                 : 0;
    }
  }
  return CK_OK;
}

/* The full n x n matrix from the values of the file's format. */
static ck_status expand_matrix(tsp_reader *reader, int32_t **matrix) {
  size_t n = reader->cities;
  const int32_t *w = reader->weights;
  *matrix = NULL;
  if (reader->format == FORMAT_FULL_MATRIX) {
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
    size_t from = reader->format == FORMAT_UPPER_ROW        ? i + 1
                  : reader->format == FORMAT_UPPER_DIAG_ROW ? i
                                                            : 0;
    size_t to = reader->format == FORMAT_LOWER_DIAG_ROW ? i + 1 : n;
    for (size_t j = from; j < to; ++j) {
      m[i * n + j] = w[next];
      m[j * n + i] = w[next];
      ++next;
    }
  }
  *matrix = m;
  return CK_OK;
}

/* 4 when name ends in TSPLIB's file extension, ".tsp" in any case, after
 * something else; 0 otherwise. */
static size_t tsp_extension(const char *name) {
  size_t length = strlen(name);
  if (length <= 4 || name[length - 4] != '.')
    return 0;
  for (size_t i = 0; i < 3; ++i)
    if (tolower((unsigned char)name[length - 3 + i]) != "tsp"[i])
      return 0;
  return 4;
}

/* "eil51" from "some/dir/eil51.tsp", with '?' for each control byte and
 * each byte that is not UTF-8 text, which a NAME may not hold either. */
static void base_name(const char *path, char *out, size_t capacity) {
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  size_t length = strlen(name) - tsp_extension(name);
  if (length >= capacity)
    length = capacity - 1;
  memcpy(out, name, length);
  out[length] = '\0';
  long bad;
  while ((bad = ck__text_control_byte(out)) >= 0 ||
         (bad = ck__text_invalid_utf8_byte(out)) >= 0)
    out[bad] = '?';
}

/* What a complete file must have, checked at EOF or the end of the text. */
static ck_status check_complete(const tsp_reader *reader, int at_eof) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  const char *where = at_eof ? "EOF" : "the end of the file";
  if (reader->current != SECTION_NONE) {
    size_t have = reader->current == SECTION_WEIGHTS ? reader->weight_count
                  : reader->current == SECTION_NODES ? reader->coords.count
                                                     : reader->display.count;
    size_t want = reader->current == SECTION_WEIGHTS ? reader->weights_needed
                                                     : reader->cities;
    return ck__text_fail_at(
        CK_ERROR_PARSE, lines, at,
        "truncated: %s reached after %zu of the %zu %s of "
        "%s (begun on line %zu)",
        where, have, want,
        reader->current == SECTION_WEIGHTS ? "values" : "nodes",
        section_title(reader, reader->current),
        reader->current == SECTION_WEIGHTS ? reader->weights_line
        : reader->current == SECTION_NODES ? reader->coords.line
                                           : reader->display.line);
  }
  if (!reader->dimension_line)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at, "no DIMENSION before %s",
                            where);
  if (!reader->metric_line)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "no EDGE_WEIGHT_TYPE before %s", where);
  if (reader->metric != CK_TSP_EXPLICIT && !reader->coords.line)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, at,
                            "no NODE_COORD_SECTION before %s (EDGE_WEIGHT_TYPE "
                            "%s needs coordinates)",
                            where, metric_names[reader->metric]);
  if (reader->metric == CK_TSP_EXPLICIT) {
    if (reader->format == FORMAT_NONE)
      return ck__text_fail_at(
          CK_ERROR_PARSE, lines, at,
          "no EDGE_WEIGHT_FORMAT before %s (EDGE_WEIGHT_TYPE "
          "EXPLICIT needs one)",
          where);
    if (!reader->weights_line)
      return ck__text_fail_at(
          CK_ERROR_PARSE, lines, at,
          "no EDGE_WEIGHT_SECTION before %s (EDGE_WEIGHT_TYPE "
          "EXPLICIT needs one)",
          where);
  }
  return CK_OK;
}

static void free_reader(tsp_reader *reader) {
  free_node_block(&reader->coords);
  free_node_block(&reader->display);
  free(reader->weights);
  reader->weights = NULL;
}

/* Parses text (length bytes, a NUL after them; cut in place). */
static ck_status parse_text(char *text, size_t length, const char *source,
                            ck_tsp_instance *instance) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  tsp_reader reader;
  int32_t *matrix = NULL;
  int at_eof = 0;
  memset(&reader, 0, sizeof reader);
  reader.lines.source = source;
  reader.lines.text = text;
  reader.lines.length = length;
  reader.coords.title = "NODE_COORD_SECTION";
  reader.display.title = "DISPLAY_DATA_SECTION";
  reader.metric = CK_TSP_EUC_2D;
  CK_TRY(ck__c_locale_enter(&locale, source));

  while (!at_eof) {
    char *line;
    CK_TRY(next_line(&reader.lines, &line));
    if (!line)
      break;
    if (!*line)
      continue;
    reader.content = 1;
    size_t at = reader.lines.line;
    section current = reader.current;
    if (current != SECTION_NONE && !starts_with_keyword(line)) {
      if (current == SECTION_WEIGHTS) {
        CK_TRY(read_weights(&reader, line));
        if (reader.weight_count == reader.weights_needed)
          reader.current = SECTION_NONE;
      } else {
        node_block *block =
            current == SECTION_NODES ? &reader.coords : &reader.display;
        CK_TRY(read_node(&reader, block, line));
        if (block->count == reader.cities)
          reader.current = SECTION_NONE;
      }
      if (reader.current == SECTION_NONE)
        reader.ended = current;
      continue;
    }
    if (current != SECTION_NONE) {
      /* A keyword before the section has all its data. */
      char *key, *value;
      split_keyword(line, &key, &value);
      char *cursor = key;
      key = ck__text_next_field(&cursor);
      size_t have = current == SECTION_WEIGHTS ? reader.weight_count
                    : current == SECTION_NODES ? reader.coords.count
                                               : reader.display.count;
      size_t want =
          current == SECTION_WEIGHTS ? reader.weights_needed : reader.cities;
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &reader.lines, at,
                       "truncated %s: %s after %zu of its %zu %s",
                       section_title(&reader, current), key, have, want,
                       current == SECTION_WEIGHTS ? "values" : "nodes");
    }
    if ((*line >= '0' && *line <= '9') || *line == '-' || *line == '+' ||
        *line == '.') {
      if (reader.ended == SECTION_NONE)
        CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &reader.lines, at,
                         "data \"%s\" outside any section",
                         ck__text_quote(line).text);
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &reader.lines, at,
                       "more data than %s holds (\"%s\"; DIMENSION is %" PRIu32
                       ")",
                       section_title(&reader, reader.ended),
                       ck__text_quote(line).text, reader.cities);
    }
    CK_TRY(read_keyword(&reader, line, &at_eof));
    reader.ended = SECTION_NONE;
  }

  if (!reader.content)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &reader.lines, 1,
                     "the file is empty (expected a TSPLIB instance)");
  CK_TRY(check_complete(&reader, at_eof));
  ck__c_locale_leave(&locale);

  if (reader.metric == CK_TSP_EXPLICIT)
    CK_TRY(expand_matrix(&reader, &matrix));
  memset(instance, 0, sizeof *instance);
  if (reader.name[0])
    copy_text(instance->name, sizeof instance->name, reader.name);
  else
    base_name(source, instance->name, sizeof instance->name);
  copy_text(instance->comment, sizeof instance->comment, reader.comment);
  instance->cities = reader.cities;
  instance->metric = reader.metric;
  instance->matrix = matrix;
  /* Coordinates for drawing an EXPLICIT instance come from its display
   * data; a coordinate metric's own coordinates win over display data. */
  node_block *kept = reader.coords.line ? &reader.coords
                     : reader.display.line && reader.metric == CK_TSP_EXPLICIT
                         ? &reader.display
                         : NULL;
  if (kept) {
    instance->x = kept->x;
    instance->y = kept->y;
    kept->x = kept->y = NULL;
  }
  free_reader(&reader);
  return CK_OK;

fail:
  ck__c_locale_leave(&locale);
  free_reader(&reader);
  free(matrix);
  return status;
}

/* ---- instances: the public calls ----------------------------------------- */

ck_status ck_tsp_parse(const char *text, size_t length, const char *source,
                       ck_tsp_instance *instance) {
  if (!instance)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_tsp_parse: instance is NULL");
  memset(instance, 0, sizeof *instance);
  if (!text && length)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_tsp_parse: text is NULL");
  if (length == SIZE_MAX)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "ck_tsp_parse: text too long");
  char *copy = malloc(length + 1);
  if (!copy)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory: %zu bytes for a copy of %s", length + 1,
                    source ? source : "the text");
  if (length)
    memcpy(copy, text, length);
  copy[length] = '\0';
  ck_status status =
      parse_text(copy, length, source ? source : "(text)", instance);
  free(copy);
  return status;
}

ck_status ck_tsp_load(const char *path, ck_tsp_instance *instance) {
  char *text = NULL;
  size_t size = 0;
  if (!instance)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_tsp_load: instance is NULL");
  memset(instance, 0, sizeof *instance);
  if (!path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck_tsp_load: path is NULL");
  ck_status status =
      ck__file_read_text(path, CK__TEXT_FILE_MAX_BYTES, &text, &size);
  if (status != CK_OK)
    return status;
  status = parse_text(text, size, path, instance);
  free(text);
  return status;
}

ck_status ck_tsp_free(ck_tsp_instance *instance) {
  if (!instance)
    return CK_OK;
  free(instance->x);
  free(instance->y);
  free(instance->matrix);
  memset(instance, 0, sizeof *instance);
  return CK_OK;
}

/* ---- distances and tours ------------------------------------------------- */

/* Checks what the distance computations rely on. Coordinates are checked
 * for cities first..last-1 only, so that one distance costs O(1). */
static ck_status check_instance(const ck_tsp_instance *instance,
                                const char *function) {
  if (!instance)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: instance is NULL",
                    function);
  if (instance->cities < 1 || instance->cities > CK_TSP_MAX_CITIES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the instance has %" PRIu32 " cities (1..%u expected)",
                    function, instance->cities, CK_TSP_MAX_CITIES);
  if ((unsigned)instance->metric > CK_TSP_EXPLICIT)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: unknown metric %d",
                    function, (int)instance->metric);
  if (instance->metric == CK_TSP_EXPLICIT) {
    if (!instance->matrix)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: an EXPLICIT instance without its matrix", function);
    if (instance->cities > CK_TSP_MAX_EXPLICIT)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: an EXPLICIT instance of %" PRIu32
                      " cities (at most %u)",
                      function, instance->cities, CK_TSP_MAX_EXPLICIT);
  } else if (!instance->x || !instance->y) {
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: an instance of metric %s without coordinates",
                    function, metric_names[instance->metric]);
  }
  return CK_OK;
}

/* Coordinates a distance can be computed from without overflow. */
static int usable_point(const ck_tsp_instance *instance, uint32_t i) {
  return fabs(instance->x[i]) <= CK_TSP_MAX_COORDINATE &&
         fabs(instance->y[i]) <= CK_TSP_MAX_COORDINATE;
}

static ck_status check_point(const ck_tsp_instance *instance, uint32_t i,
                             const char *function) {
  if (instance->metric == CK_TSP_EXPLICIT || usable_point(instance, i))
    return CK_OK;
  return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                  "%s: city %" PRIu32 " has coordinates (%g, %g) beyond %g",
                  function, i, instance->x[i], instance->y[i],
                  CK_TSP_MAX_COORDINATE);
}

ck_status ck__tsp_check_distances(const ck_tsp_instance *instance,
                                  const char *function) {
  ck_status status = check_instance(instance, function);
  for (uint32_t i = 0; status == CK_OK && i < instance->cities; ++i)
    status = check_point(instance, i, function);
  return status;
}

int64_t ck__tsp_distance_of(const ck_tsp_instance *instance, uint32_t i,
                            uint32_t j) {
  if (i == j)
    return 0; /* GEO's formula gives 1 here */
  if (instance->metric == CK_TSP_EXPLICIT)
    return instance->matrix[(size_t)i * instance->cities + j];
  return ck_tsp_coordinate_distance((int)instance->metric, instance->x[i],
                                    instance->y[i], instance->x[j],
                                    instance->y[j]);
}

ck_status ck_tsp_get_distance(const ck_tsp_instance *instance, uint32_t i,
                              uint32_t j, int64_t *distance) {
  ck_status status = check_instance(instance, "ck_tsp_get_distance");
  if (status != CK_OK)
    return status;
  if (!distance)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_tsp_get_distance: distance is NULL");
  if (i >= instance->cities || j >= instance->cities)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_tsp_get_distance: cities %" PRIu32 " and %" PRIu32
                    " (the instance has %" PRIu32 ")",
                    i, j, instance->cities);
  status = check_point(instance, i, "ck_tsp_get_distance");
  if (status == CK_OK)
    status = check_point(instance, j, "ck_tsp_get_distance");
  if (status != CK_OK)
    return status;
  *distance = ck__tsp_distance_of(instance, i, j);
  return CK_OK;
}

/* Fails unless tour is a permutation of 0..cities-1, naming the first
 * entry that is out of range or repeated. */
static ck_status check_permutation(const uint32_t *tour, uint32_t cities,
                                   const char *function) {
  ck_status status = CK_OK;
  /* Where each city was seen: its position + 1, 0 while unseen. */
  uint32_t *where = calloc(cities, sizeof *where);
  if (!where)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "%s: out of memory for %" PRIu32 " cities", function,
                    cities);
  for (uint32_t p = 0; p < cities; ++p) {
    uint32_t city = tour[p];
    if (city >= cities)
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "%s: the tour is not a permutation: tour[%" PRIu32 "] = %" PRIu32
              " is outside 0..%" PRIu32,
              function, p, city, cities - 1);
    if (where[city])
      CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
              "%s: the tour is not a permutation: tour[%" PRIu32 "] = %" PRIu32
              " repeats tour[%" PRIu32 "]",
              function, p, city, where[city] - 1);
    where[city] = p + 1;
  }
fail:
  free(where);
  return status;
}

ck_status ck_tsp_tour_measure(const ck_tsp_instance *instance,
                              const uint32_t *tour, int64_t *length) {
  const char *function = "ck_tsp_tour_measure";
  if (!instance)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: instance is NULL",
                    function);
  CK__REQUIRE(tour);
  CK__REQUIRE(length);
  uint32_t n = instance->cities;
  ck_status status = ck__tsp_check_distances(instance, function);
  if (status == CK_OK)
    status = check_permutation(tour, n, function);
  if (status != CK_OK)
    return status;
  int64_t sum = 0;
  for (uint32_t p = 0; p < n; ++p)
    sum += ck__tsp_distance_of(instance, tour[p], tour[p + 1 < n ? p + 1 : 0]);
  *length = sum;
  return CK_OK;
}

/* A tour file being read: its header's keywords, then TOUR_SECTION's ids
 * into order. */
typedef struct tour_reader {
  ck__text_lines lines;
  uint32_t cities;
  uint32_t *order;
  uint32_t *where; /* position + 1 of each city read */
  size_t count;
  enum { TOUR_HEADER, TOUR_IDS, TOUR_AFTER } state;
  size_t type_line, dimension_line, name_line, section_line;
} tour_reader;

/* One line of a tour file's header: NAME, TYPE, DIMENSION, COMMENT, or
 * TOUR_SECTION or EOF, which end it (*done at EOF). */
static ck_status read_tour_keyword(tour_reader *t, char *line, int *done) {
  ck_status status = CK_OK;
  const ck__text_lines *lines = &t->lines;
  size_t at = lines->line;
  char *key, *value;
  CK_TRY(split_key_line(lines, at, line, &key, &value));
  if (strcmp(key, "TOUR_SECTION") == 0 || strcmp(key, "EOF") == 0) {
    if (value && *value)
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at, "%s takes no value", key);
    if (*key == 'E') {
      *done = 1;
      return CK_OK;
    }
    t->section_line = at;
    t->state = TOUR_IDS;
    return CK_OK;
  }
  size_t *first = strcmp(key, "NAME") == 0        ? &t->name_line
                  : strcmp(key, "TYPE") == 0      ? &t->type_line
                  : strcmp(key, "DIMENSION") == 0 ? &t->dimension_line
                                                  : NULL;
  if (!first && strcmp(key, "COMMENT") != 0)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at, "unknown keyword \"%s\"",
                     ck__text_quote(key).text);
  if (!value)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                     "expected \"%s : value\", found no ':'", key);
  if (!first)
    return CK_OK; /* COMMENT */
  if (*first)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                     "%s given twice (first on line %zu)", key, *first);
  *first = at;
  if (first == &t->type_line && strcmp(value, "TOUR") != 0)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                     "TYPE \"%s\" where a tour file has TYPE : TOUR",
                     ck__text_quote(value).text);
  if (first == &t->dimension_line) {
    int64_t n = 0;
    if (ck__text_read_integer(value, &n) != CK__TEXT_NUMBER_OK)
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                       "DIMENSION \"%s\" is not a whole number",
                       ck__text_quote(value).text);
    if (n != (int64_t)t->cities)
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                       "DIMENSION %" PRId64
                       " does not match the instance's %" PRIu32 " cities",
                       n, t->cities);
  }
fail:
  return status;
}

/* One line of TOUR_SECTION: city ids, the tour's closing -1, the
 * section's own -1, or EOF (*done). */
static ck_status read_tour_ids(tour_reader *t, char *line, int *done) {
  ck_status status = CK_OK;
  const ck__text_lines *lines = &t->lines;
  size_t at = lines->line;
  uint32_t cities = t->cities;
  char *cursor = line, *field;
  while ((field = ck__text_next_field(&cursor)) != NULL) {
    int64_t id = 0;
    ck__text_number_kind kind = ck__text_read_integer(field, &id);
    if (t->state == TOUR_AFTER) {
      /* After the tour's -1: the section's closing -1, or EOF. */
      if (strcmp(field, "EOF") == 0 && !*cursor) {
        *done = 1;
        break;
      }
      if (kind == CK__TEXT_NUMBER_OK && id == -1)
        continue;
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                       "\"%s\" after the tour's closing -1 (one tour a file is "
                       "read)",
                       ck__text_quote(field).text);
    }
    if (strcmp(field, "EOF") == 0 && !*cursor) {
      *done = 1;
      break;
    }
    if (kind == CK__TEXT_NUMBER_SYNTAX)
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                       "tour entry \"%s\" is not a whole number",
                       ck__text_quote(field).text);
    if (kind == CK__TEXT_NUMBER_OK && id == -1) {
      t->state = TOUR_AFTER;
      continue;
    }
    if (kind != CK__TEXT_NUMBER_OK || id < 1 || id > (int64_t)cities)
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                       "city id %s is outside 1..%" PRIu32,
                       ck__text_quote(field).text, cities);
    if (t->count == cities)
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                       "more than %" PRIu32
                       " cities in TOUR_SECTION (id %" PRId64 ")",
                       cities, id);
    uint32_t city = (uint32_t)(id - 1);
    if (t->where[city])
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, lines, at,
                       "city id %" PRId64
                       " is repeated (it is already city %" PRIu32
                       " of the tour)",
                       id, t->where[city]);
    t->order[t->count++] = city;
    t->where[city] = (uint32_t)t->count;
  }
fail:
  return status;
}

ck_status ck_tsp_tour_load(const char *path, uint32_t cities, uint32_t **tour) {
  ck_status status = CK_OK;
  char *text = NULL;
  size_t size = 0;
  tour_reader t;
  memset(&t, 0, sizeof t);
  t.state = TOUR_HEADER;

  if (tour)
    *tour = NULL;
  CK__REQUIRE(path);
  CK__REQUIRE(tour);
  if (cities < 3 || cities > CK_TSP_MAX_CITIES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_tsp_tour_load: %" PRIu32 " cities (3..%u expected)",
                    cities, CK_TSP_MAX_CITIES);
  CK_TRY(ck__file_read_text(path, CK__TEXT_FILE_MAX_BYTES, &text, &size));
  t.order = malloc((size_t)cities * sizeof *t.order);
  t.where = calloc(cities, sizeof *t.where);
  if (!t.order || !t.where)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory reading %s: a tour of %" PRIu32 " cities", path,
            cities);
  t.cities = cities;
  t.lines.source = path;
  t.lines.text = text;
  t.lines.length = size;

  for (int done = 0; !done;) {
    char *line;
    CK_TRY(next_line(&t.lines, &line));
    if (!line)
      break;
    if (!*line)
      continue;
    if (t.state == TOUR_HEADER)
      CK_TRY(read_tour_keyword(&t, line, &done));
    else
      CK_TRY(read_tour_ids(&t, line, &done));
  }
  if (!t.section_line)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &t.lines, t.lines.line, "no TOUR_SECTION");
  if (t.count < cities)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &t.lines, t.lines.line,
                     "the tour ends after %zu of %" PRIu32 " cities", t.count,
                     cities);
  free(t.where);
  free(text);
  *tour = t.order;
  return CK_OK;

fail:
  free(t.order);
  free(t.where);
  free(text);
  return status;
}

ck_status ck_tsp_tour_save(const char *path, const char *name,
                           const uint32_t *tour, uint32_t cities,
                           int64_t length) {
  const char *function = "ck_tsp_tour_save";
  ck_status status = CK_OK;
  char *buffer = NULL, *temp = NULL;
  int fd = -1;
  CK__REQUIRE(path);
  CK__REQUIRE(name);
  CK__REQUIRE(tour);
  /* No fewer than ck_tsp_tour_load() reads back. */
  if (cities < 3 || cities > CK_TSP_MAX_CITIES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: cities is %" PRIu32 " (3..%u expected)", function,
                    cities, CK_TSP_MAX_CITIES);
  /* The name goes on a line of its own. */
  if (strlen(name) > 1024)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: the name is too long",
                    function);
  if (ck__text_control_byte(name) >= 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the name holds a control character", function);
  CK_TRY(check_permutation(tour, cities, function));

  buffer = malloc(WRITE_CHUNK + 2048);
  if (!buffer)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory writing %s", path);
  size_t used =
      (size_t)snprintf(buffer, 2048,
                       "NAME : %s.tour\nCOMMENT : Length %" PRId64
                       "\nTYPE : TOUR\nDIMENSION : %" PRIu32 "\nTOUR_SECTION\n",
                       name, length, cities);
  CK_TRY(ck__file_open_temporary(path, &temp, &fd));
  for (uint32_t p = 0; p < cities; ++p) {
    if (used > WRITE_CHUNK) {
      if (ck__write_all(fd, buffer, used) != 0)
        CK_FAIL(CK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
      used = 0;
    }
    used += (size_t)snprintf(buffer + used, 16, "%" PRIu32 "\n", tour[p] + 1);
  }
  memcpy(buffer + used, "-1\nEOF\n", 7);
  used += 7;
  if (ck__write_all(fd, buffer, used) != 0)
    CK_FAIL(CK_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  status = ck__file_commit(fd, temp, path);
  free(buffer);
  return status;

fail:
  ck__file_abandon(fd, temp, path);
  free(buffer);
  return status;
}

/* ---- known optima ----------------------------------------------------------
 */

/* A name an instance is looked up by (length bytes of text, not cut out
 * of it), and where the optima file lists it. */
typedef struct optimum_name {
  const char *text;
  size_t length;
  int64_t optimum;
  size_t line; /* 0 while not listed */
} optimum_name;

/* Adds a name unless it is empty or already there; returns the count. */
static size_t add_optimum_name(optimum_name *names, size_t count,
                               const char *text, size_t length) {
  if (length == 0)
    return count;
  for (size_t i = 0; i < count; ++i)
    if (names[i].length == length && memcmp(names[i].text, text, length) == 0)
      return count;
  names[count].text = text;
  names[count].length = length;
  names[count].optimum = 0;
  names[count].line = 0;
  return count + 1;
}

/* Which of the names a line's key is (whole_line: a line without ':',
 * which names one when it begins with it and a blank); -1 for none. */
static int find_optimum_name(const optimum_name *names, size_t count,
                             const char *key, int whole_line) {
  for (size_t i = 0; i < count; ++i) {
    size_t length = names[i].length;
    if (strncmp(key, names[i].text, length) != 0)
      continue;
    if (!key[length] || (whole_line && ck__text_is_blank(key[length])))
      return (int)i;
  }
  return -1;
}

/* "OPTIMA lists none of "a", "b" and "c"", the error of a lookup that
 * found none of the names. */
static ck_status fail_not_listed(const char *path, const optimum_name *names,
                                 size_t count) {
  char list[3 * (CK__TEXT_QUOTE_MAX + 16)];
  size_t used = 0;
  list[0] = '\0';
  for (size_t i = 0; i < count; ++i) {
    char name[CK__TEXT_QUOTE_MAX + 4];
    size_t length =
        names[i].length < sizeof name - 1 ? names[i].length : sizeof name - 1;
    memcpy(name, names[i].text, length);
    name[length] = '\0';
    used += (size_t)snprintf(list + used, sizeof list - used, "%s\"%s\"",
                             i == 0           ? ""
                             : i + 1 == count ? " and "
                                              : ", ",
                             ck__text_quote(name).text);
  }
  return count == 1
             ? ck__fail(CK_ERROR_NOT_FOUND, "%s does not list %s", path, list)
             : ck__fail(CK_ERROR_NOT_FOUND, "%s lists none of %s", path, list);
}

ck_status ck_tsp_optimum_find(const char *path, const char *name,
                              const char *instance_path,
                              void (*warn)(void *user, const char *line),
                              void *warn_user, int64_t *optimum) {
  ck_status status = CK_OK;
  char *text = NULL;
  size_t size = 0, skipped = 0, first_skipped = 0;
  char fault[2 * CK__TEXT_QUOTE_MAX + 80], first_fault[sizeof fault];
  optimum_name names[3];
  size_t count = 0;
  ck__text_lines lines;
  CK__REQUIRE(path);
  CK__REQUIRE(name);
  CK__REQUIRE(optimum);
  /* NAME as given, without the file extension some files put in it, and
   * the file's own name: the first of them that is listed counts. */
  size_t length = strlen(name);
  count = add_optimum_name(names, count, name, length);
  count = add_optimum_name(names, count, name, length - tsp_extension(name));
  if (instance_path) {
    const char *slash = strrchr(instance_path, '/');
    const char *base = slash ? slash + 1 : instance_path;
    count = add_optimum_name(names, count, base,
                             strlen(base) - tsp_extension(base));
  }
  CK_TRY(ck__file_read_text(path, CK__TEXT_FILE_MAX_BYTES, &text, &size));
  memset(&lines, 0, sizeof lines);
  lines.source = path;
  lines.text = text;
  lines.length = size;
  /* The whole file is read: a malformed line that names the instance is
   * refused wherever it is, and the others are counted for the warning. */
  for (;;) {
    char *line, *key, *value;
    CK_TRY(next_line(&lines, &line));
    if (!line)
      break;
    if (!*line || *line == '#')
      continue;
    size_t at = lines.line;
    ck__text_quoted whole = ck__text_quote(line);
    split_keyword(line, &key, &value);
    int64_t number = 0;
    int which;
    if (!value || !*key) {
      snprintf(fault, sizeof fault, "expected \"name : optimum\", found \"%s\"",
               whole.text);
      which = value ? -1 : find_optimum_name(names, count, key, 1);
    } else if (ck__text_read_integer(value, &number) != CK__TEXT_NUMBER_OK ||
               number < 1) {
      /* At least 1, as --optimum: a gap is measured against it. */
      snprintf(fault, sizeof fault,
               "the optimum of %s, \"%s\", is not a whole number >= 1",
               ck__text_quote(key).text, ck__text_quote(value).text);
      which = find_optimum_name(names, count, key, 0);
    } else {
      which = find_optimum_name(names, count, key, 0);
      if (which < 0)
        continue;
      optimum_name *listed = &names[which];
      if (listed->line && number != listed->optimum)
        CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &lines, at,
                         "%s is listed again with another optimum (%" PRId64
                         " on line %zu, %" PRId64 " here)",
                         ck__text_quote(key).text, listed->optimum,
                         listed->line, number);
      if (!listed->line) {
        listed->line = at;
        listed->optimum = number;
      }
      continue;
    }
    if (which >= 0)
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &lines, at, "%s", fault);
    if (skipped++ == 0) {
      first_skipped = at;
      memcpy(first_fault, fault, sizeof fault);
    }
  }
  if (skipped && warn) {
    /* One line for the whole file, naming the first line skipped. */
    char message[sizeof first_fault + 4200];
    int used = snprintf(message, sizeof message,
                        "warning: %.4000s:%zu: %s; the line is skipped", path,
                        first_skipped, first_fault);
    if (skipped > 1 && used > 0 && (size_t)used < sizeof message)
      snprintf(message + used, sizeof message - (size_t)used,
               ", and %zu other malformed line%s too", skipped - 1,
               skipped > 2 ? "s" : "");
    warn(warn_user, message);
  }
  status = CK_ERROR_NOT_FOUND;
  for (size_t i = 0; i < count && status != CK_OK; ++i)
    if (names[i].line) {
      *optimum = names[i].optimum;
      status = CK_OK;
    }
  if (status != CK_OK)
    status = fail_not_listed(path, names, count);

fail:
  free(text);
  return status;
}
