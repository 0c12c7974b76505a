/*
 * test_ga.c - the island-model genetic algorithm on ref and on an OpenCL
 * device: the shared operators of cl/ck_ga.h against their theory,
 * elitism, migration slot by slot, quality on known functions, bounds
 * under every mode, reproducibility, ref/device agreement (bit for bit,
 * mutations included, where the objective uses no device library
 * function), lsq recovering known coefficients, the target stop, the
 * history past its bound, host objectives (a callback, and ask/tell),
 * and bad input.
 */
#include <errno.h>
#include <float.h>
#include <stdint.h>
#include <time.h>

#include "check.h"
#include "ck_ga.h"
#include "ck_ga_schedule.h"
#include "framework/history.h"
#include "ga/ga_internal.h"
#include "opencl_device.h"
#include "runtime/runtime.h"
#include "test_support.h"

/* ---- helpers ------------------------------------------------------------ */

static ck_ga *create(const ck_device *device, const ck_ga_config *config) {
  ck_ga *ga = NULL;
  CHECK_OK(ck_ga_create(device, config, &ga));
  return ga;
}

static double run_best(const ck_device *device, const ck_ga_config *config,
                       double *position) {
  ck_ga_report report;
  double best = NAN;
  ck_ga *ga = create(device, config);
  if (!ga)
    return NAN;
  CHECK_OK(ck_ga_run(ga, &report));
  CHECK_OK(ck_ga_get_best(ga, &best, position));
  CHECK(best == report.best);
  CHECK(report.stopped_by == CK_STOP_STEPS);
  CHECK(report.generations == config->max_generations);
  ck_ga_destroy(ga);
  return best;
}

/* A small configuration every test starts from (the defaults of
 * ck_ga_config_init() on fewer, smaller islands). The tests of the
 * algorithm take the child form on every device: generation_modes shows
 * that the vector form, auto's choice on CPUs, gives the same bits, and
 * PoCL takes about twice as long to build it. */
static void small_config(ck_ga_config *config, const char *function, int dim) {
  ck_ga_config_init(config);
  config->generation_mode = CK_GA_GENERATION_CHILD;
  config->function = function;
  config->dim = dim;
  config->islands = 8;
  config->island_size = 16;
  config->max_generations = 60;
}

/* small_config() on `islands` islands of `size` for `generations`. */
static void islands_config(ck_ga_config *config, const char *function, int dim,
                           size_t islands, size_t size, uint64_t generations) {
  small_config(config, function, dim);
  config->islands = islands;
  config->island_size = size;
  config->max_generations = generations;
}

static void read_reals(ga_state *s, ck_buffer *buffer, float *out,
                       size_t count) {
  CHECK_OK(ck_buffer_read(s->queue, buffer, 0, count * sizeof *out, out,
                          CK_BLOCKING, NULL));
}

/* A uniform in [0, 1) from (stream, counter): the library's own draw. */
static float uniform(uint64_t stream, uint64_t counter) {
  return ck_uniform_real(ck_philox_block(2024, stream, counter).v[0]);
}

/* |observed - expected| within `sigmas` binomial standard deviations. */
static int binomial_ok(double hits, double trials, double p, double sigmas) {
  double sd = sqrt(trials * p * (1 - p));
  return fabs(hits - trials * p) <= sigmas * sd + 0.5;
}

/* ---- operators on the shared host code ------------------------------------
 */

/* P(the winner of k draws with replacement from n has rank r), rank 0 the
 * best: all k entrants rank >= r, not all > r. */
static double tournament_p(int n, int k, int r) {
  return pow((double)(n - r) / n, k) - pow((double)(n - r - 1) / n, k);
}

static void tournament_case(const float *fitness, const int *rank, int n, int k,
                            int which, long trials, const char *what) {
  long counts[16] = {0};
  for (long t = 0; t < trials; ++t) {
    ck_u32 winner = ck_ga_tournament(k, which, (ck_u32)n, 77, (ck_u64)t,
                                     (ck_u64)t * 1000u, fitness);
    if (winner >= (ck_u32)n)
      break;
    ++counts[rank[winner]];
  }
  /* Rank by rank while at least 100 wins are expected, then the rest of
   * the ranks pooled (too rare one by one for a normal approximation). */
  for (int r = 0; r < n; ++r) {
    double p = tournament_p(n, k, r);
    long hits = counts[r];
    int pooled = (double)trials * p < 100;
    if (pooled) {
      p = tournament_p(n, k, r) + pow((double)(n - r - 1) / n, k);
      for (int q = r + 1; q < n; ++q)
        hits += counts[q];
    }
    CHECK_MSG(binomial_ok((double)hits, (double)trials, p, 5),
              "%s k=%d: rank %d%s won %.5f of %ld, theory %.5f", what, k, r,
              pooled ? " and below" : "", (double)hits / trials, trials, p);
    if (pooled)
      break;
  }
}

static void tournament_tests(void) {
  enum { N = 10 };
  const long trials = 100000;
  float fitness[N];
  int rank[N], by_index[N];
  /* Distinct values in a scrambled order: rank(i) = 7 i mod 10. */
  for (int i = 0; i < N; ++i) {
    rank[i] = (7 * i) % N;
    fitness[i] = 0.5f + 3.0f * (float)rank[i];
    by_index[i] = i;
  }
  tournament_case(fitness, rank, N, 2, 0, trials, "distinct");
  tournament_case(fitness, rank, N, 2, 1, trials, "distinct, second parent");
  tournament_case(fitness, rank, N, 5, 0, trials, "distinct");
  /* k = the island size: with replacement the best is only likely,
   * 1 - (9/10)^10 = 0.651. */
  tournament_case(fitness, rank, N, N, 0, trials, "k = size");
  /* Equal values: the lower index wins, so index plays the rank. */
  float flat[N];
  for (int i = 0; i < N; ++i)
    flat[i] = 1.0f;
  tournament_case(flat, by_index, N, 3, 0, trials, "ties");

  /* The best far more often than the worst, k = 2. */
  long best = 0, worst = 0, same = 0;
  for (long t = 0; t < trials; ++t) {
    ck_u32 a = ck_ga_tournament(2, 0, N, 5, (ck_u64)t, 0, fitness);
    best += rank[a] == 0;
    worst += rank[a] == N - 1;
    /* k = 1: the two parents draw apart, equal with chance 1/n. */
    same += ck_ga_tournament(1, 0, N, 5, (ck_u64)t, 0, fitness) ==
            ck_ga_tournament(1, 1, N, 5, (ck_u64)t, 0, fitness);
  }
  CHECK_MSG(best > 10 * worst, "best %ld, worst %ld", best, worst);
  CHECK_MSG(binomial_ok((double)same, (double)trials, 1.0 / N, 5),
            "parents equal %ld of %ld", same, trials);
}

static void crossover_tests(void) {
  const long trials = 200000;
  const double alpha = 0.5, eta = 2.0;
  long arith_outside = 0, blx_outside = 0, blx_beyond = 0, sbx_beyond = 0;
  long sbx_pair_off = 0;
  double sbx_mean_random = 0, sbx_mean_first = 0;
  for (long t = 0; t < trials; ++t) {
    float a = 6.0f * uniform((ck_u64)t, 0) - 3.0f;
    float b = 6.0f * uniform((ck_u64)t, 1) - 3.0f;
    float u = uniform((ck_u64)t, 2), w = uniform((ck_u64)t, 3);
    float low = fminf(a, b), high = fmaxf(a, b), d = high - low;
    float slack = 4 * 1.2e-7f * (fabsf(a) + fabsf(b));
    float child = ck_ga_cross(CK_GA_CROSSOVER_ARITH, a, b, u, w, 0);
    arith_outside += child < low - slack || child > high + slack;
    child = ck_ga_cross(CK_GA_CROSSOVER_BLX, a, b, u, w, (float)alpha);
    blx_outside += child < low - (float)alpha * d - slack ||
                   child > high + (float)alpha * d + slack;
    blx_beyond += child < low || child > high;
    /* SBX on fixed parents 1 and 2: the function gives the first child
     * of the pair, spread around parent `a`; with the parents in random
     * order (as two independent tournaments give them) the children
     * centre on the parents' mean. */
    int swap = uniform((ck_u64)t, 4) < 0.5f;
    float p = swap ? 2.0f : 1.0f, q = swap ? 1.0f : 2.0f;
    child = ck_ga_cross(CK_GA_CROSSOVER_SBX, p, q, u, w, (float)eta);
    sbx_mean_random += child;
    sbx_beyond += child < 1.0f || child > 2.0f;
    float first =
        ck_ga_cross(CK_GA_CROSSOVER_SBX, 1.0f, 2.0f, u, w, (float)eta);
    float second =
        ck_ga_cross(CK_GA_CROSSOVER_SBX, 2.0f, 1.0f, u, w, (float)eta);
    sbx_mean_first += first;
    /* The two children of one pair are mirror images about the mean. */
    sbx_pair_off += fabsf((first + second) - 3.0f) > 1e-5f * (1 + fabsf(first));
  }
  CHECK_MSG(arith_outside == 0, "arith: %ld children outside the parents",
            arith_outside);
  CHECK_MSG(blx_outside == 0, "blx: %ld children outside the widened interval",
            blx_outside);
  /* Uniform over the interval widened by alpha d each side: a share
   * 2 alpha / (1 + 2 alpha) of children lies beyond the parents. */
  CHECK_MSG(binomial_ok((double)blx_beyond, (double)trials,
                        2 * alpha / (1 + 2 * alpha), 5),
            "blx: %ld of %ld beyond the parents", blx_beyond, trials);
  /* beta > 1 (u > 1/2) puts the child beyond its parent. */
  CHECK_MSG(binomial_ok((double)sbx_beyond, (double)trials, 0.5, 5),
            "sbx: %ld of %ld beyond the parents", sbx_beyond, trials);
  CHECK_MSG(sbx_pair_off == 0, "sbx: %ld pairs not symmetric", sbx_pair_off);
  /* E[beta] = (eta + 1) / 2 (1 / (eta + 2) + 1 / eta), E[beta^2] =
   * (eta + 1) / 2 (1 / (eta + 3) + 1 / (eta - 1)); child = mean + beta
   * (a - b) / 2 with |a - b| = 1. */
  double mean_beta = (eta + 1) / 2 * (1 / (eta + 2) + 1 / eta);
  double beta_sq = (eta + 1) / 2 * (1 / (eta + 3) + 1 / (eta - 1));
  double sd = 0.5 * sqrt(beta_sq) / sqrt((double)trials);
  sbx_mean_random /= trials;
  sbx_mean_first /= trials;
  CHECK_MSG(fabs(sbx_mean_random - 1.5) <= 5 * sd,
            "sbx: children's mean %.5f, parents' 1.5 (sd %.2g)",
            sbx_mean_random, sd);
  double expected = 1.5 - 0.5 * mean_beta;
  sd = 0.5 * sqrt(beta_sq - mean_beta * mean_beta) / sqrt((double)trials);
  CHECK_MSG(fabs(sbx_mean_first - expected) <= 5 * sd,
            "sbx first child: mean %.5f, theory %.5f (sd %.2g)", sbx_mean_first,
            expected, sd);
}

/* Children of one island through ck_ga_make_child() with pc = 0. Every
 * individual carries the same genes (with distinct fitness values), so a
 * child is that genome whichever parents the tournaments pick, except
 * where mutated. Counts changed genes per dimension, children with none
 * changed, and the steps (child - parent) summed and squared. */
enum { M_SIZE = 16, M_DIM = 6 };

typedef struct mutation_counts {
  long changed[M_DIM], untouched_children;
  double sum[M_DIM], sq[M_DIM];
} mutation_counts;

static void mutate_children(int mutation, double pm, double parameter,
                            long children, const float *lo, const float *hi,
                            mutation_counts *out) {
  float current[M_DIM * M_SIZE], fitness[M_SIZE], next[M_DIM * M_SIZE];
  float genome[M_DIM];
  memset(out, 0, sizeof *out);
  for (int d = 0; d < M_DIM; ++d)
    genome[d] = lo[d] + (hi[d] - lo[d]) * (0.45f + 0.1f * uniform(900, d));
  for (int g = 0; g < M_SIZE; ++g) {
    fitness[g] = (float)((g * 5) % M_SIZE);
    for (int d = 0; d < M_DIM; ++d)
      current[d * M_SIZE + g] = genome[d];
  }
  for (long c = 0; c < children; ++c) {
    ck_u32 slot = (ck_u32)(c % M_SIZE);
    ck_u64 generation = (ck_u64)(c / M_SIZE) + 1;
    ck_ga_make_child(CK_OBJECTIVE_SPHERE, CK_BOUNDS_CLAMP, 2,
                     CK_GA_CROSSOVER_ARITH, 0.0f, 0.5f, mutation, (float)pm,
                     (float)parameter, ck_ga_inverse_log_keep((float)pm), 99, 0,
                     slot, generation, M_SIZE, M_DIM, lo, hi, current, 1,
                     M_SIZE, fitness, next + slot, M_SIZE);
    int touched = 0;
    for (int d = 0; d < M_DIM; ++d) {
      double step = (double)next[d * M_SIZE + slot] - genome[d];
      if (step != 0) {
        touched = 1;
        ++out->changed[d];
        out->sum[d] += step;
        out->sq[d] += step * step;
      }
    }
    out->untouched_children += !touched;
  }
}

