/*
 * problem.h - what the optimisers (PSO, GA) share about their problem:
 * the objective (built in, lsq over data, or user OpenCL C), its domain,
 * the checks of both, moving its data to the device and evaluating it
 * there, and the options that set it.
 */
#ifndef CK_PROBLEM_H
#define CK_PROBLEM_H

#include "clkit/clkit.h"
#include "framework/framework.h"

enum { CK__MAX_DIM = 100000, CK__MAX_USER_DIM = 4096 };

typedef struct ck__problem_spec {
  const char *function; /* built-in name, or NULL with source */
  const char *source;   /* user OpenCL C */
  const char *source_name;
  const ck_lsq_data *data;
  int dim;
  const double *lo, *hi; /* dim entries, or NULL */
  int double_precision;
  int has_target;
  double target;
  double max_seconds;
  /* Messages name the config's fields: "ck_pso_config.dim"; fields is
   * its table, which begins with the problem's (CK__PROBLEM_FIELDS). */
  const char *config;
  const ck__field *fields;
  /* 1: the caller evaluates on the host (no function, source or data) */
  int host;
} ck__problem_spec;

/* The problem's fields of ck_pso_config and ck_ga_config, which name them
 * alike, first in each table (pso_fields.c, ga_fields.c). */
enum {
  CK__PROBLEM_FUNCTION,
  CK__PROBLEM_DIM,
  CK__PROBLEM_EVALUATIONS,
  CK__PROBLEM_TARGET,
  CK__PROBLEM_TIME,
  CK__PROBLEM_BOUNDS,
  CK__PROBLEM_PRECISION,
  CK__PROBLEM_LSQ_MODE,
  CK__PROBLEM_CHECK_EVERY,
  CK__PROBLEM_FIELDS
};
extern const ck__field_word ck__bounds_words[], ck__precision_words[],
    ck__lsq_mode_words[], ck__automatic_words[];

/* The entries of those fields in a table of struct `config`. */
#define CK__PROBLEM_FIELDS_OF(config, default_dim)                             \
  [CK__PROBLEM_FUNCTION] =                                                     \
      {CK__FIELD_OF(config, function, CK__FIELD_TEXT, 0, 0, 0),                \
       .text =                                                                 \
           "sphere"}, /* ck__problem_init checks it, lsq's from the data. */   \
      [CK__PROBLEM_DIM] =                                                      \
          {CK__FIELD_OF(config, dim, CK__FIELD_INT, default_dim, 1,            \
                        CK__MAX_DIM),                                          \
           .flags = CK__FIELD_APART}, /* Any count, 0 for none, where no       \
                                         option gives one. */                  \
      [CK__PROBLEM_EVALUATIONS] = {CK__FIELD_OF(config, max_evaluations,       \
                                                CK__FIELD_UINT64, 0, 1, 1e18), \
                                   .flags =                                    \
                                       CK__FIELD_APART | CK__FIELD_UNSET},     \
  [CK__PROBLEM_TARGET] =                                                       \
      {CK__FIELD_OF(config, target, CK__FIELD_REAL, 0, -DBL_MAX, DBL_MAX),     \
       .flags =                                                                \
           CK__FIELD_APART}, /* ck__problem_init checks it and the target. */  \
      [CK__PROBLEM_TIME] = {CK__FIELD_OF(config, max_seconds, CK__FIELD_REAL,  \
                                         0, 0, 1e9),                           \
                            .flags = CK__FIELD_APART},                         \
  [CK__PROBLEM_BOUNDS] = {CK__FIELD_ENUM(                                      \
      config, bounds, CK_BOUNDS_MODE_CLAMP,                                    \
      ck__bounds_words)}, /* Any nonzero value is double precision. */         \
      [CK__PROBLEM_PRECISION] = {CK__FIELD_ENUM(config, double_precision, 0,   \
                                                ck__precision_words),          \
                                 .flags = CK__FIELD_APART},                    \
  [CK__PROBLEM_LSQ_MODE] = {CK__FIELD_ENUM(config, lsq_mode, CK_PSO_LSQ_AUTO,  \
                                           ck__lsq_mode_words)},               \
  [CK__PROBLEM_CHECK_EVERY] = {                                                \
      CK__FIELD_OF(config, check_every, CK__FIELD_UINT, 0, 1, 1024),           \
      .words = ck__automatic_words}

