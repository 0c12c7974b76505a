/*
 * clkit/workload.h - running workloads on devices and comparing devices.
 *
 * A workload (pso, ga, aco, nn, gas, and the built-in selfcheck) is found
 * by name. It declares its options; parameters reach it as name/value
 * strings, so the CLI and embedding programs configure it the same way.
 * ck_workload_run() runs it on one device; ck_compare_run() runs the same
 * configuration and seed on several devices and on ref, and reports how
 * each agrees with ref.
 */
#ifndef CLKIT_WORKLOAD_H
#define CLKIT_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/device.h"
#include "clkit/objectives.h"
#include "clkit/spread.h"
#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ck_workload ck_workload;

typedef struct ck_option {
  const char *name;          /* long option name, without "--" */
  const char *value_name;    /* e.g. "N"; NULL for a flag */
  const char *default_value; /* shown in help; NULL if none */
  const char *help;
} ck_option;

typedef struct ck_param {
  const char *name;  /* an option name */
  const char *value; /* its value; "1" for a flag (any other is refused:
                      * a flag is off when left out) */
} ck_param;

/* Where a run stands, at one of its progress checks. */
typedef struct ck_progress {
  const char *workload;  /* its name, as ck_workload_find takes it */
  const char *device;    /* the device's id */
  double fraction;       /* of the run's budget done, 0 to 1; 0 where the
                          * run has no end but a target */
  double steps;          /* iterations, generations, epochs or time steps
                          * done (what step_name says); 0 at the start */
  const char *step_name; /* "iterations", "generations", ...; "" if none */
  double best;           /* the best value so far (an optimiser's objective,
                          * a tour's length, a loss); NaN where none yet */
  const char *best_name; /* what best is ("best", "tour_length", ...) */
} ck_progress;

/* Called at the start of a run (steps 0) and now and then during it, on
 * the calling thread; return nonzero to stop the run (CK_ERROR_CANCELLED).
 * The strings are valid during the call only. */
typedef int (*ck_progress_fn)(void *user, const ck_progress *progress);

/* Why a run stopped: the stopped_by of a workload's report. */
typedef enum ck_stop {
  CK_STOP_NONE = 0,    /* no rule stopped it (yet) */
  CK_STOP_STEPS,       /* its count: iterations, generations, epochs */
  CK_STOP_EVALUATIONS, /* its budget of objective evaluations */
  CK_STOP_TARGET,      /* the target was met */
  CK_STOP_TIME,        /* its time ran out */
  CK_STOP_EARLY,       /* no progress for too long (the MLP's patience) */
  CK_STOP_CANCELLED    /* a callback asked it to stop */
} ck_stop;

typedef enum ck_build_state {
  CK_BUILD_BEGINS, /* seconds is 0 */
  CK_BUILD_DONE,   /* seconds is its build time (source or cache) */
  CK_BUILD_FAILED  /* the run then fails with CK_ERROR_BUILD */
} ck_build_state;

/* Called on the calling thread as a kernel program begins to build and
 * once it has built or failed. program and device (the device's id) are
 * valid during the call only. A build may take minutes on a CPU device:
 * a caller can show that it is waiting. */
typedef void (*ck_build_fn)(void *user, const char *program, const char *device,
                            ck_build_state state, double seconds);

/* Called with each line of text a workload reports as it runs (an
 * epoch's statistics, a confusion matrix), without a newline; the caller
 * prints or keeps it. The line is valid during the call only. A line that
 * begins "warning: " says something about the result that a caller who
 * hides the rest should still show (clkit run --quiet prints it). */
typedef void (*ck_log_fn)(void *user, const char *line);

