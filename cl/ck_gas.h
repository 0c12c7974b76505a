/*
 * ck_gas.h - the per-particle and per-pair math of the 2D gas, shared by
 * the OpenCL kernels (gas.cl) and the ref steps (src/gas/gas_ref.c), so
 * that both backends integrate, interact and reflect alike.
 *
 * Positions, velocities and forces are stored as x, y pairs (2 N reals).
 * Reduced Lennard-Jones units: sigma = epsilon = m = 1.
 */
#ifndef CK_GAS_H
#define CK_GAS_H

#include "ck_philox.h"
#include "ck_prelude.h"
#include "ck_real.h"

#define CK_GAS_MODEL_LENNARD_JONES 0
#define CK_GAS_MODEL_SOFT_LOG 1

/* Reciprocal and logarithm of the pair terms: the GPUs' hardware
 * approximations in kernels built for a GPU, OpenCL or native CUDA (about
 * an ulp on NVIDIA, and several times faster than the correctly rounded
 * forms), exact elsewhere (CPU vector units' approximations are far
 * coarser). */
#if defined(CK_OPENCL_C) && defined(CK_DEVICE_NVIDIA) && CK_DEVICE_NVIDIA &&   \
    !CK_REAL_DOUBLE
/* NVIDIA's OpenCL makes native_recip a reciprocal that keeps subnormals,
 * four instructions more than PTX's flushing one, which the all-pairs
 * loop spends a pair on (gas.cl flushes subnormals on GPUs anyway). */
CK_FN float ck_gas_reciprocal(float x) {
  float result;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(result) : "f"(x));
  return result;
}
#define CK_GAS_RECIPROCAL(x) ck_gas_reciprocal(x)
#define CK_GAS_LOG(x) native_log(x)
#elif (defined(CK_OPENCL_C) || defined(CK_CUDA_NATIVE)) &&                     \
    defined(CK_DEVICE_GPU) && CK_DEVICE_GPU && !CK_REAL_DOUBLE
#define CK_GAS_RECIPROCAL(x) native_recip(x)
#define CK_GAS_LOG(x) native_log(x)
#else
#define CK_GAS_RECIPROCAL(x) (CK_R(1) / (x))
#define CK_GAS_LOG(x) CK_LOG(x)
#endif

/* The interaction constants of a run, computed once on the host. */
typedef struct ck_gas_pair_constants {
  ck_real rc2;             /* cutoff squared (Lennard-Jones) */
  ck_real energy_shift;    /* U(rc) for shifted energies, else 0 */
  ck_real force_shift;     /* F(rc) for the force-shifted form, else 0 */
  ck_real strength;        /* soft-log: the logarithm's prefactor */
  ck_real softening2;      /* soft-log: softening length squared */
  ck_real soft_log_weight; /* soft-log: -strength / 12, once a run */
} ck_gas_pair_constants;

/*
 * One pair at squared distance r2 > 0, inside the cutoff: the force over
 * r (the force on i is force_over_r times (r_i - r_j)) and the pair's
 * energy. Lennard-Jones: U = 4 (r^-12 - r^-6), F/r = 24 r^-2 (2 r^-12 -
 * r^-6), then shifted: U - U(rc), and with a force shift also
 * + (r - rc) F(rc) and F/r - F(rc)/r. Soft-log: U = (a/2) ln(r^2 + s^2) +
 * r^-12, F/r = -a / (r^2 + s^2) + 12 r^-14, written 12 times
 * ck_gas_soft_log_twelfth.
 */
/*
 * The soft-log F/r over 12 at r2 > 0: r^-14 + weight / (r^2 + s^2), with
 * weight = -a/12; *inverse12 gets r^-12, which the energy needs. One
 * reciprocal gives both 1/r^2 and 1/(r^2 + s^2). The twelfth is what the
 * GPU all-pairs tiles sum (gas.cl), multiplying by 12 once per particle:
 * two operations fewer a pair than the force itself.
 */
CK_FN ck_real ck_gas_soft_log_twelfth(ck_real r2, ck_real softening2,
                                      ck_real weight, ck_real *inverse12) {
  ck_real soft = r2 + softening2;
  ck_real both = CK_GAS_RECIPROCAL(r2 * soft);
  ck_real inverse_r2 = soft * both;
  ck_real inverse6_r = inverse_r2 * inverse_r2 * inverse_r2;
  *inverse12 = inverse6_r * inverse6_r;
  return *inverse12 * inverse_r2 + weight * (r2 * both);
}

/*
 * The Lennard-Jones terms at squared distance r2 > 0 in any real type T:
 * a scalar in ck_gas_pair, a vector of pairs in the CPU strip kernel
 * (gas.cl), so that both compute alike; RECIPROCAL(x) is 1/x for a T.
 * Assigns F/r to force_over_r and, when with_energy, U to energy (both
 * lvalues of type T); see ck_gas_pair for the formulas.
 */