typedef struct ck__problem {
  const ck_objective_info *info; /* NULL for user objectives */
  int objective;                 /* CK_OBJECTIVE_* */
  int streamed;
  int dim;
  double *lo, *hi;               /* owned, dim entries */
  char *user_source, *user_name; /* owned copies */
  int user_has_data;
  const ck_lsq_data *data; /* borrowed */
  int double_precision;
  size_t real_size;
} ck__problem;

/*
 * ck_pso_config and ck_ga_config name their problem fields alike; these
 * move them to and from the shared forms, whichever the optimiser.
 *   CK__PROBLEM_SPEC(c): the spec of a configuration;
 *   CK__PROBLEM_KEEP(c, problem): drop the borrowed strings and arrays of
 *     a kept copy of a configuration (the problem owns its copies);
 *   CK__PROBLEM_FROM_JOB(c, job, options): parsed options into c, with
 *     the run options' host or device objective.
 */
#define CK__PROBLEM_SPEC(c, name, table)                                       \
  ((ck__problem_spec){(c)->function, (c)->objective_source,                    \
                      (c)->objective_name, (c)->data, (c)->dim, (c)->lo,       \
                      (c)->hi, (c)->double_precision, (c)->has_target,         \
                      (c)->target, (c)->max_seconds, (name), (table), 0})

#define CK__PROBLEM_KEEP(c, problem)                                           \
  do {                                                                         \
    (c)->function = (c)->objective_source = (c)->objective_name = NULL;        \
    (c)->lo = (c)->hi = NULL;                                                  \
    (c)->dim = (problem)->dim;                                                 \
  } while (0)

#define CK__PROBLEM_FROM_JOB(c, job, options)                                  \
  do {                                                                         \
    (c)->function = (job)->spec.function;                                      \
    (c)->objective_source = (job)->spec.source;                                \
    (c)->objective_name = (job)->spec.source_name;                             \
    (c)->data = (job)->spec.data;                                              \
    (c)->dim = (job)->spec.dim;                                                \
    (c)->lo = (job)->spec.lo;                                                  \
    (c)->hi = (job)->spec.hi;                                                  \
    if (options) {                                                             \
      (c)->seed = (options)->seed;                                             \
      (c)->progress = (options)->progress;                                     \
      (c)->progress_user = (options)->progress_user;                           \
      (c)->evaluate = (options)->objective;                                    \
      (c)->evaluate_user = (options)->objective_user;                          \
      (c)->evaluate_device = (options)->device_objective;                      \
      (c)->evaluate_device_ordered = (options)->device_objective_ordered;      \
    }                                                                          \
  } while (0)

/* CK_OK, or CK_ERROR_INVALID_ARGUMENT naming config's data when data is
 * given to a built-in objective (info) other than lsq, which takes none;
 * for ck__problem_init and for the option parser, which asks before it
 * reads the file. */
ck_status ck__problem_data_check(const char *config,
                                 const ck_objective_info *info, int has_data);

/* Checks a spec (the messages name the config's fields) and fills problem;
 * release it with ck__problem_free(). */
ck_status ck__problem_init(ck__problem *problem, const ck_device *device,
                           const ck__problem_spec *spec);
void ck__problem_free(ck__problem *problem);

/* The problem's data on the device: lsq column-major in its precision,
 * a user objective's rows as floats; a placeholder when there is none. */
ck_status ck__problem_upload(const ck__problem *problem, ck_queue *queue,
                             ck_buffer **buffer);

/* Reduction work-group size for a device: a power of two up to 256. */
uint32_t ck__group_size(const ck_device *device);

