/*
 * clkit/ga.h - an island-model, real-coded genetic algorithm on any
 * device.
 *
 * Islands of individuals evolve apart, one generation at a time
 * (tournament selection, crossover, mutation, elitism); every few
 * generations the best of each island replace the worst of the next. The
 * objectives are those of PSO: built-in functions, least squares over data,
 * or a user objective in OpenCL C. The population stays on the device.
 *
 *   ck_ga_config config;
 *   ck_ga_config_init(&config);            defaults, then adjust
 *   ck_ga *ga;
 *   ck_ga_create(device, &config, &ga);    allocates and initialises
 *     (or ck_ga_create_spread(&spread, &config, &ga) over several devices)
 *   ck_ga_run(ga, &report);                until a stopping rule, or
 *   ck_ga_step(ga, 50);                    step-wise
 *   ck_ga_get_best(ga, &value, position);
 *   ck_ga_destroy(ga);
 */
#ifndef CLKIT_GA_H
#define CLKIT_GA_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/device.h"
#include "clkit/lsq.h"
#include "clkit/pso.h"
#include "clkit/status.h"
#include "clkit/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ck_ga_crossover {
  CK_GA_ARITHMETIC = 0, /* w a + (1 - w) b, one random w a child */
  CK_GA_BLX = 1,        /* uniform in the parents' interval widened by alpha */
  CK_GA_SBX = 2         /* simulated binary crossover with index eta */
} ck_ga_crossover;

typedef enum ck_ga_mutation {
  CK_GA_GAUSSIAN = 0,  /* + sigma (hi - lo) N(0, 1) */
  CK_GA_POLYNOMIAL = 1 /* Deb's polynomial mutation with index eta */
} ck_ga_mutation;

/* How OpenCL devices make a generation's children. */
typedef enum ck_ga_generation_mode {
  CK_GA_GENERATION_AUTO = 0,  /* vector on CPUs and other non-GPU devices
                                 where the island allows it, else child */
  CK_GA_GENERATION_CHILD = 1, /* a work-item a child */
  CK_GA_GENERATION_VECTOR = 2 /* a work-item 16 children (8 in double
                                 precision), for islands held in local
                                 memory whose size is that times a power
                                 of two; child elsewhere */
} ck_ga_generation_mode;

typedef enum ck_ga_topology {
  CK_GA_RING = 0,  /* island i sends to island i + 1 */
  CK_GA_RANDOM = 1 /* islands in a fresh random cycle at each migration */
} ck_ga_topology;

/* The limits of ck_ga_config's sizes. */
#define CK_GA_ISLANDS_MAX (1 << 20)
#define CK_GA_ISLAND_SIZE_MAX 4096

