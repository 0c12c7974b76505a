/*
 * Distances and tours of TSPLIB instances (clkit/tsp.h): the checks of
 * what the distances rely on, a distance and a tour's length, and .tour
 * files read and written.
 */
#include "util/util.h"

#include "clkit/tsp.h"

#include "ck_tsp.h"
#include "tsp/tsp_internal.h"
#include "tsp/tsplib_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes gathered before each write() of a tour file. */
#define WRITE_CHUNK ((size_t)1 << 16)

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
                    function, ck__tsp_metric_names[instance->metric]);
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
  CK_TRY(ck__tsp_split_key_line(lines, at, line, &key, &value));
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
    CK_TRY(ck__tsp_next_line(&t.lines, &line));
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
