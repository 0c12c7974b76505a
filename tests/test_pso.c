/*
 * test_pso.c - particle swarm optimisation on ref and on an OpenCL device:
 * the ring neighbourhood and a coordinate's move (cl/ck_pso.h) against
 * their definitions, --constriction's chi against Clerc's formula, quality
 * on known functions, bounds under every mode, ref/OpenCL agreement,
 * reproducibility, the exact target stop, the history past its bound,
 * lsq recovering known coefficients, user objectives, host objectives
 * (a callback, and ask/tell), and bad input.
 */
#include <float.h>
#include <inttypes.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "ck_pso.h"
#include "framework/history.h"
#include "opencl_device.h"
#include "pso/pso_internal.h"
#include "test_support.h"

static char work_dir[256];

static ck_pso *create(const ck_device *device, const ck_pso_config *config) {
  ck_pso *pso = NULL;
  CHECK_OK(ck_pso_create(device, config, &pso));
  return pso;
}

static double run_best(const ck_device *device, const ck_pso_config *config,
                       double *position) {
  ck_pso_report report;
  double best = NAN;
  ck_pso *pso = create(device, config);
  if (!pso)
    return NAN;
  CHECK_OK(ck_pso_run(pso, &report));
  CHECK_OK(ck_pso_get_best(pso, &best, position));
  CHECK(best == report.best);
  ck_pso_destroy(pso);
  return best;
}

static void quality(const ck_device *device) {
  ck_pso_config c;
  ck_pso_config_init(&c);
  c.function = "sphere";
  c.dim = 30;
  c.particles = 64;
  c.max_iterations = 1000;
  double best = run_best(device, &c, NULL);
  CHECK_MSG(best < 1e-6, "%s sphere d=30: %g", device->id, best);
  /* Thresholds documented in docs/pso.md: 64 particles x 1000 moves. */
  static const struct {
    const char *function;
    double threshold;
  } cases[] = {{"rastrigin", 15.0}, {"rosenbrock", 5.0}, {"griewank", 0.2}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      c.function = cases[k].function;
      c.dim = 10;
      c.seed = seed;
      best = run_best(device, &c, NULL);
      CHECK_MSG(best <= cases[k].threshold, "%s %s d=10 seed %llu: %g > %g",
                device->id, cases[k].function, (unsigned long long)seed, best,
                cases[k].threshold);
    }
  }
}

/* Every particle stays in the domain under each mode, with the optimum
 * outside it so that the swarm presses against a bound. */
static void bounds(const ck_device *device) {
  for (int mode = 0; mode <= 2; ++mode) {
    for (int ring = 0; ring <= 1; ++ring) {
      ck_pso_config c;
      ck_pso_config_init(&c);
      double lo[5] = {2, 2, -7, 2, 0.5}, hi[5] = {5, 3, -6, 9, 0.75};
      c.function = "sphere";
      c.dim = 5;
      c.particles = 100;
      c.lo = lo;
      c.hi = hi;
      c.vmax = 2.0; /* steps longer than the domain */
      c.velocity_init = 2.0;
      c.bounds = (ck_bounds_mode)mode;
      c.ring_neighbours = ring ? 5 : 0;
      ck_pso *pso = create(device, &c);
      if (!pso)
        continue;
      pso_state *s = ck__pso_state(pso);
      float x[500];
      int outside = 0;
      for (int round = 0; round < 5; ++round) {
        CHECK_OK(ck_pso_step(pso, 7));
        CHECK_OK(
            ck_buffer_read(s->queue, s->x, 0, sizeof x, x, CK_BLOCKING, NULL));
        for (int d = 0; d < 5; ++d)
          for (int p = 0; p < 100; ++p)
            outside +=
                x[d * 100 + p] < (float)lo[d] || x[d * 100 + p] > (float)hi[d];
      }
      double best = NAN, position[5];
      CHECK_OK(ck_pso_get_best(pso, &best, position));
      for (int d = 0; d < 5; ++d)
        outside += position[d] < (double)(float)lo[d] ||
                   position[d] > (double)(float)hi[d];
      CHECK_MSG(outside == 0, "%s mode %d ring %d: %d coordinates outside",
                device->id, mode, ring, outside);
      /* The best lies on the bounds nearest zero: 4 + 4 + 36 + 4 + 0.25;
       * redrawing (random mode) approaches it more slowly. */
      double slack = mode == CK_BOUNDS_MODE_RANDOM ? 5.0 : 0.5;
      CHECK_MSG(best >= 48.25 && best < 48.25 + slack, "%s mode %d: best %g",
                device->id, mode, best);
      ck_pso_destroy(pso);
    }
  }
}

static void history_and_target(const ck_device *device) {
  ck_pso_config c;
  ck_pso_config_init(&c);
  c.function = "sphere";
  c.dim = 10;
  c.particles = 32;
  c.max_iterations = 0;
  c.has_target = 1;
  c.target = 1e-3;
  ck_pso_report report;
  ck_pso *pso = create(device, &c);
  if (!pso)
    return;
  CHECK_OK(ck_pso_run(pso, &report));
  CHECK(report.stopped_by == CK_STOP_TARGET);
  CHECK(report.best <= 1e-3);
  CHECK(report.iterations == report.target_iteration);
  CHECK(report.evaluations == 32 * (report.iterations + 1));
  const double *history;
  size_t count;
  CHECK_OK(ck_pso_get_history(pso, &history, &count));
  /* One entry an iteration up to the target's, none for the moves after
   * it, which did nothing. */
  CHECK_MSG(count == report.iterations + 1,
            "%zu entries after %" PRIu64 " iterations", count,
            report.iterations);
  int rises = 0;
  for (size_t i = 1; i < count; ++i)
    rises += history[i] > history[i - 1];
  CHECK_MSG(rises == 0, "the best rose %d times", rises);
  CHECK(history[report.target_iteration] <= 1e-3);
  CHECK(report.target_iteration == 0 ||
        history[report.target_iteration - 1] > 1e-3);
  /* A target met exactly stops the run: the same swarm again, aimed at a
   * best it reached partway (a strict improvement), stops there. */
  uint64_t middle = 0;
  for (uint64_t i = report.target_iteration / 2; i >= 1 && !middle; --i)
    if (history[i] < history[i - 1])
      middle = i;
  CHECK_MSG(middle >= 1, "no improvement before iteration %" PRIu64,
            report.target_iteration / 2);
  c.target = history[middle];
  ck_pso_destroy(pso);
  pso = middle ? create(device, &c) : NULL;
  if (!pso)
    return;
  CHECK_OK(ck_pso_run(pso, &report));
  CHECK(report.stopped_by == CK_STOP_TARGET);
  CHECK_MSG(report.target_iteration == middle && report.best == c.target,
            "%s: target %.17g met at %" PRIu64 " (best %.17g), want %" PRIu64,
            device->id, c.target, report.target_iteration, report.best, middle);
  ck_pso_destroy(pso);
}

/* The best values of a run: its history (stride 1), copied. */
static double *full_history(const ck_device *device, const ck_pso_config *c,
                            size_t *count) {
  ck_pso_report report;
  const double *history = NULL;
  uint64_t stride = 0;
  double *copy = NULL;
  *count = 0;
  ck_pso *pso = create(device, c);
  if (!pso)
    return NULL;
  CHECK_OK(ck_pso_run(pso, &report));
  CHECK_OK(ck_pso_get_history(pso, &history, count));
  CHECK_OK(ck_pso_get_history_stride(pso, &stride));
  CHECK(stride == 1 && *count == report.iterations + 1);
  copy = malloc(*count * sizeof *copy);
  if (copy && history)
    memcpy(copy, history, *count * sizeof *copy);
  ck_pso_destroy(pso);
  return copy;
}

/* The rows "iteration,best" of a --trace file: how many, and whether
 * each is the full history's at its iteration (a multiple of stride). */
static void check_trace(const char *path, const double *full, size_t count,
                        uint64_t stride, size_t *rows, uint64_t *last) {
  char *text = test_read_file(path, NULL);
  CHECK(text && strncmp(text, "iteration,best\n", 15) == 0);
  *rows = 0;
  size_t wrong = 0;
  for (char *line = text ? strchr(text, '\n') : NULL; line && line[1];
       line = strchr(line + 1, '\n')) {
    char *end = NULL;
    unsigned long long iteration = strtoull(line + 1, &end, 10);
    double best = end && *end == ',' ? strtod(end + 1, NULL) : NAN;
    wrong += iteration % stride != 0 || iteration >= count ||
             best != full[iteration];
    *last = iteration;
    ++*rows;
  }
  CHECK_MSG(wrong == 0, "%s: %zu of %zu rows are not the history's", path,
            wrong, *rows);
  free(text);
}

/* Past the history's bound (set small here, as a run of hours would reach
 * it): at most the bound of entries, entry 0 kept, entry i the full
 * history's at iteration i x stride; the target's iteration still found
 * exactly, between the entries kept; and --trace naming each row's
 * iteration. Below the bound the history is the full one. */
static void bounded_history(const ck_device *device) {
  enum { LIMIT = 16, ITERATIONS = 300 };
  ck_pso_config c;
  ck_pso_config_init(&c);
  c.dim = 4;
  c.particles = 8;
  c.max_iterations = ITERATIONS;
  c.seed = 11;
  size_t count = 0;
  double *full = full_history(device, &c, &count);
  if (!full)
    return;
  ck_pso_report report;
  const double *history = NULL;
  size_t kept = 0;
  uint64_t stride = 0;
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, LIMIT));
  ck_pso *pso = create(device, &c);
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
  if (pso) {
    CHECK_OK(ck_pso_run(pso, &report));
    CHECK_OK(ck_pso_get_history(pso, &history, &kept));
    CHECK_OK(ck_pso_get_history_stride(pso, &stride));
    CHECK_MSG(stride == 32 && kept == ITERATIONS / 32 + 1,
              "%s: %zu entries, stride %llu", device->id, kept,
              (unsigned long long)stride);
    size_t differ = 0;
    for (size_t i = 0; history && i < kept && i * stride < count; ++i)
      differ += history[i] != full[i * stride];
    CHECK_MSG(differ == 0, "%s: %zu entries differ from the full history",
              device->id, differ);
    CHECK(report.iterations == ITERATIONS && report.best == full[count - 1]);
    ck_pso_destroy(pso);
  }
  /* The target: the last strict improvement in the second half, at an
   * iteration that no entry kept holds (the stride is 16 or more there). */
  uint64_t met = 0;
  for (uint64_t i = count - 1; i > count / 2 && !met; --i)
    if (full[i] < full[i - 1] && i % 16 != 0)
      met = i;
  CHECK_MSG(met > 0, "%s: no improvement after iteration %zu", device->id,
            count / 2);
  ck_pso_config aimed = c;
  aimed.max_iterations = 0;
  aimed.has_target = 1;
  aimed.target = full[met];
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, LIMIT));
  pso = met ? create(device, &aimed) : NULL;
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
  if (pso) {
    CHECK_OK(ck_pso_run(pso, &report));
    CHECK_OK(ck_pso_get_history(pso, &history, &kept));
    CHECK_OK(ck_pso_get_history_stride(pso, &stride));
    CHECK_MSG(
        report.stopped_by == CK_STOP_TARGET && report.target_iteration == met &&
            report.iterations == met && report.best == full[met],
        "%s: target %.17g met at %llu (best %.17g), want %llu", device->id,
        aimed.target, (unsigned long long)report.target_iteration, report.best,
        (unsigned long long)met);
    CHECK(stride > 1 && kept <= LIMIT && kept == met / stride + 1);
    size_t differ = 0;
    for (size_t i = 0; history && i < kept; ++i)
      differ += history[i] != full[i * stride];
    CHECK(differ == 0);
    ck_pso_destroy(pso);
  }
  /* --trace: every row below the bound; past it, the entries kept. */
  const ck_workload *workload;
  CHECK_OK(ck_workload_find("pso", &workload));
  char path[300], iterations[32];
  test_path_in(work_dir, "bounded-trace.csv", path, sizeof path);
  snprintf(iterations, sizeof iterations, "%d", ITERATIONS);
  const ck_param params[] = {{"fn", "sphere"},
                             {"dim", "4"},
                             {"particles", "8"},
                             {"iters", iterations},
                             {"trace", path}};
  ck_run_options options = {.seed = 11};
  ck_result result = {0};
  size_t rows = 0;
  uint64_t last = 0;
  for (int bounded = 0; bounded < 2; ++bounded) {
    CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, bounded ? LIMIT : 0));
    CHECK_OK(test_workload_run(workload, device, params, 5, &options, &result));
    CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
    check_trace(path, full, count, bounded ? 32 : 1, &rows, &last);
    CHECK_MSG(rows == (bounded ? ITERATIONS / 32 + 1 : count) &&
                  last == (bounded ? ITERATIONS / 32 * 32 : ITERATIONS),
              "%s: %zu trace rows, the last at %llu", device->id, rows,
              (unsigned long long)last);
  }
  ck_result_release(&result);
  free(full);
}

