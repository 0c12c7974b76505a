/*
 * clkit/gas.h - two-dimensional molecular dynamics of a Lennard-Jones gas
 * or liquid on any device, in reduced units (sigma = epsilon = m = 1).
 *
 * N particles in a rectangular box, periodic or between reflecting walls,
 * move by velocity Verlet under the Lennard-Jones 12-6 pair force,
 * truncated at rc and shifted (energy or force), or under a softened
 * logarithmic attraction with a repulsive core in all-pairs mode. NVE, or
 * NVT through a Langevin or a velocity-rescaling thermostat. Neighbours
 * come from cell lists rebuilt every step, a Verlet list with a skin, or
 * all pairs. Positions, velocities and forces stay on the device; the host
 * reads only the observables it asks for, reduced there.
 *
 *   ck_gas_config config;
 *   ck_gas_config_init(&config);          defaults, then adjust
 *   ck_gas *gas;
 *   ck_gas_create(device, &config, &gas);  lattice, velocities at T
 *   ck_gas_step(gas, 1000);
 *   ck_gas_observe(gas, &observables);
 *   ck_gas_destroy(gas);
 *
 * Checkpoints (ck_gas_save, ck_gas_load) hold the exact state, so that a
 * run continued from one is bit-identical to the run that wrote it.
 */
#ifndef CLKIT_GAS_H
#define CLKIT_GAS_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/device.h"
#include "clkit/spread.h"
#include "clkit/status.h"
#include "clkit/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ck_gas_shift {
  CK_GAS_SHIFT_ENERGY = 0, /* U(r) - U(rc): continuous energy */
  CK_GAS_SHIFT_FORCE = 1,  /* also F(r) - F(rc): continuous force */
  CK_GAS_SHIFT_NONE = 2    /* truncated only */
} ck_gas_shift;

typedef enum ck_gas_model {
  CK_GAS_LENNARD_JONES = 0,
  /* U = (strength / 2) ln(r^2 + softening^2) + r^-12, all pairs (minimum
   * image), no cutoff: the softened long-range 2D model. */
  CK_GAS_SOFT_LOG = 1
} ck_gas_model;

typedef enum ck_gas_neighbors {
  CK_GAS_CELLS = 0,     /* cell lists built every step, particles sorted */
  CK_GAS_VERLET = 1,    /* a Verlet list with a skin, rebuilt when needed */
  CK_GAS_ALL_PAIRS = 2, /* O(N^2), tiled in local memory */
  /* The default, chosen when the gas is made: Verlet lists with skin
   * CK_GAS_AUTO_SKIN (not the skin field's) on a GPU from
   * CK_GAS_AUTO_VERLET_FROM particles, where they run faster than cells
   * (unless rc makes the lists too long to accept); all pairs for the
   * soft-log model; else cells. A spread gas of one member chooses as its
   * device alone does; one of several takes those lists where every
   * member is a GPU and holds CK_GAS_AUTO_VERLET_MEMBER_FROM particles
   * (on average), or CK_GAS_AUTO_VERLET_HOST_FROM where their cells
   * would cross through the host; else cells. ck_gas_describe() gives
   * the choice. */
  CK_GAS_NEIGHBORS_AUTO = 3
} ck_gas_neighbors;

#define CK_GAS_AUTO_SKIN 0.5
#define CK_GAS_AUTO_VERLET_FROM (1u << 20)
/* On two H200s a spread member's Verlet lists beat cells from 2^20
 * particles a member: by 4% there, by 13-19% at 1.5M and 2M
 * (bench/RESULTS.md). */
#define CK_GAS_AUTO_VERLET_MEMBER_FROM CK_GAS_AUTO_VERLET_FROM
/* Where the members' cell lists cannot step device to device (no peer
 * access, CLKIT_PEER=0, OpenCL), each step's exchange goes through the
 * host. On two H200s Verlet lists then led cells by 1.32-1.53 times
 * from 2^17 particles a member (bench/RESULTS.md). */
#define CK_GAS_AUTO_VERLET_HOST_FROM (1u << 17)

typedef enum ck_gas_thermostat {
  CK_GAS_NVE = 0,
  CK_GAS_LANGEVIN = 1, /* friction gamma and noise at target_temperature */
  CK_GAS_RESCALE = 2   /* velocities scaled to target_temperature every
                          rescale_every steps */
} ck_gas_thermostat;