static void mutation_tests(void) {
  float lo[M_DIM], hi[M_DIM];
  for (int d = 0; d < M_DIM; ++d) {
    lo[d] = -10.0f * (float)(d + 1);
    hi[d] = 5.0f * (float)(d + 1) + 10.0f; /* ranges 20 .. 115 */
  }
  const long children = 40000;
  mutation_counts counts;
  /* pm = 0, pc = 0: every child is its parent. */
  mutate_children(CK_GA_MUTATION_GAUSS, 0.0, 0.1, 2000, lo, hi, &counts);
  long changed = 0;
  for (int d = 0; d < M_DIM; ++d)
    changed += counts.changed[d];
  CHECK_MSG(changed == 0, "pm = 0: %ld genes changed", changed);
  /* Each gene mutates with probability pm, whatever its position, and a
   * child escapes mutation with probability (1 - pm)^dim. */
  static const double rates[] = {0.05, 1.0 / M_DIM, 0.3, 0.75};
  for (size_t k = 0; k < sizeof rates / sizeof rates[0]; ++k) {
    mutate_children(CK_GA_MUTATION_GAUSS, rates[k], 0.01, children, lo, hi,
                    &counts);
    changed = 0;
    for (int d = 0; d < M_DIM; ++d) {
      changed += counts.changed[d];
      CHECK_MSG(
          binomial_ok((double)counts.changed[d], (double)children, rates[k], 4),
          "pm %.3f: gene %d mutated in %ld of %ld children", rates[k], d,
          counts.changed[d], children);
    }
    CHECK_MSG(
        binomial_ok((double)changed, (double)children * M_DIM, rates[k], 4),
        "pm %.3f: %ld of %ld genes mutated", rates[k], changed,
        children * M_DIM);
    double none = pow(1 - rates[k], M_DIM);
    CHECK_MSG(binomial_ok((double)counts.untouched_children, (double)children,
                          none, 4),
              "pm %.3f: %ld of %ld children unmutated, theory %.4f", rates[k],
              counts.untouched_children, children, none);
  }
  /* pm = 1: every gene. Gaussian steps: sd sigma (hi - lo) per dimension,
   * mean 0. The domain is wide enough that no step is clamped. */
  const double sigma = 0.01;
  mutate_children(CK_GA_MUTATION_GAUSS, 1.0, sigma, children, lo, hi, &counts);
  for (int d = 0; d < M_DIM; ++d) {
    double n = (double)counts.changed[d], want = sigma * (hi[d] - lo[d]);
    double mean = counts.sum[d] / n, sd = sqrt(counts.sq[d] / n - mean * mean);
    CHECK_MSG(counts.changed[d] >= children - 1, "pm = 1, dim %d: %ld mutated",
              d, counts.changed[d]);
    /* The sd of a sample sd is about sd / sqrt(2 n). */
    CHECK_MSG(fabs(sd - want) <= 4 * want / sqrt(2 * n),
              "dim %d: step sd %.5g, want %.5g", d, sd, want);
    CHECK_MSG(fabs(mean) <= 4 * want / sqrt(n), "dim %d: step mean %.3g", d,
              mean);
  }
  /* Polynomial steps stay within +-(hi - lo); E|delta| = 1 / (eta + 2). */
  const double eta = 20;
  const long draws = 200000;
  long outside = 0;
  double absolute = 0, signed_sum = 0;
  for (long t = 0; t < draws + 4; ++t) {
    ck_philox_counter r = ck_philox_block(31, 7, (ck_u64)t);
    ck_u32 first = r.v[0];
    static const ck_u32 edges[] = {0u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
    if (t >= draws)
      first = edges[t - draws];
    float range = 1.0f + 9.0f * ck_uniform_real(r.v[1]);
    float step = ck_ga_mutated_gene(
        0.0f,
        ck_ga_mutation_step(CK_GA_MUTATION_POLY, first, r.v[2], (float)eta),
        0.0f, range);
    outside += !(fabsf(step) <= range);
    if (t < draws) {
      absolute += fabsf(step) / range;
      signed_sum += step / range;
    }
  }
  CHECK_MSG(outside == 0, "poly: %ld steps beyond the range", outside);
  double want = 1 / (eta + 2);
  double second = 1 - 2 / (1 + 1 / (eta + 1)) + 1 / (1 + 2 / (eta + 1));
  double sd = sqrt((second - want * want) / draws);
  CHECK_MSG(fabs(absolute / draws - want) <= 5 * sd,
            "poly: mean |delta| %.5f, theory %.5f", absolute / draws, want);
  CHECK_MSG(fabs(signed_sum / draws) <= 5 * sqrt(second / draws),
            "poly: mean delta %.3g", signed_sum / draws);
}

/* ck_ga_make_child's mutations against an oracle written here: the
 * refills of ck_ga_draw_mutations taken one after another, as the
 * definition reads (genes ascending, refilled when four are used). Every
 * individual carries one genome and crossover is off, so a child differs
 * from it exactly at its mutations, there by the step times the range,
 * clamped to the domain. Dimensions below,
 * at and above a chunk of 64 genes, in rows and in gene-major order. */
enum { K_SIZE = 8, K_DIM_MAX = 150, K_ROW_MAX = 156 };

static void mutation_oracle_case(int dim, int mutation, float pm,
                                 long *children, long *wrong) {
  static float columns[K_DIM_MAX * K_SIZE], rows[K_SIZE * K_ROW_MAX];
  float fitness[K_SIZE], lo[K_DIM_MAX], hi[K_DIM_MAX], genome[K_DIM_MAX];
  float expected[K_DIM_MAX], from_columns[K_DIM_MAX], from_rows[K_DIM_MAX];
  int row = ((dim + 3) / 4 | 1) * 4;
  float parameter = mutation == CK_GA_MUTATION_POLY ? 20.0f : 0.05f;
  float inverse = ck_ga_inverse_log_keep(pm);
  for (int d = 0; d < dim; ++d) {
    lo[d] = -1000.0f;
    hi[d] = 1000.0f;
    genome[d] = 10.0f * uniform(910, (uint64_t)d) - 5.0f;
  }
  for (int i = 0; i < K_SIZE; ++i) {
    fitness[i] = (float)i;
    for (int d = 0; d < dim; ++d)
      columns[d * K_SIZE + i] = rows[i * row + d] = genome[d];
  }
  for (ck_u32 slot = 0; slot < K_SIZE; ++slot) {
    for (ck_u64 generation = 1; generation <= 4; ++generation) {
      ck_ga_child_draws c =
          ck_ga_draw_child(2, CK_GA_CROSSOVER_ARITH, 0.0f, 41, 3, slot,
                           generation, K_SIZE, dim, fitness);
      memcpy(expected, genome, (size_t)dim * sizeof *genome);
      ck_u32 refills = 0;
      int last = -1, at[4];
      float step[4];
      do {
        ck_ga_draw_mutations(41, c.mutation_stream, c.mutation_base, &refills,
                             &last, pm, inverse, dim, mutation, parameter,
                             &at[0], &at[1], &at[2], &at[3], &step[0], &step[1],
                             &step[2], &step[3]);
        for (int k = 0; k < 4; ++k) {
          if (at[k] < dim) {
            float moved = genome[at[k]] + step[k] * (hi[at[k]] - lo[at[k]]);
            expected[at[k]] = moved < lo[at[k]]
                                  ? lo[at[k]]
                                  : (moved > hi[at[k]] ? hi[at[k]] : moved);
          }
        }
      } while (last < dim);
      ck_ga_make_child(CK_OBJECTIVE_SPHERE, CK_BOUNDS_CLAMP, 2,
                       CK_GA_CROSSOVER_ARITH, 0.0f, 0.5f, mutation, pm,
                       parameter, inverse, 41, 3, slot, generation, K_SIZE, dim,
                       lo, hi, columns, 1, K_SIZE, fitness, from_columns, 1);
      ck_ga_make_child(CK_OBJECTIVE_SPHERE, CK_BOUNDS_CLAMP, 2,
                       CK_GA_CROSSOVER_ARITH, 0.0f, 0.5f, mutation, pm,
                       parameter, inverse, 41, 3, slot, generation, K_SIZE, dim,
                       lo, hi, rows, (ck_u32)row, 1, fitness, from_rows, 1);
      ++*children;
      *wrong +=
          memcmp(expected, from_columns, (size_t)dim * sizeof *expected) != 0 ||
          memcmp(expected, from_rows, (size_t)dim * sizeof *expected) != 0;
    }
  }
}

static void mutation_oracle_tests(void) {
  static const int dims[] = {1, 6, 13, 32, 63, 64, 65, 100, 128, 150};
  static const float rates[] = {0.0f, 0.02f, 0.2f, 1.0f};
  long children = 0, wrong = 0;
  for (size_t i = 0; i < sizeof dims / sizeof *dims; ++i)
    for (int mutation = 0; mutation <= CK_GA_MUTATION_POLY; ++mutation)
      for (size_t r = 0; r < sizeof rates / sizeof *rates; ++r)
        mutation_oracle_case(dims[i], mutation, rates[r], &children, &wrong);
  CHECK_MSG(children > 0 && wrong == 0,
            "mutations: %ld of %ld children differ from the oracle", wrong,
            children);
}

/* ---- the native kernel's schedule (cl/ck_ga_schedule.h) ------------------ */

/* The segments of a launch cover its generations in order, none empty,
 * and a generation ends its segment exactly when a migration follows it
 * inside the launch (a multiple of `every` before the last), numbered
 * over the run as kernels on several GPUs count it. */
static int segments_cover(uint64_t first, uint32_t count, uint32_t every) {
  uint32_t segments = ck_ga_segments(first, count, every);
  uint64_t next = first;
  for (uint32_t j = 0; j < segments; ++j) {
    uint32_t made;
    uint64_t start = ck_ga_segment_start(first, count, every, j, &made);
    if (start != next || (made == 0 && count > 0))
      return 0;
    for (uint64_t g = start; g < start + made; ++g) {
      int migrates = every && g % every == 0 && g + 1 < first + count;
      if (migrates != (g + 1 == start + made && j + 1 < segments))
        return 0;
      if (migrates && ck_ga_segment_migration(first, every, j) != g / every)
        return 0;
    }
    next = start + made;
  }
  return next == first + count;
}

/* Takes the tickets of a launch one after another, as one block would,
 * and returns 1 when every island makes its segments in order, each
 * exactly once, and every segment a task makes after its island's first
 * needs the migrants of a segment of the island before on the ring that
 * an earlier ticket made: a block then only ever waits for blocks that
 * took their tickets before it, which are running, so no number of
 * blocks deadlocks. *nearest is the fewest tickets between a task and
 * one that made a segment it needs (UINT32_MAX where none is needed). */
static int tasks_in_order(uint32_t islands, uint32_t segments,
                          uint32_t per_task, uint32_t *nearest) {
  uint32_t made[64] = {0}, made_by[64][32];
  uint32_t tickets = ck_ga_sweeps(segments, per_task) * islands;
  *nearest = UINT32_MAX;
  if (islands > 64 || segments > 32)
    return 0;
  for (uint32_t t = 0; t < tickets; ++t) {
    uint32_t begin, end;
    uint32_t island = ck_ga_task(t, islands, segments, per_task, &begin, &end);
    uint32_t source = (island + islands - 1) % islands;
    if (island >= islands || begin != made[island] || end < begin)
      return 0;
    for (uint32_t j = begin; j < end; ++j) {
      if (j > 0 && made[source] < j)
        return 0;
      if (j > 0 && t - made_by[source][j - 1] < *nearest)
        *nearest = t - made_by[source][j - 1];
      made[island] = j + 1;
      made_by[island][j] = t;
    }
  }
  for (uint32_t i = 0; i < islands; ++i)
    if (made[i] != segments)
      return 0;
  return 1;
}

static void schedule_tests(void) {
  static const uint32_t everies[] = {0, 1, 2, 3, 5, 7, 10};
  int wrong = 0, cases = 0;
  for (uint64_t first = 1; first <= 25; ++first)
    for (uint32_t count = 0; count <= 40; ++count)
      for (size_t e = 0; e < sizeof everies / sizeof *everies; ++e, ++cases)
        wrong += !segments_cover(first, count, everies[e]);
  CHECK_MSG(wrong == 0, "%d of %d launches cut into wrong segments", wrong,
            cases);
  /* The driver's largest launch of 256 generations from 1, migrating every
   * 10: 25 migrations inside, so 26 segments, the last of 6. */
  uint32_t made;
  CHECK(ck_ga_segments(1, 256, 10) == 26);
  CHECK(ck_ga_segment_start(1, 256, 10, 25, &made) == 251 && made == 6);
  static const uint32_t island_counts[] = {1, 2, 3, 5, 8, 13, 40, 64};
  int near = 0;
  wrong = cases = 0;
  for (size_t i = 0; i < sizeof island_counts / sizeof *island_counts; ++i)
    for (uint32_t segments = 1; segments <= 30; ++segments)
      for (uint32_t per_task = 1; per_task <= 8 && per_task <= island_counts[i];
           ++per_task, ++cases) {
        uint32_t islands = island_counts[i], nearest;
        wrong += !tasks_in_order(islands, segments, per_task, &nearest);
        /* Where the classes are whole, a source's segments come from a
         * class of tickets before (cl/ck_ga_schedule.h). */
        near += islands % per_task == 0 && segments > 1 &&
                nearest < islands / per_task - 1;
      }
  CHECK_MSG(cases > 0 && wrong == 0,
            "%d of %d schedules make a task wait for a later ticket", wrong,
            cases);
  CHECK_MSG(near == 0,
            "%d schedules make a task wait for a source a class of tickets "
            "would keep apart",
            near);
  /* The checks can fail: with more segments a task than islands, island 0
   * would need a segment of its ring's last island from its own sweep; and
   * where the classes are not whole (13 islands, 5 segments a task), the 3
   * islands past them each need the one taken just before. */
  uint32_t nearest;
  CHECK(tasks_in_order(13, 30, 5, &nearest) && nearest == 1);
  CHECK(!tasks_in_order(3, 10, 4, &nearest));
}

/* ---- elitism and migration ------------------------------------------------
 */

/* With elite >= 1 no island loses its best, migrations included, and the
 * global best never rises. */
static void elitism(const ck_device *device) {
  for (int variant = 0; variant < 2; ++variant) {
    ck_ga_config c;
    small_config(&c, variant ? "griewank" : "rastrigin", 10);
    c.islands = 6;
    c.island_size = 12;
    c.migrate_every = 3;
    c.keep_island_history = 1;
    if (variant) { /* shared with the migration test's program */
      c.elite = 2;
      c.tournament = 3;
      c.migrants = 3;
      c.topology = CK_GA_RANDOM;
      c.migrate_every = 2;
    }
    ck_ga *ga = create(device, &c);
    if (!ga)
      continue;
    CHECK_OK(ck_ga_step(ga, 5));
    CHECK_OK(ck_ga_step(ga, 1));
    CHECK_OK(ck_ga_step(ga, 34));
    const double *best, *mean, *island_best, *island_mean;
    size_t count = 0;
    CHECK_OK(ck_ga_get_history(ga, &best, &mean, &island_best, &island_mean,
                               &count));
    CHECK(count == 41);
    int rises = 0, island_rises = 0, wrong_global = 0;
    for (size_t t = 0; t < count; ++t) {
      double lowest = INFINITY;
      for (size_t i = 0; i < c.islands; ++i) {
        double value = island_best[t * c.islands + i];
        lowest = fmin(lowest, value);
        if (t > 0 && value > island_best[(t - 1) * c.islands + i])
          ++island_rises;
        double island_average = island_mean[t * c.islands + i];
        if (value > island_average + 1e-5 * fabs(island_average))
          ++wrong_global;
      }
      wrong_global += lowest != best[t];
      if (t > 0 && best[t] > best[t - 1])
        ++rises;
    }
    CHECK_MSG(island_rises == 0 && rises == 0,
              "%s variant %d: island bests rose %d times, the best %d times",
              device->id, variant, island_rises, rises);
    CHECK_MSG(wrong_global == 0, "%s: %d inconsistent statistics", device->id,
              wrong_global);
    CHECK_MSG(best[count - 1] < best[0], "%s: no progress (%g)", device->id,
              best[0]);
    double value = NAN;
    CHECK_OK(ck_ga_get_best(ga, &value, NULL));
    CHECK_MSG(value == best[count - 1], "%s: best %.9g, history %.9g",
              device->id, value, best[count - 1]);
    if (variant) {
      /* The random topology's last plan: one cycle through every island. */
      uint32_t source[6];
      ga_state *s = ck__ga_state(ga);
      CHECK_OK(ck_buffer_read(s->queue, s->source, 0, sizeof source, source,
                              CK_BLOCKING, NULL));
      uint32_t at = 0;
      size_t length = 0;
      do {
        at = source[at] < 6 ? source[at] : 0;
        ++length;
      } while (at != 0 && length <= 6);
      CHECK_MSG(length == 6, "%s: the migration plan's cycle has %zu islands",
                device->id, length);
    }
    ck_ga_destroy(ga);
  }
}

/* The m best of an island in (fitness, index) order, or its m worst
 * (highest fitness first, the higher index first among equals). */
static void rank_island(const float *fitness, uint32_t size, uint32_t m,
                        int worst, uint32_t *chosen) {
  for (uint32_t k = 0; k < m; ++k) {
    uint32_t pick = UINT32_MAX;
    for (uint32_t i = 0; i < size; ++i) {
      int taken = 0;
      for (uint32_t j = 0; j < k; ++j)
        taken |= chosen[j] == i;
      if (taken)
        continue;
      if (pick == UINT32_MAX ||
          (worst ? fitness[i] > fitness[pick] ||
                       (fitness[i] == fitness[pick] && i > pick)
                 : fitness[i] < fitness[pick] ||
                       (fitness[i] == fitness[pick] && i < pick)))
        pick = i;
    }
    chosen[k] = pick;
  }
}

/* One migration, called directly on an evolved population: the m worst of
 * island i become the m best of island source[i], in order, and nothing
 * else changes; with islands of 9 (narrower than a migration work-group)
 * and of 70 (wider: a work-item scans several slots a pick). Then the
 * driver's own ring migration matches it. */
static void migration(const ck_device *device) {
  enum { ISLANDS = 5, SIZE = 9, WIDE = 70, DIM = 10, M = 3 };
  enum { TOTAL = ISLANDS * SIZE, MOST = ISLANDS * WIDE };
  const ck__ga_steps *steps = device->backend == CK_BACKEND_REF
                                  ? &ck__ga_ref_steps_f32
                                  : &ck__ga_opencl_steps;
  ck_ga_config c;
  small_config(&c, "griewank", DIM);
  c.islands = ISLANDS;
  c.elite = 2;
  c.tournament = 3;
  c.migrants = M;
  c.migrate_every = 1000; /* no migration of its own in these steps */
  c.seed = 21;
  for (int shift = 1; shift <= 2; ++shift) {
    const uint32_t size = shift == 1 ? SIZE : WIDE, total = ISLANDS * size;
    c.island_size = size;
    ck_ga *ga = create(device, &c);
    if (!ga)
      return;
    ga_state *s = ck__ga_state(ga);
    CHECK(s->islands == ISLANDS && s->size == size && s->migrants == M);
    CHECK_OK(ck_ga_step(ga, 3)); /* generation 3: buffer 1 */
    const int which = 1;
    static float genes[DIM * MOST], fitness[MOST], other[DIM * MOST];
    static float after[DIM * MOST], after_fitness[MOST];
    static float other_after[DIM * MOST];
    read_reals(s, s->population[which], genes, DIM * total);
    read_reals(s, s->fitness[which], fitness, total);
    read_reals(s, s->population[1 - which], other, DIM * total);
    uint32_t source[ISLANDS];
    for (uint32_t i = 0; i < ISLANDS; ++i)
      source[i] = (i + ISLANDS - (uint32_t)shift) % ISLANDS;
    CHECK_OK(ck_buffer_write(s->queue, s->source, 0, sizeof source, source,
                             CK_BLOCKING, NULL));
    /* Ties on purpose: elites are copies, so equal values occur. */
    static float expected[DIM * MOST], expected_fitness[MOST];
    memcpy(expected, genes, DIM * total * sizeof *genes);
    memcpy(expected_fitness, fitness, total * sizeof *fitness);
    for (uint32_t i = 0; i < ISLANDS; ++i) {
      uint32_t best[M], worst[M], from = source[i];
      rank_island(fitness + from * size, size, M, 0, best);
      rank_island(fitness + i * size, size, M, 1, worst);
      for (int k = 0; k < M; ++k) {
        for (int d = 0; d < DIM; ++d)
          expected[d * total + i * size + worst[k]] =
              genes[d * total + from * size + best[k]];
        expected_fitness[i * size + worst[k]] = fitness[from * size + best[k]];
      }
    }
    CHECK_OK(steps->migrate(s, which, CK_GA_EMIGRATE | CK_GA_IMMIGRATE));
    read_reals(s, s->population[which], after, DIM * total);
    read_reals(s, s->fitness[which], after_fitness, total);
    read_reals(s, s->population[1 - which], other_after, DIM * total);
    int wrong = 0, moved = 0;
    for (uint32_t g = 0; g < total; ++g) {
      wrong += after_fitness[g] != expected_fitness[g];
      moved += after_fitness[g] != fitness[g];
      for (int d = 0; d < DIM; ++d)
        wrong += after[d * total + g] != expected[d * total + g];
    }
    CHECK_MSG(wrong == 0,
              "%s islands of %u, shift %d: %d values differ from the "
              "expected migration",
              device->id, (unsigned)size, shift, wrong);
    CHECK_MSG(moved > 0 && moved <= ISLANDS * M, "%s: %d individuals changed",
              device->id, moved);
    CHECK(memcmp(other, other_after, DIM * total * sizeof *other) == 0);
    ck_ga_destroy(ga);
  }

  /* The driver's ring migration, made after generation 1, gives the same
   * population as evolving one generation and migrating by hand; and
   * after generation 2, which (where islands are resident) receives that
   * migration and sends the next inside its launch, the same as
   * generation 2 after the migration by hand, migrated by hand. */
  c.island_size = SIZE;
  ck_ga *by_hand = create(device, &c);
  c.migrate_every = 1;
  ck_ga *scheduled = create(device, &c);
  ck_ga *received = create(device, &c);
  if (by_hand && scheduled && received) {
    ga_state *a = ck__ga_state(by_hand), *b = ck__ga_state(scheduled);
    CHECK_OK(ck_ga_step(by_hand, 1));
    CHECK_OK(ck_ga_step(scheduled, 1));
    CHECK_OK(ck_ga_step(received, 2));
    /* The resident generations leave the receiving to the next launch. */
    CHECK_OK(ck__ga_settle(scheduled));
    CHECK_OK(ck__ga_settle(received));
    uint32_t ring[ISLANDS];
    for (uint32_t i = 0; i < ISLANDS; ++i)
      ring[i] = (i + ISLANDS - 1) % ISLANDS;
    CHECK_OK(ck_buffer_write(a->queue, a->source, 0, sizeof ring, ring,
                             CK_BLOCKING, NULL));
    CHECK_OK(steps->migrate(a, 1, CK_GA_EMIGRATE | CK_GA_IMMIGRATE));
    static float x[DIM * TOTAL], y[DIM * TOTAL], fx[TOTAL], fy[TOTAL];
    read_reals(a, a->population[1], x, DIM * TOTAL);
    read_reals(b, b->population[1], y, DIM * TOTAL);
    read_reals(a, a->fitness[1], fx, TOTAL);
    read_reals(b, b->fitness[1], fy, TOTAL);
    CHECK_MSG(memcmp(x, y, sizeof x) == 0 && memcmp(fx, fy, sizeof fx) == 0,
              "%s: the scheduled migration differs from the ring by hand",
              device->id);
    CHECK_OK(ck_ga_step(by_hand, 1));
    CHECK_OK(steps->migrate(a, 0, CK_GA_EMIGRATE | CK_GA_IMMIGRATE));
    ga_state *r = ck__ga_state(received);
    read_reals(a, a->population[0], x, DIM * TOTAL);
    read_reals(r, r->population[0], y, DIM * TOTAL);
    read_reals(a, a->fitness[0], fx, TOTAL);
    read_reals(r, r->fitness[0], fy, TOTAL);
    CHECK_MSG(memcmp(x, y, sizeof x) == 0 && memcmp(fx, fy, sizeof fx) == 0,
              "%s: generation 2 and its migration differ from generation "
              "2 after the migration by hand, migrated by hand",
              device->id);
  }
  ck_ga_destroy(by_hand);
  ck_ga_destroy(scheduled);
  ck_ga_destroy(received);
}

/* Elites of nearly the largest island: the 4095 best of 4096 in (fitness,
 * index) order, picked by ref in a pass over the island a pick (it
 * searched the picks made for every candidate, some 10^10 comparisons a
 * generation here, half a minute; migrants are picked alike). */
static void largest_elite(const ck_device *ref) {
  enum { SIZE = CK_GA_ISLAND_SIZE_MAX, ELITE = SIZE - 1 };
  ck_ga_config c;
  islands_config(&c, "sphere", 1, 1, SIZE, 1);
  c.elite = ELITE;
  c.migrate_every = 0;
  ck_ga *ga = create(ref, &c);
  if (!ga)
    return;
  ga_state *s = ck__ga_state(ga);
  static float before[SIZE], after[SIZE];
  read_reals(s, s->fitness[0], before, SIZE); /* generation 0 */
  CHECK_OK(ck_ga_step(ga, 1));
  read_reals(s, s->fitness[1], after, SIZE); /* generation 1 */
  /* Equal values are equal whatever their index: sorted values suffice. */
  for (int i = 1; i < SIZE; ++i) /* insertion sort */
    for (int j = i; j > 0 && before[j] < before[j - 1]; --j) {
      float swap = before[j];
      before[j] = before[j - 1];
      before[j - 1] = swap;
    }
  int wrong = 0;
  for (int k = 0; k < ELITE; ++k)
    wrong += after[k] != before[k];
  CHECK_MSG(wrong == 0, "%d of %d elites are not the island's best in order",
            wrong, ELITE);
  ck_ga_destroy(ga);
}

/* ck_ga_get_best() is the best value found: never above a generation's best
 * in the history, whether or not elites keep it, and the same however the
 * host splits the generations into steps. */
static void best_kept(const ck_device *device) {
  ck_ga_config c;
  small_config(&c, "rastrigin", 10);
  c.islands = 4;
  c.elite = 0;
  c.migrate_every = 0;
  ck_ga *whole = create(device, &c), *stepwise = create(device, &c);
  if (whole && stepwise) {
    CHECK_OK(ck_ga_step(whole, 60));
    for (int t = 0; t < 60; ++t)
      CHECK_OK(ck_ga_step(stepwise, 1));
    const double *best;
    size_t count = 0;
    CHECK_OK(ck_ga_get_history(whole, &best, NULL, NULL, NULL, &count));
    double lowest = INFINITY;
    for (size_t t = 0; t < count; ++t)
      lowest = fmin(lowest, best[t]);
    double value = NAN, value_stepwise = NAN;
    CHECK_OK(ck_ga_get_best(whole, &value, NULL));
    CHECK_OK(ck_ga_get_best(stepwise, &value_stepwise, NULL));
    CHECK_MSG(
        value <= lowest && value == value_stepwise,
        "%s elite 0: ck_ga_get_best %.9g after one step of 60, %.9g after "
        "60 steps of 1; the history's best %.9g",
        device->id, value, value_stepwise, lowest);
  }
  ck_ga_destroy(whole);
  ck_ga_destroy(stepwise);
}

/* ---- quality, bounds, target --------------------------------------------- */

/* Thresholds (documented in docs/ga.md): 16 islands x 32, 300
 * generations, defaults otherwise, every seed of 1-5, d = 10. */
static void quality(const ck_device *device) {
  static const struct {
    const char *function;
    double threshold;
  } cases[] = {{"sphere", 5e-4}, {"rastrigin", 3.0}, {"griewank", 0.5}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    double worst = 0;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      ck_ga_config c;
      ck_ga_config_init(&c);
      c.generation_mode = CK_GA_GENERATION_CHILD; /* as small_config() */
      c.function = cases[k].function;
      c.dim = 10;
      c.islands = 16;
      c.island_size = 32;
      c.max_generations = 300;
      c.seed = seed;
      double best = run_best(device, &c, NULL);
      worst = fmax(worst, best);
      CHECK_MSG(best <= cases[k].threshold, "%s %s d=10 seed %llu: %g > %g",
                device->id, cases[k].function, (unsigned long long)seed, best,
                cases[k].threshold);
    }
    printf("  %s d=10: worst of seeds 1-5 %.3g (threshold %g)\n",
           cases[k].function, worst, cases[k].threshold);
  }
}

