/*
 * domain.c - a run's box cut for its members (framework/domain.h): the
 * slabs or the grid chosen, the borders that give each member its share
 * of the points, and each member's place among its neighbours.
 */
#include "framework/domain.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "framework/spread.h"
#include "util/util.h"

enum { PREVIOUS = CK__DOMAIN_PREVIOUS, NEXT = CK__DOMAIN_NEXT };

double ck__domain_length(const ck__domain *d, int a) {
  return d->box[a ? 1 - d->axis : d->axis];
}

double ck__domain_wrap(double x, double side) {
  if (x >= side || x < 0)
    x -= side * floor(x / side);
  return x >= side || x < 0 ? 0 : x;
}

/* Point k's coordinate along the cut (a = 0) or across it (a = 1). */
static double coordinate_of(const ck__domain *d, const double *points, size_t k,
                            int a) {
  double u = points[2 * k + (size_t)(a ? 1 - d->axis : d->axis)];
  return d->walls ? u : ck__domain_wrap(u, ck__domain_length(d, a));
}

void ck__domain_point(const ck__domain *d, const double *points, size_t k,
                      double uv[2]) {
  uv[0] = coordinate_of(d, points, k, 0);
  uv[1] = coordinate_of(d, points, k, 1);
}

/* The squarest grid of d->members boxes, each at least `narrowest` wide
 * both ways (grid[0] columns along x, grid[1] rows); 0 where none fits.
 * *grids counts the ways to deal the members in columns and rows. */
static int choose_grid(ck__domain *d, double narrowest, int *grids) {
  double best = 0;
  for (size_t columns = 2; columns <= d->members / 2; ++columns) {
    size_t rows = d->members / columns;
    if (columns * rows != d->members)
      continue;
    *grids += 1;
    double x = d->box[0] / (double)columns, y = d->box[1] / (double)rows;
    if (fmin(x, y) >= narrowest && fmin(x, y) > best) {
      best = fmin(x, y);
      d->grid[0] = columns;
      d->grid[1] = rows;
    }
  }
  return best > 0;
}

ck_status ck__domain_plan(ck__domain *d, const double *weights) {
  assert(d->members >= 1 && d->box[0] > 0 && d->box[1] > 0);
  double narrowest = 2 * d->reach;
  int grids = 0;
  d->axis = d->members > 1 && d->box[1] > d->box[0];
  d->grid[0] = d->members;
  d->grid[1] = 1;
  d->stages = 1;
  for (int a = 0; a < 2; ++a) {
    free(d->bounds[a]);
    d->bounds[a] = calloc(d->members + 1, sizeof *d->bounds[a]);
  }
  if (!d->bounds[0] || !d->bounds[1])
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* One member, or slabs: the box's width across them. */
  d->bounds[1][1] = ck__domain_length(d, 1);
  if (d->members == 1)
    d->bounds[0][1] = ck__domain_length(d, 0);
  if (ck__domain_length(d, 0) >= (double)d->members * narrowest)
    return CK_OK;
  /* A grid's columns run along x and its rows along y. */
  d->axis = 0;
  if (choose_grid(d, narrowest, &grids)) {
    d->stages = 2;
    for (size_t m = 1; m < d->members; ++m)
      if (weights[m] != weights[0])
        return ck__fail(
            CK_ERROR_INVALID_ARGUMENT,
            "ck_spread.shares: %zu members cut the box (%g by %g) in a grid "
            "of %zu by %zu boxes (slabs would be narrower than 2 (%s) = "
            "%g), and a grid's columns and rows hold as many points each: give "
            "equal "
            "shares, or none",
            d->members, d->box[0], d->box[1], d->grid[0], d->grid[1],
            d->reach_name, narrowest);
    return CK_OK;
  }
  return ck__fail(
      CK_ERROR_INVALID_ARGUMENT,
      "%s: %zu members cannot cut the box (%g by %g): slabs across its %g "
      "side, or the boxes of a grid of them, must be at least 2 (%s) = %g "
      "wide each way, and %s: use fewer devices (or a count with factors, "
      "for a grid), a larger box, or a smaller %s",
      d->reach_option, d->members, d->box[0], d->box[1],
      fmax(d->box[0], d->box[1]), d->reach_name, narrowest,
      grids ? "no grid of them fits"
            : "they make no grid of 2 or more columns and rows",
      d->reach_name);
}

