/*
 * clkit/nn.h - multilayer perceptrons for classification, trained by
 * backpropagation on any device.
 *
 * A network is a stack of dense layers. Hidden layers use sigmoid, tanh
 * or relu; the output is softmax with cross-entropy (the default) or
 * sigmoid with mean squared error against one-hot targets. Weights,
 * optimiser state and attached data sets stay on the device; an epoch
 * runs without host round trips except for its statistics.
 *
 *   ck_nn_config config;
 *   ck_nn_config_init(&config);                  defaults, then adjust
 *   ck_nn *nn;
 *   ck_nn_create(device, &config, &nn);          weights drawn from seed
 *   ck_nn_set_preprocessing(nn, &train, kind);   scaling and class names
 *   ck_nn_attach(nn, CK_NN_TRAIN, &train);       raw data in, normalised
 *   ck_nn_attach(nn, CK_NN_TEST, &test);
 *   ck_nn_train(nn, &training, &report);         epochs, early stopping
 *   ck_nn_save(nn, "model.ckn");
 *   ck_nn_destroy(nn);
 *
 * Model files (.ckn) are described in docs/nn.md; ck_nn_load() checks
 * their header, sizes and checksum.
 */
#ifndef CLKIT_NN_H
#define CLKIT_NN_H

#include <stddef.h>
#include <stdint.h>

#include "clkit/dataset.h"
#include "clkit/device.h"
#include "clkit/spread.h"
#include "clkit/status.h"
#include "clkit/workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most weight layers a network may have, and the widest layer. */
#define CK_NN_MAX_LAYERS 16
#define CK_NN_MAX_WIDTH 65536
/* The hidden width of `--layers auto`: features, this, classes. */
#define CK_NN_AUTO_HIDDEN 128

typedef enum ck_nn_activation {
  CK_NN_SIGMOID = 0,
  CK_NN_TANH = 1,
  CK_NN_RELU = 2
} ck_nn_activation;

typedef enum ck_nn_loss {
  CK_NN_CROSS_ENTROPY = 0, /* softmax output, cross-entropy loss */
  CK_NN_MSE = 1            /* sigmoid output, half squared error, one-hot */
} ck_nn_loss;

typedef enum ck_nn_optimizer {
  CK_NN_SGD = 0, /* with momentum (0: plain SGD) */
  CK_NN_ADAM = 1
} ck_nn_optimizer;

typedef enum ck_nn_schedule {
  CK_NN_CONSTANT = 0,
  CK_NN_STEP = 1,  /* lr x gamma^(epoch / step_every) */
  CK_NN_COSINE = 2 /* lr (1 + cos(pi t / T)) / 2 over the planned steps */
} ck_nn_schedule;

/* The arithmetic of the matrix products. */
typedef enum ck_nn_math {
  CK_NN_FP32 = 0, /* IEEE single precision throughout */
  CK_NN_TF32 = 1  /* CUDA devices only: the products' inputs rounded to
                     TF32 (10-bit mantissa) on tensor cores, FP32 sums */
} ck_nn_math;

typedef enum ck_nn_set {
  CK_NN_TRAIN = 0,
  CK_NN_VALIDATION = 1,
  CK_NN_TEST = 2
} ck_nn_set;

typedef struct ck_nn_config {
  /* Layer widths, input first and classes last: layer_count entries,
   * 2 .. CK_NN_MAX_LAYERS + 1, each 1 .. CK_NN_MAX_WIDTH. */
  size_t layer_count;
  size_t sizes[CK_NN_MAX_LAYERS + 1];
  /* The activation of each hidden layer (layer_count - 2 entries). */
  ck_nn_activation activations[CK_NN_MAX_LAYERS];
  ck_nn_loss loss;
  ck_nn_optimizer optimizer;
  double learning_rate;         /* > 0 */
  double momentum;              /* SGD, in [0, 1) */
  double beta1, beta2, epsilon; /* Adam */
  double weight_decay;          /* L2 on weights (not biases), >= 0 */
  ck_nn_schedule schedule;
  unsigned step_every; /* CK_NN_STEP: epochs between decays, >= 1 */
  double step_gamma;   /* CK_NN_STEP: factor, in (0, 1] */
  size_t batch;        /* samples a step, >= 1; 0: the whole training set */
  uint64_t seed;       /* weights (Xavier for sigmoid and tanh, He for
                          relu) and the epochs' shuffles */
  ck_nn_math math;     /* CK_NN_TF32 needs a CUDA device */
} ck_nn_config;

