/*
 * ext.h - what the files of the clkit._clkit extension share: the
 * exception types, raising clkit's failures as them, the device list, and
 * each file's methods.
 *
 * The extension is generic over workloads: a run goes through
 * ck_workload_run with name/value options, so a workload needs no C here;
 * its Python module (python/clkit/<name>.py) maps arguments to options and
 * the result to what its users expect.
 */
#ifndef CK_PYTHON_EXT_H
#define CK_PYTHON_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "clkit/clkit.h"

/* clkit.Error (a RuntimeError) and clkit.ArgumentError (an Error and a
 * ValueError), made by the module's init. */
extern PyObject *ck_py_error, *ck_py_argument_error;

/* Raises clkit's failure of status: the thread's last message, as an
 * ArgumentError for CK_ERROR_INVALID_ARGUMENT (and for every status when
 * argument is nonzero), else an Error; the exception's `status` is the
 * status's name and `code` its number. Returns NULL. */
PyObject *ck_py_raise(ck_status status, int argument);
/* ck_py_raise with a message of the caller's. */
PyObject *ck_py_raise_message(ck_status status, int argument,
                              const char *message);

/* The device list, made on first use and kept for the process; NULL with
 * an exception set when it cannot be made. Called with the GIL held. */
const ck_device_set *ck_py_devices(void);

/* The one device a selector names (NULL: CLKIT_DEVICE, else the
 * fastest), or NULL with an exception set. */
const ck_device *ck_py_device(const char *selector);

/* A device as a dict of clkit.Device's fields; NULL with an exception
 * set. */
PyObject *ck_py_device_dict(const ck_device *device);

/* session.c: the Session type, added to the module (0, or -1 with an
 * exception set). */
int ck_py_session_ready(PyObject *module);

/* session.c: a view of the devices of a Session (owned by it: used with
 * the GIL held, or on copies), or -1 with an exception set as for
 * ck_py_device_of. */
int ck_py_session_devices(PyObject *session, ck_device_set *set);

/* session.c: the device a call runs on, copied into device: with a
 * Session (not None), the one of its devices that selector names (NULL:
 * the fastest of them); else ck_py_device(selector). 0, or -1 with an
 * exception set (ArgumentError for a closed session, TypeError for
 * another object). */
int ck_py_device_of(PyObject *session, const char *selector, ck_device *device);

/* A seed (a Python int, not a bool) into value: 0, or -1 with TypeError
 * or ValueError (outside 0 .. 2^64 - 1, as --seed takes) set. */
int ck_py_seed(PyObject *seed, uint64_t *value);

/* A workload by name, or NULL with ArgumentError set. */
const ck_workload *ck_py_workload(const char *name);

/* A list of (name, value) pairs of str into params (count entries, which
 * borrow the strings of the list's items: keep the list alive); NULL and
 * 0 for None. Returns 0, or -1 with an exception set; release *params
 * with PyMem_Free. */
int ck_py_params(PyObject *list, ck_param **params, size_t *count);

/* A C-contiguous buffer of ndim dimensions and items of format: 'f'
 * (float32), 'i' (int32) or 'd' (float64), named in messages. 0, or -1
 * with TypeError set (the view released). */
int ck_py_borrow(PyObject *object, Py_buffer *view, const char *name, int ndim,
                 char format);

/* run.c: keeps the exception being raised in *kept (the first of a run;
 * later ones are dropped: the run stops at the first), and raises the
 * kept one again, stealing it. */
void ck_py_keep_error(PyObject **kept);
void ck_py_raise_kept(PyObject **kept);

/* run.c: _clkit.run, and readying its type (0, or -1 with an exception
 * set) before the module is used. */
PyObject *ck_py_run(PyObject *self, PyObject *args, PyObject *kwargs);
int ck_py_run_ready(void);

/* device_array.c: values an objective returned: a DLPack tensor held
 * until they are read, or host memory they were copied into. */
typedef struct ck_py_values {
  void *managed;
  void *host;
  size_t capacity;
} ck_py_values;

/* run.c: blocks of host memory Python owns (owned, or NULL), reused for
 * batches while nothing else holds them (ck_py_block_take). */
typedef struct ck_py_blocks {
  PyObject *held[2];
} ck_py_blocks;

/* device_array.c: one call of a device objective: its positions
 * (owned, or NULL) and the values it returned. */
typedef struct ck_py_device_call {
  PyObject *array;
  ck_py_values values;
} ck_py_device_call;

