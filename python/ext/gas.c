/*
 * gas.c - clkit.gas's C side: a simulation (ck_gas) as the Gas type. Its
 * state stays on the device; steps run with the GIL released, in chunks
 * between which Ctrl-C is seen, and particles and observables are copied
 * out on request.
 */
#include <time.h>

#include "ext.h"

typedef struct gas {
  PyObject_HEAD ck_gas *gas;
  int busy;                 /* a call is using gas without the GIL */
  ck_gas_observables first; /* at the start, for NVE's energy drift */
} gas;

static PyTypeObject gas_type;

static int take(gas *self) {
  return ck_py_take(&self->busy, "simulation");
}

static void gas_dealloc(PyObject *object) {
  gas *self = (gas *)object;
  ck_gas_destroy(self->gas);
  Py_TYPE(object)->tp_free(object);
}

/* A Gas over made, or NULL with an exception set (made destroyed). */
static PyObject *wrap(ck_gas *made) {
  ck_gas_observables first;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_gas_observe(made, &first);
  Py_END_ALLOW_THREADS;
  gas *self = status == CK_OK ? PyObject_New(gas, &gas_type) : NULL;
  if (!self) {
    if (status != CK_OK)
      ck_py_raise(status, 0);
    ck_gas_destroy(made);
    return NULL;
  }
  self->gas = made;
  self->busy = 0;
  self->first = first;
  return (PyObject *)self;
}

/* An (n, 2) float64 array of particles (n >= 1), or None: NULL. 0, or
 * -1 with an exception set. The caller releases a view it got. */
static int particle_rows(PyObject *object, Py_buffer *view, const char *name,
                         const double **rows, size_t *count) {
  *rows = NULL;
  if (object == Py_None)
    return 0;
  if (ck_py_borrow(object, view, name, 2, 'd') != 0)
    return -1;
  if (view->shape[1] != 2 || view->shape[0] < 1) {
    PyErr_Format(PyExc_ValueError, "%s must have shape (n, 2), n >= 1", name);
    PyBuffer_Release(view);
    return -1;
  }
  *rows = view->buf;
  *count = (size_t)view->shape[0];
  return 0;
}

/* _clkit.gas_create(device, options, seed, session=None, positions=None,
 * velocities=None) -> Gas. options are `clkit run gas`'s (name, value)
 * pairs of the system and its dynamics; positions and velocities, (n, 2)
 * C-contiguous float64 arrays, start the particles there (n of them),
 * read during the call only. */
static PyObject *py_gas_create(PyObject *module, PyObject *args) {
  (void)module;
  const char *selector;
  PyObject *list, *seed, *session = Py_None;
  PyObject *given_positions = Py_None, *given_velocities = Py_None;
  if (!PyArg_ParseTuple(args, "zOO|OOO", &selector, &list, &seed, &session,
                        &given_positions, &given_velocities))
    return NULL;
  ck_param *params;
  size_t count;
  ck_device device;
  if (ck_py_device_of(session, selector, &device) != 0 ||
      ck_py_params(list, &params, &count) != 0)
    return NULL;
  ck_gas_config config;
  ck_gas *made = NULL;
  ck_status status = ck_gas_config_read(params, count, &config);
  if (status == CK_OK && seed != Py_None &&
      ck_py_seed(seed, &config.seed) != 0) {
    PyMem_Free(params);
    return NULL;
  }
  if (status != CK_OK) {
    PyMem_Free(params);
    return ck_py_raise(status, 1);
  }
  Py_buffer positions, velocities;
  size_t particles = 0, moving = 0;
  if (particle_rows(given_positions, &positions, "positions", &config.positions,
                    &particles) != 0) {
    PyMem_Free(params);
    return NULL;
  }
  if (particle_rows(given_velocities, &velocities, "velocities",
                    &config.velocities, &moving) != 0 ||
      (config.velocities && moving != particles)) {
    if (config.velocities) {
      PyErr_Format(PyExc_ValueError,
                   "velocities has %zu rows, but positions has %zu", moving,
                   particles);
      PyBuffer_Release(&velocities);
    }
    if (config.positions)
      PyBuffer_Release(&positions);
    PyMem_Free(params);
    return NULL;
  }
  if (config.positions)
    config.particles = particles;
  /* config.xyz_path points into params (and the list's strings). */
  Py_BEGIN_ALLOW_THREADS;
  status = ck_gas_create(&device, &config, &made);
  Py_END_ALLOW_THREADS;
  PyMem_Free(params);
  if (config.velocities)
    PyBuffer_Release(&velocities);
  if (config.positions)
    PyBuffer_Release(&positions);
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  return wrap(made);
}

