/*
 * test_loop.c - the run loop (src/framework/loop.c) with a driver that
 * only records what it is asked: in each shape, when the device is read,
 * the rules checked and progress reported; which rule a run stops by; the
 * chunks of steps; a run its progress callback stops; the timeline of
 * its reads. Also the picking of a workload's steps table
 * (src/framework/steps.c).
 */
#include <stdint.h>

#include "check.h"
#include "framework/framework.h"

/* A driver that logs its calls ("s4" 4 steps, "r8" a read after 8, "p8"
 * progress after 8) and reports what it is set to. */
typedef struct fake {
  char log[512];
  uint64_t met_from; /* reads from this many steps on see the target met;
                        UINT64_MAX: never */
  uint64_t stop_at;  /* reads from this many steps on stop the run early;
                        UINT64_MAX: never */
  uint64_t every;    /* work due every `every` steps; 0: none */
  int cancel_at;     /* progress asks to stop at this call; 0: never */
  int progress_calls;
  double fractions[16];
} fake;

static void note(fake *f, char what, uint64_t steps) {
  size_t used = strlen(f->log);
  snprintf(f->log + used, sizeof f->log - used, "%s%c%llu", used ? " " : "",
           what, (unsigned long long)steps);
}

static ck_status fake_step(void *self, uint64_t steps) {
  note(self, 's', steps);
  return CK_OK;
}

static ck_status fake_read(void *self, uint64_t steps,
                           ck__loop_reading *reading) {
  fake *f = self;
  note(f, 'r', steps);
  if (steps >= f->met_from && !reading->met) {
    reading->met = 1;
    reading->met_step = steps + 1000;
  }
  reading->best = (double)steps;
  if (steps >= f->stop_at)
    reading->stop = CK_STOP_EARLY;
  return CK_OK;
}

static uint64_t fake_due(void *self, uint64_t steps) {
  const fake *f = self;
  return f->every - steps % f->every;
}

static int fake_progress(void *user, const ck_progress *progress) {
  fake *f = user;
  note(f, 'p', (uint64_t)progress->steps);
  if (f->progress_calls < 16)
    f->fractions[f->progress_calls] = progress->fraction;
  return ++f->progress_calls == f->cancel_at;
}

static fake make_fake(void) {
  fake f = {0};
  f.met_from = f.stop_at = UINT64_MAX;
  return f;
}

static ck__loop_rules make_rules(ck__loop_shape shape, fake *f) {
  ck__loop_rules rules = {.shape = shape,
                          .check_every = 1,
                          .max_chunk = 1000,
                          .progress = fake_progress,
                          .progress_user = f,
                          .step_name = "steps",
                          .best_name = "best",
                          .cancelled = "stopped at step %lld"};
  return rules;
}

static ck_status run(const ck__loop_rules *rules, fake *f,
                     ck__loop_outcome *outcome) {
  ck__loop_driver driver = {f, fake_step, fake_read,
                            f->every ? fake_due : NULL};
  return ck__loop_run(rules, &driver, outcome);
}

/* Chunks: a read before the first step, the rules before each chunk, the
 * last chunk cut to the limit, progress after each read. */
static void chunks(void) {
  fake f = make_fake();
  ck__loop_rules rules = make_rules(CK__LOOP_CHUNKS, &f);
  ck__loop_outcome outcome;
  rules.max_steps = 10;
  rules.check_every = 4;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK_MSG(strcmp(f.log, "r0 s4 r4 p4 s4 r8 p8 s2 r10 p10") == 0, "%s", f.log);
  CHECK(outcome.stopped_by == CK_STOP_STEPS && outcome.steps == 10);
  CHECK(f.fractions[0] == 0.4 && f.fractions[2] == 1.0);

  /* A target met where the run starts stops it before any step. */
  f = make_fake();
  f.met_from = 0;
  rules = make_rules(CK__LOOP_CHUNKS, &f);
  rules.has_target = 1;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK_MSG(strcmp(f.log, "r0") == 0, "%s", f.log);
  CHECK(outcome.stopped_by == CK_STOP_TARGET && outcome.steps == 0 &&
        outcome.target_step == 1000);

  /* The evaluation budget, initialisation counted as one step's; the
   * stricter of it and the step count wins. */
  f = make_fake();
  rules = make_rules(CK__LOOP_CHUNKS, &f);
  rules.max_evaluations = 55;
  rules.per_step = 10;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK(outcome.stopped_by == CK_STOP_EVALUATIONS && outcome.steps == 4);
  f = make_fake();
  rules.progress_user = &f;
  rules.max_steps = 3;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK(outcome.stopped_by == CK_STOP_STEPS && outcome.steps == 3);

  /* Without any rule, the default count. */
  f = make_fake();
  rules = make_rules(CK__LOOP_CHUNKS, &f);
  rules.default_steps = 5;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK(outcome.stopped_by == CK_STOP_STEPS && outcome.steps == 5);

  /* Automatic chunks start at one step and never pass max_chunk. */
  f = make_fake();
  rules = make_rules(CK__LOOP_CHUNKS, &f);
  rules.check_every = 0;
  rules.max_chunk = 8;
  rules.max_steps = 100;
  rules.progress = NULL;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK_MSG(strncmp(f.log, "r0 s1 r1 ", 9) == 0 && outcome.steps == 100, "%s",
            f.log);
  uint64_t made = 0, largest = 0;
  for (const char *at = strchr(f.log, 's'); at; at = strchr(at + 1, 's')) {
    uint64_t chunk = strtoull(at + 1, NULL, 10);
    made += chunk;
    largest = chunk > largest ? chunk : largest;
  }
  CHECK_MSG(made == 100 && largest <= 8, "%s", f.log);
}

