/*
 * aco_members.c - an ant colony's members (framework/engine.h), over one
 * device or several (and processes).
 *
 * One colony (spread_colonies 0): each member builds and improves the
 * tours of a contiguous slice of the ants, drawing from the random streams
 * of their indices in the whole colony. After each iteration's
 * construction and local search the members agree on what one device
 * would do with the tours: the iteration-best ant (least length, ties to
 * the lowest index), the tour that deposits (sent by the member that holds
 * it) and partitioning (done by member 0, its result sent to all). Every
 * member then applies the same deposit and update to its own pheromone,
 * which stays identical, so the run is the one-device run bit for bit on
 * devices that compute alike. The focused method: every member holds the
 * best tour, which its ants copy and change, and the new best tour goes
 * to all when it improves. The focused start's searches run on member 0,
 * which holds ant 0.
 *
 * A colony on one device is a colony of one member: it ranks its own
 * ants, adapts its own bound and may copy any source, as the whole
 * colony on one device does. aco_spread.c holds what only several
 * members do: the probe, ranking and adapting over all of them, ACS's
 * summed edge counts and colonies of their own.
 *
 * Their device work runs in phases, on every local member at once
 * (ck__engine_each); what crosses between members crosses on the calling
 * thread, between phases.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "aco/aco_members.h"
#include "ck_aco.h"

/* ---- creation ------------------------------------------------------------ */

/* The method every member runs: auto chooses focused where each member's
 * device alone would, else classic. */

static ck_status choose_method(ck__aco_spread *spread, ck_aco_config *config) {
  ck_status status = CK_OK;
  ck__spread_run *run = spread->run;
  double classic[CK_SPREAD_MAX_LOCAL], sum = 0;
  if (config->method != CK_ACO_METHOD_AUTO)
    return CK_OK;
  for (size_t i = 0; i < run->local; ++i)
    classic[i] = ck__aco_method_for(&run->devices[i], spread->n,
                                    CK_ACO_METHOD_AUTO) == CK_ACO_CLASSIC;
  CK_TRY(ck__exchange_sum_rows(run->exchange, classic, 1, &sum, 1));
  config->method = sum > 0 ? CK_ACO_CLASSIC : CK_ACO_FOCUSED;
fail:
  return status;
}

/* The colony's ants: the configuration's, or each member's automatic
 * count summed (at most the ants a configuration may give). */
static ck_status count_ants(ck__aco_spread *spread, const ck_aco_config *config,
                            uint64_t *total) {
  ck_status status = CK_OK;
  ck__spread_run *run = spread->run;
  double mine[CK_SPREAD_MAX_LOCAL], sum = 0;
  *total = config->ants;
  if (config->ants)
    return CK_OK;
  for (size_t i = 0; i < run->local; ++i)
    mine[i] = ck__aco_automatic_ants(&run->devices[i], spread->n,
                                     config->method == CK_ACO_FOCUSED,
                                     config->focus_source);
  CK_TRY(ck__exchange_sum_rows(run->exchange, mine, 1, &sum, 1));
  double most = ck__aco_fields[CK__ACO_ANTS].maximum;
  *total = (uint64_t)(sum < most ? sum : most);
fail:
  return status;
}

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

/* A member's slice: its settings, the memory check, its queue and the
 * graph and colony on its device. */
static ck_status allocate(void *self, const ck__engine_member *member,
                          ck_queue **queue) {
  ck__aco_spread *spread = self;
  ck_aco_config slice = spread->making->config;
  slice.ants = (uint32_t)member->units;
  ck_aco **made = &spread->members[member->index];
  ck_status status =
      ck__aco_slice_allocate(member->device, spread->making->instance, &slice,
                             (uint32_t)member->first, made);
  if (status == CK_OK)
    *queue = ck__aco_state(*made)->queue;
  return status;
}

/* A member's kernels and first pheromone. */
static ck_status set_up(void *self, size_t i) {
  return ck__aco_slice_set_up(((ck__aco_spread *)self)->members[i]);
}

static void teardown(void *self, size_t i) {
  ck__aco_spread *spread = self;
  ck_aco_destroy(spread->members[i]);
  spread->members[i] = NULL;
}

/* The ACO's members for the engine: each holds a slice of the ants, and
 * its phases go through ck__engine_each. */
static const ck__engine_kind aco_kind = {.unit_name = "ants",
                                         .granule = 1,
                                         .probe = ck__aco_spread_probe,
                                         .allocate = allocate,
                                         .set_up = set_up,
                                         .teardown = teardown};

