/*
 * gas_spread_deal.c - a spread gas's slabs made and dealt: its
 * configuration checked, the box cut into slabs or a grid of boxes
 * (cut again by the members' speeds once, without shares), the particles
 * dealt to the members; and what the run reads back of them: the
 * particles in id order and g(r).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
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

/* A coordinate into [0, side) (periodic). */
static double wrap(double x, double side) {
  if (x >= side || x < 0)
    x -= side * floor(x / side);
  return x >= side || x < 0 ? 0 : x;
}

/* The side of the box along the cut, and across it. */
static double along(const ck__gas_spread *s) {
  return s->axis ? s->config.box_y : s->config.box_x;
}
static double across(const ck__gas_spread *s) {
  return s->axis ? s->config.box_x : s->config.box_y;
}

/* Particle k's coordinate along the cut (a = 0) or across it (a = 1), in
 * the box. */
static double coordinate(const ck__gas_spread *s, const double *positions,
                         size_t k, int a) {
  double u = positions[2 * k + (size_t)(a ? 1 - s->axis : s->axis)];
  return s->config.walls ? u : wrap(u, a ? across(s) : along(s));
}

/*
 * How the box is cut: in slabs across its longer side where each can be
 * at least twice the reach wide, so that a particle is a ghost of one
 * neighbour at most and nothing crosses two borders between rebuilds.
 * Else in a grid of columns and rows, each box twice the reach both ways,
 * the squarest such grid. Refused where none fits, or where the shares
 * differ: a grid's boxes hold as many particles each.
 */
static ck_status choose_grid(ck__gas_spread *s) {
  double narrowest = 2 * s->reach, best = 0;
  double length = along(s), width = across(s);
  int grids = 0; /* the ways to deal the members in columns and rows */
  s->grid[0] = s->total;
  s->grid[1] = 1;
  s->stages = 1;
  if (length >= (double)s->total * narrowest)
    return CK_OK;
  /* A grid's columns run along x and its rows along y. */
  s->axis = 0;
  for (size_t columns = 2; columns <= s->total / 2; ++columns) {
    size_t rows = s->total / columns;
    if (columns * rows != s->total)
      continue;
    grids += 1;
    double x = s->config.box_x / (double)columns;
    double y = s->config.box_y / (double)rows;
    if (fmin(x, y) >= narrowest && fmin(x, y) > best) {
      best = fmin(x, y);
      s->grid[0] = columns;
      s->grid[1] = rows;
    }
  }
  s->stages = best > 0 ? 2 : 1;
  for (size_t m = 1; best > 0 && m < s->total; ++m)
    if (s->weights[m] != s->weights[0])
      return ck__fail(
          CK_ERROR_INVALID_ARGUMENT,
          "ck_spread.shares: %zu members cut the box (%g by %g) in a "
          "grid of %zu by %zu boxes (slabs would be narrower "
          "than 2 (rc + skin) = %g), and a grid's boxes hold "
          "as many particles each: give equal shares, or none",
          s->total, s->config.box_x, s->config.box_y, s->grid[0], s->grid[1],
          narrowest);
  if (best > 0)
    return CK_OK;
  return ck__fail(
      CK_ERROR_INVALID_ARGUMENT,
      "ck_gas_config.rc: %zu members cannot cut the box (%g by %g): slabs "
      "across its %g side, or the boxes of a grid of them, must be at least "
      "2 (rc + skin) = %g wide each way, and %s: use fewer devices (or a "
      "count with factors, for a grid), a larger box, or a smaller rc or "
      "skin",
      s->total, s->config.box_x, s->config.box_y, fmax(length, width),
      narrowest,
      grids ? "no grid of them fits"
            : "they make no grid of 2 or more "
              "columns and rows");
}

/* The bin of a histogram of `bins` over [0, length) that holds u: a
 * function that never decreases with u, so that the bins keep the
 * coordinates' order. */
static size_t bin_of(double u, double length, size_t bins) {
  double bin = u / length * (double)bins;
  return bin > 0 ? (bin < (double)bins ? (size_t)bin : bins - 1) : 0;
}

