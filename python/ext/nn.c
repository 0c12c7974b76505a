/*
 * nn.c - clkit.nn's C side: a network (ck_nn) as the Network type, trained
 * on arrays handed over in memory, with the GIL released while the device
 * works and each epoch's statistics reported back (where Ctrl-C stops).
 *
 * Arrays cross as buffers (no NumPy C API): features C-contiguous float32
 * ("f"), labels int32 ("i"); clkit copies them to the device and keeps
 * none of them.
 */
#include <string.h>

#include "ext.h"

typedef struct network {
  PyObject_HEAD ck_nn *nn;
  int busy; /* a call is using nn without the GIL */
} network;

static PyTypeObject network_type;

static int take(network *self) {
  return ck_py_take(&self->busy, "network");
}

static void network_dealloc(PyObject *object) {
  network *self = (network *)object;
  ck_nn_destroy(self->nn);
  Py_TYPE(object)->tp_free(object);
}

/* ---- arrays ------------------------------------------------------------ */

/* A data set over the buffers: features (rows, columns) and labels (rows
 * entries, or NULL: all class 0), of `classes` classes, named by names
 * (or NULL: integers). Nothing is copied; clkit only reads it. */
static ck_dataset dataset_of(const Py_buffer *x, const Py_buffer *y,
                             size_t classes, char **names) {
  ck_dataset data;
  memset(&data, 0, sizeof data);
  data.rows = (size_t)x->shape[0];
  data.features = (size_t)x->shape[1];
  data.values = x->buf;
  data.labels = y ? y->buf : NULL;
  data.classes = classes;
  data.class_names = names;
  return data;
}

/* The class names of a list of str (borrowed from its items: keep the
 * list alive), or NULL for None: 0, or -1 with an exception set. Release
 * *names with PyMem_Free. */
static int names_of(PyObject *list, Py_ssize_t classes, char ***names) {
  *names = NULL;
  if (list == Py_None)
    return 0;
  if (!PyList_Check(list) || PyList_GET_SIZE(list) != classes) {
    PyErr_Format(PyExc_TypeError, "names must be None or a list of %zd str",
                 classes);
    return -1;
  }
  *names = PyMem_Calloc((size_t)classes, sizeof **names);
  if (!*names) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t k = 0; k < classes; ++k) {
    const char *name = PyUnicode_AsUTF8(PyList_GET_ITEM(list, k));
    if (!name) {
      PyMem_Free(*names);
      *names = NULL;
      return -1;
    }
    (*names)[k] = (char *)name;
  }
  return 0;
}

/* ---- training ---------------------------------------------------------- */

typedef struct epochs_seen {
  PyObject *history; /* a list of per-epoch dicts */
  PyObject *error;   /* Ctrl-C or a failure, kept to raise */
} epochs_seen;

/* After each epoch: its statistics into the history; a pending Ctrl-C
 * stops the training. */
static int on_epoch(void *user, const ck_nn_epoch *epoch) {
  epochs_seen *seen = user;
  PyGILState_STATE state = PyGILState_Ensure();
  PyObject *row = Py_BuildValue(
      "{s:I,s:d,s:d,s:d,s:d,s:d,s:d,s:d}", "epoch", epoch->epoch, "loss",
      epoch->train_loss, "accuracy", epoch->train_accuracy, "validation_loss",
      epoch->validation_loss, "validation_accuracy", epoch->validation_accuracy,
      "learning_rate", epoch->learning_rate, "samples_per_s",
      epoch->samples_per_s, "seconds", epoch->seconds);
  if (!row || PyList_Append(seen->history, row) != 0 ||
      PyErr_CheckSignals() != 0)
    ck_py_keep_error(&seen->error);
  Py_XDECREF(row);
  int stop = seen->error != NULL;
  PyGILState_Release(state);
  return stop;
}

/* What a training takes beside the network's configuration. */
typedef struct fit_plan {
  ck_nn_training training;
  ck_normalization_kind kind;
  double validation; /* the fraction held out, or 0 */
} fit_plan;

