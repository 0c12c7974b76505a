/*
 * clkit/aco.h - ant colony optimisation for the symmetric TSP on any
 * device: MAX-MIN Ant System (default) or Ant Colony System, with
 * candidate lists and local search (2-opt, Or-opt) on every device.
 *
 *   ck_tsp_instance tsp;  ck_tsp_load("pr2392.tsp", &tsp);
 *   ck_aco_config config;
 *   ck_aco_config_init(&config);           defaults, then adjust
 *   ck_aco *aco;
 *   ck_aco_create(device, &tsp, &config, &aco);
 *   ck_aco_run(aco, &report);              until a stopping rule, or
 *   ck_aco_step(aco, 10);                  step-wise
 *   ck_aco_get_best(aco, &length, tour);
 *   ck_aco_destroy(aco);
 *
 * Pheromone lives on candidate edges only, and distances come from the
 * coordinates when the instance is large, so memory grows with n (times
 * the ants), never with n^2.
 */
#ifndef CLKIT_ACO_H
#define CLKIT_ACO_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/device.h"
#include "clkit/spread.h"
#include "clkit/status.h"
#include "clkit/tsp.h"
#include "clkit/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ck_aco_algorithm {
  CK_ACO_MMAS = 0, /* MAX-MIN Ant System */
  CK_ACO_ACS = 1   /* Ant Colony System */
} ck_aco_algorithm;

typedef enum ck_aco_local_search {
  CK_ACO_LS_NONE = 0,
  CK_ACO_LS_2OPT = 1,
  CK_ACO_LS_2OPT_OROPT = 2
} ck_aco_local_search;

typedef enum ck_aco_method {
  CK_ACO_CLASSIC = 0, /* each ant builds its tour from scratch */
  /* each ant changes a copy of the best tour at a few places, and local
   * search works around the changes (Skinderowicz 2022) */
  CK_ACO_FOCUSED = 1,
  /* focused from CK_ACO_FOCUS_FROM_GPU cities on a GPU or a CPU of at
   * least CK_ACO_WIDE_CPU_UNITS compute units, from CK_ACO_FOCUS_FROM_CPU
   * on narrower devices, classic below; on a spread, focused where every
   * member's device alone would be */
  CK_ACO_METHOD_AUTO = 2
} ck_aco_method;

/* The tour a focused ant copies and changes (its source). */
typedef enum ck_aco_focus_source {
  CK_ACO_SOURCE_BEST = 0,      /* the best tour so far */
  CK_ACO_SOURCE_ITERATION = 1, /* the previous iteration's best tour */
  CK_ACO_SOURCE_OWN = 2 /* the ant's own tour of the previous iteration */
} ck_aco_focus_source;

/* Where CK_ACO_METHOD_AUTO turns focused. A wide device (a GPU, or a CPU
 * of CK_ACO_WIDE_CPU_UNITS compute units or more) runs enough ants for
 * the classic method to stay ahead on middle sizes; docs/aco.md gives
 * the runs these bounds come from. */
#define CK_ACO_FOCUS_FROM_GPU 5000u
#define CK_ACO_FOCUS_FROM_CPU 2000u
#define CK_ACO_WIDE_CPU_UNITS 8u

/* The fewest cities an instance may have for the ACO. */
#define CK_ACO_MIN_CITIES 5u

/* ck_aco_config.kicks: as many kicks as a segment has cities. */
#define CK_ACO_KICKS_SEGMENT 0xFFFFFFFFu

