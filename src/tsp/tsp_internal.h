/*
 * tsp_internal.h - what the TSP module (the TSPLIB readers, tours.c,
 * candidates.c) shares with the rest of the library.
 */
#ifndef CK_TSP_INTERNAL_H
#define CK_TSP_INTERNAL_H

#include "clkit/tsp.h"

/*
 * ck__tsp_check_distances - whether every distance of an instance can be
 * computed: a known metric with its matrix or coordinates, at most
 * CK_TSP_MAX_CITIES cities (CK_TSP_MAX_EXPLICIT with a matrix), and every
 * coordinate within CK_TSP_MAX_COORDINATE. Messages begin with `function`.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT naming the first fault.
 */
ck_status ck__tsp_check_distances(const ck_tsp_instance *instance,
                                  const char *function);

/*
 * ck__tsp_distance_of - the distance from city i to city j (0 when i == j)
 * of an instance that ck__tsp_check_distances accepted; i and j must be
 * below its cities. For loops over many pairs, which would otherwise check
 * the instance again for each one through ck_tsp_get_distance.
 */
int64_t ck__tsp_distance_of(const ck_tsp_instance *instance, uint32_t i,
                            uint32_t j);

/*
 * ck__tsp_nearest_neighbour_tour - the nearest-neighbour tour from city
 * first: each step goes to the nearest unvisited city, ties broken by the
 * smaller index (the order of ck_tsp_find_candidates). A city's k
 * candidates (neighbours, from ck_tsp_find_candidates; NULL when k is 0)
 * are tried first; when all are visited, EUC_2D, CEIL_2D and ATT search
 * the candidate lists' grid, about linear in n overall, and GEO and
 * EXPLICIT scan every city. The instance must be one that
 * ck__tsp_check_distances accepted, and first below its cities.
 * Takes: tour, cities entries, filled from first.
 * Returns: CK_OK; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck__tsp_nearest_neighbour_tour(const ck_tsp_instance *instance,
                                         const uint32_t *neighbours, uint32_t k,
                                         uint32_t first, uint32_t *tour);

/* The length of that tour from city 0 into *length (the ACO's tau0).
 * Returns: CK_OK; CK_ERROR_OUT_OF_MEMORY. */
ck_status ck__tsp_nearest_neighbour_length(const ck_tsp_instance *instance,
                                           const uint32_t *neighbours,
                                           uint32_t k, int64_t *length);

/*
 * ck__tsp_grid_pack - the grid of ck_tsp_find_candidates (about two
 * cities a cell) for kernels that search it (cl/ck_aco.h), of an EUC_2D,
 * CEIL_2D or ATT instance that ck__tsp_check_distances accepted. Messages
 * begin with `function`.
 * Takes: *cells, a new array of *count entries that the caller frees:
 * the columns, the rows, the first entry of each cell in row-major order
 * and one past the last cell's (columns x rows + 1 entries), then the
 * cities in cell order; box: the grid's left and bottom edges and its
 * cells' width and height (0 along an axis where every city has the same
 * coordinate). A city in column c lies between left + c x width and
 * left + (c + 1) x width, up to rounding; the same for rows.
 * Returns: CK_OK; CK_ERROR_OUT_OF_MEMORY, with *cells NULL.
 */
ck_status ck__tsp_grid_pack(const ck_tsp_instance *instance,
                            const char *function, uint32_t **cells,
                            size_t *count, double box[4]);

#endif /* CK_TSP_INTERNAL_H */