/* The network of a configuration, its scaling fitted on the training
 * rows, trained by plan on them, with plan->validation of data held out
 * for validation as `clkit run nn --val` holds it out. *held is set when
 * the hold-out failed (the fraction leaves a side empty). */
static ck_status train(const ck_device *device, const ck_nn_config *config,
                       const ck_dataset *data, const fit_plan *plan,
                       ck_nn **result, ck_nn_report *report, int *held) {
  ck_nn *nn = NULL;
  ck_dataset rest = {0}, validation = {0};
  const ck_dataset *rows = data;
  ck_status status = CK_OK;
  if (plan->validation > 0) {
    status = ck_nn_hold_out(data, plan->validation, config->seed, &rest,
                            &validation);
    *held = status == CK_ERROR_INVALID_ARGUMENT;
    rows = &rest;
  }
  if (status == CK_OK)
    status = ck_nn_create(device, config, &nn);
  if (status == CK_OK)
    status = ck_nn_set_preprocessing(nn, rows, plan->kind);
  if (status == CK_OK)
    status = ck_nn_attach(nn, CK_NN_TRAIN, rows);
  if (status == CK_OK && validation.rows)
    status = ck_nn_attach(nn, CK_NN_VALIDATION, &validation);
  if (status == CK_OK)
    status = ck_nn_train(nn, &plan->training, report);
  ck_dataset_free(&rest);
  ck_dataset_free(&validation);
  if (status != CK_OK)
    ck_nn_destroy(nn);
  else
    *result = nn;
  return status;
}

/* The report's figures as a dict. */
static PyObject *report_dict(const ck_nn_report *report) {
  static const char *const stops[] = {"epochs", "patience", "cancelled"};
  int stop = report->stopped_by == CK_STOP_EARLY       ? 1
             : report->stopped_by == CK_STOP_CANCELLED ? 2
                                                       : 0;
  return Py_BuildValue("{s:I,s:I,s:s,s:d}", "epochs", report->epochs,
                       "best_epoch", report->best_epoch, "stopped_by",
                       stops[stop], "best_validation_loss",
                       report->best_validation_loss);
}

/* _clkit.nn_train(device, options, seed, X, y, classes, names, class_type,
 * session=None) -> (Network, history, report). options are `clkit run nn`'s
 * (name, value) pairs of the network and its training, layers included; names
 * the classes' (a list of str) or None; class_type what they stand for (an
 * NN_CLASS_ constant). */
static PyObject *py_nn_train(PyObject *module, PyObject *args) {
  (void)module;
  const char *selector;
  PyObject *list, *seed, *xs, *ys, *name_list, *session = Py_None;
  Py_ssize_t classes;
  int class_type;
  if (!PyArg_ParseTuple(args, "zOOOOnOi|O", &selector, &list, &seed, &xs, &ys,
                        &classes, &name_list, &class_type, &session))
    return NULL;
  if (classes < 1 || classes > CK_DATASET_MAX_CLASSES)
    return PyErr_Format(PyExc_ValueError, "classes must be 1 to %d, not %zd",
                        CK_DATASET_MAX_CLASSES, classes);
  ck_nn_config config;
  fit_plan plan = {{0}, CK_NORMALIZE_NONE, 0};
  plan.training.on_epoch = on_epoch;
  ck_param *params;
  size_t count;
  ck_device chosen;
  const ck_device *device = &chosen;
  if (ck_py_device_of(session, selector, &chosen) != 0 ||
      ck_py_params(list, &params, &count) != 0)
    return NULL;
  ck_status status = ck_nn_config_read(params, count, &config, &plan.training,
                                       &plan.kind, &plan.validation);
  PyMem_Free(params);
  if (status != CK_OK)
    return ck_py_raise(status, 1);
  if (seed != Py_None && ck_py_seed(seed, &config.seed) != 0)
    return NULL;
  char **names = NULL;
  if (names_of(name_list, classes, &names) != 0)
    return NULL;
  Py_buffer x, y;
  if (ck_py_borrow(xs, &x, "X", 2, 'f') != 0) {
    PyMem_Free(names);
    return NULL;
  }
  if (ck_py_borrow(ys, &y, "y", 1, 'i') != 0) {
    PyMem_Free(names);
    PyBuffer_Release(&x);
    return NULL;
  }
  PyObject *result = NULL;
  epochs_seen seen = {PyList_New(0), NULL};
  plan.training.user = &seen;
  network *made = seen.history ? PyObject_New(network, &network_type) : NULL;
  if (made) {
    made->nn = NULL;
    made->busy = 0;
    ck_dataset data = dataset_of(&x, &y, (size_t)classes, names);
    ck_nn_report report;
    int held = 0;
    Py_BEGIN_ALLOW_THREADS;
    status = train(device, &config, &data, &plan, &made->nn, &report, &held);
    if (status == CK_OK)
      status = ck_nn_set_class_type(made->nn, (ck_nn_class_type)class_type);
    Py_END_ALLOW_THREADS;
    if (seen.error)
      ck_py_raise_kept(&seen.error);
    else if (held) {
      char message[160];
      snprintf(message, sizeof message,
               "val=%g of the %zd rows of X leaves no row for training or "
               "none for validation",
               plan.validation, x.shape[0]);
      PyErr_SetString(ck_py_argument_error, message);
    } else if (status != CK_OK)
      ck_py_raise(status, 0);
    else
      result = Py_BuildValue("(OON)", made, seen.history, report_dict(&report));
  }
  Py_XDECREF(seen.error);
  Py_XDECREF(made);
  Py_XDECREF(seen.history);
  PyMem_Free(names);
  PyBuffer_Release(&x);
  PyBuffer_Release(&y);
  return result;
}