/* Evaluation budgets count initialisation's evaluations: one that
 * initialisation uses up allows no move, even beside an unreachable target
 * or a clock, and says so; one below initialisation is refused. With every
 * rule off the default of 1000 iterations applies and is named. */
static void budgets(const ck_device *device) {
  static const struct {
    uint64_t evaluations;
    double seconds;
    uint64_t iterations;
  } cases[] = {{16, 0, 0}, {31, 0, 0}, {16, 30, 0}, {16 * 3 + 5, 0, 2}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    ck_pso_config c;
    ck_pso_config_init(&c);
    c.dim = 2;
    c.particles = 16;
    c.max_iterations = 0;
    c.max_evaluations = cases[k].evaluations;
    c.max_seconds = cases[k].seconds;
    c.has_target = 1;
    c.target = -1; /* sphere never goes below 0 */
    ck_pso_report report;
    ck_pso *pso = create(device, &c);
    if (!pso)
      return;
    CHECK_OK(ck_pso_run(pso, &report));
    CHECK_MSG(report.stopped_by == CK_STOP_EVALUATIONS &&
                  report.iterations == cases[k].iterations &&
                  report.evaluations == 16 * (cases[k].iterations + 1),
              "%s: budget %llu: stopped by %d after %llu iterations, %llu "
              "evaluations",
              device->id, (unsigned long long)cases[k].evaluations,
              (int)report.stopped_by, (unsigned long long)report.iterations,
              (unsigned long long)report.evaluations);
    ck_pso_destroy(pso);
  }
  ck_pso_config c;
  ck_pso_config_init(&c);
  c.dim = 2;
  c.particles = 16;
  c.max_evaluations = 15;
  ck_pso *pso = NULL;
  const char *message = "";
  CHECK(ck_pso_create(device, &c, &pso) == CK_ERROR_INVALID_ARGUMENT);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "ck_pso_config.max_evaluations: 15") != NULL,
            "message '%s'", message);
  CHECK(pso == NULL);
  c.max_evaluations = 0;
  c.max_iterations = 0;
  ck_pso_report report;
  if (!(pso = create(device, &c)))
    return;
  CHECK_OK(ck_pso_run(pso, &report));
  CHECK(report.stopped_by == CK_STOP_STEPS);
  CHECK(report.iterations == 1000);
  ck_pso_destroy(pso);
}

/* Configurations that were accepted and then crashed or ran on values
 * that were not the ones given: each refused, naming its cause. */
static void bad_configs(const ck_device *ref) {
  ck_lsq_data data = {0, 0, NULL, NULL};
  CHECK_OK(ck_lsq_generate(20, 2, 1, 0.0, &data, NULL));
  ck_lsq_data no_a = data, no_b = data, no_dim = data;
  no_a.a = NULL;
  no_b.b = NULL;
  no_dim.dim = 0;
  double lo[2] = {-1e308, -1}, hi[2] = {1e308, 1};
  for (int k = 0; k < 6; ++k) {
    ck_pso_config c;
    ck_pso_config_init(&c);
    c.dim = 2;
    c.particles = 8;
    const char *mention = NULL;
    switch (k) {
    case 0:
    case 1:
      c.function = "lsq";
      c.data = k ? &no_b : &no_a;
      mention = "arrays a and b are required";
      break;
    case 2:
      c.function = "lsq";
      c.data = &no_dim;
      mention = "ck_pso_config.data: the data set has 0 coefficients";
      break;
    case 3:
      c.lsq_mode = (ck_pso_lsq_mode)9;
      mention = "ck_pso_config.lsq_mode: 9 is none of";
      break;
    case 4:
      c.move_mode = (ck_pso_move_mode)3;
      mention = "ck_pso_config.move_mode: 3 is none of";
      break;
    default:
      /* float cannot hold the bound: the domain became infinite. */
      c.lo = lo;
      c.hi = hi;
      mention = "beyond single precision";
    }
    ck_pso *pso = NULL;
    const char *message = "";
    ck_status status = ck_pso_create(ref, &c, &pso);
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT && !pso &&
                  strstr(message, mention),
              "case %d: status %d, message '%s'", k, (int)status, message);
    ck_pso_destroy(pso);
  }
  ck_lsq_free(&data);
}

/* ---- the shared per-particle maths of cl/ck_pso.h, as C --------------- */

/* ck_pso_ring_best against its contract, worked out by hand: the
 * neighbourhood of p is p itself, (k-1)/2 particles before it and the
 * rest after it on the ring of indices; the best is the lowest value, and
 * of equal values the lowest index (ck_better), wherever the ring starts.
 * Array a has no ties; b ties 3 with 5 and, across the wrap, 7 with 0. */
