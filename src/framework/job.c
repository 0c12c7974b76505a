/*
 * job.c - a run: its params read once into a job (the workload's
 * prepare), which then runs on a device (its run). ck_workload_run does
 * both in one call; ck_job_prepare and ck_job_run apart, so that one
 * reading serves runs on several devices.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"

struct ck_job {
  const ck_workload *workload;
  const ck_param *params; /* the caller's, or copies in text */
  size_t count;
  ck_param *copies;
  char *text;
  ck_run_options options; /* the caller's, else the defaults */
  void *read;             /* the workload's reading, job_bytes */
  int prepared;           /* read holds what release frees */
  int loaded;             /* its input files are read */
};

/* A run in progress, for the progress and build callbacks. */
typedef struct current_run {
  const ck_workload *workload;
  const ck_device *device;
  const ck_run_options *caller; /* the caller's options */
  double build_s;               /* kernel builds so far */
} current_run;

/* The caller's progress callback, told which workload and device. */
static int report_progress(void *user, const ck_progress *progress) {
  const current_run *run = user;
  assert(run && run->caller->progress && progress);
  ck_progress named = *progress;
  named.workload = run->workload->name;
  named.device = run->device->id;
  return run->caller->progress(run->caller->progress_user, &named);
}

/* The run's watch of program builds (ck__build_watching): the caller's
 * build callback is told, and the run's build time grows. */
static void build_started(void *user, const char *program) {
  const current_run *run = user;
  if (run->caller->build)
    run->caller->build(run->caller->build_user, program, run->device->id,
                       CK_BUILD_BEGINS, 0);
}

static void build_ended(void *user, const char *program, double seconds,
                        int failed) {
  current_run *run = user;
  run->build_s += seconds;
  if (!run->caller->build)
    return;
  /* A failed build's message outlives the caller's callback. */
  ck__error_saved saved;
  ck__error_save(&saved);
  run->caller->build(run->caller->build_user, program, run->device->id,
                     failed ? CK_BUILD_FAILED : CK_BUILD_DONE, seconds);
  ck__error_restore(&saved);
}

/* The run options' refusals that need no reading of params. */
static ck_status check_options(const ck_workload *workload,
                               const ck_run_options *options) {
  if (options->spread)
    return ck__workload_check_spreads(workload);
  if (options->objective && !workload->objectives)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "%s takes no host objective (ck_run_options.objective)",
                    workload->name);
  if (options->device_objective && !workload->device_objectives)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "%s takes no device objective "
                    "(ck_run_options.device_objective)",
                    workload->name);
  if (options->objective && options->device_objective)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_run_options: give objective or device_objective, "
                    "not both");
  return CK_OK;
}

/* The table's checks and the run options', before the workload reads
 * params (check_job) and its input files (read_job). */
static ck_status check_job(const char *function, const ck_job *job) {
  ck_status status = ck__workload_check_params(function, job->workload,
                                               job->params, job->count, NULL);
  return status ? status : check_options(job->workload, &job->options);
}

static ck_status read_job(ck_job *job) {
  const ck_workload *workload = job->workload;
  assert(!job->prepared && workload->prepare && workload->run);
  job->read = calloc(1, workload->job_bytes ? workload->job_bytes : 1);
  if (!job->read)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  ck_status status = ck__option_name_field(
      workload->options,
      workload->prepare(job->params, job->count, &job->options, job->read));
  job->prepared = status == CK_OK;
  return status ? status
                : ck__workload_check_formats(workload, job->params, job->count);
}

/* Its input files, once. */
static ck_status load_job(ck_job *job) {
  const ck_workload *workload = job->workload;
  assert(job->prepared);
  if (job->loaded || !workload->load)
    return CK_OK;
  ck_status status = ck__option_name_field(
      workload->options,
      workload->load(job->read, job->params, job->count, &job->options));
  job->loaded = status == CK_OK;
  return status;
}

static void clear_job(ck_job *job) {
  if (job->prepared && job->workload->release)
    job->workload->release(job->read);
  job->prepared = job->loaded = 0;
  free(job->read);
  job->read = NULL;
}

/* A run once its job is checked (and, with `read`, before its reading)
 * and its session held. */
static ck_status run_begun(ck_job *job, const ck_device *device, int read,
                           ck_result *result) {
  ck_status status;
  const ck_workload *workload = job->workload;
  const ck_run_options *options = &job->options;
  assert(device && result && (read || job->prepared));
  result->seed = options->seed;
  double started = ck__seconds();
  current_run run = {workload, device, options, 0};
  const ck__build_watch watch = {build_started, build_ended, &run};
  const ck__build_watch *outer = ck__build_watching;
  ck_run_options own = *options;
  if (options->progress) {
    own.progress = report_progress;
    own.progress_user = &run;
  }
  if ((status = ck__result_options_begin(workload, result)) != CK_OK)
    return status;
  /* The start, before inputs are read and kernels built, so that a
   * caller can say what it waits for; it may cancel at once too. */
  ck_progress start = {.step_name = "", .best = NAN, .best_name = ""};
  if (own.progress && own.progress(own.progress_user, &start)) {
    ck_result_release(result);
    return ck__fail(CK_ERROR_CANCELLED, "%s cancelled before it began",
                    workload->name);
  }
  if ((read && (status = read_job(job)) != CK_OK) ||
      (status = load_job(job)) != CK_OK) {
    ck_result_release(result);
    return status;
  }
  ck__build_watching = &watch;
  /* A run replaces its outputs only once all of them are written: one that
   * fails after writing some (a later output refused, a checkpoint of a
   * state gone bad) leaves every file as it was. */
  int held = ck__file_hold_begin();
  status = ck__option_name_field(
      workload->options,
      workload->run(job->read, device, job->params, job->count, &own, result));
  ck_status committed = ck__file_hold_end(held, status == CK_OK);
  ck__build_watching = outer;
  if (status == CK_OK)
    status = committed;
  if (status == CK_OK)
    status = ck__result_options_end(workload, job->params, job->count, result);
  if (status != CK_OK) {
    ck_result_release(result);
    return status;
  }
  /* Workloads time themselves where setup must be excluded; if not, the
   * whole call is the wall time. */
  result->total_s = ck__seconds() - started;
  result->build_s = run.build_s;
  if (result->wall_s <= 0)
    result->wall_s = result->total_s;
  return CK_OK;
}

