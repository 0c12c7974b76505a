/*
 * clkit/objectives.h - the built-in objective functions shared by the
 * optimisers (PSO, GA): names, usual domains, known optima, and batch
 * evaluation on any device.
 */
#ifndef CLKIT_OBJECTIVES_H
#define CLKIT_OBJECTIVES_H

#include <stddef.h>

#include "clkit/device.h"
#include "clkit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * ck_objective_fn - an objective evaluated on the host, for the PSO and
 * the GA (their config's `evaluate`): the values of `count` positions of
 * `dim` coordinates, row-major (position i's coordinate d at
 * x[i * dim + d]), into f[0] .. f[count - 1]. A NaN counts as the largest
 * value; values past the run's precision are clamped to its range (a
 * workload run whose best is -inf or below it fails: CK_ERROR_MISMATCH).
 * x and f are clkit's memory, valid during the call only.
 * Returns: CK_OK; any other status stops the run, which returns it.
 */
typedef ck_status (*ck_objective_fn)(const double *x, size_t count, size_t dim,
                                     double *f, void *user);

/*
 * ck_device_batch - a batch of positions where the device keeps them, for
 * an objective evaluated beside them (ck_device_objective_fn): on a CUDA
 * device no copy to the host.
 *
 * Given by clkit: count positions of dim coordinates, dimension-major
 * (position i's coordinate d at x[d * stride + i]), real_size bytes each
 * (4: float, 8: double). On a CUDA device (x_on_host 0) they are in the
 * memory of CUDA device `ordinal`, and work queued after the objective
 * runs on `stream` (a cudaStream_t). On other devices (x_on_host 1,
 * ordinal -1, stream NULL) they are a copy in host memory, page-locked
 * on OpenCL devices. They are complete when the objective is called,
 * but on a CUDA device for a run whose config asks for stream order
 * (evaluate_device_ordered): then they are ready in `stream`'s order, and
 * a callee that reads them on another stream makes it wait first
 * (ck_device_batch_wait). x is clkit's memory: read it during the call
 * only (in stream order: in work that the values wait for), and never
 * write it.
 *
 * Set by the objective: where its count values are. In device memory
 * (values_on_host 0, a CUDA device only), they must be complete once the work
 * queued on `stream` before the objective returned is done (a callee working on
 * another stream makes `stream` wait for it), and stay valid until the
 * objective is next called (in stream order: called twice more) or the
 * run ends. In host memory (values_on_host 1), they are read before the
 * objective is called again. Each value is value_size bytes (4: float, 8:
 * double), value_stride values apart (1: contiguous). A NaN counts as the
 * largest value, as with ck_objective_fn.
 */
typedef struct ck_device_batch {
  const void *x;
  size_t count, dim, stride, real_size;
  int ordinal;
  void *stream;
  int x_on_host;
  const void *values;
  size_t value_size, value_stride;
  int values_on_host;
} ck_device_batch;

/*
 * ck_device_objective_fn - an objective evaluated beside the device that
 * holds the swarm or population, for the PSO and the GA (their config's
 * `evaluate_device`): reads batch's positions and sets where its values
 * are (ck_device_batch).
 * Returns: CK_OK; any other status stops the run, which returns it.
 */
typedef ck_status (*ck_device_objective_fn)(ck_device_batch *batch, void *user);

/*
 * ck_device_batch_read_values - the count values that a batch's own
 * fields name (values, value_size, value_stride, values_on_host), as
 * doubles in host memory: read where they are in host memory, or copied
 * from the memory of CUDA device `ordinal` in `stream`'s order, waiting
 * for the stream. For a caller that checks values before it tells them.
 * Takes: batch (read), values (set: batch->count values).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, value
 * fields that name no values, or values in device memory of a device
 * other than CUDA; device errors.
 */
ck_status ck_device_batch_read_values(const ck_device_batch *batch,
                                      double *values);

/*
 * ck_device_batch_wait - makes work queued from now on on `stream` (a
 * cudaStream_t of the batch's CUDA device; NULL: the legacy default
 * stream) wait for the batch's positions, with no wait on the host: for
 * an objective called in stream order (evaluate_device_ordered) that
 * reads them on a stream of its own. Nothing to do where the positions
 * are complete: in host memory, or on the batch's own stream.
 * Takes: batch (read), stream.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL batch; device
 * errors.
 */
ck_status ck_device_batch_wait(const ck_device_batch *batch, void *stream);

/*
 * ck_device_batch_after - makes the work that clkit queues on the batch's
 * stream after the objective wait for the work queued so far on `stream`
 * (as ck_device_batch_wait's), with no wait on the host: for values made
 * on a stream of the objective's own. Nothing to do where the positions
 * are in host memory, or `stream` is the batch's own.
 * Takes: batch (read), stream.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL batch; device
 * errors.
 */
ck_status ck_device_batch_after(const ck_device_batch *batch, void *stream);

typedef struct ck_objective_info {
  const char *name;    /* "rastrigin" */
  int id;              /* CK_OBJECTIVE_* of cl/ck_objectives.h */
  const char *formula; /* one line, for help texts */
  double lo, hi;       /* the usual domain of every coordinate */
  int streamed;        /* 1: evaluated inside the fused update loop */
  /* Known optimum: value = optimum_per_dim * dim + optimum_constant, at
   * every coordinate equal to optimum_x, when has_optimum is 1. */
  int has_optimum;
  double optimum_per_dim, optimum_constant, optimum_x;
} ck_objective_info;

/* ck_objective_list - the table of built-in objectives: table, set to a
 * static array owned by clkit, of count entries.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_objective_list(const ck_objective_info **table, size_t *count);

/*
 * ck_objective_find - an objective by name ("sphere", "rastrigin",
 * "rosenbrock", "griewank", "ackley", "schwefel", "michalewicz",
 * "styblinski-tang", "f1", "f2", "lsq"). info is set to an entry of the
 * static table.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, or naming
 * the unknown function and listing the known ones.
 */
ck_status ck_objective_find(const char *name, const ck_objective_info **info);

/*
 * ck_objective_get_optimum - the known optimal value of a streamed objective
 * in dim dimensions. michalewicz is known for dim 2, 5 and 10 only.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or dim
 * below 1; CK_ERROR_NOT_FOUND when no optimum is known (lsq included).
 */
ck_status ck_objective_get_optimum(const ck_objective_info *info, int dim,
                                   double *value);

/*
 * ck_objective_evaluate - evaluate a streamed objective at count points
 * (row-major, count x dim) on a device, in float (double_precision 0) or
 * double (1, on devices with fp64). ref evaluates with the same shared
 * code on the host.
 * Takes: points, values (count entries, out).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT (a NULL argument, dim < 1,
 * count 0 or past 2^32 - 1, not streamed, double on a device without
 * fp64); CK_ERROR_OUT_OF_MEMORY; the errors of ck_program_build();
 * device errors.
 */
ck_status ck_objective_evaluate(const ck_device *device,
                                const ck_objective_info *info, int dim,
                                const double *points, size_t count,
                                int double_precision, double *values);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_OBJECTIVES_H */