typedef struct ck_aco_config {
  ck_aco_algorithm algorithm;
  uint32_t ants;          /* 0: automatic, from the device's parallel width */
  uint32_t candidates;    /* k nearest neighbours a city, 0: min(20, n - 1) */
  double alpha, beta;     /* the exponents of pheromone and heuristic */
  double rho;             /* negative: 0.2 with local search, 0.02 without;
                             ACS: 0.1 */
  double q0;              /* ACS only; negative: the default */
  double xi;              /* ACS local evaporation */
  double p_best;          /* MMAS tau_min from p_best */
  uint32_t restart_after; /* MMAS: iterations without improvement before
                             the pheromone is reset (0: never) */
  ck_aco_local_search local_search;
  uint32_t local_search_ants; /* 0: every ant, else the best few */
  uint32_t longest_move;      /* local search leaves out moves that reverse or
                                 shift more tour entries (array tours make them
                                 cost that much); 0: no limit */
  int seeded_search;  /* 1: once a best tour exists, local search looks for
                         moves only around the edges a tour does not share
                         with it (don't-look bits seeded); 0: from scratch
                         to a true local optimum every time */
  uint32_t partition; /* segment size K (8 to 1024) for tour partitioning
                         of the best tour, 0: off */
  uint32_t partition_every; /* iterations between partitioning passes */
  /* Iterated local search in each segment of a pass: double-bridge
   * kicks, each kept when the segment is no longer after local search.
   * CK_ACO_KICKS_SEGMENT (the default): as many as the segment has
   * cities; 0: local search only. */
  uint32_t kicks;
  ck_aco_method method;
  /* The focused method: the most edges an ant's tour may have that its
   * source lacks (default 8); 0: adaptive (from 8, a quarter more while
   * more than a fifth of the ants improve on their source, a fifth less
   * otherwise) */
  uint32_t focus_edges;
  /* The focused method: the tour each ant copies (default: the best). The
   * first focused iteration copies the best tour whatever the source. A
   * spread of several members (ck_aco_create_spread) takes
   * CK_ACO_SOURCE_BEST only. */
  ck_aco_focus_source focus_source;
  uint32_t lanes; /* work-items an ant on OpenCL devices: 1, or a power of
                     two up to 256 (a work-group an ant); 0: automatic
                     (the SIMD width on GPUs, 1 on CPUs) */
  /* ck_aco_create_spread only. 0: one colony whose ants are dealt to the
   * members, the one-device run bit for bit. K > 0: a colony on each
   * member, the colonies adopting the best tour of all every K iterations
   * (not the one-device run). */
  uint32_t spread_colonies;
  uint64_t seed;
  /* Stopping, whichever comes first; 0 disables a rule (iterations
   * takes its default when every rule is off). */
  uint64_t max_iterations;
  double max_seconds;
  int64_t optimum; /* known optimum, 0: unknown */
  int has_target;
  double target_gap; /* percent over the optimum; needs optimum */
  int keep_trace;    /* keep (time, iteration, best) at each improvement */
  /* Optional: ck_aco_run calls it after its first iteration and then about
   * twenty times a second, with the fraction of the iterations or seconds
   * allowed (whichever is nearer; 0 when only a target stops the run);
   * nonzero stops the run. */
  ck_progress_fn progress;
  void *progress_user;
} ck_aco_config;

typedef struct ck_aco_report {
  int64_t best_length;
  double gap; /* percent over the optimum; NaN when unknown */
  uint64_t iterations;
  uint64_t best_iteration; /* when the best was found */
  double best_time_s;      /* seconds from the run's start */
  uint64_t tours;          /* tours constructed */
  ck_stop stopped_by;      /* CK_STOP_STEPS (iterations), _TARGET (within
                              target_gap of the optimum) or _TIME */
  double wall_s, kernel_s, setup_s;
  double tours_per_s;
  uint32_t ants, candidates;
  uint64_t restarts;
  ck_aco_method method; /* the one that ran: classic or focused */
} ck_aco_report;

typedef struct ck_aco_trace_point {
  double time_s;
  uint64_t iteration;
  int64_t length;
} ck_aco_trace_point;

typedef struct ck_aco ck_aco;

/* ck_aco_config_init - every field at its default: the one `clkit run aco
 * --help` shows for the option that sets it (xi and p_best have none; their
 * table is src/aco/aco_fields.c), seed 1.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for NULL. */
ck_status ck_aco_config_init(ck_aco_config *config);

