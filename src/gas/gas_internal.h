/*
 * gas_internal.h - the gas driver's state and its table of steps per
 * backend. The driver owns the initial state (gas_create.c), the step
 * loop, thermostats' schedules and observables (gas.c), and checkpoints
 * (gas_checkpoint.c); a step does one phase of a velocity-Verlet step for
 * every particle.
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

#include <assert.h>

#include "ck_gas.h"
#include "clkit/clkit.h"
#include "clkit/gas.h"
#include "clkit/spread.h"
#include "clkit/workload.h"
#include "framework/framework.h"
#include "gas/gas_io.h"
#include "runtime/exchange.h"
#include "runtime/runtime.h"

typedef struct gas_state gas_state;
typedef struct gas_native gas_native;
typedef struct ck__gas_spread ck__gas_spread;

/* A neighbour that a resident member pulls from (ck__gas_steps.pull):
 * the addresses, on the puller's device, of its packed outbox and its
 * control words (the halo's views, framework/halo.h), and the entries a
 * region of its outbox holds. */
typedef struct ck__gas_source {
  uint64_t packed, control;
  uint32_t capacity;
  /* Entries of a leavers region that may be read: capacity, or the first
   * so many where only they crossed (NCCL's mirrors). */
  uint32_t leavers;
} ck__gas_source;

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
  /* A spread member's exchange steps (the halo's ops and resident steps of
   * gas_member_exchange.c and gas_spread_steps.c; ck_gas.h's spread members),
   * over the member buffers below. Each takes the stage of the exchange (0:
   * along x; 1: a grid's stage along y), whose coordinate it compares and
   * shifts. select: each side's list of own slots that leave the slab [lo, hi)
   * (mode 0; in stage 0 ghosts are dropped) or lie within reach of a border
   * (mode 1; in stage 1 stage 0's ghosts too), and their counts (read back,
   * every entry counted, those past message_capacity not stored). post: count
   * entries of member_list from base into a rebuild's message at word `at` of
   * the packed outbox (ck_gas.h's layout, ghost 1 for ghosts' entries), shift
   * added, a migrant's slot then dropped; with kept not 0, each entry's word
   * and position as they are at word kept too. accept: count entries of the
   * packed inbox from word `at` into the slots from first (a ghost's word
   * marked, those from entry from_next as the next member's); a migrant outside
   * [lo, hi) puts the least such entry in member_counts[2]. gather (between
   * rebuilds): the positions of count exports from entry base of export_slots
   * into the outbox, 2 reals an entry, shift[0] added to the first split
   * (toward the previous member), shift[1] to the rest. locate: the slots,
   * after a sort, of count entries (3 words each: word, position) from word
   * `at` of the packed outbox into export_slots from base, or with ghost 1 of
   * the packed inbox into ghost_slots (words marked as accept marks them).
   * unpack: in_real's first count positions into the slots of ghost_slots from
   * base. census: the own particles' count, sum of ids and of their hashes.
   * scale: every velocity times factor. */
  ck_status (*select)(gas_state *state, int mode, double lo, double hi,
                      double reach, int stage, uint32_t counts[2]);
  ck_status (*post)(gas_state *state, uint32_t base, uint32_t count,
                    double shift, int ghost, uint32_t at, uint32_t kept,
                    int stage);
  ck_status (*accept)(gas_state *state, uint32_t first, uint32_t count,
                      int ghost, uint32_t from_next, uint32_t at, double lo,
                      double hi, int stage);
  ck_status (*gather)(gas_state *state, uint32_t base, uint32_t count,
                      uint32_t split, const double shift[2], int stage);
  ck_status (*locate)(gas_state *state, int ghost, uint32_t base,
                      uint32_t count, uint32_t at, uint32_t from_next);
  ck_status (*unpack)(gas_state *state, uint32_t base, uint32_t count);
  /* parts (Verlet, after a rebuild's sort): each slot's part of the
   * forces into part_mark (ck_gas_member_part), by the borders of its
   * slab along x and y (borders[0..3]: lo_x, hi_x, lo_y, hi_y); each
   * border slot into border_slots, flags[3] counting them from 0. */
  ck_status (*parts)(gas_state *state, const double borders[4], double reach);
  ck_status (*census)(gas_state *state, uint64_t census[3]);
  ck_status (*scale)(gas_state *state, double factor);
  /* A cells-mode member's step out, which comes every step: with move 1
   * the first half-step, then each slot by ck_gas_member_classify (along
   * the stage's axis; stage 1 moves nothing and passes ghosts on), its
   * leavers and exports into the packed outbox by region (before lo, past
   * hi, near lo, near hi) as ck_gas_member_put lays them out
   * (message_capacity entries a region; x plus shift[0] toward the
   * previous member, shift[1] toward the next), counted in
   * member_counts[region] (on the device; again as ck_gas_member_leave's). */
  ck_status (*leave)(gas_state *state, int move, double lo, double hi,
                     double reach, const double shift[2], int again, int stage);
  /* A resident member's step (state->resident; ck_gas.h): leave packs
   * into the half of the outbox and the counts of state->parity, and
   * neighbors and forces take their slot counts from the control words.
   * pull appends what the previous member (from[0]) and the next
   * (from[1]) packed at this parity, migrants outside [lo, hi) named as
   * strays; NULL where the backend has no resident step. */
  ck_status (*pull)(gas_state *state, const ck__gas_source from[2], double lo,
                    double hi);
} ck__gas_steps;

