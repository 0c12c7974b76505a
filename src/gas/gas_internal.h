/*
 * gas_internal.h - the gas driver's state and its table of steps per
 * backend. The driver (gas.c) owns the initial state, the step loop,
 * thermostats' schedules, observables and checkpoints; a step does one
 * phase of a velocity-Verlet step for every particle.
 *
 * Per-particle arrays (position, velocity, force: 2 N reals; energy,
 * virial: N reals; id: N words) are kept in the order of the last sort by
 * cell; id[k] is the particle (0 .. N - 1) in slot k. Sorting by cell
 * (cells mode every step, Verlet mode on rebuilds) orders each cell's
 * particles by id, so the order depends only on the positions: the same
 * on every backend and after a restart.
 */
#ifndef CK_GAS_INTERNAL_H
#define CK_GAS_INTERNAL_H

#include "ck_gas.h"
#include "clkit/clkit.h"
#include "clkit/gas.h"
#include "clkit/spread.h"
#include "clkit/workload.h"
#include "runtime/runtime.h"

typedef struct gas_state gas_state;
typedef struct gas_native gas_native;

typedef struct ck__gas_steps {
  ck_status (*setup)(gas_state *state);
  /* v += dt/2 f; x += dt v; wrap or reflect; each particle's cell key;
   * Verlet mode: flags a rebuild once someone moved more than skin / 2. */
  ck_status (*kick_drift)(gas_state *state);
  /* Cells mode: sort the particles by cell (stable by id), fill the cell
   * ranges. Verlet mode: the same and the neighbour lists, when flagged
   * (or when forced, at the start). */
  ck_status (*neighbors)(gas_state *state, int force_rebuild);
  /* Forces, and each particle's half of its pairs' energy and virial.
   * With state->kick_step set, a backend may also do that step's kick
   * (below) in the same pass; it then clears kick_step. If it did, and
   * state->ahead is set, it may go on with the next step's kick_drift and
   * set state->drifted, and the driver then skips that kick_drift. */
  ck_status (*forces)(gas_state *state);
  /* v += dt/2 f, then the Langevin step (friction and noise of `step`). */
  ck_status (*kick)(gas_state *state, uint64_t step);
  /* Velocity rescaling to the target temperature (on the device). */
  ck_status (*rescale)(gas_state *state);
  /* Sums over particles, read back: kinetic energy, potential energy,
   * virial, momentum x and y. */
  ck_status (*reduce)(gas_state *state, double sums[5]);
  /* Adds each unordered pair closer than range to histogram bins of width
   * range / bins (the device buffer rdf, bins words). */
  ck_status (*rdf)(gas_state *state, uint32_t bins, double range);
  void (*teardown)(gas_state *state);
} ck__gas_steps;

