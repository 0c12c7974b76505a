/*
 * aco_spread.c - one ant colony over several devices (and processes).
 *
 * One colony (spread_colonies 0): each member builds and improves the
 * tours of a contiguous slice of the ants, drawing from the random streams
 * of their indices in the whole colony. After each iteration's
 * construction and local search the members agree on what one device
 * would do with the tours: the iteration-best ant (least length, ties to
 * the lowest index), the tour that deposits (sent by the member that holds
 * it), ACS's edge counts (summed), the ants local search takes when it
 * takes the best few (ranked over all lengths), and partitioning (done by
 * member 0, its result sent to all). Every member then applies the same
 * deposit and update to its own pheromone, which stays identical, so the
 * run is the one-device run bit for bit on devices that compute alike.
 *
 * Colonies (spread_colonies K): each member runs a colony of its own on
 * its slice of the ants; the best tour of all is the run's, and every K
 * iterations each colony whose best is longer adopts it and deposits it.
 */
#include <stdlib.h>
#include <string.h>

#include "aco/aco_internal.h"
#include "framework/spread.h"

/* An ant of the whole colony, as ranking for local search orders them. */
typedef struct ranked_ant {
  int64_t length;
  uint64_t ant;
} ranked_ant;

struct ck__aco_spread {
  ck__spread_run run;
  ck_aco **members; /* this process's */
  uint32_t n, ants; /* cities; ants in the whole colony */
  uint32_t every;   /* spread_colonies: 0 for one colony */
  uint32_t entries; /* candidate entries, n * k */
  int local_search, acs;
  /* One colony whose local search takes the best few: how many, over all
   * members (0: every ant, each member its own). */
  uint32_t search_ants;
  uint64_t *firsts; /* every member's first ant, then the colony's ants */
  uint32_t widest;  /* the largest slice */
  /* The tour that crosses members, and its ant (CK__ACO_BEST: none yet
   * this iteration). */
  uint32_t *tour;
  uint32_t tour_ant;
  /* Ranking: this process's members' lengths, then every member's, each
   * padded to the widest slice; the keys of all ants; a member's list. */
  int64_t *local_lengths, *lengths;
  ranked_ant *ranked;
  uint32_t *listed;
  /* ACS: each local member's edge counts and their sum, as doubles; one
   * member's as read. */
  double *uses;
  uint32_t *counts;
};

static aco_state *state_of(ck__aco_spread *spread, size_t i) {
  return ck__aco_state(spread->members[i]);
}

static const ck__aco_steps *steps_of(const ck__aco_spread *spread, size_t i) {
  return ck__aco_steps_of(spread->members[i]);
}

/* Member i's seconds since `started`, added to its compute time. */
static void timed(ck__aco_spread *spread, size_t i, double started) {
  spread->run.compute_s[i] += ck__seconds() - started;
}

static ck_status agree(ck__aco_spread *spread, const ck_status *statuses) {
  return ck__exchange_agree(spread->run.exchange, statuses);
}

/* The member that holds ant `ant` of the colony. */
static size_t member_of(const ck__aco_spread *spread, uint32_t ant) {
  size_t member = 0;
  size_t members = ck__exchange_members(spread->run.exchange);
  while (member + 1 < members && spread->firsts[member + 1] <= ant)
    ++member;
  return member;
}

/* ---- creation ------------------------------------------------------------ */

/* The colony's ants: the configuration's, or each member's automatic
 * count summed (at most the ants a configuration may give). */
static ck_status count_ants(ck__aco_spread *spread, const ck_spread *given,
                            const ck_aco_config *config, uint64_t *total) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  double mine[CK_SPREAD_MAX_LOCAL], sum = 0;
  const double *pieces[CK_SPREAD_MAX_LOCAL];
  *total = config->ants;
  if (config->ants)
    return CK_OK;
  for (size_t i = 0; i < run->local; ++i) {
    mine[i] = ck__aco_automatic_ants(&given->devices[i], spread->n, 0,
                                     CK_ACO_SOURCE_BEST);
    pieces[i] = &mine[i];
  }
  CK_TRY(ck__exchange_sum(run->exchange, pieces, &sum, 1));
  double most = ck__aco_fields[CK__ACO_ANTS].maximum;
  *total = (uint64_t)(sum < most ? sum : most);
fail:
  return status;
}

/* Iterations a probe's batch holds, at most. */
#define PROBE_ITERATIONS 8

/* The settings of a member's colony: the driver alone keeps the trace,
 * watches the target and reports progress. */
