/*
 * loop.c - the run loop: a workload's driver steps until a stopping rule
 * holds (its step count or evaluation budget, a target, the clock, or a
 * stop of the driver's own), reading the device between chunks of steps
 * and reporting progress.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "framework/framework.h"

/* The rule that holds now, if any: the driver's own, the target, then
 * the clock and the step limit (the limit first when limit_first). */
static ck_stop rule_holding(const ck__loop_rules *rules,
                            const ck__loop_reading *reading, int limited,
                            uint64_t limit, ck_stop limit_rule, uint64_t steps,
                            double elapsed, int limit_first) {
  assert(rules && reading);
  int late = rules->max_seconds > 0 && elapsed >= rules->max_seconds;
  int spent = limited && steps >= limit;
  if (reading->stop)
    return reading->stop;
  if (rules->has_target && reading->met)
    return CK_STOP_TARGET;
  if (limit_first && spent)
    return limit_rule;
  if (late)
    return CK_STOP_TIME;
  if (spent)
    return limit_rule;
  return CK_STOP_NONE;
}

/* Tells the caller's progress callback where the run stands: the fraction
 * of the step limit if any, else of the time (with nearer, the larger of
 * the two). A callback that asks to stop fails the run. */
static ck_status report(const ck__loop_rules *rules,
                        const ck__loop_reading *reading, int limited,
                        uint64_t limit, uint64_t steps, double elapsed,
                        int nearer) {
  if (!rules->progress)
    return CK_OK;
  double by_steps = limited ? (double)steps / (double)limit : 0;
  double seconds =
      rules->max_seconds > 0 ? rules->max_seconds : rules->progress_seconds;
  double by_time = seconds > 0 ? elapsed / seconds : 0;
  nearer = nearer || rules->progress_seconds > 0;
  double fraction = nearer    ? (by_steps > by_time ? by_steps : by_time)
                    : limited ? by_steps
                              : by_time;
  ck_progress progress = {.fraction = fraction > 1 ? 1 : fraction,
                          .steps = (double)steps,
                          .step_name = rules->step_name,
                          .best = reading->best,
                          .best_name = rules->best_name};
  if (rules->progress(rules->progress_user, &progress))
    return ck__fail(CK_ERROR_CANCELLED, rules->cancelled,
                    (long long)steps + rules->cancel_offset);
  return CK_OK;
}

/* The driver's read after `steps` steps, and its time on the timeline. */
static ck_status read_device(const ck__loop_rules *rules,
                             const ck__loop_driver *driver, uint64_t steps,
                             double started, ck__loop_reading *reading) {
  assert(rules && driver && reading);
  ck_status status =
      driver->read ? driver->read(driver->self, steps, reading) : CK_OK;
  if (status == CK_OK && rules->timeline) {
    double row[2] = {(double)(rules->timeline_from + steps),
                     ck__seconds() - started};
    status = ck__history_push(rules->timeline, row);
  }
  return status;
}

/* The step limit, if any, into *limit and the rule it comes from into
 * *limit_rule; returns whether there is one. 0 is a limit here (a budget
 * that initialisation uses up allows no step), so whether there is one
 * is kept apart. */
static int step_limit(const ck__loop_rules *rules, uint64_t *limit,
                      ck_stop *limit_rule) {
  assert(rules && limit && limit_rule);
  *limit = rules->max_steps;
  *limit_rule = CK_STOP_STEPS;
  int limited = *limit != 0;
  if (rules->max_evaluations) {
    /* Initialisation evaluates as many as a step does (the optimisers'
     * create refuses budgets below that). */
    uint64_t by_evaluations = rules->max_evaluations / rules->per_step;
    by_evaluations = by_evaluations > 0 ? by_evaluations - 1 : 0;
    if (!limited || by_evaluations < *limit) {
      *limit = by_evaluations;
      *limit_rule = CK_STOP_EVALUATIONS;
    }
    limited = 1;
  }
  if (!limited && !rules->has_target && rules->max_seconds <= 0) {
    *limit = rules->default_steps;
    limited = 1;
  }
  return limited;
}

/* The steps of the next chunk: chunk, but no more than the limit leaves
 * (where limited) nor than the driver's schedule allows before its next
 * due work. */
static uint64_t steps_now(const ck__loop_driver *driver, uint64_t chunk,
                          uint64_t limit, int limited, uint64_t done) {
  uint64_t steps = chunk;
  if (limited && steps > limit - done)
    steps = limit - done;
  if (driver->due) {
    uint64_t due = driver->due(driver->self, done);
    steps = due < steps ? due : steps;
  }
  return steps;
}

