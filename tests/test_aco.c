/*
 * test_aco.c - ant colony optimisation for the TSP on ref and on an OpenCL
 * device: the shared local search, path moves and construction of
 * cl/ck_aco.h on random instances (by matrix and by coordinates), its
 * pheromone update against the published rules, quality on TSPLIB
 * instances with known optima, partitioning, pheromone bounds and choice
 * weights read back after runs, reproducibility, ref/OpenCL agreement
 * (alpha != 1 too), the focused ants of a work-item and of a work-group
 * against ref's ant by ant, the nearest-neighbour tour behind the first
 * pheromone against brute force, and bad input.
 *
 * Instances come from $CLKIT_TEST_DATA/tsplib; the API tests are skipped
 * when it is not set.
 */
#include <stdint.h>

#include "aco/aco_internal.h"
#include "check.h"
#include "ck_aco.h"
#include "opencl_device.h"
#include "test_support.h"
#include "tsp/tsp_internal.h"

/* ---- helpers ------------------------------------------------------------ */

/* splitmix64: the tests' own generator, fixed seeds. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint32_t below(uint64_t *state, uint32_t bound) {
  return (uint32_t)(next_random(state) % bound);
}

static int is_permutation(const uint32_t *tour, uint32_t n) {
  unsigned char *seen = calloc(n, 1);
  int ok = seen != NULL;
  for (uint32_t i = 0; ok && i < n; ++i) {
    ok = tour[i] < n && !seen[tour[i]];
    if (ok)
      seen[tour[i]] = 1;
  }
  free(seen);
  return ok;
}

static int positions_match(const uint32_t *tour, const uint32_t *pos,
                           uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (tour[i] >= n || pos[tour[i]] != i)
      return 0;
  return 1;
}

static void set_positions(const uint32_t *tour, uint32_t *pos, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    pos[tour[i]] = i;
}

/* Whether two tours are the same cycle (up to rotation and direction). */
static int same_cycle(const uint32_t *a, const uint32_t *b, uint32_t n) {
  uint32_t at = n;
  for (uint32_t i = 0; i < n; ++i)
    if (b[i] == a[0])
      at = i;
  if (at == n)
    return 0;
  int forward = 1, backward = 1;
  for (uint32_t i = 0; i < n; ++i) {
    forward &= a[i] == b[(at + i) % n];
    backward &= a[i] == b[(at + n - i) % n];
  }
  return forward || backward;
}

static void random_tour(uint64_t *state, uint32_t *tour, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    tour[i] = i;
  for (uint32_t i = n - 1; i > 0; --i) {
    uint32_t j = below(state, i + 1);
    uint32_t t = tour[i];
    tour[i] = tour[j];
    tour[j] = t;
  }
}

/* A random EUC_2D instance as the two distance paths see it: the parsed
 * instance, its n x n matrix, interleaved coordinates and k candidates. */
typedef struct graph {
  ck_tsp_instance tsp;
  uint32_t n, k;
  int *matrix;
  ck_tsp_coord *xy;
  uint32_t *neighbours;
  uint32_t *grid_cells; /* ck__tsp_grid_pack's */
  ck_tsp_coord grid_box[4];
} graph;

enum layout {
  UNIFORM, /* real coordinates in a 1000 x 1000 square */
  GRID,    /* integers in a 12 x 12 square: ties and coincident cities */
  SPLIT    /* two clusters in opposite corners of the coordinate limit:
            * distances near CK_TSP_MAX_DISTANCE, whose sums must fit */
};

/* A random EUC_2D instance of n cities, parsed from TSPLIB text. */
static int make_instance(ck_tsp_instance *tsp, uint32_t n, enum layout layout,
                         uint64_t seed) {
  memset(tsp, 0, sizeof *tsp);
  size_t capacity = (size_t)n * 64 + 256, used = 0;
  char *text = malloc(capacity);
  if (!text)
    return 0;
  used += (size_t)snprintf(text, capacity,
                           "NAME : random%u\nTYPE : TSP\nDIMENSION : %u\n"
                           "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n",
                           n, n);
  uint64_t state = seed;
  for (uint32_t i = 0; i < n; ++i) {
    double x, y;
    if (layout == GRID) {
      x = below(&state, 12);
      y = below(&state, 12);
    } else if (layout == SPLIT) {
      double side = i % 2 ? CK_TSP_MAX_COORDINATE : -CK_TSP_MAX_COORDINATE;
      x = side - (i % 2 ? 1 : -1) * (double)below(&state, 5000);
      y = side - (i % 2 ? 1 : -1) * (double)below(&state, 5000);
    } else {
      x = (double)(next_random(&state) >> 11) * (1000.0 / 9007199254740992.0);
      y = (double)(next_random(&state) >> 11) * (1000.0 / 9007199254740992.0);
    }
    used += (size_t)snprintf(text + used, capacity - used, "%u %.4f %.4f\n",
                             i + 1, x, y);
  }
  used += (size_t)snprintf(text + used, capacity - used, "EOF\n");
  ck_status status = ck_tsp_parse(text, used, "generated", tsp);
  free(text);
  CHECK_OK(status);
  return status == CK_OK;
}

/* The rest of a graph whose instance g->tsp is made. */
static int complete_graph(graph *g, uint32_t k) {
  uint32_t n = g->tsp.cities;
  g->n = n;
  g->k = k;
  g->matrix = malloc((size_t)n * n * sizeof *g->matrix);
  g->xy = malloc((size_t)n * 2 * sizeof *g->xy);
  g->neighbours = malloc((size_t)n * k * sizeof *g->neighbours);
  if (!g->matrix || !g->xy || !g->neighbours)
    return 0;
  for (uint32_t i = 0; i < n; ++i) {
    g->xy[2 * i] = g->tsp.x[i];
    g->xy[2 * i + 1] = g->tsp.y[i];
    for (uint32_t j = 0; j < n; ++j) {
      int64_t d = 0;
      ck_tsp_get_distance(&g->tsp, i, j, &d);
      g->matrix[(size_t)i * n + j] = (int)d;
    }
  }
  CHECK_OK(ck_tsp_find_candidates(&g->tsp, k, g->neighbours));
  size_t count = 0;
  double box[4];
  CHECK_OK(ck__tsp_grid_pack(&g->tsp, "test", &g->grid_cells, &count, box));
  for (int i = 0; i < 4; ++i)
    g->grid_box[i] = box[i];
  return g->grid_cells != NULL;
}

static int make_graph(graph *g, uint32_t n, uint32_t k, enum layout layout,
                      uint64_t seed) {
  memset(g, 0, sizeof *g);
  return make_instance(&g->tsp, n, layout, seed) && complete_graph(g, k);
}

static void free_graph(graph *g) {
  ck_tsp_free(&g->tsp);
  free(g->matrix);
  free(g->xy);
  free(g->neighbours);
  free(g->grid_cells);
  memset(g, 0, sizeof *g);
}

/* The ck_aco.h graph arguments: by matrix (0) or by coordinates (1). */
#define GRAPH_OF(g, by_coordinates)                                            \
  (by_coordinates) ? CK_TSP_METRIC_EUC_2D : CK_ACO_FROM_MATRIX, (g)->n,        \
      (g)->matrix, (g)->xy
/* Construction's grid arguments (used only by coordinates). */
#define GRID_OF(g) (g)->grid_cells, (g)->grid_box

static int64_t exact_length(const graph *g, const uint32_t *tour) {
  int64_t length = -1;
  CHECK_OK(ck_tsp_tour_measure(&g->tsp, tour, &length));
  return length;
}

/* Improving moves ck_aco_two_opt_at (and ck_aco_or_opt_at) still find,
 * each tried from every city on a fresh copy of the tour. */
static uint32_t moves_left(const graph *g, const uint32_t *tour, int or_opt) {
  uint32_t n = g->n, found = 0, touched[6];
  uint32_t *work = malloc(n * sizeof *work), *pos = malloc(n * sizeof *pos);
  for (uint32_t a = 0; work && pos && a < n; ++a) {
    for (int kind = 0; kind <= or_opt; ++kind) {
      memcpy(work, tour, n * sizeof *work);
      set_positions(work, pos, n);
      int gain = kind ? ck_aco_or_opt_at(GRAPH_OF(g, 0), g->k, g->neighbours, n,
                                         work, pos, a, touched)
                      : ck_aco_two_opt_at(GRAPH_OF(g, 0), g->k, g->neighbours,
                                          n, work, pos, a, touched);
      found += gain > 0;
    }
  }
  free(work);
  free(pos);
  return found;
}

/* ---- local search on the shared host code --------------------------------
 */

static void improve_case(const graph *g, uint64_t seed, int or_opt,
                         uint32_t *unfinished) {
  uint32_t n = g->n;
  uint32_t *tour[2], *pos[2], *start = malloc(n * sizeof *start);
  ck_u8 *flags = malloc(n);
  for (int m = 0; m < 2; ++m) {
    tour[m] = malloc(n * sizeof **tour);
    pos[m] = malloc(n * sizeof **pos);
  }
  if (!start || !flags || !tour[0] || !tour[1] || !pos[0] || !pos[1])
    goto done;
  uint64_t state = seed;
  random_tour(&state, start, n);
  int64_t before = exact_length(g, start), after[2];
  for (int m = 0; m < 2; ++m) {
    memcpy(tour[m], start, n * sizeof *start);
    after[m] = ck_aco_improve(GRAPH_OF(g, m), g->k, g->neighbours, or_opt,
                              tour[m], pos[m], flags, before);
    CHECK_MSG(is_permutation(tour[m], n), "n %u k %u or-opt %d: not a tour", n,
              g->k, or_opt);
    CHECK_MSG(positions_match(tour[m], pos[m], n),
              "n %u k %u or-opt %d: pos out of step with the tour", n, g->k,
              or_opt);
    int64_t exact = exact_length(g, tour[m]);
    CHECK_MSG(after[m] == exact && after[m] <= before,
              "n %u k %u or-opt %d by %s: returned %lld, exact %lld, start "
              "%lld",
              n, g->k, or_opt, m ? "coordinates" : "matrix",
              (long long)after[m], (long long)exact, (long long)before);
  }
  CHECK_MSG(after[0] == after[1] &&
                memcmp(tour[0], tour[1], n * sizeof *start) == 0,
            "n %u k %u or-opt %d: matrix %lld, coordinates %lld", n, g->k,
            or_opt, (long long)after[0], (long long)after[1]);
  /* A local optimum of the moves by neighbour lists. */
  uint32_t left = moves_left(g, tour[0], or_opt);
  if (left && ++*unfinished <= 3)
    fprintf(stderr,
            "n %u k %u or-opt %d seed %llu: %u improving moves remain after "
            "ck_aco_improve\n",
            n, g->k, or_opt, (unsigned long long)seed, left);
  /* Calls from the result until one gains nothing: a fixed point, where
   * neither move finds anything from any city. */
  int64_t length = after[0], again;
  for (int call = 0; call < 50; ++call, length = again) {
    again = ck_aco_improve(GRAPH_OF(g, 0), g->k, g->neighbours, or_opt, tour[0],
                           pos[0], flags, length);
    CHECK(again <= length && again == exact_length(g, tour[0]));
    if (again == length)
      break;
  }
  CHECK_MSG(moves_left(g, tour[0], or_opt) == 0,
            "n %u k %u or-opt %d: moves remain at the fixed point", n, g->k,
            or_opt);
done:
  for (int m = 0; m < 2; ++m) {
    free(tour[m]);
    free(pos[m]);
  }
  free(start);
  free(flags);
}

static void improve_tests(void) {
  static const uint32_t sizes[] = {5, 6, 7, 12, 40, 150, 400};
  static const uint32_t ks[] = {1, 2, 5, 10, 20};
  uint32_t unfinished = 0, cases = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    for (int layout = UNIFORM; layout <= GRID; ++layout) {
      for (size_t c = 0; c < sizeof ks / sizeof ks[0]; ++c) {
        uint32_t n = sizes[s], k = ks[c] < n - 1 ? ks[c] : n - 1;
        if (c > 0 && ks[c - 1] >= n - 1)
          continue; /* k was clamped to n - 1 already */
        graph g;
        uint64_t seed = 1000u * n + 10u * k + (uint64_t)layout;
        if (make_graph(&g, n, k, (enum layout)layout, seed)) {
          for (uint64_t trial = 0; trial < 3; ++trial)
            for (int or_opt = 0; or_opt <= 1; ++or_opt, ++cases)
              improve_case(&g, seed * 7 + trial, or_opt, &unfinished);
        }
        free_graph(&g);
      }
    }
  }
  CHECK_MSG(unfinished == 0,
            "%u of %u local searches stopped short of a local optimum of "
            "their neighbour-list moves",
            unfinished, cases);
}