static int ascending_reals(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/*
 * The border along axis a that leaves `wanted` particles below it (0 <
 * wanted < n), or as near that as their coordinates allow: particles at
 * one coordinate (a lattice's row) stay on one side, the lower count on
 * a tie. It lies halfway between the last particle below it and the
 * first above. The particle of rank `wanted` is found in its bin of the
 * histogram (bins of them, the counts of each), whose particles alone
 * are sorted; *scratch grows to hold them.
 */
static ck_status border_at(const ck__gas_spread *s, const double *positions,
                           int a, const uint64_t *histogram, size_t bins,
                           uint64_t wanted, double **scratch, size_t *capacity,
                           double *border) {
  double length = a ? across(s) : along(s);
  size_t n = s->config.particles, b = 0;
  uint64_t before = 0;
  while (before + histogram[b] <= wanted)
    before += histogram[b++];
  if (histogram[b] > *capacity) {
    double *grown = realloc(*scratch, histogram[b] * sizeof *grown);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    *scratch = grown;
    *capacity = histogram[b];
  }
  size_t held = 0;
  for (size_t k = 0; k < n; ++k) {
    double u = coordinate(s, positions, k, a);
    if (bin_of(u, length, bins) == b)
      (*scratch)[held++] = u;
  }
  qsort(*scratch, held, sizeof **scratch, ascending_reals);
  double v = (*scratch)[wanted - before];
  /* The particles below v, at v, and their neighbours on either side. */
  uint64_t below = 0, at = 0;
  double lower = -INFINITY, upper = INFINITY;
  for (size_t k = 0; k < n; ++k) {
    double u = coordinate(s, positions, k, a);
    below += u < v;
    at += u == v;
    if (u < v && u > lower)
      lower = u;
    if (u > v && u < upper)
      upper = u;
  }
  /* Below every particle at v, or above them all: the nearer count. */
  int under = wanted - below <= below + at - wanted;
  double from = under ? lower : v, to = under ? v : upper;
  if (under && below == 0)
    *border = 0;
  else if (!under && below + at == n)
    *border = length;
  else {
    *border = from + 0.5 * (to - from);
    if (!(*border > from))
      *border = to; /* neighbours one rounding apart */
  }
  return CK_OK;
}

/*
 * The borders of `count` slabs along the cut (a = 0) or across it (a =
 * 1), into bounds (count + 1): each holds its share of the particles
 * (weights, which sum to 1), as ck__spread_apportion counts it, as
 * nearly as their coordinates allow (border_at), and is at least twice
 * the reach wide (choose_grid saw that the side holds them).
 */
static ck_status cut_slabs(ck__gas_spread *s, const double *positions, int a,
                           size_t count, const double *weights,
                           double *bounds) {
  ck_status status = CK_OK;
  double length = a ? across(s) : along(s), narrowest = 2 * s->reach;
  size_t n = s->config.particles, capacity = 0;
  size_t bins = (size_t)fmin(1e7, fmax(1, ceil(length / (0.25 * s->reach))));
  uint64_t *histogram = calloc(bins, sizeof *histogram);
  uint64_t *counts = calloc(count, sizeof *counts);
  double *quotas = calloc(count, sizeof *quotas), *scratch = NULL;
  if (!histogram || !counts || !quotas)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t k = 0; k < n; ++k)
    histogram[bin_of(coordinate(s, positions, k, a), length, bins)] += 1;
  for (size_t m = 0; m < count; ++m)
    quotas[m] = weights[m] * (double)n;
  ck__spread_apportion(quotas, count, n, 0, counts);
  bounds[0] = 0;
  bounds[count] = length;
  uint64_t wanted = 0;
  for (size_t m = 1; m < count; ++m) {
    wanted += counts[m - 1];
    if (wanted == 0 || wanted >= n)
      bounds[m] = wanted == 0 ? 0 : length;
    else
      CK_TRY(border_at(s, positions, a, histogram, bins, wanted, &scratch,
                       &capacity, &bounds[m]));
  }
  /* At least the narrowest: pushed up from below, then down from above. */
  for (size_t m = 1; m < count; ++m)
    bounds[m] = fmax(bounds[m], bounds[m - 1] + narrowest);
  for (size_t m = count - 1; m > 0; --m)
    bounds[m] = fmin(bounds[m], bounds[m + 1] - narrowest);
  /* The side is long enough (choose_grid): every slab is the narrowest or
   * more, up to rounding. */
  for (size_t m = 0; m < count; ++m)
    assert(bounds[m + 1] - bounds[m] >= narrowest * (1 - 1e-9));
fail:
  free(histogram);
  free(counts);
  free(quotas);
  free(scratch);
  return status;
}

