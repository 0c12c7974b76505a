/*
 * aco.cu - the native CUDA kernels of ant colony optimisation: tour
 * construction and local search with a warp an ant, whose per-ant arrays
 * live in shared memory while it works on them. They are the twins of
 * ck_aco_build_tours_groups and ck_aco_search_groups in aco.cl, and so of
 * ck_aco_construct and ck_aco_improve_from in ck_aco.h, which the ref
 * steps call: the same Philox draws, the same float sums in list order,
 * the same first improving move in the serial search's order, so the
 * tours agree with ref step for step.
 *
 * What CUDA adds over the OpenCL group kernels:
 *   - the tour, the positions and the flags of the ant (5 bytes a city)
 *     are in shared memory, so the long chains of dependent reads of the
 *     search (city, position, neighbour in the tour) and the reversals
 *     cost shared-memory latency rather than global;
 *   - the 32 lanes of the warp exchange values by shuffles, ballots and
 *     warp reductions, with no barriers and no local-memory reductions:
 *     the roulette's prefix sums, the best candidate, the first move;
 *   - the search skips cities with a set don't-look bit 32 positions at
 *     a time (one ballot) instead of one position a pass;
 *   - the distance from each city to each of its candidates is read from
 *     a table (ck_aco_candidate_distances) that is loaded with the
 *     candidate itself, one global-memory latency less per move tried.
 *
 * Build-time defines (src/aco/aco_cuda.c):
 *   CK_ACO_METRIC  a CK_TSP_METRIC_ id, or CK_ACO_FROM_MATRIX
 *   CK_ACO_K       candidates a city, at most 32 (a lane each)
 *   CK_ACO_CITIES  cities of the instance (sizes the shared arrays; at
 *                  most 9600, so that 5 bytes a city fit in 48 KB)
 */
#define CK_CUDA_NATIVE 1
#include "ck_aco.h"
#include "ck_warp.h"

#if !defined(CK_ACO_METRIC) || !defined(CK_ACO_K) || !defined(CK_ACO_CITIES)
#error "aco.cu needs CK_ACO_METRIC, CK_ACO_K and CK_ACO_CITIES"
#endif
#if CK_ACO_K > CK_WARP_WIDTH || CK_ACO_CITIES > 9600
#error                                                                         \
    "aco.cu: CK_ACO_K is at most a warp's lanes and CK_ACO_CITIES at most 9600"
#endif

/* A city or a position in shared memory: 16 bits, as n <= 9600. */
typedef unsigned short city_index;

/* ---- warp helpers ------------------------------------------------------ */

#define warp_min(value) ck_warp_extreme<false>(value)
#define warp_max(value) ck_warp_extreme<true>(value)

/* ---- the graph ------------------------------------------------------------
 * ck_aco_distance with the metric fixed at build time and the read-only
 * data path for the matrix and the coordinates. */
static __device__ __forceinline__ int
graph_distance(uint n, const int *__restrict__ matrix,
               const ck_tsp_coord *__restrict__ xy, uint i, uint j) {
#if CK_ACO_METRIC == CK_ACO_FROM_MATRIX
  (void)xy;
  return __ldg(matrix + (ulong)i * n + j);
#else
  (void)matrix;
  (void)n;
  return ck_tsp_coordinate_distance(CK_ACO_METRIC, __ldg(xy + 2u * i),
                                    __ldg(xy + 2u * i + 1u), __ldg(xy + 2u * j),
                                    __ldg(xy + 2u * j + 1u));
#endif
}

#define DISTANCE(i, j) graph_distance(n, matrix, xy, (i), (j))

/* Thread e (of n * K) writes the distance from city e / K to its
 * candidate e % K: ck_aco_distance, so the search reads what it would
 * have computed. */
extern "C" __global__ void
ck_aco_candidate_distances(uint n, const int *__restrict__ matrix,
                           const ck_tsp_coord *__restrict__ xy,
                           const uint *__restrict__ neighbours,
                           int *__restrict__ candidate_distances) {
  ulong e = (ulong)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= (ulong)n * CK_ACO_K)
    return;
  candidate_distances[e] =
      DISTANCE((uint)(e / CK_ACO_K), __ldg(neighbours + e));
}

/* ---- construction ------------------------------------------------------ */

/* Cities a lane takes at once in the scan for the nearest unvisited
 * city: their reads are independent, so they overlap. */
#define SCAN_UNROLL 8u