typedef struct ck_run_options {
  uint64_t seed;           /* the run's seed, used by every backend */
  int seed_given;          /* nonzero when the caller chose the seed: a run that
                            * continues a checkpoint, whose seed goes on, refuses
                            * it rather than ignore it */
  ck_progress_fn progress; /* optional */
  void *progress_user;
  ck_log_fn log; /* optional */
  void *log_user;
  ck_build_fn build; /* optional */
  void *build_user;
  /* Optional: run over these devices (and processes) at once, in place of
   * the device given (clkit/spread.h); the workloads that cannot refuse
   * it with CK_ERROR_UNSUPPORTED. */
  const ck_spread *spread;
  /* Optional, for the optimisers (pso, ga): an objective evaluated on the
   * host, called with objective_user, in place of --fn, --objective and
   * --data, which are then refused; --lo and --hi give its domain. The
   * other workloads refuse it with CK_ERROR_UNSUPPORTED. */
  ck_objective_fn objective;
  void *objective_user;
  /* Optional, for the optimisers (pso, ga): an objective that takes the
   * positions where the device keeps them (clkit/objectives.h), called
   * with objective_user, in place of objective (give one of them) and as
   * objective takes it. */
  ck_device_objective_fn device_objective;
  /* 1: device_objective takes positions ready in stream order
   * (evaluate_device_ordered of ck_pso_config and ck_ga_config). */
  int device_objective_ordered;
} ck_run_options;

#define CK_RESULT_MAX_METRICS 48

typedef struct ck_metric {
  char name[40]; /* snake_case key, also used in JSON */
  double value;
  char unit[24]; /* "s", "1/s", "" */
  int is_flag;   /* a yes/no (value 0 or 1): JSON true/false */
} ck_metric;

typedef struct ck_result {
  char workload[32];
  char device[32]; /* device id */
  char device_name[256];
  uint64_t seed;      /* the seed the run used */
  double total_s;     /* the whole call: what the caller waited for */
  double build_s;     /* of total_s, building kernel programs (from
                       * source or from clkit's cache) */
  double wall_s;      /* of total_s, the run itself: without its setup
                       * (reading inputs, building kernels, allocating) */
  double kernel_s;    /* summed kernel time on the device; 0 on ref */
  double best;        /* the workload's headline result */
  char best_name[40]; /* what best means, e.g. "mean" or "tour_length" */
  double throughput;  /* the workload's throughput figure */
  char throughput_unit[40];
  /* Why the run ended, in words ("generations", "iterations",
   * "evaluations", "target", "time"); "" for a run of a set length. */
  char stopped_by[16];
  double agreement; /* relative difference from ref; NaN if unknown (a
                     * run not compared) */
  int agrees;       /* 1 when within the workload's tolerance; with
                     * agreement NaN it means nothing (JSON null) */
  ck_status status; /* in a comparison: CK_OK, or why this device failed */
  char error[2048]; /* the failure's message when status != CK_OK */
  size_t metric_count;
  ck_metric metrics[CK_RESULT_MAX_METRICS];
  /* The rest is owned by the result and released by ck_result_release().
   * The best position of an optimiser (pso, ga), every coordinate; NULL
   * and 0 for the other workloads. */
  double *position;
  size_t position_count;
  /* Every option of the workload, as the run resolved it: the value
   * given, else the one the run chose, else its default; a NULL value
   * where an option has none (an output not asked for). Flags are "1" or
   * "0". In the order of the workload's options table. */
  ck_param *options;
  size_t option_count;
  /* A spread run's members, in member order (NULL and 0 for a run on one
   * device), and what their units are ("particles", "islands", ...). */
  ck_spread_member *members;
  size_t member_count;
  char member_units[24];
} ck_result;

/*
 * ck_result_release - frees what a result owns (position, options,
 * members) and sets those fields to NULL and 0; the rest is kept. A
 * result must be released before it is filled again or goes out of
 * scope. A result
 * zeroed by the caller, or released already, is released again safely.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for NULL.
 */
ck_status ck_result_release(ck_result *result);

/*
 * ck_workload_find - a workload by name; workload is set to a static
 * entry owned by clkit.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument;
 * CK_ERROR_NOT_FOUND (listing the known names).
 */
ck_status ck_workload_find(const char *name, const ck_workload **workload);