/* The box cut: slabs by the weights (the shares, or the speeds a probe
 * measured), or a grid's columns and rows, each holding as many
 * particles. */
static ck_status cut_box(ck__gas_spread *s, const double *positions) {
  ck_status status = CK_OK;
  double *equal = NULL;
  if (s->stages == 1) {
    ck__spread_fractions(s->weights, s->total, s->weights);
    return cut_slabs(s, positions, 0, s->total, s->weights, s->bounds);
  }
  equal = malloc(s->total * sizeof *equal);
  if (!equal)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (int a = 0; a < 2; ++a) {
    for (size_t m = 0; m < s->grid[a]; ++m)
      equal[m] = 1.0 / (double)s->grid[a];
    CK_TRY(cut_slabs(s, positions, a, s->grid[a], equal,
                     a ? s->bounds_y : s->bounds));
  }
fail:
  free(equal);
  return status;
}

/* Whether cell `at` of `count` along an axis has a neighbour on a side:
 * always in a periodic box; with walls, all but the first before and the
 * last after. */
static int has_neighbour(const ck__gas_spread *s, size_t at, size_t count,
                         int side) {
  return !s->config.walls || (side == PREVIOUS ? at > 0 : at + 1 < count);
}

/* Where cell `at` of `count` along an axis starts its box: the reach and
 * the pad before its slab, or its slab at a wall. */
static double origin_of(const ck__gas_spread *s, const double *bounds,
                        size_t at, size_t count) {
  double lo = bounds[at];
  return has_neighbour(s, at, count, PREVIOUS) ? lo - s->reach - s->pad : lo;
}

/* A member's place along axis a (0: the cut, 1: y in a grid), where it is
 * cell `at` of `count` and its neighbours there are `stride` members
 * apart: its slab, its box, and what it adds to what it sends. */
static void place_along(const ck__gas_spread *s, axis_link *l, int a,
                        size_t index, size_t at, size_t count, size_t stride) {
  const double *bounds = a ? s->bounds_y : s->bounds;
  double length = a ? across(s) : along(s), margin = s->reach + s->pad;
  int first = at == 0, last = at + 1 == count;
  int has[2] = {has_neighbour(s, at, count, PREVIOUS),
                has_neighbour(s, at, count, NEXT)};
  size_t previous = (at + count - 1) % count, next = (at + 1) % count;
  l->neighbour[PREVIOUS] = index - at * stride + previous * stride;
  l->neighbour[NEXT] = index - at * stride + next * stride;
  l->lo = bounds[at];
  l->hi = bounds[at + 1];
  l->origin = origin_of(s, bounds, at, count);
  l->side = (has[NEXT] ? l->hi + margin : l->hi) - l->origin;
  l->border[PREVIOUS] = has[PREVIOUS] ? l->lo - l->origin : -NO_BORDER;
  l->border[NEXT] = has[NEXT] ? l->hi - l->origin : NO_BORDER;
  /* To a neighbour's coordinates: from this box's start to its, across
   * the periodic edge where the neighbour is at the other end. */
  l->shift[PREVIOUS] =
      l->origin - origin_of(s, bounds, previous, count) + (first ? length : 0);
  l->shift[NEXT] =
      l->origin - origin_of(s, bounds, next, count) - (last ? length : 0);
}

/* Member i's slab (or box), along the cut and, in a grid, along y. A
 * grid's member m is column m % columns of row m / columns. */
void ck__gas_spread_place_member(ck__gas_spread *s, member *m, size_t i) {
  size_t columns = s->grid[0];
  m->index = ck__exchange_first(s->run->exchange) + i;
  m->stray = CK_GAS_NO_STRAY;
  m->stray_base = 0;
  place_along(s, &m->link[0], 0, m->index, m->index % columns, columns, 1);
  if (s->stages > 1)
    place_along(s, &m->link[1], 1, m->index, m->index / columns, s->grid[1],
                columns);
}

/* The run's own walls at a member's ends along an axis (ck_gas_reflect's
 * bits). */
