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
#include "framework/framework.h"
#include "runtime/exchange.h"

/* The threads that run a run's members at once (ck__spread_each). */
typedef struct ck__spread_crew ck__spread_crew;

typedef struct ck__spread_run {
  ck__exchange *exchange;
  size_t local;             /* this process's members */
  const ck_device *devices; /* theirs, local of them (the caller's) */
  uint64_t total;           /* units dealt over all members */
  uint64_t *first, *units;  /* each local member's slice of the units */
  double *compute_s;        /* each local member's steps, as timed */
  uint64_t *bytes_sent;     /* each local member's, to other members */
  /* compute_s, each queue's kernel seconds and the exchange's seconds
   * where the timed steps began (ck__spread_clocks_start): the report
   * gives what came after. */
  double compute_from[CK_SPREAD_MAX_LOCAL], kernel_from[CK_SPREAD_MAX_LOCAL];
  double exchange_from;
  /* A gas's slabs: the axis (-1: none; 2: a grid's boxes) and each local
   * member's bounds: along the axis, then (a grid's) along y. */
  int slab_axis;
  double (*slab)[4];
  /* Each local member's queue once made (the workload's to set), whose
   * kernel time is the member's where it keeps one. */
  ck_queue *queues[CK_SPREAD_MAX_LOCAL];
  const char *unit_name; /* "particles", "islands", ... */
  ck__spread_crew *crew; /* made at the first ck__spread_each; NULL */
} ck__spread_run;

/*
 * Checks a spread and makes its exchange: this process's devices (a
 * device given twice is refused), the hand-set shares' count (the run's
 * members) and values. On success the
 * run holds the exchange and no slices yet (ck__spread_deal). Collective
 * over the spread's communicator. Errors name what is wrong with the
 * spread: CK_ERROR_INVALID_ARGUMENT, CK_ERROR_OUT_OF_MEMORY, or the
 * exchange's.
 */
ck_status ck__spread_begin(const ck_spread *spread, const char *unit_name,
                           ck__spread_run *run);
/* Refuses devices (count of them) where one is given twice, naming it,
 * and sets *repeated to its index; else sets *repeated to count. */
ck_status ck__spread_check_devices(const ck_device *devices, size_t count,
                                   size_t *repeated);
/* ck__spread_begin for members that may share a device (a device given
 * twice): each keeps queues and memory of its own there. */
ck_status ck__spread_begin_shared(const ck_spread *spread,
                                  const char *unit_name, ck__spread_run *run);

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
 * Whole counts (count of them) that sum to total, each in proportion to
 * its quota (the quotas sum to total, to rounding), by the largest
 * remainder method: each quota rounded down (to least, where below it),
 * then the units left one each to the largest remainders, ties to the
 * larger quota, then to the lower index. A count thus depends on its own
 * quota and the others', not on where it stands among them. total must
 * be least * count or more.
 */
void ck__spread_apportion(const double *quotas, size_t count, uint64_t total,
                          uint64_t least, uint64_t *counts);

/*
 * Deals total units to all members in proportion to the spread's shares
 * where it gives them, else to speeds (this process's members' units a
 * second; NULL: equally), by ck__spread_apportion: in multiples of
 * granule, the units short of a whole granule to the last member (a
 * granule of 1 where too few for one each). Each member gets at least
 * one granule: fewer units than members are refused
 * (CK_ERROR_INVALID_ARGUMENT naming the unit).
 * Collective.
 */
ck_status ck__spread_deal(ck__spread_run *run, const ck_spread *spread,
                          uint64_t total, uint64_t granule,
                          const double *speeds);

/* Starts the members' clocks where the run's timed steps begin: their
 * report gives their compute and exchange seconds from here, so that
 * making the members (programs built, units dealt) is not counted. Each
 * member's queue is finished, for its kernel time so far. */
void ck__spread_clocks_start(ck__spread_run *run);

/* Fills result->members with every member's slice, device and times
 * since ck__spread_clocks_start (gathered from all processes).
 * Collective. */
ck_status ck__spread_report(const ck__spread_run *run, ck_result *result);

/*
 * Whether the fastest member alone would have beaten the whole spread: by
 * the rate it kept on its own share (its units times `steps` over its
 * compute time), against the result's throughput. Where it would have by
 * a tenth or more, in a run of a second or more, a warning line for the
 * run's log says which member and by how much, into line (capacity
 * bytes); else line is empty. The result's members are filled.
 */
void ck__spread_verdict(const ck_result *result, double steps, char *line,
                        size_t capacity);

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

