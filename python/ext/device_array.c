/*
 * device_array.c - a device objective written in Python: the swarm's
 * positions handed to the callable where they are, in a CUDA device's
 * memory, through DLPack (torch.from_dlpack, cupy.from_dlpack,
 * jax.dlpack.from_dlpack) and the CUDA array interface; off CUDA devices
 * a copy of them in host memory Python owns, through DLPack and the
 * buffer protocol (np.asarray reads it in place). The values it returns
 * are taken from the device as well, or from the host.
 *
 * The DLPack structures below follow the DLPack ABI (version 0.8, the
 * "dltensor" capsule every array library takes).
 */
#include <stdint.h>
#include <string.h>

#include "ext.h"

/* ---- the DLPack ABI ------------------------------------------------------ */

enum { DL_CPU = 1, DL_CUDA = 2, DL_CUDA_HOST = 3, DL_FLOAT = 2 };

typedef struct dl_device {
  int32_t type, id;
} dl_device;

typedef struct dl_type {
  uint8_t code, bits;
  uint16_t lanes;
} dl_type;

typedef struct dl_tensor {
  void *data;
  dl_device device;
  int32_t ndim;
  dl_type dtype;
  int64_t *shape, *strides; /* strides in elements; NULL: C order */
  uint64_t byte_offset;
} dl_tensor;

typedef struct dl_managed {
  dl_tensor tensor;
  void *context;
  void (*deleter)(struct dl_managed *self);
} dl_managed;

static const char LIVE[] = "dltensor", USED[] = "used_dltensor";

/* ---- clkit._clkit.DeviceArray ------------------------------------------ */

/* One call's positions: a read-only (count, dim) view of the swarm's
 * device memory, or of a host copy (on_host), that gives views while the
 * call runs (live). exports counts the DLPack tensors and buffer views
 * made of it that their consumers still hold. A host copy lives in a
 * block of Python's (run.c), which the array keeps while it is live or
 * exported: a view kept past its call still reads that call's
 * positions, and the block is reused only once nothing holds it. */
typedef struct device_array {
  PyObject_HEAD const void *data;
  Py_ssize_t count, dim, stride, real_size;
  Py_ssize_t shape[2], strides[2]; /* the buffer protocol's, in bytes */
  int ordinal, live, on_host;
  /* ordered: on a CUDA device, positions ready in stream's order (a
   * run's, evaluate_device_ordered), for which an export's consumer
   * stream waits. */
  int ordered;
  void *stream;
  Py_ssize_t exports;
  PyObject *block; /* the host copy's memory, or NULL */
  PyObject *owner; /* what keeps the device memory, or NULL */
  void (*freed)(PyObject *owner);
} device_array;

/* An array that gives no views and has none out lets go of its host
 * copy, so that the next call can reuse the block. */
static void array_settle(device_array *array) {
  if (!array->live && array->exports == 0)
    Py_CLEAR(array->block);
}

/* What an export holds: the managed tensor, its shape and strides, and
 * the array it came from (a reference). */
typedef struct export {
  dl_managed managed;
  int64_t shape[2], strides[2];
  device_array *array;
}
export;

static void export_delete(dl_managed *managed) {
  export *made = (export *)managed;
  PyGILState_STATE state = PyGILState_Ensure();
  made->array->exports--;
  array_settle(made->array);
  Py_DECREF(made->array);
  PyGILState_Release(state);
  PyMem_RawFree(made);
}

/* A capsule never consumed deletes its tensor itself. */
static void capsule_delete(PyObject *capsule) {
  if (!PyCapsule_IsValid(capsule, LIVE))
    return;
  dl_managed *managed = PyCapsule_GetPointer(capsule, LIVE);
  if (managed && managed->deleter)
    managed->deleter(managed);
}

static int array_usable(device_array *array) {
  if (array->live)
    return 0;
  PyErr_SetString(PyExc_BufferError,
                  "X gives views of the swarm's memory during its call (or "
                  "until the next tell) only; keep a copy (X.copy() in "
                  "NumPy, X.clone() in PyTorch) to use it later");
  return -1;
}