/* _clkit.gas_load(device, path, session=None) -> Gas, from a checkpoint. */
static PyObject *py_gas_load(PyObject *module, PyObject *args) {
  (void)module;
  const char *selector, *path;
  PyObject *session = Py_None;
  if (!PyArg_ParseTuple(args, "zs|O", &selector, &path, &session))
    return NULL;
  ck_device device;
  if (ck_py_device_of(session, selector, &device) != 0)
    return NULL;
  ck_gas *made = NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_gas_load(&device, path, &made);
  Py_END_ALLOW_THREADS;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  return wrap(made);
}

static double seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* The warnings a state after steps deserves (a list of str): energy
 * that NVE lost or gained, a state that has blown up (which save
 * refuses); NULL with an exception set. */
static PyObject *warnings_of(gas *self, const ck_gas_observables *last) {
  PyObject *list = PyList_New(0);
  ck_gas_config config;
  ck_gas_describe(self->gas, &config);
  for (int check = 0; list && check < 2; ++check) {
    ck_status status;
    Py_BEGIN_ALLOW_THREADS;
    status = check == 0 ? ck_gas_check_drift(&config, &self->first, last)
                        : ck_gas_check(self->gas);
    Py_END_ALLOW_THREADS;
    if (status == CK_OK)
      continue;
    const char *message = "";
    ck_error_get_last(&message);
    PyObject *text = status == CK_ERROR_MISMATCH ? PyUnicode_FromString(message)
                                                 : ck_py_raise(status, 0);
    if (!text || PyList_Append(list, text) != 0)
      Py_CLEAR(list);
    Py_XDECREF(text);
  }
  return list;
}

/* The observables of a log step as --thermo writes them (step, time,
 * temperature, kinetic, potential, total, pressure), appended to rows (a
 * bytearray of doubles); -1 with an exception set. */
static int log_row(PyObject *rows, const ck_gas_observables *o) {
  const double row[] = {(double)o->step, o->time,  o->temperature, o->kinetic,
                        o->potential,    o->total, o->pressure};
  PyObject *bytes = PyBytes_FromStringAndSize((const char *)row, sizeof row);
  PyObject *grown = bytes ? PySequence_InPlaceConcat(rows, bytes) : NULL;
  Py_XDECREF(bytes);
  Py_XDECREF(grown);
  return grown ? 0 : -1;
}

/* Gas.step(steps, every=0) -> (steps made, warnings, rows): the steps in
 * chunks of about a twentieth of a second (the first of one step), a
 * pending Ctrl-C seen between chunks; the chunks leave the result
 * unchanged (ck_gas_step's steps are the same however they are grouped).
 * Each chunk ends with an observation, which waits for the device and
 * stops a run whose energy is no longer finite (CK_ERROR_MISMATCH). The
 * warnings are warnings_of's, after the last chunk. With every > 0 the
 * chunks also end every `every` steps from the call's start, and rows
 * holds the observables there and at the start, as log_row writes them
 * (a bytearray); else it is empty. */
static PyObject *gas_step(PyObject *object, PyObject *args) {
  gas *self = (gas *)object;
  PyObject *count;
  unsigned long long every = 0;
  if (!PyArg_ParseTuple(args, "O!|K", &PyLong_Type, &count, &every))
    return NULL;
  unsigned long long steps = PyLong_AsUnsignedLongLong(count);
  if (PyErr_Occurred())
    return NULL;
  PyObject *rows = PyByteArray_FromStringAndSize(NULL, 0);
  if (!rows)
    return NULL;
  if (take(self) != 0) {
    Py_DECREF(rows);
    return NULL;
  }
  ck_status status = CK_OK;
  unsigned long long done = 0, chunk = 1;
  ck_gas_observables last;
  if (every) {
    Py_BEGIN_ALLOW_THREADS;
    status = ck_gas_observe(self->gas, &last);
    Py_END_ALLOW_THREADS;
    if (status == CK_OK && log_row(rows, &last) != 0) {
      self->busy = 0;
      Py_DECREF(rows);
      return NULL;
    }
  }
  while (done < steps && status == CK_OK) {
    if (chunk > steps - done)
      chunk = steps - done;
    unsigned long long step_chunk = chunk;
    if (every && step_chunk > every - done % every)
      step_chunk = every - done % every;
    double started = seconds();
    Py_BEGIN_ALLOW_THREADS;
    status = ck_gas_step(self->gas, step_chunk);
    if (status == CK_OK)
      status = ck_gas_observe(self->gas, &last);
    Py_END_ALLOW_THREADS;
    if (status != CK_OK)
      break;
    done += step_chunk;
    if ((every && done % every == 0 && log_row(rows, &last) != 0) ||
        PyErr_CheckSignals() != 0) {
      self->busy = 0;
      Py_DECREF(rows);
      return NULL;
    }
    double took = seconds() - started;
    if (took < 0.025 && chunk < (1ull << 40))
      chunk *= 2;
    else if (took > 0.1 && chunk > 1)
      chunk /= 2;
  }
  PyObject *warnings = NULL;
  if (status == CK_OK)
    warnings = done ? warnings_of(self, &last) : PyList_New(0);
  self->busy = 0;
  if (status != CK_OK) {
    Py_DECREF(rows);
    return ck_py_raise(status, 0);
  }
  if (!warnings) {
    Py_DECREF(rows);
    return NULL;
  }
  return Py_BuildValue("(KNN)", done, warnings, rows);
}

