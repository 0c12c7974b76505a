/*
 * exchange.c - the collectives of a spread run (exchange.h): the local
 * members of a process in host memory, then, where the group has a
 * communicator, the processes through MPI.
 */
#include "runtime/exchange.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clkit/spread.h"
#include "runtime/runtime.h"
#include "util/util.h"

#if CK_HAVE_NCCL
#include "runtime/exchange_nccl.h"
#endif
#if CK_HAVE_MPI
#include <mpi.h>
#endif

/* The most bytes of a member's name kept for messages. */
#define NAME_BYTES 64

struct ck__exchange {
  size_t local, first, members;
  int rank, ranks;
  size_t *firsts; /* ranks + 1 entries: each rank's first member, then all */
  char (*names)[NAME_BYTES];
  double seconds;
  int devices_decided, on_devices; /* ck__exchange_on_devices */
  int averages;                    /* ... and whether its sums average */
  int captures;                    /* ... and may be recorded in graphs */
  int swaps;                       /* ... and its members may swap */
  double *staging;                 /* host sums of buffers */
  size_t staging_count;
#if CK_HAVE_NCCL
  ck__nccl *nccl;
#endif
#if CK_HAVE_MPI
  int has_comm;
  MPI_Comm comm;
#endif
};

size_t ck__exchange_members(const ck__exchange *exchange) {
  return exchange->members;
}
size_t ck__exchange_first(const ck__exchange *exchange) {
  return exchange->first;
}
size_t ck__exchange_local(const ck__exchange *exchange) {
  return exchange->local;
}
int ck__exchange_rank(const ck__exchange *exchange) {
  return exchange->rank;
}
int ck__exchange_ranks(const ck__exchange *exchange) {
  return exchange->ranks;
}
double ck__exchange_seconds(const ck__exchange *exchange) {
  return exchange->seconds;
}

int ck__exchange_rank_of(const ck__exchange *exchange, size_t member) {
  int rank = 0;
  while (rank + 1 < exchange->ranks && exchange->firsts[rank + 1] <= member)
    ++rank;
  return rank;
}

#if CK_HAVE_MPI
/* An MPI call's failure, as a clkit one naming the call. */
static ck_status mpi_failed(const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    snprintf(text, sizeof text, "error %d", code);
  return ck__fail(CK_ERROR_EXCHANGE, "%s failed: %s", call, text);
}
#define MPI_TRY(call)                                                          \
  do {                                                                         \
    int mpi_code_ = (call);                                                    \
    if (mpi_code_ != MPI_SUCCESS) {                                            \
      status = mpi_failed(#call, mpi_code_);                                   \
      goto fail;                                                               \
    }                                                                          \
  } while (0)
/* 1 when the group spans processes. */
#define ACROSS(exchange) ((exchange)->has_comm && (exchange)->ranks > 1)
#else
#define ACROSS(exchange) 0
#endif

ck_status ck__exchange_create(size_t local, const char *const *names,
                              const void *communicator,
                              ck__exchange **exchange) {
  ck_status status = CK_OK;
  ck__exchange *made = NULL;
  if (!exchange || !names || local == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__exchange_create: no members");
  *exchange = NULL;
#if !CK_HAVE_MPI
  if (communicator)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "an MPI communicator was given, but this clkit was built "
                    "without MPI");
#endif
  made = calloc(1, sizeof *made);
  if (!made)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  made->local = local;
  made->ranks = 1;
#if CK_HAVE_MPI
  if (communicator) {
    MPI_TRY(MPI_Comm_dup(*(const MPI_Comm *)communicator, &made->comm));
    made->has_comm = 1;
    MPI_TRY(MPI_Comm_set_errhandler(made->comm, MPI_ERRORS_RETURN));
    MPI_TRY(MPI_Comm_rank(made->comm, &made->rank));
    MPI_TRY(MPI_Comm_size(made->comm, &made->ranks));
  }
#endif
  made->firsts = calloc((size_t)made->ranks + 1, sizeof *made->firsts);
  if (!made->firsts)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* Every rank's count of members, so that each knows where it begins. */
  unsigned long long counts_local = local;
  unsigned long long *counts = calloc((size_t)made->ranks, sizeof *counts);
  if (!counts)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  counts[0] = counts_local;
#if CK_HAVE_MPI
  if (ACROSS(made)) {
    int code = MPI_Allgather(&counts_local, 1, MPI_UNSIGNED_LONG_LONG, counts,
                             1, MPI_UNSIGNED_LONG_LONG, made->comm);
    if (code != MPI_SUCCESS) {
      free(counts);
      status = mpi_failed("MPI_Allgather", code);
      goto fail;
    }
  }
#endif
  for (int r = 0; r < made->ranks; ++r)
    made->firsts[r + 1] = made->firsts[r] + (size_t)counts[r];
  free(counts);
  made->first = made->firsts[made->rank];
  made->members = made->firsts[made->ranks];
  made->names = calloc(local, sizeof *made->names);
  if (!made->names)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t i = 0; i < local; ++i)
    snprintf(made->names[i], NAME_BYTES, "%s", names[i] ? names[i] : "?");
  *exchange = made;
  return CK_OK;
fail:
  ck__exchange_destroy(made);
  return status;
}

