/*
 * session.c - the Session type over ck_session (clkit/session.h), and the
 * device a call runs on: one of a session's, or of the process's list.
 */
#include "ext.h"

typedef struct session {
  PyObject_HEAD ck_session *session; /* NULL once closed */
} session;

static PyTypeObject session_type;

static void session_dealloc(PyObject *object) {
  ck_session_destroy(((session *)object)->session);
  Py_TYPE(object)->tp_free(object);
}

/* Session(selector=None): opens the devices the selector names. */
static PyObject *session_new(PyTypeObject *type, PyObject *args,
                             PyObject *kwargs) {
  static char *keywords[] = {"selector", NULL};
  const char *selector = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z", keywords, &selector))
    return NULL;
  ck_session *made = NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_session_create(selector, &made);
  Py_END_ALLOW_THREADS;
  /* A selector that names no device is the caller's error; a runtime
   * that cannot run here (OpenCL in a forked child) is not. */
  if (status != CK_OK)
    return ck_py_raise(status, status == CK_ERROR_NOT_FOUND);
  session *self = (session *)type->tp_alloc(type, 0);
  if (!self) {
    ck_session_destroy(made);
    return NULL;
  }
  self->session = made;
  return (PyObject *)self;
}

/* The session's handle, or NULL with ArgumentError set once closed. */
static ck_session *open_session(PyObject *object) {
  ck_session *handle = ((session *)object)->session;
  if (!handle)
    ck_py_raise_message(CK_ERROR_INVALID_ARGUMENT, 1,
                        "the clkit.Session is closed");
  return handle;
}

/* close(): releases what the session keeps; again, nothing. */
static PyObject *session_close(PyObject *object, PyObject *unused) {
  (void)unused;
  session *self = (session *)object;
  ck_session *handle = self->session;
  self->session = NULL;
  Py_BEGIN_ALLOW_THREADS;
  ck_session_destroy(handle);
  Py_END_ALLOW_THREADS;
  Py_RETURN_NONE;
}

/* devices() -> list of device dicts, in the selector's order. */
static PyObject *session_devices(PyObject *object, PyObject *unused) {
  (void)unused;
  ck_session *handle = open_session(object);
  const ck_device *devices = NULL;
  size_t count = 0;
  if (!handle)
    return NULL;
  ck_session_get_devices(handle, &devices, &count);
  PyObject *list = PyList_New((Py_ssize_t)count);
  for (size_t i = 0; list && i < count; ++i) {
    PyObject *device = ck_py_device_dict(&devices[i]);
    if (!device)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, (Py_ssize_t)i, device);
  }
  return list;
}

/* stats() -> dict of ck_session_stats. */
static PyObject *session_stats(PyObject *object, PyObject *unused) {
  (void)unused;
  ck_session *handle = open_session(object);
  ck_session_stats stats;
  if (!handle)
    return NULL;
  ck_session_query(handle, &stats);
  return Py_BuildValue(
      "{s:n,s:K,s:K,s:K,s:K,s:K,s:n,s:K,s:n,s:K}", "devices",
      (Py_ssize_t)stats.devices, "runs", stats.runs, "queues_made",
      stats.queues_made, "queues_lent", stats.queues_lent, "programs_built",
      stats.programs_built, "programs_reused", stats.programs_reused,
      "programs", (Py_ssize_t)stats.programs, "buffers_reused",
      stats.buffers_reused, "buffers", (Py_ssize_t)stats.buffers,
      "buffer_bytes", stats.buffer_bytes);
}

static PyObject *session_closed(PyObject *object, void *unused) {
  (void)unused;
  return PyBool_FromLong(((session *)object)->session == NULL);
}

static PyMethodDef session_methods[] = {
    {"close", session_close, METH_NOARGS, "close(): release the session"},
    {"devices", session_devices, METH_NOARGS,
     "devices() -> list of device dicts"},
    {"stats", session_stats, METH_NOARGS,
     "stats() -> dict: runs, queues, programs and buffers kept and reused"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef session_getset[] = {
    {"closed", session_closed, NULL, "whether close() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject session_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clkit._clkit.Session",
    .tp_basicsize = sizeof(session),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = session_dealloc,
    .tp_methods = session_methods,
    .tp_getset = session_getset,
    .tp_doc = "devices kept open between runs (use clkit.Session)",
    .tp_new = session_new,
};

int ck_py_session_ready(PyObject *module) {
  if (PyType_Ready(&session_type) != 0)
    return -1;
  return PyModule_AddObjectRef(module, "Session", (PyObject *)&session_type);
}

int ck_py_session_devices(PyObject *object, ck_device_set *set) {
  if (!PyObject_TypeCheck(object, &session_type)) {
    PyErr_Format(PyExc_TypeError,
                 "session must be a clkit.Session or None, not %s",
                 Py_TYPE(object)->tp_name);
    return -1;
  }
  ck_session *handle = open_session(object);
  if (!handle)
    return -1;
  const ck_device *devices = NULL;
  memset(set, 0, sizeof *set);
  ck_session_get_devices(handle, &devices, &set->count);
  set->devices = (ck_device *)devices;
  return 0;
}

int ck_py_device_of(PyObject *object, const char *selector, ck_device *device) {
  if (!object || object == Py_None) {
    const ck_device *listed = ck_py_device(selector);
    if (!listed)
      return -1;
    *device = *listed;
    return 0;
  }
  /* The selector chooses among the session's devices alone. */
  ck_device_set view;
  size_t index = 0, found = 0;
  if (ck_py_session_devices(object, &view) != 0)
    return -1;
  ck_status status = ck_device_select(&view, selector, &index, 1, &found);
  if (status != CK_OK) {
    ck_py_raise(status, 1);
    return -1;
  }
  /* A copy: the call runs without the GIL, while another thread may close
   * the session (its devices then refuse, rather than vanish). */
  *device = view.devices[index];
  return 0;
}