/* _clkit.nn_load(device, path, session=None) -> Network. */
static PyObject *py_nn_load(PyObject *module, PyObject *args) {
  (void)module;
  const char *selector, *path;
  PyObject *session = Py_None;
  if (!PyArg_ParseTuple(args, "zs|O", &selector, &path, &session))
    return NULL;
  ck_device device;
  if (ck_py_device_of(session, selector, &device) != 0)
    return NULL;
  ck_nn *nn = NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_nn_load(&device, path, NULL, &nn);
  Py_END_ALLOW_THREADS;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  network *made = PyObject_New(network, &network_type);
  if (!made) {
    ck_nn_destroy(nn);
    return NULL;
  }
  made->nn = nn;
  made->busy = 0;
  return (PyObject *)made;
}

/* ---- the network's methods --------------------------------------------- */

/* The rows of X through the network, as a bytearray: their classes
 * (int32), or with proba set their class probabilities (a float64 an
 * output). */
static PyObject *predict_rows(PyObject *object, PyObject *xs, int proba) {
  network *self = (network *)object;
  Py_buffer x;
  if (ck_py_borrow(xs, &x, "X", 2, 'f') != 0)
    return NULL;
  ck_nn_config config;
  ck_nn_describe(self->nn, &config);
  size_t row_bytes = proba ? config.sizes[config.layer_count - 1] * 8 : 4;
  PyObject *out =
      PyByteArray_FromStringAndSize(NULL, x.shape[0] * (Py_ssize_t)row_bytes);
  if (!out || take(self) != 0) {
    Py_XDECREF(out);
    PyBuffer_Release(&x);
    return NULL;
  }
  ck_dataset data = dataset_of(&x, NULL, 0, NULL);
  char *bytes = PyByteArray_AS_STRING(out);
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = proba ? ck_nn_predict_proba(self->nn, &data, (double *)bytes)
                 : ck_nn_predict(self->nn, &data, (int32_t *)bytes);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  PyBuffer_Release(&x);
  if (status != CK_OK) {
    Py_DECREF(out);
    return ck_py_raise(status, 0);
  }
  return out;
}

/* Network.predict(X) -> bytearray of the rows' classes, int32. */
static PyObject *network_predict(PyObject *object, PyObject *xs) {
  return predict_rows(object, xs, 0);
}

/* Network.predict_proba(X) -> bytearray of the rows' class probabilities,
 * rows x outputs float64. */
static PyObject *network_predict_proba(PyObject *object, PyObject *xs) {
  return predict_rows(object, xs, 1);
}

/* Network.evaluate(X, y) -> (mean loss, accuracy), the rows attached as
 * the test set. */
