/*
 * pso_internal.h - the PSO driver's state and its table of steps per
 * backend (see docs/architecture.md). The driver (pso.c) owns the loop,
 * pso_create.c makes and frees a swarm and its members, pso_spread.c is
 * its partition for the member engine; steps do one phase over a
 * member's slice.
 */
#ifndef CK_PSO_INTERNAL_H
#define CK_PSO_INTERNAL_H

#include "clkit/clkit.h"
#include "clkit/pso.h"
#include "framework/engine.h"
#include "framework/history.h"
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
  /* A member: its outbox filled (ck_pso_report_item), after
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
  /* Evaluated in the move's launch: built-ins, and a fused user's. */
  int streamed;
  /* A user objective without data, evaluated in the move's launch
   * (CK_PSO_FUSE_USER of cl/pso.cl) where a work-item moves one particle:
   * a launch and a pass over the positions fewer an iteration. */
  int fused_user;
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
  /* A member's boxes, made by pso_spread.c (NULL and 0 otherwise; the
   * slice frees them). Items are a value and dim coordinates. The outbox
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

/* ---- a swarm's members (pso_create.c, pso_spread.c) ------------------- */

enum {
  /* Device-side best values between reads: the history's entries, and
   * the most iterations a read of ck_pso_run spans. */
  CK__PSO_HISTORY_CAPACITY = 1024
};

/* A slice of a swarm on one device: a member of a run, all of the swarm
 * where the run has one member. Its physics, and its boxes. */
typedef struct pso_swarm {
  pso_state state;
  const ck__pso_steps *steps;
  ck__pso_steps merged_steps; /* native steps over the base's */
  ck_pso_config config;       /* the slice's */
  ck__problem problem;        /* objective and domain */
  uint32_t history_used;      /* device entries not yet read */
  double *batch;              /* history_capacity: the device entries read */
  /* Where its bests go, entry by entry: the run's history where it is
   * the run's one member; NULL: its entries go round, unread. */
  ck__history *history;
  double build_seconds;
  /* Host objectives: the positions as the device holds them, row-major,
   * and their values. */
  double *host_x, *host_rows, *host_f;
  ck__batch_host batch_host; /* a device objective's positions, off CUDA */
  size_t number;             /* its member number over every process */
  int inbox_new;             /* inbox_host changed: its next step writes it */
} pso_swarm;

/* A swarm: its members, through the member engine (framework/engine.h);
 * one member where it runs on one device. */
struct ck_pso {
  ck_pso_config config;       /* the run's, borrowed pointers dropped */
  const ck_pso_config *given; /* the caller's, while the members are made */
  int dim, double_precision;
  size_t real, item; /* bytes of a real, and of an item (value, position) */
  ck__engine *engine;
  pso_swarm **swarms; /* this process's members */
  size_t local;
  uint64_t iterations; /* moves made */
  ck__history history; /* the best after an iteration in every stride */
  double build_seconds;
  /* Where ck_pso_run keeps its reads' times (ck__loop_rules.timeline),
   * borrowed; NULL: nowhere. */
  ck__history *timeline;
  /* ask/tell: the initial swarm's values have been told */
  int told;
  /* Several members: the agreed best met the target (in the swarm's
   * precision), so that moves stop as a device's kernels stop them. */
  int met;
  double target;
};

/* The state of a swarm's first member, for tests that inspect every
 * particle of a swarm on one device. */
pso_state *ck__pso_state(ck_pso *pso);

/* A slice of a swarm of `total` particles: config->particles of them,
 * drawing the random streams of particles first, first + 1, ...
 * (pso_create.c). In two parts, so that a run's members agree that their
 * slices fit before any builds kernels: the settings, the memory check
 * and the buffers (*swarm NULL where it fails); then the uploads, the
 * kernels and the initial slice (a slice that fails it is the caller's to
 * destroy, with ck__pso_swarm_destroy). */
ck_status ck__pso_swarm_allocate(const ck_device *device,
                                 const ck_pso_config *config, uint32_t first,
                                 size_t total, pso_swarm **swarm);
ck_status ck__pso_swarm_set_up(pso_swarm *swarm);
void ck__pso_swarm_destroy(pso_swarm *swarm);
/* count iterations from `first`: the ring's neighbours (from its halo,
 * where it has one), the moves, the evaluations and its best, into its
 * history's entries. Queued, and read where the entries fill. */
ck_status ck__pso_advance(pso_swarm *swarm, uint64_t first, uint64_t count);
/* The entries its history has not read yet, read (nothing without one). */
ck_status ck__pso_flush_history(pso_swarm *swarm);

/* A member's slice with its boxes (pso_state), its kernels not built yet:
 * particles first .. of a swarm of `total`, with a ring halo of `before`
 * and `after` items (0 and 0: none) (pso_spread.c). The tests compare its
 * steps on ref and OpenCL through it. */
ck_status ck__pso_member_make(const ck_device *device,
                              const ck_pso_config *config, uint32_t first,
                              size_t total, uint32_t before, uint32_t after,
                              pso_swarm **made);
/* Its outbox filled (ck_pso_report) and read into outbox_host. */
ck_status ck__pso_member_post(pso_swarm *swarm);
/* The PSO's partition, for the member engine (pso_spread.c): self is the
 * ck_pso whose members it makes. */
extern const ck__engine_kind ck__pso_kind;

/* A real of the swarm's precision in host memory, as a double. */
double ck__pso_real(const ck_pso *pso, const void *at);

/* ---- shared between the driver's files (pso.c, pso_create.c) ---------- */

/* count reals (host doubles) into buffer from its start, in the swarm's
 * precision, through the swarm's queue (ck__reals_write). */
ck_status ck__pso_write_reals(pso_state *state, ck_buffer *buffer,
                              const double *values, size_t count);
/* The values of a swarm whose objective is not streamed with the move,
 * after `iteration` moves (the host's or the device objective's, else
 * the steps'), and the personal bests kept; nothing for a streamed one.
 * A failed objective's status names the iteration. */
ck_status ck__pso_evaluate(pso_swarm *swarm, uint64_t iteration);
/* The global best into the device's next history entry; the entries are
 * read into the host's history once they fill. */
ck_status ck__pso_record_best(pso_swarm *swarm);

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
