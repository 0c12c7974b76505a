/*
 * gas_engine.c - a gas's members on the engine (framework/engine.h), as
 * every gas runs: on one device, a spread of one member that holds the
 * whole box; over several, slabs or a grid of boxes (gas_spread.c). This
 * file holds the engine's table, the members begun and started, a call's
 * steps, and what the run asks of its members; the slabs' own cut,
 * exchanges and steps are in gas_spread*.c.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "gas/gas_internal.h"
#include "gas/gas_spread_internal.h"

/* ---- the engine's table --------------------------------------------------
 *
 * The engine makes the members: the cut deals the particles by space,
 * allocate makes a member's device state for its slab (its memory taken,
 * its programs not built yet), set_up builds it and fills it. The
 * members agree that all of their states fit before any builds its
 * programs (which can take seconds): a member too small for its slab is
 * reported at once. A whole box's member is the gas on one device, made
 * there before the engine adopts it (ck__gas_spread_adopt).
 */

/* The box cut by the weights; each member's particles counted. */
static ck_status gas_cut(void *self, ck__engine *engine, uint64_t *units) {
  ck__gas_spread *s = self;
  (void)engine;
  if (!s->whole)
    return ck__gas_spread_cut(s, units);
  /* One slab, the whole box: nothing to cut or count. */
  ck__gas_spread_place_member(s, &s->members[0], 0);
  units[0] = s->halo.members[0].own = s->config.particles;
  return CK_OK;
}

static ck_status gas_allocate(void *self, const ck__engine_member *member,
                              ck_queue **queue) {
  ck__gas_spread *s = self;
  size_t i = member->index;
  ck_gas **gas = &s->members[i].gas;
  if (!s->whole)
    return ck__gas_spread_make_slab(s, &s->members[i], i, (size_t)member->units,
                                    queue);
  assert(s->adopted); /* a whole box's gas is made on its device first */
  *gas = s->adopted;  /* taken over: destroyed with the member */
  s->adopted = NULL;
  *queue = (*gas)->state.queue;
  return CK_OK;
}

/* A slab member's programs, then its own particles from the run's; a
 * whole box's gas was built and started before it was adopted. */
static ck_status gas_set_up(void *self, size_t i) {
  ck__gas_spread *s = self;
  return s->whole ? CK_OK : ck__gas_spread_take_slab(s, &s->members[i], i);
}

static void gas_teardown(void *self, size_t i) {
  ck__gas_spread *s = self;
  ck_gas_destroy(s->members[i].gas);
  s->members[i].gas = NULL;
}

static const ck__engine_kind gas_kind = {.unit_name = "particles",
                                         .granule = 1,
                                         .shares_devices = 1,
                                         .cut = gas_cut,
                                         .allocate = gas_allocate,
                                         .set_up = gas_set_up,
                                         .teardown = gas_teardown};

/* Whether every member of every process is a GPU that runs kernels
 * (collective): the default neighbours depend on it. */
static ck_status count_gpus(ck__gas_spread *s) {
  double others[CK_SPREAD_MAX_LOCAL], sum = 0;
  for (size_t i = 0; i < s->run->local; ++i)
    others[i] = !ck__device_is_gpu(&s->run->devices[i]);
  ck_status status =
      ck__exchange_sum_rows(s->run->exchange, others, 1, &sum, 1);
  s->gpus = status == CK_OK && sum == 0;
  return status;
}

/* The members' reads of each other opened (collective), and whether
 * their cell lists would step resident: the default neighbours depend on
 * it. The plan closes them where the run will not step so. */
static ck_status open_reads(ck__gas_spread *s) {
  ck_status status = CK_OK;
  if (s->whole)
    return CK_OK;
  CK_TRY(ck__halo_reside_open(&s->halo, 1));
  s->resident_able = ck__halo_may_reside(&s->halo) && ck__halo_direct(&s->halo);
fail:
  return status;
}

