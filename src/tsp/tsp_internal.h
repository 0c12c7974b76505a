/*
 * tsp_internal.h - what tsplib.c shares with the rest of the TSP module.
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

#endif /* CK_TSP_INTERNAL_H */