struct gas_state {
  ck_queue *queue;
  ck_device device;
  int double_precision;
  size_t real_size;
  uint32_t particles;
  int model, walls, neighbors, thermostat;
  double box_x, box_y, dt, rc, skin;
  /* The pair constants (see ck_gas_pair_constants), in double here: this
   * struct is shared by code built for float and for double. */
  double rc2, energy_shift, force_shift, strength, softening2;
  double langevin_damping, langevin_noise; /* exp(-gamma dt), its kick */
  double target_temperature, degrees_of_freedom;
  uint64_t seed;
  /* 1 when the next forces step must also store each particle's energy
   * and virial (someone will read them); forces are the same either way. */
  int with_energy;
  /* The step whose second half-kick follows the next forces step, or 0
   * (at the start, before any step): the forces step may do the kick and
   * clear this, and the driver then skips the kick step. */
  uint64_t kick_step;
  /* 1 while the next forces step may also take the following step's
   * first half (nothing reads or changes the state in between), and 1
   * once it has (see ck__gas_steps.forces). */
  int ahead, drifted;
  /* Cells: cells_x by cells_y, each at least the interaction range wide,
   * and at most a few a particle unless fine_cells (ck__gas_forms). */
  int cells_x, cells_y, fine_cells;
  double cell_inverse_x, cell_inverse_y;
  uint32_t cells;
  /* Verlet lists: capacity neighbours a particle. */
  uint32_t list_capacity;
  ck_buffer *position, *velocity, *force, *energy, *virial, *id;
  ck_buffer *sorted_position, *sorted_velocity, *sorted_id;
  ck_buffer *cell_key, *cell_rank;    /* per particle */
  ck_buffer *cell_count, *cell_start; /* per cell */
  ck_buffer *cell_fill;               /* per cell, atomic counters */
  ck_buffer *block_sum;               /* the scan's per-block totals */
  ck_buffer *reference;               /* Verlet: positions at the build */
  ck_buffer *list, *list_count;       /* Verlet: neighbours per particle */
  ck_buffer *flags;                   /* [0] rebuild, [1] list overflow */
  ck_buffer *sums, *partial_sums;     /* reductions */
  ck_buffer *rdf_counts;
  uint32_t rdf_bins;
  uint32_t scan_block, scan_blocks, reduce_group, reduce_groups;
  /* OpenCL */
  ck_program *program;
  ck_kernel *kick_drift_kernel, *count_kernel, *scan_kernel,
      *scan_totals_kernel, *scatter_kernel, *order_kernel, *copy_back_kernel,
      *list_kernel, *forces_kernel, *forces_list_kernel, *forces_all_kernel,
      *kick_kernel, *reduce_kernel, *reduce_total_kernel, *rescale_kernel,
      *rdf_kernel;
  unsigned group;
  /* All pairs through local-memory tiles: -1 by device (GPUs), 1 or 0. */
  int tiles;
  int local_tiles; /* the form in use */
  /* Cells and Verlet modes on CPU devices: forces from runs of slots,
   * `lanes` at a time (ck_gas_forces_strips): -1 on CPUs, 1 on any
   * OpenCL device, 0 never; strips the form in use (then Verlet mode keeps
   * its rebuild's cells instead of lists). lanes is the strip kernel's
   * vector width, 0 where the program leaves it out. */
  int strips_request, strips;
  unsigned lanes;
  ck_kernel *forces_strips_kernel;
  /* Verlet rebuilds sorted by one work-item (ck_gas_sort_whole): -1 for
   * small systems on CPUs, 1 always, 0 never; sort_whole the choice. */
  int sort_request, sort_whole;
  ck_kernel *sort_whole_kernel;
  /* Tiled all pairs: the j range in `slices` parts, each part's partial
   * sums (4 reals a particle) added by sum_slices_kernel. */
  uint32_t slices;
  ck_buffer *slice_sums;
  ck_kernel *sum_slices_kernel;
  /* CUDA: the native steps' own (gas_cuda.c), the kernels of cl/gas.cu
   * for cell lists. */
  gas_native *native;
};

/* Kernel arguments shared by the OpenCL and CUDA steps (gas_opencl.c),
 * added to a cursor: the geometry's 6 (box, cell inverses, cell counts),
 * and the kick's 8 (CK_GAS_KICK_ARGUMENTS of gas.cl, and the native
 * forces of gas.cu): the kick of the driver's kick_step, or none while it
 * is 0. */
void ck__gas_add_geometry(const gas_state *state, ck_kernel_args *args);
void ck__gas_add_kick(const gas_state *state, ck_kernel_args *args);
/* After a sort into the sorted arrays: they become the particles (the
 * buffers swap roles). */
void ck__gas_take_sorted(gas_state *state);

extern const ck__gas_steps ck__gas_ref_steps_f32;
extern const ck__gas_steps ck__gas_ref_steps_f64;
extern const ck__gas_steps ck__gas_opencl_steps;
/* Built with CUDA only (CK__CUDA_STEPS): the sort by cell and the forces
 * by the native kernels of cl/gas.cu, over the OpenCL steps. */
extern const ck__gas_steps ck__gas_cuda_steps;
/* Whether the native CUDA steps serve this state: cell lists in single
 * precision, with at least 3 cells each way in a periodic box. */
