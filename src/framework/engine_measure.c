/*
 * engine_measure.c - the member engine's measures of its members
 * (framework/engine.h): whether their devices are alike, whether a deal
 * by the speeds they kept would pay (and when to measure them), and
 * their census of the units.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/engine.h"
#include "runtime/runtime.h"
#include "util/util.h"

/* What makes two members' devices alike. */
typedef struct device_model {
  int backend;
  unsigned compute_units, clock_mhz;
  char name[116];
} device_model;

ck_status ck__engine_alike(ck__engine *engine, int *alike) {
  ck_status status = CK_OK;
  assert(engine && alike);
  ck__spread_run *run = ck__engine_run(engine);
  size_t total = ck__engine_members(engine);
  device_model mine[CK_SPREAD_MAX_LOCAL], *all = calloc(total, sizeof *all);
  *alike = 0;
  memset(mine, 0, sizeof mine);
  for (size_t i = 0; i < run->local; ++i) {
    const ck_device *device = &run->devices[i];
    mine[i].backend = (int)device->backend;
    mine[i].compute_units = device->compute_units;
    mine[i].clock_mhz = device->clock_mhz;
    snprintf(mine[i].name, sizeof mine[i].name, "%.*s",
             (int)sizeof mine[i].name - 1, device->name);
  }
  CK_TRY(ck__engine_agree(
      engine,
      all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  CK_TRY(ck__exchange_gather_rows(run->exchange, mine, sizeof mine[0],
                                  sizeof mine[0], all));
  *alike = 1;
  for (size_t m = 1; m < total; ++m)
    *alike = *alike && memcmp(&all[m], &all[0], sizeof all[0]) == 0;
fail:
  free(all);
  return status;
}

ck_status ck__engine_speeds(ck__engine *engine, const double *units,
                            const double *seconds, double least_seconds,
                            double gain, double *weights, int *verdict) {
  ck_status status = CK_OK;
  assert(engine && units && seconds && weights && verdict && gain < 1);
  ck__spread_run *run = ck__engine_run(engine);
  size_t total = ck__engine_members(engine);
  double mine[CK_SPREAD_MAX_LOCAL][2], *all = calloc(2 * total, sizeof *all);
  *verdict = 0;
  CK_TRY(ck__engine_agree(
      engine,
      all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  for (size_t i = 0; i < run->local; ++i) {
    mine[i][0] = units[i];
    mine[i][1] = seconds[i];
  }
  CK_TRY(ck__exchange_gather_rows(run->exchange, mine, sizeof mine[0],
                                  sizeof mine[0], all));
  double spent = 0, slowest = 0, speed = 0, dealt = 0;
  for (size_t m = 0; m < total; ++m) {
    spent += all[2 * m + 1];
    slowest = fmax(slowest, all[2 * m + 1]);
    dealt += all[2 * m];
  }
  if (spent < least_seconds)
    goto fail; /* every process decides alike, from the same figures */
  /* Each member's units a second; a deal by them takes as long on all. */
  for (size_t m = 0; m < total; ++m) {
    double rate = all[2 * m + 1] > 0 ? all[2 * m] / all[2 * m + 1] : 0;
    weights[m] = rate > 0 ? rate : 1e-9;
    speed += rate;
  }
  double balanced = speed > 0 ? dealt / speed : slowest;
  *verdict = balanced < (1 - gain) * slowest ? 2 : 1;
fail:
  free(all);
  return status;
}

ck_status ck__engine_census(ck__engine *engine, const uint64_t (*mine)[3],
                            const uint64_t expected[3]) {
  ck_status status = CK_OK;
  assert(engine && mine && expected);
  ck__spread_run *run = ck__engine_run(engine);
  size_t total = ck__engine_members(engine);
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  uint64_t *all = calloc(3 * total, sizeof *all), sum[3] = {0, 0, 0};
  CK_TRY(ck__engine_agree(
      engine,
      all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  for (size_t i = 0; i < run->local; ++i)
    pieces[i] = mine[i];
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof mine[0], all));
  for (size_t m = 0; m < total; ++m)
    for (int q = 0; q < 3; ++q)
      sum[q] += all[3 * m + (size_t)q];
  if (memcmp(sum, expected, sizeof sum) != 0)
    CK_FAIL(CK_ERROR_MISMATCH,
            "the members hold %llu %s (id sum %llu), not the run's %llu (id "
            "sum %llu): one was lost or doubled between members",
            (unsigned long long)sum[0], run->unit_name,
            (unsigned long long)sum[1], (unsigned long long)expected[0],
            (unsigned long long)expected[1]);
fail:
  free(all);
  return status;
}

void ck__engine_pace_reset(ck__engine_pace *pace) {
  assert(pace);
  pace->measuring = 0;
  pace->steps = 0;
}

void ck__engine_pace_step(ck__engine *engine, ck__engine_pace *pace,
                          int may_start, uint64_t warmup) {
  assert(engine && pace);
  const ck__spread_run *run = ck__engine_run(engine);
  pace->steps += 1;
  if (pace->measuring || !may_start || pace->steps < warmup)
    return;
  for (size_t i = 0; i < run->local; ++i)
    pace->from[i] = run->compute_s[i];
  pace->measuring = 1;
  pace->steps = 0;
}

int ck__engine_pace_due(const ck__engine_pace *pace, uint64_t steps) {
  assert(pace);
  return pace->on && pace->measuring && pace->steps >= steps;
}

ck_status ck__engine_pace_decide(ck__engine *engine, ck__engine_pace *pace,
                                 const double *units, double least_seconds,
                                 double gain, double *weights, int *verdict) {
  assert(engine && pace && units && weights && verdict);
  const ck__spread_run *run = ck__engine_run(engine);
  double seconds[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i)
    seconds[i] = run->compute_s[i] - pace->from[i];
  ck_status status = ck__engine_speeds(engine, units, seconds, least_seconds,
                                       gain, weights, verdict);
  if (status == CK_OK && *verdict > 0)
    pace->on = 0;
  return status;
}
