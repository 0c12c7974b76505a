/*
 * clkit/tsp.h - symmetric TSP instances in TSPLIB format, tours, known
 * optima and candidate (nearest-neighbour) lists.
 *
 * Instances: TYPE TSP with EDGE_WEIGHT_TYPE EUC_2D, CEIL_2D, ATT or GEO
 * (from NODE_COORD_SECTION), or EXPLICIT with EDGE_WEIGHT_FORMAT
 * FULL_MATRIX, UPPER_ROW, LOWER_DIAG_ROW or UPPER_DIAG_ROW (from
 * EDGE_WEIGHT_SECTION; a DISPLAY_DATA_SECTION, when present, gives the
 * coordinates used for drawing). Distances are integers, computed exactly
 * as the TSPLIB specification defines them; see cl/ck_tsp.h, which the
 * kernels share.
 *
 * Ownership: a ck_tsp_instance filled by ck_tsp_load() or ck_tsp_parse()
 * owns its arrays; release them with ck_tsp_free(). A zeroed instance is
 * a valid empty value. Tours are plain arrays of 0-based city indices,
 * owned by whoever allocated them (ck_tsp_tour_load() allocates with
 * malloc(); release with ck_memory_free() or free(), which are the
 * same).
 *
 * Distances are bounded so that the local search's sums of four of them
 * fit a 32-bit int: coordinates must lie within +-CK_TSP_MAX_COORDINATE
 * (1.8e8; every EUC_2D, CEIL_2D or ATT distance is then at most
 * ceil(2 sqrt(2) 1.8e8) = 509116883, and GEO's about 20040), and
 * EXPLICIT weights off the diagonal at most CK_TSP_MAX_DISTANCE (2^29 - 1).
 * EXPLICIT matrices must be symmetric; their diagonal is not read (a
 * city's distance to itself is 0).
 *
 * Error messages name the file and the 1-based line at fault.
 */
#ifndef CLKIT_TSP_H
#define CLKIT_TSP_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest instance accepted, in cities. */
#define CK_TSP_MAX_CITIES 10000000u

/* The largest EXPLICIT instance (its matrix is kept in memory). */
#define CK_TSP_MAX_EXPLICIT 20000u

/* The largest distance between two cities, 2^29 - 1: a sum of four fits
 * a 32-bit int (the gains of 2-opt and Or-opt moves). */
#define CK_TSP_MAX_DISTANCE 536870911

/* The largest coordinate magnitude: 2 sqrt(2) x 1.8e8 rounds up to
 * 509116883, below CK_TSP_MAX_DISTANCE. */
#define CK_TSP_MAX_COORDINATE 1.8e8

typedef enum ck_tsp_metric {
  CK_TSP_EUC_2D = 0,  /* nint(sqrt(dx^2 + dy^2)) */
  CK_TSP_CEIL_2D = 1, /* ceil(sqrt(dx^2 + dy^2)) */
  CK_TSP_ATT = 2,     /* pseudo-Euclidean */
  CK_TSP_GEO = 3,     /* great circle, coordinates in degrees.minutes */
  CK_TSP_EXPLICIT = 4 /* from the matrix */
} ck_tsp_metric;

typedef struct ck_tsp_instance {
  /* NAME (UTF-8 text without control characters, cut between characters
   * to fit), or the file name without .tsp, each byte of it that would not
   * be such text made a '?' */
  char name[128];
  char comment[256];    /* COMMENT, may be empty */
  uint32_t cities;      /* DIMENSION, >= 3 */
  ck_tsp_metric metric; /* EDGE_WEIGHT_TYPE */
  /* Coordinates, cities entries each; NULL for EXPLICIT instances
   * without DISPLAY_DATA_SECTION. */
  double *x;
  double *y;
  /* EXPLICIT only: the full symmetric matrix, cities * cities entries,
   * row-major, expanded from whichever format the file used, with 0 on
   * the diagonal. */
  int32_t *matrix;
} ck_tsp_instance;

/*
 * ck_tsp_load - read a TSPLIB file.
 * Takes: path; instance, filled in (release it with ck_tsp_free()); on
 * failure it is left zeroed.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for NULL arguments;
 * CK_ERROR_IO if the file cannot be read; CK_ERROR_PARSE naming the file
 * and line for malformed content (missing DIMENSION, wrong node count,
 * non-numeric fields, duplicate or out-of-range ids, a truncated file,
 * coordinates or weights beyond the limits above, an asymmetric matrix);
 * CK_ERROR_UNSUPPORTED for a TYPE or EDGE_WEIGHT_TYPE/FORMAT outside the
 * list above; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_tsp_load(const char *path, ck_tsp_instance *instance);

/*
 * ck_tsp_parse - read a TSPLIB instance from memory, as ck_tsp_load().
 * Takes: text (length bytes, need not be NUL-terminated); source, the
 * name used in messages (e.g. the file name); instance, filled in.
 * Returns: as ck_tsp_load(), without CK_ERROR_IO.
 */
