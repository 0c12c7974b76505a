/*
 * spread.c - the members of a spread run, the dealing of its work, and
 * their report (framework/spread.h).
 */
#include "framework/spread.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/runtime.h"
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

ck_status ck__spread_check_devices(const ck_device *devices, size_t count,
                                   size_t *repeated) {
  assert((devices || count == 0) && repeated);
  for (size_t i = 0; i < count; ++i)
    for (size_t j = 0; j < i; ++j)
      if (strcmp(devices[i].id, devices[j].id) == 0) {
        *repeated = i;
        return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                        "ck_spread: device %s is given twice", devices[i].id);
      }
  *repeated = count;
  return CK_OK;
}

/* ck__spread_begin, where shared 1 lets members share a device. */
static ck_status begin(const ck_spread *spread, const char *unit_name,
                       int shared, ck__spread_run *run) {
  ck_status status = CK_OK;
  assert(spread && unit_name && run);
  memset(run, 0, sizeof *run);
  run->unit_name = unit_name;
  if (!spread->devices || spread->device_count == 0 ||
      spread->device_count > CK_SPREAD_MAX_LOCAL)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck_spread: %zu devices; a spread takes 1 to %d a process",
                    spread->device_count, CK_SPREAD_MAX_LOCAL);
  size_t repeated;
  if (!shared && (status = ck__spread_check_devices(
                      spread->devices, spread->device_count, &repeated)))
    return status;
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
  run->bytes_sent = calloc(run->local, sizeof *run->bytes_sent);
  run->slab = calloc(run->local, sizeof *run->slab);
  run->slab_axis = -1;
  if (!run->first || !run->units || !run->compute_s || !run->bytes_sent ||
      !run->slab)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  return CK_OK;
fail:
  ck__spread_end(run);
  return status;
}

ck_status ck__spread_begin(const ck_spread *spread, const char *unit_name,
                           ck__spread_run *run) {
  return begin(spread, unit_name, 0, run);
}

ck_status ck__spread_begin_shared(const ck_spread *spread,
                                  const char *unit_name, ck__spread_run *run) {
  return begin(spread, unit_name, 1, run);
}

/* Ascending, for a sum that does not depend on the order. */
static int ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void ck__spread_fractions(const double *weights, size_t count,
                          double *fractions) {
  assert(fractions || count == 0);
  /* Scaled by the largest first, so that the sum cannot overflow; summed
   * in ascending order, so that a member's fraction is the same bits
   * wherever it stands among the others. */
  double largest = 0, sum = 0;
  double *sorted = malloc((count ? count : 1) * sizeof *sorted);
  for (size_t m = 0; weights && m < count; ++m)
    if (weights[m] > largest)
      largest = weights[m];
  for (size_t m = 0; m < count; ++m)
    fractions[m] = weights && largest > 0 ? weights[m] / largest : 1;
  if (sorted) {
    memcpy(sorted, fractions, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, ascending);
  }
  for (size_t m = 0; m < count; ++m)
    sum += sorted ? sorted[m] : fractions[m];
  free(sorted);
  for (size_t m = 0; m < count; ++m)
    fractions[m] /= sum;
}

/* Whether member a's claim to one more unit comes before b's: the larger
 * remainder (quota less count), then the larger quota, then the lower
 * index. */
static int claims_before(const double *quotas, const uint64_t *counts, size_t a,
                         size_t b) {
  double left_a = quotas[a] - (double)counts[a];
  double left_b = quotas[b] - (double)counts[b];
  if (left_a != left_b)
    return left_a > left_b;
  if (quotas[a] != quotas[b])
    return quotas[a] > quotas[b];
  return a < b;
}

