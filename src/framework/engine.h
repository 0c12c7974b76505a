/*
 * engine.h - the member engine: one run's members, over one device or
 * several and over MPI processes, for any workload that describes its
 * partition in a table (ck__engine_kind).
 *
 * The engine owns what a partition shares: the members and their threads
 * (ck__spread_each), their queues and statuses, the agreement on a
 * failure (one member failing ends all, with the first failure's
 * message), the probe and the deal of the units, every member's slice,
 * what crosses between members (ring halos, the least best and its item,
 * sums), the agreed clock of a run's reads, and each member's report in
 * the result. The workload's physics sees none of it: a member is a slice
 * of the units with the halo it keeps, and its phases.
 *
 * A run of one member is the same path. Its round spans a whole step,
 * nothing crosses, it runs on the calling thread with no agreement (its
 * failure's message is its own), and its loop keeps the single clock.
 *
 * A run, step by step:
 * - ck__engine_create: the members' probe (several members, no shares),
 *   the deal (or the kind's cut), allocate on every member, then (all
 *   agreeing that they fit) connect and set_up; several members then post
 *   and exchange once. ck__engine_remake makes them again.
 * - ck__engine_step: rounds of kind.round steps (1 where NULL); one
 *   round spans the whole step where the run has one member. Before a
 *   round of several members the halos pass; in the round each member
 *   steps and posts (its phase, on its thread); after it the engine
 *   exchanges: cross, the best, the sums, then reduced.
 *
 * How the five workloads map onto the table:
 * - PSO (src/pso/pso_spread.c): units particles, granule 32; an item is a
 *   value and dim coordinates. step moves the slice; post reads its
 *   outbox; the best so far is the least personal best, its item the global
 *   best's position; a ring's halo is K - 1 items around the slice.
 *   reduced records the best and hands it to the members' inboxes.
 * - GA (src/ga/ga_members.c): units islands, members may share a device.
 *   The front plans each round (the generations up to the next
 *   migration or read) and steps the engine one round at a time. connect
 *   opens the copies between members' devices; post reads the migrants
 *   that leave into host memory; cross moves them (a ring's around the
 *   members, random cycles' gathered, or device to device). Between
 *   rounds the front reads every member's statistics (ck__engine_each)
 *   and finds the best from them: ties to the earliest round, then the
 *   lowest island. A GA on one device is a run of one member; an
 *   ask/tell GA's member is stepped by the caller's tells.
 * - MLP (src/nn/nn_members.c): units the rows of a batch; a network on one
 *   device is a run of one member. Every member holds the whole network,
 *   so the kind has no step and runs its phases through
 *   ck__engine_each. The rows are dealt again at the first batch
 *   (ck__engine_deal, by a probe of the members' gradient passes).
 *   Gradients are summed through the exchange between two phases, or by
 *   NCCL inside each member's step where every member is a CUDA device.
 *   A set's loss and hits are sums too. No best, no halo.
 * - ACO (src/aco/aco_members.c): units ants; a colony on one device is a
 *   run of one member, which ranks its own ants for local search, adapts
 *   its own bound and copies any focus source. The method and the ants are
 *   agreed from every member's device first (ck__engine_open, then
 *   ck__engine_populate). Its phases go through ck__engine_each: the
 *   iteration-best ant (length, ant) and the tour that deposits, ACS's
 *   edge counts summed, the ranking for local search and member 0's
 *   partitioning gathered and broadcast between them. Colonies
 *   (--spread-colonies K): every K iterations, colonies whose best is
 *   longer adopt the best.
 * - Gas (src/gas/gas_spread_deal.c): units particles, dealt by space
 *   into slabs (or a grid's boxes) by the kind's cut, which the domain
 *   makes (framework/domain.h); allocate makes a member's state for its
 *   slab, set_up fills it. Its steps are phases
 *   through ck__engine_each: ghosts and leavers cross between them
 *   (ck__exchange_pass, ck__exchange_route, or device to device), and a
 *   rebuild that any member needs, the energies and the pressure are
 *   sums. Cutting again by the members' speeds remakes them
 *   (ck__engine_remake). No best, no halo of the engine's.
 */
#ifndef CK_FRAMEWORK_ENGINE_H
#define CK_FRAMEWORK_ENGINE_H

#include "clkit/spread.h"
#include "clkit/workload.h"
#include "framework/framework.h"
#include "framework/spread.h"

typedef struct ck__engine ck__engine;

