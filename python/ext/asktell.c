/*
 * asktell.c - clkit.pso.PSO's and clkit.ga.GA's C side: a swarm or a GA
 * that the caller drives (ck_pso_ask/ck_pso_tell, ck_ga_ask/ck_ga_tell)
 * as the AskTell type. Its state stays on the device; calls run with the
 * GIL released and copy positions and values between NumPy's memory and
 * clkit's.
 */
#include <float.h>
#include <math.h>

#include "ext.h"

/* What differs between the two optimisers: each call over the handle. */
typedef struct optimiser {
  const char *name; /* "clkit.pso.PSO" */
  ck_status (*ask)(void *handle, double *x);
  ck_status (*tell)(void *handle, const double *f);
  ck_status (*best)(void *handle, double *value, double *position);
  void (*destroy)(void *handle);
  ck_status (*ask_device)(void *handle, ck_device_batch *batch);
  ck_status (*tell_device)(void *handle, const ck_device_batch *batch);
} optimiser;

/* The calls of ck_<kind> over a handle of no type, for the table. */
#define CALLS(kind)                                                            \
  static ck_status kind##_ask(void *handle, double *x) {                       \
    return ck_##kind##_ask(handle, x);                                         \
  }                                                                            \
  static ck_status kind##_tell(void *handle, const double *f) {                \
    return ck_##kind##_tell(handle, f);                                        \
  }                                                                            \
  static ck_status kind##_best(void *handle, double *value,                    \
                               double *position) {                             \
    return ck_##kind##_get_best(handle, value, position);                      \
  }                                                                            \
  static void kind##_destroy(void *handle) {                                   \
    ck_##kind##_destroy(handle);                                               \
  }                                                                            \
  static ck_status kind##_ask_device(void *handle, ck_device_batch *batch) {   \
    return ck_##kind##_ask_device(handle, batch);                              \
  }                                                                            \
  static ck_status kind##_tell_device(void *handle,                            \
                                      const ck_device_batch *batch) {          \
    return ck_##kind##_tell_device(handle, batch);                             \
  }
CALLS(pso)
CALLS(ga)

static const optimiser pso_optimiser = {
    "clkit.pso.PSO", pso_ask,        pso_tell,       pso_best,
    pso_destroy,     pso_ask_device, pso_tell_device};
static const optimiser ga_optimiser = {"clkit.ga.GA", ga_ask,     ga_tell,
                                       ga_best,       ga_destroy, ga_ask_device,
                                       ga_tell_device};

typedef struct asktell {
  PyObject_HEAD const optimiser *kind;
  void *handle;         /* a ck_pso or a ck_ga; NULL once closed */
  size_t rows;          /* positions an ask gives */
  size_t islands;       /* a GA's islands; 0 for a PSO */
  int dim;              /* values a position holds */
  int double_precision; /* 1: the device computes in double */
  int busy;             /* a call is using handle without the GIL */
  /* Positions handed out by ask_device: the last ask's batch and array,
   * the values of the last tell_device, the arrays in device memory
   * alive (each keeps this object), and a handle closed while some were,
   * destroyed with the last of them. Off CUDA devices the arrays are
   * copies in blocks, which they keep themselves. */
  ck_device_batch batch;
  PyObject *current;
  ck_py_values values;
  Py_ssize_t arrays;
  void *kept;
  ck_py_blocks blocks;
} asktell;

static PyTypeObject asktell_type;

static void destroy_kept(asktell *self) {
  ck_py_values_free(&self->values);
  if (self->kept)
    self->kind->destroy(self->kept);
  self->kept = NULL;
}

static void asktell_dealloc(PyObject *object) {
  asktell *self = (asktell *)object;
  Py_CLEAR(self->current);
  ck_py_blocks_clear(&self->blocks);
  destroy_kept(self);
  if (self->handle)
    self->kind->destroy(self->handle);
  Py_TYPE(object)->tp_free(object);
}

/* A DeviceArray of this optimiser freed: the last one takes a closed
 * handle with it. */
