/*
 * Candidate lists: the k nearest neighbours of every city, ordered by
 * (distance, index) exactly as a scan of all pairs would order them.
 *
 * EUC_2D, CEIL_2D and ATT put the cities in a uniform grid of about two
 * cities a cell and search square rings of cells around each city. Their
 * integer distance never decreases as the Euclidean distance grows, so once
 * every city within Euclidean distance B has been seen, a city further
 * away can only matter if its integer distance could still equal the k-th
 * best one found; the search stops when the smallest Euclidean distance
 * that is known to give a larger integer distance is below B. B is taken
 * a little short so that rounding in the cell arithmetic cannot hide a
 * city. The rings and the bound are cl/ck_grid.h's, which the ants' search
 * for the nearest unvisited city shares (cl/ck_aco.h). The order itself
 * always comes from the integer distances of cl/ck_tsp.h, ties broken by
 * index, so the result equals brute force.
 *
 * GEO (not a plane) and EXPLICIT scan all pairs.
 *
 * A bounded max-heap of keys (distance << 32 | index) keeps the k best of
 * each city: a key compares exactly as the pair (distance, index).
 */
#include "util/util.h"

#include "clkit/tsp.h"

#include "ck_grid.h"
#include "ck_tsp.h"
#include "tsp/tsp_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Cities per grid cell, on average. */
#define CITIES_PER_CELL 2.0

/* ---- the bounded heap ---------------------------------------------------- */

typedef struct best_heap {
  uint64_t *keys; /* a max-heap of size entries */
  uint32_t size, capacity;
} best_heap;

/* Orders as (distance, index); the bias keeps negative weights of a
 * caller's matrix in order too. */
static uint64_t key_of(int64_t distance, uint32_t index) {
  return ((uint64_t)(distance + INT64_C(0x80000000)) << 32) | index;
}

/* The distance part of the largest key held. */
static int64_t worst_distance(const best_heap *heap) {
  return (int64_t)(heap->keys[0] >> 32) - INT64_C(0x80000000);
}

static void heap_sift_down(uint64_t *keys, uint32_t size, uint32_t at) {
  uint64_t key = keys[at];
  for (;;) {
    uint32_t child = 2 * at + 1;
    if (child >= size)
      break;
    if (child + 1 < size && keys[child + 1] > keys[child])
      ++child;
    if (keys[child] <= key)
      break;
    keys[at] = keys[child];
    at = child;
  }
  keys[at] = key;
}

static void heap_offer(best_heap *heap, uint64_t key) {
  if (heap->size < heap->capacity) {
    uint32_t at = heap->size++;
    while (at > 0 && heap->keys[(at - 1) / 2] < key) {
      heap->keys[at] = heap->keys[(at - 1) / 2];
      at = (at - 1) / 2;
    }
    heap->keys[at] = key;
  } else if (key < heap->keys[0]) {
    heap->keys[0] = key;
    heap_sift_down(heap->keys, heap->size, 0);
  }
}

/* Empties the heap into out, smallest key first (a heap sort). */
static void heap_drain(best_heap *heap, uint32_t *out) {
  uint64_t *keys = heap->keys;
  for (uint32_t size = heap->size; size > 1; --size) {
    uint64_t top = keys[0];
    keys[0] = keys[size - 1];
    keys[size - 1] = top;
    heap_sift_down(keys, size - 1, 0);
  }
  for (uint32_t i = 0; i < heap->size; ++i)
    out[i] = (uint32_t)keys[i];
  heap->size = 0;
}

/* ---- distances ----------------------------------------------------------- */

static int64_t pair_distance(const ck_tsp_instance *instance, uint32_t i,
                             uint32_t j) {
  if (instance->metric == CK_TSP_EXPLICIT)
    return instance->matrix[(size_t)i * instance->cities + j];
  return ck_tsp_coordinate_distance((int)instance->metric, instance->x[i],
                                    instance->y[i], instance->x[j],
                                    instance->y[j]);
}

/* ---- brute force --------------------------------------------------------- */

static void all_pairs(const ck_tsp_instance *instance, uint32_t k,
                      best_heap *heap, uint32_t *neighbours) {
  uint32_t n = instance->cities;
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < n; ++j)
      if (j != i)
        heap_offer(heap, key_of(pair_distance(instance, i, j), j));
    heap_drain(heap, neighbours + (size_t)i * k);
  }
}

/* ---- the grid ------------------------------------------------------------ */

