/*
 * nn_internal.h - the MLP driver's state and its table of steps per
 * backend. The driver (nn.c) owns the epoch loop, batching, the learning
 * rate schedule, early stopping and the model; a step does one phase of
 * one batch (or of one chunk of an evaluation) on the device.
 *
 * Layers are numbered as in ck_nn_config.sizes: 0 is the input, L the
 * output. activations[l] and deltas[l] hold `capacity` rows of sizes[l]
 * values; weights[l] (l >= 1) is sizes[l] x (sizes[l - 1] + 1), the bias
 * in the last column (see cl/ck_nn.h), each row pitch[l] reals after the
 * last: sizes[l - 1] + 1, except where the steps ask for rows aligned to
 * a wider multiple (the padding is zero and no step reads it). first[l]
 * and second[l] have the same layout.
 */
#ifndef CK_NN_INTERNAL_H
#define CK_NN_INTERNAL_H

#include "clkit/clkit.h"
#include "clkit/nn.h"
#include "framework/framework.h"
#include "runtime/exchange.h"
#include "runtime/runtime.h"

typedef struct nn_state nn_state;

/* The two formats ck_dataset_load reads. */
typedef enum ck__dataset_format {
  CK__DATASET_UNKNOWN = 0, /* not read yet: the file could not be opened */
  CK__DATASET_CSV,
  CK__DATASET_IDX
} ck__dataset_format;

/* The most bytes of a warning of ck__dataset_load, its NUL included. */
#define CK__DATASET_WARNING_MAX 2048

/* What ck__dataset_load takes beyond ck_dataset_load's arguments, and
 * what it tells back. */
typedef struct ck__dataset_request {
  /* In: the option that set options->label_column (from 1), or NULL: a
   * CSV label column beyond a line's fields is named by it and counted
   * from 1 ("--label-col 4"), and the advice to take the column at the
   * other end names it ("--label-col last"). */
  const char *label_option;
  /* In: the format the file must have (CK__DATASET_UNKNOWN: either). A
   * file in the other fails before it is parsed, with
   * CK_ERROR_INVALID_ARGUMENT and "PATH is IDX, not CSV" (or the reverse)
   * for the caller to prefix with the file that set the requirement. */
  ck__dataset_format required;
  /* In: nonzero when the rows train a classifier: a CSV label column of
   * one value is then refused even where options->classes_from gives the
   * classes. */
  int training;
  /* Out: the file's format, set as soon as it is known (so also when its
   * content then fails to parse); unknown where it could not be read. */
  ck__dataset_format format;
  /* Out: "" or, for a CSV file that loaded, a warning that its label
   * column looks wrong (without "warning: "), for the caller's log. */
  char warning[CK__DATASET_WARNING_MAX];
} ck__dataset_request;

/* ck_dataset_load, with request (see above). */
ck_status ck__dataset_load(const char *path, const ck_dataset_options *options,
                           ck__dataset_request *request, ck_dataset *dataset);

/* The labels file that an IDX features file at path is read with when no
 * other is given: path with "images-idx3" in its base name replaced by
 * "labels-idx1". *labels_path is malloc'd, or NULL where the base name has
 * no "images-idx3". Returns CK_OK or CK_ERROR_OUT_OF_MEMORY. */
ck_status ck__idx_labels_path(const char *path, char **labels_path);

/* ---- what the data set's files share (dataset.c and its readers) ---- */

/* A data file, decompressed when it is gzip, into malloc'd *bytes with a
 * NUL after its *size bytes (dataset.c). */
ck_status ck__dataset_read_file(const char *path, uint8_t **bytes,
                                size_t *size);

/* The IDX reader (dataset_idx.c): the features in bytes[0 .. size), and
 * the labels file that options give or path derives. */
ck_status ck__dataset_load_idx(const char *path, const uint8_t *bytes,
                               size_t size, const ck_dataset_options *options,
                               ck_dataset *dataset);

/* The CSV reader (dataset_csv.c): text[0 .. size), a NUL after it, which
 * it cuts in place. */
ck_status ck__dataset_load_csv(const char *path, char *text, size_t size,
                               const ck_dataset_options *options,
                               ck__dataset_request *request,
                               ck_dataset *dataset);

/* The checks every function taking a filled data set makes (dataset.c). */
ck_status ck__dataset_check(const ck_dataset *dataset, const char *function);

/* Copies count names into a fresh array *out (NULL for none); what is for
 * the message (dataset.c). */