/* A run of job on device, in the C locale: its session held, and (with
 * `read`) its params read first. */
static ck_status run_job(const char *function, ck_job *job,
                         const ck_device *device, int read, ck_result *result) {
  CK__REQUIRE_IN(function, device);
  CK__REQUIRE_IN(function, result);
  ck__c_locale locale = {0};
  ck_status status = ck__c_locale_enter(&locale, function);
  if (status != CK_OK)
    return status;
  /* Whatever follows, the result owns nothing after a failure. */
  ck__result_begin(result, job->workload->name, device);
  if (read)
    status = check_job(function, job);
  /* A device of a destroyed session is refused before any work. A run
   * begun finishes on its session, though a callback destroys it. */
  ck_session *outer = NULL;
  if (status == CK_OK &&
      (status = ck__session_run_begin(device, &outer)) == CK_OK) {
    status = run_begun(job, device, read, result);
    ck__session_run_end(outer);
  }
  ck__c_locale_leave(&locale);
  return status;
}

/* The job of a call: the caller's params and options (else the
 * defaults), not copied. */
static ck_job job_of(const ck_workload *workload, const ck_param *params,
                     size_t count, const ck_run_options *options) {
  ck_job job = {.workload = workload, .params = params, .count = count};
  job.options = options ? *options : (ck_run_options){.seed = 1};
  return job;
}

ck_status ck_workload_run(const ck_workload *workload, const ck_device *device,
                          const ck_param *params, size_t count,
                          const ck_run_options *options, ck_result *result) {
  CK__REQUIRE_IN("ck_workload_run", workload);
  ck_job job = job_of(workload, params, count, options);
  ck_status status = run_job("ck_workload_run", &job, device, 1, result);
  clear_job(&job);
  return status;
}

/* The params' copies: names and values in one block of text. */
static ck_status copy_params(ck_job *job) {
  size_t bytes = 0;
  for (size_t i = 0; i < job->count; ++i)
    bytes += strlen(job->params[i].name) + strlen(job->params[i].value) + 2;
  job->copies = calloc(job->count ? job->count : 1, sizeof *job->copies);
  job->text = malloc(bytes ? bytes : 1);
  if (!job->copies || !job->text)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  char *at = job->text;
  for (size_t i = 0; i < job->count; ++i) {
    const char *parts[2] = {job->params[i].name, job->params[i].value};
    const char **copies[2] = {&job->copies[i].name, &job->copies[i].value};
    for (int k = 0; k < 2; ++k) {
      size_t length = strlen(parts[k]) + 1;
      memcpy(at, parts[k], length);
      *copies[k] = at;
      at += length;
    }
  }
  job->params = job->copies;
  return CK_OK;
}

ck_status ck__job_prepare(const char *function, const ck_workload *workload,
                          const ck_param *params, size_t count,
                          const ck_run_options *options, ck_job **job) {
  CK__REQUIRE_IN(function, job);
  *job = NULL;
  CK__REQUIRE_IN(function, workload);
  ck__c_locale locale = {0};
  ck_status status = ck__c_locale_enter(&locale, function);
  if (status != CK_OK)
    return status;
  ck_job *made = malloc(sizeof *made);
  if (!made) {
    status = ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    goto fail;
  }
  *made = job_of(workload, params, count, options);
  /* Names and values are checked (not NULL) before they are copied. */
  CK_TRY(check_job(function, made));
  CK_TRY(copy_params(made));
  CK_TRY(read_job(made));
  *job = made;
  made = NULL;
fail:
  ck_job_free(made);
  ck__c_locale_leave(&locale);
  return status;
}

ck_status ck_job_prepare(const ck_workload *workload, const ck_param *params,
                         size_t count, const ck_run_options *options,
                         ck_job **job) {
  return ck__job_prepare("ck_job_prepare", workload, params, count, options,
                         job);
}

ck_status ck_job_load(ck_job *job) {
  CK__REQUIRE(job);
  ck__c_locale locale = {0};
  ck_status status = ck__c_locale_enter(&locale, "ck_job_load");
  if (status == CK_OK) {
    status = load_job(job);
    ck__c_locale_leave(&locale);
  }
  return status;
}

ck_status ck__job_run(const char *function, ck_job *job,
                      const ck_device *device, ck_result *result) {
  CK__REQUIRE_IN(function, job);
  return run_job(function, job, device, 0, result);
}

ck_status ck_job_run(ck_job *job, const ck_device *device, ck_result *result) {
  return ck__job_run("ck_job_run", job, device, result);
}

ck_status ck_job_free(ck_job *job) {
  if (!job)
    return CK_OK;
  clear_job(job);
  free(job->copies);
  free(job->text);
  free(job);
  return CK_OK;
}