void ck__domain_free(ck__domain *d) {
  for (int a = 0; a < 2; ++a) {
    free(d->bounds[a]);
    d->bounds[a] = NULL;
  }
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

/* The points' coordinates along axis a, and how many. */
typedef struct coordinates {
  const ck__domain *domain;
  const double *points;
  size_t n;
  int a;
} coordinates;

static double coordinate(const coordinates *c, size_t k) {
  return coordinate_of(c->domain, c->points, k, c->a);
}

/*
 * The border along c's axis that leaves `wanted` points below it (0 <
 * wanted < n), or as near that as their coordinates allow: points at one
 * coordinate (a lattice's row) stay on one side, the lower count on a
 * tie. It lies halfway between the last point below it and the first
 * above. The point of rank `wanted` is found in its bin of the histogram
 * (bins of them, the counts of each), whose points alone are sorted;
 * *scratch grows to hold them.
 */
static ck_status border_at(const coordinates *c, const uint64_t *histogram,
                           size_t bins, uint64_t wanted, double **scratch,
                           size_t *capacity, double *border) {
  double length = ck__domain_length(c->domain, c->a);
  size_t n = c->n, b = 0;
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
    double u = coordinate(c, k);
    if (bin_of(u, length, bins) == b)
      (*scratch)[held++] = u;
  }
  qsort(*scratch, held, sizeof **scratch, ascending_reals);
  double v = (*scratch)[wanted - before];
  /* The points below v, at v, and their neighbours on either side. */
  uint64_t below = 0, at = 0;
  double lower = -INFINITY, upper = INFINITY;
  for (size_t k = 0; k < n; ++k) {
    double u = coordinate(c, k);
    below += u < v;
    at += u == v;
    if (u < v && u > lower)
      lower = u;
    if (u > v && u < upper)
      upper = u;
  }
  /* Below every point at v, or above them all: the nearer count. */
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
 * The borders of `count` slabs along c's axis, into bounds (count + 1):
 * each holds its share of the points (fractions, which sum to 1), as
 * ck__spread_apportion counts it, as nearly as their coordinates allow
 * (border_at), and is at least twice the reach wide (ck__domain_plan saw
 * that the side holds them).
 */
static ck_status cut_slabs(const coordinates *c, size_t count,
                           const double *fractions, double *bounds) {
  ck_status status = CK_OK;
  double length = ck__domain_length(c->domain, c->a);
  double reach = c->domain->reach, narrowest = 2 * reach;
  size_t n = c->n, capacity = 0;
  size_t bins = (size_t)fmin(1e7, fmax(1, ceil(length / (0.25 * reach))));
  uint64_t *histogram = calloc(bins, sizeof *histogram);
  uint64_t *counts = calloc(count, sizeof *counts);
  double *quotas = calloc(count, sizeof *quotas), *scratch = NULL;
  if (!histogram || !counts || !quotas)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t k = 0; k < n; ++k)
    histogram[bin_of(coordinate(c, k), length, bins)] += 1;
  for (size_t m = 0; m < count; ++m)
    quotas[m] = fractions[m] * (double)n;
  ck__spread_apportion(quotas, count, n, 0, counts);
  bounds[0] = 0;
  bounds[count] = length;
  uint64_t wanted = 0;
  for (size_t m = 1; m < count; ++m) {
    wanted += counts[m - 1];
    if (wanted == 0 || wanted >= n)
      bounds[m] = wanted == 0 ? 0 : length;
    else
      CK_TRY(border_at(c, histogram, bins, wanted, &scratch, &capacity,
                       &bounds[m]));
  }
  /* At least the narrowest: pushed up from below, then down from above. */
  for (size_t m = 1; m < count; ++m)
    bounds[m] = fmax(bounds[m], bounds[m - 1] + narrowest);
  for (size_t m = count - 1; m > 0; --m)
    bounds[m] = fmin(bounds[m], bounds[m + 1] - narrowest);
  /* The side is long enough: every slab is the narrowest or more, up to
   * rounding. */
  for (size_t m = 0; m < count; ++m)
    assert(bounds[m + 1] - bounds[m] >= narrowest * (1 - 1e-9));
fail:
  free(histogram);
  free(counts);
  free(quotas);
  free(scratch);
  return status;
}

ck_status ck__domain_cut(ck__domain *d, const double *points, size_t n,
                         const double *weights) {
  ck_status status = CK_OK;
  assert(d->bounds[0] && d->bounds[1]); /* planned */
  double *fractions = malloc(d->members * sizeof *fractions);
  if (!fractions)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* Slabs by the weights; a grid's columns, and its rows, as many points
   * each. */
  for (int a = 0; a < d->stages; ++a) {
    size_t count = d->grid[a];
    if (d->stages == 1)
      ck__spread_fractions(weights, count, fractions);
    else
      for (size_t m = 0; m < count; ++m)
        fractions[m] = 1.0 / (double)count;
    coordinates c = {d, points, n, a};
    CK_TRY(cut_slabs(&c, count, fractions, d->bounds[a]));
  }
fail:
  free(fractions);
  return status;
}