static void array_freed(PyObject *owner) {
  asktell *self = (asktell *)owner;
  if (--self->arrays == 0 && self->kept)
    destroy_kept(self);
}

/* The handle, taken for a call without the GIL; NULL with an exception
 * set once closed or while another thread uses it. */
static void *take(asktell *self) {
  if (!self->handle) {
    char message[64];
    snprintf(message, sizeof message, "the %s is closed", self->kind->name);
    ck_py_raise_message(CK_ERROR_INVALID_ARGUMENT, 1, message);
    return NULL;
  }
  return ck_py_take(&self->busy, "optimiser") == 0 ? self->handle : NULL;
}

/* A C-contiguous float64 buffer of `count` values (writable where asked),
 * named in messages; 0, or -1 with an exception set (released). */
static int borrow(PyObject *object, Py_buffer *view, size_t count, int writable,
                  const char *name) {
  int flags =
      PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(object, view, flags) != 0)
    return -1;
  const char *format = view->format ? view->format : "B";
  if (*format == '<' || *format == '=' || *format == '@')
    ++format;
  if (strcmp(format, "d") != 0 ||
      view->len != (Py_ssize_t)(count * sizeof(double))) {
    PyErr_Format(PyExc_ValueError, "%s must be %zu float64 values", name,
                 count);
    PyBuffer_Release(view);
    return -1;
  }
  return 0;
}

/* A bound of `given` values spread over dim into out (one for every
 * dimension, or one a dimension); 0, or -1 with ArgumentError set. */
static int spread_bound(const Py_buffer *view, const char *name, int dim,
                        double *out) {
  size_t given = (size_t)view->len / sizeof(double);
  const double *values = view->buf;
  if (given != 1 && given != (size_t)dim) {
    char message[128];
    snprintf(message, sizeof message,
             "%s has %zu values for %d dimensions; give one, or one a "
             "dimension",
             name, given, dim);
    ck_py_raise_message(CK_ERROR_INVALID_ARGUMENT, 1, message);
    return -1;
  }
  for (int d = 0; d < dim; ++d)
    out[d] = values[given == 1 ? 0 : d];
  return 0;
}

/* The view of a float64 bound of any length; 0, or -1 with an exception
 * set. */