void ck__exchange_destroy(ck__exchange *exchange) {
  if (!exchange)
    return;
#if CK_HAVE_MPI
  if (exchange->has_comm)
    MPI_Comm_free(&exchange->comm);
#endif
#if CK_HAVE_NCCL
  ck__nccl_destroy(exchange->nccl);
#endif
  free(exchange->firsts);
  free(exchange->names);
  free(exchange->staging);
  free(exchange);
}

/* A member as messages name it. */
static void describe(const ck__exchange *exchange, size_t member, char *text,
                     size_t capacity) {
  const char *name =
      member >= exchange->first && member < exchange->first + exchange->local
          ? exchange->names[member - exchange->first]
          : NULL;
  if (exchange->ranks > 1 && name)
    snprintf(text, capacity, "member %zu (%s, rank %d)", member, name,
             exchange->rank);
  else if (exchange->ranks > 1)
    snprintf(text, capacity, "member %zu (rank %d)", member,
             ck__exchange_rank_of(exchange, member));
  else
    snprintf(text, capacity, "member %zu (%s)", member, name ? name : "?");
}

ck_status ck__exchange_agree(ck__exchange *exchange,
                             const ck_status *statuses) {
  ck_status status = CK_OK;
  double started = ck__seconds();
  /* The first failed member of this process, and its status. */
  unsigned long long failed[2] = {(unsigned long long)-1, CK_OK};
  for (size_t i = 0; statuses && i < exchange->local; ++i)
    if (statuses[i] != CK_OK) {
      failed[0] = exchange->first + i;
      failed[1] = (unsigned long long)statuses[i];
      break;
    }
  unsigned long long first_failed = failed[0];
#if CK_HAVE_MPI
  if (ACROSS(exchange)) {
    MPI_TRY(MPI_Allreduce(&failed[0], &first_failed, 1, MPI_UNSIGNED_LONG_LONG,
                          MPI_MIN, exchange->comm));
    /* The failed member's rank tells the others its status. */
    if (first_failed != (unsigned long long)-1) {
      int root = ck__exchange_rank_of(exchange, (size_t)first_failed);
      MPI_TRY(MPI_Bcast(&failed[1], 1, MPI_UNSIGNED_LONG_LONG, root,
                        exchange->comm));
    }
  }
#endif
  if (first_failed != (unsigned long long)-1) {
    char who[NAME_BYTES + 64];
    describe(exchange, (size_t)first_failed, who, sizeof who);
    size_t member = (size_t)first_failed;
    if (member >= exchange->first && member < exchange->first + exchange->local)
      /* Ours: its message is the thread's current one. */
      status = ck__fail_prefix((ck_status)failed[1], "%s failed: ", who);
    else
      status = ck__fail((ck_status)failed[1],
                        "%s failed; its process reports why", who);
  }
#if CK_HAVE_MPI
fail:
#endif
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_sum(ck__exchange *exchange, const double *const *local,
                           double *sum, size_t count) {
  ck_status status = CK_OK;
  double started = ck__seconds();
  for (size_t k = 0; k < count; ++k) {
    double total = 0;
    for (size_t i = 0; i < exchange->local; ++i)
      total += local[i][k];
    sum[k] = total;
  }
#if CK_HAVE_MPI
  if (ACROSS(exchange) && count > 0) {
    /* In pieces that an int counts. */
    for (size_t done = 0; done < count;) {
      size_t piece =
          count - done < (size_t)1 << 30 ? count - done : (size_t)1 << 30;
      MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, sum + done, (int)piece, MPI_DOUBLE,
                            MPI_SUM, exchange->comm));
      done += piece;
    }
  }
