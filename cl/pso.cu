/*
 * pso.cu - the native CUDA step of particle swarm optimisation: one launch
 * per iteration moves every particle, evaluates a built-in objective,
 * keeps personal bests, and elects the global best, which the OpenCL
 * path does in three launches (ck_pso_move, ck_best_reduce,
 * ck_best_update). Its ref twin is the ref steps in src/pso/pso_ref.c:
 * the same ck_pso.h and ck_objectives.h functions, the same Philox
 * draws, and the objective folded in coordinate order, so results agree
 * bit for bit.
 *
 * Work: a block of CK_WARP_WIDTH x CK_PSO_ROWS threads serves a warp's
 * width of particles. Thread (x, y) takes particle x of the block and its
 * dimension pairs y, y + ROWS, ... (one Philox block a pair, as in
 * ck_pso_move_particle), so that a warp (one y) reads and writes 32
 * neighbouring particles of a dimension at once. Rounds go in groups of
 * CK_PSO_GROUP_ROUNDS: a thread moves all its pairs of a group before
 * the block meets at a barrier, so that their loads overlap. A group's
 * coordinates and their objective shares go through shared memory, and
 * row 0 folds them in coordinate order. Row 0, a warp, then finds the
 * block's best personal best by shuffles; the block that arrives last
 * folds the blocks' candidates, copies the winner into gbest and records
 * the history.
 *
 * A user objective without data (CK_OBJECTIVE_USER, its source placed
 * before this file) takes the whole position: one group holds every
 * dimension, and row 0 calls objective() on particle x's row of the
 * shared coordinates.
 *
 * Build-time defines (src/pso/pso_cuda.c): CK_OBJECTIVE (a streamed one,
 * or the user's), CK_BOUNDS, CK_DIM, CK_PSO_ROWS (1 to 32),
 * CK_PSO_GROUP_ROUNDS (1 to the rounds), CK_PSO_MIN_BLOCKS (blocks an SM
 * should hold at once: registers are limited to fit them),
 * CK_REAL_DOUBLE=0.
 */
#define CK_CUDA_NATIVE 1
#include "ck_pso.h"
#include "ck_warp.h"

#if !defined(CK_OBJECTIVE) || !defined(CK_BOUNDS) || !defined(CK_DIM) ||       \
    !defined(CK_PSO_ROWS) || !defined(CK_PSO_GROUP_ROUNDS) ||                  \
    !defined(CK_PSO_MIN_BLOCKS)
#error "pso.cu needs CK_OBJECTIVE, CK_BOUNDS, CK_DIM and the CK_PSO_ sizes"
#endif

#define PAIRS ((CK_DIM + 1) / 2)
#define ROUNDS ((PAIRS + CK_PSO_ROWS - 1) / CK_PSO_ROWS)
#define BLOCK (CK_WARP_WIDTH * CK_PSO_ROWS)
#define GROUP_ROUNDS CK_PSO_GROUP_ROUNDS
#define GROUPS ((ROUNDS + GROUP_ROUNDS - 1) / GROUP_ROUNDS)
/* Coordinates a group. A particle's row of them in shared memory has an
 * odd stride, so that a warp's 32 particles of one coordinate fall in 32
 * banks. */
#define SLOTS (2 * CK_PSO_ROWS * GROUP_ROUNDS)
#define STRIDE (SLOTS | 1)
#define USER (CK_OBJECTIVE == CK_OBJECTIVE_USER)
#define AUX CK_OBJECTIVE_HAS_AUX(CK_OBJECTIVE)

#if USER && GROUPS != 1
#error "pso.cu: a user objective needs every dimension in one group"
#endif
#if !USER && CK_OBJECTIVE >= CK_OBJECTIVE_STREAMED_COUNT
#error "pso.cu: the objective must be a streamed one or the user's"
#endif

/*
 * One iteration; thread (x, y) as above. Particles past n take part in
 * the barriers only. The iteration and its history slot come from
 * counters (iteration, slot), which the last block advances (the slot
 * modulo capacity), so that a recorded sequence of launches (a CUDA
 * graph) can be replayed as it is. block_values / block_indices hold a
 * candidate per block; arrivals counts the blocks done and is zero
 * between launches.
 */