/* The timeline: a row a read, its steps counted from timeline_from, its
 * seconds since the loop began, never falling. */
static void timeline(void) {
  fake f = make_fake();
  ck__loop_rules rules = make_rules(CK__LOOP_CHUNKS, &f);
  ck__loop_outcome outcome;
  ck__history reads;
  static const size_t width[] = {2};
  CHECK_OK(ck__history_init(&reads, CK__HISTORY_SAMPLE, 1, width, "reads"));
  rules.max_steps = 10;
  rules.check_every = 4;
  rules.timeline = &reads;
  rules.timeline_from = 100;
  CHECK_OK(run(&rules, &f, &outcome));
  static const double steps[] = {100, 104, 108, 110};
  CHECK(reads.count == 4);
  for (size_t i = 0; i < reads.count && i < 4; ++i) {
    const double *row = reads.entries[0] + 2 * i;
    CHECK(row[0] == steps[i]);
    CHECK(row[1] >= 0 && row[1] < 60);
    CHECK(i == 0 || row[1] >= row[-1]);
  }
  ck__history_free(&reads);
}

/* One step at a time: at least one step, no read before it; the rules
 * after each step, the step limit before the clock; progress only while
 * the run goes on, the first after the first step. */
static void stepwise(void) {
  fake f = make_fake();
  f.met_from = 0;
  ck__loop_rules rules = make_rules(CK__LOOP_STEPWISE, &f);
  ck__loop_outcome outcome;
  rules.has_target = 1;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK_MSG(strcmp(f.log, "s1 r1") == 0, "%s", f.log);
  CHECK(outcome.stopped_by == CK_STOP_TARGET && outcome.steps == 1);

  f = make_fake();
  rules = make_rules(CK__LOOP_STEPWISE, &f);
  rules.max_steps = 3;
  rules.max_seconds = 1e-300; /* ran out at once, as the limit will */
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK_MSG(strcmp(f.log, "s1 r1 p1 s1 r2 s1 r3") == 0 ||
                strcmp(f.log, "s1 r1") == 0,
            "%s", f.log);
  CHECK_MSG(outcome.stopped_by == CK_STOP_TIME ||
                (outcome.stopped_by == CK_STOP_STEPS && outcome.steps == 3),
            "stopped by %d after %llu", (int)outcome.stopped_by,
            (unsigned long long)outcome.steps);

  /* The limit and the clock at once: the limit. */
  f = make_fake();
  rules = make_rules(CK__LOOP_STEPWISE, &f);
  rules.max_steps = 1;
  rules.max_seconds = 1e-300;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK(outcome.stopped_by == CK_STOP_STEPS && f.progress_calls == 0);

  /* The driver's own stop wins over the limit it meets at once. */
  f = make_fake();
  f.stop_at = 3;
  rules = make_rules(CK__LOOP_STEPWISE, &f);
  rules.max_steps = 3;
  rules.progress = NULL;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK_MSG(strcmp(f.log, "s1 r1 s1 r2 s1 r3") == 0, "%s", f.log);
  CHECK(outcome.stopped_by == CK_STOP_EARLY && outcome.steps == 3);
}

/* A schedule: chunks end where work is due, and progress comes before
 * the read; a run stopped by progress leaves the read undone, and its
 * message counts steps from cancel_offset. */