static int borrow_bound(PyObject *object, Py_buffer *view, const char *name) {
  if (PyObject_GetBuffer(object, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
    return -1;
  const char *format = view->format ? view->format : "B";
  if (*format == '<' || *format == '=' || *format == '@')
    ++format;
  if (strcmp(format, "d") == 0 && view->len > 0)
    return 0;
  PyErr_Format(PyExc_ValueError, "%s must be float64 values", name);
  PyBuffer_Release(view);
  return -1;
}

/* Either optimiser's configuration, read from the command's options. */
typedef struct settings {
  const optimiser *kind;
  ck_pso_config pso; /* for pso_optimiser */
  ck_ga_config ga;   /* for ga_optimiser */
} settings;

static ck_status read_settings(const char *workload, const ck_param *params,
                               size_t count, settings *out) {
  if (strcmp(workload, "pso") == 0) {
    out->kind = &pso_optimiser;
    return ck_pso_config_read(params, count, &out->pso);
  }
  out->kind = &ga_optimiser;
  return ck_ga_config_read(params, count, &out->ga);
}

/* What makes either configuration one of ask/tell over the caller's
 * domain (dim values of lo, then dim of hi) and seed (NULL: the
 * default). */
#define ASK_TELL(config, domain, seed)                                         \
  do {                                                                         \
    (config).function = NULL;                                                  \
    (config).ask_tell = 1;                                                     \
    (config).lo = (domain);                                                    \
    (config).hi = (domain) + (config).dim;                                     \
    if (seed)                                                                  \
      (config).seed = *(seed);                                                 \
  } while (0)

/* Creates the optimiser of the settings into made; CK_OK or the library's
 * status. */
static ck_status create(settings *read, const ck_device *device,
                        const double *domain, const uint64_t *seed,
                        asktell *made) {
  ck_status status;
  *made = (asktell){.kind = read->kind};
  if (read->kind == &pso_optimiser) {
    ck_pso *pso = NULL;
    ASK_TELL(read->pso, domain, seed);
    status = ck_pso_create(device, &read->pso, &pso);
    made->handle = pso;
    made->rows = read->pso.particles;
    made->dim = read->pso.dim;
    made->double_precision = read->pso.double_precision != 0;
  } else {
    ck_ga *ga = NULL;
    ASK_TELL(read->ga, domain, seed);
    status = ck_ga_create(device, &read->ga, &ga);
    made->handle = ga;
    made->rows = read->ga.islands * read->ga.island_size;
    made->islands = read->ga.islands;
    made->dim = read->ga.dim;
    made->double_precision = read->ga.double_precision != 0;
  }
  return status;
}

/* _clkit.asktell_create(workload, device, options, lo, hi, seed=None,
 * session=None) -> AskTell: workload "pso" or "ga"; options the
 * command's (name, value) pairs of the optimiser's settings; lo and hi
 * float64 arrays of one value or one a dimension. */
static PyObject *py_asktell_create(PyObject *module, PyObject *args) {
  (void)module;
  const char *workload, *selector;
  PyObject *list, *lo_object, *hi_object, *seed_object = Py_None,
                                          *session = Py_None;
  if (!PyArg_ParseTuple(args, "szOOO|OO", &workload, &selector, &list,
                        &lo_object, &hi_object, &seed_object, &session))
    return NULL;
  if (strcmp(workload, "pso") != 0 && strcmp(workload, "ga") != 0)
    return PyErr_Format(PyExc_ValueError,
                        "asktell_create: workload must be pso or ga, not %s",
                        workload);
  uint64_t seed = 0;
  ck_device device;
  ck_param *params = NULL;
  size_t count = 0;
  if ((seed_object != Py_None && ck_py_seed(seed_object, &seed) != 0) ||
      ck_py_device_of(session, selector, &device) != 0 ||
      ck_py_params(list, &params, &count) != 0)
    return NULL;
  PyObject *result = NULL;
  double *domain = NULL;
  Py_buffer lo_view = {0}, hi_view = {0};
  settings read;
  ck_status status = read_settings(workload, params, count, &read);
  if (status != CK_OK) {
    ck_py_raise(status, 1);
    goto done;
  }
  int dim = read.kind == &pso_optimiser ? read.pso.dim : read.ga.dim;
  if (borrow_bound(lo_object, &lo_view, "lo") != 0)
    goto done;
  if (borrow_bound(hi_object, &hi_view, "hi") != 0)
    goto done;
  domain = PyMem_Malloc(2 * (size_t)dim * sizeof *domain);
  if (!domain) {
    PyErr_NoMemory();
    goto done;
  }
  if (spread_bound(&lo_view, "lo", dim, domain) != 0 ||
      spread_bound(&hi_view, "hi", dim, domain + dim) != 0)
    goto done;
  asktell made;
  Py_BEGIN_ALLOW_THREADS;
  status = create(&read, &device, domain, seed_object != Py_None ? &seed : NULL,
                  &made);
  Py_END_ALLOW_THREADS;
  if (status != CK_OK) {
    ck_py_raise(status, 0);
    goto done;
  }
  asktell *self = PyObject_New(asktell, &asktell_type);
  if (!self) {
    made.kind->destroy(made.handle);
    goto done;
  }
  self->kind = made.kind;
  self->handle = made.handle;
  self->rows = made.rows;
  self->islands = made.islands;
  self->dim = made.dim;
  self->double_precision = made.double_precision;
  self->busy = 0;
  self->batch = (ck_device_batch){0};
  self->current = NULL;
  self->values = (ck_py_values){0};
  self->arrays = 0;
  self->kept = NULL;
  self->blocks = (ck_py_blocks){{NULL}};
  result = (PyObject *)self;
done:
  if (lo_view.obj)
    PyBuffer_Release(&lo_view);
  if (hi_view.obj)
    PyBuffer_Release(&hi_view);
  PyMem_Free(domain);
  PyMem_Free(params);
  return result;
}

/* 0 when no value lies below the least real of the precision (-inf
 * among them), else -1 with ArgumentError set naming the first: a
 * minimum no run of clkit can report. */
static int refuse_least(const asktell *self, const double *f) {
  int single = !self->double_precision;
  double least = single ? -FLT_MAX : -DBL_MAX;
  size_t i = 0;
  while (i < self->rows && !(f[i] < least))
    ++i;
  if (i == self->rows)
    return 0;
  char message[320];
  snprintf(message, sizeof message,
           "value %zu is %g: -inf, or a value below %g, the least a "
           "%s-precision %s holds, is a minimum clkit cannot report; bound "
           "the objective from below%s",
           i, f[i], least, single ? "single" : "double", self->kind->name,
           single ? " or use precision=\"double\"" : "");
  ck_py_raise_message(CK_ERROR_INVALID_ARGUMENT, 1, message);
  return -1;
}

/* An ask into array (asking) or a tell from it, with the GIL released:
 * None, or NULL with an exception set. */
static PyObject *exchange(asktell *self, PyObject *array, int asking) {
  Py_buffer view;
  void *handle = take(self);
  if (!handle)
    return NULL;
  size_t count = asking ? self->rows * (size_t)self->dim : self->rows;
  if (borrow(array, &view, count, asking, asking ? "out" : "values") != 0) {
    self->busy = 0;
    return NULL;
  }
  ck_status status = CK_OK;
  int refused = !asking && refuse_least(self, view.buf) != 0;
  if (!refused) {
    Py_BEGIN_ALLOW_THREADS;
    status = asking ? self->kind->ask(handle, view.buf)
                    : self->kind->tell(handle, view.buf);
    Py_END_ALLOW_THREADS;
  }
  PyBuffer_Release(&view);
  self->busy = 0;
  if (refused)
    return NULL;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  Py_RETURN_NONE;
}

/* AskTell.ask(out): the positions to evaluate into out, a writable
 * (rows, dim) float64 array. */
static PyObject *asktell_ask(PyObject *object, PyObject *out) {
  return exchange((asktell *)object, out, 1);
}

/* AskTell.tell(values): the values of the positions asked, rows float64
 * values in their order. */
static PyObject *asktell_tell(PyObject *object, PyObject *values) {
  return exchange((asktell *)object, values, 0);
}

/* AskTell.ask_device() -> DeviceArray: the positions to evaluate where
 * the device keeps them (off CUDA, a host copy in a block of Python's),
 * giving views until the next tell. */
static PyObject *asktell_ask_device(PyObject *object, PyObject *unused) {
  (void)unused;
  asktell *self = (asktell *)object;
  void *handle = take(self);
  if (!handle)
    return NULL;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = self->kind->ask_device(handle, &self->batch);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  int in_device = !self->batch.x_on_host;
  PyObject *array = ck_py_device_array_new(&self->batch, &self->blocks,
                                           in_device ? object : NULL,
                                           in_device ? array_freed : NULL);
  if (!array)
    return NULL;
  self->arrays += in_device;
  Py_XSETREF(self->current, Py_NewRef(array));
  return array;
}

/* AskTell.tell_device(values): the values of the positions ask_device
 * gave, a CUDA array (through DLPack) or host values. */
static PyObject *asktell_tell_device(PyObject *object, PyObject *values) {
  asktell *self = (asktell *)object;
  if (!self->current)
    return ck_py_raise_message(CK_ERROR_INVALID_ARGUMENT, 1,
                               "tell_device: ask_device first");
  void *handle = take(self);
  if (!handle)
    return NULL;
  if (ck_py_values_take(&self->values, values, &self->batch) != 0) {
    self->busy = 0;
    return NULL;
  }
  /* The rule of tell, for values on the host and on a CUDA device alike:
   * those read into host memory (copied from the device, once they are
   * ready) are checked before the optimiser takes them. */
  double *f = PyMem_Malloc(self->rows * sizeof *f);
  if (!f) {
    self->busy = 0;
    return PyErr_NoMemory();
  }
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = ck_device_batch_read_values(&self->batch, f);
  Py_END_ALLOW_THREADS;
  int refused = status == CK_OK && refuse_least(self, f) != 0;
  PyMem_Free(f);
  if (status != CK_OK || refused) {
    self->busy = 0;
    return refused ? NULL : ck_py_raise(status, 0);
  }
  /* The positions move: the array gives no new views. */
  ck_py_device_array_end(self->current);
  Py_BEGIN_ALLOW_THREADS;
  status = self->kind->tell_device(handle, &self->batch);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  Py_RETURN_NONE;
}

/* AskTell.best() -> (value, bytearray of dim float64 values). */
static PyObject *asktell_best(PyObject *object, PyObject *unused) {
  (void)unused;
  asktell *self = (asktell *)object;
  void *handle = take(self);
  if (!handle)
    return NULL;
  PyObject *position = PyByteArray_FromStringAndSize(
      NULL, (Py_ssize_t)((size_t)self->dim * sizeof(double)));
  if (!position) {
    self->busy = 0;
    return NULL;
  }
  double *x = (double *)PyByteArray_AS_STRING(position), value = 0;
  ck_status status;
  Py_BEGIN_ALLOW_THREADS;
  status = self->kind->best(handle, &value, x);
  Py_END_ALLOW_THREADS;
  self->busy = 0;
  if (status != CK_OK) {
    Py_DECREF(position);
    return ck_py_raise(status, 0);
  }
  return Py_BuildValue("(dN)", value, position);
}

/* An optimiser's state as get_state and set_state move it: its arrays
 * (in its state struct's order), the best value, the tells, the
 * migrations (GA) and the seed. */
enum { STATE_ARRAYS = 5 };
typedef struct state_values {
  double *arrays[STATE_ARRAYS];
  double best_value;
  uint64_t tells, migrations, seed;
} state_values;

/* How long a state's array is. */
typedef enum state_length {
  ROWS_DIM,    /* a position a row */
  ROWS,        /* a value a row */
  DIM,         /* one position */
  ISLANDS_DIM, /* a position an island (GA) */
  ISLANDS      /* a value an island (GA) */
} state_length;

/* An optimiser's state: its arrays' names and lengths, the best value's
 * name, whether it counts migrations, and the calls that read and set
 * it. */
typedef struct state_layout {
  const char *names[STATE_ARRAYS];
  state_length lengths[STATE_ARRAYS];
  const char *best_name;
  int migrations;
  ck_status (*get)(void *handle, state_values *values);
  ck_status (*set)(void *handle, const state_values *values);
} state_layout;

/* The arrays in ck_pso_state's order, and in ck_ga_state's. */
static ck_pso_state pso_state_over(double *const *a) {
  return (ck_pso_state){.positions = a[0],
                        .velocities = a[1],
                        .best_positions = a[2],
                        .best_values = a[3],
                        .global_best = a[4]};
}

static ck_ga_state ga_state_over(double *const *a) {
  return (ck_ga_state){.population = a[0],
                       .fitness = a[1],
                       .island_best = a[2],
                       .island_best_genes = a[3],
                       .best_genes = a[4]};
}

static ck_status pso_get_state(void *handle, state_values *values) {
  ck_pso_state state = pso_state_over(values->arrays);
  ck_status status = ck_pso_get_state(handle, &state);
  values->best_value = state.global_best_value;
  values->tells = state.tells;
  values->seed = state.seed;
  return status;
}

static ck_status pso_set_state(void *handle, const state_values *values) {
  ck_pso_state state = pso_state_over(values->arrays);
  state.global_best_value = values->best_value;
  state.tells = values->tells;
  state.seed = values->seed;
  return ck_pso_set_state(handle, &state);
}

static ck_status ga_get_state(void *handle, state_values *values) {
  ck_ga_state state = ga_state_over(values->arrays);
  ck_status status = ck_ga_get_state(handle, &state);
  values->best_value = state.best_value;
  values->tells = state.tells;
  values->migrations = state.migrations;
  values->seed = state.seed;
  return status;
}

static ck_status ga_set_state(void *handle, const state_values *values) {
  ck_ga_state state = ga_state_over(values->arrays);
  state.best_value = values->best_value;
  state.tells = values->tells;
  state.migrations = values->migrations;
  state.seed = values->seed;
  return ck_ga_set_state(handle, &state);
}

static const state_layout pso_layout = {
    {"positions", "velocities", "best_positions", "best_values", "global_best"},
    {ROWS_DIM, ROWS_DIM, ROWS_DIM, ROWS, DIM},
    "global_best_value",
    0,
    pso_get_state,
    pso_set_state};
static const state_layout ga_layout = {
    {"population", "fitness", "island_best", "island_best_genes", "best_genes"},
    {ROWS_DIM, ROWS, ISLANDS, ISLANDS_DIM, DIM},
    "best_value",
    1,
    ga_get_state,
    ga_set_state};

static const state_layout *layout_of(const asktell *self) {
  return self->kind == &pso_optimiser ? &pso_layout : &ga_layout;
}

static size_t state_count(const asktell *self, state_length length) {
  size_t dim = (size_t)self->dim;
  switch (length) {
  case ROWS_DIM:
    return self->rows * dim;
  case ROWS:
    return self->rows;
  case DIM:
    return dim;
  case ISLANDS_DIM:
    return self->islands * dim;
  default:
    return self->islands;
  }
}

/* Sets dict[key] to a new reference to value, then drops it; 0, or -1
 * with an exception set. */
static int put(PyObject *dict, const char *key, PyObject *value) {
  int failed = !value || PyDict_SetItemString(dict, key, value) != 0;
  Py_XDECREF(value);
  return failed ? -1 : 0;
}

/* AskTell.get_state() -> dict: the state's arrays by name as bytearrays
 * of float64 values; the best value by its name (PSO: global_best_value,
 * GA: best_value), tells, migrations (GA) and seed. */
static PyObject *asktell_get_state(PyObject *object, PyObject *unused) {
  (void)unused;
  asktell *self = (asktell *)object;
  const state_layout *layout = layout_of(self);
  void *handle = take(self);
  if (!handle)
    return NULL;
  PyObject *dict = PyDict_New(), *bytes[STATE_ARRAYS] = {NULL};
  state_values values = {0};
  int failed = !dict;
  for (int i = 0; !failed && i < STATE_ARRAYS; ++i) {
    size_t count = state_count(self, layout->lengths[i]);
    bytes[i] = PyByteArray_FromStringAndSize(
        NULL, (Py_ssize_t)(count * sizeof(double)));
    failed =
        !bytes[i] || PyDict_SetItemString(dict, layout->names[i], bytes[i]);
    if (!failed)
      values.arrays[i] = (double *)PyByteArray_AS_STRING(bytes[i]);
  }
  ck_status status = CK_OK;
  if (!failed) {
    Py_BEGIN_ALLOW_THREADS;
    status = layout->get(handle, &values);
    Py_END_ALLOW_THREADS;
  }
  self->busy = 0;
  for (int i = 0; i < STATE_ARRAYS; ++i)
    Py_XDECREF(bytes[i]);
  if (!failed && status != CK_OK)
    ck_py_raise(status, 0);
  if (failed || status != CK_OK) {
    Py_XDECREF(dict);
    return NULL;
  }
  if (put(dict, layout->best_name, PyFloat_FromDouble(values.best_value)) ||
      put(dict, "tells", PyLong_FromUnsignedLongLong(values.tells)) ||
      (layout->migrations &&
       put(dict, "migrations",
           PyLong_FromUnsignedLongLong(values.migrations))) ||
      put(dict, "seed", PyLong_FromUnsignedLongLong(values.seed)))
    Py_CLEAR(dict);
  return dict;
}

/* The unsigned 64-bit integer dict[key] into *out; 0, or -1 with an
 * exception set. */
static int get_u64(PyObject *dict, const char *key, uint64_t *out) {
  PyObject *value = PyDict_GetItemString(dict, key);
  if (!value) {
    PyErr_Format(PyExc_KeyError, "set_state: the state lacks %s", key);
    return -1;
  }
  unsigned long long read = PyLong_AsUnsignedLongLong(value);
  if (read == (unsigned long long)-1 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError))
      return -1;
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError,
                 "set_state: %s must be a whole number from 0 to 2^64 - 1",
                 key);
    return -1;
  }
  *out = read;
  return 0;
}

