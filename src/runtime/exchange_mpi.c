/*
 * exchange_mpi.c - the exchange's transport between processes through
 * MPI (exchange_backend.h; built where MPI is found): ranks of the
 * caller's communicator, messages in host memory.
 */
#include <assert.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/exchange_backend.h"
#include "util/util.h"

/* The group's own communicator, its size, and the sends posted and not
 * yet settled (a count and the items for each local member at most). */
typedef struct mpi_group {
  MPI_Comm comm;
  int ranks;
  MPI_Request requests[2 * CK__EXCHANGE_MAX_LOCAL];
  int posted;
} mpi_group;

/* The most bytes one broadcast or sum sends at once: an int counts
 * them. */
#define PIECE ((size_t)1 << 30)

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

static ck_status mpi_join(const void *communicator, void **state, int *rank,
                          int *ranks) {
  ck_status status = CK_OK;
  assert(communicator);
  mpi_group *group = calloc(1, sizeof *group);
  if (!group)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  group->comm = MPI_COMM_NULL;
  MPI_TRY(MPI_Comm_dup(*(const MPI_Comm *)communicator, &group->comm));
  MPI_TRY(MPI_Comm_set_errhandler(group->comm, MPI_ERRORS_RETURN));
  MPI_TRY(MPI_Comm_rank(group->comm, rank));
  MPI_TRY(MPI_Comm_size(group->comm, ranks));
  group->ranks = *ranks;
  *state = group;
  return CK_OK;
fail:
  if (group->comm != MPI_COMM_NULL)
    MPI_Comm_free(&group->comm);
  free(group);
  return status;
}

static void mpi_leave(void *state) {
  mpi_group *group = state;
  assert(group && group->posted == 0);
  MPI_Comm_free(&group->comm);
  free(group);
}

/* MPI's type for one item of `item` bytes (exchange.c checked its size):
 * bytes, or a type the caller frees (type_free). */
static ck_status item_type(size_t item, MPI_Datatype *type) {
  assert(item >= 1 && item <= (size_t)INT_MAX);
  *type = MPI_BYTE;
  if (item == 1)
    return CK_OK;
  int code = MPI_Type_contiguous((int)item, MPI_BYTE, type);
  if (code == MPI_SUCCESS)
    code = MPI_Type_commit(type);
  if (code == MPI_SUCCESS)
    return CK_OK;
  if (*type != MPI_BYTE && *type != MPI_DATATYPE_NULL)
    MPI_Type_free(type);
  *type = MPI_BYTE;
  return mpi_failed("MPI_Type_contiguous", code);
}

/* Frees an item_type(): a message in flight still completes (MPI). */
static void type_free(MPI_Datatype *type) {
  if (*type != MPI_BYTE)
    MPI_Type_free(type);
}

static ck_status mpi_share(void *state, uint64_t mine, uint64_t *every) {
  mpi_group *group = state;
  unsigned long long value = mine;
  int code = MPI_Allgather(&value, 1, MPI_UNSIGNED_LONG_LONG, every, 1,
                           MPI_UNSIGNED_LONG_LONG, group->comm);
  return code == MPI_SUCCESS ? CK_OK : mpi_failed("MPI_Allgather", code);
}

static ck_status mpi_least(void *state, uint64_t *value) {
  mpi_group *group = state;
  unsigned long long mine = *value, least = 0;
  int code = MPI_Allreduce(&mine, &least, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN,
                           group->comm);
  if (code != MPI_SUCCESS)
    return mpi_failed("MPI_Allreduce", code);
  *value = least;
  return CK_OK;
}

static ck_status mpi_sum(void *state, double *values, size_t count) {
  ck_status status = CK_OK;
  mpi_group *group = state;
  /* In pieces that an int counts. */
  for (size_t done = 0; done < count;) {
    size_t piece = count - done < PIECE ? count - done : PIECE;
    MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, values + done, (int)piece, MPI_DOUBLE,
                          MPI_SUM, group->comm));
    done += piece;
  }
fail:
  return status;
}

static void min_op(void *in, void *inout, int *length, MPI_Datatype *type) {
  (void)type;
  ck__exchange_min_entry *a = in, *b = inout;
  for (int k = 0; k < *length; ++k)
    if (ck__exchange_min_beats(&a[k], &b[k]))
      b[k] = a[k];
}

