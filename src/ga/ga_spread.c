/*
 * ga_spread.c - one GA over several devices (and processes): each member
 * evolves a contiguous slice of the islands; at each migration every
 * member sends its migrants, those whose island receives on another
 * member cross through the exchange, and every member receives.
 *
 * The result is the one-device GA's, bit for bit, on devices that compute
 * alike: an island draws from its own streams wherever it lives (its
 * number in the whole run), every member plans the run's migrations as
 * one device does, and the best is the least of the members' bests, ties
 * going to the lowest island. The history's mean is the members' means
 * weighted by their islands: one device's to rounding.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "ga/ga_internal.h"

/* A probe's batches of generations hold at most this many. */
#define PROBE_GENERATIONS 32

struct ck__ga_spread {
  ck__spread_run run;
  ck_ga **members; /* local ones */
  size_t count;    /* the run's members */
  /* Every member's slice: its first island and islands. */
  uint64_t *firsts, *units;
  uint32_t widest; /* the most islands a member holds */
  int dim, ring, double_precision;
  uint32_t migrants;
  size_t real; /* bytes a real */
  double best; /* the run's best so far, its island and its genes */
  uint64_t best_island;
  double *genes;
  /* Packs of migrants (ring: an island's; random: the widest member's):
   * every local member's sent and received, and every member's gathered. */
  unsigned char *sent, *received, *gathered;
  /* Statistics: every local member's, padded to the widest, then every
   * member's. */
  unsigned char *stats, *all_stats;
  uint32_t stats_capacity;
  /* Folded statistics: (best, mean) a generation, every local member's,
   * every member's, and the run's. */
  double *folded, *all_folded, *rows;
};

/* Bytes of a pack of `islands` islands' migrants: their genes, then their
 * fitness (the migrant buffers' layouts, island after island). */
static size_t pack_bytes(const ck__ga_spread *spread, size_t islands) {
  return islands * spread->migrants * ((size_t)spread->dim + 1) * spread->real;
}

/* Bytes of an island's migrants' genes. */
static size_t gene_bytes(const ck__ga_spread *spread) {
  return (size_t)spread->migrants * (size_t)spread->dim * spread->real;
}

/* The migrants of `islands` islands from island `from` on, in the set
 * the last emigration wrote, into a pack with room for `room` islands. */
static ck_status read_migrants(const ck__ga_spread *spread, ga_state *state,
                               uint32_t from, uint32_t islands, size_t room,
                               unsigned char *pack) {
  size_t genes = gene_bytes(spread), fitness = spread->migrants * spread->real;
  uint32_t set = state->migrant_set;
  ck_status status =
      ck_buffer_read(state->queue, state->migrant_genes[set], from * genes,
                     islands * genes, pack, CK_BLOCKING, NULL);
  if (status == CK_OK)
    status = ck_buffer_read(state->queue, state->migrant_fitness[set],
                            from * fitness, islands * fitness,
                            pack + room * genes, CK_BLOCKING, NULL);
  return status;
}

/* A pack with room for `room` islands into the first `islands` incoming
 * slots of that set, which the receiving reads. */
static ck_status write_incoming(const ck__ga_spread *spread, ga_state *state,
                                uint32_t islands, size_t room,
                                const unsigned char *pack) {
  size_t genes = gene_bytes(spread), fitness = spread->migrants * spread->real;
  uint32_t set = state->migrant_set;
  ck_status status = ck_buffer_write(state->queue, state->migrant_genes[set],
                                     state->islands * genes, islands * genes,
                                     pack, CK_BLOCKING, NULL);
  if (status == CK_OK)
    status = ck_buffer_write(state->queue, state->migrant_fitness[set],
                             state->islands * fitness, islands * fitness,
                             pack + room * genes, CK_BLOCKING, NULL);
  return status;
}

/* The ring: member m's island 0 receives from the island before it, the
 * last of member m - 1, whose migrants go round the members' ring. */
