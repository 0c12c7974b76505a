/*
 * aco_internal.h - the ACO driver's state and its table of steps per
 * backend. The driver (aco.c) owns the iteration loop: which tour deposits
 * pheromone, the MMAS bounds and restarts, partitioning passes and the
 * stopping rules. A step does one phase for every ant (or edge, or
 * segment); its ref and OpenCL forms share cl/ck_aco.h, and the CUDA
 * steps replace construction and local search with cl/aco.cu.
 */
#ifndef CK_ACO_INTERNAL_H
#define CK_ACO_INTERNAL_H

#include "clkit/aco.h"
#include "clkit/clkit.h"
#include "runtime/runtime.h"

typedef struct aco_state aco_state;
typedef struct aco_native aco_native;

typedef struct ck__aco_steps {
  ck_status (*setup)(aco_state *state);
  /* Every ant builds a tour; lengths into `lengths`. ACS: the ants' use
   * of each candidate edge is counted into `uses`. */
  ck_status (*construct)(aco_state *state, uint64_t iteration);
  /* Local search on the best `local_search_ants` tours (all when 0); or,
   * where ants is not NULL, on the `count` ants it lists (a spread colony
   * ranks its ants over every member). */
  ck_status (*local_search)(aco_state *state, const uint32_t *ants,
                            uint32_t count);
  /* The shortest tour of the iteration, by (length, ant). */
  ck_status (*iteration_best)(aco_state *state, int64_t *length, uint32_t *ant);
  /* Copies ant's tour into the best tour, and to host (n entries). */
  ck_status (*keep_best)(aco_state *state, uint32_t ant, uint32_t *tour);
  /* tau = tau * scale + amount on the edges of ant's tour, or of the best
   * tour when ant is CK__ACO_BEST. */
  ck_status (*deposit)(aco_state *state, uint32_t ant, float scale,
                       float amount);
  /* Every candidate entry: ACS local update from `uses` (then cleared),
   * evaporation by keep, bounds, and the choice weights. */
  ck_status (*update)(aco_state *state, float keep, float tau_min,
                      float tau_max);
  /* Sets every tau to `tau`. */
  ck_status (*reset)(aco_state *state, float tau);
  /* Rotates the best tour by `offset` positions, cuts it into segments of
   * `size` positions and optimises each with its ends fixed
   * (ck_aco_optimise_segment, `kicks` kicks drawn for pass `pass`); *gain
   * is the total. When it is positive the improved tour replaces the best
   * tour (device and host copy); otherwise the best tour is left as it
   * was. */
  ck_status (*partition)(aco_state *state, uint32_t size, uint32_t offset,
                         uint64_t pass, uint32_t *tour, int64_t *gain);
  void (*teardown)(aco_state *state);
} ck__aco_steps;

#define CK__ACO_BEST 0xFFFFFFFFu

/* The largest partitioning segment: its scratch holds a size x size
 * distance matrix (4 MB at 1024). */
#define CK__ACO_SEGMENT_MAX 1024u

