/*
 * problem.h - what the optimisers (PSO, GA) share about their problem:
 * the objective (built in, lsq over data, or user OpenCL C), its domain,
 * the checks of both, and moving reals and data to the device.
 */
#ifndef CK_PROBLEM_H
#define CK_PROBLEM_H

#include "clkit/clkit.h"
#include "core/internal.h"

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
} ck__problem_spec;

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

/* Checks a spec (the messages name the CLI options) and fills problem;
 * release it with ck__problem_free(). */
ck_status ck__problem_init(ck__problem *problem, const ck_device *device,
                           const ck__problem_spec *spec);
void ck__problem_free(ck__problem *problem);

/* Reals of the problem's precision to and from a buffer. */
ck_status ck__reals_write(ck_queue *queue, ck_buffer *buffer,
                          int double_precision, const double *values,
                          size_t count);
ck_status ck__reals_read(ck_queue *queue, ck_buffer *buffer,
                         int double_precision, double *values, size_t count);

/* A buffer of at least one byte. */
ck_status ck__buffer_make(ck_queue *queue, size_t bytes, ck_buffer **buffer);

/* The problem's data on the device: lsq column-major in its precision,
 * a user objective's rows as floats; a placeholder when there is none. */
ck_status ck__problem_upload(const ck__problem *problem, ck_queue *queue,
                             ck_buffer **data);

/* Reduction work-group size for a device: a power of two up to 256. */
uint32_t ck__group_size(const ck_device *device);

/* Row ranges per point for lsq group mode: enough work-groups for four a
 * compute unit, none with fewer rows than work-items. */
uint32_t ck__lsq_chunks(const ck_device *device, size_t points, size_t rows,
                        uint32_t group);

/* Whether lsq evaluation of `points` points should use group mode. */
int ck__lsq_group_mode(const ck_device *device, ck_pso_lsq_mode mode,
                       size_t points, uint32_t group);

/* ---- options shared by the optimisers' workloads (problem_options.c) --- */

/* Option rows every optimiser takes; `dim` is the default dimension and
 * `step` names an iteration ("iteration", "generation"). */
#define CK__PROBLEM_OPTIONS(dim, step)                                         \
  {"fn", "NAME", "sphere",                                                     \
   "objective: sphere rastrigin rosenbrock griewank ackley schwefel "          \
   "michalewicz styblinski-tang f1 f2 lsq"},                                   \
      {"objective", "FILE.cl", NULL,                                           \
       "user objective: OpenCL C defining float objective(const float *x, "    \
       "int dim[, __global const float *data])"},                              \
      {"data", "FILE", NULL,                                                   \
       "data for lsq (CSV, b last; or clkit binary), or for a user "           \
       "objective"},                                                           \
      {"dim", "D", dim, "dimensions (lsq: taken from the data)"},              \
      {"evals", "N", NULL, "stop after N objective evaluations"},              \
      {"target", "F", NULL, "stop once the best value is <= F"},               \
      {"time", "S", NULL, "stop after S seconds"},                             \
      {"bounds", "MODE", "clamp", "clamp, reflect or random"},                 \
      {"lo", "X[,X...]", NULL, "lower bound: one value or one per dimension"}, \
      {"hi", "X[,X...]", NULL, "upper bound: one value or one per dimension"}, \
      {"precision", "P", "float", "float, or double on devices with fp64"},    \
      {"lsq-mode", "M", "auto",                                                \
       "lsq evaluation: auto, group (work-groups over rows) or thread"},       \
      {"check-every", "K", "auto", "read the best value every K " step "s"},   \
      {"out", "FILE", NULL, "write the best position, one value a line"}, {    \
    "trace", "FILE", NULL, "write a CSV of the best value per " step           \
  }

typedef struct ck__problem_job {
  ck__problem_spec spec; /* points into the job */
  ck_lsq_data data;
  char *source;
  double *lo, *hi;
  int bounds; /* CK_BOUNDS_MODE_* */
  ck_pso_lsq_mode lsq_mode;
  uint64_t max_evaluations;
  unsigned check_every; /* 0: automatic */
  int stop_by_count;    /* 0 when only a target, a clock or evals stop */
  const char *out, *trace;
} ck__problem_job;

/* Reads the shared options (files named by them too: --objective,
 * --data). `count_option` names the step-count option ("iters", "gens").
 * Errors are CK_ERROR_INVALID_ARGUMENT naming the option. */
ck_status ck__problem_job_parse(const ck_param *params, size_t count,
                                int default_dim, const char *count_option,
                                ck__problem_job *job);
void ck__problem_job_release(ck__problem_job *job);

/* Checks the shared options that need no file (for ck_workload_check). */
ck_status ck__problem_options_check(const ck_param *params, size_t count,
                                    const char *count_option);

/* One of a list of words, for an option; CK_ERROR_INVALID_ARGUMENT naming
 * the option and the choices otherwise. */
ck_status ck__parse_choice(const char *option, const char *text,
                           const char *const *choices, int *choice);

/* --out: the position, one value a line, atomically. */
ck_status ck__write_position(const char *path, const double *position, int dim);

/* The result's position metrics (x0 .. x15), and the known optimum and
 * the gap to it for built-in objectives. */
void ck__problem_result(ck_result *result, const ck__problem_job *job,
                        const double *position, int dim);

/* Optimiser runs agree while rounding has not split their trajectories:
 * |best - best_ref| <= 1e-3 |best_ref| + 1e-6. */
ck_status ck__optimiser_agree(const ck_result *reference,
                              const ck_result *result, double *difference,
                              int *agrees);

#endif /* CK_PROBLEM_H */