#define CK_GAS_LENNARD_JONES(T, RECIPROCAL, r2, constants, rc, with_energy,    \
                             force_over_r, energy)                             \
  {                                                                            \
    T inverse2_ = RECIPROCAL(r2);                                              \
    T inverse6_ = inverse2_ * inverse2_ * inverse2_;                           \
    (force_over_r) =                                                           \
        CK_R(24) * inverse2_ * inverse6_ * (CK_R(2) * inverse6_ - CK_R(1));    \
    if (with_energy)                                                           \
      (energy) = CK_R(4) * inverse6_ * (inverse6_ - CK_R(1)) -                 \
                 (constants)->energy_shift;                                    \
    if ((constants)->force_shift != CK_R(0)) {                                 \
      T r_ = CK_SQRT(r2);                                                      \
      if (with_energy)                                                         \
        (energy) += (r_ - (rc)) * (constants)->force_shift;                    \
      (force_over_r) -= (constants)->force_shift / r_;                         \
    }                                                                          \
  }

CK_FN ck_real ck_gas_pair(int model, ck_real r2,
                          const ck_gas_pair_constants *constants, ck_real rc,
                          int with_energy, ck_real *energy) {
  if (model == CK_GAS_MODEL_SOFT_LOG) {
    ck_real inverse12;
    ck_real twelfth = ck_gas_soft_log_twelfth(
        r2, constants->softening2, constants->soft_log_weight, &inverse12);
    if (with_energy)
      *energy = CK_R(0.5) * constants->strength *
                    CK_GAS_LOG(r2 + constants->softening2) +
                inverse12;
    return CK_R(12) * twelfth;
  }
  ck_real force_over_r;
  CK_GAS_LENNARD_JONES(ck_real, CK_GAS_RECIPROCAL, r2, constants, rc,
                       with_energy, force_over_r, *energy)
  return force_over_r;
}

/* The minimum image as an expression, for a scalar d or (in OpenCL C,
 * whose ?: selects lane by lane) a vector of separations. */
#define CK_GAS_MINIMUM_IMAGE(d, side, halfway)                                 \
  ((d) > (halfway) ? (d) - (side) : (d) < -(halfway) ? (d) + (side) : (d))

/* The minimum-image separation along one side of a periodic box, for
 * coordinates inside the box (so |d| < side): one compare and select a
 * side, cheaper than rounding on CPUs. A pair exactly half a box apart
 * keeps +side/2 one way and -side/2 the other, so forces stay opposite. */
CK_FN ck_real ck_gas_minimum_image(ck_real d, ck_real side) {
  return CK_GAS_MINIMUM_IMAGE(d, side, CK_R(0.5) * side);
}

/* A coordinate back into [0, side) after a drift (periodic box). */
CK_FN ck_real ck_gas_wrap(ck_real x, ck_real side) {
  if (x >= side)
    x -= side;
  else if (x < CK_R(0))
    x += side;
  /* A particle that moved more than a box side in one step, or rounding
   * exactly onto the side, still lands inside. */
  if (x >= side || x < CK_R(0))
    x -= side * floor(x / side);
  return x >= side ? CK_R(0) : x;
}

/* A coordinate and its velocity after meeting a reflecting wall at 0
 * (walls bit 1) or at side (bit 2): the overshoot is mirrored and the
 * velocity reversed, which keeps the kinetic energy. A side without a
 * wall (a spread member's, toward a neighbour) lets it pass. */
CK_FN void ck_gas_reflect(ck_real *x, ck_real *v, ck_real side, int walls) {
  if ((walls & 1) && *x < CK_R(0)) {
    *x = -*x;
    *v = -*v;
  } else if ((walls & 2) && *x > side) {
    *x = CK_R(2) * side - *x;
    *v = -*v;
  }
  /* Further than a box in one step: at the wall. */
  if ((walls & 1) && *x < CK_R(0))
    *x = CK_R(0);
  if ((walls & 2) && *x > side)
    *x = side;
}

/* The cell of a coordinate in [0, side], cells of width side / count.
 * The bounds are applied before the conversion to int, which C leaves
 * undefined for NaN and out-of-range values (a run that has blown up
 * still gets a cell, 0 for NaN, and fails at its next check). */
CK_FN int ck_gas_cell(ck_real x, ck_real inverse_width, int count) {
  ck_real scaled = x * inverse_width;
  if (!(scaled > CK_R(0)))
    return 0;
  return scaled < (ck_real)count ? (int)scaled : count - 1;
}

/* The box and its cell grid, as every per-particle function needs them.
 * Each axis is periodic, or closed by reflecting walls at 0 and its side:
 * a run's box is one or the other both ways; a spread member's box (a
 * slab and its margins, src/gas/gas_member.c) is closed along the cut. */
typedef struct ck_gas_geometry {
  ck_real box_x, box_y;                   /* the sides */
  ck_real cell_inverse_x, cell_inverse_y; /* cells per unit length */
  int cells_x, cells_y;
  int periodic_x, periodic_y; /* 1: periodic; 0: reflecting walls */
  /* Along each axis where not periodic, the walls that reflect
   * (ck_gas_reflect): both (3) for a run's box; for a spread member, the
   * run's own walls alone, its other ends letting particles pass to its
   * neighbours. */
  int walls_x, walls_y;
} ck_gas_geometry;