typedef struct ck_ga_config {
  /* The objective, as in ck_pso_config. */
  const char *function;
  const char *objective_source;
  const char *objective_name;
  const ck_lsq_data *data;
  int dim;               /* lsq: the data's dim, whatever this says */
  const double *lo, *hi; /* dim entries each, or NULL for the usual domain */
  size_t islands;        /* 1 .. 2^20 */
  size_t island_size;    /* 2 .. 4096, any value */
  int elite;             /* best kept unchanged per island, 0 .. size - 1 */
  int tournament;        /* 1 .. island size */
  double crossover_rate; /* pc in [0, 1] */
  ck_ga_crossover crossover;
  double crossover_parameter; /* BLX alpha >= 0, SBX eta >= 0 */
  double mutation_rate;       /* pm in [0, 1]; negative: 1 / dim */
  ck_ga_mutation mutation;
  double mutation_parameter; /* gaussian sigma > 0 (of hi - lo), poly eta */
  ck_bounds_mode bounds;
  unsigned migrate_every; /* generations between migrations; 0: never */
  unsigned migrants;      /* per island, below the island size when
                             migrate_every > 0 */
  ck_ga_topology topology;
  int double_precision;
  ck_pso_lsq_mode lsq_mode;
  ck_ga_generation_mode generation_mode; /* OpenCL only; CUDA and ref
                                            ignore it */
  uint64_t seed;
  /* Stopping, whichever comes first; 0 disables a rule (generations
   * takes its default when every rule is off). max_evaluations counts
   * initialisation's, one an individual, so a budget that is set must be
   * at least islands x island_size; then each generation's children (the
   * elites, which keep their fitness, not counted with built-in
   * objectives; lsq and user objectives evaluate the elites again). */
  uint64_t max_generations;
  uint64_t max_evaluations;
  int has_target;
  double target;
  double max_seconds;
  unsigned check_every;    /* generations between host reads; 0: automatic */
  int keep_island_history; /* 1: keep best and mean per island too */
  ck_progress_fn progress;
  void *progress_user;
  /* A host objective, as in ck_pso_config, over a generation's
   * individuals (islands x island_size, island by island): evaluate,
   * called with evaluate_user for generation 0 and after each generation;
   * or ask_tell = 1, for a GA that the caller drives with ck_ga_ask and
   * ck_ga_tell. A spread GA takes neither. */
  ck_objective_fn evaluate;
  void *evaluate_user;
  int ask_tell;
  /* Or an objective that takes the individuals where the device keeps
   * them (called with evaluate_user as evaluate is), as the PSO's
   * evaluate_device does. */
  ck_device_objective_fn evaluate_device;
  /* 1: evaluate_device is called with positions ready in stream order,
   * not complete (ck_device_batch), and may return its values while the
   * device still works on them: on a CUDA device the run need not wait
   * on the host for each batch. 0: the positions are complete. */
  int evaluate_device_ordered;
} ck_ga_config;

typedef struct ck_ga_report {
  double best;
  uint64_t generations;
  uint64_t evaluations;       /* initial population included; elites
                                 not re-evaluated are not counted */
  uint64_t target_generation; /* first generation at or below target */
  ck_stop stopped_by;         /* CK_STOP_STEPS: generations ran out */
  double wall_s, kernel_s, build_s;
  double evaluations_per_s;
  double genes_per_s; /* individuals x islands x genes x generations / s */
  unsigned children_per_work_item; /* in a generation: 16 or 8 in the
                                      vector form, 1 elsewhere */
} ck_ga_report;

typedef struct ck_ga ck_ga;

/* ck_ga_config_init - every field at its default: the one `clkit run ga
 * --help` shows for the option that sets it, seed 1.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if config is NULL. */
ck_status ck_ga_config_init(ck_ga_config *config);

/*
 * ck_ga_config_read - a configuration from options of `clkit run ga`
 * (name/value pairs, as ck_workload_run() takes them), read and checked
 * as the command reads them: the GA's settings (islands, island-size,
 * elite, tournament, pc, crossover, pm, mutation, migrate-every,
 * migrants, topology, generation-mode) and the problem's (fn, dim,
 * bounds, precision, lsq-mode). Every other field is at its default
 * (ck_ga_config_init), seed 1; the domain is the caller's to set (lo,
 * hi).
 * Takes: params (count pairs); config (filled in; its function points
 * into params, which must outlive its use).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL config, a value or
 * a combination the command refuses, or an option of a run rather than
 * of the GA (stopping rules, files, lo and hi, outputs and
 * trace-islands), with the command's message; config is then unchanged.
 */
ck_status ck_ga_config_read(const ck_param *params, size_t count,
                            ck_ga_config *config);