int ck__gas_cuda_native(const gas_state *state);

/* The state behind a gas, for tests. */
gas_state *ck__gas_state(ck_gas *gas);
/* How the OpenCL steps read pairs where they have a choice. tiles: all
 * pairs staged in local memory (1), read directly (0) or by device (-1);
 * strips: forces from runs of slots on CPU devices (-1), on any OpenCL
 * device (1) or never (0); sort: Verlet rebuilds sorted by one work-item
 * for small systems on CPUs (-1), always (1) or never (0). fine_cells: 1
 * for cells as narrow as the range allows however few the particles (for
 * tests; checkpoints do not keep it), 0 for at most a few a particle. */
typedef struct ck__gas_forms {
  int tiles, strips, sort, fine_cells;
} ck__gas_forms;
#define CK__GAS_FORMS_BY_DEVICE ((ck__gas_forms){-1, -1, -1, 0})

/* ck_gas_create() in either precision (double on ref, or on devices with
 * fp64) and with the forms chosen (CK__GAS_FORMS_BY_DEVICE: as
 * ck_gas_create() picks them), for the CLI, tests and benchmarks. With
 * temperature_given set (the workload knows which settings were given), a
 * start from an XYZ file that holds velocities is refused
 * (CK_ERROR_INVALID_ARGUMENT naming T and the file) rather than leave the
 * temperature unused. */
ck_status ck__gas_create_tuned(const ck_device *device,
                               const ck_gas_config *config,
                               int double_precision, ck__gas_forms forms,
                               int temperature_given, ck_gas **gas);

/* The box of a configuration without a file: its sides (box_x, box_y),
 * else a square at its density and particle count; fills in the other of
 * box and density. CK_ERROR_INVALID_ARGUMENT naming --box or --rho for a
 * side outside [CK_GAS_MIN_SIDE, CK_GAS_MAX_SIDE]. */
ck_status ck__gas_resolve_box(ck_gas_config *config);

/* The fields of ck_gas_config with their defaults and ranges
 * (gas_fields.c): ck_gas_config_init and the checks read them, and the
 * workload's options point into them. */
enum {
  CK__GAS_PARTICLES,
  CK__GAS_DENSITY,
  CK__GAS_BOX_X,
  CK__GAS_BOX_Y,
  CK__GAS_LATTICE,
  CK__GAS_TEMPERATURE,
  CK__GAS_MODEL,
  CK__GAS_RC,
  CK__GAS_SHIFT,
  CK__GAS_STRENGTH,
  CK__GAS_SOFTENING,
  CK__GAS_DT,
  CK__GAS_WALLS,
  CK__GAS_THERMOSTAT,
  CK__GAS_TARGET_TEMPERATURE,
  CK__GAS_GAMMA,
  CK__GAS_RESCALE_EVERY,
  CK__GAS_NEIGHBORS,
  CK__GAS_SKIN,
  CK__GAS_SEED,
  CK__GAS_XYZ_PATH,
  CK__GAS_FIELDS
};
extern const ck__field ck__gas_fields[CK__GAS_FIELDS];

/* ---- spread runs (gas_spread.c) ------------------------------------------
 *
 * A gas spread over devices: the box is cut into slabs along x, one a
 * member, each holding its particles and ghost copies of its neighbours'
 * within reach of its borders. Calls marked collective are made by every
 * process of the spread, in the same order.
 */
typedef struct ck__gas_spread ck__gas_spread;

/* The configurations a spread runs: Lennard-Jones with cells or Verlet
 * lists. Others: CK_ERROR_UNSUPPORTED naming the field. */
ck_status ck__gas_spread_check(const ck_gas_config *config);
/* The members of this process, and the exchange among all (collective).
 * Nothing is dealt yet. */
ck_status ck__gas_spread_begin(const ck_spread *spread, ck__gas_spread **made);
/* Deals the particles (positions and velocities, id order, of the
 * resolved config) to the slabs at `step`, and computes their first
 * forces (collective). Errors name a slab narrower than rc + skin. */
