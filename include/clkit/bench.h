/*
 * clkit/bench.h - the sizes a benchmark runs each workload at, and what a
 * run moved and computed by its workload's cost model.
 *
 * Each workload has a ladder of CK_BENCH_RUNGS sizes, rung 0 the smallest
 * (seconds on a CPU core for every workload together) and the top rung
 * sized for a large GPU. `clkit bench` and `clkit compare` start each
 * device at its class's rung and grow it until a run lasts long enough to
 * measure, within the device's memory (docs/bench.md).
 */
#ifndef CLKIT_BENCH_H
#define CLKIT_BENCH_H

#include <stddef.h>

#include "clkit/device.h"
#include "clkit/status.h"
#include "clkit/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  CK_BENCH_RUNGS = 7, /* rungs 0 .. 6 of every workload's ladder */
  CK_BENCH_SMALL = 0, /* the tiers, by name */
  CK_BENCH_MEDIUM = 3,
  CK_BENCH_LARGE = 6,
  /* ref's rung: a serial run that a CPU core makes in about a second or
   * less, where agreement is checked unless a size is forced */
  CK_BENCH_REF_RUNG = 1,
  CK_BENCH_CPU_RUNG = 2, /* where a CPU device starts growing */
  CK_BENCH_GPU_RUNG = 4  /* where a GPU or accelerator starts growing */
};

/* A device grows to the next rung while its run took less than this. */
#define CK_BENCH_GROW_BELOW_S 0.2

/*
 * ck_bench_size - the options of rung `rung` of the workload's ladder:
 * the settings the ladder fixes (PSO's --fn rastrigin), then the sizes.
 * Options given after them override a setting (the last value wins).
 * Takes: params, set to a static array owned by clkit, of count entries.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or a rung
 * of CK_BENCH_RUNGS or more.
 */
ck_status ck_bench_size(const ck_workload *workload, unsigned rung,
                        const ck_param **params, size_t *count);

/*
 * ck_bench_describe - what a size in the workload's words counts, as the
 * size column's heading: "particles x dims x iters".
 * Takes: format, set to a static string owned by clkit.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
ck_status ck_bench_describe(const ck_workload *workload, const char **format);

/*
 * ck_bench_find_size_option - the first of params that sets a run's size
 * or length (PSO's --particles, --dim, --iters, --evals, --time,
 * --target), for a caller that then runs params as given, unsized.
 * Takes: option, set to the option's name (a string of params) or NULL.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL workload or
 * option, or params NULL with a count.
 */
ck_status ck_bench_find_size_option(const ck_workload *workload,
                                    const ck_param *params, size_t count,
                                    const char **option);

/*
 * ck_bench_first_rung - the rung a device starts at: CK_BENCH_REF_RUNG
 * for ref, which stays there (*grows 0: a serial run is filled at any
 * size); CK_BENCH_CPU_RUNG for a CPU, CK_BENCH_GPU_RUNG for a GPU or an
 * accelerator, which grow (*grows 1).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
ck_status ck_bench_first_rung(const ck_device *device, unsigned *rung,
                              int *grows);

/*
 * ck_bench_fits - whether the workload's run at rung, with extra options
 * after the rung's (count of them), fits the device: its estimated
 * memory within 90% of global_memory, as the runs check theirs, and its
 * largest buffer within max_alloc. The estimate is the ladder's; a run
 * checks its own memory exactly before it allocates.
 * Takes: fits, set to 1 or 0.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, extra
 * NULL with a count or a rung out of range.
 */
ck_status ck_bench_fits(const ck_workload *workload, unsigned rung,
                        const ck_param *extra, size_t count,
                        const ck_device *device, int *fits);

/*
 * ck_bench_next_rung - the growth rule: after a run at rung that took
 * wall_s seconds, the rung to run next: rung + 1 when the run took less
 * than CK_BENCH_GROW_BELOW_S, a rung above exists and fits the device
 * (ck_bench_fits, with extra); otherwise rung itself, the size to keep.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or a rung
 * out of range.
 */
ck_status ck_bench_next_rung(const ck_workload *workload, unsigned rung,
                             double wall_s, const ck_param *extra, size_t count,
                             const ck_device *device, unsigned *next);

/*
 * ck_result_describe_size - a run's size from its resolved options and
 * counters, in the words of ck_bench_describe: "1048576 x 100 x 200".
 * Takes: text, written with at most capacity bytes.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, a zero
 * capacity or a result of no known workload.
 */
ck_status ck_result_describe_size(const ck_result *result, char *text,
                                  size_t capacity);

/* What a run moved and computed, by its workload's cost model
 * (docs/bench.md, and each workload's page). */
typedef struct ck_cost {
  double units;         /* the run's work in its throughput's unit
                         * (evaluations, gene-generations, tours, samples,
                         * particle-steps, numbers) */
  double bytes;         /* moved to and from device memory; NaN unknown */
  double flops;         /* floating-point operations; NaN unknown */
  int double_precision; /* 1 when the flops are FP64, else FP32 */
} ck_cost;

/*
 * ck_result_get_cost - the run's cost by its workload's model, from its
 * resolved options and counters: per unit, bytes / units and flops /
 * units; per second, those times the result's throughput.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, a failed
 * result or one of no known workload; CK_ERROR_NOT_FOUND where the result
 * lacks a counter the model reads.
 */
ck_status ck_result_get_cost(const ck_result *result, ck_cost *cost);

/*
 * ck_result_agree - sets result's agreement and agrees against reference,
 * a run of the same workload, options and seed (on ref, as the oracle),
 * as ck_compare_run does.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, results
 * of two workloads, or one of no known workload.
 */
ck_status ck_result_agree(const ck_result *reference, ck_result *result);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_BENCH_H */