/* The least (distance << 32 | city) of the warp's lanes, in every lane. */
static __device__ __forceinline__ ulong warp_least_key(ulong key) {
  uint high = warp_min((uint)(key >> 32));
  uint low = warp_min((uint)(key >> 32) == high ? (uint)key : 0xFFFFFFFFu);
  return (ulong)high << 32 | low;
}

/* The nearest unvisited city from `current` by (distance, city), for
 * every lane (ck_aco_construct's fallback once every candidate is
 * visited). From the matrix, lane l scans cities l, l + 32, ..., reading
 * SCAN_UNROLL distances before it looks at any; with coordinates, lane l
 * searches cells l, l + 32, ... of each ring of the grid, and the warp
 * ends together (ck_aco_nearest_unvisited). */
static __device__ uint nearest_unvisited(
    uint n, const int *__restrict__ matrix, const ck_tsp_coord *__restrict__ xy,
    const uint *__restrict__ grid_cells,
    const ck_tsp_coord *__restrict__ grid_box, const uchar *visited,
    uint current, uint l) {
#if CK_ACO_METRIC != CK_ACO_FROM_MATRIX
  const int metric = CK_ACO_METRIC;
  ck_grid_walk walk = ck_aco_grid_begin(xy, grid_cells, grid_box, current);
  ulong key = ~0ul;
  for (long r = 0;; ++r) {
    ck_grid_ring ring = ck_grid_ring_of(&walk, r);
    ulong cells = ck_grid_ring_cells(&ring);
    for (ulong i = l; i < cells; i += CK_WARP_WIDTH) {
      long column, row;
      ck_grid_ring_cell(&walk, &ring, i, &column, &row);
      ck_aco_offer_cell(CK_ACO_GRAPH_ARGS, grid_cells, column, row, current,
                        visited, &key);
    }
    key = warp_least_key(key);
    if (ck_aco_ring_ends(&walk, metric, r, key))
      return (uint)key;
  }
#else
  (void)grid_cells;
  (void)grid_box;
  uint best_distance = 0xFFFFFFFFu, best_city = 0xFFFFFFFFu;
  for (uint base = l; base < n; base += CK_WARP_WIDTH * SCAN_UNROLL) {
    uint d[SCAN_UNROLL];
#pragma unroll
    for (uint u = 0; u < SCAN_UNROLL; ++u) {
      uint c = base + u * CK_WARP_WIDTH;
      d[u] = c < n && !visited[c] ? (uint)DISTANCE(current, c) : 0xFFFFFFFFu;
    }
    /* Each lane's cities rise, so the first of a distance wins. */
#pragma unroll
    for (uint u = 0; u < SCAN_UNROLL; ++u)
      if (d[u] < best_distance) {
        best_distance = d[u];
        best_city = base + u * CK_WARP_WIDTH;
      }
  }
  uint least = warp_min(best_distance);
  return warp_min(best_distance == least ? best_city : 0xFFFFFFFFu);
#endif
}

/*
 * Block a (one warp) builds ant a's tour, as ck_aco_construct. Each step,
 * lane j reads candidate j of the current city, its weight and its
 * visited flag; shuffles give every lane the sum of the unvisited weights
 * in list order and lane j its running sum up to j (the same float
 * additions as the serial loop: a visited candidate adds 0); a ballot
 * picks the first lane whose running sum passes the target, a warp
 * maximum the best candidate. When every candidate is visited the warp
 * scans for the nearest unvisited city. Lane 0 records each step; the
 * tour (in shared memory until then) is written out and its length summed
 * by all lanes at the end. The arguments are ck_aco_build_tours_groups's
 * (the flags stay unused: visited cities are kept in shared memory).
 */
