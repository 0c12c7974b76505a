/*
 * ga_spread_create.c - a spread GA's making and freeing: the probe that
 * times the members, the islands dealt and every member's slice learnt,
 * the members allocated and set up, the copies between their devices
 * opened (peers in a process, CUDA IPC between the ranks of one host),
 * the rings across GPUs wired, and the caller's buffers.
 */
#include <assert.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framework/spread.h"
#include "ga/ga_internal.h"

/* A probe's batches of generations hold at most this many. */
#define PROBE_GENERATIONS 32

/* A status of the calling thread's, agreed over all processes. */
static ck_status agree(ck__ga_spread *spread, ck_status status) {
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {status};
  return ck__exchange_agree(spread->run.exchange, statuses);
}

/* What a phase of the creation takes. */
typedef struct create_call {
  ck__ga_spread *spread;
  const ck_ga_config *config; /* the probe's, or the members' */
  size_t run_islands;
  double speeds[CK_SPREAD_MAX_LOCAL];
} create_call;

static ck_status probe_step(void *context, uint64_t count) {
  ck_ga *ga = context;
  ck_status status = ck_ga_step(ga, count);
  return status ? status : ck_queue_finish(ga->state.queue);
}

/* A member's island-generations a second, on a GA of its equal share of
 * the islands (migrating never): the speeds the islands are dealt by. */
static ck_status probe_member(void *context, size_t i) {
  create_call *call = context;
  ck_ga *ga = NULL;
  double per_second = 0;
  ck_status status =
      ck_ga_create(&call->spread->run.devices[i], call->config, &ga);
  if (status == CK_OK)
    status = ck__spread_time(probe_step, ga, PROBE_GENERATIONS, &per_second);
  call->speeds[i] = per_second * (double)call->config->islands;
  ck_ga_destroy(ga);
  return status;
}

static ck_status probe(ck__ga_spread *spread, const ck_ga_config *config,
                       create_call *call) {
  ck_ga_config trial = *config;
  trial.islands = config->islands / spread->count;
  if (trial.islands < 1)
    trial.islands = 1;
  trial.migrate_every = 0;
  trial.max_evaluations = 0;
  trial.has_target = 0;
  trial.keep_island_history = 0;
  call->config = &trial;
  ck_status status = ck__spread_each(&spread->run, probe_member, call);
  /* The members' compute times start with their islands. */
  memset(spread->run.compute_s, 0,
         spread->run.local * sizeof *spread->run.compute_s);
  return status;
}

/* A member's islands: the checks, its settings and buffers. */
static ck_status allocate_member(void *context, size_t i) {
  ck_status status = CK_OK;
  create_call *call = context;
  ck__ga_spread *spread = call->spread;
  ck__spread_run *run = &spread->run;
  const ck__ga_slice share = {(uint32_t)run->first[i],
                              (uint32_t)call->run_islands,
                              spread->stats_capacity};
  ck_ga_config slice = *call->config;
  slice.islands = run->units[i];
  CK_TRY(ck__ga_slice_allocate(&run->devices[i], &slice, &share,
                               &spread->members[i].ga));
  run->queues[i] = spread->members[i].ga->state.queue;
fail:
  return status;
}

/* A member's kernels and generation 0, and its packs of migrants. */
static ck_status set_up_member(void *context, size_t i) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = context;
  ga_member *m = &spread->members[i];
  ck_queue *queue = m->ga->state.queue;
  CK_TRY(ck__ga_slice_set_up(m->ga));
  if (spread->crossing && !spread->on_devices) {
    CK_TRY(ck__host_alloc(queue, spread->pack, (void **)&m->out));
    CK_TRY(ck__host_alloc(queue, spread->pack, (void **)&m->in));
  }
fail:
  return status;
}

/* Every member's slice (first island, islands), and the widest. */
static ck_status learn_slices(ck__ga_spread *spread, size_t islands) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  uint64_t local[CK_SPREAD_MAX_LOCAL][2];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  uint64_t *all = calloc(spread->count * 2, sizeof *all);
  spread->firsts = calloc(spread->count, sizeof *spread->firsts);
  spread->units = calloc(spread->count, sizeof *spread->units);
  CK_TRY(agree(spread,
               all && spread->firsts && spread->units
                   ? CK_OK
                   : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  for (size_t i = 0; i < run->local; ++i) {
    local[i][0] = run->first[i];
    local[i][1] = run->units[i];
    pieces[i] = local[i];
  }
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof local[0], all));
  uint64_t dealt = 0;
  for (size_t m = 0; m < spread->count; ++m) {
    spread->firsts[m] = all[2 * m];
    spread->units[m] = all[2 * m + 1];
    assert(spread->firsts[m] == dealt && spread->units[m] > 0);
    dealt += spread->units[m];
    if (spread->units[m] > spread->widest)
      spread->widest = (uint32_t)spread->units[m];
  }
  assert(dealt == islands);
  (void)islands;
