/*
 * gas_run.c - a run of the gas workload: the gas made or restarted, its
 * steps through the framework's loop, and what is due between them (log
 * lines, samples, the RDF, frames, checkpoints); the files --rdf,
 * --traj, --thermo, --png and --checkpoint, each written atomically.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/framework.h"
#include "framework/spread.h"
#include "gas/gas_internal.h"

void ck__gas_log_line(const ck_run_options *options, const char *line) {
  if (options && options->log)
    options->log(options->log_user, line);
}

static ck_status write_frame(ck_gas *gas, ck__gas_trajectory *trajectory,
                             const char *png, unsigned png_size,
                             const ck_gas_observables *observables) {
  ck_status status = CK_OK;
  double box_x, box_y;
  size_t n;
  ck_gas_get_box(gas, &box_x, &box_y, &n);
  double *positions = malloc(2 * n * sizeof *positions);
  double *velocities = malloc(2 * n * sizeof *velocities);
  if (!positions || !velocities)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck_gas_get_particles(gas, positions, velocities));
  if (trajectory)
    CK_TRY_OUTPUT("traj", ck__gas_trajectory_frame(trajectory, n, box_x, box_y,
                                                   positions, velocities,
                                                   observables->step,
                                                   observables->time));
  if (png)
    CK_TRY_OUTPUT("png",
                  ck__gas_png_write(png, n, box_x, box_y, positions, velocities,
                                    png_size, observables->step,
                                    observables->temperature));
fail:
  free(positions);
  free(velocities);
  return status;
}

/* Waits for the gas's devices (a spread's every member); kernel_s, where
 * not NULL, gets their kernel seconds so far. */
static ck_status finish(ck_gas *gas, double *kernel_s) {
  if (ck__gas_spread_of(gas))
    return ck__gas_spread_finish(ck__gas_spread_of(gas), kernel_s);
  ck_queue *queue = ck__gas_state(gas)->queue;
  ck_status status = ck_queue_finish(queue);
  if (status == CK_OK && kernel_s)
    ck_queue_get_kernel_seconds(queue, kernel_s);
  return status;
}

static ck_status gas_step(void *self, uint64_t steps) {
  ck__gas_loop *run = self;
  return ck_gas_step(run->gas, steps);
}

/* Does what is due `since` steps into the run. */
static ck_status gas_due_work(void *self, uint64_t since,
                              ck__loop_reading *reading) {
  ck__gas_loop *run = self;
  const ck__gas_job *job = run->job;
  ck_status status = CK_OK;
  ck_gas *gas = run->gas;
  ck_gas_observables *o = &run->o;
  uint64_t step = run->begin + since, production = run->production;
  char line[256];
  (void)reading;
  if (job->log_every && since % job->log_every == 0) {
    CK_TRY(ck_gas_observe(gas, o));
    snprintf(line, sizeof line,
             "%8llu %10.3f %10.5f %10.5f %10.6f %10.5f %10.5f %10.2e",
             (unsigned long long)o->step, o->time, o->kinetic, o->potential,
             o->total, o->temperature, o->pressure,
             hypot(o->momentum_x, o->momentum_y));
    ck__gas_log_line(run->options, line);
    if (run->thermo)
      CK_TRY_OUTPUT("thermo", ck__gas_thermo_row(run->thermo, o));
    if (run->log_rows) {
      const double row[CK__GAS_LOG_WIDTH] = {
          (double)o->step, o->time,  o->temperature, o->kinetic,
          o->potential,    o->total, o->pressure};
      CK_TRY(ck__history_push(run->log_rows, row));
    }
  }
  if (step >= production && (step - production) % job->sample_every == 0 &&
      run->sampled < run->most) {
    CK_TRY(ck_gas_observe(gas, o));
    if (run->sampled == 0)
      run->first = *o;
    run->last = *o;
    double row[CK__GAS_SAMPLES];
    row[CK__GAS_SAMPLE_T] = o->temperature;
    row[CK__GAS_SAMPLE_POTENTIAL] = o->potential;
    row[CK__GAS_SAMPLE_TOTAL] = o->total;
    row[CK__GAS_SAMPLE_PRESSURE] = o->pressure;
    CK_TRY(ck__history_push(run->samples, row));
    ++run->sampled;
  }
  if (run->rdf && step >= production &&
      (step - production) % job->rdf_every == 0) {
    /* Its range is the one argument a run may give past the system's. */
    status =
        ck_gas_accumulate_rdf(gas, job->rdf_bins, job->rdf_range, run->rdf);
    if (status == CK_ERROR_INVALID_ARGUMENT)
      CK_FAIL_PREFIX(status, "option --rdf-range: ");
    CK_TRY(status);
    ++run->rdf_samples;
  }
  /* Every rank of a spread run gathers the frame; the first writes it. */
  if (job->traj && since % job->traj_every == 0) {
    CK_TRY(ck_gas_observe(gas, o));
    CK_TRY(write_frame(gas, run->trajectory, NULL, 0, o));
  }
  if (job->checkpoint && job->checkpoint_every && since > 0 &&
      since % job->checkpoint_every == 0) {
    /* A periodic checkpoint replaces the last at once: a run stopped
     * later goes on from it. */
    int paused = ck__file_hold_pause();
    status = ck_gas_save(gas, job->checkpoint);
    ck__file_hold_resume(paused);
    CK_TRY_OUTPUT("checkpoint", status);
  }
fail:
  return status;
}

