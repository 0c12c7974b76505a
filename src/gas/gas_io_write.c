/*
 * gas_io_write.c - the files the two-dimensional gas writes as text:
 * extended XYZ frames and trajectories, the thermo file and the radial
 * distribution function.
 *
 * Writers gather their text in memory and write it to a temporary file
 * beside the target, which is renamed over it once complete.
 */
#include "gas/gas_io.h"

#include "clkit/gas.h"
#include "util/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes gathered before each write() of a trajectory. */
#define WRITE_CHUNK ((size_t)1 << 16)
/* The most bytes one written line takes (the comment line is longest). */
#define LINE_ROOM ((size_t)512)
/* Room for one line of the RDF file: three numbers and separators. */
#define RDF_LINE_ROOM ((size_t)96)

/* ---- the XYZ writer ------------------------------------------------------ */

struct ck__gas_trajectory {
  char *path;   /* a copy, for messages and the rename */
  char *temp;   /* the temporary file being written */
  int fd;       /* open on temp */
  char *buffer; /* WRITE_CHUNK bytes gathered before a write() */
  size_t used;
  int broken;   /* a write failed: the file can only be abandoned */
  int periodic; /* pbc="T T F", else walls: pbc="F F F" */
};

/* Writes out what the buffer holds. */
static ck_status trajectory_flush(ck__gas_trajectory *trajectory) {
  if (trajectory->used == 0)
    return CK_OK;
  if (ck__write_all(trajectory->fd, trajectory->buffer, trajectory->used) !=
      0) {
    trajectory->broken = 1;
    return ck__fail(CK_ERROR_IO, "cannot write %s: %s", trajectory->path,
                    strerror(errno));
  }
  trajectory->used = 0;
  return CK_OK;
}

/* Makes sure LINE_ROOM bytes are free in the buffer. */
static ck_status trajectory_room(ck__gas_trajectory *trajectory) {
  if (WRITE_CHUNK - trajectory->used >= LINE_ROOM)
    return CK_OK;
  return trajectory_flush(trajectory);
}

/* Appends printf-formatted text (at most LINE_ROOM bytes, after
 * trajectory_room()). */
static void trajectory_print(ck__gas_trajectory *trajectory, const char *format,
                             ...) __attribute__((format(printf, 2, 3)));

static void trajectory_print(ck__gas_trajectory *trajectory, const char *format,
                             ...) {
  size_t free_bytes = WRITE_CHUNK - trajectory->used;
  va_list args;
  va_start(args, format);
  int written = vsnprintf(trajectory->buffer + trajectory->used, free_bytes,
                          format, args);
  va_end(args);
  if (written > 0)
    trajectory->used +=
        (size_t)written < free_bytes ? (size_t)written : free_bytes - 1;
}

/* The shortest of %.15g, %.16g and %.17g that reads back as value; the
 * caller has entered the C locale. */
static void format_exact(char *out, size_t size, double value) {
  for (int digits = 15; digits <= 17; ++digits) {
    snprintf(out, size, "%.*g", digits, value);
    if (strtod(out, NULL) == value)
      return;
  }
}

ck_status ck__gas_trajectory_open(const char *path, int periodic,
                                  ck__gas_trajectory **trajectory) {
  ck_status status = CK_OK;
  ck__gas_trajectory *opened = NULL;
  if (!trajectory)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_trajectory_open: trajectory is NULL");
  *trajectory = NULL;
  if (!path || !*path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_trajectory_open: no file name given");
  opened = calloc(1, sizeof *opened);
  if (!opened)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of memory opening %s for a trajectory", path);
  opened->fd = -1;
  opened->periodic = periodic;
  size_t length = strlen(path);
  opened->path = malloc(length + 1);
  opened->buffer = malloc(WRITE_CHUNK);
  if (!opened->path || !opened->buffer)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of memory opening %s for a trajectory",
            path);
  memcpy(opened->path, path, length + 1);
  CK_TRY(ck__file_open_temporary(path, &opened->temp, &opened->fd));
  *trajectory = opened;
  return CK_OK;

fail:
  free(opened->path);
  free(opened->buffer);
  free(opened);
  return status;
}

