/*
 * pso_internal.h - the PSO driver's state and its table of steps per
 * backend (see docs/architecture.md). The driver (pso.c) owns the loop,
 * pso_create.c makes and frees a swarm; steps do one phase over the
 * whole swarm.
 */
#ifndef CK_PSO_INTERNAL_H
#define CK_PSO_INTERNAL_H

#include "clkit/clkit.h"
#include "clkit/pso.h"
#include "framework/history.h"
#include "framework/spread.h"
#include "objectives/problem.h"
#include "runtime/runtime.h"

typedef struct pso_state pso_state;
typedef struct pso_native pso_native;

typedef struct ck__pso_steps {
  ck_status (*setup)(pso_state *state);
  /* Positions, velocities, pbest; streamed objectives evaluated. */
  ck_status (*initialise)(pso_state *state);
  /* Ring topology: each particle's best neighbour. */
  ck_status (*neighbours)(pso_state *state);
  /* One move; streamed objectives evaluated and pbest kept. */
  ck_status (*move)(pso_state *state, uint64_t iteration);
  /* Non-streamed objectives (lsq, user): evaluate and keep pbest. */
  ck_status (*evaluate)(pso_state *state);
  /* Global best from the personal bests; history[slot] set. */
  ck_status (*update_best)(pso_state *state, uint32_t slot);
  /* A spread member: its outbox filled (ck_pso_report_item), after
   * update_best. */
  ck_status (*report)(pso_state *state);
  void (*teardown)(pso_state *state);
  /* Optional (NULL where absent), for the swarms whose setup set
   * `iterates`: count iterations from first_iteration, each a move then
   * update_best into slots first_slot, first_slot + 1, ... (the driver
   * keeps them within the history's capacity). */
  ck_status (*iterate)(pso_state *state, uint64_t first_iteration,
                       uint32_t first_slot, uint64_t count);
} ck__pso_steps;

struct pso_state {
  ck_queue *queue;
  ck_device device;
  const ck__problem *problem; /* objective, domain, user source */
  int objective;              /* CK_OBJECTIVE_* */
  int streamed;
  int dim;
  uint32_t n;     /* particles */
  uint32_t first; /* of a spread swarm's slice: its first particle */
  uint32_t total; /* of the whole swarm (n but in a spread) */
  int double_precision;
  size_t real_size; /* 4 or 8 */
  int bounds;       /* CK_BOUNDS_* */
  uint32_t ring;    /* 0, or neighbourhood size */
  double w, c1, c2; /* effective inertia-form coefficients */
  double velocity_init;
  uint64_t seed;
  /* Device state; element (d, p) of a per-particle vector at d * n + p. */
  ck_buffer *lo, *hi, *vmax;          /* dim */
  ck_buffer *x, *v, *pbest;           /* dim * n */
  ck_buffer *pbest_value;             /* n */
  ck_buffer *neighbour;               /* n, ring only */
  ck_buffer *values;                  /* n, ring only: this move's values */
  ck_buffer *gbest;                   /* dim */
  ck_buffer *best_value, *best_index; /* 1 */
  ck_buffer *partial_values, *partial_indices;
  ck_buffer *history; /* history_capacity */
  /* A spread member's, made by pso_spread.c (NULL and 0 otherwise; the
   * swarm frees them). Items are a value and dim coordinates. The outbox
   * holds its best item, send_forward items of its last particles and
   * send_back of its first (ck_pso_report_item), then its best's index;
   * the inbox holds the ring's halo, halo_before items then halo_after,
   * or (gbest) the global best's item. outbox_host and inbox_host are
   * their host copies, in the memory the queue moves fastest. */
  uint32_t halo_before, halo_after, send_forward, send_back;
  ck_buffer *outbox, *inbox;
  void *outbox_host, *inbox_host;
  size_t outbox_bytes, inbox_bytes;
  ck_buffer *done; /* 1: the target is met */
  int has_target;
  double target;
  ck_buffer *data;        /* lsq: column-major; user: rows */
  uint32_t rows;          /* lsq rows */
  uint32_t group;         /* reduction work-group size */
  uint32_t move_lanes;    /* particles a work-item of the OpenCL move */
  uint32_t move_local;    /* its work-group size */
  uint32_t partial_count; /* groups of the first reduction; 0: direct */
  ck__lsq_plan lsq;       /* lsq: how it is evaluated */
  ck_buffer *lsq_partial; /* group mode: n * lsq.chunks partial sums */
  uint32_t history_capacity;
  /* OpenCL */
  ck_program *program;
  ck_kernel *initialise_kernel, *neighbours_kernel, *move_kernel,
      *reduce_kernel, *update_kernel, *keep_kernel, *report_kernel;
  ck__evaluation evaluation; /* lsq and user objectives */
  /* 1 when the steps' iterate serves this swarm (set by their setup;
   * on CUDA: the native step of pso_cuda.c applies) */
  int iterates;
  pso_native *native; /* CUDA: the native steps' own (pso_cuda.c) */
};