/* Whether cell `at` of `count` along an axis has a neighbour on a side:
 * always in a periodic box; with walls, all but the first before and the
 * last after. */
static int has_neighbour(const ck__domain *d, size_t at, size_t count,
                         int side) {
  return !d->walls || (side == PREVIOUS ? at > 0 : at + 1 < count);
}

/* Where cell `at` of `count` along an axis starts its box: the reach and
 * the pad before its slab, or its slab at a wall. */
static double origin_of(const ck__domain *d, const double *bounds, size_t at,
                        size_t count) {
  double lo = bounds[at];
  return has_neighbour(d, at, count, PREVIOUS) ? lo - d->reach - d->pad : lo;
}

/* A member's place along axis a, where it is cell `at` of `count` and
 * its neighbours there are `stride` members apart: its slab, its box,
 * and what it adds to what it sends. */
static void place_along(const ck__domain *d, ck__domain_place *l, int a,
                        size_t index, size_t at, size_t count, size_t stride) {
  const double *bounds = d->bounds[a];
  double length = ck__domain_length(d, a), margin = d->reach + d->pad;
  int first = at == 0, last = at + 1 == count;
  int has[2] = {has_neighbour(d, at, count, PREVIOUS),
                has_neighbour(d, at, count, NEXT)};
  size_t previous = (at + count - 1) % count, next = (at + 1) % count;
  l->neighbour[PREVIOUS] = index - at * stride + previous * stride;
  l->neighbour[NEXT] = index - at * stride + next * stride;
  l->lo = bounds[at];
  l->hi = bounds[at + 1];
  l->origin = origin_of(d, bounds, at, count);
  l->side = (has[NEXT] ? l->hi + margin : l->hi) - l->origin;
  l->border[PREVIOUS] =
      has[PREVIOUS] ? l->lo - l->origin : -CK__DOMAIN_NO_BORDER;
  l->border[NEXT] = has[NEXT] ? l->hi - l->origin : CK__DOMAIN_NO_BORDER;
  /* To a neighbour's coordinates: from this box's start to its, across
   * the periodic edge where the neighbour is at the other end. */
  l->shift[PREVIOUS] =
      l->origin - origin_of(d, bounds, previous, count) + (first ? length : 0);
  l->shift[NEXT] =
      l->origin - origin_of(d, bounds, next, count) - (last ? length : 0);
}

void ck__domain_place_member(const ck__domain *d, size_t index,
                             ck__domain_place place[2]) {
  size_t columns = d->grid[0];
  assert(index < d->members);
  place_along(d, &place[0], 0, index, index % columns, columns, 1);
  if (d->stages > 1) {
    place_along(d, &place[1], 1, index, index / columns, d->grid[1], columns);
    return;
  }
  /* Slabs: the whole width across, from 0, with nothing past it. */
  ck__domain_place *l = &place[1];
  l->neighbour[PREVIOUS] = l->neighbour[NEXT] = index;
  l->lo = l->origin = 0;
  l->hi = l->side = ck__domain_length(d, 1);
  l->border[PREVIOUS] = -CK__DOMAIN_NO_BORDER;
  l->border[NEXT] = CK__DOMAIN_NO_BORDER;
  l->shift[PREVIOUS] = l->shift[NEXT] = 0;
}

int ck__domain_holds(const ck__domain *d, const ck__domain_place place[2],
                     const double uv[2]) {
  const ck__domain_place *x = &place[0], *y = &place[1];
  if (!(uv[0] >= x->lo && (uv[0] < x->hi || x->hi >= ck__domain_length(d, 0))))
    return 0;
  return d->stages == 1 ||
         (uv[1] >= y->lo &&
          (uv[1] < y->hi || y->hi >= ck__domain_length(d, 1)));
}

int ck__domain_walls(const ck__domain *d, size_t index, int a) {
  size_t count = d->grid[a], at = a ? index / d->grid[0] : index % d->grid[0];
  return d->walls ? (at == 0 ? 1 : 0) | (at + 1 == count ? 2 : 0) : 0;
}

void ck__domain_to_box(const ck__domain *d, const ck__domain_place place[2],
                       double u, double v, double xy[2]) {
  u += place[0].origin;
  v += place[1].origin;
  if (!d->walls) {
    u = ck__domain_wrap(u, ck__domain_length(d, 0));
    v = ck__domain_wrap(v, ck__domain_length(d, 1));
  }
  xy[d->axis] = u;
  xy[1 - d->axis] = v;
}