extern "C" __global__ void __launch_bounds__(CK_WARP_WIDTH)
    ck_aco_build_tours_warp(
        uint n, uint ants, uint first, ulong seed, ulong iteration, float q0,
        const int *__restrict__ matrix, const ck_tsp_coord *__restrict__ xy,
        const uint *__restrict__ neighbours, const float *__restrict__ choice,
        uint *__restrict__ tours, uchar *unused_flags,
        long *__restrict__ lengths, const uint *__restrict__ grid_cells,
        const ck_tsp_coord *__restrict__ grid_box) {
  __shared__ city_index tour[CK_ACO_CITIES];
  __shared__ uchar visited[CK_ACO_CITIES];
  uint ant = blockIdx.x, l = threadIdx.x;
  if (ant >= ants)
    return;
  ulong stream = (iteration << 32) | (ulong)(first + ant);
  for (uint c = l; c < n; c += CK_WARP_WIDTH)
    visited[c] = 0;
  ck_philox_counter r = ck_philox_block(seed, stream | ((ulong)1 << 63), 0u);
  uint start = __umulhi(r.v[0], n);
  __syncwarp();
  if (l == 0) {
    tour[0] = (city_index)start;
    visited[start] = 1;
  }
  __syncwarp();
  uint current = start;
  for (uint step = 1; step < n; ++step) {
    if (step & 1u)
      r = ck_philox_block(seed, stream, (ulong)(step >> 1));
    uint word = ((step - 1u) & 1u) * 2u;
    uint city = 0;
    float weight = 0.0f;
    int open = 0;
    if (l < CK_ACO_K) {
      ulong entry = (ulong)current * CK_ACO_K + l;
      city = __ldg(neighbours + entry);
      weight = __ldg(choice + entry);
      open = !visited[city];
    }
    uint open_lanes = __ballot_sync(CK_ALL_LANES, open);
    uint next;
    if (open_lanes) {
      float share = open ? weight : 0.0f, sum = 0.0f, running = 0.0f;
#pragma unroll
      for (uint j = 0; j < CK_ACO_K; ++j) {
        sum += __shfl_sync(CK_ALL_LANES, share, j);
        if (j == l)
          running = sum;
      }
      /* Weights are >= 0, so their bits order as the floats do; ties go
       * to the first in list order, as the serial strict > does. */
      uint bits = open ? __float_as_uint(weight) : 0u;
      uint best_bits = warp_max(bits);
      uint pick =
          __ffs(__ballot_sync(CK_ALL_LANES, open && bits == best_bits)) - 1;
      if (!(q0 > 0.0f && ck_uniform_float(ck_philox_word(r, word)) < q0)) {
        float target = ck_uniform_float(ck_philox_word(r, word + 1u)) * sum;
        uint past = __ballot_sync(CK_ALL_LANES, open && running > target);
        /* No running sum past the target (rounding): the last unvisited
         * candidate, where the serial loop ends. */
        pick = past ? (uint)__ffs(past) - 1u : 31u - (uint)__clz(open_lanes);
      }
      next = __shfl_sync(CK_ALL_LANES, city, pick);
    } else {
      next = nearest_unvisited(n, matrix, xy, grid_cells, grid_box, visited,
                               current, l);
    }
    if (l == 0) {
      tour[step] = (city_index)next;
      visited[next] = 1;
    }
    __syncwarp();
    current = next;
  }
  uint *out = tours + (ulong)ant * n;
  long length = 0;
  for (uint p = l; p < n; p += CK_WARP_WIDTH) {
    uint a = tour[p], b = tour[p + 1u == n ? 0u : p + 1u];
    out[p] = a;
    length += DISTANCE(a, b);
  }
  length = ck_warp_sum(length);
  if (l == 0)
    lengths[ant] = length;
}

/* ---- local search ------------------------------------------------------ */

/* The warp's wait in CK_ACO_LANES_REVERSE and _SHIFT (ck_aco.h). */
#define WARP_SYNC() __syncwarp()

/* ck_aco_shift_size without its remainders (every position is < n). */
static __device__ __forceinline__ uint shift_size(uint n, uint from, uint count,
                                                  uint pu) {
  uint after = ck_aco_ahead(from, count, n);
  uint ahead_count = (pu >= after ? pu - after : pu + n - after) + 1u;
  uint behind_count = (from >= pu ? from - pu : from + n - pu) - 1u;
  return ahead_count <= behind_count ? ahead_count : behind_count;
}

/* ck_aco_reverse by the warp: lane l swaps pairs l, l + 32, ... Every
 * lane has read what it needs before the call. */
static __device__ void warp_reverse(uint n, city_index *tour, city_index *pos,
                                    uint i, uint j, uint l) {
  CK_ACO_LANES_REVERSE(i, j, CK_WARP_WIDTH, WARP_SYNC, city_index);
}

/* ck_aco_move_path by the warp: the entries between the path and u move
 * by `count` in rounds of 32 x CK_ACO_SHIFT_DEPTH (read, sync, write,
 * sync), the far end first when they move up, so that no round
 * overwrites what a later one reads; lane l < count then writes path
 * city l. Every lane has read what it needs before the call. */