static const char ON_CUDA[] = "X is in a CUDA device's memory: take it "
                              "through DLPack (torch.from_dlpack, "
                              "cupy.from_dlpack)";

/* Its DLPack device: a CUDA device, or the host's memory. */
static dl_device array_device(const device_array *array) {
  return array->on_host ? (dl_device){DL_CPU, 0}
                        : (dl_device){DL_CUDA, array->ordinal};
}

/* DLPack's stream rule: the consumer's stream (stream=, None meaning
 * CUDA's legacy default stream, -1 none) waits for positions ready in
 * stream order; complete ones need no wait. 0, or -1 with an exception
 * set. */
static int array_order(const device_array *array, PyObject *stream) {
  if (!array->ordered || array->on_host)
    return 0;
  long long consumer = 1;
  if (stream != Py_None) {
    consumer = PyLong_AsLongLong(stream);
    if (consumer == -1 && PyErr_Occurred())
      return -1;
  }
  if (consumer == -1)
    return 0;
  ck_device_batch batch = {.ordinal = array->ordinal, .stream = array->stream};
  ck_status status = ck_device_batch_wait(&batch, (void *)(uintptr_t)consumer);
  if (status == CK_OK)
    return 0;
  ck_py_raise(status, 0);
  return -1;
}

/* __dlpack__(stream=None, max_version=None, dl_device=None, copy=None):
 * shared, not copied; the consumer's stream ordered after positions that
 * are ready in stream order. */
static PyObject *array_dlpack(PyObject *self, PyObject *args,
                              PyObject *kwargs) {
  device_array *array = (device_array *)self;
  static char *keywords[] = {"stream", "max_version", "dl_device", "copy",
                             NULL};
  PyObject *stream = Py_None, *version = Py_None, *device = Py_None,
           *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO", keywords, &stream,
                                   &version, &device, &copy))
    return NULL;
  if (array_usable(array))
    return NULL;
  if (copy == Py_True) {
    PyErr_SetString(PyExc_BufferError,
                    "X is shared, not copied, by __dlpack__; copy it with "
                    "its consumer's library");
    return NULL;
  }
  if (array_order(array, stream))
    return NULL;
  dl_device where = array_device(array);
  if (device != Py_None) {
    int type, id;
    if (!PyArg_ParseTuple(device, "ii", &type, &id))
      return NULL;
    if (type != where.type || id != where.id) {
      PyErr_Format(PyExc_BufferError,
                   "X lives on DLPack device (%d, %d), not (%d, %d)",
                   (int)where.type, (int)where.id, type, id);
      return NULL;
    }
  }
  export *made = PyMem_RawCalloc(1, sizeof *made);
  if (!made)
    return PyErr_NoMemory();
  made->shape[0] = array->count;
  made->shape[1] = array->dim;
  made->strides[0] = 1;
  made->strides[1] = array->stride;
  made->array = (device_array *)Py_NewRef(self);
  made->managed = (dl_managed){
      .tensor = {.data = (void *)array->data,
                 .device = where,
                 .ndim = 2,
                 .dtype = {DL_FLOAT, (uint8_t)(8 * array->real_size), 1},
                 .shape = made->shape,
                 .strides = made->strides},
      .deleter = export_delete};
  array->exports++;
  PyObject *capsule = PyCapsule_New(&made->managed, LIVE, capsule_delete);
  if (!capsule)
    export_delete(&made->managed);
  return capsule;
}

static PyObject *array_dlpack_device(PyObject *self, PyObject *unused) {
  (void)unused;
  dl_device where = array_device((device_array *)self);
  return Py_BuildValue("ii", (int)where.type, (int)where.id);
}

static PyObject *array_shape(PyObject *self, void *unused) {
  (void)unused;
  device_array *array = (device_array *)self;
  return Py_BuildValue("nn", array->count, array->dim);
}

static PyObject *array_dtype(PyObject *self, void *unused) {
  (void)unused;
  return PyUnicode_FromString(
      ((device_array *)self)->real_size == 8 ? "float64" : "float32");
}

/* The CUDA array interface (version 3), for Numba and CuPy: read-only,
 * strides in bytes; the stream to wait for where the positions are
 * ready in stream order, else none. */