static PyObject *network_evaluate(PyObject *object, PyObject *args) {
  network *self = (network *)object;
  PyObject *xs, *ys;
  if (!PyArg_ParseTuple(args, "OO", &xs, &ys))
    return NULL;
  Py_buffer x, y;
  if (ck_py_borrow(xs, &x, "X", 2, 'f') != 0)
    return NULL;
  if (ck_py_borrow(ys, &y, "y", 1, 'i') != 0) {
    PyBuffer_Release(&x);
    return NULL;
  }
  if (take(self) != 0) {
    PyBuffer_Release(&x);
    PyBuffer_Release(&y);
    return NULL;
  }
  ck_dataset data = dataset_of(&x, &y, 0, NULL);
  double loss = 0, accuracy = 0;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_nn_attach(self->nn, CK_NN_TEST, &data);
  if (status == CK_OK)
    status = ck_nn_evaluate(self->nn, CK_NN_TEST, &loss, &accuracy, NULL);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  PyBuffer_Release(&x);
  PyBuffer_Release(&y);
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  return Py_BuildValue("(dd)", loss, accuracy);
}

/* Network.save(path, format): the model file, written atomically; format
 * None (by the path's ending), "ckn" or "safetensors". */
static PyObject *network_save(PyObject *object, PyObject *args) {
  network *self = (network *)object;
  const char *path, *format = NULL;
  if (!PyArg_ParseTuple(args, "s|z", &path, &format))
    return NULL;
  ck_nn_format kind = CK_NN_FORMAT_AUTO;
  if (format && strcmp(format, "ckn") == 0)
    kind = CK_NN_FORMAT_CKN;
  else if (format && strcmp(format, "safetensors") == 0)
    kind = CK_NN_FORMAT_SAFETENSORS;
  else if (format)
    return PyErr_Format(PyExc_ValueError,
                        "format must be None, \"ckn\" or \"safetensors\", "
                        "not \"%s\"",
                        format);
  if (take(self) != 0)
    return NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_nn_save_as(self->nn, path, kind);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  Py_RETURN_NONE;
}

/* Network.describe() -> dict: sizes (input first), activations, loss, the
 * names of the classes and what they stand for (an NN_CLASS_ constant). */
static PyObject *network_describe(PyObject *object, PyObject *unused) {
  (void)unused;
  network *self = (network *)object;
  ck_nn_config config;
  ck_nn_describe(self->nn, &config);
  size_t classes = config.sizes[config.layer_count - 1];
  PyObject *sizes = PyList_New((Py_ssize_t)config.layer_count);
  PyObject *activations = PyList_New((Py_ssize_t)config.layer_count - 2);
  PyObject *names = PyList_New((Py_ssize_t)classes);
  static const char *const activation_names[] = {"sigmoid", "tanh", "relu"};
  int failed = !sizes || !activations || !names;
  for (size_t l = 0; !failed && l < config.layer_count; ++l) {
    PyObject *size = PyLong_FromSize_t(config.sizes[l]);
    failed = !size;
    if (size)
      PyList_SET_ITEM(sizes, (Py_ssize_t)l, size);
  }
  for (size_t l = 0; !failed && l + 2 < config.layer_count; ++l) {
    PyObject *name =
        PyUnicode_FromString(activation_names[config.activations[l]]);
    failed = !name;
    if (name)
      PyList_SET_ITEM(activations, (Py_ssize_t)l, name);
  }
  char buffer[CK_DATASET_MAX_NAME + 1];
  for (size_t k = 0; !failed && k < classes; ++k) {
    PyObject *name =
        ck_nn_get_class_name(self->nn, k, buffer, sizeof buffer) == CK_OK
            ? PyUnicode_FromString(buffer)
            : ck_py_raise(CK_ERROR_INVALID_ARGUMENT, 0);
    failed = !name;
    if (name)
      PyList_SET_ITEM(names, (Py_ssize_t)k, name);
  }
  if (failed) {
    Py_XDECREF(sizes);
    Py_XDECREF(activations);
    Py_XDECREF(names);
    return NULL;
  }
  ck_nn_class_type class_type = CK_NN_CLASS_DATA;
  ck_nn_get_class_type(self->nn, &class_type);
  return Py_BuildValue("{s:N,s:N,s:N,s:i,s:s}", "sizes", sizes, "activations",
                       activations, "class_names", names, "class_type",
                       (int)class_type, "loss",
                       config.loss == CK_NN_MSE ? "mse" : "ce");
}

