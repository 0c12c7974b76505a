/*
 * TSPLIB instances (clkit/tsp.h): the reader of TYPE TSP files with the
 * metrics of clkit/tsp.h, and the line helpers that every TSPLIB reader
 * shares. Sections' data are tsplib_sections.c's; distances and .tour
 * files are tours.c's; the list of known optima is optima.c's.
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

#include "tsp/tsp_internal.h"
#include "tsp/tsplib_internal.h"

#include <ctype.h>
#include <inttypes.h>
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

/* ---- small helpers ------------------------------------------------------- */

/* Splits "KEY : VALUE", "KEY: VALUE" or "KEY" in place. *value is NULL
 * when the line has no ':' and otherwise the trimmed text after it. */
void ck__tsp_split_keyword(char *line, char **key, char **value) {
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
ck_status ck__tsp_next_line(ck__text_lines *lines, char **line) {
  ck_status status = ck__text_next_line(lines, line);
  if (status == CK_OK && *line)
    while (ck__text_is_blank(**line))
      ++*line;
  return status;
}

const char *const ck__tsp_format_names[] = {
    "",          "FUNCTION",       "FULL_MATRIX",
    "UPPER_ROW", "LOWER_DIAG_ROW", "UPPER_DIAG_ROW"};

const char *const ck__tsp_metric_names[] = {"EUC_2D", "CEIL_2D", "ATT", "GEO",
                                            "EXPLICIT"};

/* The keywords of TSPLIB that clkit knows but does not read: they belong
 * to other problem types. */
static const char *const foreign_keywords[] = {
    "CAPACITY",       "EDGE_DATA_FORMAT",  "DEPOT_SECTION",
    "DEMAND_SECTION", "EDGE_DATA_SECTION", "FIXED_EDGES_SECTION",
    "TOUR_SECTION",   "BACKHAUL_SECTION",  "DISTANCE",
    "SERVICE_TIME",   "VEHICLES",          "CAPACITY_SECTION"};

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

static const char *section_title(const ck__tsp_reader *reader,
                                 ck__tsp_section which) {
  if (which == CK__TSP_SECTION_NODES)
    return reader->coords.title;
  if (which == CK__TSP_SECTION_DISPLAY)
    return reader->display.title;
  return "EDGE_WEIGHT_SECTION";
}

/* EXPLICIT instances keep n^2 weights; refuse the large ones as soon as
 * both DIMENSION and the type are known. */
static ck_status check_explicit_size(const ck__tsp_reader *reader,
                                     size_t line) {
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
static ck_status check_once(const ck__tsp_reader *reader, size_t *first,
                            const char *key) {
  size_t line = reader->lines.line;
  if (*first)
    return ck__text_fail_at(CK_ERROR_PARSE, &reader->lines, line,
                            "%s given twice (first on line %zu)", key, *first);
  *first = line;
  return CK_OK;
}

/* A section keyword: checks what must come before it and starts it. */
static ck_status begin_section(ck__tsp_reader *reader, const char *key,
                               const char *value, ck__tsp_section which) {
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
  ck__tsp_node_block *block = which == CK__TSP_SECTION_NODES ? &reader->coords
                              : which == CK__TSP_SECTION_DISPLAY
                                  ? &reader->display
                                  : NULL;
  size_t first = block ? block->line : reader->weights_line;
  if (first)
    return ck__text_fail_at(CK_ERROR_PARSE, lines, line,
                            "%s given twice (first on line %zu)", key, first);
  if (block) {
    ck_status status = ck__tsp_open_node_block(reader, block);
    if (status != CK_OK)
      return status;
  } else {
    if (!reader->metric_line || reader->metric != CK_TSP_EXPLICIT)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, line,
                              "EDGE_WEIGHT_SECTION needs EDGE_WEIGHT_TYPE : "
                              "EXPLICIT before it");
    if (reader->format == CK__TSP_FORMAT_NONE ||
        reader->format == CK__TSP_FORMAT_FUNCTION)
      return ck__text_fail_at(CK_ERROR_PARSE, lines, line,
                              "EDGE_WEIGHT_SECTION needs an EDGE_WEIGHT_FORMAT "
                              "(FULL_MATRIX, UPPER_ROW, LOWER_DIAG_ROW or "
                              "UPPER_DIAG_ROW) before it");
    reader->weights_needed =
        ck__tsp_weights_for(reader->format, reader->cities);
    reader->weights_line = line;
    reader->row = 0;
    reader->column = reader->format == CK__TSP_FORMAT_UPPER_ROW ? 1 : 0;
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
ck_status ck__tsp_split_key_line(const ck__text_lines *lines, size_t at,
                                 char *line, char **key, char **value) {
  ck__text_quoted whole = ck__text_quote(line);
  ck__tsp_split_keyword(line, key, value);
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
static ck_status read_name(ck__tsp_reader *reader, const char *key,
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
static ck_status read_setting(ck__tsp_reader *reader, const char *key,
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
    int metric = find_name(ck__tsp_metric_names, 5, value);
    if (metric < 0)
      return ck__text_fail_at(CK_ERROR_UNSUPPORTED, lines, at,
                              "EDGE_WEIGHT_TYPE %s is not supported (clkit "
                              "reads EUC_2D, CEIL_2D, ATT, GEO and EXPLICIT)",
                              ck__text_quote(value).text);
    reader->metric = (ck_tsp_metric)metric;
    CK_TRY(check_explicit_size(reader, at));
  } else if (strcmp(key, "EDGE_WEIGHT_FORMAT") == 0) {
    CK_TRY(check_once(reader, &reader->format_line, key));
    int format = find_name(ck__tsp_format_names + 1, 5, value);
    if (format < 0)
      return ck__text_fail_at(
          CK_ERROR_UNSUPPORTED, lines, at,
          "EDGE_WEIGHT_FORMAT %s is not supported (clkit "
          "reads FULL_MATRIX, UPPER_ROW, LOWER_DIAG_ROW and "
          "UPPER_DIAG_ROW)",
          ck__text_quote(value).text);
    reader->format = (ck__tsp_weight_format)(format + 1);
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
static ck_status read_keyword(ck__tsp_reader *reader, char *line, int *at_eof) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  char *key, *value;
  ck_status status = ck__tsp_split_key_line(lines, at, line, &key, &value);
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
    return begin_section(reader, key, value, CK__TSP_SECTION_NODES);
  if (strcmp(key, "DISPLAY_DATA_SECTION") == 0)
    return begin_section(reader, key, value, CK__TSP_SECTION_DISPLAY);
  if (strcmp(key, "EDGE_WEIGHT_SECTION") == 0)
    return begin_section(reader, key, value, CK__TSP_SECTION_WEIGHTS);
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

/* 4 when name ends in TSPLIB's file extension, ".tsp" in any case, after
 * something else; 0 otherwise. */
size_t ck__tsp_extension(const char *name) {
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
  size_t length = strlen(name) - ck__tsp_extension(name);
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
static ck_status check_complete(const ck__tsp_reader *reader, int at_eof) {
  const ck__text_lines *lines = &reader->lines;
  size_t at = lines->line;
  const char *where = at_eof ? "EOF" : "the end of the file";
  if (reader->current != CK__TSP_SECTION_NONE) {
    size_t have =
        reader->current == CK__TSP_SECTION_WEIGHTS ? reader->weight_count
        : reader->current == CK__TSP_SECTION_NODES ? reader->coords.count
                                                   : reader->display.count;
    size_t want = reader->current == CK__TSP_SECTION_WEIGHTS
                      ? reader->weights_needed
                      : reader->cities;
    return ck__text_fail_at(
        CK_ERROR_PARSE, lines, at,
        "truncated: %s reached after %zu of the %zu %s of "
        "%s (begun on line %zu)",
        where, have, want,
        reader->current == CK__TSP_SECTION_WEIGHTS ? "values" : "nodes",
        section_title(reader, reader->current),
        reader->current == CK__TSP_SECTION_WEIGHTS ? reader->weights_line
        : reader->current == CK__TSP_SECTION_NODES ? reader->coords.line
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
                            where, ck__tsp_metric_names[reader->metric]);
  if (reader->metric == CK_TSP_EXPLICIT) {
    if (reader->format == CK__TSP_FORMAT_NONE)
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

static void free_reader(ck__tsp_reader *reader) {
  ck__tsp_free_node_block(&reader->coords);
  ck__tsp_free_node_block(&reader->display);
  free(reader->weights);
  reader->weights = NULL;
}

/* One line of data of the section being read; the section ends when it
 * holds all its data. */
static ck_status read_section_line(ck__tsp_reader *reader, char *line) {
  ck__tsp_section current = reader->current;
  ck_status status = CK_OK;
  if (current == CK__TSP_SECTION_WEIGHTS) {
    CK_TRY(ck__tsp_read_weights(reader, line));
    if (reader->weight_count == reader->weights_needed)
      reader->current = CK__TSP_SECTION_NONE;
  } else {
    ck__tsp_node_block *block =
        current == CK__TSP_SECTION_NODES ? &reader->coords : &reader->display;
    CK_TRY(ck__tsp_read_node(reader, block, line));
    if (block->count == reader->cities)
      reader->current = CK__TSP_SECTION_NONE;
  }
  if (reader->current == CK__TSP_SECTION_NONE)
    reader->ended = current;
  return CK_OK;

fail:
  return status;
}

/* The instance from a reader that read it whole, and the matrix of an
 * EXPLICIT one; the coordinates kept move from the reader. */
static void fill_instance(ck__tsp_reader *reader, const char *source,
                          int32_t *matrix, ck_tsp_instance *instance) {
  memset(instance, 0, sizeof *instance);
  if (reader->name[0])
    copy_text(instance->name, sizeof instance->name, reader->name);
  else
    base_name(source, instance->name, sizeof instance->name);
  copy_text(instance->comment, sizeof instance->comment, reader->comment);
  instance->cities = reader->cities;
  instance->metric = reader->metric;
  instance->matrix = matrix;
  /* Coordinates for drawing an EXPLICIT instance come from its display
   * data; a coordinate metric's own coordinates win over display data. */
  ck__tsp_node_block *kept =
      reader->coords.line ? &reader->coords
      : reader->display.line && reader->metric == CK_TSP_EXPLICIT
          ? &reader->display
          : NULL;
  if (kept) {
    instance->x = kept->x;
    instance->y = kept->y;
    kept->x = kept->y = NULL;
  }
}

/* Parses text (length bytes, a NUL after them; cut in place). */
static ck_status parse_text(char *text, size_t length, const char *source,
                            ck_tsp_instance *instance) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  ck__tsp_reader reader;
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
    CK_TRY(ck__tsp_next_line(&reader.lines, &line));
    if (!line)
      break;
    if (!*line)
      continue;
    reader.content = 1;
    size_t at = reader.lines.line;
    ck__tsp_section current = reader.current;
    if (current != CK__TSP_SECTION_NONE && !starts_with_keyword(line)) {
      CK_TRY(read_section_line(&reader, line));
      continue;
    }
    if (current != CK__TSP_SECTION_NONE) {
      /* A keyword before the section has all its data. */
      char *key, *value;
      ck__tsp_split_keyword(line, &key, &value);
      char *cursor = key;
      key = ck__text_next_field(&cursor);
      size_t have = current == CK__TSP_SECTION_WEIGHTS ? reader.weight_count
                    : current == CK__TSP_SECTION_NODES ? reader.coords.count
                                                       : reader.display.count;
      size_t want = current == CK__TSP_SECTION_WEIGHTS ? reader.weights_needed
                                                       : reader.cities;
      CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &reader.lines, at,
                       "truncated %s: %s after %zu of its %zu %s",
                       section_title(&reader, current), key, have, want,
                       current == CK__TSP_SECTION_WEIGHTS ? "values" : "nodes");
    }
    if ((*line >= '0' && *line <= '9') || *line == '-' || *line == '+' ||
        *line == '.') {
      if (reader.ended == CK__TSP_SECTION_NONE)
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
    reader.ended = CK__TSP_SECTION_NONE;
  }

  if (!reader.content)
    CK__TEXT_FAIL_AT(CK_ERROR_PARSE, &reader.lines, 1,
                     "the file is empty (expected a TSPLIB instance)");
  CK_TRY(check_complete(&reader, at_eof));
  ck__c_locale_leave(&locale);

  if (reader.metric == CK_TSP_EXPLICIT)
    CK_TRY(ck__tsp_expand_matrix(&reader, &matrix));
  fill_instance(&reader, source, matrix, instance);
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
