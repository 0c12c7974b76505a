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
  uint32_t group;
  uint32_t lanes;   /* work-items an ant in construction and local search */
  uint32_t longest; /* entries a local-search move may reverse or shift */
  /* OpenCL */
  ck_program *program;
  ck_kernel *construct_kernel, *count_kernel, *rank_kernel, *search_kernel,
      *best_kernel, *deposit_kernel, *update_kernel, *rotate_kernel,
      *segment_kernel;
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

/* The state behind an ACO, for tests. */
aco_state *ck__aco_state(ck_aco *aco);

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
  CK__ACO_LANES,
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

#endif /* CK_ACO_INTERNAL_H */