fail:
  free(all);
  return status;
}

/* The caller's memory: the gathered packs, the statistics, the bests. */
static ck_status make_buffers(ck__ga_spread *spread) {
  size_t local = spread->run.local, count = spread->count;
  size_t stats =
      (size_t)spread->stats_capacity * spread->widest * 2 * spread->real;
  size_t pairs = (size_t)spread->stats_capacity * 2;
  spread->genes = calloc((size_t)spread->dim, sizeof *spread->genes);
  int gathers = spread->crossing && !spread->ring && !spread->on_devices;
  spread->gathered = gathers ? calloc(count, spread->pack) : NULL;
  spread->stats = calloc(local, stats);
  spread->all_stats = calloc(count, stats);
  spread->folded = calloc(local * pairs, sizeof *spread->folded);
  spread->all_folded = calloc(count * pairs, sizeof *spread->folded);
  spread->rows = calloc(pairs, sizeof *spread->rows);
  spread->slot_round =
      calloc(spread->stats_capacity, sizeof *spread->slot_round);
  spread->member_best = calloc(count, sizeof *spread->member_best);
  spread->member_round = calloc(count, sizeof *spread->member_round);
  if (!spread->genes || (gathers && !spread->gathered) || !spread->stats ||
      !spread->all_stats || !spread->folded || !spread->all_folded ||
      !spread->rows || !spread->slot_round || !spread->member_best ||
      !spread->member_round)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for a spread GA's exchanges");
  /* Nothing found yet: the largest real, as each device starts. */
  spread->best = spread->double_precision ? DBL_MAX : FLT_MAX;
  for (size_t m = 0; m < count; ++m)
    spread->member_best[m] = spread->best;
  return CK_OK;
}

static void close_peers(ck__ga_spread *spread) {
  for (size_t k = 0; spread->peers && k < spread->run.local * spread->run.local;
       ++k)
    ck__peer_close(spread->peers[k]);
  free(spread->peers);
  spread->peers = NULL;
}

/* Copies without the host into each member from those it takes migrants
 * from, where migrants cross and every member is a CUDA device of this
 * one process: every one, or none. */
static ck_status open_peers(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  size_t n = spread->run.local;
  if (!spread->crossing || ck__exchange_ranks(spread->run.exchange) != 1)
    return CK_OK;
  if (!(spread->peers = calloc(n * n, sizeof *spread->peers)))
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  int all = 1;
  for (size_t i = 0; all && i < n; ++i)
    for (size_t j = 0; all && j < n; ++j) {
      if (j == i || (spread->ring && j != (i + n - 1) % n))
        continue;
      CK_TRY(ck__peer_open(&spread->run.devices[j], &spread->run.devices[i],
                           &spread->peers[i * n + j]));
      all = spread->peers[i * n + j] != NULL;
    }
  spread->on_devices = all;
fail:
  if (!spread->on_devices)
    close_peers(spread);
  return status;
}

/* Whether the members' launches may cross GPUs on the ring (cl/ga.cu,
 * CK_GA_ACROSS): every member a CUDA device of this process that reads
 * its previous member's memory, each on a GPU of its own (two members on
 * one GPU could wait on each other's blocks, which that GPU might never
 * run at once). */
static int wants_across(const ck__ga_spread *spread) {
  const ck__spread_run *run = &spread->run;
  size_t n = run->local;
  if (!spread->on_devices || !spread->ring || !spread->crossing)
    return 0;
  for (size_t i = 0; i < n; ++i) {
    if (!ck__peer_direct(spread->peers[i * n + (i + n - 1) % n]))
      return 0;
    for (size_t j = 0; j < i; ++j)
      if (strcmp(run->devices[i].id, run->devices[j].id) == 0)
        return 0;
  }
  return 1;
}

/* Where a member's kernel reads its previous member's counts, and the
 * relay of that member's last island (of `islands`), given the
 * addresses at which it reads that member's buffers. */
static void point_at_previous(ga_state *to, uint64_t crossed, uint64_t relay,
                              uint64_t fitness, uint64_t islands) {
  size_t last = (size_t)(islands - 1) * to->migrants;
  to->crossed_previous = crossed;
  to->relay_previous = relay + last * (size_t)to->dim * sizeof(float);
  to->relay_fitness_previous = fitness + last * sizeof(float);
  to->previous_segment = islands * to->migrants;
}

