/*
 * cuda_libraries.c - NVRTC and cuBLAS, opened when first called rather
 * than linked. Loading libcublas (with libcublasLt) and libnvrtc at start
 * costs about 190 MB of resident memory, which every command would pay,
 * `clkit tsp info` on 48 cities too.
 *
 * Each function that clkit calls is defined here under its own name,
 * hidden inside the library, and passes the call on. The first call of a
 * library's functions opens it (dlopen, whose search takes in libclkit's
 * run path, the toolkit's lib64) and looks all of them up. Where that fails,
 * every call returns the library's own error code, and its error-string
 * function says what could not be loaded.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* Hidden, to the end of the file: the calls from queue_cuda.c and
 * nn_cuda.c bind to these within libclkit, and the libraries, once open,
 * never see them. */
#pragma GCC visibility push(hidden)
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

/* The functions passed on, X(type, name, parameters, arguments), but
 * for each library's error string, which is defined apart. */
#define CUBLAS_FUNCTIONS(X)                                                    \
  X(cublasStatus_t, cublasCreate_v2, (cublasHandle_t * handle), (handle))      \
  X(cublasStatus_t, cublasDestroy_v2, (cublasHandle_t handle), (handle))       \
  X(cublasStatus_t, cublasSetStream_v2,                                        \
    (cublasHandle_t handle, cudaStream_t stream), (handle, stream))            \
  X(cublasStatus_t, cublasSetMathMode,                                         \
    (cublasHandle_t handle, cublasMath_t mode), (handle, mode))                \
  X(cublasStatus_t, cublasSetWorkspace_v2,                                     \
    (cublasHandle_t handle, void *workspace, size_t size),                     \
    (handle, workspace, size))                                                 \
  X(cublasStatus_t, cublasSgemm_v2,                                            \
    (cublasHandle_t handle, cublasOperation_t a_op, cublasOperation_t b_op,    \
     int m, int n, int k, const float *alpha, const float *a, int lda,         \
     const float *b, int ldb, const float *beta, float *c, int ldc),           \
    (handle, a_op, b_op, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))        \
  X(cublasStatus_t, cublasSgemv_v2,                                            \
    (cublasHandle_t handle, cublasOperation_t op, int m, int n,                \
     const float *alpha, const float *a, int lda, const float *x, int incx,    \
     const float *beta, float *y, int incy),                                   \
    (handle, op, m, n, alpha, a, lda, x, incx, beta, y, incy))

#define NVRTC_FUNCTIONS(X)                                                     \
  X(nvrtcResult, nvrtcVersion, (int *major, int *minor), (major, minor))       \
  X(nvrtcResult, nvrtcGetNumSupportedArchs, (int *count), (count))             \
  X(nvrtcResult, nvrtcGetSupportedArchs, (int *architectures),                 \
    (architectures))                                                           \
  X(nvrtcResult, nvrtcCreateProgram,                                           \
    (nvrtcProgram * program, const char *source, const char *name,             \
     int header_count, const char *const *headers,                             \
     const char *const *include_names),                                        \
    (program, source, name, header_count, headers, include_names))             \
  X(nvrtcResult, nvrtcCompileProgram,                                          \
    (nvrtcProgram program, int option_count, const char *const *options),      \
    (program, option_count, options))                                          \
  X(nvrtcResult, nvrtcGetProgramLogSize,                                       \
    (nvrtcProgram program, size_t * size), (program, size))                    \
  X(nvrtcResult, nvrtcGetProgramLog, (nvrtcProgram program, char *log),        \
    (program, log))                                                            \
  X(nvrtcResult, nvrtcGetPTXSize, (nvrtcProgram program, size_t * size),       \
    (program, size))                                                           \
  X(nvrtcResult, nvrtcGetPTX, (nvrtcProgram program, char *ptx),               \
    (program, ptx))                                                            \
  X(nvrtcResult, nvrtcGetCUBINSize, (nvrtcProgram program, size_t * size),     \
    (program, size))                                                           \
  X(nvrtcResult, nvrtcGetCUBIN, (nvrtcProgram program, char *cubin),           \
    (program, cubin))                                                          \
  X(nvrtcResult, nvrtcDestroyProgram, (nvrtcProgram * program), (program))

/* A library to open: its file names, the outcome, and why it failed. */
typedef struct library {
  const char *names[2]; /* tried in turn */
  pthread_once_t once;
  int ready;
  char why[600];
} library;

/* Opens the first of the library's names that loads and looks up count
 * symbols into addresses; sets ready, or why. */