/* Every gene of every individual stays in the domain under each mode,
 * with the optimum outside it and steps longer than the domain. */
static void bounds(const ck_device *device) {
  enum { DIM = 5, TOTAL = 100 };
  const double lo[DIM] = {2, 2, -7, 2, 0.5}, hi[DIM] = {5, 3, -6, 9, 0.75};
  for (int mode = 0; mode <= 2; ++mode) {
    ck_ga_config c;
    small_config(&c, "sphere", DIM);
    c.islands = 4;
    c.island_size = 25;
    c.lo = lo;
    c.hi = hi;
    c.bounds = (ck_bounds_mode)mode;
    /* Each mode with other operators, all of them able to step out. */
    c.crossover = mode == 2 ? CK_GA_SBX : CK_GA_BLX;
    c.crossover_parameter = mode == 2 ? 0.5 : 1.0;
    c.mutation = mode == 1 ? CK_GA_POLYNOMIAL : CK_GA_GAUSSIAN;
    c.mutation_parameter = mode == 1 ? 1.0 : 0.5;
    c.mutation_rate = 0.5;
    c.migrate_every = 4;
    ck_ga *ga = create(device, &c);
    if (!ga)
      continue;
    ga_state *s = ck__ga_state(ga);
    static float x[DIM * TOTAL], f[TOTAL];
    int outside = 0, mismatched = 0;
    for (int round = 0; round < 5; ++round) {
      CHECK_OK(ck_ga_step(ga, 7));
      CHECK_OK(ck__ga_settle(ga));
      /* The last generation's buffer: generation g is in buffer g & 1
       * (the other may be stale, as the resident kernels leave it). */
      const int b = (7 * (round + 1)) & 1;
      read_reals(s, s->population[b], x, DIM * TOTAL);
      read_reals(s, s->fitness[b], f, TOTAL);
      for (int g = 0; g < TOTAL; ++g) {
        float sum = 0;
        for (int d = 0; d < DIM; ++d) {
          float v = x[d * TOTAL + g];
          outside += !(v >= (float)lo[d] && v <= (float)hi[d]);
          sum += v * v;
        }
        /* Each fitness is the objective at its own genes. */
        mismatched += sum != f[g];
      }
    }
    CHECK_MSG(outside == 0, "%s mode %d: %d genes outside", device->id, mode,
              outside);
    CHECK_MSG(mismatched == 0, "%s mode %d: %d fitness values not their genes'",
              device->id, mode, mismatched);
    double best = NAN, position[DIM];
    CHECK_OK(ck_ga_get_best(ga, &best, position));
    for (int d = 0; d < DIM; ++d)
      outside += position[d] < (double)(float)lo[d] ||
                 position[d] > (double)(float)hi[d];
    CHECK_MSG(outside == 0, "%s mode %d: best outside", device->id, mode);
    /* The constrained minimum: 4 + 4 + 36 + 4 + 0.25 at the bounds nearest
     * zero, which clamping reaches exactly; reflection (49.08 measured)
     * and redrawing (50.08) approach it more slowly. */
    double slack = mode == CK_BOUNDS_MODE_CLAMP     ? 1e-9
                   : mode == CK_BOUNDS_MODE_REFLECT ? 2.5
                                                    : 5.0;
    CHECK_MSG(best >= 48.25 && best <= 48.25 + slack, "%s mode %d: best %.9g",
              device->id, mode, best);
    ck_ga_destroy(ga);
  }
}

static void target(const ck_device *device) {
  ck_ga_config c;
  small_config(&c, "sphere", 10);
  c.max_generations = 0;
  c.has_target = 1;
  c.target = 1e-2;
  ck_ga_report report;
  ck_ga *ga = create(device, &c);
  if (!ga)
    return;
  CHECK_OK(ck_ga_run(ga, &report));
  CHECK(report.stopped_by == CK_STOP_TARGET);
  CHECK(report.best <= 1e-2);
  CHECK(report.generations >= report.target_generation);
  /* The default elite (1 an island) keeps its fitness: 8 x 15 children a
   * generation are evaluated, after the 8 x 16 of initialisation. */
  CHECK(report.evaluations == 8 * 16 + 8 * 15 * report.generations);
  const double *best;
  size_t count;
  CHECK_OK(ck_ga_get_history(ga, &best, NULL, NULL, NULL, &count));
  CHECK(count == report.generations + 1);
  CHECK(report.target_generation > 0 && report.target_generation < count);
  if (report.target_generation > 0 && report.target_generation < count) {
    CHECK_MSG(best[report.target_generation] <= 1e-2 &&
                  best[report.target_generation - 1] > 1e-2,
              "%s: history %g then %g at generation %llu", device->id,
              best[report.target_generation - 1],
              best[report.target_generation],
              (unsigned long long)report.target_generation);
  }
  ck_ga_destroy(ga);

  /* The same through the workload. */
  const ck_workload *workload;
  CHECK_OK(ck_workload_find("ga", &workload));
  const ck_param params[] = {
      {"islands", "8"}, {"island-size", "16"}, {"target", "1e-2"}};
  ck_run_options options = {.seed = 1};
  ck_result result = {0};
  CHECK_OK(test_workload_run(workload, device, params, 3, &options, &result));
  double generation = NAN;
  CHECK_OK(ck_result_get_metric(&result, "target_generation", &generation));
  CHECK_MSG(strcmp(result.stopped_by, "target") == 0, "stopped by '%s'",
            result.stopped_by);
  CHECK(generation == (double)report.target_generation);
  CHECK(result.best <= 1e-2);
  ck_result_release(&result);

  /* A budget that initialisation uses up allows no generation, beside a
   * target that is never met; one an evaluation short of three
   * generations' children allows two. The budget counts evaluations as
   * the report does (elites are not evaluated again). */
  const uint64_t budgets[][2] = {{8 * 16, 0}, {8 * 16 + 8 * 15 * 3 - 1, 2}};
  for (size_t k = 0; k < 2; ++k) {
    c.has_target = 1;
    c.target = -1;
    c.max_evaluations = budgets[k][0];
    if (!(ga = create(device, &c)))
      return;
    CHECK_OK(ck_ga_run(ga, &report));
    CHECK_MSG(report.stopped_by == CK_STOP_EVALUATIONS &&
                  report.generations == budgets[k][1] &&
                  report.evaluations == 8 * 16 + 8 * 15 * budgets[k][1] &&
                  report.evaluations <= budgets[k][0],
              "%s: budget %llu: stopped by %d after %llu generations",
              device->id, (unsigned long long)budgets[k][0],
              (int)report.stopped_by, (unsigned long long)report.generations);
    ck_ga_destroy(ga);
  }
}

/* A run's history: best, mean, and each island's best and mean. */
typedef struct ga_history {
  double *part[4];
  size_t count;
  uint64_t stride;
  ck_ga_report report;
} ga_history;

static void ga_history_free(ga_history *h) {
  for (int p = 0; p < 4; ++p)
    free(h->part[p]);
}

/* Runs config (with island history) under a history limit (0: the
 * default) and copies its history. */
static int ga_history_take(const ck_device *device, const ck_ga_config *config,
                           size_t limit, ga_history *h) {
  memset(h, 0, sizeof *h);
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, limit));
  ck_ga *ga = create(device, config);
  CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
  if (!ga)
    return 0;
  const double *part[4] = {NULL};
  CHECK_OK(ck_ga_run(ga, &h->report));
  CHECK_OK(
      ck_ga_get_history(ga, &part[0], &part[1], &part[2], &part[3], &h->count));
  CHECK_OK(ck_ga_get_history_stride(ga, &h->stride));
  for (int p = 0; p < 4; ++p) {
    size_t size = h->count * (p < 2 ? 1 : config->islands) * sizeof(double);
    h->part[p] = malloc(size);
    if (h->part[p] && part[p])
      memcpy(h->part[p], part[p], size);
  }
  ck_ga_destroy(ga);
  return h->part[0] && h->part[1] && h->part[2] && h->part[3];
}

/* How many of h's entries up to generation `until` differ from the full
 * history's at generation i x stride. */