/* Steps from `since` steps into the run to the next step where something
 * is due. */
static uint64_t gas_due(void *self, uint64_t since) {
  const ck__gas_loop *run = self;
  const ck__gas_job *job = run->job;
  uint64_t begin = run->begin, production = run->production;
  uint64_t step = begin + since, next = UINT64_MAX;
  uint64_t periods[] = {job->log_every, job->traj_every, job->checkpoint_every};
  for (int p = 0; p < 3; ++p)
    if (periods[p] && (p != 1 || job->traj) && (p != 2 || job->checkpoint)) {
      uint64_t due = begin + (since / periods[p] + 1) * periods[p];
      next = due < next ? due : next;
    }
  uint64_t sample_periods[] = {job->sample_every,
                               run->rdf ? job->rdf_every : 0};
  for (int p = 0; p < 2; ++p)
    if (sample_periods[p]) {
      uint64_t due =
          step < production
              ? production
              : production + ((step - production) / sample_periods[p] + 1) *
                                 sample_periods[p];
      next = due < next ? due : next;
    }
  return next - step;
}

/* What the run writes as it goes, opened before its first step: the RDF's
 * counts (with its range, where --rdf-range left it to the run), the
 * trajectory, the thermo table and the samples of the averages. */
static ck_status open_outputs(ck__gas_loop *run, ck__gas_job *job,
                              const ck_gas_config *c) {
  ck_status status = CK_OK;
  if (job->rdf) {
    if (job->rdf_range <= 0)
      job->rdf_range = c->neighbors == CK_GAS_ALL_PAIRS
                           ? 0.5 * fmin(c->box_x, c->box_y)
                           : c->rc;
    run->rdf = calloc(job->rdf_bins, sizeof *run->rdf);
    if (!run->rdf)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  if (job->traj && run->writes)
    CK_TRY_OUTPUT("traj", ck__gas_trajectory_open(job->traj, !c->walls,
                                                  &run->trajectory));
  if (job->thermo && run->writes)
    CK_TRY_OUTPUT("thermo", ck__gas_thermo_open(job->thermo, &run->thermo));
  /* The samples grow as the run makes them, up to the history's limit,
   * past which adjacent entries are paired into their means (gas_report.c's
   * block_average says why the averages and errors stand). */
  static const size_t observables[CK__GAS_SAMPLES] = {1, 1, 1, 1};
  CK_TRY(ck__history_init(run->samples, CK__HISTORY_AVERAGE, CK__GAS_SAMPLES,
                          observables, "samples of the observables"));
  if (run->log_rows) {
    static const size_t row[] = {CK__GAS_LOG_WIDTH};
    CK_TRY(ck__history_init(run->log_rows, CK__HISTORY_SAMPLE, 1, row,
                            "the observables of the log steps"));
  }
fail:
  return status;
}

/* The steps, from the gas's own step through equilibration and
 * production, through the framework's loop; *run_s is their time. */
static ck_status run_steps(ck__gas_loop *run, const ck_run_options *options,
                           double *run_s) {
  ck_status status = CK_OK;
  const ck__gas_job *job = run->job;
  ck_gas_observables o;
  CK_TRY(ck_gas_observe(run->gas, &o));
  uint64_t begin = o.step, end = begin + job->equil + job->steps;
  run->begin = begin;
  run->production = begin + job->equil;
  if (job->log_every) {
    ck__gas_log_line(options,
                     "    step       time    kinetic  potential      total"
                     "          T          P   momentum");
  }
  const ck__loop_rules rules = {.shape = CK__LOOP_SCHEDULE,
                                .max_steps = end - begin,
                                .default_steps = end - begin,
                                .check_every = UINT64_MAX,
                                .progress = options ? options->progress : NULL,
                                .progress_user =
                                    options ? options->progress_user : NULL,
                                .step_name = "steps",
                                .best_name = "",
                                .cancelled = "stopped at step %lld",
                                .cancel_offset = (long long)begin};
  const ck__loop_driver driver = {run, gas_step, gas_due_work, gas_due};
  ck__loop_outcome outcome;
  if (run->gas->spread)
    ck__gas_spread_clocks_start(run->gas->spread);
  double run_started = ck__seconds();
  CK_TRY(ck__loop_run(&rules, &driver, &outcome));
  CK_TRY(finish(run->gas, NULL));
  *run_s = ck__seconds() - run_started;
fail:
  return status;
}

/* What the run writes at its end: the trajectory and thermo table
 * closed, the checkpoint, the picture and the RDF. */
static ck_status close_outputs(ck__gas_loop *run, const ck_gas_config *c) {
  ck_status status = CK_OK;
  const ck__gas_job *job = run->job;
  ck_gas *gas = run->gas;
  if (run->trajectory) {
    ck__gas_trajectory *closing = run->trajectory;
    run->trajectory = NULL;
    CK_TRY_OUTPUT("traj", ck__gas_trajectory_close(closing, 1));
  }
  if (run->thermo) {
    ck__gas_thermo *closing = run->thermo;
    run->thermo = NULL;
    CK_TRY_OUTPUT("thermo", ck__gas_thermo_close(closing, 1));
  }
  if (job->checkpoint)
    CK_TRY_OUTPUT("checkpoint", ck_gas_save(gas, job->checkpoint));
  if (job->png) {
    ck_gas_observables o;
    CK_TRY(ck_gas_observe(gas, &o));
    CK_TRY(write_frame(gas, NULL, run->writes ? job->png : NULL, job->png_size,
                       &o));
  }
  if (run->rdf && run->writes)
    CK_TRY_OUTPUT("rdf",
                  ck__gas_rdf_write(job->rdf, job->rdf_bins, job->rdf_range,
                                    run->rdf, run->rdf_samples, c->particles,
                                    c->box_x * c->box_y));
fail:
  return status;
}

ck_status ck__gas_run(const void *prepared, const ck_device *device,
                      const ck_param *params, size_t count,
                      const ck_run_options *options, ck_result *result) {
  ck_status status = CK_OK;
  /* The run's own copy: the prepared job serves the next run. */
  ck__gas_job job = *(const ck__gas_job *)prepared;
  ck_gas *gas = NULL;
  ck__history samples = {0}, log_rows = {0};
  ck__gas_loop run = {.job = &job, .options = options, .samples = &samples};
  if (job.plot)
    run.log_rows = &log_rows;
  run.most = job.steps / job.sample_every + 2;
  double started = ck__seconds();
  int temperature_given = ck__param_find(params, count, "T") != NULL;
  const ck_spread *spread = options ? options->spread : NULL;
  if (spread && job.restart)
    CK_TRY(ck_gas_load_spread(spread, job.restart, &gas));
  else if (spread)
    CK_TRY(ck__gas_create_spread_tuned(spread, &job.config, job.forms,
                                       temperature_given, &gas));
  else if (job.restart)
    CK_TRY(ck_gas_load(device, job.restart, &gas));
  else
    CK_TRY(ck__gas_create_tuned(device, &job.config, 0, job.forms,
                                temperature_given, &gas));
  run.gas = gas;
  /* A spread run's outputs are written once, by rank 0. */
  run.writes = ck__gas_spread_rank(ck__gas_spread_of(gas)) == 0;
  ck_gas_config c;
  ck_gas_describe(gas, &c);
  result->seed = c.seed; /* a checkpoint's own, on a restart */
  CK_TRY(ck__gas_report_system(result, &job, gas, &c));
  /* The run's times leave the setup out (its kernel builds and first
   * forces), as every workload's do: the result gives it as setup_s. */
  double kernel_at_setup = 0;
  CK_TRY(finish(gas, &kernel_at_setup));
  double setup_s = ck__seconds() - started;
  CK_TRY(open_outputs(&run, &job, &c));
  /* "auto" resolved: rc, or half the box with all pairs. */
  if (job.rdf)
    CK_TRY(ck__result_option_number(result, "rdf-range", job.rdf_range));
  double run_s = 0;
  CK_TRY(run_steps(&run, options, &run_s));
  CK_TRY(close_outputs(&run, &c));
  /* kernel_s over wall_s's span: from the setup's end to the last frame
   * and checkpoint, whose kernels a read after the step loop missed. */
  CK_TRY(finish(gas, &result->kernel_s));
  result->kernel_s -= kernel_at_setup;
  result->wall_s = ck__seconds() - started - setup_s;
  ck__gas_report(&run, &c, run_s, setup_s, result);
  if (job.plot && run.writes)
    CK_TRY_OUTPUT("plot", ck__gas_write_plot(&run, &c, result));
  /* One device's run is a spread of one member too, and names none. */
  if (spread) {
    CK_TRY(ck__gas_spread_report(ck__gas_spread_of(gas), result));
    char line[512];
    ck__spread_verdict(result, (double)(job.equil + job.steps), line,
                       sizeof line);
    if (line[0])
      ck__gas_log_line(options, line);
  }
fail:
  if (run.trajectory)
    ck__gas_trajectory_close(run.trajectory, 0);
  if (run.thermo)
    ck__gas_thermo_close(run.thermo, 0);
  ck__history_free(&samples);
  ck__history_free(&log_rows);
  free(run.rdf);
  ck_gas_destroy(gas);
  return status;
}