ck_status ck__gas_spread_begin(const ck_spread *spread, ck__gas_spread **made) {
  ck_status status = CK_OK;
  ck__gas_spread *s = calloc(1, sizeof *s);
  *made = NULL;
  if (!s)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  CK_TRY(ck__engine_open(&gas_kind, s, spread, &s->engine));
  s->run = ck__engine_run(s->engine);
  ck__halo_bind(&s->halo, s->engine, &s->domain, &ck__gas_halo_ops, s);
  s->total = ck__engine_members(s->engine);
  s->whole = s->total == 1;
  s->members = calloc(s->run->local, sizeof *s->members);
  s->weights = calloc(s->total, sizeof *s->weights);
  CK_TRY(ck__engine_agree(
      s->engine, s->members && s->weights
                     ? CK_OK
                     : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory")));
  CK_TRY(count_gpus(s));
  CK_TRY(open_reads(s));
  /* The shares, else equal: each slab holds its share of the particles. */
  ck__spread_fractions(spread->shares, s->total, s->weights);
  s->pace.on = !spread->shares && s->total > 1;
  s->room_for_tests = (uint32_t)ck__test_value(CK__TEST_GAS_ROOM);
  s->balance_forced = ck__test_value(CK__TEST_GAS_BALANCE) != 0;
  size_t tiers_from = ck__test_value(CK__TEST_GAS_TIERS_FROM);
  s->tiers_forced = tiers_from != 0;
  s->tiers_from = s->tiers_forced ? tiers_from : TWO_TIERS_FROM;
  size_t aside_from = ck__test_value(CK__TEST_GAS_ASIDE_FROM);
  s->aside_from = aside_from ? aside_from : ASIDE_FROM;
  *made = s;
  return CK_OK;
fail:
  ck__gas_spread_destroy(s);
  return status;
}

void ck__gas_spread_adopt(ck__gas_spread *s, ck_gas *whole) {
  /* One device without a communicator: one member, in this process. */
  assert(s && s->whole && whole && !whole->spread && !s->adopted);
  s->adopted = whole;
}

ck_status ck__gas_spread_deal(ck__gas_spread *s, const double *positions,
                              const double *velocities, int again) {
  ck_status status = CK_OK;
  s->deal_positions = positions;
  s->deal_velocities = velocities;
  status = again ? ck__engine_remake(s->engine)
                 : ck__engine_populate(s->engine, s->config.particles);
  s->deal_positions = s->deal_velocities = NULL;
  CK_TRY(status);
  s->resident_ready = 0;
  s->generation += 1; /* every member made anew */
  /* A whole box's start sorted and computed the first forces. */
  if (!s->whole)
    CK_TRY(ck__gas_spread_first_ghosts(s));
  ck__engine_pace_reset(&s->pace);
fail:
  return status;
}

ck_status ck__gas_spread_start(ck__gas_spread *s, const ck_gas_config *config,
                               uint64_t step, ck__gas_forms forms,
                               const double *positions,
                               const double *velocities) {
  ck_status status = CK_OK;
  ck__spread_run *run = s->run;
  s->config = *config;
  s->config.xyz_path = NULL;
  s->forms = forms;
  s->forms.fine_cells = 0;
  s->step = step;
  /* Ghosts within the interaction range of a border, which cell lists
   * send again every step (with a hair to spare for the rounding of the
   * coordinates' shift), and Verlet lists at rebuilds, the skin added.
   * A whole box has no border: one slab, no margins. */
  ck__domain *d = &s->domain;
  d->box[0] = config->box_x;
  d->box[1] = config->box_y;
  d->walls = config->walls != 0;
  d->reach = s->whole                            ? 0
             : config->neighbors == CK_GAS_CELLS ? config->rc * (1 + 1e-4)
                                                 : config->rc + config->skin;
  d->pad = s->whole ? 0 : config->skin;
  d->members = s->total;
  d->reach_option = "ck_gas_config.rc";
  d->reach_name = config->neighbors == CK_GAS_CELLS ? "rc" : "rc + skin";
  s->dof = ck__gas_degrees_of_freedom(config);
  CK_TRY(ck__domain_plan(d, s->weights));
  if (!s->whole)
    CK_TRY(ck__gas_spread_plan(s));
  CK_TRY(ck__gas_spread_deal(s, positions, velocities, 0));
  /* NCCL's swaps connect once the members' queues are made. */
  CK_TRY(ck__halo_reside_connect(&s->halo));
  run->total = config->particles;
fail:
  return status;
}

/* ---- a call's steps, and what the run asks ------------------------------- */

/* A phase (phase_fn, gas_spread_internal.h) and the spread it runs on. */
typedef struct phase_call {
  ck__gas_spread *spread;
  phase_fn phase;
} phase_call;

static ck_status run_phase(void *context, size_t i) {
  const phase_call *call = context;
  return call->phase(call->spread, &call->spread->members[i], i);
}

ck_status ck__gas_spread_each(ck__gas_spread *s, phase_fn phase) {
  phase_call call = {s, phase};
  return ck__engine_each(s->engine, run_phase, &call);
}

/* A whole box's steps: the member's own, as on one device (a phase). */
static ck_status whole_steps(ck__gas_spread *s, member *m, size_t i) {
  (void)i;
  return ck_gas_step(m->gas, s->phase_step);
}

ck_status ck__gas_spread_step(ck__gas_spread *s, uint64_t steps) {
  if (!s->whole)
    return ck__gas_spread_slab_steps(s, steps);
  s->phase_step = steps;
  ck_status status = ck__gas_spread_each(s, whole_steps);
  s->step = s->members[0].gas->step; /* the steps done, failed or not */
  return status;
}

uint64_t ck__gas_spread_steps(const ck__gas_spread *s) {
  return s->step;
}

/* ---- the rest ------------------------------------------------------------ */

ck_status ck__gas_spread_agree(ck__gas_spread *s, ck_status status) {
  return ck__engine_agree(s->engine, status);
}

ck_status ck__gas_spread_broadcast(ck__gas_spread *s, void *data, size_t size) {
  return ck__exchange_broadcast(s->run->exchange, 0, data, size);
}

ck_gas *ck__gas_spread_member(ck__gas_spread *s, size_t i) {
  return i < s->run->local ? s->members[i].gas : NULL;
}

ck_gas *ck__gas_spread_whole(ck__gas_spread *s) {
  return s->whole ? s->members[0].gas : NULL;
}

int ck__gas_spread_rank(const ck__gas_spread *s) {
  return s ? ck__exchange_rank(s->run->exchange) : 0;
}

ck__gas_place ck__gas_spread_place(const ck__gas_spread *s) {
  ck__gas_place place = {s->whole ? &s->run->devices[0] : NULL, s->total,
                         s->gpus, s->resident_able};
  return place;
}

int ck__gas_spread_strips(const ck__gas_spread *s) {
  return s->members[0].gas ? ck__gas_state(s->members[0].gas)->strips : 0;
}

ck_status ck__gas_spread_finish(ck__gas_spread *s, double *kernel_s) {
  ck_status status = CK_OK;
  for (size_t i = 0; i < s->run->local; ++i)
    if (s->run->queues[i])
      CK_TRY(ck_queue_finish(s->run->queues[i]));
  if (kernel_s)
    *kernel_s = ck__spread_kernel_seconds(s->run);
fail:
  return status;
}

ck_status ck__gas_spread_report(ck__gas_spread *s, ck_result *result) {
  /* A grid's boxes: x, then y. */
  s->run->slab_axis = s->domain.stages > 1 ? 2 : s->domain.axis;
  for (size_t i = 0; i < s->run->local; ++i) {
    const member *m = &s->members[i];
    s->run->units[i] = s->halo.members[i].own;
    s->run->bytes_sent[i] = m->bytes;
    s->run->slab[i][0] = m->place[0].lo;
    s->run->slab[i][1] = m->place[0].hi;
    s->run->slab[i][2] = s->domain.stages > 1 ? m->place[1].lo : NAN;
    s->run->slab[i][3] = s->domain.stages > 1 ? m->place[1].hi : NAN;
  }
  s->run->total = s->config.particles;
  return ck__spread_report_queues(s->run, result);
}

void ck__gas_spread_clocks_start(ck__gas_spread *s) {
  ck__engine_clocks_start(s->engine);
}

void ck__gas_spread_destroy(ck__gas_spread *s) {
  if (!s)
    return;
  /* The members' device states first, then what they opened of each
   * other's (peers, IPC handles), and the engine (its exchange) last. */
  size_t local = s->run ? s->run->local : 0;
  for (size_t i = 0; s->members && i < local; ++i) {
    ck_gas_destroy(s->members[i].gas);
    s->members[i].gas = NULL;
    free(s->members[i].records.data);
  }
  ck__halo_free(&s->halo);
  ck__engine_destroy(s->engine);
  ck_gas_destroy(s->adopted);
  free(s->members);
  free(s->weights);
  ck__domain_free(&s->domain);
  free(s);
}