/* Network.weights(layer) -> (weights, biases) as bytearrays of float32:
 * out x in row-major, and out entries. */
static PyObject *network_weights(PyObject *object, PyObject *args) {
  network *self = (network *)object;
  Py_ssize_t layer;
  if (!PyArg_ParseTuple(args, "n", &layer))
    return NULL;
  ck_nn_config config;
  ck_nn_describe(self->nn, &config);
  if (layer < 0 || (size_t)layer + 1 >= config.layer_count) {
    PyErr_Format(PyExc_IndexError, "the network has %zu weight layers",
                 config.layer_count - 1);
    return NULL;
  }
  size_t in = config.sizes[layer], out = config.sizes[layer + 1];
  PyObject *weights =
      PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(in * out * 4));
  PyObject *biases = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(out * 4));
  if (!weights || !biases || take(self) != 0) {
    Py_XDECREF(weights);
    Py_XDECREF(biases);
    return NULL;
  }
  float *w = (float *)PyByteArray_AS_STRING(weights);
  float *b = (float *)PyByteArray_AS_STRING(biases);
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_nn_get_weights(self->nn, (size_t)layer, w, b);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  if (status != CK_OK) {
    Py_DECREF(weights);
    Py_DECREF(biases);
    return ck_py_raise(status, 0);
  }
  return Py_BuildValue("(NN)", weights, biases);
}

static PyMethodDef network_methods[] = {
    {"predict", network_predict, METH_O,
     "predict(X) -> bytearray of int32 classes"},
    {"predict_proba", network_predict_proba, METH_O,
     "predict_proba(X) -> bytearray of float64 class probabilities"},
    {"evaluate", network_evaluate, METH_VARARGS,
     "evaluate(X, y) -> (mean loss, accuracy)"},
    {"save", network_save, METH_VARARGS,
     "save(path, format=None): write the model file"},
    {"describe", network_describe, METH_NOARGS,
     "describe() -> dict of sizes, activations, class_names, loss"},
    {"weights", network_weights, METH_VARARGS,
     "weights(layer) -> (weights, biases) as float32 bytearrays"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject network_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clkit._clkit.Network",
    .tp_basicsize = sizeof(network),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = network_dealloc,
    .tp_methods = network_methods,
    .tp_doc = "a trained network on a device (use clkit.nn.MLP)",
    .tp_new = NULL,
};

PyMethodDef ck_py_nn_methods[] = {
    {"nn_train", py_nn_train, METH_VARARGS,
     "nn_train(device, options, seed, X, y, classes, names, class_type, "
     "session=None) -> (Network, history, report)"},
    {"nn_load", py_nn_load, METH_VARARGS,
     "nn_load(device, path, session=None) -> Network"},
    {NULL, NULL, 0, NULL}};

int ck_py_nn_ready(PyObject *module) {
  if (PyType_Ready(&network_type) != 0 ||
      PyModule_AddIntConstant(module, "NN_CLASS_DATA", CK_NN_CLASS_DATA) != 0 ||
      PyModule_AddIntConstant(module, "NN_CLASS_TEXT", CK_NN_CLASS_TEXT) != 0 ||
      PyModule_AddIntConstant(module, "NN_CLASS_INTEGER",
                              CK_NN_CLASS_INTEGER) != 0 ||
      PyModule_AddIntConstant(module, "NN_CLASS_REAL", CK_NN_CLASS_REAL) != 0 ||
      PyModule_AddIntConstant(module, "NN_CLASS_BOOLEAN",
                              CK_NN_CLASS_BOOLEAN) != 0 ||
      PyModule_AddIntConstant(module, "NN_CLASS_BYTES", CK_NN_CLASS_BYTES) != 0)
    return -1;
  return PyModule_AddObjectRef(module, "Network", (PyObject *)&network_type);
}