static PyObject *array_interface(PyObject *self, void *unused) {
  (void)unused;
  device_array *array = (device_array *)self;
  if (array->on_host) {
    PyErr_SetString(PyExc_AttributeError,
                    "X is in host memory: it has no CUDA array interface");
    return NULL;
  }
  if (array_usable(array))
    return NULL;
  PyObject *stream = array->ordered && array->stream
                         ? PyLong_FromVoidPtr(array->stream)
                         : Py_NewRef(Py_None);
  if (!stream)
    return NULL;
  return Py_BuildValue(
      "{s:(nn),s:s,s:(nO),s:(nn),s:i,s:N}", "shape", array->count, array->dim,
      "typestr", array->real_size == 8 ? "<f8" : "<f4", "data",
      (Py_ssize_t)(uintptr_t)array->data, Py_True, "strides", array->real_size,
      array->stride * array->real_size, "version", 3, "stream", stream);
}

/* __array__(dtype=None, copy=None), which NumPy calls where the buffer
 * protocol fails: the reason it failed (X on a CUDA device, or past its
 * call), rather than NumPy's fallback, a 0-d object array. */
static PyObject *array_numpy(PyObject *self, PyObject *args, PyObject *kwargs) {
  device_array *array = (device_array *)self;
  static char *keywords[] = {"dtype", "copy", NULL};
  PyObject *dtype = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO", keywords, &dtype,
                                   &copy))
    return NULL;
  if (!array->on_host) {
    PyErr_SetString(PyExc_BufferError, ON_CUDA);
    return NULL;
  }
  if (array_usable(array))
    return NULL;
  /* Live in host memory: NumPy's array over the buffer. */
  PyObject *numpy = PyImport_ImportModule("numpy");
  PyObject *array_of = numpy ? PyObject_GetAttrString(numpy, "array") : NULL;
  PyObject *view = array_of ? PyMemoryView_FromObject(self) : NULL;
  PyObject *given = view ? Py_BuildValue("(O)", view) : NULL;
  PyObject *options =
      given ? Py_BuildValue("{s:O,s:O}", "dtype", dtype, "copy", copy) : NULL;
  PyObject *made = options ? PyObject_Call(array_of, given, options) : NULL;
  Py_XDECREF(options);
  Py_XDECREF(given);
  Py_XDECREF(view);
  Py_XDECREF(array_of);
  Py_XDECREF(numpy);
  return made;
}

