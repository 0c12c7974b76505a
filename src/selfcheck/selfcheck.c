/*
 * selfcheck.c - the built-in self-check workload: fills a buffer from
 * Philox streams and reduces it, on any device. It proves that a device
 * builds and runs kernels and draws the same random streams as ref, and
 * it is the smallest example of the workload pattern: one driver (the
 * loop in selfcheck_run) over a table of steps per backend.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck_philox.h"
#include "framework/framework.h"

enum { DEFAULT_GROUP = 256 };

typedef struct selfcheck_state {
  ck_queue *queue;
  ck_buffer *values, *bits, *sums, *xors;
  uint32_t count;      /* elements per pass */
  uint32_t group_size; /* reduction work-group size */
  uint32_t groups;     /* reduction work-groups */
  uint64_t seed;
  ck_program *program; /* OpenCL only */
  ck_kernel *generate, *reduce;
} selfcheck_state;

typedef struct selfcheck_steps {
  ck_status (*setup)(selfcheck_state *state);
  ck_status (*generate)(selfcheck_state *state, uint32_t pass);
  ck_status (*reduce)(selfcheck_state *state);
  void (*teardown)(selfcheck_state *state);
} selfcheck_steps;

CK__STEPS_TABLE(selfcheck_steps, 4);

/* ---- ref steps: the readable definition --------------------------------- */

static ck_status ref_setup(selfcheck_state *state) {
  (void)state;
  return CK_OK;
}

static ck_status ref_generate(selfcheck_state *state, uint32_t pass) {
  float *values;
  uint32_t *bits;
  ck_status status;
  if ((status = ck_buffer_get_host_pointer(state->values, (void **)&values)) ||
      (status = ck_buffer_get_host_pointer(state->bits, (void **)&bits)))
    return status;
  for (uint32_t item = 0; 4u * item < state->count; ++item) {
    ck_philox_counter block = ck_philox_block(state->seed, pass, item);
    for (uint32_t k = 0; k < 4 && 4u * item + k < state->count; ++k) {
      bits[4 * item + k] = block.v[k];
      values[4 * item + k] = ck_uniform_float(block.v[k]);
    }
  }
  return CK_OK;
}

/* The same decomposition as the kernel, so the float sums match closely. */
static ck_status ref_reduce(selfcheck_state *state) {
  float *values, *sums, *partial_sums = NULL;
  uint32_t *bits, *xors, *partial_xors = NULL;
  ck_status status = CK_OK;
  if ((status = ck_buffer_get_host_pointer(state->values, (void **)&values)) ||
      (status = ck_buffer_get_host_pointer(state->bits, (void **)&bits)) ||
      (status = ck_buffer_get_host_pointer(state->sums, (void **)&sums)) ||
      (status = ck_buffer_get_host_pointer(state->xors, (void **)&xors)))
    return status;
  uint32_t group = state->group_size;
  partial_sums = malloc(group * sizeof *partial_sums);
  partial_xors = malloc(group * sizeof *partial_xors);
  if (!partial_sums || !partial_xors)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory in selfcheck");
  uint32_t stride = group * state->groups;
  for (uint32_t g = 0; g < state->groups; ++g) {
    for (uint32_t l = 0; l < group; ++l) {
      float sum = 0.0f;
      uint32_t folded = 0;
      for (uint32_t i = g * group + l; i < state->count; i += stride) {
        sum += values[i];
        folded ^= bits[i];
      }
      partial_sums[l] = sum;
      partial_xors[l] = folded;
    }
    for (uint32_t half = group / 2; half > 0; half >>= 1) {
      for (uint32_t l = 0; l < half; ++l) {
        partial_sums[l] += partial_sums[l + half];
        partial_xors[l] ^= partial_xors[l + half];
      }
    }
    sums[g] = partial_sums[0];
    xors[g] = partial_xors[0];
  }
fail:
  free(partial_sums);
  free(partial_xors);
  return status;
}

static void ref_teardown(selfcheck_state *state) {
  (void)state;
}

static const selfcheck_steps ref_steps = {
    .setup = ref_setup,
    .generate = ref_generate,
    .reduce = ref_reduce,
    .teardown = ref_teardown,
};

/* ---- OpenCL steps: kernels in cl/selfcheck.cl --------------------------- */

