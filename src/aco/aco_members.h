/*
 * aco_members.h - a colony's members, as aco_members.c makes and steps
 * them and aco_spread.c moves what crosses between several.
 */
#ifndef CK_ACO_MEMBERS_H
#define CK_ACO_MEMBERS_H

#include "aco/aco_internal.h"
#include "framework/engine.h"

/* An ant of the whole colony, as ranking for local search orders them. */
typedef struct aco_ranked_ant {
  int64_t length;
  uint64_t ant;
} aco_ranked_ant;

/* The arguments of the phase that runs, set on the calling thread. */
typedef struct aco_phase_args {
  uint64_t iteration, pass;
  int64_t length; /* the best length so far */
  int start;      /* the focused start (ck__aco_construct) */
  uint32_t ant, size, offset, kicks;
  float scale, amount, keep, tau_min, tau_max, tau;
  int reset;             /* the pheromone phase resets to tau */
  size_t holder;         /* the local member that holds the tour asked */
  size_t field, skip;    /* write_all: the buffer's offset in aco_state */
  const uint32_t *words; /* n of them */
  uint32_t *tour;
  int64_t *gain;
} aco_phase_args;

/* What the members are made of, while they are made. */
typedef struct aco_making {
  const ck_tsp_instance *instance;
  ck_aco_config config, trial; /* the members', and a probe's */
} aco_making;

struct ck__aco_spread {
  ck__engine *engine;  /* the members, their threads and the exchange */
  ck__spread_run *run; /* the engine's */
  const aco_making *making;
  ck_aco **members; /* this process's */
  uint32_t n, ants; /* cities; ants in the whole colony */
  uint32_t every;   /* spread_colonies: 0 for one colony */
  uint32_t entries; /* candidate entries, n * k */
  int local_search, acs;
  /* One colony whose local search takes the best few: how many, over all
   * members (0: every ant, each member its own). */
  uint32_t search_ants;
  /* One focused colony: the bound on new edges, and whether it adapts to
   * the improved ants of all members (each member's own adapting off). */
  uint32_t bound;
  int adaptive;
  uint32_t widest; /* the largest slice */
  /* The tour that crosses members, and its ant (CK__ACO_BEST: none yet
   * this iteration). */
  uint32_t *tour;
  uint32_t tour_ant;
  /* Ranking: this process's members' lengths, then every member's, each
   * padded to the widest slice; the keys of all ants, the last that
   * local search takes; each local member's list. */
  int64_t *local_lengths, *lengths;
  aco_ranked_ant *ranked, last;
  uint32_t *listed;
  /* ACS: each local member's edge counts and their sum, as doubles, and
   * as read (each local member's, then the sum). */
  double *uses;
  uint32_t *counts;
  aco_phase_args arg;
  /* What each local member's phase found: a value and its index. */
  double values[CK_SPREAD_MAX_LOCAL];
  uint64_t indices[CK_SPREAD_MAX_LOCAL];
};

static inline aco_state *state_of(ck__aco_spread *spread, size_t i) {
  return ck__aco_state(spread->members[i]);
}

static inline const ck__aco_steps *steps_of(const ck__aco_spread *spread,
                                            size_t i) {
  return ck__aco_steps_of(spread->members[i]);
}

/* A phase of every local member at once (ck__engine_each: a host thread
 * a member), then the statuses agreed (collective). A phase's context is
 * the spread; it touches its own member alone, and reads spread->arg. */
static inline ck_status each(ck__aco_spread *spread,
                             ck_status (*phase)(void *spread, size_t i)) {
  return ck__engine_each(spread->engine, phase, spread);
}

/* Whether local member i is the colony's member 0, which holds ant 0 and
 * partitions. */
static inline int holds_first(const ck__aco_spread *spread, size_t i) {
  return i == 0 && ck__exchange_first(spread->run->exchange) == 0;
}

/* What crosses where the colony has several members (aco_spread.c): a
 * member's speed for the deal (the kind's probe); whether a focused
 * colony adapts its bound over all members (after they are made); the
 * bound adapted from every member's improved ants; local search on the
 * best search_ants tours of all; and ACS's edge counts summed. */
ck_status ck__aco_spread_probe(void *self, const ck__engine_member *trial,
                               double *per_second);
void ck__aco_spread_share_bound(ck__aco_spread *spread);
ck_status ck__aco_spread_adapt_bound(ck__aco_spread *spread);
ck_status ck__aco_spread_search_best(ck__aco_spread *spread);
ck_status ck__aco_spread_sum_uses(ck__aco_spread *spread);

#endif /* CK_ACO_MEMBERS_H */
