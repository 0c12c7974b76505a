/*
 * gas_io.h - files of the two-dimensional gas (clkit/gas.h): extended XYZ
 * frames both ways, a trajectory of many frames, the radial distribution
 * function as CSV and a picture of a configuration as PNG.
 *
 * Positions and velocities are arrays of 2 N doubles, x and y of each
 * particle in turn, in reduced units. Every file is written to a temporary
 * beside its target and renamed over it, so that a reader sees the old
 * file or the new one, never a part. Numbers are read and written in the
 * C locale whatever the process set. Messages about malformed input read
 * "FILE:LINE: what is wrong".
 */
#ifndef CK_GAS_IO_H
#define CK_GAS_IO_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/gas.h"
#include "clkit/status.h"

/* The first frame of an extended XYZ file. */
typedef struct ck__gas_frame {
  size_t particles;
  double box_x, box_y; /* from Lattice="..."; 0 when absent */
  double *positions;   /* 2 N: x, y pairs */
  double *velocities;  /* 2 N, or NULL when the file has none */
  /* The column the velocities came from: "velo", "momenta" or NULL. */
  const char *velocity_column;
  double time; /* from a Time= key, else 0 */
} ck__gas_frame;

/*
 * ck__gas_xyz_read - reads the first frame of an extended XYZ file: the
 * particle count on line 1; key=value pairs on line 2 (values may be in
 * double quotes, with backslash escapes), of which Lattice (9 numbers;
 * box_x is the first, box_y the fifth, and the box must be rectangular),
 * Properties (name:type:count triples, types S, R, I or L) and Time are
 * read, the rest ignored; then one line per particle. Of the Properties,
 * pos R:2 or R:3 is required; the velocities come from velo R:2 or R:3
 * (OVITO's name) or momenta R:2 or R:3 (ASE's); masses or mass R:1 must
 * be 1 on every line (the particles' mass), and momenta without them need
 * species X (ASE's species of mass 1); the other columns are skipped,
 * except those named as motion (vel, velocity, velocities, v, vx,
 * momentum, px and so on, and velo or momenta in another case), which
 * are refused. velo and momenta together must agree. Without Properties
 * the columns are species:S:1:pos:R:3 (plain XYZ). The z components of
 * positions are ignored but must be finite numbers; those of velo and
 * momenta must be 0. Lines after the first frame are not read. The
 * Lattice's sides must lie in [CK_GAS_MIN_SIDE, CK_GAS_MAX_SIDE]
 * (clkit/gas.h), and no two particles may share x and y (their force is
 * undefined): found through a hash table, in O(N) expected time.
 * Takes: path; frame (filled; release with ck__gas_frame_free()).
 * Returns: CK_OK; CK_ERROR_IO for an unreadable file; CK_ERROR_PARSE
 * naming the file and line (a missing, bad or zero count, a missing line,
 * a wrong number of columns, a value that is not a finite number, a
 * Properties without pos, a motion column clkit does not read, a mass
 * other than 1, a velocity along z, velo and momenta that differ, a
 * malformed or non-rectangular Lattice or one with a side out of range,
 * an unterminated quote; coincident particles, the later's line with the
 * earlier's); CK_ERROR_INVALID_ARGUMENT for NULL arguments;
 * CK_ERROR_OUT_OF_MEMORY. On failure *frame is zeroed, nothing to free.
 */
ck_status ck__gas_xyz_read(const char *path, ck__gas_frame *frame);

/*
 * ck__gas_find_coincident - finds two of N particles at the same position
 * (equal x and equal y; -0 equals 0) through a hash table of the places:
 * O(N) expected time and 16 to 32 bytes a particle. With single set, the
 * coordinates are compared as floats, as a single-precision run holds
 * them.
 * Takes: particles; positions (2 N: x, y pairs); single; first, second
 * (set: the 0-based indices of the pair with the least position, the two
 * least indices there, first < second; both N when there is none).
 * Returns: CK_OK; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck__gas_find_coincident(size_t particles, const double *positions,
                                  int single, size_t *first, size_t *second);

/* ck__gas_frame_free - releases a frame's arrays and zeroes it. NULL, or a
 * zeroed frame, is a no-op. Returns: CK_OK. */