typedef enum ck_gas_lattice {
  CK_GAS_SQUARE = 0,
  CK_GAS_TRIANGULAR = 1
} ck_gas_lattice;

/*
 * The range of a box side, in reduced units. Positions are kept as
 * single-precision floats (24-bit significands) on most devices: near a
 * coordinate of 2^16 neighbouring floats are 2^-8 apart, about what a
 * particle moves in a step at the default dt and T = 1, so a longer side
 * would lose steps to rounding (and 1e308 overflows outright). Cells are
 * counted as floor(side / range) a row, at most 2^16 a row and 10^8 in
 * all, and a kernel finds a particle's cell as (int)(x * cells / side) in
 * float: below 2^16 that index is exact to 2^-8 of a cell. The largest
 * system a lattice fills, 2^30 particles at density 0.7, has sides of
 * 39166. The shortest side, 2^-16, keeps cells / side finite in float and
 * the aspect ratio of a box within 2^32.
 */
#define CK_GAS_MAX_SIDE 65536.0
#define CK_GAS_MIN_SIDE (1.0 / 65536.0)

/* The shortest Lennard-Jones cutoff: a pair closer than 0.5 costs more
 * than 4 (2^12 - 2^6), some 16000 well depths, and never forms, so a
 * shorter cutoff would only cut the box into needlessly many cells. */
#define CK_GAS_MIN_CUTOFF 0.5

/* The largest time step, temperature (initial or a thermostat's) and
 * Langevin friction taken: far past any run that stays stable, they keep
 * the first steps' velocities and positions finite, so that a run too
 * hot or too coarse fails its energy check rather than producing NaN
 * from its first step. */
#define CK_GAS_MAX_DT 1e3
#define CK_GAS_MAX_TEMPERATURE 1e6
#define CK_GAS_MAX_GAMMA 1e6

typedef struct ck_gas_config {
  size_t particles; /* N >= 1 */
  double density;   /* N / area when box_x = box_y = 0 (a square) */
  /* Or the box itself, each side in [CK_GAS_MIN_SIDE, CK_GAS_MAX_SIDE]. */
  double box_x, box_y;
  ck_gas_lattice lattice;
  double temperature; /* of the initial velocities; zero momentum */
  ck_gas_model model;
  double rc; /* cutoff, >= CK_GAS_MIN_CUTOFF, <= half the box (periodic) */
  ck_gas_shift shift;
  double strength, softening; /* CK_GAS_SOFT_LOG */
  double dt;                  /* > 0, <= CK_GAS_MAX_DT */
  int walls;                  /* 1: reflecting walls; 0: periodic */
  ck_gas_thermostat thermostat;
  double target_temperature, gamma; /* Langevin and rescaling */
  unsigned rescale_every;
  ck_gas_neighbors neighbors;
  double skin; /* CK_GAS_VERLET */
  uint64_t seed;
  /* Optional: start from this extended-XYZ file instead of a lattice
   * (particles, box and velocities from the file, when it has them; a box
   * given here must then agree with the file's Lattice). Velocities come
   * from velo (OVITO) or momenta (ASE), every mass the file gives must be
   * 1, and motion in other columns or along z is refused. Particles at
   * the same position, as read or once wrapped into the box and rounded
   * to the working precision, are refused. */
  const char *xyz_path;
  /* Optional, instead of xyz_path: start from the caller's arrays, 2 N
   * doubles each (x and y of each particle; N is particles), read during
   * ck_gas_create only. positions need the box (box_x, box_y); without
   * velocities (NULL) they are drawn at temperature. The arrays get a
   * file's checks: finite values, speeds within single precision, none
   * outside the walls, no two particles at one place as given or once
   * wrapped and rounded. Messages name the 0-based rows. */
  const double *positions;
  const double *velocities;
} ck_gas_config;

/* Observables of the current step. Energies are per particle. */
typedef struct ck_gas_observables {
  uint64_t step;
  double time;
  double kinetic, potential, total;
  double temperature; /* 2 KE / degrees of freedom */
  double pressure;    /* (N T + virial / 2) / area, from the pair virial */
  double momentum_x, momentum_y;
} ck_gas_observables;

typedef struct ck_gas ck_gas;