static ck_aco_config member_config(const ck_aco_config *config) {
  ck_aco_config member = *config;
  member.keep_trace = 0;
  member.has_target = 0;
  member.progress = NULL;
  member.progress_user = NULL;
  member.spread_colonies = 0;
  return member;
}

/* A probe's step: `count` iterations of a trial colony, waited for. */
static ck_status probe_step(void *context, uint64_t count) {
  ck_aco *aco = context;
  ck_status status = ck_aco_step(aco, count);
  return status ? status : ck_queue_finish(ck__aco_state(aco)->queue);
}

/* Each device's ant-iterations a second, on a colony of its equal share
 * after a first iteration: the speeds the ants are dealt by. */
static ck_status probe(ck__aco_spread *spread, const ck_spread *given,
                       const ck_tsp_instance *instance,
                       const ck_aco_config *config, uint64_t total,
                       double *speeds) {
  ck__spread_run *run = &spread->run;
  size_t members = ck__exchange_members(run->exchange);
  ck_aco_config trial = member_config(config);
  trial.ants = (uint32_t)(total / members > 0 ? total / members : 1);
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    ck_aco *aco = NULL;
    double per_second = 0;
    statuses[i] =
        ck__aco_create_slice(&given->devices[i], instance, &trial, 0, &aco);
    if (statuses[i] == CK_OK)
      statuses[i] =
          ck__spread_time(probe_step, aco, PROBE_ITERATIONS, &per_second);
    speeds[i] = per_second * (double)trial.ants;
    ck_aco_destroy(aco);
  }
  return agree(spread, statuses);
}

/* Every member's first ant, from the slices all processes were dealt. */
static ck_status learn_slices(ck__aco_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t members = ck__exchange_members(run->exchange);
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  uint64_t *units = calloc(members, sizeof *units);
  spread->firsts = calloc(members + 1, sizeof *spread->firsts);
  if (!units || !spread->firsts)
    status = ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(agree(spread, (ck_status[CK_SPREAD_MAX_LOCAL]){status}));
  for (size_t i = 0; i < run->local; ++i)
    pieces[i] = &run->units[i];
  CK_TRY(ck__exchange_gather(run->exchange, pieces, sizeof *units, units));
  for (size_t m = 0; m < members; ++m) {
    spread->firsts[m + 1] = spread->firsts[m] + units[m];
    if (units[m] > spread->widest)
      spread->widest = (uint32_t)units[m];
  }
fail:
  free(units);
  return status;
}

/* The host's room for what crosses members each iteration. */
static ck_status allocate(ck__aco_spread *spread) {
  size_t members = ck__exchange_members(spread->run.exchange);
  size_t local = spread->run.local, entries = spread->entries;
  spread->tour = malloc((size_t)spread->n * sizeof *spread->tour);
  int fine = spread->tour != NULL;
  if (spread->search_ants) {
    spread->local_lengths =
        malloc(local * spread->widest * sizeof *spread->local_lengths);
    spread->lengths =
        malloc(members * spread->widest * sizeof *spread->lengths);
    spread->ranked = malloc((size_t)spread->ants * sizeof *spread->ranked);
    spread->listed = malloc((size_t)spread->widest * sizeof *spread->listed);
    fine = fine && spread->local_lengths && spread->lengths && spread->ranked &&
           spread->listed;
  }
  if (spread->acs && members > 1) {
    spread->uses = malloc((local + 1) * entries * sizeof *spread->uses);
    spread->counts = malloc(entries * sizeof *spread->counts);
    fine = fine && spread->uses && spread->counts;
  }
  ck_status status =
      fine ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  return agree(spread, (ck_status[CK_SPREAD_MAX_LOCAL]){status});
}