typedef struct grid {
  double min_x, min_y;
  double cell_width, cell_height; /* 0 when the extent is 0 */
  uint32_t columns, rows;
  uint32_t *start; /* cell c holds entries start[c] .. start[c+1]-1 */
  /* Searches see entries start[c] .. end[c]-1 of cell c: start + 1 (the
   * whole cell) until cities are taken out (grid_remove). */
  uint32_t *end;
  /* The cities in cell order, with copies of their coordinates so that a
   * cell's cities lie together in memory. */
  uint32_t *city;
  double *x, *y;
} grid;

/* Rows or columns along one side: clamped to 1..limit. */
static uint32_t cells_along(double count, uint32_t limit) {
  if (!(count >= 1))
    return 1;
  if (count >= (double)limit)
    return limit;
  return (uint32_t)ceil(count);
}

static uint32_t grid_cell_of(const grid *g, double x, double y) {
  ck_i64 column = ck_grid_cell_along(x, g->min_x, g->cell_width, g->columns);
  ck_i64 row = ck_grid_cell_along(y, g->min_y, g->cell_height, g->rows);
  return (uint32_t)row * g->columns + (uint32_t)column;
}

/* Messages begin with `function`, the caller's. */
static ck_status grid_build(const ck_tsp_instance *instance,
                            const char *function, grid *g) {
  ck_status status = CK_OK;
  uint32_t n = instance->cities;
  double min_x = instance->x[0], max_x = min_x;
  double min_y = instance->y[0], max_y = min_y;
  for (uint32_t i = 1; i < n; ++i) {
    min_x = fmin(min_x, instance->x[i]);
    max_x = fmax(max_x, instance->x[i]);
    min_y = fmin(min_y, instance->y[i]);
    max_y = fmax(max_y, instance->y[i]);
  }
  double width = max_x - min_x, height = max_y - min_y;
  double target = fmax(1.0, (double)n / CITIES_PER_CELL);
  uint32_t limit = (uint32_t)target;
  if (width > 0 && height > 0) {
    double side = sqrt(width * height / target);
    g->columns = cells_along(width / side, limit);
    g->rows = cells_along(height / side, limit);
  } else {
    /* On a line (or a point) the cells are strips along it. */
    g->columns = width > 0 ? limit : 1;
    g->rows = height > 0 ? limit : 1;
  }
  g->min_x = min_x;
  g->min_y = min_y;
  g->cell_width = width / g->columns;
  g->cell_height = height / g->rows;

  size_t cells = (size_t)g->columns * g->rows;
  uint32_t *cell_of = malloc((size_t)n * sizeof *cell_of);
  g->start = calloc(cells + 1, sizeof *g->start);
  g->city = malloc((size_t)n * sizeof *g->city);
  g->x = malloc((size_t)n * sizeof *g->x);
  g->y = malloc((size_t)n * sizeof *g->y);
  if (!cell_of || !g->start || !g->city || !g->x || !g->y)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "%s: out of memory for a grid of %zu cells over %" PRIu32 " cities",
            function, cells, n);
  /* A counting sort of the cities by cell. */
  for (uint32_t i = 0; i < n; ++i) {
    cell_of[i] = grid_cell_of(g, instance->x[i], instance->y[i]);
    g->start[cell_of[i] + 1] += 1;
  }
  for (size_t c = 0; c < cells; ++c)
    g->start[c + 1] += g->start[c];
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t at = g->start[cell_of[i]]++;
    g->city[at] = i;
    g->x[at] = instance->x[i];
    g->y[at] = instance->y[i];
  }
  /* The loop above moved each start to the next cell's; move them back. */
  for (size_t c = cells; c > 0; --c)
    g->start[c] = g->start[c - 1];
  g->start[0] = 0;
  g->end = g->start + 1;

fail:
  free(cell_of);
  return status;
}

static void grid_free(grid *g) {
  free(g->start);
  free(g->city);
  free(g->x);
  free(g->y);
}

/* One city's search. */
typedef struct query {
  const grid *g;
  ck_tsp_metric metric;
  uint32_t city;
  double x, y;
  best_heap *heap;
  /* Cities whose squared Euclidean distance exceeds this are surely
   * further than the heap's worst: they are skipped without their square
   * root. Infinite until the heap is full. */
  double limit;
} query;

/* The squared Euclidean distance above which the integer distance is
 * surely above worst (see ck_grid_beyond_reach); a little above the exact
 * value, and never below a tiny floor, where ATT's s / 10 could round to 0. */
static double squared_limit(ck_tsp_metric metric, int64_t worst) {
  double threshold = metric == CK_TSP_EUC_2D    ? (double)worst + 0.5
                     : metric == CK_TSP_CEIL_2D ? (double)worst
                                                : (double)worst * sqrt(10.0);
  return threshold * threshold * (1.0 + 1e-9) + 1e-300;
}