static int walls_along(const ck__gas_spread *s, size_t at, size_t count) {
  return s->config.walls ? (at == 0 ? 1 : 0) | (at + 1 == count ? 2 : 0) : 0;
}

ck_status ck__gas_spread_make_slab(ck__gas_spread *s, member *m, size_t i,
                                   size_t own, ck_queue **queue) {
  ck_gas_config c = s->config;
  int grid = s->stages > 1;
  size_t columns = s->grid[0];
  /* Ghosts of both sides (and of both ways in a grid) at the run's
   * density, and some to spare. */
  double width = grid ? m->link[1].side : across(s);
  double ghosts = 2.0 * c.density * s->reach * width * 1.5;
  if (grid)
    ghosts += 2.0 * c.density * s->reach * m->link[0].side * 1.5;
  size_t messages = (size_t)(ghosts / 2) + 256;
  c.particles = own + (size_t)ghosts + own / 8 + 256;
  /* Tests start the outboxes and the slots small, to see them grow. */
  if (s->room_for_tests) {
    messages = s->room_for_tests;
    c.particles = own + s->room_for_tests;
  }
  c.box_x = m->link[0].side;
  c.box_y = width;
  c.xyz_path = NULL;
  if (c.thermostat == CK_GAS_RESCALE)
    c.thermostat = CK_GAS_NVE; /* the spread rescales over all members */
  if (messages > UINT32_MAX / 4)
    return ck__fail(CK_ERROR_UNSUPPORTED, "%zu ghosts a border", messages);
  /* The run's own walls along the cut (and along y in a grid): before the
   * first slab and past the last. */
  int walls_x = walls_along(s, m->index % columns, columns);
  int walls_y = grid ? walls_along(s, m->index / columns, s->grid[1]) : -1;
  /* Two tiers where the steps go device to device: through the host each
   * step would also gather and sort the halo apart (4 GPUs reached 62%
   * weak so, 70% in one tier). Tests may ask for them every way. */
  int devices = s->on_devices || s->between > 0 || s->tiers_forced;
  int tiers =
      !grid && devices && s->config.particles / s->total >= s->tiers_from;
  ck_status status =
      ck__gas_member_make(&s->run->devices[i], &c, s->forms, (uint32_t)messages,
                          walls_x, walls_y, tiers, 0, &m->gas);
  if (status == CK_OK)
    *queue = ck__gas_member_queue(m->gas);
  return status;
}

/* Whether member m holds the particle at u along the cut and v across
 * it (the box's far ends belong to the last slab). */
static int holds(const ck__gas_spread *s, const member *m, double u, double v) {
  const axis_link *x = &m->link[0], *y = &m->link[1];
  if (!(u >= x->lo && (u < x->hi || x->hi >= along(s))))
    return 0;
  return s->stages == 1 || (v >= y->lo && (v < y->hi || y->hi >= across(s)));
}

/* Member i's slab and the particles in it, counted (a phase). */
static ck_status count_slab(void *context, size_t i) {
  ck__gas_spread *s = context;
  member *m = &s->members[i];
  const double *positions = s->deal_positions;
  ck__gas_spread_place_member(s, m, i);
  m->own = 0;
  for (size_t k = 0; k < s->config.particles; ++k)
    m->own += holds(s, m, coordinate(s, positions, k, 0),
                    coordinate(s, positions, k, 1));
  return CK_OK;
}

ck_status ck__gas_spread_take_slab(ck__gas_spread *s, member *m, size_t i) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  const double *positions = s->deal_positions;
  const double *velocities = s->deal_velocities;
  int a = s->axis;
  size_t own = m->own;
  double across_origin = s->stages > 1 ? m->link[1].origin : 0;
  CK_TRY(ck__gas_member_build(m->gas));
  CK_TRY(ck__gas_spread_hold_scratch(s, i, own, 4));
  uint32_t *words = s->words[i].data;
  float *reals = s->reals[i].data;
  size_t at = 0;
  for (size_t k = 0; k < c->particles && at < own; ++k) {
    double u = coordinate(s, positions, k, 0);
    double v = coordinate(s, positions, k, 1);
    if (!holds(s, m, u, v))
      continue;
    words[at] = (uint32_t)k;
    reals[4 * at] = (float)(u - m->link[0].origin);
    reals[4 * at + 1] = (float)(v - across_origin);
    reals[4 * at + 2] = (float)velocities[2 * k + (size_t)a];
    reals[4 * at + 3] = (float)velocities[2 * k + 1 - (size_t)a];
    ++at;
  }
  assert(at == own); /* count_slab counted them with the same test */
  CK_TRY(ck__gas_member_append(m->gas, own, words, reals, 4, 0));