static void schedule(void) {
  fake f = make_fake();
  f.every = 3;
  ck__loop_rules rules = make_rules(CK__LOOP_SCHEDULE, &f);
  ck__loop_outcome outcome;
  rules.max_steps = 7;
  rules.check_every = UINT64_MAX;
  CHECK_OK(run(&rules, &f, &outcome));
  CHECK_MSG(strcmp(f.log, "r0 s3 p3 r3 s3 p6 r6 s1 p7 r7") == 0, "%s", f.log);
  CHECK(outcome.stopped_by == CK_STOP_STEPS && outcome.steps == 7);

  f = make_fake();
  f.every = 3;
  f.cancel_at = 2;
  rules.progress_user = &f;
  rules.cancel_offset = 100;
  ck_status status = run(&rules, &f, &outcome);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_CANCELLED &&
                strcmp(message, "stopped at step 106") == 0,
            "status %d, '%s'", (int)status, message);
  CHECK_MSG(strcmp(f.log, "r0 s3 p3 r3 s3 p6") == 0, "%s", f.log);
}

/* A stop in a result's words. */
static void names(void) {
  CHECK(strcmp(ck__stop_name(CK_STOP_NONE, "iterations"), "") == 0);
  CHECK(strcmp(ck__stop_name(CK_STOP_STEPS, "generations"), "generations") ==
        0);
  CHECK(strcmp(ck__stop_name(CK_STOP_EVALUATIONS, "x"), "evaluations") == 0);
  CHECK(strcmp(ck__stop_name(CK_STOP_TARGET, "x"), "target") == 0);
  CHECK(strcmp(ck__stop_name(CK_STOP_TIME, "x"), "time") == 0);
}

/* A steps table of three entries, the last optional, and steps that say
 * which backend's they are. */
typedef struct toy_steps {
  int (*first)(void);
  int (*second)(void);
  int (*optional)(void);
} toy_steps;

CK__STEPS_TABLE(toy_steps, 3);

static int ref_first(void) {
  return 1;
}
static int ref_second(void) {
  return 2;
}
static int opencl_first(void) {
  return 11;
}
static int opencl_second(void) {
  return 12;
}
static int native_second(void) {
  return 22;
}
static int native_optional(void) {
  return 23;
}

static int applies_calls;
static int applies(void) {
  ++applies_calls;
  return 1;
}

/* The base of a device's backend, or a native table whose NULL entries
 * take the base's (an entry NULL in both stays NULL). */
static void steps(void) {
  const toy_steps ref = {.first = ref_first, .second = ref_second};
  const toy_steps opencl = {.first = opencl_first, .second = opencl_second};
  const toy_steps native = {.second = native_second};
  const toy_steps optional = {.optional = native_optional};
  ck_device host = {0}, device = {0};
  host.backend = CK_BACKEND_REF;
  device.backend = CK_BACKEND_OPENCL;
  toy_steps merged;
  memset(&merged, 0xA5, sizeof merged);

  CHECK(ck__steps_pick(&host, &ref, &opencl, NULL, NULL, 0) == &ref);
  CHECK(ck__steps_pick(&device, &ref, &opencl, NULL, &merged, sizeof merged) ==
        &opencl);
  const toy_steps *picked =
      ck__steps_pick(&device, &ref, &opencl, &native, &merged, sizeof merged);
  CHECK(picked == &merged);
  CHECK(picked->first == opencl_first && picked->second == native_second &&
        picked->optional == NULL);
  picked =
      ck__steps_pick(&device, &ref, &opencl, &optional, &merged, sizeof merged);
  CHECK(picked->first == opencl_first && picked->second == opencl_second &&
        picked->optional == native_optional);
  /* Over ref, on the ref backend. */
  picked =
      ck__steps_pick(&host, &ref, &opencl, &native, &merged, sizeof merged);
  CHECK(picked->first == ref_first && picked->second == native_second &&
        picked->optional == NULL);

  /* The native table only on a CUDA device where it applies, and only a
   * build with CUDA asks whether it does. */
  CHECK(CK__CUDA_STEPS(&device, native, applies()) == NULL);
  device.backend = CK_BACKEND_CUDA;
  const void *cuda = CK__CUDA_STEPS(&device, native, applies());
#if CK_HAVE_CUDA
  CHECK(cuda == &native && applies_calls == 1);
  CHECK(CK__CUDA_STEPS(&device, native, 0) == NULL);
#else
  (void)applies; /* named only in a macro that drops it */
  CHECK(cuda == NULL && applies_calls == 0);
#endif
}

int main(void) {
  chunks();
  timeline();
  stepwise();
  schedule();
  names();
  steps();
  return CHECK_DONE();
}
