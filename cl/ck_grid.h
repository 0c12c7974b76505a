/*
 * ck_grid.h - searches of a uniform grid of a plane's cities in square
 * rings of cells, written once for host C (the candidate lists and the
 * nearest-neighbour tour, src/tsp/candidates.c) and for kernels (the ants'
 * nearest unvisited city, ck_aco.h).
 *
 * A search starts at a point's cell and takes ring 0 (the cell), then
 * ring 1 (the 8 cells around it), and so on, each whole. A city in column
 * c lies between left + c x width and left + (c + 1) x width up to
 * rounding (likewise for rows), so after ring r every city not yet seen
 * lies at least the searched square's reach away; EUC_2D, CEIL_2D and ATT
 * distances never decrease as the Euclidean distance grows, so the search
 * may end once that reach is past the bound at which a city could still
 * match the distance it wants (ck_grid_ring_ends).
 */
#ifndef CK_GRID_H
#define CK_GRID_H

#include "ck_tsp.h"

/* How far short of the searched square's reach a search takes its bound,
 * relative to the coordinates' scale and to the distances: it must cover
 * the rounding of the coordinates (floats on a device without fp64), of
 * the distances and of the cell arithmetic, so that no city that could
 * match is left unseen. */
#if CK_HAS_FP64
#define CK_GRID_SLACK 1e-12
#else
#define CK_GRID_SLACK 1e-5f
#endif

/* The cell along one axis of a coordinate, clamped to the grid's count
 * (0 when the cells have no size: every city on one line). */
CK_FN ck_i64 ck_grid_cell_along(ck_tsp_coord value, ck_tsp_coord low,
                                ck_tsp_coord size, ck_i64 count) {
  if (!(size > CK_TSP_C(0.0)))
    return 0;
  ck_tsp_coord cell = floor((value - low) / size);
  if (!(cell >= CK_TSP_C(0.0)))
    return 0;
  if (cell >= (ck_tsp_coord)count)
    return count - 1;
  return (ck_i64)cell;
}

/* A search around one point: the grid's shape, the point and its cell,
 * and the slack of the bound. */
typedef struct ck_grid_walk {
  ck_i64 columns, rows, cx, cy;
  ck_tsp_coord left, bottom, width, height, px, py, slack;
} ck_grid_walk;

CK_FN ck_grid_walk ck_grid_walk_from(ck_i64 columns, ck_i64 rows,
                                     ck_tsp_coord left, ck_tsp_coord bottom,
                                     ck_tsp_coord width, ck_tsp_coord height,
                                     ck_tsp_coord px, ck_tsp_coord py) {
  ck_grid_walk w;
  w.columns = columns;
  w.rows = rows;
  w.left = left;
  w.bottom = bottom;
  w.width = width;
  w.height = height;
  w.px = px;
  w.py = py;
  w.slack = CK_GRID_SLACK *
            (fabs(left) + fabs(bottom) + (ck_tsp_coord)columns * width +
             (ck_tsp_coord)rows * height);
  w.cx = ck_grid_cell_along(px, left, width, columns);
  w.cy = ck_grid_cell_along(py, bottom, height, rows);
  return w;
}

/* Ring r's cells that lie in the grid: the square of side 2r + 1 cells
 * around the point's cell, less the square inside it, clipped to the grid.
 * Its sides, clipped: the bottom and top rows over columns left_column ..
 * right_column, then the left and right columns over rows bottom_row ..
 * top_row between them; a side's count is 0 where it lies outside the
 * grid. A point's cell is always in the grid, so the clipped ranges are
 * never empty. */
typedef struct ck_grid_ring {
  ck_i64 r, left_column, right_column, bottom_row, top_row;
  ck_u64 bottom, top, left, right;
} ck_grid_ring;

CK_FN ck_grid_ring ck_grid_ring_of(const ck_grid_walk *w, ck_i64 r) {
  ck_grid_ring ring;
  ck_i64 x0 = w->cx - r, x1 = w->cx + r, y0 = w->cy - r, y1 = w->cy + r;
  ring.r = r;
  ring.left_column = x0 > 0 ? x0 : 0;
  ring.right_column = x1 < w->columns - 1 ? x1 : w->columns - 1;
  ring.bottom_row = y0 + 1 > 0 ? y0 + 1 : 0;
  ring.top_row = y1 - 1 < w->rows - 1 ? y1 - 1 : w->rows - 1;
  ck_u64 across = (ck_u64)(ring.right_column - ring.left_column + 1);
  ck_u64 up = r ? (ck_u64)(ring.top_row - ring.bottom_row + 1) : 0u;
  ring.bottom = y0 >= 0 ? across : 0u;
  ring.top = r && y1 < w->rows ? across : 0u;
  ring.left = r && x0 >= 0 ? up : 0u;
  ring.right = r && x1 < w->columns ? up : 0u;
  return ring;
}