/* How lsq is evaluated on a device. */
typedef struct ck__lsq_plan {
  int group_mode;  /* 1: work-groups over row ranges, then a sum a point */
  uint32_t chunks; /* group mode: row ranges (work-groups) a point */
  uint32_t lanes;  /* else: points a work-item (1: thread mode; more:
                      vector mode, CK_LSQ_LANES of the program) */
  uint32_t local;  /* else: work-group size of the launch */
} ck__lsq_plan;

/* The work-group size, at most `group`, for `items` work-items of a
 * vector form (a work-item a vector of points): halved until every
 * compute unit of device has a work-group. */
uint32_t ck__vector_group(const ck_device *device, size_t items,
                          uint32_t group);

/* The plan for `points` points over `rows` rows in the given mode (auto
 * chooses by device and count); `group` is the reduction work-group size
 * of the program. */
ck__lsq_plan ck__lsq_plan_choose(const ck_device *device, ck_pso_lsq_mode mode,
                                 size_t points, size_t rows, uint32_t group,
                                 int double_precision);

/* ---- built-in objectives on the host (objectives_ref.c) ------------------
 * count points (dim values each, point after point) of the streamed
 * objective id, each evaluated as a work-item evaluates it, in single
 * (_f32) or double (_f64) precision, into values. */
void ck__objectives_ref_f32(int id, int dim, const double *points, size_t count,
                            double *values);
void ck__objectives_ref_f64(int id, int dim, const double *points, size_t count,
                            double *values);

/* ---- cost models (problem.c) -------------------------------------------- */

/* The floating-point operations of one dimension's term of built-in
 * objective fn, as the kernels compute it, a sin, cos, exp, log, sqrt or
 * power counted as one, for the optimisers' cost models; NaN for lsq, whose
 * cost is its rows', and for a name of no built-in objective. */
double ck__objective_term_flops(const char *fn);

/* ---- host objectives (problem.c) ---------------------------------------- */

/* Points stored dimension-major (coordinate d of point p at d * n + p)
 * into rows, row-major (at p * dim + d). */
void ck__host_rows(const double *columns, size_t n, size_t dim, double *rows);

/* A host objective's values made comparable as the kernels make theirs:
 * NaN the largest value of the precision, the rest clamped to its range. */
void ck__host_values(int double_precision, const double *f, double *out,
                     size_t count);

/* The failure of a host callback (config names its config, step the
 * iteration or generation, number 0 for the initial one). */
ck_status ck__host_failed(const char *config, ck_status status,
                          const char *step, uint64_t number);

/* Where a device objective's positions are copied on a device other
 * than CUDA: the queue's fastest host memory (ck__host_alloc:
 * page-locked on OpenCL), grown as a batch needs and kept for the next;
 * zeroed to begin, released by ck__batch_host_free on the same queue. */
typedef struct ck__batch_host {
  void *memory;
  size_t size;
  /* In stream order, on a CUDA device: a mark after each of the last two
   * calls' values were taken (cudaEvent_t, or NULL), the older at next. */
  void *taken[2];
  int next;
} ck__batch_host;
void ck__batch_host_free(ck__batch_host *host, ck_queue *queue);

/* A device objective (ck_device_objective_fn) over count points of dim
 * coordinates held dimension-major in x (reals of real_size bytes),
 * once the queue's work is done: on a CUDA device where they are, else
 * copied into `host`; its values into `values` (count reals), in the
 * queue's order. ordered: on a CUDA device, the points are ready in the
 * queue's order when it is called, and the host waits only for the
 * values of the call before the last (ck_device_batch). config, step
 * and number name a failure as ck__host_failed does. */
typedef struct ck__device_objective {
  ck_device_objective_fn function;
  void *user;
  const char *config, *step;
  ck__batch_host *host;
  int ordered;
} ck__device_objective;
ck_status ck__device_objective_call(const ck__device_objective *objective,
                                    ck_queue *queue, ck_buffer *x, size_t count,
                                    size_t dim, size_t real_size,
                                    ck_buffer *values, uint64_t number);