/* Member i's view of its previous member h, in this process. */
static ck_status wire_member(ck__ga_spread *spread, size_t i, size_t h) {
  ck_status status = CK_OK;
  ck__peer *peer = spread->peers[i * spread->run.local + h];
  const ga_state *from = &spread->members[h].ga->state;
  uint64_t crossed, relay, fitness;
  CK_TRY(ck__peer_address(peer, from->native_crossed, &crossed));
  CK_TRY(ck__peer_address(peer, from->native_relay, &relay));
  CK_TRY(ck__peer_address(peer, from->native_relay_fitness, &fitness));
  point_at_previous(&spread->members[i].ga->state, crossed, relay, fitness,
                    from->islands);
fail:
  return status;
}

/* The span of the members' rounds, once they are set up, into *made:
 * their launches' where every member makes the ring's migrations inside
 * them (one member, or every one across GPUs, reading its previous one's
 * memory), else 1. */
static ck_status wire_across(ck__ga_spread *spread, uint32_t *made) {
  ck_status status = CK_OK;
  size_t n = spread->run.local;
  uint32_t span = spread->members[0].ga->state.span_segments;
  int inside = span > 1;
  for (size_t i = 0; i < n; ++i) {
    const ga_state *state = &spread->members[i].ga->state;
    if (state->span_segments != span || (spread->count > 1 && !state->across))
      inside = 0;
  }
  *made = 1;
  if (!inside)
    return CK_OK;
  for (size_t i = 0; spread->count > 1 && i < n; ++i)
    CK_TRY(wire_member(spread, i, (i + n - 1) % n));
  *made = span;
fail:
  return status;
}

/* Between processes (collective): whether the members' launches may
 * cross GPUs, each process holding one CUDA member on a GPU of its own,
 * all on one host (CUDA IPC), with neither CLKIT_PEER nor CLKIT_IPC 0. */
static ck_status across_processes_wanted(ck__ga_spread *spread, int *wanted) {
  ck_status status = CK_OK;
  const ck__spread_run *run = &spread->run;
  struct {
    unsigned char gpu[CK__IPC_IDENTITY_BYTES];
    char able, host[47];
  } mine, *all = NULL;
  const void *pieces[CK_SPREAD_MAX_LOCAL] = {&mine};
  *wanted = 0;
  memset(&mine, 0, sizeof mine);
  mine.able = run->local == 1 &&
              ck__device_shares_between_processes(&run->devices[0]) &&
              spread->ring && spread->crossing && ck__peer_enabled() &&
              !ck__setting_off("CLKIT_IPC") &&
              ck__ipc_device_identity(&run->devices[0], mine.gpu) == CK_OK &&
              gethostname(mine.host, sizeof mine.host - 1) == 0;
  all = calloc(spread->count, sizeof mine);
  CK_TRY(agree(spread,
               all ? CK_OK
                   : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof mine, all));
  int able = 1;
  for (size_t m = 0; m < spread->count; ++m) {
    able = able && all[m].able && strcmp(all[m].host, all[0].host) == 0;
    for (size_t k = 0; k < m; ++k)
      able = able && memcmp(all[m].gpu, all[k].gpu, sizeof mine.gpu) != 0;
  }
  *wanted = able;
fail:
  free(all);
  return status;
}

/* What a process's member hands to the next (CUDA IPC): its counts',
 * relay's and relay fitness's handles, and its islands. */
typedef struct across_ticket {
  unsigned char handles[3][CK__IPC_HANDLE_BYTES];
  uint64_t islands;
  uint32_t failed, unused;
} across_ticket;

/* Between processes, once the members are set up (collective): each
 * opens its previous member's buffers; *span, the rounds' span: their
 * launches' where every member could, else 1. */
static ck_status open_across(ck__ga_spread *spread, uint32_t *span) {
  ck_status status = CK_OK, made = CK_OK;
  ck__spread_run *run = &spread->run;
  ga_state *state = &spread->members[0].ga->state;
  ck_buffer *buffers[3] = {state->native_crossed, state->native_relay,
                           state->native_relay_fitness};
  across_ticket mine, from;
  memset(&mine, 0, sizeof mine);
  memset(&from, 0, sizeof from);
  if (!state->across)
    made = CK_ERROR_UNSUPPORTED;
  for (int k = 0; k < 3 && made == CK_OK; ++k)
    made = ck__ipc_buffer_handle(buffers[k], mine.handles[k]);
  mine.islands = state->islands;
  mine.failed = made != CK_OK;
  const void *send[1] = {&mine};
  void *receive[1] = {&from};
  CK_TRY(ck__exchange_ring(run->exchange, send, receive, sizeof mine));
  if (made == CK_OK && from.failed)
    made = CK_ERROR_UNSUPPORTED;
  for (int k = 0; k < 3 && made == CK_OK; ++k)
    made =
        ck__ipc_buffer_open(state->queue, from.handles[k], &spread->opened[k]);
  if (made == CK_OK)
    point_at_previous(state, spread->opened[0], spread->opened[1],
                      spread->opened[2], from.islands);
  /* Where any process could not, every round stops at each migration. */
  double failed = made != CK_OK, any = 0;
  const double *rows[1] = {&failed};
  CK_TRY(ck__exchange_sum(run->exchange, rows, &any, 1));
  *span = any > 0 ? 1 : state->span_segments;
fail:
  return status;
}