/* ck_aco_reverse on hand cases and against a plain reversal. */
static void reverse_tests(void) {
  enum { N = 10 };
  static const struct {
    uint32_t i, j;
    uint32_t want[N];
  } cases[] = {
      /* Positions 2..5 reversed in place. */
      {2, 5, {0, 1, 5, 4, 3, 2, 6, 7, 8, 9}},
      /* Around the end: positions 8, 9, 0, 1. */
      {8, 1, {9, 8, 2, 3, 4, 5, 6, 7, 1, 0}},
      /* Positions 1..7 are more than half: the complement 8, 9, 0 is
       * reversed instead, the same cycle. */
      {1, 7, {8, 1, 2, 3, 4, 5, 6, 7, 0, 9}},
      /* One position: nothing to do. */
      {4, 4, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      /* Two positions around the end. */
      {9, 0, {9, 1, 2, 3, 4, 5, 6, 7, 8, 0}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    uint32_t tour[N], pos[N];
    for (uint32_t i = 0; i < N; ++i)
      tour[i] = pos[i] = i;
    ck_aco_reverse(N, tour, pos, cases[c].i, cases[c].j);
    CHECK_MSG(memcmp(tour, cases[c].want, sizeof tour) == 0 &&
                  positions_match(tour, pos, N),
              "reverse(%u, %u): %u %u %u %u %u %u %u %u %u %u", cases[c].i,
              cases[c].j, tour[0], tour[1], tour[2], tour[3], tour[4], tour[5],
              tour[6], tour[7], tour[8], tour[9]);
  }
  /* Random cases: the same cycle as reversing the path i..j. */
  uint64_t state = 99;
  uint32_t bad = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    uint32_t n = 3 + below(&state, 30), tour[40], pos[40], want[40];
    random_tour(&state, tour, n);
    set_positions(tour, pos, n);
    uint32_t i = below(&state, n), j = below(&state, n);
    uint32_t count = (j + n - i) % n + 1;
    memcpy(want, tour, n * sizeof *tour);
    for (uint32_t t = 0; t < count; ++t)
      want[(i + t) % n] = tour[(j + n - t) % n];
    ck_aco_reverse(n, tour, pos, i, j);
    bad += !(is_permutation(tour, n) && positions_match(tour, pos, n) &&
             same_cycle(tour, want, n));
  }
  CHECK_MSG(bad == 0, "ck_aco_reverse: %u of 2000 random cases wrong", bad);
}

/* ck_aco_move_path on hand cases and against removal and reinsertion. */
static void move_path_tests(void) {
  enum { N = 10 };
  static const struct {
    uint32_t from, count, u;
    int reversed;
    uint32_t want[N];
  } cases[] = {
      /* [2 3] after 6: the shorter side (4 5 6) moves back. */
      {2, 2, 6, 0, {0, 1, 4, 5, 6, 2, 3, 7, 8, 9}},
      {2, 2, 6, 1, {0, 1, 4, 5, 6, 3, 2, 7, 8, 9}},
      /* [7] after 2: the shorter side (3 4 5 6) moves on. */
      {7, 1, 2, 0, {0, 1, 2, 7, 3, 4, 5, 6, 8, 9}},
      /* [6 7 8] after 1, around the end (9 0 1 move back). */
      {6, 3, 1, 0, {7, 8, 2, 3, 4, 5, 9, 0, 1, 6}},
      {6, 3, 1, 1, {7, 6, 2, 3, 4, 5, 9, 0, 1, 8}},
      /* [9 0] after 4: a path that wraps; 1 2 3 4 move back over it. */
      {9, 2, 4, 0, {2, 3, 4, 9, 0, 5, 6, 7, 8, 1}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    uint32_t tour[N], pos[N];
    for (uint32_t i = 0; i < N; ++i)
      tour[i] = pos[i] = i;
    ck_aco_move_path(N, tour, pos, cases[c].from, cases[c].count, cases[c].u,
                     cases[c].reversed);
    CHECK_MSG(positions_match(tour, pos, N) &&
                  memcmp(tour, cases[c].want, sizeof tour) == 0,
              "move_path(%u, %u, %u, %d): %u %u %u %u %u %u %u %u %u %u",
              cases[c].from, cases[c].count, cases[c].u, cases[c].reversed,
              tour[0], tour[1], tour[2], tour[3], tour[4], tour[5], tour[6],
              tour[7], tour[8], tour[9]);
  }
  uint64_t state = 7;
  uint32_t bad = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    uint32_t n = 5 + below(&state, 30), tour[40], pos[40], want[40];
    random_tour(&state, tour, n);
    set_positions(tour, pos, n);
    uint32_t count = 1 + below(&state, 3), from = below(&state, n);
    /* u: any city off the path (v = next(u) may be the path's first). */
    uint32_t u = tour[(from + count + below(&state, n - count)) % n];
    int reversed = (int)below(&state, 2);
    /* The expected cycle: the rest from after the path, the path put
     * after u. */
    uint32_t w = 0;
    for (uint32_t t = 0; t < n - count; ++t) {
      uint32_t c = tour[(from + count + t) % n];
      want[w++] = c;
      if (c == u)
        for (uint32_t q = 0; q < count; ++q)
          want[w++] = tour[(from + (reversed ? count - 1 - q : q)) % n];
    }
    uint32_t placed_first = tour[(from + (reversed ? count - 1 : 0)) % n];
    ck_aco_move_path(n, tour, pos, from, count, u, reversed);
    /* The path follows u, in the tour's direction. */
    int ok = is_permutation(tour, n) && positions_match(tour, pos, n) &&
             same_cycle(tour, want, n) &&
             tour[(pos[u] + 1) % n] == placed_first;
    bad += !ok;
  }
  CHECK_MSG(bad == 0, "ck_aco_move_path: %u of 4000 random cases wrong", bad);
}

/* Whether tour[first..last] holds the same cities as want[first..last]. */
static int same_cities(const uint32_t *tour, const uint32_t *want,
                       uint32_t first, uint32_t last, uint8_t *seen,
                       uint32_t n) {
  memset(seen, 0, n);
  for (uint32_t i = first; i <= last; ++i)
    seen[want[i]] = 1;
  for (uint32_t i = first; i <= last; ++i) {
    if (!seen[tour[i]])
      return 0;
    seen[tour[i]] = 0;
  }
  return 1;
}

/* ck_aco_optimise_segment on each segment of a random tour, as a
 * partitioning pass runs it, by matrix and by coordinates, with and
 * without kicks. Adds the gains with kicks and without to *kicked and
 * *plain. */
static void segment_case(const graph *g, uint32_t size, uint64_t seed,
                         int64_t *kicked, int64_t *plain) {
  uint32_t n = g->n, segments = (n + size - 1) / size;
  size_t words = (size_t)ck_aco_segment_words(size, g->k) * segments;
  uint32_t *start = malloc(n * sizeof *start);
  uint32_t *scratch = malloc(words * sizeof *scratch);
  uint8_t *seen = malloc(n);
  uint32_t *tour[2] = {malloc(n * sizeof *start), malloc(n * sizeof *start)};
  if (!start || !scratch || !seen || !tour[0] || !tour[1])
    goto done;
  uint64_t state = seed;
  random_tour(&state, start, n);
  int64_t before = exact_length(g, start);
  for (uint32_t kicks = 0; kicks <= 40; kicks += 40) {
    int64_t total[2] = {0, 0};
    for (int m = 0; m < 2; ++m) {
      memcpy(tour[m], start, n * sizeof *start);
      for (uint32_t id = 0; id < segments; ++id) {
        uint32_t first = id * size;
        uint32_t last = first + size < n ? first + size - 1 : n - 1;
        int64_t gain =
            ck_aco_optimise_segment(GRAPH_OF(g, m), g->k, 1, kicks, seed, 3, id,
                                    size, tour[m], scratch);
        total[m] += gain;
        CHECK_MSG(gain >= 0, "segment %u of n %u: gain %lld", id, n,
                  (long long)gain);
        CHECK_MSG(tour[m][first] == start[first] &&
                      tour[m][last] == start[last],
                  "n %u size %u segment %u: an end city moved", n, size, id);
        CHECK_MSG(same_cities(tour[m], start, first, last, seen, n),
                  "n %u size %u segment %u: a city left its segment", n, size,
                  id);
        if (kicks == 0) {
          /* A local optimum: another pass finds nothing. */
          int64_t again = ck_aco_optimise_segment(
              GRAPH_OF(g, m), g->k, 1, 0, seed, 3, id, size, tour[m], scratch);
          total[m] += again;
          CHECK_MSG(again == 0,
                    "n %u size %u segment %u: second pass gained %lld", n, size,
                    id, (long long)again);
        }
      }
      CHECK(is_permutation(tour[m], n));
      int64_t after = exact_length(g, tour[m]);
      CHECK_MSG(after == before - total[m] && after <= before,
                "n %u size %u by %s, %u kicks: %lld - %lld gain, exact %lld", n,
                size, m ? "coordinates" : "matrix", kicks, (long long)before,
                (long long)total[m], (long long)after);
    }
    CHECK_MSG(total[0] == total[1] &&
                  memcmp(tour[0], tour[1], n * sizeof *start) == 0,
              "n %u size %u: matrix and coordinates differ", n, size);
    *(kicks ? kicked : plain) += total[0];
  }
done:
  free(start);
  free(scratch);
  free(seen);
  for (int m = 0; m < 2; ++m)
    free(tour[m]);
}

static void segment_tests(void) {
  int64_t kicked = 0, plain = 0;
  static const uint32_t sizes[] = {12, 50, 150};
  static const uint32_t segment_sizes[] = {8, 20, 1000};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
    for (int layout = UNIFORM; layout <= GRID; ++layout)
      for (uint32_t k = 5; k <= 10; k += 5) {
        graph g;
        uint64_t seed = 31u * sizes[s] + k + (uint64_t)layout;
        if (make_graph(&g, sizes[s], k, (enum layout)layout, seed))
          for (size_t z = 0; z < 3; ++z)
            for (uint64_t trial = 0; trial < 3; ++trial)
              segment_case(&g, segment_sizes[z], seed * 13 + trial, &kicked,
                           &plain);
        free_graph(&g);
      }
  /* Kicks are kept only when the segment gets no longer, so they never
   * lose; over all these cases they should find more. */
  CHECK_MSG(kicked > plain, "segment kicks gained %lld, local search %lld",
            (long long)kicked, (long long)plain);
}

/* ---- construction --------------------------------------------------------
 */

/* The start city of ant `ant` in iteration `iteration`, as documented. */
static uint32_t start_city(uint64_t seed, uint64_t iteration, uint32_t ant,
                           uint32_t n) {
  uint64_t stream = (iteration << 32) | ant | ((uint64_t)1 << 63);
  return CK_MULHI32(ck_philox_block(seed, stream, 0).v[0], n);
}

/* The tour of the deterministic rule from `start`: the unvisited candidate
 * of largest weight (the first of equals), else the nearest unvisited city
 * (the lowest index of equals). Returns how often it fell back. */
static uint32_t greedy_tour(const graph *g, const float *choice, uint32_t start,
                            uint32_t *tour) {
  uint32_t n = g->n, fallbacks = 0;
  unsigned char *visited = calloc(n, 1);
  if (!visited)
    return 0;
  uint32_t current = start;
  tour[0] = start;
  visited[start] = 1;
  for (uint32_t step = 1; step < n; ++step) {
    uint32_t next = n;
    float best = -1;
    for (uint32_t j = 0; j < g->k; ++j) {
      uint32_t c = g->neighbours[(size_t)current * g->k + j];
      if (!visited[c] && choice[(size_t)current * g->k + j] > best) {
        best = choice[(size_t)current * g->k + j];
        next = c;
      }
    }
    if (next == n) {
      ++fallbacks;
      int nearest = 0;
      for (uint32_t c = 0; c < n; ++c)
        if (!visited[c] &&
            (next == n || g->matrix[(size_t)current * n + c] < nearest)) {
          nearest = g->matrix[(size_t)current * n + c];
          next = c;
        }
    }
    tour[step] = next;
    visited[next] = 1;
    current = next;
  }
  free(visited);
  return fallbacks;
}

static void construct_tests(void) {
  static const uint32_t sizes[] = {5, 12, 60, 200, 1500};
  static const uint32_t ks[] = {1, 3, 8, 20};
  uint32_t bad_greedy = 0, greedy_runs = 0, fallbacks = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
    for (int layout = UNIFORM; layout <= SPLIT; ++layout)
      for (size_t c = 0; c < sizeof ks / sizeof ks[0]; ++c) {
        uint32_t n = sizes[s], k = ks[c] < n - 1 ? ks[c] : n - 1;
        graph g;
        uint64_t seed = 17u * n + k + (uint64_t)layout;
        size_t entries = (size_t)n * k;
        float *random = malloc(entries * sizeof *random);
        float *inverse = malloc(entries * sizeof *inverse);
        uint32_t *tour[2] = {malloc(n * sizeof(uint32_t)),
                             malloc(n * sizeof(uint32_t))};
        uint32_t *want = malloc(n * sizeof *want);
        ck_u8 *visited = malloc(n);
        if (!make_graph(&g, n, k, (enum layout)layout, seed) || !random ||
            !inverse || !tour[0] || !tour[1] || !want || !visited)
          goto next;
        uint64_t state = seed;
        for (size_t e = 0; e < entries; ++e) {
          random[e] = 0.01f + (float)(next_random(&state) >> 40) / 16777216.0f;
          inverse[e] =
              1.0f /
              ((float)g.matrix[(size_t)(e / k) * n + g.neighbours[e]] + 0.1f);
        }
        for (uint32_t run = 0; run < 12; ++run) {
          uint64_t iteration = run / 4 + (run & 1 ? (uint64_t)1 << 31 : 0);
          uint32_t ant = run * 37u;
          /* Any q0: a permutation of the right length, whichever way the
           * distances come. */
          float q0 = run % 3 == 0 ? 0.0f : run % 3 == 1 ? 0.5f : 0.9f;
          int64_t length[2];
          for (int m = 0; m < 2; ++m)
            length[m] = ck_aco_construct(GRAPH_OF(&g, m), GRID_OF(&g), k,
                                         g.neighbours, random, q0, seed,
                                         iteration, ant, tour[m], visited);
          CHECK_MSG(is_permutation(tour[0], n) &&
                        length[0] == exact_length(&g, tour[0]),
                    "construct n %u k %u: length %lld", n, k,
                    (long long)length[0]);
          CHECK(tour[0][0] == start_city(seed, iteration, ant, n));
          CHECK_MSG(length[0] == length[1] &&
                        memcmp(tour[0], tour[1], n * sizeof(uint32_t)) == 0,
                    "construct n %u k %u: matrix and coordinates differ", n, k);
          /* q0 = 1 with weights 1 / d: greedy by the candidate lists. */
          length[0] = ck_aco_construct(GRAPH_OF(&g, run & 1), GRID_OF(&g), k,
                                       g.neighbours, inverse, 1.0f, seed,
                                       iteration, ant, tour[0], visited);
          fallbacks += greedy_tour(&g, inverse, tour[0][0], want);
          ++greedy_runs;
          bad_greedy += memcmp(tour[0], want, n * sizeof *want) != 0 ||
                        length[0] != exact_length(&g, want);
          /* k = 1 (or any k with q0 = 0 once all candidates are taken):
           * the fallback to the nearest unvisited city. With one
           * candidate the rule is deterministic for any q0. */
          if (k == 1) {
            ck_aco_construct(GRAPH_OF(&g, 0), GRID_OF(&g), k, g.neighbours,
                             random, 0.0f, seed, iteration, ant, tour[0],
                             visited);
            uint32_t fell = greedy_tour(&g, random, tour[0][0], want);
            CHECK_MSG(fell > 0 && memcmp(tour[0], want, n * sizeof *want) == 0,
                      "k = 1, n %u: not the fallback's tour (%u fallbacks)", n,
                      fell);
          }
        }
      next:
        free_graph(&g);
        free(random);
        free(inverse);
        free(tour[0]);
        free(tour[1]);
        free(want);
        free(visited);
      }
  CHECK_MSG(bad_greedy == 0, "q0 = 1: %u of %u tours not greedy", bad_greedy,
            greedy_runs);
  CHECK_MSG(fallbacks > 0, "the greedy cases never fell back");
}

/* The first step's choice frequencies: with q0 = 0 proportional to the
 * weights; with q0 = 0.5 half greedy, half proportional. */
static void roulette_tests(void) {
  enum { N = 7, K = 3 };
  graph g;
  if (!make_graph(&g, N, K, UNIFORM, 4242)) {
    free_graph(&g);
    return;
  }
  float weights[N * K];
  for (uint32_t e = 0; e < N * K; ++e)
    weights[e] = 0.2f + (float)((e * 7) % 5); /* 0.2 .. 4.2 */
  for (int q = 0; q < 2; ++q) {
    float q0 = q ? 0.5f : 0.0f;
    static long hits[N][K], starts[N];
    memset(hits, 0, sizeof hits);
    memset(starts, 0, sizeof starts);
    uint32_t tour[N];
    ck_u8 visited[N];
    const long trials = 70000;
    for (long t = 0; t < trials; ++t) {
      ck_aco_construct(GRAPH_OF(&g, 0), GRID_OF(&g), K, g.neighbours, weights,
                       q0, 5, (uint64_t)t / 1000, (uint32_t)(t % 1000), tour,
                       visited);
      uint32_t s = tour[0];
      ++starts[s];
      for (uint32_t j = 0; j < K; ++j)
        hits[s][j] += g.neighbours[s * K + j] == tour[1];
    }
    for (uint32_t s = 0; s < N; ++s) {
      CHECK_MSG(labs(starts[s] - trials / N) < 5 * sqrt(trials / N),
                "start %u drawn %ld times of %ld", s, starts[s], trials);
      float sum = 0, top = -1;
      for (uint32_t j = 0; j < K; ++j) {
        sum += weights[s * K + j];
        top = fmaxf(top, weights[s * K + j]);
      }
      int first_top = 1;
      for (uint32_t j = 0; j < K; ++j) {
        double p = (1 - q0) * weights[s * K + j] / sum;
        if (weights[s * K + j] == top && first_top) {
          p += q0;
          first_top = 0;
        }
        double expected = p * (double)starts[s];
        double sd = sqrt((double)starts[s] * p * (1 - p));
        CHECK_MSG(fabs((double)hits[s][j] - expected) <= 5 * sd + 1,
                  "q0 %.1f, from %u to candidate %u: %ld of %ld, expected "
                  "%.0f",
                  q0, s, j, hits[s][j], starts[s], expected);
      }
    }
  }
  free_graph(&g);
}

/* The fallback to the nearest unvisited city takes one even when every
 * distance left is INT32_MAX (it once started from INT32_MAX and kept
 * none, stepping to city n). */
static void construct_fallback_tests(void) {
  enum { N = 6 };
  int matrix[N * N];
  uint32_t neighbours[N], tour[N], want[N];
  float weights[N];
  ck_u8 visited[N];
  for (int mixed = 0; mixed < 2; ++mixed) {
    for (uint32_t i = 0; i < N; ++i) {
      neighbours[i] = i == 0 ? 1 : 0; /* k = 1: most fall back */
      weights[i] = 1.0f;
      for (uint32_t j = 0; j < N; ++j)
        matrix[i * N + j] = i == j                      ? 0
                            : mixed && (i + j) % 3 == 0 ? 1000 + (int)(i + j)
                                                        : INT32_MAX;
    }
    graph g = {.n = N, .k = 1, .matrix = matrix, .neighbours = neighbours};
    for (uint32_t ant = 0; ant < 8; ++ant) {
      int64_t length =
          ck_aco_construct(CK_ACO_FROM_MATRIX, N, matrix, NULL, NULL, NULL, 1,
                           neighbours, weights, 0.0f, 3, 1, ant, tour, visited);
      int valid = is_permutation(tour, N);
      CHECK_MSG(valid, "fallback, mixed %d, ant %u: not a tour", mixed, ant);
      if (!valid)
        continue;
      int64_t exact = 0;
      for (uint32_t i = 0; i < N; ++i)
        exact += matrix[tour[i] * N + tour[(i + 1) % N]];
      uint32_t fell = greedy_tour(&g, weights, tour[0], want);
      CHECK_MSG(length == exact && fell > 0 &&
                    memcmp(tour, want, sizeof tour) == 0,
                "fallback, mixed %d, ant %u: length %lld of %lld, %u "
                "fallbacks",
                mixed, ant, (long long)length, (long long)exact, fell);
    }
  }
}

/* ---- the nearest-neighbour tour -------------------------------------------
 */

enum point_layout {
  SPREAD,    /* real coordinates uniform in a 1000 x 1000 square */
  LATTICE,   /* integers in a 20 x 20 square: ties, coincident cities */
  CLUSTERED, /* most cities in six clusters a unit or two across (some on
              * one point) in a 100000 square, the rest spread over it:
              * most grid cells empty, a few crowded */
};

/* n cities of a metric, made directly rather than parsed. */
static int make_points(ck_tsp_instance *tsp, uint32_t n, ck_tsp_metric metric,
                       enum point_layout layout, uint64_t seed) {
  memset(tsp, 0, sizeof *tsp);
  snprintf(tsp->name, sizeof tsp->name, "points%u", n);
  tsp->cities = n;
  tsp->metric = metric;
  tsp->x = malloc(n * sizeof *tsp->x);
  tsp->y = malloc(n * sizeof *tsp->y);
  if (!tsp->x || !tsp->y) {
    ck_tsp_free(tsp);
    return 0;
  }
  uint64_t state = seed;
  double centre[6][2];
  for (int c = 0; c < 6; ++c) {
    centre[c][0] = below(&state, 100000);
    centre[c][1] = below(&state, 100000);
  }
  for (uint32_t i = 0; i < n; ++i) {
    double unit_x = (double)(next_random(&state) >> 11) / 9007199254740992.0;
    double unit_y = (double)(next_random(&state) >> 11) / 9007199254740992.0;
    uint32_t draw = below(&state, 10);
    if (layout == LATTICE) {
      tsp->x[i] = below(&state, 20);
      tsp->y[i] = below(&state, 20);
    } else if (layout == CLUSTERED && draw < 8) {
      const double *at = centre[below(&state, 6)];
      /* A quarter of a cluster's cities on its centre. */
      double spread = draw < 2 ? 0.0 : 2.0;
      tsp->x[i] = at[0] + spread * unit_x;
      tsp->y[i] = at[1] + spread * unit_y;
    } else {
      double side = layout == CLUSTERED ? 100000.0 : 1000.0;
      tsp->x[i] = side * unit_x;
      tsp->y[i] = side * unit_y;
    }
  }
  return 1;
}

/* The nearest-neighbour tour from first by brute force: every step scans
 * the unvisited cities for the least (distance, index). */
static int brute_force_nearest_tour(const ck_tsp_instance *tsp, uint32_t first,
                                    uint32_t *tour) {
  uint32_t n = tsp->cities;
  unsigned char *visited = calloc(n, 1);
  if (!visited)
    return 0;
  tour[0] = first;
  visited[first] = 1;
  for (uint32_t step = 1; step < n; ++step) {
    int64_t best = INT64_MAX;
    uint32_t next = n;
    for (uint32_t c = 0; c < n; ++c) {
      int64_t d = 0;
      if (visited[c] || ck_tsp_get_distance(tsp, tour[step - 1], c, &d))
        continue;
      if (d < best) {
        best = d;
        next = c;
      }
    }
    tour[step] = next;
    visited[next] = 1;
  }
  free(visited);
  return 1;
}

/* Steps of a tour that found every candidate of the city before visited:
 * those that took the grid search (or the scan) rather than the list. */
static uint32_t steps_past_candidates(const uint32_t *tour, uint32_t n,
                                      const uint32_t *neighbours, uint32_t k) {
  unsigned char *visited = calloc(n, 1);
  uint32_t past = 0;
  for (uint32_t step = 0; visited && step + 1 < n; ++step) {
    visited[tour[step]] = 1;
    uint32_t open = 0;
    for (uint32_t j = 0; j < k; ++j)
      open += !visited[neighbours[(size_t)tour[step] * k + j]];
    past += open == 0;
  }
  free(visited);
  return past;
}

/* ck__tsp_nearest_neighbour_tour against brute force: the same tour, city
 * for city, for each metric and layout and for lists of 0 to 20
 * candidates (0 and 1 send nearly every step to the grid). */
static void nearest_tour_tests(void) {
  static const struct {
    ck_tsp_metric metric;
    enum point_layout layout;
    uint32_t n;
  } cases[] = {
      {CK_TSP_EUC_2D, SPREAD, 3000},    {CK_TSP_EUC_2D, LATTICE, 1500},
      {CK_TSP_EUC_2D, CLUSTERED, 2000}, {CK_TSP_CEIL_2D, SPREAD, 1500},
      {CK_TSP_CEIL_2D, LATTICE, 1500},  {CK_TSP_ATT, LATTICE, 1500},
      {CK_TSP_ATT, CLUSTERED, 1500},    {CK_TSP_GEO, SPREAD, 300},
  };
  static const uint32_t ks[] = {0, 1, 8, 20};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    uint32_t n = cases[c].n, first = c % 2 ? n / 2 : 0;
    ck_tsp_instance tsp;
    uint32_t *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    uint32_t *neighbours = malloc((size_t)n * 20 * sizeof *neighbours);
    int made = make_points(&tsp, n, cases[c].metric, cases[c].layout, 77 + c);
    CHECK(made && want && got && neighbours);
    if (made && want && got && neighbours &&
        brute_force_nearest_tour(&tsp, first, want)) {
      int64_t want_length = -1;
      CHECK_OK(ck_tsp_tour_measure(&tsp, want, &want_length));
      for (size_t q = 0; q < sizeof ks / sizeof *ks; ++q) {
        uint32_t k = ks[q];
        if (k)
          CHECK_OK(ck_tsp_find_candidates(&tsp, k, neighbours));
        const uint32_t *lists = k ? neighbours : NULL;
        memset(got, 0xFF, n * sizeof *got);
        CHECK_OK(ck__tsp_nearest_neighbour_tour(&tsp, lists, k, first, got));
        int64_t got_length = -2;
        if (is_permutation(got, n))
          CHECK_OK(ck_tsp_tour_measure(&tsp, got, &got_length));
        uint32_t past = k ? steps_past_candidates(want, n, neighbours, k) : n;
        uint32_t differ = n;
        for (uint32_t i = 0; i < n && differ == n; ++i)
          if (got[i] != want[i])
            differ = i;
        CHECK_MSG(differ == n && got_length == want_length && past > 0,
                  "nearest-neighbour tour, case %zu (metric %d, %u cities) "
                  "k %u: length %lld, brute force %lld, first difference at "
                  "step %u, %u steps past the candidates",
                  c, (int)cases[c].metric, n, k, (long long)got_length,
                  (long long)want_length, differ, past);
      }
    }
    ck_tsp_free(&tsp);
    free(want);
    free(got);
    free(neighbours);
  }
}

/* A ring's cells in the grid (cl/ck_grid.h): from every cell of grids
 * of several shapes, ring r yields exactly the cells of the grid at
 * Chebyshev distance r from the start, each once, and none outside. */
static void ring_tests(void) {
  static const ck_i64 shapes[][2] = {{1, 1}, {1, 5}, {6, 1}, {4, 3}, {7, 7}};
  unsigned char seen[7 * 7];
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
    ck_i64 columns = shapes[s][0], rows = shapes[s][1];
    for (ck_i64 start = 0; start < columns * rows; ++start) {
      ck_i64 cx = start % columns, cy = start / columns;
      /* Cells of unit size from the origin: the point's cell is (cx, cy). */
      ck_grid_walk w =
          ck_grid_walk_from(columns, rows, 0, 0, 1, 1, (ck_tsp_coord)cx + 0.5,
                            (ck_tsp_coord)cy + 0.5);
      CHECK(w.cx == cx && w.cy == cy);
      for (ck_i64 r = 0; r <= columns + rows; ++r) {
        memset(seen, 0, sizeof seen);
        ck_grid_ring ring = ck_grid_ring_of(&w, r);
        ck_u64 cells = ck_grid_ring_cells(&ring);
        int inside = 1, distinct = 1;
        for (ck_u64 i = 0; i < cells; ++i) {
          ck_i64 column, row;
          ck_grid_ring_cell(&w, &ring, i, &column, &row);
          if (column < 0 || column >= columns || row < 0 || row >= rows) {
            inside = 0;
            continue;
          }
          distinct &= !seen[row * columns + column]++;
        }
        size_t expected = 0, matched = 0;
        for (ck_i64 row = 0; row < rows; ++row)
          for (ck_i64 column = 0; column < columns; ++column) {
            ck_i64 dx = column > cx ? column - cx : cx - column;
            ck_i64 dy = row > cy ? row - cy : cy - row;
            int on_ring = (dx > dy ? dx : dy) == r;
            expected += on_ring;
            matched += on_ring && seen[row * columns + column];
          }
        CHECK_MSG(inside && distinct && cells == expected &&
                      matched == expected,
                  "grid %lldx%lld from (%lld, %lld), ring %lld: %llu cells "
                  "(%zu expected, %zu matched), inside %d, distinct %d",
                  (long long)columns, (long long)rows, (long long)cx,
                  (long long)cy, (long long)r, (unsigned long long)cells,
                  expected, matched, inside, distinct);
      }
    }
  }
}