/* Its two halves, for ask/tell: the batch's given fields for x, once the
 * queue's work is done (x copied into host where the device is not
 * CUDA); and the values the batch names into `values`, the batch refused
 * unless it holds count of them for positions of real_size bytes (what
 * names the caller in messages). */
ck_status ck__device_batch_open(ck_queue *queue, ck_buffer *x, size_t count,
                                size_t dim, size_t real_size,
                                ck__batch_host *host, ck_device_batch *batch);
ck_status ck__device_batch_take(const ck_device_batch *batch, ck_queue *queue,
                                ck_buffer *values, size_t count,
                                size_t real_size, const char *what);

/* ---- ask/tell states (problem.c) ---------------------------------------- */

/* CK_OK when no array of a state is NULL, else CK_ERROR_INVALID_ARGUMENT
 * naming function and the state's type. */
ck_status ck__state_arrays(const char *function, const char *type,
                           const double *const *arrays, size_t count);
/* CK_OK when a state's seed is the optimiser's own (`what` names it),
 * whose kernels hold it; else CK_ERROR_INVALID_ARGUMENT. */
ck_status ck__state_seed(const char *function, const char *what, uint64_t seed,
                         uint64_t own);
/* CK_OK when every value is finite, else CK_ERROR_INVALID_ARGUMENT naming
 * function and the first that is not: entry i of the state's `name`. */
ck_status ck__state_finite(const char *function, const char *name,
                           const double *values, size_t count);
/* CK_OK when every value is one that the optimiser compares, a real of
 * its precision's range (a state holds the largest real for a NaN told),
 * else CK_ERROR_INVALID_ARGUMENT naming function and the first that is
 * not: entry i of the state's `name`. */
ck_status ck__state_values(const char *function, const char *name,
                           int double_precision, const double *values,
                           size_t count);
/* A state's bests: each member's best value (values, count of them, at
 * positions of dim coordinates, row by row), the best of them (best, at
 * position) and the tells so far, each array named as the state's
 * field. */
typedef struct ck__state_bests {
  const char *values_name, *positions_name, *best_name, *position_name;
  const double *values, *positions, *position;
  double best;
  size_t count, dim;
  uint64_t tells;
} ck__state_bests;
/* CK_OK when the bests are a state that tells made: every value a real
 * of the precision (ck__state_values); none told but the largest while
 * tells is 0; best the least of values, compared in the precision; and,
 * below the largest real, position the position of a member holding it.
 * Else CK_ERROR_INVALID_ARGUMENT naming function and the field. */
ck_status ck__state_bests_check(const char *function, int double_precision,
                                const ck__state_bests *bests);
/* count values written to buffer, made comparable as told ones are
 * (ck__host_values) in scratch (count values). */
ck_status ck__values_write(ck_queue *queue, ck_buffer *buffer,
                           int double_precision, double *scratch,
                           const double *values, size_t count);
/* n points of dim reals held dimension-major in buffer, read into rows
 * (row-major), through columns (n x dim values of scratch); and rows
 * written there, the transpose. */
ck_status ck__rows_read(ck_queue *queue, ck_buffer *buffer,
                        int double_precision, double *columns, size_t n,
                        size_t dim, double *rows);
ck_status ck__rows_write(ck_queue *queue, ck_buffer *buffer,
                         int double_precision, double *columns, size_t n,
                         size_t dim, const double *rows);

/* ---- device evaluation of lsq and user objectives (problem.c) -------- */

/* The kernels of cl/ck_evaluate.h for n points, and what their arguments
 * hold but the points and their values, which may change per call. */
typedef struct ck__evaluation {
  ck_kernel *kernel;
  ck_kernel *finish; /* lsq group mode: adds each point's partial sums */
  int objective;
  ck__lsq_plan plan;
  uint32_t n, group;
  int dim;
  uint32_t rows;
  ck_buffer *data, *partial, *done; /* referred to, not owned */
} ck__evaluation;

/* Creates the evaluation of a non-streamed problem in a built program,
 * lsq by plan (a program built with CK_LSQ_LANES = plan->lanes). partial
 * (n * plan->chunks reals) serves lsq group mode; done may skip work. */