static size_t ga_history_differ(const ga_history *h, const ga_history *full,
                                size_t islands, uint64_t until) {
  size_t differ = 0;
  for (size_t i = 0; i < h->count && i * h->stride <= until; ++i) {
    size_t g = (size_t)(i * h->stride);
    if (g >= full->count)
      return differ + 1;
    for (int p = 0; p < 4; ++p) {
      size_t width = p < 2 ? 1 : islands;
      differ += memcmp(h->part[p] + i * width, full->part[p] + g * width,
                       width * sizeof(double)) != 0;
    }
  }
  return differ;
}

/* Past the history's bound (set small here, as a run of hours would reach
 * it): at most the bound of entries, entry 0 kept, entry i the full
 * history's at generation i x stride, island statistics too; the target's
 * generation still found exactly, between the entries kept; and --trace
 * with --trace-islands naming each row's generation. */
static void bounded_history(const ck_device *device) {
  enum { LIMIT = 16, GENERATIONS = 300, ISLANDS = 3 };
  ck_ga_config c;
  islands_config(&c, "rastrigin", 10, ISLANDS, 8, GENERATIONS);
  c.keep_island_history = 1;
  c.seed = 5;
  ga_history full, bounded;
  if (!ga_history_take(device, &c, 0, &full)) {
    ga_history_free(&full);
    return;
  }
  CHECK(full.stride == 1 && full.count == GENERATIONS + 1);
  if (ga_history_take(device, &c, LIMIT, &bounded)) {
    CHECK_MSG(bounded.stride == 32 && bounded.count == GENERATIONS / 32 + 1,
              "%s: %zu entries, stride %llu", device->id, bounded.count,
              (unsigned long long)bounded.stride);
    size_t differ = ga_history_differ(&bounded, &full, ISLANDS, GENERATIONS);
    CHECK_MSG(differ == 0, "%s: %zu values differ from the full history",
              device->id, differ);
    CHECK(bounded.report.best == full.report.best);
  }
  ga_history_free(&bounded);
  /* The target: the last strict improvement in the second half, at a
   * generation that no entry kept holds (the stride is 16 or more there). */
  uint64_t met = 0;
  for (size_t g = full.count - 1; g > full.count / 2 && !met; --g)
    if (full.part[0][g] < full.part[0][g - 1] && g % 16 != 0)
      met = g;
  CHECK_MSG(met > 0, "%s: no improvement after generation %zu", device->id,
            full.count / 2);
  ck_ga_config aimed = c;
  aimed.max_generations = 0;
  aimed.has_target = 1;
  aimed.target = full.part[0][met];
  if (met && ga_history_take(device, &aimed, LIMIT, &bounded)) {
    CHECK_MSG(bounded.report.stopped_by == CK_STOP_TARGET &&
                  bounded.report.target_generation == met,
              "%s: target %.17g met at generation %llu, want %llu", device->id,
              aimed.target,
              (unsigned long long)bounded.report.target_generation,
              (unsigned long long)met);
    /* Generations after the target's, which went on to the end of the
     * chunk read, need not be the full run's: the islands stop changing
     * once the target is met. */
    CHECK(bounded.stride > 1 && bounded.count <= LIMIT);
    CHECK(ga_history_differ(&bounded, &full, ISLANDS, met) == 0);
  }
  ga_history_free(&bounded);

  /* --trace --trace-islands: a row for the population and one an island
   * at each entry kept, each the row of a trace of the full history. */
  char directory[] = "/tmp/clkit_test_ga_XXXXXX", path[64];
  if (!mkdtemp(directory)) {
    CHECK_MSG(0, "mkdtemp: %s", strerror(errno));
    ga_history_free(&full);
    return;
  }
  snprintf(path, sizeof path, "%s/trace.csv", directory);
  const ck_workload *workload;
  CHECK_OK(ck_workload_find("ga", &workload));
  const ck_param params[] = {{"fn", "rastrigin"},   {"dim", "10"},
                             {"islands", "3"},      {"island-size", "8"},
                             {"gens", "300"},       {"trace", path},
                             {"trace-islands", "1"}};
  ck_run_options options = {.seed = 5};
  ck_result result = {0};
  char *text[2] = {NULL, NULL};
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, k ? LIMIT : 0));
    CHECK_OK(test_workload_run(workload, device, params, 7, &options, &result));
    CHECK_OK(ck__test_control(CK__TEST_HISTORY_LIMIT, 0));
    text[k] = test_read_file(path, NULL);
  }
  CHECK(text[0] && text[1] && strcmp(text[0], text[1]) != 0 &&
        strncmp(text[1], "generation,island,best,mean\n", 28) == 0);
  size_t rows = 0, wrong = 0;
  unsigned long long last = 0;
  for (char *line = text[0] && text[1] ? strchr(text[1], '\n') : NULL;
       line && line[1]; line = strchr(line + 1, '\n')) {
    /* "\nLINE\n", the line with the newlines around it. */
    size_t length = strcspn(line + 1, "\n") + 2;
    char *row = strndup(line, length);
    last = strtoull(line + 1, NULL, 10);
    wrong += !row || last % 32 != 0 || !strstr(text[0], row);
    free(row);
    ++rows;
  }
  CHECK_MSG(wrong == 0 && rows == (GENERATIONS / 32 + 1) * (ISLANDS + 1) &&
                last == GENERATIONS / 32 * 32,
            "%s: %zu of %zu trace rows wrong, the last at %llu", device->id,
            wrong, rows, last);
  free(text[0]);
  free(text[1]);
  ck_result_release(&result);
  remove_tree(directory);
  ga_history_free(&full);
}

/* The device's fold of the island statistics (no island history kept)
 * against the host's (island history kept), on the same run: every best
 * bit for bit, every mean to its precision. 300 islands of 8: more
 * islands than a work-group has work-items, and not a multiple of it. */
static void folded_statistics(const ck_device *device) {
  ck_ga_config c;
  small_config(&c, "rastrigin", 4);
  c.islands = 300;
  c.island_size = 8;
  const double *best[2], *mean[2];
  size_t count[2] = {0, 0};
  ck_ga *ga[2] = {NULL, NULL};
  for (int keep = 0; keep < 2; ++keep) {
    c.keep_island_history = keep;
    if (!(ga[keep] = create(device, &c)))
      goto done;
    /* The device has a fold step (its buffer), so the run without island
     * history takes it: the fold compared is the device's. */
    CHECK(ck__ga_state(ga[keep])->folded != NULL);
    CHECK_OK(ck_ga_step(ga[keep], 13));
    CHECK_OK(ck_ga_get_history(ga[keep], &best[keep], &mean[keep], NULL, NULL,
                               &count[keep]));
  }
  CHECK(count[0] == 14 && count[1] == 14);
  int wrong_best = 0, wrong_mean = 0;
  for (size_t t = 0; t < count[0] && t < count[1]; ++t) {
    wrong_best += best[0][t] != best[1][t];
    wrong_mean += !(fabs(mean[0][t] - mean[1][t]) <= 1e-6 * fabs(mean[1][t]));
  }
  CHECK_MSG(wrong_best == 0 && wrong_mean == 0,
            "%s: folded statistics: %d bests and %d means differ", device->id,
            wrong_best, wrong_mean);
  CHECK_MSG(mean[0][13] < mean[0][0], "%s: the mean did not fall (%g, %g)",
            device->id, mean[0][0], mean[0][13]);
done:
  ck_ga_destroy(ga[0]);
  ck_ga_destroy(ga[1]);
}

/* ---- reproducibility and agreement ----------------------------------------
 */

static void reproducibility(const ck_device *device) {
  ck_ga_config c;
  small_config(&c, "rastrigin", 10);
  c.seed = 11;
  double a[10], b[10];
  double best_a = run_best(device, &c, a);
  double best_b = run_best(device, &c, b);
  CHECK_MSG(best_a == best_b && memcmp(a, b, sizeof a) == 0,
            "%s: seed 11 gave %.9g then %.9g", device->id, best_a, best_b);
  c.seed = 12;
  double best_c = run_best(device, &c, b);
  CHECK_MSG(best_c != best_a && memcmp(a, b, sizeof a) != 0,
            "%s: seeds 11 and 12 both gave %.9g", device->id, best_a);
}

/* SBX crossover, eta 15. */
static void sbx(ck_ga_config *config) {
  config->crossover = CK_GA_SBX;
  config->crossover_parameter = 15;
}

/* SBX (eta 15) with polynomial mutation (eta 20): the operators whose
 * draws go through clkit's own powers. */
static void sbx_polynomial(ck_ga_config *config) {
  sbx(config);
  config->mutation = CK_GA_POLYNOMIAL;
  config->mutation_parameter = 20;
}

/* ref and a device bit for bit: best, position and the whole best
 * history. */
/* Runs `config` on ref and on `device` in calls of calls[0 .. count)
 * generations (all of config->max_generations at once when count is 0),
 * the device's native GA launches holding at most grid_limit blocks where
 * that is not 0, and checks the two give the same bits: best, position
 * and every generation's best. */
static void identical_in_calls(const ck_device *ref, const ck_device *device,
                               const ck_ga_config *config, const char *what,
                               const uint64_t *calls, size_t count,
                               size_t grid_limit) {
  enum { MOST_GENES = 256 };
  double best[2], position[2][MOST_GENES] = {{0}};
  CHECK(config->dim <= MOST_GENES);
  if (config->dim > MOST_GENES)
    return;
  const double *history[2];
  size_t entries[2];
  ck_ga *ga[2] = {create(ref, config), create(device, config)};
  if (ga[1])
    ck__ga_state(ga[1])->native_grid_limit = grid_limit;
  for (int k = 0; k < 2; ++k) {
    if (!ga[k])
      goto done;
    for (size_t call = 0; call < (count ? count : 1); ++call)
      CHECK_OK(
          ck_ga_step(ga[k], count ? calls[call] : config->max_generations));
    CHECK_OK(ck_ga_get_best(ga[k], &best[k], position[k]));
    CHECK_OK(
        ck_ga_get_history(ga[k], &history[k], NULL, NULL, NULL, &entries[k]));
  }
  CHECK_MSG(best[0] == best[1] &&
                memcmp(position[0], position[1], sizeof position[0]) == 0,
            "%s: ref %.9g, %s %.9g", what, best[0], device->id, best[1]);
  CHECK_MSG(
      entries[0] == entries[1] &&
          memcmp(history[0], history[1], entries[0] * sizeof *history[0]) == 0,
      "%s: the histories of ref and %s differ", what, device->id);
done:
  ck_ga_destroy(ga[0]);
  ck_ga_destroy(ga[1]);
}

static void identical(const ck_device *ref, const ck_device *device,
                      const ck_ga_config *config, const char *what) {
  identical_in_calls(ref, device, config, what, NULL, 0, 0);
}

/* On a CUDA device of sm_90 or later, islands too large for one block
 * (more than 1024 slots, or more rows than a block's shared memory holds)
 * and of more than 8 genes spread over a cluster of blocks that read each
 * other's rows: ref and the
 * device bit for bit across migrations, with each kind of child the
 * native kernel makes. Elsewhere the OpenCL steps take such islands. */
static void clustered(const ck_device *ref, const ck_device *device) {
  static const struct {
    int dim, crossover, mutation, elite, tournament;
    size_t size;
    uint32_t cluster; /* blocks an island */
    const char *what;
  } cases[] = {
      /* Two blocks of 1024 slots; arithmetic crossover, gaussian steps. */
      {10, CK_GA_ARITHMETIC, CK_GA_GAUSSIAN, 1, 2, 2048, 2,
       "islands of 2048, d = 10"},
      /* 1025 slots need 1056 threads: three blocks, 684 + 684 + 682
       * slots; SBX with gaussian steps (refills deferred), 3 elites. */
      {20, CK_GA_SBX, CK_GA_GAUSSIAN, 3, 3, 2050, 3,
       "islands of 2050, d = 20, sbx gauss"},
      /* Rows of 100 genes: 575 a block would pass 227 KB, so three
       * blocks; children crossed in chunks, polynomial steps pooled. */
      {100, CK_GA_SBX, CK_GA_POLYNOMIAL, 2, 2, 1150, 3,
       "islands of 1150, d = 100, sbx poly"},
      /* Rows of 192 genes: 400 slots pass 227 KB, so two blocks of 200
       * (at least MIN_CLUSTER_SLOTS); children crossed in chunks. */
      {192, CK_GA_BLX, CK_GA_GAUSSIAN, 2, 3, 400, 2,
       "islands of 400, d = 192, blx gauss"},
  };
#if CK_HAVE_CUDA
  int architecture = ck__cuda_architecture(device);
#else
  int architecture = 0;
#endif
  if (architecture < 90) {
    printf("%s: no clusters before sm_90; clustered islands skipped\n",
           device->id);
    return;
  }
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ck_ga_config c;
    islands_config(&c, "rastrigin", cases[i].dim, 2, cases[i].size, 24);
    c.crossover = cases[i].crossover;
    c.crossover_parameter = cases[i].crossover == CK_GA_SBX ? 15 : 0;
    c.mutation = cases[i].mutation;
    c.mutation_parameter = cases[i].mutation == CK_GA_POLYNOMIAL ? 20 : 0.1;
    c.elite = cases[i].elite;
    c.tournament = cases[i].tournament;
    c.migrate_every = 10;
    c.bounds = CK_BOUNDS_MODE_REFLECT;
    ck_ga *ga = create(device, &c);
    const ga_state *s = ga ? ck__ga_state(ga) : NULL;
    CHECK_MSG(s && s->native_evolve_kernel &&
                  s->native_cluster == cases[i].cluster,
              "%s: %s not on %u blocks of the native kernel (%u)", device->id,
              cases[i].what, cases[i].cluster, s ? s->native_cluster : 0);
    ck_ga_destroy(ga);
    identical(ref, device, &c, cases[i].what);
  }
}

/* On a CUDA device, whose launches make the ring's migrations inside them
 * (islands in tasks that blocks take in ticket order, waiting for each
 * other's migrants: cl/ck_ga_schedule.h): ref and the device bit for bit
 * (best, position, every generation's best), with the run cut into calls
 * of uneven lengths, and with one block taking every task in turn, three
 * waiting for each other, or as many as the device holds. */
static void spanning(const ck_device *ref, const ck_device *device) {
  static const struct {
    const char *function;
    int dim;
    size_t islands, size;
    unsigned every, migrants;
    int crossover, mutation, elite;
    const char *what;
  } cases[] = {
      {"rastrigin", 8, 40, 64, 3, 2, CK_GA_ARITHMETIC, CK_GA_GAUSSIAN, 1,
       "40 islands of 64, migrating every 3"},
      {"rastrigin", 20, 16, 96, 5, 2, CK_GA_SBX, CK_GA_POLYNOMIAL, 1,
       "sbx poly (pooled steps), every 5"},
      {"sphere", 30, 12, 128, 2, 2, CK_GA_BLX, CK_GA_GAUSSIAN, 1,
       "blx gauss (deferred refills), every 2"},
      {"rastrigin", 12, 9, 50, 4, 3, CK_GA_ARITHMETIC, CK_GA_GAUSSIAN, 2,
       "9 islands of 50, 3 migrants, 2 elites, every 4"},
      {"sphere", 4, 1, 32, 3, 1, CK_GA_ARITHMETIC, CK_GA_GAUSSIAN, 1,
       "one island, its own ring"},
  };
  static const size_t limits[] = {0, 1, 3};
  static const uint64_t calls[] = {7, 1, 13, 40, 19};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    ck_ga_config c;
    islands_config(&c, cases[i].function, cases[i].dim, cases[i].islands,
                   cases[i].size, 80);
    c.migrate_every = cases[i].every;
    c.migrants = cases[i].migrants;
    c.crossover = cases[i].crossover;
    c.crossover_parameter = cases[i].crossover == CK_GA_SBX   ? 15
                            : cases[i].crossover == CK_GA_BLX ? 0.5
                                                              : 0;
    c.mutation = cases[i].mutation;
    c.mutation_parameter = cases[i].mutation == CK_GA_POLYNOMIAL ? 20 : 0.1;
    c.elite = cases[i].elite;
    c.seed = 11 + i;
    ck_ga *ga = create(device, &c);
    CHECK_MSG(ga && ck__ga_state(ga)->span_segments > 1,
              "%s: %s: launches do not span migrations", device->id,
              cases[i].what);
    ck_ga_destroy(ga);
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; ++k) {
      char what[160];
      snprintf(what, sizeof what, "%s, %zu blocks at most (0: no limit)",
               cases[i].what, limits[k]);
      identical_in_calls(ref, device, &c, what, calls,
                         sizeof calls / sizeof calls[0], limits[k]);
    }
  }
}