struct aco_state {
  ck_queue *queue;
  ck_device device;
  const ck_tsp_instance *instance;
  uint32_t n, k, ants;
  uint32_t first; /* a spread colony's slice: its first ant in the whole
                     colony, whose random streams its ants draw (0 alone) */
  int metric;     /* a CK_TSP_METRIC_ or CK_ACO_FROM_MATRIX */
  int algorithm, or_opt, local_search;
  uint32_t local_search_ants;
  uint64_t seed;
  float q0, xi, tau0, alpha;
  size_t coord_size; /* sizeof the device's ck_tsp_coord */
  ck_buffer *matrix, *xy, *neighbours, *eta_beta, *tau, *choice, *uses;
  /* Coordinate metrics: the cities' grid (ck__tsp_grid_pack), packed as
   * construction searches it (CK_ACO_GRID); a placeholder otherwise. */
  ck_buffer *grid_cells, *grid_box;
  ck_buffer *tours, *positions, *flags, *lengths, *order, *best;
  ck_buffer *best_tour, *segment_tour, *segment_gain;
  ck_buffer *segment_scratch; /* ck__aco_segment_scratch */
  uint32_t kicks; /* kicks a segment and pass, or CK_ACO_KICKS_SEGMENT */
  ck_buffer *best_positions; /* position of each city in best_tour */
  int seeded; /* local search seeded from the best tour (when one exists) */
  int64_t best_length; /* of best_tour; INT64_MAX before the first */
  /* The focused method: ants change copies of a source tour, each with
   * a queue of n cities for its local search. */
  int method;
  int focus_adaptive;   /* focus_bound follows ck_aco_focus_bound */
  uint32_t focus_bound; /* edges a tour may have that its source lacks */
  int focused;          /* the last construction was focused */
  ck_aco_focus_source focus_source; /* the configured source */
  ck_aco_focus_source focus_from;   /* the last focused construction's */
  int64_t focus_source_length;      /* its length (not for CK_ACO_SOURCE_OWN) */
  /* The previous iteration's best ant and length (ck__aco_iterate_end). */
  uint32_t iteration_ant;
  int64_t iteration_length;
  /* The sources of CK_ACO_SOURCE_ITERATION (n entries) and
   * CK_ACO_SOURCE_OWN (n an ant), with their positions; NULL for the best
   * tour (ck__aco_focus_source). */
  ck_buffer *source_tours, *source_positions;
  /* CK_ACO_SOURCE_OWN with an adaptive bound: each ant's source length,
   * on the host (ants entries). */
  int64_t *source_lengths;
  ck_buffer *queues;
  ck_buffer *queued; /* OpenCL: each ant's count of dirty cities */
  uint32_t group;
  uint32_t lanes;   /* work-items an ant in construction and local search */
  uint32_t longest; /* entries a local-search move may reverse or shift */
  /* OpenCL */
  ck_program *program;
  ck_kernel *construct_kernel, *count_kernel, *rank_kernel, *search_kernel,
      *best_kernel, *deposit_kernel, *update_kernel, *rotate_kernel,
      *segment_kernel;
  /* OpenCL, the focused method: keep sources, copy, walk, dirty cities,
   * search. */
  ck_kernel *focus_keep_kernel, *focus_copy_kernel, *focus_build_kernel,
      *focus_dirty_kernel, *focus_search_kernel;
  aco_native *native; /* CUDA: the native steps' own (aco_cuda.c) */
};

/* The arguments of the tour-construction and local-search kernels
 * (aco_opencl.c), added to a cursor: the OpenCL kernels' whole lists, which
 * the native CUDA ones begin with. The arguments set again at each launch
 * keep their positions in both. */
void ck__aco_add_construct_arguments(const aco_state *state,
                                     ck_kernel_args *args);
void ck__aco_add_search_arguments(const aco_state *state, ck_kernel_args *args);

extern const ck__aco_steps ck__aco_ref_steps;
extern const ck__aco_steps ck__aco_opencl_steps;
/* Built with CUDA only (CK__CUDA_STEPS): construction and local search by
 * the native kernels of cl/aco.cu, over the OpenCL steps. */
extern const ck__aco_steps ck__aco_cuda_steps;
/* Whether the native kernels serve a configuration: a warp an ant (32
 * lanes), at most 32 candidates and an instance whose per-ant arrays fit
 * in a block's shared memory. */
int ck__aco_cuda_supports(const aco_state *state);

/* Kicks a segment of `size` cities gets in a pass. */
uint32_t ck__aco_kicks(const aco_state *state, uint32_t size);

/* Makes sure segment_scratch holds the scratch of segments of `size`
 * cities (ck_aco_segment_words each), replacing it when smaller; the
 * partitioning steps call it. Errors: out of device or host memory. */
ck_status ck__aco_segment_scratch(aco_state *state, uint32_t size);

/* Before a focused construction: the bound on new edges adapts to how
 * many of the last focused iteration's ants (their `lengths`) ended
 * shorter than the tour they copied; then the source of this one is
 * chosen: the best tour at the first, the configured one after. The
 * focused steps call it (aco.c); `lengths` may be NULL when the bound is
 * fixed. */
void ck__aco_focus_begin(aco_state *state, const int64_t *lengths);
/* How many of the ants, by their `lengths`, ended shorter than the tour
 * they copied (aco.c). */
uint32_t ck__aco_focus_improved(const aco_state *state, const int64_t *lengths);

/* The tours that focused ants copy (focus_from) and their positions;
 * the entries from one ant's source to the next's: 0 for the best tour
 * or the iteration's, n for the ants' own. Before the walk, `kept` ants'
 * tours from ant `first` on are kept there (ck_aco_focus_keep): none for
 * the best tour, the iteration's best ant, or every ant. */
typedef struct ck__aco_source {
  ck_buffer *tours, *positions;
  uint64_t stride;
  uint32_t first, kept;
} ck__aco_source;
ck__aco_source ck__aco_focus_source(const aco_state *state);

/* The state behind an ACO, for tests. */
aco_state *ck__aco_state(ck_aco *aco);

/* Ants of a colony when the configuration leaves them to clkit, for the
 * classic or the focused method, whose source may take memory an ant
 * (aco_create.c). */