/* ck_workload_list - every workload, in a static array owned by clkit, of
 * count entries.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_workload_list(const ck_workload *const **workloads, size_t *count);

/* ck_workload_describe - name, one-line summary and its options table
 * (terminated by an entry with a NULL name). All static, owned by clkit;
 * NULL skips one.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL workload. */
ck_status ck_workload_describe(const ck_workload *workload, const char **name,
                               const char **summary, const ck_option **options);

/*
 * ck_workload_run_demo - a small configuration of the workload that runs in
 * about a second on a CPU device, for demonstrations; count 0 means its
 * defaults already are. The array is static, owned by clkit.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
ck_status ck_workload_run_demo(const ck_workload *workload,
                               const ck_param **params, size_t *count);

/*
 * ck_workload_run - run a workload once on one device.
 * Takes: workload; device (from a ck_device_set); params (count entries;
 * names must be the workload's options); options (NULL for defaults:
 * seed 1); result (filled in, owning memory that ck_result_release()
 * frees; after a failure it owns nothing).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL workload, device,
 * result, or params with a count, or naming the offending option;
 * CK_ERROR_IO (a file that cannot be read, an output that cannot be
 * written, checked before the run), CK_ERROR_PARSE (a malformed input
 * file, or one the workload cannot use) and CK_ERROR_UNSUPPORTED (an
 * input larger than the workload holds), naming the file;
 * CK_ERROR_CANCELLED when options->progress asked to stop;
 * CK_ERROR_MISMATCH when a result cannot be trusted (no finite objective,
 * a best of -inf, an energy that blew up); CK_ERROR_DEVICE_MEMORY before
 * allocating past the device's memory; CK_ERROR_OUT_OF_MEMORY; any error
 * of the device or its kernels.
 * Option values, output files and log lines use the C locale ('.' as the
 * decimal point) whatever the caller set; the calling thread is switched
 * to it for the call (uselocale), callbacks included, and back.
 * The files the run writes replace theirs only when it returns CK_OK (a
 * periodic gas checkpoint excepted, which replaces the last at once);
 * on any error every one is left as it was.
 */
ck_status ck_workload_run(const ck_workload *workload, const ck_device *device,
                          const ck_param *params, size_t count,
                          const ck_run_options *options, ck_result *result);

/*
 * ck_job_prepare - a workload's params read once, to run on one device or
 * several in turn (ck_job_run), as ck_workload_run runs them: every
 * refusal of ck_workload_check (and, with options->spread, of
 * ck_workload_check_spread), and of the run options. No input file is
 * read (ck_job_load). params are copied; options is copied too, and what
 * it points to (callbacks' users, a spread) must outlive the job; the
 * reading depends on whether a spread is given, not on its devices,
 * which may be filled in before the first run. job: set to a job the
 * caller frees with ck_job_free(), or NULL after a failure.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL workload or job, or
 * naming the offending option; CK_ERROR_IO naming the option of an output
 * that cannot be written; CK_ERROR_UNSUPPORTED for run options the
 * workload does not take; CK_ERROR_OUT_OF_MEMORY.
 */
typedef struct ck_job ck_job;
ck_status ck_job_prepare(const ck_workload *workload, const ck_param *params,
                         size_t count, const ck_run_options *options,
                         ck_job **job);

/*
 * ck_job_load - reads the input files a job's runs share (a TSP instance
 * and its optima, an optimiser's --objective and --data), once; the first
 * ck_job_run reads them where this was not called. A caller that tells a
 * refused option from an input that cannot be read calls it apart.
 * Returns: CK_OK (at once where they are read); CK_ERROR_INVALID_ARGUMENT
 * for a NULL job, or naming an option the input contradicts; CK_ERROR_IO,
 * CK_ERROR_PARSE and CK_ERROR_UNSUPPORTED naming the file, as
 * ck_workload_run; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_job_load(ck_job *job);

/*
 * ck_job_run - a prepared job's run on device, with its options: what
 * ck_workload_run does after reading the params. The job stays as it was,
 * so it may run again (on another device); one thread runs it at a time.
 * Returns: as ck_workload_run.
 */
