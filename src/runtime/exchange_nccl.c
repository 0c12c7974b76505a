/*
 * exchange_nccl.c - sums of device buffers through NCCL, where every
 * member of a spread run is a CUDA device: GPU to GPU over NVLink or
 * PCIe, with no copy through host memory (exchange.c decides when).
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>
#include <pthread.h>
#include <stdlib.h>

#include "runtime/backend.h"
#include "runtime/exchange_nccl.h"
#include "runtime/runtime.h"

/* NCCL is opened on first use, not linked: a run that never sums device
 * buffers should not load it. X(type, name, parameters). */
#define NCCL_FUNCTIONS(X)                                                      \
  X(ncclResult_t, ncclGetUniqueId, (ncclUniqueId *))                           \
  X(ncclResult_t, ncclCommInitRank, (ncclComm_t *, int, ncclUniqueId, int))    \
  X(ncclResult_t, ncclAllReduce,                                               \
    (const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,    \
     cudaStream_t))                                                            \
  X(ncclResult_t, ncclGroupStart, (void))                                      \
  X(ncclResult_t, ncclGroupEnd, (void))                                        \
  X(ncclResult_t, ncclCommDestroy, (ncclComm_t))                               \
  X(ncclResult_t, ncclGetVersion, (int *))                                     \
  X(const char *, ncclGetErrorString, (ncclResult_t))
/* Those a run may do without: point to point (NCCL 2.7 on), abort. */
#define NCCL_OPTIONAL(X)                                                       \
  X(ncclResult_t, ncclSend,                                                    \
    (const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))     \
  X(ncclResult_t, ncclRecv,                                                    \
    (void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))           \
  X(ncclResult_t, ncclCommAbort, (ncclComm_t))

static struct {
#define NCCL_POINTER(type, name, parameters) type(*name) parameters;
  NCCL_FUNCTIONS(NCCL_POINTER)
  NCCL_OPTIONAL(NCCL_POINTER)
#undef NCCL_POINTER
  int loaded;
} nccl_library;
static pthread_once_t nccl_once = PTHREAD_ONCE_INIT;