ck_status ck__gas_spread_start(ck__gas_spread *spread,
                               const ck_gas_config *config, uint64_t step,
                               ck__gas_forms forms, const double *positions,
                               const double *velocities);
/* `steps` velocity-Verlet steps (collective). */
ck_status ck__gas_spread_step(ck__gas_spread *spread, uint64_t steps);
/* The step the members reached. */
uint64_t ck__gas_spread_steps(const ck__gas_spread *spread);
/* The sums of ck__gas_steps.reduce over all members; *overflowed 1 where
 * a member's Verlet list overflowed its capacity (collective). */
ck_status ck__gas_spread_sums(ck__gas_spread *spread, double sums[5],
                              uint32_t *overflowed, uint32_t *capacity);
/* Every particle's position (in the box), velocity, force, energy and
 * virial in id order, on every process; NULL skips one (collective). */
ck_status ck__gas_spread_particles(ck__gas_spread *spread, double *positions,
                                   double *velocities, double *forces,
                                   double *energies, double *virials);
/* Adds the pair histogram of ck_gas_accumulate_rdf (range at most rc)
 * over all members to counts (collective). */
ck_status ck__gas_spread_rdf(ck__gas_spread *spread, size_t bins, double range,
                             uint64_t *counts);
/* Each process's status, agreed (collective): the first failure for all;
 * the process that failed keeps its own message. */
ck_status ck__gas_spread_agree(ck__gas_spread *spread, ck_status status);
/* Member 0's bytes to every process (collective). */
ck_status ck__gas_spread_broadcast(ck__gas_spread *spread, void *data,
                                   size_t size);
/* This process's rank (0 alone). */
int ck__gas_spread_rank(const ck__gas_spread *spread);
/* 1 when this process's first member computes forces from strips. */
int ck__gas_spread_strips(const ck__gas_spread *spread);
/* Waits for every member's queue; their kernel seconds, summed. */
ck_status ck__gas_spread_finish(ck__gas_spread *spread, double *kernel_s);
/* The members in a result: owned particles and times (collective). */
ck_status ck__gas_spread_report(ck__gas_spread *spread, ck_result *result);
void ck__gas_spread_destroy(ck__gas_spread *spread);
/* The spread behind a gas, or NULL. */
ck__gas_spread *ck__gas_spread_of(ck_gas *gas);

/* ck_gas_create_spread with the forms chosen and temperature_given as
 * ck__gas_create_tuned. */
ck_status ck__gas_create_spread_tuned(const ck_spread *spread,
                                      const ck_gas_config *config,
                                      ck__gas_forms forms,
                                      int temperature_given, ck_gas **gas);

/* A member's device state (gas.c): forces only, for up to
 * config->particles particles in a box with walls (config's box), where
 * ghost copies stand for periodic images. */
ck_status ck__gas_member_create(const ck_device *device,
                                const ck_gas_config *config,
                                ck__gas_forms forms, ck_gas **member);
/* Queues count positions (2 count reals, in the member's box) and their
 * forces; with ids (count words) the particles are new: they are sorted
 * by cell first (and Verlet lists built), else they keep the slots of
 * the last sort. */
ck_status ck__gas_member_forces(ck_gas *member, size_t count,
                                const double *positions, const uint32_t *ids,
                                int with_energy);
/* Reads what the last ck__gas_member_forces made, in slot order: the ids
 * (NULL skips), forces, energies and virials (NULL skips), and the
 * Verlet overflow flag (NULL skips). */
ck_status ck__gas_member_read(ck_gas *member, uint32_t *ids, double *forces,
                              double *energies, double *virials,
                              uint32_t *overflow);
ck_queue *ck__gas_member_queue(ck_gas *member);
/* The degrees of freedom of a configuration's particles. */
double ck__gas_degrees_of_freedom(const ck_gas_config *config);

#endif /* CK_GAS_INTERNAL_H */
