/*
 * clkit/pso.h - particle swarm optimisation on any device.
 *
 * Synchronous PSO with inertia weight (or the constriction form), a gbest
 * or lbest-ring topology and three boundary modes, minimising a built-in
 * objective, least squares over a data set, a user objective written in
 * OpenCL C, or a host objective: a C callback, or values the caller gives
 * through ck_pso_ask and ck_pso_tell. The swarm lives on the device for
 * the whole run.
 *
 *   ck_pso_config config;
 *   ck_pso_config_init(&config);             defaults, then adjust
 *   config.function = "rastrigin"; config.dim = 30;
 *   ck_pso *pso;
 *   ck_pso_create(device, &config, &pso);    allocates, initialises
 *   ck_pso_run(pso, &report);                until a stopping rule, or
 *   ck_pso_step(pso, 100);                   step-wise, then
 *   ck_pso_get_best(pso, &value, position);
 *   ck_pso_destroy(pso);
 */
#ifndef CLKIT_PSO_H
#define CLKIT_PSO_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/device.h"
#include "clkit/lsq.h"
#include "clkit/objectives.h"
#include "clkit/spread.h"
#include "clkit/status.h"
#include "clkit/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ck_bounds_mode {
  CK_BOUNDS_MODE_CLAMP = 0,   /* onto the bound; velocity zeroed */
  CK_BOUNDS_MODE_REFLECT = 1, /* mirrored at the bound; velocity reversed */
  CK_BOUNDS_MODE_RANDOM = 2   /* redrawn uniformly; velocity zeroed */
} ck_bounds_mode;

/* How lsq is evaluated on OpenCL devices (ref has one way; CUDA devices
 * take thread mode for vector). Thread and vector modes give the same
 * bits as ref; group mode sums in another order. */
typedef enum ck_pso_lsq_mode {
  CK_PSO_LSQ_AUTO = 0,   /* vector on CPUs and other non-GPU devices; on
                            GPUs group when particles are few, else thread */
  CK_PSO_LSQ_GROUP = 1,  /* a work-group per particle, reducing over rows */
  CK_PSO_LSQ_THREAD = 2, /* a work-item per particle */
  CK_PSO_LSQ_VECTOR = 3  /* a work-item per 16 particles (8 in double
                            precision), one a vector lane */
} ck_pso_lsq_mode;

/* How an OpenCL device moves the swarm (ref and CUDA devices have one way
 * each, and take the others' mode as given). Both forms give the same
 * bits. */
typedef enum ck_pso_move_mode {
  CK_PSO_MOVE_AUTO = 0,     /* vector on CPUs and other non-GPU devices,
                               else particle */
  CK_PSO_MOVE_PARTICLE = 1, /* a work-item per particle */
  CK_PSO_MOVE_VECTOR = 2    /* a work-item per 16 particles (8 in double
                               precision), one a vector lane */
} ck_pso_move_mode;

