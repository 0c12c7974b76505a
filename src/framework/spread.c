/*
 * spread.c - the members of a spread run, the dealing of its work, and
 * their report (framework/spread.h).
 */
#include "framework/spread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

ck_status ck_spread_has_mpi(int *has_mpi) {
  CK__REQUIRE(has_mpi);
#if CK_HAVE_MPI
  *has_mpi = 1;
#else
  *has_mpi = 0;
#endif
  return CK_OK;
}

ck_status ck__spread_begin(const ck_spread *spread, const char *unit_name,
                           ck__spread_run *run) {
  ck_status status = CK_OK;
  memset(run, 0, sizeof *run);
  run->unit_name = unit_name;
  if (!spread->devices || spread->device_count == 0 ||
      spread->device_count > CK_SPREAD_MAX_LOCAL)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_spread: %zu devices; a spread takes 1 to %d a process",
                    spread->device_count, CK_SPREAD_MAX_LOCAL);
  for (size_t i = 0; i < spread->device_count; ++i)
    for (size_t j = 0; j < i; ++j)
      if (strcmp(spread->devices[i].id, spread->devices[j].id) == 0)
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "ck_spread: device %s is given twice",
                        spread->devices[i].id);
  for (size_t i = 0; spread->shares && i < spread->share_count; ++i)
    if (!(spread->shares[i] > 0) || !isfinite(spread->shares[i]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "ck_spread.shares: share %zu is %g; shares must be "
                      "positive",
                      i + 1, spread->shares[i]);
  const char *names[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < spread->device_count; ++i)
    names[i] = spread->devices[i].id;
  CK_TRY(ck__exchange_create(spread->device_count, names, spread->communicator,
                             &run->exchange));
  run->local = spread->device_count;
  run->devices = spread->devices;
  size_t members = ck__exchange_members(run->exchange);
  if (spread->shares && spread->share_count != members)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_spread.shares: %zu shares for %zu members (one a device%s)",
            spread->share_count, members,
            ck__exchange_ranks(run->exchange) > 1 ? ", over every process"
                                                  : "");
  run->first = calloc(run->local, sizeof *run->first);
  run->units = calloc(run->local, sizeof *run->units);
  run->compute_s = calloc(run->local, sizeof *run->compute_s);
  if (!run->first || !run->units || !run->compute_s)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  return CK_OK;
fail:
  ck__spread_end(run);
  return status;
}

void ck__spread_fractions(const double *weights, size_t count,
                          double *fractions) {
  /* Scaled by the largest first, so that the sum cannot overflow. */
  double largest = 0, sum = 0;
  for (size_t m = 0; weights && m < count; ++m)
    if (weights[m] > largest)
      largest = weights[m];
  for (size_t m = 0; m < count; ++m) {
    fractions[m] = weights && largest > 0 ? weights[m] / largest : 1;
    sum += fractions[m];
  }
  for (size_t m = 0; m < count; ++m)
    fractions[m] /= sum;
}

ck_status ck__spread_deal(ck__spread_run *run, const ck_spread *spread,
                          uint64_t total, uint64_t granule,
                          const double *speeds) {
  ck_status status = CK_OK;
  size_t members = ck__exchange_members(run->exchange);
  size_t first = ck__exchange_first(run->exchange);
  double *weights = calloc(members, sizeof *weights);
  uint64_t *units = calloc(members, sizeof *units);
  if (!weights || !units)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  if (granule == 0)
    granule = 1;
  /* Too few for whole granules each: one unit is the granule. */
  if (total / granule < members)
    granule = 1;
  uint64_t granules = total / granule;
  if (granules < members)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "%llu %s cannot be dealt to %zu devices",
            (unsigned long long)total, run->unit_name, members);
  if (!spread->shares) {
    double local[CK_SPREAD_MAX_LOCAL];
    const void *pieces[CK_SPREAD_MAX_LOCAL];
    for (size_t i = 0; i < run->local; ++i) {
      local[i] = speeds && speeds[i] > 0 && isfinite(speeds[i]) ? speeds[i] : 1;
      pieces[i] = &local[i];
    }
    CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof(double), weights));
  }
  ck__spread_fractions(spread->shares ? spread->shares : weights, members,
                       weights);
  /* Each member one granule, then the rest by the largest remainders. */
  uint64_t spare = granules - members, given = 0;
  double *remainders = weights; /* reused in place */
  for (size_t m = 0; m < members; ++m) {
    double exact = (double)spare * weights[m];
    units[m] = 1 + (uint64_t)floor(exact);
    given += units[m] - 1;
    remainders[m] = exact - floor(exact);
  }
  while (given < spare) {
    size_t best = 0;
    for (size_t m = 1; m < members; ++m)
      if (remainders[m] > remainders[best])
        best = m;
    units[best] += 1;
    remainders[best] = -1;
    ++given;
  }
  uint64_t start = 0;
  for (size_t m = 0; m < members; ++m) {
    uint64_t count = units[m] * granule;
    if (m + 1 == members)
      count = total - start; /* the last takes what granules leave */
    if (m >= first && m < first + run->local) {
      run->first[m - first] = start;
      run->units[m - first] = count;
    }
    start += count;
  }
  run->total = total;
