/*
 * gas_spread_deal.c - a spread gas's slabs made and dealt: its
 * configuration checked, the box cut into slabs or a grid of boxes by the
 * domain (framework/domain.h; cut again by the members' speeds once,
 * without shares), the particles dealt to the members; and what the run
 * reads back of them: the particles in id order and g(r).
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/spread.h"
#include "gas/gas_internal.h"
#include "gas/gas_spread_internal.h"

/* ---- making and dealing -------------------------------------------------- */

ck_status ck__gas_spread_check(const ck_gas_config *config) {
  if (config->model != CK_GAS_LENNARD_JONES)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "ck_gas_config.model: only the Lennard-Jones model "
                    "spreads over devices (the soft-log model has no "
                    "cutoff to cut the box at)");
  if (config->neighbors == CK_GAS_ALL_PAIRS)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "ck_gas_config.neighbors: all pairs does not spread over "
                    "devices; use cell lists or Verlet lists");
  if (config->particles > CK_GAS_FROM_NEXT)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "ck_gas_config.particles: %zu particles; a spread run "
                    "holds at most 2^30",
                    config->particles);
  return CK_OK;
}

/* Member i's slab (or box), along the cut and, in a grid, along y. */
void ck__gas_spread_place_member(ck__gas_spread *s, member *m, size_t i) {
  m->index = ck__exchange_first(s->run->exchange) + i;
  m->stray = CK_GAS_NO_STRAY;
  m->stray_base = 0;
  ck__domain_place_member(&s->domain, m->index, m->place);
  s->halo.members[i].place = m->place;
}

ck_status ck__gas_spread_make_slab(ck__gas_spread *s, member *m, size_t i,
                                   size_t own, ck_queue **queue) {
  ck_gas_config c = s->config;
  const ck__domain *d = &s->domain;
  int grid = d->stages > 1;
  /* Ghosts of both sides (and of both ways in a grid) at the run's
   * density, and some to spare. */
  double width = m->place[1].side;
  double ghosts = 2.0 * c.density * d->reach * width * 1.5;
  if (grid)
    ghosts += 2.0 * c.density * d->reach * m->place[0].side * 1.5;
  size_t messages = (size_t)(ghosts / 2) + 256;
  c.particles = own + (size_t)ghosts + own / 8 + 256;
  /* Tests start the outboxes and the slots small, to see them grow. */
  if (s->room_for_tests) {
    messages = s->room_for_tests;
    c.particles = own + s->room_for_tests;
  }
  c.box_x = m->place[0].side;
  c.box_y = width;
  c.xyz_path = NULL;
  if (c.thermostat == CK_GAS_RESCALE)
    c.thermostat = CK_GAS_NVE; /* the spread rescales over all members */
  if (messages > UINT32_MAX / 4)
    return ck__fail(CK_ERROR_UNSUPPORTED, "%zu ghosts a border", messages);
  /* The run's own walls along the cut (and along y in a grid): before the
   * first slab and past the last. */
  int walls_x = ck__domain_walls(d, m->index, 0);
  int walls_y = grid ? ck__domain_walls(d, m->index, 1) : -1;
  /* Two tiers where the steps go device to device: through the host each
   * step would also gather and sort the halo apart (4 GPUs reached 62%
   * weak so, 70% in one tier). Tests may ask for them every way. */
  int devices = ck__halo_may_reside(&s->halo) || s->tiers_forced;
  int tiers =
      !grid && devices && s->config.particles / s->total >= s->tiers_from;
  ck_status status =
      ck__gas_member_make(&s->run->devices[i], &c, s->forms, (uint32_t)messages,
                          walls_x, walls_y, tiers, 0, &m->gas);
  if (status == CK_OK)
    *queue = m->gas->state.queue;
  return status;
}

/* Member i's slab and the particles in it, counted (a phase). */
static ck_status count_slab(void *context, size_t i) {
  ck__gas_spread *s = context;
  member *m = &s->members[i];
  const double *positions = s->deal_positions;
  size_t *own = &s->halo.members[i].own;
  ck__gas_spread_place_member(s, m, i);
  *own = 0;
  for (size_t k = 0; k < s->config.particles; ++k) {
    double uv[2];
    ck__domain_point(&s->domain, positions, k, uv);
    *own += ck__domain_holds(&s->domain, m->place, uv);
  }
  return CK_OK;
}