/*
 * ck_ga_create - check the configuration, build the kernels, allocate the
 * population on the device and draw generation 0.
 * Takes: device, config (not kept, except config->data, which must
 * outlive the GA, and progress_user, which ck_ga_run() passes to
 * progress), ga (set; release with ck_ga_destroy()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or naming
 * the bad setting (island size < 2, migrants >= island size with
 * migrations, pc or pm outside [0, 1], tournament larger than the island,
 * ...); CK_ERROR_PARSE for a user objective that defines no objective();
 * CK_ERROR_BUILD; CK_ERROR_UNSUPPORTED for a user objective on ref;
 * the status of a host objective (evaluate) that failed;
 * CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_ga_create(const ck_device *device, const ck_ga_config *config,
                       ck_ga **ga);

/*
 * ck_ga_create_spread - ck_ga_create over several devices, and over the
 * processes of an MPI communicator (clkit/spread.h): each member evolves
 * a contiguous slice of the islands, and at each migration the migrants
 * that cross a member's boundary go from member to member. With the same
 * configuration and seed the GA is the one-device GA, bit for bit, on
 * devices that compute alike: its best, genes and history. Every process
 * of the communicator makes the same calls on the GA, which then behaves
 * as any other (ck_ga_run, ck_ga_step, ck_ga_get_best, ck_ga_get_history);
 * the clock and the reads of a run are agreed, so all stop together.
 * Members may share a device (one given twice), each with a queue and
 * memory of its own there.
 * Takes: spread (read during the call); config and ga as ck_ga_create.
 * Returns: as ck_ga_create, naming the failed member's device (and rank);
 * CK_ERROR_INVALID_ARGUMENT for fewer islands than members;
 * CK_ERROR_UNSUPPORTED for a host objective; CK_ERROR_EXCHANGE when the
 * processes cannot exchange.
 */
ck_status ck_ga_create_spread(const ck_spread *spread,
                              const ck_ga_config *config, ck_ga **ga);

/* ck_ga_step - evolve `generations` generations, migrating on schedule
 * (no stopping rules). It returns once they are made: a step ends reading
 * their statistics into the history, and the best.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL GA or an ask/tell
 * GA; the status of a host objective that failed; CK_ERROR_OUT_OF_MEMORY
 * for the history; device errors. */
ck_status ck_ga_step(ck_ga *ga, uint64_t generations);

/* ck_ga_run - evolve until a stopping rule holds; fills report.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument;
 * CK_ERROR_CANCELLED when the progress callback asked to stop;
 * CK_ERROR_OUT_OF_MEMORY for the history; device errors. */
ck_status ck_ga_run(ck_ga *ga, ck_ga_report *report);

/* ck_ga_get_best - the best value found, if value is not NULL, and, if
 * position is not NULL, its genes: config.dim entries, or for lsq the
 * data's dim (config.dim is not read then), read from the device.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL GA; device
 * errors. */
ck_status ck_ga_get_best(ck_ga *ga, double *value, double *position);

/*
 * ck_ga_ask - the individuals that an ask/tell GA (config.ask_tell) waits
 * to have evaluated: generation 0, then each next generation. The calls
 * go create, ask, tell, ask, tell, ...; asking again before telling gives
 * the same individuals, and ck_ga_get_best may come at any time.
 * Takes: x (set: islands x island_size individuals of dim genes,
 * row-major, island by island: individual i's gene d at x[i * dim + d]).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or a GA
 * not made for ask/tell; CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_ga_ask(ck_ga *ga, double *x);

/*
 * ck_ga_tell - the values of the individuals that ck_ga_ask gave, in their
 * order (a NaN counts as the largest value): records the generation's
 * statistics, migrates where the schedule says, keeps the best, then
 * evolves the next generation, which the next ask gives.
 * Takes: f (read: islands x island_size values).
 * Returns: as ck_ga_ask.
 */
ck_status ck_ga_tell(ck_ga *ga, const double *f);

/* The state of an ask/tell GA: what ck_ga_get_state reads and
 * ck_ga_set_state restores. The arrays are the caller's, row-major:
 * individuals (islands x island_size) x dim genes, as ck_ga_ask gives
 * them; individuals values; islands x dim genes (island i's gene d at
 * [i * dim + d]); islands values; or dim genes. Values are as the GA
 * compares them: a NaN told is the largest real of the GA's precision,
 * and so is a best not found yet, whose genes read as 0. */
