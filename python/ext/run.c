/*
 * run.c - _clkit.run: one workload run through ck_workload_run, with the
 * GIL released while the device works and taken again in the callbacks
 * (progress and Ctrl-C, report lines, a host objective written in Python).
 */
#include <string.h>

#include "ext.h"

typedef ck_py_bridge bridge;

void ck_py_keep_error(PyObject **kept) {
#if PY_VERSION_HEX >= 0x030C0000
  PyObject *value = PyErr_GetRaisedException();
#else
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (value && traceback)
    PyException_SetTraceback(value, traceback);
  Py_XDECREF(type);
  Py_XDECREF(traceback);
#endif
  if (!*kept)
    *kept = value;
  else
    Py_XDECREF(value);
}

void ck_py_raise_kept(PyObject **kept) {
  PyObject *value = *kept;
  *kept = NULL;
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(value);
#else
  PyObject *type = (PyObject *)Py_TYPE(value);
  Py_INCREF(type);
  PyErr_Restore(type, value, PyException_GetTraceback(value));
#endif
}

/* At each progress check: a pending Ctrl-C (or another signal's handler
 * that raised) and the caller's callback may stop the run. */
static int on_progress(void *user, const ck_progress *progress) {
  bridge *bridge = user;
  PyGILState_STATE state = PyGILState_Ensure();
  int stop = bridge->error != NULL;
  if (!stop && PyErr_CheckSignals() != 0) {
    ck_py_keep_error(&bridge->error);
    stop = 1;
  }
  if (!stop && bridge->progress) {
    PyObject *report = Py_BuildValue(
        "{s:s,s:s,s:d,s:d,s:s,s:d,s:s}", "workload",
        progress->workload ? progress->workload : "", "device",
        progress->device ? progress->device : "", "fraction",
        progress->fraction, "steps", progress->steps, "step_name",
        progress->step_name ? progress->step_name : "", "best", progress->best,
        "best_name", progress->best_name ? progress->best_name : "");
    PyObject *answer =
        report ? PyObject_CallOneArg(bridge->progress, report) : NULL;
    stop = answer ? PyObject_IsTrue(answer) : -1;
    if (stop < 0) {
      ck_py_keep_error(&bridge->error);
      stop = 1;
    }
    Py_XDECREF(answer);
    Py_XDECREF(report);
  }
  PyGILState_Release(state);
  return stop;
}

static void on_log(void *user, const char *line) {
  bridge *bridge = user;
  if (!bridge->log)
    return;
  PyGILState_STATE state = PyGILState_Ensure();
  if (!bridge->error) {
    PyObject *answer = PyObject_CallFunction(bridge->log, "s", line);
    if (!answer)
      ck_py_keep_error(
          &bridge->error); /* the next progress check stops the run */
    Py_XDECREF(answer);
  }
  PyGILState_Release(state);
}

/* ---- host memory Python owns ------------------------------------------ */

/* A block of host memory Python owns, refcounted: a host objective's
 * batch (a read-only float64 buffer, C order), or the memory behind a
 * DeviceArray's host copy (device_array.c). A ck_py_blocks reuses a block
 * while nothing else holds it; a block still referenced (the objective
 * kept X, or a view of it) stays theirs. Two blocks let a loop hold the
 * last batch while the next one is made. */
typedef struct block {
  PyObject_HEAD void *data;
  size_t capacity; /* bytes */
  Py_ssize_t shape[2], strides[2];
} block;

static int block_get(PyObject *self, Py_buffer *view, int flags) {
  block *batch = (block *)self;
  if (flags & PyBUF_WRITABLE) {
    PyErr_SetString(PyExc_BufferError, "X is read-only");
    return -1;
  }
  view->buf = batch->data;
  view->obj = Py_NewRef(self);
  view->len = batch->shape[0] * batch->shape[1] * (Py_ssize_t)sizeof(double);
  view->itemsize = sizeof(double);
  view->readonly = 1;
  view->format = (flags & PyBUF_FORMAT) ? "d" : NULL;
  view->ndim = 2;
  view->shape = (flags & PyBUF_ND) ? batch->shape : NULL;
  view->strides = (flags & PyBUF_STRIDES) ? batch->strides : NULL;
  view->suboffsets = NULL;
  view->internal = NULL;
  return 0;
}

static PyBufferProcs block_buffer = {block_get, NULL};

static void block_dealloc(PyObject *self) {
  PyMem_Free(((block *)self)->data);
  Py_TYPE(self)->tp_free(self);
}

static PyTypeObject block_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clkit._clkit.Batch",
    .tp_basicsize = sizeof(block),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = block_dealloc,
    .tp_as_buffer = &block_buffer,
    .tp_doc = "a copy of one batch of an objective, read-only",
    .tp_new = NULL,
};

int ck_py_run_ready(void) {
  return PyType_Ready(&block_type);
}

