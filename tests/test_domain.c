/*
 * test_domain.c - a run's box cut for its members (framework/domain.h),
 * on its own: the slabs or grid chosen and refused, cuts that give each
 * member its share of seeded points (and keep a lattice's rows whole),
 * every point held by one member, and each member's place: neighbours
 * that point back, shifts that carry a point to its neighbour's
 * coordinates, walls, and the way back to the run's box. Then the halo
 * (framework/halo.h): messages each way to the neighbours of slabs and of
 * a grid's rows and columns, and envelopes sealed, opened and refused.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "framework/domain.h"
#include "framework/halo.h"
#include "framework/spread.h"

#define MAX_POINTS 4000

static double points[2 * MAX_POINTS];

/* n points in [0, x) by [0, y), from a seeded generator. */
static void scatter(size_t n, double x, double y, uint64_t seed) {
  for (size_t k = 0; k < 2 * n; ++k) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    double unit = (double)(seed >> 11) / 9007199254740992.0;
    points[k] = unit * (k % 2 ? y : x);
  }
}

static ck__domain make(double x, double y, int walls, double reach,
                       size_t members) {
  ck__domain d = {.box = {x, y},
                  .walls = walls,
                  .reach = reach,
                  .pad = 0.25 * reach,
                  .members = members,
                  .reach_option = "test.reach",
                  .reach_name = "reach"};
  return d;
}

/* The member that holds each point: exactly one, counted into held. */
static void check_held(const ck__domain *d, size_t n, size_t *held) {
  ck__domain_place places[16][2];
  memset(held, 0, d->members * sizeof *held);
  for (size_t m = 0; m < d->members; ++m)
    ck__domain_place_member(d, m, places[m]);
  for (size_t k = 0; k < n; ++k) {
    double uv[2];
    size_t holders = 0;
    ck__domain_point(d, points, k, uv);
    for (size_t m = 0; m < d->members; ++m)
      if (ck__domain_holds(d, places[m], uv)) {
        held[m] += 1;
        holders += 1;
      }
    CHECK_MSG(holders == 1, "point %zu held by %zu members", k, holders);
  }
}

/* Slabs across the longer side, cut to the shares' counts. */
static void slabs_by_shares(void) {
  size_t n = 3000, held[3];
  double weights[3] = {1, 2, 3}, fractions[3], quotas[3];
  uint64_t counts[3];
  scatter(n, 20, 60, 7);
  ck__domain d = make(20, 60, 0, 2.5, 3);
  CHECK_OK(ck__domain_plan(&d, weights));
  CHECK(d.stages == 1 && d.axis == 1); /* taller: cut along y */
  CHECK(d.grid[0] == 3 && d.grid[1] == 1);
  CHECK(ck__domain_length(&d, 0) == 60 && ck__domain_length(&d, 1) == 20);
  CHECK_OK(ck__domain_cut(&d, points, n, weights));
  ck__spread_fractions(weights, 3, fractions);
  for (size_t m = 0; m < 3; ++m)
    quotas[m] = fractions[m] * (double)n;
  ck__spread_apportion(quotas, 3, n, 0, counts);
  check_held(&d, n, held);
  for (size_t m = 0; m < 3; ++m) {
    CHECK_MSG(held[m] == counts[m], "slab %zu holds %zu, not %llu", m, held[m],
              (unsigned long long)counts[m]);
    CHECK(d.bounds[0][m + 1] - d.bounds[0][m] >= 2 * d.reach * (1 - 1e-9));
  }
  CHECK(d.bounds[0][0] == 0 && d.bounds[0][3] == 60);
  ck__domain_free(&d);
}

/* Points in rows (a lattice's) stay on one side of a border. */
static void rows_stay_whole(void) {
  size_t n = 0, held[2];
  for (size_t row = 0; row < 10; ++row)
    for (size_t k = 0; k < 7; ++k, ++n) {
      points[2 * n] = 1.0 + 3.0 * (double)row;
      points[2 * n + 1] = 1.0 + (double)k;
    }
  double weights[2] = {1, 1};
  ck__domain d = make(30, 10, 0, 2, 2);
  CHECK_OK(ck__domain_plan(&d, weights));
  CHECK_OK(ck__domain_cut(&d, points, n, weights));
  check_held(&d, n, held);
  CHECK(held[0] == 35 && held[1] == 35);
  CHECK(d.bounds[0][1] == 14.5); /* halfway between rows 4 and 5 */
  /* Shares 2:1 want 47 below: row 6 ends at 49, nearer than 42. */
  weights[0] = 2;
  CHECK_OK(ck__domain_cut(&d, points, n, weights));
  check_held(&d, n, held);
  CHECK(held[0] == 49 && held[1] == 21);
  CHECK(d.bounds[0][1] == 20.5);
  ck__domain_free(&d);
}

