/*
 * module.c - the clkit._clkit module: its exceptions, the device list and
 * selectors, the workloads' option tables, and checking options.
 */
#include "ext.h"

PyObject *ck_py_error, *ck_py_argument_error;

static ck_device_set device_set;
static int device_set_made;

PyObject *ck_py_raise(ck_status status, int argument) {
  const char *message = "";
  ck_error_get_last(&message);
  return ck_py_raise_message(status, argument, message);
}

/* What a Python caller does where the library refuses OpenCL in a forked
 * child (clkit/queue.h): its message says what a C program does. */
static const char fork_hint[] =
    ". In Python, start worker processes with multiprocessing's 'spawn' or "
    "'forkserver' method (joblib's loky backend does)";

PyObject *ck_py_raise_message(ck_status status, int argument,
                              const char *message) {
  const char *name = "CK_ERROR_UNKNOWN";
  ck_status_get_name(status, &name);
  if (!message || !*message)
    ck_status_get_message(status, &message);
  int forked = status == CK_ERROR_UNSUPPORTED && strstr(message, "forked") &&
               strstr(message, "OpenCL");
  PyObject *type = argument || status == CK_ERROR_INVALID_ARGUMENT
                       ? ck_py_argument_error
                       : ck_py_error;
  PyObject *said =
      PyUnicode_FromFormat("%s%s", message, forked ? fork_hint : "");
  PyObject *error = said ? PyObject_CallOneArg(type, said) : NULL;
  Py_XDECREF(said);
  if (!error)
    return NULL;
  PyObject *code = PyLong_FromLong((long)status);
  PyObject *text = PyUnicode_FromString(name);
  if (code && text && PyObject_SetAttrString(error, "status", text) == 0 &&
      PyObject_SetAttrString(error, "code", code) == 0)
    PyErr_SetObject(type, error);
  Py_XDECREF(code);
  Py_XDECREF(text);
  Py_DECREF(error);
  return NULL;
}

int ck_py_borrow(PyObject *object, Py_buffer *view, const char *name, int ndim,
                 char format) {
  if (PyObject_GetBuffer(object, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0)
    return -1;
  const char *given = view->format ? view->format : "B";
  if (*given == '<' || *given == '=' || *given == '@')
    ++given;
  Py_ssize_t size = format == 'd' ? 8 : 4;
  if (view->ndim != ndim || given[0] != format || given[1] ||
      view->itemsize != size) {
    PyErr_Format(PyExc_TypeError,
                 "%s must be a C-contiguous %d-dimensional array of %s", name,
                 ndim,
                 format == 'f'   ? "float32"
                 : format == 'd' ? "float64"
                                 : "int32");
    PyBuffer_Release(view);
    return -1;
  }
  return 0;
}

const ck_device_set *ck_py_devices(void) {
  if (!device_set_made) {
    ck_status status = ck_device_enumerate(&device_set);
    if (status != CK_OK) {
      ck_py_raise(status, 0);
      return NULL;
    }
    device_set_made = 1;
  }
  return &device_set;
}

const ck_device *ck_py_device(const char *selector) {
  const ck_device_set *set = ck_py_devices();
  if (!set)
    return NULL;
  size_t index = 0, count = 0;
  ck_status status = ck_device_select(set, selector, &index, 1, &count);
  if (status != CK_OK) {
    ck_py_raise(status, 1);
    return NULL;
  }
  return &set->devices[index];
}

int ck_py_seed(PyObject *seed, uint64_t *value) {
  if (PyBool_Check(seed) || !PyLong_Check(seed)) {
    PyErr_Format(PyExc_TypeError, "seed must be a whole number, not %s",
                 Py_TYPE(seed)->tp_name);
    return -1;
  }
  *value = PyLong_AsUnsignedLongLong(seed);
  if (!PyErr_Occurred())
    return 0;
  PyErr_Clear();
  PyErr_Format(PyExc_ValueError,
               "seed must be a whole number from 0 to 2^64 - 1, not %S", seed);
  return -1;
}

const ck_workload *ck_py_workload(const char *name) {
  const ck_workload *workload = NULL;
  ck_status status = ck_workload_find(name, &workload);
  if (status != CK_OK) {
    ck_py_raise(status, 1);
    return NULL;
  }
  return workload;
}

int ck_py_params(PyObject *list, ck_param **params, size_t *count) {
  *params = NULL;
  *count = 0;
  if (list == Py_None)
    return 0;
  if (!PyList_Check(list)) {
    PyErr_SetString(PyExc_TypeError, "options must be a list of (name, value)");
    return -1;
  }
  Py_ssize_t size = PyList_GET_SIZE(list);
  if (size == 0)
    return 0;
  ck_param *made = PyMem_Calloc((size_t)size, sizeof *made);
  if (!made) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < size; ++i) {
    PyObject *item = PyList_GET_ITEM(list, i);
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(item, 0)) ||
        !PyUnicode_Check(PyTuple_GET_ITEM(item, 1))) {
      PyErr_SetString(PyExc_TypeError,
                      "each option must be a (name, value) pair of str");
      PyMem_Free(made);
      return -1;
    }
    made[i].name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 0));
    made[i].value = PyUnicode_AsUTF8(PyTuple_GET_ITEM(item, 1));
    if (!made[i].name || !made[i].value) {
      PyMem_Free(made);
      return -1;
    }
  }
  *params = made;
  *count = (size_t)size;
  return 0;
}

