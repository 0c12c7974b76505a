/*
 * aco.c - what clkit.aco needs beside a run: the limits an instance must
 * keep, so that an array of coordinates is checked before its file is
 * written, and reading the tour a run wrote with clkit's own reader.
 */
#include "ext.h"

PyObject *ck_py_tsp_limits(PyObject *self, PyObject *args) {
  (void)self;
  (void)args;
  return Py_BuildValue(
      "{s:I,s:I,s:d}", "min_cities", (unsigned)CK_ACO_MIN_CITIES, "max_cities",
      (unsigned)CK_TSP_MAX_CITIES, "max_coordinate", CK_TSP_MAX_COORDINATE);
}

/* The tour as bytes of uint32 0-based indices, for numpy.frombuffer. */
PyObject *ck_py_tour_load(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *path;
  Py_ssize_t cities;
  if (!PyArg_ParseTuple(args, "O&n", PyUnicode_FSConverter, &path, &cities))
    return NULL;
  /* The library checks the count; this keeps it from wrapping. */
  if (cities < 0 || cities > (Py_ssize_t)CK_TSP_MAX_CITIES) {
    Py_DECREF(path);
    return PyErr_Format(PyExc_ValueError, "cities must be 0 to %u, not %zd",
                        (unsigned)CK_TSP_MAX_CITIES, cities);
  }
  uint32_t *tour = NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_tsp_tour_load(PyBytes_AS_STRING(path), (uint32_t)cities, &tour);
  Py_END_ALLOW_THREADS;
  Py_DECREF(path);
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  PyObject *bytes = PyBytes_FromStringAndSize(
      (const char *)tour, (Py_ssize_t)((size_t)cities * sizeof *tour));
  ck_memory_free(tour);
  return bytes;
}