/* A halo's sides: the items kept from the members before a slice (they
 * pass forward, each member sending its last units), and after it. */
enum { CK__ENGINE_BEFORE = 0, CK__ENGINE_AFTER = 1 };

/* What the members agree on as their best (ck__engine_kind.best). A NaN
 * never wins. */
typedef enum ck__engine_best_rule {
  CK__ENGINE_NO_BEST = 0,
  /* The least so far: a later best only where less, so that the earliest
   * of equal ones stays; in a round, ties to the lowest index. */
  CK__ENGINE_BEST_SO_FAR,
  /* The least of each round's offers alone, ties to the lowest index. */
  CK__ENGINE_BEST_OF_ROUND
} ck__engine_best_rule;

/* A member, as its phases see it. */
typedef struct ck__engine_member {
  size_t index;            /* local: 0 .. this process's members - 1 */
  size_t number;           /* over every process */
  size_t members;          /* in the run: 1 where the member is alone */
  const ck_device *device; /* the engine's copy */
  uint64_t first, units;   /* its slice of the run's units */
  uint64_t total;          /* the run's units */
  uint64_t widest;         /* the most units any member holds */
  /* Items it keeps past its slice (0 where it is alone): before, after. */
  uint64_t halo[2];
} ck__engine_member;

/* What a member offers the exchange, from its last post. Pointers stay
 * valid until its next phase. */
typedef struct ck__engine_offer {
  double value;   /* its best (the kind's `best`) */
  uint64_t index; /* where in its slice (0 .. units - 1) */
  const void *item;
  /* Its own end items: its last min(halo[BEFORE], units) units, in order
   * (they go forward), and its first min(halo[AFTER], units) ones. */
  const void *ends[2];
  const double *sums; /* kind.sum_count of them */
} ck__engine_offer;

/* What the members agreed after their set-up (count 0) or a round. */
typedef struct ck__engine_round {
  uint64_t first, count; /* the steps made */
  double best;           /* the best, as the kind's rule agrees it */
  uint64_t best_index;   /* index over the run, and the member holding */
  size_t holder;         /* it, of the round that found it */
  const void *best_item;
  int best_changed; /* the round found a better best, or (of each
                       round) any */
  const double *sums;
} ck__engine_round;

/*
 * The workload's table: what a member is and does, and the sizes of what
 * crosses. Phases marked (member) run on the member's thread, at once
 * with the other members: they touch their own member alone and call no
 * exchange. The others run on the calling thread, between phases. self
 * is the workload's, as given to ck__engine_create.
 */
typedef struct ck__engine_kind {
  const char *unit_name;     /* "particles": in messages and the report */
  uint64_t granule;          /* slices hold multiples of it (but the last) */
  size_t item_bytes;         /* a unit's item: the best's, and a halo's */
  uint64_t halo[2];          /* items a member keeps before and after */
  ck__engine_best_rule best; /* what the members agree on as their best */
  size_t sum_count;          /* doubles summed over the members each round */
  /* Members may share a device, each with a queue and memory of its own
   * there (ck__spread_begin_shared). */
  int shares_devices;
  /* Optional: deals the units itself, in place of the shares and the
   * probe (a gas's particles, by space): units[i], local member i's
   * count, in member order over every process, summing to the run's
   * total (a member may hold none). Collective; its status is agreed. */
  ck_status (*cut)(void *self, ck__engine *engine, uint64_t *units);
  /* (member) Optional: units a second on a trial member of an equal
   * share, whose time is not the run's; NULL: dealt equally. */
  ck_status (*probe)(void *self, const ck__engine_member *trial,
                     double *per_second);
  /* (member) Its buffers, once its slice is known; *queue: its queue,
   * whose kernel time is the member's (NULL: none). Checked before any
   * set_up, so that a member too large for its device ends the run at
   * once. */
  ck_status (*allocate)(void *self, const ck__engine_member *member,
                        ck_queue **queue);
  /* Optional: after every member's allocate, before any set_up: what
   * the members need of each other's devices (copies between them,
   * handles between processes). Collective; its status is agreed. */
  ck_status (*connect)(void *self, ck__engine *engine);
  /* (member) Its kernels and initial state. */
  ck_status (*set_up)(void *self, size_t i);
  /* (member) count steps from step `first`, what it last took first.
   * Optional where nothing crosses: a kind without it runs its phases
   * through ck__engine_each alone. */
  ck_status (*step)(void *self, size_t i, uint64_t first, uint64_t count);
  /* (member) Reads what it offers into host memory (ck__engine_offer);
   * with offer, required where anything crosses. */
  ck_status (*post)(void *self, size_t i);
  /* Its offer, from its last post. */
  void (*offer)(void *self, size_t i, ck__engine_offer *offer);
  /* Optional: its halo, halo[BEFORE] items then halo[AFTER] items, for
   * its next step. */
  void (*take_halo)(void *self, size_t i, const void *items);
  /* Optional: the steps of the next round of several members from
   * `first` (1 to count); NULL: 1. */
  uint64_t (*round)(void *self, uint64_t first, uint64_t count);
  /* Optional: what else crosses after a round (gathers, routes, device
   * to device), through ck__engine_run's exchange. Collective. */
  ck_status (*cross)(void *self, ck__engine *engine, uint64_t first,
                     uint64_t count);
  /* Optional: the agreement after a round of several members. */
  ck_status (*reduced)(void *self, const ck__engine_round *round);
  /* Frees member i, made or not (after any phase, or none). */
  void (*teardown)(void *self, size_t i);
} ck__engine_kind;