typedef struct ck_nn ck_nn;

/* The statistics of one epoch. Accuracies are fractions; a set that is
 * not attached has NaN loss and accuracy. */
typedef struct ck_nn_epoch {
  unsigned epoch;    /* 1-based */
  double train_loss; /* mean over the epoch's steps, as trained */
  double train_accuracy;
  double validation_loss, validation_accuracy;
  double test_loss, test_accuracy;
  double learning_rate; /* at the epoch's last step */
  double samples_per_s; /* training samples / epoch wall time */
  double seconds;       /* epoch wall time, evaluations included */
} ck_nn_epoch;

/* Called after each epoch; return nonzero to stop training. */
typedef int (*ck_nn_epoch_fn)(void *user, const ck_nn_epoch *epoch);

typedef struct ck_nn_training {
  unsigned epochs; /* the most epochs, >= 1 */
  /* Early stopping: stop after this many epochs without an improvement
   * of the watched loss, the validation loss when a validation set is
   * attached, else the training loss. 0: train every epoch. With
   * validation data the weights of the epoch with the lowest validation
   * loss are kept; without, the last epoch's. */
  unsigned patience;
  ck_nn_epoch_fn on_epoch; /* optional */
  void *user;
  /* An epoch improves when its watched loss is below the lowest so far
   * by more than tol (>= 0; 0: any lower loss). */
  double tol;
} ck_nn_training;

typedef struct ck_nn_report {
  unsigned epochs;            /* epochs run */
  unsigned best_epoch;        /* whose weights the network now holds */
  ck_stop stopped_by;         /* CK_STOP_STEPS (the epochs ran out),
                                 CK_STOP_EARLY (patience ran out) or
                                 CK_STOP_CANCELLED (on_epoch said stop) */
  double best_test_accuracy;  /* the best over the epochs; NaN w/o test */
  double final_test_accuracy; /* of the weights kept; NaN without test */
  double final_test_loss;
  double best_validation_loss; /* NaN without validation */
  double samples_per_s;        /* training samples / training time */
  double wall_s, kernel_s, build_s;
} ck_nn_report;

/* ck_nn_config_init - every field at its default: the one `clkit run nn
 * --help` shows for the option that sets it, a small network (set sizes
 * for real data), and Adam's beta1, beta2 and epsilon (their table is
 * src/nn/nn_fields.c), seed 1.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT if config is NULL. */
ck_status ck_nn_config_init(ck_nn_config *config);

/*
 * ck_nn_config_read - a configuration from options of `clkit run nn`
 * (name/value pairs, as ck_workload_run() takes them), read and checked
 * as the command reads them: layers, act, loss, optimizer, lr, momentum,
 * weight-decay, schedule, batch and math, with epochs, patience, tol,
 * normalize and val for the training. Every other field is at its
 * default (ck_nn_config_init), seed 1.
 * Takes: params (count pairs, read during the call); config (filled in);
 * training (its epochs, patience and tol filled in, on_epoch and user
 * untouched), normalization and validation (the fraction --val holds out,
 * 0 for none), each filled in with its option or its default; NULL skips
 * one.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL config, a value the
 * command refuses, or an option that does not describe a network or its
 * training (data, files, --tiles), with the command's message; config is
 * then unchanged.
 */