static void ring_best(void) {
  static const float a[8] = {3, 8, 5, 9, 1, 6, 7, 2};
  static const float b[8] = {2, 8, 5, 1, 9, 1, 7, 2};
  static const float flat[3] = {4, 4, 4};
  static const float pair[2] = {5, 1};
  static const struct {
    const float *values;
    uint32_t n, p, k, want; /* the neighbours, as worked out */
  } cases[] = {
      {a, 8, 0, 2, 0},    /* 0 1 */
      {a, 8, 7, 2, 7},    /* 7 0: wraps at the top end */
      {a, 8, 0, 3, 7},    /* 7 0 1: wraps at the bottom end */
      {a, 8, 1, 3, 0},    /* 0 1 2 */
      {a, 8, 7, 3, 7},    /* 6 7 0 */
      {a, 8, 6, 4, 7},    /* 5 6 7 0: even k, one before, two after */
      {a, 8, 5, 4, 4},    /* 4 5 6 7 */
      {a, 8, 6, 5, 4},    /* 4 5 6 7 0 */
      {a, 8, 1, 5, 7},    /* 7 0 1 2 3 */
      {a, 8, 7, 6, 7},    /* 5 6 7 0 1 2: two before, three after */
      {a, 8, 2, 6, 4},    /* 0 1 2 3 4 5 */
      {a, 8, 0, 8, 4},    /* 5 6 7 0 1 2 3 4: the whole ring */
      {b, 8, 4, 3, 3},    /* 3 4 5: a tie, the lower index */
      {b, 8, 4, 2, 5},    /* 4 5 */
      {b, 8, 4, 4, 3},    /* 3 4 5 6 */
      {b, 8, 5, 4, 5},    /* 4 5 6 7 */
      {b, 8, 7, 2, 0},    /* 7 0: a tie across the wrap, index 0 */
      {b, 8, 7, 3, 0},    /* 6 7 0 */
      {b, 8, 0, 3, 0},    /* 7 0 1 */
      {b, 8, 1, 8, 3},    /* 6 7 0 1 2 3 4 5 */
      {flat, 3, 2, 2, 0}, /* 2 0 */
      {flat, 3, 1, 3, 0}, /* 0 1 2 */
      {pair, 2, 0, 2, 1}, /* 0 1 */
      {pair, 2, 1, 2, 1}, /* 1 0 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    uint32_t got =
        ck_pso_ring_best(cases[i].p, cases[i].n, cases[i].k, cases[i].values);
    CHECK_MSG(got == cases[i].want,
              "case %zu: p %u, n %u, k %u: best %u, "
              "want %u",
              i, cases[i].p, cases[i].n, cases[i].k, got, cases[i].want);
  }
}

/* ck_pso_ring_best_slice against ck_pso_ring_best: every slice of a
 * swarm of 8 (ties across the wrap and inside it), with its halo taken
 * from the swarm, finds every particle the whole swarm's neighbour, for
 * every neighbourhood of 2 to 8. Items hold a value alone (dim 0). */
static void ring_slices(void) {
  static const float b[8] = {2, 8, 5, 1, 9, 1, 7, 2};
  const uint32_t total = 8;
  int wrong = 0;
  for (uint32_t k = 2; k <= total; ++k) {
    uint32_t before = (k - 1) / 2, after = k - 1 - before;
    for (uint32_t first = 0; first < total; ++first) {
      for (uint32_t n = 1; first + n <= total && n < total; ++n) {
        float halo[8];
        for (uint32_t e = 0; e < before + after; ++e)
          halo[e] = b[e < before ? (first + total - before + e) % total
                                 : (first + n + e - before) % total];
        for (uint32_t p = 0; p < n; ++p) {
          uint32_t at =
              ck_pso_ring_best_slice(p, n, k, first, total, b + first, halo, 1);
          uint32_t e = at - n;
          uint32_t got = at < n       ? first + at
                         : e < before ? (first + total - before + e) % total
                                      : (first + n + e - before) % total;
          uint32_t want = ck_pso_ring_best(first + p, total, k, b);
          if (got != want && wrong++ < 5)
            CHECK_MSG(0, "k %u, slice %u+%u, p %u: %u, whole swarm %u", k,
                      first, n, p, got, want);
        }
      }
    }
  }
  CHECK(wrong == 0);
}

/* ck_pso_move_coordinate (float) against the move of docs/pso.md worked
 * in double: v <- w v + c1 r1 (pbest - x) + c2 r2 (guide - x), |v| <=
 * limit, x <- x + v, then the bounds mode. c1 differs from c2 throughout,
 * so c1 must meet r1 and pbest, c2 r2 and the guide. The exact cases hold
 * numbers that float represents, and every step of them too. */
static void move_coordinate(void) {
  static const struct {
    int bounds, exact;
    double w, c1, c2, r1, r2, x, v, pbest, guide, lo, hi, limit;
  } cases[] = {
      /* v = 1 + 1.5 - 0.375 = 2.125; the roles swapped would give -1 */
      {CK_BOUNDS_CLAMP, 1, 0.5, 1.5, 0.25, 0.5, 0.75, 1, 2, 3, -1, -10, 10, 20},
      /* v = 1 + 0.25 - 2.25 = -1 */
      {CK_BOUNDS_CLAMP, 1, 0.5, 0.25, 1.5, 0.5, 0.75, 1, 2, 3, -1, -10, 10, 20},
      /* reflected at hi = 3: x 2.875, v -2.125 */
      {CK_BOUNDS_REFLECT, 1, 0.5, 1.5, 0.25, 0.5, 0.75, 1, 2, 3, -1, -10, 3,
       20},
      /* reflected at lo = 0.5: x 1, v 1 */
      {CK_BOUNDS_REFLECT, 1, 0.5, 0.25, 1.5, 0.5, 0.75, 1, 2, 3, -1, 0.5, 10,
       20},
      /* a step longer than the domain [0, 1.5]: reflected to -1.375, then
       * clamped to 0 */
      {CK_BOUNDS_REFLECT, 1, 0.5, 1.5, 0.25, 0.5, 0.75, 1, 2, 3, -1, 0, 1.5,
       20},
      /* clamped at hi = 3 and at lo = 0.5, the velocity zeroed */
      {CK_BOUNDS_CLAMP, 1, 0.5, 1.5, 0.25, 0.5, 0.75, 1, 2, 3, -1, -10, 3, 20},
      {CK_BOUNDS_CLAMP, 1, 0.5, 0.25, 1.5, 0.5, 0.75, 1, 2, 3, -1, 0.5, 10, 20},
      /* the speed limit, either way: 2.125 -> 1.25 and -1 -> -0.75 */
      {CK_BOUNDS_CLAMP, 1, 0.5, 1.5, 0.25, 0.5, 0.75, 1, 2, 3, -1, -10, 10,
       1.25},
      {CK_BOUNDS_CLAMP, 1, 0.5, 0.25, 1.5, 0.5, 0.75, 1, 2, 3, -1, -10, 10,
       0.75},
      /* r1 = r2 = 0: inertia alone */
      {CK_BOUNDS_CLAMP, 1, 0.75, 1.5, 0.25, 0, 0, 1, -2, 3, -1, -10, 10, 20},
      /* Clerc's coefficients, unequal, inside the domain: v 7.96742 (c1
       * and c2 swapped: 7.84692) */
      {CK_BOUNDS_CLAMP, 0, 0.7298, 2.05, 2.10, 0.3, 0.8, -1.2, 0.4, 0.9, 2.6,
       -10, 10, 20},
      {CK_BOUNDS_REFLECT, 0, 0.7298, 2.10, 2.05, 0.8, 0.3, 2.6, -0.4, -1.2, 0.9,
       -10, 10, 20},
      {CK_BOUNDS_CLAMP, 0, 0.4, 0.5, 1.7, 0.9, 0.1, 0.3, 0.25, -0.7, 0.45, -1,
       1, 2},
      /* the random mode: redrawn inside, the velocity zeroed */
      {CK_BOUNDS_RANDOM, 0, 0.5, 1.5, 0.25, 0.5, 0.75, 1, 2, 3, -1, -10, 3, 20},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    double w = cases[i].w, c1 = cases[i].c1, c2 = cases[i].c2;
    double x = cases[i].x, lo = cases[i].lo, hi = cases[i].hi;
    double limit = cases[i].limit;
    double terms[3] = {w * cases[i].v, c1 * cases[i].r1 * (cases[i].pbest - x),
                       c2 * cases[i].r2 * (cases[i].guide - x)};
    double want_v = terms[0] + terms[1] + terms[2];
    want_v = want_v > limit ? limit : (want_v < -limit ? -limit : want_v);
    double moved = x + want_v, want_x = moved;
    int outside = moved < lo || moved > hi;
    if (outside && cases[i].bounds == CK_BOUNDS_REFLECT) {
      want_x = moved < lo ? 2 * lo - moved : 2 * hi - moved;
      want_x = want_x < lo ? lo : (want_x > hi ? hi : want_x);
      want_v = -want_v;
    } else if (outside) {
      want_x = moved < lo ? lo : hi; /* the random mode: checked below */
      want_v = 0;
    }
    float v = (float)cases[i].v;
    float got_x = ck_pso_move_coordinate(
        cases[i].bounds, 3, 4, 1, 7, 2, (float)w, (float)c1, (float)c2,
        (float)cases[i].r1, (float)cases[i].r2, (float)x, &v,
        (float)cases[i].pbest, (float)cases[i].guide, (float)lo, (float)hi,
        (float)limit);
    /* Float rounding, a few ulps of the largest term at most. */
    double scale = fabs(terms[0]) + fabs(terms[1]) + fabs(terms[2]) + fabs(x);
    double tolerance = cases[i].exact ? 0 : 1e-6 * scale;
    if (cases[i].bounds == CK_BOUNDS_RANDOM && outside) {
      CHECK_MSG(got_x >= lo && got_x <= hi && v == 0,
                "case %zu: x %.9g outside [%g, %g] or v %.9g", i, got_x, lo, hi,
                v);
      continue;
    }
    CHECK_MSG(fabs(got_x - want_x) <= tolerance &&
                  fabs(v - want_v) <= tolerance,
              "case %zu: x %.9g, v %.9g; want x %.9g, v %.9g", i, got_x, v,
              want_x, want_v);
  }
}

/* --constriction folds chi into the inertia form: w = chi, c1 = chi c1,
 * c2 = chi c2 (vmax unscaled), chi = 2 / |2 - phi - sqrt(phi^2 - 4 phi)|,
 * phi = c1 + c2. A run with --constriction gives the bits of one without
 * it given those coefficients (printed to round-trip exactly), and not
 * those of one where c1 or c2 missed its chi. */
static void constriction(const ck_device *ref) {
  static const struct {
    double c1, c2;
    int ring;
  } cases[] = {{2.05, 2.10, 0}, {2.30, 1.90, 0}, {1.95, 2.25, 3}};
  const ck_workload *pso;
  CHECK_OK(ck_workload_find("pso", &pso));
  ck_run_options options = {.seed = 5};
  /* The formula as written below gives Clerc's 0.7298437881 at the
   * default phi = 4.1. */
  double phi_default = 4.1;
  CHECK_NEAR(2.0 / fabs(2.0 - phi_default -
                        sqrt(phi_default * phi_default - 4.0 * phi_default)),
             0.7298437881, 1e-9);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    double c1 = cases[k].c1, c2 = cases[k].c2, phi = c1 + c2;
    double chi = 2.0 / fabs(2.0 - phi - sqrt(phi * phi - 4.0 * phi));
    CHECK(chi > 0.6 && chi < 0.75);
    char text_c1[32], text_c2[32], text_w[32], text_chi_c1[32], text_chi_c2[32];
    snprintf(text_c1, sizeof text_c1, "%.17g", c1);
    snprintf(text_c2, sizeof text_c2, "%.17g", c2);
    snprintf(text_w, sizeof text_w, "%.17g", chi);
    snprintf(text_chi_c1, sizeof text_chi_c1, "%.17g", chi * c1);
    snprintf(text_chi_c2, sizeof text_chi_c2, "%.17g", chi * c2);
    const char *topology = cases[k].ring ? "ring:3" : "gbest";
    /* The run, its inertia twin, and the twin with c2 (then c1) left
     * unscaled. */
    const char *coefficients[4][4] = {
        {"constriction", "1", NULL, NULL},
        {"w", text_w, text_chi_c1, text_chi_c2},
        {"w", text_w, text_chi_c1, text_c2},
        {"w", text_w, text_c1, text_chi_c2},
    };
    ck_result results[4] = {0};
    for (int run = 0; run < 4; ++run) {
      const char *const *given = coefficients[run];
      ck_param params[8] = {{"fn", "rastrigin"},
                            {"dim", "5"},
                            {"particles", "20"},
                            {"iters", "40"},
                            {"topology", topology},
                            {given[0], given[1]},
                            {"c1", run ? given[2] : text_c1},
                            {"c2", run ? given[3] : text_c2}};
      CHECK_OK(test_workload_run(pso, ref, params, 8, &options, &results[run]));
    }
    int same = results[0].best == results[1].best &&
               results[0].position_count == 5 && results[1].position_count == 5;
    for (int d = 0; same && d < 5; ++d)
      same = results[0].position[d] == results[1].position[d];
    CHECK_MSG(same,
              "case %zu (c1 %g, c2 %g, chi %.17g): --constriction best "
              "%.17g, the inertia form %.17g",
              k, c1, c2, chi, results[0].best, results[1].best);
    CHECK_MSG(results[2].best != results[1].best &&
                  results[3].best != results[1].best,
              "case %zu: an unscaled coefficient changed nothing (%.17g)", k,
              results[1].best);
    test_results_release(results, 4);
  }
}

/* Same seed, same device: identical; another seed: different. And the
 * device agrees with ref bit for bit on sphere (no transcendental
 * functions) and on rastrigin in single precision (cos(2 pi x) is written
 * out in ck_real.h), within 1e-9 on rastrigin in double precision. */
static void agreement(const ck_device *ref, const ck_device *device) {
  ck_pso_config c;
  ck_pso_config_init(&c);
  c.function = "sphere";
  c.dim = 7;
  c.particles = 50;
  c.max_iterations = 60;
  c.seed = 11;
  double a[7], b[7], r[7];
  double best_a = run_best(device, &c, a);
  double best_b = run_best(device, &c, b);
  CHECK(best_a == best_b && memcmp(a, b, sizeof a) == 0);
  c.seed = 12;
  CHECK(run_best(device, &c, b) != best_a);
  c.seed = 11;
  if (device == ref)
    return;
  double best_ref = run_best(ref, &c, r);
  CHECK_MSG(best_ref == best_a, "sphere: ref %.9g, %s %.9g", best_ref,
            device->id, best_a);
  CHECK(memcmp(r, a, sizeof a) == 0);
  c.function = "rastrigin";
  best_ref = run_best(ref, &c, r);
  best_a = run_best(device, &c, a);
  CHECK_MSG(best_a == best_ref && memcmp(r, a, sizeof a) == 0,
            "rastrigin: ref %.9g, %s %.9g", best_ref, device->id, best_a);
  if (device->has_fp64) {
    c.double_precision = 1;
    best_ref = run_best(ref, &c, r);
    best_a = run_best(device, &c, a);
    CHECK_MSG(fabs(best_a - best_ref) <= 1e-9 * fabs(best_ref) + 1e-12,
              "rastrigin double: ref %.17g, %s %.17g", best_ref, device->id,
              best_a);
  }
}

/* OpenCL devices move the swarm a particle a work-item or a vector of
 * particles a work-item (ck_pso_lanes.h): the same bits either way, and
 * ref's where ref's are exact (sphere and rastrigin in single precision).
 * 37 particles fill two vectors of 16 and leave 5 to the last work-item;
 * 5 particles leave all to it. Steps longer than the domain make every
 * bounds mode act. */
static void move_modes(const ck_device *ref, const ck_device *device) {
  static const struct {
    const char *function;
    ck_bounds_mode bounds;
    int ring, double_precision, exact;
    size_t particles;
  } cases[] = {
      {"rastrigin", CK_BOUNDS_MODE_CLAMP, 0, 0, 1, 37},
      {"rastrigin", CK_BOUNDS_MODE_REFLECT, 3, 0, 1, 37},
      {"sphere", CK_BOUNDS_MODE_RANDOM, 0, 0, 1, 37},
      {"sphere", CK_BOUNDS_MODE_REFLECT, 0, 0, 1, 5},
      {"griewank", CK_BOUNDS_MODE_RANDOM, 3, 0, 0, 37},
      {"ackley", CK_BOUNDS_MODE_CLAMP, 0, 1, 0, 37},
      {"rosenbrock", CK_BOUNDS_MODE_REFLECT, 5, 1, 0, 37},
  };
  if (device->backend != CK_BACKEND_OPENCL)
    return;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    if (cases[k].double_precision && !device->has_fp64)
      continue;
    ck_pso_config c;
    ck_pso_config_init(&c);
    c.function = cases[k].function;
    c.dim = 7;
    c.particles = cases[k].particles;
    c.max_iterations = 30;
    c.seed = 21;
    c.bounds = cases[k].bounds;
    c.ring_neighbours = cases[k].ring;
    c.double_precision = cases[k].double_precision;
    c.vmax = 2.0;
    double by_particle[7], by_vector[7], on_ref[7];
    c.move_mode = CK_PSO_MOVE_PARTICLE;
    double best_particle = run_best(device, &c, by_particle);
    c.move_mode = CK_PSO_MOVE_VECTOR;
    double best_vector = run_best(device, &c, by_vector);
    CHECK_MSG(best_particle == best_vector &&
                  memcmp(by_particle, by_vector, sizeof by_vector) == 0,
              "case %zu (%s): particle mode %.17g, vector mode %.17g", k,
              c.function, best_particle, best_vector);
    if (!cases[k].exact)
      continue;
    double best_ref = run_best(ref, &c, on_ref);
    CHECK_MSG(best_ref == best_vector &&
                  memcmp(on_ref, by_vector, sizeof by_vector) == 0,
              "case %zu (%s): ref %.17g, vector mode %.17g", k, c.function,
              best_ref, best_vector);
  }
}

/* An lsq swarm over data in the given mode. */
static void lsq_config(ck_pso_config *config, const ck_lsq_data *data,
                       size_t particles, uint64_t iterations, int mode) {
  ck_pso_config_init(config);
  config->function = "lsq";
  config->data = data;
  config->particles = particles;
  config->max_iterations = iterations;
  config->lsq_mode = (ck_pso_lsq_mode)mode;
}

static void lsq(const ck_device *ref, const ck_device *device) {
  ck_lsq_data data = {0};
  double truth[4];
  CHECK_OK(ck_lsq_generate(3000, 4, 5, 0.0, &data, truth));
  for (int mode = CK_PSO_LSQ_GROUP; mode <= CK_PSO_LSQ_VECTOR; ++mode) {
    ck_pso_config c;
    lsq_config(&c, &data, 48, 400, mode);
    double position[4];
    double best = run_best(device, &c, position);
    check_lsq_fit(device->id, mode, &data, position, truth, best, 1e-3, 1e-3);
    if (device->backend == CK_BACKEND_REF)
      break; /* ref has one evaluation */
  }
  ck_lsq_free(&data);
  if (device == ref)
    return;
  /* Thread and vector modes sum each particle's rows in order, as ref
   * does: the same bits, in both precisions. 37 particles fill two
   * vectors and 5 lanes of a third; noise keeps the sums from cancelling
   * to round numbers. */
  CHECK_OK(ck_lsq_generate(700, 5, 9, 0.25, &data, NULL));
  for (int precision = 0; precision <= device->has_fp64; ++precision) {
    ck_pso_config c;
    lsq_config(&c, &data, 37, 25, CK_PSO_LSQ_AUTO);
    c.double_precision = precision;
    double on_ref[5], on_device[5];
    double best_ref = run_best(ref, &c, on_ref);
    for (int mode = CK_PSO_LSQ_THREAD; mode <= CK_PSO_LSQ_VECTOR; ++mode) {
      c.lsq_mode = (ck_pso_lsq_mode)mode;
      double best = run_best(device, &c, on_device);
      CHECK_MSG(best == best_ref &&
                    memcmp(on_ref, on_device, sizeof on_ref) == 0,
                "lsq mode %d, %s: ref %.17g, %s %.17g", mode,
                precision ? "double" : "float", best_ref, device->id, best);
    }
  }
  ck_lsq_free(&data);
}

/* How lsq is evaluated, by device and mode: vector lanes only on OpenCL
 * devices, chosen unasked off GPUs; work-groups that give every compute
 * unit work. */