static void nccl_open(void) {
  void *handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return;
  int all = 1;
#define NCCL_LOOKUP(type, name, parameters)                                    \
  *(void **)&nccl_library.name = dlsym(handle, #name);                         \
  all = all && nccl_library.name;
  NCCL_FUNCTIONS(NCCL_LOOKUP)
#undef NCCL_LOOKUP
  nccl_library.loaded = all;
#define NCCL_LOOKUP_OPTIONAL(type, name, parameters)                           \
  *(void **)&nccl_library.name = dlsym(handle, #name);
  NCCL_OPTIONAL(NCCL_LOOKUP_OPTIONAL)
#undef NCCL_LOOKUP_OPTIONAL
}

int ck__nccl_available(void) {
  pthread_once(&nccl_once, nccl_open);
  return nccl_library.loaded;
}

#define ncclGetUniqueId nccl_library.ncclGetUniqueId
#define ncclCommInitRank nccl_library.ncclCommInitRank
#define ncclAllReduce nccl_library.ncclAllReduce
#define ncclGroupStart nccl_library.ncclGroupStart
#define ncclGroupEnd nccl_library.ncclGroupEnd
#define ncclCommDestroy nccl_library.ncclCommDestroy
#define ncclGetVersion nccl_library.ncclGetVersion
#define ncclGetErrorString nccl_library.ncclGetErrorString
#define ncclSend nccl_library.ncclSend
#define ncclRecv nccl_library.ncclRecv
#define ncclCommAbort nccl_library.ncclCommAbort

struct ck__nccl {
  size_t local;
  ncclComm_t *comms; /* a local member each */
};

static ck_status nccl_failed(const char *call, ncclResult_t code) {
  return ck__fail(CK_ERROR_EXCHANGE, "%s failed: %s", call,
                  ncclGetErrorString(code));
}

ck_status ck__nccl_unique_id(void *id, size_t size) {
  if (size < sizeof(ncclUniqueId))
    return ck__fail(CK_ERROR_EXCHANGE, "an NCCL id needs %zu bytes",
                    sizeof(ncclUniqueId));
  ncclResult_t code = ncclGetUniqueId((ncclUniqueId *)id);
  return code == ncclSuccess ? CK_OK : nccl_failed("ncclGetUniqueId", code);
}

size_t ck__nccl_id_size(void) {
  return sizeof(ncclUniqueId);
}

ck_status ck__nccl_create(const void *id, size_t members, size_t first,
                          ck_queue *const *queues, size_t local,
                          ck__nccl **made) {
  ck_status status = CK_OK;
  ck__nccl *nccl = calloc(1, sizeof *nccl);
  if (!nccl)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  nccl->comms = calloc(local, sizeof *nccl->comms);
  if (!nccl->comms)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  nccl->local = local;
  ncclUniqueId unique = *(const ncclUniqueId *)id;
  ncclResult_t code = ncclGroupStart();
  for (size_t i = 0; code == ncclSuccess && i < local; ++i) {
    if ((status = ck__cuda_use_device(queues[i])) != CK_OK)
      break;
    code = ncclCommInitRank(&nccl->comms[i], (int)members, unique,
                            (int)(first + i));
  }
  ncclResult_t ended = ncclGroupEnd();
  if (status != CK_OK)
    goto fail;
  if (code != ncclSuccess || ended != ncclSuccess)
    CK_FAIL(CK_ERROR_EXCHANGE, "ncclCommInitRank failed: %s",
            ncclGetErrorString(code != ncclSuccess ? code : ended));
  *made = nccl;
  return CK_OK;
fail:
  ck__nccl_destroy(nccl);
  return status;
}

/* The first versions with ncclAvg, and whose collectives may be recorded
 * into a CUDA graph. */
#define AVERAGE_VERSION 21000
#define CAPTURE_VERSION 20900

static int version_at_least(int least) {
  int version = 0;
  return ck__nccl_available() && ncclGetVersion(&version) == ncclSuccess &&
         version >= least;
}

int ck__nccl_averages(void) {
  return version_at_least(AVERAGE_VERSION);
}

int ck__nccl_captures(void) {
  return version_at_least(CAPTURE_VERSION);
}

static ncclRedOp_t operation(int average) {
  return average ? ncclAvg : ncclSum;
}

ck_status ck__nccl_sum(ck__nccl *nccl, ck_queue *const *queues,
                       ck_buffer *const *buffers, size_t count,
                       int double_precision, int average) {
  ck_status status = CK_OK;
  ncclResult_t code = ncclGroupStart();
  for (size_t i = 0; code == ncclSuccess && i < nccl->local; ++i) {
    if ((status = ck__cuda_use_device(queues[i])) != CK_OK)
      break;
    void *data = ck__cuda_pointer(buffers[i]);
    code = ncclAllReduce(data, data, count,
                         double_precision ? ncclFloat64 : ncclFloat32,
                         operation(average), nccl->comms[i],
                         (cudaStream_t)ck__cuda_stream(queues[i]));
  }
  ncclResult_t ended = ncclGroupEnd();
  if (status != CK_OK)
    return status;
  if (code != ncclSuccess || ended != ncclSuccess)
    return nccl_failed("ncclAllReduce", code != ncclSuccess ? code : ended);
  return CK_OK;
}

ck_status ck__nccl_member_sum(ck__nccl *nccl, size_t i, void *stream,
                              void *const *data, const size_t *counts, size_t n,
                              int double_precision, int average) {
  /* One group: the arrays go out together. */
  ncclResult_t code = ncclGroupStart();
  for (size_t k = 0; code == ncclSuccess && k < n; ++k)
    code =
        ncclAllReduce(data[k], data[k], counts[k],
                      double_precision ? ncclFloat64 : ncclFloat32,
                      operation(average), nccl->comms[i], (cudaStream_t)stream);
  ncclResult_t ended = ncclGroupEnd();
  if (code != ncclSuccess || ended != ncclSuccess)
    return nccl_failed("ncclAllReduce", code != ncclSuccess ? code : ended);
  return CK_OK;
}

int ck__nccl_swaps(void) {
  return ck__nccl_available() && ncclSend && ncclRecv;
}

ck_status ck__nccl_member_swap(ck__nccl *nccl, size_t i, void *stream,
                               const ck__exchange_piece *sends, size_t n_sends,
                               const ck__exchange_piece *receives,
                               size_t n_receives) {
  if (!ck__nccl_swaps())
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "this NCCL has no point-to-point calls (2.7 on)");
  /* One group: NCCL pairs the calls of two members, in their order, and
   * none waits for another. */
  ncclResult_t code = ncclGroupStart();
  for (size_t k = 0; code == ncclSuccess && k < n_sends; ++k)
    code = ncclSend(sends[k].data, sends[k].bytes, ncclUint8,
                    (int)sends[k].peer, nccl->comms[i], (cudaStream_t)stream);
  for (size_t k = 0; code == ncclSuccess && k < n_receives; ++k)
    code =
        ncclRecv(receives[k].data, receives[k].bytes, ncclUint8,
                 (int)receives[k].peer, nccl->comms[i], (cudaStream_t)stream);
  ncclResult_t ended = ncclGroupEnd();
  if (code != ncclSuccess || ended != ncclSuccess)
    return nccl_failed("ncclSend and ncclRecv",
                       code != ncclSuccess ? code : ended);
  return CK_OK;
}

void ck__nccl_abort(ck__nccl *nccl) {
  if (!nccl || !ncclCommAbort)
    return;
  for (size_t i = 0; nccl->comms && i < nccl->local; ++i)
    if (nccl->comms[i]) {
      ncclCommAbort(nccl->comms[i]);
      nccl->comms[i] = NULL;
    }
}

void ck__nccl_destroy(ck__nccl *nccl) {
  if (!nccl)
    return;
  for (size_t i = 0; nccl->comms && i < nccl->local; ++i)
    if (nccl->comms[i])
      ncclCommDestroy(nccl->comms[i]);
  free(nccl->comms);
  free(nccl);
}