/* A particle's cell, row-major (y, then x). */
CK_FN int ck_gas_cell_of(ck_real x, ck_real y, const ck_gas_geometry *g) {
  return ck_gas_cell(y, g->cell_inverse_y, g->cells_y) * g->cells_x +
         ck_gas_cell(x, g->cell_inverse_x, g->cells_x);
}

/* Slot j's position. On devices, one load of the pair as a vector (an
 * array of pairs keeps each pair aligned to its size): a GPU gathers it
 * in one instruction, where two scalar loads take two. */
CK_FN void ck_gas_position_of(CK_GLOBAL const ck_real *position, ck_u32 j,
                              ck_real *x, ck_real *y) {
#if defined(CK_LANG_OPENCL) || defined(CK_LANG_CUDA)
#if CK_REAL_DOUBLE
  double2 pair = ((CK_GLOBAL const double2 *)position)[j];
#else
  float2 pair = ((CK_GLOBAL const float2 *)position)[j];
#endif
  *x = pair.x;
  *y = pair.y;
#else
  *x = position[2 * j];
  *y = position[2 * j + 1];
#endif
}

/* The separation r_i - r_j, by the minimum image along periodic axes. */
CK_FN void ck_gas_separation(ck_real xi, ck_real yi, ck_real xj, ck_real yj,
                             const ck_gas_geometry *g, ck_real *dx,
                             ck_real *dy) {
  *dx = xi - xj;
  *dy = yi - yj;
  if (g->periodic_x)
    *dx = ck_gas_minimum_image(*dx, g->box_x);
  if (g->periodic_y)
    *dy = ck_gas_minimum_image(*dy, g->box_y);
}

#include "ck_gas_member.inc"

/*
 * The neighbour cells of a cell along one axis: offsets first .. first +
 * count - 1 from it. Periodic axes of fewer than 3 cells visit each cell
 * once (offset -1 and +1 would be the same cell); along walls, cells off
 * the grid are skipped by the caller.
 */
CK_FN int ck_gas_offsets(int cells, int periodic, int *first) {
  if (periodic && cells < 3) {
    *first = 0;
    return cells;
  }
  *first = -1;
  return 3;
}

/* Neighbour cell of (cx + ox, cy + oy), wrapped along periodic axes, or
 * -1 off the grid along walls. */
CK_FN int ck_gas_neighbor_cell(int cx, int cy, int ox, int oy,
                               const ck_gas_geometry *g) {
  int x = cx + ox, y = cy + oy;
  if (g->periodic_x)
    x = x < 0 ? x + g->cells_x : x >= g->cells_x ? x - g->cells_x : x;
  else if (x < 0 || x >= g->cells_x)
    return -1;
  if (g->periodic_y)
    y = y < 0 ? y + g->cells_y : y >= g->cells_y ? y - g->cells_y : y;
  else if (y < 0 || y >= g->cells_y)
    return -1;
  return y * g->cells_x + x;
}

/*
 * The 3 x 3 cells around cell (cx, cy) as runs of consecutive slots.
 * Consecutive cells of a row hold consecutive slots, so each row of three
 * cells is one run, or two at a periodic box's left or right edge, where
 * the wrapped cell is a run of its own. Rows (oy = -1, 0, 1), then runs
 * (0: the wrapped cell left of column 0; 1: the columns inside the grid;
 * 2: the wrapped cell right of the last column), then slots visit the
 * slots in ck_gas_force_from_cells's order. Periodic axes need at least
 * 3 cells here (fewer would visit a wrapped cell twice).
 *
 * ck_gas_run_row: row oy's index, and the box side that the periodic
 * image across y adds (the separation minus it is the minimum image for
 * every pair within a cell's width); 0 when the row is off the grid.
 */
CK_FN int ck_gas_run_row(int cy, int oy, const ck_gas_geometry *g, int *row,
                         ck_real *shift_y) {
  int y = cy + oy;
  *shift_y = CK_R(0);
  if (y < 0 || y >= g->cells_y) {
    if (!g->periodic_y)
      return 0;
    *shift_y = y < 0 ? -g->box_y : g->box_y;
    y = y < 0 ? y + g->cells_y : y - g->cells_y;
  }
  *row = y;
  return 1;
}

/* ck_gas_run_columns: run `run`'s first and last column and its x shift,
 * as ck_gas_run_row's; 0 when the run is empty. */