static ck_status exchange_ring(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t bytes = pack_bytes(spread, 1);
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  const void *send[CK_SPREAD_MAX_LOCAL];
  void *receive[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    ga_state *state = ck__ga_state(spread->members[i]);
    send[i] = spread->sent + i * bytes;
    receive[i] = spread->received + i * bytes;
    statuses[i] = read_migrants(spread, state, state->islands - 1, 1, 1,
                                spread->sent + i * bytes);
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(ck__exchange_ring(run->exchange, send, receive, bytes));
  for (size_t i = 0; i < run->local; ++i)
    statuses[i] = write_incoming(spread, ck__ga_state(spread->members[i]), 1, 1,
                                 spread->received + i * bytes);
  return ck__exchange_agree(run->exchange, statuses);
fail:
  return status;
}

/* The member that holds island `island` of the run. */
static size_t holder_of(const ck__ga_spread *spread, uint64_t island) {
  size_t low = 0, high = spread->count - 1;
  while (low < high) {
    size_t middle = (low + high + 1) / 2;
    if (spread->firsts[middle] <= island)
      low = middle;
    else
      high = middle - 1;
  }
  return low;
}

/* A random cycle: every member's migrants go to all, and each island
 * whose source is another member's takes that source's from them. */
static ck_status exchange_all(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t room = spread->widest, bytes = pack_bytes(spread, room);
  size_t genes = gene_bytes(spread), fitness = spread->migrants * spread->real;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    ga_state *state = ck__ga_state(spread->members[i]);
    pieces[i] = spread->sent + i * bytes;
    statuses[i] = read_migrants(spread, state, 0, state->islands, room,
                                spread->sent + i * bytes);
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(ck__exchange_gather(run->exchange, pieces, bytes, spread->gathered));
  for (size_t i = 0; i < run->local; ++i) {
    ck_ga *member = spread->members[i];
    const uint32_t *sources = ck__ga_sources(member);
    uint32_t islands = (uint32_t)run->units[i];
    unsigned char *pack = spread->received + i * bytes;
    for (uint32_t j = 0; j < islands; ++j) {
      uint64_t from = sources[run->first[i] + j];
      if (from - run->first[i] < islands)
        continue; /* its own island sends */
      size_t holder = holder_of(spread, from);
      size_t at = (size_t)(from - spread->firsts[holder]);
      const unsigned char *held = spread->gathered + holder * bytes;
      memcpy(pack + j * genes, held + at * genes, genes);
      memcpy(pack + room * genes + j * fitness,
             held + room * genes + at * fitness, fitness);
    }
    statuses[i] =
        write_incoming(spread, ck__ga_state(member), islands, room, pack);
  }
  return ck__exchange_agree(run->exchange, statuses);
fail:
  return status;
}

/* The run's best after every member kept its own: the least of the
 * members' bests, ties to the lowest island, where it is below the best
 * so far (as one device keeps it); its holder's genes then go to all. */
static ck_status agree_on_best(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  double values[CK_SPREAD_MAX_LOCAL];
  uint64_t islands[CK_SPREAD_MAX_LOCAL];
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    ga_state *state = ck__ga_state(spread->members[i]);
    uint32_t island = 0;
    statuses[i] = ck__reals_read(state->queue, state->best_value,
                                 spread->double_precision, &values[i], 1);
    if (statuses[i] == CK_OK)
      statuses[i] = ck_buffer_read(state->queue, state->best_index, 0,
                                   sizeof island, &island, CK_BLOCKING, NULL);
    /* A member that found nothing better offers the best so far. */
    if (statuses[i] == CK_OK && values[i] < spread->best)
      islands[i] = run->first[i] + island;
    else {
      values[i] = spread->best;
      islands[i] = spread->best_island;
    }
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  double best = 0;
  uint64_t island = 0;
  size_t holder = 0;
  CK_TRY(ck__exchange_min(run->exchange, values, islands, &best, &island,
                          &holder));
  if (!(best < spread->best))
    return CK_OK;
  spread->best = best;
  spread->best_island = island;
  size_t first = ck__exchange_first(run->exchange);
  ck_status held[CK_SPREAD_MAX_LOCAL] = {0};
  if (holder >= first && holder < first + run->local) {
    ga_state *state = ck__ga_state(spread->members[holder - first]);
    held[holder - first] = ck__reals_read(state->queue, state->best_genes,
                                          spread->double_precision,
                                          spread->genes, (size_t)spread->dim);
  }
  CK_TRY(ck__exchange_agree(run->exchange, held));
  return ck__exchange_broadcast(run->exchange, holder, spread->genes,
                                (size_t)spread->dim * sizeof *spread->genes);
fail:
  return status;
}

ck_status ck__ga_spread_round(ck__ga_spread *spread, uint64_t count,
                              int migrates) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  /* Every member's work is queued before any is waited for. */
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = ck__ga_slice_send(spread->members[i], count, migrates);
    run->compute_s[i] += ck__seconds() - started;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  /* One member holds every source. */
  if (migrates && spread->count > 1)
    CK_TRY(spread->ring ? exchange_ring(spread) : exchange_all(spread));
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = ck__ga_slice_receive(spread->members[i], migrates);
    run->compute_s[i] += ck__seconds() - started;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(agree_on_best(spread));
fail:
  return status;
}