static ck_status opencl_setup(selfcheck_state *state) {
  ck_status status = CK_OK;
  char defines[64];
  snprintf(defines, sizeof defines, "-DCK_SELFCHECK_GROUP=%u",
           (unsigned)state->group_size);
  CK_TRY(ck_program_build(state->queue, "selfcheck", defines, &state->program));
  CK_TRY(ck_kernel_create(state->program, "ck_selfcheck_generate",
                          &state->generate));
  CK_TRY(
      ck_kernel_create(state->program, "ck_selfcheck_reduce", &state->reduce));
  ck_kernel_args args;
  ck_kernel_args_begin(state->reduce, &args);
  ck_kernel_args_buffer(&args, state->values);
  ck_kernel_args_buffer(&args, state->bits);
  ck_kernel_args_u32(&args, state->count);
  ck_kernel_args_buffer(&args, state->sums);
  ck_kernel_args_buffer(&args, state->xors);
  CK_TRY(ck_kernel_args_end(&args));
  return CK_OK;
fail:
  return status;
}

/* All six arguments at each pass, since the pass (the last) changes. */
static ck_status opencl_generate(selfcheck_state *state, uint32_t pass) {
  ck_kernel_args args;
  ck_kernel_args_begin(state->generate, &args);
  ck_kernel_args_buffer(&args, state->values);
  ck_kernel_args_buffer(&args, state->bits);
  ck_kernel_args_u32(&args, state->count);
  ck_kernel_args_u32(&args, (uint32_t)state->seed);
  ck_kernel_args_u32(&args, (uint32_t)(state->seed >> 32));
  ck_kernel_args_u32(&args, pass);
  ck_status status = ck_kernel_args_end(&args);
  if (status != CK_OK)
    return status;
  size_t items = (state->count + 3) / 4;
  size_t local = state->group_size;
  size_t global = (items + local - 1) / local * local;
  return ck_queue_launch(state->queue, state->generate, 1, &global, &local,
                         NULL);
}

static ck_status opencl_reduce(selfcheck_state *state) {
  size_t local = state->group_size;
  size_t global = local * state->groups;
  return ck_queue_launch(state->queue, state->reduce, 1, &global, &local, NULL);
}

static void opencl_teardown(selfcheck_state *state) {
  ck_kernel_destroy(state->generate);
  ck_kernel_destroy(state->reduce);
  ck_program_destroy(state->program);
}

static const selfcheck_steps opencl_steps = {
    .setup = opencl_setup,
    .generate = opencl_generate,
    .reduce = opencl_reduce,
    .teardown = opencl_teardown,
};

/* ---- the driver -----------------------------------------------------------
 */

/* The run's settings. */
typedef struct selfcheck_job {
  long long count, passes;
} selfcheck_job;

static const ck__field selfcheck_fields[] = {
    {CK__FIELD_OF(selfcheck_job, count, CK__FIELD_INT64, 1048576, 1, 1 << 30)},
    {CK__FIELD_OF(selfcheck_job, passes, CK__FIELD_INT64, 4, 1, 1000000)},
};

static const ck__option selfcheck_options[] = {
    {"count", "N", "random numbers per pass", .field = &selfcheck_fields[0]},
    {"passes", "P", "generate-and-reduce passes (streams 0 .. P-1)",
     .field = &selfcheck_fields[1]},
    {0},
};

static ck_status job_parse(const ck_param *params, size_t count,
                           selfcheck_job *job) {
  ck__fields_init(job, selfcheck_fields,
                  sizeof selfcheck_fields / sizeof *selfcheck_fields);
  return ck__options_read(selfcheck_options, params, count, job);
}

static ck_status selfcheck_check(const ck_param *params, size_t count) {
  selfcheck_job job;
  return job_parse(params, count, &job);
}

static ck_status selfcheck_prepare(const ck_param *params, size_t count,
                                   const ck_run_options *options, void *job) {
  (void)options;
  return job_parse(params, count, job);
}

/* Largest power of two not above the device's work-group limit, capped. */
static uint32_t reduction_group(const ck_device *device) {
  size_t limit = ck__device_runs_kernels(device) ? device->max_work_group_size
                                                 : DEFAULT_GROUP;
  uint32_t group = 1;
  while (group * 2 <= DEFAULT_GROUP && group * 2 <= limit)
    group *= 2;
  return group;
}

/* The run's passes (ck__loop_run): each generates and reduces, then the
 * host adds up the groups' sums and checksums. */
typedef struct passes_run {
  selfcheck_state *state;
  const selfcheck_steps *steps;
  float *sums;
  uint32_t *xors;
  long long pass; /* the next pass */
  double total;
  uint32_t checksum;
} passes_run;