static void lsq_plans(void) {
  ck_device cpu = {
      .backend = CK_BACKEND_OPENCL, .kind = CK_KIND_CPU, .compute_units = 2};
  ck_device gpu = {
      .backend = CK_BACKEND_OPENCL, .kind = CK_KIND_GPU, .compute_units = 132};
  ck_device cuda = gpu, host = {.backend = CK_BACKEND_REF, .compute_units = 1};
  cuda.backend = CK_BACKEND_CUDA;
  const struct {
    const ck_device *device;
    ck_pso_lsq_mode mode;
    size_t points;
    int double_precision;
    int group_mode;
    uint32_t lanes, local;
  } cases[] = {
      {&cpu, CK_PSO_LSQ_AUTO, 37, 0, 0, 16, 2},
      {&cpu, CK_PSO_LSQ_AUTO, 4, 0, 0, 16, 1},
      {&cpu, CK_PSO_LSQ_AUTO, 100000, 0, 0, 16, 256},
      {&cpu, CK_PSO_LSQ_AUTO, 1024, 1, 0, 8, 64},
      {&cpu, CK_PSO_LSQ_THREAD, 1024, 0, 0, 1, 256},
      {&cpu, CK_PSO_LSQ_GROUP, 1024, 0, 1, 1, 256},
      {&gpu, CK_PSO_LSQ_AUTO, 64, 0, 1, 1, 256},
      {&gpu, CK_PSO_LSQ_AUTO, 100000, 0, 0, 1, 256},
      {&gpu, CK_PSO_LSQ_VECTOR, 100000, 0, 0, 16, 32},
      {&cuda, CK_PSO_LSQ_VECTOR, 100000, 0, 0, 1, 256},
      {&cuda, CK_PSO_LSQ_AUTO, 64, 0, 1, 1, 256},
      {&host, CK_PSO_LSQ_VECTOR, 1024, 0, 0, 1, 256},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ck__lsq_plan plan =
        ck__lsq_plan_choose(cases[i].device, cases[i].mode, cases[i].points,
                            100000, 256, cases[i].double_precision);
    CHECK_MSG(plan.group_mode == cases[i].group_mode &&
                  plan.lanes == cases[i].lanes &&
                  (plan.group_mode || plan.local == cases[i].local),
              "case %zu: group mode %d, lanes %u, local %u", i, plan.group_mode,
              plan.lanes, plan.local);
    CHECK(!plan.group_mode || plan.chunks >= 1);
  }
}

/* A user objective that takes data: weights then centres, one row of
 * 2 * dim numbers (weights_row, for dim 3). */
static const char weighted_objective[] =
    "float objective(const float *x, int dim,\n"
    "                __global const float *data) {\n"
    "  float s = 0.0f;\n"
    "  for (int i = 0; i < dim; ++i)\n"
    "    s += data[i] * (x[i] - data[dim + i]) * (x[i] - data[dim + i]);\n"
    "  return s;\n"
    "}\n";
static const char weights_row[] = "2,1,3,0.5,-1,2\n";

static void user_objective(const ck_device *device) {
  char good[512], broken[512], with_data[512];
  test_write_text(work_dir, "shifted.cl",
                  "/* a shifted sphere */\n"
                  "float objective(const float *x, int dim) {\n"
                  "  float s = 0.0f;\n"
                  "  for (int i = 0; i < dim; ++i)\n"
                  "    s += (x[i] - 1.25f) * (x[i] - 1.25f);\n"
                  "  return s;\n"
                  "}\n",
                  good, sizeof good);
  test_write_text(work_dir, "broken.cl",
                  "/* line 1 */\n"
                  "float objective(const float *x, int dim) {\n"
                  "  return x[0] + not_declared;\n"
                  "}\n",
                  broken, sizeof broken);
  test_write_text(work_dir, "weighted.cl", weighted_objective, with_data,
                  sizeof with_data);
  const ck_param params[] = {{"objective", good}, {"lo", "-3"},
                             {"hi", "3"},         {"dim", "6"},
                             {"particles", "40"}, {"iters", "300"}};
  ck_run_options options = {.seed = 3};
  ck_result result = {0};
  const ck_workload *pso;
  CHECK_OK(ck_workload_find("pso", &pso));
  CHECK_OK(test_workload_run(pso, device, params, 6, &options, &result));
  CHECK_MSG(result.best < 1e-8, "user objective best %g", result.best);
  CHECK(result.position_count == 6);
  if (result.position_count == 6)
    CHECK_NEAR(result.position[0], 1.25, 1e-3);

  const ck_param bad[] = {
      {"objective", broken}, {"lo", "-3"}, {"hi", "3"}, {"dim", "2"}};
  CHECK(test_workload_run(pso, device, bad, 4, &options, &result) ==
        CK_ERROR_BUILD);
  const char *message = "";
  ck_error_get_last(&message);
  char location[600];
  snprintf(location, sizeof location, "%s:3", broken);
  CHECK_MSG(strstr(message, location) != NULL, "expected %s in: %s", location,
            message);

  /* A source that defines no objective (here one named otherwise, and an
   * empty one) is refused naming the user's file, not clkit's header. */
  char unnamed[512], empty[512];
  test_write_text(
      work_dir, "unnamed.cl",
      "float objectives(const float *x, int dim) { return x[0]; }\n", unnamed,
      sizeof unnamed);
  test_write_text(work_dir, "empty.cl", "", empty, sizeof empty);
  const char *const sources[] = {unnamed, empty};
  for (int k = 0; k < 2; ++k) {
    const ck_param none[] = {
        {"objective", sources[k]}, {"lo", "-3"}, {"hi", "3"}, {"dim", "2"}};
    CHECK(test_workload_run(pso, device, none, 4, &options, &result) ==
          CK_ERROR_PARSE);
    ck_error_get_last(&message);
    snprintf(location, sizeof location, "%s: no function objective",
             sources[k]);
    CHECK_MSG(strstr(message, location) != NULL, "expected %s in: %s", location,
              message);
  }

  /* A data argument: weights then centres, one row of 2 * dim numbers
   * (the last column counts as b, which is fine for a user objective). */
  char data_path[512];
  test_write_text(work_dir, "weights.csv", weights_row, data_path,
                  sizeof data_path);
  const ck_param weighted[] = {{"objective", with_data},
                               {"data", data_path},
                               {"lo", "-3"},
                               {"hi", "3"},
                               {"dim", "3"},
                               {"particles", "40"},
                               {"iters", "300"}};
  CHECK_OK(test_workload_run(pso, device, weighted, 7, &options, &result));
  CHECK_MSG(result.best < 1e-8, "weighted user objective best %g", result.best);
  CHECK(result.position_count == 3);
  if (result.position_count == 3)
    CHECK_NEAR(result.position[1], -1, 1e-3);
  const ck_param missing_data[] = {
      {"objective", with_data}, {"lo", "-3"}, {"hi", "3"}, {"dim", "3"}};
  CHECK(test_workload_run(pso, device, missing_data, 4, &options, &result) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_result_release(&result);
}

/* A user objective without data is evaluated in the move's launch, where
 * a work-item moves one particle (CK_PSO_FUSE_USER); with data (here a
 * row it ignores) by ck_evaluate_user after it. The two bodies are the
 * same, so both runs give the same bits: gbest and ring, in single and
 * double precision. With a vector a work-item (CPUs), nothing is fused. */
static void fused_user_objective(const ck_device *device) {
  static const char plain[] = TEST_USER_PLAIN;
  static const char ignoring[] = TEST_USER_IGNORING;
  double a[4] = {1, 2, 3, 4}, b[1] = {0};
  ck_lsq_data row = {1, 4, a, b};
  double lo[4] = {-3, -3, -3, -3}, hi[4] = {3, 3, 3, 3};
  for (int run = 0; run < 6; ++run) {
    int ring = run & 1, fp64 = (run >> 1) & 1, vector = run >= 4;
    if (fp64 && !device->has_fp64)
      continue;
    double best[2] = {NAN, NAN}, position[2][4];
    int fused[2] = {-1, -1}, lanes = 0;
    for (int k = 0; k < 2; ++k) {
      ck_pso_config c;
      ck_pso_config_init(&c);
      c.function = NULL;
      c.objective_source = k ? ignoring : plain;
      c.objective_name = k ? "ignoring.cl" : "plain.cl";
      c.data = k ? &row : NULL;
      c.dim = 4;
      c.lo = lo;
      c.hi = hi;
      c.particles = 70; /* not a multiple of any group */
      c.max_iterations = 40;
      c.seed = 9;
      c.ring_neighbours = ring ? 3 : 0;
      c.double_precision = fp64;
      c.move_mode = vector ? CK_PSO_MOVE_VECTOR : CK_PSO_MOVE_PARTICLE;
      ck_pso *pso = create(device, &c);
      if (!pso)
        continue;
      fused[k] = ck__pso_state(pso)->fused_user;
      if (k == 0)
        lanes = (int)ck__pso_state(pso)->move_lanes;
      ck_pso_report report;
      CHECK_OK(ck_pso_run(pso, &report));
      CHECK_OK(ck_pso_get_best(pso, &best[k], position[k]));
      ck_pso_destroy(pso);
    }
    /* Vectors are asked for, but a device without vector types (CUDA)
     * moves one particle a work-item, and fuses. */
    CHECK_MSG(fused[0] == (lanes == 1) && fused[1] == 0 &&
                  (lanes == 1) ==
                      (!vector || !ck__device_has_vector_types(device)),
              "%s run %d: fused %d and %d, %d lanes", device->id, run, fused[0],
              fused[1], lanes);
    CHECK_MSG(best[0] == best[1] &&
                  memcmp(position[0], position[1], sizeof position[0]) == 0,
              "%s ring %d fp64 %d vector %d: best %.9g fused, %.9g apart",
              device->id, ring, fp64, vector, best[0], best[1]);
  }
}

/* ck_evaluate_user against its twin: the same objectives written in C
 * here, at points spread over the domain, without data and with a row of
 * it, built and launched as the optimisers build and launch them. */
static void user_objective_kernel(const ck_device *device) {
  enum { DIM = 3, POINTS = 100 };
  static const char *const sources[2] = {
      "float objective(const float *x, int dim) {\n"
      "  float s = 0.0f;\n"
      "  for (int i = 0; i < dim; ++i)\n"
      "    s += (x[i] - 1.25f) * (x[i] - 1.25f) * (float)(i + 1);\n"
      "  return s;\n"
      "}\n",
      weighted_objective};
  char data_path[512];
  /* Weights then centres; the loader counts the last column as b. */
  const float row[2 * DIM] = {2, 1, 3, 0.5f, -1, 2};
  test_write_text(work_dir, "kernel-weights.csv", weights_row, data_path,
                  sizeof data_path);
  ck_lsq_data data = {0};
  CHECK_OK(ck_lsq_load(data_path, &data));
  double points[DIM * POINTS]; /* dimension-major: (d, p) at d * POINTS + p */
  for (int p = 0; p < POINTS; ++p)
    for (int d = 0; d < DIM; ++d)
      points[d * POINTS + p] = -3.0 + 6.0 * ((p * 7 + d * 13) % 97) / 96.0;
  const double lo[DIM] = {-3, -3, -3}, hi[DIM] = {3, 3, 3};
  ck_queue *queue = NULL;
  CHECK_OK(ck_queue_create(device, &queue));
  for (int with_data = 0; with_data < 2 && queue; ++with_data) {
    ck__problem problem = {0};
    ck_program *program = NULL;
    ck_buffer *data_buffer = NULL, *x = NULL, *values = NULL, *done = NULL;
    ck__evaluation evaluation = {0};
    ck__problem_spec spec = {.source = sources[with_data],
                             .source_name = with_data ? "weighted" : "sphere",
                             .data = with_data ? &data : NULL,
                             .dim = DIM,
                             .lo = lo,
                             .hi = hi,
                             .config = "ck_pso_config",
                             .fields = ck__pso_fields};
    uint32_t group = ck__group_size(device);
    char defines[256];
    ck__lsq_plan plan = {0, 1, 1, group};
    ck_status status = CK_OK;
/* Each step runs only while every one before it succeeded. */
#define STEP(call)                                                             \
  if (status == CK_OK)                                                         \
  CHECK_OK(status = (call))
    STEP(ck__problem_init(&problem, device, &spec));
    if (status != CK_OK)
      goto next;
    snprintf(defines, sizeof defines,
             "-DCK_OBJECTIVE=%d -DCK_BOUNDS=0 -DCK_PSO_RING=0 -DCK_GROUP=%u "
             "-DCK_DIM=%d -DCK_USER_DATA=%d -DCK_LSQ_LANES=1 -DCK_LANES=1 "
             "-DCK_REAL_DOUBLE=0",
             problem.objective, (unsigned)group, DIM, problem.user_has_data);
    CHECK(problem.user_has_data == with_data);
    STEP(ck__program_build_prefixed(queue, "pso", defines, problem.user_name,
                                    problem.user_source, &program));
    STEP(ck__problem_upload(&problem, queue, &data_buffer));
    STEP(ck__buffer_make(queue, sizeof(float) * DIM * POINTS, &x));
    STEP(ck__buffer_make(queue, sizeof(float) * POINTS, &values));
    STEP(ck__buffer_make_zeroed(queue, 1, sizeof(uint32_t), "done", &done));
    STEP(ck__evaluation_create(&evaluation, program, &problem, POINTS, 0, &plan,
                               group, data_buffer, NULL, done));
    STEP(ck__reals_write(queue, x, 0, points, DIM * POINTS));
    STEP(ck__evaluation_run(&evaluation, queue, x, values));
#undef STEP
    if (status != CK_OK)
      goto next;
    double got[POINTS];
    CHECK_OK(ck__reals_read(queue, values, 0, got, POINTS));
    int wrong = 0;
    double worst = 0;
    for (int p = 0; p < POINTS; ++p) {
      float want = 0.0f;
      for (int d = 0; d < DIM; ++d) {
        float at = (float)points[d * POINTS + p];
        want += with_data ? row[d] * (at - row[DIM + d]) * (at - row[DIM + d])
                          : (at - 1.25f) * (at - 1.25f) * (float)(d + 1);
      }
      double error = fabs(got[p] - want) / (1.0 + fabs(want));
      worst = error > worst ? error : worst;
      wrong += !(error <= 1e-6);
    }
    CHECK_MSG(wrong == 0,
              "%s on %s: %d of %d points differ from the C twin (worst %.3g)",
              with_data ? "with data" : "without data", device->id, wrong,
              POINTS, worst);
  next:
    ck__evaluation_destroy(&evaluation);
    ck_buffer_destroy(done);
    ck_buffer_destroy(values);
    ck_buffer_destroy(x);
    ck_buffer_destroy(data_buffer);
    ck_program_destroy(program);
    ck__problem_free(&problem);
  }
  ck_queue_destroy(queue);
  ck_lsq_free(&data);
}

static void bad_input(const ck_device *ref) {
  const ck_workload *pso;
  ck_result result = {0};
  ck_run_options options = {.seed = 1};
  char malformed[512], path_missing[600];
  CHECK_OK(ck_workload_find("pso", &pso));
  test_write_text(work_dir, "malformed.csv", "1,2,3\n4,5\n", malformed,
                  sizeof malformed);
  snprintf(path_missing, sizeof path_missing, "%s/absent.csv", work_dir);
  static const struct {
    ck_param params[3];
    size_t count;
    const char *mention;
  } cases[] = {
      {{{"fn", "nosuch"}}, 1, "nosuch"},
      {{{"dim", "0"}}, 1, "--dim"},
      {{{"dim", "-3"}}, 1, "--dim"},
      {{{"particles", "0"}}, 1, "--particles"},
      {{{"iters", "0"}}, 1, "--iters"},
      {{{"evals", "1023"}},
       1,
       "option --evals: ck_pso_config.max_evaluations: 1023"},
      {{{"lo", "nan"}, {"hi", "1"}}, 2, "--lo"},
      {{{"lo", "1"}, {"hi", "1"}}, 2, "below"},
      {{{"lo", "2,3"}, {"hi", "4"}}, 2, "--lo"},
      /* Bounds and the ring are read as every option's numbers are: no
       * blanks and no hexadecimal. */
      {{{"lo", " -1"}, {"hi", "1"}}, 2, "--lo: ' -1' is not a number"},
      {{{"lo", "-1"}, {"hi", "0x1"}}, 2, "--hi: '0x1' is not a number"},
      {{{"lo", "-1,-1 "}, {"hi", "1"}}, 2, "--lo: '-1,-1 ' is not a number"},
      {{{"move-mode", "lanes"}}, 1, "--move-mode"},
      {{{"topology", "ring:1"}}, 1, "--topology"},
      {{{"topology", "ring: 3"}}, 1, "'ring: 3' is neither"},
      {{{"topology", "ring:99999999999"}},
       1,
       "--topology ring:99999999999: the neighbourhood must hold 2 to 1024"},
      {{{"topology", "ring:0x3"}}, 1, "'ring:0x3' is neither"},
      {{{"topology", "ring:2"}, {"particles", "1"}},
       2,
       "--topology ring:2: a ring needs 2 particles or more, and "
       "--particles is 1"},
      {{{"bounds", "wrap"}}, 1, "--bounds"},
      {{{"fn", "lsq"}}, 1, "--data"},
      {{{"constriction", "1"}, {"c1", "1"}, {"c2", "1"}}, 3, "c1 + c2"},
      /* A flag is "1" or left out: "0" would otherwise turn it on. */
      {{{"constriction", "0"}}, 1, "--constriction is a flag"},
      {{{"constriction", "no"}}, 1, "not \"no\""},
      {{{"precision", "half"}}, 1, "--precision"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    ck_status status = test_workload_run(pso, ref, cases[k].params,
                                         cases[k].count, &options, &result);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                  strstr(message, cases[k].mention),
              "case %zu: status %d, message '%s'", k, (int)status, message);
  }
  /* ck_workload_check, which compare runs before the oracle, refuses what
   * the run would: each option's own value, without a device. */
  static const ck_param unchecked[][2] = {
      {{"w", "abc"}},          {{"precision", "quad"}},
      {{"vmax", "0"}},         {{"topology", "star"}},
      {{"check-every", "0"}},  {{"iters", "0"}},
      {{"lsq-mode", "group"}}, {{"particles", "0"}},
      {{"bounds", "wrap"}},    {{"w", "1"}, {"constriction", "1"}}};
  check_refused_by_check(pso, unchecked,
                         sizeof unchecked / sizeof unchecked[0]);
  /* A file that cannot be read is a failure, as for every workload's
   * files, not a usage error. */
  const ck_param unreadable[] = {{"fn", "lsq"}, {"data", path_missing}};
  CHECK(test_workload_run(pso, ref, unreadable, 2, &options, &result) ==
        CK_ERROR_IO);
  const ck_param broken_data[] = {{"fn", "lsq"}, {"data", malformed}};
  CHECK(test_workload_run(pso, ref, broken_data, 2, &options, &result) ==
        CK_ERROR_PARSE);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "malformed.csv") && strstr(message, "line 2"), "%s",
            message);
  /* The option's name comes first, the reader's whole message after it. */
  char expected[700];
  snprintf(expected, sizeof expected, "option --data: %s: line 2", malformed);
  CHECK_MSG(strncmp(message, expected, strlen(expected)) == 0, "%s", message);
  /* Data past single precision is refused in a float run, and taken in a
   * double one. */
  char beyond[512];
  test_write_text(work_dir, "beyond.csv", "1,2\n1e39,4\n", beyond,
                  sizeof beyond);
  const ck_param float_data[] = {{"fn", "lsq"}, {"data", beyond}};
  CHECK(test_workload_run(pso, ref, float_data, 2, &options, &result) ==
        CK_ERROR_PARSE);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "row 2 holds 1e+39, past single precision"), "%s",
            message);
  const ck_param double_data[] = {
      {"fn", "lsq"}, {"data", beyond}, {"precision", "double"}, {"iters", "2"}};
  CHECK_OK(test_workload_run(pso, ref, double_data, 4, &options, &result));
  /* A swarm past the device's memory fails at once, with the figures
   * (ref's memory is the host's; here a copy that claims 16 MB): 65536
   * particles in 20 dimensions keep about 16.3 MB. */
  {
    ck_device small = *ref;
    small.global_memory = 16ull << 20;
    ck_pso_config c;
    ck_pso_config_init(&c);
    c.dim = 20;
    c.particles = 65536;
    ck_pso *made = (ck_pso *)&c; /* must come back NULL */
    ck_status status = ck_pso_create(&small, &c, &made);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_DEVICE_MEMORY &&
                  strstr(message, "a swarm of 65536 particles in 20 "
                                  "dimensions needs about 0.0163 GB; device "
                                  "ref has 0.0168 GB") &&
                  made == NULL,
              "past memory: status %d, message '%s'", (int)status, message);
    c.particles = 16384;
    CHECK_OK(ck_pso_create(&small, &c, &made));
    ck_pso_destroy(made);
  }
  ck_result_release(&result);
}