ck_status ck__gas_spread_take_slab(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  const double *velocities = s->deal_velocities;
  int a = s->domain.axis;
  size_t own = s->halo.members[i].own, at = 0;
  /* Its particles arrive as migrants from no side, packed as a
   * neighbour packs them (ck_gas.h's layout). */
  uint32_t *entries = malloc(4 * CK_GAS_ENTRY_WORDS * (own ? own : 1));
  if (!entries)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %zu particles",
            own);
  CK_TRY(ck__gas_member_build(m->gas));
  for (size_t k = 0; k < c->particles && at < own; ++k) {
    double uv[2];
    ck__domain_point(&s->domain, s->deal_positions, k, uv);
    if (ck__domain_holds(&s->domain, m->place, uv))
      ck_gas_member_put(entries, (uint32_t)own, 0, (uint32_t)at++, (uint32_t)k,
                        uv[0] - m->place[0].origin, uv[1] - m->place[1].origin,
                        velocities[2 * k + (size_t)a],
                        velocities[2 * k + 1 - (size_t)a]);
  }
  assert(at == own); /* count_slab counted them with the same test */
  const uint32_t migrants[2] = {(uint32_t)own, 0}, none[2] = {0, 0};
  const void *const in[2] = {entries, NULL};
  CK_TRY(ck__gas_member_admit(&m->gas, migrants, none, in, -INFINITY, INFINITY,
                              0, 0, &m->stray));
  /* Made to hold them: it was not made again, and its queue stays the
   * run's. */
  assert(m->gas->state.queue == s->run->queues[i]);
fail:
  free(entries);
  return status;
}

ck_status ck__gas_spread_cut(ck__gas_spread *s, uint64_t *units) {
  ck_status status = CK_OK;
  CK_TRY(ck__engine_agree(s->engine,
                          ck__domain_cut(&s->domain, s->deal_positions,
                                         s->config.particles, s->weights)));
  CK_TRY(ck__engine_each(s->engine, count_slab, s));
  for (size_t i = 0; i < s->run->local; ++i)
    units[i] = s->halo.members[i].own;
fail:
  return status;
}

ck_status ck__gas_spread_plan(ck__gas_spread *s) {
  ck_status status = CK_OK;
  /* A grid's members go through the host, and keep their boxes. Verlet
   * lists' messages go through the host too: between rebuilds the host
   * reads every member's rebuild flag each step anyway, and copies
   * device to device ran slower (bench/RESULTS.md). */
  if (s->domain.stages > 1)
    s->pace.on = 0;
  /* Cell lists in slabs step resident (gas_spread_steps.c); other runs
   * close the members' reads of each other, opened as the spread began. */
  if (s->domain.stages > 1 || s->config.neighbors != CK_GAS_CELLS)
    ck__halo_reside_close(&s->halo);
  /* Members whose devices are of one model keep equal shares, and cell
   * lists' steps go resident after the first; measuring goes
   * through the host (about 0.2 s at 8M particles over two H100s). */
  if (s->pace.on) {
    int alike = 0;
    CK_TRY(ck__engine_alike(s->engine, &alike));
    s->pace.on = !alike;
  }
  /* What the members' census must find: every id once. */
  s->census[0] = s->config.particles;
  s->census[1] = s->census[2] = 0;
  for (size_t k = 0; k < s->config.particles; ++k) {
    s->census[1] += k;
    s->census[2] += ck_gas_id_hash((uint32_t)k);
  }
fail:
  return status;
}

/* The slabs cut again by the members' speeds over the steps since the
 * last cut, where that shortens a step by BALANCE_GAIN or more: every
 * particle gathered and dealt anew (collective). */
ck_status ck__gas_spread_balance(ck__gas_spread *s) {
  ck_status status = CK_OK;
  double units[CK_SPREAD_MAX_LOCAL];
  double *positions = NULL, *velocities = NULL;
  int verdict = 0, forced = s->balance_forced;
  for (size_t i = 0; i < s->run->local; ++i)
    units[i] = (double)s->halo.members[i].own;
  CK_TRY(ck__engine_pace_decide(s->engine, &s->pace, units,
                                forced ? 0 : BALANCE_SECONDS, BALANCE_GAIN,
                                s->weights, &verdict));
  if (verdict < 2 && !forced)
    goto fail;
  if (forced)
    (void)ck__test_control(CK__TEST_GAS_BALANCE,
                           ck__test_value(CK__TEST_GAS_BALANCE) + 1);
  size_t n = s->config.particles;
  positions = malloc(2 * n * sizeof *positions);
  velocities = malloc(2 * n * sizeof *velocities);
  CK_TRY(ck__gas_spread_agree(
      s, positions && velocities
             ? CK_OK
             : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                        "out of memory for %zu particles", n)));
  CK_TRY(ck__gas_spread_particles(s, positions, velocities, NULL, NULL, NULL));
  CK_TRY(ck__gas_spread_deal(s, positions, velocities, 1));
fail:
  free(positions);
  free(velocities);
  return status;
}

/* ---- what the run reads -------------------------------------------------- */

/* The fields a read asks for: positions, velocities, forces (pairs),
 * then energies and virials (NULL: not asked); each record's doubles,
 * and each local member's count of records. */
typedef struct records_call {
  ck__gas_spread *spread;
  double *const *into;
  size_t fields;
  size_t *counts;
} records_call;

/* Member m's own particles as records in m->records, each its id and
 * the fields asked for, in the run's coordinates, from its slots as
 * member_records read them: words, and in read positions,
 * velocities and forces 2 slots each, then energies and virials. */