void ck__spread_apportion(const double *quotas, size_t count, uint64_t total,
                          uint64_t least, uint64_t *counts) {
  assert(quotas && counts && count >= 1); /* member 0 claims first */
  uint64_t given = 0;
  for (size_t m = 0; m < count; ++m) {
    double floor_m = floor(quotas[m]);
    counts[m] = floor_m > (double)least ? (uint64_t)floor_m : least;
    given += counts[m];
  }
  /* The units left, one each by the largest remainders; or, where the
   * least each lifted some past their quotas, the units over, taken back
   * one each from the last claims. */
  while (given < total) {
    size_t best = 0;
    for (size_t m = 1; m < count; ++m)
      if (claims_before(quotas, counts, m, best))
        best = m;
    counts[best] += 1;
    ++given;
  }
  while (given > total) {
    size_t last = count;
    for (size_t m = 0; m < count; ++m)
      if (counts[m] > least &&
          (last == count || claims_before(quotas, counts, last, m)))
        last = m;
    assert(last < count); /* total holds the least for each */
    counts[last] -= 1;
    --given;
  }
}

ck_status ck__spread_deal(ck__spread_run *run, const ck_spread *spread,
                          uint64_t total, uint64_t granule,
                          const double *speeds) {
  ck_status status = CK_OK;
  assert(run && run->exchange && spread && run->local >= 1);
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
    for (size_t i = 0; i < run->local; ++i)
      local[i] = speeds && speeds[i] > 0 && isfinite(speeds[i]) ? speeds[i] : 1;
    CK_TRY(ck__exchange_gather_rows(run->exchange, local, sizeof local[0],
                                    sizeof local[0], weights));
  }
  ck__spread_fractions(spread->shares ? spread->shares : weights, members,
                       weights);
  /* Each member's quota of the whole, in granules: the units short of a
   * whole granule go to the last member, after its own. */
  double *quotas = weights; /* in place */
  for (size_t m = 0; m < members; ++m)
    quotas[m] = weights[m] * (double)total / (double)granule;
  ck__spread_apportion(quotas, members, granules, 1, units);
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
  assert(start == total); /* the shares cover the whole, once */
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
  int32_t slab_axis;
  uint64_t units, bytes_sent;
  double compute_s, exchange_s;
  double slab[4];
} member_record;

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

void ck__spread_clocks_start(ck__spread_run *run) {
  assert(run && run->exchange && run->local <= CK_SPREAD_MAX_LOCAL);
  for (size_t i = 0; i < run->local; ++i) {
    run->compute_from[i] = run->compute_s[i];
    run->kernel_from[i] = queue_seconds(run->queues[i]);
  }
  run->exchange_from = ck__exchange_seconds(run->exchange);
}

/* Member i's compute seconds since its clocks started: its queue's
 * kernel time where asked and kept, else the host's. */
static double compute_seconds(const ck__spread_run *run, size_t i,
                              int kernels) {
  double seconds = kernels ? queue_seconds(run->queues[i]) : 0;
  return seconds > 0 ? seconds - run->kernel_from[i]
                     : run->compute_s[i] - run->compute_from[i];
}

/* ck__spread_report and ck__spread_report_queues (kernels 1). */
static ck_status report(const ck__spread_run *run, ck_result *result,
                        int kernels) {
  ck_status status = CK_OK;
  assert(run && run->exchange && result);
  size_t members = ck__exchange_members(run->exchange);
  member_record local[CK_SPREAD_MAX_LOCAL];
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
    local[i].compute_s = compute_seconds(run, i, kernels);
    local[i].exchange_s =
        ck__exchange_seconds(run->exchange) - run->exchange_from;
    local[i].bytes_sent =
        run->bytes_sent[i] + ck__exchange_sent(run->exchange, i);
    local[i].slab_axis = run->slab_axis;
    for (int q = 0; q < 4; ++q)
      local[i].slab[q] = run->slab_axis >= 0 ? run->slab[i][q] : NAN;
  }
  CK_TRY(ck__exchange_gather_rows(run->exchange, local, sizeof local[0],
                                  sizeof *all, all));
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
    out[m].bytes_sent = all[m].bytes_sent;
    out[m].slab_axis = all[m].slab_axis;
    for (int q = 0; q < 2; ++q) {
      out[m].slab[q] = all[m].slab[q];
      out[m].slab_y[q] = all[m].slab[2 + q];
    }
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