fail:
#endif
  exchange->seconds += ck__seconds() - started;
  return status;
}

/* A candidate of ck__exchange_min, as MPI moves it. */
typedef struct min_entry {
  double value;
  uint64_t index;
  uint64_t member;
} min_entry;

/* 1 when a beats b: the lower value, a number over NaN, then the lower
 * index. */
static int min_beats(const min_entry *a, const min_entry *b) {
  if (isnan(b->value) && !isnan(a->value))
    return 1;
  if (isnan(a->value) || isnan(b->value))
    return isnan(a->value) && isnan(b->value) && a->index < b->index;
  if (a->value != b->value)
    return a->value < b->value;
  return a->index < b->index;
}

#if CK_HAVE_MPI
static void min_op(void *in, void *inout, int *length, MPI_Datatype *type) {
  (void)type;
  min_entry *a = in, *b = inout;
  for (int k = 0; k < *length; ++k)
    if (min_beats(&a[k], &b[k]))
      b[k] = a[k];
}
#endif

ck_status ck__exchange_min(ck__exchange *exchange, const double *values,
                           const uint64_t *indices, double *min,
                           uint64_t *index, size_t *member) {
  ck_status status = CK_OK;
  double started = ck__seconds();
  min_entry best = {values[0], indices[0], exchange->first};
  for (size_t i = 1; i < exchange->local; ++i) {
    min_entry candidate = {values[i], indices[i], exchange->first + i};
    if (min_beats(&candidate, &best))
      best = candidate;
  }
#if CK_HAVE_MPI
  if (ACROSS(exchange)) {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    min_entry in = best;
    int code = MPI_Type_contiguous((int)sizeof(min_entry), MPI_BYTE, &type);
    if (code == MPI_SUCCESS)
      code = MPI_Type_commit(&type);
    if (code == MPI_SUCCESS)
      code = MPI_Op_create(min_op, 1, &op);
    if (code == MPI_SUCCESS)
      code = MPI_Allreduce(&in, &best, 1, type, op, exchange->comm);
    if (op != MPI_OP_NULL)
      MPI_Op_free(&op);
    if (type != MPI_DATATYPE_NULL)
      MPI_Type_free(&type);
    if (code != MPI_SUCCESS) {
      status = mpi_failed("MPI_Allreduce", code);
      goto fail;
    }
  }
#endif
  *min = best.value;
  *index = best.index;
  *member = (size_t)best.member;
#if CK_HAVE_MPI
fail:
#endif
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_gather(ck__exchange *exchange, const void *const *local,
                              size_t size, void *all) {
  ck_status status = CK_OK;
  double started = ck__seconds();
  unsigned char *out = all;
  for (size_t i = 0; i < exchange->local; ++i)
    memcpy(out + (exchange->first + i) * size, local[i], size);
#if CK_HAVE_MPI
  if (ACROSS(exchange)) {
    int *counts = NULL, *offsets = NULL;
    counts = malloc((size_t)exchange->ranks * sizeof *counts);
    offsets = malloc((size_t)exchange->ranks * sizeof *offsets);
    int fits =
        counts && offsets && exchange->members * size <= (size_t)0x7fffffff;
    for (int r = 0; fits && r < exchange->ranks; ++r) {
      counts[r] = (int)((exchange->firsts[r + 1] - exchange->firsts[r]) * size);
      offsets[r] = (int)(exchange->firsts[r] * size);
    }
    int code = fits ? MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, out, counts,
                                     offsets, MPI_BYTE, exchange->comm)
                    : MPI_SUCCESS;
    free(counts);
    free(offsets);
    if (!fits)
      CK_FAIL(counts && offsets ? CK_ERROR_UNSUPPORTED : CK_ERROR_OUT_OF_MEMORY,
              "a gather of %zu bytes across processes",
              exchange->members * size);
    if (code != MPI_SUCCESS) {
      status = mpi_failed("MPI_Allgatherv", code);
      goto fail;
    }
  }
fail:
#endif
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_broadcast(ck__exchange *exchange, size_t from,
                                 void *data, size_t size) {
  ck_status status = CK_OK;
  double started = ck__seconds();
#if CK_HAVE_MPI
  if (ACROSS(exchange)) {
    int root = ck__exchange_rank_of(exchange, from);
    unsigned char *bytes = data;
    for (size_t done = 0; done < size;) {
      size_t piece =
          size - done < (size_t)1 << 30 ? size - done : (size_t)1 << 30;
      MPI_TRY(
          MPI_Bcast(bytes + done, (int)piece, MPI_BYTE, root, exchange->comm));
      done += piece;
    }
  }
fail:
#else
  (void)from;
  (void)data;
  (void)size;
#endif
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_ring(ck__exchange *exchange, const void *const *send,
                            void *const *receive, size_t size) {
  ck_status status = CK_OK;
  double started = ck__seconds();
  size_t local = exchange->local;
  /* Within the process: member i's bytes go to member i + 1. */
  for (size_t i = 0; i + 1 < local; ++i)
    memcpy(receive[i + 1], send[i], size);
  if (!ACROSS(exchange)) {
    memcpy(receive[0], send[local - 1], size);
  } else {
#if CK_HAVE_MPI
    /* The last member's bytes to the next rank's first; the previous
     * rank's last into the first. */
    int next = (exchange->rank + 1) % exchange->ranks;
    int previous = (exchange->rank + exchange->ranks - 1) % exchange->ranks;
    if (size > (size_t)0x7fffffff)
      CK_FAIL(CK_ERROR_UNSUPPORTED, "a ring exchange of %zu bytes", size);
    MPI_TRY(MPI_Sendrecv(send[local - 1], (int)size, MPI_BYTE, next, 71,
                         receive[0], (int)size, MPI_BYTE, previous, 71,
                         exchange->comm, MPI_STATUS_IGNORE));
#endif
  }
#if CK_HAVE_MPI
fail:
#endif
  exchange->seconds += ck__seconds() - started;
  return status;
}

#if CK_HAVE_NCCL
/* NCCL's communicators for the members: an id made by rank 0 and sent to
 * the others, then one communicator a local member. */
static ck_status nccl_begin(ck__exchange *exchange, ck_queue *const *queues) {
  ck_status status = CK_OK;
  unsigned char id[256] = {0};
  size_t size = ck__nccl_id_size();
  if (size > sizeof id)
    return ck__fail(CK_ERROR_EXCHANGE, "an NCCL id of %zu bytes", size);
  /* The first member's status stands for its process's id. */
  /* NCCL connects its peers at their first collective by default: in the
   * first training step, where it cost near a second across processes.
   * Connected here instead, unless the user chose. */
  setenv("NCCL_RUNTIME_CONNECT", "0", 0);
  /* The MLP's sums share the GPU with its products. At most 16 channels
   * left each step on two H100s 7% shorter than NCCL's own choice
   * (bench/results/h100x2-2026-11-27-mlp). A user's setting stands. */
  if (!getenv("NCCL_MAX_NCHANNELS") && !getenv("NCCL_MAX_CTAS"))
    setenv("NCCL_MAX_NCHANNELS", "16", 0);
  ck_status statuses[CK__EXCHANGE_MAX_LOCAL] = {0};
  statuses[0] = exchange->rank == 0 ? ck__nccl_unique_id(id, size) : CK_OK;
  CK_TRY(ck__exchange_agree(exchange, statuses));
  CK_TRY(ck__exchange_broadcast(exchange, 0, id, size));
  CK_TRY(ck__nccl_create(id, exchange->members, exchange->first, queues,
                         exchange->local, &exchange->nccl));
fail:
  return status;
}
#endif

ck_status ck__exchange_on_devices(ck__exchange *exchange,
                                  ck_queue *const *queues, int *on_devices) {
  ck_status status = CK_OK;
  if (exchange->devices_decided) {
    *on_devices = exchange->on_devices;
    return CK_OK;
  }
  int local = 0;
#if CK_HAVE_NCCL
  local = !ck__setting_off("CLKIT_NCCL") && ck__nccl_available();
  for (size_t i = 0; local && i < exchange->local; ++i) {
    const ck_device *device = NULL;
    local = ck_queue_get_device(queues[i], &device) == CK_OK &&
            device->backend == CK_BACKEND_CUDA;
  }
#else
  (void)queues;
#endif
  /* Every member of every process, or none: the processes that cannot
   * are counted, through the first member of each. */
  if (exchange->local > CK__EXCHANGE_MAX_LOCAL)
    return ck__fail(CK_ERROR_UNSUPPORTED, "%zu members in one process",
                    exchange->local);
  int average = 0, swap = 0;
#if CK_HAVE_NCCL
  average = local && ck__nccl_averages();
  swap = local && ck__nccl_swaps();
#endif
  /* The processes that cannot, that cannot average, that cannot swap. */
  double mine[3] = {local ? 0 : 1, average ? 0 : 1, swap ? 0 : 1};
  double zero[3] = {0, 0, 0}, unable[3] = {0, 0, 0};
  const double *pieces[CK__EXCHANGE_MAX_LOCAL];
  for (size_t i = 0; i < exchange->local; ++i)
    pieces[i] = i ? zero : mine;
  CK_TRY(ck__exchange_sum(exchange, pieces, unable, 3));
  exchange->on_devices = unable[0] == 0;
  exchange->averages = exchange->on_devices && unable[1] == 0;
  exchange->swaps = exchange->on_devices && unable[2] == 0;
#if CK_HAVE_NCCL
  if (exchange->on_devices)
    CK_TRY(nccl_begin(exchange, queues));
  exchange->captures = exchange->on_devices && ck__nccl_captures();
#endif
  exchange->devices_decided = 1;
  *on_devices = exchange->on_devices;
fail:
  return status;
}

int ck__exchange_averages(const ck__exchange *exchange) {
  return exchange->averages;
}

int ck__exchange_captures(const ck__exchange *exchange) {
  return exchange->captures;
}

/* A member's call on the devices (its sum or swap), where the members
 * do not make them there. */
static ck_status not_on_devices(const ck__exchange *exchange, const char *call,
                                const char *verb) {
  return ck__fail(CK_ERROR_UNSUPPORTED,
                  "a member's %s on the devices, where the members do not %s "
                  "on the devices (%s)",
                  call, verb,
                  exchange->devices_decided ? "NCCL is not used"
                                            : "not decided");
}

ck_status ck__exchange_member_sum(ck__exchange *exchange, size_t i,
                                  void *stream, void *const *data,
                                  const size_t *counts, size_t n,
                                  int double_precision, int average) {
#if CK_HAVE_NCCL
  if (exchange->on_devices && exchange->nccl && i < exchange->local)
    return ck__nccl_member_sum(exchange->nccl, i, stream, data, counts, n,
                               double_precision, average);
#else
  (void)i, (void)stream, (void)data, (void)counts, (void)n;
  (void)double_precision, (void)average;
#endif
  return not_on_devices(exchange, "sum", "sum");
}

ck_status ck__exchange_swaps(ck__exchange *exchange, ck_queue *const *queues,
                             int *swaps) {
  int on_devices = 0;
  ck_status status = ck__exchange_on_devices(exchange, queues, &on_devices);
  *swaps = status == CK_OK && exchange->swaps;
  return status;
}

ck_status ck__exchange_member_swap(ck__exchange *exchange, size_t i,
                                   void *stream,
                                   const ck__exchange_piece *sends,
                                   size_t n_sends,
                                   const ck__exchange_piece *receives,
                                   size_t n_receives) {
#if CK_HAVE_NCCL
  if (exchange->on_devices && exchange->nccl && i < exchange->local)
    return ck__nccl_member_swap(exchange->nccl, i, stream, sends, n_sends,
                                receives, n_receives);
#else
  (void)i, (void)stream, (void)sends, (void)n_sends, (void)receives;
  (void)n_receives;
#endif
  return not_on_devices(exchange, "swap", "exchange");
}

void ck__exchange_abort_devices(ck__exchange *exchange) {
#if CK_HAVE_NCCL
  if (exchange)
    ck__nccl_abort(exchange->nccl);
#else
  (void)exchange;
#endif
}

ck_status ck__exchange_sum_buffers(ck__exchange *exchange,
                                   ck_queue *const *queues,
                                   ck_buffer *const *buffers, size_t count,
                                   int double_precision, int average) {
  ck_status status = CK_OK;
  int on_devices = 0;
  CK_TRY(ck__exchange_on_devices(exchange, queues, &on_devices));
#if CK_HAVE_NCCL
  if (on_devices) {
    double started = ck__seconds();
    status = ck__nccl_sum(exchange->nccl, queues, buffers, count,
                          double_precision, average);
    exchange->seconds += ck__seconds() - started;
    return status;
  }
#endif
  size_t local = exchange->local, needed = (local + 1) * count;
  if (exchange->staging_count < needed) {
    double *grown = realloc(exchange->staging, needed * sizeof *grown);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    exchange->staging = grown;
    exchange->staging_count = needed;
  }
  const double *pieces[CK__EXCHANGE_MAX_LOCAL];
  if (local > CK__EXCHANGE_MAX_LOCAL)
    return ck__fail(CK_ERROR_UNSUPPORTED, "%zu members in one process", local);
  ck_status statuses[CK__EXCHANGE_MAX_LOCAL];
  for (size_t i = 0; i < local; ++i) {
    statuses[i] = ck__reals_read(queues[i], buffers[i], double_precision,
                                 exchange->staging + i * count, count);
    pieces[i] = exchange->staging + i * count;
  }
  CK_TRY(ck__exchange_agree(exchange, statuses));
  double *sum = exchange->staging + local * count;
  CK_TRY(ck__exchange_sum(exchange, pieces, sum, count));
  for (size_t k = 0; average && k < count; ++k)
    sum[k] /= (double)exchange->members;
  for (size_t i = 0; i < local; ++i)
    statuses[i] =
        ck__reals_write(queues[i], buffers[i], double_precision, sum, count);
  CK_TRY(ck__exchange_agree(exchange, statuses));
fail:
  return status;
}

/* ---- variable sizes ------------------------------------------------------ */

ck_status ck__exchange_buffer_hold(ck__exchange_buffer *buffer, size_t item,
                                   size_t count) {
  if (item && count > SIZE_MAX / item)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "%zu items of %zu bytes", count,
                    item);
  size_t bytes = count * item;
  if (bytes > buffer->capacity) {
    size_t grown = buffer->capacity + buffer->capacity / 2;
    grown = grown > bytes ? grown : bytes;
    void *data = realloc(buffer->data, grown);
    if (!data)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                      "out of host memory for %zu bytes of an exchange", grown);
    buffer->data = data;
    buffer->capacity = grown;
  }
  buffer->count = count;
  return CK_OK;
}