/* The device memory of a swarm: positions, velocities, personal bests
 * and two values a particle (pso_create.c; the benchmark's estimate too). */
double ck__pso_swarm_bytes(double particles, double dim, double real_size);

/* The state behind a swarm, for tests that inspect every particle. */
pso_state *ck__pso_state(ck_pso *pso);

/* A slice of a swarm of `total` particles: config->particles of them,
 * drawing the random streams of particles first, first + 1, ...
 * (pso_create.c).
 * ck_pso_create is the slice of all from 0. */
ck_status ck__pso_create_slice(const ck_device *device,
                               const ck_pso_config *config, uint32_t first,
                               size_t total, ck_pso **pso);
/* ck__pso_create_slice in two parts, so that a spread's members agree
 * that their swarms fit before any builds kernels: the settings, the
 * memory check and the buffers; then the uploads, the kernels and the
 * initial swarm (a slice that fails it is the caller's to destroy). A
 * spread member's boxes (pso_state) are made between the two, and the
 * second fills its outbox. */
ck_status ck__pso_slice_allocate(const ck_device *device,
                                 const ck_pso_config *config, uint32_t first,
                                 size_t total, ck_pso **pso);
ck_status ck__pso_slice_set_up(ck_pso *pso);
/* One iteration of a slice's device work, queued and not read: the
 * ring's neighbours (from its halo, where it has one), the moves, the
 * evaluations, its own best, and a member's outbox filled. */
ck_status ck__pso_slice_iterate(ck_pso *pso, uint64_t iteration);

/* A swarm spread over devices (pso_spread.c): members that hold slices,
 * and the global best they agree on after every iteration. Each call is
 * collective over the spread's processes. */
typedef struct ck__pso_spread ck__pso_spread;
/* A member's slice with its boxes (pso_state), its kernels not built yet
 * (ck__pso_slice_set_up builds them and fills its outbox): particles
 * first .. of a swarm of `total`, with a ring halo of `before` and
 * `after` items (0 and 0: none); one that fails is the caller's to
 * destroy. The tests compare its steps on ref and OpenCL through it. Not
 * collective. */
ck_status ck__pso_spread_member(const ck_device *device,
                                const ck_pso_config *config, uint32_t first,
                                size_t total, uint32_t before, uint32_t after,
                                ck_pso **made);
/* Makes the members and pushes the initial swarm's best into history. */
ck_status ck__pso_spread_create(const ck_spread *spread,
                                const ck_pso_config *config,
                                ck__history *history, ck__pso_spread **made);
/* count iterations from iteration, each best pushed into history. */
ck_status ck__pso_spread_step(ck__pso_spread *spread, uint64_t iteration,
                              uint64_t count, ck__history *history);
ck_status ck__pso_spread_best(ck__pso_spread *spread, double *value,
                              double *position);