CK_FN int ck_gas_run_columns(int cx, int run, const ck_gas_geometry *g,
                             int *from, int *to, ck_real *shift_x) {
  *shift_x = CK_R(0);
  if (run == 1) {
    *from = cx > 0 ? cx - 1 : 0;
    *to = cx < g->cells_x - 1 ? cx + 1 : g->cells_x - 1;
    return 1;
  }
  if (!g->periodic_x || (run == 0 && cx > 0) ||
      (run == 2 && cx < g->cells_x - 1))
    return 0;
  *from = *to = run == 0 ? g->cells_x - 1 : 0;
  *shift_x = run == 0 ? -g->box_x : g->box_x;
  return 1;
}

/*
 * CK_GAS_NEARBY_SLOTS_BEGIN(...) statements CK_GAS_NEARBY_SLOTS_END runs
 * the statements for every slot j of the cells around the particle at
 * (xi, yi): the 3 x 3 block of cells (fewer on narrow periodic axes, none
 * off the grid along walls), in a fixed order: rows, then columns, then
 * slots. `continue` in the statements moves on to the next slot. (A pair
 * of macros, since OpenCL C has no variadic macros to pass a block in.)
 */
#define CK_GAS_NEARBY_SLOTS_BEGIN(xi, yi, cell_start, cell_count, g, j)        \
  {                                                                            \
    int cx_ = ck_gas_cell((xi), (g)->cell_inverse_x, (g)->cells_x);            \
    int cy_ = ck_gas_cell((yi), (g)->cell_inverse_y, (g)->cells_y);            \
    int first_x_, first_y_;                                                    \
    int count_x_ = ck_gas_offsets((g)->cells_x, (g)->periodic_x, &first_x_);   \
    int count_y_ = ck_gas_offsets((g)->cells_y, (g)->periodic_y, &first_y_);   \
    for (int oy_ = first_y_; oy_ < first_y_ + count_y_; ++oy_)                 \
      for (int ox_ = first_x_; ox_ < first_x_ + count_x_; ++ox_) {             \
        int cell_ = ck_gas_neighbor_cell(cx_, cy_, ox_, oy_, (g));             \
        if (cell_ < 0)                                                         \
          continue;                                                            \
        ck_u32 end_ = (cell_start)[cell_] + (cell_count)[cell_];               \
        for (ck_u32 j = (cell_start)[cell_]; j < end_; ++j) {
#define CK_GAS_NEARBY_SLOTS_END                                                \
  }                                                                            \
  }                                                                            \
  }

/*
 * The first half of a velocity-Verlet step for the particle in slot k:
 * v += dt/2 f, x += dt v, then the box (wrap or reflect each axis); the new
 * position goes to slot k of moved, which may be position itself (the strip
 * kernel of CPUs writes another array while others still read these). Returns 1
 * when the particle moved further than half the skin from reference
 * (Verlet lists; reference NULL skips the test).
 */
CK_FN int ck_gas_kick_drift_particle(
    ck_u32 k, CK_GLOBAL const ck_real *position, CK_GLOBAL ck_real *moved,
    CK_GLOBAL ck_real *velocity, CK_GLOBAL const ck_real *force, ck_real dt,
    const ck_gas_geometry *g, CK_GLOBAL const ck_real *reference,
    ck_real half_skin2) {
  ck_real half_dt = CK_R(0.5) * dt;
  ck_real vx = velocity[2 * k] + half_dt * force[2 * k];
  ck_real vy = velocity[2 * k + 1] + half_dt * force[2 * k + 1];
  ck_real x = position[2 * k] + dt * vx;
  ck_real y = position[2 * k + 1] + dt * vy;
  if (g->periodic_x)
    x = ck_gas_wrap(x, g->box_x);
  else
    ck_gas_reflect(&x, &vx, g->box_x, g->walls_x);
  if (g->periodic_y)
    y = ck_gas_wrap(y, g->box_y);
  else
    ck_gas_reflect(&y, &vy, g->box_y, g->walls_y);
  moved[2 * k] = x;
  moved[2 * k + 1] = y;
  velocity[2 * k] = vx;
  velocity[2 * k + 1] = vy;
  if (!reference)
    return 0;
  ck_real dx, dy;
  ck_gas_separation(x, y, reference[2 * k], reference[2 * k + 1], g, &dx, &dy);
  return dx * dx + dy * dy > half_skin2;
}

/* Adds pair (i, j) to particle i's sums when inside the cutoff. */
/* (with_energy 0 leaves energy and virial alone: steps whose energies
 * nobody reads skip that arithmetic; the forces are the same.) */
CK_FN void ck_gas_add_pair(int model, ck_real dx, ck_real dy,
                           const ck_gas_pair_constants *constants, ck_real rc,
                           int with_energy, ck_real *fx, ck_real *fy,
                           ck_real *energy, ck_real *virial) {
  ck_real r2 = dx * dx + dy * dy;
  if (model == CK_GAS_MODEL_LENNARD_JONES && r2 >= constants->rc2)
    return;
  if (model == CK_GAS_MODEL_LENNARD_JONES && r2 <= CK_R(0))
    return;
  ck_real pair_energy = CK_R(0);
  ck_real force_over_r =
      ck_gas_pair(model, r2, constants, rc, with_energy, &pair_energy);
  if (model != CK_GAS_MODEL_LENNARD_JONES) {
    /* No branch in the all-pairs loop: a particle meets itself at r2 = 0,
     * where the terms are infinite or NaN, and the selects drop them. */
    int real_pair = r2 > CK_R(0);
    force_over_r = real_pair ? force_over_r : CK_R(0);
    pair_energy = real_pair ? pair_energy : CK_R(0);
  }
  *fx += force_over_r * dx;
  *fy += force_over_r * dy;
  if (with_energy) {
    *energy += CK_R(0.5) * pair_energy;
    *virial += CK_R(0.5) * force_over_r * r2;
  }
}