/* How many of the ring's cells lie in the grid. */
CK_FN ck_u64 ck_grid_ring_cells(const ck_grid_ring *ring) {
  return ring->bottom + ring->top + ring->left + ring->right;
}

/* Cell i of the ring's cells in the grid (i below ck_grid_ring_cells):
 * its bottom row, its top row, then its left and right sides. */
CK_FN void ck_grid_ring_cell(const ck_grid_walk *w, const ck_grid_ring *ring,
                             ck_u64 i, ck_i64 *column, ck_i64 *row) {
  if (i < ring->bottom + ring->top) {
    int above = i >= ring->bottom;
    *column = ring->left_column + (ck_i64)(above ? i - ring->bottom : i);
    *row = above ? w->cy + ring->r : w->cy - ring->r;
    return;
  }
  i -= ring->bottom + ring->top;
  int right = i >= ring->left;
  *column = right ? w->cx + ring->r : w->cx - ring->r;
  *row = ring->bottom_row + (ck_i64)(right ? i - ring->left : i);
}

/* Is every city at Euclidean distance reach or more sure to be further,
 * in the metric's integer distance, than distance? EUC_2D is nint(e),
 * above it once e >= distance + 0.5; CEIL_2D is ceil(e), above once
 * e > distance; ATT works out to ceil(e / sqrt(10)), above once
 * e > distance sqrt(10). A tie would matter too (a lower index), so the
 * comparisons are strict, and the slack keeps rounding on the safe side. */
CK_FN int ck_grid_beyond_reach(int metric, ck_tsp_coord reach,
                               ck_u32 distance) {
  ck_tsp_coord low = reach * (CK_TSP_C(1.0) - CK_GRID_SLACK);
  ck_tsp_coord threshold =
      metric == CK_TSP_METRIC_EUC_2D ? (ck_tsp_coord)distance + CK_TSP_C(0.5)
      : metric == CK_TSP_METRIC_CEIL_2D
          ? (ck_tsp_coord)distance
          : (ck_tsp_coord)distance * CK_TSP_C(3.16227766016837933);
  return low > threshold * (CK_TSP_C(1.0) + CK_GRID_SLACK);
}

/* The nearer of a bound so far (none while *bounded is 0) and a side's. */
CK_FN ck_tsp_coord ck_grid_nearer(int *bounded, ck_tsp_coord reach,
                                  ck_tsp_coord side) {
  ck_tsp_coord nearer = !*bounded || side < reach ? side : reach;
  *bounded = 1;
  return nearer;
}

/* Whether a search that has seen rings 0 to r whole may end: every cell
 * is seen, or (when `found`, a distance it wants) every city beyond the
 * searched square lies further than that distance could allow. */
CK_FN int ck_grid_ring_ends(const ck_grid_walk *w, int metric, ck_i64 r,
                            int found, ck_u32 distance) {
  ck_i64 x0 = w->cx - r, x1 = w->cx + r, y0 = w->cy - r, y1 = w->cy + r;
  if (x0 <= 0 && y0 <= 0 && x1 >= w->columns - 1 && y1 >= w->rows - 1)
    return 1;
  if (!found)
    return 0;
  /* How far the searched square reaches from the point on each side that
   * still has cells beyond it (one side at least does). */
  ck_tsp_coord reach = CK_TSP_C(0.0);
  int bounded = 0;
  if (x0 > 0)
    reach = ck_grid_nearer(&bounded, reach,
                           w->px - (w->left + (ck_tsp_coord)x0 * w->width));
  if (x1 < w->columns - 1)
    reach = ck_grid_nearer(&bounded, reach,
                           w->left + (ck_tsp_coord)(x1 + 1) * w->width - w->px);
  if (y0 > 0)
    reach = ck_grid_nearer(&bounded, reach,
                           w->py - (w->bottom + (ck_tsp_coord)y0 * w->height));
  if (y1 < w->rows - 1)
    reach =
        ck_grid_nearer(&bounded, reach,
                       w->bottom + (ck_tsp_coord)(y1 + 1) * w->height - w->py);
  return ck_grid_beyond_reach(metric, reach - w->slack, distance);
}

#endif /* CK_GRID_H */