ck_status ck__aco_spread_create(const ck_spread *given,
                                const ck_tsp_instance *instance,
                                const ck_aco_config *config,
                                ck__aco_spread **made) {
  ck_status status = CK_OK;
  *made = NULL;
  ck__aco_spread *spread = calloc(1, sizeof *spread);
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__spread_begin(given, "ants", &spread->run));
  ck__spread_run *run = &spread->run;
  spread->n = instance->cities;
  spread->every = config->spread_colonies;
  spread->tour_ant = CK__ACO_BEST;
  spread->members = calloc(run->local, sizeof *spread->members);
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {0};
  if (!spread->members)
    statuses[0] = ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(agree(spread, statuses));
  uint64_t total = 0;
  CK_TRY(count_ants(spread, given, config, &total));
  double speeds[CK_SPREAD_MAX_LOCAL];
  /* Too few ants to deal: refused by the deal, unprobed. */
  size_t members = ck__exchange_members(run->exchange);
  int measure = !given->shares && members > 1 && total >= members;
  if (measure)
    CK_TRY(probe(spread, given, instance, config, total, speeds));
  CK_TRY(ck__spread_deal(run, given, total, 1, measure ? speeds : NULL));
  spread->ants = (uint32_t)total;
  ck_aco_config slice = member_config(config);
  /* One colony ranks its ants for local search over all members. */
  int ranked = config->local_search != CK_ACO_LS_NONE &&
               config->local_search_ants && config->local_search_ants < total;
  if (!spread->every && ranked) {
    spread->search_ants = config->local_search_ants;
    slice.local_search_ants = 0;
  }
  for (size_t i = 0; i < run->local; ++i) {
    slice.ants = (uint32_t)run->units[i];
    double started = ck__seconds();
    statuses[i] =
        ck__aco_slice_allocate(&given->devices[i], instance, &slice,
                               (uint32_t)run->first[i], &spread->members[i]);
    timed(spread, i, started);
    if (statuses[i] == CK_OK)
      run->queues[i] = state_of(spread, i)->queue;
  }
  /* Ants too many for their device are known before any member builds
   * its kernels, which can take many seconds. */
  CK_TRY(agree(spread, statuses));
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = ck__aco_slice_set_up(spread->members[i]);
    timed(spread, i, started);
  }
  CK_TRY(agree(spread, statuses));
  const aco_state *state = state_of(spread, 0);
  spread->entries = state->n * state->k;
  spread->local_search = state->local_search;
  spread->acs = state->algorithm == CK_ACO_ACS && !spread->every;
  CK_TRY(learn_slices(spread));
  CK_TRY(allocate(spread));
  *made = spread;
  return CK_OK;
fail:
  ck__aco_spread_destroy(spread);
  return status;
}

const ck_aco *ck__aco_spread_member(const ck__aco_spread *spread) {
  return spread->members[0];
}

uint32_t ck__aco_spread_ants(const ck__aco_spread *spread) {
  return spread->ants;
}

int ck__aco_spread_colonies(const ck__aco_spread *spread) {
  return spread->every != 0;
}

/* ---- one colony ---------------------------------------------------------- */

static int by_length_then_ant(const void *a, const void *b) {
  const ranked_ant *x = a, *y = b;
  if (x->length != y->length)
    return x->length < y->length ? -1 : 1;
  return x->ant < y->ant ? -1 : x->ant > y->ant;
}

/* Local search on the best search_ants tours of the colony by (length,
 * ant), as one device ranks them: every member's lengths go to all, and
 * each member improves those of its ants that rank. */
static ck_status search_best(ck__aco_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t members = ck__exchange_members(run->exchange);
  uint32_t widest = spread->widest;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    int64_t *mine = spread->local_lengths + i * widest;
    uint32_t units = (uint32_t)run->units[i];
    double started = ck__seconds();
    statuses[i] =
        ck_buffer_read(state_of(spread, i)->queue, state_of(spread, i)->lengths,
                       0, units * sizeof *mine, mine, CK_BLOCKING, NULL);
    timed(spread, i, started);
    for (uint32_t a = units; a < widest; ++a)
      mine[a] = INT64_MAX;
    pieces[i] = mine;
  }
  CK_TRY(agree(spread, statuses));
  CK_TRY(ck__exchange_gather(run->exchange, pieces,
                             widest * sizeof *spread->lengths,
                             spread->lengths));
  size_t count = 0;
  for (size_t m = 0; m < members; ++m)
    for (uint64_t a = 0; a < spread->firsts[m + 1] - spread->firsts[m]; ++a) {
      spread->ranked[count].length = spread->lengths[m * widest + a];
      spread->ranked[count++].ant = spread->firsts[m] + a;
    }
  qsort(spread->ranked, count, sizeof *spread->ranked, by_length_then_ant);
  const ranked_ant *last = &spread->ranked[spread->search_ants - 1];
  for (size_t i = 0; i < run->local; ++i) {
    const int64_t *mine = spread->local_lengths + i * widest;
    uint32_t listed = 0;
    for (uint32_t a = 0; a < run->units[i]; ++a) {
      ranked_ant key = {mine[a], run->first[i] + a};
      if (by_length_then_ant(&key, last) <= 0)
        spread->listed[listed++] = a;
    }
    double started = ck__seconds();
    statuses[i] = listed ? steps_of(spread, i)->local_search(
                               state_of(spread, i), spread->listed, listed)
                         : CK_OK;
    timed(spread, i, started);
  }
  return agree(spread, statuses);
