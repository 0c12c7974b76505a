/*
 * clkit/spread.h - one run over several devices, and over the processes
 * of an MPI job.
 *
 * A spread run deals one problem to members, each one device: particles
 * of a swarm, islands of a GA, and so on (docs/scale-out.md says how each
 * workload is cut). A process drives its own devices; where the library
 * is built with MPI and a communicator is given, every process of it
 * takes part with its own devices, and members are numbered in rank
 * order. The workloads that spread take a ck_spread where they take one
 * device, and report each member's share and times.
 *
 *   ck_spread spread = {.devices = devices, .device_count = 2};
 *   ck_run_options options = {.seed = 1, .spread = &spread};
 *   ck_workload_run(workload, &devices[0], params, count, &options, &r);
 *   r.members[i]: each member's device, share and times
 */
#ifndef CLKIT_SPREAD_H
#define CLKIT_SPREAD_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/device.h"
#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most members one process drives. */
#define CK_SPREAD_MAX_LOCAL 64

typedef struct ck_spread {
  /* This process's devices, device_count of them (1 .. CK_SPREAD_MAX_LOCAL);
   * read during the call that takes the spread. */
  const ck_device *devices;
  size_t device_count;
  /* Optional: each member's weight, in member order over the whole run
   * (share_count entries, positive, finite); the work is dealt in
   * proportion. NULL: dealt in proportion to each device's speed, as a
   * short probe measures it. */
  const double *shares;
  size_t share_count;
  /* Optional: a pointer to the MPI_Comm whose processes share the run
   * (each process passes its own devices); NULL: this process alone. Only
   * where ck_spread_has_mpi() says the library was built with MPI. Every
   * process of the communicator makes the same calls. */
  const void *communicator;
} ck_spread;

/* What one member of a spread run did, in a result (clkit/workload.h). */
typedef struct ck_spread_member {
  char device[32];       /* the device's id */
  char device_name[128]; /* and its name */
  int rank;              /* the process that drove it (0 alone) */
  uint64_t units;        /* what it was dealt: particles, islands, ... */
  double share;          /* units over the run's total */
  /* Seconds of its own steps, from the run's first: its kernel time
   * where its device keeps one, else the host's, waits included. */
  double compute_s;
  double exchange_s; /* seconds its process spent exchanging in them */
  /* Bytes it sent to other members: its messages (halos, migrants,
   * ghosts), and its part of every gather, sum and broadcast once for
   * each other member (an MLP's gradients each batch among them); 0 for a
   * member alone. */
  uint64_t bytes_sent;
  /* The gas: its slab, from slab[0] to slab[1] along axis slab_axis (0:
   * x, 1: y); for a box of a grid of them (slab_axis 2), from slab[0] to
   * slab[1] along x and from slab_y[0] to slab_y[1] along y. slab_axis -1
   * and slab NaN for the other workloads; slab_y NaN but in a grid. */
  int slab_axis;
  double slab[2];
  double slab_y[2];
} ck_spread_member;

/*
 * ck_spread_has_mpi - whether this library was built with MPI, so that a
 * ck_spread may carry a communicator.
 * Takes: has_mpi, set to 1 or 0.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for NULL.
 */
ck_status ck_spread_has_mpi(int *has_mpi);

#ifdef __cplusplus
}
#endif

#endif /* CLKIT_SPREAD_H */