static void agreement(const ck_device *ref, const ck_device *device) {
  ck_ga_config c;
  small_config(&c, "sphere", 10);
  c.mutation_rate = 0;
  c.seed = 7;
  identical(ref, device, &c, "sphere pm=0");
  c.crossover = CK_GA_BLX;
  c.crossover_parameter = 0.5;
  c.elite = 2;
  c.tournament = 3;
  identical(ref, device, &c, "sphere blx pm=0");
  /* cos(2 pi x) is written out in ck_real.h, the same bits everywhere. */
  small_config(&c, "rastrigin", 10);
  c.mutation_rate = 0;
  c.seed = 7;
  identical(ref, device, &c, "rastrigin pm=0");
  if (device->has_fp64) {
    small_config(&c, "sphere", 10);
    c.mutation_rate = 0;
    c.double_precision = 1;
    identical(ref, device, &c, "sphere pm=0 double");
  }
  /* Islands whose shared memory passes the 48 KB a CUDA kernel may
   * declare: the native kernel takes them in dynamic shared memory. */
  if (device->backend == CK_BACKEND_CUDA) {
    islands_config(&c, "rastrigin", 10, 3, 1000, 25);
    c.mutation_rate = 0;
    ck_ga *ga = create(device, &c);
    CHECK_MSG(ga && ck__ga_state(ga)->native_evolve_kernel,
              "%s: islands of 1000 not on the native kernel", device->id);
    ck_ga_destroy(ga);
    identical(ref, device, &c, "rastrigin pm=0, islands of 1000");
    /* Past 64 genes the native kernel crosses a child in chunks, a
     * barrier each, and mutates and evaluates it on its row. */
    islands_config(&c, "rastrigin", 100, 3, 40, 30);
    c.mutation_rate = 0;
    ga = create(device, &c);
    CHECK_MSG(ga && ck__ga_state(ga)->native_evolve_kernel,
              "%s: d = 100 not on the native kernel", device->id);
    ck_ga_destroy(ga);
    identical(ref, device, &c, "rastrigin pm=0, d = 100");
    c.crossover = CK_GA_BLX;
    c.crossover_parameter = 0.5;
    c.elite = 2;
    c.tournament = 3;
    c.bounds = CK_BOUNDS_MODE_REFLECT;
    identical(ref, device, &c, "rastrigin blx reflect pm=0, d = 100");
    /* With mutations (added on the row), and SBX with polynomial ones. */
    islands_config(&c, "rastrigin", 100, 3, 40, 30);
    identical(ref, device, &c, "rastrigin gauss, d = 100");
    sbx_polynomial(&c);
    identical(ref, device, &c, "rastrigin sbx poly, d = 100");
    /* Up to the kernel's most genes (CK_GA_NATIVE_MAX_DIM), in chunks of
     * 64 and a last one of 8. */
    islands_config(&c, "rastrigin", 200, 3, 40, 20);
    c.bounds = CK_BOUNDS_MODE_REFLECT;
    ga = create(device, &c);
    CHECK_MSG(ga && ck__ga_state(ga)->native_evolve_kernel,
              "%s: d = 200 not on the native kernel", device->id);
    ck_ga_destroy(ga);
    identical(ref, device, &c, "rastrigin gauss reflect, d = 200");
    sbx_polynomial(&c);
    identical(ref, device, &c, "rastrigin sbx poly, d = 200");
    clustered(ref, device);
    spanning(ref, device);
  }
  /* With mutation too: its logarithms and powers are clkit's own
   * (ck_real.h) and its square roots and the SBX exponent's division are
   * rounded correctly on every device, so a run is the same bits. */
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    small_config(&c, "rastrigin", 10);
    c.seed = seed;
    identical(ref, device, &c, "rastrigin gauss");
    sbx_polynomial(&c);
    c.bounds = CK_BOUNDS_MODE_REFLECT;
    identical(ref, device, &c, "rastrigin sbx poly reflect");
    /* Many mutations a child: refills after the first, and (on CUDA) more
     * polynomial steps than a warp has lanes, in one pool. */
    c.mutation_rate = seed == 1 ? 0.5 : 1.0;
    identical(ref, device, &c, "rastrigin sbx poly reflect, pm >= 0.5");
  }
  /* Polynomial mutation after arithmetic crossover: on CUDA each child
   * draws its own steps (the warp's pool serves SBX alone), a refill's
   * block of steps only where a mutation falls, and at pm = 0.5 most
   * children need refills after the first; reflect bounds the mutated
   * genes. */
  small_config(&c, "rastrigin", 10);
  c.mutation = CK_GA_POLYNOMIAL;
  c.mutation_parameter = 20;
  c.mutation_rate = 0.5;
  c.bounds = CK_BOUNDS_MODE_REFLECT;
  identical(ref, device, &c, "rastrigin arith poly reflect, pm = 0.5");
  /* SBX with gaussian mutation on islands of 100 (four warps): on CUDA a
   * child's refills after its first go through the block's queue, from
   * every warp and for most children at pm = 0.5. */
  islands_config(&c, "rastrigin", 20, 3, 100, 20);
  sbx(&c);
  identical(ref, device, &c, "rastrigin sbx gauss");
  c.mutation_rate = 0.5;
  c.elite = 3;
  identical(ref, device, &c, "rastrigin sbx gauss, pm = 0.5");
  /* Fewer than four genes: rows of one padded quad. */
  for (int dim = 1; dim <= 3; ++dim) {
    char what[64];
    small_config(&c, "rastrigin", dim);
    c.max_generations = 12;
    snprintf(what, sizeof what, "rastrigin gauss, d = %d", dim);
    identical(ref, device, &c, what);
  }
  /* Islands wider than a work-group (256): OpenCL's global-memory kernel,
   * its children made by ck_ga_make_child (on CUDA, the native kernel). */
  islands_config(&c, "rastrigin", 10, 2, 300, 6);
  identical(ref, device, &c, "rastrigin gauss, islands of 300");
  sbx_polynomial(&c);
  c.mutation_rate = 0.3;
  c.bounds = CK_BOUNDS_MODE_REFLECT;
  identical(ref, device, &c, "rastrigin sbx poly reflect, islands of 300");
  c.dim = 70;
  identical(ref, device, &c,
            "rastrigin sbx poly reflect, d = 70, islands of 300");
  /* Griewank's cosines and square roots are the device library's, which
   * rounds its own way: agreement within the documented tolerance. */
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    small_config(&c, "griewank", 10);
    c.seed = seed;
    double on_ref = run_best(ref, &c, NULL);
    double on_device = run_best(device, &c, NULL);
    CHECK_MSG(fabs(on_device - on_ref) <= 1e-3 * fabs(on_ref) + 1e-6,
              "griewank seed %llu: ref %.9g, %s %.9g", (unsigned long long)seed,
              on_ref, device->id, on_device);
  }
}

/* ---- lsq ------------------------------------------------------------------
 */

static void lsq(const ck_device *ref, const ck_device *device) {
  ck_lsq_data data = {0};
  double truth[3], on_ref[3], best_ref = NAN;
  CHECK_OK(ck_lsq_generate(2000, 3, 5, 0.0, &data, truth));
  for (int mode = CK_PSO_LSQ_GROUP; mode <= CK_PSO_LSQ_VECTOR; ++mode) {
    ck_ga_config c;
    small_config(&c, "lsq", 0);
    c.data = &data;
    c.islands = 8;
    c.island_size = 32;
    c.max_generations = 300;
    if (mode == CK_PSO_LSQ_GROUP && device != ref)
      best_ref = run_best(ref, &c, on_ref);
    c.lsq_mode = (ck_pso_lsq_mode)mode;
    double position[3];
    double best = run_best(device, &c, position);
    /* 8 x 32 x 300 generations, default operators: off by 1.5e-4 to
     * 3.2e-3 over seeds 1-8. */
    check_lsq_fit(device->id, mode, &data, position, truth, best, 1e-2, 1e-4);
    /* Thread and vector modes (256 individuals: 16 vectors of 16) sum
     * each individual's rows in order, as ref does: the same run. */
    if (mode != CK_PSO_LSQ_GROUP && device != ref)
      CHECK_MSG(
          best == best_ref && memcmp(position, on_ref, sizeof position) == 0,
          "lsq mode %d: ref %.9g, %s %.9g", mode, best_ref, device->id, best);
    if (device->backend == CK_BACKEND_REF)
      break; /* ref has one evaluation */
  }
  ck_lsq_free(&data);
}

/* ---- evaluations counted ---------------------------------------------------
 */

/* The report's evaluations: initialisation's islands x size, then per
 * generation islands x (size - elite) for a streamed objective (the
 * elites keep their fitness) and the whole population for lsq (its
 * evaluation pass scores every individual); evaluations_per_s the
 * generations' evaluations over the timed run (initialisation is not in
 * it), beside gene-generations/s as before. A count that took in the
 * elites fails with elite 3 by 8 x 3 x 5. */
static void evaluations_counted(const ck_device *device) {
  static const int elites[] = {0, 1, 3};
  for (size_t k = 0; k < sizeof elites / sizeof *elites; ++k) {
    ck_ga_config c;
    islands_config(&c, "rastrigin", 4, 8, 16, 5);
    c.elite = elites[k];
    ck_ga *ga = create(device, &c);
    if (!ga)
      return;
    ck_ga_report report;
    CHECK_OK(ck_ga_run(ga, &report));
    uint64_t children = 8 * (16 - (uint64_t)elites[k]);
    CHECK_MSG(report.generations == 5 &&
                  report.evaluations == 8 * 16 + children * 5,
              "%s elite %d: %llu evaluations in %llu generations", device->id,
              elites[k], (unsigned long long)report.evaluations,
              (unsigned long long)report.generations);
    if (report.wall_s > 0) {
      double rate = (double)children * 5 / report.wall_s;
      double genes = 8.0 * 16 * 4 * 5 / report.wall_s;
      CHECK_MSG(fabs(report.evaluations_per_s - rate) <= 1e-9 * rate &&
                    fabs(report.genes_per_s - genes) <= 1e-9 * genes,
                "%s elite %d: %g evaluations/s (%g expected), %g "
                "gene-generations/s (%g expected)",
                device->id, elites[k], report.evaluations_per_s, rate,
                report.genes_per_s, genes);
    }
    ck_ga_destroy(ga);
  }
  ck_lsq_data data = {0};
  double truth[3];
  CHECK_OK(ck_lsq_generate(200, 3, 5, 0.0, &data, truth));
  ck_ga_config c;
  small_config(&c, "lsq", 0);
  c.data = &data;
  c.elite = 3;
  c.max_generations = 5;
  ck_ga *ga = create(device, &c);
  if (ga) {
    ck_ga_report report;
    CHECK_OK(ck_ga_run(ga, &report));
    CHECK_MSG(report.evaluations == 8 * 16 * 6,
              "%s lsq elite 3: %llu evaluations in %llu generations",
              device->id, (unsigned long long)report.evaluations,
              (unsigned long long)report.generations);
    ck_ga_destroy(ga);
  }
  ck_lsq_free(&data);
}

/* ---- bad input ------------------------------------------------------------
 */

static void bad_input(const ck_device *ref) {
  const ck_workload *ga;
  ck_result result = {0};
  ck_run_options options = {.seed = 1};
  CHECK_OK(ck_workload_find("ga", &ga));
  static const struct {
    ck_param params[3];
    size_t count;
    const char *mention;
  } cases[] = {
      {{{"island-size", "1"}}, 1, "--island-size"},
      {{{"island-size", "0"}}, 1, "--island-size"},
      {{{"island-size", "4"}, {"migrants", "4"}}, 2, "--migrants"},
      {{{"island-size", "4"}, {"migrants", "9"}}, 2, "--migrants"},
      {{{"pc", "1.5"}}, 1, "--pc"},
      {{{"pc", "-0.1"}}, 1, "--pc"},
      {{{"pm", "1.01"}}, 1, "--pm"},
      {{{"pm", "-0.5"}}, 1, "--pm"},
      {{{"island-size", "4"}, {"tournament", "5"}}, 2, "--tournament"},
      {{{"tournament", "0"}}, 1, "--tournament"},
      {{{"island-size", "4"}, {"elite", "4"}}, 2, "--elite"},
      {{{"elite", "-1"}}, 1, "--elite"},
      {{{"crossover", "uniform"}}, 1, "--crossover"},
      {{{"crossover", "sbx"}}, 1, "--crossover"},
      {{{"crossover", "blx:x"}}, 1, "--crossover"},
      /* The command line's own words for a zero sigma or eta, rather than
       * the config check's; BLX's alpha may be 0 (refused later, at
       * --topology). */
      {{{"mutation", "gauss:0"}},
       1,
       "'gauss:0' needs a number in (0, 1000000]"},
      {{{"mutation", "poly:0"}}, 1, "'poly:0' needs a number in (0, 1000000]"},
      {{{"crossover", "blx:0"}, {"topology", "star"}}, 2, "--topology"},
      {{{"mutation", "cauchy:1"}}, 1, "--mutation"},
      {{{"mutation", "poly"}}, 1, "--mutation"},
      /* An operator's number is read as every option's is: no blanks and
       * no hexadecimal. */
      {{{"crossover", "sbx: 2"}}, 1, "'sbx: 2' needs a number"},
      {{{"crossover", "sbx:0x2"}}, 1, "'sbx:0x2' needs a number"},
      {{{"mutation", "poly:2 "}}, 1, "'poly:2 ' needs a number"},
      {{{"topology", "star"}}, 1, "--topology"},
      {{{"generation-mode", "lanes"}}, 1, "--generation-mode"},
      {{{"islands", "0"}}, 1, "--islands"},
      /* Options a run would ignore. */
      {{{"migrate-every", "0"}, {"migrants", "3"}}, 2, "--migrants applies"},
      {{{"migrate-every", "0"}, {"topology", "random"}},
       2,
       "--topology applies"},
      {{{"pc", "0"}, {"crossover", "sbx:15"}}, 2, "--crossover applies"},
      {{{"pm", "0"}, {"mutation", "poly:20"}}, 2, "--mutation applies"},
      {{{"gens", "0"}}, 1, "--gens"},
      /* Initialisation alone makes 64 x 64 evaluations. */
      {{{"evals", "4095"}},
       1,
       "option --evals: ck_ga_config.max_evaluations: 4095"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    ck_status status = test_workload_run(ga, ref, cases[k].params,
                                         cases[k].count, &options, &result);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                  strstr(message, cases[k].mention),
              "case %zu (%s=%s): status %d, message '%s'", k,
              cases[k].params[0].name, cases[k].params[0].value, (int)status,
              message);
  }
  /* ck_workload_check, which compare runs before the oracle, refuses what
   * the run would: each option's own value, without a device. */
  static const ck_param unchecked[][2] = {
      {{"island-size", ""}},
      {{"pc", "2"}},
      {{"crossover", "nosuch"}},
      {{"mutation", "poly"}},
      {{"gens", "0"}},
      {{"elite", "-1"}},
      {{"migrate-every", "0"}, {"migrants", "3"}},
      {{"pc", "0"}, {"crossover", "sbx:15"}},
      {{"trace-islands", ""}}};
  check_refused_by_check(ga, unchecked, sizeof unchecked / sizeof unchecked[0]);

  /* The same settings through ck_ga_create(). */
  for (int k = 0; k < 12; ++k) {
    ck_ga_config c;
    small_config(&c, "sphere", 4);
    c.island_size = 6;
    const char *mention = "";
    switch (k) {
    case 0:
      c.island_size = 1;
      mention = "ck_ga_config.island_size";
      break;
    case 1:
      c.migrants = 6;
      mention = "ck_ga_config.migrants";
      break;
    case 2:
      c.crossover_rate = 1.0001;
      mention = "ck_ga_config.crossover_rate";
      break;
    case 3:
      c.crossover_rate = NAN;
      mention = "ck_ga_config.crossover_rate";
      break;
    case 4:
      c.mutation_rate = 2;
      mention = "ck_ga_config.mutation_rate";
      break;
    case 5:
      c.mutation_rate = NAN;
      mention = "ck_ga_config.mutation_rate";
      break;
    case 6:
      c.tournament = 7;
      mention = "ck_ga_config.tournament";
      break;
    case 7:
      c.elite = 6;
      mention = "ck_ga_config.elite";
      break;
    case 8:
      c.crossover = (ck_ga_crossover)3;
      mention = "ck_ga_config.crossover: 3 is none of";
      break;
    case 9:
      c.crossover = CK_GA_SBX;
      c.crossover_parameter = -1;
      mention = "ck_ga_config.crossover_parameter";
      break;
    case 10:
      c.topology = (ck_ga_topology)2;
      mention = "ck_ga_config.topology";
      break;
    case 11:
      c.generation_mode = (ck_ga_generation_mode)3;
      mention = "ck_ga_config.generation_mode";
      break;
    }
    ck_ga *made = (ck_ga *)&c; /* must come back NULL */
    ck_status status = ck_ga_create(ref, &c, &made);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT && strstr(message, mention) &&
                  made == NULL,
              "config case %d: status %d, message '%s'", k, (int)status,
              message);
    if (status == CK_OK)
      ck_ga_destroy(made);
  }
  /* A population past the device's memory fails at once, with the
   * figures (ref's memory is the host's; here a copy that claims 16 MB):
   * 64 islands of 1024 in 30 dimensions keep about 16.3 MB. */
  ck_device small = *ref;
  small.global_memory = 16ull << 20;
  ck_ga_config c;
  ck_ga_config_init(&c);
  c.dim = 30;
  c.islands = 64;
  c.island_size = 1024;
  ck_ga *made = (ck_ga *)&c;
  ck_status status = ck_ga_create(&small, &c, &made);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_DEVICE_MEMORY &&
                strstr(message, "65536 individuals in 30 dimensions need "
                                "about 0.0163 GB; device ref has 0.0168 GB") &&
                made == NULL,
            "past memory: status %d, message '%s'", (int)status, message);
  c.islands = 16;
  made = NULL;
  CHECK_OK(ck_ga_create(&small, &c, &made));
  ck_ga_destroy(made);
  /* Without migrations the migrants (two by default) have no part, and
   * --migrants may not be given: islands of two run all the same (they
   * were refused as holding no more than the migrants). */
  static const ck_param pairs[] = {{"dim", "2"},
                                   {"islands", "2"},
                                   {"island-size", "2"},
                                   {"migrate-every", "0"},
                                   {"gens", "3"}};
  status = test_workload_run(ga, ref, pairs, sizeof pairs / sizeof *pairs,
                             &options, &result);
  ck_error_get_last(&message);
  double generations = 0, evaluations = 0;
  CHECK_MSG(status == CK_OK, "islands of two: status %d, message '%s'",
            (int)status, message);
  if (status == CK_OK) {
    CHECK_OK(ck_result_get_metric(&result, "generations", &generations));
    CHECK_OK(ck_result_get_metric(&result, "evaluations", &evaluations));
    /* 2 x 2 at initialisation, then 2 islands x 1 child (one elite) for
     * each of 3 generations. */
    CHECK(generations == 3 && evaluations == 2 * 2 + 2 * 1 * 3 &&
          isfinite(result.best));
  }
  ck_result_release(&result);
}