fail:
  return status;
}

ck_status ck__aco_spread_construct(ck__aco_spread *spread, uint64_t iteration) {
  ck_status status = CK_OK;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  spread->tour_ant = CK__ACO_BEST;
  /* Every member's work is queued before any is waited for. */
  for (size_t i = 0; i < spread->run.local; ++i) {
    double started = ck__seconds();
    aco_state *state = state_of(spread, i);
    statuses[i] = steps_of(spread, i)->construct(state, iteration);
    if (statuses[i] == CK_OK && spread->local_search && !spread->search_ants)
      statuses[i] = steps_of(spread, i)->local_search(state, NULL, 0);
    timed(spread, i, started);
  }
  CK_TRY(agree(spread, statuses));
  if (spread->local_search && spread->search_ants)
    CK_TRY(search_best(spread));
fail:
  return status;
}

ck_status ck__aco_spread_iteration_best(ck__aco_spread *spread, int64_t *length,
                                        uint32_t *ant) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  double values[CK_SPREAD_MAX_LOCAL];
  uint64_t indices[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    int64_t mine = INT64_MAX;
    uint32_t at = 0;
    double started = ck__seconds();
    statuses[i] =
        steps_of(spread, i)->iteration_best(state_of(spread, i), &mine, &at);
    timed(spread, i, started);
    /* Lengths are whole numbers far below 2^53: exact as doubles. */
    values[i] = (double)mine;
    indices[i] = run->first[i] + at;
  }
  CK_TRY(agree(spread, statuses));
  double best = 0;
  uint64_t index = 0;
  size_t holder = 0;
  CK_TRY(
      ck__exchange_min(run->exchange, values, indices, &best, &index, &holder));
  *length = (int64_t)best;
  *ant = (uint32_t)index;
fail:
  return status;
}

/* Ant `ant`'s tour into spread->tour on every process, from the member
 * that holds it (once an iteration). */
static ck_status fetch(ck__aco_spread *spread, uint32_t ant) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  if (spread->tour_ant == ant)
    return CK_OK;
  size_t holder = member_of(spread, ant);
  size_t first = ck__exchange_first(run->exchange);
  size_t bytes = (size_t)spread->n * sizeof *spread->tour;
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {0};
  if (holder >= first && holder < first + run->local) {
    size_t i = holder - first;
    statuses[i] =
        ck_buffer_read(state_of(spread, i)->queue, state_of(spread, i)->tours,
                       (size_t)(ant - spread->firsts[holder]) * bytes, bytes,
                       spread->tour, CK_BLOCKING, NULL);
  }
  CK_TRY(agree(spread, statuses));
  CK_TRY(ck__exchange_broadcast(run->exchange, holder, spread->tour, bytes));
  spread->tour_ant = ant;
fail:
  return status;
}

/* n words into the buffer at byte `offset` of every local member's state
 * (best_tour, best_positions), but local member `skip`'s (run.local:
 * none), which has them already. */
static ck_status write_all(ck__aco_spread *spread, size_t offset,
                           const uint32_t *words, size_t skip) {
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {0};
  for (size_t i = 0; i < spread->run.local; ++i) {
    aco_state *state = state_of(spread, i);
    ck_buffer *buffer = *(ck_buffer **)((char *)state + offset);
    if (i != skip)
      statuses[i] = ck_buffer_write(state->queue, buffer, 0,
                                    (size_t)spread->n * sizeof *words, words,
                                    CK_BLOCKING, NULL);
  }
  return agree(spread, statuses);
}

ck_status ck__aco_spread_keep_best(ck__aco_spread *spread, uint32_t ant,
                                   uint32_t *tour) {
  ck_status status = fetch(spread, ant);
  if (status)
    return status;
  memcpy(tour, spread->tour, (size_t)spread->n * sizeof *tour);
  return write_all(spread, offsetof(aco_state, best_tour), tour,
                   spread->run.local);
}

ck_status ck__aco_spread_seed(ck__aco_spread *spread, const uint32_t *positions,
                              int seeded) {
  /* Colonies keep their own best tours. */
  if (spread->every)
    return CK_OK;
  for (size_t i = 0; i < spread->run.local; ++i)
    state_of(spread, i)->seeded = seeded;
  return write_all(spread, offsetof(aco_state, best_positions), positions,
                   spread->run.local);
}