static __device__ void warp_move_path(uint n, city_index *tour, city_index *pos,
                                      uint from, uint count, uint u,
                                      int reversed, uint l) {
  uint mine = 0;
  if (l < count)
    mine = tour[ck_aco_ahead(from, reversed ? count - 1u - l : l, n)];
  uint at;
  CK_ACO_LANES_SHIFT(from, count, pos[u], at, CK_WARP_WIDTH, WARP_SYNC,
                     city_index);
  if (l < count) {
    uint p = ck_aco_ahead(at, l, n);
    tour[p] = (city_index)mine;
    pos[mine] = (city_index)p;
  }
  __syncwarp();
}

/* The first position from `from` on whose city's don't-look bit is
 * clear, or n: 32 positions a ballot. */
static __device__ uint first_open(uint n, const city_index *tour,
                                  const uchar *dont_look, uint from, uint l) {
  for (uint base = from; base < n; base += CK_WARP_WIDTH) {
    uint p = base + l;
    uint open = __ballot_sync(CK_ALL_LANES, p < n && !dont_look[tour[p]]);
    if (open)
      return base + (uint)__ffs(open) - 1u;
  }
  return n;
}

/* Order of the candidate moves at a city, as the serial search tries
 * them (aco.cl): 2-opt with the successor, with the predecessor, then
 * Or-opt paths of 1, 2 and 3 cities (the path's first end, then its
 * last). A move's key is (kind << 16) | (candidate << 1) | side. */
#define TWO_OPT_NEXT 0u
#define TWO_OPT_PREVIOUS 1u
#define MOVE_KEY(kind, j, side) (((kind) << 16) | ((j) << 1) | (side))
#define NO_MOVE 0xFFFFFFFFu

/* The best move a lane has found: its key, gain, and two cities (2-opt:
 * the candidate c and its tour neighbour c2; Or-opt: u and v, between
 * which the path goes) with the path's orientation. */
typedef struct lane_move {
  uint key;
  int gain;
  uint x, y;
  int reversed;
} lane_move;

static __device__ __forceinline__ void keep_first(lane_move *move, int improves,
                                                  uint key, int gain, uint x,
                                                  uint y, int reversed) {
  if (improves && key < move->key) {
    move->key = key;
    move->gain = gain;
    move->x = x;
    move->y = y;
    move->reversed = reversed;
  }
}

/*
 * ck_aco_two_opt_at, then ck_aco_or_opt_at, at the city at position
 * `from`, by the warp: lane j takes candidate j of the city (and of each
 * Or-opt path's last city) through every kind of move at once, the
 * candidates' distances from the table and every other distance read in
 * one round, and keeps its first improving move; the warp's smallest key
 * is the move the serial search would have made first. Applies it and
 * updates the don't-look bits; returns its gain (0: none).
 */