static ck_status write_records(const records_call *call, member *m,
                               const uint32_t *words, const float *read,
                               size_t slots) {
  const ck__gas_spread *s = call->spread;
  double *const *into = call->into;
  int a = s->domain.axis;
  const float *p = read, *v = read + 2 * slots, *f = read + 4 * slots,
              *e = read + 6 * slots, *w = read + 7 * slots;
  size_t own = 0;
  for (size_t k = 0; k < slots; ++k)
    own += ck_gas_own(words[k]);
  ck_status status =
      ck__exchange_buffer_hold(&m->records, call->fields * sizeof(double), own);
  double *record = m->records.data;
  if (status != CK_OK)
    return status;
  for (size_t k = 0; k < slots; ++k) {
    if (!ck_gas_own(words[k]))
      continue;
    double xy[2];
    ck__domain_to_box(&s->domain, m->place, p[2 * k], p[2 * k + 1], xy);
    double values[6] = {xy[0],
                        xy[1],
                        a ? v[2 * k + 1] : v[2 * k],
                        a ? v[2 * k] : v[2 * k + 1],
                        a ? f[2 * k + 1] : f[2 * k],
                        a ? f[2 * k] : f[2 * k + 1]};
    *record++ = (double)words[k];
    for (int q = 0; q < 3; ++q)
      if (into[q]) {
        *record++ = values[2 * q];
        *record++ = values[2 * q + 1];
      }
    if (into[3])
      *record++ = e[k];
    if (into[4])
      *record++ = w[k];
  }
  return CK_OK;
}

/* Member i's own particles, the fields asked for read from its device and
 * written as records into its m->records (a phase). */
static ck_status member_records(void *context, size_t i) {
  ck_status status = CK_OK;
  const records_call *call = context;
  ck__gas_spread *s = call->spread;
  double *const *into = call->into;
  member *m = &s->members[i];
  gas_state *state = ck__gas_state(m->gas);
  size_t slots = state->particles;
  float *read = malloc((slots ? slots : 1) * 8 * sizeof *read);
  uint32_t *words = malloc((slots ? slots : 1) * sizeof *words);
  if (!read || !words)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  /* Its slots' words, then each field asked for (pairs, then singles). */
  ck_buffer *const buffers[6] = {state->id,    state->position, state->velocity,
                                 state->force, state->energy,   state->virial};
  static const size_t at[6] = {0, 0, 2, 4, 6, 7}; /* in read */
  for (int q = 0; slots > 0 && q < 6; ++q)
    if (q == 0 || into[q - 1])
      CK_TRY(ck_buffer_read(
          state->queue, buffers[q], 0, slots * (q == 0 || q > 3 ? 4 : 8),
          q ? (void *)(read + at[q] * slots) : words, CK_BLOCKING, NULL));
  CK_TRY(write_records(call, m, words, read, slots));
  call->counts[i] = m->records.count;
fail:
  free(read);
  free(words);
  return status;
}

ck_status ck__gas_spread_particles(ck__gas_spread *s, double *positions,
                                   double *velocities, double *forces,
                                   double *energies, double *virials) {
  double *const into[5] = {positions, velocities, forces, energies, virials};
  static const size_t widths[5] = {2, 2, 2, 1, 1};
  size_t fields = 1; /* the id, then the fields asked for */
  for (int q = 0; q < 5; ++q)
    fields += into[q] ? widths[q] : 0;
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL];
  records_call call = {s, into, fields, counts};
  ck_status status = CK_OK;
  CK_TRY(ck__engine_each(s->engine, member_records, &call));
  for (size_t i = 0; i < s->run->local; ++i)
    send[i] = s->members[i].records.data;
  /* Each record's fields into the caller's arrays at its id. */
  status = ck__exchange_gather_keyed(s->run->exchange, fields, send, counts,
                                     s->config.particles, 5, into, widths,
                                     "particles");
fail:
  return status;
}

/* An RDF's bins, each member's counts as doubles in its row (a phase):
 * its pairs, its own particles' with every particle it holds. */
typedef struct rdf_call {
  ck__gas_spread *spread;
  size_t bins;
  double range;
} rdf_call;

static ck_status member_rdf(void *context, size_t i, double *row) {
  const rdf_call *call = context;
  uint64_t *mine = calloc(call->bins, sizeof *mine);
  ck_status status =
      mine ? ck__gas_member_rdf(call->spread->members[i].gas, call->bins,
                                call->range, mine)
           : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory for the RDF");
  for (size_t b = 0; mine && b < call->bins; ++b)
    row[b] = (double)mine[b];
  free(mine);
  return status;
}

ck_status ck__gas_spread_rdf(ck__gas_spread *s, size_t bins, double range,
                             uint64_t *counts) {
  ck_status status = CK_OK;
  rdf_call call = {s, bins, range};
  double *total = calloc(bins, sizeof *total);
  CK_TRY(ck__gas_spread_agree(
      s, total ? CK_OK
               : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                          "out of host memory for the RDF")));
  CK_TRY(ck__engine_sum_each(s->engine, member_rdf, &call, bins, total));
  for (size_t b = 0; b < bins; ++b)
    counts[b] += (uint64_t)total[b];
fail:
  free(total);
  return status;
}