fail:
  return status;
}

/* The first ghosts: each member's exports, as at a rebuild. */
static ck_status first_exports(ck__gas_spread *s, member *m, size_t i) {
  memset(STAGE(m)->incoming, 0, sizeof STAGE(m)->incoming);
  s->from[PREVIOUS][i].count = s->from[NEXT][i].count = 0;
  return ck__gas_spread_take_exports(s, m, i);
}

ck_status ck__gas_spread_cut(ck__gas_spread *s, uint64_t *units) {
  ck_status status = CK_OK;
  CK_TRY(ck__engine_agree(s->engine, cut_box(s, s->deal_positions)));
  CK_TRY(ck__engine_each(s->engine, count_slab, s));
  for (size_t i = 0; i < s->run->local; ++i)
    units[i] = s->members[i].own;
fail:
  return status;
}

ck_status ck__gas_spread_first_ghosts(ck__gas_spread *s) {
  ck_status status = CK_OK;
  if (s->config.neighbors == CK_GAS_CELLS) {
    /* The first ghosts, and forces without a kick. */
    CK_TRY(ck__gas_spread_cells_step(s, 0, 1));
    ck__gas_spread_ready_to_reside(s);
    return CK_OK;
  }
  for (s->stage = 0; s->stage < s->stages; ++s->stage) {
    CK_TRY(ck__gas_spread_each(s, first_exports));
    CK_TRY(ck__gas_spread_deliver(s, 1));
    CK_TRY(ck__gas_spread_each(s, ck__gas_spread_take_ghosts));
  }
  s->stage = 0;
  s->phase_step = 0;
  s->phase_energy = 1;
  CK_TRY(ck__gas_spread_each(s, ck__gas_spread_forces));
fail:
  s->stage = 0;
  return status;
}

/* Whether the members' speeds need measuring (collective): not where
 * every member's device is of one model (backend, name, compute units
 * and clock). Equal shares serve those, and their steps go device to
 * device from the first; measuring goes through the host (about 0.2 s at
 * 8M particles over two H100s). */