ck_status ck__dataset_copy_class_names(char *const *names, size_t count,
                                       char ***out, const char *what);

/* Frees count names and their array; NULL is none (dataset.c). */
void ck__dataset_free_class_names(char **names, size_t count);

/* The form of the OpenCL matrix products (cl/nn_gemm.inc). */
typedef enum ck__nn_form {
  CK__NN_GLOBAL = 0, /* work-items read memory directly, 4 x 4 outputs */
  CK__NN_LOCAL = 1,  /* tiles staged in local memory (GPUs) */
  CK__NN_VECTOR = 2  /* 16 x 16 outputs (16 x 8 in double), rows of them
                        vectors (CPUs) */
} ck__nn_form;

/* Kernel tuning in place of the per-device choice (for tests that run
 * another device's form on a CPU): output tile side (a power of two, 8 ..
 * 128; 16 .. 128 in the vector form) and the form; and, when nonzero,
 * the multiple of reals that rows of weights start on in place of the
 * steps' own (ref and CUDA steps; the OpenCL kernels read packed rows).
 * spoil_recording (CUDA steps, for tests): while the first training step
 * is recorded, a call is made that no recording takes (a stream
 * synchronisation, as a library outside clkit might make), so that the
 * recording fails. */
typedef struct ck__nn_tuning {
  unsigned tile;
  ck__nn_form form;
  unsigned row_multiple;
  int spoil_recording;
} ck__nn_tuning;

/* One optimiser step's settings, the same for every parameter. */
typedef struct ck__nn_update {
  double rate, momentum, beta1, beta2, epsilon, correction1, correction2, decay;
} ck__nn_update;

/* The buckets a spread member's gradients are summed in on the devices:
 * whole layers from the output layer down, a few megabytes each, so that
 * a bucket's sum starts once its layers' gradients are computed and runs
 * while the layers below are. Bucket b holds layers low[b] .. high[b]. */
typedef struct ck__nn_buckets {
  int count;
  int low[CK_NN_MAX_LAYERS], high[CK_NN_MAX_LAYERS];
} ck__nn_buckets;

/* One training step of a member, alone or one of several. */
typedef struct ck__nn_step {
  uint32_t offset;   /* its first row in the epoch's order */
  uint32_t count;    /* its rows; a member's may be 0 (gradients of 0) */
  uint32_t position; /* the first entry of its per-sample results */
  double scale;      /* the output deltas': 1 / the rows averaged over */
  /* The optimiser step, or NULL: the step ends in gradients[]. */
  const ck__nn_update *update;
  /* With update: NULL, the optimiser step fused into the gradient's (a
   * member alone); else gradients[] are summed over every member on the
   * devices, in these buckets (steps->sum), before the optimiser step. */
  const ck__nn_buckets *buckets;
  int average; /* the sums average the members' gradients */
  /* Record the step's launches where the backend records them (CUDA
   * graphs), and run nothing: a later step of the same rows and scale
   * replays them. A no-op elsewhere. */
  int record_only;
} ck__nn_step;

