/*
 * ga_fields.c - the defaults and ranges of ck_ga_config's fields, the one
 * place that gives them: ck_ga_config_init, the checks of ck_ga_create and
 * the GA workload's options read this table.
 */
#include <float.h>
#include <stddef.h>

#include "ga/ga_internal.h"

static const ck__field_word crossovers[] = {{"arith", CK_GA_ARITHMETIC},
                                            {"blx", CK_GA_BLX},
                                            {"sbx", CK_GA_SBX},
                                            {NULL, 0}};
static const ck__field_word mutations[] = {
    {"gauss", CK_GA_GAUSSIAN}, {"poly", CK_GA_POLYNOMIAL}, {NULL, 0}};
static const ck__field_word topologies[] = {
    {"ring", CK_GA_RING}, {"random", CK_GA_RANDOM}, {NULL, 0}};
static const ck__field_word generation_modes[] = {
    {"auto", CK_GA_GENERATION_AUTO},
    {"child", CK_GA_GENERATION_CHILD},
    {"vector", CK_GA_GENERATION_VECTOR},
    {NULL, 0}};
/* A negative rate is 1 / dim. */
static const ck__field_word per_dimension[] = {{"1/dim", -1}, {NULL, 0}};

#define GA_FIELD(member, kind, fallback, low, high)                            \
  CK__FIELD_OF(ck_ga_config, member, kind, fallback, low, high)

const ck__field ck__ga_fields[CK__GA_FIELDS] = {
    CK__PROBLEM_FIELDS_OF(ck_ga_config, 10),
    [CK__GA_ISLANDS] = {GA_FIELD(islands, CK__FIELD_SIZE, 64, 1,
                                 CK_GA_ISLANDS_MAX)},
    [CK__GA_ISLAND_SIZE] = {GA_FIELD(island_size, CK__FIELD_SIZE, 64, 2,
                                     CK_GA_ISLAND_SIZE_MAX)},
    /* Any count, 0 for none, where no option gives one. */
    [CK__GA_GENERATIONS] = {GA_FIELD(max_generations, CK__FIELD_UINT64, 200, 1,
                                     1e15),
                            .flags = CK__FIELD_APART},
    /* Below the island size (ck_ga_create). */
    [CK__GA_ELITE] = {GA_FIELD(elite, CK__FIELD_INT, 1, 0,
                               CK_GA_ISLAND_SIZE_MAX - 1)},
    /* At most the island size (ck_ga_create). */
    [CK__GA_TOURNAMENT] = {GA_FIELD(tournament, CK__FIELD_INT, 2, 1,
                                    CK_GA_ISLAND_SIZE_MAX)},
    [CK__GA_CROSSOVER_RATE] = {GA_FIELD(crossover_rate, CK__FIELD_REAL, 0.9, 0,
                                        1)},
    [CK__GA_CROSSOVER] = {CK__FIELD_ENUM(ck_ga_config, crossover,
                                         CK_GA_ARITHMETIC, crossovers)},
    [CK__GA_CROSSOVER_PARAMETER] = {GA_FIELD(crossover_parameter,
                                             CK__FIELD_REAL, 0.5, 0, 1e6)},
    /* Checked with the precision (ck_ga_create). */
    [CK__GA_MUTATION_RATE] = {GA_FIELD(mutation_rate, CK__FIELD_REAL, -1, 0, 1),
                              .flags = CK__FIELD_APART, .words = per_dimension},
    [CK__GA_MUTATION] = {CK__FIELD_ENUM(ck_ga_config, mutation, CK_GA_GAUSSIAN,
                                        mutations)},
    [CK__GA_MUTATION_PARAMETER] = {GA_FIELD(mutation_parameter, CK__FIELD_REAL,
                                            0.1, 0, 1e6),
                                   .flags = CK__FIELD_ABOVE},
    [CK__GA_MIGRATE_EVERY] = {GA_FIELD(migrate_every, CK__FIELD_UINT, 10, 0,
                                       1e9)},
    /* Below the island size where islands migrate (ck_ga_create). */
    [CK__GA_MIGRANTS] = {GA_FIELD(migrants, CK__FIELD_UINT, 2, 0,
                                  CK_GA_ISLAND_SIZE_MAX - 1)},
    [CK__GA_TOPOLOGY] = {CK__FIELD_ENUM(ck_ga_config, topology, CK_GA_RING,
                                        topologies)},
    [CK__GA_GENERATION_MODE] = {CK__FIELD_ENUM(ck_ga_config, generation_mode,
                                               CK_GA_GENERATION_AUTO,
                                               generation_modes)},
    [CK__GA_KEEP_ISLAND_HISTORY] = {GA_FIELD(keep_island_history, CK__FIELD_INT,
                                             0, 0, 1),
                                    .flags = CK__FIELD_APART},
    [CK__GA_SEED] = {GA_FIELD(seed, CK__FIELD_UINT64, 1, 0, 0x1p64),
                     .flags = CK__FIELD_APART},
};