/* Gas.observe() -> dict of the observables now. */
static PyObject *gas_observe(PyObject *object, PyObject *unused) {
  (void)unused;
  gas *self = (gas *)object;
  if (take(self) != 0)
    return NULL;
  ck_gas_observables o;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_gas_observe(self->gas, &o);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  return Py_BuildValue("{s:K,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:d}", "step",
                       (unsigned long long)o.step, "time", o.time, "kinetic",
                       o.kinetic, "potential", o.potential, "total", o.total,
                       "temperature", o.temperature, "pressure", o.pressure,
                       "momentum_x", o.momentum_x, "momentum_y", o.momentum_y);
}

/* Gas.particles() -> (positions, velocities), Gas.forces() -> forces:
 * bytearrays of float64 x, y pairs in id order, copied from the device. */
static PyObject *copy_out(gas *self, int forces) {
  size_t n = 0;
  ck_gas_get_box(self->gas, NULL, NULL, &n);
  Py_ssize_t bytes = (Py_ssize_t)(2 * n * sizeof(double));
  PyObject *first = PyByteArray_FromStringAndSize(NULL, bytes);
  PyObject *second = forces ? NULL : PyByteArray_FromStringAndSize(NULL, bytes);
  if (!first || (!forces && !second) || take(self) != 0) {
    Py_XDECREF(first);
    Py_XDECREF(second);
    return NULL;
  }
  double *a = (double *)PyByteArray_AS_STRING(first);
  double *b = second ? (double *)PyByteArray_AS_STRING(second) : NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = forces ? ck_gas_get_forces(self->gas, a)
                  : ck_gas_get_particles(self->gas, a, b);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  if (status != CK_OK) {
    Py_DECREF(first);
    Py_XDECREF(second);
    return ck_py_raise(status, 0);
  }
  return forces ? first : Py_BuildValue("(NN)", first, second);
}

static PyObject *gas_particles(PyObject *object, PyObject *unused) {
  (void)unused;
  return copy_out((gas *)object, 0);
}

static PyObject *gas_forces(PyObject *object, PyObject *unused) {
  (void)unused;
  return copy_out((gas *)object, 1);
}

/* Gas.describe() -> dict of the configuration in use (box resolved). */
static PyObject *gas_describe(PyObject *object, PyObject *unused) {
  (void)unused;
  ck_gas_config c;
  ck_gas_describe(((gas *)object)->gas, &c);
  return Py_BuildValue(
      "{s:n,s:d,s:d,s:d,s:d,s:O,s:K}", "particles", (Py_ssize_t)c.particles,
      "box_x", c.box_x, "box_y", c.box_y, "dt", c.dt, "rc", c.rc, "walls",
      c.walls ? Py_True : Py_False, "seed", (unsigned long long)c.seed);
}

/* Gas.save(path): a checkpoint, written atomically. */
static PyObject *gas_save(PyObject *object, PyObject *args) {
  gas *self = (gas *)object;
  const char *path;
  if (!PyArg_ParseTuple(args, "s", &path) || take(self) != 0)
    return NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_gas_save(self->gas, path);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  Py_RETURN_NONE;
}

static PyMethodDef gas_methods[] = {
    {"step", gas_step, METH_VARARGS,
     "step(steps, every=0) -> (steps made, list of warnings, log rows)"},
    {"observe", gas_observe, METH_NOARGS, "observe() -> dict of observables"},
    {"particles", gas_particles, METH_NOARGS,
     "particles() -> (positions, velocities) as float64 bytearrays"},
    {"forces", gas_forces, METH_NOARGS, "forces() -> float64 bytearray"},
    {"describe", gas_describe, METH_NOARGS,
     "describe() -> dict of the configuration"},
    {"save", gas_save, METH_VARARGS, "save(path): write a checkpoint"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject gas_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clkit._clkit.Gas",
    .tp_basicsize = sizeof(gas),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = gas_dealloc,
    .tp_methods = gas_methods,
    .tp_doc = "a simulation on a device (use clkit.gas.Simulation)",
    .tp_new = NULL,
};

PyMethodDef ck_py_gas_methods[] = {
    {"gas_create", py_gas_create, METH_VARARGS,
     "gas_create(device, options, seed, session=None, positions=None, "
     "velocities=None) -> Gas"},
    {"gas_load", py_gas_load, METH_VARARGS,
     "gas_load(device, path, session=None) -> Gas"},
    {NULL, NULL, 0, NULL}};

int ck_py_gas_ready(PyObject *module) {
  if (PyType_Ready(&gas_type) != 0)
    return -1;
  return PyModule_AddObjectRef(module, "Gas", (PyObject *)&gas_type);
}