/* A domain where every evaluation overflows: no best to report, said so
 * (before, the swarm reported the largest float at a position whose value
 * was never that). */
static void overflow(const ck_device *device) {
  const ck_param params[] = {{"fn", "sphere"},   {"dim", "2"},
                             {"lo", "-1e30"},    {"hi", "1e30"},
                             {"particles", "4"}, {"iters", "3"}};
  check_no_finite_best("pso", device, params, sizeof params / sizeof *params);
}

/* A host objective of -inf where x0 > 0.5. */
static ck_status minus_infinity(const double *x, size_t count, size_t dim,
                                double *f, void *user) {
  (void)user;
  for (size_t i = 0; i < count; ++i)
    f[i] = x[i * dim] > 0.5 ? -INFINITY : 1.0;
  return CK_OK;
}

/* A best of -inf, clamped to the least real of the run's precision, is no
 * minimum to report (before, the run reported -FLT_MAX as its best). */
static void minus_infinity_best(const ck_device *ref) {
  const ck_param params[] = {{"dim", "2"},
                             {"lo", "-1"},
                             {"hi", "1"},
                             {"particles", "16"},
                             {"iters", "3"}};
  check_unreported_best("pso", ref, params, 5, minus_infinity,
                        "the objective gave -inf, or a value below "
                        "-3.40282e+38");
}

/* A file the run writes, given to runs on several devices: refused before
 * any runs (each would write it again), through ck_workload_check_devices
 * and ck_compare_run; on one device it is written. */
static void several_devices(const ck_device_set *set) {
  printf("outputs on several devices\n");
  const ck_workload *pso = NULL;
  CHECK_OK(ck_workload_find("pso", &pso));
  char out[600], trace[600];
  test_path_in(work_dir, "compared.txt", out, sizeof out);
  test_path_in(work_dir, "compared.csv", trace, sizeof trace);
  const ck_param params[] = {
      {"particles", "8"}, {"iters", "2"}, {"out", out}, {"trace", trace}};
  const size_t count = sizeof params / sizeof *params;
  const char *message = "";
  CHECK_OK(ck_workload_check_devices(pso, params, count, 1));
  CHECK_OK(ck_workload_check_devices(pso, params, 2, 5)); /* no outputs */
  CHECK(ck_workload_check_devices(pso, params, count, 2) ==
        CK_ERROR_INVALID_ARGUMENT);
  ck_error_get_last(&message);
  char expected[700];
  snprintf(expected, sizeof expected,
           "option --out: 2 devices would each write %s in turn", out);
  CHECK_MSG(strstr(message, expected), "'%s'", message);
  CHECK_INVALID(ck_workload_check_devices(NULL, params, count, 1),
                "ck_workload_check_devices: workload is NULL");
  /* ref twice, without ref as the oracle: two runs. */
  ck_result results[2] = {0};
  size_t produced = 7, twice[2] = {0, 0};
  ck_run_options options = {.seed = 1};
  CHECK(test_compare_run(pso, set, twice, 2, 1, params, count, &options,
                         results, 2, &produced) == CK_ERROR_INVALID_ARGUMENT &&
        produced == 0);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, expected), "'%s'", message);
  CHECK_MSG(access(out, F_OK) != 0 && access(trace, F_OK) != 0,
            "an output was written before the refusal");
  /* ref alone, as the oracle and in the list: one run, which writes. */
  CHECK_OK(test_compare_run(pso, set, twice, 1, 0, params, count, &options,
                            results, 2, &produced));
  CHECK(produced == 1 && access(out, F_OK) == 0 && access(trace, F_OK) == 0);
  test_results_release(results, 2);
}

/* ---- NULL arguments, named ----------------------------------------------- */

/* A small swarm, made once, for the calls whose swarm is not the NULL. */
typedef struct null_context {
  const ck_device *device;
  ck_pso_config config;
  ck_pso *pso;
} null_context;

static ck_status null_pso_config_init(void *context, int which) {
  (void)context;
  ck_pso_config config;
  return ck_pso_config_init(NULL_AT(0, &config));
}

static ck_status null_pso_create(void *context, int which) {
  null_context *c = context;
  ck_pso *pso = NULL;
  ck_status status = ck_pso_create(NULL_AT(0, c->device),
                                   NULL_AT(1, &c->config), NULL_AT(2, &pso));
  ck_pso_destroy(pso);
  return status;
}

static ck_status null_pso_step(void *context, int which) {
  null_context *c = context;
  return ck_pso_step(NULL_AT(0, c->pso), 1);
}

static ck_status null_pso_run(void *context, int which) {
  null_context *c = context;
  ck_pso_report report;
  return ck_pso_run(NULL_AT(0, c->pso), NULL_AT(1, &report));
}

static ck_status null_pso_get_best(void *context, int which) {
  null_context *c = context;
  double value = 0;
  return ck_pso_get_best(NULL_AT(0, c->pso), &value, NULL);
}

