/*
 * framework.h - the workload framework: what a workload provides to the
 * registry, and the helpers every workload uses to read its options and
 * fill its result.
 *
 * A workload is one backend-neutral driver (the algorithm's loop) over a
 * small table of steps per backend; see docs/architecture.md.
 */
#ifndef CK_FRAMEWORK_H
#define CK_FRAMEWORK_H

#include "runtime/runtime.h"

struct ck_workload {
  const char *name;
  const char *summary;
  const ck_option *options; /* terminated by a NULL name */
  /* Relative difference of `best` from ref within which a run agrees. */
  double tolerance;
  /* Validates the workload's own parameters (names are checked already). */
  ck_status (*check)(const ck_param *params, size_t count);
  ck_status (*run)(const ck_device *device, const ck_param *params,
                   size_t count, const ck_run_options *options,
                   ck_result *result);
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

/* One of a list of words, for an option; CK_ERROR_INVALID_ARGUMENT naming
 * the option and the choices otherwise. */
ck_status ck__parse_choice(const char *option, const char *text,
                           const char *const *choices, int *choice);

/* Reads an integer option in [minimum, maximum], or the fallback. */
ck_status ck__param_integer(const ck_param *params, size_t count,
                            const char *name, long long fallback,
                            long long minimum, long long maximum,
                            long long *value);

/* Reads a real option in [minimum, maximum], or the fallback. */
ck_status ck__param_real(const ck_param *params, size_t count, const char *name,
                         double fallback, double minimum, double maximum,
                         double *value);

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

/* Fills the device fields of a result and zeroes the rest (it must own
 * nothing: see ck_result_release). */
void ck__result_begin(ck_result *result, const char *workload,
                      const ck_device *device);

#endif /* CK_FRAMEWORK_H */