ck_status ck_tsp_parse(const char *text, size_t length, const char *source,
                       ck_tsp_instance *instance);

/* ck_tsp_free - release an instance's arrays and zero it; NULL is fine.
 * Returns: CK_OK. */
ck_status ck_tsp_free(ck_tsp_instance *instance);

/*
 * ck_tsp_get_distance - the integer distance between cities i and j.
 * Takes: instance; i, j < cities; distance, set.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT (a NULL argument, a city out
 * of range, an instance without its coordinates or matrix, a coordinate
 * beyond CK_TSP_MAX_COORDINATE).
 */
ck_status ck_tsp_get_distance(const ck_tsp_instance *instance, uint32_t i,
                              uint32_t j, int64_t *distance);

/*
 * ck_tsp_tour_measure - the exact length of a closed tour.
 * Takes: instance; tour, cities 0-based indices; length, set.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, an
 * instance as ck_tsp_get_distance() refuses, or a tour that is not a
 * permutation of 0 .. cities-1 (the message names the first repeated or
 * out-of-range entry); CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_tsp_tour_measure(const ck_tsp_instance *instance,
                              const uint32_t *tour, int64_t *length);

/*
 * ck_tsp_tour_load - read a TSPLIB .tour file (TYPE TOUR, TOUR_SECTION of
 * 1-based ids, ended by -1 or EOF).
 * Takes: path; cities, the instance's size, which DIMENSION (if given) and
 * the section must match; tour, set to a malloc()ed array of cities
 * 0-based indices (the caller releases it with ck_memory_free() or
 * free()), or to NULL on failure.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL path or tour, or
 * cities outside 3 .. CK_TSP_MAX_CITIES; CK_ERROR_IO; CK_ERROR_PARSE naming
 * the file and line (non-numeric id, id out of range, repeated id, wrong
 * count, a binary file); CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_tsp_tour_load(const char *path, uint32_t cities, uint32_t **tour);

/*
 * ck_tsp_tour_save - write a tour as a TSPLIB .tour file, atomically (a
 * temporary file beside path, then a rename).
 * Takes: path; name (the instance's name); tour (cities 0-based indices,
 * written 1-based); cities; length, written in the COMMENT line.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT (a NULL argument, cities
 * outside 3 .. CK_TSP_MAX_CITIES as for ck_tsp_tour_load(), a name over
 * 1024 bytes or with a control character, a tour that is not a
 * permutation, a path that names a directory by its spelling, "x/");
 * CK_ERROR_IO; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_tsp_tour_save(const char *path, const char *name,
                           const uint32_t *tour, uint32_t cities,
                           int64_t length);

/*
 * ck_tsp_optimum_find - look an instance up in a file of known optima,
 * lines "name : optimum" (blank lines and lines starting with '#' ignored).
 * The instance goes by up to three names, tried in this order: name;
 * name without a final ".tsp" (in any case); the base name of
 * instance_path, without its directories and ".tsp". The first of them
 * that the file lists gives the optimum.
 * A malformed line is one without ':', with nothing before its ':', or
 * whose value is not a whole number >= 1 alone (a note after the number
 * too). One that names the instance is an error: its text before ':', or
 * for a line without ':' its first words, is one of the names. Other
 * malformed lines are skipped with one warning for the file.
 * Takes: path; name (the instance's NAME, as ck_tsp_instance.name);
 * instance_path, the instance's file, or NULL; warn, called at most once,
 * before the return, with a line beginning "warning: " that names the
 * file and line of the first malformed line skipped and counts the others
 * (NULL: not told); warn_user, passed to warn; optimum, set when found.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL path, name or
 * optimum; CK_ERROR_NOT_FOUND naming the file and the names looked for;
 * CK_ERROR_IO; CK_ERROR_PARSE naming the file and line of a malformed line
 * that names the instance, or of one of its names listed again with
 * another optimum; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_tsp_optimum_find(const char *path, const char *name,
                              const char *instance_path,
                              void (*warn)(void *user, const char *line),
                              void *warn_user, int64_t *optimum);

/*
 * ck_tsp_find_candidates - the k nearest neighbours of every city, nearest
 * first, ties broken by the smaller index.
 * Takes: instance; k, 1 .. cities-1; neighbours, cities * k entries,
 * filled row by row (city i's list at neighbours[i * k]). Coordinate
 * metrics use a grid over the cities (about n k log k work); EXPLICIT
 * and GEO scan every pair.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_tsp_find_candidates(const ck_tsp_instance *instance, uint32_t k,
                                 uint32_t *neighbours);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_TSP_H */