uint32_t ck__aco_automatic_ants(const ck_device *device, uint32_t n,
                                int focused, ck_aco_focus_source source);
/* The method that runs on device for n cities when `asked` is asked
 * (CK_ACO_METHOD_AUTO: by size and device). */
ck_aco_method ck__aco_method_for(const ck_device *device, uint32_t n,
                                 ck_aco_method asked);

/* ck_aco_create without its checks, for a slice of a spread colony: the
 * configuration's ants, which draw the random streams of ants first,
 * first + 1, ... of the whole colony (aco_create.c). */
ck_status ck__aco_create_slice(const ck_device *device,
                               const ck_tsp_instance *instance,
                               const ck_aco_config *config, uint32_t first,
                               ck_aco **aco);
/* ck__aco_create_slice in two parts, so that a spread colony's members
 * agree that their ants fit before any builds kernels: the settings, the
 * memory check, the queue and the graph and colony on the device; then
 * the kernels and the first pheromone (a slice that fails it is the
 * caller's to destroy). */
ck_status ck__aco_slice_allocate(const ck_device *device,
                                 const ck_tsp_instance *instance,
                                 const ck_aco_config *config, uint32_t first,
                                 ck_aco **aco);
ck_status ck__aco_slice_set_up(ck_aco *aco);

/* What a spread colony reads of its members (aco.c). */
const ck__aco_steps *ck__aco_steps_of(const ck_aco *aco);
int64_t ck__aco_best_length(const ck_aco *aco);
uint64_t ck__aco_restarts(const ck_aco *aco);

/* An iteration in two halves, so that a spread's members all build their
 * tours before any is waited for: construction and local search, then
 * the rest (aco.c). */
ck_status ck__aco_iterate_begin(ck_aco *aco);
ck_status ck__aco_iterate_end(ck_aco *aco);

/* Every ant's tour, then its local search where `search` is set; at the
 * focused method's start (`start`), greedy tours without search (aco.c). */
ck_status ck__aco_construct(ck_aco *aco, uint64_t iteration, int start,
                            int search);
/* The focused start's last search: the best tour, of `length`, in ant 0's
 * place, searched from scratch; the partitioning scratch is freed
 * (aco.c). */
ck_status ck__aco_search_start(ck_aco *aco, int64_t length);

/* A colony takes `tour` as its best so far, and deposits it as its
 * global update would (aco.c). */
ck_status ck__aco_adopt(ck_aco *aco, const uint32_t *tour);

/*
 * A colony's members, over devices and processes (aco_members.c). They
 * are ACOs on slices of the ants; the ACO that holds them keeps the
 * driver's state and calls the phases below in the order of one device.
 * Every call is collective over the spread's processes.
 */
typedef struct ck__aco_spread ck__aco_spread;

/* The spread behind an ACO, or NULL (aco.c). */
ck__aco_spread *ck__aco_spread_of(const ck_aco *aco);

/* Checks the spread, deals the ants (by shares, or by speeds a probe
 * measures) and makes the members. */
ck_status ck__aco_spread_create(const ck_spread *given,
                                const ck_tsp_instance *instance,
                                const ck_aco_config *config,
                                ck__aco_spread **made);
/* A member of this process, whose settings are every member's. */
const ck_aco *ck__aco_spread_member(const ck__aco_spread *spread);
/* Ants in the whole colony. */
uint32_t ck__aco_spread_ants(const ck__aco_spread *spread);
/* Whether each member runs a colony of its own (spread_colonies). */
int ck__aco_spread_colonies(const ck__aco_spread *spread);

/* One colony's phases, the steps' over all members; ants are numbered
 * over the whole colony. Construction takes the best length so far and
 * whether it is the focused start (ck__aco_construct). */
ck_status ck__aco_spread_construct(ck__aco_spread *spread, uint64_t iteration,
                                   int64_t best_length, int start);
ck_status ck__aco_spread_iteration_best(ck__aco_spread *spread, int64_t *length,
                                        uint32_t *ant);
ck_status ck__aco_spread_keep_best(ck__aco_spread *spread, uint32_t ant,
                                   uint32_t *tour);
/* The best tour's positions to every member, and their seeding. */
ck_status ck__aco_spread_seed(ck__aco_spread *spread, const uint32_t *positions,
                              int seeded);
ck_status ck__aco_spread_partition(ck__aco_spread *spread, uint32_t size,
                                   uint32_t offset, uint64_t pass,
                                   uint32_t kicks, uint32_t *tour,
                                   int64_t *gain);