/* Adds the pair of the particle at (xi, yi) and slot j to its sums. */
CK_FN void ck_gas_add_slot(ck_real xi, ck_real yi,
                           CK_GLOBAL const ck_real *position, ck_u32 j,
                           const ck_gas_geometry *g, int model,
                           const ck_gas_pair_constants *constants, ck_real rc,
                           int with_energy, ck_real *fx, ck_real *fy,
                           ck_real *energy, ck_real *virial) {
  ck_real dx, dy, xj, yj;
  ck_gas_position_of(position, j, &xj, &yj);
  ck_gas_separation(xi, yi, xj, yj, g, &dx, &dy);
  ck_gas_add_pair(model, dx, dy, constants, rc, with_energy, fx, fy, energy,
                  virial);
}

/* Stores slot i's force, and with with_energy its energy and virial. */
CK_FN void ck_gas_store_force(ck_u32 i, ck_real fx, ck_real fy, ck_real e,
                              ck_real w, int with_energy,
                              CK_GLOBAL ck_real *force,
                              CK_GLOBAL ck_real *energy,
                              CK_GLOBAL ck_real *virial) {
  force[2 * i] = fx;
  force[2 * i + 1] = fy;
  if (with_energy) {
    energy[i] = e;
    virial[i] = w;
  }
}

/*
 * The force on the particle in slot i from the particles of its own and
 * the neighbouring cells (cell ranges start/count over slots), visited in
 * a fixed order: cell rows, then columns, then slots. Stores its force and
 * its halves of the pairs' energy and virial.
 */
CK_FN void ck_gas_force_from_cells(
    ck_u32 i, CK_GLOBAL const ck_real *position,
    CK_GLOBAL const ck_u32 *cell_start, CK_GLOBAL const ck_u32 *cell_count,
    const ck_gas_geometry *g, int model, const ck_gas_pair_constants *constants,
    ck_real rc, int with_energy, CK_GLOBAL ck_real *force,
    CK_GLOBAL ck_real *energy, CK_GLOBAL ck_real *virial) {
  ck_real xi = position[2 * i], yi = position[2 * i + 1];
  ck_real fx = CK_R(0), fy = CK_R(0), e = CK_R(0), w = CK_R(0);
  // clang-format off
  CK_GAS_NEARBY_SLOTS_BEGIN(xi, yi, cell_start, cell_count, g, j)
    if (j == i)
      continue;
    ck_gas_add_slot(xi, yi, position, j, g, model, constants, rc, with_energy,
                    &fx, &fy, &e, &w);
  CK_GAS_NEARBY_SLOTS_END
  // clang-format on
  ck_gas_store_force(i, fx, fy, e, w, with_energy, force, energy, virial);
}

/* Verlet lists are kept in chunks of `chunk` slots, entry by entry: slot
 * i's entry m is at ck_gas_list_at(i, m, capacity, chunk). On GPUs a
 * chunk is a warp's slots, so that its lanes read one entry in one line;
 * 1 (CPUs, ref) keeps each slot's entries together. A list holds
 * capacity entries for its slots rounded up to a whole chunk. Kernels
 * take the chunk as CK_GAS_LIST_CHUNK, a build-time define. */
#ifndef CK_GAS_LIST_CHUNK
#define CK_GAS_LIST_CHUNK 1
#endif
/* Entries of its list a work-item stages in local memory as it builds it,
 * where chunks hold several slots (gas.cl's ck_gas_list_staged). */
#define CK_GAS_LIST_STAGE 32u
CK_FN ck_u64 ck_gas_list_at(ck_u32 i, ck_u32 m, ck_u32 capacity, ck_u32 chunk) {
  return ((ck_u64)(i / chunk) * capacity + m) * chunk + i % chunk;
}