typedef struct ck_pso_config {
  /* The objective: a built-in name (see clkit/objectives.h), "lsq" with
   * data, or NULL with objective_source, evaluate or ask_tell. */
  const char *function;
  const char *objective_source; /* OpenCL C defining objective() */
  const char *objective_name;   /* its file name, for error messages */
  const ck_lsq_data *data;      /* lsq rows; or a user objective's data */
  int dim;                      /* 1 .. 100000 (lsq: the data's dim) */
  size_t particles;             /* 1 .. 2^31 */
  /* Domain: dim entries each, or NULL for the objective's usual domain
   * (user objectives must give them). Copied by ck_pso_create(). */
  const double *lo, *hi;
  double w, c1, c2;     /* inertia form: v <- w v + c1 r1 .. + c2 r2 .. */
  int constriction;     /* 1: chi (v + c1 r1 .. + c2 r2 ..), c1 + c2 > 4 */
  int ring_neighbours;  /* 0: gbest; k >= 2: lbest ring of k particles */
  double velocity_init; /* initial |v| up to this times (hi - lo) */
  double vmax;          /* |v| clamped to this times (hi - lo) */
  ck_bounds_mode bounds;
  int double_precision; /* 1: double, on devices with fp64 */
  ck_pso_lsq_mode lsq_mode;
  ck_pso_move_mode move_mode;
  uint64_t seed;
  /* Stopping, whichever comes first; 0 disables a rule (iterations
   * takes its default when every rule is off). max_evaluations counts
   * initialisation's, one a particle, so a budget that is set must be at
   * least `particles`. */
  uint64_t max_iterations;
  uint64_t max_evaluations;
  int has_target;
  double target; /* stop once best <= target */
  double max_seconds;
  /* The host reads the best value every check_every iterations (0: chosen
   * to keep reads to about twenty a second). */
  unsigned check_every;
  ck_progress_fn progress; /* optional, called at each check */
  void *progress_user;
  /* A host objective, with function NULL and a domain (lo, hi): evaluate,
   * called with evaluate_user for the whole swarm after initialisation
   * and after each move; or ask_tell = 1, for a swarm that the caller
   * drives with ck_pso_ask and ck_pso_tell. A spread swarm takes
   * neither. */
  ck_objective_fn evaluate;
  void *evaluate_user;
  int ask_tell;
  /* Or an objective that takes the positions where the device keeps
   * them (called with evaluate_user as evaluate is): on a CUDA device
   * they stay there; elsewhere a copy in page-locked host memory. */
  ck_device_objective_fn evaluate_device;
  /* 1: evaluate_device is called with positions ready in stream order,
   * not complete (ck_device_batch), and may return its values while the
   * device still works on them: on a CUDA device the run need not wait
   * on the host for each batch. 0: the positions are complete. */
  int evaluate_device_ordered;
} ck_pso_config;

typedef struct ck_pso_report {
  double best;
  uint64_t iterations;       /* moves made (initialisation not counted) */
  uint64_t evaluations;      /* objective evaluations, initialisation too */
  uint64_t target_iteration; /* first iteration at or below target, or 0 */
  ck_stop stopped_by;        /* CK_STOP_STEPS: iterations ran out */
  double wall_s;             /* run time, program builds excluded */
  double kernel_s;           /* device time of the kernels */
  double build_s;            /* program builds */
  double evaluations_per_s;
  double updates_per_s; /* particle-dimension updates per second */
} ck_pso_report;

typedef struct ck_pso ck_pso;

/* ck_pso_config_init - every field at its default: the one `clkit run pso
 * --help` shows for the option that sets it, seed 1.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if config is NULL. */
ck_status ck_pso_config_init(ck_pso_config *config);

/*
 * ck_pso_config_read - a configuration from options of `clkit run pso`
 * (name/value pairs, as ck_workload_run() takes them), read and checked
 * as the command reads them: the swarm's settings (particles, w, c1, c2,
 * constriction, topology, vinit, vmax, move-mode) and the problem's (fn,
 * dim, bounds, precision, lsq-mode). Every other field is at its default
 * (ck_pso_config_init), seed 1; the domain is the caller's to set (lo,
 * hi).
 * Takes: params (count pairs); config (filled in; its function points
 * into params, which must outlive its use).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL config, a value or
 * a combination the command refuses, or an option of a run rather than
 * of the swarm (stopping rules, files, lo and hi, outputs), with the
 * command's message; config is then unchanged.
 */
ck_status ck_pso_config_read(const ck_param *params, size_t count,
                             ck_pso_config *config);