typedef struct ck_ga_state {
  double *population;        /* what ck_ga_ask gives next */
  double *fitness;           /* individuals: the population's values until told,
                                an elite's carried over, the largest real for a
                                child */
  double *island_best;       /* islands: each island's best value told */
  double *island_best_genes; /* islands x dim: their genes */
  double *best_genes;        /* dim: the best told */
  double best_value;
  uint64_t tells;      /* ck_ga_tell calls so far: the generation that
                          ck_ga_ask gives next */
  uint64_t migrations; /* made so far, which a random topology's cycles
                          count */
  uint64_t seed;       /* of the random streams, which count the
                          generations */
} ck_ga_state;

/*
 * ck_ga_get_state - an ask/tell GA's state, read from the device,
 * between any two calls.
 * Takes: state (its arrays set; tells and the rest filled in).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or array,
 * or a GA not made for ask/tell; device errors.
 */
ck_status ck_ga_get_state(ck_ga *ga, ck_ga_state *state);

/*
 * ck_ga_set_state - an ask/tell GA put in a state that ck_ga_get_state
 * read, from this GA or another of the same configuration: its later
 * asks and bests are those of the GA it came from, bit for bit on devices
 * that compute alike, migrations included. The history is not part of
 * the state: it runs on.
 * Takes: state (read; its seed must be the GA's, whose kernels hold it:
 * make the GA with config.seed = state->seed).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or array,
 * a GA not made for ask/tell, another seed, a gene of the population or
 * of a best that is not finite, a fitness or best value that is no real
 * of the GA's precision, or bests that no tells make: best_value not the
 * least of island_best, best_genes not the genes of an island holding
 * it, or a value told while tells is 0 (the GA is then unchanged);
 * device errors (the GA may then hold part of the state).
 */
ck_status ck_ga_set_state(ck_ga *ga, const ck_ga_state *state);

/*
 * ck_ga_ask_device, ck_ga_tell_device - ck_ga_ask and ck_ga_tell with the
 * individuals where the device keeps them, as ck_pso_ask_device and
 * ck_pso_tell_device hand out a swarm's positions.
 * Takes: batch (ask: set; tell: read).
 * Returns: as ck_ga_ask; CK_ERROR_INVALID_ARGUMENT for values of another
 * size or count, or in device memory of a device other than CUDA.
 */
ck_status ck_ga_ask_device(ck_ga *ga, ck_device_batch *batch);
ck_status ck_ga_tell_device(ck_ga *ga, const ck_device_batch *batch);

/*
 * ck_ga_get_history - best and mean fitness of the whole population, entry
 * i after generation i x stride (ck_ga_get_history_stride; entry 0:
 * generation 0), count entries each; with keep_island_history, island_best
 * and island_mean hold count x islands entries (generation-major; NULL
 * without it). The stride is 1, an entry a generation, until the history
 * reaches its bound (64 MiB for all four arrays, and at least 64 entries);
 * then every other entry is dropped and the stride doubles, as often as
 * needed. Arrays are owned by the GA and valid until its next call; NULL
 * pointers skip an array (count is required).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL GA or count;
 * CK_ERROR_OUT_OF_MEMORY; device errors (it reads the latest entries).
 */
ck_status ck_ga_get_history(ck_ga *ga, const double **best, const double **mean,
                            const double **island_best,
                            const double **island_mean, size_t *count);

/* ck_ga_get_history_stride - the generations between the entries that
 * ck_ga_get_history returned last (call it after that; the history may
 * thin out at any call that evolves or reads the GA).
 * Takes: stride (set; 1 until the history reaches its bound).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_ga_get_history_stride(ck_ga *ga, uint64_t *stride);

/* ck_ga_destroy - release a GA and its queue. NULL is a no-op.
 * Returns: CK_OK. */
ck_status ck_ga_destroy(ck_ga *ga);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_GA_H */