/* Offers every city of one cell but the query's own. */
static void scan_cell(query *q, uint32_t column, uint32_t row) {
  const grid *g = q->g;
  size_t cell = (size_t)row * g->columns + column;
  for (uint32_t at = g->start[cell]; at < g->end[cell]; ++at) {
    double dx = q->x - g->x[at], dy = q->y - g->y[at];
    if (dx * dx + dy * dy > q->limit)
      continue;
    uint32_t j = g->city[at];
    if (j == q->city)
      continue;
    int distance = ck_tsp_coordinate_distance((int)q->metric, q->x, q->y,
                                              g->x[at], g->y[at]);
    uint64_t top = q->heap->size ? q->heap->keys[0] : 0;
    heap_offer(q->heap, key_of(distance, j));
    if (q->heap->size == q->heap->capacity && q->heap->keys[0] != top)
      q->limit = squared_limit(q->metric, worst_distance(q->heap));
  }
}

static void grid_search(const ck_tsp_instance *instance, const grid *g,
                        uint32_t i, best_heap *heap) {
  query q = {g,    instance->metric, i, instance->x[i], instance->y[i],
             heap, INFINITY};
  ck_grid_walk walk =
      ck_grid_walk_from(g->columns, g->rows, g->min_x, g->min_y, g->cell_width,
                        g->cell_height, q.x, q.y);
  for (ck_i64 r = 0;; ++r) {
    ck_grid_ring ring = ck_grid_ring_of(&walk, r);
    ck_u64 cells = ck_grid_ring_cells(&ring);
    for (ck_u64 at = 0; at < cells; ++at) {
      ck_i64 column, row;
      ck_grid_ring_cell(&walk, &ring, at, &column, &row);
      scan_cell(&q, (uint32_t)column, (uint32_t)row);
    }
    int full = heap->size == heap->capacity;
    if (ck_grid_ring_ends(&walk, (int)instance->metric, r, full,
                          full ? (ck_u32)worst_distance(heap) : 0))
      return;
  }
}

/* ---- the call ------------------------------------------------------------ */

ck_status ck_tsp_find_candidates(const ck_tsp_instance *instance, uint32_t k,
                                 uint32_t *neighbours) {
  const char *function = "ck_tsp_find_candidates";
  ck_status status = CK_OK;
  best_heap heap = {NULL, 0, k};
  grid g;
  memset(&g, 0, sizeof g);

  CK__REQUIRE(instance);
  CK__REQUIRE(neighbours);
  uint32_t n = instance->cities;
  if (n < 2 || n > CK_TSP_MAX_CITIES)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the instance has %" PRIu32 " cities (2..%u expected)",
                    function, n, CK_TSP_MAX_CITIES);
  if (k < 1 || k > n - 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: k = %" PRIu32 " is outside 1..%" PRIu32, function, k,
                    n - 1);
  if ((status = ck__tsp_check_distances(instance, function)) != CK_OK)
    return status;

  heap.keys = malloc((size_t)k * sizeof *heap.keys);
  if (!heap.keys)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for k = %" PRIu32,
            function, k);
  if (instance->metric == CK_TSP_GEO || instance->metric == CK_TSP_EXPLICIT) {
    all_pairs(instance, k, &heap, neighbours);
  } else {
    CK_TRY(grid_build(instance, function, &g));
    /* In cell order, so that neighbouring searches share cached cells. */
    for (uint32_t at = 0; at < n; ++at) {
      uint32_t i = g.city[at];
      grid_search(instance, &g, i, &heap);
      heap_drain(&heap, neighbours + (size_t)i * k);
    }
  }

fail:
  grid_free(&g);
  free(heap.keys);
  return status;
}

/* ---- the grid for kernels ------------------------------------------------ */

ck_status ck__tsp_grid_pack(const ck_tsp_instance *instance,
                            const char *function, uint32_t **cells,
                            size_t *count, double box[4]) {
  ck_status status = CK_OK;
  grid g;
  memset(&g, 0, sizeof g);
  *cells = NULL;
  *count = 0;
  CK_TRY(grid_build(instance, function, &g));
  size_t grid_cells = (size_t)g.columns * g.rows;
  size_t total = 2 + grid_cells + 1 + instance->cities;
  uint32_t *packed = malloc(total * sizeof *packed);
  if (!packed)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "%s: out of memory for a grid of %zu cells over %" PRIu32 " cities",
            function, grid_cells, instance->cities);
  packed[0] = g.columns;
  packed[1] = g.rows;
  memcpy(packed + 2, g.start, (grid_cells + 1) * sizeof *packed);
  memcpy(packed + 3 + grid_cells, g.city,
         (size_t)instance->cities * sizeof *packed);
  box[0] = g.min_x;
  box[1] = g.min_y;
  box[2] = g.cell_width;
  box[3] = g.cell_height;
  *cells = packed;
  *count = total;