/* AskTell.set_state(state): a dict as get_state gives it, its arrays
 * float64 buffers of the lengths get_state gives. */
static PyObject *asktell_set_state(PyObject *object, PyObject *dict) {
  asktell *self = (asktell *)object;
  const state_layout *layout = layout_of(self);
  if (!PyDict_Check(dict))
    return PyErr_Format(PyExc_TypeError, "set_state: the state must be a dict");
  state_values values = {0};
  PyObject *best = PyDict_GetItemString(dict, layout->best_name);
  PyObject *seed_object = PyDict_GetItemString(dict, "seed");
  if (!best || !seed_object)
    return PyErr_Format(PyExc_KeyError, "set_state: the state lacks %s",
                        best ? "seed" : layout->best_name);
  values.best_value = PyFloat_AsDouble(best);
  if ((values.best_value == -1.0 && PyErr_Occurred()) ||
      get_u64(dict, "tells", &values.tells) != 0 ||
      (layout->migrations &&
       get_u64(dict, "migrations", &values.migrations) != 0) ||
      ck_py_seed(seed_object, &values.seed) != 0)
    return NULL;
  PyObject *given[STATE_ARRAYS];
  for (int i = 0; i < STATE_ARRAYS; ++i)
    if (!(given[i] = PyDict_GetItemString(dict, layout->names[i])))
      return PyErr_Format(PyExc_KeyError, "set_state: the state lacks %s",
                          layout->names[i]);
  void *handle = take(self);
  if (!handle)
    return NULL;
  Py_buffer views[STATE_ARRAYS];
  int borrowed = 0;
  while (borrowed < STATE_ARRAYS &&
         borrow(given[borrowed], &views[borrowed],
                state_count(self, layout->lengths[borrowed]), 0,
                layout->names[borrowed]) == 0) {
    values.arrays[borrowed] = views[borrowed].buf;
    ++borrowed;
  }
  ck_status status = CK_OK;
  if (borrowed == STATE_ARRAYS) {
    Py_BEGIN_ALLOW_THREADS;
    status = layout->set(handle, &values);
    Py_END_ALLOW_THREADS;
  }
  for (int i = 0; i < borrowed; ++i)
    PyBuffer_Release(&views[i]);
  self->busy = 0;
  if (borrowed < STATE_ARRAYS)
    return NULL;
  if (status != CK_OK)
    return ck_py_raise(status, 0);
  Py_RETURN_NONE;
}