ck_status ck_job_run(ck_job *job, const ck_device *device, ck_result *result);

/* ck_job_free - frees a job (NULL: nothing).
 * Returns: CK_OK. */
ck_status ck_job_free(ck_job *job);

/*
 * ck_workload_check - validate parameters without running (input files
 * are not read; outputs are tried as ck_file_check_writable() does).
 * A file option's "-" is standard input for an input and standard output
 * for an output, as for Unix tools. Refused, naming the options: two
 * inputs on "-" (standard input holds one file), two outputs on one
 * descriptor (their bytes would run together), and a binary output (a
 * model, a checkpoint, a PNG) on a terminal.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT naming the option, or for a
 * NULL workload or params with a count; CK_ERROR_IO naming the option of
 * an output that cannot be written; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_workload_check(const ck_workload *workload, const ck_param *params,
                            size_t count);

/*
 * ck_workload_check_devices - whether params may run on `devices` devices
 * one after another (as ck_compare_run does, or a caller looping over
 * ck_workload_run). With more than one, an option naming a file the run
 * writes (an output, a model, a checkpoint) is refused: each run would
 * write it again, and one that a later run reads back (a model or
 * checkpoint replaced in place) would start the next device from another
 * state; so is an input on "-" (standard input is read once), and an
 * output that each run would write to standard output in turn (the MLP's
 * --predict without --out).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT naming the option, or for a
 * NULL workload or params with a count.
 */
ck_status ck_workload_check_devices(const ck_workload *workload,
                                    const ck_param *params, size_t count,
                                    size_t devices);

/*
 * ck_workload_check_spread - whether params may run as one run spread
 * over devices (ck_run_options.spread) and over `processes` processes (1
 * without MPI), before any device or process work. Refused, naming the
 * options: a workload that does not spread; an option that contradicts a
 * spread (PSO's ring topology, the ACO's focused method, the gas's all
 * pairs or soft-log model); and with more than one process, an input on
 * "-", since under MPI only rank 0 reads standard input.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT naming the option, or for a
 * NULL workload or params with a count; the workload's own refusals of
 * params (as ck_workload_check).
 */
ck_status ck_workload_check_spread(const ck_workload *workload,
                                   const ck_param *params, size_t count,
                                   size_t processes);

/*
 * ck_workload_check_processes - whether params may run over `processes`
 * processes, without reading them (ck_job_prepare reads them): with more
 * than one, an input on "-" is refused, since under MPI only rank 0 reads
 * standard input.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT naming the option, or for a
 * NULL workload or params with a count.
 */
ck_status ck_workload_check_processes(const ck_workload *workload,
                                      const ck_param *params, size_t count,
                                      size_t processes);

/*
 * ck_workload_check_spread_devices - whether a spread run of the workload
 * takes this process's devices as given (count of them): each device
 * once, but that the gas's and the GA's members may share one.
 * Takes: repeated, set to the index of the first device given again that
 * the workload refuses, else to count.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT naming a device given twice,
 * or for a NULL workload or repeated, or devices NULL with a count.
 */
ck_status ck_workload_check_spread_devices(const ck_workload *workload,
                                           const ck_device *devices,
                                           size_t count, size_t *repeated);

/*
 * ck_workload_find_stdout - the output option of params that writes to
 * standard output ("-", /dev/stdout, /dev/fd/1, or an output that goes
 * there when no file is named, as the MLP's --out for --predict), for a
 * caller that must then print its own text elsewhere, so that a pipe's
 * reader gets the output alone.
 * Takes: option, set to that option's name (a string of the workload's)
 * or NULL when no output goes there.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL workload or
 * option, or params NULL with a count.
 */
ck_status ck_workload_find_stdout(const ck_workload *workload,
                                  const ck_param *params, size_t count,
                                  const char **option);

