/*
 * compare.c - _clkit.compare: one configuration and seed on the devices a
 * selector names, through ck_compare_run (ref first, as the oracle), as
 * `clkit compare` runs them. Each device gives a row: its result's dict
 * with how it agrees with ref, or why it failed.
 */
#include <math.h>
#include <string.h>

#include "ext.h"

/* A row: the result's dict and agreement (None where not compared, as
 * the JSON's null), agrees, status (its name) and error ("" for none). */
static PyObject *row_dict(const ck_result *result) {
  PyObject *dict = ck_py_result_dict(result);
  if (!dict)
    return NULL;
  const char *status = "CK_ERROR_UNKNOWN";
  ck_status_get_name(result->status, &status);
  int compared = !isnan(result->agreement);
  PyObject *extra = Py_BuildValue(
      "{s:N,s:N,s:s,s:s}", "agreement",
      compared ? PyFloat_FromDouble(result->agreement) : Py_NewRef(Py_None),
      "agrees", compared ? PyBool_FromLong(result->agrees) : Py_NewRef(Py_None),
      "status", status, "error", result->error);
  if (!extra || PyDict_Update(dict, extra) != 0)
    Py_CLEAR(dict);
  Py_XDECREF(extra);
  return dict;
}

PyObject *ck_py_compare(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *keywords[] = {"workload", "devices", "options", "seed",
                             "progress", "log",     "session", NULL};
  const char *name, *selector;
  PyObject *list, *seed = Py_None, *progress = Py_None, *log = Py_None,
                  *session = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ssO|OOOO", keywords, &name,
                                   &selector, &list, &seed, &progress, &log,
                                   &session))
    return NULL;
  ck_py_bridge bridge;
  ck_run_options options;
  if (ck_py_bridge_begin(&bridge, &options, seed, Py_None, progress, log))
    return NULL;
  const ck_workload *workload = ck_py_workload(name);
  /* A session's devices are copied: the runs go without the GIL. */
  ck_device_set view;
  const ck_device_set *set = NULL;
  if (workload && session == Py_None) {
    set = ck_py_devices();
  } else if (workload && ck_py_session_devices(session, &view) == 0) {
    ck_device *copies = PyMem_Calloc(view.count, sizeof *copies);
    if (!copies)
      return PyErr_NoMemory();
    memcpy(copies, view.devices, view.count * sizeof *copies);
    view.devices = copies;
    set = &view;
  }
  if (!set)
    return NULL;
  /* Room for every device; ref's row may be added to them. */
  size_t *indices = PyMem_Calloc(set->count, sizeof *indices), count = 0;
  ck_result *results = PyMem_Calloc(set->count + 1, sizeof *results);
  ck_param *params = NULL;
  size_t param_count = 0, produced = 0;
  PyObject *rows = NULL;
  if (!indices || !results) {
    PyErr_NoMemory();
    goto done;
  }
  ck_status status =
      ck_device_select(set, selector, indices, set->count, &count);
  if (status != CK_OK) {
    ck_py_raise(status, 1);
    goto done;
  }
  if (ck_py_params(list, &params, &param_count) != 0)
    goto done;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_compare_run(workload, set, indices, count, 0, params, param_count,
                          &options, results, set->count + 1, &produced);
  Py_END_ALLOW_THREADS;
  if (ck_py_bridge_end(&bridge) != 0)
    goto done;
  if (status != CK_OK) {
    ck_py_raise(status, 0);
    goto done;
  }
  rows = PyList_New((Py_ssize_t)produced);
  for (size_t i = 0; rows && i < produced; ++i) {
    PyObject *row = row_dict(&results[i]);
    if (!row)
      Py_CLEAR(rows);
    else
      PyList_SET_ITEM(rows, (Py_ssize_t)i, row);
  }
done:
  for (size_t i = 0; i < produced; ++i)
    ck_result_release(&results[i]);
  PyMem_Free(params);
  PyMem_Free(results);
  PyMem_Free(indices);
  if (set == &view)
    PyMem_Free(view.devices);
  return rows;
}
