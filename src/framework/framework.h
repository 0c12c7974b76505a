/*
 * framework.h - the workload framework: what a workload provides to the
 * registry, the helpers every workload uses to read its options and fill
 * its result, and the run loop that stops it.
 *
 * A workload is one backend-neutral driver (the algorithm's loop) over a
 * small table of steps per backend; see docs/architecture.md.
 */
#ifndef CK_FRAMEWORK_H
#define CK_FRAMEWORK_H

#include "framework/history.h"
#include "runtime/runtime.h"

/* One option of a workload: its name and help, and where its value goes.
 * An option with a field is read, checked against the field's range and
 * stored by ck__options_read; its default and range are the field's, which
 * the driver's config_init and checks read too, and its help shows them. */
typedef struct ck__option {
  const char *name;       /* without "--" */
  const char *value_name; /* e.g. "N"; NULL for a flag */
  const char *help;
  const ck__field *field; /* where its value goes; NULL: the workload's */
  /* The field's struct as messages name it ("ck_gas_config"); NULL for a
   * field of the workload's own job. The config begins its job. */
  const char *config;
  /* A syntax of its own (--box LxW): reads text into the job; NULL: the
   * field's number or word. */
  ck_status (*read)(const char *text, void *job);
  /* The default help shows where no field gives one ("auto", a file), or
   * NULL. */
  const char *shown;
  /* Other config fields that read sets, space-separated, so that a
   * message of the driver about one names this option. */
  const char *sets;
  unsigned flags; /* CK__OPTION_* */
  /* A field whose default the help shows for its one "%g", or NULL. */
  const ck__field *detail;
  /* Where the field's struct begins in the job (offsetof; 0: the config
   * that begins the job). */
  size_t base;
  /* The format of the file an output option writes, as
   * ck_file_check_format names it ("csv", "png"), so that a name that
   * says another format is refused; NULL: none. */
  const char *format;
} ck__option;

enum {
  CK__OPTION_RANGE = 1,  /* the help ends with the field's range */
  CK__OPTION_CLEARS = 2, /* a flag that sets its field to 0, not 1 */
  CK__OPTION_OFF = 4     /* no default shown: the rule is off unless given */
};

/* What ck_option shows of an option: its default and its help. */
typedef struct ck__option_text {
  char value[40];
  char help[640];
} ck__option_text;

/* A workload's .shown and .texts: room for its options as ck_option rows,
 * which the framework fills once from its table. */