/* ck_gas_config_init - every field at its default: the one `clkit run gas
 * --help` shows for the option that sets it (the thermostat's, the skin's
 * and the soft-log model's fields are set with theirs; the table is
 * src/gas/gas_fields.c), seed 1.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if config is NULL. */
ck_status ck_gas_config_init(ck_gas_config *config);

/*
 * ck_gas_config_read - a configuration from options of `clkit run gas`
 * (name/value pairs, as ck_workload_run() takes them), read and checked
 * as the command reads them: particles, rho, box, lattice, T, xyz, rc,
 * shift, model, dt, walls, thermostat and neighbors. Every other field is
 * at its default (ck_gas_config_init), seed 1.
 * Takes: params (count pairs); config (filled in; its xyz_path points into
 * params, which must outlive its use).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL config, a value or
 * a combination the command refuses, or an option of a run rather than of
 * the system (steps, outputs, kernel forms), with the command's message;
 * config is then unchanged.
 */
ck_status ck_gas_config_read(const ck_param *params, size_t count,
                             ck_gas_config *config);

/*
 * ck_gas_create - check the configuration, place the particles, draw their
 * velocities and compute the first forces, on device.
 * Takes: device; config (copied; xyz_path, positions and velocities are
 * read during the call only); gas (set; release with ck_gas_destroy()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or naming
 * the bad setting (N <= 0, a density whose lattice does not fit the box,
 * a box side outside [CK_GAS_MIN_SIDE, CK_GAS_MAX_SIDE], rc larger than
 * half the box, dt <= 0, a box that differs from the XYZ file's, ...) or
 * the rows of positions or velocities that a start refuses;
 * CK_ERROR_IO or CK_ERROR_PARSE for an unreadable XYZ file or coincident
 * particles in it (file and lines); CK_ERROR_BUILD; CK_ERROR_OUT_OF_MEMORY;
 * device errors.
 */
ck_status ck_gas_create(const ck_device *device, const ck_gas_config *config,
                        ck_gas **gas);

/* ck_gas_step - advance `steps` velocity-Verlet steps. A blow-up or a
 * Verlet list overflow is not detected here: ck_gas_observe() reports it.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL gas; device
 * errors. */
ck_status ck_gas_step(ck_gas *gas, uint64_t steps);

/* ck_gas_observe - the observables now (reduced on the device).
 * Takes: observables (filled in).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument;
 * CK_ERROR_MISMATCH when the total energy is not finite (observables
 * still filled in); CK_ERROR_DEVICE when a Verlet list overflowed (the
 * results are wrong); device errors. */
ck_status ck_gas_observe(ck_gas *gas, ck_gas_observables *observables);

/*
 * ck_gas_get_particles - copy the particles out, in the order of their ids:
 * positions and velocities as x, y pairs (2 N entries each, the caller's
 * arrays); NULL skips an array. Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT
 * for a NULL gas; CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_gas_get_particles(ck_gas *gas, double *positions,
                               double *velocities);

/* ck_gas_get_forces - the forces on the particles, in id order, as x, y pairs
 * (2 N entries, the caller's array).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument;
 * CK_ERROR_OUT_OF_MEMORY; device errors. */
ck_status ck_gas_get_forces(ck_gas *gas, double *forces);

/* ck_gas_get_box - the box's sides and the number of particles; NULL skips
 * one. Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL gas. */
ck_status ck_gas_get_box(const ck_gas *gas, double *box_x, double *box_y,
                         size_t *particles);