static ck_status null_pso_get_history(void *context, int which) {
  null_context *c = context;
  const double *values = NULL;
  size_t count = 0;
  return ck_pso_get_history(NULL_AT(0, c->pso), NULL_AT(1, &values),
                            NULL_AT(2, &count));
}

static ck_status null_pso_get_history_stride(void *context, int which) {
  null_context *c = context;
  uint64_t stride = 0;
  return ck_pso_get_history_stride(NULL_AT(0, c->pso), NULL_AT(1, &stride));
}

static void null_arguments(const ck_device *ref) {
  static const check_null_case cases[] = {
      {"ck_pso_config_init", {"config"}, null_pso_config_init},
      {"ck_pso_create", {"device", "config", "pso"}, null_pso_create},
      {"ck_pso_step", {"pso"}, null_pso_step},
      {"ck_pso_run", {"pso", "report"}, null_pso_run},
      {"ck_pso_get_best", {"pso"}, null_pso_get_best},
      {"ck_pso_get_history", {"pso", "values", "count"}, null_pso_get_history},
      {"ck_pso_get_history_stride",
       {"pso", "stride"},
       null_pso_get_history_stride},
  };
  null_context c = {.device = ref};
  ck_pso_config_init(&c.config);
  c.config.dim = 2;
  c.config.particles = 16;
  CHECK_OK(ck_pso_create(ref, &c.config, &c.pso));
  if (c.pso)
    check_null_arguments(cases, sizeof cases / sizeof cases[0], &c);
  ck_pso_destroy(c.pso);
}

/* ---- a swarm spread over devices ---------------------------------------- */

/* A spread swarm's best and position, after its run. */
static int spread_best(const ck_spread *spread, const ck_pso_config *config,
                       double *best, double *position) {
  ck_pso *pso = NULL;
  ck_pso_report report;
  CHECK_OK(ck_pso_create_spread(spread, config, &pso));
  if (!pso)
    return 0;
  CHECK_OK(ck_pso_run(pso, &report));
  CHECK_OK(ck_pso_get_best(pso, best, position));
  CHECK_MSG(*best == report.best, "best %.17g, report %.17g", *best,
            report.best);
  ck_pso_destroy(pso);
  return 1;
}

/* The largest fraction a progress callback was told. */
static int keep_fraction(void *user, const ck_progress *progress) {
  double *largest = user;
  if (progress->fraction > *largest)
    *largest = progress->fraction;
  return 0;
}

/* A spread run that only the clock stops reports its progress by the
 * clock, as one device's does. */
static void spread_progress(const ck_device *ref) {
  printf("spread progress by the clock\n");
  ck_pso_config c;
  ck_pso_config_init(&c);
  c.function = "sphere";
  c.dim = 4;
  c.particles = 64;
  c.max_iterations = 0;
  c.max_seconds = 0.3;
  double largest = 0;
  c.progress = keep_fraction;
  c.progress_user = &largest;
  ck_spread one = {.devices = ref, .device_count = 1};
  ck_pso *pso = NULL;
  CHECK_OK(ck_pso_create_spread(&one, &c, &pso));
  if (pso) {
    ck_pso_report report;
    CHECK_OK(ck_pso_run(pso, &report));
    CHECK(report.stopped_by == CK_STOP_TIME);
    CHECK_MSG(largest > 0.5 && largest <= 1, "largest fraction %g", largest);
    ck_pso_destroy(pso);
  }
}

/* What a spread refuses before any device work, through
 * ck_workload_check_spread: a workload that does not spread; and under
 * MPI, an input on "-". A ring topology spreads, through ck_workload_run
 * too, to the one-device run's best. */
static void spread_refusals(const ck_device *ref) {
  printf("spread refusals\n");
  const ck_workload *pso = NULL, *aco = NULL, *selfcheck = NULL;
  CHECK_OK(ck_workload_find("pso", &pso));
  CHECK_OK(ck_workload_find("aco", &aco));
  CHECK_OK(ck_workload_find("selfcheck", &selfcheck));
  const ck_param ring[] = {{"topology", "ring:3"}, {"iters", "2"}};
  CHECK_OK(ck_workload_check_spread(pso, ring, 2, 2));
  CHECK_INVALID(ck_workload_check_spread(selfcheck, NULL, 0, 1),
                "selfcheck does not spread");
  const ck_param piped[] = {{"instance", "-"}};
  CHECK_OK(ck_workload_check_spread(aco, piped, 1, 1));
  CHECK_INVALID(ck_workload_check_spread(aco, piped, 1, 2),
                "option --instance: under MPI only rank 0 reads standard "
                "input");
  /* The same refusal without reading the options, beside a job. */
  CHECK_OK(ck_workload_check_processes(aco, piped, 1, 1));
  CHECK_INVALID(ck_workload_check_processes(aco, piped, 1, 3),
                "option --instance: under MPI only rank 0 reads standard "
                "input");
  CHECK_INVALID(ck_workload_check_processes(aco, NULL, 1, 2),
                "ck_workload_check_processes: params is NULL but count is 1");
  ck_spread one = {.devices = ref, .device_count = 1};
  ck_run_options options = {.seed = 1}, spread = {.seed = 1, .spread = &one};
  ck_result alone, result;
  CHECK_OK(ck_workload_run(pso, ref, ring, 2, &options, &alone));
  CHECK_OK(ck_workload_run(pso, ref, ring, 2, &spread, &result));
  CHECK_MSG(result.best == alone.best && result.member_count == 1,
            "a ring spread: %.17g, alone %.17g", result.best, alone.best);
  ck_result_release(&alone);
  ck_result_release(&result);
}

/*
 * One member is the one-device swarm, bit for bit; so are ref and another
 * device with hand-set shares on sphere (additions and products alone,
 * rounded alike everywhere), and a member count that does not divide the
 * particles. What cannot spread is refused.
 */
static void spread_swarms(const ck_device *ref, const ck_device *other) {
  printf("spread swarms%s%s\n", other ? " with " : "", other ? other->id : "");
  ck_pso_config c;
  ck_pso_config_init(&c);
  c.function = "rastrigin";
  c.dim = 6;
  c.particles = 101;
  c.max_iterations = 60;
  c.seed = 17;
  double alone[6], spread_x[6], best_alone = run_best(ref, &c, alone), best;
  ck_spread one = {.devices = ref, .device_count = 1};
  if (spread_best(&one, &c, &best, spread_x))
    CHECK_MSG(best == best_alone && memcmp(alone, spread_x, sizeof alone) == 0,
              "one member: %.17g, alone %.17g", best, best_alone);
  if (other) {
    ck_device pair[2] = {*ref, *other};
    const double shares[2] = {1, 3};
    ck_spread two = {
        .devices = pair, .device_count = 2, .shares = shares, .share_count = 2};
    c.function = "sphere";
    best_alone = run_best(ref, &c, alone);
    if (spread_best(&two, &c, &best, spread_x))
      CHECK_MSG(
          best == best_alone && memcmp(alone, spread_x, sizeof alone) == 0,
          "ref and %s: %.17g, ref alone %.17g", other->id, best, best_alone);
    /* The workload's result names each member's share. */
    const ck_workload *workload = NULL;
    CHECK_OK(ck_workload_find("pso", &workload));
    const ck_param params[] = {
        {"fn", "sphere"}, {"dim", "6"}, {"particles", "101"}, {"iters", "20"}};
    ck_run_options options = {.seed = 3, .spread = &two};
    ck_result result;
    ck_status run_status =
        ck_workload_run(workload, ref, params, 4, &options, &result);
    CHECK_OK(run_status);
    if (run_status == CK_OK) {
      CHECK_MSG(result.member_count == 2 && result.members &&
                    result.members[0].units + result.members[1].units == 101 &&
                    result.members[1].units > 2 * result.members[0].units &&
                    strcmp(result.members[1].device, other->id) == 0 &&
                    strcmp(result.member_units, "particles") == 0,
                "members %zu", result.member_count);
      char *json = NULL;
      CHECK_OK(ck_result_format_json(&result, &json));
      CHECK(json && strstr(json, "\"members\":[{\"device\":\"ref\""));
      ck_memory_free(json);
      ck_result_release(&result);
      CHECK(result.members == NULL && result.member_count == 0);
    }
  }
  /* Rings, as one device: ring:80 reaches past a slice of 32 on both
   * sides, so its halos take two passes. */
  static const int rings[2] = {3, 80};
  c.function = "sphere";
  for (size_t r = 0; r < 2; ++r) {
    c.ring_neighbours = rings[r];
    best_alone = run_best(ref, &c, alone);
    if (spread_best(&one, &c, &best, spread_x))
      CHECK_MSG(best == best_alone &&
                    memcmp(alone, spread_x, sizeof alone) == 0,
                "ring:%d, one member: %.17g, alone %.17g", rings[r], best,
                best_alone);
    ck_device pair[2] = {*ref, other ? *other : *ref};
    const double shares[2] = {1, 3};
    ck_spread two = {
        .devices = pair, .device_count = 2, .shares = shares, .share_count = 2};
    if (other && spread_best(&two, &c, &best, spread_x))
      CHECK_MSG(best == best_alone &&
                    memcmp(alone, spread_x, sizeof alone) == 0,
                "ring:%d, ref and %s: %.17g, ref alone %.17g", rings[r],
                other->id, best, best_alone);
  }
  c.ring_neighbours = 0;
  /* Refusals: fewer particles than members, shares that do not match the
   * members, a device twice. */
  ck_pso *pso = NULL;
  ck_device twice[2] = {*ref, *ref};
  ck_spread doubled = {.devices = twice, .device_count = 2};
  CHECK_INVALID(ck_pso_create_spread(&doubled, &c, &pso), "given twice");
  const double three[3] = {1, 1, 1};
  ck_spread mismatched = {
      .devices = ref, .device_count = 1, .shares = three, .share_count = 3};
  CHECK_INVALID(ck_pso_create_spread(&mismatched, &c, &pso),
                "3 shares for 1 members");
  if (other) {
    ck_device pair[2] = {*ref, *other};
    ck_spread two = {.devices = pair, .device_count = 2};
    c.particles = 1;
    CHECK_INVALID(ck_pso_create_spread(&two, &c, &pso),
                  "1 particles cannot be dealt to 2 devices");
  }
  CHECK(pso == NULL);
}

/*
 * A spread member's steps on ref and on an OpenCL device, given the same
 * halo before each iteration: its ring neighbours from the halo
 * (ck_pso_ring_best_slice), the moves they guide (lanes that a halo item
 * guides move one by one), and its outbox (ck_pso_report), byte for byte;
 * under gbest, its outbox. Sphere rounds alike on both, in both
 * precisions. 48 particles make three lanes of 16, both ends' guided.
 */
static void member_twins(const ck_device *ref, const ck_device *device) {
  printf("spread member twins on %s\n", device->id);
  for (int case_ = 0; case_ < 4; ++case_) {
    ck_pso_config c;
    ck_pso_config_init(&c);
    c.function = "sphere";
    c.dim = 5;
    c.particles = 48;
    c.seed = 3;
    c.double_precision = case_ & 1;
    c.ring_neighbours = case_ & 2 ? 7 : 0;
    uint32_t halo = case_ & 2 ? 3 : 0;
    const ck_device *devices[2] = {ref, device};
    pso_swarm *members[2] = {NULL, NULL};
    double x[2][5 * 48], items[6 * 6];
    for (int j = 0; j < 2; ++j) {
      CHECK_OK(ck__pso_member_make(devices[j], &c, 50, 120, halo, halo,
                                   &members[j]));
      if (members[j])
        CHECK_OK(ck__pso_swarm_set_up(members[j]));
    }
    for (uint64_t iteration = 1; iteration <= 3 && members[1]; ++iteration) {
      /* Halo items better than any particle's, so that the ends follow
       * them. */
      for (size_t e = 0; e < 2 * halo; ++e) {
        items[e * 6] = 0.01 * (double)(e + iteration);
        for (size_t d = 0; d < 5; ++d)
          items[e * 6 + 1 + d] = (e % 2 ? 0.5 : -0.5) * (double)(d + 1);
      }
      for (int j = 0; j < 2; ++j) {
        pso_state *state = &members[j]->state;
        if (halo)
          CHECK_OK(ck__reals_write(state->queue, state->inbox,
                                   c.double_precision, items, 2 * halo * 6));
        CHECK_OK(ck__pso_advance(members[j], iteration, 1));
        CHECK_OK(ck__pso_member_post(members[j]));
        CHECK_OK(ck__reals_read(state->queue, state->x, c.double_precision,
                                x[j], 5 * 48));
      }
      pso_state *a = &members[0]->state, *b = &members[1]->state;
      CHECK_MSG(a->outbox_bytes == b->outbox_bytes &&
                    memcmp(a->outbox_host, b->outbox_host, a->outbox_bytes) ==
                        0 &&
                    memcmp(x[0], x[1], sizeof x[0]) == 0,
                "case %d, iteration %" PRIu64 ": ref and %s differ", case_,
                iteration, device->id);
    }
    ck__pso_swarm_destroy(members[0]);
    ck__pso_swarm_destroy(members[1]);
  }
}