PyObject *ck_py_block_take(ck_py_blocks *blocks, size_t bytes, void **data) {
  enum { COUNT = sizeof blocks->held / sizeof *blocks->held };
  size_t i = 0;
  while (i < COUNT && blocks->held[i] && Py_REFCNT(blocks->held[i]) > 1)
    ++i;
  if (i == COUNT)
    --i;
  block *made = (block *)blocks->held[i];
  if (made && (Py_REFCNT(made) > 1 || made->capacity < bytes))
    Py_CLEAR(blocks->held[i]);
  if (!blocks->held[i]) {
    made = PyObject_New(block, &block_type);
    if (!made)
      return NULL;
    made->data = PyMem_Malloc(bytes ? bytes : 1);
    made->capacity = bytes;
    made->shape[0] = made->shape[1] = 0;
    made->strides[0] = made->strides[1] = 0;
    blocks->held[i] = (PyObject *)made;
    if (!made->data) {
      Py_CLEAR(blocks->held[i]);
      PyErr_NoMemory();
      return NULL;
    }
  }
  made = (block *)blocks->held[i];
  *data = made->data;
  return (PyObject *)made;
}

void ck_py_blocks_clear(ck_py_blocks *blocks) {
  for (size_t i = 0; i < sizeof blocks->held / sizeof *blocks->held; ++i)
    Py_CLEAR(blocks->held[i]);
}

/* The bridge's block, made for count x dim values and holding the batch
 * x as float64 rows; NULL with an exception set. */
static PyObject *block_fill(bridge *bridge, const double *x, size_t count,
                            size_t dim) {
  size_t values = count * dim;
  void *data;
  block *batch = (block *)ck_py_block_take(&bridge->blocks,
                                           values * sizeof(double), &data);
  if (!batch)
    return NULL;
  memcpy(data, x, values * sizeof(double));
  batch->shape[0] = (Py_ssize_t)count;
  batch->shape[1] = (Py_ssize_t)dim;
  batch->strides[0] = (Py_ssize_t)(dim * sizeof(double));
  batch->strides[1] = sizeof(double);
  return (PyObject *)batch;
}