ck_status ck__ga_spread_stats(ck__ga_spread *spread, uint32_t slots,
                              void *stats) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t island = 2 * spread->real, room = spread->widest;
  size_t bytes = (size_t)slots * room * island;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    const unsigned char *own = NULL;
    unsigned char *padded = spread->stats + i * bytes;
    size_t islands = (size_t)run->units[i];
    double started = ck__seconds();
    statuses[i] = ck__ga_slice_stats(spread->members[i], (const void **)&own);
    run->compute_s[i] += ck__seconds() - started;
    for (uint32_t slot = 0; statuses[i] == CK_OK && slot < slots; ++slot)
      memcpy(padded + slot * room * island, own + slot * islands * island,
             islands * island);
    pieces[i] = padded;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(ck__exchange_gather(run->exchange, pieces, bytes, spread->all_stats));
  /* Slot by slot, the members' islands in order: the run's islands. */
  size_t run_islands = (size_t)spread->firsts[spread->count - 1] +
                       spread->units[spread->count - 1];
  for (size_t m = 0; m < spread->count; ++m)
    for (uint32_t slot = 0; slot < slots; ++slot)
      memcpy((unsigned char *)stats +
                 (slot * run_islands + spread->firsts[m]) * island,
             spread->all_stats + m * bytes + slot * room * island,
             spread->units[m] * island);
fail:
  return status;
}

ck_status ck__ga_spread_folded(ck__ga_spread *spread, uint32_t slots,
                               const double **rows) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t pairs = (size_t)slots * 2;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    double *own = spread->folded + i * pairs;
    double started = ck__seconds();
    statuses[i] = ck__ga_slice_folded(spread->members[i], own);
    run->compute_s[i] += ck__seconds() - started;
    pieces[i] = own;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  CK_TRY(ck__exchange_gather(run->exchange, pieces, pairs * sizeof(double),
                             spread->all_folded));
  double islands = (double)(spread->firsts[spread->count - 1] +
                            spread->units[spread->count - 1]);
  for (size_t slot = 0; slot < slots; ++slot) {
    double best = INFINITY, sum = 0;
    for (size_t m = 0; m < spread->count; ++m) {
      const double *pair = spread->all_folded + m * pairs + 2 * slot;
      best = pair[0] < best ? pair[0] : best;
      sum += pair[1] * (double)spread->units[m];
    }
    spread->rows[2 * slot] = best;
    /* One member's mean is the run's as it stands. */
    spread->rows[2 * slot + 1] =
        spread->count == 1 ? spread->all_folded[2 * slot + 1] : sum / islands;
  }
  *rows = spread->rows;
fail:
  return status;
}