/* Refuses a frame that could not be read back. */
ck_status ck__gas_check_configuration(const char *function, size_t particles,
                                      double box_x, double box_y,
                                      const double *positions,
                                      const double *velocities) {
  if (particles == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: no particles", function);
  if (!positions)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: positions is NULL",
                    function);
  if (!isfinite(box_x) || !isfinite(box_y) || !(box_x > 0) || !(box_y > 0))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%s: the box %g x %g must have finite, positive sides",
                    function, box_x, box_y);
  if (particles > SIZE_MAX / 2)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "%s: %zu particles are too many",
                    function, particles);
  for (size_t i = 0; i < 2 * particles; ++i) {
    if (!isfinite(positions[i]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: particle %zu: %s is not finite", function, i / 2 + 1,
                      i % 2 ? "y" : "x");
    if (velocities && !isfinite(velocities[i]))
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "%s: particle %zu: %s is not finite", function, i / 2 + 1,
                      i % 2 ? "vy" : "vx");
  }
  return CK_OK;
}

ck_status ck__gas_trajectory_frame(ck__gas_trajectory *trajectory,
                                   size_t particles, double box_x, double box_y,
                                   const double *positions,
                                   const double *velocities, uint64_t step,
                                   double time) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  if (!trajectory)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_trajectory_frame: trajectory is NULL");
  if (trajectory->broken)
    return ck__fail(CK_ERROR_IO,
                    "cannot write %s: an earlier frame failed; the "
                    "trajectory can only be closed",
                    trajectory->path);
  CK_TRY(ck__gas_check_configuration("ck__gas_trajectory_frame", particles,
                                     box_x, box_y, positions, velocities));
  if (!isfinite(time))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_trajectory_frame: the time is not finite");

  CK_TRY(ck__c_locale_enter(&locale, trajectory->path));
  char side_x[32], side_y[32], time_text[32];
  format_exact(side_x, sizeof side_x, box_x);
  format_exact(side_y, sizeof side_y, box_y);
  format_exact(time_text, sizeof time_text, time);
  CK_TRY(trajectory_room(trajectory));
  /* OVITO reads velocities from velo, ASE from momenta over masses: both
   * are written, the same numbers at mass 1. */
  trajectory_print(trajectory,
                   "%zu\nLattice=\"%s 0.0 0.0 0.0 %s 0.0 0.0 0.0 1.0\" "
                   "Properties=species:S:1:pos:R:3%s:masses:R:1 Time=%s "
                   "Step=%" PRIu64 " pbc=\"%s F\"\n",
                   particles, side_x, side_y,
                   velocities ? ":velo:R:3:momenta:R:3" : "", time_text, step,
                   trajectory->periodic ? "T T" : "F F");
  for (size_t i = 0; i < particles; ++i) {
    CK_TRY(trajectory_room(trajectory));
    if (velocities) {
      double vx = velocities[2 * i], vy = velocities[2 * i + 1];
      trajectory_print(trajectory, "Ar %.9g %.9g 0 %.9g %.9g 0 %.9g %.9g 0 1\n",
                       positions[2 * i], positions[2 * i + 1], vx, vy, vx, vy);
    } else
      trajectory_print(trajectory, "Ar %.9g %.9g 0 1\n", positions[2 * i],
                       positions[2 * i + 1]);
  }
  ck__c_locale_leave(&locale);
  return CK_OK;

fail:
  ck__c_locale_leave(&locale);
  return status;
}

ck_status ck__gas_trajectory_close(ck__gas_trajectory *trajectory, int commit) {
  ck_status status = CK_OK;
  if (!trajectory)
    return CK_OK;
  if (commit && trajectory->broken)
    status = ck__fail(CK_ERROR_IO,
                      "%s not written: an earlier write failed, and the "
                      "partial file was removed",
                      trajectory->path);
  else if (commit)
    status = trajectory_flush(trajectory);
  if (commit && status == CK_OK)
    status =
        ck__file_commit(trajectory->fd, trajectory->temp, trajectory->path);
  else
    ck__file_abandon(trajectory->fd, trajectory->temp, trajectory->path);
  free(trajectory->path);
  free(trajectory->buffer);
  free(trajectory);
  return status;
}