/* The host's room for what crosses members each iteration. */
static ck_status allocate_room(ck__aco_spread *spread) {
  size_t members = ck__engine_members(spread->engine);
  size_t local = spread->run->local, entries = spread->entries;
  size_t widest = spread->widest;
  spread->tour = malloc((size_t)spread->n * sizeof *spread->tour);
  int fine = spread->tour != NULL;
  if (spread->search_ants || spread->adaptive) {
    spread->local_lengths =
        malloc(local * widest * sizeof *spread->local_lengths);
    fine = fine && spread->local_lengths;
  }
  if (spread->search_ants) {
    spread->lengths = malloc(members * widest * sizeof *spread->lengths);
    spread->ranked = malloc((size_t)spread->ants * sizeof *spread->ranked);
    spread->listed = malloc(local * widest * sizeof *spread->listed);
    fine = fine && spread->lengths && spread->ranked && spread->listed;
  }
  if (spread->acs && members > 1) {
    spread->uses = malloc((local + 1) * entries * sizeof *spread->uses);
    spread->counts = malloc((local + 1) * entries * sizeof *spread->counts);
    fine = fine && spread->uses && spread->counts;
  }
  return fine ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
}

/* The members' settings, from the method and ants they agree on. */
static ck_status settle_config(ck__aco_spread *spread,
                               const ck_aco_config *config, aco_making *make,
                               uint64_t *total) {
  ck_status status = CK_OK;
  ck_aco_config chosen = *config;
  CK_TRY(choose_method(spread, &chosen));
  CK_TRY(count_ants(spread, &chosen, total));
  spread->ants = (uint32_t)*total;
  make->config = make->trial = member_config(&chosen);
  /* One colony of several members ranks its ants for local search over
   * all of them; a member alone ranks its own. */
  int ranked = config->local_search != CK_ACO_LS_NONE &&
               config->local_search_ants &&
               config->local_search_ants < *total &&
               ck__engine_members(spread->engine) > 1;
  if (!spread->every && ranked) {
    spread->search_ants = config->local_search_ants;
    make->config.local_search_ants = 0;
  }
fail:
  return status;
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
  spread->n = instance->cities;
  spread->every = config->spread_colonies;
  spread->tour_ant = CK__ACO_BEST;
  spread->members = calloc(given->device_count, sizeof *spread->members);
  if (!spread->members)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__engine_open(&aco_kind, spread, given, &spread->engine));
  spread->run = ck__engine_run(spread->engine);
  if (config->focus_source != CK_ACO_SOURCE_BEST &&
      ck__engine_members(spread->engine) > 1)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT,
            "ck_aco_config.focus_source: a spread colony's ants copy the "
            "best tour (CK_ACO_SOURCE_BEST)");
  aco_making make = {.instance = instance};
  uint64_t total = 0;
  CK_TRY(settle_config(spread, config, &make, &total));
  /* Ants too many for their device are known before any member builds
   * its kernels, which can take many seconds. */
  spread->making = &make;
  status = ck__engine_populate(spread->engine, total);
  spread->making = NULL;
  CK_TRY(status);
  const aco_state *state = state_of(spread, 0);
  spread->entries = state->n * state->k;
  spread->local_search = state->local_search;
  spread->acs = state->algorithm == CK_ACO_ACS && !spread->every;
  if (ck__engine_members(spread->engine) > 1)
    ck__aco_spread_share_bound(spread);
  spread->widest = (uint32_t)ck__engine_widest(spread->engine);
  CK_TRY(ck__engine_agree(spread->engine, allocate_room(spread)));
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

static ck_status construct_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  aco_state *state = state_of(spread, i);
  state->best_length = spread->arg.length;
  if (spread->adaptive)
    state->focus_bound = spread->bound;
  return ck__aco_construct(spread->members[i], spread->arg.iteration,
                           spread->arg.start,
                           spread->local_search && !spread->search_ants);
}

ck_status ck__aco_spread_construct(ck__aco_spread *spread, uint64_t iteration,
                                   int64_t best_length, int start) {
  ck_status status = CK_OK;
  spread->tour_ant = CK__ACO_BEST;
  /* The last construction was focused, and so is this one. */
  if (spread->adaptive && state_of(spread, 0)->focused)
    CK_TRY(ck__aco_spread_adapt_bound(spread));
  spread->arg.iteration = iteration;
  spread->arg.length = best_length;
  spread->arg.start = start;
  CK_TRY(each(spread, construct_member));
  if (spread->local_search && spread->search_ants && !start)
    CK_TRY(ck__aco_spread_search_best(spread));
fail:
  return status;
}

static ck_status best_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  int64_t mine = INT64_MAX;
  uint32_t at = 0;
  ck_status status =
      steps_of(spread, i)->iteration_best(state_of(spread, i), &mine, &at);
  /* Lengths are whole numbers far below 2^53: exact as doubles. */
  spread->values[i] = (double)mine;
  spread->indices[i] = spread->run->first[i] + at;
  return status;
}

