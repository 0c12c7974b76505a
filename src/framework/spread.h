/*
 * spread.h - what every workload's spread driver shares: the members of
 * this process, how the work is dealt to all members, and the report of
 * each member in the result.
 */
#ifndef CK_FRAMEWORK_SPREAD_H
#define CK_FRAMEWORK_SPREAD_H

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
  const char *unit_name;    /* "particles", "islands", ... */
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

/* Frees what the run holds. */
void ck__spread_end(ck__spread_run *run);

#endif /* CK_FRAMEWORK_SPREAD_H */
