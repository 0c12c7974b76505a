/*
 * domain.h - a run's box cut for its members (framework/engine.h): a
 * rectangle, periodic or closed by walls, dealt in slabs across its
 * longer side or in a grid of boxes, one a member. Each member holds the
 * points in its slab and keeps copies of its neighbours' points within a
 * reach past its borders. The domain knows the box, the cut and each
 * member's place; the workload knows what a point carries and how it
 * moves (LAMMPS keeps its Domain and Comm apart from the physics so).
 *
 * A member's coordinates run along the cut first (u: x, or y where the
 * box is taller than wide), then across it (v), from its own box's
 * start. Its box is its slab with the reach and a pad before and after
 * it, on every side that has a neighbour.
 *
 * A grid exchanges in two stages: along x with its row (stage 0), then
 * along y with its column (stage 1). A grid's member m is column
 * m % columns of row m / columns.
 */
#ifndef CK_FRAMEWORK_DOMAIN_H
#define CK_FRAMEWORK_DOMAIN_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/status.h"

/* A side of a member along an axis: toward its slab's lower border (the
 * previous member) or its upper one (the next). */
enum { CK__DOMAIN_PREVIOUS = 0, CK__DOMAIN_NEXT = 1 };

/* A border no point reaches: a side with no neighbour (a wall, or across
 * slabs) takes nothing. */
#define CK__DOMAIN_NO_BORDER 1e30

/* A member's place along one axis (ck__domain_place). */
typedef struct ck__domain_place {
  size_t neighbour[2]; /* its previous and its next member along it */
  double lo, hi;       /* its slab along it, in the run's box */
  double origin, side; /* its box along it: start and length */
  double border[2];    /* its slab's borders in its own coordinates */
  double shift[2];     /* added to a coordinate it sends each way */
} ck__domain_place;

/*
 * The box and its cut. The caller sets the fields up to reach_name, then
 * calls ck__domain_plan; the rest is the domain's. Free with
 * ck__domain_free.
 */
typedef struct ck__domain {
  double box[2]; /* the run's box: x, y */
  int walls;     /* 1: walls close it at 0 and box; 0: periodic */
  double reach;  /* how far past a border a member keeps copies */
  double pad;    /* a member's box past the reach (room to move) */
  size_t members;
  /* Names for messages: the option that sets the reach, and the reach as
   * its user knows it ("rc + skin"). */
  const char *reach_option, *reach_name;
  /* Slabs are cut along x (0) or y (1, a box taller than wide); a grid
   * along x. */
  int axis;
  size_t grid[2]; /* columns along x, rows along y (rows 1: slabs) */
  int stages;     /* 1 for slabs, 2 for a grid */
  /* The borders along the cut (grid[0] + 1 of them), and across it
   * (grid[1] + 1). */
  double *bounds[2];
} ck__domain;

/*
 * How the box is cut for d->members (weights: each one's share, any
 * positive scale). Slabs across its longer side where each can be at
 * least twice the reach wide, so that a point is a copy of one neighbour
 * at most. Else a grid of columns and rows, each box twice the reach both
 * ways, the squarest such grid. One member holds the whole box.
 * Refused naming reach_option where none fits, or naming the shares where
 * they differ and a grid is needed (its columns and rows hold as many
 * points each).
 */
ck_status ck__domain_plan(ck__domain *d, const double *weights);

/* Releases what ck__domain_plan allocated; d stays as the caller set it. */
void ck__domain_free(ck__domain *d);

/* The box's length along the cut (a = 0) or across it (a = 1). */
double ck__domain_length(const ck__domain *d, int a);

/* A coordinate into [0, side) (periodic). */
double ck__domain_wrap(double x, double side);

/* Point k of points (x, y pairs): along the cut and across it, in the
 * box (wrapped where it is periodic). */
void ck__domain_point(const ck__domain *d, const double *points, size_t k,
                      double uv[2]);

/*
 * The box cut for its n points by weights (d->members of them; a grid's
 * columns, and its rows, hold as many each): each slab holds its share, as
 * ck__spread_apportion counts it, as nearly as their coordinates allow
 * (points at one coordinate stay on one side), and is at least twice the
 * reach wide. Sets d->bounds.
 */
ck_status ck__domain_cut(ck__domain *d, const double *points, size_t n,
                         const double *weights);

/* Member `index`'s place: along the cut (place[0]) and across it
 * (place[1]: in slabs, the box's whole width, no neighbour). */
void ck__domain_place_member(const ck__domain *d, size_t index,
                             ck__domain_place place[2]);

/* Whether the member placed at `place` holds the point at uv (in the
 * box; the box's far ends belong to the last slab). */
int ck__domain_holds(const ck__domain *d, const ck__domain_place place[2],
                     const double uv[2]);

/* The walls of the run at member index's ends along axis a (1: before
 * it, 2: past it; 0 in a periodic box). */
int ck__domain_walls(const ck__domain *d, size_t index, int a);

/* A point of member place's box (its u, v) back in the run's box, as x
 * and y (wrapped where it is periodic). */
void ck__domain_to_box(const ck__domain *d, const ck__domain_place place[2],
                       double u, double v, double xy[2]);

#endif /* CK_FRAMEWORK_DOMAIN_H */