/* Copies count items into buffer. */
static ck_status buffer_fill(ck__exchange_buffer *buffer, size_t item,
                             const void *items, size_t count) {
  ck_status status = ck__exchange_buffer_hold(buffer, item, count);
  if (status == CK_OK && count)
    memcpy(buffer->data, items, count * item);
  return status;
}

#if CK_HAVE_MPI
/* MPI's type for one item of `item` bytes, committed (free it). */
static ck_status item_type(size_t item, MPI_Datatype *type) {
  ck_status status = CK_OK;
  *type = MPI_DATATYPE_NULL;
  if (item == 0 || item > (size_t)0x7fffffff)
    return ck__fail(CK_ERROR_UNSUPPORTED, "exchanged items of %zu bytes", item);
  MPI_TRY(MPI_Type_contiguous((int)item, MPI_BYTE, type));
  MPI_TRY(MPI_Type_commit(type));
fail:
  return status;
}

/* A count of items that one MPI message can carry (an int's range). */
static ck_status count_fits(unsigned long long count) {
  if (count > 0x7fffffffull)
    return ck__fail(
        CK_ERROR_UNSUPPORTED,
        "an exchange of %llu items between processes; at most 2^31 - 1", count);
  return CK_OK;
}

/* The count, then the items, to rank `to` while receiving from `from`
 * into received. */
