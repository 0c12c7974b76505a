/*
 * nn_spread.c - a network's members. A network on one device is a
 * spread of one member, through the same engine. A spread network (over
 * several devices and processes) is data parallel: every member holds the
 * whole network, from the same seed or model file, and every attached
 * set. Each takes a contiguous part of every batch's rows, from the order
 * all compute alike; the gradients of their parts are summed over all
 * members, and each member takes the same optimiser step from the sum, so
 * the weights stay the same everywhere.
 *
 * The member engine (framework/engine.h) makes the members and runs each
 * phase on every member of the process at once, a host thread a member
 * (ck__engine_each; one member runs on the calling thread, summing
 * nothing). A training step is one phase where every member is a CUDA
 * device and NCCL is there: each member's step sums its gradients
 * through its own NCCL communicator, by buckets, and replays as one CUDA
 * graph. Elsewhere the members' steps end in their gradients;
 * the process sums them between two phases, on the host (and over MPI)
 * or, where members run in turn on one thread, through NCCL for all.
 *
 * Rows are dealt in proportion to the shares, or to the speeds a short
 * probe measures before training: a full batch is dealt, and any other
 * count of rows (an epoch's last batch, a set evaluated) is cut at the
 * same proportions.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/engine.h"
#include "nn/nn_internal.h"

/* Rows a member that the first deal, before any training, deals; a set
 * evaluated then is cut in its proportions. */
#define FIRST_DEAL_ROWS 1024u
/* The most bytes of gradients in a bucket; a larger layer is one alone. A
 * 784-1024-1024-10 network's are then its three layers, each summed once
 * its gradient is computed. */
#define BUCKET_BYTES (4u << 20)

/* How the members' gradients are summed. */
typedef enum sum_way {
  SUM_NONE,    /* one member: its own steps, the optimiser's fused */
  SUM_HOST,    /* read to the host, summed there and by MPI, written back */
  SUM_GROUPED, /* NCCL for every local member from this thread, between
                  two phases (members in turn: one thread may not drive
                  several NCCL members apart) */
  SUM_MEMBERS  /* NCCL by buckets, within each member's step */
} sum_way;

struct ck__nn_spread {
  /* The members, their threads and the exchange; the engine's exchange;
   * what the members are made of, while they are made. */
  ck__engine *engine;
  ck__exchange *exchange;
  const struct make_call *making;
  ck_nn **members;     /* local ones; the first is the network */
  size_t local, count; /* members here, and over every process */
  int owned;           /* the first member is the network's owner's */
  int shares;          /* the spread gave shares */
  sum_way way;
  int averages; /* NCCL may average the gradients (ncclAvg) */
  ck__nn_buckets buckets;
  size_t parameters; /* weights and biases of all layers */
  double *gradients; /* SUM_HOST: local + 1 runs of parameters: each local
                        member's gradient, then their sum */
  size_t widest;     /* reals of the widest layer in a member's layout */
  double *scratch;   /* a run of widest for each local member */
};

/* The rows of total (a batch, a set) that member m takes: its slice of
 * the deal, scaled. Neighbours' cuts meet, and cover 0 .. total. */
static void cut(const ck__nn_spread *spread, size_t m, uint32_t total,
                uint32_t *start, uint32_t *count) {
  uint64_t dealt = ck__engine_run(spread->engine)->total, first, units;
  ck__engine_slice(spread->engine, m, &first, &units);
  uint64_t from = first * total / dealt;
  uint64_t to = (first + units) * total / dealt;
  *start = (uint32_t)from;
  *count = (uint32_t)(to - from);
}

/* The first member of this process is member `first` of all. */
static size_t first_member(const ck__nn_spread *spread) {
  return ck__exchange_first(spread->exchange);
}

void ck__nn_spread_cut(const ck_nn *nn, size_t i, uint32_t total,
                       uint32_t *start, uint32_t *count) {
  assert(nn->spread);
  cut(nn->spread, first_member(nn->spread) + i, total, start, count);
}

/* Whether every member takes as many rows of total; the members' cuts
 * cover total once. */
static int rows_equal(const ck__nn_spread *spread, uint32_t total) {
  uint32_t start = 0, count = 0, first_count = 0, end = 0;
  int equal = 1;
  for (size_t m = 0; m < spread->count; ++m) {
    cut(spread, m, total, &start, &count);
    assert(start == end);
    end = start + count;
    first_count = m ? first_count : count;
    equal = equal && count == first_count;
  }
  assert(end == total);
  (void)end; /* read by the asserts alone */
  return equal;
}