/* ---- devices -------------------------------------------------------------
 */

static const char *backend_name(ck_backend backend) {
  return backend == CK_BACKEND_REF      ? "ref"
         : backend == CK_BACKEND_OPENCL ? "opencl"
                                        : "cuda";
}

PyObject *ck_py_device_dict(const ck_device *device) {
  const char *kind = "other";
  ck_device_get_kind_name(device->kind, &kind);
  return Py_BuildValue(
      "{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:K,s:K,s:K,s:n,s:O}", "id",
      device->id, "name", device->name, "kind", kind, "backend",
      backend_name(device->backend), "vendor", device->vendor, "platform",
      device->platform, "platform_version", device->platform_version,
      "driver_version", device->driver_version, "c_version", device->c_version,
      "compute_units", device->compute_units, "clock_mhz", device->clock_mhz,
      "global_memory", device->global_memory, "local_memory",
      device->local_memory, "max_alloc", device->max_alloc,
      "max_work_group_size", (Py_ssize_t)device->max_work_group_size,
      "has_fp64", device->has_fp64 ? Py_True : Py_False);
}

/* _clkit.devices() -> (list of dicts, why no OpenCL device or "", why no
 * CUDA device or ""). */
static PyObject *py_devices(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  const ck_device_set *set = ck_py_devices();
  if (!set)
    return NULL;
  PyObject *list = PyList_New((Py_ssize_t)set->count);
  if (!list)
    return NULL;
  for (size_t i = 0; i < set->count; ++i) {
    PyObject *device = ck_py_device_dict(&set->devices[i]);
    if (!device) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, device);
  }
  return Py_BuildValue("(Nss)", list,
                       set->opencl_status ? set->opencl_message : "",
                       set->cuda_status ? set->cuda_message : "");
}

/* _clkit.select(selector or None) -> the ids it names, in its order. */
static PyObject *py_select(PyObject *self, PyObject *args) {
  (void)self;
  const char *selector = NULL;
  if (!PyArg_ParseTuple(args, "z", &selector))
    return NULL;
  const ck_device_set *set = ck_py_devices();
  if (!set)
    return NULL;
  size_t *indices = PyMem_Calloc(set->count, sizeof *indices), count = 0;
  if (!indices)
    return PyErr_NoMemory();
  ck_status status =
      ck_device_select(set, selector, indices, set->count, &count);
  PyObject *ids =
      status == CK_OK ? PyList_New((Py_ssize_t)count) : ck_py_raise(status, 1);
  for (size_t i = 0; ids && i < count; ++i) {
    PyObject *id = PyUnicode_FromString(set->devices[indices[i]].id);
    if (!id) {
      Py_CLEAR(ids);
      break;
    }
    PyList_SET_ITEM(ids, (Py_ssize_t)i, id);
  }
  PyMem_Free(indices);
  return ids;
}