typedef struct ck__nn_steps {
  ck_status (*setup)(nn_state *state);
  /* Training rows index[offset .. offset + count - 1] into activations[0]
   * and batch_labels. */
  ck_status (*gather)(nn_state *state, uint32_t offset, uint32_t count);
  /* activations[layer] of count rows from input (rows first .. first +
   * count - 1 of a sizes[layer - 1]-wide matrix). */
  ck_status (*forward)(nn_state *state, int layer, ck_buffer *input,
                       uint32_t first, uint32_t count);
  /* The output layer's count rows against labels[first ..]: per-sample
   * loss, hit and prediction into entries position .. of losses, hits and
   * predictions; with delta_scale nonzero, deltas[L] too. */
  ck_status (*output)(nn_state *state, ck_buffer *labels, uint32_t first,
                      uint32_t count, double delta_scale, uint32_t position);
  /* deltas[layer - 1] from deltas[layer] (layer >= 2), count rows. */
  ck_status (*backward)(nn_state *state, int layer, uint32_t count);
  /* The gradient of weights[layer] over count rows (deltas[layer] and
   * activations[layer - 1]) and the optimiser step. */
  ck_status (*update)(nn_state *state, int layer, uint32_t count,
                      const ck__nn_update *update);
  /* update in two halves, for the members of a spread network, which sum
   * their gradients between them: the gradient of weights[layer] over
   * count rows into gradients[layer] (weight decay left out), then the
   * optimiser step from gradients[layer], weight decay added. */
  ck_status (*gradient)(nn_state *state, int layer, uint32_t count);
  ck_status (*apply)(nn_state *state, int layer, const ck__nn_update *update);
  /* The sums of the first count entries of losses and hits, read back. */
  ck_status (*reduce)(nn_state *state, uint32_t count, double *loss,
                      uint64_t *hits);
  void (*teardown)(nn_state *state);
  /* Optional (NULL where absent): the products of a training step of
   * count rows, once, on the scratch buffers, before the first timed
   * epoch, so that one-time work of the backend's first calls (cuBLAS
   * choosing and loading its kernels) is not timed as training. */
  ck_status (*prepare)(nn_state *state, uint32_t count);
  /* Optional: the multiple of reals that rows of weights start on, for
   * steps that ask for one (NULL: rows packed); they use pitch[l]. */
  unsigned (*row_multiple)(void);
  /* Optional, both or neither: around the calls of one training step
   * (ck__nn_pass). step_begin may run the whole step itself,
   * replaying launches recorded at an earlier step (*replayed = 1): the
   * driver then makes no calls and no step_end. Otherwise the calls
   * follow, then step_end with their status (CK_OK, or the first
   * failure's), which returns the step's; or, where the calls were only
   * being recorded and the recording failed, sets *again, and the driver
   * makes the calls once more (their status is then the step's). */
  ck_status (*step_begin)(nn_state *state, const ck__nn_step *step,
                          int *replayed);
  ck_status (*step_end)(nn_state *state, ck_status status, int *again);
  /* Optional, both or neither, for a spread member whose gradients are
   * summed on the devices (state->exchange): sum queues the sum over
   * every member of gradients[high] .. gradients[low], in that order
   * (averaged where average), once the launches before it are done,
   * beside the launches that follow; after join, every launch waits for
   * every sum queued. */
  ck_status (*sum)(nn_state *state, int low, int high, int average);
  ck_status (*join)(nn_state *state);
} ck__nn_steps;

/* A data set on the device: features (rows x sizes[0] reals), labels. */
typedef struct nn_data {
  ck_buffer *features, *labels;
  uint32_t rows;
} nn_data;

struct nn_state {
  ck_queue *queue;
  ck_device device;
  int double_precision;
  size_t real_size;
  int layers;                           /* L, weight layers */
  uint32_t sizes[CK_NN_MAX_LAYERS + 1]; /* widths of layers 0 .. L */
  int activation[CK_NN_MAX_LAYERS + 1]; /* of layers 1 .. L (ck_nn.h ids) */
  int loss, optimizer;                  /* ck_nn.h ids */
  uint32_t capacity;                    /* rows of activations, deltas */
  uint32_t pitch[CK_NN_MAX_LAYERS + 1]; /* reals a row of weights[l] takes */
  ck_buffer *weights[CK_NN_MAX_LAYERS + 1];
  ck_buffer *first[CK_NN_MAX_LAYERS + 1], *second[CK_NN_MAX_LAYERS + 1];
  ck_buffer *activations[CK_NN_MAX_LAYERS + 1];
  ck_buffer *deltas[CK_NN_MAX_LAYERS + 1];
  /* A spread member's: each layer's gradient, over its rows, then summed
   * over the members (the weights' layout). */
  ck_buffer *gradients[CK_NN_MAX_LAYERS + 1];
  /* A spread member's whose gradients are summed on the devices by
   * buckets (steps->sum): the exchange, and its local index there; NULL
   * elsewhere. */
  ck__exchange *exchange;
  size_t member;
  ck_buffer *batch_labels; /* capacity */
  ck_buffer *index;        /* the training rows in this epoch's order */
  nn_data sets[3];         /* by ck_nn_set */
  ck_buffer *losses, *hits, *predictions; /* sample_capacity each */
  uint32_t sample_capacity;
  ck_buffer *loss_total, *hit_total;
  /* OpenCL */
  ck_program *program;
  ck_kernel *gather_kernel, *forward_kernel, *backward_kernel, *update_kernel,
      *output_kernel, *reduce_kernel, *gradient_kernel, *apply_kernel;
  unsigned tile_m, tile_n, block_m, block_n, reduce_group;
  ck__nn_form form;
  unsigned lanes;       /* outputs a vector in the vector form, else 1 */
  ck__nn_tuning tuning; /* tile 0: the device's choice */
  /* CUDA */
  int tf32;            /* products on tensor cores in TF32 */
  void *blas;          /* cublasHandle_t */
  ck_buffer *gradient; /* one layer's gradient, rows pitch[l] apart */
  ck_buffer *ones;     /* ones_count ones: the bias gradient's sum */
  uint32_t ones_count;
  ck_buffer *step;      /* the step's settings (ck_nn_cuda_step) */
  ck_buffer *workspace; /* cuBLAS's, the same for every call */
  ck_kernel *gather_step_kernel, *output_step_kernel;
  int in_step;        /* between step_begin and step_end */
  int recording;      /* ... and recording the step's launches */
  int recording_only; /* ... to keep them, not run them (record_only) */
  void *graph;        /* a recorded training step of graph_count rows */
  uint32_t graph_count;
  double graph_scale; /* ... and that delta scale */
  /* The sums' stream (cudaStream_t) and its two events (cudaEvent_t),
   * for steps->sum and steps->join. */
  void *sum_stream, *sum_fork, *sum_joined;
  uint64_t replays;      /* steps run by replaying graph (for the tests) */
  int recording_refused; /* a recording failed: no step is recorded again */
  /* The device addresses that graph was recorded with. */
  const void *graph_addresses[16 + 6 * (CK_NN_MAX_LAYERS + 1)];
};