/* The ants' nearest unvisited city through the grid against the matrix's
 * scan: the same tours, ant for ant, for each coordinate metric and
 * layout, with one candidate (nearly every step falls back) and with
 * eight (late steps do). */
static void construct_grid_tests(void) {
  static const struct {
    ck_tsp_metric metric;
    enum point_layout layout;
    uint32_t n;
  } cases[] = {
      {CK_TSP_EUC_2D, SPREAD, 2500},    {CK_TSP_EUC_2D, LATTICE, 1500},
      {CK_TSP_EUC_2D, CLUSTERED, 2000}, {CK_TSP_CEIL_2D, SPREAD, 1500},
      {CK_TSP_CEIL_2D, LATTICE, 1500},  {CK_TSP_ATT, SPREAD, 1500},
      {CK_TSP_ATT, CLUSTERED, 1500},
  };
  static const uint32_t ks[] = {1, 8};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c)
    for (size_t q = 0; q < sizeof ks / sizeof *ks; ++q) {
      graph g;
      memset(&g, 0, sizeof g);
      uint32_t n = cases[c].n, k = ks[q];
      int made =
          make_points(&g.tsp, n, cases[c].metric, cases[c].layout, 300 + c) &&
          complete_graph(&g, k);
      size_t entries = (size_t)n * k;
      float *weights = malloc(entries * sizeof *weights);
      uint32_t *tour[2] = {malloc(n * sizeof(uint32_t)),
                           malloc(n * sizeof(uint32_t))};
      ck_u8 *visited = malloc(n);
      CHECK(made && weights && tour[0] && tour[1] && visited);
      if (made && weights && tour[0] && tour[1] && visited) {
        uint64_t state = 5 + c;
        for (size_t e = 0; e < entries; ++e)
          weights[e] = 0.01f + (float)(next_random(&state) >> 40) / 16777216.0f;
        uint32_t differ = 0;
        int64_t length[2] = {0, 0};
        for (uint32_t ant = 0; ant < 3; ++ant) {
          length[0] = ck_aco_construct(CK_ACO_FROM_MATRIX, n, g.matrix, g.xy,
                                       GRID_OF(&g), k, g.neighbours, weights,
                                       0.5f, 9, 2, ant, tour[0], visited);
          length[1] = ck_aco_construct((int)cases[c].metric, n, g.matrix, g.xy,
                                       GRID_OF(&g), k, g.neighbours, weights,
                                       0.5f, 9, 2, ant, tour[1], visited);
          differ += length[0] != length[1] ||
                    memcmp(tour[0], tour[1], n * sizeof(uint32_t)) != 0;
        }
        CHECK_MSG(differ == 0 && is_permutation(tour[1], n),
                  "ants through the grid, case %zu (metric %d, %u cities) k "
                  "%u: %u of 3 tours differ from the scan's (last %lld "
                  "against %lld)",
                  c, (int)cases[c].metric, n, k, differ, (long long)length[1],
                  (long long)length[0]);
      }
      free_graph(&g);
      free(weights);
      free(tour[0]);
      free(tour[1]);
      free(visited);
    }
}

/* Local search and partitioning where distances come near the limit
 * (two clusters at opposite corners of +-CK_TSP_MAX_COORDINATE): the
 * gains are sums of four distances, exact in an int (UBSan checks them),
 * and a segment's closing edge still outweighs any move that removes it
 * (at -2^28 it did not, and the end cities moved). */
static void far_tests(void) {
  static const uint32_t sizes[] = {12, 40};
  uint32_t unfinished = 0;
  int64_t kicked = 0, plain = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    graph g;
    uint64_t seed = 77u * sizes[s];
    if (make_graph(&g, sizes[s], 5, SPLIT, seed)) {
      int64_t most = 0;
      for (size_t e = 0; e < (size_t)g.n * g.n; ++e)
        most = g.matrix[e] > most ? g.matrix[e] : most;
      CHECK_MSG(most > (1 << 28) && most <= CK_TSP_MAX_DISTANCE,
                "split layout: longest distance %lld", (long long)most);
      for (uint64_t trial = 0; trial < 3; ++trial)
        for (int or_opt = 0; or_opt <= 1; ++or_opt)
          improve_case(&g, seed + trial, or_opt, &unfinished);
      for (uint64_t trial = 0; trial < 8; ++trial)
        for (uint32_t size = 8; size <= 32; size *= 2)
          segment_case(&g, size, seed * 3 + trial, &kicked, &plain);
    }
    free_graph(&g);
  }
  CHECK_MSG(unfinished == 0, "split layout: %u searches stopped short",
            unfinished);
}

/* ---- the pheromone update ------------------------------------------------
 */

/* ck_aco_update_entry against the published rules, applied in order: the
 * ACS local update once per use (tau <- (1 - xi) tau + xi tau0, Dorigo
 * and Gambardella 1997), evaporation tau <- keep tau (keep = 1 - rho for
 * MMAS, the deposit already added), the MMAS bounds (tau clamped to
 * [tau_min, tau_max], Stuetzle and Hoos 2000), and the choice weight
 * tau^alpha eta^beta. The expected values are worked by hand. */
static void update_entry_tests(void) {
  static const struct {
    const char *what;
    float tau;
    uint32_t uses;
    float xi, tau0, keep, tau_min, tau_max, alpha, eta_beta;
    float want_tau, want_choice;
  } cases[] = {
      /* MMAS evaporation inside the bounds: 0.8 * 0.5. */
      {"evaporation", 0.5f, 0, 0.1f, 0.3f, 0.8f, 0.01f, 1.0f, 1, 2, 0.4f, 0.8f},
      /* Below tau_min after evaporation: 0.5 * 0.01 = 0.005 -> 0.02. */
      {"lower clamp", 0.01f, 0, 0.1f, 0.3f, 0.5f, 0.02f, 1.0f, 1, 3, 0.02f,
       0.06f},
      /* Evaporated first, then clamped: 0.5 * 0.05 = 0.025 -> 0.04 (not
       * 0.025 from clamping first). */
      {"clamp after evaporation", 0.05f, 0, 0.1f, 0.3f, 0.5f, 0.04f, 1.0f, 1, 1,
       0.04f, 0.04f},
      /* Above tau_max after a deposit: 0.5 * 3 = 1.5 -> 1.25. */
      {"upper clamp", 3.0f, 0, 0.1f, 0.3f, 0.5f, 0.01f, 1.25f, 1, 0.5f, 1.25f,
       0.625f},
      /* ACS local update, one use: 0.9 * 0.5 + 0.1 * 0.2. */
      {"local, 1 use", 0.5f, 1, 0.1f, 0.2f, 1, 0, 3.0e38f, 1, 1, 0.47f, 0.47f},
      /* Three uses: 1 -> 0.6 -> 0.4 -> 0.3 (halfway to 0.2 each time). */
      {"local, 3 uses", 1.0f, 3, 0.5f, 0.2f, 1, 0, 3.0e38f, 1, 2, 0.3f, 0.6f},
      /* From below tau0: 0.1 -> 0.3 -> 0.4 (toward 0.5). */
      {"local from below", 0.1f, 2, 0.5f, 0.5f, 1, 0, 3.0e38f, 1, 1, 0.4f,
       0.4f},
      /* Uses 0: tau0 plays no part. */
      {"no use", 0.7f, 0, 0.5f, 0.1f, 1, 0, 3.0e38f, 1, 1, 0.7f, 0.7f},
      /* alpha 2: 0.5^2 * 4. */
      {"alpha 2", 0.5f, 0, 0.1f, 0.3f, 1, 0.01f, 1.0f, 2, 4, 0.5f, 1.0f},
      /* alpha 1.5: 0.64^1.5 = 0.512. */
      {"alpha 1.5", 0.64f, 0, 0.1f, 0.3f, 1, 0.01f, 1.0f, 1.5f, 1, 0.64f,
       0.512f},
      /* alpha 0.5 of the clamped value: 0.5 * 0.08 = 0.04 -> 0.09,
       * sqrt(0.09) * 2. */
      {"alpha 0.5, clamped", 0.08f, 0, 0.1f, 0.3f, 0.5f, 0.09f, 1.0f, 0.5f, 2,
       0.09f, 0.6f},
      /* All at once: local 2 -> 1.5, evaporation 1.35, clamp 1.2, then
       * 1.2^2 * 0.5. */
      {"local, evaporation, clamp, alpha 2", 2.0f, 1, 0.5f, 1.0f, 0.9f, 0.01f,
       1.2f, 2, 0.5f, 1.2f, 0.72f},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    float choice = -1;
    float tau = ck_aco_update_entry(cases[c].tau, cases[c].uses, cases[c].xi,
                                    cases[c].tau0, cases[c].keep,
                                    cases[c].tau_min, cases[c].tau_max,
                                    cases[c].alpha, cases[c].eta_beta, &choice);
    CHECK_MSG(fabsf(tau - cases[c].want_tau) <= 1e-6f * cases[c].want_tau &&
                  fabsf(choice - cases[c].want_choice) <=
                      2e-6f * cases[c].want_choice,
              "update %s: tau %.9g (want %.9g), choice %.9g (want %.9g)",
              cases[c].what, tau, cases[c].want_tau, choice,
              cases[c].want_choice);
  }
  /* Random entries against the rules step by step in double. */
  uint64_t state = 2024;
  uint32_t bad = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    float tau = 1e-3f + (float)below(&state, 1000) / 500.0f;
    uint32_t uses = below(&state, 4) ? 0 : below(&state, 20);
    float xi = 0.05f + (float)below(&state, 90) / 100.0f;
    float tau0 = 1e-3f + (float)below(&state, 1000) / 1000.0f;
    float keep =
        below(&state, 2) ? 1.0f : 0.5f + (float)below(&state, 50) / 100;
    float tau_min = (float)below(&state, 300) / 1000.0f;
    float tau_max = tau_min + (float)below(&state, 1000) / 500.0f;
    float alpha = below(&state, 3) ? 0.25f * (float)(1 + below(&state, 16)) : 1;
    float eta_beta = 1e-3f + (float)below(&state, 1000) / 100.0f;
    double want = tau;
    for (uint32_t u = 0; u < uses; ++u)
      want = (1 - (double)xi) * want + (double)xi * tau0;
    want *= keep;
    want = want < tau_min ? tau_min : want > tau_max ? tau_max : want;
    double want_choice = pow(want, alpha) * eta_beta;
    float choice = -1;
    float got = ck_aco_update_entry(tau, uses, xi, tau0, keep, tau_min, tau_max,
                                    alpha, eta_beta, &choice);
    int ok = fabs(got - want) <= 1e-5 * want + 1e-30 &&
             fabs(choice - want_choice) <= 1e-4 * want_choice + 1e-30;
    if (!ok && ++bad <= 3)
      fprintf(stderr,
              "update(tau %g, uses %u, xi %g, tau0 %g, keep %g, [%g, %g], "
              "alpha %g, eta %g): %.9g, %.9g; want %.9g, %.9g\n",
              tau, uses, xi, tau0, keep, tau_min, tau_max, alpha, eta_beta, got,
              choice, want, want_choice);
  }
  CHECK_MSG(bad == 0, "ck_aco_update_entry: %u of 2000 random entries wrong",
            bad);
}

/* ---- runs through the C API ----------------------------------------------
 */

static const char *data_dir;

static int load(const char *name, ck_tsp_instance *tsp) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tsplib/%s.tsp", data_dir, name);
  memset(tsp, 0, sizeof *tsp);
  ck_status status = ck_tsp_load(path, tsp);
  CHECK_OK(status);
  return status == CK_OK;
}

static ck_aco *create(const ck_device *device, const ck_tsp_instance *tsp,
                      const ck_aco_config *config) {
  ck_aco *aco = NULL;
  CHECK_OK(ck_aco_create(device, tsp, config, &aco));
  return aco;
}

/* The best tour: a permutation whose exact length is the reported one.
 * Copies it to tour (n entries) when not NULL; returns the length. */
static int64_t checked_best(const ck_aco *aco, const ck_tsp_instance *tsp,
                            uint32_t *tour) {
  int64_t length = -1, exact = -2;
  uint32_t *best = malloc(tsp->cities * sizeof *best);
  if (!best)
    return -1;
  CHECK_OK(ck_aco_get_best(aco, &length, best));
  CHECK_MSG(is_permutation(best, tsp->cities), "%s: best tour is no tour",
            tsp->name);
  CHECK_OK(ck_tsp_tour_measure(tsp, best, &exact));
  CHECK_MSG(exact == length, "%s: best length %lld, its tour %lld", tsp->name,
            (long long)length, (long long)exact);
  if (tour)
    memcpy(tour, best, tsp->cities * sizeof *best);
  free(best);
  return length;
}

/* The trace: strictly falling lengths at rising iterations, ending at the
 * best. */
static void check_trace(const ck_aco *aco, int64_t best, const char *what) {
  const ck_aco_trace_point *points = NULL;
  size_t count = 0;
  CHECK_OK(ck_aco_get_trace(aco, &points, &count));
  int ok = count > 0 && points[count - 1].length == best;
  for (size_t i = 1; ok && i < count; ++i)
    ok = points[i].length < points[i - 1].length &&
         points[i].iteration >= points[i - 1].iteration &&
         points[i].time_s >= points[i - 1].time_s;
  CHECK_MSG(ok, "%s: trace of %zu points does not end at %lld", what, count,
            (long long)best);
}

/* Trace points of the last run() with keep_trace. */
static size_t last_trace_count;

/* One run to its stopping rule; the report and, optionally, the tour. */
static int run(const ck_device *device, const ck_tsp_instance *tsp,
               const ck_aco_config *config, ck_aco_report *report,
               uint32_t *tour) {
  ck_aco *aco = create(device, tsp, config);
  if (!aco)
    return 0;
  CHECK_OK(ck_aco_run(aco, report));
  int64_t length = checked_best(aco, tsp, tour);
  CHECK(length == report->best_length);
  if (config->keep_trace) {
    const ck_aco_trace_point *points;
    check_trace(aco, length, tsp->name);
    CHECK_OK(ck_aco_get_trace(aco, &points, &last_trace_count));
  }
  ck_aco_destroy(aco);
  return 1;
}

static void quality(const ck_device *device) {
  /*
   * Default settings to a target within 300 iterations, seeds 1-3 (1 on
   * an OpenCL device). The targets asked of the ACO are reached in the
   * first iterations thanks to the local search (kroA100 and ch150 start
   * within 1.5%), so the runs to the optimum check that the pheromone
   * learns: ref needs 1-11 iterations for eil51 and berlin52, 4-20 for
   * st70, 6-9 for kroA100, 15-26 for ch150, 44-106 for a280, and ACS 2-4
   * for kroA100.
   */
  static const struct {
    const char *name;
    int64_t optimum;
    ck_aco_algorithm algorithm;
    double gap; /* percent */
    int ref_only;
  } cases[] = {
      {"eil51", 426, CK_ACO_MMAS, 0, 0},
      {"berlin52", 7542, CK_ACO_MMAS, 0, 0},
      {"kroA100", 21282, CK_ACO_MMAS, 2, 0},
      {"ch150", 6528, CK_ACO_MMAS, 2, 0},
      {"kroA100", 21282, CK_ACO_ACS, 5, 0},
      {"st70", 675, CK_ACO_MMAS, 0, 1},
      {"kroA100", 21282, CK_ACO_MMAS, 0, 0},
      {"ch150", 6528, CK_ACO_MMAS, 0, 1},
      {"a280", 2579, CK_ACO_MMAS, 0, 1},
      {"kroA100", 21282, CK_ACO_ACS, 0, 1},
  };
  int on_ref = device->backend == CK_BACKEND_REF;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    ck_tsp_instance tsp;
    if ((cases[c].ref_only && !on_ref) || !load(cases[c].name, &tsp))
      continue;
    for (uint64_t seed = 1; seed <= (on_ref ? 3u : 1u); ++seed) {
      ck_aco_config config;
      ck_aco_config_init(&config);
      config.algorithm = cases[c].algorithm;
      config.seed = seed;
      config.max_iterations = 300;
      config.optimum = cases[c].optimum;
      config.has_target = 1;
      config.target_gap = cases[c].gap;
      config.keep_trace = 1;
      ck_aco_report report;
      if (!run(device, &tsp, &config, &report, NULL))
        continue;
      CHECK_MSG(
          report.stopped_by == CK_STOP_TARGET &&
              report.best_length >= cases[c].optimum &&
              (double)report.best_length <=
                  (double)cases[c].optimum * (1 + cases[c].gap / 100),
          "%s %s to %g%% seed %llu on %s: %lld after %llu iterations "
          "(optimum %lld)",
          cases[c].name, cases[c].algorithm == CK_ACO_ACS ? "ACS" : "MMAS",
          cases[c].gap, (unsigned long long)seed, device->id,
          (long long)report.best_length, (unsigned long long)report.iterations,
          (long long)cases[c].optimum);
      CHECK(report.gap >= 0 && report.gap <= cases[c].gap);
      CHECK(report.iterations <= 300 &&
            report.best_iteration == report.iterations);
    }
    ck_tsp_free(&tsp);
  }

  ck_tsp_instance tsp;
  if (load("eil51", &tsp)) {
    /* No local search: a valid tour, improved during the run (MMAS with
     * rho 0.02 is still exploring after 100 iterations: 551 = +29%). */
    ck_aco_config config;
    ck_aco_config_init(&config);
    config.local_search = CK_ACO_LS_NONE;
    config.keep_trace = 1;
    ck_aco_report report;
    if (run(device, &tsp, &config, &report, NULL)) {
      CHECK_MSG(
          report.stopped_by == CK_STOP_STEPS && report.iterations == 100 &&
              report.best_length >= 426 && report.best_length <= 426 * 1.5,
          "ls none on %s: %lld", device->id, (long long)report.best_length);
      CHECK(isnan(report.gap));
      CHECK_MSG(last_trace_count > 1,
                "ls none on %s: no improvement after "
                "the first iteration",
                device->id);
    }
    ck_tsp_free(&tsp);
  }
}

/* Partitioning: a pass never lengthens the best tour and keeps it a
 * tour, both inside runs and called directly. */
static void partition(const ck_device *device) {
  ck_tsp_instance tsp;
  if (!load("kroA100", &tsp))
    return;
  uint32_t n = tsp.cities, *tour = malloc(n * sizeof *tour);
  ck_aco_config config;
  ck_aco_config_init(&config);
  config.local_search = CK_ACO_LS_NONE;
  config.ants = 8;
  config.partition = 20;
  config.keep_trace = 1;
  ck_aco *aco = tour ? create(device, &tsp, &config) : NULL;
  if (aco) {
    int64_t previous = INT64_MAX;
    for (int t = 0; t < 25; ++t) {
      CHECK_OK(ck_aco_step(aco, 1));
      int64_t length = checked_best(aco, &tsp, NULL);
      CHECK_MSG(length <= previous, "%s partition: best %lld after %lld",
                device->id, (long long)length, (long long)previous);
      previous = length;
    }
    check_trace(aco, previous, "partition");
    ck_aco_destroy(aco);
  }
  /* Directly: passes of several sizes and offsets over the best tour of
   * three iterations without local search (far from 2-optimal). */
  config.partition = 0;
  aco = tour ? create(device, &tsp, &config) : NULL;
  if (aco) {
    CHECK_OK(ck_aco_step(aco, 3));
    int64_t length = checked_best(aco, &tsp, NULL), gains = 0;
    const ck__aco_steps *steps = device->backend == CK_BACKEND_REF
                                     ? &ck__aco_ref_steps
                                     : &ck__aco_opencl_steps;
    static const uint32_t sizes[] = {20, 8, 33, 100};
    static const uint32_t offsets[] = {0, 7, 99, 50};
    for (size_t p = 0; p < 4; ++p) {
      int64_t gain = -1, exact = -1;
      CHECK_OK(steps->partition(ck__aco_state(aco), sizes[p], offsets[p], p,
                                tour, &gain));
      CHECK(is_permutation(tour, n));
      CHECK_OK(ck_tsp_tour_measure(&tsp, tour, &exact));
      CHECK_MSG(gain >= 0 && exact == length - gain,
                "%s partition %u at %u: %lld - %lld, exact %lld", device->id,
                sizes[p], offsets[p], (long long)length, (long long)gain,
                (long long)exact);
      length = exact;
      gains += gain;
    }
    CHECK_MSG(gains > 0, "%s: partitioning never improved a tour", device->id);
    ck_aco_destroy(aco);
  }
  free(tour);
  ck_tsp_free(&tsp);
}