fail:
  free(weights);
  free(units);
  return status;
}

/* A member as every process learns of it. */
typedef struct member_record {
  char device[32];
  char device_name[128];
  int32_t rank;
  uint32_t pad;
  uint64_t units;
  double compute_s, exchange_s;
} member_record;

ck_status ck__spread_report(const ck__spread_run *run, ck_result *result) {
  ck_status status = CK_OK;
  size_t members = ck__exchange_members(run->exchange);
  member_record local[CK_SPREAD_MAX_LOCAL];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  member_record *all = calloc(members, sizeof *all);
  ck_spread_member *out = calloc(members, sizeof *out);
  if (!all || !out)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  memset(local, 0, sizeof local);
  for (size_t i = 0; i < run->local; ++i) {
    snprintf(local[i].device, sizeof local[i].device, "%s", run->devices[i].id);
    snprintf(local[i].device_name, sizeof local[i].device_name, "%.*s",
             (int)sizeof local[i].device_name - 1, run->devices[i].name);
    local[i].rank = ck__exchange_rank(run->exchange);
    local[i].units = run->units[i];
    local[i].compute_s = run->compute_s[i];
    local[i].exchange_s = ck__exchange_seconds(run->exchange);
    pieces[i] = &local[i];
  }
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof *all, all));
  for (size_t m = 0; m < members; ++m) {
    memcpy(out[m].device, all[m].device, sizeof out[m].device);
    memcpy(out[m].device_name, all[m].device_name, sizeof out[m].device_name);
    out[m].device[sizeof out[m].device - 1] = '\0';
    out[m].device_name[sizeof out[m].device_name - 1] = '\0';
    out[m].rank = all[m].rank;
    out[m].units = all[m].units;
    out[m].share = run->total ? (double)all[m].units / (double)run->total : 0;
    out[m].compute_s = all[m].compute_s;
    out[m].exchange_s = all[m].exchange_s;
  }
  free(result->members);
  result->members = out;
  result->member_count = members;
  snprintf(result->member_units, sizeof result->member_units, "%s",
           run->unit_name);
  out = NULL;
fail:
  free(all);
  free(out);
  return status;
}

/* A queue's kernel seconds so far, 0 where it keeps none; the queue
 * finished first, since some backends count a launch's time only once it
 * is waited for. */
static double queue_seconds(ck_queue *queue) {
  double seconds = 0;
  if (!queue || ck_queue_finish(queue) != CK_OK ||
      ck_queue_get_kernel_seconds(queue, &seconds) != CK_OK)
    return 0;
  return seconds;
}

double ck__spread_kernel_seconds(const ck__spread_run *run) {
  double total = 0;
  for (size_t i = 0; i < run->local; ++i)
    total += queue_seconds(run->queues[i]);
  return total;
}

ck_status ck__spread_report_queues(ck__spread_run *run, ck_result *result) {
  for (size_t i = 0; i < run->local; ++i) {
    double seconds = queue_seconds(run->queues[i]);
    if (seconds > 0)
      run->compute_s[i] = seconds;
  }
  return ck__spread_report(run, result);
}

ck_status ck__spread_largest(ck__spread_run *run, const double *mine,
                             double *largest, size_t count) {
  ck_status status = CK_OK;
  size_t members = ck__exchange_members(run->exchange);
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  double *all = calloc(members * count, sizeof *all);
  if (!all)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t i = 0; i < run->local; ++i)
    pieces[i] = mine;
  CK_TRY(ck__exchange_gather(run->exchange, pieces, count * sizeof *all, all));
  for (size_t c = 0; c < count; ++c) {
    largest[c] = all[c];
    for (size_t m = 1; m < members; ++m)
      if (all[m * count + c] > largest[c])
        largest[c] = all[m * count + c];
  }
fail:
  free(all);
  return status;
}

/* How long a probe's batch of steps must last, at most. */
#define PROBE_SECONDS 0.05

ck_status ck__spread_time(ck_status (*step)(void *context, uint64_t count),
                          void *context, uint64_t most, double *per_second) {
  ck_status status = step(context, 1);
  double seconds = 0;
  uint64_t batch = 1;
  while (status == CK_OK) {
    double started = ck__seconds();
    status = step(context, batch);
    seconds = ck__seconds() - started;
    if (seconds >= PROBE_SECONDS || batch >= most)
      break;
    batch *= 2;
  }
  *per_second = (double)batch / (seconds > 1e-9 ? seconds : 1e-9);
  return status;
}

void ck__spread_end(ck__spread_run *run) {
  ck__exchange_destroy(run->exchange);
  free(run->first);
  free(run->units);
  free(run->compute_s);
  memset(run, 0, sizeof *run);
}