static __device__ int warp_move_at(uint n, const int *__restrict__ matrix,
                                   const ck_tsp_coord *__restrict__ xy,
                                   const uint *__restrict__ neighbours,
                                   const int *__restrict__ candidate_distances,
                                   uint longest, int or_opt, city_index *tour,
                                   city_index *pos, uchar *dont_look, uint from,
                                   uint l) {
  uint a = tour[from];
  uint p_next = ck_aco_ahead(from, 1u, n),
       p_previous = ck_aco_behind(from, 1u, n);
  uint next_a = tour[p_next], previous_a = tour[p_previous];
  /* Path ends: the path of t + 1 cities from a ends at last[t], followed
   * by after[t]. */
  uint last[3], after[3];
  last[0] = a;
  after[0] = next_a;
  last[1] = next_a;
  after[1] = tour[ck_aco_ahead(from, 2u, n)];
  last[2] = after[1];
  after[2] = tour[ck_aco_ahead(from, 3u, n)];
  int d_next = DISTANCE(a, next_a);
  int d_previous = DISTANCE(previous_a, a);
  int removed[3];
#pragma unroll
  for (uint t = 0; t < 3u; ++t)
    removed[t] = or_opt && t + 4u <= n
                     ? d_previous + DISTANCE(last[t], after[t]) -
                           DISTANCE(previous_a, after[t])
                     : 0;
  lane_move move = {NO_MOVE, 0, 0, 0, 0};
  if (l < CK_ACO_K) {
    ulong row = (ulong)a * CK_ACO_K + l;
    uint c = __ldg(neighbours + row);
    int d_ac = __ldg(candidate_distances + row);
    /* Candidate l of the ends of the paths of 2 and 3 cities. */
    uint end_candidate[3] = {c, 0, 0};
    int end_distance[3] = {d_ac, 0, 0};
    if (or_opt) {
#pragma unroll
      for (uint t = 1; t < 3u; ++t) {
        ulong entry = (ulong)last[t] * CK_ACO_K + l;
        end_candidate[t] = __ldg(neighbours + entry);
        end_distance[t] = __ldg(candidate_distances + entry);
      }
    }

    /* 2-opt: a b ... c c2 -> a c ... b c2 with b, c2 the successors
     * (forward) or the predecessors (backward). */
    uint pc = pos[c];
    uint c_next = tour[ck_aco_ahead(pc, 1u, n)],
         c_previous = tour[ck_aco_behind(pc, 1u, n)];
    int forward = d_ac < d_next && c_next != a && c != next_a;
    int backward = d_ac < d_previous && c_previous != a && c != previous_a;
    int forward_gain =
        forward ? d_next + DISTANCE(c, c_next) - d_ac - DISTANCE(next_a, c_next)
                : 0;
    int backward_gain = backward ? d_previous + DISTANCE(c, c_previous) - d_ac -
                                       DISTANCE(previous_a, c_previous)
                                 : 0;
    keep_first(&move,
               forward_gain > 0 &&
                   ck_aco_reversal_size(n, p_next, pc) <= longest,
               MOVE_KEY(TWO_OPT_NEXT, l, 0u), forward_gain, c, c_next, 0);
    keep_first(
        &move,
        backward_gain > 0 && ck_aco_reversal_size(n, pc, p_previous) <= longest,
        MOVE_KEY(TWO_OPT_PREVIOUS, l, 0u), backward_gain, c, c_previous, 0);

    /* Or-opt (ck_aco_or_move): the path of t + 1 cities from a goes
     * between u and v = next(u), with end e next to its candidate x:
     * u = x (side 0) or v = x (side 1). */
#pragma unroll
    for (uint t = 0; t < 3u; ++t) {
#pragma unroll
      for (uint end = 0; end < 2u; ++end) {
        if (end && t == 0u)
          continue;
        uint count = t + 1u;
        uint kind = count == 1u ? 2u : count == 2u ? 3u + end : 5u + end;
        uint e = end ? last[t] : a;
        uint x = end_candidate[end ? t : 0u];
        int d_ex = end_distance[end ? t : 0u];
        uint px = pos[x];
        int live = removed[t] > 0 && d_ex < removed[t] &&
                   ck_aco_offset(px, from, n) >= count;
#pragma unroll
        for (uint side = 0; side < 2u; ++side) {
          uint pu = side ? ck_aco_behind(px, 1u, n) : px;
          uint pv = side ? px : ck_aco_ahead(px, 1u, n);
          uint u = side ? tour[pu] : x, v = side ? x : tour[pv];
          int fits = live && ck_aco_offset(pu, from, n) >= count &&
                     ck_aco_offset(pv, from, n) >= count;
          uint near_u = side ? (e == a ? last[t] : a) : e;
          uint near_v = near_u == a ? last[t] : a;
          int gain = fits ? removed[t] - (DISTANCE(u, near_u) +
                                          DISTANCE(near_v, v) - DISTANCE(u, v))
                          : 0;
          keep_first(&move,
                     gain > 0 && shift_size(n, from, count, pu) <= longest,
                     MOVE_KEY(kind, l, side), gain, u, v, near_u != a);
        }
      }
    }
  }
  uint key = warp_min(move.key);
  if (key == NO_MOVE) {
    if (l == 0)
      dont_look[a] = 1;
    __syncwarp();
    return 0;
  }
  uint kind = key >> 16, winner = (key >> 1) & 0x7FFFu;
  int gain = __shfl_sync(CK_ALL_LANES, move.gain, winner);
  uint x = __shfl_sync(CK_ALL_LANES, move.x, winner);
  uint y = __shfl_sync(CK_ALL_LANES, move.y, winner);
  int reversed = __shfl_sync(CK_ALL_LANES, move.reversed, winner);
  /* Lane l < 4 (2-opt) or < 6 (Or-opt) clears the bit of end l. */
  uint touched = a, ends;
  if (kind <= TWO_OPT_PREVIOUS) {
    /* x is c, y is c2. */
    int forward = kind == TWO_OPT_NEXT;
    uint b = forward ? next_a : previous_a;
    uint pc = pos[x];
    warp_reverse(n, tour, pos, forward ? p_next : pc, forward ? pc : p_previous,
                 l);
    touched = l == 0 ? a : l == 1 ? b : l == 2 ? x : y;
    ends = 4;
  } else {
    /* x is u, y is v; the path has t + 1 cities (selects, not an index,
     * keep last and after in registers). */
    uint t = kind == 2u ? 0u : kind <= 4u ? 1u : 2u;
    uint path_last = t == 0u ? last[0] : t == 1u ? last[1] : last[2];
    uint path_after = t == 0u ? after[0] : t == 1u ? after[1] : after[2];
    warp_move_path(n, tour, pos, from, t + 1u, x, reversed, l);
    touched = l == 0   ? previous_a
              : l == 1 ? path_after
              : l == 2 ? a
              : l == 3 ? path_last
              : l == 4 ? x
                       : y;
    ends = 6;
  }
  if (l < ends)
    dont_look[touched] = 0;
  __syncwarp();
  return gain;
}