/* The n x k floats of an ACO buffer (tau, choice, eta_beta), read back
 * from any device. */
static int read_entries(ck_aco *aco, ck_buffer *buffer, float *out) {
  aco_state *state = ck__aco_state(aco);
  ck_status status = ck_buffer_read(state->queue, buffer, 0,
                                    (size_t)state->n * state->k * sizeof *out,
                                    out, CK_BLOCKING, NULL);
  CHECK_OK(status);
  return status == CK_OK;
}

/*
 * The pheromone read back after short seeded runs of eil51 without local
 * search. MMAS (rho 0.5, so that unused edges reach the floor within a
 * few iterations): every tau within [tau_min, tau_max] of the best length
 * (Stuetzle and Hoos: tau_max = 1 / (rho L), tau_min = tau_max (1 -
 * p^(1/n)) / ((avg - 1) p^(1/n)), avg = (k + 1) / 2 over candidate
 * lists), and some at tau_min. ACS: the local update pulls toward tau0
 * and the global one adds rho / L >= rho tau0, so no tau falls below
 * tau0. Both: every choice weight is tau^alpha eta^beta.
 */
static void pheromone_invariants(const ck_device *device) {
  ck_tsp_instance tsp;
  if (!load("eil51", &tsp))
    return;
  static const struct {
    ck_aco_algorithm algorithm;
    double rho, alpha;
    uint32_t iterations;
  } cases[] = {
      {CK_ACO_MMAS, 0.5, 1.5, 15},
      {CK_ACO_MMAS, 0.5, 1.0, 15},
      {CK_ACO_ACS, 0.1, 0.5, 10},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    ck_aco_config config;
    ck_aco_config_init(&config);
    config.algorithm = cases[c].algorithm;
    config.rho = cases[c].rho;
    config.alpha = cases[c].alpha;
    config.local_search = CK_ACO_LS_NONE;
    config.ants = 8;
    config.seed = 11;
    ck_aco *aco = create(device, &tsp, &config);
    if (!aco)
      continue;
    CHECK_OK(ck_aco_step(aco, cases[c].iterations));
    int64_t best = checked_best(aco, &tsp, NULL);
    aco_state *state = ck__aco_state(aco);
    size_t entries = (size_t)state->n * state->k;
    float *tau = malloc(entries * sizeof *tau);
    float *choice = malloc(entries * sizeof *choice);
    float *eta_beta = malloc(entries * sizeof *eta_beta);
    const char *what = cases[c].algorithm == CK_ACO_ACS ? "ACS" : "MMAS";
    if (tau && choice && eta_beta && best > 0 &&
        read_entries(aco, state->tau, tau) &&
        read_entries(aco, state->choice, choice) &&
        read_entries(aco, state->eta_beta, eta_beta)) {
      double low = 0, high = INFINITY;
      if (cases[c].algorithm == CK_ACO_MMAS) {
        double root = pow(config.p_best, 1.0 / state->n);
        high = 1.0 / (cases[c].rho * (double)best);
        low = high * (1 - root) / (((state->k + 1) / 2.0 - 1) * root);
      } else {
        low = state->tau0;
      }
      size_t outside = 0, at_floor = 0, bad_choice = 0, first = entries;
      for (size_t e = 0; e < entries; ++e) {
        int in = tau[e] >= low * (1 - 1e-5) && tau[e] <= high * (1 + 1e-5);
        outside += !in;
        if (!in && first == entries)
          first = e;
        at_floor += fabs(tau[e] - low) <= 1e-5 * low;
        double want = pow(tau[e], cases[c].alpha) * eta_beta[e];
        bad_choice += !(fabs(choice[e] - want) <= 1e-5 * want);
      }
      CHECK_MSG(outside == 0,
                "%s rho %g on %s after %u iterations: %zu of %zu tau outside "
                "[%.9g, %.9g], entry %zu %.9g",
                what, cases[c].rho, device->id, cases[c].iterations, outside,
                entries, low, high, first, first < entries ? tau[first] : 0.0f);
      if (cases[c].algorithm == CK_ACO_MMAS)
        CHECK_MSG(at_floor > 0, "MMAS on %s: no tau at tau_min %.9g",
                  device->id, low);
      CHECK_MSG(bad_choice == 0,
                "%s alpha %g on %s: %zu of %zu choice weights are not "
                "tau^alpha eta^beta",
                what, cases[c].alpha, device->id, bad_choice, entries);
    }
    free(tau);
    free(choice);
    free(eta_beta);
    ck_aco_destroy(aco);
  }
  ck_tsp_free(&tsp);
}

/* Small fixed runs compared between ref and a device, or twice on one. */
typedef struct fixed_case {
  const char *what;
  ck_aco_algorithm algorithm;
  ck_aco_local_search local_search;
  uint32_t local_search_ants, partition;
  uint32_t lanes; /* 0: the device's default */
  ck_aco_method method;
  ck_aco_focus_source source; /* focused: the tours the ants copy */
} fixed_case;