ck_status ck__nn_spread_each(ck_nn *nn, ck_status (*fn)(void *, size_t),
                             void *context) {
  assert(nn->spread);
  return ck__engine_each(nn->spread->engine, fn, context);
}

void ck__nn_spread_destroy(ck__nn_spread *spread) {
  if (!spread)
    return;
  /* No sum in flight when the exchange goes. */
  for (size_t i = 0; spread->engine && i < spread->local; ++i)
    if (spread->members[i])
      (void)ck_queue_finish(spread->members[i]->state.queue);
  ck__engine_destroy(spread->engine);
  free(spread->members);
  free(spread->gradients);
  free(spread->scratch);
  free(spread);
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

/* What the members are made of. */
typedef struct make_call {
  const ck_nn_config *config;
  const char *model;
  const ck__nn_tuning *tuning;
  int double_precision;
} make_call;

/* A member: the whole network on its device (the engine's allocate). */
static ck_status allocate(void *self, const ck__engine_member *member,
                          ck_queue **queue) {
  ck__nn_spread *spread = self;
  const make_call *call = spread->making;
  ck_nn **made = &spread->members[member->index];
  ck_status status =
      call->model ? ck__nn_model_allocate(member->device, call->model,
                                          call->config, call->tuning, made)
                  : ck__nn_allocate(member->device, call->config,
                                    call->double_precision, call->tuning, made);
  if (status == CK_OK)
    *queue = (*made)->state.queue;
  return status;
}

static ck_status set_up(void *self, size_t i) {
  ck__nn_spread *spread = self;
  return ck__nn_set_up(spread->members[i], !spread->making->model);
}

/* The first member, once made, is the network, which its owner
 * destroys. */
static void teardown(void *self, size_t i) {
  ck__nn_spread *spread = self;
  if (i > 0 || !spread->owned)
    ck_nn_destroy(spread->members[i]);
  spread->members[i] = NULL;
}

/* The MLP's members for the engine: every member holds the whole
 * network; rows are dealt at the first batch (ck__nn_spread_prepare). */
static const ck__engine_kind nn_kind = {.unit_name = "samples",
                                        .granule = 1,
                                        .allocate = allocate,
                                        .set_up = set_up,
                                        .teardown = teardown};

ck_status ck__nn_spread_create(const ck_spread *given,
                               const ck_nn_config *config, const char *model,
                               int double_precision,
                               const ck__nn_tuning *tuning, ck_nn **made) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = calloc(1, sizeof *spread);
  *made = NULL;
  if (!spread)
    return ck__fail(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  make_call call = {config, model, tuning, double_precision};
  spread->making = &call;
  spread->shares = given->shares != NULL;
  spread->members = calloc(given->device_count, sizeof *spread->members);
  if (!spread->members)
    CK_FAIL(CK_ERROR_OUT_OF_MEMORY, "out of host memory");
  /* A network too large for its device is known before any member draws
   * its weights and builds its kernels, which can take many seconds. */
  CK_TRY(ck__engine_create(&nn_kind, spread, given, FIRST_DEAL_ROWS,
                           &spread->engine));
  spread->making = NULL;
  spread->exchange = ck__engine_run(spread->engine)->exchange;
  spread->local = ck__engine_local(spread->engine);
  spread->count = ck__engine_members(spread->engine);
  /* One member sums nothing: no staging. */
  if (spread->count > 1)
    CK_TRY(ck__engine_agree(spread->engine, make_staging(spread)));
  /* Equal parts until the first batch deals them. */
  CK_TRY(ck__engine_deal(spread->engine,
                         (uint64_t)spread->count * FIRST_DEAL_ROWS, NULL));
  ck_nn *network = spread->members[0];
  network->spread = spread;
  network->members = spread->members;
  network->local = spread->local;
  spread->owned = 1;
  *made = network;
  return CK_OK;
fail:
  ck__nn_spread_destroy(spread);
  return status;
}

ck_status ck_nn_create_spread(const ck_spread *spread,
                              const ck_nn_config *config, ck_nn **nn) {
  CK__REQUIRE(spread);
  CK__REQUIRE(config);
  CK__REQUIRE(nn);
  return ck__nn_spread_create(spread, config, NULL, 0, NULL, nn);
}

/* ---- before training ---------------------------------------------------- */

/* Each layer's gradient buffer on a member, once. */
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

ck_status ck__nn_spread_prepare(ck_nn *nn, uint32_t batch) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  assert(spread);
  ck__spread_run *run = ck__engine_run(spread->engine);
  /* One member's steps update its weights from its own gradient, fused;
   * members that sum keep their gradients apart. */
  if (spread->count > 1)
    CK_TRY(ck__engine_each(spread->engine, make_gradients, spread));
  double speeds[CK_SPREAD_MAX_LOCAL] = {0}; /* filled by probe */
  int measure = !spread->shares && spread->count > 1;
  if (measure)
    CK_TRY(probe(spread, batch, speeds));
  if ((status =
           ck__engine_deal(spread->engine, batch, measure ? speeds : NULL)))
    CK_FAIL_PREFIX(status, "batch: ");
  /* Whether gradients are summed device to device, and NCCL's setup
   * (near a second across processes), before the clocks start. One
   * member sums nothing. */
  int on_devices = 0;
  if (spread->count > 1)
    CK_TRY(ck__exchange_on_devices(run->exchange, run->queues, &on_devices));
  spread->averages = ck__exchange_averages(run->exchange);
  spread->way = spread->count == 1        ? SUM_NONE
                : !on_devices             ? SUM_HOST
                : ck__spread_in_turn(run) ? SUM_GROUPED
                                          : SUM_MEMBERS;
  make_buckets(spread);
  if (spread->way == SUM_MEMBERS)
    CK_TRY(ck__engine_each(spread->engine, join_exchange, spread));
fail:
  return status;
}