/* ---- workloads ----------------------------------------------------------
 */

/* _clkit.options(workload) -> (summary, [(name, value_name or None,
 * default or None, help)]): the one table of its options. */
static PyObject *py_options(PyObject *self, PyObject *args) {
  (void)self;
  const char *name, *summary = "";
  const ck_option *options = NULL;
  if (!PyArg_ParseTuple(args, "s", &name))
    return NULL;
  const ck_workload *workload = ck_py_workload(name);
  if (!workload)
    return NULL;
  ck_workload_describe(workload, NULL, &summary, &options);
  PyObject *list = PyList_New(0);
  for (const ck_option *option = options; list && option->name; ++option) {
    PyObject *row = Py_BuildValue("(szzs)", option->name, option->value_name,
                                  option->default_value, option->help);
    if (!row || PyList_Append(list, row) != 0)
      Py_CLEAR(list);
    Py_XDECREF(row);
  }
  return list ? Py_BuildValue("(sN)", summary, list) : NULL;
}

/* _clkit.check(workload, [(name, value)]): None, or the ArgumentError
 * clkit gives for them (ck_workload_check: no file is read). */
static PyObject *py_check(PyObject *self, PyObject *args) {
  (void)self;
  const char *name;
  PyObject *list;
  ck_param *params;
  size_t count;
  if (!PyArg_ParseTuple(args, "sO", &name, &list))
    return NULL;
  const ck_workload *workload = ck_py_workload(name);
  if (!workload || ck_py_params(list, &params, &count) != 0)
    return NULL;
  ck_status status = ck_workload_check(workload, params, count);
  PyMem_Free(params);
  if (status != CK_OK)
    return ck_py_raise(status, 1);
  Py_RETURN_NONE;
}

/* _clkit.suggest(word, [names]) -> the name word most likely meant, or
 * None (ck_param_suggest: the library's rule, for Python's own names). */
static PyObject *py_suggest(PyObject *self, PyObject *args) {
  (void)self;
  const char *word, *nearest = NULL;
  PyObject *sequence, *result = NULL;
  if (!PyArg_ParseTuple(args, "sO", &word, &sequence))
    return NULL;
  PyObject *names = PySequence_Fast(sequence, "suggest: names is no sequence");
  if (!names)
    return NULL;
  Py_ssize_t count = PySequence_Fast_GET_SIZE(names);
  const char **texts = PyMem_Calloc((size_t)count + 1, sizeof *texts);
  if (!texts) {
    PyErr_NoMemory();
    goto fail;
  }
  for (Py_ssize_t i = 0; i < count; ++i)
    if (!(texts[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(names, i))))
      goto fail;
  ck_status status = ck_param_suggest(word, texts, (size_t)count, &nearest);
  if (status != CK_OK)
    result = ck_py_raise(status, 1);
  else if (nearest)
    result = PyUnicode_FromString(nearest);
  else
    result = Py_NewRef(Py_None);
fail:
  PyMem_Free(texts);
  Py_DECREF(names);
  return result;
}

static PyObject *py_version(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  const char *version = "";
  ck_version_get(&version);
  return PyUnicode_FromString(version);
}