ck_status ck_nn_config_read(const ck_param *params, size_t count,
                            ck_nn_config *config, ck_nn_training *training,
                            ck_normalization_kind *normalization,
                            double *validation);

/*
 * ck_nn_hold_out - the validation rows that `clkit run nn --val fraction
 * --seed seed` holds out of its training data: a seeded random fraction
 * (ck_dataset_split_random(), its seed drawn from the run's) into
 * validation, the other rows into rest.
 * Returns: as ck_dataset_split_random().
 */
ck_status ck_nn_hold_out(const ck_dataset *train, double fraction,
                         uint64_t seed, ck_dataset *rest,
                         ck_dataset *validation);

/*
 * ck_nn_create - check the configuration, build the kernels and draw the
 * weights on device.
 * Takes: device; config (copied); nn (set; release with ck_nn_destroy()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or naming
 * the bad setting; CK_ERROR_UNSUPPORTED for CK_NN_TF32 on a device other
 * than CUDA; CK_ERROR_BUILD; CK_ERROR_DEVICE_MEMORY;
 * CK_ERROR_OUT_OF_MEMORY; other device errors.
 */
ck_status ck_nn_create(const ck_device *device, const ck_nn_config *config,
                       ck_nn **nn);

/*
 * ck_nn_create_spread - ck_nn_create over several devices, and over the
 * processes of an MPI communicator (clkit/spread.h), data parallel: every
 * member holds the whole network and every attached set, takes a part of
 * each batch's rows, and the members' gradients are summed before each
 * optimiser step, which every member takes alike. Training matches the
 * one-device run up to the order of the gradients' sums; evaluations and
 * predictions share the rows too and give the same results everywhere.
 * Every process of the communicator makes the same calls on the network,
 * which then behaves as any other. Rows are dealt by the spread's shares
 * or, without them, by the speeds a short probe measures when training
 * starts; a batch of fewer rows than members is refused then.
 * Takes: spread (read during the call); config and nn as ck_nn_create.
 * Returns: as ck_nn_create, naming the failed member's device (and rank);
 * CK_ERROR_EXCHANGE when the processes cannot exchange.
 */
ck_status ck_nn_create_spread(const ck_spread *spread,
                              const ck_nn_config *config, ck_nn **nn);

/*
 * ck_nn_set_preprocessing - fit the per-feature normalisation of kind on
 * train (raw features) and keep it, with train's class names, as part of
 * the model (train is not kept). Call before attaching data.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, an
 * unknown kind or an empty train, when train's features differ from the
 * input width, it has more classes than the output width, or a set is
 * already attached (by ck_nn_attach() or ck_nn_predict(); it was
 * normalised by the scaling it would keep); CK_ERROR_OUT_OF_MEMORY. On
 * failure the model is unchanged.
 */
ck_status ck_nn_set_preprocessing(ck_nn *nn, const ck_dataset *train,
                                  ck_normalization_kind kind);

/*
 * ck_nn_attach - copy a data set (raw features, normalised here with the
 * model's normalisation) to the device as the training, validation or
 * test set, replacing what was attached there. data is not kept.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, an
 * unknown set, a feature count other than the input width, no rows or
 * 2^31 or more, or a label outside the output classes;
 * CK_ERROR_DEVICE_MEMORY; CK_ERROR_OUT_OF_MEMORY; other device errors. On
 * failure nothing is attached as that set (a set attached there before
 * is gone too).
 */
ck_status ck_nn_attach(ck_nn *nn, ck_nn_set which, const ck_dataset *data);

/*
 * ck_nn_train_epoch - one epoch over the training set (shuffled from the
 * seed and the epoch number), then the evaluation of each attached set.
 * Takes: epoch (filled in; NULL to skip).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL network or with no
 * training set; CK_ERROR_MISMATCH when the training loss is not finite
 * (lower the learning rate); CK_ERROR_DEVICE_MEMORY when a batch's
 * activations and deltas, with the weights, would not fit the device
 * (checked before they are allocated); CK_ERROR_OUT_OF_MEMORY; device
 * errors.
 */