#define CK__OPTIONS_SHOWN(options)                                             \
  .shown = (ck_option[sizeof(options) / sizeof *(options)]){{0}},              \
  .texts = (ck__option_text[sizeof(options) / sizeof *(options)]) {            \
    {                                                                          \
      {0}, {                                                                   \
        0                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* ---- Benchmark sizes and cost models (bench.c) -------------------------- */

/* A workload's ladder of benchmark sizes and its cost model
 * (clkit/bench.h, docs/bench.md). */
typedef struct ck__bench {
  /* What a size counts, as the size column's heading. */
  const char *format;
  /* Each rung's options (settings, then sizes), ended by a NULL name. */
  const ck_param *rungs[CK_BENCH_RUNGS];
  /* The options that set a run's size or length, NULL-ended. */
  const char *const *size_options;
  /* Device memory a run of params takes, estimated from the options as
   * the run would read them: *total in all, *largest in one buffer. */
  void (*footprint)(const ck_param *params, size_t count,
                    const ck_device *device, double *total, double *largest);
  /* The result's metrics that make its size, joined by " x " (NULL-ended),
   * unless describe writes it. */
  const char *const *size_metrics;
  void (*describe)(const ck_result *result, char *text, size_t capacity);
  /* The run's cost (ck_result_get_cost), from its options and metrics. */
  ck_status (*cost)(const ck_result *result, ck_cost *cost);
} ck__bench;

/* The value of params' option name read as a number, else fallback (a
 * value that is not a number too: the run refuses it itself). */
double ck__param_number(const ck_param *params, size_t count, const char *name,
                        double fallback);

/* The resolved value of the result's option name, or NULL. */
const char *ck__result_option_text(const ck_result *result, const char *name);

/* The result's metric name into *value; CK_ERROR_NOT_FOUND naming it
 * where the result has none. */
ck_status ck__result_value(const ck_result *result, const char *name,
                           double *value);

/* The result's metrics of names (NULL-ended) into values, in order;
 * CK_ERROR_NOT_FOUND naming the first it lacks. */
ck_status ck__result_values(const ck_result *result, const char *const *names,
                            double *values);

/* The bytes of a real of params' --precision: 8 for "double", else 4. */
size_t ck__param_real_size(const ck_param *params, size_t count);

/* The bytes of a real of the result's --precision: 8 for "double", else
 * 4. */
size_t ck__result_real_size(const ck_result *result);

struct ck_workload {
  const char *name;
  const char *summary;
  const ck__option *options; /* terminated by a NULL name */
  /* Its options as ck_option rows, and their text (CK__OPTIONS_SHOWN). */
  ck_option *shown;
  ck__option_text *texts;
  /* Relative difference of `best` from ref within which a run agrees. */
  double tolerance;
  /* Validates the workload's own parameters (names are checked already):
   * ck_workload_check's one reading of them. */
  ck_status (*check)(const ck_param *params, size_t count);
  /* A run's one reading of params (job.c): with every refusal of check
   * (and, with options->spread, of check_spread) and no file read, into
   * job (job_bytes, zeroed). The table's checks (names, flags, files) come
   * before it, the formats after. options: the caller's. */
  size_t job_bytes;
  ck_status (*prepare)(const ck_param *params, size_t count,
                       const ck_run_options *options, void *job);
  /* Optional: the input files a prepared job reads once for all its runs
   * (an ACO instance, an optimiser's objective and data), into job. */
  ck_status (*load)(void *job, const ck_param *params, size_t count,
                    const ck_run_options *options);
  /* Runs a prepared job on device. The job stays as prepare left it, so
   * that it serves the next run; params are those it was read from. */
  ck_status (*run)(const void *job, const ck_device *device,
                   const ck_param *params, size_t count,
                   const ck_run_options *options, ck_result *result);
  /* Optional: frees what prepare read into job. */
  void (*release)(void *job);
  /* A small configuration for `clkit demo` (none: the defaults). */
  const ck_param *demo;
  size_t demo_count;
  /* Optional: a stricter agreement test than `best` within tolerance. */
  ck_status (*agree)(const ck_result *reference, const ck_result *result,
                     double *difference, int *agrees);
  /* The options that name files a run writes (NULL-ended; none: NULL),
   * which ck_workload_check_devices refuses for runs on several devices. */
  const char *const *outputs;
  /* Those of outputs whose files are binary (a model, an image), which
   * are not sent to a terminal (NULL-ended; none: NULL). */
  const char *const *binary_outputs;
  /* Optional: the output option a run writes to standard output without
   * a file named (the MLP's --out, for --predict alone), or NULL. */
  const char *(*stdout_output)(const ck_param *params, size_t count);
  /* Options that ref, as the oracle of a comparison, runs with in place of
   * the caller's values where the caller gives them (ended by a NULL name;
   * none: NULL): choices only other devices have, such as the MLP's TF32
   * products, whose rows are then checked against ref's FP32 run. */
  const ck_param *oracle;
  /* Nonzero when run takes a spread (ck_run_options.spread); others are
   * refused one. */
  int spreads;
  /* Optional: check's refusals and those of the options a spread run
   * contradicts (as CK_ERROR_INVALID_ARGUMENT, through
   * ck__param_not_spread), in one reading; ck_workload_check_spread calls
   * it in place of check. */
  ck_status (*check_spread)(const ck_param *params, size_t count);
  /* Nonzero when a spread's members may share a device (one given twice):
   * its create_spread keeps each member's queues and memory apart there. */
  int spread_shares_devices;
  /* Nonzero when run takes a host objective (ck_run_options.objective),
   * and a device objective (device_objective); others are refused them. */
  int objectives, device_objectives;
  /* Its benchmark sizes and cost model. */
  const ck__bench *bench;
};

/* The registry (src/registry.c, above the framework): every workload, in
 * the order they are listed, each defined in its own folder. */
extern const ck_workload *const ck__workloads[];
extern const size_t ck__workload_count;

extern const ck_workload ck__selfcheck_workload;
extern const ck_workload ck__pso_workload;
extern const ck_workload ck__ga_workload;
extern const ck_workload ck__aco_workload;
extern const ck_workload ck__nn_workload;
extern const ck_workload ck__gas_workload;

/* After a failure that name is no option of options: appends the option
 * it most likely meant ("; did you mean --iters?") where one is near;
 * returns the failure's status. */
ck_status ck__option_suggest(const ck__option *options, const char *name);

/* The value of option name, or NULL when not given (last one wins). */
const char *ck__param_find(const ck_param *params, size_t count,
                           const char *name);

/* CK_OK unless an option in writes names the same file or descriptor
 * ("-" is standard output) as another in writes, or one in reads
 * (NULL-ended lists of option names; options not given are skipped),
 * then CK_ERROR_INVALID_ARGUMENT naming both; or
 * unless an output cannot be written there (ck_file_check_writable), then its
 * CK_ERROR_IO naming the option. The write named `replacing` may name the
 * read named `replaced`, an input read whole before anything is written
 * (both NULL where none may). */
ck_status ck__param_files_apart(const ck_param *params, size_t count,
                                const char *const *reads,
                                const char *const *writes,
                                const char *replacing, const char *replaced);

/* An option that means something only beside another part of a run: e.g.
 * --q0 only with --algo acs. */
typedef struct ck__option_part {
  const char *option; /* the option's name, without dashes */
  int missing;        /* nonzero when this run lacks the part */
  const char *part;   /* the part as a message names it: "--algo acs" */
} ck__option_part;

/* CK_OK unless an option of parts is given while its part is missing;
 * then CK_ERROR_INVALID_ARGUMENT: "option --X applies only with PART".
 * Such an option would otherwise be dropped unseen. */
ck_status ck__param_parts(const ck_param *params, size_t count,
                          const ck__option_part *parts, size_t part_count);

/* CK_OK unless refused: then CK_ERROR_INVALID_ARGUMENT naming option,
 * its value in params, and --spread, which it contradicts, and saying
 * why ("option --method: focused with --spread: WHY"). */
ck_status ck__param_not_spread(const ck_param *params, size_t count,
                               const char *option, int refused,
                               const char *why);

/* Whether [begin, end) is a finite decimal number and nothing else (no
 * blanks, hexadecimal, inf or nan; "1e6" is one), read into *value. A span
 * that ends before the text does is at most 63 characters. */
int ck__parse_decimal(const char *begin, const char *end, double *value);

/* Whether [begin, end) is a whole number as ck__parse_decimal reads it
 * ("1e3" is 1000): 1, with *value set, when it lies in [minimum, maximum];
 * -1 when it lies outside; 0 when it is not a whole number. */
int ck__parse_whole(const char *begin, const char *end, long long minimum,
                    long long maximum, long long *value);

/* Whether text is prefix (which ends in ':') and then two fields "A:B",
 * as --thermostat langevin:T:GAMMA: *first and *second are set to where A
 * and B begin (A ends at *second - 1, B at the text's end). A field holding
 * another ':' is left to the number readers, which refuse it. */
int ck__parse_two_fields(const char *text, const char *prefix,
                         const char **first, const char **second);

/* Reads a real option in [minimum, maximum], or the fallback. */
ck_status ck__param_real(const ck_param *params, size_t count, const char *name,
                         double fallback, double minimum, double maximum,
                         double *value);

/* The workload's options as ck_option rows: defaults and ranges from
 * their fields (filled once for every workload of the registry). */
const ck_option *ck__workload_options(const ck_workload *workload);

/* Reads every option of options given in params that has a field or a
 * read of its own, in the table's order, into job (a field's value at
 * job + its offset; a config field's defaults must be in place): a word
 * of the field, else a number in its range (a whole one for an integer
 * field); a flag sets its field to 1 (0 with CK__OPTION_CLEARS).
 * CK_ERROR_INVALID_ARGUMENT naming the option, and the config field
 * where it has one: "option --rc: ck_gas_config.rc: 0.1 is outside
 * [0.5, 1e+06]". */
ck_status ck__options_read(const ck__option *options, const ck_param *params,
                           size_t count, void *job);

/* How many times this thread has called ck__options_read: tests count a
 * call's readings of its params with it. */
uint64_t ck__options_reads(void);

/* CK_ERROR_INVALID_ARGUMENT for a value of an option that is none of the
 * words of field (an enum's): "option --NAME: [CONFIG.FIELD: ]unknown value
 * 'TEXT'; one of: WORD ...", the text length bytes long; config may be
 * NULL. */
ck_status ck__fail_word(const char *option, const char *config,
                        const ck__field *field, const char *text,
                        size_t length);

/* Where the last failure's message begins with "CONFIG.FIELD: " for a
 * field an option of options sets, puts "option --NAME: " before it (the
 * driver names its config's fields; a caller of a workload gave options).
 * Returns status. */
ck_status ck__option_name_field(const ck__option *options, ck_status status);

/* Adds a named metric to a result (silently full at the limit). */
void ck__result_metric(ck_result *result, const char *name, double value,
                       const char *unit);

/* Adds a yes/no metric (1 or 0; JSON true or false). */
void ck__result_flag(ck_result *result, const char *name, int value);

/* Sets the result's position to a copy of count values. */
ck_status ck__result_position(ck_result *result, const double *position,
                              size_t count);

/* The value the run resolved for option name (copied), where it chose one
 * that its options table gives as "auto" or a rule ("1/dim"); NULL for an
 * option this run did not use (--train beside --load alone). Options the
 * run sets no value for are filled by ck_workload_run from the caller's
 * parameters and the table's defaults. A name the workload has no option
 * for is ignored. */
ck_status ck__result_option(ck_result *result, const char *name,
                            const char *value);
ck_status ck__result_option_number(ck_result *result, const char *name,
                                   double value);

/* ck__result_option for an option with a field of its own (and no read
 * of its own), from the field's value in job as ck__options_read would
 * have set it: its word, else the number; a flag "1" or "0"; a text
 * field's text, or NULL (not used) where it has none. */
ck_status ck__result_option_field(ck_result *result, const ck__option *option,
                                  const void *job);

/* The fewest digits that read back as value: 0.05, not
 * 0.050000000000000003 (in the calling thread's locale), into text. */
void ck__shortest_number(char *text, size_t size, double value);

/* Fills the device fields of a result and zeroes the rest (it must own
 * nothing: see ck_result_release). */
void ck__result_begin(ck_result *result, const char *workload,
                      const ck_device *device);

/* The workload's reading of its params for ck_workload_check (check,
 * check_spread), or none. */
typedef ck_status (*ck__params_check)(const ck_param *params, size_t count);

/* The table's checks of params (names known, flags "1", file names, one
 * input on standard input, binary outputs off terminals), then own's
 * reading of them and the formats (ck__workload_check_formats); NULL own:
 * neither, the caller reads them and checks the formats after. function:
 * the public call, for the messages on NULL arguments. */
ck_status ck__workload_check_params(const char *function,
                                    const ck_workload *workload,
                                    const ck_param *params, size_t count,
                                    ck__params_check own);

/* A file named as another format than the one written (out.jpg for a
 * PNG), refused naming the option: after the workload's reading, which
 * names two options given one file first. */
ck_status ck__workload_check_formats(const ck_workload *workload,
                                     const ck_param *params, size_t count);

/* CK_ERROR_INVALID_ARGUMENT where the workload takes no spread. */
ck_status ck__workload_check_spreads(const ck_workload *workload);

/* ck_job_prepare and ck_job_run for a public call of another name
 * (function), which their messages on NULL arguments name (job.c). */
ck_status ck__job_prepare(const char *function, const ck_workload *workload,
                          const ck_param *params, size_t count,
                          const ck_run_options *options, ck_job **job);
ck_status ck__job_run(const char *function, ck_job *job,
                      const ck_device *device, ck_result *result);

/* A result's options table: every option's name (begin), then every value
 * the run resolved (end): those the workload set (ck__result_option),
 * else the caller's params, else the defaults; a flag is "1" or "0". */
ck_status ck__result_options_begin(const ck_workload *workload,
                                   ck_result *result);
ck_status ck__result_options_end(const ck_workload *workload,
                                 const ck_param *params, size_t count,
                                 ck_result *result);

/* ---- The run loop (loop.c) --------------------------------------------- */

/*
 * Every workload steps through one loop until a rule holds: its step count
 * or evaluation budget, a target, the clock, or a stop of its driver's
 * own (the MLP's patience). Its shape says when the rules are checked and
 * progress reported:
 *   CHUNKS: the device is read once before the first step, then the rules
 *     are checked before each chunk of steps (the target, the clock, the
 *     step limit), and progress is reported after each read (PSO, GA,
 *     selfcheck);
 *   STEPWISE: one step at a time, at least one; after each, the rules
 *     (the target, the step limit, the clock), then, while the run goes on,
 *     progress after the first step and about twenty times a second, its
 *     fraction the nearer of the two limits (ACO, MLP);
 *   SCHEDULE: as CHUNKS, each chunk ending where the driver says work is
 *     due (due), and progress reported before that work, so that a run
 *     its caller stops there leaves it undone (gas).
 */
typedef enum ck__loop_shape {
  CK__LOOP_CHUNKS,
  CK__LOOP_STEPWISE,
  CK__LOOP_SCHEDULE
} ck__loop_shape;

/* What the driver's reads tell the loop, kept from one read to the next. */
typedef struct ck__loop_reading {
  int met;           /* a step at or below the target was seen */
  uint64_t met_step; /* the first such step, as the driver counts them */
  double best;       /* the best so far, for progress; NaN where none */
  ck_stop stop;      /* the driver's own stop (CK_STOP_EARLY), or NONE */
} ck__loop_reading;

typedef struct ck__loop_rules {
  ck__loop_shape shape;
  uint64_t max_steps;       /* iterations, generations, ...; 0: off */
  uint64_t max_evaluations; /* 0: off */
  uint64_t per_step;        /* evaluations one step makes */
  uint64_t default_steps;   /* the limit when every rule is off */
  int has_target;           /* the driver's reads say when it is met */
  double max_seconds;       /* 0: off */
  /* The time progress counts against where the driver's reads stop the
   * run by the clock (a spread run's agreed clock); 0: max_seconds. */
  double progress_seconds;
  uint64_t check_every;    /* steps between reads; 0: automatic, about
                              twenty reads a second */
  uint64_t max_chunk;      /* automatic: steps between reads, at most */
  ck_progress_fn progress; /* optional */
  void *progress_user;
  const char *step_name; /* "iterations", "generations": for progress */
  const char *best_name; /* what progress's best is: "best", "" */
  /* The failure's message when progress stops the run: a printf format of
   * one long long, the steps made plus cancel_offset. */
  const char *cancelled;
  long long cancel_offset;
  /* Optional: when the loop read the device, a row of (steps, seconds)
   * pushed at each read: its steps counted from timeline_from, its
   * seconds since the loop began. A chart of the run over time (--plot)
   * places the steps of its history by them. */
  ck__history *timeline;
  uint64_t timeline_from;
} ck__loop_rules;

typedef struct ck__loop_driver {
  void *self;
  /* Makes `steps` steps. */
  ck_status (*step)(void *self, uint64_t steps);
  /* Optional: reads what the steps made (steps in all so far; 0 for the
   * read before the first step) and updates reading. */
  ck_status (*read)(void *self, uint64_t steps, ck__loop_reading *reading);
  /* Optional: after `steps` steps, how many more until work is due. */
  uint64_t (*due)(void *self, uint64_t steps);
} ck__loop_driver;

typedef struct ck__loop_outcome {
  ck_stop stopped_by;
  uint64_t steps;       /* made by this run (also after a failure) */
  uint64_t target_step; /* the reading's met_step, when the target stops it */
  double wall_s;
} ck__loop_outcome;

/* Steps until a rule holds. Returns CK_OK, a failure of the driver's, or
 * CK_ERROR_CANCELLED (rules->cancelled) when progress asks to stop. */
ck_status ck__loop_run(const ck__loop_rules *rules,
                       const ck__loop_driver *driver,
                       ck__loop_outcome *outcome);

/* For a driver that reads into a history watching for the target (the
 * optimisers): the watch's verdict into reading, and, after a step, the
 * least of column 0 (a step's best) of the latest rows read. */
void ck__loop_read_history(const ck__history *history, uint64_t steps,
                           ck__loop_reading *reading);

/* A stop in a result's words (ck_result.stopped_by): steps names the step
 * count ("iterations", "generations"); "" for CK_STOP_NONE. */
const char *ck__stop_name(ck_stop stop, const char *steps);

/* ---- Steps tables (steps.c) ----------------------------------------------
 * A workload's steps table per backend is a struct of function pointers
 * and nothing else (NULL: a step the backend leaves out). */

/* A step of no particular type: the size of every entry of a table. */
typedef void (*ck__step_fn)(void);

/* Refuses to compile unless steps table `type` is `count` function
 * pointers alone, as ck__steps_pick reads it. */
#define CK__STEPS_TABLE(type, count)                                           \
  _Static_assert(sizeof(type) == (count) * sizeof(ck__step_fn),                \
                 #type " must be " #count " function pointers")

/* The native CUDA steps `table` (its address) on a CUDA device where
 * `applies` holds, else NULL. `applies` is evaluated only on a CUDA
 * device. In a build without CUDA it is NULL, and neither `table` nor
 * what `applies` names need be defined. */
#if CK_HAVE_CUDA
#define CK__CUDA_STEPS(device, table, applies)                                 \
  ((device)->backend == CK_BACKEND_CUDA && (applies) ? (const void *)&(table)  \
                                                     : NULL)
#else
#define CK__CUDA_STEPS(device, table, applies)                                 \
  ((void)(device), (const void *)NULL)
#endif

/* The steps table to run on `device`. The base is `ref` on the ref backend
 * and `opencl` on the others. Where `native` is NULL, the base is
 * returned. Otherwise native is copied into *merged (`size` bytes, the
 * tables' type), each of its NULL entries replaced by the base's, and
 * merged is returned: a native table names only the steps it replaces.
 * The tables are of one type, checked by CK__STEPS_TABLE. */
const void *ck__steps_pick(const ck_device *device, const void *ref,
                           const void *opencl, const void *native, void *merged,
                           size_t size);

#endif /* CK_FRAMEWORK_H */