/* run.c: what the callbacks of one run share. */
typedef struct ck_py_bridge {
  PyObject *objective; /* f(batch) -> values, or NULL */
  PyObject *progress;  /* p(dict) -> true to stop, or NULL */
  PyObject *log;       /* l(line), or NULL */
  PyObject *error;     /* the first exception of a callback (owned) */
  ck_py_blocks blocks; /* the objective's batches, or host copies of X */
  /* A device objective's (device_array.c): its last calls, the older at
   * `older`, let go of as the next call begins. ordered: the run's
   * positions are ready in stream order, and the run may read a call's
   * values after the next call begins: two calls are kept. Else one. */
  ck_py_device_call calls[2];
  int older, ordered;
} ck_py_bridge;

/* device_array.c: the DeviceArray type, added to the module (0, or -1
 * with an exception set); the device objective over a bridge (user); and
 * letting go of its older call: 0, or -1 with an exception set where the
 * objective kept that call's X past it. */
int ck_py_device_array_ready(PyObject *module);
ck_status ck_py_on_device_objective(ck_device_batch *batch, void *user);
int ck_py_device_release(ck_py_bridge *bridge);
/* device_array.c: a DeviceArray over batch's positions: on a CUDA device
 * over them, owner (or NULL) kept alive with it and told by freed (or
 * NULL) when the array goes; in host memory over a copy of them in a
 * block of blocks (ck_py_block_take), which the array keeps while it
 * gives views or has some out. And its end: no new exports, and the
 * count of those its consumers still hold. */
PyObject *ck_py_device_array_new(const ck_device_batch *batch,
                                 ck_py_blocks *blocks, PyObject *owner,
                                 void (*freed)(PyObject *owner));
Py_ssize_t ck_py_device_array_end(PyObject *array);
/* device_array.c: the values answer holds (a CUDA array through DLPack,
 * made ready for batch's stream; else anything NumPy reads, copied to
 * host memory) set into batch's value fields, the last ones released:
 * 0, or -1 with an exception set. Release lets go of them; free also of
 * the host memory. */
int ck_py_values_take(ck_py_values *values, PyObject *answer,
                      ck_device_batch *batch);
void ck_py_values_release(ck_py_values *values);
void ck_py_values_free(ck_py_values *values);

/* run.c: a block of host memory Python owns, of `bytes` bytes or more,
 * kept in blocks: one there that nothing else holds, else a new one in
 * place of the last (those that hold that one keep it). Returns the
 * block (borrowed) with its memory in *data, or NULL with an exception
 * set. Clear lets go of the blocks. */
PyObject *ck_py_block_take(ck_py_blocks *blocks, size_t bytes, void **data);
void ck_py_blocks_clear(ck_py_blocks *blocks);

/* run.c: readies bridge and options for a run from Python's seed (None:
 * 1, not given) and callables (each None or callable). Returns 0, or -1
 * with an exception set. */
int ck_py_bridge_begin(ck_py_bridge *bridge, ck_run_options *options,
                       PyObject *seed, PyObject *objective, PyObject *progress,
                       PyObject *log);

/* run.c: after the run, releases what the bridge holds and raises the
 * first exception of its callbacks (returning -1), else returns 0. */
int ck_py_bridge_end(ck_py_bridge *bridge);

/* run.c: a result as a dict (workload, device, best, metrics, options,
 * position, ...); NULL with an exception set. */
PyObject *ck_py_result_dict(const ck_result *result);

/* compare.c: _clkit.compare. */
PyObject *ck_py_compare(PyObject *self, PyObject *args, PyObject *kwargs);

/* aco.c: _clkit.tsp_limits and _clkit.tour_load. */
PyObject *ck_py_tsp_limits(PyObject *self, PyObject *args);
PyObject *ck_py_tour_load(PyObject *self, PyObject *args);

/* Takes an object whose clkit handle a call uses without the GIL: 0, or
 * -1 with RuntimeError set where another thread is using it. Clear *busy
 * once the call ends. */
static inline int ck_py_take(int *busy, const char *what) {
  if (*busy) {
    PyErr_Format(PyExc_RuntimeError, "the %s is in use by another thread",
                 what);
    return -1;
  }
  *busy = 1;
  return 0;
}

/* nn.c: the Network type and its functions; gas.c: the Gas type and its
 * functions. Each ready (0, or -1 with an exception set) adds its type to
 * the module. */
extern PyMethodDef ck_py_nn_methods[], ck_py_gas_methods[];
int ck_py_nn_ready(PyObject *module);
int ck_py_gas_ready(PyObject *module);

/* asktell.c: _clkit.asktell_create and the AskTell type (PSO and GA
 * driven by ask and tell); ready (0, or -1 with an exception set) adds
 * the type to the module. */
extern PyMethodDef ck_py_asktell_methods[];
int ck_py_asktell_ready(PyObject *module);

#endif /* CK_PYTHON_EXT_H */