static void open_library(library *lib, const char *const *symbols,
                         void **addresses, size_t count) {
  void *handle = dlopen(lib->names[0], RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    /* The versioned name's reason is the one to give. */
    const char *error = dlerror();
    snprintf(lib->why, sizeof lib->why, "%s cannot be loaded: %s",
             lib->names[0], error ? error : "no reason given");
    handle = dlopen(lib->names[1], RTLD_NOW | RTLD_LOCAL);
  }
  if (!handle)
    return;
  for (size_t i = 0; i < count; ++i)
    if (!(addresses[i] = dlsym(handle, symbols[i]))) {
      snprintf(lib->why, sizeof lib->why, "%s lacks %s", lib->names[0],
               symbols[i]);
      dlclose(handle);
      return;
    }
  lib->ready = 1;
}

/* Each library's file names: its soname for this toolkit's major version,
 * then the unversioned name the toolkit links against. */
#define STRINGIFY2(x) #x
#define STRINGIFY(x) STRINGIFY2(x)
static library cublas = {
    {"libcublas.so." STRINGIFY(CUBLAS_VER_MAJOR), "libcublas.so"},
    PTHREAD_ONCE_INIT,
    0,
    ""};
static char nvrtc_soname[32];
static library nvrtc = {
    {nvrtc_soname, "libnvrtc.so"}, PTHREAD_ONCE_INIT, 0, ""};

/* The addresses looked up, a pointer a function. */
#define DECLARE_POINTER(type, name, parameters, arguments)                     \
  static type(*pass_##name) parameters;
CUBLAS_FUNCTIONS(DECLARE_POINTER)
NVRTC_FUNCTIONS(DECLARE_POINTER)
static const char *(*pass_cublasGetStatusString)(cublasStatus_t);
static const char *(*pass_nvrtcGetErrorString)(nvrtcResult);

#define NAME_OF(type, name, parameters, arguments) #name,
#define ADDRESS_OF(type, name, parameters, arguments) (void **)&pass_##name,

/* Looks the symbols up into found, then sets the pointers when all are
 * there, so that none is set while another is missing. */
static void open_into(library *lib, const char *const *symbols,
                      void **const *addresses, size_t count) {
  void *found[32];
  open_library(lib, symbols, found, count);
  for (size_t i = 0; lib->ready && i < count; ++i)
    *addresses[i] = found[i];
}

/* Each library's functions, its error string last. */
static void open_cublas(void) {
  static const char *const symbols[] = {
      CUBLAS_FUNCTIONS(NAME_OF) NAME_OF(, cublasGetStatusString, , )};
  _Static_assert(sizeof symbols / sizeof *symbols <= 32, "see open_into");
  void **const addresses[] = {CUBLAS_FUNCTIONS(ADDRESS_OF)
                                  ADDRESS_OF(, cublasGetStatusString, , )};
  open_into(&cublas, symbols, addresses, sizeof symbols / sizeof *symbols);
}

static void open_nvrtc(void) {
  static const char *const symbols[] = {NVRTC_FUNCTIONS(NAME_OF)
                                            NAME_OF(, nvrtcGetErrorString, , )};
  _Static_assert(sizeof symbols / sizeof *symbols <= 32, "see open_into");
  void **const addresses[] = {NVRTC_FUNCTIONS(ADDRESS_OF)
                                  ADDRESS_OF(, nvrtcGetErrorString, , )};
  /* NVRTC's soname carries the toolkit's major version. */
  snprintf(nvrtc_soname, sizeof nvrtc_soname, "libnvrtc.so.%d",
           CUDART_VERSION / 1000);
  open_into(&nvrtc, symbols, addresses, sizeof symbols / sizeof *symbols);
}

/* Whether the library is open, opening it on the first call. */
static int cublas_ready(void) {
  pthread_once(&cublas.once, open_cublas);
  return cublas.ready;
}

static int nvrtc_ready(void) {
  pthread_once(&nvrtc.once, open_nvrtc);
  return nvrtc.ready;
}

#define PASS_CUBLAS(type, name, parameters, arguments)                         \
  type name parameters {                                                       \
    return cublas_ready() ? pass_##name arguments                              \
                          : CUBLAS_STATUS_NOT_INITIALIZED;                     \
  }
#define PASS_NVRTC(type, name, parameters, arguments)                          \
  type name parameters {                                                       \
    return nvrtc_ready() ? pass_##name arguments : NVRTC_ERROR_INTERNAL_ERROR; \
  }
CUBLAS_FUNCTIONS(PASS_CUBLAS)
NVRTC_FUNCTIONS(PASS_NVRTC)

/* A failure to load is the reason every call failed: said in its stead. */
const char *cublasGetStatusString(cublasStatus_t status) {
  return cublas_ready() ? pass_cublasGetStatusString(status) : cublas.why;
}

const char *nvrtcGetErrorString(nvrtcResult result) {
  return nvrtc_ready() ? pass_nvrtcGetErrorString(result) : nvrtc.why;
}

#pragma GCC visibility pop