/* Member 0 partitions the best tour, which every member holds alike, and
 * sends its gain and, where it gained, the tour to all. */
ck_status ck__aco_spread_partition(ck__aco_spread *spread, uint32_t size,
                                   uint32_t offset, uint64_t pass,
                                   uint32_t *tour, int64_t *gain) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {0};
  int holds = ck__exchange_first(run->exchange) == 0;
  *gain = 0;
  if (holds) {
    double started = ck__seconds();
    statuses[0] = steps_of(spread, 0)->partition(state_of(spread, 0), size,
                                                 offset, pass, tour, gain);
    timed(spread, 0, started);
  }
  CK_TRY(agree(spread, statuses));
  CK_TRY(ck__exchange_broadcast(run->exchange, 0, gain, sizeof *gain));
  if (*gain <= 0)
    return CK_OK;
  CK_TRY(ck__exchange_broadcast(run->exchange, 0, tour,
                                (size_t)spread->n * sizeof *tour));
  CK_TRY(write_all(spread, offsetof(aco_state, best_tour), tour,
                   holds ? 0 : run->local));
fail:
  return status;
}

ck_status ck__aco_spread_deposit(ck__aco_spread *spread, uint32_t ant,
                                 float scale, float amount) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  if (ant != CK__ACO_BEST)
    CK_TRY(fetch(spread, ant));
  for (size_t i = 0; i < run->local; ++i) {
    aco_state *state = state_of(spread, i);
    uint32_t slot = ant;
    double started = ck__seconds();
    statuses[i] = CK_OK;
    if (ant != CK__ACO_BEST && ant >= run->first[i] &&
        ant - run->first[i] < run->units[i]) {
      slot = (uint32_t)(ant - run->first[i]);
    } else if (ant != CK__ACO_BEST) {
      /* Another member's ant: its tour into slot 0, whose own the next
       * construction overwrites anyway. */
      slot = 0;
      statuses[i] = ck_buffer_write(state->queue, state->tours, 0,
                                    (size_t)spread->n * sizeof(uint32_t),
                                    spread->tour, CK_BLOCKING, NULL);
    }
    if (statuses[i] == CK_OK)
      statuses[i] = steps_of(spread, i)->deposit(state, slot, scale, amount);
    timed(spread, i, started);
  }
  CK_TRY(agree(spread, statuses));
fail:
  return status;
}

/* ACS: every member's counts of the ants' edges, summed, to all, so that
 * each applies the local update of the whole colony. Sums of whole
 * numbers below 2^53 are exact in any order. */
static ck_status sum_uses(ck__aco_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  size_t entries = spread->entries;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  const double *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < run->local; ++i) {
    aco_state *state = state_of(spread, i);
    double *mine = spread->uses + i * entries;
    statuses[i] = ck_buffer_read(state->queue, state->uses, 0,
                                 entries * sizeof *spread->counts,
                                 spread->counts, CK_BLOCKING, NULL);
    for (size_t e = 0; e < entries; ++e)
      mine[e] = spread->counts[e];
    pieces[i] = mine;
  }
  CK_TRY(agree(spread, statuses));
  double *sum = spread->uses + run->local * entries;
  CK_TRY(ck__exchange_sum(run->exchange, pieces, sum, entries));
  for (size_t e = 0; e < entries; ++e)
    spread->counts[e] = (uint32_t)sum[e];
  for (size_t i = 0; i < run->local; ++i) {
    aco_state *state = state_of(spread, i);
    statuses[i] = ck_buffer_write(state->queue, state->uses, 0,
                                  entries * sizeof *spread->counts,
                                  spread->counts, CK_BLOCKING, NULL);
  }
  CK_TRY(agree(spread, statuses));
fail:
  return status;
}

ck_status ck__aco_spread_update(ck__aco_spread *spread, float keep,
                                float tau_min, float tau_max) {
  ck_status status = CK_OK;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  if (spread->uses)
    CK_TRY(sum_uses(spread));
  for (size_t i = 0; i < spread->run.local; ++i) {
    double started = ck__seconds();
    statuses[i] = steps_of(spread, i)->update(state_of(spread, i), keep,
                                              tau_min, tau_max);
    timed(spread, i, started);
  }
  CK_TRY(agree(spread, statuses));
fail:
  return status;
}

ck_status ck__aco_spread_reset(ck__aco_spread *spread, float tau) {
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < spread->run.local; ++i)
    statuses[i] = steps_of(spread, i)->reset(state_of(spread, i), tau);
  return agree(spread, statuses);
}