extern "C" __global__ void __launch_bounds__(BLOCK, CK_PSO_MIN_BLOCKS)
    ck_pso_cuda_step(unsigned n, unsigned first, unsigned long long seed,
                     float w, float c1, float c2, const float *__restrict__ lo,
                     const float *__restrict__ hi,
                     const float *__restrict__ vmax, float *__restrict__ x,
                     float *__restrict__ v, float *__restrict__ pbest,
                     float *__restrict__ pbest_value, float *gbest,
                     float *best_value, unsigned *best_index, float *history,
                     unsigned capacity, unsigned long long *counters,
                     float target, unsigned has_target, unsigned *done,
                     float *block_values, unsigned *block_indices,
                     unsigned *arrivals) {
  /* A group's coordinates and their objective shares, [x][slot]. */
  __shared__ float coordinates[CK_WARP_WIDTH][STRIDE];
#if !USER
  __shared__ float sums[CK_WARP_WIDTH][STRIDE];
#if AUX
  __shared__ float auxes[CK_WARP_WIDTH][STRIDE];
#endif
#endif
  __shared__ float values[CK_WARP_WIDTH];
  __shared__ int improved[CK_WARP_WIDTH], last;
  __shared__ float warp_values[CK_PSO_ROWS];
  __shared__ unsigned warp_indices[CK_PSO_ROWS];

  /* Once the target is met a launch only records the best again; done is
   * uniform over the grid, so whole blocks skip together. */
  int finished = *(volatile unsigned *)done != 0;
  unsigned long long iteration = counters[0];
  unsigned lane = threadIdx.x, row = threadIdx.y;
  unsigned p = blockIdx.x * CK_WARP_WIDTH + lane;
  int live = p < n && !finished;
  ck_objective_state state;
  ck_objective_begin(CK_OBJECTIVE, &state);
#if !USER
  float carried = 0.0f; /* the last coordinate of the previous group */
#endif

  for (int group = 0; group < (finished ? 0 : GROUPS); ++group) {
    /* This thread's pairs of the group: moved, written back, and kept in
     * shared memory. */
#pragma unroll
    for (int g = 0; g < GROUP_ROUNDS; ++g) {
      int pair = (group * GROUP_ROUNDS + g) * CK_PSO_ROWS + (int)row;
      int slot = 2 * (g * CK_PSO_ROWS + (int)row);
      float moved[2] = {0.0f, 0.0f};
      if (live && pair < PAIRS) {
        /* Particle p of a slice draws as particle first + p of the
         * swarm. */
        ck_philox_counter r =
            ck_pso_move_block(seed, first + p, CK_DIM, iteration, pair);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          int d = 2 * pair + half;
          if (d < CK_DIM) {
            size_t at = (size_t)d * n + p;
            float velocity = v[at];
            moved[half] = ck_pso_move_coordinate(
                CK_BOUNDS, first + p, CK_DIM, d, seed, iteration, w, c1, c2,
                ck_uniform_real(half ? r.v[2] : r.v[0]),
                ck_uniform_real(half ? r.v[3] : r.v[1]), x[at], &velocity,
                pbest[at], gbest[d], lo[d], hi[d], vmax[d]);
            x[at] = moved[half];
            v[at] = velocity;
          }
        }
      }
      coordinates[lane][slot] = moved[0];
      coordinates[lane][slot + 1] = moved[1];
    }
    __syncthreads();
#if !USER
    /* The shares of this thread's coordinates; a group's first coordinate
     * follows the previous group's last. */
#pragma unroll
    for (int g = 0; g < GROUP_ROUNDS; ++g) {
      int slot = 2 * (g * CK_PSO_ROWS + (int)row);
      int d = group * SLOTS + slot;
      float before = slot > 0 ? coordinates[lane][slot - 1] : carried;
      float aux[2];
      ck_objective_term(CK_OBJECTIVE, d, coordinates[lane][slot], before,
                        &sums[lane][slot], &aux[0]);
      ck_objective_term(CK_OBJECTIVE, d + 1, coordinates[lane][slot + 1],
                        coordinates[lane][slot], &sums[lane][slot + 1],
                        &aux[1]);
#if AUX
      auxes[lane][slot] = aux[0];
      auxes[lane][slot + 1] = aux[1];
#endif
    }
    __syncthreads();
    if (row == 0) {
      for (int k = 0; k < SLOTS && group * SLOTS + k < CK_DIM; ++k)
        ck_objective_combine(CK_OBJECTIVE, &state, group * SLOTS + k,
                             coordinates[lane][k], sums[lane][k],
#if AUX
                             auxes[lane][k]
#else
                             0.0f
#endif
        );
    }
    carried = coordinates[lane][SLOTS - 1];
    __syncthreads(); /* the arrays are rewritten by the next group */
#endif
  }

  /* The personal best: row 0 decides, every row copies its dimensions. */
  if (row == 0) {
#if USER
    float value = live ? ck_comparable(objective(&coordinates[lane][0], CK_DIM))
                       : CK_REAL_MAX;
#else
    float value =
        ck_comparable(ck_objective_finish(CK_OBJECTIVE, &state, CK_DIM));
#endif
    float kept = live ? pbest_value[p] : CK_REAL_MAX;
    int better = live && value < kept;
    if (better)
      pbest_value[p] = value;
    values[lane] = better ? value : kept;
    improved[lane] = better;
  }
  __syncthreads();
  /* With one group the coordinates are still in shared memory: x is not
   * read again. */
  if (improved[lane])
    for (int d = (int)row; d < CK_DIM; d += CK_PSO_ROWS) {
      size_t at = (size_t)d * n + p;
      pbest[at] = GROUPS == 1 ? coordinates[lane][d] : x[at];
    }
  /* Row 0's warp: the block's candidate. */
  if (row == 0) {
    float candidate = values[lane];
    unsigned candidate_index = live ? p : 0xFFFFFFFFu;
    ck_warp_minimum(&candidate, &candidate_index);
    if (lane == 0) {
      block_values[blockIdx.x] = candidate;
      block_indices[blockIdx.x] = candidate_index;
    }
  }
  /* Every thread's writes ordered before the block's arrival, so that the
   * last block reads them. */
  __threadfence();
  __syncthreads();
  if (lane == 0 && row == 0)
    last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last)
    return;

  /* The last block: reads bypass the non-coherent L1. */
  __threadfence();
  unsigned slot = (unsigned)__ldcg(counters + 1);
  float candidate = CK_REAL_MAX;
  unsigned candidate_index = 0xFFFFFFFFu;
  for (unsigned b = row * CK_WARP_WIDTH + lane; b < gridDim.x; b += BLOCK) {
    float other = __ldcg(block_values + b);
    unsigned other_index = __ldcg(block_indices + b);
    if (ck_better(other, other_index, candidate, candidate_index)) {
      candidate = other;
      candidate_index = other_index;
    }
  }
  ck_warp_minimum(&candidate, &candidate_index);
  if (lane == 0) {
    warp_values[row] = candidate;
    warp_indices[row] = candidate_index;
  }
  __syncthreads();
  if (row == 0) {
    candidate = lane < CK_PSO_ROWS ? warp_values[lane] : CK_REAL_MAX;
    candidate_index = lane < CK_PSO_ROWS ? warp_indices[lane] : 0xFFFFFFFFu;
    ck_warp_minimum(&candidate, &candidate_index);
    if (lane == 0) {
      int better = candidate < *best_value;
      if (better) {
        *best_value = candidate;
        *best_index = candidate_index;
      }
      last = better; /* now: whether gbest moves */
      float current = better ? candidate : *best_value;
      history[slot] = current;
      if (has_target && current <= target)
        *done = 1u;
      counters[0] = iteration + 1;
      counters[1] = (slot + 1) % capacity;
      *arrivals = 0u;
    }
  }
  __syncthreads();
  if (last) {
    unsigned winner = __ldcg(best_index);
    for (int d = (int)(row * CK_WARP_WIDTH + lane); d < CK_DIM; d += BLOCK)
      gbest[d] = __ldcg(pbest + (size_t)d * n + winner);
  }
}