static ck_status alike_decide(ck__gas_spread *s) {
  ck_status status = CK_OK;
  struct {
    int backend;
    unsigned compute_units, clock_mhz;
    char name[116];
  } mine[CK_SPREAD_MAX_LOCAL], *all = NULL;
  if (!s->balancing)
    return CK_OK; /* alike on every process: the shares are the run's */
  memset(mine, 0, sizeof mine);
  for (size_t i = 0; i < s->run->local; ++i) {
    const ck_device *device = &s->run->devices[i];
    mine[i].backend = (int)device->backend;
    mine[i].compute_units = device->compute_units;
    mine[i].clock_mhz = device->clock_mhz;
    snprintf(mine[i].name, sizeof mine[i].name, "%.*s",
             (int)sizeof mine[i].name - 1, device->name);
  }
  all = calloc(s->total, sizeof mine[0]);
  CK_TRY(ck__gas_spread_agree(
      s, all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory")));
  CK_TRY(ck__exchange_gather_rows(s->run->exchange, mine, sizeof mine[0],
                                  sizeof mine[0], all));
  int alike = 1;
  for (size_t m = 1; m < s->total; ++m)
    alike = alike && memcmp(&all[m], &all[0], sizeof all[0]) == 0;
  if (alike)
    s->balancing = 0;
fail:
  free(all);
  return status;
}

ck_status ck__gas_spread_plan(ck__gas_spread *s) {
  ck_status status = CK_OK;
  CK_TRY(choose_grid(s));
  /* A grid's members go through the host, and keep their boxes. */
  if (s->stages > 1)
    s->balancing = 0;
  s->on_devices = s->peers[PREVIOUS][0] != NULL && s->stages == 1;
  CK_TRY(ck__gas_spread_between_decide(s));
  CK_TRY(alike_decide(s));
  /* What the members' census must find: every id once. */
  s->census[0] = s->config.particles;
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
  double mine[CK_SPREAD_MAX_LOCAL][2];
  double *all = calloc(2 * s->total, sizeof *all);
  double *positions = NULL, *velocities = NULL;
  CK_TRY(ck__gas_spread_agree(
      s, all ? CK_OK : ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of memory")));
  for (size_t i = 0; i < s->run->local; ++i) {
    mine[i][0] = (double)s->members[i].own;
    mine[i][1] = s->run->compute_s[i] - s->measured_from[i];
  }
  CK_TRY(ck__exchange_gather_rows(s->run->exchange, mine, sizeof mine[0],
                                  sizeof mine[0], all));
  double seconds = 0, slowest = 0, speed = 0;
  for (size_t m = 0; m < s->total; ++m) {
    seconds += all[2 * m + 1];
    slowest = fmax(slowest, all[2 * m + 1]);
  }
  if (seconds < BALANCE_SECONDS)
    goto fail; /* every process decides alike, from the same figures */
  s->balancing = 0;
  /* Each member's particles a second; cut so that all take as long. */
  for (size_t m = 0; m < s->total; ++m) {
    double rate = all[2 * m + 1] > 0 ? all[2 * m] / all[2 * m + 1] : 0;
    s->weights[m] = rate > 0 ? rate : 1e-9;
    speed += rate;
  }
  double balanced = speed > 0 ? (double)s->config.particles / speed : slowest;
  if (!(balanced < (1 - BALANCE_GAIN) * slowest))
    goto fail;
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
  free(all);
  free(positions);
  free(velocities);
  return status;
}

/* ---- what the run reads -------------------------------------------------- */

/* Member m's own particles as records in m->out[0]: each its id (ids)
 * and the fields asked for (pairs[q], singles[q] not NULL), in the run's
 * coordinates, from the floats its device gave in read: positions,
 * velocities and forces 2 slots each, then energies and virials. */
static void write_records(const ck__gas_spread *s, member *m, size_t own,
                          const uint32_t *ids, const float *read, size_t slots,
                          double *const pairs[3], double *const singles[2]) {
  int a = s->axis;
  const float *p = read, *v = read + 2 * slots, *f = read + 4 * slots,
              *e = read + 6 * slots, *w = read + 7 * slots;
  double *record = m->out[0].data;
  for (size_t k = 0; k < own; ++k) {
    double u = p[2 * k] + m->link[0].origin;
    double across_value =
        p[2 * k + 1] + (s->stages > 1 ? m->link[1].origin : 0);
    if (!s->config.walls) {
      u = wrap(u, along(s));
      across_value = wrap(across_value, across(s));
    }
    double values[6] = {
        a ? across_value : u,        a ? u : across_value,
        a ? v[2 * k + 1] : v[2 * k], a ? v[2 * k] : v[2 * k + 1],
        a ? f[2 * k + 1] : f[2 * k], a ? f[2 * k] : f[2 * k + 1]};
    *record++ = (double)ids[k];
    for (int q = 0; q < 3; ++q)
      if (pairs[q]) {
        *record++ = values[2 * q];
        *record++ = values[2 * q + 1];
      }
    if (singles[0])
      *record++ = e[k];
    if (singles[1])
      *record++ = w[k];
  }
}

/* The fields a read asks for: positions, velocities, forces, then
 * energies and virials (NULL: not asked); each record's doubles, and
 * each local member's count of records. */
typedef struct records_call {
  ck__gas_spread *spread;
  double *const *pairs, *const *singles;
  size_t fields;
  size_t *counts;
} records_call;

/* Member i's own particles, the fields asked for read from its device and
 * written as records into its m->out[0] (a phase). */
static ck_status member_records(void *context, size_t i) {
  ck_status status = CK_OK;
  const records_call *call = context;
  ck__gas_spread *s = call->spread;
  double *const *pairs = call->pairs, *const *singles = call->singles;
  member *m = &s->members[i];
  size_t slots = ck__gas_member_slots(m->gas), *own = &call->counts[i];
  float *read = malloc((slots ? slots : 1) * 8 * sizeof *read);
  if (!read)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory");
  CK_TRY(ck__gas_spread_hold_scratch(s, i, slots, 1));
  CK_TRY(ck__gas_member_own(
      m->gas, own, s->words[i].data, pairs[0] ? read : NULL,
      pairs[1] ? read + 2 * slots : NULL, pairs[2] ? read + 4 * slots : NULL,
      singles[0] ? read + 6 * slots : NULL,
      singles[1] ? read + 7 * slots : NULL));
  CK_TRY(ck__exchange_buffer_hold(&m->out[0], call->fields * sizeof(double),
                                  *own));
  write_records(s, m, *own, s->words[i].data, read, slots, pairs, singles);
fail:
  free(read);
  return status;
}

ck_status ck__gas_spread_particles(ck__gas_spread *s, double *positions,
                                   double *velocities, double *forces,
                                   double *energies, double *virials) {
  ck_status status = CK_OK;
  const ck_gas_config *c = &s->config;
  ck__exchange_buffer all = {0};
  double *const pairs[3] = {positions, velocities, forces};
  double *const singles[2] = {energies, virials};
  size_t fields = 1;
  for (int q = 0; q < 3; ++q)
    fields += pairs[q] ? 2 : 0;
  for (int q = 0; q < 2; ++q)
    fields += singles[q] ? 1 : 0;
  const void *send[CK_SPREAD_MAX_LOCAL];
  size_t counts[CK_SPREAD_MAX_LOCAL];
  records_call call = {s, pairs, singles, fields, counts};
  CK_TRY(ck__engine_each(s->engine, member_records, &call));
  for (size_t i = 0; i < s->run->local; ++i)
    send[i] = s->members[i].out[0].data;
  CK_TRY(ck__exchange_gather_items(s->run->exchange, fields * sizeof(double),
                                   send, counts, &all, NULL));
  if (all.count != c->particles)
    CK_FAIL(CK_ERROR_MISMATCH, "the slabs hold %zu particles, not %zu",
            all.count, c->particles);
  /* Each record's fields into the caller's arrays at its id. */
  const double *record = all.data;
  for (size_t k = 0; k < all.count; ++k) {
    size_t id = (size_t)*record++;
    for (int q = 0; q < 3; ++q)
      if (pairs[q]) {
        pairs[q][2 * id] = *record++;
        pairs[q][2 * id + 1] = *record++;
      }
    for (int q = 0; q < 2; ++q)
      if (singles[q])
        singles[q][id] = *record++;
  }
fail:
  free(all.data);
  return status;
}

/* An RDF's bins, each member's counts as doubles in sums (a phase). */
typedef struct rdf_call {
  ck__gas_spread *spread;
  size_t bins;
  double range;
  uint64_t *mine;
  double *sums;
} rdf_call;

static ck_status member_rdf(void *context, size_t i) {
  const rdf_call *call = context;
  size_t bins = call->bins;
  uint64_t *mine = call->mine + i * bins;
  ck_status status =
      ck__gas_member_rdf(call->spread->members[i].gas, bins, call->range, mine);
  for (size_t b = 0; b < bins; ++b)
    call->sums[i * bins + b] = (double)mine[b];
  return status;
}

ck_status ck__gas_spread_rdf(ck__gas_spread *s, size_t bins, double range,
                             uint64_t *counts) {
  ck_status status = CK_OK;
  size_t local = s->run->local;
  uint64_t *mine = calloc(local * bins, sizeof *mine);
  double *sums = calloc((local + 1) * bins, sizeof *sums);
  const double *rows[CK_SPREAD_MAX_LOCAL];
  CK_TRY(ck__gas_spread_agree(
      s, mine && sums ? CK_OK
                      : ck__fail(CK_ERROR_OUT_OF_MEMORY,
                                 "out of host memory for the RDF")));
  rdf_call call = {s, bins, range, mine, sums};
  CK_TRY(ck__engine_each(s->engine, member_rdf, &call));
  for (size_t i = 0; i < local; ++i)
    rows[i] = sums + i * bins;
  double *total = sums + local * bins;
  CK_TRY(ck__exchange_sum(s->run->exchange, rows, total, bins));
  for (size_t b = 0; b < bins; ++b)
    counts[b] += (uint64_t)total[b];
fail:
  free(mine);
  free(sums);
  return status;
}