struct gas_state {
  ck_queue *queue;
  ck_device device;
  int double_precision;
  size_t real_size;
  uint32_t particles;
  int model, walls, neighbors, thermostat;
  /* The axes' boundaries (ck_gas_geometry): periodic or walls, both one
   * way for a run's box (walls); a spread member's is closed along x, and
   * a grid's member along y too. Where an axis is not periodic, its
   * walls: at 0 (1), at the side (2). */
  int periodic_x, periodic_y;
  int walls_x, walls_y;
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
  /* Verlet mode: the bit of the device's rebuild flag (flags[0]) that
   * this step's rebuild reads, 1 << rebuild_parity. A forces step that
   * takes the next first half sets the other bit and flips the parity. */
  int rebuild_parity;
  /* Cells: cells_x by cells_y, each at least the interaction range wide,
   * and at most a few a particle unless fine_cells (ck__gas_forms). */
  int cells_x, cells_y, fine_cells;
  double cell_inverse_x, cell_inverse_y;
  uint32_t cells;
  /* Verlet lists: capacity neighbours a particle, in chunks of list_chunk
   * slots (cl/ck_gas.h's ck_gas_list_at: 32 on GPUs, else 1). */
  uint32_t list_capacity, list_chunk, list_chunk_request;
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
      *scan_totals_kernel, *scatter_kernel, *order_kernel, *place_kernel,
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
  /* A spread member (gas_member.c): 1, and its buffers. Its skin serves
   * cells mode too: it rebuilds as Verlet lists do, and its forces come
   * from the rebuild's cells (rc + skin wide) or lists. */
  int member;
  int slab;  /* a member of slabs (one stage), not of a grid */
  int tiers; /* a slab that may sort in two tiers (gas.cu), where large */
  /* A resident step's tag (from 1 at each run of them; 0 where none is
   * waited for): gas.cu's sort publishes it once its outbox is whole, and
   * its neighbours' forces wait for it. */
  uint32_t step_tag;
  /* 1 where its backend's slab step waits for its neighbours' tags on the
   * device (gas.cu), so that its queue need not follow theirs. */
  int waits_for_tags;
  uint32_t slots;            /* slots it has room for */
  int resident, parity;      /* a resident step, and its step's parity */
  ck_buffer *member_control; /* CK_GAS_CONTROL_WORDS words */
  uint32_t message_capacity; /* entries of a side's list and outbox */
  uint32_t inbox_capacity;   /* entries of the inbox and ghost slots */
  /* Words at the packed inbox's start that stay when it is made anew (a
   * grid's stage 0 ghosts, which its sort looks for), until the sort. */
  uint32_t inbox_kept;
  ck_buffer *id_snapshot; /* the words before a grid's stage 1 step out */
  /* A Verlet member's forces in parts (ck_gas_member_part): the part the
   * next forces take (0: all), each slot's part (slots words), and the
   * border's slots listed (border_count of them, flags[3] on the device,
   * as the last pack read it: border_known 1 from then to the next
   * parts). */
  int force_part;
  ck_buffer *part_mark, *border_slots;
  uint32_t border_count;
  int border_known;
  /* A queue beside the member's own (ck__queue_beside; NULL where its
   * backend has none), made at its first use: it writes the ghosts'
   * positions while the interior's forces run (its kernels' time, which
   * overlaps theirs, is left out of the member's). aside_marked: its
   * last mark not yet followed. */
  ck_queue *aside;
  int aside_tried, aside_marked;
  ck_buffer *member_list;   /* 2 sides x capacity slots, selected */
  ck_buffer *member_counts; /* 4 words: each side's or region's count,
                             * and [2] an accept's stray after it */
  ck_buffer *out_real;      /* 4 x capacity x 2 reals: the outbox */
  ck_buffer *in_real;       /* inbox_capacity x 2 reals: the inbox */
  ck_buffer *export_slots;  /* 4 x capacity: the slots sent, a stage's
                             * sides one after the other in its two
                             * capacities (and so in out_real) */
  ck_buffer *ghost_slots;   /* inbox_capacity: the ghosts' slots */
  /* A rebuild's messages, words as ck_gas.h lays them out: the packed
   * outbox (CK_GAS_PACKED_WORDS x capacity) and inbox (CK_GAS_ENTRY_WORDS
   * x inbox_capacity). */
  ck_buffer *out_packed, *in_packed;
  ck_buffer *census_sums; /* 3 words of 8 a reduction group */
  /* Host memory (the queue's fastest, runtime.h): the member's writes from
   * the host go from staging.write without a wait (received messages,
   * ghosts' positions), and reads for the host go to staging.read: a
   * cells-mode outbox, or the messages and positions a member sends (the
   * halo's post and pack, gas_member_exchange.c). What a read
   * left there stays until the member's next such read. */
  ck__staging staging;
  /* A cells-mode member's outbox entries read with their counts,
   * unasked (each region's): the last step's and a quarter more. */
  uint32_t leave_guess[4];
  ck_kernel *select_kernel, *gather_kernel, *locate_kernel, *unpack_kernel,
      *census_kernel, *scale_kernel, *leave_kernel, *post_kernel,
      *accept_kernel, *parts_kernel;
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
/* Ends args, then launches their kernel over items work-items (at least
 * one group), in groups of group: the OpenCL steps' launch
 * (gas_opencl.c). */
ck_status ck__gas_opencl_launch(gas_state *state, ck_kernel_args *args,
                                size_t items, size_t group);
/* Sets kernel's arguments from a list (ck__kernel_args_list, in the
 * state's precision), then launches it over items work-items in groups of
 * state->group (ck__gas_opencl_launch). */
ck_status ck__gas_opencl_run(gas_state *state, ck_kernel *kernel, size_t items,
                             const char *kinds, ...);
/* The OpenCL kick_drift step (gas_opencl.c), which a member's leave makes
 * first when it moves. */
ck_status ck__gas_opencl_kick_drift(gas_state *state);
/* A spread member's OpenCL steps (gas_member_opencl.c): those of
 * ck__gas_steps of the same names, in ck__gas_opencl_steps. */
ck_status ck__gas_opencl_select(gas_state *state, int mode, double lo,
                                double hi, double reach, int stage,
                                uint32_t counts[2]);
ck_status ck__gas_opencl_post(gas_state *state, uint32_t base, uint32_t count,
                              double shift, int ghost, uint32_t at,
                              uint32_t kept, int stage);
ck_status ck__gas_opencl_accept(gas_state *state, uint32_t first,
                                uint32_t count, int ghost, uint32_t from_next,
                                uint32_t at, double lo, double hi, int stage);
ck_status ck__gas_opencl_gather(gas_state *state, uint32_t base, uint32_t count,
                                uint32_t split, const double shift[2],
                                int stage);
ck_status ck__gas_opencl_locate(gas_state *state, int ghost, uint32_t base,
                                uint32_t count, uint32_t at,
                                uint32_t from_next);
ck_status ck__gas_opencl_unpack(gas_state *state, uint32_t base,
                                uint32_t count);
ck_status ck__gas_opencl_parts(gas_state *state, const double borders[4],
                               double reach);
ck_status ck__gas_opencl_census(gas_state *state, uint64_t census[3]);
ck_status ck__gas_opencl_scale(gas_state *state, double factor);
ck_status ck__gas_opencl_leave(gas_state *state, int move, double lo, double hi,
                               double reach, const double shift[2], int again,
                               int stage);

extern const ck__gas_steps ck__gas_ref_steps_f32;
extern const ck__gas_steps ck__gas_ref_steps_f64;
extern const ck__gas_steps ck__gas_opencl_steps;
/* Built with CUDA only (CK__CUDA_STEPS): the sort by cell and the forces
 * by the native kernels of cl/gas.cu, over the OpenCL steps. */
extern const ck__gas_steps ck__gas_cuda_steps;
/* Whether the native CUDA steps serve this state: cell lists in single
 * precision, with at least 3 cells each way in a periodic box. */
int ck__gas_cuda_native(const gas_state *state);

/* A gas: its state and steps (gas.c), or a spread gas's front, whose
 * members hold the particles. */
struct ck_gas {
  gas_state state;
  const ck__gas_steps *steps;
  ck__gas_steps merged_steps; /* native steps over the base's */
  ck_gas_config config;
  uint64_t step;
  /* 1 where the start drew the velocities at the config's temperature (a
   * lattice, or an XYZ file without them); 0 for a file's or a
   * checkpoint's. */
  int drew_velocities;
  /* A gas spread over devices (gas_spread.c), or NULL: its members hold
   * the particles, and this state holds no buffers. */
  ck__gas_spread *spread;
};

/* Work-items a group of the OpenCL steps' per-particle kernels on GPUs
 * (gas_opencl.c), and so the most that stage their lists together. */
#define CK__GAS_GPU_GROUP 256u

/* The state behind a gas, for tests: a whole box's member's. */
gas_state *ck__gas_state(ck_gas *gas);
/* The gas that holds the particles where one does: a spread of one
 * member's member, else gas itself (a spread of several, or a member). */
ck_gas *ck__gas_alone(ck_gas *gas);
/* How the OpenCL steps read pairs where they have a choice. tiles: all
 * pairs staged in local memory (1), read directly (0) or by device (-1);
 * strips: forces from runs of slots on CPU devices (-1), on any OpenCL
 * device (1) or never (0); sort: Verlet rebuilds sorted by one work-item
 * for small systems on CPUs (-1), always (1) or never (0). fine_cells: 1
 * for cells as narrow as the range allows however few the particles (for
 * tests; checkpoints do not keep it), 0 for at most a few a particle.
 * list_chunk: the Verlet lists' chunk (ck_gas_list_at), or 0 by device
 * (32 on GPUs, else 1), so that tests read the GPUs' layout on CPUs. */
typedef struct ck__gas_forms {
  int tiles, strips, sort, fine_cells;
  unsigned list_chunk;
} ck__gas_forms;
#define CK__GAS_FORMS_BY_DEVICE ((ck__gas_forms){-1, -1, -1, 0, 0})

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

/* ---- spread runs (gas_spread*.c) -----------------------------------------
 *
 * A gas spread over devices: the box is cut into slabs along x, one a
 * member, each holding its particles and ghost copies of its neighbours'
 * within reach of its borders. Calls marked collective are made by every
 * process of the spread, in the same order.
 */

/* The configurations a spread runs: Lennard-Jones with cells or Verlet
 * lists. Others: CK_ERROR_UNSUPPORTED naming the field. */
ck_status ck__gas_spread_check(const ck_gas_config *config);
/* The members of this process, and the exchange among all (collective).
 * Nothing is dealt yet. */
ck_status ck__gas_spread_begin(const ck_spread *spread, ck__gas_spread **made);
/* Takes `whole`, a gas made and started on the spread's one device (not
 * a spread's), as its member: ck__gas_spread_start then deals nothing
 * and starts nothing. The spread owns `whole` from here. */
void ck__gas_spread_adopt(ck__gas_spread *spread, ck_gas *whole);
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
/* 1 when what crosses between members goes device to device (every
 * member a CUDA device of this one process, and CLKIT_PEER not 0), else
 * 0: through host memory. */
int ck__gas_spread_on_devices(const ck__gas_spread *spread);
/* The steps taken resident (cells mode without the host), in all. */
uint64_t ck__gas_spread_resident_steps(const ck__gas_spread *spread);
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
/* Where a gas runs, for its default neighbours: one device (a gas
 * alone, or a spread's whole box), or `members` members (device NULL),
 * all GPUs or not, whose cell lists would step device to device
 * (resident) or not. */
typedef struct ck__gas_place {
  const ck_device *device;
  size_t members;
  int gpus, resident;
} ck__gas_place;
/* CK_GAS_NEIGHBORS_AUTO in c made a mode for place and c's particles
 * (clkit/gas.h); any other mode is kept. */
void ck__gas_pick_neighbors(const ck__gas_place *place, ck_gas_config *c);
/* Where a spread's members run. */
ck__gas_place ck__gas_spread_place(const ck__gas_spread *spread);
/* 1 when this process's first member computes forces from strips. */
int ck__gas_spread_strips(const ck__gas_spread *spread);
/* Waits for every member's queue; their kernel seconds, summed. */
ck_status ck__gas_spread_finish(ck__gas_spread *spread, double *kernel_s);
/* The members in a result: owned particles and times, their compute
 * time their queues' kernel time where kept (collective). */
ck_status ck__gas_spread_report(ck__gas_spread *spread, ck_result *result);
/* Starts the members' clocks for the report (ck__engine_clocks_start). */
void ck__gas_spread_clocks_start(ck__gas_spread *spread);
void ck__gas_spread_destroy(ck__gas_spread *spread);
/* The spread behind a gas, or NULL; local member i's device state, for
 * tests. */
ck__gas_spread *ck__gas_spread_of(ck_gas *gas);
ck_gas *ck__gas_spread_member(ck__gas_spread *spread, size_t i);
/* The member of a spread of one member (the whole box), else NULL. */
ck_gas *ck__gas_spread_whole(ck__gas_spread *spread);

/* ck_gas_create_spread with the forms chosen and temperature_given as
 * ck__gas_create_tuned. */
ck_status ck__gas_create_spread_tuned(const ck_spread *spread,
                                      const ck_gas_config *config,
                                      ck__gas_forms forms,
                                      int temperature_given, ck_gas **gas);

/* ---- a spread member's device state (gas_create.c, gas_member*.c) --------
 *
 * A member (ck_gas.h's spread members) is a ck_gas in single precision
 * whose box is config's (its slab and margins along x, not periodic, with
 * reflecting walls where walls_x says, the run's own; along y the run's
 * box where walls_y is below 0, else closed as along x), with room for
 * config->particles slots, messages entries a side in its message
 * buffers, and no particles yet.
 */
ck_status ck__gas_member_make(const ck_device *device,
                              const ck_gas_config *config, ck__gas_forms forms,
                              uint32_t messages, int walls_x, int walls_y,
                              int tiers, int build, ck_gas **member);
/* A member made with build 0 holds its memory but no programs yet (so
 * that members agree that all fit before any builds): this builds
 * them. */
ck_status ck__gas_member_build(ck_gas *member);
/* The member buffers of a state: its outbox's for `messages` entries a
 * side (made anew; the old ones freed; the inbox made too, for twice as
 * many, where there is none), the inbox's grown to hold `entries`, the
 * bytes of all, and freeing them. */
ck_status ck__gas_member_messages(gas_state *state, uint32_t messages);
ck_status ck__gas_member_inbox_room(gas_state *state, size_t entries);
double ck__gas_member_message_bytes(const gas_state *state, uint32_t messages);
void ck__gas_member_messages_free(gas_state *state);
/* Room for `slots` slots: where the member holds fewer, it is made again
 * with more (a quarter to spare), its slots in use copied; *member then
 * changes. */
ck_status ck__gas_member_reserve(ck_gas **member, size_t slots);
/* Appends what it received: from each side migrants[side] entries then
 * ghosts[side] (written to the packed inbox first, from its word `base`,
 * from in[side], the side's message in ck_gas.h's layout), room made
 * first (*member may be made again; the inbox's first `base` words go
 * along). Migrants must lie in [lo, hi) along the stage's axis: the
 * first that does not, or CK_GAS_NO_STRAY, goes to *stray without a
 * wait, there once the member's queue has been waited for. */
ck_status ck__gas_member_admit(ck_gas **member, const uint32_t migrants[2],
                               const uint32_t ghosts[2],
                               const void *const in[2], double lo, double hi,
                               int stage, uint32_t base, uint32_t *stray);
/* The border's slots that the last rebuild listed, as a pack read them. */
static inline uint32_t ck__gas_member_border(const gas_state *state) {
  assert(state->border_known);
  return state->border_count;
}
/* Its own queue follows what the queue beside it last wrote, if not yet:
 * before its forces and its pack. */
ck_status ck__gas_member_join(gas_state *state);
/* Forces, and the kick of step kick_step (0: none): of every slot (part
 * 0), or of the interior (part 1) or border (part 2) slots of a Verlet
 * member, as its last rebuild marked them; part 1 then part 2 make one
 * step's. With ahead, where the steps can (Verlet lists on a device),
 * the kick's pass also takes the next step's first half-step (the next
 * drift then has nothing left to do): every part of the step must ask
 * for it alike. */
ck_status ck__gas_member_forces(ck_gas *member, int part, int with_energy,
                                uint64_t kick_step, int ahead);
/* Adds its own particles' pairs within range (ck_gas_rdf_counts) to
 * counts (bins). */
ck_status ck__gas_member_rdf(ck_gas *member, size_t bins, double range,
                             uint64_t *counts);
/* The degrees of freedom of a configuration's particles. */
double ck__gas_degrees_of_freedom(const ck_gas_config *config);

/* ---- shared between the driver's files -----------------------------------
 *
 * gas_build.c checks configurations and builds device states; creation
 * (gas_create.c) and checkpoints (gas_checkpoint.c) both call it.
 */
/* The settings that do not depend on the box, against ck__gas_fields. */
ck_status ck__gas_check_config(const ck_gas_config *config);

/* The entries a Verlet list holds with this skin: twice the neighbours
 * of the densest plausible packing within rc + skin; and whether that is
 * within what lists serve (past it, cell lists serve better). */
double ck__gas_list_capacity(const ck_gas_config *config, double skin);
int ck__gas_lists_fit(const ck_gas_config *config, double skin);
/* In a periodic box, a Lennard-Jones cutoff within half of each side. */
ck_status ck__gas_check_cutoff_fits(const ck_gas_config *config);
/* Whether a box side lies in [CK_GAS_MIN_SIDE, CK_GAS_MAX_SIDE]. */
int ck__gas_side_fits(double side);
/* gas's constants, forms, steps and buffers for its resolved
 * configuration on device, in double precision where asked; the steps'
 * setup (their programs) too where build is set. */
ck_status ck__gas_build_state(const ck_device *device, ck_gas *gas,
                              int double_precision, int build);
/* A spread gas over the spread's members (gas_create.c), which start
 * from positions and velocities (id order) at step; the members are
 * taken over, and destroyed on failure. */
ck_status ck__gas_wrap_spread(ck__gas_spread *spread, const ck_gas_config *c,
                              uint64_t step, ck__gas_forms forms,
                              const double *positions, const double *velocities,
                              ck_gas **result);
/* A gas on one device as a spread of one member (gas_create.c): `whole`,
 * made and started there, taken over (destroyed on failure). */
ck_status ck__gas_wrap_alone(const ck_device *device, ck_gas *whole,
                             ck_gas **result);

/* ---- the workload (gas_workload.c, gas_run.c, gas_report.c) -------------- */

/* A run's settings: the system's, and the run's own steps, outputs and
 * kernel forms, as the options give them (gas_workload.c). */
typedef struct ck__gas_job {
  ck_gas_config config; /* first: the options' fields are the job's */
  uint64_t steps, equil, log_every, sample_every, rdf_every, traj_every,
      checkpoint_every;
  unsigned blocks, rdf_bins, png_size;
  double rdf_range;
  const char *rdf, *traj, *png, *checkpoint, *restart, *thermo, *plot;
  ck__gas_forms forms;
} ck__gas_job;
/* The options into job, over the defaults, and checked against each
 * other; options may be NULL (the seed is then 1). */
ck_status ck__gas_job_parse(const ck_param *params, size_t count,
                            const ck_run_options *options, ck__gas_job *job);
/*
 * The system's options as the run resolved them, so that the result says
 * what ran: the checkpoint's settings and forms on a restart, an XYZ
 * file's particles and box, the box --rho made, or the density --box
 * made. c is the gas's own (ck_gas_describe). A restart or an XYZ file
 * starts from no lattice, and a restart or a file's velocities leave --T
 * unused.
 */
ck_status ck__gas_report_system(ck_result *result, const ck__gas_job *job,
                                ck_gas *gas, const ck_gas_config *c);

/* Samples of each averaged observable. */
enum {
  CK__GAS_SAMPLE_T,
  CK__GAS_SAMPLE_POTENTIAL,
  CK__GAS_SAMPLE_TOTAL,
  CK__GAS_SAMPLE_PRESSURE,
  CK__GAS_SAMPLES
};

/* The columns of a log step's row for --plot, as --thermo writes them. */
enum {
  CK__GAS_LOG_STEP,
  CK__GAS_LOG_TIME,
  CK__GAS_LOG_TEMPERATURE,
  CK__GAS_LOG_KINETIC,
  CK__GAS_LOG_POTENTIAL,
  CK__GAS_LOG_TOTAL,
  CK__GAS_LOG_PRESSURE,
  CK__GAS_LOG_WIDTH
};

/* A run's loop over the gas (ck__loop_run): chunks of steps that end
 * where something is due, and, after each, what is due at the step
 * reached: a log line, a sample of the averages, the RDF, a trajectory
 * frame, a checkpoint. */
typedef struct ck__gas_loop {
  ck_gas *gas;
  const ck__gas_job *job;
  const ck_run_options *options;
  int writes; /* 0 on the ranks of a spread run but the first */
  ck__gas_trajectory *trajectory; /* NULL without --traj */
  ck__gas_thermo *thermo;         /* NULL without --thermo */
  ck__history *samples;
  ck__history *log_rows; /* the log steps' observables for --plot, or NULL */
  uint64_t *rdf;         /* NULL without --rdf */
  uint64_t rdf_samples;
  uint64_t begin, production; /* the first step, and the first sampled */
  uint64_t most, sampled;     /* samples: at most, and taken */
  ck_gas_observables o, first, last;
} ck__gas_loop;
/* The workload's run (gas_run.c). */
ck_status ck__gas_run(const void *prepared, const ck_device *device,
                      const ck_param *params, size_t count,
                      const ck_run_options *options, ck_result *result);
/* A line to the run's log callback, where it has one. */
void ck__gas_log_line(const ck_run_options *options, const char *line);

/* The result's figures (gas_report.c): the averages with their errors,
 * the rate, the system's size and the drift. */
void ck__gas_report(const ck__gas_loop *run, const ck_gas_config *c,
                    double run_s, double setup_s, ck_result *result);
/* --plot: the energies per particle, the temperature and the pressure of
 * each log step (as --thermo writes them), in three panels over the
 * steps; the time along the top. */
ck_status ck__gas_write_plot(const ck__gas_loop *run, const ck_gas_config *c,
                             const ck_result *result);
/* The benchmark's sizes and cost model (docs/gas.md, "Cost model"). */
extern const ck__bench ck__gas_bench;

#endif /* CK_GAS_INTERNAL_H */