static ck_status run_passes(void *self, uint64_t count) {
  passes_run *run = self;
  selfcheck_state *state = run->state;
  ck_status status = CK_OK;
  for (uint64_t p = 0; p < count; ++p, ++run->pass) {
    CK_TRY(run->steps->generate(state, (uint32_t)run->pass));
    CK_TRY(run->steps->reduce(state));
    CK_TRY(ck_buffer_read(state->queue, state->sums, 0,
                          state->groups * sizeof *run->sums, run->sums,
                          CK_BLOCKING, NULL));
    CK_TRY(ck_buffer_read(state->queue, state->xors, 0,
                          state->groups * sizeof *run->xors, run->xors,
                          CK_BLOCKING, NULL));
    for (uint32_t g = 0; g < state->groups; ++g) {
      run->total += run->sums[g];
      run->checksum ^= run->xors[g];
    }
  }
fail:
  return status;
}

/* The reduction's work-groups, of reduction_group() work-items each:
 * enough to cover a pass, but at most 4 a compute unit (and at least 1). */
static void size_groups(selfcheck_state *state, const ck_device *device) {
  state->group_size = reduction_group(device);
  uint32_t wanted = (state->count + state->group_size - 1) / state->group_size;
  uint32_t cap = device->compute_units ? 4 * device->compute_units : 4;
  state->groups = wanted < cap ? wanted : cap;
  if (state->groups == 0)
    state->groups = 1;
}

/* The run's queue, and on it the numbers and the groups' sums and
 * checksums. */
static ck_status make_buffers(selfcheck_state *state, const ck_device *device) {
  ck_status status = CK_OK;
  CK_TRY(ck_queue_create(device, &state->queue));
  CK_TRY(ck_buffer_create(state->queue, state->count * sizeof(float),
                          &state->values));
  CK_TRY(ck_buffer_create(state->queue, state->count * sizeof(uint32_t),
                          &state->bits));
  CK_TRY(ck_buffer_create(state->queue, state->groups * sizeof(float),
                          &state->sums));
  CK_TRY(ck_buffer_create(state->queue, state->groups * sizeof(uint32_t),
                          &state->xors));
fail:
  return status;
}

/* The run's result from the passes' total and checksum: the mean, the
 * throughput and the metrics. */
static void fill_result(ck_result *result, const selfcheck_state *state,
                        const selfcheck_job *job, const ck_program_stats *build,
                        double total, uint32_t checksum) {
  double numbers = (double)state->count * (double)job->passes;
  result->best = total / numbers;
  snprintf(result->best_name, sizeof result->best_name, "mean");
  result->throughput = result->wall_s > 0 ? numbers / result->wall_s : 0;
  snprintf(result->throughput_unit, sizeof result->throughput_unit,
           "numbers/s");
  ck__result_metric(result, "xor_checksum", checksum, "");
  ck__result_metric(result, "count", state->count, "");
  ck__result_metric(result, "passes", (double)job->passes, "");
  ck__result_metric(result, "group_size", state->group_size, "");
  ck__result_flag(result, "from_cache", build->from_cache);
  /* The mean of n uniforms has standard deviation 1/sqrt(12 n). */
  ck__result_metric(result, "mean_sigmas",
                    (result->best - 0.5) * sqrt(12.0 * numbers), "");
}

static ck_status selfcheck_run(const void *prepared, const ck_device *device,
                               const ck_param *params, size_t count,
                               const ck_run_options *options,
                               ck_result *result) {
  ck_status status = CK_OK;
  selfcheck_state state = {0};
  float *sums = NULL;
  uint32_t *xors = NULL;
  const selfcheck_job *job = prepared;
  (void)params;
  (void)count;
  /* No native steps: on CUDA the OpenCL kernels run, built by NVRTC. */
  const selfcheck_steps *steps =
      ck__steps_pick(device, &ref_steps, &opencl_steps, NULL, NULL, 0);
  int set_up = 0;
  state.count = (uint32_t)job->count;
  state.seed = options->seed;
  size_groups(&state, device);
  CK_TRY(make_buffers(&state, device));
  sums = malloc(state.groups * sizeof *sums);
  xors = malloc(state.groups * sizeof *xors);
  if (!sums || !xors)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory in selfcheck");

  CK_TRY(steps->setup(&state));
  set_up = 1;
  ck_program_stats build = {0};
  if (state.program)
    ck_program_query(state.program, &build);

  double started = ck__seconds();
  passes_run run = {&state, steps, sums, xors, 0, 0.0, 0};
  const ck__loop_rules rules = {
      .shape = CK__LOOP_CHUNKS,
      .max_steps = (uint64_t)job->passes,
      .default_steps = (uint64_t)job->passes,
      .check_every = 1,
      .progress = options->progress,
      .progress_user = options->progress_user,
      .step_name = "passes",
      .best_name = "",
      .cancelled = "selfcheck cancelled after pass %lld",
      .cancel_offset = -1}; /* passes are numbered from 0 */
  const ck__loop_driver driver = {&run, run_passes, NULL, NULL};
  ck__loop_outcome outcome;
  CK_TRY(ck__loop_run(&rules, &driver, &outcome));
  CK_TRY(ck_queue_finish(state.queue));
  result->wall_s = ck__seconds() - started;
  ck_queue_get_kernel_seconds(state.queue, &result->kernel_s);

  fill_result(result, &state, job, &build, run.total, run.checksum);
fail:
  if (set_up || state.program)
    steps->teardown(&state);
  free(sums);
  free(xors);
  ck_buffer_destroy(state.values);
  ck_buffer_destroy(state.bits);
  ck_buffer_destroy(state.sums);
  ck_buffer_destroy(state.xors);
  ck_queue_destroy(state.queue);
  return status;
}