/*
 * ck_file_check_stdout - whether an output written to path goes to
 * standard output: "-", /dev/stdout, /dev/fd/1 or /proc/self/fd/1.
 * Takes: is_stdout, set to 1 or 0.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
ck_status ck_file_check_stdout(const char *path, int *is_stdout);

/*
 * ck_file_check_same - whether two paths name one file, which may not exist yet
 * (then their directories are compared, with links resolved). A path that
 * cannot be resolved is taken as different from every other spelling.
 * "-" (standard input or output) is the same only as "-"; a file of that
 * name is spelled "./-".
 * Takes: same, set to 1 or 0. Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT
 * for a NULL argument; CK_ERROR_OUT_OF_MEMORY (same is then 0, which
 * does not say the paths differ).
 */
ck_status ck_file_check_same(const char *first, const char *second, int *same);

/*
 * ck_file_check_writable - whether an output could be written at path now, as
 * clkit writes outputs (a temporary beside the file, then a rename): for
 * checking every output of a run before the run, so that a bad path
 * costs neither the run nor the outputs written before it. Creates and
 * removes a temporary file, and removes the temporaries that killed
 * writers of path left, as a write does; a device or a pipe, written in
 * place, is not opened, and a descriptor's name ("-" or /dev/stdout for
 * standard output, /dev/fd/N), written through the descriptor, must name
 * one open for writing.
 * Returns: CK_OK; CK_ERROR_IO naming the path and the reason (a
 * directory, a missing directory, no permission for the directory or for
 * the file replaced (one replaced keeps its permissions), a descriptor not open
 * for writing, another user's file in a sticky directory);
 * CK_ERROR_INVALID_ARGUMENT for NULL or an empty path, or one that names a
 * directory by its spelling ("x/", "x/."); CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_file_check_writable(const char *path);

/*
 * ck_file_check_format - whether an output of a fixed format may be
 * named path: a name whose extension names another known format
 * (out.jpg for a PNG, out.dcd for extended XYZ) would be read as that
 * format. A name with no extension, or with one that names no format
 * known here, is taken as it is. Case does not matter (.PNG is .png).
 * Takes: path; format, the output's: "csv" (.csv, .txt), "text" (.txt,
 * .csv), "xyz" (.xyz, .extxyz), "png", "svg", "tour" (.tour, .txt),
 * "gas-checkpoint" (.ckg, .bin), "model" (.ckn, .safetensors, .bin) or
 * "lsq-binary" (.bin).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT naming the path, the format
 * its extension names, and the extensions the output may end in; or for
 * a NULL argument or an unknown format.
 */
ck_status ck_file_check_format(const char *path, const char *format);

/*
 * ck_file_write - write a whole file at path as clkit writes its outputs:
 * to a temporary beside it, renamed over it once complete, so that the
 * file holds its old content or the new, whole (as ck_file_check_writable
 * describes: links, devices and "-" for standard output too).
 * Takes: data, size bytes of it.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL or empty path, or
 * data NULL with a size; CK_ERROR_IO naming the path and the reason;
 * CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_file_write(const char *path, const void *data, size_t size);

/*
 * ck_file_remove_temporaries - remove the temporary files of the outputs
 * being written now (each ".NAME.tmp.TOKEN" beside its output, renamed
 * over it once complete), for a signal handler that ends the process
 * without letting the runs finish: it is async-signal-safe. The outputs
 * keep their old content; the writes in progress can no longer complete,
 * so it is only for a process that is ending. Up to 64 temporaries open
 * at once are listed.
 * Returns: CK_OK.
 */
ck_status ck_file_remove_temporaries(void);