/* The same from a Verlet list: slot i's count entries. */
CK_FN void ck_gas_force_from_list(
    ck_u32 i, CK_GLOBAL const ck_real *position, CK_GLOBAL const ck_u32 *list,
    CK_GLOBAL const ck_u32 *list_count, ck_u32 capacity,
    const ck_gas_geometry *g, int model, const ck_gas_pair_constants *constants,
    ck_real rc, int with_energy, CK_GLOBAL ck_real *force,
    CK_GLOBAL ck_real *energy, CK_GLOBAL ck_real *virial) {
  ck_real xi = position[2 * i], yi = position[2 * i + 1];
  ck_real fx = CK_R(0), fy = CK_R(0), e = CK_R(0), w = CK_R(0);
  ck_u32 count = list_count[i];
  if (count > capacity)
    count = capacity;
  for (ck_u32 n = 0; n < count; ++n) {
    ck_u32 j = list[ck_gas_list_at(i, n, capacity, CK_GAS_LIST_CHUNK)];
    ck_gas_add_slot(xi, yi, position, j, g, model, constants, rc, with_energy,
                    &fx, &fy, &e, &w);
  }
  ck_gas_store_force(i, fx, fy, e, w, with_energy, force, energy, virial);
}

/* Whether slot j is within range of (xi, yi): a Verlet list's test. */
CK_FN int ck_gas_within(ck_real xi, ck_real yi,
                        CK_GLOBAL const ck_real *position, ck_u32 j,
                        const ck_gas_geometry *g, ck_real range2) {
  ck_real dx, dy, xj, yj;
  ck_gas_position_of(position, j, &xj, &yj);
  ck_gas_separation(xi, yi, xj, yj, g, &dx, &dy);
  return dx * dx + dy * dy < range2;
}

/* The Verlet list of slot i: every other particle within range (rc plus
 * the skin), from the cells, in the order ck_gas_force_from_cells visits them;
 * returns the count found (entries past capacity are not stored). */
CK_FN ck_u32 ck_gas_list_of(ck_u32 i, CK_GLOBAL const ck_real *position,
                            CK_GLOBAL const ck_u32 *cell_start,
                            CK_GLOBAL const ck_u32 *cell_count,
                            const ck_gas_geometry *g, ck_real range2,
                            CK_GLOBAL ck_u32 *list, ck_u32 capacity) {
  ck_real xi = position[2 * i], yi = position[2 * i + 1];
  ck_u32 found = 0;
  // clang-format off
  CK_GAS_NEARBY_SLOTS_BEGIN(xi, yi, cell_start, cell_count, g, j)
    if (j == i || !ck_gas_within(xi, yi, position, j, g, range2))
      continue;
    if (found < capacity)
      list[ck_gas_list_at(i, found, capacity, CK_GAS_LIST_CHUNK)] = j;
    ++found;
  CK_GAS_NEARBY_SLOTS_END
  // clang-format on
  return found;
}

/*
 * The second half-kick of the particle in slot k, v += dt/2 f, then with
 * Langevin (damping = exp(-gamma dt) nonzero) the exact friction and
 * noise step v = damping v + noise xi, xi standard normal from Philox
 * keyed by (seed, step, id).
 */
CK_FN void ck_gas_kick_particle(ck_u32 k, CK_GLOBAL ck_real *velocity,
                                CK_GLOBAL const ck_real *force,
                                CK_GLOBAL const ck_u32 *id, ck_real dt,
                                ck_real damping, ck_real noise, ck_u64 seed,
                                ck_u64 step) {
  ck_real half_dt = CK_R(0.5) * dt;
  ck_real vx = velocity[2 * k] + half_dt * force[2 * k];
  ck_real vy = velocity[2 * k + 1] + half_dt * force[2 * k + 1];
  if (damping != CK_R(0)) {
    ck_philox_counter r = ck_philox_block(seed, step, id[k]);
    /* Box-Muller from 24-bit uniforms, the first in (0, 1]. */
    ck_real u1 = ((ck_real)(r.v[0] >> 8) + CK_R(1)) * CK_R(1.0 / 16777216.0);
    ck_real u2 = ck_uniform_real(r.v[1]);
    ck_real radius = CK_SQRT(CK_R(-2) * CK_LOG(u1));
    vx = damping * vx + noise * radius * CK_COS_2PI(u2);
    vy = damping * vy + noise * radius * CK_SIN_2PI(u2);
  }
  velocity[2 * k] = vx;
  velocity[2 * k + 1] = vy;
}

/*
 * Insertion sort of one cell's slots [begin, end) by id, moving positions
 * and velocities along: after the counting sort (whose order within a
 * cell depends on timing on parallel devices), every backend ends with
 * the same order.
 */
CK_FN void ck_gas_order_cell(ck_u32 begin, ck_u32 end,
                             CK_GLOBAL ck_real *position,
                             CK_GLOBAL ck_real *velocity,
                             CK_GLOBAL ck_u32 *id) {
  for (ck_u32 a = begin + 1; a < end; ++a) {
    ck_u32 key = id[a];
    ck_real x = position[2 * a], y = position[2 * a + 1];
    ck_real vx = velocity[2 * a], vy = velocity[2 * a + 1];
    ck_u32 b = a;
    while (b > begin && id[b - 1] > key) {
      id[b] = id[b - 1];
      position[2 * b] = position[2 * b - 2];
      position[2 * b + 1] = position[2 * b - 1];
      velocity[2 * b] = velocity[2 * b - 2];
      velocity[2 * b + 1] = velocity[2 * b - 1];
      --b;
    }
    id[b] = key;
    position[2 * b] = x;
    position[2 * b + 1] = y;
    velocity[2 * b] = vx;
    velocity[2 * b + 1] = vy;
  }
}

