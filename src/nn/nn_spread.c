/*
 * nn_spread.c - what crosses between a network's members (nn_members.c)
 * where it has several: the probe of their speeds, and their gradients
 * summed.
 *
 * A training step is one phase where every member is a CUDA device and
 * NCCL is there: each member's step sums its gradients through its own
 * NCCL communicator, by buckets, and replays as one CUDA graph. Elsewhere
 * the members' steps end in their gradients; the process sums them
 * between two phases, on the host (and over MPI) or, where members run
 * in turn on one thread, through NCCL for all.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "nn/nn_members.h"

/* The most bytes of gradients in a bucket; a larger layer is one alone. A
 * 784-1024-1024-10 network's are then its three layers, each summed once
 * its gradient is computed. */
#define BUCKET_BYTES (4u << 20)

/* Whether every member takes as many rows of total; the members' cuts
 * cover total once. */
static int rows_equal(const ck__nn_spread *spread, uint32_t total) {
  uint64_t start = 0, count = 0, first_count = 0, end = 0;
  int equal = 1;
  for (size_t m = 0; m < spread->count; ++m) {
    ck__engine_share(spread->engine, m, total, &start, &count);
    assert(start == end);
    end = start + count;
    first_count = m ? first_count : count;
    equal = equal && count == first_count;
  }
  assert(end == total);
  (void)end; /* read by the asserts alone */
  return equal;
}

/* The host's room for the gradients: every local member's and their sum,
 * packed, and a layer in the widest layout for each member. */
static ck_status make_staging(ck__nn_spread *spread) {
  const nn_state *state = &spread->members[0]->state;
  spread->parameters = 0;
  spread->widest = 0;
  for (int l = 1; l <= state->layers; ++l)
    spread->parameters += (size_t)state->sizes[l] * (state->sizes[l - 1] + 1);
  for (size_t i = 0; i < spread->local; ++i) {
    const nn_state *member = &spread->members[i]->state;
    for (int l = 1; l <= member->layers; ++l) {
      size_t reals = (size_t)member->sizes[l] * member->pitch[l];
      spread->widest = reals > spread->widest ? reals : spread->widest;
    }
  }
  spread->gradients = calloc((spread->local + 1) * spread->parameters,
                             sizeof *spread->gradients);
  spread->scratch =
      calloc(spread->local * spread->widest, sizeof *spread->scratch);
  if (!spread->gradients || !spread->scratch)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY,
                    "out of host memory for the gradients of %zu parameters",
                    spread->parameters);
  return CK_OK;
}

/* ---- before training ---------------------------------------------------- */

static ck_status make_gradients(void *context, size_t i) {
  ck_status status = CK_OK;
  const ck__nn_spread *spread = context;
  nn_state *state = &spread->members[i]->state;
  for (int l = 1; l <= state->layers; ++l)
    if (!state->gradients[l])
      CK_TRY(ck__buffer_make_zeroed(
          state->queue, (size_t)state->sizes[l] * state->pitch[l],
          state->real_size, "gradients", &state->gradients[l]));
fail:
  return status;
}

/* One member's gradient passes over a trial share, for the probe. */
typedef struct probe_trial {
  ck_nn *member;
  uint32_t rows, batch;
} probe_trial;

static ck_status probe_passes(void *context, uint64_t count) {
  probe_trial *trial = context;
  nn_state *state = &trial->member->state;
  ck__nn_step step = {.count = trial->rows, .scale = 1.0 / trial->batch};
  ck_status status = CK_OK;
  for (uint64_t k = 0; k < count && status == CK_OK; ++k)
    status = ck__nn_pass(state, trial->member->steps, &step);
  return status == CK_OK ? ck_queue_finish(state->queue) : status;
}

typedef struct probe_call {
  ck__nn_spread *spread;
  uint32_t rows, batch;
  double *speeds;
} probe_call;

/* A member's rows a second on an equal share of the batch, from gradient
 * passes alone (the weights stay). */
static ck_status probe_member(void *context, size_t i) {
  probe_call *call = context;
  probe_trial trial = {call->spread->members[i], call->rows, call->batch};
  double passes = 0;
  ck_status status = ck__nn_ensure_capacity(trial.member, trial.rows);
  if (status == CK_OK)
    status = ck__spread_time(probe_passes, &trial, 64, &passes);
  call->speeds[i] = passes * trial.rows;
  return status;
}

/* Each device's rows a second: the speeds rows are dealt by. The probe's
 * time is not the members' compute. */
