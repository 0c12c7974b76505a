/*
 * problem.h - what the optimisers (PSO, GA) share about their problem:
 * the objective (built in, lsq over data, or user OpenCL C), its domain,
 * the checks of both, and moving reals and data to the device.
 */
#ifndef CK_PROBLEM_H
#define CK_PROBLEM_H

#include "clkit/clkit.h"
#include "core/internal.h"

enum { CK__MAX_DIM = 100000, CK__MAX_USER_DIM = 4096 };

typedef struct ck__problem_spec {
  const char *function; /* built-in name, or NULL with source */
  const char *source;   /* user OpenCL C */
  const char *source_name;
  const ck_lsq_data *data;
  int dim;
  const double *lo, *hi; /* dim entries, or NULL */
  int double_precision;
  int has_target;
  double target;
  double max_seconds;
} ck__problem_spec;

typedef struct ck__problem {
  const ck_objective_info *info; /* NULL for user objectives */
  int objective;                 /* CK_OBJECTIVE_* */
  int streamed;
  int dim;
  double *lo, *hi;               /* owned, dim entries */
  char *user_source, *user_name; /* owned copies */
  int user_has_data;
  const ck_lsq_data *data;       /* borrowed */
  int double_precision;
  size_t real_size;
} ck__problem;

/* Checks a spec (the messages name the CLI options) and fills problem;
 * release it with ck__problem_free(). */
ck_status ck__problem_init(ck__problem *problem, const ck_device *device,
                           const ck__problem_spec *spec);
void ck__problem_free(ck__problem *problem);

/* Reals of the problem's precision to and from a buffer. */
ck_status ck__reals_write(ck_queue *queue, ck_buffer *buffer,
                          int double_precision, const double *values,
                          size_t count);
ck_status ck__reals_read(ck_queue *queue, ck_buffer *buffer,
                         int double_precision, double *values, size_t count);

/* A buffer of at least one byte. */
ck_status ck__buffer_make(ck_queue *queue, size_t bytes, ck_buffer **buffer);

/* The problem's data on the device: lsq column-major in its precision,
 * a user objective's rows as floats; a placeholder when there is none. */
ck_status ck__problem_upload(const ck__problem *problem, ck_queue *queue,
                             ck_buffer **data);

/* Reduction work-group size for a device: a power of two up to 256. */
uint32_t ck__group_size(const ck_device *device);

/* Row ranges per point for lsq group mode: enough work-groups for four a
 * compute unit, none with fewer rows than work-items. */
uint32_t ck__lsq_chunks(const ck_device *device, size_t points, size_t rows,
                        uint32_t group);

/* Whether lsq evaluation of `points` points should use group mode. */
int ck__lsq_group_mode(const ck_device *device, ck_pso_lsq_mode mode,
                       size_t points, uint32_t group);

#endif /* CK_PROBLEM_H */