/*
 * Copies without the host into each local member from its neighbours
 * on the ring of this process's members (as ck__exchange_pass pairs
 * them): from its previous member into peers[0][i], and where sides is
 * 2, from its next into peers[1][i]. Made where the run is this one
 * process and every pair can copy so (CUDA devices; ref's under the
 * test control): every one, or none (all NULL). Errors: ck__peer_open's.
 * ck__spread_peers_close closes and clears them (any NULL).
 */
ck_status ck__spread_peers_open(const ck__spread_run *run, int sides,
                                ck__peer *peers[2][CK_SPREAD_MAX_LOCAL]);
void ck__spread_peers_close(ck__peer *peers[2][CK_SPREAD_MAX_LOCAL]);

/*
 * Where a spread run's processes stand, for what goes between them
 * (CUDA IPC, NCCL). able: every process said able of its own (the
 * caller's say, which may ask for one member a process); one_host: every
 * process on this one's host; own_gpus: no two processes' first devices
 * are one GPU (0 where any process cannot tell). Collective.
 */
typedef struct ck__spread_places {
  int able, one_host, own_gpus;
} ck__spread_places;
ck_status ck__spread_places_find(ck__spread_run *run, int able,
                                 ck__spread_places *places);

/* The reads of a spread run's loop (ck__loop_run), which its processes
 * agree on: the run's time rule, the most steps between reads, when the
 * run began, the last read, and the steps to the next read. */
typedef struct ck__spread_clock {
  double max_seconds;
  uint64_t max_chunk;
  double started, read_at;
  uint64_t read_steps, chunk;
} ck__spread_clock;

/*
 * Makes a loop's rules and driver a spread run's, and starts its clock:
 * reads come where the processes agree (driver->due, which gives
 * clock->chunk, unless rules->check_every is set), and the time rule is
 * the clock's, applied at the reads. A run that only the time stops runs
 * until the processes agree that it is up. due(self, steps) returns the
 * chunk of the clock that the driver's self holds.
 */
void ck__spread_clock_start(ck__spread_clock *clock, ck__loop_rules *rules,
                            ck__loop_driver *driver,
                            uint64_t (*due)(void *self, uint64_t steps));

/*
 * At each read, the processes agree on the clock and on the steps to the
 * next read (the slowest process's, at most the rules' max_chunk), so that all
 * stop at the same step: the time rule holds for all once it holds for one
 * (reading->stop), and reads come about every 50 ms, as ck__loop_run
 * spaces them. Collective.
 */
ck_status ck__spread_clock_read(ck__spread_run *run, ck__spread_clock *clock,
                                uint64_t steps, ck__loop_reading *reading);

/* Times one device's trial for the deal: a first step untimed (a runtime
 * may compile kernels at their first launch), then doubling batches until
 * one lasts 50 ms or holds `most` steps, so that small trials are timed
 * over enough launches. step(context, count) makes count steps and waits
 * for them. *per_second: steps a second of the last batch. */
ck_status ck__spread_time(ck_status (*step)(void *context, uint64_t count),
                          void *context, uint64_t most, double *per_second);

/*
 * Runs fn(context, i) for every local member i at once: member 0 on the
 * calling thread, each other member on a worker thread of its own (made at
 * the first call, kept until ck__spread_end), and waits for all. Each
 * member's seconds inside fn are added to run->compute_s[i]. The statuses
 * are then agreed over all members and processes (ck__exchange_agree), so
 * the call is collective; a member's failure keeps its message, which is
 * thread-local where it was raised (carried to the calling thread, so that
 * the agreed message reads "member 2 (ocl:0.0) failed: <its message>").
 *
 * One local member runs inline, with no thread made; CLKIT_SPREAD_THREADS=0
 * in the environment (read at the first call) runs every member inline, in
 * member order. fn must be safe to run for distinct members at once: it
 * touches its own member's queue and data alone. It must not call the
 * exchange (the caller does, between phases) nor write a run's outputs (a
 * run's held outputs are the calling thread's). What follows the caller
 * into a worker, for each call: the build watch (ck__build_watching, whose
 * calls are then made one at a time) and ck__build_from_source. A worker
 * reads and writes numbers in the C locale. A thread that cannot be made
 * fails the call with CK_ERROR_OUT_OF_MEMORY for its member, through the
 * agreement, before any member's fn runs.
 */
ck_status ck__spread_each(ck__spread_run *run,
                          ck_status (*fn)(void *context, size_t member),
                          void *context);

/* Whether ck__spread_each runs this process's members in turn on the
 * calling thread: several local members under CLKIT_SPREAD_THREADS=0. */
int ck__spread_in_turn(const ck__spread_run *run);

/* Frees what the run holds, its threads joined; after any call or none,
 * failed or not. */
void ck__spread_end(ck__spread_run *run);

#endif /* CK_FRAMEWORK_SPREAD_H */
