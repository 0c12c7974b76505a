/*
 * pso_fields.c - the defaults and ranges of ck_pso_config's fields, the one
 * place that gives them: ck_pso_config_init, the checks of ck_pso_create
 * and the PSO workload's options read this table.
 */
#include <float.h>
#include <stddef.h>

#include "pso/pso_internal.h"

/* Clerc and Kennedy's constriction coefficients in the inertia form. */
#define COGNITIVE_SOCIAL 1.49618

static const ck__field_word topologies[] = {{"gbest", 0}, {NULL, 0}};
static const ck__field_word move_modes[] = {{"auto", CK_PSO_MOVE_AUTO},
                                            {"particle", CK_PSO_MOVE_PARTICLE},
                                            {"vector", CK_PSO_MOVE_VECTOR},
                                            {NULL, 0}};

#define PSO_FIELD(member, kind, fallback, low, high)                           \
  CK__FIELD_OF(ck_pso_config, member, kind, fallback, low, high)

const ck__field ck__pso_fields[CK__PSO_FIELDS] = {
    CK__PROBLEM_FIELDS_OF(ck_pso_config, 30),
    [CK__PSO_PARTICLES] = {PSO_FIELD(particles, CK__FIELD_SIZE, 1024, 1,
                                     0x7FFFFFFF)},
    /* Any count, 0 for none, where no option gives one. */
    [CK__PSO_ITERATIONS] = {PSO_FIELD(max_iterations, CK__FIELD_UINT64, 1000, 1,
                                      1e15),
                            .flags = CK__FIELD_APART},
    [CK__PSO_W] = {PSO_FIELD(w, CK__FIELD_REAL, 0.7298, -10, 10)},
    [CK__PSO_C1] = {PSO_FIELD(c1, CK__FIELD_REAL, COGNITIVE_SOCIAL, 0, 100)},
    [CK__PSO_C2] = {PSO_FIELD(c2, CK__FIELD_REAL, COGNITIVE_SOCIAL, 0, 100)},
    [CK__PSO_CONSTRICTION] = {PSO_FIELD(constriction, CK__FIELD_INT, 0, 0, 1),
                              .flags = CK__FIELD_APART},
    /* And at most the particles (ck_pso_create). */
    [CK__PSO_RING_NEIGHBOURS] = {PSO_FIELD(ring_neighbours, CK__FIELD_INT, 0, 2,
                                           0x7FFFFFFF),
                                 .words = topologies},
    [CK__PSO_VELOCITY_INIT] = {PSO_FIELD(velocity_init, CK__FIELD_REAL, 0.5, 0,
                                         100)},
    [CK__PSO_VMAX] = {PSO_FIELD(vmax, CK__FIELD_REAL, 1.0, 1e-12, 100)},
    [CK__PSO_MOVE_MODE] = {CK__FIELD_ENUM(ck_pso_config, move_mode,
                                          CK_PSO_MOVE_AUTO, move_modes)},
    [CK__PSO_SEED] = {PSO_FIELD(seed, CK__FIELD_UINT64, 1, 0, 0x1p64),
                      .flags = CK__FIELD_APART},
};