/*
 * Block i (one warp) improves the tour of ant order[i] (ant i when ranked
 * is 0), as ck_aco_improve_from, for i < count. The warp copies the tour
 * into shared memory with its positions and seeded don't-look bits
 * (ck_aco_seed_position, lane l taking positions l, l + 32, ...), then
 * visits the cities in tour order together: a ballot finds the next city
 * whose bit is clear, warp_move_at tries its moves; at the end the warp
 * writes the tour back and lane 0 the length. Positions and bits never
 * leave shared memory: the next steps read only tours and lengths. The
 * arguments are ck_aco_search_groups's (its positions and flags unused),
 * then the candidates' distances (n x k, ck_aco_candidate_distances).
 */
extern "C" __global__ void __launch_bounds__(CK_WARP_WIDTH) ck_aco_search_warp(
    uint n, uint longest, int or_opt, uint count, int ranked, int seeded,
    const uint *__restrict__ best_tour, const uint *__restrict__ best_pos,
    const uint *__restrict__ order, const int *__restrict__ matrix,
    const ck_tsp_coord *__restrict__ xy, const uint *__restrict__ neighbours,
    uint *__restrict__ tours, uint *unused_positions, uchar *unused_flags,
    long *__restrict__ lengths, const int *__restrict__ candidate_distances) {
  __shared__ city_index tour[CK_ACO_CITIES], pos[CK_ACO_CITIES];
  __shared__ uchar dont_look[CK_ACO_CITIES];
  uint i = blockIdx.x, l = threadIdx.x;
  if (i >= count)
    return;
  uint ant = ranked ? order[i] : i;
  uint *ant_tour = tours + (ulong)ant * n;
  for (uint p = l; p < n; p += CK_WARP_WIDTH) {
    uint a = ant_tour[p];
    tour[p] = (city_index)a;
    pos[a] = (city_index)p;
  }
  __syncwarp();
  for (uint p = l; p < n; p += CK_WARP_WIDTH) {
    uint a = tour[p];
    int same = 0;
    if (seeded) {
      uint previous = tour[ck_aco_behind(p, 1u, n)],
           next = tour[ck_aco_ahead(p, 1u, n)];
      uint at = __ldg(best_pos + a);
      uint b1 = __ldg(best_tour + ck_aco_behind(at, 1u, n));
      uint b2 = __ldg(best_tour + ck_aco_ahead(at, 1u, n));
      same = (previous == b1 || previous == b2) && (next == b1 || next == b2);
    }
    dont_look[a] = (uchar)same;
  }
  __syncwarp();
  long length = lengths[ant];
  int improved = 1, moved = 0;
  while (improved) {
    improved = 0;
    for (uint p = first_open(n, tour, dont_look, 0u, l); p < n;
         p = first_open(n, tour, dont_look, p + 1u, l)) {
      int gain = warp_move_at(n, matrix, xy, neighbours, candidate_distances,
                              longest, or_opt, tour, pos, dont_look, p, l);
      if (gain > 0) {
        length -= gain;
        improved = moved = 1;
      }
    }
    if (!improved && moved && !seeded) {
      for (uint c = l; c < n; c += CK_WARP_WIDTH)
        dont_look[c] = 0;
      __syncwarp();
      improved = 1;
      moved = 0;
    }
  }
  for (uint p = l; p < n; p += CK_WARP_WIDTH)
    ant_tour[p] = tour[p];
  if (l == 0)
    lengths[ant] = length;
}