static ck_status mpi_min(void *state, ck__exchange_min_entry *entry) {
  mpi_group *group = state;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  ck__exchange_min_entry in = *entry;
  int code = MPI_Type_contiguous((int)sizeof in, MPI_BYTE, &type);
  if (code == MPI_SUCCESS)
    code = MPI_Type_commit(&type);
  if (code == MPI_SUCCESS)
    code = MPI_Op_create(min_op, 1, &op);
  if (code == MPI_SUCCESS)
    code = MPI_Allreduce(&in, entry, 1, type, op, group->comm);
  if (op != MPI_OP_NULL)
    MPI_Op_free(&op);
  if (type != MPI_DATATYPE_NULL)
    MPI_Type_free(&type);
  return code == MPI_SUCCESS ? CK_OK : mpi_failed("MPI_Allreduce", code);
}

static ck_status mpi_broadcast(void *state, int root, void *data, size_t size) {
  ck_status status = CK_OK;
  mpi_group *group = state;
  unsigned char *bytes = data;
  for (size_t done = 0; done < size;) {
    size_t piece = size - done < PIECE ? size - done : PIECE;
    MPI_TRY(MPI_Bcast(bytes + done, (int)piece, MPI_BYTE, root, group->comm));
    done += piece;
  }
fail:
  return status;
}

static ck_status mpi_gather(void *state, void *all, size_t item,
                            const size_t *offsets) {
  ck_status status = CK_OK;
  mpi_group *group = state;
  int ranks = group->ranks;
  assert(offsets[ranks] <= (size_t)INT_MAX);
  int *counts = malloc((size_t)ranks * sizeof *counts);
  int *displacements = malloc((size_t)ranks * sizeof *displacements);
  MPI_Datatype type = MPI_BYTE;
  if (!counts || !displacements)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (int r = 0; r < ranks; ++r) {
    counts[r] = (int)(offsets[r + 1] - offsets[r]);
    displacements[r] = (int)offsets[r];
  }
  CK_TRY(item_type(item, &type));
  MPI_TRY(MPI_Allgatherv(MPI_IN_PLACE, 0, type, all, counts, displacements,
                         type, group->comm));
fail:
  type_free(&type);
  free(counts);
  free(displacements);
  return status;
}

static ck_status mpi_sendrecv(void *state, int tag, size_t item,
                              const void *send, size_t out, int to,
                              void *receive, size_t in, int from) {
  ck_status status = CK_OK;
  mpi_group *group = state;
  MPI_Datatype type = MPI_BYTE;
  assert(out <= (size_t)INT_MAX && in <= (size_t)INT_MAX);
  CK_TRY(item_type(item, &type));
  MPI_TRY(MPI_Sendrecv(send, (int)out, type, to, tag, receive, (int)in, type,
                       from, tag, group->comm, MPI_STATUS_IGNORE));
fail:
  type_free(&type);
  return status;
}

static ck_status mpi_post(void *state, int tag, size_t item, const void *send,
                          size_t count, int to) {
  ck_status status = CK_OK;
  mpi_group *group = state;
  MPI_Datatype type = MPI_BYTE;
  assert(count <= (size_t)INT_MAX);
  if (group->posted ==
      (int)(sizeof group->requests / sizeof group->requests[0]))
    return ck__fail(CK_ERROR_EXCHANGE, "more than %d sends at once",
                    group->posted);
  CK_TRY(item_type(item, &type));
  MPI_TRY(MPI_Isend(send, (int)count, type, to, tag, group->comm,
                    &group->requests[group->posted]));
  ++group->posted;
fail:
  type_free(&type);
  return status;
}

static ck_status mpi_receive(void *state, int tag, size_t item, void *data,
                             size_t count, int from) {
  ck_status status = CK_OK;
  mpi_group *group = state;
  MPI_Datatype type = MPI_BYTE;
  assert(count <= (size_t)INT_MAX);
  CK_TRY(item_type(item, &type));
  MPI_TRY(MPI_Recv(data, (int)count, type, from, tag, group->comm,
                   MPI_STATUS_IGNORE));
fail:
  type_free(&type);
  return status;
}

static ck_status mpi_settle(void *state) {
  mpi_group *group = state;
  int posted = group->posted;
  group->posted = 0;
  if (posted == 0)
    return CK_OK;
  int code = MPI_Waitall(posted, group->requests, MPI_STATUSES_IGNORE);
  return code == MPI_SUCCESS ? CK_OK : mpi_failed("MPI_Waitall", code);
}

const ck__exchange_ops ck__exchange_mpi_ops = {
    /* An int counts a message's items, and an item's bytes. */
    .most_items = (size_t)INT_MAX,
    .least_item = 1,
    .most_item = (size_t)INT_MAX,
    .join = mpi_join,
    .leave = mpi_leave,
    .share = mpi_share,
    .least = mpi_least,
    .sum = mpi_sum,
    .min = mpi_min,
    .broadcast = mpi_broadcast,
    .gather = mpi_gather,
    .sendrecv = mpi_sendrecv,
    .post = mpi_post,
    .receive = mpi_receive,
    .settle = mpi_settle,
};