/* ---- training ----------------------------------------------------------- */

/* Member i's gradient, read into its run of the staging, packed. */
static ck_status read_gradient(ck__nn_spread *spread, size_t i) {
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

/* A training batch's call on its members. */
typedef struct batch_call {
  ck_nn *nn;
  uint32_t offset, count;
  const ck__nn_update *update;
  int average;     /* the sums average (every member's rows alike) */
  int record_only; /* ck__nn_step's */
} batch_call;

/* Member i's step on its rows of the batch, ending as the sum's way says.
 * Its deltas are scaled by 1 / the batch's rows, as one device scales
 * them, so that the members' gradients sum to the batch's; where the sum
 * averages, by 1 / its rows. */
static ck_status batch_member(void *context, size_t i) {
  const batch_call *call = context;
  ck_nn *nn = call->nn, *member = nn->members[i];
  sum_way way = nn->spread->way;
  uint32_t start, rows;
  ck__nn_spread_cut(nn, i, call->count, &start, &rows);
  ck__nn_step step = {.offset = call->offset + start,
                      .count = rows,
                      .position = member->position,
                      .scale = 1.0 / call->count,
                      .update = call->update,
                      .record_only = call->record_only};
  if (!call->record_only)
    member->position += rows;
  if (way == SUM_MEMBERS)
    step.buckets = &nn->spread->buckets;
  else if (way != SUM_NONE)
    step.update = NULL;
  if (call->average) {
    step.average = 1;
    step.scale = 1.0 / rows;
  }
  ck_status status = ck__nn_train_step(member, &step);
  if (status == CK_OK && way == SUM_HOST)
    status = read_gradient(nn->spread, i);
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
static int batch_averages(const ck__nn_spread *spread, uint32_t count) {
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
  CK_TRY(batch_member(context, i));
fail:
  return status;
}

ck_status ck__nn_spread_record(ck_nn *nn, uint32_t count,
                               const ck__nn_update *update) {
  ck__nn_spread *spread = nn->spread;
  if (spread->way != SUM_MEMBERS)
    return CK_OK;
  batch_call call = {nn, 0, count, update, batch_averages(spread, count), 1};
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

ck_status ck__nn_spread_batch(ck_nn *nn, uint32_t offset, uint32_t count,
                              const ck__nn_update *update) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  batch_call call = {nn, offset, count, update, batch_averages(spread, count),
                     0};
  CK_TRY(ck__nn_spread_each(nn, batch_member, &call));
  if (spread->way == SUM_MEMBERS || spread->way == SUM_GROUPED)
    count_device_sums(spread);
  if (spread->way == SUM_NONE || spread->way == SUM_MEMBERS)
    return CK_OK;
  ck__spread_run *run = ck__engine_run(spread->engine);
  if (spread->way == SUM_GROUPED) {
    CK_TRY(sum_grouped(spread, call.average));
  } else {
    CK_TRY(ck__exchange_sum_rows(
        run->exchange, spread->gradients, spread->parameters,
        spread->gradients + run->local * spread->parameters,
        spread->parameters));
  }
  CK_TRY(ck__engine_each(spread->engine, apply_member, &call));
fail:
  return status;
}

/* ---- results ------------------------------------------------------------ */

/* What the members found of their rows: the epoch's (forward 0) or an
 * attached set's, forward now, each member its cut of the rows. */
typedef struct results_call {
  ck_nn *nn;
  ck_nn_set which;
  int forward, reduce;
  int32_t *predicted;                  /* every row's, or NULL */
  double sums[CK_SPREAD_MAX_LOCAL][2]; /* each local member's loss, hits */
} results_call;

static ck_status results_member(void *context, size_t i) {
  ck_status status = CK_OK;
  results_call *call = context;
  ck_nn *member = call->nn->members[i];
  nn_state *state = &member->state;
  uint32_t start = 0, count = member->position;
  uint64_t hits = 0;
  call->sums[i][0] = call->sums[i][1] = 0;
  if (call->forward) {
    ck__nn_spread_cut(call->nn, i, state->sets[call->which].rows, &start,
                      &count);
    if (count)
      CK_TRY(ck__nn_forward_rows(member, call->which, start, count));
  }
  if (call->reduce && count)
    CK_TRY(member->steps->reduce(state, count, &call->sums[i][0], &hits));
  call->sums[i][1] = (double)hits;
  if (call->predicted && count)
    CK_TRY(ck_buffer_read(state->queue, state->predictions, 0,
                          count * sizeof *call->predicted,
                          call->predicted + start, CK_BLOCKING, NULL));
fail:
  return status;
}

/* The members' results, their sums over every member, and (where asked)
 * every member's predictions on every process. */
static ck_status results(ck_nn *nn, results_call *call, double *loss,
                         uint64_t *hits) {
  ck_status status = CK_OK;
  ck__nn_spread *spread = nn->spread;
  call->nn = nn;
  call->reduce = loss || hits;
  CK_TRY(ck__nn_spread_each(nn, results_member, call));
  double total[2] = {call->sums[0][0], call->sums[0][1]};
  const double *pieces[CK_SPREAD_MAX_LOCAL];
  for (size_t i = 0; i < spread->local; ++i)
    pieces[i] = call->sums[i];
  if (call->reduce && spread->count > 1)
    CK_TRY(ck__exchange_sum(spread->exchange, pieces, total, 2));
  if (loss)
    *loss = total[0];
  if (hits)
    *hits = (uint64_t)total[1];
  /* Every member's predictions to every process, a member at a time. */
  uint32_t rows = nn->state.sets[call->which].rows;
  for (size_t m = 0;
       call->predicted && ck__exchange_ranks(spread->exchange) > 1 &&
       m < spread->count;
       ++m) {
    uint32_t start, count;
    cut(spread, m, rows, &start, &count);
    if (count)
      CK_TRY(ck__exchange_broadcast(spread->exchange, m,
                                    call->predicted + start,
                                    count * sizeof *call->predicted));
  }
fail:
  return status;
}

ck_status ck__nn_spread_reduce(ck_nn *nn, double *loss, uint64_t *hits) {
  results_call call = {.which = CK_NN_TRAIN};
  return results(nn, &call, loss, hits);
}

ck_status ck__nn_spread_forward(ck_nn *nn, ck_nn_set which, double *loss,
                                uint64_t *hits, int32_t *predicted) {
  results_call call = {.which = which, .forward = 1, .predicted = predicted};
  return results(nn, &call, loss, hits);
}

ck_status ck__nn_spread_report(ck_nn *nn, ck_result *result) {
  return ck__engine_report(nn->spread->engine, result);
}

int ck__nn_spread_rank(const ck_nn *nn) {
  assert(nn && nn->spread);
  return ck__engine_rank(nn->spread->engine);
}