ck_status ck__aco_spread_iteration_best(ck__aco_spread *spread, int64_t *length,
                                        uint32_t *ant) {
  ck_status status = CK_OK;
  CK_TRY(each(spread, best_member));
  double best = 0;
  uint64_t index = 0;
  size_t holder = 0;
  CK_TRY(ck__exchange_min(spread->run->exchange, spread->values,
                          spread->indices, &best, &index, &holder));
  *length = (int64_t)best;
  *ant = (uint32_t)index;
  /* A member alone's focused ants may copy the iteration's best (the
   * sources but the best tour need the whole colony on one device). */
  if (ck__engine_members(spread->engine) == 1) {
    state_of(spread, 0)->iteration_ant = *ant;
    state_of(spread, 0)->iteration_length = *length;
  }
fail:
  return status;
}

/* The tour of arg.ant, read by the local member arg.holder. */
static ck_status fetch_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  aco_state *state = state_of(spread, i);
  size_t bytes = (size_t)spread->n * sizeof *spread->tour;
  uint32_t slot = (uint32_t)(spread->arg.ant - spread->run->first[i]);
  if (i != spread->arg.holder)
    return CK_OK;
  assert(spread->arg.ant >= spread->run->first[i] &&
         slot < spread->run->units[i]);
  return ck_buffer_read(state->queue, state->tours, (size_t)slot * bytes, bytes,
                        spread->tour, CK_BLOCKING, NULL);
}

/* Ant `ant`'s tour into spread->tour on every process, from the member
 * that holds it (once an iteration). */
static ck_status fetch(ck__aco_spread *spread, uint32_t ant) {
  ck_status status = CK_OK;
  if (spread->tour_ant == ant)
    return CK_OK;
  size_t holder = ck__engine_holder(spread->engine, ant);
  size_t first = ck__exchange_first(spread->run->exchange);
  spread->arg.ant = ant;
  /* None local: run.local. */
  spread->arg.holder = holder >= first && holder < first + spread->run->local
                           ? holder - first
                           : spread->run->local;
  CK_TRY(each(spread, fetch_member));
  CK_TRY(ck__exchange_broadcast(spread->run->exchange, holder, spread->tour,
                                (size_t)spread->n * sizeof *spread->tour));
  spread->tour_ant = ant;
fail:
  return status;
}

static ck_status write_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  aco_state *state = state_of(spread, i);
  ck_buffer *buffer = *(ck_buffer **)((char *)state + spread->arg.field);
  if (i == spread->arg.skip)
    return CK_OK;
  return ck_buffer_write(state->queue, buffer, 0,
                         (size_t)spread->n * sizeof *spread->arg.words,
                         spread->arg.words, CK_BLOCKING, NULL);
}

/* n words into the buffer at byte `field` of every local member's state
 * (best_tour, best_positions), but local member `skip`'s (run.local:
 * none), which has them already. */
static ck_status write_all(ck__aco_spread *spread, size_t field,
                           const uint32_t *words, size_t skip) {
  spread->arg.field = field;
  spread->arg.words = words;
  spread->arg.skip = skip;
  return each(spread, write_member);
}

ck_status ck__aco_spread_keep_best(ck__aco_spread *spread, uint32_t ant,
                                   uint32_t *tour) {
  ck_status status = fetch(spread, ant);
  if (status)
    return status;
  memcpy(tour, spread->tour, (size_t)spread->n * sizeof *tour);
  return write_all(spread, offsetof(aco_state, best_tour), tour,
                   spread->run->local);
}

ck_status ck__aco_spread_seed(ck__aco_spread *spread, const uint32_t *positions,
                              int seeded) {
  /* Colonies keep their own best tours. */
  if (spread->every)
    return CK_OK;
  for (size_t i = 0; i < spread->run->local; ++i)
    state_of(spread, i)->seeded = seeded;
  return write_all(spread, offsetof(aco_state, best_positions), positions,
                   spread->run->local);
}

static ck_status partition_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  aco_state *state = state_of(spread, i);
  const aco_phase_args *arg = &spread->arg;
  if (!holds_first(spread, i))
    return CK_OK;
  state->kicks = arg->kicks;
  return steps_of(spread, i)->partition(state, arg->size, arg->offset,
                                        arg->pass, arg->tour, arg->gain);
}

/* Member 0 partitions the best tour, which every member holds alike, and
 * sends its gain and, where it gained, the tour to all. */
ck_status ck__aco_spread_partition(ck__aco_spread *spread, uint32_t size,
                                   uint32_t offset, uint64_t pass,
                                   uint32_t kicks, uint32_t *tour,
                                   int64_t *gain) {
  ck_status status = CK_OK;
  ck__spread_run *run = spread->run;
  *gain = 0;
  spread->arg = (aco_phase_args){.size = size,
                                 .offset = offset,
                                 .pass = pass,
                                 .kicks = kicks,
                                 .tour = tour,
                                 .gain = gain};
  CK_TRY(each(spread, partition_member));
  CK_TRY(ck__exchange_broadcast(run->exchange, 0, gain, sizeof *gain));
  if (*gain <= 0)
    return CK_OK;
  CK_TRY(ck__exchange_broadcast(run->exchange, 0, tour,
                                (size_t)spread->n * sizeof *tour));
  CK_TRY(write_all(spread, offsetof(aco_state, best_tour), tour,
                   holds_first(spread, 0) ? 0 : run->local));
fail:
  return status;
}