fail:
  grid_free(&g);
  return status;
}

/* ---- the nearest-neighbour tour ------------------------------------------ */

/* Takes a city out of the searches: the last entry its cell still shows
 * moves into its place. slot is each city's entry. */
static void grid_remove(grid *g, uint32_t *slot, uint32_t city, double x,
                        double y) {
  uint32_t cell = grid_cell_of(g, x, y);
  uint32_t at = slot[city], last = --g->end[cell];
  uint32_t moved = g->city[last];
  g->city[at] = moved;
  g->x[at] = g->x[last];
  g->y[at] = g->y[last];
  slot[moved] = at;
  g->city[last] = city;
  slot[city] = last;
}

ck_status ck__tsp_nearest_neighbour_tour(const ck_tsp_instance *instance,
                                         const uint32_t *neighbours, uint32_t k,
                                         uint32_t first, uint32_t *tour) {
  /* Messages name the step, as ck_aco_create reports them. */
  const char *function = "the nearest-neighbour tour";
  ck_status status = CK_OK;
  uint32_t n = instance->cities;
  unsigned char *visited = calloc(n, 1);
  uint32_t *slot = NULL, *live_end = NULL;
  uint64_t nearest_key;
  best_heap nearest = {&nearest_key, 0, 1};
  grid g;
  memset(&g, 0, sizeof g);
  /* A plane's cities are found through the candidate lists' grid, from
   * which visited cities are taken out, so that a step costs about the
   * cells around the gap it jumps rather than a scan of every city. */
  int planar =
      instance->metric != CK_TSP_GEO && instance->metric != CK_TSP_EXPLICIT;
  if (!visited)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %" PRIu32 " cities",
            function, n);
  if (planar) {
    CK_TRY(grid_build(instance, function, &g));
    size_t cells = (size_t)g.columns * g.rows;
    live_end = malloc(cells * sizeof *live_end);
    slot = malloc((size_t)n * sizeof *slot);
    if (!live_end || !slot)
      CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
              "%s: out of memory for %" PRIu32 " cities", function, n);
    memcpy(live_end, g.start + 1, cells * sizeof *live_end);
    g.end = live_end;
    for (uint32_t at = 0; at < n; ++at)
      slot[g.city[at]] = at;
  }

  uint32_t current = first;
  for (uint32_t step = 0;; ++step) {
    tour[step] = current;
    visited[current] = 1;
    if (planar)
      grid_remove(&g, slot, current, instance->x[current],
                  instance->y[current]);
    if (step + 1 == n)
      break;
    /* A list is ordered as (distance, index): its first unvisited entry
     * is the nearest unvisited city of all, ties to the smaller index. */
    uint32_t next = n;
    for (uint32_t j = 0; j < k && next == n; ++j)
      if (!visited[neighbours[(size_t)current * k + j]])
        next = neighbours[(size_t)current * k + j];
    if (next == n && planar) {
      grid_search(instance, &g, current, &nearest);
      next = (uint32_t)nearest_key;
      nearest.size = 0;
    } else if (next == n) {
      int64_t best = INT64_MAX;
      for (uint32_t c = 0; c < n; ++c)
        if (!visited[c]) {
          int64_t d = ck__tsp_distance_of(instance, current, c);
          if (d < best) {
            best = d;
            next = c;
          }
        }
    }
    current = next;
  }

fail:
  grid_free(&g);
  free(live_end);
  free(slot);
  free(visited);
  return status;
}

ck_status ck__tsp_nearest_neighbour_length(const ck_tsp_instance *instance,
                                           const uint32_t *neighbours,
                                           uint32_t k, int64_t *length) {
  ck_status status = CK_OK;
  uint32_t n = instance->cities;
  uint32_t *tour = malloc((size_t)n * sizeof *tour);
  if (!tour)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of host memory for the nearest-neighbour tour");
  CK_TRY(ck__tsp_nearest_neighbour_tour(instance, neighbours, k, 0, tour));
  int64_t total = 0;
  for (uint32_t i = 0; i < n; ++i)
    total += ck__tsp_distance_of(instance, tour[i], tour[(i + 1) % n]);
  *length = total;
fail:
  free(tour);
  return status;
}