/*
 * ck_aco_create - check the configuration, build candidate lists and
 * kernels, and upload the instance.
 * Takes: device; instance (must outlive the ACO); config (copied;
 * progress_user is passed to progress by ck_aco_run()); aco, set (release
 * with ck_aco_destroy()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, naming
 * the bad setting, for an instance of fewer than CK_ACO_MIN_CITIES (5)
 * cities, or for one beyond clkit/tsp.h's limits (a distance above
 * CK_TSP_MAX_DISTANCE, coordinates beyond CK_TSP_MAX_COORDINATE, an
 * EXPLICIT matrix missing or asymmetric), as one made without the reader
 * may be; CK_ERROR_UNSUPPORTED for a GEO or EXPLICIT instance of more
 * than 8192 cities, lanes above 1 where the kernel compiler cannot
 * take the group kernels (PoCL 5 and later on CPUs); CK_ERROR_BUILD;
 * CK_ERROR_DEVICE_MEMORY; CK_ERROR_OUT_OF_MEMORY; other device errors.
 */
ck_status ck_aco_create(const ck_device *device,
                        const ck_tsp_instance *instance,
                        const ck_aco_config *config, ck_aco **aco);

/*
 * ck_aco_create_spread - ck_aco_create over several devices, and over the
 * processes of an MPI communicator (clkit/spread.h). With spread_colonies
 * 0 the ants of one colony are dealt to the members in contiguous slices,
 * and after each iteration the members agree on the tours that update the
 * pheromone, which every member keeps alike: with the same configuration
 * and seed the run is the one-device run, bit for bit, on devices that
 * compute alike. With spread_colonies K each member runs a colony of its
 * own on its slice, and every K iterations each adopts the best tour of
 * all (not the one-device run). Automatic ants are each device's
 * automatic count, summed; the automatic method is focused where every
 * member's device alone would run it. Every process of the communicator makes the
 * same calls on the ACO, which then behaves as any other (ck_aco_run,
 * ck_aco_step, ck_aco_get_best).
 * Takes: spread (read during the call); instance, config and aco as
 * ck_aco_create.
 * Returns: as ck_aco_create, naming the failed member's device (and rank);
 * CK_ERROR_INVALID_ARGUMENT for fewer ants than members, or a spread that
 * ck_spread refuses; CK_ERROR_EXCHANGE when the processes cannot exchange.
 */
ck_status ck_aco_create_spread(const ck_spread *spread,
                               const ck_tsp_instance *instance,
                               const ck_aco_config *config, ck_aco **aco);

/* ck_aco_step - run `iterations` iterations (construction, local search,
 * pheromone update, and partitioning when due; no stopping rules).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL ACO, or (prefixed
 * "produced a bad tour") when the device returned a best tour that is not
 * a permutation; CK_ERROR_OUT_OF_MEMORY for the trace; device errors. */
ck_status ck_aco_step(ck_aco *aco, uint64_t iterations);

/*
 * ck_aco_run - iterate until a stopping rule holds.
 * Takes: report (filled in). Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT
 * for a NULL argument; CK_ERROR_CANCELLED when the progress callback asked
 * to stop (the best so far stays readable with ck_aco_get_best; report is
 * zeroed, not filled); as ck_aco_step().
 */
ck_status ck_aco_run(ck_aco *aco, ck_aco_report *report);

/* ck_aco_get_best - the best length so far and, if tour is not NULL, the tour
 * (n 0-based cities, copied into the caller's array).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if aco or length is NULL;
 * CK_ERROR_NOT_FOUND before the first iteration. */
ck_status ck_aco_get_best(const ck_aco *aco, int64_t *length, uint32_t *tour);

/* ck_aco_get_trace - the improvements so far (with keep_trace; else none,
 * points NULL), owned by the ACO and valid until its next call.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_aco_get_trace(const ck_aco *aco, const ck_aco_trace_point **points,
                           size_t *count);

/* ck_aco_destroy - release an ACO and its queue (not the instance). NULL
 * is a no-op. Returns: CK_OK. */
ck_status ck_aco_destroy(ck_aco *aco);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_ACO_H */