/* A domain where every evaluation overflows: no best to report, said so
 * (before, a search that began at (largest real, no index) chose nothing,
 * and an island read slot 2^32 - 1). */
static void overflow(const ck_device *device) {
  const ck_param params[] = {
      {"fn", "sphere"}, {"dim", "2"},         {"lo", "-1e30"}, {"hi", "1e30"},
      {"islands", "2"}, {"island-size", "4"}, {"gens", "3"}};
  check_no_finite_best("ga", device, params, sizeof params / sizeof *params);
  /* Overflow and NaN compare as the largest real; -inf stays the best. */
  CHECK(ck_comparable((ck_real)INFINITY) == (ck_real)CK_REAL_MAX);
  CHECK(ck_comparable((ck_real)NAN) == (ck_real)CK_REAL_MAX);
  CHECK(ck_comparable((ck_real)-INFINITY) < 0);
}

/* A run's best, its genes and its history of island statistics. */
typedef struct run_record {
  double best, position[16];
  double history[2][64];
  size_t count;
  unsigned children_per_work_item;
} run_record;

static void record_run(const ck_device *device, const ck_ga_config *config,
                       run_record *r) {
  memset(r, 0, sizeof *r);
  ck_ga *ga = create(device, config);
  if (!ga)
    return;
  ck_ga_report report;
  CHECK_OK(ck_ga_run(ga, &report));
  r->children_per_work_item = report.children_per_work_item;
  CHECK_OK(ck_ga_get_best(ga, &r->best, r->position));
  const double *best, *mean;
  CHECK_OK(ck_ga_get_history(ga, &best, &mean, NULL, NULL, &r->count));
  CHECK(r->count <= 64);
  for (size_t i = 0; i < r->count && i < 64; ++i) {
    r->history[0][i] = best[i];
    r->history[1][i] = mean[i];
  }
  ck_ga_destroy(ga);
}

/* Two runs alike: the same best, genes and best per generation; the
 * island means, sums in another order where the work-groups differ, to a
 * tolerance. */
static int same_run(const run_record *a, const run_record *b) {
  int same = a->best == b->best &&
             memcmp(a->position, b->position, sizeof a->position) == 0 &&
             a->count == b->count && a->count > 0 &&
             memcmp(a->history[0], b->history[0], sizeof a->history[0]) == 0;
  for (size_t i = 0; i < a->count && i < 64; ++i)
    same &= fabs(a->history[1][i] - b->history[1][i]) <=
            1e-5 * fabs(a->history[1][i]);
  return same;
}

/* OpenCL devices make a generation's children a work-item each or a
 * vector of them a work-item (ck_ga_lanes.h), with the same bits either
 * way: each crossover, mutation and bounds mode, elites, migrations, pm
 * of 0 and 1, and both precisions. Where ref's are the same bits too
 * (rastrigin and sphere in single precision: clkit's own logarithms and
 * powers, see agreement()) the vector form is held to ref; elsewhere to
 * the child form. PoCL builds the vector form slowly, so the cases are
 * few and small. */
static void generation_modes(const ck_device *ref, const ck_device *device) {
  static const struct {
    const char *function;
    int dim;
    ck_ga_crossover crossover;
    double crossover_parameter;
    ck_ga_mutation mutation;
    double mutation_rate, mutation_parameter;
    ck_bounds_mode bounds;
    int elite, tournament, double_precision;
    size_t islands, size;
  } cases[] = {
      {"rastrigin", 8, CK_GA_ARITHMETIC, 0, CK_GA_GAUSSIAN, -1, 0.1,
       CK_BOUNDS_MODE_CLAMP, 1, 2, 0, 4, 32},
      {"sphere", 6, CK_GA_BLX, 0.5, CK_GA_GAUSSIAN, 1, 0.4,
       CK_BOUNDS_MODE_REFLECT, 2, 3, 0, 3, 16},
      {"rastrigin", 9, CK_GA_SBX, 2, CK_GA_POLYNOMIAL, 0.2, 20,
       CK_BOUNDS_MODE_RANDOM, 0, 2, 0, 4, 32},
      {"ackley", 7, CK_GA_ARITHMETIC, 0, CK_GA_GAUSSIAN, 0.25, 0.2,
       CK_BOUNDS_MODE_REFLECT, 1, 2, 1, 3, 16},
  };
  if (device->backend != CK_BACKEND_OPENCL)
    return;
  static run_record by_vector, oracle;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    if (cases[k].double_precision && !device->has_fp64)
      continue;
    ck_ga_config c;
    islands_config(&c, cases[k].function, cases[k].dim, cases[k].islands,
                   cases[k].size, 12);
    c.crossover = cases[k].crossover;
    c.crossover_parameter = cases[k].crossover_parameter;
    c.mutation = cases[k].mutation;
    c.mutation_rate = cases[k].mutation_rate;
    c.mutation_parameter = cases[k].mutation_parameter;
    c.bounds = cases[k].bounds;
    c.elite = cases[k].elite;
    c.tournament = cases[k].tournament;
    c.double_precision = cases[k].double_precision;
    c.migrate_every = 4;
    c.seed = 31 + k;
    c.generation_mode = CK_GA_GENERATION_VECTOR;
    record_run(device, &c, &by_vector);
    /* Each case's island allows the vector form: it must have been taken. */
    unsigned lanes = c.double_precision ? 8 : 16;
    CHECK_MSG(by_vector.children_per_work_item == lanes,
              "case %zu: %u children a work-item", k,
              by_vector.children_per_work_item);
    int exact = !c.double_precision && (strcmp(c.function, "sphere") == 0 ||
                                        strcmp(c.function, "rastrigin") == 0);
    c.generation_mode = CK_GA_GENERATION_CHILD;
    record_run(exact ? ref : device, &c, &oracle);
    CHECK_MSG(same_run(&oracle, &by_vector),
              "case %zu (%s): %s %.17g, vector mode %.17g", k, c.function,
              exact ? "ref" : "child mode", oracle.best, by_vector.best);
    if (k == 0) {
      /* auto takes the vector form off GPUs (the same program). */
      c.generation_mode = CK_GA_GENERATION_AUTO;
      record_run(device, &c, &oracle);
      CHECK(oracle.children_per_work_item ==
            (device->kind == CK_KIND_GPU ? 1u : lanes));
      CHECK(same_run(&oracle, &by_vector));
    }
  }
  /* Islands of 100 cannot take the vector form: they keep the child form
   * (agreement()'s program, against ref). */
  ck_ga_config c;
  islands_config(&c, "rastrigin", 20, 3, 100, 20);
  sbx(&c);
  c.generation_mode = CK_GA_GENERATION_VECTOR;
  record_run(device, &c, &by_vector);
  record_run(ref, &c, &oracle);
  CHECK(by_vector.children_per_work_item == 1 && same_run(&oracle, &by_vector));
}

/* ---- NULL arguments, named ----------------------------------------------- */

/* A small GA, made once, for the calls whose GA is not the NULL. */
typedef struct null_context {
  const ck_device *device;
  ck_ga_config config;
  ck_ga *ga;
} null_context;

static ck_status null_ga_config_init(void *context, int which) {
  (void)context;
  ck_ga_config config;
  return ck_ga_config_init(NULL_AT(0, &config));
}

static ck_status null_ga_create(void *context, int which) {
  null_context *c = context;
  ck_ga *ga = NULL;
  ck_status status = ck_ga_create(NULL_AT(0, c->device), NULL_AT(1, &c->config),
                                  NULL_AT(2, &ga));
  ck_ga_destroy(ga);
  return status;
}

static ck_status null_ga_create_spread(void *context, int which) {
  null_context *c = context;
  ck_spread spread = {.devices = c->device, .device_count = 1};
  ck_ga *ga = NULL;
  ck_status status = ck_ga_create_spread(
      NULL_AT(0, &spread), NULL_AT(1, &c->config), NULL_AT(2, &ga));
  ck_ga_destroy(ga);
  return status;
}

static ck_status null_ga_step(void *context, int which) {
  null_context *c = context;
  return ck_ga_step(NULL_AT(0, c->ga), 1);
}

static ck_status null_ga_run(void *context, int which) {
  null_context *c = context;
  ck_ga_report report;
  return ck_ga_run(NULL_AT(0, c->ga), NULL_AT(1, &report));
}

static ck_status null_ga_get_best(void *context, int which) {
  null_context *c = context;
  double value = 0;
  return ck_ga_get_best(NULL_AT(0, c->ga), &value, NULL);
}

static ck_status null_ga_get_history(void *context, int which) {
  null_context *c = context;
  size_t count = 0;
  return ck_ga_get_history(NULL_AT(0, c->ga), NULL, NULL, NULL, NULL,
                           NULL_AT(1, &count));
}

static ck_status null_ga_get_history_stride(void *context, int which) {
  null_context *c = context;
  uint64_t stride = 0;
  return ck_ga_get_history_stride(NULL_AT(0, c->ga), NULL_AT(1, &stride));
}

/* ck_ga_config_read: the command's settings and messages, and the
 * options of a run refused (config then unchanged). */
static void config_read(void) {
  ck_ga_config c, defaults;
  ck_ga_config_init(&defaults);
  const ck_param params[] = {{"islands", "4"},
                             {"island-size", "10"},
                             {"crossover", "sbx:3"},
                             {"migrate-every", "5"}};
  CHECK_OK(ck_ga_config_read(params, 4, &c));
  CHECK(c.islands == 4 && c.island_size == 10 && c.crossover == CK_GA_SBX &&
        c.crossover_parameter == 3 && c.migrate_every == 5 &&
        c.elite == defaults.elite && c.seed == 1 && c.hi == NULL);
  static const char *const runs[] = {"gens", "target", "trace-islands", "hi",
                                     "out"};
  for (size_t i = 0; i < sizeof runs / sizeof *runs; ++i) {
    const ck_param run[] = {{runs[i], "1"}};
    char mention[64];
    snprintf(mention, sizeof mention, "option --%s belongs to a run", runs[i]);
    CHECK_INVALID(ck_ga_config_read(run, 1, &c), mention);
  }
  const ck_param parts[] = {{"migrants", "2"}, {"migrate-every", "0"}};
  CHECK_INVALID(ck_ga_config_read(parts, 2, &c), "--migrants");
  CHECK(c.islands == 4 && c.migrate_every == 5);
}

static void null_arguments(const ck_device *ref) {
  static const check_null_case cases[] = {
      {"ck_ga_config_init", {"config"}, null_ga_config_init},
      {"ck_ga_create", {"device", "config", "ga"}, null_ga_create},
      {"ck_ga_create_spread",
       {"spread", "config", "ga"},
       null_ga_create_spread},
      {"ck_ga_step", {"ga"}, null_ga_step},
      {"ck_ga_run", {"ga", "report"}, null_ga_run},
      {"ck_ga_get_best", {"ga"}, null_ga_get_best},
      {"ck_ga_get_history", {"ga", "count"}, null_ga_get_history},
      {"ck_ga_get_history_stride",
       {"ga", "stride"},
       null_ga_get_history_stride},
  };
  null_context c = {.device = ref};
  ck_ga_config_init(&c.config);
  c.config.dim = 2;
  c.config.islands = 2;
  c.config.island_size = 16;
  CHECK_OK(ck_ga_create(ref, &c.config, &c.ga));
  if (c.ga)
    check_null_arguments(cases, sizeof cases / sizeof cases[0], &c);
  ck_ga_destroy(c.ga);
}

/* ---- a GA spread over devices ------------------------------------------- */

/* What a GA ends with: its best, genes and history (best and mean), and
 * a spread run's bytes sent by its members. */
/* Genes of the fused objective's islands in global memory: past
 * CK__GA_RESIDENT_MAX_DIM. */
#define FUSED_WIDE_DIM (CK__GA_RESIDENT_MAX_DIM + 2)

typedef struct ga_end {
  double best, position[FUSED_WIDE_DIM];
  double *history[2];
  size_t count;
  uint64_t sent;
} ga_end;

/* Steps a GA through `generations` in two calls and takes its end; the
 * GA is destroyed. */
static int ga_end_take(ck_ga *ga, uint64_t generations, ga_end *end) {
  const double *history[2];
  memset(end, 0, sizeof *end);
  if (!ga)
    return 0;
  CHECK_OK(ck_ga_step(ga, 7));
  CHECK_OK(ck_ga_step(ga, generations - 7));
  CHECK_OK(ck_ga_get_best(ga, &end->best, end->position));
  CHECK_OK(
      ck_ga_get_history(ga, &history[0], &history[1], NULL, NULL, &end->count));
  for (int p = 0; p < 2; ++p) {
    end->history[p] = malloc(end->count * sizeof(double));
    if (end->history[p])
      memcpy(end->history[p], history[p], end->count * sizeof(double));
  }
  const ck__spread_run *run = ck__ga_spread_run(ga);
  for (size_t i = 0; run && i < run->local; ++i)
    end->sent += run->bytes_sent[i] + ck__exchange_sent(run->exchange, i);
  ck_ga_destroy(ga);
  return end->history[0] && end->history[1];
}

static void ga_end_free(ga_end *end) {
  free(end->history[0]);
  free(end->history[1]);
}

/* Whether two ends are the same bits: best, genes, best history, and the
 * mean history where `means` (island means come from a halving tree on
 * OpenCL devices, and from a loop on ref). */
static int ga_ends_same(const ga_end *a, const ga_end *b, int means) {
  return a->best == b->best &&
         memcmp(a->position, b->position, sizeof a->position) == 0 &&
         a->count == b->count &&
         memcmp(a->history[0], b->history[0], a->count * sizeof(double)) == 0 &&
         (!means ||
          memcmp(a->history[1], b->history[1], a->count * sizeof(double)) == 0);
}

/* A user objective without data is evaluated where the child is made
 * (CK_GA_FUSE_USER); with data (here a row it ignores) by
 * ck_evaluate_user after the generation. The two bodies are the same, so
 * both runs give the same bits: best, genes and every generation's best
 * and mean, migrating on a ring and on random cycles, in single and
 * double precision. Islands of 4 genes stay in local memory (the
 * resident kernel); of FUSED_WIDE_DIM, past CK__GA_RESIDENT_MAX_DIM, in
 * global memory: each precision takes both forms (on CUDA, ga.cu's
 * shared memory holds single precision's at both sizes). */
