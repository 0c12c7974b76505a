/*
 * pso_spread.c - one swarm over several devices (and processes): each
 * member moves a slice of the particles, and after every iteration the
 * members agree on the global best, which the member that holds it sends
 * to all.
 *
 * The result is the one-device swarm's, bit for bit, on devices that
 * compute alike: a particle draws from its own random stream wherever it
 * lives (its index in the whole swarm), and the global best is the least
 * personal best, ties going to the lowest index, as one device finds it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "pso/pso_internal.h"

struct ck__pso_spread {
  ck__spread_run run;
  ck_pso **members; /* local ones */
  int dim;
  int double_precision;
  double best; /* the global best value, and where it is */
  uint64_t best_index;
  double *position;     /* dim: the global best position */
  double kernel_before; /* members' kernel time at their creation */
  int has_target;       /* once the best meets it, moves stop, as the */
  double target;        /* kernels of a swarm alone stop on the device */
};

/* The global best after every member updated its own: the least of the
 * members' bests, read from each; the holder's position then goes to all,
 * and to the members that do not hold it. */
static ck_status agree_on_best(ck__pso_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  double values[CK_SPREAD_MAX_LOCAL];
  uint64_t indices[CK_SPREAD_MAX_LOCAL];
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    pso_state *state = ck__pso_state(spread->members[i]);
    double started = ck__seconds();
    uint32_t index = 0;
    statuses[i] = ck__reals_read(state->queue, state->best_value,
                                 state->double_precision, &values[i], 1);
    if (statuses[i] == CK_OK)
      statuses[i] = ck_buffer_read(state->queue, state->best_index, 0,
                                   sizeof index, &index, CK_BLOCKING, NULL);
    run->compute_s[i] += ck__seconds() - started;
    /* A member that found nothing better offers the best it was given. */
    if (statuses[i] == CK_OK && values[i] < spread->best)
      indices[i] = run->first[i] + index;
    else {
      values[i] = spread->best;
      indices[i] = spread->best_index;
    }
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  double best = 0;
  uint64_t index = 0;
  size_t holder = 0;
  CK_TRY(
      ck__exchange_min(run->exchange, values, indices, &best, &index, &holder));
  if (!(best < spread->best))
    return CK_OK;
  spread->best = best;
  spread->best_index = index;
  size_t first = ck__exchange_first(run->exchange);
  int held = holder >= first && holder < first + run->local;
  if (held) {
    pso_state *state = ck__pso_state(spread->members[holder - first]);
    status = ck__reals_read(state->queue, state->gbest, state->double_precision,
                            spread->position, (size_t)spread->dim);
  }
  ck_status agreed[CK_SPREAD_MAX_LOCAL] = {0};
  if (held)
    agreed[holder - first] = status;
  CK_TRY(ck__exchange_agree(run->exchange, agreed));
  CK_TRY(ck__exchange_broadcast(run->exchange, holder, spread->position,
                                (size_t)spread->dim * sizeof(double)));
  for (size_t i = 0; i < run->local; ++i) {
    if (first + i == holder)
      continue;
    pso_state *state = ck__pso_state(spread->members[i]);
    statuses[i] =
        ck__reals_write(state->queue, state->gbest, state->double_precision,
                        spread->position, (size_t)spread->dim);
    if (statuses[i] == CK_OK)
      statuses[i] = ck__reals_write(state->queue, state->best_value,
                                    state->double_precision, &best, 1);
  }
  if (held)
    statuses[holder - first] = CK_OK;
  return ck__exchange_agree(run->exchange, statuses);
fail:
  return status;
}

/* Particles a slice holds a multiple of (but the last). */
#define SLICE_GRANULE 32

/* A probe's batches of iterations hold at most this many. */
#define PROBE_ITERATIONS 64

/* A probe's swarm, and the iterations it has made. */
typedef struct probe_swarm {
  ck_pso *pso;
  uint64_t done;
} probe_swarm;

static ck_status probe_step(void *context, uint64_t count) {
  probe_swarm *swarm = context;
  ck_status status = CK_OK;
  for (uint64_t k = 0; k < count && status == CK_OK; ++k)
    status = ck__pso_slice_iterate(swarm->pso, ++swarm->done);
  return status ? status : ck_queue_finish(ck__pso_state(swarm->pso)->queue);
}

/* Each device's particle-iterations a second, on a swarm of its equal
 * share: the speeds the particles are dealt by. */
static ck_status probe(ck__pso_spread *spread, const ck_spread *given,
                       const ck_pso_config *config, double *speeds) {
  ck__spread_run *run = &spread->run;
  size_t members = ck__exchange_members(run->exchange);
  ck_pso_config trial = *config;
  trial.particles = config->particles / members;
  if (trial.particles < 1)
    trial.particles = 1;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    probe_swarm swarm = {NULL, 0};
    double per_second = 0;
    statuses[i] = ck__pso_create_slice(&given->devices[i], &trial, 0,
                                       config->particles, &swarm.pso);
    if (statuses[i] == CK_OK)
      statuses[i] =
          ck__spread_time(probe_step, &swarm, PROBE_ITERATIONS, &per_second);
    speeds[i] = per_second * (double)trial.particles;
    ck_pso_destroy(swarm.pso);
  }
  return ck__exchange_agree(run->exchange, statuses);
}