ck_status ck__gas_frame_free(ck__gas_frame *frame);

/* An extended XYZ file being written, frame after frame. */
typedef struct ck__gas_trajectory ck__gas_trajectory;

/*
 * ck__gas_trajectory_open - starts a trajectory file: frames go to a
 * temporary ".NAME.tmp.TOKEN" beside path until it is closed.
 * Takes: path; periodic (nonzero for periodic boundaries in x and y,
 * written pbc="T T F"; zero for walls, pbc="F F F"); trajectory (set; end
 * it with ck__gas_trajectory_close()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for NULL arguments or a path
 * that names a directory; CK_ERROR_IO; CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck__gas_trajectory_open(const char *path, int periodic,
                                  ck__gas_trajectory **trajectory);

/*
 * ck__gas_trajectory_frame - appends one frame: the count line, then
 *   Lattice="Lx 0.0 0.0 0.0 Ly 0.0 0.0 0.0 1.0"
 *   Properties=species:S:1:pos:R:3:velo:R:3:momenta:R:3:masses:R:1
 *   Time=T Step=S pbc="T T F"
 * (pbc="F F F" for a trajectory opened as not periodic)
 * and a line "Ar x y 0 vx vy 0 vx vy 0 1" per particle (%.9g; the box
 * and the time with the digits that read back exactly): OVITO reads the
 * velocities from velo, ASE from momenta over masses, which are 1.
 * Without velocities (NULL) the velo and momenta columns and their
 * Properties entries are left out.
 * Takes: trajectory; particles >= 1; the box's sides (finite, > 0);
 * positions (2 N, finite); velocities (2 N, finite, or NULL); the step
 * and the time of the frame.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT (nothing written; the
 * trajectory stays usable); CK_ERROR_IO or CK_ERROR_OUT_OF_MEMORY, after
 * which the trajectory can only be closed, and is not committed.
 */
ck_status ck__gas_trajectory_frame(ck__gas_trajectory *trajectory,
                                   size_t particles, double box_x, double box_y,
                                   const double *positions,
                                   const double *velocities, uint64_t step,
                                   double time);

/*
 * ck__gas_trajectory_close - ends a trajectory and frees it. commit 1
 * flushes the frames to disk and renames the temporary over the path;
 * commit 0 (or an earlier write failure) removes the temporary and leaves
 * the path as it was. NULL is a no-op.
 * Returns: CK_OK; CK_ERROR_IO naming the file (the temporary is removed).
 */
ck_status ck__gas_trajectory_close(ck__gas_trajectory *trajectory, int commit);

/*
 * ck__gas_xyz_write - one frame as a whole extended XYZ file, written
 * atomically; arguments and errors as ck__gas_trajectory_open() and
 * ck__gas_trajectory_frame().
 */
ck_status ck__gas_xyz_write(const char *path, size_t particles, double box_x,
                            double box_y, int periodic, const double *positions,
                            const double *velocities, uint64_t step,
                            double time);

/* A thermo file being written, row after row. */
typedef struct ck__gas_trajectory ck__gas_thermo;

/*
 * ck__gas_thermo_open - starts a CSV file of the observables, written to
 * a temporary beside path until it is closed, with the header
 *   step,time,temperature,kinetic,potential,total,pressure
 * Takes: path; thermo (set; end it with ck__gas_thermo_close()).
 * Returns: as ck__gas_trajectory_open().
 */
ck_status ck__gas_thermo_open(const char *path, ck__gas_thermo **thermo);

/*
 * ck__gas_thermo_row - appends a row: the step, the time, the
 * temperature and the kinetic, potential and total energies per particle
 * and the pressure of observables, plain numbers (%.10g; the time with
 * the digits that read back exactly).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for NULL arguments (nothing
 * written); CK_ERROR_IO or CK_ERROR_OUT_OF_MEMORY, after which the file
 * can only be closed, and is not committed.
 */