static void close_across(ck__ga_spread *spread) {
  for (int k = 0; k < 3; ++k)
    if (spread->opened[k]) {
      ck__ipc_buffer_close(&spread->run.devices[0], spread->opened[k]);
      spread->opened[k] = 0;
    }
}

ck_status ck__ga_spread_create(const ck_spread *given,
                               const ck_ga_config *config, ck__ga_spread **made,
                               uint32_t *stats_capacity,
                               uint32_t *span_segments) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = calloc(1, sizeof *spread);
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin_shared(given, "islands", &spread->run));
  ck__spread_run *run = &spread->run;
  spread->count = ck__exchange_members(run->exchange);
  create_call call = {.spread = spread, .run_islands = config->islands};
  int measure = !given->shares && spread->count > 1;
  if (measure)
    CK_TRY(probe(spread, config, &call));
  CK_TRY(ck__spread_deal(run, given, config->islands, 1,
                         measure ? call.speeds : NULL));
  CK_TRY(learn_slices(spread, config->islands));
  /* Every member reads its statistics as often: the gathered ones fit
   * the buffer one device of the padded islands would keep. */
  spread->stats_capacity =
      ck__ga_stats_capacity(spread->count * (size_t)spread->widest);
  spread->members = calloc(run->local, sizeof *spread->members);
  CK_TRY(agree(spread, spread->members ? CK_OK
                                       : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                                                  "out of host memory")));
  /* The stopping rules are the driver's, over the whole run. */
  ck_ga_config slice = *config;
  slice.has_target = 0;
  slice.max_evaluations = 0;
  slice.keep_island_history = 0;
  slice.progress = NULL;
  call.config = &slice;
  /* Islands too many for their device are known before any member builds
   * its kernels and makes generation 0, which can take many seconds. */
  CK_TRY(ck__spread_each(run, allocate_member, &call));
  const ga_state *state = &spread->members[0].ga->state;
  spread->dim = state->dim;
  spread->ring = state->ring;
  spread->double_precision = state->double_precision;
  spread->migrants = state->migrants;
  spread->real = state->real_size;
  spread->crossing = spread->count > 1 && spread->migrants > 0;
  spread->pack = ck__ga_spread_pack_bytes(spread);
  CK_TRY(agree(spread, open_peers(spread)));
  int between = ck__exchange_ranks(run->exchange) > 1, across = 0;
  if (between)
    CK_TRY(across_processes_wanted(spread, &across));
  else
    across = wants_across(spread);
  for (size_t i = 0; across && i < run->local; ++i)
    spread->members[i].ga->state.across_wanted = 1;
  CK_TRY(ck__spread_each(run, set_up_member, spread));
  /* Between processes where they may not cross GPUs, every round stops
   * at each migration. */
  *span_segments = 1;
  if (between && across)
    CK_TRY(open_across(spread, span_segments));
  else if (!between)
    CK_TRY(agree(spread, wire_across(spread, span_segments)));
  CK_TRY(agree(spread, make_buffers(spread)));
  *stats_capacity = spread->stats_capacity;
  *made = spread;
  return CK_OK;
fail:
  ck__ga_spread_destroy(spread);
  return status;
}

void ck__ga_spread_destroy(ck__ga_spread *spread) {
  if (!spread)
    return;
  /* No copy may still read or write the packs, or another member's
   * buffers. */
  for (size_t i = 0; spread->members && i < spread->run.local; ++i)
    if (spread->members[i].ga)
      ck_queue_finish(spread->members[i].ga->state.queue);
  close_peers(spread);
  close_across(spread);
  for (size_t i = 0; spread->members && i < spread->run.local; ++i) {
    ga_member *m = &spread->members[i];
    if (m->ga) {
      ck__host_free(m->ga->state.queue, m->out);
      ck__host_free(m->ga->state.queue, m->in);
    }
    ck_ga_destroy(m->ga);
  }
  free(spread->members);
  free(spread->firsts);
  free(spread->units);
  free(spread->genes);
  free(spread->gathered);
  free(spread->stats);
  free(spread->all_stats);
  free(spread->folded);
  free(spread->all_folded);
  free(spread->rows);
  free(spread->slot_round);
  free(spread->member_best);
  free(spread->member_round);
  ck__spread_end(&spread->run);
  free(spread);
}