static ck_status sendrecv_items(ck__exchange *exchange, size_t item,
                                const void *send, size_t count, int to,
                                int from, ck__exchange_buffer *received) {
  ck_status status = CK_OK;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  unsigned long long out = count, in = 0;
  MPI_TRY(MPI_Sendrecv(&out, 1, MPI_UNSIGNED_LONG_LONG, to, 72, &in, 1,
                       MPI_UNSIGNED_LONG_LONG, from, 72, exchange->comm,
                       MPI_STATUS_IGNORE));
  CK_TRY(count_fits(out > in ? out : in));
  CK_TRY(ck__exchange_buffer_hold(received, item, (size_t)in));
  CK_TRY(item_type(item, &type));
  MPI_TRY(MPI_Sendrecv(send, (int)out, type, to, 73, received->data, (int)in,
                       type, from, 73, exchange->comm, MPI_STATUS_IGNORE));
fail:
  if (type != MPI_DATATYPE_NULL)
    MPI_Type_free(&type);
  return status;
}
#endif

ck_status ck__exchange_pass(ck__exchange *exchange, int forward, size_t item,
                            const void *const *send, const size_t *counts,
                            ck__exchange_buffer *received) {
  ck_status status = CK_OK;
  double started = ck__seconds();
  size_t local = exchange->local;
  /* Within the process: member i's items go to i + 1 (or i - 1). */
  for (size_t i = 0; i + 1 < local; ++i) {
    size_t from = forward ? i : i + 1, to = forward ? i + 1 : i;
    CK_TRY(buffer_fill(&received[to], item, send[from], counts[from]));
  }
  /* The end of the process's line: to the other end, or to the next (the
   * previous) process. */
  size_t edge = forward ? local - 1 : 0, other = forward ? 0 : local - 1;
  if (!ACROSS(exchange)) {
    CK_TRY(buffer_fill(&received[other], item, send[edge], counts[edge]));
  } else {
#if CK_HAVE_MPI
    int ranks = exchange->ranks;
    int next = (exchange->rank + 1) % ranks;
    int previous = (exchange->rank + ranks - 1) % ranks;
    CK_TRY(sendrecv_items(exchange, item, send[edge], counts[edge],
                          forward ? next : previous, forward ? previous : next,
                          &received[other]));
#endif
  }
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

#if CK_HAVE_MPI
/* MPI's tags of a route's message to member m: its count, then its
 * items (tags are at least 0 .. 32767 everywhere). */
#define ROUTE_TAG(m, items) (100 + 2 * (int)((m) % 16000) + (items))

/* The route's messages between processes: each local member's items sent
 * to its partner on another process, then received from one, counts
 * first. Sends go first without waiting, so no order of the processes
 * can wait for itself. */
static ck_status route_across(ck__exchange *exchange, size_t item,
                              const void *const *send, const size_t *counts,
                              const size_t *to, const size_t *from,
                              ck__exchange_buffer *received) {
  ck_status status = CK_OK;
  size_t local = exchange->local, first = exchange->first;
  MPI_Request requests[2 * CK_SPREAD_MAX_LOCAL];
  unsigned long long out[CK_SPREAD_MAX_LOCAL];
  int posted = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  CK_TRY(item_type(item, &type));
  for (size_t i = 0; i < local; ++i) {
    int rank = ck__exchange_rank_of(exchange, to[i]);
    if (rank == exchange->rank)
      continue;
    out[i] = counts[i];
    CK_TRY(count_fits(out[i]));
    MPI_TRY(MPI_Isend(&out[i], 1, MPI_UNSIGNED_LONG_LONG, rank,
                      ROUTE_TAG(to[i], 0), exchange->comm,
                      &requests[posted++]));
    MPI_TRY(MPI_Isend(send[i], (int)out[i], type, rank, ROUTE_TAG(to[i], 1),
                      exchange->comm, &requests[posted++]));
  }
  for (size_t i = 0; i < local; ++i) {
    int rank = ck__exchange_rank_of(exchange, from[i]);
    unsigned long long in = 0;
    if (rank == exchange->rank)
      continue;
    MPI_TRY(MPI_Recv(&in, 1, MPI_UNSIGNED_LONG_LONG, rank,
                     ROUTE_TAG(first + i, 0), exchange->comm,
                     MPI_STATUS_IGNORE));
    CK_TRY(count_fits(in));
    CK_TRY(ck__exchange_buffer_hold(&received[i], item, (size_t)in));
    MPI_TRY(MPI_Recv(received[i].data, (int)in, type, rank,
                     ROUTE_TAG(first + i, 1), exchange->comm,
                     MPI_STATUS_IGNORE));
  }
fail:
  /* The sends end before their counts and items may go. */
  if (posted > 0) {
    int code = MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
    if (status == CK_OK && code != MPI_SUCCESS)
      status = mpi_failed("MPI_Waitall", code);
  }
  if (type != MPI_DATATYPE_NULL)
    MPI_Type_free(&type);
  return status;
}
#endif

ck_status ck__exchange_route(ck__exchange *exchange, size_t item,
                             const void *const *send, const size_t *counts,
                             const size_t *to, const size_t *from,
                             ck__exchange_buffer *received) {
  ck_status status = CK_OK;
  double started = ck__seconds();
  size_t local = exchange->local, first = exchange->first;
  for (size_t i = 0; i < local; ++i)
    if (to[i] >= exchange->members || from[i] >= exchange->members)
      return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                      "an exchange between members %zu and %zu of %zu",
                      to[i] >= exchange->members ? first + i : from[i],
                      to[i] >= exchange->members ? to[i] : first + i,
                      exchange->members);
  /* Within the process: straight into the partner's buffer. */
  for (size_t i = 0; i < local; ++i) {
    if (to[i] < first || to[i] >= first + local)
      continue;
    assert(from[to[i] - first] == first + i);
    CK_TRY(buffer_fill(&received[to[i] - first], item, send[i], counts[i]));
  }
#if CK_HAVE_MPI
  if (ACROSS(exchange))
    CK_TRY(route_across(exchange, item, send, counts, to, from, received));
#endif
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_gather_items(ck__exchange *exchange, size_t item,
                                    const void *const *send,
                                    const size_t *counts,
                                    ck__exchange_buffer *all,
                                    size_t *member_counts) {
  ck_status status = CK_OK;
  size_t members = exchange->members, local = exchange->local;
  uint64_t *every = calloc(members, sizeof *every);
  uint64_t mine[CK_SPREAD_MAX_LOCAL];
  const void *pieces[CK_SPREAD_MAX_LOCAL];
  if (!every)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  if (local > CK_SPREAD_MAX_LOCAL)
    CK_FAIL(CK_ERROR_INVALID_ARGUMENT, "%zu members in one process", local);
  for (size_t i = 0; i < local; ++i) {
    mine[i] = counts[i];
    pieces[i] = &mine[i];
  }
  CK_TRY(ck__exchange_gather(exchange, pieces, sizeof *every, every));
  double started = ck__seconds();
  size_t total = 0, before = 0;
  for (size_t m = 0; m < members; ++m) {
    if (m == exchange->first)
      before = total;
    total += (size_t)every[m];
    if (member_counts)
      member_counts[m] = (size_t)every[m];
  }
  status = ck__exchange_buffer_hold(all, item, total);
  unsigned char *out = all->data;
  for (size_t i = 0; status == CK_OK && i < local; ++i) {
    if (counts[i])
      memcpy(out + before * item, send[i], counts[i] * item);
    before += counts[i];
  }
#if CK_HAVE_MPI
  if (status == CK_OK && ACROSS(exchange)) {
    int ranks = exchange->ranks;
    int *sizes = malloc((size_t)ranks * sizeof *sizes);
    int *offsets = malloc((size_t)ranks * sizeof *offsets);
    MPI_Datatype type = MPI_DATATYPE_NULL;
    if (!sizes || !offsets)
      status = ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    else if (total > 0x7fffffffull)
      status = ck__fail(CK_ERROR_UNSUPPORTED,
                        "a gather of %zu items across processes; at most "
                        "2^31 - 1",
                        total);
    size_t offset = 0;
    for (int r = 0; status == CK_OK && r < ranks; ++r) {
      size_t count = 0;
      for (size_t m = exchange->firsts[r]; m < exchange->firsts[r + 1]; ++m)
        count += (size_t)every[m];
      sizes[r] = (int)count;
      offsets[r] = (int)offset;
      offset += count;
    }
    if (status == CK_OK)
      status = item_type(item, &type);
    int code = status == CK_OK
                   ? MPI_Allgatherv(MPI_IN_PLACE, 0, type, out, sizes, offsets,
                                    type, exchange->comm)
                   : MPI_SUCCESS;
    if (type != MPI_DATATYPE_NULL)
      MPI_Type_free(&type);
    free(sizes);
    free(offsets);
    if (code != MPI_SUCCESS)
      status = mpi_failed("MPI_Allgatherv", code);
  }
#endif
  exchange->seconds += ck__seconds() - started;
fail:
  free(every);
  return status;
}