/* The spread as the framework keeps it, for its clock's reads. */
ck__spread_run *ck__pso_spread_run(ck__pso_spread *spread);
/* The members' kernel seconds, summed. */
double ck__pso_spread_kernel_seconds(ck__pso_spread *spread);
/* The members, into a result. */
ck_status ck__pso_spread_report(ck__pso_spread *spread, ck_result *result);
/* This process's rank (0 alone, or for NULL). */
int ck__pso_spread_rank(const ck__pso_spread *spread);
void ck__pso_spread_destroy(ck__pso_spread *spread);
/* The spread behind a swarm, or NULL (pso.c). */
ck__pso_spread *ck__pso_spread_of(ck_pso *pso);

/* ---- shared between the driver's files (pso.c, pso_create.c) ---------- */

enum {
  /* Device-side best values between reads: the history's entries, and
   * the most iterations a read of ck_pso_run spans. */
  CK__PSO_HISTORY_CAPACITY = 1024
};

struct ck_pso {
  pso_state state;
  const ck__pso_steps *steps;
  ck__pso_steps merged_steps; /* native steps over the base's */
  ck_pso_config config;
  ck__problem problem;   /* objective and domain */
  uint64_t iterations;   /* moves made */
  uint32_t history_used; /* device entries not yet read */
  double *batch;         /* history_capacity: the device entries read */
  ck__history history;   /* the best after an iteration in every stride */
  double build_seconds;
  ck__pso_spread *spread; /* a spread swarm's members (pso_spread.c) */
  ck__spread_clock clock; /* a spread run's reads in ck_pso_run */
  /* Where ck_pso_run keeps its reads' times (ck__loop_rules.timeline),
   * borrowed; NULL: nowhere. */
  ck__history *timeline;
  /* Host objectives: the positions as the device holds them, row-major,
   * and their values; told: ck_pso_tell has had the initial swarm's. */
  double *host_x, *host_rows, *host_f;
  int told;
  ck__batch_host batch_host; /* a device objective's positions, off CUDA */
};

/* count reals (host doubles) into buffer from its start, in the swarm's
 * precision, through the swarm's queue (ck__reals_write). */
ck_status ck__pso_write_reals(pso_state *state, ck_buffer *buffer,
                              const double *values, size_t count);
/* The values of a swarm whose objective is not streamed with the move,
 * after `iteration` moves (the host's or the device objective's, else
 * the steps'), and the personal bests kept; nothing for a streamed one.
 * A failed objective's status names the iteration. */
ck_status ck__pso_evaluate(ck_pso *pso, uint64_t iteration);
/* The global best into the device's next history entry; the entries are
 * read into the host's history once they fill. */
ck_status ck__pso_record_best(ck_pso *pso);

extern const ck__pso_steps ck__pso_ref_steps_f32;
extern const ck__pso_steps ck__pso_ref_steps_f64;
extern const ck__pso_steps ck__pso_opencl_steps;
/* Built with CUDA only (CK__CUDA_STEPS): the native step of cl/pso.cu
 * and least squares by cl/lsq.cu, over the OpenCL steps. */
extern const ck__pso_steps ck__pso_cuda_steps;

/* The fields of ck_pso_config with their defaults and ranges
 * (pso_fields.c), the problem's first: ck_pso_config_init and the checks
 * read them, and the workload's options point into them. */
enum {
  CK__PSO_PARTICLES = CK__PROBLEM_FIELDS,
  CK__PSO_ITERATIONS,
  CK__PSO_W,
  CK__PSO_C1,
  CK__PSO_C2,
  CK__PSO_CONSTRICTION,
  CK__PSO_RING_NEIGHBOURS,
  CK__PSO_VELOCITY_INIT,
  CK__PSO_VMAX,
  CK__PSO_MOVE_MODE,
  CK__PSO_SEED,
  CK__PSO_FIELDS
};
extern const ck__field ck__pso_fields[CK__PSO_FIELDS];
/* The steps a run makes when no rule stops it. */
#define CK__PSO_DEFAULT_STEPS                                                  \
  ((uint64_t)ck__pso_fields[CK__PSO_ITERATIONS].value)

#endif /* CK_PSO_INTERNAL_H */