static ck_status probe_step(void *context, uint64_t count) {
  ck_ga *ga = context;
  ck_status status = ck_ga_step(ga, count);
  return status ? status : ck_queue_finish(ck__ga_state(ga)->queue);
}

/* Each device's island-generations a second, on a GA of its equal share
 * of the islands (migrating never): the speeds the islands are dealt by. */
static ck_status probe(ck__ga_spread *spread, const ck_spread *given,
                       const ck_ga_config *config, double *speeds) {
  ck__spread_run *run = &spread->run;
  size_t members = ck__exchange_members(run->exchange);
  ck_ga_config trial = *config;
  trial.islands = config->islands / members;
  if (trial.islands < 1)
    trial.islands = 1;
  trial.migrate_every = 0;
  trial.max_evaluations = 0;
  trial.has_target = 0;
  trial.keep_island_history = 0;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    ck_ga *ga = NULL;
    double per_second = 0;
    statuses[i] = ck_ga_create(&given->devices[i], &trial, &ga);
    if (statuses[i] == CK_OK)
      statuses[i] =
          ck__spread_time(probe_step, ga, PROBE_GENERATIONS, &per_second);
    speeds[i] = per_second * (double)trial.islands;
    ck_ga_destroy(ga);
  }
  return ck__exchange_agree(run->exchange, statuses);
}

/* Every member's slice (first island, islands), and the widest. */
static ck_status learn_slices(ck__ga_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  uint64_t local[CK_SPREAD_MAX_LOCAL][2];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  uint64_t *all = calloc(spread->count * 2, sizeof *all);
  spread->firsts = calloc(spread->count, sizeof *spread->firsts);
  spread->units = calloc(spread->count, sizeof *spread->units);
  ck_status made = all && spread->firsts && spread->units
                       ? CK_OK
                       : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {made};
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  for (size_t i = 0; i < run->local; ++i) {
    local[i][0] = run->first[i];
    local[i][1] = run->units[i];
    pieces[i] = local[i];
  }
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof local[0], all));
  for (size_t m = 0; m < spread->count; ++m) {
    spread->firsts[m] = all[2 * m];
    spread->units[m] = all[2 * m + 1];
    if (spread->units[m] > spread->widest)
      spread->widest = (uint32_t)spread->units[m];
  }
fail:
  free(all);
  return status;
}

/* The host memory of exchanges: packs of migrants and of statistics. */
static ck_status make_buffers(ck__ga_spread *spread) {
  size_t local = spread->run.local;
  size_t pack = pack_bytes(spread, spread->ring ? 1 : spread->widest);
  size_t stats =
      (size_t)spread->stats_capacity * spread->widest * 2 * spread->real;
  spread->genes = calloc((size_t)spread->dim, sizeof *spread->genes);
  spread->sent = calloc(local, pack);
  spread->received = calloc(local, pack);
  spread->gathered = spread->ring ? NULL : calloc(spread->count, pack);
  spread->stats = calloc(local, stats);
  spread->all_stats = calloc(spread->count, stats);
  size_t pairs = (size_t)spread->stats_capacity * 2;
  spread->folded = calloc(local * pairs, sizeof *spread->folded);
  spread->all_folded = calloc(spread->count * pairs, sizeof *spread->folded);
  spread->rows = calloc(pairs, sizeof *spread->rows);
  if (!spread->genes || (pack && (!spread->sent || !spread->received)) ||
      (!spread->ring && pack && !spread->gathered) || !spread->stats ||
      !spread->all_stats || !spread->folded || !spread->all_folded ||
      !spread->rows)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for a spread GA's exchanges");
  return CK_OK;
}