/* A point near each border, sent with the shift, lands where the
 * neighbour sees it: the same place in the run's box. */
static void places_agree(const ck__domain *d) {
  ck__domain_place places[16][2];
  for (size_t m = 0; m < d->members; ++m)
    ck__domain_place_member(d, m, places[m]);
  for (size_t m = 0; m < d->members; ++m)
    for (int a = 0; a < d->stages; ++a)
      for (int side = 0; side < 2; ++side) {
        const ck__domain_place *p = &places[m][a];
        size_t n = p->neighbour[side];
        const ck__domain_place *q = &places[n][a];
        CHECK(n < d->members && q->neighbour[!side] == m);
        CHECK(p->border[CK__DOMAIN_PREVIOUS] < p->border[CK__DOMAIN_NEXT]);
        /* Borders that are both finite lie the slab's width apart (a wall
         * puts one at CK__DOMAIN_NO_BORDER). */
        double lower = p->border[CK__DOMAIN_PREVIOUS],
               upper = p->border[CK__DOMAIN_NEXT];
        if (fabs(lower) < CK__DOMAIN_NO_BORDER &&
            fabs(upper) < CK__DOMAIN_NO_BORDER)
          CHECK_MSG(fabs(upper - lower - (p->hi - p->lo)) < 1e-9,
                    "member %zu axis %d: borders %g %g, slab %g %g", m, a,
                    lower, upper, p->lo, p->hi);
        if (fabs(p->border[side]) >= CK__DOMAIN_NO_BORDER)
          continue; /* a wall: no one past it */
        double local[2] = {0.5 * places[m][0].side, 0.5 * places[m][1].side};
        local[a] = p->border[side] + (side ? -0.1 : 0.1) * d->reach;
        double sent[2] = {local[0], local[1]};
        sent[a] += p->shift[side];
        double mine[2], theirs[2];
        ck__domain_to_box(d, places[m], local[0], local[1], mine);
        ck__domain_to_box(d, places[n], sent[0], sent[1], theirs);
        CHECK_MSG(fabs(mine[0] - theirs[0]) < 1e-9 &&
                      fabs(mine[1] - theirs[1]) < 1e-9,
                  "member %zu axis %d side %d: (%g, %g) arrives at (%g, %g)", m,
                  a, side, mine[0], mine[1], theirs[0], theirs[1]);
        /* Within the neighbour's box, past its border by the reach. */
        CHECK(sent[a] >= 0 && sent[a] <= q->side);
      }
}

/* A square box too narrow for four slabs: a grid of 2 x 2, both
 * stages' places consistent, each column and each row half the points. */
static void grid_of_four(int walls) {
  size_t n = 4000, held[4];
  double weights[4] = {1, 1, 1, 1};
  scatter(n, 20, 20, 11);
  ck__domain d = make(20, 20, walls, 3, 4);
  CHECK_OK(ck__domain_plan(&d, weights));
  CHECK(d.stages == 2 && d.grid[0] == 2 && d.grid[1] == 2 && d.axis == 0);
  CHECK_OK(ck__domain_cut(&d, points, n, weights));
  check_held(&d, n, held);
  /* Member m is column m % 2 of row m / 2. */
  CHECK(held[0] + held[2] == 2000 && held[1] + held[3] == 2000);
  CHECK(held[0] + held[1] == 2000 && held[2] + held[3] == 2000);
  places_agree(&d);
  /* Member 3 is column 1 of row 1: walls past it both ways. */
  CHECK(ck__domain_walls(&d, 3, 0) == (walls ? 2 : 0));
  CHECK(ck__domain_walls(&d, 3, 1) == (walls ? 2 : 0));
  CHECK(ck__domain_walls(&d, 0, 1) == (walls ? 1 : 0));
  ck__domain_free(&d);
}