ck_status ck__evaluation_create(ck__evaluation *evaluation, ck_program *program,
                                const ck__problem *problem, uint32_t n,
                                uint32_t rows, const ck__lsq_plan *plan,
                                uint32_t group, ck_buffer *data,
                                ck_buffer *partial, ck_buffer *done);

/* Launches it: the objective at points (dimension-major) into values. */
ck_status ck__evaluation_run(ck__evaluation *evaluation, ck_queue *queue,
                             ck_buffer *points, ck_buffer *values);

void ck__evaluation_destroy(ck__evaluation *evaluation);

/* ---- options shared by the optimisers' workloads (problem_options.c) --- */

/* Option rows every optimiser takes, over the problem's fields of its
 * config: fields is its table, owner its name ("ck_pso_config"); `step`
 * names an iteration ("iteration", "generation"). */
#define CK__PROBLEM_OPTIONS(fields, owner, step)                               \
  {"fn", "NAME",                                                               \
   "objective: sphere rastrigin rosenbrock griewank ackley schwefel "          \
   "michalewicz styblinski-tang f1 f2 lsq",                                    \
   .field = &(fields)[CK__PROBLEM_FUNCTION], .config = owner},                 \
      {"objective", "FILE.cl",                                                 \
       "user objective: OpenCL C defining float objective(const float *x, "    \
       "int dim[, __global const float *data])",                               \
       .config = owner, .sets = "objective_source objective_name"},            \
      {"data", "FILE",                                                         \
       "data for lsq (CSV, b last; or clkit binary), or for a user "           \
       "objective",                                                            \
       .config = owner, .sets = "data"},                                       \
      {"dim", "D", "dimensions (lsq: taken from the data)",                    \
       .field = &(fields)[CK__PROBLEM_DIM], .config = owner},                  \
      {"evals",                                                                \
       "N",                                                                    \
       "stop after N objective evaluations",                                   \
       .field = &(fields)[CK__PROBLEM_EVALUATIONS],                            \
       .config = owner,                                                        \
       .flags = CK__OPTION_OFF},                                               \
      {"target",                                                               \
       "F",                                                                    \
       "stop once the best value is <= F (alone, the run ends only then or "   \
       "at Ctrl-C)",                                                           \
       .field = &(fields)[CK__PROBLEM_TARGET],                                 \
       .config = owner,                                                        \
       .flags = CK__OPTION_OFF,                                                \
       .sets = "has_target"},                                                  \
      {"time",                                                                 \
       "S",                                                                    \
       "stop after S seconds",                                                 \
       .field = &(fields)[CK__PROBLEM_TIME],                                   \
       .config = owner,                                                        \
       .flags = CK__OPTION_OFF},                                               \
      {"bounds", "MODE", "clamp, reflect or random",                           \
       .field = &(fields)[CK__PROBLEM_BOUNDS], .config = owner},               \
      {"lo", "X[,X...]", "lower bound: one value or one per dimension",        \
       .config = owner, .sets = "lo"},                                         \
      {"hi", "X[,X...]", "upper bound: one value or one per dimension",        \
       .config = owner, .sets = "hi"},                                         \
      {"precision", "P", "float, or double on devices with fp64",              \
       .field = &(fields)[CK__PROBLEM_PRECISION], .config = owner},            \
      {"lsq-mode", "M",                                                        \
       "lsq evaluation: auto, group (work-groups over rows), thread (a "       \
       "work-item a point) or vector (16 points a work-item, for CPUs)",       \
       .field = &(fields)[CK__PROBLEM_LSQ_MODE], .config = owner},             \
      {"check-every", "K", "read the best value every K " step "s",            \
       .field = &(fields)[CK__PROBLEM_CHECK_EVERY], .config = owner},          \
      {"out", "FILE", "write the best position, one value a line",             \
       .field = NULL, .format = "text"},                                       \
      {"trace", "FILE", "write a CSV of the best value per " step,             \
       .field = NULL, .format = "csv"},                                        \
  {                                                                            \
    "plot", "FILE",                                                            \
        "chart the best value over time, " step "s along the top: FILE.svg "   \
        "or FILE.png",                                                         \
        .field = NULL, .format = "chart"                                       \
  }