/*
 * ck_pso_create - check the configuration, build the kernels, allocate the
 * swarm on the device and initialise it (positions, velocities, personal
 * and global bests).
 * Takes: device; config (read, not kept: strings and arrays may be freed
 * after the call, except config->data, which must outlive the swarm, and
 * progress_user, which ck_pso_run() passes to progress); pso (set;
 * destroy with ck_pso_destroy()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or naming
 * the bad setting; CK_ERROR_PARSE for a user objective that defines no
 * objective(); CK_ERROR_BUILD for one that does not compile (the message
 * names its file and line); CK_ERROR_UNSUPPORTED for a user objective on
 * ref; the status of a host objective (evaluate) that failed;
 * CK_ERROR_DEVICE_MEMORY for a swarm past the device's memory;
 * CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_pso_create(const ck_device *device, const ck_pso_config *config,
                        ck_pso **pso);

/*
 * ck_pso_create_spread - ck_pso_create over several devices, and over the
 * processes of an MPI communicator (clkit/spread.h): each member moves a
 * slice of the particles, and after every iteration the members agree on
 * the global best (under a ring, each also takes its neighbours' end
 * particles' personal bests). With the same configuration and seed the
 * swarm is the one-device swarm, bit for bit, on devices that compute
 * alike. Every process of the communicator makes the same calls on the
 * swarm, which then behaves as any other (ck_pso_run, ck_pso_step,
 * ck_pso_get_best).
 * Takes: spread (read during the call); config and pso as ck_pso_create.
 * Returns: as ck_pso_create, naming the failed member's device (and
 * rank); CK_ERROR_UNSUPPORTED for a host objective;
 * CK_ERROR_INVALID_ARGUMENT for fewer particles than members;
 * CK_ERROR_EXCHANGE when the processes cannot exchange.
 */
ck_status ck_pso_create_spread(const ck_spread *spread,
                               const ck_pso_config *config, ck_pso **pso);

/*
 * ck_pso_step - make `iterations` synchronous moves (no stopping rules;
 * with has_target, moves after the best reaches the target leave the
 * swarm as it is).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL swarm or an
 * ask/tell swarm; the status of a host objective that failed;
 * CK_ERROR_OUT_OF_MEMORY for the history; device errors.
 */
ck_status ck_pso_step(ck_pso *pso, uint64_t iterations);

/*
 * ck_pso_run - move until a stopping rule of the configuration holds.
 * Takes: report (filled in). Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT
 * for a NULL argument; CK_ERROR_CANCELLED when the progress callback asked
 * to stop; CK_ERROR_INVALID_ARGUMENT for an ask/tell swarm; the status
 * of a host objective that failed; CK_ERROR_OUT_OF_MEMORY for the
 * history; device errors.
 */
ck_status ck_pso_run(ck_pso *pso, ck_pso_report *report);

/*
 * ck_pso_ask - the positions that an ask/tell swarm (config.ask_tell)
 * waits to have evaluated: the initial swarm, then each move's. The calls
 * go create, ask, tell, ask, tell, ...; asking again before telling gives
 * the same positions, and ck_pso_get_best may come at any time.
 * Takes: x (set: particles x dim values, row-major, position i's
 * coordinate d at x[i * dim + d]).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or a swarm
 * not made for ask/tell; CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_pso_ask(ck_pso *pso, double *x);

/*
 * ck_pso_tell - the values of the positions that ck_pso_ask gave, in their
 * order (a NaN counts as the largest value): keeps the personal and global
 * bests, then makes the next move, whose positions the next ask gives.
 * The moves told count as iterations in the history.
 * Takes: f (read: particles values).
 * Returns: as ck_pso_ask.
 */
ck_status ck_pso_tell(ck_pso *pso, const double *f);

/*
 * ck_pso_ask_device, ck_pso_tell_device - ck_pso_ask and ck_pso_tell with
 * the positions where the device keeps them (ck_device_batch): ask sets
 * batch's given fields (x, count, dim, stride, real_size, ordinal,
 * stream, x_on_host), the positions complete, valid until the next
 * tell; tell takes
 * the values that batch's own fields name (values, value_size,
 * value_stride, values_on_host), as a device objective sets them.
 * Takes: batch (ask: set; tell: read).
 * Returns: as ck_pso_ask; CK_ERROR_INVALID_ARGUMENT for values of another
 * size or count, or in device memory of a device other than CUDA.
 */