/* A network's members, over devices (nn_members.c). */
typedef struct ck__nn_spread ck__nn_spread;

/* A network: the driver's view. */
struct ck_nn {
  nn_state state;
  /* This process's members, local of them, the network itself first; a
   * member's own (members points at self) until the spread takes it. */
  ck_nn **members;
  size_t local;
  ck_nn *self;
  ck__nn_spread *spread; /* the network's members; NULL in a member */
  const ck__nn_steps *steps;
  ck__nn_steps merged_steps; /* native steps over the base's */
  ck_nn_config config;
  ck_normalization normalization; /* fitted on the training data */
  size_t class_count;             /* classes named by the data, <= output */
  char **class_names;             /* class_count names, or NULL: integers */
  ck_nn_class_type class_type;    /* what class_names stand for */
  int32_t *host_labels[3];        /* labels of each attached set */
  uint64_t steps_taken;           /* optimiser steps (Adam's t) */
  unsigned epoch;                 /* epochs trained */
  uint32_t position;              /* per-sample entries of this epoch */
  int prepared;                   /* the steps' prepare has run */
  unsigned planned_epochs;        /* the cosine schedule's horizon */
  ck_buffer *best_weights[CK_NN_MAX_LAYERS + 1];
  double build_s;
  /* The epoch's row order on the host while its upload (which does not
   * block) is in flight. */
  uint32_t *order;
  size_t order_capacity;
  ck_event *order_written;
};

/* Rows evaluated at a time, when no larger batch sized the buffers. */
#define CK__NN_EVALUATION_ROWS 4096u

/* The sets' names in messages, by ck_nn_set. */
extern const char *const ck__nn_set_names[3];

/* A call on every member of a network (ck__nn_spread_each): the network,
 * and what the call takes. */
typedef struct nn_call {
  ck_nn *nn;
  const ck_dataset *data;
  int which; /* a set, a layer, a kind, an epoch, a batch, or restore */
  const float *values;
} nn_call;

/* The upload of a member's previous order finished (it has long been, by
 * the time an epoch's statistics were read). */
ck_status ck__nn_finish_order(ck_nn *nn);

/* Model files (model.c). */
ck_status ck__nn_model_save(ck_nn *nn, const char *path, ck_nn_format format);
ck_status ck__nn_model_load(const ck_device *device, const char *path,
                            const ck_nn_config *config,
                            const ck__nn_tuning *tuning, ck_nn **result);
/* ck__nn_model_load up to its kernels: the network allocated
 * (ck__nn_allocate) with the file's weights; ck__nn_set_up(nn, 0) then
 * builds them. */
ck_status ck__nn_model_allocate(const ck_device *device, const char *path,
                                const ck_nn_config *config,
                                const ck__nn_tuning *tuning, ck_nn **result);
/* Weights of a layer as floats, out x (in + 1), from or to the device. */
ck_status ck__nn_layer_read(ck_nn *nn, int layer, float *values);
ck_status ck__nn_layer_write(ck_nn *nn, int layer, const float *values);