/* ---- host objectives ---------------------------------------------------- */

static const double host_lo[5] = {-5.12, -5.12, -5.12, -5.12, -5.12};
static const double host_hi[5] = {5.12, 5.12, 5.12, 5.12, 5.12};

/* A sphere swarm of 5 dimensions in double precision, evaluated on the
 * host by test_host_sphere. */
static void host_config(ck_pso_config *c, test_host_seen *seen) {
  ck_pso_config_init(c);
  c->function = NULL;
  c->evaluate = test_host_sphere;
  c->evaluate_user = seen;
  c->dim = 5;
  c->particles = 20;
  c->lo = host_lo;
  c->hi = host_hi;
  c->double_precision = 1;
  c->max_iterations = 30;
  c->seed = 7;
}

/* A callback computing sphere gives the built-in sphere's swarm, gbest
 * and ring: the same moves, and values of the same operations in the same
 * order. On ref the bits agree; OpenCL devices may contract the built-in's
 * sums into fused multiply-adds, so there they agree to 1e-12. */
static void host_objective(const ck_device *device) {
  if (!device->has_fp64)
    return;
  for (int ring = 0; ring <= (device->backend == CK_BACKEND_REF); ++ring) {
    test_host_seen seen = {0};
    ck_pso_config c;
    host_config(&c, &seen);
    c.ring_neighbours = ring ? 3 : 0;
    double host_x[5], builtin_x[5];
    double host = run_best(device, &c, host_x);
    CHECK_MSG(seen.calls == 31 && seen.count == 20 && seen.dim == 5,
              "%s: %llu calls of %zu x %zu", device->id,
              (unsigned long long)seen.calls, seen.count, seen.dim);
    c.evaluate = NULL;
    c.function = "sphere";
    double builtin = run_best(device, &c, builtin_x);
    if (device->backend == CK_BACKEND_REF)
      CHECK_MSG(host == builtin &&
                    memcmp(host_x, builtin_x, sizeof host_x) == 0,
                "ref ring %d: host %.17g, built-in %.17g", ring, host, builtin);
    else
      CHECK_MSG(fabs(host - builtin) <= 1e-12 * fabs(builtin),
                "%s: host %.17g, built-in %.17g", device->id, host, builtin);
    CHECK_MSG(host < 0.5, "%s ring %d: %g", device->id, ring, host);
  }
}

/* An ask/tell loop with test_host_sphere's values gives the callback's
 * swarm, bit for bit, and the same history. */
static void host_ask_tell(const ck_device *device) {
  if (!device->has_fp64)
    return;
  ck_pso_config c;
  host_config(&c, NULL);
  ck_pso *pso = create(device, &c);
  double best = NAN, position[5];
  const double *history = NULL;
  size_t count = 0;
  if (pso) {
    CHECK_OK(ck_pso_step(pso, 30));
    CHECK_OK(ck_pso_get_best(pso, &best, position));
    CHECK_OK(ck_pso_get_history(pso, &history, &count));
  }
  double *expected = malloc((count ? count : 1) * sizeof *expected);
  if (count)
    memcpy(expected, history, count * sizeof *expected);
  ck_pso_destroy(pso);
  c.evaluate = NULL;
  c.ask_tell = 1;
  pso = create(device, &c);
  double x[20 * 5], again[20 * 5], f[20];
  for (int told = 0; pso && told <= 30; ++told) {
    CHECK_OK(ck_pso_ask(pso, x));
    CHECK_OK(ck_pso_ask(pso, again));
    CHECK(memcmp(x, again, sizeof x) == 0);
    test_host_sphere(x, 20, 5, f, NULL);
    CHECK_OK(ck_pso_tell(pso, f));
  }
  double told_best = NAN, told_position[5];
  if (pso) {
    CHECK_OK(ck_pso_get_best(pso, &told_best, told_position));
    CHECK_MSG(told_best == best &&
                  memcmp(position, told_position, sizeof position) == 0,
              "%s: ask/tell %.17g, callback %.17g", device->id, told_best,
              best);
    CHECK_OK(ck_pso_get_history(pso, &history, &count));
    CHECK(count == 31 &&
          memcmp(history, expected, count * sizeof *expected) == 0);
    /* NaN counts as the largest value: the best stays. */
    for (int i = 0; i < 20; ++i)
      f[i] = NAN;
    CHECK_OK(ck_pso_tell(pso, f));
    CHECK_OK(ck_pso_get_best(pso, &told_best, NULL));
    CHECK(told_best == best);
  }
  ck_pso_destroy(pso);
  free(expected);
}

/* Off CUDA devices a device objective takes a host copy of the swarm
 * (page-locked on OpenCL): run (in stream order too, where the copy is
 * complete all the same), and through ask/tell, its swarm is the host
 * callback's bit for bit. Values said to be in device memory are refused
 * there; no stream waits for a host copy. */
static void device_objective_on_host(const ck_device *device) {
  if (!device->has_fp64 || device->backend == CK_BACKEND_CUDA)
    return;
  ck_pso_config c;
  host_config(&c, NULL);
  double best[4] = {NAN, NAN, NAN, NAN}, position[4][5];
  test_batch_values values = {0};
  for (int way = 0; way < 4; ++way) {
    c.evaluate = way == 0 ? test_host_sphere : NULL;
    c.evaluate_device = way == 1 || way == 3 ? test_batch_sphere : NULL;
    c.evaluate_device_ordered = way == 3;
    c.evaluate_user = way == 1 || way == 3 ? &values : NULL;
    c.ask_tell = way == 2;
    ck_pso *pso = create(device, &c);
    if (!pso)
      return;
    if (way != 2)
      CHECK_OK(ck_pso_step(pso, 30));
    for (int told = 0; way == 2 && told <= 30; ++told) {
      ck_device_batch batch;
      CHECK_OK(ck_pso_ask_device(pso, &batch));
      CHECK_OK(test_batch_sphere(&batch, &values));
      CHECK_OK(ck_pso_tell_device(pso, &batch));
    }
    CHECK_OK(ck_pso_get_best(pso, &best[way], position[way]));
    if (way == 2) {
      ck_device_batch batch;
      CHECK_OK(ck_pso_ask_device(pso, &batch));
      /* The values read back as they were left: float, every other. */
      float strided[2 * 20];
      double read[20];
      for (size_t i = 0; i < batch.count; ++i)
        strided[2 * i] = (float)i - 0.5f;
      batch.values = strided;
      batch.value_size = 4;
      batch.value_stride = 2;
      batch.values_on_host = 1;
      CHECK(batch.count == 20);
      CHECK_OK(ck_device_batch_read_values(&batch, read));
      CHECK(read[0] == -0.5 && read[19] == 18.5);
      batch.value_stride = 0;
      CHECK_INVALID(ck_device_batch_read_values(&batch, read), "no values");
      batch.values = values.f;
      batch.value_size = 8;
      batch.value_stride = 1;
      batch.values_on_host = 0;
      CHECK_INVALID(ck_pso_tell_device(pso, &batch), "values in device memory");
      CHECK_INVALID(ck_device_batch_read_values(&batch, read),
                    "from a CUDA device only");
      CHECK_OK(ck_device_batch_wait(&batch, NULL));
      CHECK_INVALID(ck_device_batch_wait(NULL, NULL), "batch is NULL");
      CHECK_OK(ck_device_batch_after(&batch, NULL));
      CHECK_INVALID(ck_device_batch_after(NULL, NULL), "batch is NULL");
    }
    ck_pso_destroy(pso);
  }
  for (int way = 1; way < 4; ++way)
    CHECK_MSG(best[way] == best[0] &&
                  memcmp(position[way], position[0], sizeof position[0]) == 0,
              "%s: device objective way %d %.17g, host callback %.17g",
              device->id, way, best[way], best[0]);
  CHECK(values.calls == 93);
}

/* The arrays of a ck_pso_state of 20 particles in 5 dimensions. */
typedef struct state_arrays {
  double positions[100], velocities[100], best_positions[100];
  double best_values[20], global_best[5];
} state_arrays;

static ck_pso_state state_over(state_arrays *arrays) {
  return (ck_pso_state){.positions = arrays->positions,
                        .velocities = arrays->velocities,
                        .best_positions = arrays->best_positions,
                        .best_values = arrays->best_values,
                        .global_best = arrays->global_best};
}

/* Asks and tells test_host_sphere's values `tells` times, each ask into
 * asked (tells x 100 values) where given. */
static void tell_sphere(ck_pso *pso, int tells, double *asked) {
  double x[100], f[20];
  for (int i = 0; i < tells; ++i) {
    CHECK_OK(ck_pso_ask(pso, x));
    if (asked)
      memcpy(asked + 100 * i, x, sizeof x);
    test_host_sphere(x, 20, 5, f, NULL);
    CHECK_OK(ck_pso_tell(pso, f));
  }
}

/* A state read after four tells and set on a new swarm gives that swarm
 * the asks of the first, bit for bit, in either precision and topology;
 * the initial swarm's state has no tells and no values. */
static void ask_tell_state(const ck_device *device) {
  for (int variant = 0; variant < 2; ++variant) {
    ck_pso_config c;
    host_config(&c, NULL);
    c.evaluate = NULL;
    c.ask_tell = 1;
    c.double_precision = variant == 0 && device->has_fp64;
    c.ring_neighbours = variant == 1 ? 3 : 0;
    ck_pso *first = create(device, &c), *second = create(device, &c);
    if (!first || !second) {
      ck_pso_destroy(first);
      ck_pso_destroy(second);
      return;
    }
    state_arrays initial, arrays;
    ck_pso_state start = state_over(&initial);
    CHECK_OK(ck_pso_get_state(second, &start));
    CHECK(start.tells == 0 && start.seed == 7);
    double largest = c.double_precision ? DBL_MAX : FLT_MAX;
    CHECK(start.global_best_value == largest &&
          initial.best_values[19] == largest);
    tell_sphere(first, 4, NULL);
    ck_pso_state state = state_over(&arrays);
    CHECK_OK(ck_pso_get_state(first, &state));
    CHECK(state.tells == 4 && state.global_best_value < 1e3);
    double expected[300], asked[300];
    tell_sphere(first, 3, expected);
    tell_sphere(second, 2, NULL);
    CHECK_OK(ck_pso_set_state(second, &state));
    tell_sphere(second, 3, asked);
    CHECK_MSG(memcmp(expected, asked, sizeof asked) == 0,
              "%s variant %d: the restored swarm asks otherwise", device->id,
              variant);
    double best[2], position[2][5];
    CHECK_OK(ck_pso_get_best(first, &best[0], position[0]));
    CHECK_OK(ck_pso_get_best(second, &best[1], position[1]));
    CHECK(best[0] == best[1] &&
          memcmp(position[0], position[1], sizeof position[0]) == 0);
    /* The initial state sends a swarm back to its start. */
    CHECK_OK(ck_pso_set_state(second, &start));
    double x[100];
    CHECK_OK(ck_pso_ask(second, x));
    CHECK(memcmp(x, initial.positions, sizeof x) == 0);
    ck_pso_destroy(first);
    ck_pso_destroy(second);
  }
}

/* What ck_pso_get_state and ck_pso_set_state refuse, leaving the swarm
 * as it was. */
static void state_errors(const ck_device *ref) {
  ck_pso_config c;
  host_config(&c, NULL);
  ck_pso *stepped = create(ref, &c);
  c.evaluate = NULL;
  c.ask_tell = 1;
  ck_pso *pso = create(ref, &c);
  state_arrays arrays;
  ck_pso_state state = state_over(&arrays);
  if (stepped) {
    CHECK_INVALID(ck_pso_get_state(stepped, &state), "not made for ask/tell");
    CHECK_INVALID(ck_pso_set_state(stepped, &state), "not made for ask/tell");
  }
  ck_pso_destroy(stepped);
  if (!pso)
    return;
  CHECK_INVALID(ck_pso_get_state(NULL, &state), "pso is NULL");
  CHECK_INVALID(ck_pso_set_state(pso, NULL), "state is NULL");
  tell_sphere(pso, 2, NULL);
  CHECK_OK(ck_pso_get_state(pso, &state));
  double before[100], after[100];
  CHECK_OK(ck_pso_ask(pso, before));
  state.velocities = NULL;
  CHECK_INVALID(ck_pso_get_state(pso, &state), "array of the ck_pso_state");
  state.velocities = arrays.velocities;
  state.seed = 8;
  CHECK_INVALID(ck_pso_set_state(pso, &state), "seed 8 is not the swarm's 7");
  state.seed = 7;
  arrays.positions[3] = NAN;
  CHECK_INVALID(ck_pso_set_state(pso, &state), "positions[3] is nan");
  arrays.positions[3] = 0;
  /* Bests that no tells make. */
  double least = state.global_best_value, value = arrays.best_values[2],
         coordinate = arrays.global_best[0];
  state.global_best_value = NAN;
  CHECK_INVALID(ck_pso_set_state(pso, &state), "global_best_value is nan");
  state.global_best_value = least - 1;
  CHECK_INVALID(ck_pso_set_state(pso, &state), "not the least of best_values");
  state.global_best_value = least;
  arrays.best_values[2] = -INFINITY;
  CHECK_INVALID(ck_pso_set_state(pso, &state), "best_values[2] is -inf");
  arrays.best_values[2] = value;
  arrays.global_best[0] = coordinate + 1;
  CHECK_INVALID(ck_pso_set_state(pso, &state),
                "global_best is not the row of best_positions");
  arrays.global_best[0] = coordinate;
  state.tells = 0;
  CHECK_INVALID(ck_pso_set_state(pso, &state), "but tells is 0");
  state.tells = 2;
  arrays.global_best[4] = INFINITY;
  CHECK_INVALID(ck_pso_set_state(pso, &state), "global_best[4] is inf");
  CHECK_OK(ck_pso_ask(pso, after));
  CHECK(memcmp(before, after, sizeof after) == 0);
  ck_pso_destroy(pso);
}