/*
 * ck_gas_accumulate_rdf - add the current configuration's pair distances to a
 * histogram of `bins` bins over [0, range); counts (bins entries) are
 * accumulated, not overwritten. range may reach as far as the run's
 * neighbour structure sees: a cell's width (cells), rc (Verlet lists) or
 * half the box (all pairs).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for NULL, bins outside 1 ..
 * 2^20, or a range not above 0 or past that reach (the message gives it);
 * CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_gas_accumulate_rdf(ck_gas *gas, size_t bins, double range,
                                uint64_t *counts);

/*
 * ck_gas_save - write a checkpoint (the configuration, the step, and the
 * exact positions, velocities and ids) atomically: a temporary file
 * renamed over path. Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a
 * NULL argument or a path that names a directory by its spelling ("x/",
 * "."); CK_ERROR_IO naming the file; CK_ERROR_MISMATCH, writing
 * nothing, for a state that ck_gas_load would refuse (a particle thrown
 * out of the box, a velocity or force not finite: a run that has blown
 * up), so that path keeps the last state a run can restart from;
 * CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_gas_save(ck_gas *gas, const char *path);

/*
 * ck_gas_check - whether the state has blown up: a particle thrown out of
 * the box, a velocity, force or energy not finite. It is the check by which
 * ck_gas_save refuses a state, made without writing.
 * Returns: CK_OK; CK_ERROR_MISMATCH naming the step and the first such
 * particle; CK_ERROR_INVALID_ARGUMENT for a NULL gas;
 * CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_gas_check(ck_gas *gas);

/*
 * ck_gas_check_drift - whether NVE lost or gained more energy from first
 * to last (observables of one gas) than a sound time step would: more
 * than a tenth of first's kinetic plus absolute potential energy. Other
 * thermostats change the energy on purpose: they always pass.
 * Returns: CK_OK; CK_ERROR_MISMATCH naming both energies and config's dt
 * (`clkit run gas` prints it as a warning); CK_ERROR_INVALID_ARGUMENT
 * for a NULL argument.
 */
ck_status ck_gas_check_drift(const ck_gas_config *config,
                             const ck_gas_observables *first,
                             const ck_gas_observables *last);

/*
 * ck_gas_load - create a gas on device from a checkpoint; it continues
 * bit-exactly where the saved run was (on the same device and settings).
 * Takes: gas (set; release with ck_gas_destroy()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument;
 * CK_ERROR_IO; CK_ERROR_PARSE naming the file and what is wrong (magic,
 * version, sizes, checksum, a configuration ck_gas_create() would
 * refuse); CK_ERROR_UNSUPPORTED for a double-precision checkpoint on a
 * device without double precision; as ck_gas_create().
 */
ck_status ck_gas_load(const ck_device *device, const char *path, ck_gas **gas);

/*
 * ck_gas_create_spread - ck_gas_create over several devices, and over the
 * processes of an MPI communicator (clkit/spread.h): the box is cut into
 * slabs across its longer side, one a device, in proportion to the
 * spread's shares (else equally), or where slabs would be narrower than 2
 * (rc + skin) into a grid of boxes holding as many particles each; each
 * holds its particles and ghost copies of its neighbours' within rc +
 * skin of its borders, and particles that cross a border move to their
 * new holder (docs/scale-out.md). Observables, pressure and the
 * RDF match one device's within round-off and statistical error. A
 * spread of one member (one device, one process) holds the whole box:
 * it steps as ck_gas_create's gas on that device, bit for bit.
 * Every call on the gas is then collective: each process of the spread
 * makes it, in the same order. ck_gas_get_particles and
 * ck_gas_get_forces fill the arrays on every process; ck_gas_save writes
 * the file from rank 0 alone, a checkpoint that ck_gas_load and
 * ck_gas_load_spread (on any number of devices) take. A device may be
 * given more than once: each member has a queue and memory of its own.
 * Takes: spread (read during the call); config and gas as ck_gas_create.
 * Returns: as ck_gas_create; CK_ERROR_UNSUPPORTED for the soft-log model
 * or all pairs (naming the field); CK_ERROR_INVALID_ARGUMENT for a box
 * that neither slabs nor a grid of boxes 2 (rc + skin) wide fit, unequal
 * shares for a grid, or a bad spread; CK_ERROR_EXCHANGE.
 */
ck_status ck_gas_create_spread(const ck_spread *spread,
                               const ck_gas_config *config, ck_gas **gas);

/*
 * ck_gas_load_spread - ck_gas_load over a spread's devices: the checkpoint
 * of any run, on one device or spread over any number, continues on
 * these (within round-off of the saved run, not bit for bit). On one
 * device and process it loads as ck_gas_load does. Rank 0 reads the
 * file and sends it to the others. Collective.
 * Returns: as ck_gas_load and ck_gas_create_spread.
 */
ck_status ck_gas_load_spread(const ck_spread *spread, const char *path,
                             ck_gas **gas);

/* ck_gas_describe - the configuration in use (box resolved), copied into
 * config; its xyz_path, positions and velocities are NULL.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_gas_describe(const ck_gas *gas, ck_gas_config *config);

/* ck_gas_destroy - release a gas and its queue. NULL is a no-op.
 * Returns: CK_OK. */
ck_status ck_gas_destroy(ck_gas *gas);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_GAS_H */