/* AskTell.check(values): rows float64 values, refused (ArgumentError)
 * where tell would refuse them. */
static PyObject *asktell_check(PyObject *object, PyObject *values) {
  asktell *self = (asktell *)object;
  Py_buffer view;
  if (borrow(values, &view, self->rows, 0, "values") != 0)
    return NULL;
  int refused = refuse_least(self, view.buf) != 0;
  PyBuffer_Release(&view);
  if (refused)
    return NULL;
  Py_RETURN_NONE;
}

/* AskTell.close(): releases the optimiser; again, nothing. */
static PyObject *asktell_close(PyObject *object, PyObject *unused) {
  (void)unused;
  asktell *self = (asktell *)object;
  if (!self->handle)
    Py_RETURN_NONE;
  if (ck_py_take(&self->busy, "optimiser") != 0)
    return NULL;
  void *handle = self->handle;
  self->handle = NULL;
  /* Views of the positions that their consumers still hold keep the
   * device memory until the last goes (host copies keep their blocks). */
  Py_CLEAR(self->current);
  ck_py_blocks_clear(&self->blocks);
  if (self->arrays > 0) {
    self->kept = handle;
    self->busy = 0;
    Py_RETURN_NONE;
  }
  Py_BEGIN_ALLOW_THREADS;
  self->kind->destroy(handle);
  Py_END_ALLOW_THREADS;
  ck_py_values_free(&self->values);
  self->busy = 0;
  Py_RETURN_NONE;
}