/* ---- colonies ------------------------------------------------------------ */

ck_status ck__aco_spread_colonies_step(ck__aco_spread *spread,
                                       int64_t best_length, uint32_t *best_tour,
                                       int *improved) {
  ck_status status = CK_OK;
  ck__spread_run *run = &spread->run;
  ck_status statuses[CK_SPREAD_MAX_LOCAL];
  *improved = 0;
  /* Every colony builds its tours before any is waited for. */
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    statuses[i] = ck__aco_iterate_begin(spread->members[i]);
    timed(spread, i, started);
  }
  for (size_t i = 0; i < run->local; ++i) {
    double started = ck__seconds();
    if (statuses[i] == CK_OK)
      statuses[i] = ck__aco_iterate_end(spread->members[i]);
    timed(spread, i, started);
  }
  CK_TRY(agree(spread, statuses));
  /* The least best of all colonies, ties to the lowest member. */
  double values[CK_SPREAD_MAX_LOCAL], best = 0;
  uint64_t indices[CK_SPREAD_MAX_LOCAL], index = 0;
  size_t first = ck__exchange_first(run->exchange), holder = 0;
  for (size_t i = 0; i < run->local; ++i) {
    values[i] = (double)ck__aco_best_length(spread->members[i]);
    indices[i] = first + i;
  }
  CK_TRY(
      ck__exchange_min(run->exchange, values, indices, &best, &index, &holder));
  if (!(best < (double)best_length))
    return CK_OK;
  ck_status held[CK_SPREAD_MAX_LOCAL] = {0};
  if (holder >= first && holder < first + run->local) {
    int64_t length = 0;
    held[holder - first] =
        ck_aco_get_best(spread->members[holder - first], &length, best_tour);
  }
  CK_TRY(agree(spread, held));
  CK_TRY(ck__exchange_broadcast(run->exchange, holder, best_tour,
                                (size_t)spread->n * sizeof *best_tour));
  *improved = 1;
fail:
  return status;
}

ck_status ck__aco_spread_share(ck__aco_spread *spread, uint64_t made,
                               int64_t best_length, const uint32_t *best_tour) {
  ck_status statuses[CK_SPREAD_MAX_LOCAL] = {0};
  if (made % spread->every)
    return CK_OK;
  for (size_t i = 0; i < spread->run.local; ++i)
    if (ck__aco_best_length(spread->members[i]) > best_length) {
      double started = ck__seconds();
      statuses[i] = ck__aco_adopt(spread->members[i], best_tour);
      timed(spread, i, started);
    }
  return agree(spread, statuses);
}

ck_status ck__aco_spread_restarts(ck__aco_spread *spread, uint64_t *restarts) {
  ck_status status = CK_OK;
  double mine[CK_SPREAD_MAX_LOCAL], sum = 0;
  const double *pieces[CK_SPREAD_MAX_LOCAL];
  if (!spread->every)
    return CK_OK;
  for (size_t i = 0; i < spread->run.local; ++i) {
    mine[i] = (double)ck__aco_restarts(spread->members[i]);
    pieces[i] = &mine[i];
  }
  CK_TRY(ck__exchange_sum(spread->run.exchange, pieces, &sum, 1));
  *restarts = (uint64_t)sum;
fail:
  return status;
}

/* ---- the run ------------------------------------------------------------- */

ck_status ck__aco_spread_latest(ck__aco_spread *spread, double elapsed,
                                double *latest) {
  return ck__spread_largest(&spread->run, &elapsed, latest, 1);
}

double ck__aco_spread_kernel_seconds(ck__aco_spread *spread) {
  return ck__spread_kernel_seconds(&spread->run);
}

ck_status ck__aco_spread_report(ck__aco_spread *spread, ck_result *result) {
  return ck__spread_report_queues(&spread->run, result);
}

int ck__aco_spread_rank(const ck__aco_spread *spread) {
  return spread ? ck__exchange_rank(spread->run.exchange) : 0;
}

void ck__aco_spread_destroy(ck__aco_spread *spread) {
  if (!spread)
    return;
  for (size_t i = 0; spread->members && i < spread->run.local; ++i)
    ck_aco_destroy(spread->members[i]);
  free(spread->members);
  free(spread->firsts);
  free(spread->tour);
  free(spread->local_lengths);
  free(spread->lengths);
  free(spread->ranked);
  free(spread->listed);
  free(spread->uses);
  free(spread->counts);
  ck__spread_end(&spread->run);
  free(spread);
}
