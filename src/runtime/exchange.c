/*
 * exchange.c - the collectives of a spread run (exchange.h), whatever
 * carries them: each combines the local members of a process in host
 * memory, then hands what crosses between processes to the group's
 * transport (exchange_backend.h). Here: choosing the transports, each
 * collective's shape, the counts checked once (count_fits) and the
 * failure agreement.
 */
#include "runtime/exchange.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/exchange_backend.h"
#include "runtime/runtime.h"
#include "util/util.h"

/* The most bytes of a member's name kept for messages. */
#define NAME_BYTES 64

/* Tags that tell a collective's messages apart: a ring's bytes, a
 * pass's count then items, and a route's to member m (count, then items;
 * tags are at least 0 .. 32767 everywhere). */
enum { TAG_RING = 71, TAG_PASS_COUNT = 72, TAG_PASS_ITEMS = 73 };
#define ROUTE_TAG(m, items) (100 + 2 * (int)((m) % 16000) + (items))

struct ck__exchange {
  size_t local, first, members;
  int rank, ranks;
  size_t *firsts; /* ranks + 1 entries: each rank's first member, then all */
  char (*names)[NAME_BYTES];
  double seconds;
  uint64_t sent[CK__EXCHANGE_MAX_LOCAL]; /* ck__exchange_sent */
  /* The transport that joined the processes, and its state; ops, the one
   * their messages take: memory, where this process is the group. */
  const ck__exchange_ops *joined, *ops;
  void *state;
  /* The transport on the devices (NULL where the build has none), and its
   * state once the members joined there. */
  const ck__exchange_device_ops *devices;
  void *devices_state;
  int devices_decided, on_devices; /* ck__exchange_on_devices */
  int averages;                    /* ... and whether its sums average */
  int captures;                    /* ... and may be recorded in graphs */
  int swaps;                       /* ... and its members may swap */
  double *staging;                 /* host sums of buffers */
  size_t staging_count;
};

#ifndef NDEBUG
/* The invariants of a group that ck__exchange_create made, asserted at
 * each entry (a release build asserts nothing). */
static int well_formed(const ck__exchange *exchange) {
  return exchange && exchange->local >= 1 &&
         exchange->local <= CK__EXCHANGE_MAX_LOCAL && exchange->ranks >= 1 &&
         exchange->rank >= 0 && exchange->rank < exchange->ranks &&
         exchange->firsts && exchange->names &&
         exchange->first == exchange->firsts[exchange->rank] &&
         exchange->firsts[exchange->rank + 1] ==
             exchange->first + exchange->local &&
         exchange->members == exchange->firsts[exchange->ranks] &&
         exchange->joined &&
         exchange->ops == (exchange->ranks > 1 ? exchange->joined
                                               : &ck__exchange_local_ops) &&
         (!exchange->devices_state || exchange->devices);
}
#endif

size_t ck__exchange_members(const ck__exchange *exchange) {
  assert(well_formed(exchange));
  return exchange->members;
}
size_t ck__exchange_first(const ck__exchange *exchange) {
  assert(well_formed(exchange));
  return exchange->first;
}
size_t ck__exchange_local(const ck__exchange *exchange) {
  assert(well_formed(exchange));
  return exchange->local;
}
int ck__exchange_rank(const ck__exchange *exchange) {
  assert(well_formed(exchange));
  return exchange->rank;
}
int ck__exchange_ranks(const ck__exchange *exchange) {
  assert(well_formed(exchange));
  return exchange->ranks;
}
uint64_t ck__exchange_sent(const ck__exchange *exchange, size_t i) {
  assert(well_formed(exchange) && i < exchange->local);
  return exchange->sent[i];
}

/* Local member i's part of a collective, bytes of it for every other
 * member. */
static void count_to_others(ck__exchange *exchange, size_t i, uint64_t bytes) {
  exchange->sent[i] += bytes * (exchange->members - 1);
}

/* Local member i's message of bytes to another member (none to itself,
 * where a member alone closes the ring). */