static PyObject *asktell_rows(PyObject *object, void *unused) {
  (void)unused;
  return PyLong_FromSize_t(((asktell *)object)->rows);
}

static PyObject *asktell_dim(PyObject *object, void *unused) {
  (void)unused;
  return PyLong_FromLong(((asktell *)object)->dim);
}

static PyObject *asktell_islands(PyObject *object, void *unused) {
  (void)unused;
  return PyLong_FromSize_t(((asktell *)object)->islands);
}

static PyObject *asktell_double(PyObject *object, void *unused) {
  (void)unused;
  return PyBool_FromLong(((asktell *)object)->double_precision);
}

static PyObject *asktell_closed(PyObject *object, void *unused) {
  (void)unused;
  return PyBool_FromLong(((asktell *)object)->handle == NULL);
}

static PyMethodDef asktell_methods[] = {
    {"ask", asktell_ask, METH_O, "ask(out): the positions to evaluate"},
    {"tell", asktell_tell, METH_O, "tell(values): their values"},
    {"best", asktell_best, METH_NOARGS,
     "best() -> (value, bytearray of the position)"},
    {"get_state", asktell_get_state, METH_NOARGS,
     "get_state() -> dict of the swarm's or the GA's state"},
    {"set_state", asktell_set_state, METH_O,
     "set_state(state): a dict as get_state() gives it"},
    {"ask_device", asktell_ask_device, METH_NOARGS,
     "ask_device() -> DeviceArray: the positions where the device keeps "
     "them (off CUDA, a host copy)"},
    {"tell_device", asktell_tell_device, METH_O,
     "tell_device(values): their values, on the device or the host"},
    {"check", asktell_check, METH_O,
     "check(values): refuse values as tell(values) would"},
    {"close", asktell_close, METH_NOARGS, "close(): release the optimiser"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef asktell_getset[] = {
    {"rows", asktell_rows, NULL, "positions an ask gives", NULL},
    {"dim", asktell_dim, NULL, "values a position holds", NULL},
    {"islands", asktell_islands, NULL, "a GA's islands; 0 for a PSO", NULL},
    {"double_precision", asktell_double, NULL,
     "whether the device computes in double", NULL},
    {"closed", asktell_closed, NULL, "whether close() was called", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject asktell_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "clkit._clkit.AskTell",
    .tp_basicsize = sizeof(asktell),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = asktell_dealloc,
    .tp_methods = asktell_methods,
    .tp_getset = asktell_getset,
    .tp_doc = "an optimiser driven by ask and tell (use clkit.pso.PSO or "
              "clkit.ga.GA)",
    .tp_new = NULL,
};

PyMethodDef ck_py_asktell_methods[] = {
    {"asktell_create", py_asktell_create, METH_VARARGS,
     "asktell_create(workload, device, options, lo, hi, seed=None, "
     "session=None) -> AskTell"},
    {NULL, NULL, 0, NULL}};

int ck_py_asktell_ready(PyObject *module) {
  if (PyType_Ready(&asktell_type) != 0)
    return -1;
  return PyModule_AddObjectRef(module, "AskTell", (PyObject *)&asktell_type);
}