void ck__spread_verdict(const ck_result *result, double steps, char *line,
                        size_t capacity) {
  assert(result && line && capacity > 0);
  line[0] = '\0';
  if (result->member_count < 2 || result->wall_s < 1 || steps <= 0 ||
      !(result->throughput > 0))
    return;
  size_t best = 0;
  double best_rate = 0, exchange = 0;
  for (size_t m = 0; m < result->member_count; ++m) {
    const ck_spread_member *member = &result->members[m];
    double rate = member->compute_s > 0
                      ? (double)member->units * steps / member->compute_s
                      : 0;
    if (rate > best_rate) {
      best_rate = rate;
      best = m;
    }
    exchange = fmax(exchange, member->exchange_s);
  }
  if (best_rate < 1.1 * result->throughput)
    return;
  snprintf(line, capacity,
           "warning: the spread ran %.3g %s; member %zu (%s) computed its "
           "share at %.3g, so it alone might have run about %.0f%% faster: "
           "the exchanges (%.3g s of %.3g s) and the waits for slower members "
           "cost more than the others take off",
           result->throughput, result->throughput_unit, best,
           result->members[best].device, best_rate,
           100 * (best_rate / result->throughput - 1), exchange,
           result->wall_s);
}

double ck__spread_kernel_seconds(const ck__spread_run *run) {
  double total = 0;
  for (size_t i = 0; i < run->local; ++i)
    total += queue_seconds(run->queues[i]);
  return total;
}

ck_status ck__spread_report(const ck__spread_run *run, ck_result *result) {
  return report(run, result, 0);
}

ck_status ck__spread_report_queues(ck__spread_run *run, ck_result *result) {
  return report(run, result, 1);
}