ck_status ck__gas_xyz_write(const char *path, size_t particles, double box_x,
                            double box_y, int periodic, const double *positions,
                            const double *velocities, uint64_t step,
                            double time) {
  ck__gas_trajectory *trajectory = NULL;
  ck_status status = ck__gas_check_configuration(
      "ck__gas_xyz_write", particles, box_x, box_y, positions, velocities);
  if (status != CK_OK)
    return status;
  status = ck__gas_trajectory_open(path, periodic, &trajectory);
  if (status != CK_OK)
    return status;
  status = ck__gas_trajectory_frame(trajectory, particles, box_x, box_y,
                                    positions, velocities, step, time);
  if (status != CK_OK) {
    ck__gas_trajectory_close(trajectory, 0);
    return status;
  }
  return ck__gas_trajectory_close(trajectory, 1);
}

/* ---- the thermo file ----------------------------------------------------- */

ck_status ck__gas_thermo_open(const char *path, ck__gas_thermo **thermo) {
  ck_status status = ck__gas_trajectory_open(path, 1, thermo);
  if (status != CK_OK)
    return status;
  /* The first line fits the empty buffer. */
  trajectory_print(*thermo,
                   "step,time,temperature,kinetic,potential,total,pressure\n");
  return CK_OK;
}

ck_status ck__gas_thermo_row(ck__gas_thermo *thermo,
                             const ck_gas_observables *observables) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  if (!thermo || !observables)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck__gas_thermo_row: %s is NULL",
                    thermo ? "observables" : "thermo");
  if (thermo->broken)
    return ck__fail(CK_ERROR_IO,
                    "cannot write %s: an earlier row failed; the file can "
                    "only be closed",
                    thermo->path);
  CK_TRY(ck__c_locale_enter(&locale, thermo->path));
  char time_text[32];
  format_exact(time_text, sizeof time_text, observables->time);
  CK_TRY(trajectory_room(thermo));
  const ck_gas_observables *o = observables;
  trajectory_print(thermo, "%" PRIu64 ",%s,%.10g,%.10g,%.10g,%.10g,%.10g\n",
                   o->step, time_text, o->temperature, o->kinetic, o->potential,
                   o->total, o->pressure);
fail:
  ck__c_locale_leave(&locale);
  return status;
}

ck_status ck__gas_thermo_close(ck__gas_thermo *thermo, int commit) {
  return ck__gas_trajectory_close(thermo, commit);
}

/* ---- the radial distribution function ------------------------------------ */

ck_status ck__gas_rdf_write(const char *path, size_t bins, double range,
                            const uint64_t *pair_counts, uint64_t samples,
                            size_t particles, double area) {
  ck_status status = CK_OK;
  ck__c_locale locale = {0};
  char *text = NULL;
  if (!path || !*path)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: no file name given");
  if (!pair_counts)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: pair_counts is NULL");
  if (bins == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck__gas_rdf_write: no bins");
  if (bins > SIZE_MAX / RDF_LINE_ROOM - 1)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: %zu bins are too many", bins);
  if (!isfinite(range) || !(range > 0))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: the range %g must be finite and "
                    "positive",
                    range);
  if (samples == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT, "ck__gas_rdf_write: no samples");
  if (particles < 2)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: %zu particles; pairs need at least 2",
                    particles);
  if (!isfinite(area) || !(area > 0))
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__gas_rdf_write: the area %g must be finite and "
                    "positive",
                    area);

  size_t capacity = (bins + 1) * RDF_LINE_ROOM;
  text = malloc(capacity);
  if (!text)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY,
            "out of memory writing %s: %zu bytes for %zu bins", path, capacity,
            bins);
  CK_TRY(ck__c_locale_enter(&locale, path));
  double width = range / (double)bins;
  double pairs = (double)particles * ((double)particles - 1) / 2;
  /* Pairs per unit area of an ideal gas, over all samples. */
  double density = (double)samples * pairs / area;
  const double pi = 3.14159265358979323846;
  size_t used = (size_t)snprintf(text, capacity, "r,g,count\n");
  for (size_t k = 0; k < bins; ++k) {
    double r = ((double)k + 0.5) * width;
    double ideal = density * 2 * pi * r * width;
    used += (size_t)snprintf(text + used, capacity - used,
                             "%.9g,%.9g,%" PRIu64 "\n", r,
                             (double)pair_counts[k] / ideal, pair_counts[k]);
  }
  ck__c_locale_leave(&locale);
  CK_TRY(ck__file_write_atomic(path, text, used));
  free(text);
  return CK_OK;

fail:
  ck__c_locale_leave(&locale);
  free(text);
  return status;
}