/*
 * Makes a run's members over spread's devices (and its communicator's
 * processes): `total` units dealt by the spread's shares, else by the
 * members' probe, then each member allocated and set up. The kind and
 * the spread are copied; self is the workload's and outlives the engine.
 * Collective. Errors: ck__spread_begin's and ck__spread_deal's, a
 * member's, or CK_ERROR_OUT_OF_MEMORY; the members made are torn down.
 */
ck_status ck__engine_create(const ck__engine_kind *kind, void *self,
                            const ck_spread *spread, uint64_t total,
                            ck__engine **made);

/* Deals `total` units again, by the spread's shares, else by speeds
 * (this process's members' units a second; NULL: equally): every
 * member's slice changes, and a member learns its own from
 * ck__engine_slice. Collective. Errors: ck__spread_deal's. */
ck_status ck__engine_deal(ck__engine *engine, uint64_t total,
                          const double *speeds);

/* ck__engine_create in two parts, for a workload that learns its units'
 * count from the members' devices (over every process) before they are
 * dealt: the exchange and this process's members' devices, then (once
 * the caller has agreed the total) the probe, the deal and the members
 * made. After a failure of either, destroy the engine: the members made
 * are torn down there. Both collective. */
ck_status ck__engine_open(const ck__engine_kind *kind, void *self,
                          const ck_spread *spread, ck__engine **made);
ck_status ck__engine_populate(ck__engine *engine, uint64_t total);

/* Tears every member down and makes it again: the kind's cut again
 * (else the slices as they are), then allocate, connect and set_up, as
 * ck__engine_populate does. After a failure, destroy the engine.
 * Collective. */
ck_status ck__engine_remake(ck__engine *engine);

/* count steps from step `first`, in rounds (see above). Collective. */
ck_status ck__engine_step(ck__engine *engine, uint64_t first, uint64_t count);

/* A phase of the workload's own on every local member (ck__spread_each;
 * a member alone runs on the calling thread). Collective. */
ck_status ck__engine_each(ck__engine *engine,
                          ck_status (*fn)(void *context, size_t i),
                          void *context);

/*
 * A phase that fills a row of `count` doubles on every local member at
 * once (fill(context, i, row), as ck__engine_each runs it; the row
 * zeroed first, kept by the engine between calls), then sums
 * every member's rows into sums (count doubles) on every process, local
 * members in their order. Collective. Errors: a member's (agreed), the
 * exchange's, CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck__engine_sum_each(ck__engine *engine,
                              ck_status (*fill)(void *context, size_t i,
                                                double *row),
                              void *context, size_t count, double *sums);

/* A failure of the calling thread (CK_OK: none), agreed over every
 * process, so that none waits on one that stopped. Collective. */
ck_status ck__engine_agree(ck__engine *engine, ck_status status);

/*
 * ck__loop_run for the run. Several members read where their processes
 * agree, and the time rule is their agreed clock (ck__spread_clock_*),
 * read after the driver's read; a member alone keeps the loop's own.
 * Collective.
 */
ck_status ck__engine_loop(ck__engine *engine, const ck__loop_rules *rules,
                          const ck__loop_driver *driver,
                          ck__loop_outcome *outcome);