static PyMethodDef array_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))array_dlpack,
     METH_VARARGS | METH_KEYWORDS,
     "a DLPack capsule of X, shared (not copied), read-only"},
    {"__dlpack_device__", array_dlpack_device, METH_NOARGS,
     "(2, ordinal): a CUDA device; (1, 0): host memory"},
    {"__array__", (PyCFunction)(void (*)(void))array_numpy,
     METH_VARARGS | METH_KEYWORDS,
     "X in host memory as a NumPy array, read in place"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef array_fields[] = {
    {"shape", array_shape, NULL, "(count, dim)", NULL},
    {"dtype", array_dtype, NULL, "\"float32\" or \"float64\"", NULL},
    {"__cuda_array_interface__", array_interface, NULL,
     "the CUDA array interface, version 3", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* The buffer protocol, for X in host memory: read-only, strided
 * (column-major), so that np.asarray(X) reads it in place. */
static int array_get_buffer(PyObject *self, Py_buffer *view, int flags) {
  device_array *array = (device_array *)self;
  view->obj = NULL;
  if (!array->on_host) {
    PyErr_SetString(PyExc_BufferError, ON_CUDA);
    return -1;
  }
  if (array_usable(array))
    return -1;
  if (flags & PyBUF_WRITABLE) {
    PyErr_SetString(PyExc_BufferError, "X is read-only");
    return -1;
  }
  if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES) {
    PyErr_SetString(PyExc_BufferError,
                    "X is strided (coordinate-major): ask for strides");
    return -1;
  }
  *view = (Py_buffer){.buf = (void *)array->data,
                      .obj = Py_NewRef(self),
                      .len = array->count * array->dim * array->real_size,
                      .itemsize = array->real_size,
                      .readonly = 1,
                      .ndim = 2,
                      .format = (flags & PyBUF_FORMAT)
                                    ? (array->real_size == 8 ? "d" : "f")
                                    : NULL,
                      .shape = array->shape,
                      .strides = array->strides};
  array->exports++;
  return 0;
}

static void array_release_buffer(PyObject *self, Py_buffer *view) {
  (void)view;
  device_array *array = (device_array *)self;
  array->exports--;
  array_settle(array);
}

static PyBufferProcs array_buffer = {.bf_getbuffer = array_get_buffer,
                                     .bf_releasebuffer = array_release_buffer};

static void array_dealloc(PyObject *self) {
  device_array *array = (device_array *)self;
  if (array->freed)
    array->freed(array->owner);
  Py_XDECREF(array->owner);
  Py_XDECREF(array->block);
  Py_TYPE(self)->tp_free(self);
}

static PyTypeObject array_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clkit._clkit.DeviceArray",
    .tp_basicsize = sizeof(device_array),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = array_dealloc,
    .tp_methods = array_methods,
    .tp_getset = array_fields,
    .tp_as_buffer = &array_buffer,
    .tp_doc = "one call's positions in a CUDA device's memory (or, off "
              "CUDA devices, a copy in host memory), read-only, giving "
              "views during the call: take it with torch.from_dlpack, "
              "cupy.from_dlpack, jax.dlpack.from_dlpack or, in host "
              "memory, np.asarray",
    .tp_new = NULL,
};

int ck_py_device_array_ready(PyObject *module) {
  if (PyType_Ready(&array_type) != 0)
    return -1;
  return PyModule_AddObjectRef(module, "DeviceArray", (PyObject *)&array_type);
}

PyObject *ck_py_device_array_new(const ck_device_batch *batch,
                                 ck_py_blocks *blocks, PyObject *owner,
                                 void (*freed)(PyObject *owner)) {
  const void *data = batch->x;
  PyObject *block = NULL;
  if (batch->x_on_host) {
    size_t bytes = batch->count * batch->dim * batch->real_size;
    void *copy;
    block = ck_py_block_take(blocks, bytes, &copy);
    if (!block)
      return NULL;
    memcpy(copy, batch->x, bytes);
    data = copy;
  }
  device_array *array = PyObject_New(device_array, &array_type);
  if (!array)
    return NULL;
  array->data = data;
  array->count = (Py_ssize_t)batch->count;
  array->dim = (Py_ssize_t)batch->dim;
  array->stride = (Py_ssize_t)batch->stride;
  array->real_size = (Py_ssize_t)batch->real_size;
  array->ordinal = batch->ordinal;
  array->on_host = batch->x_on_host;
  array->ordered = 0;
  array->stream = batch->stream;
  array->shape[0] = array->count;
  array->shape[1] = array->dim;
  array->strides[0] = array->real_size;
  array->strides[1] = array->stride * array->real_size;
  array->live = 1;
  array->exports = 0;
  array->block = Py_XNewRef(block);
  array->owner = Py_XNewRef(owner);
  array->freed = freed;
  return (PyObject *)array;
}

Py_ssize_t ck_py_device_array_end(PyObject *object) {
  device_array *array = (device_array *)object;
  array->live = 0;
  array_settle(array);
  return array->exports;
}

/* ---- the device objective ---------------------------------------------- */

void ck_py_values_release(ck_py_values *values) {
  dl_managed *managed = values->managed;
  values->managed = NULL;
  if (managed && managed->deleter)
    managed->deleter(managed);
}

void ck_py_values_free(ck_py_values *values) {
  ck_py_values_release(values);
  PyMem_Free(values->host);
  *values = (ck_py_values){0};
}

/* Lets go of the previous call's values and array; -1 with an exception
 * set where the objective kept a view of that call's X. On a CUDA device
 * it would read memory the swarm reuses; elsewhere it keeps its own copy,
 * but the run refuses it alike, so that one objective runs on both. */
int ck_py_device_release(ck_py_bridge *bridge) {
  ck_py_device_call *older = &bridge->calls[bridge->older];
  /* Its values first: they may be a view of its X. */
  ck_py_values_release(&older->values);
  if (!older->array)
    return 0;
  int kept = ck_py_device_array_end(older->array) > 0;
  Py_CLEAR(older->array);
  if (!kept)
    return 0;
  PyErr_SetString(PyExc_RuntimeError,
                  "the objective kept its X, a view of the swarm's memory, "
                  "past its call; keep a copy (X.copy() in NumPy, X.clone() "
                  "in PyTorch) instead");
  return -1;
}

/* Values the callable returned in host memory (anything NumPy reads),
 * copied as float64 into the bridge's array. */
static int host_values(ck_py_values *values, PyObject *answer,
                       ck_device_batch *batch) {
  Py_buffer view;
  if (PyObject_GetBuffer(answer, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
    return -1;
  const char *format = view.format ? view.format : "B";
  if (*format == '<' || *format == '=')
    ++format;
  size_t size = strcmp(format, "d") == 0 ? 8 : strcmp(format, "f") == 0 ? 4 : 0;
  int fits = size && view.len == (Py_ssize_t)(batch->count * size);
  if (fits && values->capacity < batch->count * size) {
    PyMem_Free(values->host);
    values->host = PyMem_Malloc(batch->count * size);
    values->capacity = values->host ? batch->count * size : 0;
    if (!values->host) {
      PyBuffer_Release(&view);
      PyErr_NoMemory();
      return -1;
    }
  }
  if (fits) {
    memcpy(values->host, view.buf, batch->count * size);
    batch->values = values->host;
    batch->value_size = size;
    batch->value_stride = 1;
    batch->values_on_host = 1;
  } else {
    PyErr_Format(PyExc_ValueError,
                 "the objective must return %zu float32 or float64 values, "
                 "one a row of X",
                 batch->count);
  }
  PyBuffer_Release(&view);
  return fits ? 0 : -1;
}

/* A new reference to answer's DLPack capsule: answer itself, or what its
 * __dlpack__(stream=stream) makes. */
static PyObject *capsule_of(PyObject *answer, long long stream) {
  if (PyCapsule_CheckExact(answer))
    return Py_NewRef(answer);
  PyObject *method = PyObject_GetAttrString(answer, "__dlpack__");
  PyObject *empty = PyTuple_New(0);
  PyObject *kwargs = Py_BuildValue("{s:L}", "stream", stream);
  PyObject *capsule =
      method && empty && kwargs ? PyObject_Call(method, empty, kwargs) : NULL;
  Py_XDECREF(method);
  Py_XDECREF(empty);
  Py_XDECREF(kwargs);
  return capsule;
}

/* Values the callable returned on the device: a DLPack tensor of count
 * floats (shape (count,) or (count, 1)) on the batch's device, made ready
 * for the swarm's stream by its producer (stream -1: by the caller).
 * Kept until the call after next. */
static int device_values(ck_py_values *values, PyObject *answer,
                         long long stream, ck_device_batch *batch) {
  PyObject *capsule = capsule_of(answer, stream);
  if (!capsule)
    return -1;
  dl_managed *managed = PyCapsule_GetPointer(capsule, LIVE);
  if (!managed || PyCapsule_SetName(capsule, USED) != 0) {
    Py_DECREF(capsule);
    return -1;
  }
  Py_DECREF(capsule);
  values->managed = managed;
  const dl_tensor *t = &managed->tensor;
  int64_t rows = t->ndim >= 1 ? t->shape[0] : 0;
  int shaped = (t->ndim == 1 || (t->ndim == 2 && t->shape[1] == 1)) &&
               rows == (int64_t)batch->count;
  int typed = t->dtype.code == DL_FLOAT && t->dtype.lanes == 1 &&
              (t->dtype.bits == 32 || t->dtype.bits == 64);
  if (t->device.type != DL_CUDA || t->device.id != batch->ordinal) {
    PyErr_Format(PyExc_ValueError,
                 "the objective's values are on DLPack device (%d, %d), not "
                 "on CUDA device %d with X",
                 t->device.type, t->device.id, batch->ordinal);
    return -1;
  }
  if (!shaped || !typed) {
    PyErr_Format(PyExc_ValueError,
                 "the objective must return %zu float32 or float64 values, "
                 "one a row of X (shape (%zu,))",
                 batch->count, batch->count);
    return -1;
  }
  int64_t stride = t->strides ? t->strides[0] : 1;
  if (stride < 1 && rows > 1) {
    PyErr_SetString(PyExc_ValueError,
                    "the objective's values must run forward in memory");
    return -1;
  }
  batch->values = (const char *)t->data + t->byte_offset;
  batch->value_size = t->dtype.bits / 8;
  batch->value_stride = stride < 1 ? 1 : (size_t)stride;
  batch->values_on_host = 0;
  return 0;
}

/* On a device (a CUDA array's __dlpack_device__), rather than the host. */
static int on_device(PyObject *answer) {
  if (!PyObject_HasAttrString(answer, "__dlpack__"))
    return 0;
  PyObject *where = PyObject_CallMethod(answer, "__dlpack_device__", NULL);
  if (!where) {
    PyErr_Clear();
    return 0;
  }
  int type = 0, id = 0;
  int parsed = PyArg_ParseTuple(where, "ii", &type, &id);
  Py_DECREF(where);
  if (!parsed) {
    PyErr_Clear();
    return 0;
  }
  return type == DL_CUDA;
}

/* Device values that the clkit package's wrapper returns with the stream
 * that made them, (values, stream): the swarm's stream waits for it.
 * values: a DLPack capsule, or an array that makes one (stream -1: no
 * handshake). */
static int values_after(ck_py_values *values, PyObject *answer,
                        ck_device_batch *batch) {
  long long stream = PyLong_AsLongLong(PyTuple_GET_ITEM(answer, 1));
  if (stream == -1 && PyErr_Occurred())
    return -1;
  if (device_values(values, PyTuple_GET_ITEM(answer, 0), -1, batch))
    return -1;
  ck_status status = ck_device_batch_after(batch, (void *)(uintptr_t)stream);
  if (status == CK_OK)
    return 0;
  ck_py_raise(status, 0);
  return -1;
}

int ck_py_values_take(ck_py_values *values, PyObject *answer,
                      ck_device_batch *batch) {
  ck_py_values_release(values);
  if (!batch->x_on_host && PyTuple_CheckExact(answer) &&
      PyTuple_GET_SIZE(answer) == 2)
    return values_after(values, answer, batch);
  if (!on_device(answer))
    return host_values(values, answer, batch);
  /* stream=: the swarm's, which the producer makes wait for the values
   * (DLPack's stream rule); 1 is CUDA's legacy default stream. */
  uintptr_t stream = (uintptr_t)batch->stream;
  if (!batch->x_on_host)
    return device_values(values, answer, stream ? (long long)stream : 1, batch);
  PyErr_SetString(PyExc_ValueError,
                  "the objective's values are on a CUDA device, but X is in "
                  "host memory: return them in host memory");
  return -1;
}

ck_status ck_py_on_device_objective(ck_device_batch *batch, void *user) {
  ck_py_bridge *bridge = user;
  PyGILState_STATE state = PyGILState_Ensure();
  ck_status status = CK_ERROR_CANCELLED;
  if (bridge->error || ck_py_device_release(bridge) != 0)
    goto failed;
  PyObject *array = ck_py_device_array_new(batch, &bridge->blocks, NULL, NULL);
  if (!array)
    goto failed;
  ((device_array *)array)->ordered = bridge->ordered;
  ck_py_device_call *call = &bridge->calls[bridge->older];
  call->array = array;
  PyObject *answer = PyObject_CallOneArg(bridge->objective, array);
  ck_py_device_array_end(array);
  if (answer) {
    /* In stream order the run may still read this call's values as the
     * next call begins: the next takes the other slot. Else the next lets
     * go of this one's, and finds its X kept at once. */
    if (ck_py_values_take(&call->values, answer, batch) == 0) {
      bridge->older ^= bridge->ordered;
      status = CK_OK;
    }
    Py_DECREF(answer);
  }
  if (status == CK_OK)
    goto done;
failed:
  if (PyErr_Occurred())
    ck_py_keep_error(&bridge->error);
  status = CK_ERROR_CANCELLED;
done:
  PyGILState_Release(state);
  return status;
}