ck_status ck__gas_thermo_row(ck__gas_thermo *thermo,
                             const ck_gas_observables *observables);

/* ck__gas_thermo_close - as ck__gas_trajectory_close(). */
ck_status ck__gas_thermo_close(ck__gas_thermo *thermo, int commit);

/*
 * ck__gas_rdf_write - the radial distribution function in 2D from a
 * histogram of unordered pair distances gathered over `samples`
 * configurations of N particles in a box of the given area:
 *   g(r_k) = count_k / (samples N (N - 1) / 2 * 2 pi r_k dr / area)
 * with r_k the centre of bin k and dr = range / bins. Written atomically
 * as CSV: a header "r,g,count", then one line per bin.
 * Takes: path; bins >= 1; range (finite, > 0); pair_counts (bins
 * entries); samples >= 1; particles >= 2; area (finite, > 0).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT; CK_ERROR_IO;
 * CK_ERROR_OUT_OF_MEMORY.
 */
ck_status ck__gas_rdf_write(const char *path, size_t bins, double range,
                            const uint64_t *pair_counts, uint64_t samples,
                            size_t particles, double area);

/* The largest side of a picture's box, in pixels. */
#define CK__GAS_PNG_MAX_SIDE 16384u

/* What a picture's colours measure. */
typedef enum ck__gas_scale {
  CK__GAS_SCALE_SPEED,  /* discs: blue (at rest), grey, red (fast) */
  CK__GAS_SCALE_DENSITY /* a field: dark violet (empty) to yellow (dense) */
} ck__gas_scale;

/* ck__gas_png_colour - the colour of a fraction (clamped to [0, 1]) of a
 * picture's scale, as its pixels and colour bar show it. */
void ck__gas_png_colour(ck__gas_scale scale, double fraction, uint8_t rgb[3]);

/*
 * ck__gas_png_write - a picture of a configuration as an 8-bit RGB PNG
 * file, written atomically. The box takes `width` pixels along its longer
 * side, the other in proportion (at least 1), y upwards, at the top left.
 * Where a particle's disc (radius 0.5 sigma) is 2 pixels in radius or
 * more, each particle is a disc on a dark background, coloured by speed
 * from blue (at rest) through grey to red (at or above the 99th
 * percentile of the frame's speeds), or all grey without velocities
 * (NULL). Smaller discs would blur into noise: the box is then a field of
 * the number density, counted in square bins of about 32 particles and
 * interpolated between their centres, from 0 (dark violet) to the densest
 * bin (yellow). Positions outside the box are wrapped into it. Below the
 * box, across a picture at least 160 pixels wide, a legend: a colour bar
 * of the scale, its ends ("0" and the top) beneath it with its name
 * ("speed", "density" or "no velocities"), then the caption "N=...
 * step=... T=... rho=...", in rows that fit the width.
 * Takes: path; particles >= 1; the box's sides (finite, > 0); positions
 * (2 N, finite); velocities (2 N, finite, or NULL); width in
 * 1..CK__GAS_PNG_MAX_SIDE; the step and the temperature for the caption.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT; CK_ERROR_IO;
 * CK_ERROR_OUT_OF_MEMORY; CK_ERROR_UNSUPPORTED when clkit was built
 * without libpng.
 */
ck_status ck__gas_png_write(const char *path, size_t particles, double box_x,
                            double box_y, const double *positions,
                            const double *velocities, unsigned width,
                            uint64_t step, double temperature);

/*
 * ck__gas_check_configuration - refuses a frame that could not be read
 * back: no particles, NULL positions, a box without finite positive sides,
 * or a position or velocity that is not finite (gas_io_write.c; the XYZ
 * and PNG writers share it). Messages begin with function; velocities may
 * be NULL.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT.
 */
ck_status ck__gas_check_configuration(const char *function, size_t particles,
                                      double box_x, double box_y,
                                      const double *positions,
                                      const double *velocities);

#endif /* CK_GAS_IO_H */