/* ck_pso_config_read: the command's settings and messages, and the
 * options of a run refused. */
static void config_read(void) {
  ck_pso_config c, defaults;
  ck_pso_config_init(&defaults);
  const ck_param params[] = {{"particles", "16"},
                             {"topology", "ring:3"},
                             {"w", "0.5"},
                             {"dim", "4"},
                             {"bounds", "reflect"}};
  CHECK_OK(ck_pso_config_read(params, 5, &c));
  CHECK(c.particles == 16 && c.ring_neighbours == 3 && c.w == 0.5 &&
        c.dim == 4 && c.bounds == CK_BOUNDS_MODE_REFLECT &&
        c.c1 == defaults.c1 && c.seed == 1 && c.lo == NULL);
  const ck_param constriction[] = {{"constriction", "1"}};
  CHECK_OK(ck_pso_config_read(constriction, 1, &c));
  CHECK(c.constriction == 1 && c.c1 == 2.05 && c.c2 == 2.05);
  static const char *const runs[] = {"iters", "evals",       "target", "time",
                                     "lo",    "check-every", "trace",  "data"};
  for (size_t i = 0; i < sizeof runs / sizeof *runs; ++i) {
    const ck_param run[] = {{"w", "0.1"}, {runs[i], "1"}};
    char mention[64];
    snprintf(mention, sizeof mention, "option --%s belongs to a run", runs[i]);
    CHECK_INVALID(ck_pso_config_read(run, 2, &c), mention);
  }
  /* Refused, config is as the last read left it. */
  CHECK(c.constriction == 1 && c.c1 == 2.05 && c.w == defaults.w);
  const ck_param bad[] = {{"topology", "ring:99"}, {"particles", "16"}};
  CHECK_INVALID(ck_pso_config_read(bad, 2, &c), "must hold 2 to 16");
  const ck_param both[] = {{"constriction", "1"}, {"w", "0.5"}};
  CHECK_INVALID(ck_pso_config_read(both, 2, &c), "--w has no part");
  const ck_param unknown[] = {{"nope", "1"}};
  CHECK_INVALID(ck_pso_config_read(unknown, 1, &c), "unknown option --nope");
  CHECK_INVALID(ck_pso_config_read(NULL, 1, &c), "params is NULL");
  CHECK_INVALID(ck_pso_config_read(NULL, 0, NULL), "config is NULL");
}

/* A host objective's error stops the run with its status and a message
 * naming the iteration; the refusals of the contract. */
static void host_errors(const ck_device *ref) {
  test_host_seen seen = {.fail_at = 1};
  ck_pso_config c;
  host_config(&c, &seen);
  ck_pso *pso = NULL;
  const char *message = "";
  CHECK(ck_pso_create(ref, &c, &pso) == CK_ERROR_CANCELLED && pso == NULL);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "ck_pso_config.evaluate") &&
                strstr(message, "CK_ERROR_CANCELLED") &&
                strstr(message, "iteration 0"),
            "%s", message);
  seen = (test_host_seen){.fail_at = 4};
  pso = create(ref, &c);
  ck_pso_report report;
  if (pso) {
    CHECK(ck_pso_run(pso, &report) == CK_ERROR_CANCELLED);
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "iteration 3"), "%s", message);
    CHECK(seen.calls == 4);
    double x[100];
    CHECK_INVALID(ck_pso_ask(pso, x), "not made for ask/tell");
    CHECK_INVALID(ck_pso_tell(pso, x), "not made for ask/tell");
  }
  ck_pso_destroy(pso);

  c.ask_tell = 1;
  CHECK_INVALID(ck_pso_create(ref, &c, &pso),
                "give one of evaluate, evaluate_device and ask_tell");
  c.evaluate = NULL;
  pso = create(ref, &c);
  if (pso) {
    CHECK_INVALID(ck_pso_run(pso, &report), "ck_pso_run: the swarm was made");
    CHECK_INVALID(ck_pso_step(pso, 1), "it moves at ck_pso_tell");
  }
  ck_pso_destroy(pso);
  pso = NULL;
  c.function = "sphere";
  CHECK_INVALID(ck_pso_create(ref, &c, &pso), "ck_pso_config.function");
  c.function = NULL;
  c.lo = NULL;
  CHECK_INVALID(ck_pso_create(ref, &c, &pso), "host objective needs");
  c.lo = host_lo;
  ck_lsq_data data = {0};
  c.data = &data;
  CHECK_INVALID(ck_pso_create(ref, &c, &pso), "takes no data");
  c.data = NULL;
  c.objective_source = "float objective(const float *x, int dim) {}";
  CHECK_INVALID(ck_pso_create(ref, &c, &pso), "ck_pso_config.objective_source");
  c.objective_source = NULL;
  ck_spread spread = {.devices = ref, .device_count = 1};
  CHECK(ck_pso_create_spread(&spread, &c, &pso) == CK_ERROR_UNSUPPORTED);
  CHECK(pso == NULL);

  /* A device objective runs alone, not spread. */
  c.ask_tell = 0;
  c.evaluate_device = never_on_device;
  c.evaluate = test_host_sphere;
  CHECK_INVALID(ck_pso_create(ref, &c, &pso), "give one of evaluate");
  c.evaluate = NULL;
  CHECK(ck_pso_create_spread(&spread, &c, &pso) == CK_ERROR_UNSUPPORTED);
  CHECK(seen.calls == 4);
}

static ck_status null_pso_ask(void *context, int which) {
  null_context *c = context;
  double x[16 * 2];
  return ck_pso_ask(NULL_AT(0, c->pso), NULL_AT(1, x));
}

static ck_status null_pso_tell(void *context, int which) {
  null_context *c = context;
  double f[16] = {0};
  return ck_pso_tell(NULL_AT(0, c->pso), NULL_AT(1, f));
}

static void host_null_arguments(const ck_device *ref) {
  static const check_null_case cases[] = {
      {"ck_pso_ask", {"pso", "x"}, null_pso_ask},
      {"ck_pso_tell", {"pso", "f"}, null_pso_tell},
  };
  null_context c = {.device = ref};
  ck_pso_config_init(&c.config);
  c.config.function = NULL;
  c.config.ask_tell = 1;
  c.config.dim = 2;
  c.config.particles = 16;
  c.config.lo = host_lo;
  c.config.hi = host_hi;
  CHECK_OK(ck_pso_create(ref, &c.config, &c.pso));
  if (c.pso)
    check_null_arguments(cases, sizeof cases / sizeof cases[0], &c);
  ck_pso_destroy(c.pso);
}

/* A workload run with the run options' host objective: the built-in
 * sphere's swarm, bit for bit on ref, through the options as the command
 * gives them; --fn then resolves to none. Other objectives beside it are
 * refused, as is a workload that takes no objective. */
static void host_workload(const ck_device *ref) {
  const ck_workload *pso = NULL, *aco = NULL;
  CHECK_OK(ck_workload_find("pso", &pso));
  CHECK_OK(ck_workload_find("aco", &aco));
  ck_param params[] = {
      {"dim", "5"},   {"particles", "20"},     {"iters", "30"}, {"lo", "-5.12"},
      {"hi", "5.12"}, {"precision", "double"}, {"fn", "sphere"}};
  test_host_seen seen = {0};
  ck_run_options options = {.seed = 7};
  ck_result builtin, host;
  CHECK_OK(ck_workload_run(pso, ref, params, 7, &options, &builtin));
  options.objective = test_host_sphere;
  options.objective_user = &seen;
  ck_status status = ck_workload_run(pso, ref, params, 6, &options, &host);
  CHECK_OK(status);
  if (status == CK_OK) {
    CHECK_MSG(host.best == builtin.best && host.position_count == 5 &&
                  memcmp(host.position, builtin.position,
                         5 * sizeof *host.position) == 0,
              "host %.17g, built-in %.17g", host.best, builtin.best);
    CHECK(seen.calls == 31 && seen.count == 20 && seen.dim == 5);
    CHECK(strcmp(host.options[0].name, "fn") == 0 && !host.options[0].value);
    ck_result_release(&host);
  }
  CHECK_INVALID(ck_workload_run(pso, ref, params, 7, &options, &host),
                "option --fn: the run's objective is evaluated on the host");
  CHECK_INVALID(ck_workload_run(pso, ref, params, 3, &options, &host),
                "host objective needs its domain");
  ck_param lo_only[] = {{"lo", "-1"}};
  CHECK_INVALID(ck_workload_run(pso, ref, lo_only, 1, &options, &host),
                "a host objective needs both --lo and --hi");
  CHECK(ck_workload_run(aco, ref, NULL, 0, &options, &host) ==
        CK_ERROR_UNSUPPORTED);
  /* A device objective: refused beside a host one and by a workload that
   * takes none; on ref it takes a host copy of the swarm, whose run is
   * the built-in's. */
  options.device_objective = never_on_device;
  CHECK_INVALID(ck_workload_run(pso, ref, params, 6, &options, &host),
                "give objective or device_objective");
  options.objective = NULL;
  CHECK(ck_workload_run(aco, ref, NULL, 0, &options, &host) ==
        CK_ERROR_UNSUPPORTED);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "aco takes no device objective"), "%s", message);
  test_batch_values batch_values = {0};
  options.device_objective = test_batch_sphere;
  options.objective_user = &batch_values;
  status = ck_workload_run(pso, ref, params, 6, &options, &host);
  CHECK_OK(status);
  if (status == CK_OK) {
    CHECK_MSG(
        host.best == builtin.best && memcmp(host.position, builtin.position,
                                            5 * sizeof *host.position) == 0,
        "device objective %.17g, built-in %.17g", host.best, builtin.best);
    CHECK(batch_values.calls == 31);
    ck_result_release(&host);
  }
  ck_result_release(&builtin);
}

int main(void) {
  const char *temporary = getenv("TMPDIR");
  snprintf(work_dir, sizeof work_dir, "%s/clkit-pso-XXXXXX",
           temporary && *temporary ? temporary : "/tmp");
  if (!mkdtemp(work_dir))
    return 1;
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  long opencl = test_opencl_device(&set);
  const ck_device *devices[2] = {ref,
                                 opencl >= 0 ? &set.devices[opencl] : NULL};
  for (int i = 0; i < 2; ++i) {
    if (!devices[i])
      continue;
    printf("pso on %s\n", devices[i]->id);
    quality(devices[i]);
    bounds(devices[i]);
    history_and_target(devices[i]);
    bounded_history(devices[i]);
    budgets(devices[i]);
    agreement(ref, devices[i]);
    move_modes(ref, devices[i]);
    lsq(ref, devices[i]);
    overflow(devices[i]);
    host_objective(devices[i]);
    host_ask_tell(devices[i]);
    device_objective_on_host(devices[i]);
    ask_tell_state(devices[i]);
  }
  if (devices[1]) {
    user_objective(devices[1]);
    fused_user_objective(devices[1]);
    user_objective_kernel(devices[1]);
    member_twins(ref, devices[1]);
  }
  lsq_plans();
  ring_best();
  ring_slices();
  move_coordinate();
  constriction(ref);
  bad_input(ref);
  bad_configs(ref);
  null_arguments(ref);
  several_devices(&set);
  spread_swarms(ref, devices[1]);
  spread_refusals(ref);
  spread_progress(ref);
  host_errors(ref);
  host_null_arguments(ref);
  state_errors(ref);
  config_read();
  host_workload(ref);
  minus_infinity_best(ref);
  ck_device_set_free(&set);
  remove_tree(work_dir);
  return CHECK_DONE();
}