ck_status ck_nn_train_epoch(ck_nn *nn, ck_nn_epoch *epoch);

/*
 * ck_nn_train - up to training->epochs epochs with early stopping (see
 * ck_nn_training); fills report. The network ends with the weights of
 * the best validation epoch (with validation data), else the last.
 * Returns: as ck_nn_train_epoch(); CK_ERROR_INVALID_ARGUMENT also for a
 * NULL argument or epochs 0; CK_ERROR_CANCELLED when on_epoch asked to
 * stop (the report is still filled).
 */
ck_status ck_nn_train(ck_nn *nn, const ck_nn_training *training,
                      ck_nn_report *report);

/*
 * ck_nn_evaluate - mean loss and accuracy of the current weights on an
 * attached set, and optionally its confusion matrix (classes x classes
 * counts, row = true class, column = predicted; output-width squared
 * entries, caller's array). NULL skips loss, accuracy or confusion.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL network, an
 * unknown set, or one not attached; CK_ERROR_OUT_OF_MEMORY; device
 * errors.
 */
ck_status ck_nn_evaluate(ck_nn *nn, ck_nn_set which, double *loss,
                         double *accuracy, uint64_t *confusion);

/*
 * ck_nn_predict - the predicted class of each row of data (raw features;
 * labels are ignored): data->rows entries into classes (none for an
 * empty set; caller's array). Uses the device; the attached test set is
 * replaced (as by ck_nn_attach(), whose errors it returns).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument or the
 * wrong feature count; CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_nn_predict(ck_nn *nn, const ck_dataset *data, int32_t *classes);

/*
 * ck_nn_predict_proba - each row's class probabilities: rows x outputs
 * entries, row-major (caller's array), each row summing to 1. With
 * CK_NN_CROSS_ENTROPY they are the softmax of the output layer; with
 * CK_NN_MSE its sigmoid outputs over their sum. Rows and devices as
 * ck_nn_predict(), whose classes are the first largest of each row.
 * Returns: as ck_nn_predict().
 */
ck_status ck_nn_predict_proba(ck_nn *nn, const ck_dataset *data,
                              double *probabilities);

/* The formats of a model file. */
typedef enum ck_nn_format {
  CK_NN_FORMAT_AUTO = 0, /* safetensors for a path ending in ".safetensors"
                            (in any case), else clkit's own */
  CK_NN_FORMAT_CKN = 1,  /* clkit's own (docs/nn.md), which ck_nn_load reads */
  CK_NN_FORMAT_SAFETENSORS = 2 /* the layers as PyTorch's nn.Linear names
                                  them, with the model in the metadata
                                  (docs/nn.md); written, not read */
} ck_nn_format;

/*
 * ck_nn_save - write the model (architecture, normalisation, class names
 * and their type, weights) to path atomically: a temporary file renamed
 * over path; in safetensors for a path ending in ".safetensors" (in any
 * case), else as a .ckn file.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, a path
 * that names a directory by its spelling ("x/", "."), or a class name the
 * file cannot hold (empty, longer than CK_DATASET_MAX_NAME bytes, with a
 * control character, or two alike), naming it; no file is written then;
 * CK_ERROR_IO naming the file; CK_ERROR_OUT_OF_MEMORY; device errors
 * (reading the weights).
 */
ck_status ck_nn_save(ck_nn *nn, const char *path);

/* ck_nn_save_as - ck_nn_save() in a format (ck_nn_save takes
 * CK_NN_FORMAT_AUTO). Returns: as ck_nn_save(); CK_ERROR_INVALID_ARGUMENT
 * also for an unknown format. */
ck_status ck_nn_save_as(ck_nn *nn, const char *path, ck_nn_format format);

