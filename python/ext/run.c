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

/* ---- the host objective's arrays --------------------------------------- */

/* clkit's memory lent to Python for one call of the objective, through
 * the buffer protocol (no copy): float64, C order. Exports are counted, so
 * that one still held after the call (an array kept) is seen. */
typedef struct batch {
  PyObject_HEAD void *data; /* NULL once the call has returned */
  Py_ssize_t shape[2], strides[2];
  int ndim, readonly;
  Py_ssize_t exports;
} batch;

static int batch_get(PyObject *self, Py_buffer *view, int flags) {
  batch *lent = (batch *)self;
  if (!lent->data) {
    PyErr_SetString(PyExc_BufferError,
                    "clkit's array is valid during the objective's call only");
    return -1;
  }
  if ((flags & PyBUF_WRITABLE) && lent->readonly) {
    PyErr_SetString(PyExc_BufferError, "X is read-only");
    return -1;
  }
  view->buf = lent->data;
  view->obj = Py_NewRef(self);
  view->len = lent->shape[0] * (lent->ndim == 2 ? lent->shape[1] : 1) *
              (Py_ssize_t)sizeof(double);
  view->itemsize = sizeof(double);
  view->readonly = lent->readonly;
  view->format = (flags & PyBUF_FORMAT) ? "d" : NULL;
  view->ndim = lent->ndim;
  view->shape = (flags & PyBUF_ND) ? lent->shape : NULL;
  view->strides = (flags & PyBUF_STRIDES) ? lent->strides : NULL;
  view->suboffsets = NULL;
  view->internal = NULL;
  ++lent->exports;
  return 0;
}

static void batch_release(PyObject *self, Py_buffer *view) {
  (void)view;
  --((batch *)self)->exports;
}

static PyBufferProcs batch_buffer = {batch_get, batch_release};

static PyTypeObject batch_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clkit._clkit.Batch",
    .tp_basicsize = sizeof(batch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_as_buffer = &batch_buffer,
    .tp_doc = "clkit's memory, lent for one call of a host objective",
    .tp_new = NULL,
};

int ck_py_run_ready(void) {
  return PyType_Ready(&batch_type);
}

static PyObject *batch_lend(void *data, size_t rows, size_t columns, int ndim,
                            int readonly) {
  batch *lent = PyObject_New(batch, &batch_type);
  if (!lent)
    return NULL;
  lent->data = data;
  lent->ndim = ndim;
  lent->shape[0] = (Py_ssize_t)rows;
  lent->shape[1] = (Py_ssize_t)columns;
  lent->strides[0] = (Py_ssize_t)(columns * sizeof(double));
  lent->strides[1] = sizeof(double);
  if (ndim == 1)
    lent->strides[0] = sizeof(double);
  lent->readonly = readonly;
  lent->exports = 0;
  return (PyObject *)lent;
}

/* Ends the loan: memory still exported (the objective kept X, a view of
 * it, or the values' array) is refused, as clkit reuses it at once. */
static int batch_end(PyObject *self) {
  batch *lent = (batch *)self;
  if (lent->exports > 0)
    PyGC_Collect(); /* a reference cycle not yet collected may hold it */
  int kept = lent->exports > 0;
  lent->data = NULL;
  Py_DECREF(self);
  if (!kept)
    return 0;
  PyErr_SetString(PyExc_ValueError,
                  "the objective kept its argument X (or a view of it) after "
                  "returning: X is clkit's memory, valid during the call only; "
                  "keep X.copy() instead");
  return -1;
}

/* The host objective: the batch x crosses as a read-only (count, dim)
 * buffer and f as a writable one of count values, which the Python side
 * fills; neither is copied. */
static ck_status on_objective(const double *x, size_t count, size_t dim,
                              double *f, void *user) {
  bridge *bridge = user;
  PyGILState_STATE state = PyGILState_Ensure();
  ck_status status = CK_ERROR_CANCELLED;
  if (bridge->error)
    goto done;
  PyObject *points = batch_lend((void *)x, count, dim, 2, 1);
  PyObject *values = points ? batch_lend(f, count, 1, 1, 0) : NULL;
  PyObject *answer = values ? PyObject_CallFunctionObjArgs(bridge->objective,
                                                           points, values, NULL)
                            : NULL;
  if (answer)
    status = CK_OK;
  else
    ck_py_keep_error(&bridge->error);
  Py_XDECREF(answer);
  /* Both loans end here, whatever happened above. */
  if (values && batch_end(values) != 0) {
    status = CK_ERROR_CANCELLED;
    ck_py_keep_error(&bridge->error);
  }
  if (points && batch_end(points) != 0) {
    status = CK_ERROR_CANCELLED;
    ck_py_keep_error(&bridge->error);
  }
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
  *bridge = (ck_py_bridge){callable_or_null(objective, "objective", &failed),
                           callable_or_null(progress, "progress", &failed),
                           callable_or_null(log, "log", &failed), NULL};
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
  if (!bridge->error)
    return 0;
  ck_py_raise_kept(&bridge->error);
  return -1;
}

PyObject *ck_py_run(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *keywords[] = {"workload",  "device",   "options", "seed",
                             "objective", "progress", "log",     NULL};
  const char *name, *selector;
  PyObject *list, *seed = Py_None, *objective = Py_None, *progress = Py_None,
                  *log = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "szO|OOOO", keywords, &name,
                                   &selector, &list, &seed, &objective,
                                   &progress, &log))
    return NULL;
  bridge bridge;
  ck_run_options options;
  if (ck_py_bridge_begin(&bridge, &options, seed, objective, progress, log))
    return NULL;
  const ck_workload *workload = ck_py_workload(name);
  const ck_device *device = workload ? ck_py_device(selector) : NULL;
  ck_param *params;
  size_t count;
  if (!device || ck_py_params(list, &params, &count) != 0)
    return NULL;
  ck_result result;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_workload_run(workload, device, params, count, &options, &result);
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