extern const ck__nn_steps ck__nn_ref_steps_f32;
extern const ck__nn_steps ck__nn_ref_steps_f64;
extern const ck__nn_steps ck__nn_opencl_steps;
/* Built with CUDA only (CK__CUDA_STEPS): the products on cuBLAS, over the
 * OpenCL steps. */
extern const ck__nn_steps ck__nn_cuda_steps;

/* Internal entry points for tests: a network computing in double
 * precision (ref, or devices with fp64), with optional tuning (NULL: the
 * device's), and its state. */
ck_status ck__nn_create(const ck_device *device, const ck_nn_config *config,
                        int double_precision, const ck__nn_tuning *tuning,
                        ck_nn **result);
/* ck__nn_create in two parts, so that a spread's members agree that
 * their networks fit before any builds kernels: the checks, the memory
 * check, the queue and the buffers, zeroed; then the weights drawn (where
 * draw is nonzero: not for a model's) and the kernels (a network that
 * fails it is the caller's to destroy). */
ck_status ck__nn_allocate(const ck_device *device, const ck_nn_config *config,
                          int double_precision, const ck__nn_tuning *tuning,
                          ck_nn **result);
ck_status ck__nn_set_up(ck_nn *nn, int draw);
nn_state *ck__nn_state(ck_nn *nn);

/* The launch of ck_nn_gather over count rows from offset; or, where step
 * (the step's settings on the device) is not NULL, of ck_nn_gather_step,
 * which reads the offset there. */
ck_status ck__nn_opencl_gather_launch(nn_state *state, uint32_t offset,
                                      ck_buffer *step, uint32_t count);
/* The launch of ck_nn_output, its entries from position on; or, where step
 * is not NULL, of ck_nn_output_step, which reads the position there. */
ck_status ck__nn_opencl_output_launch(nn_state *state, ck_buffer *labels,
                                      uint32_t first, uint32_t count,
                                      double delta_scale, uint32_t position,
                                      ck_buffer *step);

/* One training step of a member, alone or one of several: its
 * calls (ck__nn_pass), or a replay of their recording (steps->step_begin),
 * after its buffers for step->count rows. */
ck_status ck__nn_train_step(ck_nn *nn, const ck__nn_step *step);
/* One training step of a member alone on training rows offset .. offset
 * + count - 1 of the epoch's order, with the given optimiser settings;
 * adds nothing to the epoch statistics beyond the per-sample entries at
 * offset. */
ck_status ck__nn_train_batch(ck_nn *nn, uint32_t offset, uint32_t count,
                             const ck__nn_update *update);

/* What the members (nn_members.c) take of the driver's (nn.c): activations
 * and deltas for rows rows; a training step's calls, ending as step says;
 * the forward pass over rows first .. first + count - 1 of an attached
 * set, per-sample results in entries 0 .. count - 1; a layer's reals
 * (weights' layout) from or to buffer, rows packed in values, which has
 * room for sizes[l] x pitch[l]. */
ck_status ck__nn_ensure_capacity(ck_nn *nn, uint32_t rows);
ck_status ck__nn_pass(nn_state *state, const ck__nn_steps *steps,
                      const ck__nn_step *step);
/* The rows of each chunk in which ck__nn_forward_rows evaluates count
 * rows: the capacity, or CK__NN_EVALUATION_ROWS where that is more, and
 * count at most; the capacity grows to it. */
uint32_t ck__nn_chunk_rows(const ck_nn *nn, uint32_t count);
ck_status ck__nn_forward_rows(ck_nn *nn, ck_nn_set which, uint32_t first,
                              uint32_t count);
ck_status ck__nn_layer_load(nn_state *state, int layer, ck_buffer *buffer,
                            double *values);
ck_status ck__nn_layer_store(nn_state *state, int layer, ck_buffer *buffer,
                             double *values);

/*
 * A network's members (nn_members.c): a network on one device is a spread
 * of one member; a spread network has one a device of its process
 * (nn->members, the network itself first), and the calls below are
 * collective over the spread's processes (each makes the same calls).
 *
 * ck__nn_spread_create makes a network over spread's devices from config,
 * or from the model file at model where that is not NULL, with tuning
 * (NULL: the devices'), in double precision where double_precision is
 * nonzero (not for a model's). ck__nn_spread_destroy frees a spread and its
 * members but the network itself.
 */