static void count_message(ck__exchange *exchange, size_t i, uint64_t bytes) {
  if (exchange->members > 1)
    exchange->sent[i] += bytes;
}

double ck__exchange_seconds(const ck__exchange *exchange) {
  assert(well_formed(exchange));
  return exchange->seconds;
}

int ck__exchange_rank_of(const ck__exchange *exchange, size_t member) {
  assert(well_formed(exchange));
  int rank = 0;
  while (rank + 1 < exchange->ranks && exchange->firsts[rank + 1] <= member)
    ++rank;
  return rank;
}

/* Whether count items (of `unit`) fit one message of the group's
 * transport: the one check of every count that crosses. */
static ck_status count_fits(const ck__exchange *exchange, const char *what,
                            unsigned long long count, const char *unit) {
  if (count > exchange->ops->most_items)
    return ck__fail(CK_ERROR_UNSUPPORTED,
                    "%s of %llu %s between processes; at most %zu", what, count,
                    unit, exchange->ops->most_items);
  return CK_OK;
}

/* Whether items of `item` bytes fit the group's transport. */
static ck_status item_fits(const ck__exchange *exchange, size_t item) {
  if (item < exchange->ops->least_item || item > exchange->ops->most_item)
    return ck__fail(CK_ERROR_UNSUPPORTED, "exchanged items of %zu bytes", item);
  return CK_OK;
}

ck_status ck__exchange_create(size_t local, const char *const *names,
                              const void *communicator,
                              ck__exchange **exchange) {
  ck_status status = CK_OK;
  ck__exchange *made = NULL;
  uint64_t *counts = NULL;
  if (!exchange || !names || local == 0)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "ck__exchange_create: no members");
  *exchange = NULL;
  if (local > CK__EXCHANGE_MAX_LOCAL)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "%zu members in one process; at most %d", local,
                    CK__EXCHANGE_MAX_LOCAL);
  /* Processes join through the transport between them; one alone needs
   * none. */
  const ck__exchange_ops *joined =
      communicator ? ck__exchange_between_processes() : &ck__exchange_local_ops;
  if (!joined)
    return ck__fail(CK_ERROR_INVALID_ARGUMENT,
                    "an MPI communicator was given, but this clkit was built "
                    "without MPI");
  made = calloc(1, sizeof *made);
  if (!made)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  made->local = local;
  CK_TRY(joined->join(communicator, &made->state, &made->rank, &made->ranks));
  made->joined = joined;
  /* A process alone meets in its memory, whatever joined it. */
  made->ops = made->ranks > 1 ? joined : &ck__exchange_local_ops;
  made->devices = ck__exchange_on_devices_ops();
  made->firsts = calloc((size_t)made->ranks + 1, sizeof *made->firsts);
  counts = calloc((size_t)made->ranks, sizeof *counts);
  if (!made->firsts || !counts)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* Every rank's count of members, so that each knows where it begins. */
  CK_TRY(made->ops->share(made->state, local, counts));
  for (int r = 0; r < made->ranks; ++r)
    made->firsts[r + 1] = made->firsts[r] + (size_t)counts[r];
  made->first = made->firsts[made->rank];
  made->members = made->firsts[made->ranks];
  made->names = calloc(local, sizeof *made->names);
  if (!made->names)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t i = 0; i < local; ++i)
    snprintf(made->names[i], NAME_BYTES, "%s", names[i] ? names[i] : "?");
  free(counts);
  *exchange = made;
  return CK_OK;
fail:
  free(counts);
  ck__exchange_destroy(made);
  return status;
}