/*
 * ck_compare_run - run one configuration and seed on several devices.
 * Runs ref first as the oracle (unless skip_ref), then each device in
 * indices; fills results[0 .. *produced-1] with agreement against ref
 * (with skip_ref, only a ref device's own row agrees, being the oracle).
 * ref runs with the values it has in place of choices only other devices
 * have: the MLP's `math` as fp32, so TF32 rows are checked against FP32.
 * params itself is not changed. A device that fails gets a row with its
 * status and error, and the comparison goes on.
 * options->log gets every run's lines, each naming its device's id
 * ("ocl:0.0: ...", or "warning: ocl:0.0: ..." for a warning).
 * params are read once (ck_job_prepare), for every run; the input files
 * the runs share once too, at the first run that reads them.
 * Takes: results with capacity entries (count + 1 needed with ref).
 * Returns: CK_OK; the ref run's failure (no oracle, nothing compared),
 * as CK_ERROR_INVALID_ARGUMENT where ref does not offer what params ask
 * for (a user objective), which no comparison can then check;
 * before any device runs: CK_ERROR_INVALID_ARGUMENT for a NULL argument,
 * bad parameters, a device index outside set or fewer result slots than
 * runs, and the other errors of ck_job_prepare(); CK_ERROR_NOT_FOUND
 * when set has no ref device and skip_ref is 0.
 */
ck_status ck_compare_run(const ck_workload *workload, const ck_device_set *set,
                         const size_t *indices, size_t count, int skip_ref,
                         const ck_param *params, size_t param_count,
                         const ck_run_options *options, ck_result *results,
                         size_t capacity, size_t *produced);

/*
 * ck_result_format_json - the result as one JSON object (no trailing newline).
 * Common fields: workload, version (clkit's), device, device_name, seed,
 * total_s, build_s, wall_s, kernel_s, best, best_name, throughput,
 * throughput_unit, agreement and agrees (null in a run not compared),
 * stopped_by (a string, or null for a run of a set length); x, the best
 * position as an array, where the workload has one; then each metric by
 * name (a flag as true or false); last, options: every option of the run
 * by name, as resolved (numbers as numbers, flags as true or false, an
 * option without a value as null, the rest as strings). The seed is
 * written with every digit.
 * Numbers are written in the C locale whatever the caller's.
 * Takes: json, set to a malloc'd string the caller releases with
 * ck_memory_free().
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or a
 * metric_count above CK_RESULT_MAX_METRICS; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck_result_format_json(const ck_result *result, char **json);

/*
 * ck_param_parse_number - text read as the workloads read their option
 * values: a finite decimal number (digits, a point, an exponent, signs)
 * with nothing before or after it, so no blanks, hexadecimal, inf or nan;
 * "1e3" is 1000; a magnitude below DBL_MIN is read as the nearest
 * subnormal ("4.9e-324").
 * Returns: CK_OK with *value set; CK_ERROR_INVALID_ARGUMENT for a NULL
 * argument, or when text is not such a number or is out of a double's
 * range: past DBL_MAX, or nonzero digits that round to 0 ("1e-400")
 * (*value unchanged); CK_ERROR_OUT_OF_MEMORY. The point is '.' whatever
 * the caller's locale.
 */
ck_status ck_param_parse_number(const char *text, double *value);

/*
 * ck_param_suggest - the name a user most likely meant by a word that
 * names nothing: the library's own messages suggest so for its tables
 * (options, functions, workloads), and a caller does alike for its own.
 * A name is near when a few letters are wrong, missing, extra or swapped
 * (one in three, letters in any case), or when one abbreviates the other,
 * its first three letters kept ("iters" and "iterations"). The nearest
 * wins; a tie goes to the longer common beginning, then the first given.
 * Takes: word; names, count of them (NULL entries are skipped); nearest,
 * set to one of names (not copied), or NULL when none is near.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL word or nearest,
 * or names NULL with count above 0.
 */
ck_status ck_param_suggest(const char *word, const char *const *names,
                           size_t count, const char **nearest);

/*
 * ck_result_get_metric - look a metric up by name.
 * Returns: CK_OK; CK_ERROR_NOT_FOUND; CK_ERROR_INVALID_ARGUMENT for a NULL
 * argument or a metric_count above CK_RESULT_MAX_METRICS.
 */
ck_status ck_result_get_metric(const ck_result *result, const char *name,
                               double *value);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_WORKLOAD_H */