/* Slabs in a periodic and a walled box: places, and the way back. */
static void slab_places(int walls) {
  size_t n = 500;
  double weights[4] = {1, 1, 1, 1};
  scatter(n, 80, 10, 3);
  ck__domain d = make(80, 10, walls, 2, 4);
  CHECK_OK(ck__domain_plan(&d, weights));
  CHECK(d.stages == 1 && d.axis == 0);
  CHECK_OK(ck__domain_cut(&d, points, n, weights));
  places_agree(&d);
  ck__domain_place first[2], last[2];
  ck__domain_place_member(&d, 0, first);
  ck__domain_place_member(&d, 3, last);
  /* Across slabs: the whole width, no neighbour. */
  CHECK(first[1].origin == 0 && first[1].side == 10);
  CHECK(first[1].border[0] == -CK__DOMAIN_NO_BORDER);
  CHECK(first[0].origin == (walls ? 0 : -2.5));
  CHECK((first[0].border[0] == -CK__DOMAIN_NO_BORDER) == walls);
  CHECK((last[0].border[1] == CK__DOMAIN_NO_BORDER) == walls);
  CHECK(ck__domain_walls(&d, 0, 0) == (walls ? 1 : 0));
  CHECK(ck__domain_walls(&d, 3, 0) == (walls ? 2 : 0));
  /* A point in a member's coordinates goes back where it came from. */
  for (size_t k = 0; k < n; ++k) {
    double uv[2], xy[2];
    ck__domain_point(&d, points, k, uv);
    for (size_t m = 0; m < 4; ++m) {
      ck__domain_place place[2];
      ck__domain_place_member(&d, m, place);
      if (!ck__domain_holds(&d, place, uv))
        continue;
      ck__domain_to_box(&d, place, uv[0] - place[0].origin,
                        uv[1] - place[1].origin, xy);
      CHECK(fabs(xy[0] - points[2 * k]) < 1e-12 &&
            fabs(xy[1] - points[2 * k + 1]) < 1e-12);
    }
  }
  ck__domain_free(&d);
}

/* One member: the whole box, its own neighbour. */
static void alone(void) {
  double weights[1] = {1};
  ck__domain d = make(7, 9, 0, 0, 1);
  d.pad = 0;
  CHECK_OK(ck__domain_plan(&d, weights));
  CHECK(d.stages == 1 && d.axis == 0);
  ck__domain_place place[2];
  ck__domain_place_member(&d, 0, place);
  CHECK(place[0].lo == 0 && place[0].hi == 7 && place[0].side == 7);
  CHECK(place[0].neighbour[0] == 0 && place[0].neighbour[1] == 0);
  CHECK(place[1].side == 9);
  ck__domain_free(&d);
}