static ck_status probe(ck__nn_spread *spread, uint32_t batch, double *speeds) {
  ck__spread_run *run = ck__engine_run(spread->engine);
  double kept[CK_SPREAD_MAX_LOCAL];
  uint32_t rows = batch / (uint32_t)spread->count;
  probe_call call = {spread, rows < 1 ? 1 : rows, batch, speeds};
  memcpy(kept, run->compute_s, run->local * sizeof *kept);
  ck_status status = ck__engine_each(spread->engine, probe_member, &call);
  memcpy(run->compute_s, kept, run->local * sizeof *kept);
  return status;
}

/* The buckets, from the output layer down: whole layers, up to
 * BUCKET_BYTES each (a larger layer alone). They cover every layer once. */
static void make_buckets(ck__nn_spread *spread) {
  const nn_state *state = &spread->members[0]->state;
  ck__nn_buckets *buckets = &spread->buckets;
  size_t bytes = 0;
  buckets->count = 0;
  for (int l = state->layers; l >= 1; --l) {
    size_t layer = (size_t)state->sizes[l] * state->pitch[l] * state->real_size;
    if (buckets->count == 0 || bytes + layer > BUCKET_BYTES) {
      buckets->high[buckets->count++] = l;
      bytes = 0;
    }
    buckets->low[buckets->count - 1] = l;
    bytes += layer;
  }
#ifndef NDEBUG
  int next = state->layers;
  for (int b = 0; b < buckets->count; ++b) {
    assert(buckets->high[b] == next && buckets->low[b] <= buckets->high[b]);
    next = buckets->low[b] - 1;
  }
  assert(next == 0);
#endif
}

/* Each member's sums go through its own NCCL communicator. */
static ck_status join_exchange(void *context, size_t i) {
  ck__nn_spread *spread = context;
  nn_state *state = &spread->members[i]->state;
  state->exchange = spread->exchange;
  state->member = i;
  return CK_OK;
}

ck_status ck__nn_spread_measure(ck__nn_spread *spread, uint32_t batch,
                                double *speeds, int *measured) {
  ck_status status = CK_OK;
  CK_TRY(ck__engine_agree(spread->engine, make_staging(spread)));
  /* Members that sum keep their gradients apart. */
  CK_TRY(ck__engine_each(spread->engine, make_gradients, spread));
  *measured = !spread->shares;
  if (*measured)
    CK_TRY(probe(spread, batch, speeds));
fail:
  return status;
}

ck_status ck__nn_spread_choose_sums(ck__nn_spread *spread) {
  ck_status status = CK_OK;
  ck__spread_run *run = ck__engine_run(spread->engine);
  /* Whether gradients are summed device to device, and NCCL's setup
   * (near a second across processes), before the clocks start. */
  int on_devices = 0;
  CK_TRY(ck__exchange_on_devices(run->exchange, run->queues, &on_devices));
  spread->averages = ck__exchange_averages(run->exchange);
  spread->way = !on_devices               ? SUM_HOST
                : ck__spread_in_turn(run) ? SUM_GROUPED
                                          : SUM_MEMBERS;
  make_buckets(spread);
  if (spread->way == SUM_MEMBERS)
    CK_TRY(ck__engine_each(spread->engine, join_exchange, spread));
fail:
  return status;
}

/* ---- training ----------------------------------------------------------- */

ck_status ck__nn_spread_read_gradient(ck__nn_spread *spread, size_t i) {
  ck_status status = CK_OK;
  nn_state *state = &spread->members[i]->state;
  double *into = spread->gradients + i * spread->parameters;
  double *scratch = spread->scratch + i * spread->widest;
  for (int l = 1; l <= state->layers; ++l) {
    size_t reals = (size_t)state->sizes[l] * (state->sizes[l - 1] + 1);
    CK_TRY(ck__nn_layer_load(state, l, state->gradients[l], scratch));
    memcpy(into, scratch, reals * sizeof *into);
    into += reals;
  }
fail:
  return status;
}

/* The summed gradient written to member i (through the host), and its
 * optimiser step. */
static ck_status apply_member(void *context, size_t i) {
  ck_status status = CK_OK;
  const batch_call *call = context;
  ck__nn_spread *spread = call->nn->spread;
  ck_nn *member = spread->members[i];
  nn_state *state = &member->state;
  const double *sum = spread->gradients + spread->local * spread->parameters;
  double *scratch = spread->scratch + i * spread->widest;
  for (int l = 1; l <= state->layers; ++l) {
    size_t reals = (size_t)state->sizes[l] * (state->sizes[l - 1] + 1);
    if (spread->way == SUM_HOST) {
      memcpy(scratch, sum, reals * sizeof *sum);
      CK_TRY(ck__nn_layer_store(state, l, state->gradients[l], scratch));
    }
    CK_TRY(member->steps->apply(state, l, call->update));
    sum += reals;
  }
fail:
  return status;
}

