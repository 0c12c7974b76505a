/*
 * exchange_nccl.c - the exchange's transport on the devices through NCCL
 * (exchange_backend.h; built where CUDA and NCCL are found): where every
 * member of a spread run is a CUDA device, sums and swaps go GPU to GPU
 * over NVLink or PCIe, with no copy through host memory (exchange.c
 * decides when).
 */
#include <assert.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>
#include <pthread.h>
#include <stdlib.h>

#include "runtime/backend.h"
#include "runtime/exchange_backend.h"
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

/* The communicators of a process's members. */
typedef struct nccl_group {
  size_t local;
  ncclComm_t *comms; /* a local member each */
} nccl_group;

static ck_status nccl_failed(const char *call, ncclResult_t code) {
  return ck__fail(CK_ERROR_EXCHANGE, "%s failed: %s", call,
                  ncclGetErrorString(code));
}

static ck_status unique_id(void *id, size_t size) {
  if (size < sizeof(ncclUniqueId))
    return ck__fail(CK_ERROR_EXCHANGE, "an NCCL id needs %zu bytes",
                    sizeof(ncclUniqueId));
  ncclResult_t code = ncclGetUniqueId((ncclUniqueId *)id);
  return code == ncclSuccess ? CK_OK : nccl_failed("ncclGetUniqueId", code);
}

static void nccl_leave(void *state);

/* Communicators for this process's `local` members, numbered first ..
 * first + local - 1 of `members` over all processes; collective. */
static ck_status create(const void *id, size_t members, size_t first,
                        ck_queue *const *queues, size_t local,
                        nccl_group **made) {
  ck_status status = CK_OK;
  nccl_group *nccl = calloc(1, sizeof *nccl);
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
  nccl_leave(nccl);
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

/* 1 where the library opened sends and receives (NCCL 2.7 on). */
static int has_swaps(void) {
  return ck__nccl_available() && ncclSend && ncclRecv;
}

static unsigned nccl_able(ck_queue *const *queues, size_t local) {
  int able = !ck__setting_off("CLKIT_NCCL") && ck__nccl_available();
  for (size_t i = 0; able && i < local; ++i) {
    const ck_device *device = NULL;
    able = ck_queue_get_device(queues[i], &device) == CK_OK &&
           device->backend == CK_BACKEND_CUDA;
  }
  if (!able)
    return 0;
  return CK__DEVICES_SUM |
         (version_at_least(AVERAGE_VERSION) ? CK__DEVICES_AVERAGE : 0u) |
         (has_swaps() ? CK__DEVICES_SWAP : 0u) |
         (version_at_least(CAPTURE_VERSION) ? CK__DEVICES_CAPTURE : 0u);
}

/* NCCL's communicators for the members: an id made by rank 0 and sent to
 * the others, then one communicator a local member. */
static ck_status nccl_join(ck__exchange *exchange, ck_queue *const *queues,
                           void **state) {
  ck_status status = CK_OK;
  unsigned char id[sizeof(ncclUniqueId)] = {0};
  nccl_group *made = NULL;
  size_t local = ck__exchange_local(exchange);
  assert(local >= 1 && local <= CK__EXCHANGE_MAX_LOCAL);
  /* NCCL connects its peers at their first collective by default: in the
   * first training step, where it cost near a second across processes.
   * Connected here instead, unless the user chose. */
  setenv("NCCL_RUNTIME_CONNECT", "0", 0);
  /* The MLP's sums share the GPU with its products. At most 16 channels
   * left each step on two H100s 7% shorter than NCCL's own choice
   * (bench/results/h100x2-2026-11-27-mlp). A user's setting stands. */
  if (!getenv("NCCL_MAX_NCHANNELS") && !getenv("NCCL_MAX_CTAS"))
    setenv("NCCL_MAX_NCHANNELS", "16", 0);
  /* The first member's status stands for its process's id. */
  ck_status statuses[CK__EXCHANGE_MAX_LOCAL] = {0};
  statuses[0] =
      ck__exchange_rank(exchange) == 0 ? unique_id(id, sizeof id) : CK_OK;
  CK_TRY(ck__exchange_agree(exchange, statuses));
  CK_TRY(ck__exchange_broadcast(exchange, 0, id, sizeof id));
  CK_TRY(create(id, ck__exchange_members(exchange),
                ck__exchange_first(exchange), queues, local, &made));
  *state = made;
fail:
  return status;
}

static ncclRedOp_t operation(int average) {
  return average ? ncclAvg : ncclSum;
}

static ck_status nccl_sum(void *state, ck_queue *const *queues,
                          ck_buffer *const *buffers, size_t count,
                          int double_precision, int average) {
  ck_status status = CK_OK;
  nccl_group *nccl = state;
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

static ck_status nccl_member_sum(void *state, size_t i, void *stream,
                                 void *const *data, const size_t *counts,
                                 size_t n, int double_precision, int average) {
  nccl_group *nccl = state;
  assert(i < nccl->local);
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

static ck_status nccl_member_swap(void *state, size_t i, void *stream,
                                  const ck__exchange_piece *sends,
                                  size_t n_sends,
                                  const ck__exchange_piece *receives,
                                  size_t n_receives) {
  nccl_group *nccl = state;
  assert(i < nccl->local);
  if (!has_swaps())
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

static void nccl_abort(void *state) {
  nccl_group *nccl = state;
  if (!nccl || !ncclCommAbort)
    return;
  for (size_t i = 0; nccl->comms && i < nccl->local; ++i)
    if (nccl->comms[i]) {
      ncclCommAbort(nccl->comms[i]);
      nccl->comms[i] = NULL;
    }
}

static void nccl_leave(void *state) {
  nccl_group *nccl = state;
  if (!nccl)
    return;
  for (size_t i = 0; nccl->comms && i < nccl->local; ++i)
    if (nccl->comms[i])
      ncclCommDestroy(nccl->comms[i]);
  free(nccl->comms);
  free(nccl);
}

const ck__exchange_device_ops ck__exchange_nccl_ops = {
    .able = nccl_able,
    .join = nccl_join,
    .sum = nccl_sum,
    .member_sum = nccl_member_sum,
    .member_swap = nccl_member_swap,
    .abort = nccl_abort,
    .leave = nccl_leave,
};