static void fused_user_objective(const ck_device *device) {
  static const char plain[] = TEST_USER_PLAIN;
  static const char ignoring[] = TEST_USER_IGNORING;
  double a[FUSED_WIDE_DIM], b[1] = {0};
  double lo[FUSED_WIDE_DIM], hi[FUSED_WIDE_DIM];
  for (int d = 0; d < FUSED_WIDE_DIM; ++d) {
    a[d] = d + 1;
    lo[d] = -3;
    hi[d] = 3;
  }
  for (int run = 0; run < 4; ++run) {
    int random = run & 1, fp64 = run >> 1;
    int dim = random == fp64 ? 4 : FUSED_WIDE_DIM;
    if (fp64 && !device->has_fp64)
      continue;
    ck_lsq_data row = {1, (size_t)dim, a, b};
    ga_end ends[2];
    memset(ends, 0, sizeof ends);
    int fused[2] = {-1, -1}, resident = -1, native = 0, taken = 0;
    for (int k = 0; k < 2; ++k) {
      ck_ga_config c;
      islands_config(&c, NULL, dim, 6, 24, 30);
      c.objective_source = k ? ignoring : plain;
      c.objective_name = k ? "ignoring.cl" : "plain.cl";
      c.data = k ? &row : NULL;
      c.lo = lo;
      c.hi = hi;
      c.seed = 13;
      c.migrate_every = 4;
      c.topology = random ? CK_GA_RANDOM : CK_GA_RING;
      c.double_precision = fp64;
      ck_ga *ga = create(device, &c);
      if (ga)
        fused[k] = ck__ga_state(ga)->fused_user;
      /* ga.cu's islands are resident at any dim it takes. */
      if (ga && k == 0) {
        resident = ck__ga_state(ga)->fused_migration;
        native = ck__ga_state(ga)->native_evolve_kernel != NULL;
      }
      taken += ga_end_take(ga, 30, &ends[k]);
    }
    CHECK_MSG(fused[0] == 1 && fused[1] == 0, "%s run %d: fused %d and %d",
              device->id, run, fused[0], fused[1]);
    CHECK_MSG(resident == (dim == 4 || native),
              "%s run %d (dim %d): resident %d, native %d", device->id, run,
              dim, resident, native);
    if (taken == 2)
      CHECK_MSG(ga_ends_same(&ends[0], &ends[1], 1),
                "%s random %d fp64 %d: best %.9g fused, %.9g apart", device->id,
                random, fp64, ends[0].best, ends[1].best);
    ga_end_free(&ends[0]);
    ga_end_free(&ends[1]);
  }
}

/* The spread checks' GA: sphere in 6 dimensions on 7 islands of 16, 30
 * generations migrating every other, with the seed. */
static void spread_config(ck_ga_config *c, uint64_t seed) {
  islands_config(c, "sphere", 6, 7, 16, 30);
  c->migrate_every = 2;
  c->seed = seed;
}

static ck_ga *spread_ga(const ck_spread *spread, const ck_ga_config *config) {
  ck_ga *ga = NULL;
  CHECK_OK(ck_ga_create_spread(spread, config, &ga));
  return ga;
}

/*
 * One member is the one-device GA, bit for bit; so are ref and another
 * device with hand-set shares on sphere (which ref and the OpenCL test
 * device evaluate alike), on a ring and on random cycles, migrating every
 * other generation across both members' boundaries (ref holds islands 0
 * and 1, the other device 2 to 6), each member on a thread of its own and
 * all in turn on one (CLKIT_SPREAD_THREADS=0). Without migrations the run
 * ends elsewhere, so the migrations count. Too few islands are refused.
 */
static void spread_islands(const ck_device *ref, const ck_device *other) {
  printf("spread islands%s%s\n", other ? " with " : "", other ? other->id : "");
  ck_ga_config c;
  spread_config(&c, 13);
  ga_end alone, spread, still;
  ck_spread one = {.devices = ref, .device_count = 1};
  if (ga_end_take(create(ref, &c), 30, &alone) &&
      ga_end_take(spread_ga(&one, &c), 30, &spread))
    CHECK_MSG(ga_ends_same(&alone, &spread, 1), "one member: %.9g, alone %.9g",
              spread.best, alone.best);
  ga_end_free(&spread);
  ck_ga_config unmigrated = c;
  unmigrated.migrate_every = 0;
  if (ga_end_take(create(ref, &unmigrated), 30, &still))
    CHECK(still.best != alone.best);
  ga_end_free(&still);
  ga_end_free(&alone);
  if (other) {
    ck_device pair[2] = {*ref, *other};
    const double shares[2] = {1, 3};
    ck_spread two = {
        .devices = pair, .device_count = 2, .shares = shares, .share_count = 2};
    for (int topology = CK_GA_RING; topology <= CK_GA_RANDOM; ++topology) {
      c.topology = (ck_ga_topology)topology;
      if (ga_end_take(create(ref, &c), 30, &alone) &&
          ga_end_take(spread_ga(&two, &c), 30, &spread))
        CHECK_MSG(ga_ends_same(&alone, &spread, 0),
                  "ref and %s, topology %d: %.9g, ref alone %.9g", other->id,
                  topology, spread.best, alone.best);
      /* The members fold their islands' means, each on its own: the
       * run's mean is one device's to rounding. */
      for (size_t g = 0; g < alone.count && g < spread.count; ++g)
        CHECK_MSG(fabs(spread.history[1][g] - alone.history[1][g]) <=
                      1e-5 * fabs(alone.history[1][g]),
                  "mean of generation %zu: %.9g, ref alone %.9g", g,
                  spread.history[1][g], alone.history[1][g]);
      /* Members in turn on the calling thread end alike. */
      setenv("CLKIT_SPREAD_THREADS", "0", 1);
      if (ga_end_take(spread_ga(&two, &c), 30, &still))
        CHECK_MSG(ga_ends_same(&alone, &still, 0),
                  "ref and %s in turn, topology %d: %.9g, ref alone %.9g",
                  other->id, topology, still.best, alone.best);
      unsetenv("CLKIT_SPREAD_THREADS");
      ga_end_free(&still);
      ga_end_free(&alone);
      ga_end_free(&spread);
    }
    /* The workload's result names each member's islands. */
    const ck_workload *workload = NULL;
    CHECK_OK(ck_workload_find("ga", &workload));
    const ck_param params[] = {{"fn", "sphere"},
                               {"dim", "6"},
                               {"islands", "7"},
                               {"island-size", "16"},
                               {"gens", "10"}};
    ck_run_options options = {.seed = 3, .spread = &two};
    ck_result result;
    ck_status run_status =
        ck_workload_run(workload, ref, params, 5, &options, &result);
    CHECK_OK(run_status);
    if (run_status == CK_OK) {
      CHECK_MSG(result.member_count == 2 && result.members &&
                    result.members[0].units == 2 &&
                    result.members[1].units == 5 &&
                    strcmp(result.members[1].device, other->id) == 0 &&
                    strcmp(result.member_units, "islands") == 0,
                "members %zu", result.member_count);
      ck_result_release(&result);
    }
  }
  /* Fewer islands than members are refused (the checks of the spread
   * itself are test_pso's). */
  if (other) {
    ck_ga *ga = NULL;
    ck_device pair[2] = {*ref, *other};
    ck_spread two = {.devices = pair, .device_count = 2};
    c.islands = 1;
    CHECK_INVALID(ck_ga_create_spread(&two, &c, &ga),
                  "1 islands cannot be dealt to 2 devices");
    CHECK(ga == NULL);
  }
}

/*
 * Migrants that cross between members either through host memory and the
 * exchange or by ck__peer_copy into the incoming slots (on ref through
 * the runtime's switch for tests, as CUDA members do): the two runs agree
 * bit for bit, means included, and are the one-device run's (best, genes,
 * bests). On a ring and on random cycles, over two members (2 and 5
 * islands) and three (1, 2 and 4), 30 generations migrating every other,
 * all on ref (a device given again holds another member).
 * A ring sends as many bytes either way. Random cycles cross through
 * the host even where the copies are open.
 */
static void spread_copies(const ck_device *ref) {
  printf("spread islands device to device\n");
  ck_device members[3] = {*ref, *ref, *ref};
  static const double shares[2][3] = {{2, 5}, {1, 2, 4}};
  ck_ga_config c;
  spread_config(&c, 29);
  for (int topology = CK_GA_RING; topology <= CK_GA_RANDOM; ++topology) {
    c.topology = (ck_ga_topology)topology;
    ga_end alone, ends[2];
    if (!ga_end_take(create(ref, &c), 30, &alone))
      continue;
    for (size_t count = 2; count <= 3; ++count) {
      ck_spread spread = {.devices = members,
                          .device_count = count,
                          .shares = shares[count - 2],
                          .share_count = count};
      int taken = 0;
      memset(ends, 0, sizeof ends);
      for (int copies = 0; copies < 2; ++copies) {
        CHECK_OK(ck__test_control(CK__TEST_PEER_REF, copies));
        ck_ga *ga = spread_ga(&spread, &c);
        CHECK_OK(ck__test_control(CK__TEST_PEER_REF, 0));
        if (!ga)
          break;
        /* Random cycles cross through the host. */
        CHECK_MSG(ck__ga_spread_on_devices(ga) ==
                      (copies && topology == CK_GA_RING),
                  "topology %d, %zu members: copies %d, on devices %d",
                  topology, count, copies, ck__ga_spread_on_devices(ga));
        taken += ga_end_take(ga, 30, &ends[copies]);
      }
      if (taken == 2) {
        CHECK_MSG(ga_ends_same(&ends[0], &ends[1], 1),
                  "topology %d, %zu members: %.9g through the host, %.9g "
                  "device to device",
                  topology, count, ends[0].best, ends[1].best);
        CHECK_MSG(ga_ends_same(&alone, &ends[1], 0),
                  "topology %d, %zu members: %.9g device to device, %.9g "
                  "alone",
                  topology, count, ends[1].best, alone.best);
        CHECK_MSG(ends[1].sent == ends[0].sent && ends[1].sent > 0,
                  "topology %d, %zu members: %llu bytes sent device to "
                  "device, %llu through the host",
                  topology, count, (unsigned long long)ends[1].sent,
                  (unsigned long long)ends[0].sent);
      }
      ga_end_free(&ends[0]);
      ga_end_free(&ends[1]);
    }
    ga_end_free(&alone);
  }
}

/*
 * A device given twice holds two members, each with a queue and memory
 * of its own: on a ring with hand-set shares (2 and 5 islands) and on
 * random cycles dealt by the probe's speeds, 30 generations migrating
 * every other, the run is the one-device run's (best, genes, bests; the
 * means to rounding), and the run over device and sibling (another
 * device that computes alike; NULL: none) bit for bit, means included
 * where both deal the islands alike (by the shares).
 */
static void spread_shared(const ck_device *device, const ck_device *sibling) {
  printf("spread islands twice on %s%s%s\n", device->id,
         sibling ? ", and with " : "", sibling ? sibling->id : "");
  static const double shares[2] = {2, 5};
  ck_device twice[2] = {*device, *device};
  ck_device pair[2] = {*device, sibling ? *sibling : *device};
  ck_ga_config c;
  spread_config(&c, 17);
  for (int topology = CK_GA_RING; topology <= CK_GA_RANDOM; ++topology) {
    c.topology = (ck_ga_topology)topology;
    int dealt = topology == CK_GA_RING;
    ck_spread shared = {.devices = twice,
                        .device_count = 2,
                        .shares = dealt ? shares : NULL,
                        .share_count = dealt ? 2 : 0};
    ck_spread apart = shared;
    apart.devices = pair;
    ga_end alone, one, two;
    memset(&two, 0, sizeof two);
    if (!ga_end_take(create(device, &c), 30, &alone))
      continue;
    if (ga_end_take(spread_ga(&shared, &c), 30, &one)) {
      CHECK_MSG(ga_ends_same(&alone, &one, 0),
                "%s twice, topology %d: %.9g, alone %.9g", device->id, topology,
                one.best, alone.best);
      CHECK(one.sent > 0);
      for (size_t g = 0; g < alone.count && g < one.count; ++g)
        CHECK_MSG(fabs(one.history[1][g] - alone.history[1][g]) <=
                      1e-5 * fabs(alone.history[1][g]),
                  "%s twice, mean of generation %zu: %.9g, alone %.9g",
                  device->id, g, one.history[1][g], alone.history[1][g]);
      if (sibling && ga_end_take(spread_ga(&apart, &c), 30, &two))
        CHECK_MSG(ga_ends_same(&one, &two, dealt),
                  "topology %d: %.9g on %s twice, %.9g with %s", topology,
                  one.best, device->id, two.best, sibling->id);
    }
    ga_end_free(&alone);
    ga_end_free(&one);
    ga_end_free(&two);
  }
}

/* ---- host objectives ---------------------------------------------------- */

static const double host_lo[4] = {-5.12, -5.12, -5.12, -5.12};
static const double host_hi[4] = {5.12, 5.12, 5.12, 5.12};

/* Sphere in 4 dimensions and double precision on 3 islands of 8, with
 * random migrations every 4 generations, evaluated by test_host_sphere. */
static void host_config(ck_ga_config *c, test_host_seen *seen) {
  ck_ga_config_init(c);
  c->function = NULL;
  c->evaluate = test_host_sphere;
  c->evaluate_user = seen;
  c->dim = 4;
  c->islands = 3;
  c->island_size = 8;
  c->migrate_every = 4;
  c->migrants = 2;
  c->topology = CK_GA_RANDOM;
  c->lo = host_lo;
  c->hi = host_hi;
  c->double_precision = 1;
  c->max_generations = 20;
  c->seed = 5;
}

static double ga_best(const ck_device *device, const ck_ga_config *c,
                      double *position) {
  ck_ga *ga = NULL;
  ck_ga_report report;
  double best = NAN;
  CHECK_OK(ck_ga_create(device, c, &ga));
  if (ga) {
    CHECK_OK(ck_ga_run(ga, &report));
    CHECK_OK(ck_ga_get_best(ga, &best, position));
  }
  ck_ga_destroy(ga);
  return best;
}

/* A callback computing sphere gives the built-in sphere's GA in double
 * precision: bit for bit on ref, within 1e-12 on OpenCL devices, which
 * may fuse the built-in's multiply-adds. */
static void host_objective(const ck_device *device) {
  if (!device->has_fp64)
    return;
  test_host_seen seen = {0};
  ck_ga_config c;
  host_config(&c, &seen);
  double host_x[4], builtin_x[4];
  double host = ga_best(device, &c, host_x);
  CHECK_MSG(seen.calls == 21 && seen.count == 24 && seen.dim == 4,
            "%s: %llu calls of %zu x %zu", device->id,
            (unsigned long long)seen.calls, seen.count, seen.dim);
  c.evaluate = NULL;
  c.function = "sphere";
  double builtin = ga_best(device, &c, builtin_x);
  if (device->backend == CK_BACKEND_REF)
    CHECK_MSG(host == builtin && memcmp(host_x, builtin_x, sizeof host_x) == 0,
              "ref: host %.17g, built-in %.17g", host, builtin);
  else
    CHECK_MSG(fabs(host - builtin) <= 1e-12 * fabs(builtin),
              "%s: host %.17g, built-in %.17g", device->id, host, builtin);
}

/* An ask/tell loop gives the callback's GA, bit for bit, history too. */
static void host_ask_tell(const ck_device *device) {
  if (!device->has_fp64)
    return;
  ck_ga_config c;
  host_config(&c, NULL);
  ck_ga *ga = NULL;
  double best = NAN, position[4];
  const double *history = NULL;
  size_t count = 0;
  CHECK_OK(ck_ga_create(device, &c, &ga));
  if (ga) {
    CHECK_OK(ck_ga_step(ga, 20));
    CHECK_OK(ck_ga_get_best(ga, &best, position));
    CHECK_OK(ck_ga_get_history(ga, &history, NULL, NULL, NULL, &count));
  }
  double expected[21] = {0};
  CHECK(count == 21);
  if (count == 21)
    memcpy(expected, history, sizeof expected);
  ck_ga_destroy(ga);
  ga = NULL;
  c.evaluate = NULL;
  c.ask_tell = 1;
  CHECK_OK(ck_ga_create(device, &c, &ga));
  double x[24 * 4], again[24 * 4], f[24];
  for (int told = 0; ga && told <= 20; ++told) {
    CHECK_OK(ck_ga_ask(ga, x));
    CHECK_OK(ck_ga_ask(ga, again));
    CHECK(memcmp(x, again, sizeof x) == 0);
    test_host_sphere(x, 24, 4, f, NULL);
    CHECK_OK(ck_ga_tell(ga, f));
  }
  if (ga) {
    double told_best = NAN, told_position[4];
    CHECK_OK(ck_ga_get_best(ga, &told_best, told_position));
    CHECK_MSG(told_best == best &&
                  memcmp(position, told_position, sizeof position) == 0,
              "%s: ask/tell %.17g, callback %.17g", device->id, told_best,
              best);
    CHECK_OK(ck_ga_get_history(ga, &history, NULL, NULL, NULL, &count));
    CHECK(count == 21 && memcmp(history, expected, sizeof expected) == 0);
  }
  ck_ga_destroy(ga);
}