ck_status ck__pso_spread_create(const ck_spread *given,
                                const ck_pso_config *config,
                                ck__history *history, ck__pso_spread **made) {
  ck_status status = CK_OK;
  ck__pso_spread *spread = calloc(1, sizeof *spread);
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin(given, "particles", &spread->run));
  ck__spread_run *run = &spread->run;
  spread->has_target = config->has_target;
  spread->best = INFINITY;
  spread->best_index = UINT64_MAX;
  spread->members = calloc(run->local, sizeof *spread->members);
  if (!spread->members)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  double speeds[CK_SPREAD_MAX_LOCAL];
  int measure = !given->shares && ck__exchange_members(run->exchange) > 1;
  if (measure)
    CK_TRY(probe(spread, given, config, speeds));
  /* Slices in whole warps of particles, so that each member's rows of
   * x, v and pbest (d * n + p) start aligned as a swarm's alone do: an
   * odd slice made an H200's moves half as slow again. */
  CK_TRY(ck__spread_deal(run, given, config->particles, SLICE_GRANULE,
                         measure ? speeds : NULL));
  /* The target is the driver's to watch, over the whole swarm. */
  ck_pso_config slice = *config;
  slice.has_target = 0;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    slice.particles = run->units[i];
    double started = ck__seconds();
    statuses[i] = ck__pso_slice_allocate(
        &given->devices[i], &slice, (uint32_t)run->first[i], config->particles,
        &spread->members[i]);
    if (statuses[i] == CK_OK)
      run->queues[i] = ck__pso_state(spread->members[i])->queue;
    run->compute_s[i] += ck__seconds() - started;
  }
  /* A swarm too large for its device is known before any member builds
   * its kernels and makes its swarm, which can take many seconds. */
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = ck__pso_slice_set_up(spread->members[i]);
    run->compute_s[i] += ck__seconds() - started;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  pso_state *state = ck__pso_state(spread->members[0]);
  spread->dim = state->dim;
  spread->double_precision = state->double_precision;
  /* In the swarm's precision, as its kernels compare. */
  spread->target =
      spread->double_precision ? config->target : (double)(float)config->target;
  spread->position = calloc((size_t)spread->dim, sizeof *spread->position);
  if (!spread->position)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  spread->kernel_before = ck__pso_spread_kernel_seconds(spread);
  /* The initial swarm's best, as one device records it at creation. */
  CK_TRY(agree_on_best(spread));
  CK_TRY(ck__history_push_rows(history, &spread->best, 1));
  *made = spread;
  return CK_OK;
fail:
  ck__pso_spread_destroy(spread);
  return status;
}

ck_status ck__pso_spread_step(ck__pso_spread *spread, uint64_t iteration,
                              uint64_t count, ck__history *history) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  for (uint64_t k = 0; k < count; ++k, ++iteration) {
    ck_status statuses[CK_SPREAD_MAX_LOCAL];
    /* The target met: the best stays, recorded again as one device's
     * finished launches record it. Every process sees the same best. */
    if (spread->has_target && spread->best <= spread->target) {
      CK_TRY(ck__history_push_rows(history, &spread->best, 1));
      continue;
    }
    /* Every member's work is queued before any is waited for. */
    for (size_t i = 0; i < run->local; ++i) {
      double started = ck__seconds();
      statuses[i] = ck__pso_slice_iterate(spread->members[i], iteration);
      run->compute_s[i] += ck__seconds() - started;
    }
    CK_TRY(ck__exchange_agree(run->exchange, statuses));
    CK_TRY(agree_on_best(spread));
    CK_TRY(ck__history_push_rows(history, &spread->best, 1));
  }
fail:
  return status;
}

ck__spread_run *ck__pso_spread_run(ck__pso_spread *spread) {
  return &spread->run;
}

ck_status ck__pso_spread_best(ck__pso_spread *spread, double *value,
                              double *position) {
  if (value)
    *value = spread->best;
  if (position)
    memcpy(position, spread->position, (size_t)spread->dim * sizeof *position);
  return CK_OK;
}

double ck__pso_spread_kernel_seconds(ck__pso_spread *spread) {
  return ck__spread_kernel_seconds(&spread->run);
}

ck_status ck__pso_spread_report(ck__pso_spread *spread, ck_result *result) {
  return ck__spread_report_queues(&spread->run, result);
}

int ck__pso_spread_rank(const ck__pso_spread *spread) {
  return spread ? ck__exchange_rank(spread->run.exchange) : 0;
}

void ck__pso_spread_destroy(ck__pso_spread *spread) {
  if (!spread)
    return;
  for (size_t i = 0; spread->members && i < spread->run.local; ++i)
    ck_pso_destroy(spread->members[i]);
  free(spread->members);
  free(spread->position);
  ck__spread_end(&spread->run);
  free(spread);
}