void ck__exchange_destroy(ck__exchange *exchange) {
  if (!exchange)
    return;
  if (exchange->joined)
    exchange->joined->leave(exchange->state);
  if (exchange->devices_state)
    exchange->devices->leave(exchange->devices_state);
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
  assert(well_formed(exchange));
  ck_status status = CK_OK;
  double started = ck__seconds();
  /* The first failed member of this process, and its status. */
  uint64_t failed[2] = {UINT64_MAX, (uint64_t)CK_OK};
  for (size_t i = 0; statuses && i < exchange->local; ++i)
    if (statuses[i] != CK_OK) {
      failed[0] = exchange->first + i;
      failed[1] = (uint64_t)statuses[i];
      break;
    }
  uint64_t first_failed = failed[0];
  CK_TRY(exchange->ops->least(exchange->state, &first_failed));
  if (first_failed != UINT64_MAX) {
    size_t member = (size_t)first_failed;
    /* The failed member's rank tells the others its status. */
    CK_TRY(exchange->ops->broadcast(exchange->state,
                                    ck__exchange_rank_of(exchange, member),
                                    &failed[1], sizeof failed[1]));
    char who[NAME_BYTES + 64];
    describe(exchange, member, who, sizeof who);
    if (member >= exchange->first && member < exchange->first + exchange->local)
      /* Ours: its message is the thread's current one. */
      status = ck__fail_prefix((ck_status)failed[1], "%s failed: ", who);
    else
      status = ck__fail((ck_status)failed[1],
                        "%s failed; its process reports why", who);
  }
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_sum(ck__exchange *exchange, const double *const *local,
                           double *sum, size_t count) {
  assert(well_formed(exchange));
  assert(count == 0 || (local && sum));
  ck_status status = CK_OK;
  double started = ck__seconds();
  for (size_t k = 0; k < count; ++k) {
    double total = 0;
    for (size_t i = 0; i < exchange->local; ++i)
      total += local[i][k];
    sum[k] = total;
  }
  for (size_t i = 0; i < exchange->local; ++i)
    count_to_others(exchange, i, count * sizeof *sum);
  if (count > 0)
    CK_TRY(exchange->ops->sum(exchange->state, sum, count));
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

int ck__exchange_min_beats(const ck__exchange_min_entry *a,
                           const ck__exchange_min_entry *b) {
  if (isnan(b->value) && !isnan(a->value))
    return 1;
  if (isnan(a->value) || isnan(b->value))
    return isnan(a->value) && isnan(b->value) && a->index < b->index;
  if (a->value != b->value)
    return a->value < b->value;
  return a->index < b->index;
}

ck_status ck__exchange_min(ck__exchange *exchange, const double *values,
                           const uint64_t *indices, double *min,
                           uint64_t *index, size_t *member) {
  assert(well_formed(exchange));
  assert(values && indices && min && index && member);
  ck_status status = CK_OK;
  double started = ck__seconds();
  ck__exchange_min_entry best = {values[0], indices[0], exchange->first};
  for (size_t i = 0; i < exchange->local; ++i)
    count_to_others(exchange, i, sizeof best);
  for (size_t i = 1; i < exchange->local; ++i) {
    ck__exchange_min_entry candidate = {values[i], indices[i],
                                        exchange->first + i};
    if (ck__exchange_min_beats(&candidate, &best))
      best = candidate;
  }
  CK_TRY(exchange->ops->min(exchange->state, &best));
  *min = best.value;
  *index = best.index;
  *member = (size_t)best.member;
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_gather(ck__exchange *exchange, const void *const *local,
                              size_t size, void *all) {
  assert(well_formed(exchange));
  assert(size == 0 || (local && all));
  ck_status status = CK_OK;
  double started = ck__seconds();
  unsigned char *out = all;
  for (size_t i = 0; i < exchange->local; ++i) {
    memcpy(out + (exchange->first + i) * size, local[i], size);
    count_to_others(exchange, i, size);
  }
  /* Each member's bytes are one item; nothing crosses where they are
   * none. */
  CK_TRY(count_fits(exchange, "a gather",
                    (unsigned long long)exchange->members * size, "bytes"));
  if (size > 0) {
    CK_TRY(item_fits(exchange, size));
    CK_TRY(exchange->ops->gather(exchange->state, all, size, exchange->firsts));
  }
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_sum_rows(ck__exchange *exchange, const double *rows,
                                size_t stride, double *sum, size_t count) {
  assert(well_formed(exchange) && exchange->local <= CK__EXCHANGE_MAX_LOCAL);
  const double *pieces[CK__EXCHANGE_MAX_LOCAL];
  for (size_t i = 0; i < exchange->local; ++i)
    pieces[i] = rows + i * stride;
  return ck__exchange_sum(exchange, pieces, sum, count);
}

ck_status ck__exchange_gather_rows(ck__exchange *exchange, const void *rows,
                                   size_t stride, size_t size, void *all) {
  assert(well_formed(exchange) && exchange->local <= CK__EXCHANGE_MAX_LOCAL);
  const void *pieces[CK__EXCHANGE_MAX_LOCAL];
  for (size_t i = 0; i < exchange->local; ++i)
    pieces[i] = (const unsigned char *)rows + i * stride;
  return ck__exchange_gather(exchange, pieces, size, all);
}

ck_status ck__exchange_broadcast(ck__exchange *exchange, size_t from,
                                 void *data, size_t size) {
  assert(well_formed(exchange));
  assert(from < exchange->members && (size == 0 || data));
  double started = ck__seconds();
  if (from >= exchange->first && from - exchange->first < exchange->local)
    count_to_others(exchange, from - exchange->first, size);
  ck_status status = exchange->ops->broadcast(
      exchange->state, ck__exchange_rank_of(exchange, from), data, size);
  exchange->seconds += ck__seconds() - started;
  return status;
}

/* The rank after this one in a line of the processes that closes on
 * itself (forward 1), or the one before it. */
static int rank_beside(const ck__exchange *exchange, int forward) {
  int ranks = exchange->ranks;
  return forward ? (exchange->rank + 1) % ranks
                 : (exchange->rank + ranks - 1) % ranks;
}

ck_status ck__exchange_ring(ck__exchange *exchange, const void *const *send,
                            void *const *receive, size_t size) {
  assert(well_formed(exchange));
  assert(send && receive);
  ck_status status = CK_OK;
  double started = ck__seconds();
  size_t local = exchange->local;
  /* Within the process: member i's bytes go to member i + 1. */
  for (size_t i = 0; i + 1 < local; ++i)
    memcpy(receive[i + 1], send[i], size);
  for (size_t i = 0; i < local; ++i)
    count_message(exchange, i, size);
  /* The last member's bytes to the next rank's first; the previous
   * rank's last into the first. */
  CK_TRY(count_fits(exchange, "a ring exchange", size, "bytes"));
  CK_TRY(exchange->ops->sendrecv(exchange->state, TAG_RING, 1, send[local - 1],
                                 size, rank_beside(exchange, 1), receive[0],
                                 size, rank_beside(exchange, 0)));
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_on_devices(ck__exchange *exchange,
                                  ck_queue *const *queues, int *on_devices) {
  assert(well_formed(exchange));
  assert(on_devices);
  ck_status status = CK_OK;
  if (exchange->devices_decided) {
    *on_devices = exchange->on_devices;
    return CK_OK;
  }
  unsigned able =
      exchange->devices ? exchange->devices->able(queues, exchange->local) : 0;
  int local = (able & CK__DEVICES_SUM) != 0;
  int average = local && (able & CK__DEVICES_AVERAGE);
  int swap = local && (able & CK__DEVICES_SWAP);
  /* Every member of every process, or none: the processes that cannot
   * are counted, through the first member of each. The processes that
   * cannot, that cannot average, that cannot swap. */
  double mine[3] = {local ? 0 : 1, average ? 0 : 1, swap ? 0 : 1};
  double zero[3] = {0, 0, 0}, unable[3] = {0, 0, 0};
  const double *pieces[CK__EXCHANGE_MAX_LOCAL];
  for (size_t i = 0; i < exchange->local; ++i)
    pieces[i] = i ? zero : mine;
  CK_TRY(ck__exchange_sum(exchange, pieces, unable, 3));
  exchange->on_devices = unable[0] == 0;
  exchange->averages = exchange->on_devices && unable[1] == 0;
  exchange->swaps = exchange->on_devices && unable[2] == 0;
  if (exchange->on_devices) {
    /* This process could, so it has the transport. */
    assert(exchange->devices);
    CK_TRY(exchange->devices->join(exchange, queues, &exchange->devices_state));
  }
  exchange->captures =
      exchange->on_devices && (able & CK__DEVICES_CAPTURE) != 0;
  exchange->devices_decided = 1;
  *on_devices = exchange->on_devices;
fail:
  return status;
}

int ck__exchange_averages(const ck__exchange *exchange) {
  assert(well_formed(exchange));
  return exchange->averages;
}

int ck__exchange_captures(const ck__exchange *exchange) {
  assert(well_formed(exchange));
  return exchange->captures;
}

/* Whether local member i's calls go on the devices. */
static int member_on_devices(const ck__exchange *exchange, size_t i) {
  return exchange->on_devices && exchange->devices_state && i < exchange->local;
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
  assert(well_formed(exchange));
  if (member_on_devices(exchange, i))
    return exchange->devices->member_sum(exchange->devices_state, i, stream,
                                         data, counts, n, double_precision,
                                         average);
  return not_on_devices(exchange, "sum", "sum");
}

ck_status ck__exchange_swaps(ck__exchange *exchange, ck_queue *const *queues,
                             int *swaps) {
  assert(well_formed(exchange));
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
  assert(well_formed(exchange));
  if (member_on_devices(exchange, i))
    return exchange->devices->member_swap(exchange->devices_state, i, stream,
                                          sends, n_sends, receives, n_receives);
  return not_on_devices(exchange, "swap", "exchange");
}

void ck__exchange_abort_devices(ck__exchange *exchange) {
  if (exchange && exchange->devices_state)
    exchange->devices->abort(exchange->devices_state);
}

ck_status ck__exchange_sum_buffers(ck__exchange *exchange,
                                   ck_queue *const *queues,
                                   ck_buffer *const *buffers, size_t count,
                                   int double_precision, int average) {
  assert(well_formed(exchange));
  assert(queues && buffers);
  ck_status status = CK_OK;
  int on_devices = 0;
  CK_TRY(ck__exchange_on_devices(exchange, queues, &on_devices));
  if (on_devices) {
    assert(exchange->devices_state);
    double started = ck__seconds();
    status = exchange->devices->sum(exchange->devices_state, queues, buffers,
                                    count, double_precision, average);
    exchange->seconds += ck__seconds() - started;
    return status;
  }
  size_t local = exchange->local, needed = (local + 1) * count;
  if (exchange->staging_count < needed) {
    double *grown = realloc(exchange->staging, needed * sizeof *grown);
    if (!grown)
      return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
    exchange->staging = grown;
    exchange->staging_count = needed;
  }
  const double *pieces[CK__EXCHANGE_MAX_LOCAL];
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
  assert(buffer && (buffer->data || buffer->capacity == 0));
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

ck_status ck__exchange_pass(ck__exchange *exchange, int forward, size_t item,
                            const void *const *send, const size_t *counts,
                            ck__exchange_buffer *received) {
  assert(well_formed(exchange));
  assert(send && counts && received);
  ck_status status = CK_OK;
  double started = ck__seconds();
  size_t local = exchange->local;
  for (size_t i = 0; i < local; ++i)
    count_message(exchange, i, (uint64_t)counts[i] * item);
  /* Within the process: member i's items go to i + 1 (or i - 1). */
  for (size_t i = 0; i + 1 < local; ++i) {
    size_t from = forward ? i : i + 1, to = forward ? i + 1 : i;
    CK_TRY(buffer_fill(&received[to], item, send[from], counts[from]));
  }
  /* The end of the process's line: to the next (the previous) process,
   * or, alone, to the other end. The count crosses first. */
  size_t edge = forward ? local - 1 : 0, other = forward ? 0 : local - 1;
  int to = rank_beside(exchange, forward),
      from = rank_beside(exchange, !forward);
  uint64_t out = counts[edge], in = 0;
  CK_TRY(exchange->ops->sendrecv(exchange->state, TAG_PASS_COUNT, sizeof out,
                                 &out, 1, to, &in, 1, from));
  CK_TRY(count_fits(exchange, "an exchange", out > in ? out : in, "items"));
  CK_TRY(ck__exchange_buffer_hold(&received[other], item, (size_t)in));
  CK_TRY(item_fits(exchange, item));
  CK_TRY(exchange->ops->sendrecv(exchange->state, TAG_PASS_ITEMS, item,
                                 send[edge], (size_t)out, to,
                                 received[other].data, (size_t)in, from));
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

/* The route's messages between processes: each local member's items sent
 * to its partner on another process, then received from one, counts
 * first. Sends are posted without waiting, so no order of the processes
 * can wait for itself. */
static ck_status route_across(ck__exchange *exchange, size_t item,
                              const void *const *send, const size_t *counts,
                              const size_t *to, const size_t *from,
                              ck__exchange_buffer *received) {
  ck_status status = CK_OK;
  const ck__exchange_ops *ops = exchange->ops;
  size_t local = exchange->local, first = exchange->first;
  uint64_t out[CK__EXCHANGE_MAX_LOCAL];
  for (size_t i = 0; i < local; ++i) {
    int rank = ck__exchange_rank_of(exchange, to[i]);
    if (rank == exchange->rank)
      continue;
    out[i] = counts[i];
    CK_TRY(count_fits(exchange, "an exchange", out[i], "items"));
    CK_TRY(ops->post(exchange->state, ROUTE_TAG(to[i], 0), sizeof out[i],
                     &out[i], 1, rank));
    CK_TRY(ops->post(exchange->state, ROUTE_TAG(to[i], 1), item, send[i],
                     counts[i], rank));
  }
  for (size_t i = 0; i < local; ++i) {
    int rank = ck__exchange_rank_of(exchange, from[i]);
    uint64_t in = 0;
    if (rank == exchange->rank)
      continue;
    CK_TRY(ops->receive(exchange->state, ROUTE_TAG(first + i, 0), sizeof in,
                        &in, 1, rank));
    CK_TRY(count_fits(exchange, "an exchange", in, "items"));
    CK_TRY(ck__exchange_buffer_hold(&received[i], item, (size_t)in));
    CK_TRY(ops->receive(exchange->state, ROUTE_TAG(first + i, 1), item,
                        received[i].data, (size_t)in, rank));
  }
fail:
  /* The sends end before their counts and items may go; a failure's
   * message stands. */
  if (status == CK_OK) {
    status = ops->settle(exchange->state);
  } else {
    ck__error_saved saved;
    ck__error_save(&saved);
    ops->settle(exchange->state);
    ck__error_restore(&saved);
  }
  return status;
}

ck_status ck__exchange_route(ck__exchange *exchange, size_t item,
                             const void *const *send, const size_t *counts,
                             const size_t *to, const size_t *from,
                             ck__exchange_buffer *received) {
  assert(well_formed(exchange));
  assert(send && counts && to && from && received);
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
  for (size_t i = 0; i < local; ++i)
    if (to[i] != first + i)
      count_message(exchange, i, (uint64_t)counts[i] * item);
  /* Within the process: straight into the partner's buffer. */
  for (size_t i = 0; i < local; ++i) {
    if (to[i] < first || to[i] >= first + local)
      continue;
    assert(from[to[i] - first] == first + i);
    CK_TRY(buffer_fill(&received[to[i] - first], item, send[i], counts[i]));
  }
  CK_TRY(item_fits(exchange, item));
  CK_TRY(route_across(exchange, item, send, counts, to, from, received));
fail:
  exchange->seconds += ck__seconds() - started;
  return status;
}

ck_status ck__exchange_gather_items(ck__exchange *exchange, size_t item,
                                    const void *const *send,
                                    const size_t *counts,
                                    ck__exchange_buffer *all,
                                    size_t *member_counts) {
  assert(well_formed(exchange));
  assert(send && counts && all);
  ck_status status = CK_OK;
  size_t members = exchange->members, local = exchange->local;
  int ranks = exchange->ranks;
  uint64_t *every = calloc(members, sizeof *every);
  size_t *offsets = calloc((size_t)ranks + 1, sizeof *offsets);
  uint64_t mine[CK__EXCHANGE_MAX_LOCAL];
  if (!every || !offsets)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  for (size_t i = 0; i < local; ++i) {
    mine[i] = counts[i];
    count_to_others(exchange, i, (uint64_t)counts[i] * item);
  }
  CK_TRY(ck__exchange_gather_rows(exchange, mine, sizeof *mine, sizeof *every,
                                  every));
  double started = ck__seconds();
  /* Each rank's items begin where the previous rank's end. */
  for (int r = 0; r < ranks; ++r) {
    offsets[r + 1] = offsets[r];
    for (size_t m = exchange->firsts[r]; m < exchange->firsts[r + 1]; ++m)
      offsets[r + 1] += (size_t)every[m];
  }
  for (size_t m = 0; member_counts && m < members; ++m)
    member_counts[m] = (size_t)every[m];
  size_t total = offsets[ranks], before = offsets[exchange->rank];
  status = ck__exchange_buffer_hold(all, item, total);
  unsigned char *out = all->data;
  for (size_t i = 0; status == CK_OK && i < local; ++i) {
    if (counts[i])
      memcpy(out + before * item, send[i], counts[i] * item);
    before += counts[i];
  }
  if (status == CK_OK)
    status = count_fits(exchange, "a gather", total, "items");
  if (status == CK_OK)
    status = item_fits(exchange, item);
  if (status == CK_OK)
    status = exchange->ops->gather(exchange->state, out, item, offsets);
  exchange->seconds += ck__seconds() - started;
fail:
  free(every);
  free(offsets);
  return status;
}

ck_status ck__exchange_gather_keyed(ck__exchange *exchange, size_t fields,
                                    const void *const *send,
                                    const size_t *counts, size_t total,
                                    int arrays, double *const *into,
                                    const size_t *widths, const char *what) {
  assert(fields >= 1 && arrays >= 0 && (arrays == 0 || (into && widths)));
  ck_status status = CK_OK;
  ck__exchange_buffer all = {0};
  unsigned char *seen = NULL;
  CK_TRY(ck__exchange_gather_items(exchange, fields * sizeof(double), send,
                                   counts, &all, NULL));
  /* Every process holds the same records, so all fail alike. */
  if (all.count != total)
    CK_FAIL(CK_ERROR_MISMATCH, "the members hold %zu %s, not %zu", all.count,
            what, total);
  /* Each key once: a key given twice would leave another unwritten. */
  seen = calloc(total / 8 + 1, 1);
  if (!seen)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory for %zu keys", total);
  const double *record = all.data;
  for (size_t k = 0; k < all.count; ++k, record += fields) {
    if (!(record[0] >= 0 && record[0] < (double)total) ||
        record[0] != (double)(size_t)record[0])
      CK_FAIL(CK_ERROR_MISMATCH,
              "one of the %s is keyed %g, not a whole number below %zu", what,
              record[0], total);
    size_t key = (size_t)record[0];
    if (seen[key / 8] & (1u << key % 8))
      CK_FAIL(CK_ERROR_MISMATCH, "two of the %s are keyed %zu", what, key);
    seen[key / 8] |= (unsigned char)(1u << key % 8);
    const double *value = record + 1;
    for (int q = 0; q < arrays; ++q)
      if (into[q]) {
        memcpy(into[q] + widths[q] * key, value, widths[q] * sizeof *value);
        value += widths[q];
      }
    assert(value <= record + fields);
  }
fail:
  free(seen);
  free(all.data);
  return status;
}