/*
 * ck_nn_load - create a network on device from a model file. Training
 * settings (optimiser, rate, batch, seed) come from config, or the
 * defaults when config is NULL; its sizes, activations and loss are
 * ignored in favour of the file's. config is not kept; nn (set; release
 * with ck_nn_destroy()).
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL device, path or nn;
 * CK_ERROR_IO; CK_ERROR_PARSE naming the file and what is wrong (magic,
 * version, sizes, checksum, truncation; a safetensors file, which clkit
 * writes for other tools and does not read); as ck_nn_create().
 */
ck_status ck_nn_load(const ck_device *device, const char *path,
                     const ck_nn_config *config, ck_nn **nn);

/* ck_nn_describe - the network's configuration (sizes, activations,
 * loss, training settings), copied into config.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument. */
ck_status ck_nn_describe(const ck_nn *nn, ck_nn_config *config);

/* ck_nn_get_class_name - the name of output class k: the training data's
 * class name, or the integer k, written into buffer (capacity bytes;
 * CK_DATASET_MAX_NAME + 1 always suffice for a model loaded from a file or
 * trained on a loaded data set). Returns: CK_OK;
 * CK_ERROR_INVALID_ARGUMENT when nn is NULL, k is not an output class, or
 * buffer is NULL or too small (buffer then holds "", and the message says
 * how many bytes the name needs). */
ck_status ck_nn_get_class_name(const ck_nn *nn, size_t k, char *buffer,
                               size_t capacity);

/* What a network's class names stand for. A model file keeps it, so that
 * a reader can give back the labels the names came from (Python's MLP
 * does; docs/nn.md). */
typedef enum ck_nn_class_type {
  CK_NN_CLASS_DATA = 0,    /* names as a data file's label column gave
                              them (and every file written before class
                              types): a reader may take names that are
                              all plain integers as those integers */
  CK_NN_CLASS_INTEGER = 1, /* whole numbers in decimal: "-3" */
  CK_NN_CLASS_REAL = 2,    /* real numbers, in the shortest decimal that
                              reads back exactly: "2.0", "1e+20" */
  CK_NN_CLASS_BOOLEAN = 3, /* "False" and "True" */
  CK_NN_CLASS_BYTES = 4,   /* byte strings, each name their UTF-8 text */
  CK_NN_CLASS_TEXT = 5     /* text: the names are the labels, "3" too */
} ck_nn_class_type;

/* ck_nn_set_class_type / ck_nn_get_class_type - what the class names
 * stand for: CK_NN_CLASS_DATA for names from data (ck_nn_set_preprocessing
 * sets it with them), the file's for a loaded model. A network without
 * names has the classes 0 .. k - 1, named in decimal: CK_NN_CLASS_INTEGER.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL argument, an
 * unknown type, or a type other than integer for a network without
 * names. */
ck_status ck_nn_set_class_type(ck_nn *nn, ck_nn_class_type type);
ck_status ck_nn_get_class_type(const ck_nn *nn, ck_nn_class_type *type);

/*
 * ck_nn_get_weights / ck_nn_set_weights - layer l's (0-based weight layer)
 * weights, out x in row-major, and biases, out entries, copied out of or
 * into the device (caller's arrays). NULL skips an array.
 * Returns: CK_OK; CK_ERROR_INVALID_ARGUMENT for a NULL network, a bad
 * layer, or for ck_nn_set_weights() a weight or bias that is not finite
 * (NaN or infinite), naming the layer and the index; nothing is written
 * then; CK_ERROR_OUT_OF_MEMORY; device errors.
 */
ck_status ck_nn_get_weights(ck_nn *nn, size_t layer, float *weights,
                            float *biases);
ck_status ck_nn_set_weights(ck_nn *nn, size_t layer, const float *weights,
                            const float *biases);

/* ck_nn_destroy - release a network, its attached sets and its queue.
 * NULL is a no-op. Returns: CK_OK. */
ck_status ck_nn_destroy(ck_nn *nn);

#ifdef __cplusplus
}
#endif
#endif /* CLKIT_NN_H */
