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
  unsigned int cities;
  if (!PyArg_ParseTuple(args, "O&I", PyUnicode_FSConverter, &path, &cities))
    return NULL;
  uint32_t *tour = NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_tsp_tour_load(PyBytes_AS_STRING(path), cities, &tour);
  Py_END_ALLOW_THREADS;
  Py_DECREF(path);
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  PyObject *bytes = PyBytes_FromStringAndSize(
      (const char *)tour, (Py_ssize_t)((size_t)cities * sizeof *tour));
  ck_memory_free(tour);
  return bytes;
}