static PyMethodDef methods[] = {
    {"devices", py_devices, METH_NOARGS,
     "devices() -> (list of device dicts, OpenCL message, CUDA message)"},
    {"select", py_select, METH_VARARGS,
     "select(selector) -> ids of the devices a selector names"},
    {"options", py_options, METH_VARARGS,
     "options(workload) -> (summary, [(name, value_name, default, help)])"},
    {"check", py_check, METH_VARARGS,
     "check(workload, options): raise ArgumentError for bad options"},
    {"suggest", py_suggest, METH_VARARGS,
     "suggest(word, names) -> the name word most likely meant, or None"},
    {"version", py_version, METH_NOARGS, "version() -> clkit's version"},
    {"run", (PyCFunction)(void (*)(void))ck_py_run,
     METH_VARARGS | METH_KEYWORDS,
     "run(workload, device, options, seed=None, objective=None, "
     "progress=None, log=None, session=None) -> dict of the result"},
    {"compare", (PyCFunction)(void (*)(void))ck_py_compare,
     METH_VARARGS | METH_KEYWORDS,
     "compare(workload, devices, options, seed=None, progress=None, "
     "log=None, session=None) -> list of each device's result dict, ref "
     "first"},
    {"tsp_limits", ck_py_tsp_limits, METH_NOARGS,
     "tsp_limits() -> dict of min_cities, max_cities, max_coordinate"},
    {"tour_load", ck_py_tour_load, METH_VARARGS,
     "tour_load(path, cities) -> bytes of the tour's uint32 0-based cities"},
    {NULL, NULL, 0, NULL}};

static void module_free(void *module) {
  (void)module;
  if (device_set_made)
    ck_device_set_free(&device_set);
  device_set_made = 0;
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_clkit",
    "clkit's C library: devices and workload runs (use the clkit package)",
    -1,
    methods,
    NULL,
    NULL,
    NULL,
    module_free};

PyMODINIT_FUNC PyInit__clkit(void) {
  if (ck_py_run_ready() != 0)
    return NULL;
  PyObject *module = PyModule_Create(&module_def);
  if (!module)
    return NULL;
  ck_py_error = PyErr_NewExceptionWithDoc(
      "clkit.Error", "A failure of clkit: its message, status and code.",
      PyExc_RuntimeError, NULL);
  PyObject *bases =
      ck_py_error ? PyTuple_Pack(2, ck_py_error, PyExc_ValueError) : NULL;
  ck_py_argument_error =
      bases ? PyErr_NewExceptionWithDoc(
                  "clkit.ArgumentError",
                  "An option or argument clkit refuses (also a ValueError).",
                  bases, NULL)
            : NULL;
  Py_XDECREF(bases);
  /* The module keeps its own references; these stay for the process. */
  if (!ck_py_argument_error ||
      PyModule_AddObjectRef(module, "Error", ck_py_error) != 0 ||
      PyModule_AddObjectRef(module, "ArgumentError", ck_py_argument_error) !=
          0 ||
      PyModule_AddIntConstant(module, "NN_AUTO_HIDDEN", CK_NN_AUTO_HIDDEN) !=
          0 ||
      PyModule_AddIntConstant(module, "NN_MAX_WIDTH", CK_NN_MAX_WIDTH) != 0 ||
      PyModule_AddIntConstant(module, "NN_MAX_LAYERS", CK_NN_MAX_LAYERS) != 0 ||
      PyModule_AddIntConstant(module, "DATASET_MAX_CLASSES",
                              CK_DATASET_MAX_CLASSES) != 0 ||
      PyModule_AddIntConstant(module, "DATASET_MAX_NAME",
                              CK_DATASET_MAX_NAME) != 0 ||
      PyModule_AddFunctions(module, ck_py_nn_methods) != 0 ||
      ck_py_nn_ready(module) != 0 ||
      PyModule_AddFunctions(module, ck_py_gas_methods) != 0 ||
      ck_py_gas_ready(module) != 0 || ck_py_session_ready(module) != 0 ||
      ck_py_device_array_ready(module) != 0 ||
      PyModule_AddFunctions(module, ck_py_asktell_methods) != 0 ||
      ck_py_asktell_ready(module) != 0) {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