static const fixed_case fixed_cases[] = {
    {"MMAS", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 0, 0, 0, CK_ACO_CLASSIC,
     CK_ACO_SOURCE_BEST},
    {"ACS", CK_ACO_ACS, CK_ACO_LS_2OPT_OROPT, 0, 0, 0, CK_ACO_CLASSIC,
     CK_ACO_SOURCE_BEST},
    {"MMAS ls none", CK_ACO_MMAS, CK_ACO_LS_NONE, 0, 0, 0, CK_ACO_CLASSIC,
     CK_ACO_SOURCE_BEST},
    {"ACS ls none", CK_ACO_ACS, CK_ACO_LS_NONE, 0, 0, 0, CK_ACO_CLASSIC,
     CK_ACO_SOURCE_BEST},
    {"MMAS 2opt on 4 ants, partition 20", CK_ACO_MMAS, CK_ACO_LS_2OPT, 4, 20, 0,
     CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
    /* A work-group an ant, narrower and wider than the candidate lists. */
    {"MMAS, 4 lanes an ant", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 0, 0, 4,
     CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
    {"ACS, 32 lanes an ant", CK_ACO_ACS, CK_ACO_LS_2OPT_OROPT, 0, 0, 32,
     CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
    {"MMAS 2opt+oropt on 4 ants, 8 lanes", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 4,
     0, 8, CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
    {"MMAS one work-item an ant", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 0, 0, 1,
     CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
    {"MMAS focused", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 0, 0, 0, CK_ACO_FOCUSED,
     CK_ACO_SOURCE_BEST},
    {"ACS focused, 2opt on 4 ants, partition 20", CK_ACO_ACS, CK_ACO_LS_2OPT, 4,
     20, 0, CK_ACO_FOCUSED, CK_ACO_SOURCE_BEST},
    {"MMAS focused, 8 lanes an ant", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 0, 0, 8,
     CK_ACO_FOCUSED, CK_ACO_SOURCE_BEST},
    {"ACS focused, 2opt on 4 ants, 32 lanes", CK_ACO_ACS, CK_ACO_LS_2OPT, 4, 0,
     32, CK_ACO_FOCUSED, CK_ACO_SOURCE_BEST},
    /* Each source by an ant a work-item and an ant a work-group. */
    {"MMAS focused from the iteration's best, 1 lane", CK_ACO_MMAS,
     CK_ACO_LS_2OPT_OROPT, 0, 0, 1, CK_ACO_FOCUSED, CK_ACO_SOURCE_ITERATION},
    {"ACS focused from the iteration's best, 2opt on 4 ants, 32 lanes",
     CK_ACO_ACS, CK_ACO_LS_2OPT, 4, 0, 32, CK_ACO_FOCUSED,
     CK_ACO_SOURCE_ITERATION},
    {"MMAS focused from own tours, 1 lane", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT,
     0, 0, 1, CK_ACO_FOCUSED, CK_ACO_SOURCE_OWN},
    {"MMAS focused from own tours, 2opt on 4 ants, 32 lanes", CK_ACO_MMAS,
     CK_ACO_LS_2OPT, 4, 0, 32, CK_ACO_FOCUSED, CK_ACO_SOURCE_OWN},
};

typedef struct fixed_result {
  int ok;
  ck_aco_report report;
  uint32_t tour[600];
  size_t trace_count;
  int64_t trace_length[64];
  uint64_t trace_iteration[64];
  uint32_t bound; /* the focused method's last bound on new edges */
} fixed_result;

/* The configuration of a fixed run with pheromone exponent alpha. */
static void fixed_config(const fixed_case *c, uint64_t seed, double alpha,
                         ck_aco_config *config) {
  ck_aco_config_init(config);
  config->alpha = alpha;
  config->algorithm = c->algorithm;
  config->local_search = c->local_search;
  config->local_search_ants = c->local_search_ants;
  config->partition = c->partition;
  /* ref takes the lanes too and ignores them (one form, the same
   * choices), so that every device gets one configuration. */
  config->lanes = c->lanes;
  config->method = c->method;
  config->focus_source = c->source;
  config->ants = 16;
  config->max_iterations = 30;
  config->seed = seed;
  config->keep_trace = 1;
}

/* A fixed run's report, tour and trace, from its ACO (destroyed). */
static void collect_fixed(ck_aco *aco, const ck_tsp_instance *tsp,
                          fixed_result *out) {
  if (!aco)
    return;
  CHECK_OK(ck_aco_run(aco, &out->report));
  CHECK(checked_best(aco, tsp, out->tour) == out->report.best_length);
  const ck_aco_trace_point *points;
  CHECK_OK(ck_aco_get_trace(aco, &points, &out->trace_count));
  for (size_t i = 0; i < out->trace_count && i < 64; ++i) {
    out->trace_length[i] = points[i].length;
    out->trace_iteration[i] = points[i].iteration;
  }
  const ck__aco_spread *spread = ck__aco_spread_of(aco);
  out->bound =
      ck__aco_state(spread ? (ck_aco *)ck__aco_spread_member(spread) : aco)
          ->focus_bound;
  out->ok = 1;
  ck_aco_destroy(aco);
}

/* A fixed run with pheromone exponent alpha. */
static void run_fixed_alpha(const ck_device *device, const ck_tsp_instance *tsp,
                            const fixed_case *c, uint64_t seed, double alpha,
                            fixed_result *out) {
  memset(out, 0, sizeof *out);
  ck_aco_config config;
  fixed_config(c, seed, alpha, &config);
  collect_fixed(create(device, tsp, &config), tsp, out);
}

static void run_fixed(const ck_device *device, const ck_tsp_instance *tsp,
                      const fixed_case *c, uint64_t seed, fixed_result *out) {
  run_fixed_alpha(device, tsp, c, seed, 1.0, out);
}

/* Same length, iteration, tour and trace; returns whether they are. */
static int same_run(const fixed_result *a, const fixed_result *b) {
  size_t count = a->trace_count < 64 ? a->trace_count : 64;
  return a->ok && b->ok && a->report.best_length == b->report.best_length &&
         a->report.best_iteration == b->report.best_iteration &&
         memcmp(a->tour, b->tour, sizeof a->tour) == 0 &&
         a->bound == b->bound && a->trace_count == b->trace_count &&
         memcmp(a->trace_length, b->trace_length,
                count * sizeof *a->trace_length) == 0 &&
         memcmp(a->trace_iteration, b->trace_iteration,
                count * sizeof *a->trace_iteration) == 0;
}

static void reproducibility(const ck_device *device) {
  ck_tsp_instance tsp;
  if (!load("kroA100", &tsp))
    return;
  static fixed_result a, b;
  for (size_t c = 0; c < 2; ++c) {
    run_fixed(device, &tsp, &fixed_cases[c], 5, &a);
    run_fixed(device, &tsp, &fixed_cases[c], 5, &b);
    CHECK_MSG(same_run(&a, &b),
              "%s on %s, seed 5 twice: %lld at %llu, then %lld at %llu",
              fixed_cases[c].what, device->id, (long long)a.report.best_length,
              (unsigned long long)a.report.best_iteration,
              (long long)b.report.best_length,
              (unsigned long long)b.report.best_iteration);
  }
  /* Another seed, another run (without local search the tours differ). */
  run_fixed(device, &tsp, &fixed_cases[2], 5, &a);
  run_fixed(device, &tsp, &fixed_cases[2], 6, &b);
  CHECK_MSG(a.ok && b.ok && memcmp(a.tour, b.tour, sizeof a.tour) != 0,
            "%s: seeds 5 and 6 give the same tour", device->id);
  ck_tsp_free(&tsp);
}

/* ref and the device build the same tours from the same pheromone: the
 * same best, found in the same iteration, by the same trace. */
static void agreement(const ck_device *ref, const ck_device *device) {
  ck_tsp_instance tsp;
  if (!load("kroA100", &tsp))
    return;
  static fixed_result a, b;
  const char *pocl = strstr(device->platform_version, "PoCL ");
  int no_groups = device->kind == CK_KIND_CPU && pocl && atoi(pocl + 5) >= 5;
  for (size_t c = 0; c < sizeof fixed_cases / sizeof fixed_cases[0]; ++c) {
    if (fixed_cases[c].lanes > 1 && no_groups) {
      /* clkit refuses them there (see the check below). */
      printf("skip %s on %s: PoCL 5 cannot compile the group kernels\n",
             fixed_cases[c].what, device->id);
      ck_aco_config config;
      ck_aco_config_init(&config);
      config.lanes = fixed_cases[c].lanes;
      ck_aco *aco = NULL;
      CHECK(ck_aco_create(device, &tsp, &config, &aco) == CK_ERROR_UNSUPPORTED);
      CHECK(aco == NULL);
      continue;
    }
    run_fixed(ref, &tsp, &fixed_cases[c], 1, &a);
    run_fixed(device, &tsp, &fixed_cases[c], 1, &b);
    CHECK_MSG(same_run(&a, &b),
              "kroA100 %s, 16 ants, 30 iterations: ref %lld at iteration "
              "%llu (%zu trace points), %s %lld at iteration %llu (%zu); "
              "tours %s",
              fixed_cases[c].what, (long long)a.report.best_length,
              (unsigned long long)a.report.best_iteration, a.trace_count,
              device->id, (long long)b.report.best_length,
              (unsigned long long)b.report.best_iteration, b.trace_count,
              memcmp(a.tour, b.tour, sizeof a.tour) ? "differ" : "agree");
  }
  ck_tsp_free(&tsp);
}

/* alpha != 1: the device's first choice weights (tau0^alpha eta^beta)
 * match ref's, and short runs agree. docs/aco.md promises identical runs
 * for alpha = 1 only (pow may differ by ulps between libraries): runs must
 * agree on PoCL, where the tests check that; elsewhere a difference is
 * printed. */
static void agreement_with_alpha(const ck_device *ref,
                                 const ck_device *device) {
  ck_tsp_instance tsp;
  if (!load("kroA100", &tsp))
    return;
  static const struct {
    fixed_case c;
    double alpha;
  } cases[] = {
      {{"MMAS ls none, alpha 1.5", CK_ACO_MMAS, CK_ACO_LS_NONE, 0, 0, 0,
        CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
       1.5},
      {{"ACS, alpha 0.5", CK_ACO_ACS, CK_ACO_LS_2OPT, 0, 0, 0, CK_ACO_CLASSIC,
        CK_ACO_SOURCE_BEST},
       0.5},
  };
  int pocl = strstr(device->platform_version, "PoCL ") != NULL;
  static fixed_result a, b;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    ck_aco_config config;
    ck_aco_config_init(&config);
    config.algorithm = cases[c].c.algorithm;
    config.alpha = cases[c].alpha;
    ck_aco *made[2] = {create(ref, &tsp, &config),
                       create(device, &tsp, &config)};
    size_t entries =
        made[0] ? (size_t)tsp.cities * ck__aco_state(made[0])->k : 1;
    float *choice[2] = {malloc(entries * sizeof(float)),
                        malloc(entries * sizeof(float))};
    if (made[0] && made[1] && choice[0] && choice[1] &&
        read_entries(made[0], ck__aco_state(made[0])->choice, choice[0]) &&
        read_entries(made[1], ck__aco_state(made[1])->choice, choice[1])) {
      size_t differ = 0;
      for (size_t e = 0; e < entries; ++e)
        differ += !(fabsf(choice[0][e] - choice[1][e]) <= 1e-5f * choice[0][e]);
      CHECK_MSG(differ == 0, "%s: %zu of %zu first choice weights differ on %s",
                cases[c].c.what, differ, entries, device->id);
    }
    for (int d = 0; d < 2; ++d) {
      ck_aco_destroy(made[d]);
      free(choice[d]);
    }
    run_fixed_alpha(ref, &tsp, &cases[c].c, 1, cases[c].alpha, &a);
    run_fixed_alpha(device, &tsp, &cases[c].c, 1, cases[c].alpha, &b);
    int same = same_run(&a, &b);
    if (!same && !pocl)
      printf("note: kroA100 %s: ref %lld at %llu, %s %lld at %llu\n",
             cases[c].c.what, (long long)a.report.best_length,
             (unsigned long long)a.report.best_iteration, device->id,
             (long long)b.report.best_length,
             (unsigned long long)b.report.best_iteration);
    CHECK_MSG(a.ok && b.ok && (same || !pocl),
              "kroA100 %s, 16 ants, 30 iterations: ref %lld at iteration "
              "%llu, %s %lld at iteration %llu; tours %s",
              cases[c].c.what, (long long)a.report.best_length,
              (unsigned long long)a.report.best_iteration, device->id,
              (long long)b.report.best_length,
              (unsigned long long)b.report.best_iteration,
              memcmp(a.tour, b.tour, sizeof a.tour) ? "differ" : "agree");
  }
  ck_tsp_free(&tsp);
}

/* Ties: twelve cities around a square's edge, where every ant that finds
 * the square finds the same length from its own start city and in its own
 * direction. The best of an iteration is its first ant of least length
 * (ref's rule), so the device must return the same tour, not another
 * ant's spelling of the same cycle. */
static void agreement_on_ties(const ck_device *ref, const ck_device *device) {
  static const int edge[12][2] = {{0, 0},   {10, 0},  {20, 0},  {30, 0},
                                  {30, 10}, {30, 20}, {30, 30}, {20, 30},
                                  {10, 30}, {0, 30},  {0, 20},  {0, 10}};
  char text[1024];
  size_t used = (size_t)snprintf(text, sizeof text,
                                 "NAME : square12\nTYPE : TSP\nDIMENSION : 12\n"
                                 "EDGE_WEIGHT_TYPE : EUC_2D\n"
                                 "NODE_COORD_SECTION\n");
  /* Listed out of order, so that no ant's tour is the file's order. */
  for (int i = 0; i < 12; ++i) {
    int city = (i * 5) % 12;
    used += (size_t)snprintf(text + used, sizeof text - used, "%d %d %d\n",
                             city + 1, edge[city][0], edge[city][1]);
  }
  used += (size_t)snprintf(text + used, sizeof text - used, "EOF\n");
  ck_tsp_instance tsp;
  memset(&tsp, 0, sizeof tsp);
  CHECK_OK(ck_tsp_parse(text, used, "square12", &tsp));
  static fixed_result a, b;
  static const size_t cases[] = {0, 2}; /* with and without local search */
  for (size_t i = 0; i < 2; ++i) {
    const fixed_case *c = &fixed_cases[cases[i]];
    run_fixed(ref, &tsp, c, 3, &a);
    run_fixed(device, &tsp, c, 3, &b);
    /* With 2-opt the first iteration finds the square, by many ants. */
    if (c->local_search != CK_ACO_LS_NONE)
      CHECK_MSG(a.ok && a.report.best_length == 120 &&
                    a.report.best_iteration == 1,
                "square12 %s on ref: best %lld at iteration %llu, not the "
                "square's 120 at 1",
                c->what, (long long)a.report.best_length,
                (unsigned long long)a.report.best_iteration);
    CHECK_MSG(same_run(&a, &b),
              "square12 %s: ref %lld at iteration %llu, %s %lld at %llu; "
              "tours %s",
              c->what, (long long)a.report.best_length,
              (unsigned long long)a.report.best_iteration, device->id,
              (long long)b.report.best_length,
              (unsigned long long)b.report.best_iteration,
              memcmp(a.tour, b.tour, sizeof a.tour) ? "differ" : "agree");
  }
  ck_tsp_free(&tsp);
}

/* Above 4096 cities distances come from coordinates on both sides (ref in
 * double; the device in double when it has fp64, else in float, where
 * only validity can be asked for). */
static void agreement_by_coordinates(const ck_device *ref,
                                     const ck_device *device) {
  ck_tsp_instance tsp;
  uint32_t n = 4200;
  uint32_t *tour[2] = {malloc(n * sizeof(uint32_t)),
                       malloc(n * sizeof(uint32_t))};
  if (!make_instance(&tsp, n, UNIFORM, 4200) || !tour[0] || !tour[1])
    goto done;
  /* Each form of construction searches the grid its own way: the
   * device's default, an ant a work-item, and an ant a work-group; the
   * focused ants walk and search by either form, from each source. */
  static const struct {
    int algorithm;
    uint32_t lanes;
    ck_aco_method method;
    ck_aco_focus_source source;
  } cases[] = {{CK_ACO_MMAS, 0, CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
               {CK_ACO_ACS, 0, CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
               {CK_ACO_MMAS, 1, CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
               {CK_ACO_ACS, 32, CK_ACO_CLASSIC, CK_ACO_SOURCE_BEST},
               {CK_ACO_MMAS, 0, CK_ACO_FOCUSED, CK_ACO_SOURCE_BEST},
               {CK_ACO_MMAS, 32, CK_ACO_FOCUSED, CK_ACO_SOURCE_BEST},
               {CK_ACO_MMAS, 1, CK_ACO_FOCUSED, CK_ACO_SOURCE_ITERATION},
               {CK_ACO_MMAS, 32, CK_ACO_FOCUSED, CK_ACO_SOURCE_OWN}};
  const char *pocl = strstr(device->platform_version, "PoCL ");
  int no_groups = device->kind == CK_KIND_CPU && pocl && atoi(pocl + 5) >= 5;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    int algorithm = cases[c].algorithm;
    if (cases[c].lanes > 1 && no_groups)
      continue; /* refused there (agreement) */
    ck_aco_config config;
    ck_aco_config_init(&config);
    config.algorithm = (ck_aco_algorithm)algorithm;
    config.lanes = cases[c].lanes;
    config.method = cases[c].method;
    config.focus_source = cases[c].source;
    config.ants = 4;
    config.max_iterations = 3;
    config.local_search =
        algorithm == CK_ACO_MMAS ? CK_ACO_LS_2OPT_OROPT : CK_ACO_LS_2OPT;
    config.partition = algorithm == CK_ACO_ACS ? 50 : 0;
    ck_aco_report report[2];
    const ck_device *on[2] = {ref, device};
    int ran = 1;
    for (int d = 0; d < 2; ++d) {
      ck_aco *aco = create(on[d], &tsp, &config);
      ran &= aco != NULL;
      if (!aco)
        continue;
      CHECK(ck__aco_state(aco)->metric == CK_TSP_METRIC_EUC_2D);
      CHECK_OK(ck_aco_run(aco, &report[d]));
      CHECK(checked_best(aco, &tsp, tour[d]) == report[d].best_length);
      ck_aco_destroy(aco);
    }
    if (ran && device->has_fp64)
      CHECK_MSG(report[0].best_length == report[1].best_length &&
                    report[0].best_iteration == report[1].best_iteration &&
                    memcmp(tour[0], tour[1], n * sizeof(uint32_t)) == 0,
                "%s, method %d, source %d, lanes %u, on %u cities by "
                "coordinates: ref %lld at %llu, %s %lld at %llu",
                algorithm == CK_ACO_MMAS ? "MMAS" : "ACS", (int)cases[c].method,
                (int)cases[c].source, cases[c].lanes, n,
                (long long)report[0].best_length,
                (unsigned long long)report[0].best_iteration, device->id,
                (long long)report[1].best_length,
                (unsigned long long)report[1].best_iteration);
  }
done:
  ck_tsp_free(&tsp);
  free(tour[0]);
  free(tour[1]);
}

/* The first pheromone comes from the nearest-neighbour tour from city 0:
 * ACS's tau0 is 1 / (n L_nn). 5000 cities, above the matrix limit, so
 * that the tour is found through the grid, on a 20 x 20 lattice: ties at
 * every step, and a tour short enough (about 2000) that one unit more
 * moves tau0 by far more than a float's step. */
static void nearest_neighbour_pheromone(const ck_device *ref) {
  uint32_t n = 5000;
  ck_tsp_instance tsp;
  int64_t length = -1;
  uint32_t *tour = malloc(n * sizeof *tour);
  int made = tour && make_points(&tsp, n, CK_TSP_EUC_2D, LATTICE, 31) &&
             brute_force_nearest_tour(&tsp, 0, tour);
  CHECK(made);
  if (made) {
    CHECK_OK(ck_tsp_tour_measure(&tsp, tour, &length));
    ck_aco_config config;
    ck_aco_config_init(&config);
    config.algorithm = CK_ACO_ACS;
    config.ants = 1;
    ck_aco *aco = create(ref, &tsp, &config);
    if (aco) {
      float want = (float)(1.0 / ((double)n * (double)length));
      CHECK(ck__aco_state(aco)->metric == CK_TSP_METRIC_EUC_2D);
      CHECK_MSG(ck__aco_state(aco)->tau0 == want,
                "tau0 on %u cities: %.9g, from the brute-force "
                "nearest-neighbour tour (%lld) %.9g",
                n, ck__aco_state(aco)->tau0, (long long)length, want);
    }
    ck_aco_destroy(aco);
    ck_tsp_free(&tsp);
  }
  free(tour);
}

/* ---- bad input ------------------------------------------------------------
 */

static void bad_config(const ck_device *ref) {
  ck_tsp_instance tsp;
  if (!load("eil51", &tsp))
    return;
  ck_aco *made = NULL;
  const char *message = "";
  for (int k = 0; k < 29; ++k) {
    ck_aco_config c;
    ck_aco_config_init(&c);
    const char *mention = "";
    switch (k) {
    case 0:
      c.candidates = 51; /* n */
      mention = "ck_aco_config.candidates";
      break;
    case 1:
      c.candidates = 65;
      mention = "ck_aco_config.candidates";
      break;
    case 2:
      c.rho = 0;
      mention = "ck_aco_config.rho";
      break;
    case 3:
      c.rho = 1;
      mention = "ck_aco_config.rho";
      break;
    case 4:
      c.rho = NAN;
      mention = "ck_aco_config.rho";
      break;
    case 5:
      c.partition = 7;
      mention = "ck_aco_config.partition";
      break;
    case 6:
      c.partition = 52;
      mention = "ck_aco_config.partition";
      break;
    case 7:
      c.has_target = 1; /* no optimum */
      c.target_gap = 1;
      mention = "ck_aco_config.target_gap: needs a known optimum";
      break;
    case 8:
      c.has_target = 1;
      c.optimum = 426;
      c.target_gap = -1;
      mention = "ck_aco_config.target_gap";
      break;
    case 9:
      c.has_target = 1;
      c.optimum = 426;
      c.target_gap = NAN;
      mention = "ck_aco_config.target_gap";
      break;
    case 10:
      c.algorithm = (ck_aco_algorithm)2;
      mention = "ck_aco_config.algorithm";
      break;
    case 11:
      c.local_search = (ck_aco_local_search)3;
      mention = "ck_aco_config.local_search";
      break;
    case 12:
      c.local_search = (ck_aco_local_search)-1;
      mention = "ck_aco_config.local_search";
      break;
    case 13:
      c.alpha = 0;
      mention = "ck_aco_config.alpha";
      break;
    case 14:
      c.beta = -1;
      mention = "ck_aco_config.beta";
      break;
    case 15:
      c.q0 = 1.5;
      mention = "ck_aco_config.q0";
      break;
    case 16:
      c.xi = 0;
      mention = "ck_aco_config.xi";
      break;
    case 17:
      c.xi = 1;
      mention = "ck_aco_config.xi";
      break;
    case 18:
      c.p_best = 0;
      mention = "ck_aco_config.p_best";
      break;
    case 19:
      c.ants = 65537;
      mention = "ck_aco_config.ants";
      break;
    case 20:
      c.optimum = -5;
      mention = "ck_aco_config.optimum";
      break;
    case 21:
      c.max_seconds = -1;
      mention = "ck_aco_config.max_seconds";
      break;
    case 22:
      c.max_seconds = NAN;
      mention = "ck_aco_config.max_seconds";
      break;
    case 23:
      c.alpha = NAN;
      mention = "ck_aco_config.alpha";
      break;
    case 24:
      c.q0 = NAN;
      mention = "ck_aco_config.q0";
      break;
    case 25:
      c.beta = 21;
      mention = "ck_aco_config.beta";
      break;
    case 26:
      c.method = (ck_aco_method)3;
      mention = "ck_aco_config.method";
      break;
    case 27:
      c.method = CK_ACO_FOCUSED;
      c.focus_edges = 2000000000;
      mention = "ck_aco_config.focus_edges";
      break;
    case 28:
      c.method = CK_ACO_FOCUSED;
      c.focus_source = (ck_aco_focus_source)3;
      mention = "ck_aco_config.focus_source";
      break;
    }
    made = (ck_aco *)&c; /* must come back NULL */
    ck_status status = ck_aco_create(ref, &tsp, &c, &made);
    message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT && strstr(message, mention) &&
                  made == NULL,
              "config case %d: status %d, message '%s'", k, (int)status,
              message);
    if (status == CK_OK)
      ck_aco_destroy(made);
  }
  /* Limits that are fine: k = n - 1, partition = n, q0 = 0 and 1. */
  ck_aco_config c;
  ck_aco_config_init(&c);
  c.candidates = 50;
  c.partition = 51;
  c.q0 = 1;
  c.algorithm = CK_ACO_ACS;
  c.max_iterations = 2;
  ck_aco_report report;
  run(ref, &tsp, &c, &report, NULL);
  c.q0 = 0;
  c.candidates = 1;
  c.partition = 8;
  run(ref, &tsp, &c, &report, NULL);

  /* Too few cities, NULL arguments, no best before the first iteration. */
  ck_tsp_instance small = {0};
  static const char four[] = "NAME : four\nTYPE : TSP\nDIMENSION : 4\n"
                             "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n"
                             "1 0 0\n2 0 1\n3 1 1\n4 1 0\nEOF\n";
  CHECK_OK(ck_tsp_parse(four, sizeof four - 1, "four", &small));
  ck_aco_config_init(&c);
  made = (ck_aco *)&c;
  CHECK(ck_aco_create(ref, &small, &c, &made) == CK_ERROR_INVALID_ARGUMENT &&
        made == NULL);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "ck_aco_create: instance four has 4 cities; the "
                            "ACO needs at least 5"),
            "4 cities: '%s'", message);
  ck_tsp_free(&small);
  /* None at all, made without the reader: the same message (it once
   * quoted clkit/tsp.h's 1..10000000 instead). */
  ck_tsp_instance none = {.name = "none", .metric = CK_TSP_EUC_2D};
  made = (ck_aco *)&c;
  CHECK(ck_aco_create(ref, &none, &c, &made) == CK_ERROR_INVALID_ARGUMENT &&
        made == NULL);
  ck_error_get_last(&message);
  CHECK_MSG(strstr(message, "ck_aco_create: instance none has 0 cities; the "
                            "ACO needs at least 5"),
            "0 cities: '%s'", message);
  CHECK_INVALID(ck_aco_create(NULL, &tsp, &c, &made),
                "ck_aco_create: device is NULL");
  CHECK_INVALID(ck_aco_create(ref, NULL, &c, &made),
                "ck_aco_create: instance is NULL");
  CHECK_INVALID(ck_aco_create(ref, &tsp, NULL, &made),
                "ck_aco_create: config is NULL");
  CHECK_INVALID(ck_aco_create(ref, &tsp, &c, NULL),
                "ck_aco_create: aco is NULL");
  CHECK_INVALID(ck_aco_config_init(NULL), "ck_aco_config_init: config is NULL");
  CHECK_INVALID(ck_aco_step(NULL, 1), "ck_aco_step: aco is NULL");
  CHECK(ck_aco_destroy(NULL) == CK_OK);
  ck_aco *aco = create(ref, &tsp, &c);
  if (aco) {
    int64_t length = 0;
    CHECK(ck_aco_get_best(aco, &length, NULL) == CK_ERROR_NOT_FOUND);
    CHECK(ck_aco_step(aco, 1) == CK_OK);
    CHECK(checked_best(aco, &tsp, NULL) > 0);
    CHECK_INVALID(ck_aco_get_best(aco, NULL, NULL),
                  "ck_aco_get_best: length is NULL");
    CHECK_INVALID(ck_aco_run(aco, NULL), "ck_aco_run: report is NULL");
    const ck_aco_trace_point *points = NULL;
    size_t count = 0;
    CHECK_INVALID(ck_aco_get_trace(aco, NULL, &count),
                  "ck_aco_get_trace: points is NULL");
    CHECK_INVALID(ck_aco_get_trace(aco, &points, NULL),
                  "ck_aco_get_trace: count is NULL");
    ck_aco_destroy(aco);
  }
  ck_tsp_free(&tsp);

  /* An EXPLICIT instance made without the parser: distances past
   * CK_TSP_MAX_DISTANCE (which the local search's sums would overflow)
   * and an asymmetric matrix are refused; at the limit it runs, every
   * tour length exact. */
  enum { M = 7 };
  int32_t matrix[M * M];
  ck_tsp_instance made_tsp = {
      .name = "made", .cities = M, .metric = CK_TSP_EXPLICIT, .matrix = matrix};
  for (int k = 0; k < 3; ++k) {
    for (uint32_t i = 0; i < M; ++i)
      for (uint32_t j = 0; j < M; ++j)
        matrix[i * M + j] = i == j ? 0
                            : k == 0
                                ? INT32_MAX
                                : CK_TSP_MAX_DISTANCE - (int32_t)((i * j) % 5);
    if (k == 1)
      matrix[3 * M + 1] -= 7;
    ck_aco_config_init(&c);
    c.max_iterations = 4;
    c.ants = 4;
    if (k < 2) {
      made = (ck_aco *)&c;
      ck_status status = ck_aco_create(ref, &made_tsp, &c, &made);
      message = "";
      ck_error_get_last(&message);
      const char *mention = k ? "symmetric" : "outside 0..536870911";
      CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT && made == NULL &&
                    strstr(message, mention),
                "made instance %d: status %d, message '%s'", k, (int)status,
                message);
      if (status == CK_OK)
        ck_aco_destroy(made);
    } else {
      for (int ls = CK_ACO_LS_NONE; ls <= CK_ACO_LS_2OPT_OROPT; ++ls) {
        c.local_search = (ck_aco_local_search)ls;
        run(ref, &made_tsp, &c, &report, NULL);
        CHECK_MSG(report.best_length > 6 * (int64_t)CK_TSP_MAX_DISTANCE,
                  "made instance at the limit: length %lld",
                  (long long)report.best_length);
      }
    }
  }

  /* Instances whose distances cannot be computed are refused before
   * anything is made, by the same check as ck_tsp_get_distance's, naming
   * ck_aco_create: a coordinate not a number, one past the limit, and
   * EXPLICIT without its matrix. */
  double x[M] = {0, 1, 2, 3, 4, 5, 6}, y[M] = {0, 3, 1, 4, 1, 5, 9};
  ck_tsp_instance unusable[3] = {
      {.name = "nan", .cities = M, .metric = CK_TSP_EUC_2D, .x = x, .y = y},
      {.name = "far", .cities = M, .metric = CK_TSP_EUC_2D, .x = x, .y = y},
      {.name = "bare", .cities = M, .metric = CK_TSP_EXPLICIT}};
  const char *mentions[3] = {"ck_aco_create: city 4 has coordinates (nan, 1)",
                             "ck_aco_create: city 4 has coordinates (1e+300",
                             "ck_aco_create: an EXPLICIT instance without"};
  for (int u = 0; u < 3; ++u) {
    x[4] = u == 0 ? NAN : u == 1 ? 1e300 : 4;
    ck_aco_config_init(&c);
    made = (ck_aco *)&c;
    ck_status status = ck_aco_create(ref, &unusable[u], &c, &made);
    message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT && made == NULL &&
                  strstr(message, mentions[u]),
              "unusable instance %d: status %d, message '%s'", u, (int)status,
              message);
    if (status == CK_OK)
      ck_aco_destroy(made);
  }
}

/* A new temporary directory, its path in directory. */
static void make_directory(char *directory, size_t size) {
  const char *base = getenv("TMPDIR");
  snprintf(directory, size, "%s/clkit-test-aco-XXXXXX",
           base && *base ? base : "/tmp");
  CHECK(mkdtemp(directory) != NULL);
}

/* The workload: bad options are CK_ERROR_INVALID_ARGUMENT naming them; an
 * unreadable file is CK_ERROR_IO naming the file. */
static void bad_workload(const ck_device *ref) {
  const ck_workload *aco;
  ck_result result = {0};
  ck_run_options options = {.seed = 1};
  CHECK_OK(ck_workload_find("aco", &aco));
  char eil51[1024], missing[1024], berlin52[1024], optima[1024];
  snprintf(eil51, sizeof eil51, "%s/tsplib/eil51.tsp", data_dir);
  snprintf(missing, sizeof missing, "%s/tsplib/nosuch.tsp", data_dir);
  snprintf(berlin52, sizeof berlin52, "%s/tsplib/berlin52.tsp", data_dir);
  snprintf(optima, sizeof optima, "%s/tsplib/optima.txt", data_dir);
  const struct {
    ck_param params[3];
    size_t count;
    ck_status status;
    const char *mention;
  } cases[] = {
      {{{"instance", eil51}, {"candidates", "0"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--candidates"},
      {{{"instance", eil51}, {"candidates", "51"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "option --candidates: ck_aco_config.candidates: 51 is not below the "
       "51 cities"},
      {{{"instance", eil51}, {"ls", "bogus"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--ls"},
      {{{"instance", eil51}, {"algo", "as"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--algo"},
      {{{"instance", eil51}, {"target-gap", "1"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--target-gap"},
      {{{"instance", eil51}, {"partition", "4"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--partition"},
      {{{"instance", "random:2000"}, {"partition", "1025"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--partition"},
      {{{"instance", eil51}, {"kicks", "-1"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--kicks"},
      {{{"instance", eil51}, {"kicks", "many"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--kicks"},
      {{{"instance", eil51}, {"rho", "1"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--rho"},
      {{{"instance", "random:3"}}, 1, CK_ERROR_INVALID_ARGUMENT, "random:3"},
      {{{"instance", "random:x"}}, 1, CK_ERROR_INVALID_ARGUMENT, "random:x"},
      {{{"instance", "random: 40"}},
       1,
       CK_ERROR_INVALID_ARGUMENT,
       "'random: 40' should be random:N"},
      {{{"instance", "random:0x28"}},
       1,
       CK_ERROR_INVALID_ARGUMENT,
       "'random:0x28' should be random:N"},
      {{{"instance", missing}}, 1, CK_ERROR_IO, "nosuch.tsp"},
      /* `run aco berlin52.tsp --instance eil51.tsp`: the first argument
       * comes as a second --instance; neither is dropped unseen. */
      {{{"instance", eil51}, {"iters", "1"}, {"instance", berlin52}},
       3,
       CK_ERROR_INVALID_ARGUMENT,
       "two instances"},
      /* Options without their part would be dropped unseen. */
      {{{"instance", eil51}, {"q0", "0.5"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--q0 applies only with --algo acs"},
      {{{"instance", eil51}, {"algo", "acs"}, {"restart", "5"}},
       3,
       CK_ERROR_INVALID_ARGUMENT,
       "--restart applies only with --algo mmas"},
      {{{"instance", eil51}, {"kicks", "3"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--kicks applies only with --partition"},
      {{{"instance", eil51}, {"ls", "none"}, {"ls-full", "1"}},
       3,
       CK_ERROR_INVALID_ARGUMENT,
       "--ls-full applies only with a local search"},
      {{{"instance", eil51}, {"method", "ants"}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "--method"},
      {{{"instance", eil51}, {"method", "classic"}, {"focus-edges", "8"}},
       3,
       CK_ERROR_INVALID_ARGUMENT,
       "--focus-edges applies only with --method focused or auto"},
      {{{"instance", eil51}, {"method", "focused"}, {"focus-edges", "x"}},
       3,
       CK_ERROR_INVALID_ARGUMENT,
       "--focus-edges"},
      {{{"instance", eil51}, {"method", "classic"}, {"focus-source", "own"}},
       3,
       CK_ERROR_INVALID_ARGUMENT,
       "--focus-source applies only with --method focused or auto"},
      {{{"instance", eil51}, {"method", "focused"}, {"focus-source", "ant"}},
       3,
       CK_ERROR_INVALID_ARGUMENT,
       "option --focus-source: ck_aco_config.focus_source: unknown value "
       "'ant'; one of: best iteration own"},
      {{{"instance", eil51}, {"focus-source", ""}},
       2,
       CK_ERROR_INVALID_ARGUMENT,
       "option --focus-source: ck_aco_config.focus_source: unknown value ''"},
      /* As `tsp eval`: one source of the optimum. */
      {{{"instance", eil51}, {"optima", optima}, {"optimum", "100"}},
       3,
       CK_ERROR_INVALID_ARGUMENT,
       "give --optima or --optimum, not both"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    ck_status status = test_workload_run(aco, ref, cases[k].params,
                                         cases[k].count, &options, &result);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == cases[k].status && strstr(message, cases[k].mention),
              "workload case %zu (%s=%s): status %d, message '%s'", k,
              cases[k].params[cases[k].count - 1].name,
              cases[k].params[cases[k].count - 1].value, (int)status, message);
  }
  /* The check (before anything runs) quotes each option's own range, as
   * the run would: it once checked every integer against [0, 1e15] and
   * every real against [0, 1e15]. */
  const struct {
    const char *name, *value, *range;
  } ranges[] = {
      {"iters", "-1",
       "option --iters: ck_aco_config.max_iterations: -1 is outside [1, "
       "1000000000000]"},
      {"iters", "0",
       "option --iters: ck_aco_config.max_iterations: 0 is outside [1, "
       "1000000000000]"},
      {"alpha", "1e16",
       "option --alpha: ck_aco_config.alpha: 1e16 is outside "
       "(0, 10]"},
      {"alpha", "0",
       "option --alpha: ck_aco_config.alpha: 0 is outside (0, "
       "10]"},
      {"beta", "1e16",
       "option --beta: ck_aco_config.beta: 1e16 is outside [0, "
       "20]"},
      {"optimum", "0",
       "option --optimum: ck_aco_config.optimum: 0 is outside [1, "
       "1000000000000000]"},
      {"ls-ants", "1e15",
       "option --ls-ants: ck_aco_config.local_search_ants: 1e15 is outside "
       "[0, 65536]"},
      {"candidates", "65",
       "option --candidates: ck_aco_config.candidates: 65 is outside [1, 64]"},
      {"restart", "2e9",
       "option --restart: ck_aco_config.restart_after: 2e9 is outside [0, "
       "1000000000]"},
      {"q0", "2", "option --q0: ck_aco_config.q0: 2 is outside [0, 1]"},
      {"rho", "1", "option --rho: ck_aco_config.rho: 1 is outside (0, 1)"},
      {"lanes", "512",
       "option --lanes: ck_aco_config.lanes: 512 is outside [1, 256]"},
      {"ants", "0",
       "option --ants: ck_aco_config.ants: 0 is outside [1, "
       "65536]"},
      {"time", "2e9",
       "option --time: ck_aco_config.max_seconds: 2e9 is outside [0, "
       "1000000000]"},
      {"target-gap", "-1",
       "option --target-gap: ck_aco_config.target_gap: -1 is outside [0, "
       "1000000]"},
      {"focus-edges", "0",
       "option --focus-edges: ck_aco_config.focus_edges: 0 is outside [1, "
       "1000000000]"},
      /* Not a range, but known before the instance is read. */
      {"target-gap", "1", "option --target-gap: needs the optimum"},
  };
  for (size_t k = 0; k < sizeof ranges / sizeof ranges[0]; ++k) {
    const ck_param params[] = {{"instance", eil51},
                               {ranges[k].name, ranges[k].value}};
    ck_status status = ck_workload_check(aco, params, 2);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                  strstr(message, ranges[k].range),
              "check --%s %s: status %d, message '%s'", ranges[k].name,
              ranges[k].value, (int)status, message);
  }
  /* Values at the edges of these ranges pass the check. */
  const ck_param inside[] = {
      {"iters", "1e12"},    {"alpha", "10"},
      {"beta", "0"},        {"optimum", "1e15"},
      {"ls-ants", "65536"}, {"algo", "acs"},
      {"q0", "1"},          {"focus-source", "iteration"}};
  CHECK_OK(ck_workload_check(aco, inside, sizeof inside / sizeof inside[0]));

  /* And a good one: random:N with the seed, within the options given. */
  const ck_param good[] = {{"instance", "random:40"}, {"iters", "5"}};
  CHECK_OK(test_workload_run(aco, ref, good, 2, &options, &result));
  CHECK(result.best > 0);

  /* A well-formed file of too few cities is a failure of the input, named
   * by its path (it was a usage error naming only the instance's NAME). */
  char directory[1024], tiny[1100];
  make_directory(directory, sizeof directory);
  test_write_text(directory, "tiny.tsp",
                  "NAME : x\nTYPE : TSP\nDIMENSION : 3\n"
                  "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n"
                  "1 0 0\n2 1 0\n3 0 1\nEOF\n",
                  tiny, sizeof tiny);
  for (int candidates = 0; candidates < 2; ++candidates) {
    /* Before the options that depend on the count, too. */
    const ck_param few[] = {{"instance", tiny}, {"candidates", "4"}};
    ck_status status =
        test_workload_run(aco, ref, few, 1 + candidates, &options, &result);
    const char *message = "";
    ck_error_get_last(&message);
    char expected[1200];
    snprintf(expected, sizeof expected,
             "%s: 3 cities; the ACO needs at least 5", tiny);
    CHECK_MSG(status == CK_ERROR_PARSE && strcmp(message, expected) == 0,
              "3 cities in a file: status %d, message '%s'", (int)status,
              message);
  }
  /* One the ACO cannot hold, a GEO instance past its matrix's 8192
   * cities, is named by its file too. */
  size_t size = 128 + 9000 * 24;
  char *text = malloc(size), geo[1100];
  if (text) {
    size_t used =
        (size_t)snprintf(text, size,
                         "NAME : wide\nTYPE : TSP\nDIMENSION : 9000\n"
                         "EDGE_WEIGHT_TYPE : GEO\nNODE_COORD_SECTION\n");
    for (int i = 0; i < 9000; ++i)
      used += (size_t)snprintf(text + used, size - used, "%d %d.%02d %d.%02d\n",
                               i + 1, i % 80, i % 60, i % 170, i % 59);
    snprintf(text + used, size - used, "EOF\n");
    test_write_text(directory, "wide.tsp", text, geo, sizeof geo);
    free(text);
    const ck_param wide[] = {{"instance", geo}, {"iters", "1"}};
    ck_status status = test_workload_run(aco, ref, wide, 2, &options, &result);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_UNSUPPORTED &&
                  strncmp(message, geo, strlen(geo)) == 0 &&
                  strstr(message, "up to 8192 cities"),
              "9000 GEO cities: status %d, message '%s'", (int)status, message);
  }
  remove_tree(directory);

  /* A colony past the device's memory fails before it is allocated, with
   * the figures (ref's memory is the host's; here a copy that claims
   * 1 MB). */
  ck_device small = *ref;
  small.global_memory = 1ull << 20;
  const ck_param big[] = {
      {"instance", "random:2000"}, {"ants", "64"}, {"iters", "1"}};
  ck_status status = test_workload_run(aco, &small, big, 3, &options, &result);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_DEVICE_MEMORY &&
                strstr(message, "64 ants on 2000 cities need about") &&
                strstr(message, "GB; device ref has 0.00105 GB"),
            "past memory: status %d, message '%s'", (int)status, message);
  ck_result_release(&result);
}

/* Progress callbacks: each call's fraction, and the call that says stop
 * (0: never). */
typedef struct progress_log {
  int calls, stop_at, ordered;
  double last;
} progress_log;

static int note_progress(void *user, const ck_progress *progress) {
  double fraction = progress->fraction;
  progress_log *log = user;
  log->ordered &= fraction >= log->last && fraction >= 0 && fraction <= 1;
  log->last = fraction;
  return ++log->calls == log->stop_at;
}

/* The progress callback: called during ck_aco_run with fractions that
 * rise within [0, 1]; one that asks to stop ends the run with
 * CK_ERROR_CANCELLED (the best so far kept), through ck_aco_run and
 * through the workload (where it was once never called, and a run could
 * not be stopped). */
static void progress(const ck_device *ref) {
  ck_tsp_instance tsp;
  if (!load("eil51", &tsp))
    return;
  ck_aco_config c;
  ck_aco_config_init(&c);
  c.max_iterations = 5;
  progress_log log = {0, 0, 1, 0};
  c.progress = note_progress;
  c.progress_user = &log;
  ck_aco_report report;
  run(ref, &tsp, &c, &report, NULL);
  CHECK_MSG(log.calls >= 1 && log.ordered && report.iterations == 5,
            "progress: %d calls, ordered %d, %llu iterations", log.calls,
            log.ordered, (unsigned long long)report.iterations);
  log = (progress_log){0, 1, 1, 0};
  c.max_iterations = 200;
  ck_aco *aco = create(ref, &tsp, &c);
  if (aco) {
    ck_status status = ck_aco_run(aco, &report);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_ERROR_CANCELLED && log.calls == 1 &&
                  strstr(message, "ACO cancelled after 1 iterations"),
              "stopped by progress: status %d after %d calls, '%s'",
              (int)status, log.calls, message);
    CHECK(checked_best(aco, &tsp, NULL) > 0);
    ck_aco_destroy(aco);
  }
  ck_tsp_free(&tsp);

  const ck_workload *workload;
  CHECK_OK(ck_workload_find("aco", &workload));
  const ck_param params[] = {{"instance", "random:200"}, {"iters", "200"}};
  log = (progress_log){0, 1, 1, 0};
  ck_run_options options = {
      .seed = 1, .progress = note_progress, .progress_user = &log};
  ck_result result = {0};
  ck_status status =
      test_workload_run(workload, ref, params, 2, &options, &result);
  const char *message = "";
  ck_error_get_last(&message);
  CHECK_MSG(status == CK_ERROR_CANCELLED && log.calls == 1 &&
                strstr(message, "cancelled"),
            "workload stopped by progress: status %d after %d calls, '%s'",
            (int)status, log.calls, message);
  ck_result_release(&result);
}

/* The lines a run logs: how many, and all of them, one after another. */
typedef struct log_lines {
  int count;
  char text[4096];
} log_lines;

static void keep_line(void *user, const char *line) {
  log_lines *lines = user;
  size_t used = strlen(lines->text);
  lines->count += 1;
  snprintf(lines->text + used, sizeof lines->text - used, "%s\n", line);
}

/* The contents of an SVG's <text> elements, entities decoded, one after
 * another in out (count entries of 256 bytes at most); returns how many. */
static int svg_texts(const char *svg, char out[][256], int count) {
  static const struct {
    const char *entity;
    char c;
  } entities[] = {{"&lt;", '<'},
                  {"&gt;", '>'},
                  {"&amp;", '&'},
                  {"&quot;", '"'},
                  {"&apos;", '\''}};
  int found = 0;
  for (const char *at = svg; found < count && (at = strstr(at, "<text"));) {
    const char *open = strchr(at, '>'), *close = strstr(at, "</text>");
    if (!open || !close || close < open)
      break;
    size_t used = 0;
    for (const char *c = open + 1; c < close && used + 1 < 256;) {
      size_t e = 0;
      while (e < 5 &&
             strncmp(c, entities[e].entity, strlen(entities[e].entity)) != 0)
        ++e;
      out[found][used++] = e < 5 ? entities[e].c : *c;
      c += e < 5 ? strlen(entities[e].entity) : 1;
    }
    out[found++][used] = '\0';
    at = close;
  }
  return found;
}

/* A new directory (directory) with six cities on a 20 x 10 rectangle,
 * whose shortest tour is 60, in six.tsp (tsp), under a NAME with .tsp and
 * XML's special characters. Returns the NAME. */
static const char *six_cities(char *directory, size_t directory_size, char *tsp,
                              size_t tsp_size) {
  make_directory(directory, directory_size);
  test_write_text(directory, "six.tsp",
                  "NAME : A&B <\"six\"> 'x'.tsp\nTYPE : TSP\nDIMENSION : 6\n"
                  "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n"
                  "1 0 0\n2 10 0\n3 20 0\n4 20 10\n5 10 10\n6 0 10\nEOF\n",
                  tsp, tsp_size);
  return "A&B <\"six\"> 'x'.tsp";
}

/* The workload's optima lookup: NAME without .tsp found, a malformed line
 * of another instance's logged as a warning, an unlisted instance warned
 * of, or refused with --target-gap, naming the file and the names. */
static void optima_lookup(const ck_device *ref) {
  const ck_workload *aco;
  CHECK_OK(ck_workload_find("aco", &aco));
  char directory[1024], tsp[1100], optima[1100], other[1100];
  const char *name = six_cities(directory, sizeof directory, tsp, sizeof tsp);
  test_write_text(directory, "optima.txt",
                  "pla : 18660188 (CEIL_2D)\nA&B <\"six\"> 'x' : 50\n", optima,
                  sizeof optima);
  test_write_text(directory, "other.txt", "z : 1\n", other, sizeof other);
  const char *names = "\"A&B <?six?> 'x'.tsp\", \"A&B <?six?> 'x'\" and "
                      "\"six\"";

  for (int known = 1; known >= 0; --known) {
    const ck_param params[] = {{"instance", tsp},
                               {"iters", "2"},
                               {"candidates", "3"},
                               {"optima", known ? optima : other}};
    log_lines lines = {0, ""};
    ck_run_options options = {.seed = 1, .log = keep_line, .log_user = &lines};
    ck_result result = {0};
    ck_status status =
        test_workload_run(aco, ref, params, 4, &options, &result);
    const char *message = "";
    ck_error_get_last(&message);
    CHECK_MSG(status == CK_OK, "optima: status %d, '%s'", (int)status, message);
    /* One warning: the malformed line, or the names not listed. */
    char expected[1400];
    if (known)
      snprintf(expected, sizeof expected,
               "warning: %s:1: the optimum of pla, \"18660188 (CEIL_2D)\", is "
               "not a whole number >= 1; the line is skipped\n",
               optima);
    else
      snprintf(expected, sizeof expected,
               "warning: %s lists none of %s; no gap is reported\n", other,
               names);
    CHECK_MSG(lines.count == 1 && strcmp(lines.text, expected) == 0,
              "optima: %d lines logged: '%s', expected '%s'", lines.count,
              lines.text, expected);
    double optimum = 0;
    CHECK(ck_result_get_metric(&result, "optimum", &optimum) ==
          (known ? CK_OK : CK_ERROR_NOT_FOUND));
    CHECK(optimum == (known ? 50 : 0));
    ck_result_release(&result);
  }

  const ck_param target[] = {
      {"instance", tsp}, {"target-gap", "1"}, {"optima", other}};
  ck_run_options options = {.seed = 1};
  ck_result result = {0};
  ck_status status = test_workload_run(aco, ref, target, 3, &options, &result);
  const char *message = "";
  ck_error_get_last(&message);
  char expected[1400];
  snprintf(expected, sizeof expected,
           "option --target-gap: the optimum of %s is unknown: %s lists none "
           "of %s; give --optimum or an --optima file that lists it",
           name, other, names);
  CHECK_MSG(status == CK_ERROR_INVALID_ARGUMENT &&
                strcmp(message, expected) == 0,
            "target gap, not listed: status %d, '%s'", (int)status, message);
  ck_result_release(&result);
  remove_tree(directory);
}

/* The SVG's text: the name (escaped for XML), the length and, when the
 * optimum is known, the gap. */
static void svg_text(const ck_device *ref) {
  const ck_workload *aco;
  CHECK_OK(ck_workload_find("aco", &aco));
  char directory[1024], tsp[1100], svg[1100];
  const char *name = six_cities(directory, sizeof directory, tsp, sizeof tsp);
  snprintf(svg, sizeof svg, "%s/tour.svg", directory);
  for (int known = 1; known >= 0; --known) {
    const ck_param params[] = {{"instance", tsp},
                               {"iters", "2"},
                               {"candidates", "3"},
                               {"svg", svg},
                               {"optimum", "50"}};
    ck_run_options options = {.seed = 1};
    ck_result result = {0};
    ck_status status =
        test_workload_run(aco, ref, params, 4 + known, &options, &result);
    CHECK_OK(status);
    double gap = 0;
    if (known)
      CHECK_OK(ck_result_get_metric(&result, "gap_percent", &gap));
    char *text = test_read_file(svg, NULL);
    char texts[4][256];
    int count = text ? svg_texts(text, texts, 4) : 0;
    char length[64], gap_text[64];
    snprintf(length, sizeof length, "length %.0f", result.best);
    snprintf(gap_text, sizeof gap_text, "gap %.2f%% (optimum 50)", gap);
    CHECK_MSG(
        status == CK_OK && result.best >= 60 && count == 2 + known &&
            strcmp(texts[0], name) == 0 && strcmp(texts[1], length) == 0 &&
            (!known || strcmp(texts[2], gap_text) == 0),
        "svg: %d texts: '%s', '%s', '%s'", count, count > 0 ? texts[0] : "",
        count > 1 ? texts[1] : "", count > 2 ? texts[2] : "");
    /* The name is escaped where it is markup: no raw '<' of it. */
    CHECK(text && !strstr(text, "<\"six"));
    free(text);
    ck_result_release(&result);
  }
  remove_tree(directory);
}

/* ---- a colony spread over devices ---------------------------------------
 */

/* A fixed run of case c (seed 3) on a spread. */
static void spread_fixed(const ck_spread *spread, const ck_tsp_instance *tsp,
                         const fixed_case *c, fixed_result *out) {
  memset(out, 0, sizeof *out);
  ck_aco_config config;
  fixed_config(c, 3, 1.0, &config);
  ck_aco *aco = NULL;
  CHECK_OK(ck_aco_create_spread(spread, tsp, &config, &aco));
  collect_fixed(aco, tsp, out);
}

/* The cases a spread must repeat bit for bit: MMAS and ACS with and
 * without local search (ACS sums the members' edge counts), local search
 * on the best 4 tours over all members with partitioning, and the
 * focused method (ACS's on the best 4 tours, partitioned). */
static const size_t spread_cases[] = {0, 1, 2, 3, 4, 9, 10};

/* One member on ref, and ref with another device at shares 1 and 3 (ref
 * twice without one). */
typedef struct spreads {
  ck_device pair[2];
  double shares[2];
  ck_spread one, two;
} spreads;

static void make_spreads(spreads *s, const ck_device *ref,
                         const ck_device *other) {
  s->pair[0] = *ref;
  s->pair[1] = other ? *other : *ref;
  s->shares[0] = 1;
  s->shares[1] = 3;
  s->one = (ck_spread){.devices = ref, .device_count = 1};
  s->two = (ck_spread){.devices = s->pair,
                       .device_count = 2,
                       .shares = s->shares,
                       .share_count = 2};
}

/*
 * One member is the one-device run, bit for bit; so is ref with another
 * device at shares 1 and 3, where the two agree alone (agreement() checks
 * that they do), and the workload reports each member's ants.
 */
static void spread_colony(const ck_device *ref, const ck_device *other) {
  printf("spread colony%s%s\n", other ? " with " : "", other ? other->id : "");
  ck_tsp_instance tsp;
  if (!load("kroA100", &tsp))
    return;
  static fixed_result alone, spread;
  spreads both;
  make_spreads(&both, ref, other);
  for (size_t k = 0; k < sizeof spread_cases / sizeof *spread_cases; ++k) {
    const fixed_case *c = &fixed_cases[spread_cases[k]];
    run_fixed(ref, &tsp, c, 3, &alone);
    spread_fixed(&both.one, &tsp, c, &spread);
    CHECK_MSG(same_run(&alone, &spread), "%s, one member: %lld, alone %lld",
              c->what, (long long)spread.report.best_length,
              (long long)alone.report.best_length);
    if (!other)
      continue;
    spread_fixed(&both.two, &tsp, c, &spread);
    CHECK_MSG(same_run(&alone, &spread),
              "%s on ref and %s: %lld at %llu, ref alone %lld at %llu", c->what,
              other->id, (long long)spread.report.best_length,
              (unsigned long long)spread.report.best_iteration,
              (long long)alone.report.best_length,
              (unsigned long long)alone.report.best_iteration);
    CHECK(spread.report.ants == 16 && spread.report.tours == 16 * 30);
  }
  if (other) {
    const ck_workload *workload = NULL;
    CHECK_OK(ck_workload_find("aco", &workload));
    char path[1024];
    snprintf(path, sizeof path, "%s/tsplib/kroA100.tsp", data_dir);
    const ck_param params[] = {
        {"instance", path}, {"ants", "17"}, {"iters", "5"}};
    ck_run_options options = {.seed = 2, .spread = &both.two};
    ck_result result;
    ck_status run_status =
        ck_workload_run(workload, ref, params, 3, &options, &result);
    CHECK_OK(run_status);
    if (run_status == CK_OK) {
      CHECK_MSG(result.member_count == 2 && result.members &&
                    result.members[0].units + result.members[1].units == 17 &&
                    result.members[1].units > 2 * result.members[0].units &&
                    strcmp(result.members[1].device, other->id) == 0 &&
                    strcmp(result.member_units, "ants") == 0,
                "members %zu", result.member_count);
      ck_result_release(&result);
    }
  }
  ck_tsp_free(&tsp);
}

/*
 * The focused method from its start on 600 cities (greedy tours searched
 * in segments, then whole, on the member that holds ant 0), with a fixed
 * bound and an adaptive one (adapted over all members' ants), MMAS and
 * ACS on the best 5 tours: one member is the one-device run, bit for
 * bit, and so is ref with another device at shares 1 and 3.
 */
static void spread_focused(const ck_device *ref, const ck_device *other) {
  printf("spread focused%s%s\n", other ? " with " : "", other ? other->id : "");
  ck_tsp_instance tsp;
  if (!make_instance(&tsp, 600, UNIFORM, 13))
    return;
  static fixed_result alone, spread;
  spreads both;
  make_spreads(&both, ref, other);
  for (int c = 0; c < 3; ++c) {
    ck_aco_config config;
    ck_aco_config_init(&config);
    config.method = CK_ACO_FOCUSED;
    config.ants = 16;
    config.max_iterations = 8;
    config.seed = 2;
    config.keep_trace = 1;
    config.focus_edges = c == 0 ? 6 : 0;
    if (c == 2) {
      config.algorithm = CK_ACO_ACS;
      config.local_search_ants = 5;
    }
    memset(&alone, 0, sizeof alone);
    collect_fixed(create(ref, &tsp, &config), &tsp, &alone);
    CHECK(alone.report.method == CK_ACO_FOCUSED);
    for (int members = 1; members <= (other ? 2 : 1); ++members) {
      ck_aco *aco = NULL;
      memset(&spread, 0, sizeof spread);
      CHECK_OK(ck_aco_create_spread(members == 1 ? &both.one : &both.two, &tsp,
                                    &config, &aco));
      collect_fixed(aco, &tsp, &spread);
      CHECK_MSG(same_run(&alone, &spread) &&
                    spread.report.method == CK_ACO_FOCUSED,
                "focused case %d on %d members: %lld at %llu (bound %u), "
                "alone %lld at %llu (bound %u)",
                c, members, (long long)spread.report.best_length,
                (unsigned long long)spread.report.best_iteration, spread.bound,
                (long long)alone.report.best_length,
                (unsigned long long)alone.report.best_iteration, alone.bound);
    }
  }
  ck_tsp_free(&tsp);
}

/*
 * Colonies, classic and focused: one member is the one-device run; two
 * run and report, and every spread_colonies iterations the member with
 * fewer ants holds the best tour of all, its own or adopted.
 */
static void spread_colonies(const ck_device *ref, const ck_device *other) {
  printf("spread colonies%s%s\n", other ? " with " : "",
         other ? other->id : "");
  ck_tsp_instance tsp;
  if (!load("kroA100", &tsp))
    return;
  static fixed_result alone, spread;
  spreads both;
  make_spreads(&both, ref, other);
  /* MMAS without local search, and focused. */
  static const size_t cases[] = {2, 9};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; ++k) {
    const fixed_case *c = &fixed_cases[cases[k]];
    run_fixed(ref, &tsp, c, 3, &alone);
    ck_aco_config config;
    fixed_config(c, 3, 1.0, &config);
    config.spread_colonies = 4;
    ck_aco *aco = NULL;
    CHECK_OK(ck_aco_create_spread(&both.one, &tsp, &config, &aco));
    collect_fixed(aco, &tsp, &spread);
    CHECK_MSG(same_run(&alone, &spread),
              "%s colonies, one member: %lld, alone %lld", c->what,
              (long long)spread.report.best_length,
              (long long)alone.report.best_length);
    if (!other)
      continue;
    aco = NULL;
    CHECK_OK(ck_aco_create_spread(&both.two, &tsp, &config, &aco));
    int shared = aco != NULL;
    for (int round = 0; aco && round < 6; ++round) {
      CHECK_OK(ck_aco_step(aco, 4));
      int64_t best = 0;
      CHECK_OK(ck_aco_get_best(aco, &best, NULL));
      const ck_aco *member = ck__aco_spread_member(ck__aco_spread_of(aco));
      shared = shared && ck__aco_best_length(member) == best;
    }
    CHECK_MSG(shared, "%s colonies: the member of 4 ants missed the best tour",
              c->what);
    ck_aco_destroy(aco);
    aco = NULL;
    CHECK_OK(ck_aco_create_spread(&both.two, &tsp, &config, &aco));
    spread.ok = 0;
    collect_fixed(aco, &tsp, &spread);
    CHECK(spread.ok && spread.report.iterations == 30 &&
          spread.report.ants == 16 && spread.trace_count > 0 &&
          spread.report.method == c->method);
  }
  ck_tsp_free(&tsp);
}

/* A spread's stopping rules are one device's: the target at the same
 * iteration; the clock, agreed by the members. What cannot be dealt or
 * given is refused, naming it. */
static void spread_rules(const ck_device *ref, const ck_device *other) {
  printf("spread rules\n");
  ck_tsp_instance tsp;
  if (!load("kroA100", &tsp))
    return;
  ck_spread one = {.devices = ref, .device_count = 1};
  ck_aco_config config;
  ck_aco_config_init(&config);
  config.ants = 8;
  config.max_iterations = 0;
  config.optimum = 21282;
  config.has_target = 1;
  config.target_gap = 2;
  ck_aco_report alone, report;
  ck_aco *aco = NULL;
  if (run(ref, &tsp, &config, &alone, NULL)) {
    CHECK_OK(ck_aco_create_spread(&one, &tsp, &config, &aco));
    if (aco) {
      CHECK_OK(ck_aco_run(aco, &report));
      CHECK(report.stopped_by == CK_STOP_TARGET &&
            report.iterations == alone.iterations &&
            report.best_length == alone.best_length);
    }
    ck_aco_destroy(aco);
  }
  config.has_target = 0;
  config.max_seconds = 0.05;
  aco = NULL;
  CHECK_OK(ck_aco_create_spread(&one, &tsp, &config, &aco));
  if (aco) {
    CHECK_OK(ck_aco_run(aco, &report));
    CHECK_MSG(report.stopped_by == CK_STOP_TIME && report.wall_s >= 0.05 &&
                  report.wall_s < 5,
              "stopped by %d after %.3f s", (int)report.stopped_by,
              report.wall_s);
  }
  ck_aco_destroy(aco);
  aco = NULL;
  config.max_seconds = 0;
  config.max_iterations = 2;
  ck_device twice[2] = {*ref, *ref};
  ck_spread doubled = {.devices = twice, .device_count = 2};
  CHECK_INVALID(ck_aco_create_spread(&doubled, &tsp, &config, &aco),
                "given twice");
  const double three[3] = {1, 1, 1};
  ck_spread mismatched = {
      .devices = ref, .device_count = 1, .shares = three, .share_count = 3};
  CHECK_INVALID(ck_aco_create_spread(&mismatched, &tsp, &config, &aco),
                "3 shares for 1 members");
  CHECK_INVALID(ck_aco_create_spread(NULL, &tsp, &config, &aco), "spread");
  /* A member alone copies any source, as a colony on one device does;
   * several copy the best tour. */
  config.focus_source = CK_ACO_SOURCE_OWN;
  CHECK_OK(ck_aco_create_spread(&one, &tsp, &config, &aco));
  ck_aco_destroy(aco);
  aco = NULL;
  if (other) {
    ck_device pair[2] = {*ref, *other};
    ck_spread two = {.devices = pair, .device_count = 2};
    CHECK_INVALID(ck_aco_create_spread(&two, &tsp, &config, &aco),
                  "ck_aco_config.focus_source");
  }
  config.focus_source = CK_ACO_SOURCE_BEST;
  tsp.cities = 3;
  CHECK_INVALID(ck_aco_create_spread(&one, &tsp, &config, &aco),
                "ck_aco_create_spread: instance");
  tsp.cities = 100;
  if (other) {
    ck_device pair[2] = {*ref, *other};
    ck_spread two = {.devices = pair, .device_count = 2};
    config.ants = 1;
    CHECK_INVALID(ck_aco_create_spread(&two, &tsp, &config, &aco),
                  "1 ants cannot be dealt to 2 devices");
  }
  CHECK(aco == NULL);
  /* The colonies' option needs a spread. */
  const ck_workload *workload = NULL;
  CHECK_OK(ck_workload_find("aco", &workload));
  const ck_param params[] = {{"instance", "random:20"},
                             {"spread-colonies", "3"}};
  ck_run_options options = {.seed = 1};
  ck_result result;
  CHECK_INVALID(ck_workload_run(workload, ref, params, 2, &options, &result),
                "--spread-colonies applies only with --spread");
  ck_tsp_free(&tsp);
}

/* ---- the focused method ---------------------------------------------------
 */

/* Edges of tour that `source` lacks (n cities each). */
static uint32_t edges_not_in(const uint32_t *tour, const uint32_t *source,
                             uint32_t n) {
  uint32_t *at = malloc(n * sizeof *at), count = 0;
  if (!at)
    return n + 1;
  set_positions(source, at, n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t a = tour[i], b = tour[(i + 1) % n], p = at[a];
    count += source[(p + 1) % n] != b && source[(p + n - 1) % n] != b;
  }
  free(at);
  return count;
}

/*
 * ck_aco_construct_focused from random source tours, by matrix and by
 * coordinates: a permutation with matching positions, its length exact,
 * its count of new edges right and within the bound; bound 0 leaves the
 * source as it is, and from 3 (one splice) every tour changes.
 */
static void focused_construct_tests(void) {
  static const uint32_t sizes[] = {8, 12, 40, 150};
  static const uint32_t bounds[] = {0, 1, 3, 8, 30, 1000};
  static const float q0s[] = {0.0f, 0.9f};
  uint32_t unchanged = 0, wide = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
    uint32_t n = sizes[s], k = n - 1 < 10 ? n - 1 : 10;
    graph g;
    float *choice = malloc((size_t)n * k * sizeof *choice);
    uint32_t *source = malloc(n * sizeof *source);
    uint32_t *source_pos = malloc(n * sizeof *source_pos);
    uint32_t *tour[2] = {malloc(n * sizeof(uint32_t)),
                         malloc(n * sizeof(uint32_t))};
    uint32_t *pos = malloc(n * sizeof *pos);
    ck_u8 *visited = malloc(n);
    if (!make_graph(&g, n, k, UNIFORM, 31u * n) || !choice || !source ||
        !source_pos || !tour[0] || !tour[1] || !pos || !visited)
      goto next;
    uint64_t state = 7u * n;
    for (size_t e = 0; e < (size_t)n * k; ++e)
      choice[e] = (float)((next_random(&state) >> 40) + 1) / 16777216.0f;
    random_tour(&state, source, n);
    set_positions(source, source_pos, n);
    int64_t source_length = exact_length(&g, source);
    for (size_t b = 0; b < sizeof bounds / sizeof *bounds; ++b)
      for (size_t q = 0; q < sizeof q0s / sizeof *q0s; ++q)
        for (uint32_t ant = 0; ant < 4; ++ant) {
          int64_t length[2];
          uint32_t fresh[2];
          for (int m = 0; m < 2; ++m) {
            for (uint32_t i = 0; i < n; ++i)
              ck_aco_focus_copy(source, tour[m], pos, visited, i);
            length[m] = ck_aco_construct_focused(
                GRAPH_OF(&g, m), k, g.neighbours, choice, q0s[q], 5, 3, ant,
                source, source_pos, source_length, bounds[b], tour[m], pos,
                visited, &fresh[m]);
            CHECK_MSG(
                is_permutation(tour[m], n) && positions_match(tour[m], pos, n),
                "focused n %u bound %u ant %u: not a tour", n, bounds[b], ant);
            CHECK_MSG(length[m] == exact_length(&g, tour[m]),
                      "focused n %u bound %u ant %u: length %lld, exact %lld",
                      n, bounds[b], ant, (long long)length[m],
                      (long long)exact_length(&g, tour[m]));
            CHECK_MSG(fresh[m] == edges_not_in(tour[m], source, n) &&
                          fresh[m] <= bounds[b],
                      "focused n %u bound %u ant %u: %u new edges reported, "
                      "%u counted",
                      n, bounds[b], ant, fresh[m],
                      edges_not_in(tour[m], source, n));
          }
          CHECK_MSG(length[0] == length[1] &&
                        memcmp(tour[0], tour[1], n * sizeof(uint32_t)) == 0,
                    "focused n %u bound %u ant %u: matrix and coordinates "
                    "differ",
                    n, bounds[b], ant);
          if (bounds[b] == 0)
            CHECK(length[0] == source_length &&
                  memcmp(tour[0], source, n * sizeof *source) == 0);
          unchanged += bounds[b] >= 3 && fresh[0] == 0;
          wide += bounds[b] == 1000 && fresh[0] > 8;
        }
  next:
    free_graph(&g);
    free(choice);
    free(source);
    free(source_pos);
    free(tour[0]);
    free(tour[1]);
    free(pos);
    free(visited);
  }
  CHECK_MSG(unchanged == 0,
            "%u focused tours with room to change kept the "
            "source",
            unchanged);
  CHECK_MSG(wide > 0, "no focused tour made more than 8 new edges");
}

/* n cities on a circle, numbered in their order around it. */
static int make_circle(graph *g, uint32_t n, uint32_t k) {
  memset(g, 0, sizeof *g);
  char text[2048];
  size_t used = (size_t)snprintf(text, sizeof text,
                                 "NAME : circle%u\nTYPE : TSP\nDIMENSION : "
                                 "%u\nEDGE_WEIGHT_TYPE : EUC_2D\n"
                                 "NODE_COORD_SECTION\n",
                                 n, n);
  for (uint32_t i = 0; i < n; ++i)
    used +=
        (size_t)snprintf(text + used, sizeof text - used, "%u %.4f %.4f\n",
                         i + 1, 1000 + 1000 * cos(6.283185307179586 * i / n),
                         1000 + 1000 * sin(6.283185307179586 * i / n));
  used += (size_t)snprintf(text + used, sizeof text - used, "EOF\n");
  CHECK_OK(ck_tsp_parse(text, used, "circle", &g->tsp));
  return g->tsp.cities == n && complete_graph(g, k);
}

/* Runs ck_aco_improve_queue from the cities marked in dirty (every one
 * when dirty is NULL); returns its gain. */
static int64_t improve_dirty(const graph *g, int by_coordinates, int or_opt,
                             uint32_t *tour, const ck_u8 *dirty) {
  uint32_t n = g->n, count = 0;
  uint32_t *pos = malloc(n * sizeof *pos), *queue = malloc(n * sizeof *queue);
  ck_u8 *flags = malloc(n);
  int64_t gain = -1;
  if (!pos || !queue || !flags)
    goto done;
  set_positions(tour, pos, n);
  for (uint32_t c = 0; c < n; ++c) {
    flags[c] = dirty && !dirty[c];
    if (!flags[c])
      queue[count++] = c;
  }
  gain = ck_aco_improve_queue(GRAPH_OF(g, by_coordinates), g->k, g->neighbours,
                              n, or_opt, tour, pos, flags, queue, count);
  CHECK(positions_match(tour, pos, n));
  uint32_t clear = 0;
  for (uint32_t c = 0; c < n; ++c)
    clear += flags[c] != 1;
  CHECK_MSG(clear == 0, "%u of %u don't-look bits left clear", clear, n);
done:
  free(pos);
  free(queue);
  free(flags);
  return gain;
}

/*
 * ck_aco_improve_queue: a local optimum of its moves stays as it is; from
 * random tours and random dirty cities its gain is the length it took
 * off, the same by matrix and by coordinates; and a crossing put into a
 * circle's tour is taken out from the crossing's four cities alone.
 */
static void improve_queue_tests(void) {
  for (uint32_t n = 8; n <= 12; ++n)
    for (int narrow = 0; narrow < 2; ++narrow)
      for (int or_opt = 0; or_opt < 2; ++or_opt) {
        uint32_t k = narrow ? 5 : n - 1;
        graph g;
        uint32_t *tour = malloc(n * sizeof *tour), *pos = malloc(n * 4);
        uint32_t *kept = malloc(n * sizeof *kept);
        ck_u8 *flags = malloc(n);
        uint64_t state = 101u * n + k;
        if (make_graph(&g, n, k, UNIFORM, state) && tour && pos && kept &&
            flags) {
          random_tour(&state, tour, n);
          ck_aco_improve(GRAPH_OF(&g, 0), k, g.neighbours, or_opt, tour, pos,
                         flags, exact_length(&g, tour));
          CHECK(moves_left(&g, tour, or_opt) == 0);
          memcpy(kept, tour, n * sizeof *tour);
          int64_t gain = improve_dirty(&g, 0, or_opt, tour, NULL);
          CHECK_MSG(gain == 0 && memcmp(kept, tour, n * sizeof *tour) == 0,
                    "n %u k %u or-opt %d: a local optimum changed (gain "
                    "%lld)",
                    n, k, or_opt, (long long)gain);
        }
        free_graph(&g);
        free(tour);
        free(pos);
        free(kept);
        free(flags);
      }

  static const uint32_t sizes[] = {8, 12, 40, 200};
  uint32_t gained = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s)
    for (int or_opt = 0; or_opt < 2; ++or_opt) {
      uint32_t n = sizes[s];
      graph g;
      uint32_t *tour[2] = {malloc(n * sizeof(uint32_t)),
                           malloc(n * sizeof(uint32_t))};
      ck_u8 *dirty = malloc(n);
      uint64_t state = 977u * n + (uint64_t)or_opt;
      if (make_graph(&g, n, n - 1 < 8 ? n - 1 : 8, UNIFORM, state) && tour[0] &&
          tour[1] && dirty) {
        random_tour(&state, tour[0], n);
        memcpy(tour[1], tour[0], n * sizeof(uint32_t));
        for (uint32_t c = 0; c < n; ++c)
          dirty[c] = below(&state, 3) == 0;
        int64_t before = exact_length(&g, tour[0]), gain[2];
        for (int m = 0; m < 2; ++m) {
          gain[m] = improve_dirty(&g, m, or_opt, tour[m], dirty);
          CHECK_MSG(is_permutation(tour[m], n) && gain[m] >= 0 &&
                        exact_length(&g, tour[m]) == before - gain[m],
                    "n %u or-opt %d: gain %lld, from %lld to %lld", n, or_opt,
                    (long long)gain[m], (long long)before,
                    (long long)exact_length(&g, tour[m]));
        }
        CHECK(gain[0] == gain[1] &&
              memcmp(tour[0], tour[1], n * sizeof(uint32_t)) == 0);
        gained += gain[0] > 0;
      }
      free_graph(&g);
      free(tour[0]);
      free(tour[1]);
      free(dirty);
    }
  CHECK_MSG(gained == 2 * sizeof sizes / sizeof *sizes,
            "%u of %zu random tours improved", gained,
            2 * sizeof sizes / sizeof *sizes);

  uint32_t crossings = 0;
  for (uint32_t n = 8; n <= 12; ++n)
    for (int narrow = 0; narrow < 2; ++narrow) {
      graph g;
      uint32_t *circle = malloc(n * sizeof *circle);
      uint32_t *tour = malloc(n * sizeof *tour), *pos = malloc(n * 4);
      ck_u8 *dirty = malloc(n);
      if (!make_circle(&g, n, narrow ? 4 : n - 1) || !circle || !tour || !pos ||
          !dirty)
        goto circle_next;
      for (uint32_t i = 0; i < n; ++i)
        circle[i] = i;
      int64_t shortest = exact_length(&g, circle);
      for (uint32_t i = 0; i < n; ++i)
        for (uint32_t span = 2; span + 2 <= n; ++span) {
          /* Reversing positions i + 1 .. j crosses (i, j) and (i + 1,
           * j + 1). */
          uint32_t j = (i + span) % n;
          memcpy(tour, circle, n * sizeof *tour);
          set_positions(tour, pos, n);
          ck_aco_reverse(n, tour, pos, (i + 1) % n, j);
          int64_t crossed = exact_length(&g, tour);
          memset(dirty, 0, n);
          dirty[i] = dirty[(i + 1) % n] = dirty[j] = dirty[(j + 1) % n] = 1;
          int64_t gain = improve_dirty(&g, 0, 0, tour, dirty);
          CHECK_MSG(crossed > shortest && gain == crossed - shortest &&
                        same_cycle(tour, circle, n),
                    "circle of %u, k %u, positions %u..%u reversed: %lld, "
                    "gain %lld, shortest %lld",
                    n, g.k, (i + 1) % n, j, (long long)crossed, (long long)gain,
                    (long long)shortest);
          ++crossings;
        }
    circle_next:
      free_graph(&g);
      free(circle);
      free(tour);
      free(pos);
      free(dirty);
    }
  CHECK(crossings > 0);
}

/* The adaptive bound: a quarter more when more than a fifth of the ants
 * improve, a fifth less otherwise, within 3 .. n. */
static void focus_bound_tests(void) {
  CHECK(ck_aco_focus_bound(8, 4, 16, 100) == 10);
  CHECK(ck_aco_focus_bound(8, 3, 16, 100) == 6);
  CHECK(ck_aco_focus_bound(8, 0, 16, 100) == 6);
  CHECK(ck_aco_focus_bound(3, 0, 16, 100) == 3);
  CHECK(ck_aco_focus_bound(4, 0, 16, 100) == 3);
  CHECK(ck_aco_focus_bound(96, 16, 16, 100) == 100);
  CHECK(ck_aco_focus_bound(CK_ACO_FOCUS_FIRST, 1, 1, 5) == 5);
}

/*
 * --method focused on ref: the first iteration builds from scratch, the
 * next ones change the best tour and improve on it; two runs with one
 * seed are the same; a fixed bound stays; auto chooses by size, on a
 * spread as on one device.
 */
static void focused_runs(const ck_device *ref) {
  ck_tsp_instance tsp;
  if (!load("st70", &tsp))
    return;
  int64_t lengths[2] = {0, 0};
  uint32_t *tours[2] = {malloc(tsp.cities * sizeof(uint32_t)),
                        malloc(tsp.cities * sizeof(uint32_t))};
  ck_aco_config c;
  ck_aco_config_init(&c);
  c.method = CK_ACO_FOCUSED;
  c.ants = 8;
  c.seed = 11;
  for (int t = 0; t < 3 && tours[0] && tours[1]; ++t) {
    c.focus_edges = t == 2 ? 5 : 0;
    ck_aco *aco = create(ref, &tsp, &c);
    if (!aco)
      break;
    aco_state *state = ck__aco_state(aco);
    CHECK_OK(ck_aco_step(aco, 1));
    int64_t first = checked_best(aco, &tsp, NULL);
    CHECK(!state->focused);
    CHECK_OK(ck_aco_step(aco, 40));
    int64_t last = checked_best(aco, &tsp, t < 2 ? tours[t] : NULL);
    CHECK_MSG(state->focused && last < first,
              "focused run %d: %lld after the first iteration, %lld after 41",
              t, (long long)first, (long long)last);
    CHECK_MSG(t == 2 ? state->focus_bound == 5
                     : state->focus_bound >= CK_ACO_FOCUS_FEWEST &&
                           state->focus_bound <= tsp.cities,
              "focused run %d: bound %u", t, state->focus_bound);
    if (t < 2)
      lengths[t] = last;
    ck_aco_destroy(aco);
  }
  CHECK_MSG(lengths[0] == lengths[1] && tours[0] && tours[1] &&
                memcmp(tours[0], tours[1], tsp.cities * sizeof(uint32_t)) == 0,
            "focused runs with one seed: %lld and %lld", (long long)lengths[0],
            (long long)lengths[1]);

  /* auto: focused from a size that depends on the device; asked
   * methods stay as asked. */
  ck_device gpu = *ref;
  gpu.kind = CK_KIND_GPU;
  gpu.backend = CK_BACKEND_OPENCL;
  CHECK(ck__aco_method_for(ref, CK_ACO_FOCUS_FROM_CPU - 1,
                           CK_ACO_METHOD_AUTO) == CK_ACO_CLASSIC);
  CHECK(ck__aco_method_for(ref, CK_ACO_FOCUS_FROM_CPU, CK_ACO_METHOD_AUTO) ==
        CK_ACO_FOCUSED);
  CHECK(ck__aco_method_for(&gpu, CK_ACO_FOCUS_FROM_GPU - 1,
                           CK_ACO_METHOD_AUTO) == CK_ACO_CLASSIC);
  CHECK(ck__aco_method_for(&gpu, CK_ACO_FOCUS_FROM_GPU, CK_ACO_METHOD_AUTO) ==
        CK_ACO_FOCUSED);
  CHECK(ck__aco_method_for(&gpu, 10, CK_ACO_FOCUSED) == CK_ACO_FOCUSED);
  CHECK(ck__aco_method_for(ref, 100000, CK_ACO_CLASSIC) == CK_ACO_CLASSIC);
  /* A CPU of CK_ACO_WIDE_CPU_UNITS compute units counts as wide; one
   * unit fewer does not. */
  ck_device cpu = *ref;
  cpu.kind = CK_KIND_CPU;
  cpu.backend = CK_BACKEND_OPENCL;
  cpu.compute_units = CK_ACO_WIDE_CPU_UNITS;
  CHECK(ck__aco_method_for(&cpu, CK_ACO_FOCUS_FROM_GPU - 1,
                           CK_ACO_METHOD_AUTO) == CK_ACO_CLASSIC);
  CHECK(ck__aco_method_for(&cpu, CK_ACO_FOCUS_FROM_GPU, CK_ACO_METHOD_AUTO) ==
        CK_ACO_FOCUSED);
  cpu.compute_units = CK_ACO_WIDE_CPU_UNITS - 1;
  CHECK(ck__aco_method_for(&cpu, CK_ACO_FOCUS_FROM_CPU, CK_ACO_METHOD_AUTO) ==
        CK_ACO_FOCUSED);
  /* On a GPU, focused ants are at least 4 sqrt(n) to the nearest 64. */
  CHECK(ck__aco_automatic_ants(&gpu, 15112, 1, CK_ACO_SOURCE_BEST) >= 512);
  CHECK(ck__aco_automatic_ants(ref, 15112, 1, CK_ACO_SOURCE_BEST) == 16);
  /* Fewer where 512 MB of per-ant arrays bind: 9 bytes a city, 13
   * focused (the queue), 21 with their own sources (tour and positions). */
  gpu.compute_units = 132;
  /* Four a compute unit classic, two focused, to a multiple of 32. */
  CHECK(ck__aco_automatic_ants(&gpu, 2392, 0, CK_ACO_SOURCE_BEST) == 512);
  CHECK(ck__aco_automatic_ants(&gpu, 2392, 1, CK_ACO_SOURCE_BEST) == 256);
  CHECK(ck__aco_automatic_ants(&gpu, 1000000, 0, CK_ACO_SOURCE_OWN) == 59);
  CHECK(ck__aco_automatic_ants(&gpu, 1000000, 1, CK_ACO_SOURCE_BEST) == 41);
  CHECK(ck__aco_automatic_ants(&gpu, 1000000, 1, CK_ACO_SOURCE_ITERATION) ==
        41);
  CHECK(ck__aco_automatic_ants(&gpu, 1000000, 1, CK_ACO_SOURCE_OWN) == 25);

  /* auto on a spread chooses as one device does: focused from
   * CK_ACO_FOCUS_FROM_CPU cities on ref, classic below. */
  ck_aco *made = NULL;
  ck_spread one = {.devices = ref, .device_count = 1};
  for (uint32_t less = 0; less < 2; ++less) {
    ck_tsp_instance large;
    if (!make_instance(&large, CK_ACO_FOCUS_FROM_CPU - less, UNIFORM, 5))
      continue;
    ck_aco_config automatic;
    ck_aco_config_init(&automatic);
    automatic.ants = 4;
    int expected = less ? CK_ACO_CLASSIC : CK_ACO_FOCUSED;
    CHECK_OK(ck_aco_create_spread(&one, &large, &automatic, &made));
    if (made) {
      CHECK(ck__aco_state(made)->method == expected);
      ck_aco_destroy(made);
      made = NULL;
    }
    CHECK_OK(ck_aco_create(ref, &large, &automatic, &made));
    if (made) {
      CHECK(ck__aco_state(made)->method == expected);
      ck_aco_destroy(made);
      made = NULL;
    }
    ck_tsp_free(&large);
  }
  free(tours[0]);
  free(tours[1]);
  ck_tsp_free(&tsp);
}

/* ---- the focused method by a work-group an ant --------------------------
 */

/* The steps that run a device's construction and local search. */
static const ck__aco_steps *steps_on(const ck_device *device) {
  return device->backend == CK_BACKEND_REF ? &ck__aco_ref_steps
                                           : &ck__aco_opencl_steps;
}

/* Every ant's tour (n entries each) and length, read from a colony. */
static int read_ants(ck_aco *aco, uint32_t *tours, int64_t *lengths) {
  aco_state *state = ck__aco_state(aco);
  size_t ants = state->ants, n = state->n;
  ck_status status =
      ck_buffer_read(state->queue, state->tours, 0, ants * n * sizeof *tours,
                     tours, CK_BLOCKING, NULL);
  if (status == CK_OK)
    status = ck_buffer_read(state->queue, state->lengths, 0,
                            ants * sizeof *lengths, lengths, CK_BLOCKING, NULL);
  CHECK_OK(status);
  return status == CK_OK;
}

/* A colony's ants after the construction and after the local search of
 * one focused iteration; the tour each ant's walk copied, and the bound
 * on the edges it may add. */
typedef struct focused_ants {
  uint32_t *tours[2];
  int64_t *lengths[2];
  uint32_t *sources; /* n an ant */
  uint32_t bound;
} focused_ants;

/* Runs `warmup` iterations of a colony, then one by its steps, keeping
 * every ant's tour and length after construction and after local search.
 * Returns whether it ran. */
static int focused_iteration(const ck_device *device,
                             const ck_tsp_instance *tsp,
                             const ck_aco_config *config, uint64_t warmup,
                             focused_ants *out) {
  ck_aco *aco = create(device, tsp, config);
  if (!aco)
    return 0;
  aco_state *state = ck__aco_state(aco);
  const ck__aco_steps *steps = steps_on(device);
  int ok = 0;
  CHECK_OK(ck_aco_step(aco, warmup));
  if (!state->seeded || !state->focused) {
    CHECK_MSG(0, "%s: no focused iteration after %llu", device->id,
              (unsigned long long)warmup);
    goto done;
  }
  /* The sources: the ants' tours of the last iteration, its best, or the
   * best so far. */
  size_t n = state->n;
  if (!read_ants(aco, out->tours[0], out->lengths[0]))
    goto done;
  for (uint32_t a = 0; a < state->ants; ++a) {
    const uint32_t *from = out->tours[0] + (size_t)a * n;
    if (config->focus_source == CK_ACO_SOURCE_ITERATION)
      from = out->tours[0] + (size_t)state->iteration_ant * n;
    if (config->focus_source != CK_ACO_SOURCE_BEST)
      memcpy(out->sources + (size_t)a * n, from, n * sizeof *from);
    else {
      int64_t length;
      CHECK_OK(ck_aco_get_best(aco, &length, out->sources + (size_t)a * n));
    }
  }
  CHECK_OK(steps->construct(state, warmup));
  out->bound = state->focus_bound;
  if (!read_ants(aco, out->tours[0], out->lengths[0]))
    goto done;
  CHECK_OK(steps->local_search(state, NULL, 0));
  ok = read_ants(aco, out->tours[1], out->lengths[1]);
done:
  ck_aco_destroy(aco);
  return ok;
}

/*
 * The focused ants of a work-group (4, 8 and 32 lanes) and of a work-item
 * on the device build and improve the same tours as ref, ant by ant, on
 * 1500 random cities: sorted queues (the default bound), scanned ones
 * (400 new edges, more than CK_ACO_SORT_MOST dirty cities), ACS draws and
 * a ranked search. Every length is its tour's; the search takes off what
 * it reports, and where it stops a plain search on ref finds no move.
 */
static void focused_groups(const ck_device *ref, const ck_device *device) {
  static const struct {
    const char *what;
    ck_aco_algorithm algorithm;
    ck_aco_local_search local_search;
    uint32_t local_search_ants, focus_edges;
    ck_aco_focus_source source;
  } cases[] = {
      {"MMAS", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 0, 0, CK_ACO_SOURCE_BEST},
      {"ACS 2opt on 6 ants", CK_ACO_ACS, CK_ACO_LS_2OPT, 6, 0,
       CK_ACO_SOURCE_BEST},
      {"MMAS 400 new edges", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 0, 400,
       CK_ACO_SOURCE_BEST},
      {"MMAS from the iteration's best", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT, 0,
       0, CK_ACO_SOURCE_ITERATION},
      {"ACS 2opt on 6 ants from own tours", CK_ACO_ACS, CK_ACO_LS_2OPT, 6, 0,
       CK_ACO_SOURCE_OWN},
      {"MMAS from own tours, 400 new edges", CK_ACO_MMAS, CK_ACO_LS_2OPT_OROPT,
       0, 400, CK_ACO_SOURCE_OWN},
  };
  static const uint32_t lanes[] = {1, 4, 8, 32};
  const uint32_t n = 1500, ants = 8;
  const char *pocl = strstr(device->platform_version, "PoCL ");
  if (device->kind == CK_KIND_CPU && pocl && atoi(pocl + 5) >= 5)
    return; /* no group kernels there (agreement) */
  graph g;
  focused_ants want, got;
  int made = make_graph(&g, n, 20, UNIFORM, 1500);
  for (int s = 0; s < 2; ++s) {
    want.tours[s] = malloc((size_t)ants * n * sizeof(uint32_t));
    got.tours[s] = malloc((size_t)ants * n * sizeof(uint32_t));
    want.lengths[s] = malloc(ants * sizeof(int64_t));
    got.lengths[s] = malloc(ants * sizeof(int64_t));
    made &= want.tours[s] && got.tours[s] && want.lengths[s] && got.lengths[s];
  }
  want.sources = malloc((size_t)ants * n * sizeof(uint32_t));
  got.sources = malloc((size_t)ants * n * sizeof(uint32_t));
  made &= want.sources && got.sources;
  for (size_t c = 0; made && c < sizeof cases / sizeof *cases; ++c) {
    ck_aco_config config;
    ck_aco_config_init(&config);
    config.method = CK_ACO_FOCUSED;
    config.algorithm = cases[c].algorithm;
    config.local_search = cases[c].local_search;
    config.local_search_ants = cases[c].local_search_ants;
    config.focus_edges = cases[c].focus_edges;
    config.focus_source = cases[c].source;
    config.ants = ants;
    config.seed = 17 + c;
    if (!focused_iteration(ref, &g.tsp, &config, 3, &want))
      continue;
    /* Each walk changed its own source, within the bound. */
    for (uint32_t a = 0; a < ants; ++a) {
      uint32_t fresh = edges_not_in(want.tours[0] + (size_t)a * n,
                                    want.sources + (size_t)a * n, n);
      CHECK_MSG(fresh <= want.bound,
                "focused %s on ref, ant %u: %u edges its source lacks, bound "
                "%u",
                cases[c].what, a, fresh, want.bound);
    }
    uint32_t searched =
                 cases[c].local_search_ants ? cases[c].local_search_ants : ants,
             improved = 0, left = 0;
    for (uint32_t a = 0; a < ants; ++a) {
      const uint32_t *built = want.tours[0] + (size_t)a * n;
      const uint32_t *after = want.tours[1] + (size_t)a * n;
      CHECK_MSG(want.lengths[0][a] == exact_length(&g, built) &&
                    want.lengths[1][a] == exact_length(&g, after),
                "focused %s on ref, ant %u: lengths %lld and %lld, tours "
                "%lld and %lld",
                cases[c].what, a, (long long)want.lengths[0][a],
                (long long)want.lengths[1][a],
                (long long)exact_length(&g, built),
                (long long)exact_length(&g, after));
      improved += want.lengths[1][a] < want.lengths[0][a];
      if (want.lengths[1][a] < want.lengths[0][a])
        left += moves_left(&g, after,
                           cases[c].local_search == CK_ACO_LS_2OPT_OROPT);
    }
    /* The search follows the changes: a city whose bit was set before a
     * later move changed its candidates' tour neighbours is not looked
     * at again, so a few improving moves may remain (on ref too). */
    CHECK_MSG(improved > 0, "focused %s: no ant improved", cases[c].what);
    printf("note: focused %s on ref: %u of %u searched ants improved, %u "
           "improving moves left\n",
           cases[c].what, improved, searched, left);
    for (size_t l = 0; l < sizeof lanes / sizeof *lanes; ++l) {
      config.lanes = lanes[l];
      if (!focused_iteration(device, &g.tsp, &config, 3, &got))
        continue;
      for (int s = 0; s < 2; ++s) {
        uint32_t differ = ants;
        for (uint32_t a = 0; a < ants; ++a)
          if (got.lengths[s][a] == want.lengths[s][a] &&
              memcmp(got.tours[s] + (size_t)a * n,
                     want.tours[s] + (size_t)a * n, n * sizeof(uint32_t)) == 0)
            --differ;
        CHECK_MSG(differ == 0,
                  "focused %s, %u lanes on %s: %u of %u ants differ from ref "
                  "after %s",
                  cases[c].what, lanes[l], device->id, differ, ants,
                  s ? "local search" : "construction");
      }
    }
  }
  for (int s = 0; s < 2; ++s) {
    free(want.tours[s]);
    free(got.tours[s]);
    free(want.lengths[s]);
    free(got.lengths[s]);
  }
  free(want.sources);
  free(got.sources);
  free_graph(&g);
}

int main(void) {
  printf("aco local search and construction on the host\n");
  reverse_tests();
  move_path_tests();
  improve_tests();
  segment_tests();
  construct_tests();
  construct_fallback_tests();
  nearest_tour_tests();
  ring_tests();
  construct_grid_tests();
  roulette_tests();
  far_tests();
  update_entry_tests();
  focused_construct_tests();
  improve_queue_tests();
  focus_bound_tests();

  data_dir = getenv("CLKIT_TEST_DATA");
  if (!data_dir || !*data_dir) {
    printf("CLKIT_TEST_DATA is not set: ACO runs not tested\n");
    return CHECK_DONE();
  }
  ck_device_set set;
  CHECK_OK(ck_device_enumerate(&set));
  const ck_device *ref = &set.devices[0];
  long opencl = test_opencl_device(&set);
  const ck_device *devices[2] = {ref,
                                 opencl >= 0 ? &set.devices[opencl] : NULL};
  for (int i = 0; i < 2; ++i) {
    if (!devices[i])
      continue;
    printf("aco on %s\n", devices[i]->id);
    quality(devices[i]);
    partition(devices[i]);
    reproducibility(devices[i]);
    pheromone_invariants(devices[i]);
    if (i == 1) {
      agreement(ref, devices[i]);
      agreement_with_alpha(ref, devices[i]);
      agreement_by_coordinates(ref, devices[i]);
      agreement_on_ties(ref, devices[i]);
      focused_groups(ref, devices[i]);
    }
  }
  nearest_neighbour_pheromone(ref);
  bad_config(ref);
  bad_workload(ref);
  optima_lookup(ref);
  svg_text(ref);
  progress(ref);
  focused_runs(ref);
  spread_colony(ref, devices[1]);
  spread_focused(ref, devices[1]);
  spread_colonies(ref, devices[1]);
  spread_rules(ref, devices[1]);
  ck_device_set_free(&set);
  return CHECK_DONE();
}