/*
 * The whole sort by cell, serially: each slot's cell (key), the cells'
 * counts and starts, the particles scattered into the sorted arrays in
 * slot order, each cell's slots ordered by id (ck_gas_order_cell), and
 * the result copied back into position, velocity and id, and into
 * reference when it is not NULL (a Verlet rebuild). The ref steps sort
 * so, and so does one work-item for a CPU's Verlet rebuilds of small
 * systems; gas.cl's parallel counting sort ends in the same order. fill
 * (cells words) is scratch, left zeroed. A spread member (member 1)
 * gathers its dropped slots past the others, unordered: the cell arrays
 * then hold cells + 1 entries.
 */
CK_FN void
ck_gas_sort_serially(ck_u32 n, ck_u32 cells, int member,
                     const ck_gas_geometry *g, CK_GLOBAL ck_real *position,
                     CK_GLOBAL ck_real *velocity, CK_GLOBAL ck_u32 *id,
                     CK_GLOBAL ck_real *sorted_position,
                     CK_GLOBAL ck_real *sorted_velocity,
                     CK_GLOBAL ck_u32 *sorted_id, CK_GLOBAL ck_u32 *key,
                     CK_GLOBAL ck_u32 *cell_start, CK_GLOBAL ck_u32 *cell_count,
                     CK_GLOBAL ck_u32 *fill, CK_GLOBAL ck_real *reference) {
  /* A member's dropped slots take the key past the last cell. */
  ck_u32 keys = cells + (member ? 1u : 0u);
  for (ck_u32 c = 0; c < keys; ++c)
    cell_count[c] = 0;
  for (ck_u32 k = 0; k < n; ++k) {
    key[k] =
        member
            ? ck_gas_member_key(position[2 * k], position[2 * k + 1], id[k], g)
            : (ck_u32)ck_gas_cell_of(position[2 * k], position[2 * k + 1], g);
    ++cell_count[key[k]];
  }
  ck_u32 running = 0;
  for (ck_u32 c = 0; c < keys; ++c) {
    cell_start[c] = running;
    fill[c] = 0;
    running += cell_count[c];
  }
  for (ck_u32 k = 0; k < n; ++k) {
    ck_u32 slot = cell_start[key[k]] + fill[key[k]]++;
    sorted_position[2 * slot] = position[2 * k];
    sorted_position[2 * slot + 1] = position[2 * k + 1];
    sorted_velocity[2 * slot] = velocity[2 * k];
    sorted_velocity[2 * slot + 1] = velocity[2 * k + 1];
    sorted_id[slot] = id[k];
  }
  for (ck_u32 c = 0; c < keys; ++c) {
    if (c < cells)
      ck_gas_order_cell(cell_start[c], cell_start[c] + cell_count[c],
                        sorted_position, sorted_velocity, sorted_id);
    fill[c] = 0;
  }
  for (ck_u32 k = 0; k < n; ++k) {
    position[2 * k] = sorted_position[2 * k];
    position[2 * k + 1] = sorted_position[2 * k + 1];
    velocity[2 * k] = sorted_velocity[2 * k];
    velocity[2 * k + 1] = sorted_velocity[2 * k + 1];
    id[k] = sorted_id[k];
    if (reference) {
      reference[2 * k] = position[2 * k];
      reference[2 * k + 1] = position[2 * k + 1];
    }
  }
}

/* The force on slot i from every other particle, j in slot order (the
 * all-pairs definition; the OpenCL kernel tiles the same loop). */
CK_FN void
ck_gas_force_from_all(ck_u32 i, ck_u32 n, CK_GLOBAL const ck_real *position,
                      const ck_gas_geometry *g, int model,
                      const ck_gas_pair_constants *constants, ck_real rc,
                      int with_energy, CK_GLOBAL ck_real *force,
                      CK_GLOBAL ck_real *energy, CK_GLOBAL ck_real *virial) {
  ck_real xi = position[2 * i], yi = position[2 * i + 1];
  ck_real fx = CK_R(0), fy = CK_R(0), e = CK_R(0), w = CK_R(0);
  for (ck_u32 j = 0; j < n; ++j) {
    if (j == i)
      continue;
    ck_gas_add_slot(xi, yi, position, j, g, model, constants, rc, with_energy,
                    &fx, &fy, &e, &w);
  }
  ck_gas_store_force(i, fx, fy, e, w, with_energy, force, energy, virial);
}

/* How a histogram bin is counted: an atomic increment where work-items
 * run in parallel (gas.cl defines it so before including this file). */
#ifndef CK_GAS_COUNT
#define CK_GAS_COUNT(counts, bin) (++(counts)[bin])
#endif