ck_status ck__nn_spread_create(const ck_spread *spread,
                               const ck_nn_config *config, const char *model,
                               int double_precision,
                               const ck__nn_tuning *tuning, ck_nn **made);
void ck__nn_spread_destroy(ck__nn_spread *spread);
/* fn(context, i) for every member i of this process at once, a host
 * thread each (ck__spread_each: statuses agreed over every member, each
 * member's time counted as its compute); a member alone's on this
 * thread. */
ck_status ck__nn_spread_each(ck_nn *nn, ck_status (*fn)(void *, size_t),
                             void *context);
/* The rows of total (a batch, a set) that local member i takes: start and
 * count; a member alone takes them all. */
void ck__nn_spread_cut(const ck_nn *nn, size_t i, uint32_t total,
                       uint32_t *start, uint32_t *count);
/* Before training on batches of batch rows, for a spread: each member's
 * gradient buffers, the rows each takes (by the shares, or by the speeds a
 * short probe measures), and how the gradients are summed. A member alone
 * sums nothing and keeps no gradients apart. */
ck_status ck__nn_spread_prepare(ck_nn *nn, uint32_t batch);
/* Where members sum on the devices (NCCL), each member's step of a
 * batch of count rows recorded and not run (ck__nn_step.record_only), so
 * that the first step replays it; update holds the settings of every
 * step. Nothing elsewhere. */
ck_status ck__nn_spread_record(ck_nn *nn, uint32_t count,
                               const ck__nn_update *update);
/* One training step of the batch of count rows from entry offset of the
 * epoch's order: each member's step on its rows, their gradients summed
 * over all members, and the same optimiser step on each. */
ck_status ck__nn_spread_batch(ck_nn *nn, uint32_t offset, uint32_t count,
                              const ck__nn_update *update);
/* The epoch's loss sum and hits over every member's samples. */
ck_status ck__nn_spread_reduce(ck_nn *nn, double *loss, uint64_t *hits);
/* The forward pass over an attached set, its rows shared by the members:
 * the loss sum and hits (where not NULL) and every row's prediction
 * (where predicted is not NULL), the same on every process. */
ck_status ck__nn_spread_forward(ck_nn *nn, ck_nn_set which, double *loss,
                                uint64_t *hits, int32_t *predicted);
/* Every member's rows of a batch and times, into result->members. */
ck_status ck__nn_spread_report(ck_nn *nn, ck_result *result);
/* Starts the members' clocks for the report (ck__engine_clocks_start). */
void ck__nn_spread_clocks_start(ck_nn *nn);
/* This process's rank (0 for a network on one device). */
int ck__nn_spread_rank(const ck_nn *nn);

/* Class k's name into buffer, as ck_dataset_get_class_name() and
 * ck_nn_get_class_name() give it: name, or k in decimal when name is NULL.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT naming `function` when the
 * name and its NUL do not fit (buffer is then empty). */
ck_status ck__class_name_write(const char *function, const char *name, size_t k,
                               char *buffer, size_t capacity);

/* The fields of ck_nn_config and ck_dataset_options with their defaults
 * and ranges (nn_fields.c): ck_nn_config_init, ck_dataset_options_init
 * and the checks read them, and the workload's options point into them. */
enum {
  CK__NN_LAYER_COUNT,
  CK__NN_SIZE_0,
  CK__NN_SIZE_1,
  CK__NN_SIZE_2,
  CK__NN_ACTIVATION,
  CK__NN_LOSS,
  CK__NN_OPTIMIZER,
  CK__NN_LEARNING_RATE,
  CK__NN_MOMENTUM,
  CK__NN_BETA1,
  CK__NN_BETA2,
  CK__NN_EPSILON,
  CK__NN_WEIGHT_DECAY,
  CK__NN_SCHEDULE,
  CK__NN_STEP_EVERY,
  CK__NN_STEP_GAMMA,
  CK__NN_BATCH,
  CK__NN_SEED,
  CK__NN_MATH,
  CK__NN_FIELDS
};
extern const ck__field ck__nn_fields[CK__NN_FIELDS];
enum {
  CK__DATASET_LABEL_COLUMN,
  CK__DATASET_HEADER,
  CK__DATASET_LABELLED,
  CK__DATASET_FIELDS
};
extern const ck__field ck__dataset_fields[CK__DATASET_FIELDS];

/* ---- the workload (nn_workload.c, nn_run.c, nn_report.c) ---------------- */