/* Boxes that cannot be cut, named. */
static void refusals(void) {
  double equal[6] = {1, 1, 1, 1, 1, 1}, unequal[4] = {1, 1, 1, 2};
  struct {
    double x, y, reach;
    size_t members;
    const double *weights;
    const char *mention;
  } cases[] = {
      {12, 12, 4, 2, equal, "test.reach: 2 members cannot cut the box (12"},
      {12, 12, 4, 4, equal, "no grid of them fits"},
      {12, 12, 4, 5, equal, "they make no grid of 2 or more"},
      {20, 20, 3, 4, unequal, "ck_spread.shares: 4 members cut the box"},
      {1e-3, 1, 1, 3, equal, "2 (reach) = 2"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    ck__domain d =
        make(cases[c].x, cases[c].y, 0, cases[c].reach, cases[c].members);
    CHECK_INVALID(ck__domain_plan(&d, cases[c].weights), cases[c].mention);
    ck__domain_free(&d);
  }
}

/* Every member of d in this process sends each way, at each stage, the
 * words (its index, side, stage); each must receive its neighbours'. */
static void halo_passes(const ck__domain *d) {
  ck__exchange *exchange = NULL;
  const char *names[4] = {"m0", "m1", "m2", "m3"};
  ck__halo halo;
  uint32_t words[4][2][3];
  memset(&halo, 0, sizeof halo);
  CHECK_OK(ck__exchange_create(d->members, names, NULL, &exchange));
  for (int stage = 0; exchange && stage < d->stages; ++stage) {
    ck__domain_place places[4][2];
    const ck__domain_place *along[4];
    for (size_t m = 0; m < d->members; ++m) {
      ck__domain_place_member(d, m, places[m]);
      along[m] = &places[m][stage];
      for (int side = 0; side < 2; ++side) {
        uint32_t *w = words[m][side];
        w[0] = (uint32_t)m, w[1] = (uint32_t)side, w[2] = (uint32_t)stage;
        halo.members[m].send[side] = w;
        halo.members[m].sends[side] = 3;
      }
    }
    CHECK_OK(ck__halo_pass(&halo, exchange, d, d->members, along, 4));
    for (size_t m = 0; m < d->members; ++m)
      for (int from = 0; from < 2; ++from) {
        const ck__exchange_buffer *in = &halo.members[m].from[from];
        const uint32_t *got = in->data;
        /* The neighbour on side `from` sent it toward its other side. */
        CHECK_MSG(in->count == 3 && got[0] == along[m]->neighbour[from] &&
                      got[1] == (uint32_t)!from && got[2] == (uint32_t)stage,
                  "member %zu stage %d from %d: %zu words", m, stage, from,
                  in->count);
      }
  }
  ck__halo_free(&halo);
  ck__exchange_destroy(exchange);
}

/* Slabs pass along their line, a grid's rows and columns are routed. */
static void halos(void) {
  double weights[4] = {1, 1, 1, 1};
  scatter(400, 80, 10, 5);
  ck__domain slabs = make(80, 10, 0, 2, 3);
  CHECK_OK(ck__domain_plan(&slabs, weights));
  CHECK_OK(ck__domain_cut(&slabs, points, 400, weights));
  halo_passes(&slabs);
  ck__domain_free(&slabs);
  scatter(400, 20, 20, 7);
  ck__domain grid = make(20, 20, 0, 3, 4);
  CHECK_OK(ck__domain_plan(&grid, weights));
  CHECK(grid.stages == 2);
  CHECK_OK(ck__domain_cut(&grid, points, 400, weights));
  halo_passes(&grid);
  ck__domain_free(&grid);
}

/* An envelope of two parts, opened where it arrives; one cut short, or
 * claiming more than it holds, is refused naming the member. */
static void envelopes(void) {
  ck__halo_member out, in;
  uint64_t big[3] = {7, 8, 9};
  uint16_t small[2] = {5, 6};
  const void *pieces[2] = {big, small};
  const size_t sizes[2] = {sizeof big[0], sizeof small[0]};
  uint32_t counts[2] = {3, 2}, got[2] = {0, 0};
  const unsigned char *body = NULL;
  memset(&out, 0, sizeof out);
  memset(&in, 0, sizeof in);
  CHECK_OK(ck__halo_seal(&out, 1, 2, counts, sizes, pieces));
  CHECK(out.sends[1] == 8 + 24 + 4 && out.send[1] == out.sealed[1].data);
  CHECK_OK(ck__exchange_buffer_hold(&in.from[0], 1, out.sends[1]));
  memcpy(in.from[0].data, out.send[1], out.sends[1]);
  CHECK_OK(ck__halo_open(&in, 0, 5, 2, sizes, got, &body));
  CHECK(got[0] == 3 && got[1] == 2 &&
        body == (unsigned char *)in.from[0].data + 8);
  uint64_t first;
  memcpy(&first, body, sizeof first);
  CHECK(first == 7 && memcmp(body + 24, small, sizeof small) == 0);
  /* No part: its counts alone, pieces unread. */
  uint32_t none[2] = {0, 0};
  const void *nothing[2] = {NULL, NULL};
  CHECK_OK(ck__halo_seal(&out, 0, 2, none, sizes, nothing));
  CHECK(out.sends[0] == 8);
  in.from[0].count = out.sends[1] - 1;
  const char *message = "";
  CHECK(ck__halo_open(&in, 0, 5, 2, sizes, got, NULL) == CK_ERROR_EXCHANGE);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "member 5 received a message of 35 bytes") != NULL,
            "\"%s\"", message);
  in.from[0].count = 3;
  CHECK(ck__halo_open(&in, 0, 5, 2, sizes, got, NULL) == CK_ERROR_EXCHANGE);
  for (int side = 0; side < 2; ++side) {
    free(out.sealed[side].data);
    free(in.from[side].data);
  }
}

int main(void) {
  slabs_by_shares();
  rows_stay_whole();
  for (int walls = 0; walls < 2; ++walls) {
    grid_of_four(walls);
    slab_places(walls);
  }
  alone();
  refusals();
  halos();
  envelopes();
  return CHECK_DONE();
}