/* Counts the pair of (xi, yi) and slot j in its bin when within range. */
CK_FN void ck_gas_bin_pair(ck_real xi, ck_real yi,
                           CK_GLOBAL const ck_real *position, ck_u32 j,
                           const ck_gas_geometry *g, ck_real range2,
                           ck_real per_bin, ck_u32 bins,
                           CK_GLOBAL ck_u32 *counts) {
  ck_real dx, dy;
  ck_gas_separation(xi, yi, position[2 * j], position[2 * j + 1], g, &dx, &dy);
  ck_real r2 = dx * dx + dy * dy;
  if (r2 < range2) {
    ck_u32 bin = (ck_u32)(CK_SQRT(r2) * per_bin);
    CK_GAS_COUNT(counts, bin < bins ? bin : bins - 1);
  }
}

/* Whether slot i counts its pair with slot j: once for every unordered
 * pair, by the lower slot (j > i); in a spread member (member_id not
 * NULL), own slot i counts an own j > i and a ghost of a higher id (the
 * ghost's owner holds the pair too, and counts it the other way). */
CK_FN int ck_gas_rdf_counts(ck_u32 i, ck_u32 j,
                            CK_GLOBAL const ck_u32 *member_id) {
  if (!member_id || ck_gas_own(member_id[j]))
    return j > i;
  return ck_gas_member_id(member_id[j]) > member_id[i];
}

/* Bins the distances from slot i to the slots it counts within range
 * (each unordered pair once, ck_gas_rdf_counts): from the Verlet list
 * (list not NULL; range at most rc), from the cells (cell_start not NULL)
 * around the cell of anchor's slot i (the positions the cells were sorted
 * by: the current ones, or a Verlet rebuild's), else from every slot. A
 * spread member (member_id not NULL) bins its own slots' pairs alone. */
CK_FN void ck_gas_rdf_pairs(
    ck_u32 i, ck_u32 n, CK_GLOBAL const ck_real *position,
    CK_GLOBAL const ck_real *anchor, CK_GLOBAL const ck_u32 *cell_start,
    CK_GLOBAL const ck_u32 *cell_count, CK_GLOBAL const ck_u32 *list,
    CK_GLOBAL const ck_u32 *list_count, ck_u32 capacity,
    const ck_gas_geometry *g, ck_real range, ck_u32 bins,
    CK_GLOBAL ck_u32 *counts, CK_GLOBAL const ck_u32 *member_id) {
  ck_real xi = position[2 * i], yi = position[2 * i + 1];
  ck_real range2 = range * range, per_bin = (ck_real)bins / range;
  if (member_id && !ck_gas_own(member_id[i]))
    return;
  if (list) {
    ck_u32 count = list_count[i] < capacity ? list_count[i] : capacity;
    for (ck_u32 m = 0; m < count; ++m) {
      ck_u32 j = list[ck_gas_list_at(i, m, capacity, CK_GAS_LIST_CHUNK)];
      if (!ck_gas_rdf_counts(i, j, member_id))
        continue;
      ck_gas_bin_pair(xi, yi, position, j, g, range2, per_bin, bins, counts);
    }
    return;
  }
  if (!cell_start) {
    for (ck_u32 j = i + 1; j < n; ++j) {
      ck_gas_bin_pair(xi, yi, position, j, g, range2, per_bin, bins, counts);
    }
    return;
  }
  // clang-format off
  CK_GAS_NEARBY_SLOTS_BEGIN(anchor[2 * i], anchor[2 * i + 1], cell_start,
                            cell_count, g, j)
    if (!ck_gas_rdf_counts(i, j, member_id))
      continue;
    ck_gas_bin_pair(xi, yi, position, j, g, range2, per_bin, bins, counts);
  CK_GAS_NEARBY_SLOTS_END
  // clang-format on
}

/* The geometry, passed to every kernel (OpenCL and native CUDA) as these
 * scalar arguments; CK_GAS_GEOMETRY_BUILD(g) gathers them, with the
 * build-time CK_GAS_PERIODIC_X, CK_GAS_PERIODIC_Y, CK_GAS_WALLS_X and
 * CK_GAS_WALLS_Y. */
#define CK_GAS_GEOMETRY_ARGUMENTS                                              \
  ck_real box_x, ck_real box_y, ck_real cell_inverse_x,                        \
      ck_real cell_inverse_y, int cells_x, int cells_y
#define CK_GAS_GEOMETRY_BUILD(g)                                               \
  ck_gas_geometry g;                                                           \
  g.box_x = box_x;                                                             \
  g.box_y = box_y;                                                             \
  g.cell_inverse_x = cell_inverse_x;                                           \
  g.cell_inverse_y = cell_inverse_y;                                           \
  g.cells_x = cells_x;                                                         \
  g.cells_y = cells_y;                                                         \
  g.periodic_x = CK_GAS_PERIODIC_X;                                            \
  g.periodic_y = CK_GAS_PERIODIC_Y;                                            \
  g.walls_x = CK_GAS_WALLS_X;                                                  \
  g.walls_y = CK_GAS_WALLS_Y

#endif /* CK_GAS_H */
