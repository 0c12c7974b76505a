/*
 * aco_fields.c - the defaults and ranges of ck_aco_config's fields, the one
 * place that gives them: ck_aco_config_init, the checks of ck_aco_create
 * and the ACO workload's options read this table.
 */
#include <stddef.h>

#include "aco/aco_internal.h"
#include "ck_aco.h"

static const ck__field_word algorithms[] = {
    {"mmas", CK_ACO_MMAS}, {"acs", CK_ACO_ACS}, {NULL, 0}};
static const ck__field_word methods[] = {{"classic", CK_ACO_CLASSIC},
                                         {"focused", CK_ACO_FOCUSED},
                                         {"auto", CK_ACO_METHOD_AUTO},
                                         {NULL, 0}};
static const ck__field_word sources[] = {{"best", CK_ACO_SOURCE_BEST},
                                         {"iteration", CK_ACO_SOURCE_ITERATION},
                                         {"own", CK_ACO_SOURCE_OWN},
                                         {NULL, 0}};
static const ck__field_word searches[] = {{"none", CK_ACO_LS_NONE},
                                          {"2opt", CK_ACO_LS_2OPT},
                                          {"2opt+oropt", CK_ACO_LS_2OPT_OROPT},
                                          {NULL, 0}};
/* 0 leaves the ants, the candidates and the lanes to the device and the
 * instance; a negative rho, to the algorithm and the local search. */
static const ck__field_word automatic[] = {{"auto", 0}, {NULL, 0}};
static const ck__field_word automatic_rho[] = {{"auto", -1}, {NULL, 0}};
static const ck__field_word no_limit[] = {{"none", 0}, {NULL, 0}};
static const ck__field_word off[] = {{"0", 0}, {NULL, 0}};
static const ck__field_word segment[] = {{"K", CK_ACO_KICKS_SEGMENT},
                                         {NULL, 0}};

#define ACO_FIELD(member, kind, fallback, low, high)                           \
  CK__FIELD_OF(ck_aco_config, member, kind, fallback, low, high)

const ck__field ck__aco_fields[CK__ACO_FIELDS] = {
    [CK__ACO_ALGORITHM] = {CK__FIELD_ENUM(ck_aco_config, algorithm, CK_ACO_MMAS,
                                          algorithms)},
    [CK__ACO_ANTS] = {ACO_FIELD(ants, CK__FIELD_UINT, 0, 1, 1 << 16),
                      .words = automatic},
    /* And below the cities (ck_aco_create). */
    [CK__ACO_CANDIDATES] = {ACO_FIELD(candidates, CK__FIELD_UINT, 0, 1, 64),
                            .words = automatic},
    [CK__ACO_ALPHA] = {ACO_FIELD(alpha, CK__FIELD_REAL, 1, 0, 10),
                       .flags = CK__FIELD_ABOVE},
    [CK__ACO_BETA] = {ACO_FIELD(beta, CK__FIELD_REAL, 2, 0, 20)},
    /* Any negative value is automatic (ck_aco_create). */
    [CK__ACO_RHO] = {ACO_FIELD(rho, CK__FIELD_REAL, -1, 0, 1),
                     .flags =
                         CK__FIELD_ABOVE | CK__FIELD_BELOW | CK__FIELD_APART,
                     .words = automatic_rho},
    /* ACS only; a negative value is this default (ck_aco_create). */
    [CK__ACO_Q0] = {ACO_FIELD(q0, CK__FIELD_REAL, 0.9, 0, 1),
                    .flags = CK__FIELD_APART},
    [CK__ACO_XI] = {ACO_FIELD(xi, CK__FIELD_REAL, 0.1, 0, 1),
                    .flags = CK__FIELD_ABOVE | CK__FIELD_BELOW},
    [CK__ACO_P_BEST] = {ACO_FIELD(p_best, CK__FIELD_REAL, 0.05, 0, 1),
                        .flags = CK__FIELD_ABOVE | CK__FIELD_BELOW},
    [CK__ACO_RESTART_AFTER] = {ACO_FIELD(restart_after, CK__FIELD_UINT, 250, 0,
                                         1e9)},
    [CK__ACO_LOCAL_SEARCH] = {CK__FIELD_ENUM(ck_aco_config, local_search,
                                             CK_ACO_LS_2OPT_OROPT, searches)},
    [CK__ACO_LOCAL_SEARCH_ANTS] = {ACO_FIELD(local_search_ants, CK__FIELD_UINT,
                                             0, 0, 1 << 16)},
    [CK__ACO_LONGEST_MOVE] = {ACO_FIELD(longest_move, CK__FIELD_UINT, 0, 1,
                                        1e9),
                              .words = no_limit},
    [CK__ACO_SEEDED_SEARCH] = {ACO_FIELD(seeded_search, CK__FIELD_INT, 1, 0, 1),
                               .flags = CK__FIELD_APART},
    /* And at most the cities (ck_aco_create). */
    [CK__ACO_PARTITION] = {ACO_FIELD(partition, CK__FIELD_UINT, 0, 8,
                                     CK__ACO_SEGMENT_MAX),
                           .words = off},
    /* 0 is 1. */
    [CK__ACO_PARTITION_EVERY] = {ACO_FIELD(partition_every, CK__FIELD_UINT, 1,
                                           0, 0xFFFFFFFFu),
                                 .flags = CK__FIELD_APART},
    [CK__ACO_KICKS] = {ACO_FIELD(kicks, CK__FIELD_UINT, CK_ACO_KICKS_SEGMENT, 0,
                                 1e9),
                       .words = segment},
    /* Focused on one device (ck_aco_create_spread). */
    [CK__ACO_METHOD] = {CK__FIELD_ENUM(ck_aco_config, method,
                                       CK_ACO_METHOD_AUTO, methods)},
    /* 0: adaptive (ck_aco_focus_bound in cl/ck_aco.h). */
    [CK__ACO_FOCUS_EDGES] = {ACO_FIELD(focus_edges, CK__FIELD_UINT,
                                       CK_ACO_FOCUS_FIRST, 1, 1e9),
                             .words = automatic},
    [CK__ACO_FOCUS_SOURCE] = {CK__FIELD_ENUM(ck_aco_config, focus_source,
                                             CK_ACO_SOURCE_BEST, sources)},
    /* And a power of two (ck_aco_create). */
    [CK__ACO_LANES] = {ACO_FIELD(lanes, CK__FIELD_UINT, 0, 1, 256),
                       .words = automatic},
    [CK__ACO_SPREAD_COLONIES] = {ACO_FIELD(spread_colonies, CK__FIELD_UINT, 0,
                                           0, 1e9)},
    [CK__ACO_SEED] = {ACO_FIELD(seed, CK__FIELD_UINT64, 1, 0, 0x1p64),
                      .flags = CK__FIELD_APART},
    /* Any count, 0 for none, where no option gives one. */
    [CK__ACO_MAX_ITERATIONS] = {ACO_FIELD(max_iterations, CK__FIELD_UINT64, 100,
                                          1, 1e12),
                                .flags = CK__FIELD_APART},
    [CK__ACO_MAX_SECONDS] = {ACO_FIELD(max_seconds, CK__FIELD_REAL, 0, 0, 1e9)},
    [CK__ACO_OPTIMUM] = {ACO_FIELD(optimum, CK__FIELD_INT64, 0, 1, 1e15),
                         .flags = CK__FIELD_UNSET},
    /* With has_target (ck_aco_create). */
    [CK__ACO_TARGET_GAP] = {ACO_FIELD(target_gap, CK__FIELD_REAL, 0, 0, 1e6),
                            .flags = CK__FIELD_APART},
};