/* A chunk that takes about a twentieth of a second, going by the last:
 * steps steps in elapsed seconds; 1 to the rules' max_chunk. */
static uint64_t next_chunk(const ck__loop_rules *rules, double elapsed,
                           uint64_t steps) {
  double per_step = elapsed / (double)steps;
  double wanted = per_step > 0 ? 0.05 / per_step : (double)rules->max_chunk;
  return wanted < 1                          ? 1
         : wanted > (double)rules->max_chunk ? rules->max_chunk
                                             : (uint64_t)wanted;
}

ck_status ck__loop_run(const ck__loop_rules *rules,
                       const ck__loop_driver *driver,
                       ck__loop_outcome *outcome) {
  ck_status status = CK_OK;
  assert(rules && driver && driver->step && outcome);
  assert(rules->shape == CK__LOOP_CHUNKS || rules->shape == CK__LOOP_STEPWISE ||
         rules->shape == CK__LOOP_SCHEDULE);
  /* Evaluations are counted by the step, and a cancel has its message. */
  assert(!rules->max_evaluations || rules->per_step >= 1);
  assert(!rules->progress || rules->cancelled);
  memset(outcome, 0, sizeof *outcome);
  int stepwise = rules->shape == CK__LOOP_STEPWISE;
  uint64_t limit = 0;
  ck_stop limit_rule = CK_STOP_STEPS;
  int limited = step_limit(rules, &limit, &limit_rule);
  uint64_t chunk = rules->check_every ? rules->check_every : 1;
  ck__loop_reading reading = {0, 0, NAN, CK_STOP_NONE};
  double started = ck__seconds();
  double reported = -1; /* when progress was last reported; -1: never */
  /* The step the run starts from counts: a target met there stops it. */
  if (!stepwise)
    CK_TRY(read_device(rules, driver, 0, started, &reading));
  for (;;) {
    if (!stepwise && (outcome->stopped_by = rule_holding(
                          rules, &reading, limited, limit, limit_rule,
                          outcome->steps, ck__seconds() - started, 0)))
      break;
    uint64_t steps = steps_now(driver, chunk, limit, limited, outcome->steps);
    double chunk_started = ck__seconds();
    CK_TRY(driver->step(driver->self, steps));
    outcome->steps += steps;
    /* A schedule reports the step reached before the work due there, so
     * that a run stopped by its caller leaves that work undone. */
    if (rules->shape == CK__LOOP_SCHEDULE)
      CK_TRY(report(rules, &reading, limited, limit, outcome->steps,
                    ck__seconds() - started, 0));
    /* The only read from the device: what the steps since the last made. */
    CK_TRY(read_device(rules, driver, outcome->steps, started, &reading));
    double elapsed = ck__seconds() - chunk_started;
    if (stepwise) {
      /* After each step: the rules, then, while the run goes on, progress
       * after the first step and about twenty times a second. */
      double total = ck__seconds() - started;
      if ((outcome->stopped_by =
               rule_holding(rules, &reading, limited, limit, limit_rule,
                            outcome->steps, total, 1)))
        break;
      if (reported < 0 || total - reported >= 0.05) {
        reported = total;
        CK_TRY(
            report(rules, &reading, limited, limit, outcome->steps, total, 1));
      }
    } else if (rules->shape == CK__LOOP_CHUNKS) {
      CK_TRY(report(rules, &reading, limited, limit, outcome->steps,
                    ck__seconds() - started, 0));
    }
    if (!rules->check_every)
      chunk = next_chunk(rules, elapsed, steps);
  }
  if (outcome->stopped_by == CK_STOP_TARGET)
    outcome->target_step = reading.met_step;
  outcome->wall_s = ck__seconds() - started;
fail:
  return status;
}

void ck__loop_read_history(const ck__history *history, uint64_t steps,
                           ck__loop_reading *reading) {
  assert(history && reading);
  reading->met = ck__history_met(history, &reading->met_step);
  /* Column 0 of a row is the best of its step; the run's best is the
   * least of them read after a step. */
  const double *latest = ck__history_latest(history);
  if (steps > 0 && latest && !(latest[0] >= reading->best))
    reading->best = latest[0];
}

const char *ck__stop_name(ck_stop stop, const char *steps) {
  switch (stop) {
  case CK_STOP_NONE:
    return "";
  case CK_STOP_STEPS:
    return steps;
  case CK_STOP_EVALUATIONS:
    return "evaluations";
  case CK_STOP_TARGET:
    return "target";
  case CK_STOP_TIME:
    return "time";
  case CK_STOP_EARLY:
    return "early";
  case CK_STOP_CANCELLED:
    return "cancelled";
  }
  return "";
}
