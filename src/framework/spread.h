/*
 * spread.h - what every workload's spread driver shares: the members of
 * this process, how the work is dealt to all members, and the report of
 * each member in the result.
 */
#ifndef CK_FRAMEWORK_SPREAD_H
#define CK_FRAMEWORK_SPREAD_H

#include "clkit/queue.h"
#include "clkit/spread.h"
#include "clkit/workload.h"
#include "runtime/exchange.h"

typedef struct ck__spread_run {
  ck__exchange *exchange;
  size_t local;             /* this process's members */
  const ck_device *devices; /* theirs, local of them (the caller's) */
  uint64_t total;           /* units dealt over all members */
  uint64_t *first, *units;  /* each local member's slice of the units */
  double *compute_s;        /* each local member's steps, as timed */
  /* Each local member's queue once made (the workload's to set), whose
   * kernel time is the member's where it keeps one. */
  ck_queue *queues[CK_SPREAD_MAX_LOCAL];
  const char *unit_name; /* "particles", "islands", ... */
} ck__spread_run;

/*
 * Checks a spread and makes its exchange: this process's devices, the
 * hand-set shares' count (the run's members) and values. On success the
 * run holds the exchange and no slices yet (ck__spread_deal). Collective
 * over the spread's communicator. Errors name what is wrong with the
 * spread: CK_ERROR_INVALID_ARGUMENT, CK_ERROR_OUT_OF_MEMORY, or the
 * exchange's.
 */
ck_status ck__spread_begin(const ck_spread *spread, const char *unit_name,
                           ck__spread_run *run);

/*
 * Each of count members' fraction of the work, in proportion to weights
 * (positive and finite, as ck__spread_begin checks shares; NULL: equal),
 * into fractions (count entries; may be weights itself). The weights are
 * scaled by their largest before they are summed, so that large ones
 * cannot overflow the sum; the fractions sum to 1, to rounding.
 */
void ck__spread_fractions(const double *weights, size_t count,
                          double *fractions);

/*
 * Deals total units to all members, in multiples of granule (the last
 * member takes what remains; a granule of 1 where too few for one each),
 * in proportion to the spread's shares where it gives them, else to
 * speeds (this process's members' units a second; NULL: equally). Each
 * member gets at least one unit: fewer units than members are refused
 * (CK_ERROR_INVALID_ARGUMENT naming the unit).
 * Collective.
 */
ck_status ck__spread_deal(ck__spread_run *run, const ck_spread *spread,
                          uint64_t total, uint64_t granule,
                          const double *speeds);

/* Fills result->members with every member's slice, device and times
 * (gathered from all processes). Collective. */
ck_status ck__spread_report(const ck__spread_run *run, ck_result *result);

/* The kernel seconds of this process's members' queues (NULL, or a queue
 * that keeps none, as ref's: 0), summed; each queue finished first. */
double ck__spread_kernel_seconds(const ck__spread_run *run);

/* ck__spread_report with each member's compute time its queue's kernel
 * time, where it keeps one: the host's clock also counts the waits for
 * the other members. Collective. */
ck_status ck__spread_report_queues(ck__spread_run *run, ck_result *result);

/* The largest over all processes of each of `count` values, which each
 * process offers (mine): clocks, say, so that all decide alike. Collective. */
ck_status ck__spread_largest(ck__spread_run *run, const double *mine,
                             double *largest, size_t count);

/* Times one device's trial for the deal: a first step untimed (a runtime
 * may compile kernels at their first launch), then doubling batches until
 * one lasts 50 ms or holds `most` steps, so that small trials are timed
 * over enough launches. step(context, count) makes count steps and waits
 * for them. *per_second: steps a second of the last batch. */
ck_status ck__spread_time(ck_status (*step)(void *context, uint64_t count),
                          void *context, uint64_t most, double *per_second);

/* Frees what the run holds. */
void ck__spread_end(ck__spread_run *run);

#endif /* CK_FRAMEWORK_SPREAD_H */