/* Every local member's gradients summed through NCCL from this thread,
 * layer by layer from the output down, as the members' own sums go. */
static ck_status sum_grouped(ck__nn_spread *spread, int average) {
  ck_status status = CK_OK;
  ck__spread_run *run = ck__engine_run(spread->engine);
  ck_buffer *buffers[CK_SPREAD_MAX_LOCAL];
  const nn_state *first = &spread->members[0]->state;
  for (int l = first->layers; l >= 1; --l) {
    for (size_t i = 0; i < run->local; ++i)
      buffers[i] = spread->members[i]->state.gradients[l];
    CK_TRY(ck__exchange_sum_buffers(run->exchange, run->queues, buffers,
                                    (size_t)first->sizes[l] * first->pitch[l],
                                    first->double_precision, average));
  }
fail:
  return status;
}

/* Whether the sums of a batch of count rows average the members'
 * gradients: NCCL averages, and every member takes as many rows. */
int ck__nn_spread_averages(const ck__nn_spread *spread, uint32_t count) {
  return rows_equal(spread, count) && spread->averages &&
         (spread->way == SUM_GROUPED || spread->way == SUM_MEMBERS);
}

/* Member i's step recorded, its buffers first grown to what evaluating
 * its rows of the attached sets takes (ck__nn_forward_rows), so that no
 * evaluation moves them and the recording holds. */
static ck_status record_member(void *context, size_t i) {
  ck_status status = CK_OK;
  const batch_call *call = context;
  ck_nn *member = call->nn->members[i];
  const ck_nn_set sets[] = {CK_NN_VALIDATION, CK_NN_TEST};
  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; ++k) {
    uint32_t start, rows;
    ck__nn_spread_cut(call->nn, i, call->nn->state.sets[sets[k]].rows, &start,
                      &rows);
    CK_TRY(ck__nn_ensure_capacity(member, ck__nn_chunk_rows(member, rows)));
  }
  CK_TRY(ck__nn_batch_member(context, i));
fail:
  return status;
}

ck_status ck__nn_spread_record(ck_nn *nn, uint32_t count,
                               const ck__nn_update *update) {
  ck__nn_spread *spread = nn->spread;
  if (spread->way != SUM_MEMBERS)
    return CK_OK;
  batch_call call = {
      nn, 0, count, update, ck__nn_spread_averages(spread, count), 1};
  return ck__nn_spread_each(nn, record_member, &call);
}

/* A batch's gradients summed on the devices: each local member's sent
 * once to every other member (the exchange counts the host's sums). */
static void count_device_sums(ck__nn_spread *spread) {
  ck__spread_run *run = ck__engine_run(spread->engine);
  size_t real = spread->members[0]->state.double_precision ? 8 : 4;
  for (size_t i = 0; i < run->local; ++i)
    run->bytes_sent[i] +=
        (uint64_t)(spread->count - 1) * spread->parameters * real;
}

ck_status ck__nn_spread_sum(ck__nn_spread *spread, const batch_call *call) {
  ck_status status = CK_OK;
  if (spread->way == SUM_MEMBERS || spread->way == SUM_GROUPED)
    count_device_sums(spread);
  if (spread->way == SUM_MEMBERS)
    return CK_OK;
  ck__spread_run *run = ck__engine_run(spread->engine);
  if (spread->way == SUM_GROUPED) {
    CK_TRY(sum_grouped(spread, call->average));
  } else {
    CK_TRY(ck__exchange_sum_rows(
        run->exchange, spread->gradients, spread->parameters,
        spread->gradients + run->local * spread->parameters,
        spread->parameters));
  }
  CK_TRY(ck__engine_each(spread->engine, apply_member, (void *)call));
fail:
  return status;
}

ck_status ck__nn_spread_combine(ck__nn_spread *spread, const double (*sums)[2],
                                double total[2], int32_t *predicted,
                                uint32_t rows) {
  ck_status status = CK_OK;
  const double *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; sums && i < spread->local; ++i)
    pieces[i] = sums[i];
  if (sums)
    CK_TRY(ck__exchange_sum(spread->exchange, pieces, total, 2));
  /* Every member's predictions to every process, a member at a time. */
  for (size_t m = 0; predicted && ck__exchange_ranks(spread->exchange) > 1 &&
                     m < spread->count;
       ++m) {
    uint64_t start = 0, count = 0;
    ck__engine_share(spread->engine, m, rows, &start, &count);
    if (count)
      CK_TRY(ck__exchange_broadcast(spread->exchange, m, predicted + start,
                                    count * sizeof *predicted));
  }
fail:
  return status;
}
