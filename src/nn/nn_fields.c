/*
 * nn_fields.c - the defaults and ranges of the fields of ck_nn_config and
 * ck_dataset_options, the one place that gives them: their init
 * functions, the checks of ck_nn_create and the MLP workload's options
 * read these tables.
 */
#include <float.h>
#include <stddef.h>

#include "nn/nn_internal.h"

static const ck__field_word activations[] = {{"sigmoid", CK_NN_SIGMOID},
                                             {"tanh", CK_NN_TANH},
                                             {"relu", CK_NN_RELU},
                                             {NULL, 0}};
static const ck__field_word losses[] = {
    {"ce", CK_NN_CROSS_ENTROPY}, {"mse", CK_NN_MSE}, {NULL, 0}};
static const ck__field_word optimizers[] = {
    {"sgd", CK_NN_SGD}, {"adam", CK_NN_ADAM}, {NULL, 0}};
static const ck__field_word schedules[] = {{"none", CK_NN_CONSTANT},
                                           {"step", CK_NN_STEP},
                                           {"cosine", CK_NN_COSINE},
                                           {NULL, 0}};
static const ck__field_word maths[] = {
    {"fp32", CK_NN_FP32}, {"tf32", CK_NN_TF32}, {NULL, 0}};
/* A batch of 0 is the whole training set. */
static const ck__field_word whole[] = {{"all", 0}, {NULL, 0}};

#define NN_FIELD(member, kind, fallback, low, high)                            \
  CK__FIELD_OF(ck_nn_config, member, kind, fallback, low, high)
#define WIDTH(index, fallback)                                                 \
  {                                                                            \
    NN_FIELD(sizes[index], CK__FIELD_SIZE, fallback, 1, CK_NN_MAX_WIDTH),      \
        .flags = CK__FIELD_APART                                               \
  }

const ck__field ck__nn_fields[CK__NN_FIELDS] = {
    /* The widths, input first: 2 features, 8 hidden, 2 classes; each
     * layer's width is checked by ck_nn_create. */
    [CK__NN_LAYER_COUNT] = {NN_FIELD(layer_count, CK__FIELD_SIZE, 3, 2,
                                     CK_NN_MAX_LAYERS + 1)},
    [CK__NN_SIZE_0] = WIDTH(0, 2),
    [CK__NN_SIZE_1] = WIDTH(1, 8),
    [CK__NN_SIZE_2] = WIDTH(2, 2),
    /* Every hidden layer's (ck_nn_config_init), each checked apart. */
    [CK__NN_ACTIVATION] = {CK__FIELD_ENUM(ck_nn_config, activations[0],
                                          CK_NN_RELU, activations),
                           .flags = CK__FIELD_APART},
    [CK__NN_LOSS] = {CK__FIELD_ENUM(ck_nn_config, loss, CK_NN_CROSS_ENTROPY,
                                    losses)},
    [CK__NN_OPTIMIZER] = {CK__FIELD_ENUM(ck_nn_config, optimizer, CK_NN_ADAM,
                                         optimizers)},
    [CK__NN_LEARNING_RATE] = {NN_FIELD(learning_rate, CK__FIELD_REAL, 0.001,
                                       1e-12, 1e6)},
    [CK__NN_MOMENTUM] = {NN_FIELD(momentum, CK__FIELD_REAL, 0.9, 0, 1),
                         .flags = CK__FIELD_BELOW},
    [CK__NN_BETA1] = {NN_FIELD(beta1, CK__FIELD_REAL, 0.9, 0, 1),
                      .flags = CK__FIELD_BELOW},
    [CK__NN_BETA2] = {NN_FIELD(beta2, CK__FIELD_REAL, 0.999, 0, 1),
                      .flags = CK__FIELD_BELOW},
    [CK__NN_EPSILON] = {NN_FIELD(epsilon, CK__FIELD_REAL, 1e-8, 0, DBL_MAX),
                        .flags = CK__FIELD_ABOVE},
    [CK__NN_WEIGHT_DECAY] = {NN_FIELD(weight_decay, CK__FIELD_REAL, 0, 0, 1e6)},
    [CK__NN_SCHEDULE] = {CK__FIELD_ENUM(ck_nn_config, schedule, CK_NN_CONSTANT,
                                        schedules)},
    /* A step schedule's (ck_nn_create). */
    [CK__NN_STEP_EVERY] = {NN_FIELD(step_every, CK__FIELD_UINT, 10, 1,
                                    0xFFFFFFFFu),
                           .flags = CK__FIELD_APART},
    [CK__NN_STEP_GAMMA] = {NN_FIELD(step_gamma, CK__FIELD_REAL, 0.5, 0, 1),
                           .flags = CK__FIELD_ABOVE | CK__FIELD_APART},
    [CK__NN_BATCH] = {NN_FIELD(batch, CK__FIELD_SIZE, 64, 1, 1 << 30),
                      .words = whole},
    [CK__NN_SEED] = {NN_FIELD(seed, CK__FIELD_UINT64, 1, 0, 0x1p64),
                     .flags = CK__FIELD_APART},
    [CK__NN_MATH] = {CK__FIELD_ENUM(ck_nn_config, math, CK_NN_FP32, maths)},
};

static const ck__field_word columns[] = {{"first", 0}, {"last", -1}, {NULL, 0}};
static const ck__field_word headers[] = {
    {"no", 0}, {"yes", 1}, {"auto", -1}, {NULL, 0}};

/* Checked by ck_dataset_load, with their own messages. */
const ck__field ck__dataset_fields[CK__DATASET_FIELDS] = {
    [CK__DATASET_LABEL_COLUMN] = {CK__FIELD_OF(ck_dataset_options, label_column,
                                               CK__FIELD_INT, 0, 0, 999999),
                                  .flags = CK__FIELD_APART, .words = columns},
    [CK__DATASET_HEADER] = {CK__FIELD_ENUM(ck_dataset_options, header, -1,
                                           headers),
                            .flags = CK__FIELD_APART},
    [CK__DATASET_LABELLED] = {CK__FIELD_OF(ck_dataset_options, labelled,
                                           CK__FIELD_INT, 1, -1, 1),
                              .flags = CK__FIELD_APART},
};