/* The agreed best (the kind's rule), its index over the run and its
 * item (item_bytes; the engine's, valid until the next call). A member
 * alone posts first; several agreed after their last round. Collective. */
ck_status ck__engine_best(ck__engine *engine, double *value, uint64_t *index,
                          const void **item);

/* Every member's slice, device and times, into result. Collective. */
ck_status ck__engine_report(ck__engine *engine, ck_result *result);
/* Starts the members' clocks for the report where the run's timed steps
 * begin (ck__spread_clocks_start); ck__engine_loop does so itself. */
void ck__engine_clocks_start(ck__engine *engine);

/* The kernel seconds of this process's members' queues, summed. */
double ck__engine_kernel_seconds(ck__engine *engine);

/* This process's rank (0 alone), members here, and in the run. */
int ck__engine_rank(const ck__engine *engine);
size_t ck__engine_local(const ck__engine *engine);
size_t ck__engine_members(const ck__engine *engine);

/* The run underneath, for a kind's cross: its exchange and its slices. */
ck__spread_run *ck__engine_run(ck__engine *engine);

/* The most units a member holds. */
uint64_t ck__engine_widest(const ck__engine *engine);

/* The member (over every process) whose slice holds unit `unit` of the
 * run's. */
size_t ck__engine_holder(const ck__engine *engine, uint64_t unit);

/* Member m's slice (m over every process); first or units may be NULL. */
void ck__engine_slice(const ck__engine *engine, size_t m, uint64_t *first,
                      uint64_t *units);
/* Member m's share of `total` other items (a batch, a set), cut in its
 * slice's proportion: *count from *first. Neighbours' shares meet, and
 * cover 0 .. total. */
void ck__engine_share(const ck__engine *engine, size_t m, uint64_t total,
                      uint64_t *first, uint64_t *count);

/* Whether every member's device, over every process, is of one model:
 * backend, name, compute units and clock. Collective. */
ck_status ck__engine_alike(ck__engine *engine, int *alike);

/*
 * Whether to deal the units again by the speeds the members kept
 * (engine_measure.c): each local member's units and the compute seconds
 * they took since the caller's mark. *verdict is 0 while every member's
 * seconds sum to less than least_seconds (measure on). Else weights (one
 * a member) hold their units a second, and *verdict is 2 where a deal by
 * them would shorten the slowest member's time by `gain` (a fraction) or
 * more, 1 where not. Collective.
 */
ck_status ck__engine_speeds(ck__engine *engine, const double *units,
                            const double *seconds, double least_seconds,
                            double gain, double *weights, int *verdict);

/*
 * A deal by the members' speeds, measured once (engine_measure.c): on
 * (the caller's to set) until decided. The measure starts at a step
 * the caller allows (ck__engine_pace_step's may_start) once `warmup`
 * steps are made since the last reset (a runtime may compile kernels at
 * their first launch), and is due once it spans `steps` steps.
 * ck__engine_pace_decide then takes each local member's compute time
 * since the measure began (the run's compute_s).
 */
typedef struct ck__engine_pace {
  int on, measuring;
  uint64_t steps; /* since the reset, or since the measure began */
  double from[CK_SPREAD_MAX_LOCAL];
} ck__engine_pace;

/* The units were dealt again: the measure starts over. */
void ck__engine_pace_reset(ck__engine_pace *pace);
/* One step made. */
void ck__engine_pace_step(ck__engine *engine, ck__engine_pace *pace,
                          int may_start, uint64_t warmup);
/* 1 where the measure, on, spans `steps` steps. */
int ck__engine_pace_due(const ck__engine_pace *pace, uint64_t steps);
/* ck__engine_speeds over the measure (units: each local member's); the
 * pace is off once it gives a verdict (*verdict 1 or 2). Collective. */
ck_status ck__engine_pace_decide(ck__engine *engine, ck__engine_pace *pace,
                                 const double *units, double least_seconds,
                                 double gain, double *weights, int *verdict);

/* Every member's census of the units it holds (each local member's
 * count, sum of ids and sum of the ids' hashes), summed over all and
 * checked against the run's: CK_ERROR_MISMATCH where a unit was lost or
 * doubled between members. Collective. */
ck_status ck__engine_census(ck__engine *engine, const uint64_t (*mine)[3],
                            const uint64_t expected[3]);

/* Tears the members down and frees the engine (NULL: nothing); not
 * collective. */
void ck__engine_destroy(ck__engine *engine);

#endif /* CK_FRAMEWORK_ENGINE_H */