/* Agreement: identical raw words, and a mean within float rounding. */
static ck_status selfcheck_agree(const ck_result *reference,
                                 const ck_result *result, double *difference,
                                 int *agrees) {
  double reference_checksum = 0, checksum = 0;
  if (ck_result_get_metric(reference, "xor_checksum", &reference_checksum) ||
      ck_result_get_metric(result, "xor_checksum", &checksum))
    return CK_ERROR_NOT_FOUND;
  *difference = fabs(result->best - reference->best) / fabs(reference->best);
  *agrees = checksum == reference_checksum && *difference <= 1e-5;
  return CK_OK;
}

/* ---- benchmark sizes and the cost model (docs/bench.md) ----------------- */

#define SELFCHECK_RUNG(count)                                                  \
  {                                                                            \
    {"passes", "16"}, {"count", count}, {                                      \
      NULL, NULL                                                               \
    }                                                                          \
  }
static const ck_param selfcheck_rungs[CK_BENCH_RUNGS][3] = {
    SELFCHECK_RUNG("65536"),    SELFCHECK_RUNG("262144"),
    SELFCHECK_RUNG("1048576"),  SELFCHECK_RUNG("4194304"),
    SELFCHECK_RUNG("16777216"), SELFCHECK_RUNG("67108864"),
    SELFCHECK_RUNG("268435456")};
static const char *const selfcheck_size_options[] = {"count", "passes", NULL};
static const char *const selfcheck_size_metrics[] = {"count", "passes", NULL};

/* A number's float and its raw word. */
enum { SELFCHECK_NUMBER_BYTES = sizeof(float) + sizeof(uint32_t) };

static void selfcheck_footprint(const ck_param *params, size_t count,
                                const ck_device *device, double *total,
                                double *largest) {
  (void)device;
  double numbers =
      ck__param_number(params, count, "count", selfcheck_fields[0].value);
  *total = numbers * SELFCHECK_NUMBER_BYTES;
  *largest = numbers * sizeof(float);
}

/* A unit is one number of one pass: the generation writes its float and
 * its word, the reduction reads both (twice SELFCHECK_NUMBER_BYTES), and
 * the uniform's scale and the sum are its two flops; Philox's integer
 * work is not counted. */
static ck_status selfcheck_cost(const ck_result *result, ck_cost *cost) {
  static const char *const names[] = {"count", "passes", NULL};
  double values[2];
  ck_status status = ck__result_values(result, names, values);
  if (status != CK_OK)
    return status;
  cost->units = values[0] * values[1];
  cost->bytes = cost->units * 2 * SELFCHECK_NUMBER_BYTES;
  cost->flops = cost->units * 2;
  return CK_OK;
}

static const ck__bench selfcheck_bench = {
    .format = "numbers x passes",
    .rungs = {selfcheck_rungs[0], selfcheck_rungs[1], selfcheck_rungs[2],
              selfcheck_rungs[3], selfcheck_rungs[4], selfcheck_rungs[5],
              selfcheck_rungs[6]},
    .size_options = selfcheck_size_options,
    .footprint = selfcheck_footprint,
    .size_metrics = selfcheck_size_metrics,
    .cost = selfcheck_cost};

const ck_workload ck__selfcheck_workload = {
    .name = "selfcheck",
    .summary = "Philox streams and a reduction: proves a device runs kernels "
               "and matches ref",
    .options = selfcheck_options,
    CK__OPTIONS_SHOWN(selfcheck_options),
    .tolerance = 1e-5,
    .check = selfcheck_check,
    .job_bytes = sizeof(selfcheck_job),
    .prepare = selfcheck_prepare,
    .run = selfcheck_run,
    .agree = selfcheck_agree,
    .bench = &selfcheck_bench,
};