/* Off CUDA devices a device objective takes a host copy of the
 * population (page-locked on OpenCL): run, and through ask/tell, its GA
 * is the host callback's bit for bit. */
static void device_objective_on_host(const ck_device *device) {
  if (!device->has_fp64 || device->backend == CK_BACKEND_CUDA)
    return;
  ck_ga_config c;
  host_config(&c, NULL);
  double best[3] = {NAN, NAN, NAN}, position[3][4];
  test_batch_values values = {0};
  for (int way = 0; way < 3; ++way) {
    ck_ga *ga = NULL;
    c.evaluate = way == 0 ? test_host_sphere : NULL;
    c.evaluate_device = way == 1 ? test_batch_sphere : NULL;
    c.evaluate_user = way == 1 ? &values : NULL;
    c.ask_tell = way == 2;
    CHECK_OK(ck_ga_create(device, &c, &ga));
    if (!ga)
      return;
    if (way < 2)
      CHECK_OK(ck_ga_step(ga, 20));
    for (int told = 0; way == 2 && told <= 20; ++told) {
      ck_device_batch batch;
      CHECK_OK(ck_ga_ask_device(ga, &batch));
      CHECK_OK(test_batch_sphere(&batch, &values));
      CHECK_OK(ck_ga_tell_device(ga, &batch));
    }
    CHECK_OK(ck_ga_get_best(ga, &best[way], position[way]));
    ck_ga_destroy(ga);
  }
  for (int way = 1; way < 3; ++way)
    CHECK_MSG(best[way] == best[0] &&
                  memcmp(position[way], position[0], sizeof position[0]) == 0,
              "%s: device objective way %d %.17g, host callback %.17g",
              device->id, way, best[way], best[0]);
  CHECK(values.calls == 42);
}

/* The arrays of a ck_ga_state of 3 islands of 8 in 4 dimensions
 * (host_config's). */
typedef struct ga_state_arrays {
  double population[96], fitness[24], island_best[3], island_best_genes[12];
  double best_genes[4];
} ga_state_arrays;

static ck_ga_state ga_state_over(ga_state_arrays *arrays) {
  return (ck_ga_state){.population = arrays->population,
                       .fitness = arrays->fitness,
                       .island_best = arrays->island_best,
                       .island_best_genes = arrays->island_best_genes,
                       .best_genes = arrays->best_genes};
}

/* Asks and tells `tells` times, each ask into asked (tells x 96 values)
 * where given: test_host_sphere's values, or with `first_gene` each
 * individual's first gene, which another GA is told to make it differ. */
static void tell_generations(ck_ga *ga, int tells, double *asked,
                             int first_gene) {
  double x[96], f[24];
  for (int i = 0; i < tells; ++i) {
    CHECK_OK(ck_ga_ask(ga, x));
    if (asked)
      memcpy(asked + 96 * i, x, sizeof x);
    test_host_sphere(x, 24, 4, f, NULL);
    for (int k = 0; first_gene && k < 24; ++k)
      f[k] = x[4 * k];
    CHECK_OK(ck_ga_tell(ga, f));
  }
}

/* Whether two GAs hold the same state, bit for bit. */
static int same_ga_state(ck_ga *a, ck_ga *b) {
  ga_state_arrays arrays[2];
  ck_ga_state states[2] = {ga_state_over(&arrays[0]),
                           ga_state_over(&arrays[1])};
  CHECK_OK(ck_ga_get_state(a, &states[0]));
  CHECK_OK(ck_ga_get_state(b, &states[1]));
  return memcmp(&arrays[0], &arrays[1], sizeof arrays[0]) == 0 &&
         memcmp(&states[0].best_value, &states[1].best_value,
                sizeof states[0].best_value) == 0 &&
         states[0].tells == states[1].tells &&
         states[0].migrations == states[1].migrations &&
         states[0].seed == states[1].seed;
}

/* A state read after six tells (past the migration after generation 4)
 * and set on a new GA that was told other values gives that GA the asks
 * and bests of the first, bit for bit, across two more migrations: with
 * random cycles in double precision, and round a ring in single. The
 * initial state has no tells, no migrations and no bests, and sends a GA
 * back to its start. */
static void ask_tell_state(const ck_device *device) {
  for (int variant = 0; variant < 2; ++variant) {
    ck_ga_config c;
    host_config(&c, NULL);
    c.evaluate = NULL;
    c.ask_tell = 1;
    c.double_precision = variant == 0 && device->has_fp64;
    c.topology = variant == 0 ? CK_GA_RANDOM : CK_GA_RING;
    ck_ga *first = create(device, &c), *second = create(device, &c);
    if (!first || !second) {
      ck_ga_destroy(first);
      ck_ga_destroy(second);
      return;
    }
    ga_state_arrays initial, arrays;
    ck_ga_state start = ga_state_over(&initial);
    CHECK_OK(ck_ga_get_state(second, &start));
    double largest = c.double_precision ? DBL_MAX : FLT_MAX;
    CHECK(start.tells == 0 && start.migrations == 0 && start.seed == 5);
    CHECK(start.best_value == largest && initial.island_best[2] == largest &&
          initial.fitness[23] == largest && initial.best_genes[3] == 0 &&
          initial.island_best_genes[11] == 0);
    tell_generations(first, 6, NULL, 0);
    ck_ga_state state = ga_state_over(&arrays);
    CHECK_OK(ck_ga_get_state(first, &state));
    double least = fmin(fmin(arrays.island_best[0], arrays.island_best[1]),
                        arrays.island_best[2]);
    CHECK_MSG(state.tells == 6 && state.migrations == 1 &&
                  state.best_value < 20 && state.best_value == least,
              "%s variant %d: %llu tells, %llu migrations, best %g", device->id,
              variant, (unsigned long long)state.tells,
              (unsigned long long)state.migrations, state.best_value);
    double expected[7 * 96], asked[7 * 96];
    tell_generations(first, 7, expected, 0);
    tell_generations(second, 3, NULL, 1);
    CHECK_OK(ck_ga_set_state(second, &state));
    tell_generations(second, 7, asked, 0);
    CHECK_MSG(memcmp(expected, asked, sizeof asked) == 0,
              "%s variant %d: the restored GA asks otherwise", device->id,
              variant);
    CHECK_MSG(same_ga_state(first, second),
              "%s variant %d: the restored GA's state differs", device->id,
              variant);
    ck_ga_state after = ga_state_over(&arrays);
    CHECK_OK(ck_ga_get_state(second, &after));
    CHECK(after.tells == 13 && after.migrations == 3);
    /* The initial state sends a GA back to its start. */
    CHECK_OK(ck_ga_set_state(second, &start));
    double x[96];
    CHECK_OK(ck_ga_ask(second, x));
    CHECK(memcmp(x, initial.population, sizeof x) == 0);
    ck_ga_destroy(first);
    ck_ga_destroy(second);
  }
}

/* What ck_ga_get_state and ck_ga_set_state refuse, leaving the GA as it
 * was. */
static void state_errors(const ck_device *ref) {
  ck_ga_config c;
  host_config(&c, NULL);
  ck_ga *stepped = create(ref, &c);
  c.evaluate = NULL;
  c.ask_tell = 1;
  ck_ga *ga = create(ref, &c);
  ga_state_arrays arrays;
  ck_ga_state state = ga_state_over(&arrays);
  if (stepped) {
    CHECK_INVALID(ck_ga_get_state(stepped, &state), "not made for ask/tell");
    CHECK_INVALID(ck_ga_set_state(stepped, &state), "not made for ask/tell");
  }
  ck_ga_destroy(stepped);
  if (!ga)
    return;
  CHECK_INVALID(ck_ga_get_state(NULL, &state), "ga is NULL");
  CHECK_INVALID(ck_ga_set_state(ga, NULL), "state is NULL");
  tell_generations(ga, 5, NULL, 0);
  CHECK_OK(ck_ga_get_state(ga, &state));
  double before[96], after[96];
  CHECK_OK(ck_ga_ask(ga, before));
  state.island_best = NULL;
  CHECK_INVALID(ck_ga_get_state(ga, &state), "array of the ck_ga_state");
  CHECK_INVALID(ck_ga_set_state(ga, &state), "array of the ck_ga_state");
  state.island_best = arrays.island_best;
  state.seed = 6;
  CHECK_INVALID(ck_ga_set_state(ga, &state), "seed 6 is not the GA's 5");
  state.seed = 5;
  state.tells = 1;
  /* Bests that no tells make. */
  double best = state.best_value, fitness = arrays.fitness[3],
         gene = arrays.best_genes[0];
  state.best_value = NAN;
  CHECK_INVALID(ck_ga_set_state(ga, &state), "best_value is nan");
  state.best_value = best - 1;
  CHECK_INVALID(ck_ga_set_state(ga, &state), "not the least of island_best");
  state.best_value = best;
  arrays.fitness[3] = -INFINITY;
  CHECK_INVALID(ck_ga_set_state(ga, &state), "fitness[3] is -inf");
  arrays.fitness[3] = fitness;
  arrays.best_genes[0] = gene + 1;
  CHECK_INVALID(ck_ga_set_state(ga, &state),
                "best_genes is not the row of island_best_genes");
  arrays.best_genes[0] = gene;
  state.tells = 0;
  CHECK_INVALID(ck_ga_set_state(ga, &state), "but tells is 0");
  state.tells = 1;
  arrays.population[7] = NAN;
  CHECK_INVALID(ck_ga_set_state(ga, &state), "population[7] is nan");
  arrays.population[7] = 0;
  arrays.island_best_genes[2] = INFINITY;
  CHECK_INVALID(ck_ga_set_state(ga, &state), "island_best_genes[2] is inf");
  arrays.island_best_genes[2] = 0;
  arrays.best_genes[1] = -INFINITY;
  CHECK_INVALID(ck_ga_set_state(ga, &state), "best_genes[1] is -inf");
  CHECK_OK(ck_ga_ask(ga, after));
  CHECK(memcmp(before, after, sizeof after) == 0);
  ck_ga_state unchanged = ga_state_over(&arrays);
  CHECK_OK(ck_ga_get_state(ga, &unchanged));
  CHECK(unchanged.tells == 5 && unchanged.migrations == 1);
  ck_ga_destroy(ga);
}

/* A host objective's error stops the run with its status; the refusals
 * of the contract. */
static void host_errors(const ck_device *ref) {
  test_host_seen seen = {.fail_at = 1};
  ck_ga_config c;
  host_config(&c, &seen);
  ck_ga *ga = NULL;
  const char *message = "";
  CHECK(ck_ga_create(ref, &c, &ga) == CK_ERROR_CANCELLED && ga == NULL);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "ck_ga_config.evaluate") &&
                strstr(message, "generation 0"),
            "%s", message);
  seen = (test_host_seen){.fail_at = 3};
  CHECK_OK(ck_ga_create(ref, &c, &ga));
  ck_ga_report report;
  if (ga) {
    CHECK(ck_ga_run(ga, &report) == CK_ERROR_CANCELLED);
    ck_error_get_last(&message);
    CHECK_MSG(strstr(message, "generation 2"), "%s", message);
    double x[24 * 4];
    CHECK_INVALID(ck_ga_ask(ga, x), "not made for ask/tell");
    CHECK_INVALID(ck_ga_tell(ga, x), "not made for ask/tell");
    CHECK_INVALID(ck_ga_ask(NULL, x), "ck_ga_ask: ga is NULL");
    CHECK_INVALID(ck_ga_ask(ga, NULL), "ck_ga_ask: x is NULL");
    CHECK_INVALID(ck_ga_tell(NULL, x), "ck_ga_tell: ga is NULL");
    CHECK_INVALID(ck_ga_tell(ga, NULL), "ck_ga_tell: f is NULL");
  }
  ck_ga_destroy(ga);
  ga = NULL;
  c.ask_tell = 1;
  CHECK_INVALID(ck_ga_create(ref, &c, &ga),
                "give one of evaluate, evaluate_device and ask_tell");
  c.evaluate = NULL;
  CHECK_OK(ck_ga_create(ref, &c, &ga));
  if (ga) {
    CHECK_INVALID(ck_ga_run(ga, &report), "ck_ga_run: the GA was made");
    CHECK_INVALID(ck_ga_step(ga, 1), "it evolves at ck_ga_tell");
  }
  ck_ga_destroy(ga);
  ga = NULL;
  c.function = "sphere";
  CHECK_INVALID(ck_ga_create(ref, &c, &ga), "ck_ga_config.function");
  c.function = NULL;
  c.lo = NULL;
  CHECK_INVALID(ck_ga_create(ref, &c, &ga), "host objective needs");
  c.lo = host_lo;
  ck_spread spread = {.devices = ref, .device_count = 1};
  CHECK(ck_ga_create_spread(&spread, &c, &ga) == CK_ERROR_UNSUPPORTED);
  CHECK(ga == NULL);
  /* A device objective: beside ask/tell, or spread. */
  c.ask_tell = 0;
  c.evaluate_device = never_on_device;
  c.ask_tell = 1;
  CHECK_INVALID(ck_ga_create(ref, &c, &ga), "give one of evaluate");
  c.ask_tell = 0;
  CHECK(ck_ga_create_spread(&spread, &c, &ga) == CK_ERROR_UNSUPPORTED);
  c.evaluate_device = NULL;
}

/* A workload run with the run options' host objective gives the built-in
 * sphere's GA, bit for bit on ref; --fn beside it is refused. */
static void host_workload(const ck_device *ref) {
  const ck_workload *ga = NULL;
  CHECK_OK(ck_workload_find("ga", &ga));
  ck_param params[] = {{"dim", "4"},
                       {"islands", "3"},
                       {"island-size", "8"},
                       {"gens", "20"},
                       {"lo", "-5.12"},
                       {"hi", "5.12"},
                       {"precision", "double"},
                       {"fn", "sphere"}};
  test_host_seen seen = {0};
  ck_run_options options = {.seed = 5};
  ck_result builtin, host;
  CHECK_OK(ck_workload_run(ga, ref, params, 8, &options, &builtin));
  options.objective = test_host_sphere;
  options.objective_user = &seen;
  ck_status status = ck_workload_run(ga, ref, params, 7, &options, &host);
  CHECK_OK(status);
  if (status == CK_OK) {
    CHECK_MSG(host.best == builtin.best && host.position_count == 4 &&
                  memcmp(host.position, builtin.position,
                         4 * sizeof *host.position) == 0,
              "host %.17g, built-in %.17g", host.best, builtin.best);
    CHECK(seen.calls == 21 && seen.count == 24 && seen.dim == 4);
    ck_result_release(&host);
  }
  ck_result_release(&builtin);
  CHECK_INVALID(ck_workload_run(ga, ref, params, 8, &options, &host),
                "option --fn: the run's objective is evaluated on the host");
}

int main(void) {
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  long opencl = test_opencl_device(&set);
  const ck_device *devices[2] = {ref,
                                 opencl >= 0 ? &set.devices[opencl] : NULL};
  printf("ga operators on the host\n");
  schedule_tests();
  tournament_tests();
  crossover_tests();
  mutation_tests();
  mutation_oracle_tests();
  for (int i = 0; i < 2; ++i) {
    if (!devices[i])
      continue;
    printf("ga on %s\n", devices[i]->id);
    elitism(devices[i]);
    migration(devices[i]);
    best_kept(devices[i]);
    quality(devices[i]);
    bounds(devices[i]);
    target(devices[i]);
    bounded_history(devices[i]);
    reproducibility(devices[i]);
    lsq(ref, devices[i]);
    evaluations_counted(devices[i]);
    overflow(devices[i]);
    host_objective(devices[i]);
    host_ask_tell(devices[i]);
    device_objective_on_host(devices[i]);
    ask_tell_state(devices[i]);
    if (i == 1) {
      fused_user_objective(devices[i]);
      folded_statistics(devices[i]);
      agreement(ref, devices[i]);
      generation_modes(ref, devices[i]);
    }
  }
  bad_input(ref);
  largest_elite(ref);
  null_arguments(ref);
  config_read();
  spread_islands(ref, devices[1]);
  spread_copies(ref);
  /* Another device of the same backend and name computes alike (PoCL's with
   * POCL_DEVICES="pthread pthread"). */
  const ck_device *sibling = NULL;
  for (size_t i = 0; devices[1] && i < set.count && !sibling; ++i)
    if ((long)i != opencl && set.devices[i].backend == devices[1]->backend &&
        strcmp(set.devices[i].name, devices[1]->name) == 0)
      sibling = &set.devices[i];
  if (devices[1])
    spread_shared(devices[1], sibling);
  host_errors(ref);
  state_errors(ref);
  host_workload(ref);
  ck_device_set_free(&set);
  return CHECK_DONE();
}