/* ck__aco_search_start on the member that holds ant 0. */
ck_status ck__aco_spread_search_start(ck__aco_spread *spread, int64_t length);
ck_status ck__aco_spread_deposit(ck__aco_spread *spread, uint32_t ant,
                                 float scale, float amount);
ck_status ck__aco_spread_update(ck__aco_spread *spread, float keep,
                                float tau_min, float tau_max);
ck_status ck__aco_spread_reset(ck__aco_spread *spread, float tau);

/* Colonies: an iteration of every colony; where the least of their best
 * lengths is below best_length, its tour into best_tour and *improved
 * set. */
ck_status ck__aco_spread_colonies_step(ck__aco_spread *spread,
                                       int64_t best_length, uint32_t *best_tour,
                                       int *improved);
/* Colonies: once `made` iterations are a multiple of spread_colonies,
 * each colony whose best is longer than best_length adopts best_tour. */
ck_status ck__aco_spread_share(ck__aco_spread *spread, uint64_t made,
                               int64_t best_length, const uint32_t *best_tour);
/* Colonies: the restarts of all colonies into *restarts (one colony's
 * driver counts its own: left as it is). */
ck_status ck__aco_spread_restarts(ck__aco_spread *spread, uint64_t *restarts);

/* The latest of the processes' clocks, each `elapsed` seconds. */
ck_status ck__aco_spread_latest(ck__aco_spread *spread, double elapsed,
                                double *latest);
/* Kernel seconds of this process's members so far (queues finished). */
double ck__aco_spread_kernel_seconds(ck__aco_spread *spread);
/* Every member's slice and times into result->members. */
ck_status ck__aco_spread_report(ck__aco_spread *spread, ck_result *result);
/* Starts the members' clocks for the report (ck__engine_clocks_start). */
void ck__aco_spread_clocks_start(ck__aco_spread *spread);
/* This process's rank (0 for NULL: a run on one device). */
int ck__aco_spread_rank(const ck__aco_spread *spread);
void ck__aco_spread_destroy(ck__aco_spread *spread);

/* The fields of ck_aco_config with their defaults and ranges
 * (aco_fields.c): ck_aco_config_init and the checks read them, and the
 * workload's options point into them. */
enum {
  CK__ACO_ALGORITHM,
  CK__ACO_ANTS,
  CK__ACO_CANDIDATES,
  CK__ACO_ALPHA,
  CK__ACO_BETA,
  CK__ACO_RHO,
  CK__ACO_Q0,
  CK__ACO_XI,
  CK__ACO_P_BEST,
  CK__ACO_RESTART_AFTER,
  CK__ACO_LOCAL_SEARCH,
  CK__ACO_LOCAL_SEARCH_ANTS,
  CK__ACO_LONGEST_MOVE,
  CK__ACO_SEEDED_SEARCH,
  CK__ACO_PARTITION,
  CK__ACO_PARTITION_EVERY,
  CK__ACO_KICKS,
  CK__ACO_METHOD,
  CK__ACO_FOCUS_EDGES,
  CK__ACO_FOCUS_SOURCE,
  CK__ACO_LANES,
  CK__ACO_SPREAD_COLONIES,
  CK__ACO_SEED,
  CK__ACO_MAX_ITERATIONS,
  CK__ACO_MAX_SECONDS,
  CK__ACO_OPTIMUM,
  CK__ACO_TARGET_GAP,
  CK__ACO_FIELDS
};
extern const ck__field ck__aco_fields[CK__ACO_FIELDS];
/* The steps a run makes when no rule stops it. */
#define CK__ACO_DEFAULT_STEPS                                                  \
  ((uint64_t)ck__aco_fields[CK__ACO_MAX_ITERATIONS].value)

/* An ACO: its device state and steps, and the driver's own; aco.c runs
 * it, and aco_create.c makes it. */
struct ck_aco {
  aco_state state;
  const ck__aco_steps *steps;
  ck__aco_steps merged_steps; /* native steps over the base's */
  ck_aco_config config;
  double rho, p_best;
  uint64_t iteration;         /* iterations made */
  uint64_t restart_iteration; /* iteration of the last pheromone reset */
  uint64_t since_improvement;
  uint64_t restarts, partitions;
  int64_t best_length; /* INT64_MAX until the first iteration */
  uint64_t best_iteration;
  double best_time, started, setup_s;
  uint32_t *best_tour, *best_positions;
  ck_aco_trace_point *trace;
  size_t trace_count, trace_allocated;
  /* A colony's members (aco_members.c), one on one device: they hold the
   * ants and the pheromone, this ACO the driver's state; NULL in a
   * member's slice. */
  ck__aco_spread *spread;
};

#endif /* CK_ACO_INTERNAL_H */