/* A run's settings: the network's, and the run's own data, files and
 * training, as the options give them (nn_workload.c). */
typedef struct ck__nn_job {
  ck_nn_config config; /* first: the options' fields are the job's */
  int layers_given;
  size_t activation_count;
  ck_normalization_kind normalization;
  unsigned epochs, patience;
  double tol, validation_fraction;
  const char *train, *test, *train_labels, *test_labels, *predict_labels;
  const char *split, *trace, *save, *load, *predict, *out, *plot;
  ck_dataset_options csv;
  ck__nn_tuning tuning;
} ck__nn_job;
/* The options into job, over the defaults, and checked against each
 * other and the files they name; options may be NULL (the seed is then
 * 1). */
ck_status ck__nn_job_parse(const ck_param *params, size_t count,
                           const ck_run_options *options, ck__nn_job *job);
/* --act's one activation for every hidden layer, or one a layer. */
ck_status ck__nn_job_activations(ck__nn_job *job);
/* Whether a data option names data made on the spot (spirals:N,
 * blobs:N:F:C) rather than a file. */
int ck__nn_made_data(const char *path);

/* What the data files of a run are read with: the run's options, whose
 * log gets the warnings about a file, and the count of CSV files read
 * (what --label-col and --header describe). */
typedef struct ck__nn_data_reader {
  const ck_run_options *run;
  unsigned csv_files;
} ck__nn_data_reader;

/* The columns of an epoch's row for --plot. */
enum {
  CK__NN_ROW_EPOCH,
  CK__NN_ROW_SECONDS, /* since training began */
  CK__NN_ROW_TRAIN_LOSS,
  CK__NN_ROW_TRAIN_ACCURACY,
  CK__NN_ROW_VALIDATION_LOSS,
  CK__NN_ROW_VALIDATION_ACCURACY,
  CK__NN_ROW_TEST_LOSS,
  CK__NN_ROW_TEST_ACCURACY,
  CK__NN_ROW_WIDTH
};

/* The epochs as the run logs them (ck__nn_on_epoch, nn_report.c): the
 * trace's CSV text, and a row an epoch for --plot. */
typedef struct ck__nn_epoch_log {
  const ck_run_options *options;
  unsigned epochs;
  char *trace;
  size_t used, capacity;
  int failed;
  ck__history *rows; /* a row an epoch for --plot, or NULL */
  double seconds;    /* the epochs' wall time so far */
} ck__nn_epoch_log;
/* A ck_nn_training's on_epoch: the epoch's line to the log, its row to
 * the trace and the plot, and the run's progress. */
int ck__nn_on_epoch(void *user, const ck_nn_epoch *epoch);

/* One run of nn: its job, its data sets, its network and what its
 * training reported. ck__nn_run owns what it holds and frees it at its
 * end. */
typedef struct ck__nn_session {
  ck__nn_job job;
  uint64_t seed; /* the job's, before a loaded model's describes it */
  const ck_run_options *options;
  ck_nn *nn;
  ck_dataset train, test, validation, whole, predict;
  ck_dataset classes_view; /* the network's classes (model_classes) */
  ck__nn_data_reader reader;
  ck__dataset_format train_format;
  int training;
  ck__nn_epoch_log log;
  ck_nn_report report;
  double predict_accuracy; /* with --predict on labelled rows */
} ck__nn_session;
/* The workload's run (nn_run.c). */
ck_status ck__nn_run(const void *job, const ck_device *device,
                     const ck_param *params, size_t count,
                     const ck_run_options *options, ck_result *result);
/* A line to the run's log callback, where it has one. */
void ck__nn_log_line(const ck_run_options *options, const char *line);

/* The result's best figure (nn_report.c): the test accuracy, else what
 * --predict alone measured, else the training accuracy. */
ck_status ck__nn_report_best(ck__nn_session *s, ck_result *result);
/* The result's figures of the network and of the training: its shape,
 * the sets' rows and what the report measured. */
ck_status ck__nn_report_run(const ck__nn_session *s, ck_result *result);
/* --plot: the loss and the accuracy of each set per epoch, in two panels;
 * the seconds along the top. A set not attached is left out. */
ck_status ck__nn_write_plot(const ck__nn_session *s, const ck_result *result);
/* The benchmark's sizes and cost model (docs/nn.md, "Cost model"). */
extern const ck__bench ck__nn_bench;

#endif /* CK_NN_INTERNAL_H */