/* The objective's count values, a C-contiguous float64 buffer, into f. */
static int values_take(PyObject *answer, double *f, size_t count) {
  Py_buffer view;
  if (PyObject_GetBuffer(answer, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
    return -1;
  const char *format = view.format ? view.format : "B";
  int fits = (strcmp(format, "d") == 0 || strcmp(format, "<d") == 0 ||
              strcmp(format, "=d") == 0) &&
             view.len == (Py_ssize_t)(count * sizeof(double));
  if (fits)
    memcpy(f, view.buf, count * sizeof(double));
  else
    PyErr_Format(PyExc_ValueError,
                 "the objective's values must be %zu float64 values", count);
  PyBuffer_Release(&view);
  return fits ? 0 : -1;
}

/* The host objective: the batch x is copied into the bridge's block,
 * which the Python side hands to the callable as X; the values it
 * returns are copied into f. clkit's own arrays never reach Python. */
static ck_status on_objective(const double *x, size_t count, size_t dim,
                              double *f, void *user) {
  bridge *bridge = user;
  PyGILState_STATE state = PyGILState_Ensure();
  ck_status status = CK_ERROR_CANCELLED;
  if (bridge->error)
    goto done;
  PyObject *points = block_fill(bridge, x, count, dim);
  PyObject *answer =
      points ? PyObject_CallOneArg(bridge->objective, points) : NULL;
  if (answer && values_take(answer, f, count) == 0)
    status = CK_OK;
  else
    ck_py_keep_error(&bridge->error);
  Py_XDECREF(answer);
done:
  PyGILState_Release(state);
  return status;
}

/* ---- the result as a dict ---------------------------------------------- */

static int set_item(PyObject *dict, const char *key, PyObject *value) {
  if (!value)
    return -1;
  int failed = PyDict_SetItemString(dict, key, value);
  Py_DECREF(value);
  return failed;
}

static PyObject *text_or_none(const char *text) {
  if (!text || !*text)
    Py_RETURN_NONE;
  return PyUnicode_FromString(text);
}

PyObject *ck_py_result_dict(const ck_result *result) {
  PyObject *dict = Py_BuildValue(
      "{s:s,s:s,s:s,s:K,s:d,s:d,s:d,s:d,s:d,s:s,s:d,s:s}", "workload",
      result->workload, "device", result->device, "device_name",
      result->device_name, "seed", (unsigned long long)result->seed, "total_s",
      result->total_s, "build_s", result->build_s, "wall_s", result->wall_s,
      "kernel_s", result->kernel_s, "best", result->best, "best_name",
      result->best_name, "throughput", result->throughput, "throughput_unit",
      result->throughput_unit);
  PyObject *metrics = PyDict_New(), *units = PyDict_New(),
           *options = PyDict_New();
  int failed = !dict || !metrics || !units || !options;
  for (size_t i = 0; !failed && i < result->metric_count; ++i) {
    const ck_metric *metric = &result->metrics[i];
    failed = set_item(metrics, metric->name,
                      metric->is_flag ? PyBool_FromLong(metric->value != 0)
                                      : PyFloat_FromDouble(metric->value)) ||
             set_item(units, metric->name, PyUnicode_FromString(metric->unit));
  }
  for (size_t i = 0; !failed && i < result->option_count; ++i)
    failed = set_item(options, result->options[i].name,
                      text_or_none(result->options[i].value));
  /* The best position is copied once, into memory Python owns. */
  if (!failed)
    failed =
        set_item(dict, "stopped_by", text_or_none(result->stopped_by)) ||
        set_item(dict, "position",
                 result->position ? PyByteArray_FromStringAndSize(
                                        (const char *)result->position,
                                        (Py_ssize_t)(result->position_count *
                                                     sizeof *result->position))
                                  : Py_NewRef(Py_None)) ||
        PyDict_SetItemString(dict, "metrics", metrics) ||
        PyDict_SetItemString(dict, "units", units) ||
        PyDict_SetItemString(dict, "options", options);
  Py_XDECREF(metrics);
  Py_XDECREF(units);
  Py_XDECREF(options);
  if (failed)
    Py_CLEAR(dict);
  return dict;
}

/* ---- _clkit.run ---------------------------------------------------------
 */

static PyObject *callable_or_null(PyObject *object, const char *name,
                                  int *failed) {
  if (object == Py_None)
    return NULL;
  if (!PyCallable_Check(object)) {
    PyErr_Format(PyExc_TypeError, "%s must be callable or None", name);
    *failed = 1;
  }
  return object;
}

int ck_py_bridge_begin(ck_py_bridge *bridge, ck_run_options *options,
                       PyObject *seed, PyObject *objective, PyObject *progress,
                       PyObject *log) {
  int failed = 0;
  *bridge = (ck_py_bridge){
      .objective = callable_or_null(objective, "objective", &failed),
      .progress = callable_or_null(progress, "progress", &failed),
      .log = callable_or_null(log, "log", &failed)};
  if (failed)
    return -1;
  *options =
      (ck_run_options){.seed = 1,
                       .progress = on_progress,
                       .progress_user = bridge,
                       .log = on_log,
                       .log_user = bridge,
                       .objective = bridge->objective ? on_objective : NULL,
                       .objective_user = bridge};
  if (seed != Py_None) {
    if (ck_py_seed(seed, &options->seed) != 0)
      return -1;
    options->seed_given = 1;
  }
  return 0;
}

int ck_py_bridge_end(ck_py_bridge *bridge) {
  ck_py_blocks_clear(&bridge->blocks);
  /* Both calls, the older first. */
  for (int i = 0; i < 2; ++i) {
    if (ck_py_device_release(bridge) != 0)
      ck_py_keep_error(&bridge->error);
    ck_py_values_free(&bridge->calls[bridge->older].values);
    bridge->older ^= 1;
  }
  if (!bridge->error)
    return 0;
  ck_py_raise_kept(&bridge->error);
  return -1;
}

PyObject *ck_py_run(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *keywords[] = {"workload",  "device",   "options", "seed",
                             "objective", "progress", "log",     "session",
                             "on_device", NULL};
  const char *name, *selector;
  PyObject *list, *seed = Py_None, *objective = Py_None, *progress = Py_None,
                  *log = Py_None, *session = Py_None;
  int on_device = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "szO|OOOOOi", keywords, &name,
                                   &selector, &list, &seed, &objective,
                                   &progress, &log, &session, &on_device))
    return NULL;
  bridge bridge;
  ck_run_options options;
  if (ck_py_bridge_begin(&bridge, &options, seed, objective, progress, log))
    return NULL;
  const ck_workload *workload = ck_py_workload(name);
  ck_device device;
  ck_param *params;
  size_t count;
  if (!workload || ck_py_device_of(session, selector, &device) != 0 ||
      ck_py_params(list, &params, &count) != 0)
    return NULL;
  /* An objective that asks for it (on_device 1 or 2) takes the positions
   * where the device keeps them (device_array.c): on a CUDA device in its
   * memory, elsewhere as a host copy. 2: ready in stream order, for
   * consumers that pass their stream to __dlpack__ (DLPack's rule), so
   * that the run need not wait for each batch on the host. */
  if (on_device && options.objective) {
    options.objective = NULL;
    options.device_objective = ck_py_on_device_objective;
    options.device_objective_ordered = on_device == 2;
    bridge.ordered = on_device == 2;
  }
  ck_result result;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_workload_run(workload, &device, params, count, &options, &result);
  Py_END_ALLOW_THREADS;
  PyMem_Free(params);
  PyObject *dict = NULL;
  if (ck_py_bridge_end(&bridge) == 0)
    dict =
        status == CK_OK ? ck_py_result_dict(&result) : ck_py_raise(status, 0);
  if (status == CK_OK)
    ck_result_release(&result);
  return dict;
}