ck_status ck_pso_ask_device(ck_pso *pso, ck_device_batch *batch);
ck_status ck_pso_tell_device(ck_pso *pso, const ck_device_batch *batch);
/* The state of an ask/tell swarm: what ck_pso_get_state reads and
 * ck_pso_set_state restores. The arrays are the caller's: particles x dim
 * values, row-major (particle i's coordinate d at [i * dim + d]), or
 * particles values, or dim. Values are as the swarm compares them: a NaN
 * told is the largest real of the swarm's precision, and so is the value
 * of a particle not yet told. */
typedef struct ck_pso_state {
  double *positions;      /* what ck_pso_ask gives next */
  double *velocities;     /* the last move's */
  double *best_positions; /* each particle's best position told */
  double *best_values;    /* particles: their values */
  double *global_best;    /* dim: the best position told */
  double global_best_value;
  uint64_t tells; /* ck_pso_tell calls so far: 0 for the initial swarm */
  uint64_t seed;  /* of the random streams, which count the moves */
} ck_pso_state;

/*
 * ck_pso_get_state - an ask/tell swarm's state, read from the device,
 * between any two calls.
 * Takes: state (its arrays set; tells and the rest filled in).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or array,
 * or a swarm not made for ask/tell; device errors.
 */
ck_status ck_pso_get_state(ck_pso *pso, ck_pso_state *state);

/*
 * ck_pso_set_state - an ask/tell swarm put in a state that
 * ck_pso_get_state read, from this swarm or another of the same
 * configuration: its later asks are those of the swarm it came from, bit
 * for bit on devices that compute alike. The history is not part of the
 * state: it runs on.
 * Takes: state (read; its seed must be the swarm's, whose kernels hold
 * it: make the swarm with config.seed = state->seed).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or array,
 * a swarm not made for ask/tell, another seed, a position, velocity or
 * best position that is not finite, a best value that is no real of the
 * swarm's precision, or bests that no tells make: global_best_value not
 * the least of best_values, global_best not the best position of a
 * particle holding it, or a value told while tells is 0 (the swarm is
 * then unchanged); device errors (the swarm may then hold part of the
 * state).
 */
ck_status ck_pso_set_state(ck_pso *pso, const ck_pso_state *state);

/* ck_pso_get_best - the best value so far, if value is not NULL, and, if
 * position is not NULL, its position: config.dim entries, or for lsq the
 * data's dim (config.dim is not read then), read from the device.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL swarm; device
 * errors. */
ck_status ck_pso_get_best(ck_pso *pso, double *value, double *position);

/*
 * ck_pso_get_history - the best value so far, entry i after iteration
 * i x stride (ck_pso_get_history_stride; entry 0: after initialisation).
 * The stride is 1, an entry an iteration, until the history reaches its
 * bound (64 MiB, about 8 million entries); then every other entry is
 * dropped and the stride doubles, as often as needed, so that a long run
 * keeps at most that many. The array is owned by the swarm and valid until
 * its next call.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument;
 * CK_ERROR_OUT_OF_MEMORY; device errors (it reads the latest entries).
 */
ck_status ck_pso_get_history(ck_pso *pso, const double **values, size_t *count);

/* ck_pso_get_history_stride - the iterations between the entries that
 * ck_pso_get_history returned last (call it after that; the history may
 * thin out at any call that moves or reads the swarm).
 * Takes: stride (set; 1 until the history reaches its bound).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_pso_get_history_stride(ck_pso *pso, uint64_t *stride);

/* ck_pso_destroy - release a swarm and its queue. NULL is a no-op.
 * Returns: CK_OK. */
ck_status ck_pso_destroy(ck_pso *pso);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_PSO_H */