ck_status ck__ga_spread_create(const ck_spread *given,
                               const ck_ga_config *config, ck__ga_spread **made,
                               uint32_t *stats_capacity) {
  ck_status status = CK_OK;
  ck__ga_spread *spread = calloc(1, sizeof *spread);
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin(given, "islands", &spread->run));
  ck__spread_run *run = &spread->run;
  spread->count = ck__exchange_members(run->exchange);
  spread->best = INFINITY;
  spread->best_island = UINT64_MAX;
  double speeds[CK_SPREAD_MAX_LOCAL];
  int measure = !given->shares && spread->count > 1;
  if (measure)
    CK_TRY(probe(spread, given, config, speeds));
  CK_TRY(
      ck__spread_deal(run, given, config->islands, 1, measure ? speeds : NULL));
  CK_TRY(learn_slices(spread));
  /* Every member reads its statistics as often: the gathered ones fit
   * the buffer one device of the padded islands would keep. */
  spread->stats_capacity =
      ck__ga_stats_capacity(spread->count * (size_t)spread->widest);
  spread->members = calloc(run->local, sizeof *spread->members);
  if (!spread->members)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* The stopping rules are the driver's, over the whole run. */
  ck_ga_config slice = *config;
  slice.has_target = 0;
  slice.max_evaluations = 0;
  slice.keep_island_history = 0;
  slice.progress = NULL;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    const ck__ga_slice share = {(uint32_t)run->first[i],
                                (uint32_t)config->islands,
                                spread->stats_capacity};
    slice.islands = run->units[i];
    double started = ck__seconds();
    statuses[i] = ck__ga_slice_allocate(&given->devices[i], &slice, &share,
                                        &spread->members[i]);
    if (statuses[i] == CK_OK)
      run->queues[i] = ck__ga_state(spread->members[i])->queue;
    run->compute_s[i] += ck__seconds() - started;
  }
  /* Islands too many for their device are known before any member builds
   * its kernels and makes generation 0, which can take many seconds. */
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = ck__ga_slice_set_up(spread->members[i]);
    run->compute_s[i] += ck__seconds() - started;
  }
  CK_TRY(ck__exchange_agree(run->exchange, statuses));
  ga_state *state = ck__ga_state(spread->members[0]);
  spread->dim = state->dim;
  spread->ring = state->ring;
  spread->double_precision = state->double_precision;
  spread->migrants = state->migrants;
  spread->real = state->real_size;
  ck_status buffers[CK_SPREAD_MAX_LOCAL] = {make_buffers(spread)};
  CK_TRY(ck__exchange_agree(run->exchange, buffers));
  /* Generation 0's best, as one device keeps it at creation. */
  CK_TRY(agree_on_best(spread));
  *stats_capacity = spread->stats_capacity;
  *made = spread;
  return CK_OK;
fail:
  ck__ga_spread_destroy(spread);
  return status;
}

ck_status ck__ga_spread_slowest(ck__ga_spread *spread, const double *mine,
                                double *slowest, size_t count) {
  return ck__spread_largest(&spread->run, mine, slowest, count);
}

ck_status ck__ga_spread_best(ck__ga_spread *spread, double *value,
                             double *position) {
  if (value)
    *value = spread->best;
  if (position)
    memcpy(position, spread->genes, (size_t)spread->dim * sizeof *position);
  return CK_OK;
}

double ck__ga_spread_kernel_seconds(ck__ga_spread *spread) {
  return ck__spread_kernel_seconds(&spread->run);
}

ck_status ck__ga_spread_report(ck__ga_spread *spread, ck_result *result) {
  return ck__spread_report_queues(&spread->run, result);
}

int ck__ga_spread_rank(const ck__ga_spread *spread) {
  return spread ? ck__exchange_rank(spread->run.exchange) : 0;
}

void ck__ga_spread_destroy(ck__ga_spread *spread) {
  if (!spread)
    return;
  for (size_t i = 0; spread->members && i < spread->run.local; ++i)
    ck_ga_destroy(spread->members[i]);
  free(spread->members);
  free(spread->firsts);
  free(spread->units);
  free(spread->genes);
  free(spread->sent);
  free(spread->received);
  free(spread->gathered);
  free(spread->stats);
  free(spread->all_stats);
  free(spread->folded);
  free(spread->all_folded);
  free(spread->rows);
  ck__spread_end(&spread->run);
  free(spread);
}
