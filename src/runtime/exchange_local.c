/*
 * exchange_local.c - the exchange's transport for a process alone
 * (exchange_backend.h): its members are the whole group and meet in its
 * memory, where exchange.c has already combined them. Every collective
 * is then done; a message goes from the process to itself.
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "runtime/exchange_backend.h"
#include "util/util.h"

static ck_status local_join(const void *communicator, void **state, int *rank,
                            int *ranks) {
  assert(!communicator);
  (void)communicator;
  *state = NULL;
  *rank = 0;
  *ranks = 1;
  return CK_OK;
}

static void local_leave(void *state) {
  (void)state;
}

static ck_status local_share(void *state, uint64_t mine, uint64_t *every) {
  (void)state;
  every[0] = mine;
  return CK_OK;
}

static ck_status local_least(void *state, uint64_t *value) {
  (void)state, (void)value;
  return CK_OK;
}

static ck_status local_sum(void *state, double *values, size_t count) {
  (void)state, (void)values, (void)count;
  return CK_OK;
}

static ck_status local_min(void *state, ck__exchange_min_entry *entry) {
  (void)state, (void)entry;
  return CK_OK;
}

static ck_status local_broadcast(void *state, int root, void *data,
                                 size_t size) {
  assert(root == 0);
  (void)state, (void)root, (void)data, (void)size;
  return CK_OK;
}

static ck_status local_gather(void *state, void *all, size_t item,
                              const size_t *offsets) {
  (void)state, (void)all, (void)item, (void)offsets;
  return CK_OK;
}

/* To itself: what it sends is what it receives. */
static ck_status local_sendrecv(void *state, int tag, size_t item,
                                const void *send, size_t out, int to,
                                void *receive, size_t in, int from) {
  assert(to == 0 && from == 0 && in == out);
  (void)state, (void)tag, (void)to, (void)from, (void)in;
  if (out && item)
    memcpy(receive, send, out * item);
  return CK_OK;
}

/* exchange.c posts and receives only between two processes. */
static ck_status no_other_process(const char *call, int rank) {
  return ck__fail(CK_ERROR_EXCHANGE, "%s with rank %d of a process alone", call,
                  rank);
}

static ck_status local_post(void *state, int tag, size_t item, const void *send,
                            size_t count, int to) {
  (void)state, (void)tag, (void)item, (void)send, (void)count;
  return no_other_process("a send", to);
}

static ck_status local_receive(void *state, int tag, size_t item, void *data,
                               size_t count, int from) {
  (void)state, (void)tag, (void)item, (void)data, (void)count;
  return no_other_process("a receive", from);
}

static ck_status local_settle(void *state) {
  (void)state;
  return CK_OK;
}

const ck__exchange_ops ck__exchange_local_ops = {
    .most_items = SIZE_MAX,
    .least_item = 0,
    .most_item = SIZE_MAX,
    .join = local_join,
    .leave = local_leave,
    .share = local_share,
    .least = local_least,
    .sum = local_sum,
    .min = local_min,
    .broadcast = local_broadcast,
    .gather = local_gather,
    .sendrecv = local_sendrecv,
    .post = local_post,
    .receive = local_receive,
    .settle = local_settle,
};