static ck_status search_start_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  return holds_first(spread, i)
             ? ck__aco_search_start(spread->members[i], spread->arg.length)
             : CK_OK;
}

ck_status ck__aco_spread_search_start(ck__aco_spread *spread, int64_t length) {
  /* Ant 0's tour changes. */
  spread->tour_ant = CK__ACO_BEST;
  spread->arg.length = length;
  return each(spread, search_start_member);
}

static ck_status deposit_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  ck_status status = CK_OK;
  aco_state *state = state_of(spread, i);
  const ck__spread_run *run = spread->run;
  uint32_t ant = spread->arg.ant, slot = ant;
  if (ant != CK__ACO_BEST && ant >= run->first[i] &&
      ant - run->first[i] < run->units[i]) {
    slot = (uint32_t)(ant - run->first[i]);
  } else if (ant != CK__ACO_BEST) {
    /* Another member's ant: its tour into slot 0, whose own the next
     * construction overwrites anyway. */
    slot = 0;
    CK_TRY(ck_buffer_write(state->queue, state->tours, 0,
                           (size_t)spread->n * sizeof(uint32_t), spread->tour,
                           CK_BLOCKING, NULL));
  }
  CK_TRY(steps_of(spread, i)->deposit(state, slot, spread->arg.scale,
                                      spread->arg.amount));
fail:
  return status;
}

ck_status ck__aco_spread_deposit(ck__aco_spread *spread, uint32_t ant,
                                 float scale, float amount) {
  ck_status status = CK_OK;
  /* Another member's ant's tour crosses; a member alone holds them all. */
  if (ant != CK__ACO_BEST && ck__engine_members(spread->engine) > 1)
    CK_TRY(fetch(spread, ant));
  spread->arg.ant = ant;
  spread->arg.scale = scale;
  spread->arg.amount = amount;
  CK_TRY(each(spread, deposit_member));
fail:
  return status;
}

/* Member i's pheromone: evaporated and bounded (keep, within [tau_min,
 * tau_max]), or with reset set back to tau everywhere. */
static ck_status pheromone_member(void *context, size_t i) {
  ck__aco_spread *spread = context;
  const aco_phase_args *arg = &spread->arg;
  aco_state *state = state_of(spread, i);
  return arg->reset ? steps_of(spread, i)->reset(state, arg->tau)
                    : steps_of(spread, i)->update(state, arg->keep,
                                                  arg->tau_min, arg->tau_max);
}

ck_status ck__aco_spread_update(ck__aco_spread *spread, float keep,
                                float tau_min, float tau_max) {
  ck_status status = CK_OK;
  if (spread->uses)
    CK_TRY(ck__aco_spread_sum_uses(spread));
  spread->arg.reset = 0;
  spread->arg.keep = keep;
  spread->arg.tau_min = tau_min;
  spread->arg.tau_max = tau_max;
  CK_TRY(each(spread, pheromone_member));
fail:
  return status;
}

ck_status ck__aco_spread_reset(ck__aco_spread *spread, float tau) {
  spread->arg.reset = 1;
  spread->arg.tau = tau;
  return each(spread, pheromone_member);
}

/* ---- the run ------------------------------------------------------------- */

ck_status ck__aco_spread_latest(ck__aco_spread *spread, double elapsed,
                                double *latest) {
  return ck__spread_largest(spread->run, &elapsed, latest, 1);
}

double ck__aco_spread_kernel_seconds(ck__aco_spread *spread) {
  return ck__spread_kernel_seconds(spread->run);
}

ck_status ck__aco_spread_report(ck__aco_spread *spread, ck_result *result) {
  return ck__engine_report(spread->engine, result);
}

void ck__aco_spread_clocks_start(ck__aco_spread *spread) {
  ck__engine_clocks_start(spread->engine);
}

int ck__aco_spread_rank(const ck__aco_spread *spread) {
  return spread ? ck__engine_rank(spread->engine) : 0;
}

void ck__aco_spread_destroy(ck__aco_spread *spread) {
  if (!spread)
    return;
  ck__engine_destroy(spread->engine);
  free(spread->members);
  free(spread->tour);
  free(spread->local_lengths);
  free(spread->lengths);
  free(spread->ranked);
  free(spread->listed);
  free(spread->uses);
  free(spread->counts);
  free(spread);
}