ck_status ck__spread_largest(ck__spread_run *run, const double *mine,
                             double *largest, size_t count) {
  ck_status status = CK_OK;
  assert(run && run->exchange && mine && largest && count >= 1);
  size_t members = ck__exchange_members(run->exchange);
  double *all = calloc(members * count, sizeof *all);
  /* Agreed, so that no process waits in the gather for one that left. */
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {
      all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")};
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(ck__exchange_gather_rows(run->exchange, mine, 0, count * sizeof *all,
                                  all));
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

void ck__spread_peers_close(ck__peer *peers[2][CK_SPREAD_MAX_LOCAL]) {
  for (int side = 0; side < 2; ++side)
    for (size_t i = 0; i < CK_SPREAD_MAX_LOCAL; ++i) {
      ck__peer_close(peers[side][i]);
      peers[side][i] = NULL;
    }
}

ck_status ck__spread_peers_open(const ck__spread_run *run, int sides,
                                ck__peer *peers[2][CK_SPREAD_MAX_LOCAL]) {
  ck_status status = CK_OK;
  assert(run && run->exchange && (sides == 1 || sides == 2));
  size_t n = run->local;
  int all = ck__exchange_ranks(run->exchange) == 1;
  for (size_t i = 0; all && i < n; ++i)
    for (int side = 0; all && side < sides; ++side) {
      size_t sender = side == 0 ? (i + n - 1) % n : (i + 1) % n;
      CK_TRY(ck__peer_open(&run->devices[sender], &run->devices[i],
                           &peers[side][i]));
      all = peers[side][i] != NULL;
    }
fail:
  if (!all || status)
    ck__spread_peers_close(peers);
  return status;
}

ck_status ck__spread_places_find(ck__spread_run *run, int able,
                                 ck__spread_places *places) {
  ck_status status = CK_OK;
  assert(run && run->exchange && run->local >= 1 && places);
  struct {
    unsigned char gpu[CK__IPC_IDENTITY_BYTES];
    char able, known, named, host[61];
  } mine, *all = NULL;
  memset(places, 0, sizeof *places);
  memset(&mine, 0, sizeof mine);
  mine.able = (char)(able != 0);
  mine.known = ck__device_shares_between_processes(&run->devices[0]) &&
               ck__ipc_device_identity(&run->devices[0], mine.gpu) == CK_OK;
  mine.named = gethostname(mine.host, sizeof mine.host - 1) == 0;
  size_t members = ck__exchange_members(run->exchange);
  all = calloc(members, sizeof mine);
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {
      all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")};
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(ck__exchange_gather_rows(run->exchange, &mine, 0, sizeof mine, all));
  places->able = places->one_host = places->own_gpus = 1;
  for (size_t m = 0; m < members; ++m) {
    places->able = places->able && all[m].able;
    places->one_host =
        places->one_host && all[m].named && strcmp(all[m].host, mine.host) == 0;
    places->own_gpus = places->own_gpus && all[m].known;
    for (size_t k = 0; k < m; ++k)
      places->own_gpus = places->own_gpus &&
                         memcmp(all[m].gpu, all[k].gpu, sizeof mine.gpu) != 0;
  }
fail:
  free(all);
  return status;
}

void ck__spread_clock_start(ck__spread_clock *clock, ck__loop_rules *rules,
                            ck__loop_driver *driver,
                            uint64_t (*due)(void *self, uint64_t steps)) {
  assert(clock && rules && driver && due);
  driver->due = rules->check_every ? NULL : due;
  if (!rules->check_every)
    rules->check_every = rules->max_chunk;
  if (rules->max_seconds > 0 && !rules->max_steps && !rules->max_evaluations &&
      !rules->has_target)
    rules->max_steps = UINT64_MAX;
  clock->max_seconds = rules->max_seconds;
  clock->max_chunk = rules->max_chunk;
  rules->progress_seconds = rules->max_seconds;
  rules->max_seconds = 0;
  clock->chunk = 1;
  clock->started = clock->read_at = ck__seconds();
  clock->read_steps = 0;
}

ck_status ck__spread_clock_read(ck__spread_run *run, ck__spread_clock *clock,
                                uint64_t steps, ck__loop_reading *reading) {
  assert(run && clock && reading);
  double now = ck__seconds();
  double mine[2] = {now - clock->started, 0}, slowest[2];
  if (steps > clock->read_steps)
    mine[1] = (now - clock->read_at) / (double)(steps - clock->read_steps);
  ck_status status = ck__spread_largest(run, mine, slowest, 2);
  if (status)
    return status;
  if (clock->max_seconds > 0 && slowest[0] >= clock->max_seconds)
    reading->stop = CK_STOP_TIME;
  /* Before any step is timed, one step (the chunk's first value). */
  if (slowest[1] > 0) {
    double wanted = 0.05 / slowest[1];
    clock->chunk = wanted < 1                          ? 1
                   : wanted > (double)clock->max_chunk ? clock->max_chunk
                                                       : (uint64_t)wanted;
  }
  clock->read_at = now;
  clock->read_steps = steps;
  return CK_OK;
}

/* How long a probe's batch of steps must last, at most. */
#define PROBE_SECONDS 0.05

ck_status ck__spread_time(ck_status (*step)(void *context, uint64_t count),
                          void *context, uint64_t most, double *per_second) {
  assert(step && most >= 1 && per_second);
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

/* ---- Members at once (ck__spread_each) ----------------------------------
 *
 * A crew: one worker thread for each local member but the first, which
 * the calling thread runs. A phase is handed over by a generation counter:
 * the caller sets the phase, moves the generation on, runs member 0 and
 * waits for `pending` to reach 0. A thread that waits (a worker for the
 * next phase, the caller for the workers) spins a little, since steps
 * follow closely, and then sleeps on a condition variable.
 *
 * The thread-local state a member's work may need, and where it goes:
 * - The last error (util/error.c): a failed member's message is saved
 *   where it was raised and restored on the calling thread before the
 *   agreement, which prefixes the member.
 * - The build watch (ck__build_watching, runtime/program.c) follows the
 *   caller for each call, through a relay that tells the caller's watch
 *   one build at a time (it adds up build time, and the caller's build
 *   callback need not be reentrant); so do ck__build_from_source
 *   (runtime/cache.c) and ck__session_running (runtime/session.c).
 * - The locale: a worker enters the C locale once, as a run's thread is.
 * - Held outputs (util/files.c) stay the caller's: fn writes no output.
 * - The thread's test hooks (ck__test_control) stay with the thread that
 *   sets them: tests that use them drive one queue alone.
 */

/* A waiting thread first spins on the processor, then yields it to any
 * other thread that is ready (one of the members, where they outnumber the
 * cores), and sleeps after SPIN_SECONDS: long enough to catch the next
 * phase of a run whose steps follow closely, short enough that idle
 * threads give their cores back soon. */
#define SPINS_BEFORE_YIELD 64
#define SPIN_SECONDS 50e-6

typedef struct crew_thread {
  ck__spread_crew *crew;
  size_t member;
  unsigned seen; /* the generation at its start */
  pthread_t thread;
} crew_thread;

struct ck__spread_crew {
  size_t local;
  size_t started; /* workers made: members 1 .. started */
  int in_turn;    /* CLKIT_SPREAD_THREADS=0: all on the caller's thread */
  /* The phase, set by the caller before the generation moves on. */
  ck_status (*fn)(void *context, size_t member);
  void *context;
  double *compute_s;
  const ck__build_watch *watch; /* the workers': the relay, or NULL */
  int from_source;              /* ck__build_from_source */
  ck_session *session;          /* ck__session_running */
  atomic_uint generation;       /* one on for each phase, and at the end */
  atomic_uint pending;          /* workers yet to finish the phase */
  atomic_int stop;
  atomic_uint workers_asleep, caller_asleep;
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  /* The caller's watch, which the relay tells under watch_lock. */
  const ck__build_watch *outer;
  ck__build_watch relay;
  pthread_mutex_t watch_lock;
  int synced;              /* lock, wake, done, watch_lock made */
  ck_status *statuses;     /* each member's, of the last phase */
  ck__error_saved *errors; /* a failed member's message */
  crew_thread *threads;    /* [0] unused */
};

static void relay_started(void *user, const char *program) {
  ck__spread_crew *crew = user;
  pthread_mutex_lock(&crew->watch_lock);
  crew->outer->started(crew->outer->user, program);
  pthread_mutex_unlock(&crew->watch_lock);
}

static void relay_ended(void *user, const char *program, double seconds,
                        int failed) {
  ck__spread_crew *crew = user;
  pthread_mutex_lock(&crew->watch_lock);
  crew->outer->ended(crew->outer->user, program, seconds, failed);
  pthread_mutex_unlock(&crew->watch_lock);
}

/* A hint to the processor that this thread spins. */
static void spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Whether *word has reached value (equal 1) or left it (equal 0). */
static int reached(atomic_uint *word, unsigned value, int equal) {
  return (atomic_load_explicit(word, memory_order_acquire) == value) == equal;
}

/* Waits until *word reaches value (equal 1) or leaves it (equal 0):
 * spins, then sleeps on cond, counted in asleep so that wake_up() knows
 * to signal. */
static void await(ck__spread_crew *crew, atomic_uint *word, unsigned value,
                  int equal, pthread_cond_t *cond, atomic_uint *asleep) {
  double until = 0;
  for (unsigned spins = 0; !reached(word, value, equal); ++spins) {
    if (spins < SPINS_BEFORE_YIELD) {
      spin_pause();
      continue;
    }
    if (spins == SPINS_BEFORE_YIELD)
      until = ck__seconds() + SPIN_SECONDS;
    else if (ck__seconds() > until)
      break;
    sched_yield();
  }
  if (reached(word, value, equal))
    return;
  pthread_mutex_lock(&crew->lock);
  atomic_fetch_add(asleep, 1);
  /* Sequentially consistent with wake_up(): either this sees the new
   * value, or the waker sees the sleeper and signals under the lock. */
  while ((atomic_load(word) == value) != equal)
    pthread_cond_wait(cond, &crew->lock);
  atomic_fetch_sub(asleep, 1);
  pthread_mutex_unlock(&crew->lock);
}

/* Wakes the sleepers of cond, after the word they wait on has moved. */
static void wake_up(ck__spread_crew *crew, pthread_cond_t *cond,
                    atomic_uint *asleep) {
  if (atomic_load(asleep) == 0)
    return;
  pthread_mutex_lock(&crew->lock);
  pthread_cond_broadcast(cond);
  pthread_mutex_unlock(&crew->lock);
}

/* fn for one member, its seconds added to compute_s[member]. */
static ck_status run_timed(ck_status (*fn)(void *context, size_t member),
                           void *context, size_t member, double *compute_s) {
  double started = ck__seconds();
  ck_status status = fn(context, member);
  compute_s[member] += ck__seconds() - started;
  return status;
}

/* Runs the phase for one member on this thread; a failure's message is
 * saved. */
static void crew_run(ck__spread_crew *crew, size_t member) {
  assert(crew && crew->fn && member < crew->local);
  ck_status status =
      run_timed(crew->fn, crew->context, member, crew->compute_s);
  crew->statuses[member] = status;
  if (status != CK_OK)
    ck__error_save(&crew->errors[member]);
}

static void *crew_main(void *argument) {
  crew_thread *self = argument;
  ck__spread_crew *crew = self->crew;
  ck__c_locale locale = {0};
  ck_status ready = ck__c_locale_enter(&locale, "a spread run's thread");
  if (ready != CK_OK)
    ck__error_save(&crew->errors[self->member]);
  unsigned seen = self->seen;
  for (;;) {
    await(crew, &crew->generation, seen, 0, &crew->wake, &crew->workers_asleep);
    seen = atomic_load_explicit(&crew->generation, memory_order_acquire);
    if (atomic_load_explicit(&crew->stop, memory_order_relaxed))
      break;
    if (ready == CK_OK) {
      ck__build_watching = crew->watch;
      ck__build_from_source = crew->from_source;
      ck__session_running = crew->session;
      crew_run(crew, self->member);
      ck__build_watching = NULL;
      ck__build_from_source = 0;
      ck__session_running = NULL;
    } else {
      crew->statuses[self->member] = ready;
    }
    /* Sequentially consistent, as the caller's sleep takes it. */
    if (atomic_fetch_sub(&crew->pending, 1) == 1)
      wake_up(crew, &crew->done, &crew->caller_asleep);
  }
  ck__c_locale_leave(&locale);
  return NULL;
}

/* Joins the workers and frees the crew. */
static void crew_free(ck__spread_crew *crew) {
  if (!crew)
    return;
  if (crew->started) {
    atomic_store_explicit(&crew->stop, 1, memory_order_relaxed);
    atomic_fetch_add(&crew->generation, 1);
    pthread_mutex_lock(&crew->lock);
    pthread_cond_broadcast(&crew->wake);
    pthread_mutex_unlock(&crew->lock);
    for (size_t m = 1; m <= crew->started; ++m)
      pthread_join(crew->threads[m].thread, NULL);
  }
  if (crew->synced > 0)
    pthread_mutex_destroy(&crew->lock);
  if (crew->synced > 1)
    pthread_cond_destroy(&crew->wake);
  if (crew->synced > 2)
    pthread_cond_destroy(&crew->done);
  if (crew->synced > 3)
    pthread_mutex_destroy(&crew->watch_lock);
  free(crew->statuses);
  free(crew->errors);
  free(crew->threads);
  free(crew);
}

/* CLKIT_SPREAD_THREADS=0: every member on the calling thread, in turn. */
static int in_turn_asked(void) {
  return ck__setting_off("CLKIT_SPREAD_THREADS");
}

int ck__spread_in_turn(const ck__spread_run *run) {
  return run->local > 1 && (run->crew ? run->crew->in_turn : in_turn_asked());
}

/* Makes the run's crew, no worker yet. */
static ck_status crew_make(ck__spread_run *run) {
  ck_status status = CK_OK;
  ck__spread_crew *crew = calloc(1, sizeof *crew);
  if (!crew)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  crew->local = run->local;
  crew->statuses = calloc(run->local, sizeof *crew->statuses);
  crew->errors = calloc(run->local, sizeof *crew->errors);
  crew->threads = calloc(run->local, sizeof *crew->threads);
  if (!crew->statuses || !crew->errors || !crew->threads)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  if (pthread_mutex_init(&crew->lock, NULL) != 0 || ++crew->synced == 0 ||
      pthread_cond_init(&crew->wake, NULL) != 0 || ++crew->synced == 0 ||
      pthread_cond_init(&crew->done, NULL) != 0 || ++crew->synced == 0 ||
      pthread_mutex_init(&crew->watch_lock, NULL) != 0 || ++crew->synced == 0)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for a lock");
  crew->in_turn = in_turn_asked();
  crew->relay = (ck__build_watch){relay_started, relay_ended, crew};
  run->crew = crew;
  return CK_OK;
fail:
  crew_free(crew);
  return status;
}

/* Makes the workers not made yet. A thread the system refuses fails
 * (CK_ERROR_OUT_OF_MEMORY), *member naming its member. Workers start with
 * every asynchronous signal blocked: the caller's threads take those. */
static ck_status crew_start(ck__spread_crew *crew, size_t *member) {
  assert(crew && member && !crew->in_turn && crew->local >= 2);
  sigset_t all, before;
  sigfillset(&all);
  static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP};
  for (size_t k = 0; k < sizeof faults / sizeof faults[0]; ++k)
    sigdelset(&all, faults[k]);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  int error = 0;
  while (!error && crew->started + 1 < crew->local) {
    crew_thread *thread = &crew->threads[crew->started + 1];
    thread->crew = crew;
    thread->member = crew->started + 1;
    thread->seen = atomic_load(&crew->generation);
    if (ck__test_value(CK__TEST_SPREAD_THREAD_FAILS) == thread->member) {
      (void)ck__test_control(CK__TEST_SPREAD_THREAD_FAILS, 0);
      error = EAGAIN;
    } else {
      error = pthread_create(&thread->thread, NULL, crew_main, thread);
    }
    if (!error)
      ++crew->started;
  }
  pthread_sigmask(SIG_SETMASK, &before, NULL);
  if (!error)
    return CK_OK;
  *member = crew->started + 1;
  return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                  "cannot start a host thread for it: %s", strerror(error));
}

ck_status ck__spread_each(ck__spread_run *run,
                          ck_status (*fn)(void *context, size_t member),
                          void *context) {
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {CK_OK};
  assert(run && run->exchange && fn);
  assert(run->local >= 1 && run->local <= CK_SPREAD_MAX_LOCAL);
  if (run->local == 1) {
    statuses[0] = run_timed(fn, context, 0, run->compute_s);
    return ck__exchange_agree(run->exchange, statuses);
  }
  /* A crew or a thread not made fails its member, before any fn runs. */
  size_t member = 0;
  ck_status made = run->crew ? CK_OK : crew_make(run);
  if (made == CK_OK && !run->crew->in_turn)
    made = crew_start(run->crew, &member);
  if (made != CK_OK) {
    statuses[member] = made;
    return ck__exchange_agree(run->exchange, statuses);
  }
  ck__spread_crew *crew = run->crew;
  crew->fn = fn;
  crew->context = context;
  crew->compute_s = run->compute_s;
  if (crew->in_turn) {
    for (size_t m = 0; m < crew->local; ++m)
      crew_run(crew, m);
  } else {
    const ck__build_watch *outer = ck__build_watching;
    crew->outer = outer;
    crew->watch = outer ? &crew->relay : NULL;
    crew->from_source = ck__build_from_source;
    crew->session = ck__session_running;
    atomic_store_explicit(&crew->pending, (unsigned)crew->local - 1,
                          memory_order_relaxed);
    atomic_fetch_add(&crew->generation, 1);
    wake_up(crew, &crew->wake, &crew->workers_asleep);
    ck__build_watching = crew->watch;
    crew_run(crew, 0);
    ck__build_watching = outer;
    await(crew, &crew->pending, 0, 1, &crew->done, &crew->caller_asleep);
  }
  /* The lowest failed member's message is the one the agreement names. */
  for (size_t m = 0; m < crew->local; ++m)
    if (crew->statuses[m] != CK_OK) {
      ck__error_restore(&crew->errors[m]);
      break;
    }
  return ck__exchange_agree(run->exchange, crew->statuses);
}

void ck__spread_end(ck__spread_run *run) {
  assert(run);
  crew_free(run->crew);
  ck__exchange_destroy(run->exchange);
  free(run->first);
  free(run->units);
  free(run->compute_s);
  free(run->bytes_sent);
  free(run->slab);
  memset(run, 0, sizeof *run);
}