typedef struct ck__problem_job {
  ck__problem_spec spec; /* points into the job */
  ck_lsq_data data;
  char *source;
  double *lo, *hi;
  int stop_by_count; /* 0 when only a target, a clock or evals stop */
  const char *out, *trace, *plot;
} ck__problem_job;

/* Reads the shared options that name files or depend on them (--fn,
 * --objective, --data, --lo, --hi, --out, --trace, --plot) over the settings
 * read from the other options (a spec of the config, ck__options_read),
 * after every refusal of ck__problem_options_check.
 * `count_option` names the step-count option ("iters", "gens").
 * Errors are CK_ERROR_INVALID_ARGUMENT naming the option, or the reader's
 * status (CK_ERROR_NOT_FOUND, _IO, _PARSE) after "option --data: " for a
 * file that cannot be read. */
ck_status ck__problem_job_parse(const ck_param *params, size_t count,
                                const ck__problem_spec *settings,
                                const char *count_option, ck__problem_job *job);
void ck__problem_job_release(ck__problem_job *job);

/* CK_OK when a run's best value is finite, else CK_ERROR_MISMATCH saying
 * that no evaluation gave a finite value, or that the best is -inf or
 * below the run's precision (then nothing is written). */
ck_status ck__problem_best_check(const ck__problem_job *job, double best);

/* The chart of an optimiser's run (--plot at job->plot): its history's
 * entries that --trace writes (entry i is step i x stride, count in all),
 * each at the time its timeline gives (ck__loop_rules.timeline). columns
 * holds column_count arrays of count values, names their names; the
 * value over seconds, steps ("iteration") along the top. details goes on
 * the subtitle. */
ck_status ck__problem_plot(const ck__problem_job *job, const ck_result *result,
                           const char *step, const char *details,
                           const double *const *columns,
                           const char *const *names, size_t column_count,
                           size_t count, uint64_t stride,
                           const ck__history *timeline);

/* The problem options that name files a run writes (NULL-ended). */
extern const char *const ck__problem_outputs[];

/* Checks the shared options that need no file (for ck_workload_check)
 * but for those of ck__options_read. */
ck_status ck__problem_options_check(const ck_param *params, size_t count);

/* CK_OK when each param sets a field of an optimiser that its caller
 * steps (ck_pso_config_read, ck_ga_config_read): an option of options
 * with a field, but for a run's stopping rules (the problem's and the
 * NULL-ended run_fields) and outputs. Files and arrays (--objective,
 * --data, --lo, --hi) set no field and are refused too. Then the checks
 * of ck__problem_options_check. Else CK_ERROR_INVALID_ARGUMENT naming the
 * option, after caller. */
ck_status ck__problem_settings_check(const char *caller,
                                     const ck__option *options,
                                     const ck__field *fields,
                                     const ck__field *const *run_fields,
                                     const ck_param *params, size_t count);

/* --out: the position, one value a line, atomically. */
ck_status ck__write_position(const char *path, const double *position, int dim);

/* The result's position (every coordinate) and dimension; for a built-in
 * objective, the best as that position's value in double precision on the
 * host (a single-precision run's own value may lie below the true minimum
 * by its rounding), the known optimum and the gap to it. A best still
 * below that optimum (by a double's rounding, or the optimum's published
 * digits) is said in a warning through options' log. */
ck_status ck__problem_result(ck_result *result, const ck__problem_job *job,
                             const double *position, int dim,
                             const ck_run_options *options);

/* Optimiser runs agree while rounding has not split their trajectories:
 * |best - best_ref| <= 1e-3 |best_ref| + 1e-6. */
ck_status ck__optimiser_agree(const ck_result *reference,
                              const ck_result *result, double *difference,
                              int *agrees);

#endif /* CK_PROBLEM_H */
